// SPDX-License-Identifier: BSD-2-Clause
// State pruning (verifier stage): when is a new path's state no more general than one already proven safe at
// the same instruction (so the new path can stop), and exact equality for infinite-loop detection.
#include <algorithm>

#include "verifier/env.hpp"
#include "verifier/dynptr.hpp"
#include "verifier/iter.hpp"

namespace strbpf::verifier {
namespace {

struct IdMap {
    explicit IdMap(uint32_t id_gen) : tmp_gen(id_gen) {}
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    uint32_t tmp_gen; // ids above every id the walk made (the kernel's idmap tmp_id_gen)
    // old id must correspond to one cur id, consistently in both directions. A scalar without an id
    // (check_scalar_ids) stands for a new unique one: it matches an old id that no other cur id took.
    bool check(uint32_t old_id, uint32_t cur_id, bool scalar) {
        if (old_id == 0)
            return scalar || cur_id == 0;
        if (cur_id == 0 && !scalar)
            return false;
        if (cur_id == 0)
            cur_id = ++tmp_gen;
        for (auto& [o, c] : pairs) {
            if (o == old_id)
                return c == cur_id;
            if (c == cur_id)
                return false;
        }
        pairs.emplace_back(old_id, cur_id);
        return true;
    }
};

bool range_within(const Reg& o, const Reg& c) {
    return o.umin <= c.umin && c.umax <= o.umax && o.smin <= c.smin && c.smax <= o.smax && o.u32min <= c.u32min &&
           c.u32max <= o.u32max && o.s32min <= c.s32min && c.s32max <= o.s32max && o.var.contains(c.var);
}

bool regs_exact(const Reg& o, const Reg& c, IdMap& ids) {
    Reg a = o, b = c;
    a.id = b.id = a.ref_obj_id = b.ref_obj_id = 0;
    a.precise = b.precise = false;
    return a == b && ids.check(o.id, c.id, false) && ids.check(o.ref_obj_id, c.ref_obj_id, false);
}

bool regsafe(const Reg& o, const Reg& c, IdMap& ids, Cmp cmp) {
    const bool exact = cmp == Cmp::exact;
    if (o.type == RegType::not_init && (!exact || c.type == RegType::not_init))
        return true;
    if (exact)
        return regs_exact(o, c, ids);
    if (o.type != c.type || o.maybe_null != c.maybe_null || o.ringbuf != c.ringbuf || o.rdonly != c.rdonly ||
        o.dynptr != c.dynptr || // the kernel's type flags: MEM_RDONLY, DYNPTR_TYPE_*
        !ids.check(o.ref_obj_id, c.ref_obj_id, false))
        return false;
    switch (o.type) {
    case RegType::scalar:
        // No path below the checkpoint relied on an imprecise scalar's value (precision.cpp).
        if (!o.precise && cmp == Cmp::range)
            return true;
        // Ties by a constant delta must be the same tie: a later comparison refines the others through it.
        if (o.link != c.link || (o.link != Link::none && o.off != c.off))
            return false;
        return range_within(o, c) && ids.check(o.id, c.id, true);
    case RegType::packet:
    case RegType::packet_meta:
        return o.aux <= c.aux && o.off == c.off && ids.check(o.id, c.id, false) && range_within(o, c);
    case RegType::ctx:
    case RegType::btf_id:
    case RegType::packet_end:
    case RegType::sock:
    case RegType::sock_common:
    case RegType::tcp_sock:
    case RegType::xdp_sock:
    case RegType::dynptr:
    case RegType::flow_keys:
    case RegType::func: return regs_exact(o, c, ids);
    case RegType::arena: return true; // no bounds: any arena pointer is as safe as any other
    case RegType::map_value: // ids must correspond, set or not alike, null-checked or not (as the kernel's)
        return o.off == c.off && o.aux == c.aux && range_within(o, c) && ids.check(o.id, c.id, false);
    default:
        return o.off == c.off && o.aux == c.aux && o.frameno == c.frameno && range_within(o, c) &&
               (!o.maybe_null || ids.check(o.id, c.id, false));
    }
}

// An iterator's slot (iter.cpp's rule), its reference ids corresponding.
bool iter_slot_safe(const StackSlot& o, const StackSlot& c, IdMap& ids) {
    return iter_slots_equal(o, c) && ids.check(o.spilled.ref_obj_id, c.spilled.ref_obj_id, false);
}

Slot slot_kind(const Frame& f, size_t i) {
    return i / 8 < f.stack.size() ? f.stack[i / 8].bytes[i % 8] : Slot::invalid;
}

bool scalar_spill64(const Frame& f, size_t spi) {
    return spi < f.stack.size() && f.stack[spi].bytes[0] == Slot::spill && f.stack[spi].spilled.type == RegType::scalar;
}

// is_stack_all_misc with allow_uninit_stack (strbpf verifies as a privileged loader): no spill, zero or object.
bool stack_all_misc(const Frame& f, size_t spi) {
    for (size_t b = 0; b < 8; b++) {
        const Slot k = slot_kind(f, spi * 8 + b);
        if (k != Slot::misc && k != Slot::invalid)
            return false;
    }
    return true;
}

bool stacksafe(const Frame& o, const Frame& c, IdMap& ids, Cmp cmp, uint64_t live) {
    const bool exact = cmp == Cmp::exact;
    const size_t n = std::max(o.stack.size(), exact ? c.stack.size() : size_t(0)) * 8;
    for (size_t i = 0; i < n; i++) {
        if (!exact && !((live >> (i / 8)) & 1))
            continue; // never read again before being overwritten
        const Slot ok = slot_kind(o, i), ck = slot_kind(c, i);
        if (!exact && (ok == Slot::invalid || ok == Slot::misc))
            continue;
        // A 64-bit scalar spill against a slot of misc (or, privileged, uninitialised) bytes, whose load gives an
        // unbound scalar: compared as registers (scalar_reg_for_stack).
        if (!exact && ok == Slot::spill && scalar_spill64(o, i / 8) && stack_all_misc(c, i / 8)) {
            if (!regsafe(o.stack[i / 8].spilled, reg_unknown(), ids, cmp))
                return false;
            i = i / 8 * 8 + 7;
            continue;
        }
        if (ok != ck)
            return false;
        if (i % 8 == 0 && ok == Slot::spill && !regsafe(o.stack[i / 8].spilled, c.stack[i / 8].spilled, ids, cmp))
            return false;
        if (i % 8 == 0 && ok == Slot::iter && !iter_slot_safe(o.stack[i / 8], c.stack[i / 8], ids))
            return false;
        if (i % 8 == 0 && ok == Slot::dynptr && // dynptr.cpp's rule, the references corresponding
            (!dynptr_slots_equal(o.stack[i / 8], c.stack[i / 8]) ||
             !ids.check(o.stack[i / 8].spilled.ref_obj_id, c.stack[i / 8].spilled.ref_obj_id, false)))
            return false;
    }
    return true;
}

} // namespace

bool states_equal(const Env& env, const State& old, const State& cur, int32_t pc, Cmp cmp) {
    if (old.frames.size() != cur.frames.size())
        return false;
    const bool exact = cmp == Cmp::exact;
    IdMap ids(env.path.id_gen);
    // refsafe: the same references held, their ids corresponding, the same RCU read-side section and the same
    // preemption-disabled depth; and the same sleepable context.
    if (old.refs.size() != cur.refs.size() || old.active_rcu_lock != cur.active_rcu_lock ||
        old.active_preempt_locks != cur.active_preempt_locks || old.in_sleepable != cur.in_sleepable)
        return false;
    for (size_t i = 0; i < old.refs.size(); i++)
        if (!ids.check(old.refs[i].id, cur.refs[i].id, false))
            return false;
    // The bpf_spin_lock held: the same map, the ids of the pointers it was taken through corresponding.
    if (old.lock.map != cur.lock.map || old.lock.obj != cur.lock.obj || old.lock.pos != cur.lock.pos ||
        !ids.check(old.lock.id, cur.lock.id, false))
        return false;
    for (size_t i = 0; i < old.frames.size(); i++) {
        const Frame& o = old.frames[i];
        const Frame& c = cur.frames[i];
        if (o.callsite != c.callsite || o.in_callback != c.in_callback || o.in_async_callback != c.in_async_callback)
            return false;
        // More bpf_loop rounds unrolled on the old path than on this one: this one has rounds still to run that
        // the old one never explored from here.
        if (o.callback_depth > c.callback_depth)
            return false;
        // Where this frame resumes: a callback returns to the helper call itself, which reads r1-r5 again.
        int32_t at = pc;
        if (i + 1 < old.frames.size())
            at = old.frames[i + 1].callsite + (old.frames[i + 1].in_callback ? 0 : 1);
        const uint16_t live = exact ? 0x7ff : env.facts.live_in[at];
        for (int r = 0; r < isa::kNumRegs; r++)
            if ((live >> r) & 1)
                if (!regsafe(o.regs[r], c.regs[r], ids, cmp))
                    return false;
        // A caller's stack may be read through pointers by its callees: compare all of it.
        const uint64_t slive = i + 1 < old.frames.size() ? ~0ull : env.facts.stack_live_in[at];
        if (!stacksafe(o, c, ids, cmp, slive))
            return false;
    }
    return true;
}

bool states_maybe_looping(const State& old, const State& cur) {
    if (old.frames.size() != cur.frames.size())
        return false;
    const auto& o = old.cur().regs;
    const auto& c = cur.cur().regs;
    for (size_t i = 0; i < o.size(); i++) {
        const Reg& a = o[i];
        const Reg& b = c[i];
        if (a.type != b.type || a.maybe_null != b.maybe_null || a.frameno != b.frameno || a.off != b.off ||
            a.aux != b.aux || !(a.var == b.var) || a.umin != b.umin || a.umax != b.umax || a.smin != b.smin ||
            a.smax != b.smax)
            return false;
    }
    return true;
}

} // namespace strbpf::verifier
