// SPDX-License-Identifier: BSD-2-Clause
// Table-driven tests of the isa stage: every row of opcodes.def decodes, validates, disassembles and round-trips
// through the assembler; invalid encodings are refused with the pc named; kernel-syntax disassembly is exact.
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "isa/assembler.hpp"
#include "isa/disasm.hpp"
#include "isa/opcodes.hpp"

namespace strbpf::isa {
namespace {

Insn raw(uint64_t word) {
    Insn i;
    std::memcpy(&i, &word, sizeof i);
    return i;
}

bool same_bytes(const std::vector<Insn>& a, const std::vector<Insn>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Insn)) == 0;
}

TEST(OpTable, RowsAreUniqueAndConsistent) {
    std::set<std::string> names;
    std::set<std::pair<uint8_t, int32_t>> forms;
    for (const OpInfo& op : op_table()) {
        EXPECT_TRUE(names.insert(op.name).second) << op.name;
        EXPECT_TRUE(forms.insert({op.opcode, op.value}).second) << op.name;
        for (const OpInfo& other : forms_of(op.opcode))
            EXPECT_EQ(other.field, op.field) << op.name << " and " << other.name << " share an opcode";
        EXPECT_EQ(&op_info(op.op), &op);
    }
    EXPECT_EQ(op_table().size(), kNumOps);
}

TEST(OpTable, CoversTheRfc9669Groups) {
    auto has = [](const char* name) {
        for (const OpInfo& op : op_table())
            if (std::string(op.name) == name)
                return true;
        return false;
    };
    for (const char* n :
         {"SDIV32_K", "SMOD64_X", "MOVSX32_64", "MOVSX16_32", "BSWAP64", "LE16", "BE32", "LDSXW", "GOTOL",
          "ATOMIC_CMPXCHG_W", "ATOMIC_FETCH_XOR_DW", "LDDW_MAP_IDX_VALUE", "CALL_KFUNC", "JSLE32_X", "LDINDH"})
        EXPECT_TRUE(has(n)) << n;
}

class EveryOp : public ::testing::TestWithParam<size_t> {};

TEST_P(EveryOp, DecodesValidatesDisassemblesAndRoundTrips) {
    const OpInfo& op = op_table()[GetParam()];
    const std::vector<Insn> prog = sample_program(op);
    ASSERT_EQ(decode(prog[0]), &op);
    const Status st = validate(prog);
    ASSERT_TRUE(st.ok()) << st.error().message;

    const std::string text = disasm_insn(prog, 0);
    EXPECT_FALSE(text.empty());
    EXPECT_EQ(text.find("invalid"), std::string::npos) << text;

    if (is_internal(op.shape)) { // only the verifier emits these: no program as loaded, no assembler syntax
        const Status load = validate(prog, Scope::load);
        ASSERT_FALSE(load.ok()) << op.name;
        EXPECT_NE(load.error().message.find("invalid opcode"), std::string::npos) << load.error().message;
        return;
    }
    const std::string source = to_asm_program(prog);
    auto back = assemble(source);
    ASSERT_TRUE(back.ok()) << source << "\n" << back.error().message;
    EXPECT_TRUE(same_bytes(*back, prog)) << source;
}

INSTANTIATE_TEST_SUITE_P(Table, EveryOp, ::testing::Range<size_t>(0, kNumOps),
                         [](const ::testing::TestParamInfo<size_t>& p) { return op_table()[p.param].name; });

struct BadCase {
    const char* name;
    std::vector<uint64_t> words;
    const char* message;
};

class Invalid : public ::testing::TestWithParam<BadCase> {};

TEST_P(Invalid, IsRefusedWithPc) {
    std::vector<Insn> prog;
    for (uint64_t w : GetParam().words)
        prog.push_back(raw(w));
    const Status st = validate(prog);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find(GetParam().message), std::string::npos) << st.error().message;
    EXPECT_GE(st.error().pc, 0);
}

constexpr uint64_t kExit = 0x95;
INSTANTIATE_TEST_SUITE_P(
    Encodings, Invalid,
    ::testing::Values(
        BadCase{"unknown_opcode", {0xff, kExit}, "pc 0: invalid opcode 0xff"},
        BadCase{"ldx_dw_sign_extending", {0x99, kExit}, "invalid opcode 0x99"},
        BadCase{"atomic_byte", {0xd3, kExit}, "invalid opcode 0xd3"},
        BadCase{"jmp32_call", {0x86, kExit}, "invalid opcode 0x86"},
        BadCase{"neg_with_x", {0x8f, kExit}, "invalid opcode 0x8f"},
        BadCase{"dst_r11", {0x0000000100000bb7, kExit}, "invalid dst register r11"},
        BadCase{"src_r12", {0x000000000000c0bf, kExit}, "invalid src register r12"},
        BadCase{"write_r10", {0x0000000100000ab7, kExit}, "frame pointer r10 is read only"},
        BadCase{"ldx_into_r10", {0x0000000000001a79, kExit}, "frame pointer r10 is read only"},
        BadCase{"fetch_into_r10", {0x000000010000a1db, kExit}, "read only"},
        BadCase{"mov_imm_with_src", {0x00000001000010b7, kExit}, "reserved field src=r1"},
        BadCase{"add_reg_with_imm", {0x000000050000100f, kExit}, "reserved field imm=5"},
        BadCase{"add_with_off", {0x0000000000010007, kExit}, "reserved field off=1"},
        BadCase{"neg_with_imm", {0x0000000100000087, kExit}, "reserved field imm=1"},
        BadCase{"exit_with_imm", {0x0000000100000095}, "reserved field imm=1"},
        BadCase{"ja_with_dst", {0x0000000000000105, kExit}, "reserved field dst=r1"},
        BadCase{"gotol_with_off", {0x0000000000010006, kExit, kExit}, "reserved field off=1"},
        BadCase{"call_with_off", {0x0000000100010085, kExit}, "reserved field off=1"},
        BadCase{"sdiv_off_2", {0x0000000200020037, kExit}, "invalid off 2 for opcode 0x37"},
        BadCase{"movsx_off_7", {0x00000000000710bf, kExit}, "invalid off 7 for opcode 0xbf"},
        BadCase{"movsx32_off_32", {0x00000000002010bc, kExit}, "invalid off 32 for opcode 0xbc"},
        BadCase{"swap_width_8", {0x00000008000000dc, kExit}, "invalid imm 8 for opcode 0xdc"},
        BadCase{"atomic_op_0x10", {0x00000010000021db, kExit}, "invalid imm 16 for opcode 0xdb"},
        BadCase{"lddw_src_7", {0x0000000000007018, 0, kExit}, "invalid src 7 for opcode 0x18"},
        BadCase{"call_src_3", {0x0000000000003085, kExit}, "invalid src 3 for opcode 0x85"},
        BadCase{"lddw_truncated", {kExit, 0x0000000100000018}, "pc 1: ld_imm64 is missing its second slot"},
        BadCase{"lddw_bad_second_slot", {0x18, 0x07, kExit}, "second slot must have opcode"},
        BadCase{"lddw_map_fd_high_imm", {0x0000000100001018, 0x0000000500000000, kExit}, "needs imm 0"},
        BadCase{"jump_past_end", {0x0000000000050005, kExit}, "pc 0: jump out of range to pc 6"},
        BadCase{"jump_before_start", {kExit, 0x00000000fffd0005}, "pc 1: jump out of range to pc -1"},
        BadCase{"call_local_out_of_range", {0x0000000900001085, kExit}, "jump out of range"},
        BadCase{"jump_into_lddw", {0x0000000000010005, 0x18, 0, kExit}, "jump into the middle of ld_imm64"},
        BadCase{"ldabs_dw", {0x38, kExit}, "invalid opcode 0x38"},
        BadCase{"ldabs_with_src", {0x1020, kExit}, "reserved field src=r1"},
        BadCase{"falls_off_end", {0x00000001000000b7}, "last insn is not an exit or jmp"}),
    [](const ::testing::TestParamInfo<BadCase>& p) { return std::string(p.param.name); });

TEST(Validate, EmptyProgramIsRefused) { EXPECT_FALSE(validate({}).ok()); }

std::string dis(const char* source, size_t pc = 0, const CallNameFn& names = {}) {
    auto prog = assemble(source);
    if (!prog.ok())
        return "assemble failed: " + prog.error().message;
    return disasm_insn(*prog, pc, names);
}

TEST(Disasm, KernelSyntax) {
    EXPECT_EQ(dis("ldxw %r0, [%r1+4]"), "r0 = *(u32 *)(r1 +4)");
    EXPECT_EQ(dis("ldxsh %r3, [%r10-8]"), "r3 = *(s16 *)(r10 -8)");
    EXPECT_EQ(dis("stxdw [%r10-8], %r1"), "*(u64 *)(r10 -8) = r1");
    EXPECT_EQ(dis("stb [%r1+0], 7"), "*(u8 *)(r1 +0) = 7");
    EXPECT_EQ(dis("jgt %r1, 5, +3"), "if r1 > 0x5 goto pc+3");
    EXPECT_EQ(dis("jsle32 %r1, %r2, -1"), "if w1 s<= w2 goto pc-1");
    EXPECT_EQ(dis("jne %r1, -1, +0"), "if r1 != 0xffffffff goto pc+0");
    EXPECT_EQ(dis("ja +2"), "goto pc+2");
    EXPECT_EQ(dis("ja32 +70000"), "gotol pc+70000");
    EXPECT_EQ(dis("add %r1, -4"), "r1 += -4");
    EXPECT_EQ(dis("mov32 %r0, %r1"), "w0 = w1");
    EXPECT_EQ(dis("arsh %r0, 3"), "r0 s>>= 3");
    EXPECT_EQ(dis("sdiv32 %r0, %r2"), "w0 s/= w2");
    EXPECT_EQ(dis("smod %r0, 3"), "r0 s%= 3");
    EXPECT_EQ(dis("movsx832 %r0, %r1"), "w0 = (s8)w1");
    EXPECT_EQ(dis("movsx3264 %r0, %r1"), "r0 = (s32)r1");
    EXPECT_EQ(dis("neg32 %r4"), "w4 = -w4");
    EXPECT_EQ(dis("be16 %r0"), "r0 = be16 r0");
    EXPECT_EQ(dis("bswap64 %r0"), "r0 = bswap64 r0");
    EXPECT_EQ(dis("lddw %r1, 0x123456789abcdef"), "r1 = 0x123456789abcdef ll");
    EXPECT_EQ(dis("lddw %r1, map_value(3, 16)"), "r1 = map[fd:3][0]+16");
    EXPECT_EQ(dis("lock add [%r10-8], %r1"), "lock *(u64 *)(r10 -8) += r1");
    EXPECT_EQ(dis("lock or32 [%r1+4], %r2"), "lock *(u32 *)(r1 +4) |= r2");
    EXPECT_EQ(dis("lock fetch add [%r10-8], %r1"), "r1 = atomic64_fetch_add((u64 *)(r10 -8), r1)");
    EXPECT_EQ(dis("lock fetch and32 [%r1+0], %r2"), "r2 = atomic_fetch_and((u32 *)(r1 +0), r2)");
    EXPECT_EQ(dis("lock xchg [%r1+0], %r2"), "r2 = atomic64_xchg((u64 *)(r1 +0), r2)");
    EXPECT_EQ(dis("lock cmpxchg32 [%r1+0], %r2"), "r0 = atomic_cmpxchg((u32 *)(r1 +0), r0, r2)");
    EXPECT_EQ(dis("call local +5"), "call pc+5");
    EXPECT_EQ(dis("call 182"), "call unknown#182");
    EXPECT_EQ(dis("ldabsh 12"), "r0 = *(u16 *)skb[12]");
    EXPECT_EQ(dis("ldindb %r2, 3"), "r0 = *(u8 *)skb[r2 + 3]");
    EXPECT_EQ(dis("exit"), "exit");
}

TEST(Disasm, CallNamesComeFromTheResolver) {
    CallNameFn names = [](uint8_t src, int32_t imm) -> std::string {
        if (src == 0 && imm == 182)
            return "bpf_strncmp";
        if (src == 2 && imm == 0)
            return "bpf_strcmp";
        return "";
    };
    EXPECT_EQ(dis("call 182", 0, names), "call bpf_strncmp#182");
    EXPECT_EQ(dis("call runtime 0", 0, names), "call bpf_strcmp#0");
    EXPECT_EQ(dis("call runtime 4", 0, names), "call kfunc#4");
}

TEST(Disasm, ProgramListingNumbersSlots) {
    auto prog = assemble("lddw %r0, 1\nexit");
    ASSERT_TRUE(prog.ok());
    EXPECT_EQ(disasm_program(*prog), "   0: (18) r0 = 0x1 ll\n   2: (95) exit\n");
}

TEST(Disasm, InvalidInsnSaysSo) {
    std::vector<Insn> prog{raw(0xff)};
    EXPECT_NE(disasm_insn(prog, 0).find("invalid insn"), std::string::npos);
}

TEST(Assembler, LabelsCommentsAndPlainRegisters) {
    auto prog = assemble(R"(
        # a comment line
        mov r0, 0          # trailing comment
    top:
        add r0, 1
        jlt r0, 3, top
        ja exit
        mov r0, 9
        exit
    )");
    ASSERT_TRUE(prog.ok()) << prog.error().message;
    ASSERT_EQ(prog->size(), 6u);
    EXPECT_EQ((*prog)[2].off, -2);
    EXPECT_EQ((*prog)[3].off, 1); // the implicit "exit" label
}

TEST(Assembler, AcceptedAliases) {
    auto a = assemble("add64 %r0, 1\nswap16 %r0\nldsxb %r0, [%r1]\ngotol +0\ncall kfunc 2\ncall helper 5\nexit");
    auto b = assemble("add %r0, 1\nbswap16 %r0\nldxsb %r0, [%r1+0]\nja32 +0\ncall runtime 2\ncall 5\nexit");
    ASSERT_TRUE(a.ok()) << a.error().message;
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_TRUE(same_bytes(*a, *b));
}

TEST(Assembler, ImmediateForms) {
    auto prog = assemble("mov32 %r0, 0xffffffff\nmov %r1, -2147483648\nlddw %r2, 0xffffffffffffffff\nexit");
    ASSERT_TRUE(prog.ok()) << prog.error().message;
    EXPECT_EQ((*prog)[0].imm, -1);
    EXPECT_EQ((*prog)[1].imm, INT32_MIN);
    EXPECT_EQ((*prog)[2].imm, -1);
    EXPECT_EQ((*prog)[3].imm, -1);
}

TEST(Assembler, ErrorsNameTheLine) {
    struct {
        const char* source;
        const char* message;
    } cases[] = {
        {"mov %r0, 1\nfrob %r0\nexit", "line 2: unknown mnemonic 'frob'"},
        {"mov %r0\nexit", "line 1: 'mov' takes 2 operand(s), got 1"},
        {"mov %r0, 0x100000000\nexit", "line 1: expected a 32-bit immediate"},
        {"ldxw %r0, %r1\nexit", "line 1: expected a memory operand"},
        {"ldxw %r0, [%q1+2]\nexit", "line 1: expected a register"},
        {"exit\nja nowhere", "line 2: undefined label 'nowhere'"},
        {"a:\na:\nexit", "line 2: duplicate label 'a'"},
        {"lddw %r1, map_value(3)\nexit", "line 1: map_value(...) takes 2 argument(s)"},
        {"jeq %r1, 1, +40000\nexit", "line 1: bad jump offset"},
    };
    for (const auto& c : cases) {
        auto r = assemble(c.source);
        ASSERT_FALSE(r.ok()) << c.source;
        EXPECT_NE(r.error().message.find(c.message), std::string::npos) << r.error().message;
    }
}

// The load scope is what must hold before the verifier walks a program: operand rules are left to the walk, the
// encoding and jump rules are not.
TEST(Validate, LoadScopeLeavesOperandRulesToTheWalk) {
    for (uint64_t bad : {0x0000000100000ab7ull, 0x0000000100000bb7ull, 0x00000001000010b7ull}) {
        const std::vector<Insn> prog{raw(bad), raw(kExit)};
        EXPECT_FALSE(validate(prog).ok());
        EXPECT_TRUE(validate(prog, Scope::load).ok()) << validate(prog, Scope::load).error().message;
        EXPECT_NE(operand_error(*decode(prog[0]), prog[0]), OperandError::none);
    }
    EXPECT_EQ(operand_error(*decode(raw(0x0000000100000ab7)), raw(0x0000000100000ab7)), OperandError::writes_r10);
    EXPECT_EQ(operand_error(*decode(raw(0x00000001000010b7)), raw(0x00000001000010b7)), OperandError::reserved);
    EXPECT_FALSE(validate(std::vector<Insn>{raw(0xff), raw(kExit)}, Scope::load).ok());
    EXPECT_FALSE(validate(std::vector<Insn>{raw(0x0000000000050005), raw(kExit)}, Scope::load).ok());
}

} // namespace
} // namespace strbpf::isa
