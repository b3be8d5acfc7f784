// SPDX-License-Identifier: BSD-2-Clause
// Tests for the live-kernel engine (exec stage): small programs of tests/progs/kernel_*.bpf.c loaded with libbpf
// and run with BPF_PROG_TEST_RUN. Skipped, saying why, where bpf() is not available.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <iterator>

#include "exec/kernel/kernel_engine.hpp"

namespace strbpf::exec::kernel {
namespace {

std::string prog_path(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name + ".bpf.o"; }

std::vector<uint8_t> le32(uint32_t v) { return {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)}; }

int32_t read32(const std::vector<uint8_t>& b, size_t off) {
    int32_t v = 0;
    std::memcpy(&v, b.data() + off, 4);
    return v;
}

class KernelEngineTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (Status st = available(); !st.ok())
            GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    }
};

// These need no bpf(): libbpf reads the object, the log parser is pure.
TEST(KernelEngine, ProgramNamesInElfOrder) {
    EXPECT_EQ(program_names(prog_path("kernel_basic")), (std::vector<std::string>{"sys_const", "sys_ctx", "xdp_eth"}));
    EXPECT_TRUE(program_names("/nonexistent.bpf.o").empty());
    std::string why;
    EXPECT_TRUE(program_names("/nonexistent.bpf.o", &why).empty());
    EXPECT_EQ(why.rfind("libbpf cannot open /nonexistent.bpf.o: ", 0), 0u) << why; // libbpf's reason follows
    EXPECT_GT(why.size(), std::strlen("libbpf cannot open /nonexistent.bpf.o: ")) << why;
}

// A program whose section the installed libbpf does not know gets no kernel verdict (skipped, with the reason);
// the object's other programs load.
TEST_F(KernelEngineTest, UnknownSectionIsNoVerdict) {
    auto bad = KernelObject::load(prog_path("loader_progtypes"), "unknown_sec");
    EXPECT_FALSE(bad->loaded());
    EXPECT_TRUE(bad->unsupported());
    EXPECT_NE(bad->error().find("does not know section 'no_such_type/x'"), std::string::npos) << bad->error();
    auto good = KernelObject::load(prog_path("loader_progtypes"), "cg_skb_egress");
    EXPECT_TRUE(good->loaded()) << good->error();
}

TEST(KernelEngine, VerifierReasonIsLastLineBeforeProcessed) {
    EXPECT_EQ(verifier_reason("0: R1=ctx() R10=fp0\n0: (85) call bpf_strncmp#182\n"
                              "R3 does not point to a readonly map'\n"
                              "processed 4 insns (limit 1000000) max_states_per_insn 0 total_states 0\n"),
              "R3 does not point to a readonly map'");
    EXPECT_EQ(verifier_reason("func#0 @0\nstring is not zero-terminated\nverification time 5 usec\nstack depth 8\n"
                              "processed 9 insns (limit 1000000)\n"),
              "string is not zero-terminated");
    EXPECT_EQ(verifier_reason("unknown opcode 8d\n"), "unknown opcode 8d");
    EXPECT_EQ(verifier_reason(""), "");
}

TEST(KernelEngine, KernelReleaseIsMajorMinor) {
    const std::string& r = kernel_release();
    ASSERT_FALSE(r.empty());
    EXPECT_NE(r.find('.'), std::string::npos) << r;
    EXPECT_EQ(r.find('.', r.find('.') + 1), std::string::npos) << r;
}

TEST_F(KernelEngineTest, SyscallReturnsConstant) {
    RunReport r = run(prog_path("kernel_basic"), "sys_const", RunRequest{});
    ASSERT_TRUE(r.loaded) << r.error;
    ASSERT_TRUE(r.ran) << r.error;
    EXPECT_EQ(r.retval, 42u);
    EXPECT_EQ(r.r0, 42u);
    EXPECT_EQ(r.prog, "sys_const");
}

TEST_F(KernelEngineTest, SyscallReadsAndWritesCtx) {
    RunRequest req;
    for (uint32_t v : {6u, 7u, 0u}) {
        auto b = le32(v);
        req.ctx_in.insert(req.ctx_in.end(), b.begin(), b.end());
    }
    req.repeat = 3;
    RunReport r = run(prog_path("kernel_basic"), "sys_ctx", req);
    ASSERT_TRUE(r.ran) << r.error;
    EXPECT_EQ(r.retval, 13u);
    ASSERT_EQ(r.ctx_out.size(), 12u);
    EXPECT_EQ(read32(r.ctx_out, 8), 42); // the kernel copies a syscall program's ctx back
}

TEST_F(KernelEngineTest, XdpParsesEthernetHeader) {
    auto packet = [](uint16_t proto) {
        std::vector<uint8_t> p(60, 0xab);
        p[12] = uint8_t(proto >> 8);
        p[13] = uint8_t(proto);
        return p;
    };
    const std::pair<uint16_t, uint32_t> cases[] = {
        {0x0800, 2 /* XDP_PASS */}, {0x86dd, 1 /* XDP_DROP */}, {0x0806, 3 /* XDP_TX */}};
    for (const auto& [proto, action] : cases) {
        RunRequest req;
        req.data_in = packet(proto);
        req.repeat = 10;
        RunReport r = run(prog_path("kernel_basic"), "xdp_eth", req);
        ASSERT_TRUE(r.ran) << r.error;
        EXPECT_EQ(r.retval, action) << std::hex << proto;
        EXPECT_EQ(r.data_out, req.data_in);
    }
    // No data: 64 zero bytes, like the kernel's test_loader, so ethertype 0 -> XDP_TX.
    RunReport r = run(prog_path("kernel_basic"), "xdp_eth", RunRequest{});
    ASSERT_TRUE(r.ran) << r.error;
    EXPECT_EQ(r.retval, 3u);
    EXPECT_EQ(r.data_out.size(), 64u);
}

TEST_F(KernelEngineTest, GlobalPatchesApplyBeforeLoad) {
    RunReport plain = run(prog_path("kernel_globals"), "globals_sum", RunRequest{});
    ASSERT_TRUE(plain.ran) << plain.error;
    EXPECT_EQ(plain.retval, 7050u);
    RunRequest req;
    req.globals = {{".rodata", 0, le32(3)}, {".data", 0, le32(9)}};
    RunReport patched = run(prog_path("kernel_globals"), "globals_sum", req);
    ASSERT_TRUE(patched.ran) << patched.error;
    EXPECT_EQ(patched.retval, 3090u);
}

TEST_F(KernelEngineTest, BadGlobalPatchesAreClearErrors) {
    RunRequest req;
    req.globals = {{".data", 2, le32(1)}};
    RunReport r = run(prog_path("kernel_globals"), "globals_sum", req);
    EXPECT_FALSE(r.loaded);
    EXPECT_NE(r.error.find("past the map's end"), std::string::npos) << r.error;
    req.globals = {{".data.nothere", 0, le32(1)}};
    r = run(prog_path("kernel_globals"), "globals_sum", req);
    EXPECT_FALSE(r.loaded);
    EXPECT_NE(r.error.find("no global-data map for '.data.nothere'"), std::string::npos) << r.error;
}

TEST_F(KernelEngineTest, RejectedProgramGivesKernelsOneLineReason) {
    RunDetails details;
    RunReport r = run(prog_path("kernel_reject"), "reject_writable_str", RunRequest{}, &details);
    EXPECT_FALSE(r.loaded);
    EXPECT_FALSE(details.unsupported);
    EXPECT_NE(r.error.find("does not point to a readonly map"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
    EXPECT_NE(details.log.find("processed"), std::string::npos) << details.log;

    r = run(prog_path("kernel_reject"), "reject_scalar_deref", RunRequest{}, &details);
    EXPECT_FALSE(r.loaded);
    EXPECT_NE(r.error.find("invalid mem access 'scalar'"), std::string::npos) << r.error;

    // The rejected programs share the object; loading another program alone still works.
    r = run(prog_path("kernel_reject"), "accept_one", RunRequest{});
    ASSERT_TRUE(r.ran) << r.error;
    EXPECT_EQ(r.retval, 1u);
}

TEST_F(KernelEngineTest, MissingKfuncIsUnsupported) {
    if (kernel_has_function("bpf_strcasestr"))
        GTEST_SKIP() << "this kernel (Linux " << kernel_release() << ") has bpf_strcasestr: no missing kfunc to test";
    RunDetails details;
    RunReport r = run(prog_path("kernel_kfunc"), "kfunc_missing", RunRequest{}, &details);
    EXPECT_FALSE(r.loaded);
    EXPECT_TRUE(details.unsupported);
    EXPECT_EQ(r.error, "kfunc bpf_strcasestr is not available in this kernel (Linux " + kernel_release() + ")");
}

TEST_F(KernelEngineTest, PresentKfuncLoadsBesideMissingOne) {
    if (!kernel_has_function("bpf_strlen"))
        GTEST_SKIP() << "this kernel (Linux " << kernel_release() << ") lacks the kfunc bpf_strlen (Linux 6.17+)";
    RunDetails details;
    RunReport r = run(prog_path("kernel_kfunc"), "kfunc_present", RunRequest{}, &details);
    ASSERT_TRUE(r.ran) << r.error << "\n" << details.log;
    EXPECT_FALSE(details.unsupported);
    EXPECT_EQ(r.retval, 11u); // strlen("hello world")
}

TEST_F(KernelEngineTest, UnknownProgramAndMissingFile) {
    RunReport r = run(prog_path("kernel_basic"), "no_such_prog", RunRequest{});
    EXPECT_FALSE(r.loaded);
    EXPECT_NE(r.error.find("no program 'no_such_prog'"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("sys_const"), std::string::npos) << r.error;
    r = run("/nonexistent/x.bpf.o", "p", RunRequest{});
    EXPECT_FALSE(r.loaded);
    EXPECT_NE(r.error.find("/nonexistent/x.bpf.o"), std::string::npos) << r.error;
}

size_t open_fds() {
    auto it = std::filesystem::directory_iterator("/proc/self/fd");
    return static_cast<size_t>(std::distance(it, std::filesystem::directory_iterator{}));
}

TEST_F(KernelEngineTest, RunsCloseTheirObjects) {
    run(prog_path("kernel_globals"), "globals_sum", RunRequest{}); // warm up libbpf's one-time probes
    size_t before = open_fds();
    for (int i = 0; i < 50; i++) {
        ASSERT_TRUE(run(prog_path("kernel_globals"), "globals_sum", RunRequest{}).ran);
        ASSERT_FALSE(run(prog_path("kernel_reject"), "reject_scalar_deref", RunRequest{}).loaded);
    }
    EXPECT_EQ(open_fds(), before);
}

TEST_F(KernelEngineTest, KernelObjectRunsManyTimes) {
    auto ko = KernelObject::load(prog_path("kernel_basic"), "sys_ctx");
    ASSERT_TRUE(ko->loaded()) << ko->error();
    for (int32_t i = 0; i < 2000; i++) {
        RunRequest req;
        for (int32_t v : {i, i % 7, -1}) {
            auto b = le32(uint32_t(v));
            req.ctx_in.insert(req.ctx_in.end(), b.begin(), b.end());
        }
        RunReport r = ko->run(req);
        ASSERT_TRUE(r.ran) << r.error;
        ASSERT_EQ(int32_t(r.retval), i + i % 7);
        ASSERT_EQ(read32(r.ctx_out, 8), i * (i % 7));
    }
}

TEST_F(KernelEngineTest, KernelObjectUpdatesGlobalsBetweenRuns) {
    auto ko = KernelObject::load(prog_path("kernel_globals"), "globals_sum");
    ASSERT_TRUE(ko->loaded()) << ko->error();
    EXPECT_EQ(ko->run(RunRequest{}).retval, 7050u);
    EXPECT_EQ(ko->run(RunRequest{}).retval, 7051u); // .bss persists while the globals are unchanged
    RunRequest data;
    data.globals = {{".data", 0, le32(1)}};
    EXPECT_EQ(ko->run(data).retval, 7010u); // .data/.bss rewritten in place
    int fd = ko->prog_fd();
    EXPECT_EQ(ko->run(data).retval, 7011u);
    EXPECT_EQ(ko->prog_fd(), fd);
    RunRequest rodata;
    rodata.globals = {{".rodata", 0, le32(2)}, {".data", 0, le32(1)}};
    EXPECT_EQ(ko->run(rodata).retval, 2010u); // .rodata is frozen: reloaded
    EXPECT_EQ(ko->run(rodata).retval, 2011u);
    EXPECT_EQ(ko->run(RunRequest{}).retval, 7050u); // back to the ELF's bytes
}

} // namespace
} // namespace strbpf::exec::kernel
