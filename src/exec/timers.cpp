// SPDX-License-Identifier: BSD-2-Clause
// An instance's timer and bpf_wq callbacks run on their engine (exec stage). A callback value names its engine: the
// interpreter's is the address of an instruction of the code it ran (the verified program, or for interp-checked
// the linked one), the JIT's a native function entry of the compiled program.
#include "exec/timers.hpp"

#include <array>
#include <memory>

#include <fmt/format.h>

#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "exec/runner.hpp"

namespace strbpf::exec {
namespace {

struct Target {
    const runtime::LinkedProgram* prog = nullptr;
    EngineKind engine = EngineKind::interp;
    size_t pc = 0;                                 // interpreter: the function's first instruction
    std::shared_ptr<const jit::CompiledProgram> jit; // JIT: the code the value is an entry of
};

bool in_code(std::span<const isa::Insn> code, uint64_t value, size_t* pc) {
    const uint64_t base = reinterpret_cast<uint64_t>(code.data());
    if (code.empty() || value < base || value >= base + code.size_bytes() || (value - base) % sizeof(isa::Insn))
        return false;
    *pc = (value - base) / sizeof(isa::Insn);
    return true;
}

bool resolve(const runtime::ObjectInstance& inst, uint64_t callback, Target* t) {
    for (const runtime::LinkedProgram& p : inst.programs()) {
        if (!p.linked)
            continue;
        std::shared_ptr<const void> jitted;
        {
            std::lock_guard lock(p.cache->mu);
            jitted = p.cache->jit;
        }
        for (EngineKind k : {EngineKind::interp, EngineKind::interp_checked})
            if (in_code(engine_insns(k, p), callback, &t->pc)) {
                t->prog = &p, t->engine = k;
                return true;
            }
        auto code = std::static_pointer_cast<const jit::CompiledProgram>(jitted);
        if (code && code->function_pc(callback) >= 0) {
            t->prog = &p, t->engine = EngineKind::jit, t->jit = std::move(code);
            return true;
        }
    }
    return false;
}

// One callback as a run of its own: a fresh stack and RunContext on CPU 0, the key readable for the run.
std::string run_one(const runtime::ObjectInstance& inst, const runtime::TimerFire& f) {
    const char* what = f.kind == runtime::AsyncKind::wq ? "bpf_wq callback" : "timer callback";
    Target t;
    if (!resolve(inst, f.callback, &t))
        return fmt::format("{} {:#x} is not a function of a loaded program", what, f.callback);
    runtime::RunContext ctx;
    auto stack = std::make_unique<runtime::StackArea>();
    runtime::prepare_run_context(ctx, &inst, stack.get());
    ctx.verified = t.engine != EngineKind::interp_checked;
    const uint64_t key = reinterpret_cast<uint64_t>(f.key.data());
    if (!ctx.mem.add_local(runtime::Region{key, f.key.size(), runtime::kPermRead, runtime::RegionKind::stack,
                                           f.kind == runtime::AsyncKind::wq ? "bpf_wq key" : "timer key"}))
        return fmt::format("no room for the {}'s key region", what);
    const std::array<uint64_t, 5> args{reinterpret_cast<uint64_t>(f.map), key, f.value, 0, 0};
    if (t.engine == EngineKind::jit) {
        const jit::JitResult r = t.jit->run_callback(f.callback, args, ctx, *stack);
        return r.ok ? std::string() : fmt::format("{} of '{}': {}", what, t.prog->spec->name, r.error);
    }
    const bool checked = t.engine == EngineKind::interp_checked;
    const interp::InterpResult r = interp::run_function(engine_insns(t.engine, *t.prog), t.pc, args, ctx, *stack,
                                                        checked, checked ? nullptr : t.prog->cache->program.get());
    return r.ok ? std::string() : fmt::format("{} of '{}': {}", what, t.prog->spec->name, r.error);
}

} // namespace

TimerRunReport run_timers(const runtime::ObjectInstance& inst, runtime::TimerRun mode) {
    TimerRunReport rep;
    inst.timers().run_due(mode, [&](const runtime::TimerFire& f) {
        std::string err = run_one(inst, f);
        if (err.empty())
            rep.ran++;
        else
            rep.errors.push_back(std::move(err));
    });
    return rep;
}

} // namespace strbpf::exec
