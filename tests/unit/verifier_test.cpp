// SPDX-License-Identifier: BSD-2-Clause
// The verifier (tests): the abstract domain (bounds; tnums are in tnum_test.cpp), and every annotated program of
// tests/progs — each __success program verifies, each __failure program is refused with its __msg lines in the log,
// in order.
#include <gtest/gtest.h>

#include <filesystem>

#include "exec/test_spec.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/domain/tnum.hpp"
#include "verifier/kernel_variant_tag.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::verifier {
namespace {

namespace fs = std::filesystem;

TEST(Scalar, AddKeepsBoundsAndAndMasks) {
    Reg a = reg_unknown();
    a.umax = 10, a.smax = 10, a.smin = 0;
    reg_sync(a);
    scalar_alu64(a, reg_const(5), isa::Sem::add);
    EXPECT_EQ(a.umin, 5u);
    EXPECT_EQ(a.umax, 15u);
    Reg b = reg_unknown();
    scalar_alu64(b, reg_const(7), isa::Sem::and_);
    EXPECT_EQ(b.umax, 7u);
    EXPECT_EQ(b.smin, 0);
    Reg c = reg_unknown();
    scalar_alu32(c, reg_const(1), isa::Sem::add);
    EXPECT_LE(c.umax, 0xffffffffu); // zero-extended
    Reg d = reg_const(uint64_t(-1));
    coerce_to_size(d, 4);
    EXPECT_TRUE(d.is_const());
    EXPECT_EQ(d.var.value, 0xffffffffu);
}

// Every annotated program: strbpf's verdict matches the annotation, and a rejection's log holds the __msg lines.
TEST(VerifierPrograms, AnnotationsHold) {
    int checked = 0;
    for (const auto& e : fs::directory_iterator(STRBPF_PROGS_DIR)) {
        const std::string path = e.path().string();
        if (!path.ends_with(".bpf.o"))
            continue;
        // tracing_*: trampoline programs, judged against a copy of the kernel's BTF (tests/cli.cmake passes --btf),
        // not the running kernel's, which this host's kernel may make refuse them all (its own answer).
        if (e.path().filename().string().starts_with("tracing_"))
            continue;
        auto specs = exec::parse_test_specs(path);
        if (!specs)
            continue;
        auto obj = loader::load_object_file(path);
        ASSERT_TRUE(obj) << path;
        auto shared = std::make_shared<const loader::ObjectSpec>(std::move(obj).value());
        auto inst = runtime::ObjectInstance::create(shared);
        ASSERT_TRUE(inst) << path;
        for (const exec::TestSpec& t : specs.value()) {
            const loader::ProgramSpec* prog = shared->find_program(t.prog);
            if (!prog || !t.has_expect || t.auxiliary)
                continue;
            // The 6.18 source's build, with the facts a __kernel_variant tag asks for: every program on every host.
            KernelVariant variant;
            for (const auto& [key, value] : t.other_tags)
                if (key == "strbpf_kernel_variant") {
                    std::string error;
                    const auto needs = parse_kernel_variant_tag(value, &error);
                    ASSERT_TRUE(needs) << path << ":" << t.prog << ": " << error;
                    variant = kernel_variant_for(*needs);
                }
            Options opts;
            opts.variant = &variant;
            opts.log_level = t.log_level & 3;
            const Verdict v = verify(*inst.value(), *prog, opts);
            // Failures the kernel reports at run time (kfunc results) are __success for the verifier.
            if (t.expect_success) {
                EXPECT_TRUE(v.ok) << path << ":" << t.prog << ": " << v.reason;
            } else if (!v.ok) {
                EXPECT_EQ(exec::match_messages(t, v.log), "") << path << ":" << t.prog << "\n" << v.log;
            } else {
                // A rejection strbpf does not model must at least be one the loader or runtime reports.
                const bool verifier_file = e.path().filename().string().starts_with("verifier_");
                EXPECT_FALSE(verifier_file) << path << ":" << t.prog << " was accepted";
            }
            checked++;
        }
    }
    EXPECT_GT(checked, 20);
}

TEST(VerifierPrograms, LogLevelsAndProcessedCount) {
    const std::string path = std::string(STRBPF_PROGS_DIR) + "/verifier_reject.bpf.o";
    auto obj = loader::load_object_file(path);
    ASSERT_TRUE(obj);
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(obj).value());
    auto inst = runtime::ObjectInstance::create(shared);
    ASSERT_TRUE(inst);
    const loader::ProgramSpec* prog = shared->find_program("map_value_off_by_one");
    ASSERT_NE(prog, nullptr);
    const Verdict quiet = verify(*inst.value(), *prog);
    EXPECT_FALSE(quiet.ok);
    EXPECT_EQ(quiet.reason, "R0 min value is outside of the allowed memory range");
    EXPECT_GE(quiet.pc, 0);
    EXPECT_GT(quiet.processed_insns, 0u);
    const Verdict loud = verify(*inst.value(), *prog, Options{2});
    EXPECT_NE(loud.log.find("; "), std::string::npos) << loud.log; // source line notes
    EXPECT_NE(loud.log.find("processed "), std::string::npos);
    EXPECT_GT(loud.log.size(), quiet.log.size());
}

// Loads PROG of tests/progs/FILE and verifies it.
Verdict verify_prog(const std::string& file, const std::string& name, int log_level = 0, uint32_t prog_flags = 0) {
    auto obj = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/" + file);
    if (!obj)
        return {};
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(obj).value());
    auto inst = runtime::ObjectInstance::create(shared);
    const loader::ProgramSpec* prog = inst ? shared->find_program(name) : nullptr;
    if (!prog)
        return {};
    return verify(*inst.value(), *prog, Options{log_level, prog_flags});
}

uint64_t total_states(const Verdict& v) {
    const size_t at = v.log.rfind("total_states ");
    return at == std::string::npos ? 0 : std::stoull(v.log.substr(at + 13));
}

// 16 unrolled "if (lookup(k)) n++": n is never relied on, so its 2^16 values must not keep paths apart.
TEST(VerifierPrecision, UnrolledCountStaysLinear) {
    const Verdict v = verify_prog("verifier_precision.bpf.o", "unrolled_count_16");
    ASSERT_TRUE(v.ok) << v.reason;
    EXPECT_LT(v.processed_insns, 2000u); // the kernel: 471
}

// BPF_F_TEST_STATE_FREQ: a checkpoint at every prune point, where the heuristics would skip most of them; the
// verdict stays the same.
TEST(VerifierPrograms, TestStateFreqCheckpointsEveryPrunePoint) {
    const Verdict plain = verify_prog("verifier_precision.bpf.o", "unrolled_count_16", 1);
    const Verdict freq = verify_prog("verifier_precision.bpf.o", "unrolled_count_16", 1, kProgFlagTestStateFreq);
    ASSERT_TRUE(plain.ok) << plain.reason;
    ASSERT_TRUE(freq.ok) << freq.reason;
    EXPECT_GT(total_states(freq), total_states(plain)) << plain.log << freq.log;
}

// The callback body is walked in its own frame, and again after the state at the call changed.
TEST(VerifierCallbacks, BodyIsWalkedPerRound) {
    const Verdict v = verify_prog("helpers_callbacks.bpf.o", "loop_sum", 2);
    ASSERT_TRUE(v.ok) << v.reason;
    EXPECT_NE(v.log.find("frame1: "), std::string::npos) << v.log;
    const Verdict bad = verify_prog("verifier_callbacks.bpf.o", "loop_second_round_out_of_bounds");
    EXPECT_FALSE(bad.ok);
    EXPECT_EQ(bad.reason, "R0 min value is outside of the allowed memory range") << bad.log;
}

// A writable raw tracepoint's furthest buffer byte (the kernel's max_tp_access, for attach time): the load at the
// moved pointer's fixed offset 8 plus 32752, 8 bytes, ends at 32768; other program types keep 0.
TEST(VerifierTpBuffer, FurthestByteIsKept) {
    const Verdict v = verify_prog("verifier_tp_buffer.bpf.o", "tp_buffer_const_offsets");
    ASSERT_TRUE(v.ok) << v.reason;
    EXPECT_EQ(v.max_tp_access, 32768);
    const Verdict w = verify_prog("verifier_tp_buffer.bpf.o", "tp_buffer_sub_fetch_return");
    ASSERT_TRUE(w.ok) << w.reason;
    EXPECT_EQ(w.max_tp_access, 16);
    const Verdict other = verify_prog("verifier_precision.bpf.o", "unrolled_count_16");
    ASSERT_TRUE(other.ok) << other.reason;
    EXPECT_EQ(other.max_tp_access, 0);
}

} // namespace
} // namespace strbpf::verifier
