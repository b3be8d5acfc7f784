// Program-type contexts for user-space test runs (exec stage): what the kernel's bpf_prog_test_run_* builds for
// each program type — the ctx struct, the packet, their regions in the run's memory — and what it reports back.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "exec/engine.hpp"
#include "loader/object_spec.hpp"
#include "runtime/context.hpp"

namespace strbpf::exec {

// Owns the ctx and packet of one run. build() registers them in ctx.mem; finish() fills the report's outputs.
class TestRunContext {
  public:
    TestRunContext() = default;
    TestRunContext(const TestRunContext&) = delete;
    TestRunContext& operator=(const TestRunContext&) = delete;

    // Ok: *r1 is the program's context argument. Error: the kernel's refusal of such a test run, in words.
    Status build(loader::ProgType type, const RunRequest& req, runtime::RunContext& ctx, uint64_t* r1);
    void finish(RunReport* report) const;

  private:
    loader::ProgType type_ = loader::ProgType::unspec;
    std::vector<uint8_t> ctx_buf_;
    alignas(8) uint8_t ctx_struct_[256] = {};
    uint8_t* data_ = nullptr;
    uint32_t data_len_ = 0;
};

} // namespace strbpf::exec
