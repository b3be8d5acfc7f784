// SPDX-License-Identifier: BSD-2-Clause
// What a public Extensions shares (api stage): the runtime's set, which objects opened with it keep alive.
#pragma once
#include <memory>

#include "runtime/extensions.hpp"
#include "strbpf/extensions.hpp"

namespace strbpf {

struct Extensions::Impl {
    explicit Impl(void* user) : ext(std::make_shared<runtime::Extensions>(user)) {}
    std::shared_ptr<runtime::Extensions> ext;
};

} // namespace strbpf
