// SPDX-License-Identifier: BSD-2-Clause
// may_goto in the verified program (verifier stage): like the kernel's do_misc_fixups, a function with a may_goto
// gets an 8-byte loop counter below its stack, set to BPF_MAX_LOOPS by a store before its first instruction; each
// may_goto names the slot in imm, and the engines jump when it is 0 and count it down otherwise.
#include <fmt/format.h>

#include "verifier/rewrite.hpp"

namespace strbpf::verifier {

Result<std::vector<int32_t>> may_goto_slots(const Env& env) {
    std::vector<int32_t> slots(env.facts.subprogs.size(), 0);
    for (size_t pc = 0; pc < env.facts.insns.size(); pc++) {
        const isa::OpInfo* op = env.facts.ops[pc];
        if (!op || op->shape != isa::Shape::MAY_GOTO)
            continue;
        const size_t sp = size_t(env.facts.subprog_of(int32_t(pc)));
        const int32_t depth = sp < env.aux.stack_depth.size() ? env.aux.stack_depth[sp] : 0;
        // The engines give every frame 512 bytes; the kernel's JIT makes the frame larger instead.
        if (depth + 8 > isa::kStackSize)
            return make_error(fmt::format("may_goto at insn {}: a function using all {} bytes of its stack has no "
                                          "room for the loop counter (not modelled)", pc, isa::kStackSize),
                              -95, int64_t(pc));
        slots[sp] = -(depth + 8);
    }
    return slots;
}

isa::Insn may_goto_insn(const isa::Insn& insn, int32_t slot) {
    isa::Insn out = insn;
    out.imm = slot;
    return out;
}

isa::Insn may_goto_counter_init(int32_t slot) {
    isa::Insn st{};
    st.opcode = isa::BPF_ST | isa::BPF_MEM | isa::BPF_DW;
    st.dst = 10;
    st.off = int16_t(slot);
    st.imm = int32_t(isa::kMaxLoops);
    return st;
}

} // namespace strbpf::verifier
