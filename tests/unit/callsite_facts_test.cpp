// SPDX-License-Identifier: BSD-2-Clause
// The verifier's facts about string call arguments (verifier stage, verifier/callsite_facts.hpp) and the JIT's use
// of them: tests/progs/strings_facts.bpf.c's calls pass pointers into .data and frozen .rodata at constant
// offsets, a constant char, and a set that differs between paths. The facts name each pinned pointer's address,
// span and frozenness and drop what differs; the JIT's guarded sites then answer without ever taking the
// look-up path (their slots stay empty), while a site without facts fills its slot.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "exec/jit/jit.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf {
namespace {

using verifier::ArgFact;

class CallsiteFactsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/strings_facts.bpf.o");
        ASSERT_TRUE(spec) << spec.error().message;
        auto inst = runtime::ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)));
        ASSERT_TRUE(inst) << inst.error().message;
        inst_ = std::move(*inst);
    }
    // PROG verified; its one string call's facts.
    verifier::CallFacts facts_of(const std::string& prog) {
        lp_ = inst_->find_program(prog);
        EXPECT_NE(lp_, nullptr) << prog;
        if (!lp_)
            return {};
        const Status st = exec::load_check(exec::EngineKind::jit, *inst_, *lp_);
        EXPECT_TRUE(st) << st.error().message;
        const auto& vp = lp_->cache->program;
        EXPECT_TRUE(vp && vp->call_facts.size() == 1) << prog;
        if (!vp || vp->call_facts.empty())
            return {};
        const verifier::CallFacts& f = vp->call_facts.front();
        EXPECT_EQ(vp->call_facts_at(f.pc), &f);
        const isa::Insn& call = vp->insns[size_t(f.pc)];
        EXPECT_EQ(call.opcode, isa::BPF_JMP | isa::BPF_CALL) << "the fact's pc is the call";
        return f;
    }
    // F is an address inside global-data map MAP, its span reaching the value's end.
    void expect_in(const ArgFact& f, const char* map, bool frozen) {
        ASSERT_EQ(f.kind, ArgFact::Kind::address);
        const runtime::Region* r = inst_->registry().find(f.value);
        ASSERT_NE(r, nullptr);
        EXPECT_STREQ(r->name, map);
        EXPECT_EQ(f.value + f.span, r->base + r->size);
        EXPECT_EQ(f.frozen, frozen);
    }
    uint64_t run_jit(const runtime::LinkedProgram& lp) {
        exec::RunRequest req;
        const exec::RunReport rep = exec::run_linked(exec::EngineKind::jit, *inst_, lp, req);
        EXPECT_TRUE(rep.ran) << rep.error;
        return rep.retval;
    }

    std::unique_ptr<runtime::ObjectInstance> inst_;
    const runtime::LinkedProgram* lp_ = nullptr;
};

TEST_F(CallsiteFactsTest, PointersIntoGlobalDataAndFrozenRodata) {
    const verifier::CallFacts f = facts_of("strcspn_one");
    expect_in(f.args[0], ".data", false);
    expect_in(f.args[1], ".rodata.str1.1", true);
    EXPECT_EQ(std::memcmp(reinterpret_cast<const char*>(f.args[1].value), "0", 2), 0);
    EXPECT_EQ(f.args[2].kind, ArgFact::Kind::none); // R3 is not set by the program
}

TEST_F(CallsiteFactsTest, ConstantOffsetIntoARodataArray) {
    const verifier::CallFacts f = facts_of("strcspn_rodata_offset");
    expect_in(f.args[1], ".rodata", true);
    EXPECT_EQ(std::memcmp(reinterpret_cast<const char*>(f.args[1].value), "0", 2), 0);
    const verifier::CallFacts tail = facts_of("strlen_tail");
    expect_in(tail.args[0], ".data", false);
    const runtime::Region* data = inst_->registry().find(tail.args[0].value);
    ASSERT_NE(data, nullptr);
    EXPECT_EQ(tail.args[0].value - data->base, 31u);
}

TEST_F(CallsiteFactsTest, ConstantChar) {
    const verifier::CallFacts f = facts_of("strchr_const");
    expect_in(f.args[0], ".data", false);
    EXPECT_EQ(f.args[1].kind, ArgFact::Kind::constant);
    EXPECT_EQ(f.args[1].value, uint64_t('7'));
}

TEST_F(CallsiteFactsTest, ASetThatDiffersBetweenPathsHasNoFact) {
    const verifier::CallFacts f = facts_of("strcspn_either");
    expect_in(f.args[0], ".data", false);
    EXPECT_EQ(f.args[1].kind, ArgFact::Kind::none);
}

// A guarded site never calls the miss entry, so its slots keep the empty region; a site without a fact for a
// pointer misses on its first run, and the miss entry fills the slots.
TEST_F(CallsiteFactsTest, TheJitUsesTheFacts) {
    facts_of("strcspn_one");
    ASSERT_NE(lp_, nullptr);
    EXPECT_EQ(run_jit(*lp_), 7u);
    auto code = exec::jit::compile_cached(*lp_);
    ASSERT_TRUE(code) << code.error().message;
    EXPECT_EQ((*code)->call_site_region(0), &runtime::kNoRegion);
    EXPECT_EQ((*code)->call_site_region(1), &runtime::kNoRegion);

    facts_of("strcspn_either");
    ASSERT_NE(lp_, nullptr);
    EXPECT_EQ(run_jit(*lp_), 7u);
    auto either = exec::jit::compile_cached(*lp_);
    ASSERT_TRUE(either) << either.error().message;
    ASSERT_NE((*either)->call_site_region(1), &runtime::kNoRegion);
    EXPECT_STREQ((*either)->call_site_region(1)->name, ".rodata.str1.1");
}

// Stack pointers: the frame pointed into (counted up from the call's) and the offset from its r10 when it is one
// constant; an offset that differs between paths or is variable leaves "somewhere in the stack" (stack_any).
TEST_F(CallsiteFactsTest, StackPointers) {
    const verifier::CallFacts f = facts_of("strlen_stack");
    ASSERT_EQ(f.args[0].kind, ArgFact::Kind::stack);
    EXPECT_EQ(f.args[0].up, 0);
    const int64_t off = int64_t(f.args[0].value);
    EXPECT_TRUE(off >= -512 && off <= -16) << off; // a 16-byte buffer in main's frame

    const verifier::CallFacts two = facts_of("strcmp_stack_stack");
    ASSERT_EQ(two.args[0].kind, ArgFact::Kind::stack);
    ASSERT_EQ(two.args[1].kind, ArgFact::Kind::stack);
    EXPECT_NE(two.args[0].value, two.args[1].value);

    EXPECT_EQ(facts_of("strcmp_stack_rodata").args[0].kind, ArgFact::Kind::stack);
    EXPECT_EQ(facts_of("strlen_stack_either").args[0].kind, ArgFact::Kind::stack_any);
    EXPECT_EQ(facts_of("strlen_stack_variable").args[0].kind, ArgFact::Kind::stack_any);
}

// From a subprogram: its caller's buffer is one frame up, its own is in its frame; a bpf_loop callback's ctx is
// main's frame, one up from the callback's.
TEST_F(CallsiteFactsTest, StackPointersFromOtherFrames) {
    lp_ = inst_->find_program("strlen_stack_subprog");
    ASSERT_NE(lp_, nullptr);
    ASSERT_TRUE(exec::load_check(exec::EngineKind::jit, *inst_, *lp_));
    const auto& sub = lp_->cache->program->call_facts;
    ASSERT_EQ(sub.size(), 2u);
    EXPECT_EQ(sub[0].args[0].kind, ArgFact::Kind::stack);
    EXPECT_EQ(sub[1].args[0].kind, ArgFact::Kind::stack);
    EXPECT_EQ(sub[0].args[0].up + sub[1].args[0].up, 1) << "one call on the caller's buffer, one on its own";

    const verifier::CallFacts cb = facts_of("strspn_stack_callback");
    ASSERT_EQ(cb.args[0].kind, ArgFact::Kind::stack);
    EXPECT_EQ(cb.args[0].up, 1);
    expect_in(cb.args[1], ".rodata.str1.1", true);
}

// Every stack string program answers on the JIT as written in strings_facts.bpf.c (the kernel's answers: the
// programs run on every engine and the kernel through their __retval annotations too).
TEST_F(CallsiteFactsTest, StackStringsOnTheJit) {
    const std::pair<const char*, uint64_t> kRuns[] = {
        {"strlen_stack", 11},           {"strchr_stack_end", 6},     {"strcmp_stack_rodata", uint64_t(uint32_t(-1))},
        {"strcmp_stack_stack", 0},      {"strlen_stack_either", 9},  {"strlen_stack_variable", 8},
        {"strlen_stack_subprog", 1104}, {"strspn_stack_callback", 8}};
    for (const auto& [prog, want] : kRuns) {
        lp_ = inst_->find_program(prog);
        ASSERT_NE(lp_, nullptr) << prog;
        ASSERT_TRUE(exec::load_check(exec::EngineKind::jit, *inst_, *lp_)) << prog;
        EXPECT_EQ(run_jit(*lp_), want) << prog;
    }
}

} // namespace
} // namespace strbpf
