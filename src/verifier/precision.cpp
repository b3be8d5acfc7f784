// SPDX-License-Identifier: BSD-2-Clause
// Precision tracking (verifier stage): which scalars a checkpoint must compare exactly when pruning. When the
// verifier relies on a scalar's exact bounds (pointer arithmetic, a helper's size, a decided branch, a
// callback's return value, ...), the kernel's mark_chain_precision walks back through the instructions of the
// current path and marks every scalar that value was computed from precise in the checkpoints it passes.
#include <fmt/format.h>

#include "runtime/helpers/helper_table.hpp"
#include "verifier/env.hpp"
#include "verifier/ext_protos.hpp"

namespace strbpf::verifier {
namespace {

using isa::Shape;

uint16_t bit(int r) { return uint16_t(1u << r); }

// The dst / src part of an opcodes.def column as registers of IN: the whole column of an ALU form, ld_imm64 or a
// jump, which name no fixed register (isa_regs_test checks the columns). Cheaper than isa::reg_mask, and asked
// for every insn of a backtracked history.
uint16_t operand_bits(uint8_t column, const isa::Insn& in) {
    return uint16_t(((column & isa::DST) ? bit(in.dst) : 0) | ((column & isa::SRC) ? bit(in.src) : 0));
}
constexpr uint16_t kCallerSaved = 0x3f; // r0-r5

void merge(BtSet& into, const BtSet& from) {
    for (size_t f = 0; f < into.regs.size(); f++)
        into.regs[f] |= from.regs[f], into.slots[f] |= from.slots[f];
}

bool intersects(const BtSet& a, const BtSet& b) {
    for (size_t f = 0; f < a.regs.size(); f++)
        if ((a.regs[f] & b.regs[f]) || (a.slots[f] & b.slots[f]))
            return true;
    return false;
}

// Entering a callee from the call at E (the next insn ran in frame f+1): the callee's arguments come from
// the caller's registers; everything else in the callee's set was never written before its entry.
void backtrack_call_entry(const Env& env, const HistEntry& e, BtSet& bt) {
    const int f = e.frame;
    const uint16_t callee = bt.regs[f + 1];
    bt.regs[f + 1] = 0, bt.slots[f + 1] = 0;
    const isa::Insn& in = env.facts.insns[e.pc];
    if (env.facts.ops[e.pc]->shape == Shape::CALL_LOCAL) {
        bt.regs[f] |= callee & 0x3e;
        return;
    }
    using runtime::CallbackFrame;
    switch (helper_callback(env, in.imm).frame) {
    case CallbackFrame::loop:
    case CallbackFrame::dynptr: // bpf_loop, user_ringbuf_drain: ctx = caller's r3
        if (callee & bit(2))
            bt.regs[f] |= bit(3);
        break;
    case CallbackFrame::find_vma: // bpf_find_vma: r1 = the caller's task, r3 = the caller's r4
        if (callee & bit(1))
            bt.regs[f] |= bit(1);
        if (callee & bit(3))
            bt.regs[f] |= bit(4);
        break;
    case CallbackFrame::map_elem: // for_each_map_elem: r1 = the caller's map, r4 = the caller's r3
        if (callee & bit(1))
            bt.regs[f] |= bit(1);
        if (callee & bit(4))
            bt.regs[f] |= bit(3);
        break;
    default: break;
    }
}

// A load, store or atomic backwards: the registers come from opcodes.def's columns (a load writes its dst, an
// atomic fetch its src or, cmpxchg, r0; what a store or an atomic puts in memory is what it reads besides the
// address in dst); the stack slots from the history entry.
void backtrack_mem(const HistEntry& e, const isa::OpInfo& op, const isa::Insn& in, BtSet& bt) {
    uint16_t& r = bt.regs[e.frame];
    const bool on_stack = e.sframe >= 0;
    uint64_t* slots = on_stack ? &bt.slots[size_t(e.sframe)] : nullptr;
    switch (op.shape) {
    case Shape::LDX:
    case Shape::LDSX:
        if (const uint16_t written = operand_bits(op.writes, in); r & written) { // only a fill restores the slot's register; a read of data bytes ends here
            r &= uint16_t(~written);
            if (on_stack && (e.flags & kHistFill))
                *slots |= e.smask;
        }
        break;
    // As the kernel's backtrack_insn: only a spill (of a register or an immediate) replaces what the slot held, so
    // precision wanted of the slot moves to the spilled register; a store of data bytes is not followed.
    case Shape::ST:
    case Shape::STX:
        if (on_stack && (e.flags & kHistSpill) && (op.shape == Shape::ST || (*slots & e.smask))) {
            *slots &= ~e.smask;
            r |= operand_bits(op.reads & ~isa::DST, in); // the value put in memory
        }
        break;
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW: {
        const uint16_t written = isa::regs_written(op, in);
        const uint16_t stored = isa::reg_mask(uint8_t(op.reads & ~isa::DST), in); // the value(s) put in memory
        const bool fetched_in = (r & written) != 0; // the old value, fetched into src (or r0: cmpxchg)
        const bool slot_in = on_stack && (*slots & e.smask);
        r &= uint16_t(~written);
        if (slot_in)
            r |= stored;
        if (fetched_in && on_stack)
            *slots |= e.smask;
        break;
    }
    default: break;
    }
}

// An instruction whose written registers are computed from the ones it reads (ALU, NEG, byte swaps, ld_imm64):
// precision wanted of a result moves to its operands (the frame pointer is never a scalar).
void backtrack_alu(const isa::OpInfo& op, const isa::Insn& in, uint16_t& r) {
    const uint16_t written = operand_bits(op.writes, in);
    if (!(r & written))
        return;
    r &= uint16_t(~written);
    r |= uint16_t(operand_bits(op.reads, in) & ~bit(10));
}

// One instruction backwards: BT holds what must be precise after E ran; afterwards, before it.
void backtrack_insn(const Env& env, const HistEntry& e, int next_frame, BtSet& bt) {
    const isa::OpInfo& op = *env.facts.ops[e.pc];
    const isa::Insn& in = env.facts.insns[e.pc];
    const int f = e.frame;
    if (next_frame == f + 1) {
        backtrack_call_entry(env, e, bt);
        return;
    }
    if (op.shape == Shape::EXIT && next_frame == f - 1) {
        if (e.flags & kHistCallbackRet) {
            bt.regs[f] = 0; // the caller's registers were never touched by the callback
        } else {
            bt.regs[f] = bt.regs[f - 1] & 1; // the caller's r0 is our r0
            bt.regs[f - 1] &= uint16_t(~kCallerSaved);
        }
        bt.slots[f] = 0;
        return;
    }
    uint16_t& r = bt.regs[f];
    switch (op.shape) {
    case Shape::ALU64_K:
    case Shape::ALU64_X:
    case Shape::ALU32_K:
    case Shape::ALU32_X:
    case Shape::NEG64:
    case Shape::NEG32:
    case Shape::END:
    case Shape::LDDW: backtrack_alu(op, in, r); break;
    // Calls and LD_ABS/LD_IND: what they write is not computed from what they read (a callback's arguments are
    // the call entry's, above).
    case Shape::LD_ABS:
    case Shape::LD_IND:
    case Shape::CALL_HELPER:
    case Shape::CALL_KFUNC:
    case Shape::CALL_LOCAL: r &= uint16_t(~isa::regs_written(op, in)); break;
    case Shape::JMP_K:
    case Shape::JMP_X:
    case Shape::JMP32_K:
    case Shape::JMP32_X: {
        // Either operand (or a scalar refined with them through a shared id) being needed makes all needed; an
        // operand that is a stack pointer is not asked for.
        uint16_t operands = 0;
        if (!(e.flags & kHistDstStack))
            operands |= operand_bits(op.reads & isa::DST, in);
        if (!(e.flags & kHistSrcStack))
            operands |= operand_bits(op.reads & isa::SRC, in);
        if (e.linked < 0) { // the common case, without a set of linked scalars
            if (r & operands)
                r |= operands;
            break;
        }
        BtSet group;
        group.regs[f] = operands;
        merge(group, env.path.linked_sets[size_t(e.linked)]);
        if (intersects(bt, group))
            merge(bt, group);
        break;
    }
    default: backtrack_mem(e, op, in, bt); break;
    }
}

// At checkpoint ST: sets the marks, and drops what is already precise there (its sources are marked too) and
// what is not a scalar (pointers are always compared exactly).
void mark_in_checkpoint(State& st, BtSet& bt) { // bt keeps only what was newly marked
    for (size_t f = 0; f < bt.regs.size(); f++) {
        if (f >= st.frames.size()) {
            bt.regs[f] = 0, bt.slots[f] = 0;
            continue;
        }
        Frame& fr = st.frames[f];
        for (int i = 0; i < isa::kNumRegs; i++) {
            if (!(bt.regs[f] & bit(i)))
                continue;
            Reg& x = fr.regs[size_t(i)];
            if (x.type != RegType::scalar || x.precise)
                bt.regs[f] &= uint16_t(~bit(i));
            else
                x.precise = true;
        }
        for (size_t i = 0; i < 64; i++) {
            if (!((bt.slots[f] >> i) & 1))
                continue;
            const bool spill = i < fr.stack.size() && fr.stack[i].bytes[0] == Slot::spill &&
                               fr.stack[i].spilled.type == RegType::scalar;
            if (!spill || fr.stack[i].spilled.precise)
                bt.slots[f] &= ~(1ull << i);
            else
                fr.stack[i].spilled.precise = true;
        }
    }
}

template <typename Fn> void for_each_scalar(const State& st, Fn&& fn) {
    for (size_t f = 0; f < st.frames.size() && f < size_t(isa::kMaxCallDepth); f++) {
        const Frame& fr = st.frames[f];
        for (int i = 0; i < isa::kNumRegs; i++)
            if (fr.regs[size_t(i)].type == RegType::scalar)
                fn(f, i, -1, fr.regs[size_t(i)]);
        for (size_t i = 0; i < fr.stack.size() && i < 64; i++)
            if (fr.stack[i].bytes[0] == Slot::spill && fr.stack[i].spilled.type == RegType::scalar)
                fn(f, -1, int(i), fr.stack[i].spilled);
    }
}

} // namespace

namespace {

// fmt_reg_mask / fmt_stack_mask: "r1,r6" and "-8,-24".
std::string reg_mask_str(uint16_t mask) {
    std::string out;
    for (int i = 0; i < 16; i++)
        if (mask & bit(i))
            out += fmt::format("{}r{}", out.empty() ? "" : ",", i);
    return out;
}

std::string stack_mask_str(uint64_t mask) {
    std::string out;
    for (int i = 0; i < 64; i++)
        if ((mask >> i) & 1)
            out += fmt::format("{}{}", out.empty() ? "" : ",", -8 * (i + 1));
    return out;
}

// The kernel's __mark_chain_precision log at level 2: a header per state, one line per insn backtracked (what
// is still needed after it, in the frame backtracking is in), the marks each parent state gets.
struct PrecisionLog {
    Env& env;
    bool on() const { return (env.log.level & 2) != 0; }
    void header(int frame, int last, int first, int subseq) {
        if (on())
            env.log.text += fmt::format("mark_precise: frame{}: last_idx {} first_idx {} subseq_idx {} \n", frame, last,
                                   first, subseq);
    }
    void before(int frame, const BtSet& bt, int32_t pc) {
        if (on())
            env.log.text += fmt::format("mark_precise: frame{}: regs={} stack={} before {}: ({:02x}) {}\n", frame,
                                   reg_mask_str(bt.regs[size_t(frame)]), stack_mask_str(bt.slots[size_t(frame)]), pc,
                                   env.facts.insns[size_t(pc)].opcode, insn_text(env, pc));
    }
    void parent(int frame, const BtSet& bt, const State& st) {
        if (on())
            env.log.text += fmt::format("mark_precise: frame{}: parent state regs={} stack={}: {}\n", frame,
                                   reg_mask_str(bt.regs[size_t(frame)]), stack_mask_str(bt.slots[size_t(frame)]),
                                   kernel_state_str(env, st, frame, true));
    }
};

// The pcs a history segment spans (the kernel's first_insn_idx / last_insn_idx of a state): its first insn is
// the checkpoint's own pc; an empty one starts and ends at PC.
int seg_first(const std::vector<HistEntry>& seg, int32_t pc) { return seg.empty() ? pc : seg.front().pc; }

} // namespace

bool mark_precise(Env& env, BtSet bt) {
    bool marked = false;
    if (bt.empty())
        return marked;
    PrecisionLog log{env};
    int next_frame = int(env.path.cur.frames.size()) - 1;
    const std::vector<HistEntry>* seg = &env.path.hist;
    StoredState* st = env.path.cur_parent;
    int last = env.path.pc, first = seg_first(env.path.hist, env.path.pc), subseq = -1;
    for (;;) {
        log.header(next_frame, last, first, subseq);
        for (size_t i = seg->size(); i-- > 0;) {
            log.before(next_frame, bt, (*seg)[i].pc);
            backtrack_insn(env, (*seg)[i], next_frame, bt);
            next_frame = (*seg)[i].frame;
            if (bt.empty())
                return marked;
        }
        if (!st)
            return marked;
        mark_in_checkpoint(st->st, bt);
        marked = marked || !bt.empty();
        next_frame = int(st->st.frames.size()) - 1;
        for (int f = next_frame; f >= 0; f--)
            log.parent(f, bt, st->st);
        if (bt.empty())
            return marked;
        subseq = first;
        seg = &st->hist;
        last = seg->empty() ? -1 : seg->back().pc;
        first = seg_first(*seg, st->pc);
        st = st->parent;
    }
}

BtSet all_scalars_of(const State& st) {
    BtSet bt;
    for_each_scalar(st, [&](size_t f, int reg, int slot, const Reg&) {
        if (reg >= 0)
            bt.regs[f] |= bit(reg);
        else
            bt.slots[f] |= 1ull << slot;
    });
    return bt;
}

void propagate_precision(Env& env, const State& old) {
    const BtSet bt = precise_set_of(old);
    for (int f = int(old.frames.size()) - 1; f >= 0 && (env.log.level & 2); f--) {
        std::string names;
        for (int i = 0; i < 10; i++)
            if (bt.regs[size_t(f)] & bit(i))
                names += fmt::format("{}r{}", names.empty() ? "" : ",", i);
        for (int i = 0; i < 64; i++)
            if ((bt.slots[size_t(f)] >> i) & 1)
                names += fmt::format("{}fp{}", names.empty() ? "" : ",", -8 * (i + 1));
        if (!names.empty())
            env.log.text += fmt::format("frame {}: propagating {}\n", f, names);
    }
    mark_precise(env, bt);
}

void mark_reg_precise(Env& env, int regno) {
    if (env.path.cur.cur().regs[size_t(regno)].type != RegType::scalar)
        return;
    BtSet bt;
    bt.regs[env.path.cur.frames.size() - 1] = bit(regno);
    mark_precise(env, bt);
}

BtSet precise_set_of(const State& st) {
    BtSet bt;
    for_each_scalar(st, [&](size_t f, int reg, int slot, const Reg& r) {
        if (!r.precise)
            return;
        if (reg >= 0)
            bt.regs[f] |= bit(reg);
        else
            bt.slots[f] |= 1ull << slot;
    });
    return bt;
}

void clear_precise(State& st) {
    for (Frame& fr : st.frames) {
        for (Reg& r : fr.regs)
            r.precise = false;
        for (StackSlot& s : fr.stack)
            s.spilled.precise = false;
    }
}

void note_stack_access(Env& env, int frameno, int64_t off, int size) {
    if (off >= 0 || off < -isa::kStackSize || size <= 0)
        return;
    uint64_t mask = 0;
    for (int64_t a = off; a < off + size && a < 0; a++)
        mask |= 1ull << ((-a - 1) / 8);
    env.path.cur_entry.sframe = int8_t(frameno);
    env.path.cur_entry.smask |= mask;
    env.log.scratched_slots |= mask; // the log prints these slots after the insn
}

} // namespace strbpf::verifier
