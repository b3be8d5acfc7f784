// The structured program generator (fuzz stage): fuzz bytes → a well-formed syscall or xdp program (see
// program_gen.hpp for the register discipline). Every statement consumes a few bytes and emits a short snippet.
#include "common/program_gen.hpp"

#include <span>

#include "common/harness.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"

namespace strbpf::fuzz {
namespace {

using namespace isa;

constexpr uint8_t R0 = 0, R1 = 1, R2 = 2, R3 = 3, R4 = 4, R5 = 5, R6 = 6, R7 = 7, R8 = 8, R9 = 9, R10 = 10;
constexpr int kMaxStatements = 96;
constexpr size_t kMaxInsns = 6000;
constexpr int kArrValue = 64, kHashValue = 16, kLruValue = 8, kPcpuValue = 32, kBssSize = 128, kRodataSize = 64;
// Stack slots the prologue zeroes: -8 .. -80. -48 holds spilled pointers; -72 the array map's key.
constexpr int16_t kScalarSlots[] = {-8, -16, -24, -32, -40, -56, -64, -80};
constexpr int16_t kPtrSlot = -48, kArrKeySlot = -72, kHashKeySlot = -80;

constexpr uint8_t kSizes[] = {BPF_B, BPF_H, BPF_W, BPF_DW};
int size_bytes(uint8_t sz) { return sz == BPF_B ? 1 : sz == BPF_H ? 2 : sz == BPF_W ? 4 : 8; }

constexpr uint8_t kAluOps[] = {BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR,  BPF_AND,
                               BPF_LSH, BPF_RSH, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH};
constexpr uint8_t kCondOps[] = {BPF_JEQ,  BPF_JGT, BPF_JGE, BPF_JSET, BPF_JNE, BPF_JSGT,
                                BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT, BPF_JSLE};
constexpr int32_t kSpecialImms[] = {0, 1, -1, 2, 7, 8, 31, 32, 63, 64, 0x7fffffff, int32_t(0x80000000), 0xff, 4096};

template <class T, size_t N> T pick(ByteReader& in, const T (&arr)[N]) { return arr[in.below(uint32_t(N))]; }

Insn mk(uint8_t opcode, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
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
    Gen(loader::ProgType type, ByteReader& in, bool det) : in_(in), xdp_(type == loader::ProgType::xdp), det_(det) {}

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
    bool xdp_, det_;
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
    void place_bodies();
    void body(int kind, int32_t arg);
};

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
        return xdp_ ? packet_access() : map_var_branch();
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
    const int16_t off = int16_t(in_.u8() & ~(size_bytes(sz) - 1));
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

void Gen::map_lookup(int32_t map, int value_size) {
    if (map == kMapPcpu) {
        st(BPF_W, R10, kArrKeySlot, in_.u8() % 3);
        ld_map(R1, map);
        mov(R2, R10);
        alu64_k(BPF_ADD, R2, kArrKeySlot);
    } else {
        mov(R1, ssrc());
        if (in_.coin())
            alu64_k(BPF_AND, R1, 7);
        stx(BPF_DW, R10, R1, kHashKeySlot);
        ld_map(R1, map);
        mov(R2, R10);
        alu64_k(BPF_ADD, R2, kHashKeySlot);
    }
    call(1);
    const size_t j = jump(BPF_JMP | BPF_JEQ | BPF_K, R0, 0, 0);
    mem_access(R0, offset_in(value_size, 8));
    patch(j);
}

void Gen::callback_helper(bool for_each) {
    if (for_each) {
        ld_map(R1, in_.coin() ? kMapArr : kMapHash);
    } else if (in_.coin()) {
        alu64_k(BPF_MOV, R1, int32_t(in_.u8() % 20));
    } else {
        mov(R1, ssrc());
        alu64_k(BPF_AND, R1, 15);
    }
    fixups_.push_back({pc(), for_each ? 10 + int(in_.u8() % 3) : int(in_.u8() % 4), int32_t(in_.u8())});
    ld_imm64(R2, BPF_PSEUDO_FUNC, 0, 0);
    if (in_.coin()) {
        mov(R3, R10);
        alu64_k(BPF_ADD, R3, -64);
    } else {
        alu64_k(BPF_MOV, R3, 0);
    }
    alu64_k(BPF_MOV, R4, 0);
    call(for_each ? 164 : 181);
    mov(sdst(), R0);
}

void Gen::helper() {
    switch (in_.u8() % 12) {
    case 0:
        return map_lookup(kMapHash, kHashValue);
    case 1:
        return map_lookup(kMapLru, kLruValue);
    case 2:
        return map_lookup(kMapPcpu, kPcpuValue);
    case 3:
    case 4:
        return map_update();
    case 5: { // helpers without arguments
        static constexpr int32_t kDet[] = {8, 14}, kAny[] = {8, 14, 5, 7, 125};
        call(det_ ? pick(in_, kDet) : pick(in_, kAny));
        return mov(sdst(), R0);
    }
    case 6: // bpf_strncmp(s1, s1_sz, const string in .rodata)
        pointer_arg(R1);
        alu64_k(BPF_MOV, R2, 1 + int32_t(in_.u8() % 24));
        ld_map_value(R3, kMapRodata, in_.u8() % 8 ? int32_t(in_.u8() % 5) * 8 : int32_t(in_.u8() % kRodataSize));
        call(182);
        return mov(sdst(), R0);
    case 7:
        return callback_helper(false);
    case 8:
        return callback_helper(true);
    case 9: // bpf_probe_read_kernel{,_str}(stack buffer, size, any address)
        mov(R1, R10);
        alu64_k(BPF_ADD, R1, -64);
        alu64_k(BPF_MOV, R2, int32_t(in_.u8() % 17));
        pointer_arg(R3);
        call(in_.coin() ? 113 : 115);
        return mov(sdst(), R0);
    case 10: // bpf_strtol / bpf_strtoul(buf, size, flags, &res)
        pointer_arg(R1);
        alu64_k(BPF_MOV, R2, 1 + int32_t(in_.u8() % 16));
        alu64_k(BPF_MOV, R3, in_.coin() ? int32_t(in_.u8() % 4) * 8 : int32_t(in_.u8()));
        mov(R4, R10);
        alu64_k(BPF_ADD, R4, -40);
        call(in_.coin() ? 105 : 106);
        return mov(sdst(), R0);
    default:
        return ringbuf();
    }
}

// bpf_map_update_elem(hash or lru, key, 16 stack bytes, flags 0..4) or bpf_map_delete_elem.
void Gen::map_update() {
    const bool update = in_.coin();
    const int32_t map = in_.coin() ? kMapHash : kMapLru;
    stx(BPF_DW, R10, ssrc(), kHashKeySlot);
    ld_map(R1, map);
    mov(R2, R10);
    alu64_k(BPF_ADD, R2, kHashKeySlot);
    if (update) {
        mov(R3, R10);
        alu64_k(BPF_ADD, R3, -64);
        alu64_k(BPF_MOV, R4, int32_t(in_.u8() % 5));
    }
    call(update ? 2 : 3);
    mov(sdst(), R0);
}

// Ring buffer: reserve, write, submit or discard; or bpf_ringbuf_output of stack bytes.
void Gen::ringbuf() {
    ld_map(R1, kMapRingbuf);
    if (in_.coin()) {
        mov(R2, R10);
        alu64_k(BPF_ADD, R2, -64);
        alu64_k(BPF_MOV, R3, 8 * int32_t(in_.u8() % 9));
        alu64_k(BPF_MOV, R4, 0);
        call(130);
        return mov(sdst(), R0);
    }
    const int32_t sz = 8 + 8 * int32_t(in_.u8() % 4);
    alu64_k(BPF_MOV, R2, sz);
    alu64_k(BPF_MOV, R3, 0);
    call(131);
    const size_t j = jump(BPF_JMP | BPF_JEQ | BPF_K, R0, 0, 0);
    mem_access(R0, offset_in(sz, 8));
    mov(R1, R0);
    alu64_k(BPF_MOV, R2, 0);
    call(in_.coin() ? 132 : 133);
    patch(j);
}

// A pointer (or not) for a helper or kfunc argument: stack, map value, ctx, .rodata/.bss, a scalar, an address.
void Gen::pointer_arg(uint8_t reg) {
    switch (in_.u8() % 8) {
    case 0:
        mov(reg, R10);
        return alu64_k(BPF_ADD, reg, -64 + int32_t(in_.u8() % 64));
    case 1:
        mov(reg, R7);
        return alu64_k(BPF_ADD, reg, int32_t(in_.u8() % (kArrValue + 4)));
    case 2:
        if (xdp_)
            return mov(reg, R7);
        mov(reg, R6);
        return alu64_k(BPF_ADD, reg, int32_t(in_.u8()));
    case 3:
        return ld_map_value(reg, kMapRodata, int32_t(in_.u8() % kRodataSize));
    case 4:
        return ld_map_value(reg, kMapBss, int32_t(in_.u8() % kBssSize));
    case 5:
        return mov(reg, ssrc());
    case 6: {
        static constexpr uint64_t kAddrs[] = {0,
                                              1,
                                              0x1000,
                                              0x7ffffffff000ull,
                                              0xffff800000000000ull,
                                              0xffff888000000000ull,
                                              0xffffffffff600000ull,
                                              ~0ull,
                                              0x8000000000000000ull};
        const uint64_t a = pick(in_, kAddrs);
        return ld_imm64(reg, 0, int32_t(uint32_t(a)), int32_t(uint32_t(a >> 32)));
    }
    default:
        mov(reg, R7);
        mov(R5, ssrc());
        alu64_k(BPF_AND, R5, 63);
        return alu64_x(BPF_ADD, reg, R5);
    }
}

void Gen::kfunc() {
    const auto table = runtime::kfunc_table();
    const uint32_t k = in_.below(uint32_t(table.size()));
    const runtime::KfuncProto& f = table[k];
    for (int i = 0; i < f.nparams; i++) {
        const uint8_t reg = uint8_t(R1 + i);
        if (f.params[i].kind == runtime::KfuncParamKind::ptr)
            pointer_arg(reg);
        else if (in_.coin())
            alu64_k(BPF_MOV, reg, imm());
        else
            mov(reg, ssrc());
    }
    emit(mk(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, int32_t(k)));
    mov(sdst(), R0);
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

void Gen::subprog_call() {
    mov(R1, ssrc());
    if (in_.coin()) {
        mov(R2, R7);
    } else {
        mov(R2, R10);
        alu64_k(BPF_ADD, R2, -64);
    }
    fixups_.push_back({pc(), 20 + int(in_.u8() % 5), int32_t(in_.u8())});
    emit(mk(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0));
    mov(sdst(), R0);
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
void Gen::body(int kind, int32_t arg) {
    const int16_t off = int16_t(arg % 72);
    switch (kind) {
    case 0:
        alu64_k(BPF_MOV, R0, 0);
        break;
    case 1:
        mov(R0, R1);
        alu64_k(BPF_AND, R0, 1);
        break;
    case 2:
        ldx(BPF_B, R0, R2, int16_t(arg % 64));
        alu64_k(BPF_AND, R0, 1);
        break; // ctx: stack or NULL
    case 3:
        mov(R0, R1);
        emit(mk(BPF_JMP | BPF_JGT | BPF_K, R0, 0, 1, arg % 16));
        alu64_k(BPF_MOV, R0, 0);
        break;
    case 10:
        ldx(BPF_W, R0, R3, int16_t(arg % 20));
        alu64_k(BPF_AND, R0, 1);
        break; // value
    case 11:
        ldx(BPF_W, R0, R2, 0);
        alu64_k(BPF_MOV, R0, 0);
        break; // key
    case 12:
        st(BPF_DW, R3, int16_t((arg % 3) * 8), arg);
        alu64_k(BPF_MOV, R0, 0);
        break;
    case 20:
        mov(R0, R1);
        alu64_k(BPF_MUL, R0, 3);
        break;
    case 21:
        ldx(BPF_W, R0, R2, int16_t(off & ~3));
        break;
    case 22:
        mov(R0, R1);
        emit(mk(BPF_JMP | BPF_JGT | BPF_K, R0, 0, 1, 5));
        alu64_k(BPF_MOV, R0, 5);
        break;
    case 23:
        stx(BPF_DW, R10, R1, -8);
        ldx(BPF_DW, R0, R10, int16_t(-8 - (arg & 8)));
        break;
    default:
        mov(R0, R1);
        alu64_k(BPF_AND, R0, arg % 2 ? 15 : 63);
        alu64_x(BPF_ADD, R2, R0);
        ldx(BPF_B, R0, R2, 0);
        break;
    }
    exit_insn();
}

void Gen::place_bodies() {
    for (const Fixup& f : fixups_) {
        const size_t start = pc();
        body(f.kind, f.arg);
        code_[f.pc].imm = int32_t(start - f.pc - 1);
    }
}

} // namespace

std::vector<Insn> generate_program(loader::ProgType type, ByteReader& in, bool deterministic) {
    return Gen(type, in, deterministic).run();
}

} // namespace strbpf::fuzz
