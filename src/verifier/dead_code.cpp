// SPDX-License-Identifier: BSD-2-Clause
// Dead code and subprogram references (verifier stage, after an accepting walk). A privileged load has the
// kernel harden its program: a conditional jump one of whose successors no path reached becomes a `goto`
// (opt_hard_wire_dead_code_branches), every run of instructions no path reached is removed
// (opt_remove_dead_code), then every `goto +0` (opt_remove_nops). Each removal re-targets the local calls and
// callback references (ld_imm64 BPF_PSEUDO_FUNC) that cross it, drops the subprograms it covers whole and moves
// the later ones. When more than one subprogram remains, the JIT (jit_subprogs) looks up the subprogram of every
// call and reference: one the walk never entered (a callback no helper was given, say) was removed, and a
// reference to it lands on no subprogram's first instruction, which the kernel reports as a verifier bug and
// refuses the program with. strbpf models exactly that outcome (the instruction number is the one after the
// removals; the kernel's later rewrites, such as ctx access conversion, can shift it further).
#include <algorithm>
#include <fmt/format.h>

#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

using isa::Shape;

struct InsnSlot {
    bool ref = false; // a local call or a callback reference: imm is relative to the next insn
    bool nop = false; // `goto +0`, or a conditional jump whose taken side no path reached
    bool seen = false; // some path reached it
    int32_t imm = 0;
};

struct Program {
    std::vector<InsnSlot> slots;
    std::vector<int32_t> starts; // subprograms' first insns, then the program's length (the kernel's fake exit)

    int subprogs() const { return int(starts.size()) - 1; }

    // bpf_remove_insns + bpf_adj_delta_to_imm + adjust_subprog_starts_after_remove for [off, off + cnt).
    void remove(int32_t off, int32_t cnt) {
        slots.erase(slots.begin() + off, slots.begin() + off + cnt);
        for (int32_t i = 0; i < int32_t(slots.size()); i++) {
            InsnSlot& s = slots[size_t(i)];
            if (!s.ref)
                continue;
            if (i < off && i + s.imm + 1 >= off + cnt)
                s.imm -= cnt;
            else if (i >= off && i + s.imm + 1 < off)
                s.imm += cnt;
        }
        size_t first = 0; // the first subprogram starting at or after off
        while (first < size_t(subprogs()) && starts[first] < off)
            first++;
        size_t keep = first; // the first one starting at or after off + cnt
        while (keep < size_t(subprogs()) && starts[keep] < off + cnt)
            keep++;
        if (starts[keep] != off + cnt)
            keep--; // only the front of the one before is removed
        if (keep > first)
            starts.erase(starts.begin() + long(first), starts.begin() + long(keep));
        else if (starts[first] == off)
            first++;
        for (size_t i = first; i < starts.size(); i++)
            starts[i] -= cnt;
    }
};

bool is_cond_jump(Shape s) {
    return s == Shape::JMP_K || s == Shape::JMP_X || s == Shape::JMP32_K || s == Shape::JMP32_X;
}

Program hardened(const Env& env, const std::vector<uint8_t>& seen) {
    Program p;
    const int32_t n = int32_t(env.facts.insns.size());
    p.slots.resize(size_t(n));
    for (int32_t pc = 0; pc < n; pc++) {
        const isa::OpInfo* op = env.facts.ops[size_t(pc)];
        const isa::Insn& in = env.facts.insns[size_t(pc)];
        InsnSlot& s = p.slots[size_t(pc)];
        s.seen = seen[size_t(pc)] != 0;
        if (!op || !s.seen)
            continue;
        if (op->shape == Shape::CALL_LOCAL || (op->shape == Shape::LDDW && in.src == isa::BPF_PSEUDO_FUNC))
            s.ref = true, s.imm = in.imm;
        else if (op->shape == Shape::JA)
            s.nop = in.off == 0 && in.dst == 0 && in.src == 0 && in.imm == 0;
        else if (is_cond_jump(op->shape) && pc + 1 < n && seen[size_t(pc) + 1])
            s.nop = !seen[size_t(pc + in.off + 1)];
    }
    for (const Subprog& sp : env.facts.subprogs)
        p.starts.push_back(sp.start);
    p.starts.push_back(n);
    return p;
}

} // namespace

bool check_subprog_refs(Env& env, const std::vector<uint8_t>& seen) {
    if (env.facts.subprogs.size() < 2)
        return true;
    // Nothing moves a reference off its subprogram while every subprogram was entered.
    if (std::all_of(env.facts.subprogs.begin(), env.facts.subprogs.end(),
                    [&](const Subprog& sp) { return seen[size_t(sp.start)] != 0; }))
        return true;
    Program p = hardened(env, seen);
    for (int32_t i = 0; i < int32_t(p.slots.size()); i++) { // opt_remove_dead_code
        int32_t j = 0;
        while (i + j < int32_t(p.slots.size()) && !p.slots[size_t(i + j)].seen)
            j++;
        if (j)
            p.remove(i, j);
    }
    for (int32_t i = 0; i < int32_t(p.slots.size()); i++) // opt_remove_nops
        if (p.slots[size_t(i)].nop)
            p.remove(i--, 1);
    // A program that throws without its own exception callback gets the default one appended (add_hidden_subprog),
    // so jit_subprogs splits it even when dead code took every other subprogram, and a reference to a removed one
    // is then found out.
    const int hidden = env.aux.seen_exception && env.facts.exception_cb < 0 ? 1 : 0;
    if (p.subprogs() + hidden <= 1)
        return true; // jit_subprogs has nothing to split
    const int32_t len = int32_t(p.slots.size());
    for (int32_t i = 0; i < len; i++) {
        const InsnSlot& s = p.slots[size_t(i)];
        int32_t target = i + s.imm + 1;
        // The default callback goes in by patching the last insn into itself and the callback's two insns, which
        // moves a reference at or past the end two further (bpf_adj_branches), as the kernel's message numbers it.
        if (hidden && i < len - 1 && target >= len)
            target += 2;
        if (s.ref && !std::binary_search(p.starts.begin(), p.starts.end() - 1, target))
            return env.fail(fmt::format("verifier bug: No program to jit at insn {} (subprog < 0)", target));
    }
    return true;
}

} // namespace strbpf::verifier
