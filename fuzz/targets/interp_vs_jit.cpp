// SPDX-License-Identifier: BSD-2-Clause
// Fuzz target `interp_vs_jit` (fuzz stage): a program the verifier accepts gives the same answer on the
// interpreter and on the x86-64 JIT — r0 or the error, the ctx / packet written back and every map's memory —
// each engine on its own fresh instance, map addresses translated. Programs whose results depend on time or
// randomness are not compared. The interpreter runs checked: a memory fault is verifier_soundness's finding.
#include <cstring>

#include <fmt/format.h>

#include "common/harness.hpp"
#include "exec/contexts.hpp"
#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "exec/runner.hpp"
#include "isa/assembler.hpp"
#include "targets/targets.hpp"

namespace {

using namespace strbpf;

struct EngineRun {
    bool ok = false;
    uint64_t r0 = 0;
    std::string error;
    std::vector<uint8_t> ctx_out, data_out;
};

// One run on `kind` with the same stack, ctx and packet addresses for both engines (one TestRunContext and one
// stack reused), so that only map addresses differ between the two runs; translate() maps those.
EngineRun run_engine(exec::EngineKind kind, const fuzz::Loaded& l, loader::ProgType type, const exec::RunRequest& req) {
    static exec::TestRunContext trc;
    static runtime::StackArea stack;
    std::memset(&stack, 0, sizeof stack);
    runtime::RunContext ctx;
    runtime::prepare_run_context(ctx, l.inst.get(), &stack);
    ctx.verified = true;
    EngineRun out;
    uint64_t r1 = 0;
    if (auto st = trc.build(type, req, ctx, &r1); !st) {
        out.error = st.error().message;
        return out;
    }
    if (kind == exec::EngineKind::jit) {
        auto compiled = exec::jit::compile_cached(*l.prog);
        if (!compiled) {
            out.error = compiled.error().message;
            return out;
        }
        const exec::jit::JitResult j = (*compiled)->run(r1, ctx, stack);
        out.ok = j.ok, out.r0 = j.r0, out.error = j.error;
    } else {
        const exec::interp::InterpResult i = exec::interp::run_validated(exec::engine_insns(exec::EngineKind::interp, *l.prog),
                                                                         r1, 0, ctx, stack, 0, true);
        out.ok = i.ok, out.r0 = i.r0, out.error = i.error;
    }
    exec::RunReport rep;
    if (auto fin = trc.finish(&rep); !fin) // the test run's own refusal of the result: the same for both engines
        out.ok = false, out.error = fin.error().message;
    out.ctx_out = std::move(rep.ctx_out);
    out.data_out = std::move(rep.data_out);
    return out;
}

// A value of run A as run B would have it: addresses of A's maps and map memory become B's.
uint64_t translate(uint64_t v, const runtime::ObjectInstance& a, const runtime::ObjectInstance& b) {
    for (size_t i = 0; i < a.map_count(); i++) {
        if (v == reinterpret_cast<uint64_t>(a.map(i)))
            return reinterpret_cast<uint64_t>(b.map(i));
        const uint64_t base = reinterpret_cast<uint64_t>(a.map(i)->arena());
        if (v - base <= a.map(i)->arena_size())
            return reinterpret_cast<uint64_t>(b.map(i)->arena()) + (v - base);
    }
    return v;
}

// Byte ranges equal up to translate() of the 8-byte words in them (programs may store pointers).
bool same_memory(const uint8_t* x, const uint8_t* y, size_t n, const runtime::ObjectInstance& a,
                 const runtime::ObjectInstance& b) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t wx, wy;
        std::memcpy(&wx, x + i, 8);
        std::memcpy(&wy, y + i, 8);
        if (wx != wy && translate(wx, a, b) != wy)
            return false;
    }
    return i == n || std::memcmp(x + i, y + i, n - i) == 0;
}

std::string compare(const EngineRun& i, const EngineRun& j, const fuzz::Loaded& li, const fuzz::Loaded& lj) {
    const auto& a = *li.inst;
    const auto& b = *lj.inst;
    if (i.ok != j.ok)
        return fmt::format("interp {} / jit {}", i.ok ? "ran" : "failed: " + i.error,
                           j.ok ? "ran" : "failed: " + j.error);
    if (!i.ok)
        return i.error == j.error ? "" : fmt::format("errors differ: interp '{}' / jit '{}'", i.error, j.error);
    if (translate(i.r0, a, b) != j.r0)
        return fmt::format("r0 differs: interp {:#x} / jit {:#x}", i.r0, j.r0);
    if (i.ctx_out.size() != j.ctx_out.size() ||
        !same_memory(i.ctx_out.data(), j.ctx_out.data(), i.ctx_out.size(), a, b))
        return "ctx written back differs";
    if (i.data_out.size() != j.data_out.size() ||
        !same_memory(i.data_out.data(), j.data_out.data(), i.data_out.size(), a, b))
        return "packet written back differs";
    for (size_t m = 0; m < a.map_count(); m++)
        if (!same_memory(a.map(m)->arena(), b.map(m)->arena(), a.map(m)->arena_size(), a, b))
            return fmt::format("map '{}' differs", a.map(m)->name());
    return {};
}

// Errors only the checked interpreter reports: the verifier_soundness target's findings, not this one's.
bool memory_fault(const std::string& e) { return e.find("invalid memory") != std::string::npos; }

} // namespace

int strbpf_fuzz_interp_vs_jit(const uint8_t* data, size_t size) {
    const fuzz::FuzzProgram p = fuzz::decode_program(data, size, true);
    if (p.insns.empty() || fuzz::calls_nondeterministic_helper(p))
        return 0;
    const fuzz::Loaded li = fuzz::load(p);
    const verifier::Verdict v = fuzz::verify(li);
    fuzz::count_verdict("interp_vs_jit", p.structured, v.ok, v.reason);
    if (!v.ok || !li.prog)
        return 0;
    const exec::RunRequest req = fuzz::run_request(p);
    const EngineRun ri = run_engine(exec::EngineKind::interp, li, p.type, req);
    if (!ri.ok && memory_fault(ri.error))
        return 0;
    const fuzz::Loaded lj = fuzz::load(p);
    fuzz::verify(lj); // the JIT compiles the verified program of this instance
    const EngineRun rj = run_engine(exec::EngineKind::jit, lj, p.type, req);
    const std::string diff = compare(ri, rj, li, lj);
    if (!diff.empty())
        fuzz::finding(fmt::format("interp_vs_jit: {} ({} program)\n{}", diff, loader::prog_type_name(p.type),
                                  isa::to_asm_program(p.insns)));
    return 0;
}
