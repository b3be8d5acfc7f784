// SPDX-License-Identifier: BSD-2-Clause
// Loop convergence shared by may_goto and the iterators' next calls (verifier stage): the previous iteration's
// checkpoint, widening of the scalars that changed without mattering, and when a checkpoint closes the loop.
#include "verifier/iter.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace strbpf::verifier {
bool same_callsites(const State& a, const State& b) {
    if (a.frames.size() != b.frames.size())
        return false;
    for (size_t i = 0; i < a.frames.size(); i++)
        if (a.frames[i].callsite != b.frames[i].callsite)
            return false;
    return true;
}

namespace {

// Ids of OLD correspond one to one with ids of CUR (the kernel's check_ids over one widening pass).
struct IdPairs {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    bool match(uint32_t o, uint32_t c) {
        if (!o || !c)
            return o == c;
        for (auto& [a, b] : pairs)
            if (a == o || b == c)
                return a == o && b == c;
        pairs.emplace_back(o, c);
        return true;
    }
};

bool regs_exact(const Reg& o, const Reg& c, IdPairs& ids) {
    Reg a = o, b = c;
    a.id = b.id = a.ref_obj_id = b.ref_obj_id = 0;
    a.precise = b.precise = false;
    return a == b && ids.match(o.id, c.id) && ids.match(o.ref_obj_id, c.ref_obj_id);
}

void maybe_widen(const Reg& o, Reg& c, IdPairs& ids) {
    if (o.type != RegType::scalar || c.type != RegType::scalar)
        return;
    if (o.precise || c.precise || regs_exact(o, c, ids))
        return;
    c = reg_unknown();
}

// The kernel's is_spilled_reg: the slot's lowest-addressed byte holds a spill.
bool is_spill(const StackSlot& s) { return s.bytes[0] == Slot::spill; }

} // namespace

const StoredState* find_prev_entry(const Env& env, const State& cur, bool with_parent) {
    const std::vector<StoredState*>& open = env.path.open_checkpoints[size_t(env.path.pc)];
    for (size_t i = open.size(); i-- > 0;)
        if ((with_parent || open[i] != env.path.cur_parent) && same_callsites(open[i]->st, cur))
            return open[i];
    return nullptr;
}

void widen_imprecise_scalars(const State& old, State& cur) {
    IdPairs ids;
    const size_t frames = std::min(old.frames.size(), cur.frames.size());
    for (size_t fr = frames; fr-- > 0;) {
        const Frame& fo = old.frames[fr];
        Frame& fc = cur.frames[fr];
        for (int r = 0; r < isa::kNumRegs; r++)
            maybe_widen(fo.regs[size_t(r)], fc.regs[size_t(r)], ids);
        const size_t slots = std::min(fo.stack.size(), fc.stack.size());
        for (size_t i = 0; i < slots; i++)
            if (is_spill(fo.stack[i]) && is_spill(fc.stack[i]))
                maybe_widen(fo.stack[i].spilled, fc.stack[i].spilled, ids);
    }
}

bool loop_closed_by(const Env& env, const State& old, const State& cur, int32_t pc) {
    switch (env.facts.loop_point[size_t(pc)]) {
    case kLoopMayGoto:
        return old.may_goto_depth != cur.may_goto_depth && states_equal(env, old, cur, pc, Cmp::all_precise);
    case kLoopIterNext: return states_equal(env, old, cur, pc, Cmp::all_precise) && iter_arg_active(cur);
    default: return false;
    }
}

bool iter_active_depths_differ(const State& old, const State& cur) {
    for (size_t fr = 0; fr < old.frames.size() && fr < cur.frames.size(); fr++) {
        const auto& so = old.frames[fr].stack;
        const auto& sc = cur.frames[fr].stack;
        for (size_t i = 0; i < so.size() && i < sc.size(); i++)
            if (so[i].bytes[0] == Slot::iter && so[i].iter_state == IterState::active &&
                so[i].iter_depth != sc[i].iter_depth)
                return true;
    }
    return false;
}

} // namespace strbpf::verifier
