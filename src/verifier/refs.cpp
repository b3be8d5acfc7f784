// SPDX-License-Identifier: BSD-2-Clause
// Reference tracking (verifier stage), the kernel's acquire_reference / release_reference /
// check_reference_leak: a helper that hands out an object the program must give back (bpf_ringbuf_reserve)
// acquires a reference; the pointer and every copy of it carry its id as `ref_obj_id`. Releasing it (bpf_ringbuf_
// submit / _discard) drops the reference and turns every register and spilled slot carrying the id, in every
// frame, into an unknown scalar (the privileged mark_reg_invalid), so no copy can be used or released again. A
// reference still held where the program may end (the exit of the main frame, LD_ABS/IND) is a leak.
#include <fmt/format.h>

#include "verifier/domain/scalar.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {

uint32_t acquire_reference(Env& env, int32_t insn) {
    const uint32_t id = env.new_id();
    env.cur.refs.push_back(RefState{id, insn});
    return id;
}

bool release_reference_nomark(State& st, uint32_t id) {
    for (size_t i = 0; i < st.refs.size(); i++) {
        if (st.refs[i].id != id)
            continue;
        st.refs[i] = st.refs.back(); // release_reference_state: the last one takes the released one's place
        st.refs.pop_back();
        return true;
    }
    return false;
}

bool release_reference(Env& env, uint32_t id) {
    if (id == 0 || !release_reference_nomark(env.cur, id))
        return false;
    auto invalidate = [&](Reg& r) {
        if (r.ref_obj_id == id)
            r = reg_unknown();
    };
    for (Frame& f : env.cur.frames) {
        for (Reg& r : f.regs)
            invalidate(r);
        for (StackSlot& s : f.stack)
            if (s.bytes[0] == Slot::spill)
                invalidate(s.spilled);
    }
    return true;
}

bool check_reference_leak(Env& env, const char* prefix) {
    if (env.cur.frames.size() > 1 || env.cur.refs.empty()) // only where the program itself may end
        return true;
    for (const RefState& ref : env.cur.refs)
        env.note(fmt::format("Unreleased reference id={} alloc_insn={}", ref.id, ref.insn));
    return env.fail(fmt::format("{} would lead to reference leak", prefix));
}

} // namespace strbpf::verifier
