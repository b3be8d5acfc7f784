// SPDX-License-Identifier: BSD-2-Clause
// The structured program generator's internals (fuzz stage): the register discipline's constants and the Gen class
// whose statements program_gen.cpp (ALU, memory, control flow) and program_gen_calls.cpp (helpers, kfuncs,
// callbacks, subprograms, socket-filter statements) define. Not for use outside those two files.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/byte_reader.hpp"
#include "isa/insn.hpp"
#include "loader/object_spec.hpp"

namespace strbpf::fuzz::gen {

using namespace isa;

constexpr uint8_t R0 = 0, R1 = 1, R2 = 2, R3 = 3, R4 = 4, R5 = 5, R6 = 6, R7 = 7, R8 = 8, R9 = 9, R10 = 10;
constexpr int kMaxStatements = 96;
constexpr size_t kMaxInsns = 6000;
constexpr int kArrValue = 64, kHashValue = 16, kLruValue = 8, kPcpuValue = 32, kBssSize = 128, kRodataSize = 64;
// Stack slots the prologue zeroes: -8 .. -80. -48 holds spilled pointers; -72 the array map's key.
constexpr int16_t kScalarSlots[] = {-8, -16, -24, -32, -40, -56, -64, -80};
constexpr int16_t kPtrSlot = -48, kArrKeySlot = -72, kHashKeySlot = -80;

constexpr uint8_t kSizes[] = {BPF_B, BPF_H, BPF_W, BPF_DW};
inline int size_bytes(uint8_t sz) { return sz == BPF_B ? 1 : sz == BPF_H ? 2 : sz == BPF_W ? 4 : 8; }

constexpr uint8_t kAluOps[] = {BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR,  BPF_AND,
                               BPF_LSH, BPF_RSH, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH};
constexpr uint8_t kCondOps[] = {BPF_JEQ,  BPF_JGT, BPF_JGE, BPF_JSET, BPF_JNE, BPF_JSGT,
                                BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT, BPF_JSLE};
constexpr int32_t kSpecialImms[] = {0, 1, -1, 2, 7, 8, 31, 32, 63, 64, 0x7fffffff, int32_t(0x80000000), 0xff, 4096};

template <class T, size_t N> T pick(ByteReader& in, const T (&arr)[N]) { return arr[in.below(uint32_t(N))]; }

inline Insn mk(uint8_t opcode, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
    Insn i{};
    i.opcode = opcode;
    i.dst = dst & 0xf;
    i.src = src & 0xf;
    i.off = off;
    i.imm = imm;
    return i;
}

// What a callback or static subprogram placed after main does (its body is one of a few templates).
struct Fixup {
    size_t pc;   // the call or ld_imm64 whose imm is the relative offset to the body
    int kind;    // template
    int32_t arg; // template parameter
};

class Gen {
  public:
    Gen(loader::ProgType type, ByteReader& in, bool det, const std::vector<int>* kfuncs = nullptr)
        : in_(in), xdp_(type == loader::ProgType::xdp), skb_(type == loader::ProgType::socket_filter), det_(det),
          kfuncs_(kfuncs) {}

    std::vector<Insn> run() {
        prologue();
        while (!in_.empty() && budget_ok())
            statement();
        emit(mk(BPF_ALU64 | BPF_MOV | BPF_X, R0, R8, 0, 0));
        if (xdp_)
            emit(mk(BPF_ALU64 | BPF_AND | BPF_K, R0, 0, 0, 3));
        emit(mk(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
        place_bodies();
        return std::move(code_);
    }

  private:
    ByteReader& in_;
    bool xdp_, skb_, det_; // xdp: r6 is an xdp_md; skb: a socket filter's __sk_buff; else a syscall ctx
    const std::vector<int>* kfuncs_; // the kfunc-table indexes to call; null: all
    std::vector<Insn> code_;
    std::vector<Fixup> fixups_;
    int depth_ = 0, statements_ = 0;
    bool in_loop_ = false;     // r9 is the loop counter: statements leave it alone
    bool block_ended_ = false; // the current block ended with an exit

    bool budget_ok() const { return statements_ < kMaxStatements && code_.size() < kMaxInsns; }
    void emit(Insn i) { code_.push_back(i); }
    size_t pc() const { return code_.size(); }
    void alu64_k(uint8_t op, uint8_t dst, int32_t imm) { emit(mk(BPF_ALU64 | op | BPF_K, dst, 0, 0, imm)); }
    void alu64_x(uint8_t op, uint8_t dst, uint8_t src) { emit(mk(BPF_ALU64 | op | BPF_X, dst, src, 0, 0)); }
    void mov(uint8_t dst, uint8_t src) { alu64_x(BPF_MOV, dst, src); }
    void ldx(uint8_t sz, uint8_t dst, uint8_t src, int16_t off) { emit(mk(BPF_LDX | BPF_MEM | sz, dst, src, off, 0)); }
    void stx(uint8_t sz, uint8_t dst, uint8_t src, int16_t off) { emit(mk(BPF_STX | BPF_MEM | sz, dst, src, off, 0)); }
    void st(uint8_t sz, uint8_t dst, int16_t off, int32_t imm) { emit(mk(BPF_ST | BPF_MEM | sz, dst, 0, off, imm)); }
    void call(int32_t id) { emit(mk(BPF_JMP | BPF_CALL, 0, 0, 0, id)); }
    void exit_insn() { emit(mk(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)); }
    void ld_imm64(uint8_t dst, uint8_t src, int32_t lo, int32_t hi) {
        emit(mk(BPF_LD | BPF_IMM | BPF_DW, dst, src, 0, lo));
        emit(mk(0, 0, 0, 0, hi));
    }
    void ld_map(uint8_t dst, int32_t map) { ld_imm64(dst, BPF_PSEUDO_MAP_FD, map, 0); }
    void ld_map_value(uint8_t dst, int32_t map, int32_t off) { ld_imm64(dst, BPF_PSEUDO_MAP_VALUE, map, off); }
    // A forward jump whose offset patch() fills in once the target is known.
    size_t jump(uint8_t opcode, uint8_t dst, uint8_t src, int32_t imm) {
        emit(mk(opcode, dst, src, 0, imm));
        return pc() - 1;
    }
    void patch(size_t at) { code_[at].off = int16_t(pc() - at - 1); }

    uint8_t sdst() { return in_loop_ || in_.coin() ? R8 : R9; }
    uint8_t ssrc() { return in_.coin() ? R8 : R9; }
    uint8_t size() { return pick(in_, kSizes); }
    int32_t imm() {
        switch (in_.u8() % 4) {
        case 0:
            return int8_t(in_.u8());
        case 1:
            return pick(in_, kSpecialImms);
        case 2:
            return int32_t(in_.u32());
        default:
            return in_.u8() % 64;
        }
    }
    // An offset inside [0, limit) aligned to the access size, sometimes just past the end.
    int16_t offset_in(int limit, int bytes) {
        int off = int(in_.u8() % uint32_t(limit + 8));
        if (in_.u8() % 4)
            off &= ~(bytes - 1);
        return int16_t(off);
    }

    void prologue();
    void statement();
    bool block(int max_statements); // true when the block ended with an exit
    void alu_imm();
    void alu_reg();
    void alu_special();
    void ctx_load();
    void ctx_store();
    void stack_store();
    void stack_load();
    void mem_access(uint8_t base, int16_t off);
    void small_alu(uint8_t dst, int range);
    void map_fixed();
    void map_var_and();
    void map_var_branch();
    void map_var_direct();
    void if_block();
    void loop();
    void helper();
    void map_lookup(int32_t map, int value_size);
    void map_update();
    void ringbuf();
    void callback_helper(bool for_each);
    void kfunc();
    void pointer_arg(uint8_t reg);
    void atomic();
    void ptr_spill();
    void stack_var();
    void subprog_call();
    void global_access();
    void packet_access();
    void skb_ctx_load();
    void skb_access();
    void place_bodies();
    void body(int kind, int32_t arg);
};

} // namespace strbpf::fuzz::gen
