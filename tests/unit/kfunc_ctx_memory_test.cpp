// SPDX-License-Identifier: BSD-2-Clause
// A syscall program's ctx as memory (tests/progs/kfunc_ctx_memory.bpf.c), run on interp, jit and the live kernel:
// a global function given the ctx as a 4096-byte struct makes the test run need 4096 bytes of ctx_in (the kernel's
// max_ctx_offset; a shorter ctx_in is -EINVAL on every engine, where strbpf's engines once read past it), and the
// cpumask kfuncs read a struct cpumask in the ctx as the kernel does, bits at or past nr_cpu_ids ignored.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "run_errno.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/maps/redirect_maps.hpp"

namespace strbpf {
namespace {

const std::string kPath = std::string(STRBPF_PROGS_DIR) + "/kfunc_ctx_memory.bpf.o";

std::vector<exec::EngineKind> engines() {
    std::vector<exec::EngineKind> out{exec::EngineKind::interp, exec::EngineKind::jit};
    if (exec::kernel::available().ok())
        out.push_back(exec::EngineKind::kernel);
    return out;
}

// PROG of the object run on engine E: strbpf's engines on a fresh instance, the kernel through libbpf.
exec::RunReport run(exec::EngineKind e, const std::shared_ptr<const loader::ObjectSpec>& sp, const char* prog,
                    const exec::RunRequest& req) {
    if (e == exec::EngineKind::kernel)
        return exec::kernel::run(kPath, prog, req);
    return exec::run_fresh(e, sp, prog, req);
}

std::shared_ptr<const loader::ObjectSpec> spec() {
    auto s = loader::load_object_file(kPath);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return s.ok() ? std::make_shared<loader::ObjectSpec>(std::move(s).value()) : nullptr;
}

TEST(KfuncCtxMemory, GlobalFunctionMakesTheRunNeedTheWholeStruct) {
    auto sp = spec();
    ASSERT_NE(sp, nullptr);
    for (exec::EngineKind e : engines()) {
        exec::RunRequest shorter;
        shorter.ctx_in.assign(4095, 0);
        const exec::RunReport r = run(e, sp, "global_reads_ctx_end", shorter);
        EXPECT_FALSE(r.ran) << exec::engine_name(e) << ": a 4095-byte ctx_in ran, retval " << r.retval;
        EXPECT_EQ(testing_support::run_errno(r.error), -22) << exec::engine_name(e) << ": " << r.error;
        exec::RunRequest whole;
        whole.ctx_in.assign(4096, 0);
        whole.ctx_in[4095] = 42;
        const exec::RunReport ok = run(e, sp, "global_reads_ctx_end", whole);
        ASSERT_TRUE(ok.ran) << exec::engine_name(e) << ": " << ok.error;
        EXPECT_EQ(ok.retval, 42u) << exec::engine_name(e);
    }
}

// Bits 0 and 1 of the ctx's first word, one at a time, and the last bit of the kernel's 8192-CPU mask (beyond any
// nr_cpu_ids here): weight * 1000 + first set bit, nr_cpu_ids when none, on every engine.
TEST(KfuncCtxMemory, CpumaskKfuncsReadTheCtx) {
    auto sp = spec();
    ASSERT_NE(sp, nullptr);
    const uint32_t n = runtime::possible_cpus();
    struct Case {
        uint32_t bit;
        uint32_t want;
    };
    const Case cases[] = {{0, 1000}, {1, n > 1 ? 1001 : n}, {8191, n}};
    for (const Case& c : cases) {
        exec::RunRequest req; // the kernel's struct cpumask: CONFIG_NR_CPUS bits
        req.ctx_in.assign(std::max<size_t>(1024, (runtime::kernel_nr_cpus() + 7) / 8), 0);
        req.ctx_in[c.bit / 8] = uint8_t(1u << (c.bit % 8));
        for (exec::EngineKind e : engines()) {
            const exec::RunReport r = run(e, sp, "mask_of_ctx", req);
            ASSERT_TRUE(r.ran) << exec::engine_name(e) << " bit " << c.bit << ": " << r.error;
            EXPECT_EQ(r.retval, c.want) << exec::engine_name(e) << " bit " << c.bit;
        }
    }
}

} // namespace
} // namespace strbpf
