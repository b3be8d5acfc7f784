// SPDX-License-Identifier: BSD-2-Clause
// The strncmp bench's byte loop over 4096 bytes with target known (tests, verifier stage): strbpf accepts it as
// Linux 6.18 does (it used to stop at "The sequence of 8193 jumps is too complex."), within 2x the kernel's
// processed instructions. The kernel part is skipped when the kernel engine is unavailable.
#include <gtest/gtest.h>

#include <cstring>

#include "exec/kernel/kernel_engine.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "verifier/verifier.hpp"
#include "host_facts.hpp"

// last: linux/bpf.h macros would clash with isa/insn.hpp constants
#include <bpf/libbpf.h>

namespace strbpf {
namespace {

const std::string kPath = std::string(STRBPF_PROGS_DIR) + "/verifier_jmp_seq.bpf.o";

// .rodata: cmp_str_len = 4095 at 0, then target = 4095 digits '1'..'9' and a NUL (as `strbpf bench` fills it).
std::vector<uint8_t> rodata() {
    std::vector<uint8_t> b(4 + 4096, 0);
    const uint32_t len = 4095;
    std::memcpy(b.data(), &len, sizeof len);
    for (size_t i = 0; i < 4095; i++)
        b[4 + i] = uint8_t('1' + (i * 7) % 9);
    return b;
}

uint64_t ours_processed() {
    auto spec = loader::load_object_file(kPath);
    EXPECT_TRUE(spec) << spec.error().message;
    if (!spec)
        return 0;
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
    auto inst = runtime::ObjectInstance::create(shared, {{".rodata", 0, rodata()}});
    EXPECT_TRUE(inst) << inst.error().message;
    const loader::ProgramSpec* prog = shared->find_program("strncmp_no_helper");
    EXPECT_NE(prog, nullptr);
    if (!inst || !prog)
        return 0;
    const verifier::Verdict v = verifier::verify(*inst.value(), *prog);
    EXPECT_TRUE(v.ok) << v.reason;
    return v.ok ? v.processed_insns : 0;
}

TEST(VerifierJmpSeq, StrncmpBenchLoopIsAccepted) {
    const uint64_t n = ours_processed();
    EXPECT_GT(n, 4096u * 10);
    EXPECT_LT(n, 200000u);
}

TEST(VerifierJmpSeq, KernelAgreesWithinTwiceItsCount) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    auto k = exec::kernel::KernelObject::load(kPath, "strncmp_no_helper", {{".rodata", 0, rodata()}});
    ASSERT_TRUE(k->loaded()) << k->error();

    bpf_object* obj = bpf_object__open_file(kPath.c_str(), nullptr);
    ASSERT_NE(obj, nullptr);
    bpf_map* m = nullptr;
    bpf_object__for_each_map(m, obj) {
        if (std::string(bpf_map__name(m)).ends_with(".rodata")) {
            const auto bytes = rodata();
            ASSERT_EQ(bpf_map__set_initial_value(m, bytes.data(), bytes.size()), 0);
        }
    }
    bpf_program* kp = bpf_object__find_program_by_name(obj, "strncmp_no_helper");
    ASSERT_NE(kp, nullptr);
    std::vector<char> log(1 << 16);
    bpf_program__set_log_buf(kp, log.data(), log.size());
    bpf_program__set_log_level(kp, 4); // stats only
    const int err = bpf_object__load(obj);
    bpf_object__close(obj);
    ASSERT_EQ(err, 0);
    const char* at = std::strstr(log.data(), "processed ");
    ASSERT_NE(at, nullptr);
    const uint64_t kernel = std::strtoull(at + 10, nullptr, 10);
    const uint64_t ours = ours_processed();
    std::printf("jmp-seq strncmp loop: strbpf %llu insns, kernel %llu (ratio %.2f)\n", (unsigned long long)ours,
                (unsigned long long)kernel, kernel ? double(ours) / double(kernel) : 0.0);
    EXPECT_GT(ours, 0u);
    EXPECT_LE(ours, 2 * kernel);
}

} // namespace
} // namespace strbpf
