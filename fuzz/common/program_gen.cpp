// SPDX-License-Identifier: BSD-2-Clause
// The structured program generator (fuzz stage): fuzz bytes → a well-formed syscall, socket filter or xdp program
// (see program_gen.hpp for the register discipline). Every statement consumes a few bytes and emits a short snippet.
// This file: the program's frame and the ALU, memory and control-flow statements; program_gen_calls.cpp the rest.
#include "common/program_gen.hpp"

#include "common/harness.hpp"
#include "common/program_gen_impl.hpp"

namespace strbpf::fuzz {
namespace gen {

void Gen::prologue() {
    mov(R6, R1);
    for (int16_t s = -8; s >= -80; s -= 8)
        st(BPF_DW, R10, s, 0);
    if (xdp_) {
        alu64_k(BPF_MOV, R8, 0);
        alu64_k(BPF_MOV, R9, 0);
        ldx(BPF_W, R2, R6, 0);
        ldx(BPF_W, R3, R6, 4);
        mov(R4, R2);
        alu64_k(BPF_ADD, R4, 16);
        emit(mk(BPF_JMP | BPF_JGT | BPF_X, R4, R3, 2, 0));
        ldx(BPF_DW, R8, R2, 0);
        ldx(BPF_DW, R9, R2, 8);
    } else if (skb_) { // __sk_buff len, mark
        ldx(BPF_W, R8, R6, 0);
        ldx(BPF_W, R9, R6, 8);
    } else {
        ldx(BPF_DW, R8, R6, 0);
        ldx(BPF_DW, R9, R6, 8);
    }
    ld_map(R1, kMapArr);
    mov(R2, R10);
    alu64_k(BPF_ADD, R2, kArrKeySlot);
    call(1);
    emit(mk(BPF_JMP | BPF_JNE | BPF_K, R0, 0, 2, 0));
    alu64_k(BPF_MOV, R0, 0);
    exit_insn();
    mov(R7, R0);
}

void Gen::statement() {
    statements_++;
    switch (in_.u8() % 23) {
    case 0:
        return alu_imm();
    case 1:
        return alu_reg();
    case 2:
        return alu_special();
    case 3:
        return ctx_load();
    case 4:
        if (skb_ && in_.coin())
            return skb_access();
        return xdp_ ? packet_access() : ctx_store();
    case 5:
        return stack_store();
    case 6:
        return stack_load();
    case 7:
        return map_fixed();
    case 8:
        return map_var_and();
    case 9:
        return map_var_branch();
    case 10:
        return if_block();
    case 11:
        return loop();
    case 12:
        return helper();
    case 13:
        return kfunc();
    case 14:
        return atomic();
    case 15: // an early exit ends its block (more statements after it would be unreachable)
        if (depth_ == 0 || in_loop_)
            return alu_imm();
        mov(R0, R8);
        if (xdp_)
            alu64_k(BPF_AND, R0, 3);
        exit_insn();
        block_ended_ = true;
        return;
    case 16: {
        const uint64_t v = in_.u64();
        return ld_imm64(sdst(), 0, int32_t(uint32_t(v)), int32_t(uint32_t(v >> 32)));
    }
    case 17:
        return ptr_spill();
    case 18:
        return stack_var();
    case 19:
        return subprog_call();
    case 20:
        return global_access();
    case 21:
        return map_var_direct();
    default:
        return xdp_ ? packet_access() : skb_ ? skb_access() : map_var_branch();
    }
}

bool Gen::block(int max_statements) {
    const int n = 1 + int(in_.u8() % uint32_t(max_statements));
    depth_++;
    for (int i = 0; i < n && !in_.empty() && budget_ok() && !block_ended_; i++)
        statement();
    const bool ended = block_ended_;
    block_ended_ = false;
    depth_--;
    return ended;
}

// Mostly valid immediates: shifts below the width, divisors other than 0 (the verifier refuses the rest).
void Gen::alu_imm() {
    const uint8_t cls = in_.coin() ? BPF_ALU64 : BPF_ALU;
    const uint8_t op = pick(in_, kAluOps);
    int32_t k = imm();
    if (in_.u8() % 8) {
        if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
            k &= cls == BPF_ALU64 ? 63 : 31;
        else if ((op == BPF_DIV || op == BPF_MOD) && k == 0)
            k = 3;
    }
    emit(mk(cls | op | BPF_K, sdst(), 0, 0, k));
}

void Gen::alu_reg() {
    const uint8_t cls = in_.coin() ? BPF_ALU64 : BPF_ALU;
    emit(mk(cls | pick(in_, kAluOps) | BPF_X, sdst(), ssrc(), 0, 0));
}

// cpu v4 forms: neg, byte swaps, movsx, sdiv/smod.
void Gen::alu_special() {
    const uint8_t dst = sdst();
    const uint8_t cls = in_.coin() ? BPF_ALU64 : BPF_ALU;
    static constexpr int32_t kWidths[] = {16, 32, 64};
    static constexpr int16_t kSx[] = {8, 16, 32};
    switch (in_.u8() % 5) {
    case 0:
        return emit(mk(cls | BPF_NEG, dst, 0, 0, 0));
    case 1: // ALU: le/be; ALU64: bswap (BPF_TO_LE only)
        return emit(
            mk(cls | BPF_END | (cls == BPF_ALU && in_.coin() ? BPF_TO_BE : BPF_TO_LE), dst, 0, 0, pick(in_, kWidths)));
    case 2: // movsx: 8/16/32 bits into 64, 8/16 into 32
        return emit(mk(cls | BPF_MOV | BPF_X, dst, ssrc(), cls == BPF_ALU ? kSx[in_.u8() % 2] : pick(in_, kSx), 0));
    case 3:
        return emit(mk(cls | (in_.coin() ? BPF_DIV : BPF_MOD) | BPF_K, dst, 0, 1, imm()));
    default:
        return emit(mk(cls | (in_.coin() ? BPF_DIV : BPF_MOD) | BPF_X, dst, ssrc(), 1, 0));
    }
}

void Gen::ctx_load() {
    if (xdp_) { // the scalar fields of xdp_md: ingress_ifindex, rx_queue_index, egress_ifindex
        static constexpr int16_t kFields[] = {12, 16, 20};
        return ldx(BPF_W, sdst(), R6, pick(in_, kFields));
    }
    if (skb_ && in_.u8() % 4)
        return skb_ctx_load();
    const uint8_t sz = size();
    const int bytes = size_bytes(sz);
    int off = in_.u8() % 4 ? in_.u8() : in_.u16() % 32768; // insn offsets are s16
    if (in_.u8() % 4)
        off &= ~(bytes - 1);
    const uint8_t mode = sz != BPF_DW && in_.u8() % 4 == 0 ? BPF_MEMSX : BPF_MEM;
    emit(mk(BPF_LDX | mode | sz, sdst(), R6, int16_t(off), 0));
}

void Gen::ctx_store() {
    const uint8_t sz = size();
    int16_t off = int16_t(in_.u8() & ~(size_bytes(sz) - 1));
    if (skb_ && in_.u8() % 4) // __sk_buff cb[0..4], the fields a socket filter may write
        off = int16_t(48 + 4 * int(in_.u8() % 5) + (sz == BPF_B ? int(in_.u8() % 4) : 0));
    if (in_.coin())
        return stx(sz, R6, ssrc(), off);
    st(sz, R6, off, imm());
}

void Gen::stack_store() {
    const uint8_t sz = size();
    const int bytes = size_bytes(sz);
    const int slot = pick(in_, kScalarSlots); // own statement: the operands of + are read in no fixed order
    const int16_t off = int16_t(slot + int(in_.u8() % uint32_t(8 / bytes)) * bytes);
    if (in_.coin())
        return stx(sz, R10, ssrc(), off);
    st(sz, R10, off, imm());
}

void Gen::stack_load() {
    const uint8_t sz = size();
    const int bytes = size_bytes(sz);
    const int slot = pick(in_, kScalarSlots); // own statement: the operands of + are read in no fixed order
    const int16_t off = int16_t(slot + int(in_.u8() % uint32_t(8 / bytes)) * bytes);
    const uint8_t mode = sz != BPF_DW && in_.coin() ? BPF_MEMSX : BPF_MEM;
    emit(mk(BPF_LDX | mode | sz, sdst(), R10, off, 0));
}

// A load into a scalar register or a store of a scalar/immediate at base + off.
void Gen::mem_access(uint8_t base, int16_t off) {
    const uint8_t sz = size();
    switch (in_.u8() % 3) {
    case 0:
        return ldx(sz, sdst(), base, off);
    case 1:
        return stx(sz, base, ssrc(), off);
    default:
        return st(sz, base, off, imm());
    }
}

// dst op= a small immediate (|k| < range; shift amounts non-negative) — keeps a bounded offset bounded.
void Gen::small_alu(uint8_t dst, int range) {
    const uint8_t op = pick(in_, kAluOps);
    int32_t k = int8_t(in_.u8()) % range;
    if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH || op == BPF_DIV || op == BPF_MOD)
        k = 1 + (k < 0 ? -k : k) % 7;
    emit(mk((in_.coin() ? BPF_ALU64 : BPF_ALU) | op | BPF_K, dst, 0, 0, k));
}

void Gen::map_fixed() { mem_access(R7, offset_in(kArrValue, 8)); }

// r2 = r7 + (rS & mask) [op small]: an offset the verifier bounds from the AND.
void Gen::map_var_and() {
    static constexpr int32_t kMasks[] = {7, 15, 31, 56, 63, 127, 0x3c, 1};
    mov(R1, ssrc());
    alu64_k(BPF_AND, R1, in_.u8() % 8 == 0 ? int32_t(in_.u8()) : pick(in_, kMasks));
    for (int i = int(in_.u8() % 3); i > 0; i--)
        small_alu(R1, 16);
    if (in_.coin()) {
        mov(R2, R7);
        alu64_x(BPF_ADD, R2, R1);
    } else {
        alu64_x(BPF_ADD, R1, R7);
        mov(R2, R1);
    }
    mem_access(R2, int16_t(int(in_.u8() % 24) - 8));
}

// if r1 <cond> K goto out; [alu on r1]; r2 = r7 + r1; access: bounds from branches, signed and unsigned, 32 and
// 64 bits, sometimes off by one.
void Gen::map_var_branch() {
    mov(R1, ssrc());
    std::vector<size_t> outs;
    for (int n = 1 + int(in_.u8() % 2); n > 0; n--) {
        const int32_t k = in_.coin() ? int32_t(in_.u8() % 72) : int8_t(in_.u8());
        if (in_.coin()) { // the usual unsigned upper bound: accepted when k leaves room for the access
            outs.push_back(jump(BPF_JMP | (in_.coin() ? BPF_JGT : BPF_JGE) | BPF_K, R1, 0, k));
            continue;
        }
        const uint8_t cls = in_.u8() % 4 == 0 ? BPF_JMP32 : BPF_JMP;
        outs.push_back(jump(cls | pick(in_, kCondOps) | BPF_K, R1, 0, k));
    }
    for (int i = int(in_.u8() % 3); i > 0; i--)
        small_alu(R1, 8);
    mov(R2, R7);
    alu64_x(BPF_ADD, R2, R1);
    mem_access(R2, int16_t(int(in_.u8() % 16) - 4));
    for (size_t at : outs)
        patch(at);
}

// r2 = r7 + rS with no check here: accepted only when earlier statements (on every path that reaches this one)
// left rS small — what state pruning and precision tracking must get right. Sometimes through a stack spill.
void Gen::map_var_direct() {
    const uint8_t src = ssrc();
    uint8_t off_reg = src;
    if (in_.u8() % 4 == 0) {
        const int16_t slot = pick(in_, kScalarSlots);
        stx(BPF_DW, R10, src, slot);
        ldx(BPF_DW, R1, R10, slot);
        off_reg = R1;
    }
    mov(R2, R7);
    alu64_x(BPF_ADD, R2, off_reg);
    mem_access(R2, int16_t(in_.u8() % 8));
}

void Gen::if_block() {
    if (depth_ >= 3)
        return alu_imm();
    const uint8_t cls = in_.u8() % 4 == 0 ? BPF_JMP32 : BPF_JMP;
    const uint8_t op = pick(in_, kCondOps);
    const size_t j = in_.coin() ? jump(cls | op | BPF_K, ssrc(), 0, imm()) : jump(cls | op | BPF_X, R8, R9, 0);
    const bool then_exits = block(3);
    if (in_.coin()) { // else branch (after a then-branch that exits, no jump over it)
        const size_t skip = then_exits ? 0 : jump(BPF_JMP | BPF_JA, 0, 0, 0);
        patch(j);
        block(3);
        if (!then_exits)
            patch(skip);
    } else {
        patch(j);
    }
}

// r9 = start; L: body; r9 += 1; if r9 <cond> N goto L — bounded for the verifier only when start is known.
void Gen::loop() {
    if (in_loop_ || depth_ >= 2)
        return map_var_branch();
    if (in_.u8() % 4 == 0) {
        mov(R9, R8);
        alu64_k(BPF_AND, R9, 7);
    } else {
        alu64_k(BPF_MOV, R9, 0);
    }
    const size_t head = pc();
    in_loop_ = true;
    block(3);
    in_loop_ = false;
    alu64_k(BPF_ADD, R9, 1);
    static constexpr uint8_t kLoopConds[] = {BPF_JLT, BPF_JLT, BPF_JNE, BPF_JSLT, BPF_JLE};
    const uint8_t cond = pick(in_, kLoopConds); // before the bound: arguments are read in no fixed order
    emit(mk(BPF_JMP | cond | BPF_K, R9, 0, int16_t(head - pc() - 1), 1 + int32_t(in_.u8() % 16)));
}

void Gen::atomic() {
    static constexpr int32_t kOps[] = {BPF_ADD,
                                       BPF_OR,
                                       BPF_AND,
                                       BPF_XOR,
                                       BPF_ADD | BPF_FETCH,
                                       BPF_OR | BPF_FETCH,
                                       BPF_AND | BPF_FETCH,
                                       BPF_XOR | BPF_FETCH,
                                       BPF_XCHG,
                                       BPF_CMPXCHG};
    const uint8_t sz = in_.coin() ? BPF_DW : BPF_W;
    const bool stack = in_.coin();
    const uint8_t base = stack ? R10 : R7;
    const int16_t off = stack ? int16_t(pick(in_, kScalarSlots) + (sz == BPF_W ? 4 * (in_.u8() & 1) : 0))
                              : offset_in(kArrValue, size_bytes(sz));
    const int32_t op = pick(in_, kOps);
    if (op == BPF_CMPXCHG)
        mov(R0, ssrc());
    emit(mk(BPF_STX | BPF_ATOMIC | sz, base, in_loop_ ? R8 : ssrc(), off, op));
    if (op == BPF_CMPXCHG)
        mov(sdst(), R0);
}

void Gen::ptr_spill() {
    if (!xdp_ && in_.coin()) {
        stx(BPF_DW, R10, R6, kPtrSlot);
        ldx(BPF_DW, R2, R10, kPtrSlot);
        const uint8_t sz = size();
        return ldx(sz, sdst(), R2, int16_t(in_.u8() & ~(size_bytes(sz) - 1)));
    }
    stx(BPF_DW, R10, R7, kPtrSlot);
    if (in_.u8() % 8 == 0) // a partial fill of a spilled pointer
        return ldx(BPF_W, sdst(), R10, kPtrSlot);
    ldx(BPF_DW, R2, R10, kPtrSlot);
    mem_access(R2, offset_in(kArrValue, 8));
}

// r2 = r10 - 64 + (rS & mask): a variable-offset stack access over initialised slots.
void Gen::stack_var() {
    static constexpr int32_t kMasks[] = {7, 15, 31, 56, 63};
    const int32_t mask = pick(in_, kMasks);
    mov(R1, ssrc());
    alu64_k(BPF_AND, R1, mask);
    mov(R2, R10);
    alu64_x(BPF_ADD, R2, R1);
    alu64_k(BPF_ADD, R2, -64 - int32_t(in_.u8() % 2) * 8);
    // Bytes at any offset; wider accesses where the mask keeps them aligned (56), and sometimes misaligned.
    const uint8_t sz = in_.coin() || (mask != 56 && in_.u8() % 4) ? BPF_B : size();
    if (in_.coin())
        return ldx(sz, sdst(), R2, 0);
    stx(sz, R2, ssrc(), 0);
}

void Gen::global_access() {
    const bool rodata = in_.u8() % 4 == 0;
    const int limit = rodata ? kRodataSize : kBssSize;
    ld_map_value(R2, rodata ? kMapRodata : kMapBss, int32_t(in_.u8() % uint32_t(limit)));
    const int16_t off = int16_t(int(in_.u8() % 32) - 8);
    if (rodata && in_.u8() % 4) // .rodata is read-only: mostly loads
        return ldx(size(), sdst(), R2, off);
    mem_access(R2, off);
}

// r2 = data [+ (rS & mask)]; if r2 + K > data_end goto out; access r2 + off — the packet bounds idiom.
void Gen::packet_access() {
    ldx(BPF_W, R2, R6, 0);
    ldx(BPF_W, R3, R6, 4);
    if (in_.coin()) {
        mov(R1, ssrc());
        alu64_k(BPF_AND, R1, in_.coin() ? 63 : int32_t(in_.u8()));
        alu64_x(BPF_ADD, R2, R1);
    }
    mov(R4, R2);
    alu64_k(BPF_ADD, R4, int32_t(in_.u8() % 40));
    size_t out;
    switch (in_.u8() % 4) {
    case 0:
        out = jump(BPF_JMP | BPF_JGT | BPF_X, R4, R3, 0);
        break;
    case 1:
        out = jump(BPF_JMP | BPF_JLT | BPF_X, R3, R4, 0);
        break;
    case 2:
        out = jump(BPF_JMP | BPF_JGE | BPF_X, R4, R3, 0);
        break; // one byte stricter
    default:
        out = jump(BPF_JMP | BPF_JLE | BPF_X, R3, R4, 0);
        break;
    }
    mem_access(R2, int16_t(in_.u8() % 40));
    patch(out);
}

// Bodies of callbacks (kinds 0..3: bpf_loop(index, ctx); 10..12: for_each(map, key, value, ctx)) and static
// subprograms (20..24: (scalar, pointer)).
} // namespace gen

std::vector<isa::Insn> generate_program(loader::ProgType type, ByteReader& in, bool deterministic) {
    return gen::Gen(type, in, deterministic).run();
}

std::vector<isa::Insn> generate_program(loader::ProgType type, ByteReader& in, bool deterministic,
                                        const std::vector<int>& kfuncs) {
    return gen::Gen(type, in, deterministic, &kfuncs).run();
}

} // namespace strbpf::fuzz
