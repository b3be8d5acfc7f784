// SPDX-License-Identifier: BSD-2-Clause
// bpf_throw (runtime stage): throw_kfunc.hpp.
#include "runtime/kfuncs/throw_kfunc.hpp"

namespace strbpf::runtime::kfuncs {

uint64_t bpf_throw(uint64_t cookie, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    ctx->throw_cookie = cookie;
    ctx->thrown = true;
    ctx->aborted = true; // the engines' way out of every frame; the run's entry turns it into the callback's run
    return 0;
}

} // namespace strbpf::runtime::kfuncs
