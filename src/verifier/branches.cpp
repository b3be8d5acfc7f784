// SPDX-License-Identifier: BSD-2-Clause
// Conditional jumps (verifier stage): deciding branches from register bounds, refining bounds on each side,
// null checks on *_or_null pointers (by register id) and packet ranges proven by comparisons with pkt_end.
#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "verifier/domain/scalar.hpp"
#include "verifier/env.hpp"
#include "verifier/sock.hpp"

namespace strbpf::verifier {
namespace {

using isa::Sem;
using isa::Shape;

// One width's view of a scalar's bounds, as 64-bit numbers.
struct View {
    uint64_t umin, umax;
    int64_t smin, smax;
    Tnum var;
};

View view(const Reg& r, bool is32) {
    if (is32)
        return {r.u32min, r.u32max, r.s32min, r.s32max, tnum_subreg(r.var)};
    return {r.umin, r.umax, r.smin, r.smax, r.var};
}

void store(Reg& r, const View& v, bool is32) {
    if (is32) {
        r.u32min = uint32_t(v.umin), r.u32max = uint32_t(v.umax);
        r.s32min = int32_t(v.smin), r.s32max = int32_t(v.smax);
        r.var = tnum_with_subreg(r.var, v.var);
    } else {
        r.umin = v.umin, r.umax = v.umax, r.smin = v.smin, r.smax = v.smax, r.var = v.var;
    }
}

// 1: always taken, 0: never, -1: unknown.
// is_scalar_branch_taken. A 64-bit (in)equality also consults the 32-bit bounds (lo32: the subregister views).
int branch_taken(const View& a, const View& b, Sem sem, const View* a32 = nullptr, const View* b32 = nullptr) {
    switch (sem) {
    case Sem::jeq:
        if (a.var.is_const() && b.var.is_const())
            return a.var.value == b.var.value;
        if (((a.var.value ^ b.var.value) & ~(a.var.mask | b.var.mask)) != 0)
            return 0;
        if (a.umin > b.umax || a.umax < b.umin || a.smin > b.smax || a.smax < b.smin)
            return 0;
        if (a32 && (a32->umin > b32->umax || a32->umax < b32->umin || a32->smin > b32->smax || a32->smax < b32->smin))
            return 0;
        return -1;
    case Sem::jne: {
        const int t = branch_taken(a, b, Sem::jeq, a32, b32);
        return t < 0 ? -1 : !t;
    }
    case Sem::jset: { // decided only against a constant
        const View& v = b.var.is_const() ? a : b;
        const View& k = b.var.is_const() ? b : a;
        if (!k.var.is_const())
            return -1;
        if (v.var.value & k.var.value)
            return 1;
        if (((v.var.value | v.var.mask) & k.var.value) == 0)
            return 0;
        return -1;
    }
    case Sem::jgt: return a.umin > b.umax ? 1 : a.umax <= b.umin ? 0 : -1;
    case Sem::jge: return a.umin >= b.umax ? 1 : a.umax < b.umin ? 0 : -1;
    case Sem::jlt: return a.umax < b.umin ? 1 : a.umin >= b.umax ? 0 : -1;
    case Sem::jle: return a.umax <= b.umin ? 1 : a.umin > b.umax ? 0 : -1;
    case Sem::jsgt: return a.smin > b.smax ? 1 : a.smax <= b.smin ? 0 : -1;
    case Sem::jsge: return a.smin >= b.smax ? 1 : a.smax < b.smin ? 0 : -1;
    case Sem::jslt: return a.smax < b.smin ? 1 : a.smin >= b.smax ? 0 : -1;
    case Sem::jsle: return a.smax <= b.smin ? 1 : a.smin > b.smax ? 0 : -1;
    default: return -1;
    }
}

Sem negate(Sem s) {
    switch (s) {
    case Sem::jeq: return Sem::jne;
    case Sem::jne: return Sem::jeq;
    case Sem::jgt: return Sem::jle;
    case Sem::jge: return Sem::jlt;
    case Sem::jlt: return Sem::jge;
    case Sem::jle: return Sem::jgt;
    case Sem::jsgt: return Sem::jsle;
    case Sem::jsge: return Sem::jslt;
    case Sem::jslt: return Sem::jsge;
    case Sem::jsle: return Sem::jsgt;
    default: return s; // jset has no complement form: handled by the caller
    }
}

// Learns "a SEM b" is true. width_max: the unsigned maximum of the width; smin/smax limits likewise.
void learn(View& a, View& b, Sem sem, bool jset_false, bool is32) {
    const int64_t kSMin = is32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    const int64_t kSMax = is32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
    const uint64_t kUMax = is32 ? 0xffffffffull : ~0ull;
    auto inc = [&](uint64_t v) { return v == kUMax ? v : v + 1; };
    auto dec = [&](uint64_t v) { return v == 0 ? v : v - 1; };
    auto sinc = [&](int64_t v) { return v == kSMax ? v : v + 1; };
    auto sdec = [&](int64_t v) { return v == kSMin ? v : v - 1; };
    switch (sem) {
    case Sem::jeq:
        a.umin = b.umin = std::max(a.umin, b.umin);
        a.umax = b.umax = std::min(a.umax, b.umax);
        a.smin = b.smin = std::max(a.smin, b.smin);
        a.smax = b.smax = std::min(a.smax, b.smax);
        a.var = b.var = tnum_intersect(a.var, b.var);
        break;
    case Sem::jne:
        if (b.var.is_const()) {
            const uint64_t k = b.var.value;
            if (a.umin == k) a.umin = inc(a.umin);
            if (a.umax == k) a.umax = dec(a.umax);
            const int64_t sk = is32 ? int64_t(int32_t(uint32_t(k))) : int64_t(k);
            if (a.smin == sk) a.smin = sinc(a.smin);
            if (a.smax == sk) a.smax = sdec(a.smax);
        }
        if (a.var.is_const()) {
            const uint64_t k = a.var.value;
            if (b.umin == k) b.umin = inc(b.umin);
            if (b.umax == k) b.umax = dec(b.umax);
            const int64_t sk = is32 ? int64_t(int32_t(uint32_t(k))) : int64_t(k);
            if (b.smin == sk) b.smin = sinc(b.smin);
            if (b.smax == sk) b.smax = sdec(b.smax);
        }
        break;
    case Sem::jset: // the constant operand's bits set (one bit only) or clear in the other
        if (!b.var.is_const() && a.var.is_const()) {
            learn(b, a, sem, jset_false, is32);
        } else if (jset_false && b.var.is_const()) {
            a.var = tnum_and(a.var, Tnum::constant(~b.var.value));
        } else if (!jset_false && b.var.is_const() && std::has_single_bit(b.var.value)) {
            a.var = tnum_or(a.var, b.var);
        }
        break;
    case Sem::jgt:
        a.umin = std::max(a.umin, inc(b.umin));
        b.umax = std::min(b.umax, dec(a.umax));
        if (b.umin == kUMax || a.umax == 0) a.umin = kUMax, a.umax = 0; // impossible
        break;
    case Sem::jge:
        a.umin = std::max(a.umin, b.umin);
        b.umax = std::min(b.umax, a.umax);
        break;
    case Sem::jlt: learn(b, a, Sem::jgt, false, is32); break;
    case Sem::jle: learn(b, a, Sem::jge, false, is32); break;
    case Sem::jsgt:
        a.smin = std::max(a.smin, sinc(b.smin));
        b.smax = std::min(b.smax, sdec(a.smax));
        if (b.smin == kSMax || a.smax == kSMin) a.smin = kSMax, a.smax = kSMin;
        break;
    case Sem::jsge:
        a.smin = std::max(a.smin, b.smin);
        b.smax = std::min(b.smax, a.smax);
        break;
    case Sem::jslt: learn(b, a, Sem::jsgt, false, is32); break;
    case Sem::jsle: learn(b, a, Sem::jsge, false, is32); break;
    default: break;
    }
}

// Applies "dst SEM src" (truth value `truth`) to registers (regs_refine_cond_op, then reg_bounds_sync on each).
// An impossible outcome can leave bounds that contradict each other: the kernel finds those afterwards
// (check_reg_invariants), it never decides the branch from them.
void refine(Reg& d, Reg& s, Sem sem, bool truth, bool is32) {
    if (sem == Sem::jset && !truth) {
        // regs_refine_cond_op forgets every bound of the non-constant operand before clearing its bits.
        const bool s_const = view(s, is32).var.is_const();
        if (s_const || view(d, is32).var.is_const()) {
            Reg& r = s_const ? d : s;
            const Reg keep = r;
            mark_unbounded(r);
            r.var = keep.var, r.id = keep.id, r.link = keep.link, r.off = keep.off;
        }
    }
    View a = view(d, is32), b = view(s, is32);
    if (sem == Sem::jset)
        learn(a, b, sem, !truth, is32);
    else
        learn(a, b, truth ? sem : negate(sem), false, is32);
    store(d, a, is32);
    store(s, b, is32);
    reg_sync(d);
    reg_sync(s);
}

// reg_bounds_sanity_check: bounds that contradict each other (an empty range, or a constant tnum the ranges do
// not hold) are a verifier bug to the kernel. Under BPF_F_TEST_REG_INVARIANTS that rejects the program; otherwise
// the register forgets its ranges (the tnum stays) and the path goes on.
bool check_reg_invariants(Env& env, Reg& r, const char* ctx) {
    const char* msg = nullptr;
    const Tnum sub = tnum_subreg(r.var);
    if (r.umin > r.umax || r.smin > r.smax || r.u32min > r.u32max || r.s32min > r.s32max)
        msg = "range bounds violation";
    else if (r.var.is_const() && (r.umin != r.var.value || r.umax != r.var.value ||
                                  r.smin != int64_t(r.var.value) || r.smax != int64_t(r.var.value)))
        msg = "const tnum out of sync with range bounds";
    else if (sub.is_const() && (r.u32min != uint32_t(sub.value) || r.u32max != uint32_t(sub.value) ||
                                r.s32min != int32_t(uint32_t(sub.value)) || r.s32max != int32_t(uint32_t(sub.value))))
        msg = "const subreg tnum out of sync with range bounds";
    if (!msg)
        return true;
    const std::string line = fmt::format(
        "verifier bug: REG INVARIANTS VIOLATION ({}): {} u64=[{:#x}, {:#x}] s64=[{:#x}, {:#x}] u32=[{:#x}, {:#x}] "
        "s32=[{:#x}, {:#x}] var_off=({:#x}, {:#x})(1)",
        ctx, msg, r.umin, r.umax, uint64_t(r.smin), uint64_t(r.smax), r.u32min, r.u32max, uint32_t(r.s32min),
        uint32_t(r.s32max), r.var.value, r.var.mask);
    if (env.facts.opts.prog_flags & kProgFlagTestRegInvariants)
        return env.fail(line);
    env.log_line(line);
    const Tnum keep = r.var;
    const uint32_t id = r.id;
    const Link link = r.link;
    const int32_t off = r.off;
    mark_unbounded(r);
    r.var = keep, r.id = id, r.link = link, r.off = off;
    return true;
}

// The registers of frame F that collect_linked_regs ties to a jump's operands: those live before the frame's
// current insn (the jump in the current frame, the call in a caller's); dead ones are neither refined nor
// backtracked through.
uint16_t linkable_regs(const Env& env, const State& st, size_t f) {
    const int32_t pc = f + 1 == st.frames.size() ? env.path.pc : st.frames[f + 1].callsite;
    return pc >= 0 && size_t(pc) < env.facts.live_in.size() ? uint16_t(env.facts.live_in[size_t(pc)] & 0x3ff)
                                                            : uint16_t(0x3ff);
}

// for_each_reg over the linkable registers and every spilled slot.
template <typename Fn> void for_each_linkable(const Env& env, State& st, Fn&& fn) {
    for (size_t f = 0; f < st.frames.size(); f++) {
        const uint16_t live = linkable_regs(env, st, f);
        for (int i = 0; i < isa::kNumRegs; i++)
            if (live & (1u << i))
                fn(st.frames[f].regs[size_t(i)]);
        for (StackSlot& sl : st.frames[f].stack)
            if (sl.bytes[0] == Slot::spill || sl.bytes[7] == Slot::spill)
                fn(sl.spilled);
    }
}

// Copies a refined scalar into every register tied to it (same id): the same value, or the value plus the
// difference of their constant deltas (the kernel's sync_linked_regs). A 32-bit tie wraps and zero-extends;
// 32- and 64-bit deltas cannot be related, so such pairs are left alone.
void propagate_equal_scalars(const Env& env, State& st, const Reg& r) {
    if (r.type != RegType::scalar || r.id == 0)
        return;
    for_each_linkable(env, st, [&](Reg& o) {
        if (o.type != RegType::scalar || o.id != r.id || &o == &r)
            return;
        if (o.link == r.link && o.off == r.off) {
            o = r;
            return;
        }
        const bool wide64 = o.link == Link::add64 || r.link == Link::add64;
        const bool wide32 = o.link == Link::add32 || r.link == Link::add32;
        if (wide64 && wide32)
            return;
        const int64_t delta = int64_t(o.off) - int64_t(r.off);
        Reg v = r;
        if (wide32)
            scalar_alu32(v, reg_const(uint64_t(uint32_t(int32_t(delta)))), Sem::add);
        else
            scalar_alu64(v, reg_const(uint64_t(delta)), Sem::add);
        v.id = o.id, v.link = o.link, v.off = o.off;
        o = v;
    });
}

// mark_ptr_or_null_regs: on the NULL side a reference the checked pointer acquired was never handed out.
void mark_ptr_or_null(const Env& env, State& st, const Reg& checked, bool is_null) {
    const uint32_t id = checked.id;
    if (id == 0)
        return;
    if (is_null && checked.ref_obj_id == id)
        release_reference_nomark(st, id);
    for_each_reg(st, [&](Reg& o) {
        if (o.maybe_null && o.id == id) {
            if (is_null) {
                o = reg_const(0);
            } else { // the id has done its work, except as a bpf_spin_lock's identity (sock.cpp)
                mark_not_null(env, o);
            }
        }
    });
}

// find_good_pkt_pointers: p <= limit proves off bytes, p < limit (RIGHT_OPEN) one more; no range from a negative
// offset (nor from p < limit at offset 0), nor where p's offset may pass MAX_PACKET_OFF (0xffff; ptr + 2^63 may be
// below pkt_end only because it wrapped below pkt).
void mark_pkt_range(State& st, const Reg& p, bool right_open) {
    constexpr uint64_t kMaxPacketOff = 0xffff;
    if (p.off < 0 || (p.off == 0 && right_open) || uint64_t(p.off) > kMaxPacketOff || p.umax > kMaxPacketOff ||
        p.umax + uint64_t(p.off) > kMaxPacketOff)
        return;
    const uint32_t range = uint32_t(p.off) + (right_open ? 1 : 0);
    for_each_reg(st, [&](Reg& o) {
        if (o.type == p.type && o.id == p.id)
            o.aux = std::max(o.aux, range);
    });
}

// check_cond_jmp_op: a maybe-NULL pointer found equal to a pointer that is not NULL is not NULL in the equal
// successor EQ (JEQ's jump, JNE's fall-through); that register only, and never for kernel-typed pointers, which may
// be NULL unmarked.
void lift_maybe_null(const Env& env, const isa::Insn& insn, State* eq) {
    const Reg& d = env.path.cur.cur().regs[insn.dst];
    const Reg& s = env.path.cur.cur().regs[insn.src];
    auto ptr = [](const Reg& r) { return r.type != RegType::scalar && r.type != RegType::not_init; };
    if (!ptr(d) || !ptr(s) || d.maybe_null == s.maybe_null || d.type == RegType::btf_id || s.type == RegType::btf_id)
        return;
    mark_not_null(env, eq->cur().regs[d.maybe_null ? insn.dst : insn.src]);
}

// Packet pointer comparisons: which register gets a range in which successor.
bool try_pkt_compare(Env& env, const isa::Insn& insn, Sem sem, State* taken) {
    const Reg& d = env.path.cur.cur().regs[insn.dst];
    const Reg& s = env.path.cur.cur().regs[insn.src];
    // pkt' vs pkt_end, or pkt_meta' vs pkt itself (reg_is_init_pkt_pointer: data unmoved, no id).
    auto is_limit_of = [](RegType t, const Reg& l) {
        if (t == RegType::packet)
            return l.type == RegType::packet_end;
        return l.type == RegType::packet && l.id == 0 && l.off == 0 && l.var.is_const() && l.var.value == 0;
    };
    bool ptr_is_dst;
    if (d.is_pkt() && is_limit_of(d.type, s))
        ptr_is_dst = true;
    else if (s.is_pkt() && is_limit_of(s.type, d))
        ptr_is_dst = false;
    else
        return false;
    const Reg p = ptr_is_dst ? d : s;
    // Normalise to "p REL limit".
    Sem rel = sem;
    if (!ptr_is_dst)
        rel = sem == Sem::jgt ? Sem::jlt : sem == Sem::jlt ? Sem::jgt : sem == Sem::jge ? Sem::jle
              : sem == Sem::jle ? Sem::jge : sem;
    if (rel == Sem::jgt || rel == Sem::jge)
        mark_pkt_range(env.path.cur, p, rel == Sem::jge); // fall-through: p <= limit (or <)
    else if (rel == Sem::jlt || rel == Sem::jle)
        mark_pkt_range(*taken, p, rel == Sem::jlt);
    return true;
}

// The kernel's reg_not_null: the pointer kinds a comparison with 0 is decided for. Not ctx, the stack, packets
// or functions: for those both successors are walked (so `if r1 == 0 goto back` with R1=ctx can loop). A kernel
// object counts when it is trusted (is_trusted_reg: referenced, or PTR_TRUSTED / MEM_ALLOC with no other flag).
bool reg_not_null(const Reg& r) {
    const bool trusted_btf =
        r.type == RegType::btf_id &&
        (r.ref_obj_id || ((r.btf_flags & (kBtfTrusted | kBtfAlloc)) && !(r.btf_flags & (kBtfRcu | kBtfUntrusted))));
    return !r.maybe_null && (r.type == RegType::map_value || r.type == RegType::map_key || r.type == RegType::mem ||
                             r.type == RegType::map_ptr || is_sock_type(r.type) || trusted_btf);
}

void mark_operands_precise(Env& env, const isa::Insn& insn, bool is_x) {
    mark_reg_precise(env, insn.dst);
    if (is_x)
        mark_reg_precise(env, insn.src);
}

// Scalars sharing an id with an operand are refined with it: backtracking treats them as one (precision.cpp).
void note_linked(Env& env, const Reg& d, const Reg& s) {
    if (d.id == 0 && s.id == 0)
        return;
    BtSet set;
    bool any = false;
    for (size_t f = 0; f < env.path.cur.frames.size() && f < set.regs.size(); f++) {
        const Frame& fr = env.path.cur.frames[f];
        const uint16_t live = linkable_regs(env, env.path.cur, f);
        for (int i = 0; i < isa::kNumRegs; i++) {
            const Reg& r = fr.regs[size_t(i)];
            if ((live & (1u << i)) && r.type == RegType::scalar && r.id && (r.id == d.id || r.id == s.id))
                set.regs[f] |= uint16_t(1u << i), any = true;
        }
        for (size_t i = 0; i < fr.stack.size() && i < 64; i++) {
            const StackSlot& sl = fr.stack[i];
            if ((sl.bytes[0] == Slot::spill || sl.bytes[7] == Slot::spill) && sl.spilled.type == RegType::scalar &&
                sl.spilled.id && (sl.spilled.id == d.id || sl.spilled.id == s.id))
                set.slots[f] |= 1ull << i, any = true;
        }
    }
    if (!any)
        return;
    env.path.cur_entry.linked = int32_t(env.path.linked_sets.size());
    env.path.linked_sets.push_back(set);
}

} // namespace

bool do_cond_jump(Env& env, const isa::OpInfo& op, const isa::Insn& insn, State* branch, bool* take_jump,
                  bool* fall_through) {
    const bool is_x = op.shape == Shape::JMP_X || op.shape == Shape::JMP32_X;
    const bool is32 = op.shape == Shape::JMP32_K || op.shape == Shape::JMP32_X;
    if (!check_reg_init(env, insn.dst) || (is_x && !check_reg_init(env, insn.src)))
        return false;
    auto& regs = env.path.cur.cur().regs;
    Reg d = regs[insn.dst];
    Reg s = is_x ? regs[insn.src] : reg_const(is32 ? uint64_t(uint32_t(insn.imm)) : uint64_t(int64_t(insn.imm)));
    *take_jump = *fall_through = true;
    if (d.type == RegType::stack) // backtracking never asks for a stack pointer's precision
        env.path.cur_entry.flags |= kHistDstStack;
    if (is_x && s.type == RegType::stack)
        env.path.cur_entry.flags |= kHistSrcStack;

    if (d.type == RegType::scalar && s.type == RegType::scalar) {
        note_linked(env, d, s);
        const View d32 = view(d, true), s32 = view(s, true);
        const int t = branch_taken(view(d, is32), view(s, is32), op.sem, is32 ? nullptr : &d32, is32 ? nullptr : &s32);
        if (t >= 0) { // decided by the operands' bounds: later paths rely on them
            (t == 1 ? *fall_through : *take_jump) = false;
            mark_operands_precise(env, insn, is_x);
            return true;
        }
        *branch = env.path.cur;
        Reg td = d, ts = s, fd = d, fs = s;
        refine(fd, fs, op.sem, false, is32);
        refine(td, ts, op.sem, true, is32);
        if (!check_reg_invariants(env, td, "true_reg1") || !check_reg_invariants(env, ts, "true_reg2") ||
            !check_reg_invariants(env, fd, "false_reg1") || !check_reg_invariants(env, fs, "false_reg2"))
            return false;
        auto apply = [&](State& st, const Reg& nd, const Reg& ns) {
            st.cur().regs[insn.dst] = nd;
            propagate_equal_scalars(env, st, nd);
            if (is_x) {
                st.cur().regs[insn.src] = ns;
                propagate_equal_scalars(env, st, ns);
            }
        };
        apply(*branch, td, ts);
        apply(env.path.cur, fd, fs);
        return true;
    }
    // Null checks: ptr_or_null ==/!= 0.
    const bool cmp_zero = s.is_const() && s.var.value == 0 && !is32;
    if (cmp_zero && (op.sem == Sem::jeq || op.sem == Sem::jne)) {
        if (d.maybe_null) {
            *branch = env.path.cur;
            const bool taken_is_null = op.sem == Sem::jeq;
            mark_ptr_or_null(env, *branch, d, taken_is_null);
            mark_ptr_or_null(env, env.path.cur, d, !taken_is_null);
            return true;
        }
        if (reg_not_null(d)) {
            (op.sem == Sem::jeq ? *take_jump : *fall_through) = false;
            mark_operands_precise(env, insn, is_x);
            return true;
        }
    }
    *branch = env.path.cur;
    if (is_x && !is32 && (op.sem == Sem::jeq || op.sem == Sem::jne))
        lift_maybe_null(env, insn, op.sem == Sem::jeq ? branch : &env.path.cur);
    if (is_x && !is32)
        try_pkt_compare(env, insn, op.sem, branch);
    return true;
}

} // namespace strbpf::verifier
