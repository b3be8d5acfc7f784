// SPDX-License-Identifier: BSD-2-Clause
// The verifier's state lists, its bounds synchronisation and its dead-code rule on raw programs (tests, verifier
// stage): a loop that never repeats a state runs into the kernel's instruction limit with the kernel's count and
// statistics' shape, bounds keep exactly what the kernel's reg_bounds_sync keeps, and a callback reference to a
// subprogram no path entered is refused as the kernel's JIT refuses it. Each expectation is what Linux 6.18 answers
// for the same instructions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loader/loader.hpp"
#include "verifier/domain/state.hpp"
#include "verifier_raw_prog.hpp"

namespace strbpf::vtest {
namespace {

using isa::Insn;

constexpr RawProg kKprobe{"kprobe", 2, 0};
constexpr RawProg kXdp{"xdp", 6, 0};

Insn exit_insn() { return raw_insn(0x95, 0, 0, 0, 0); }
Insn mov_imm(uint8_t dst, int32_t imm) { return raw_insn(0xb7, dst, 0, 0, imm); }
Insn call_local(int32_t imm) { return raw_insn(0x85, 0, 1, 0, imm); }
// ld_imm64 of a callback (BPF_PSEUDO_FUNC): two slots
void ld_func(std::vector<Insn>& p, uint8_t dst, int32_t imm) {
    p.push_back(raw_insn(0x18, dst, 4, 0, imm));
    p.push_back(raw_insn(0, 0, 0, 0, 0));
}

// r7 = *(u16 *)(r1 + 0); loop: r7 += K; if r7 & MASK goto loop; ... — a counter whose state never repeats.
std::vector<Insn> never_repeating_loop() {
    return {raw_insn(0x69, 7, 1, 0, 0),         raw_insn(0x07, 7, 0, 0, 0x1ab064b9),
            raw_insn(0x45, 7, 0, -2, 0x702000), raw_insn(0x57, 7, 0, 0, 0x1ee60e),
            raw_insn(0x0f, 7, 1, 0, 0),         raw_insn(0x65, 7, 0, 0, 0x37d2),
            mov_imm(0, 0),                      exit_insn()};
}

TEST(VerifierPrune, LoopThatNeverRepeatsHitsTheInsnLimit) {
    verifier::Options opts; // level 0: only the statistics line is logged
    const auto v = [&] {
        loader::ObjectSpec spec;
        spec.license = "GPL";
        loader::ProgramSpec prog;
        prog.name = "raw";
        prog.section = kKprobe.section;
        prog.type = static_cast<loader::ProgType>(kKprobe.prog_type);
        prog.insns = never_repeating_loop();
        spec.programs.push_back(prog);
        auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec));
        auto inst = runtime::ObjectInstance::create(shared);
        EXPECT_TRUE(inst) << inst.error().message;
        return verifier::verify(*inst.value(), shared->programs[0], opts);
    }();
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.reason, "BPF program is too large. Processed 1000001 insn");
    EXPECT_EQ(v.processed_insns, 1000001u);
    // Checkpoints are forced every 40 jump-history entries and evicted when they keep missing: a handful per insn
    // (the kernel: max_states_per_insn 5), far fewer alive at once than were made.
    const size_t at = v.log.rfind("max_states_per_insn ");
    ASSERT_NE(at, std::string::npos);
    unsigned max_per_insn = 0, total = 0, peak = 0;
    ASSERT_EQ(std::sscanf(v.log.c_str() + at, "max_states_per_insn %u total_states %u peak_states %u", &max_per_insn,
                          &total, &peak),
              3);
    EXPECT_LE(max_per_insn, 8u);
    EXPECT_GT(total, 30000u);
    EXPECT_LT(peak, total / 3);
}

// The sign-extension case of the 64-bit from 32-bit deduction: [S64_MIN, 29] met with u64 <= 65 keeps the 32-bit
// view [0, 65] derived first, so smax is 65, not 29 (the kernel prints smax=umax=65 after such a branch).
TEST(VerifierPrune, BoundsSyncKeepsWhatTheKernelKeeps) {
    verifier::Reg r = verifier::reg_unknown();
    r.smax = 29;
    r.umax = 65;
    verifier::reg_sync(r);
    EXPECT_EQ(r.smin, 0);
    EXPECT_EQ(r.smax, 65);
    EXPECT_EQ(r.umin, 0u);
    EXPECT_EQ(r.umax, 65u);
    EXPECT_EQ(r.var.value, 0u);
    EXPECT_EQ(r.var.mask, 0x7fu);
    // Below the 32-bit view's bound the 64-bit one stays exact.
    verifier::Reg q = verifier::reg_unknown();
    q.smax = 29;
    q.umax = 20;
    verifier::reg_sync(q);
    EXPECT_EQ(q.smax, 20);
    EXPECT_EQ(q.umax, 20u);
}

// main calls the subprogram at 4 and loads a reference to the one at 6, which nothing calls: after its removal
// two subprograms remain and the reference points past the program.
std::vector<Insn> dangling_ref() {
    std::vector<Insn> p;
    p.push_back(call_local(3)); // 0
    ld_func(p, 2, 4);           // 1
    p.push_back(exit_insn());   // 3
    p.push_back(mov_imm(0, 0)); // 4: called
    p.push_back(exit_insn());
    p.push_back(exit_insn()); // 6: never entered
    return p;
}

TEST(VerifierPrune, ReferenceToARemovedSubprogramIsRefused) {
    const auto v = strbpf_verdict(kXdp, dangling_ref());
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.reason, "verifier bug: No program to jit at insn 6 (subprog < 0)");
}

TEST(VerifierPrune, ReferenceThatLandsOnTheNextSubprogramPasses) {
    // 0: call the subprogram at 7; 1: r2 = the subprogram at 5 (never entered); after its removal the one at 7
    // starts at 5, where the reference now points.
    std::vector<Insn> p;
    p.push_back(call_local(6));
    ld_func(p, 2, 3);
    p.push_back(mov_imm(0, 0));
    p.push_back(exit_insn());
    p.push_back(mov_imm(0, 1)); // 5: dead
    p.push_back(exit_insn());
    p.push_back(mov_imm(0, 0)); // 7: live
    p.push_back(exit_insn());
    const auto v = strbpf_verdict(kXdp, p);
    EXPECT_TRUE(v.ok) << v.reason;
}

TEST(VerifierPrune, AnUnusedReferenceAloneIsFine) {
    // Only main remains after the removal: nothing to split, nothing looked up.
    std::vector<Insn> p;
    ld_func(p, 2, 3);
    p.push_back(mov_imm(0, 0));
    p.push_back(exit_insn());
    p.push_back(mov_imm(0, 0)); // 4: never entered
    p.push_back(exit_insn());
    const auto v = strbpf_verdict(kXdp, p);
    EXPECT_TRUE(v.ok) << v.reason;
}

// A callback's rounds are widened by the iterators' rule (widen_imprecise_scalars): only scalars that changed with
// their ids mapped one to one become unknown, so for_each_map_elem over a hash map converges in the 121 insns Linux
// 6.18 processes for tests/progs/helpers_callbacks.bpf.c's for_each_hash (141 when ids had to be equal).
TEST(VerifierPrune, CallbackRoundsWidenAsTheKernelDoes) {
    const std::string path = std::string(STRBPF_PROGS_DIR) + "/helpers_callbacks.bpf.o";
    auto spec = loader::load_object_file(path);
    ASSERT_TRUE(spec) << spec.error().message;
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
    auto inst = runtime::ObjectInstance::create(shared);
    ASSERT_TRUE(inst) << inst.error().message;
    const loader::ProgramSpec* prog = shared->find_program("for_each_hash");
    ASSERT_NE(prog, nullptr);
    const verifier::Verdict v = verifier::verify(*inst.value(), *prog);
    ASSERT_TRUE(v.ok) << v.reason;
    EXPECT_EQ(v.processed_insns, 121u);
}

// Precision follows a stack load only when it fills a spilled register, as the kernel's backtrack_insn does: the
// counter of tests/progs/maps_user_ringbuf.bpf.c's drain_compares_a_counter shares its slot with a 4-byte data
// store, so the load of that slot ends the backtracking, the counter stays imprecise and the drain callback's
// rounds converge in the 92 insns Linux 6.18 processes (133 when every stack load carried precision on).
TEST(VerifierPrune, PrecisionFollowsFillsNotDataLoads) {
    const std::string path = std::string(STRBPF_PROGS_DIR) + "/maps_user_ringbuf.bpf.o";
    auto spec = loader::load_object_file(path);
    ASSERT_TRUE(spec) << spec.error().message;
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
    auto inst = runtime::ObjectInstance::create(shared);
    ASSERT_TRUE(inst) << inst.error().message;
    const loader::ProgramSpec* prog = shared->find_program("drain_compares_a_counter");
    ASSERT_NE(prog, nullptr);
    const verifier::Verdict v = verifier::verify(*inst.value(), *prog);
    ASSERT_TRUE(v.ok) << v.reason;
    EXPECT_EQ(v.processed_insns, 92u);
}

} // namespace
} // namespace strbpf::vtest
