// SPDX-License-Identifier: BSD-2-Clause
// Kfunc externs the kfunc table lacks (runtime stage): libbpf leaves a `__weak` one unresolved (its calls
// poisoned, its address 0) and refuses a strong one; a `__weak` one whose prototype is incompatible with the
// kernel's is left unresolved too.
#include <fmt/format.h>

#include "runtime/instance.hpp"

namespace strbpf::runtime {

int32_t weak_kfunc_poison(const loader::ObjectSpec& spec, uint32_t idx) {
    if (idx >= spec.kfunc_extern.size() || spec.kfunc_extern[idx] < 0)
        return -1;
    const size_t ext = size_t(spec.kfunc_extern[idx]);
    if (ext >= spec.externs.size() || !spec.externs[ext].weak)
        return -1;
    return kPoisonCallKfuncBase + int32_t(ext);
}

bool kfunc_unresolved(const loader::ObjectSpec& spec, uint32_t idx) {
    if (idx >= spec.kfunc_extern.size() || spec.kfunc_extern[idx] < 0)
        return false;
    const size_t ext = size_t(spec.kfunc_extern[idx]);
    return ext < spec.externs.size() && spec.externs[ext].weak && spec.externs[ext].incompatible;
}

std::string missing_kfunc_message(const loader::ObjectSpec& spec, uint32_t idx) {
    std::string name = idx < spec.kfuncs.size() ? spec.kfuncs[idx] : "?";
    if (idx < spec.kfunc_extern.size() && spec.kfunc_extern[idx] >= 0 &&
        size_t(spec.kfunc_extern[idx]) < spec.externs.size())
        name = spec.externs[size_t(spec.kfunc_extern[idx])].name;
    return fmt::format("extern (func ksym) '{}': not found in kernel or module BTFs", name);
}

} // namespace strbpf::runtime
