// SPDX-License-Identifier: BSD-2-Clause
// Running one ISA case on the interpreter or a compiled JIT program (tests): the stack and the "-- mem" bytes
// registered as the run's memory, and what a run leaves behind, so engine tests compare like with like.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "runtime/context.hpp"

namespace strbpf::test_cases {

struct Outcome {
    bool ok = false;
    uint64_t r0 = 0;
    std::string error;
    std::vector<uint8_t> mem; // the -- mem bytes after the run
};

// One run's memory: a fresh stack, and a copy of the case's bytes passed in r1 (their length in r2).
struct CaseEnv {
    runtime::RunContext ctx;
    runtime::StackArea stack;
    std::vector<uint8_t> mem;
    uint64_t r1 = 0;
    explicit CaseEnv(const std::vector<uint8_t>& m) : mem(m) {
        ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(stack.bytes), sizeof stack.bytes, runtime::kPermRW,
                                          runtime::RegionKind::stack, "stack"});
        if (!mem.empty()) {
            r1 = reinterpret_cast<uint64_t>(mem.data());
            ctx.mem.add_local(runtime::Region{r1, mem.size(), runtime::kPermRW, runtime::RegionKind::ctx, "mem"});
        }
    }
};

inline Outcome run_interp(std::span<const isa::Insn> prog, const std::vector<uint8_t>& mem = {},
                          uint64_t insn_limit = 0) { // 0: the interpreter's own cap
    CaseEnv env(mem);
    const auto r = exec::interp::run(prog, env.r1, env.mem.size(), env.ctx, env.stack, insn_limit);
    return Outcome{r.ok, r.r0, r.error, env.mem};
}

inline Outcome run_compiled(const exec::jit::CompiledProgram& p, const std::vector<uint8_t>& mem = {}) {
    CaseEnv env(mem);
    const auto r = p.run(env.r1, env.mem.size(), env.ctx, env.stack);
    return Outcome{r.ok, r.r0, r.error, env.mem};
}

} // namespace strbpf::test_cases
