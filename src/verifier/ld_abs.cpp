// SPDX-License-Identifier: BSD-2-Clause
// LD_ABS / LD_IND lowering (verifier stage), in the manner of the kernel's bpf_gen_ld_abs: the offset into r2
// (imm, or src + imm), the skb (R6, which the walk proved is the ctx) into r1, a call of the internal load helper
// of the size (runtime/ctx_model.hpp: a byte, or a big-endian half or word of the packet), and when it answers a
// negative errno `r0 = 0; exit` — from the program, or in a subprogram from the subprogram, as the walk explored.
// r1..r5 are clobbered by the call, which the walk's state already says.
#include "verifier/rewrite.hpp"

namespace strbpf::verifier {
namespace {

using namespace isa;

Insn make(uint8_t opcode, int dst, int src, int16_t off, int32_t imm) {
    Insn i{};
    i.opcode = opcode;
    i.dst = uint8_t(dst) & 0xf;
    i.src = uint8_t(src) & 0xf;
    i.off = off;
    i.imm = imm;
    return i;
}

} // namespace

void lower_ld_abs(const Insn& in, Patch* out) {
    auto& p = out->insns;
    out->origin = InsnOrigin::ld_abs;
    if ((in.opcode & 0xe0) == BPF_ABS) {
        p.push_back(make(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, in.imm));
    } else {
        p.push_back(make(BPF_ALU64 | BPF_MOV | BPF_X, 2, in.src, 0, 0));
        if (in.imm)
            p.push_back(make(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, in.imm));
    }
    p.push_back(make(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0));
    const uint8_t size = in.opcode & 0x18;
    const int32_t helper = size == BPF_B   ? runtime::kHelperLdAbs8
                           : size == BPF_H ? runtime::kHelperLdAbs16
                                           : runtime::kHelperLdAbs32;
    p.push_back(make(BPF_JMP | BPF_CALL, 0, 0, 0, helper));
    p.push_back(make(BPF_JMP | BPF_JSGE | BPF_K, 0, 0, 2, 0));
    p.push_back(make(BPF_ALU | BPF_XOR | BPF_X, 0, 0, 0, 0));
    p.push_back(make(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
}

} // namespace strbpf::verifier
