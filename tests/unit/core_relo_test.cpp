// SPDX-License-Identifier: BSD-2-Clause
// CO-RE relocations (loader stage) against small target BTFs built with libbpf's btf__new_empty / btf__add_*:
// every relocation kind, ___flavor candidates, field-by-field matching through anonymous members, bitfields,
// candidate ambiguity, unsatisfiable relocations (poisoned instructions) and the instruction patches.
#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "loader/core_relo.hpp"

namespace strbpf::loader {
namespace {

using BtfPtr = std::unique_ptr<struct btf, void (*)(struct btf*)>;

BtfPtr new_btf() { return BtfPtr(btf__new_empty(), btf__free); }

// Local: int(1), unsigned(2), struct s { int a; int b; unsigned c; }(3), struct bf { int pad:3; int f:5; }(4),
// enum e { E1 = 1, E2 = 2, E_LOCAL = 3 }(5), struct s___v2 { int a; }(6), struct nope { int a; }(7),
// struct big { unsigned a; }(8).
BtfPtr local_btf() {
    BtfPtr b = new_btf();
    struct btf* l = b.get();
    btf__add_int(l, "int", 4, BTF_INT_SIGNED);
    btf__add_int(l, "unsigned int", 4, 0);
    btf__add_struct(l, "s", 12);
    btf__add_field(l, "a", 1, 0, 0);
    btf__add_field(l, "b", 1, 32, 0);
    btf__add_field(l, "c", 2, 64, 0);
    btf__add_struct(l, "bf", 4);
    btf__add_field(l, "pad", 1, 0, 3);
    btf__add_field(l, "f", 1, 3, 5);
    btf__add_enum(l, "e", 4);
    btf__add_enum_value(l, "E1", 1);
    btf__add_enum_value(l, "E2", 2);
    btf__add_enum_value(l, "E_LOCAL", 3);
    btf__add_struct(l, "s___v2", 4);
    btf__add_field(l, "a", 1, 0, 0);
    btf__add_struct(l, "nope", 4);
    btf__add_field(l, "a", 1, 0, 0);
    btf__add_struct(l, "big", 4);
    btf__add_field(l, "a", 2, 0, 0);
    return b;
}

// Target: int(1), unsigned(2), unsigned long(3), struct s { int x; union { int pad; int b; }; int a; }(4) with
// the anonymous union as (5), struct bf { int pad:10; int f:5; }(6), enum e { E2 = 7, E1 = -1 }(7),
// struct big { unsigned long a; }(8).
BtfPtr target_btf() {
    BtfPtr b = new_btf();
    struct btf* t = b.get();
    btf__add_int(t, "int", 4, BTF_INT_SIGNED);
    btf__add_int(t, "unsigned int", 4, 0);
    btf__add_int(t, "unsigned long", 8, 0);
    btf__add_struct(t, "s", 12);
    btf__add_field(t, "x", 1, 0, 0);
    btf__add_field(t, "", 5, 32, 0);
    btf__add_field(t, "a", 1, 64, 0);
    btf__add_union(t, "", 4);
    btf__add_field(t, "pad", 1, 0, 0);
    btf__add_field(t, "b", 1, 0, 0);
    btf__add_struct(t, "bf", 4);
    btf__add_field(t, "pad", 1, 0, 10);
    btf__add_field(t, "f", 1, 10, 5);
    btf__add_enum(t, "e", 4);
    btf__add_enum_value(t, "E2", 7);
    btf__add_enum_value(t, "E1", -1);
    btf__add_struct(t, "big", 8);
    btf__add_field(t, "a", 3, 0, 0);
    return b;
}

class CoreRelo : public ::testing::Test {
  protected:
    BtfPtr local = local_btf();
    BtfPtr target = target_btf();

    BtfExtCoreRelo relo(uint32_t type_id, const char* access, uint32_t kind) {
        return BtfExtCoreRelo{0, type_id, uint32_t(btf__add_str(local.get(), access)), kind};
    }
    CoreResult resolve(uint32_t type_id, const char* access, uint32_t kind) {
        auto r = core_resolve(local.get(), relo(type_id, access, kind), target.get());
        EXPECT_TRUE(r.ok()) << r.error().message;
        return r.ok() ? *r : CoreResult{};
    }
};

TEST_F(CoreRelo, FieldByteOffsetThroughAnonymousMembers) {
    CoreResult r = resolve(3, "0:1", kCoreFieldByteOffset); // s.b: local 4, target 4 (inside the union)
    EXPECT_EQ(r.orig, 4u);
    EXPECT_EQ(r.value, 4u);
    EXPECT_FALSE(r.poison);
    r = resolve(3, "0:0", kCoreFieldByteOffset); // s.a: 0 -> 8
    EXPECT_EQ(r.orig, 0u);
    EXPECT_EQ(r.value, 8u);
    EXPECT_EQ(r.spec, "<byte_off> [3] struct s.a (0:0 @ offset 0)");
    r = resolve(3, "1:0", kCoreFieldByteOffset); // (&s[1])->a: 12 -> 12 + 8
    EXPECT_EQ(r.orig, 12u);
    EXPECT_EQ(r.value, 20u);
}

TEST_F(CoreRelo, FieldSizeExistsSigned) {
    EXPECT_EQ(resolve(3, "0:0", kCoreFieldByteSize).value, 4u);
    EXPECT_EQ(resolve(3, "0:0", kCoreFieldExists).value, 1u);
    EXPECT_EQ(resolve(3, "0:2", kCoreFieldExists).value, 0u); // c: not in the target
    EXPECT_EQ(resolve(3, "0:0", kCoreFieldSigned).value, 1u);
    EXPECT_EQ(resolve(8, "0:0", kCoreFieldSigned).value, 0u);
}

TEST_F(CoreRelo, BitfieldShifts) {
    // Local f: bits 3..7 of a 4-byte int; target f: bits 10..14.
    CoreResult l = resolve(4, "0:1", kCoreFieldLshiftU64);
    EXPECT_EQ(l.orig, 64u - 8u);
    EXPECT_EQ(l.value, 64u - 15u);
    CoreResult r = resolve(4, "0:1", kCoreFieldRshiftU64);
    EXPECT_EQ(r.value, 59u);
    EXPECT_EQ(resolve(4, "0:1", kCoreFieldByteSize).value, 4u);
    EXPECT_EQ(resolve(4, "0:1", kCoreFieldByteOffset).value, 0u);
}

TEST_F(CoreRelo, TypeRelocations) {
    EXPECT_EQ(resolve(3, "0", kCoreTypeExists).value, 1u);
    EXPECT_EQ(resolve(7, "0", kCoreTypeExists).value, 0u); // no struct nope in the target
    EXPECT_EQ(resolve(3, "0", kCoreTypeSize).value, 12u);
    EXPECT_EQ(resolve(3, "0", kCoreTypeIdTarget).value, 4u);
    CoreResult local_id = resolve(3, "0", kCoreTypeIdLocal);
    EXPECT_EQ(local_id.value, 3u);
    EXPECT_FALSE(local_id.validate);
    EXPECT_EQ(resolve(6, "0", kCoreTypeExists).value, 1u); // s___v2 is a flavor of s
}

TEST_F(CoreRelo, TypeMatchesIsStricter) {
    // struct s has c (absent from the target): compatible, but it does not match.
    EXPECT_EQ(resolve(3, "0", kCoreTypeExists).value, 1u);
    EXPECT_EQ(resolve(3, "0", kCoreTypeMatches).value, 0u);
    // s___v2 { int a } matches: a is a direct member of the target with the same int (b, inside the target's
    // anonymous union, would not be: matching compares names level by level).
    EXPECT_EQ(resolve(6, "0", kCoreTypeMatches).value, 1u);
    // big { unsigned a } against { unsigned long a }: the sizes differ.
    EXPECT_EQ(resolve(8, "0", kCoreTypeMatches).value, 0u);
}

TEST_F(CoreRelo, EnumValues) {
    EXPECT_EQ(resolve(5, "1", kCoreEnumvalValue).value, 7u);                    // E2
    EXPECT_EQ(resolve(5, "0", kCoreEnumvalValue).value, uint64_t(int64_t(-1))); // E1: signed 32-bit value
    EXPECT_EQ(resolve(5, "2", kCoreEnumvalExists).value, 0u);                   // E_LOCAL
    EXPECT_EQ(resolve(5, "1", kCoreEnumvalExists).value, 1u);
    CoreResult absent = resolve(5, "2", kCoreEnumvalValue);
    EXPECT_TRUE(absent.poison);
    EXPECT_EQ(absent.spec, "<enumval_value> [5] enum e::E_LOCAL = 3");
}

TEST_F(CoreRelo, UnsatisfiedRelocationPoisons) {
    CoreResult r = resolve(3, "0:2", kCoreFieldByteOffset);
    EXPECT_TRUE(r.poison);
    isa::Insn prog[2] = {{isa::BPF_LDX | isa::BPF_MEM | isa::BPF_W, 0, 1, 8, 0}, {0x95, 0, 0, 0, 0}};
    ASSERT_TRUE(core_patch(prog, r).ok());
    EXPECT_EQ(prog[0].opcode, isa::BPF_JMP | isa::BPF_CALL);
    EXPECT_EQ(prog[0].imm, kCorePoisonHelper);
    EXPECT_EQ(prog[1].opcode, 0x95); // only the relocated instruction
    // A poisoned ld_imm64 becomes two calls, as libbpf writes it.
    isa::Insn ld[2] = {{isa::BPF_LD | isa::BPF_IMM | isa::BPF_DW, 0, 0, 0, 3}, {0, 0, 0, 0, 0}};
    ASSERT_TRUE(core_patch(ld, resolve(5, "2", kCoreEnumvalValue)).ok());
    EXPECT_EQ(ld[1].opcode, isa::BPF_JMP | isa::BPF_CALL);
    EXPECT_EQ(ld[1].imm, kCorePoisonHelper);
}

TEST_F(CoreRelo, PatchesCheckTheLocalValue) {
    CoreResult r = resolve(3, "0:0", kCoreFieldByteOffset); // 0 -> 8
    isa::Insn ldx[1] = {{isa::BPF_LDX | isa::BPF_MEM | isa::BPF_W, 0, 1, 0, 0}};
    ASSERT_TRUE(core_patch(ldx, r).ok());
    EXPECT_EQ(ldx[0].off, 8);
    isa::Insn wrong[1] = {{isa::BPF_LDX | isa::BPF_MEM | isa::BPF_W, 0, 1, 4, 0}};
    auto st = core_patch(wrong, r);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("unexpected insn (LDX/ST/STX) value: got 4, exp 0 -> 8"), std::string::npos);
    isa::Insn mov[1] = {{isa::BPF_ALU64 | isa::BPF_MOV | isa::BPF_K, 0, 0, 0, 0}};
    ASSERT_TRUE(core_patch(mov, r).ok());
    EXPECT_EQ(mov[0].imm, 8);
}

TEST_F(CoreRelo, UnsignedFieldGrowsTheLoad) {
    CoreResult r = resolve(8, "0:0", kCoreFieldByteOffset); // big.a: unsigned int -> unsigned long
    isa::Insn ldx[1] = {{isa::BPF_LDX | isa::BPF_MEM | isa::BPF_W, 0, 1, 0, 0}};
    ASSERT_TRUE(core_patch(ldx, r).ok());
    EXPECT_EQ(ldx[0].opcode, isa::BPF_LDX | isa::BPF_MEM | isa::BPF_DW);
}

TEST_F(CoreRelo, CandidatesMustAgree) {
    // A second flavor of s in the target with b elsewhere: two matching candidates, two answers.
    btf__add_struct(target.get(), "s___other", 8);
    btf__add_field(target.get(), "b", 1, 32, 0);
    btf__add_field(target.get(), "a", 1, 0, 0);
    auto r = core_resolve(local.get(), relo(3, "0:0", kCoreFieldByteOffset), target.get());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("field offset ambiguity"), std::string::npos) << r.error().message;
}

TEST_F(CoreRelo, AnonymousLocalTypeIsRefused) {
    const int anon = btf__add_struct(local.get(), "", 4);
    btf__add_field(local.get(), "a", 1, 0, 0);
    auto r = core_resolve(local.get(), relo(uint32_t(anon), "0", kCoreTypeExists), target.get());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("relocation doesn't support anonymous types"), std::string::npos);
}

} // namespace
} // namespace strbpf::loader
