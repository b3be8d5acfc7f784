// SPDX-License-Identifier: BSD-2-Clause
// The embedder's helpers and program types as the verifier reads them (verifier stage): the rows of
// runtime/extensions.hpp put behind the built-in tables' answers.
#include "verifier/ext_protos.hpp"

#include <limits>

#include "runtime/extensions.hpp"
#include "runtime/instance.hpp"

namespace strbpf::verifier {

const runtime::HelperProto* helper_proto(const Env& env, int32_t id) {
    const runtime::HelperProto* builtin = runtime::find_helper(id, env.prog.type);
    const runtime::Extensions* ext = env.inst.extensions();
    return ext ? ext->resolve(id, env.prog.type, builtin) : builtin;
}

void refine_ext_retval(Env& env, int32_t id) {
    const runtime::Extensions* ext = env.inst.extensions();
    const runtime::ExtHelper* h = ext ? ext->helper_by_id(id) : nullptr;
    if (!h || !h->ret_range)
        return;
    Reg& r0 = env.cur.cur().regs[0];
    const auto [lo, hi] = *h->ret_range;
    r0.smin = lo;
    r0.smax = hi;
    if (lo >= std::numeric_limits<int32_t>::min() && hi <= std::numeric_limits<int32_t>::max()) {
        r0.s32min = int32_t(lo);
        r0.s32max = int32_t(hi);
    }
    if (lo >= 0) {
        r0.umin = uint64_t(lo);
        r0.umax = uint64_t(hi);
    }
    reg_sync(r0);
}

bool ext_ctx_access_valid(const Env& env, int32_t off, int size, bool write) {
    const runtime::Extensions* ext = env.inst.extensions();
    const runtime::ExtProgType* t = ext ? ext->prog_type(env.prog.type) : nullptr;
    if (!t || off < 0 || (size != 1 && size != 2 && size != 4 && size != 8) || off % size != 0)
        return false;
    for (const runtime::ExtCtxField& f : t->fields)
        if (uint32_t(off) >= f.offset && uint64_t(off) + uint64_t(size) <= uint64_t(f.offset) + f.size)
            return !write || f.writable;
    return false;
}

bool ext_retval_range(const Env& env, RetvalRange* range) {
    const runtime::Extensions* ext = env.inst.extensions();
    const runtime::ExtProgType* t = ext ? ext->prog_type(env.prog.type) : nullptr;
    if (!t || !t->ret_range)
        return false;
    *range = RetvalRange{t->ret_range->lo, t->ret_range->hi};
    return true;
}

} // namespace strbpf::verifier
