// SPDX-License-Identifier: BSD-2-Clause
// User-space test runs (exec stage): per-program-type context set-up, like the kernel's bpf_prog_test_run_*.
#include "exec/runner.hpp"

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "exec/contexts.hpp"
#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::exec {
namespace {

RunReport failed_run(RunReport r, std::string msg) {
    r.ran = false;
    r.error = std::move(msg);
    return r;
}

} // namespace

// Programs whose ctx is ctx_in itself (syscall, raw_tp, and tp/kprobe in strbpf) read only what the verifier let
// them: offsets below max_ctx_offset. The unchecked engines trust that, so a smaller ctx_in is refused, as the
// kernel's bpf_prog_test_run_syscall/_raw_tp refuse it (-EINVAL); a negative offset (tracepoint) has no ctx_in.
Status check_ctx_size(loader::ProgType type, size_t ctx_in_size, const runtime::ProgramCache& c) {
    using loader::ProgType;
    if (type != ProgType::syscall && type != ProgType::raw_tracepoint && type != ProgType::tracepoint &&
        type != ProgType::kprobe)
        return ok_status();
    if (c.min_ctx_offset < 0)
        return make_error(fmt::format("the program reads ctx at offset {}, before any ctx_in; strbpf cannot test-run "
                                      "it",
                                      c.min_ctx_offset),
                          -22);
    if (ctx_in_size < c.max_ctx_offset)
        return make_error(fmt::format("ctx_in has {} bytes but the program reads {} bytes of ctx (the kernel answers "
                                      "-EINVAL)",
                                      ctx_in_size, c.max_ctx_offset),
                          -22);
    return ok_status();
}

Status check_test_run(const loader::ProgramSpec& prog) {
    using loader::AttachType;
    if (prog.type == loader::ProgType::xdp &&
        (prog.expected_attach_type == AttachType::xdp_devmap || prog.expected_attach_type == AttachType::xdp_cpumap))
        return make_error("xdp programs for a devmap or cpumap cannot be test-run (the kernel answers -EINVAL)", -22);
    return ok_status();
}

bool engine_available(EngineKind engine, std::string* why) {
    if (engine == EngineKind::interp || engine == EngineKind::interp_checked)
        return true;
    if (engine == EngineKind::jit)
        return true; // x86-64 hosts only, as strbpf itself
    if (why)
        *why = "the kernel engine is not a user-space engine";
    return false;
}

RunReport run_linked(EngineKind engine, const runtime::ObjectInstance& inst, const runtime::LinkedProgram& prog,
                     const RunRequest& req) {
    RunReport rep;
    rep.prog = prog.spec->name;
    rep.loaded = true;
    std::string why;
    if (!engine_available(engine, &why))
        return failed_run(rep, why);
    if (auto st = load_check(engine, inst, prog); !st) {
        rep.loaded = false;
        rep.error = st.error().message;
        return rep;
    }

    if (engine != EngineKind::interp_checked) // load_check() passed: the verdict is cached
        if (auto st = check_ctx_size(prog.spec->type, req.ctx_in.size(), *prog.cache); !st)
            return failed_run(rep, st.error().message);

    if (auto st = check_test_run(*prog.spec); !st)
        return failed_run(rep, st.error().message);

    runtime::RunContext ctx;
    auto stack = std::make_unique<runtime::StackArea>();
    runtime::prepare_run_context(ctx, &inst, stack.get());

    ctx.verified = engine != EngineKind::interp_checked; // load_check() passed
    TestRunContext trc;
    uint64_t r1 = 0;
    if (auto st = trc.build(prog.spec->type, req, ctx, &r1); !st)
        return failed_run(rep, st.error().message);

    const uint32_t repeat = req.repeat == 0 ? 1 : req.repeat;
    std::shared_ptr<const jit::CompiledProgram> jitted; // compiled once per linked program
    if (engine == EngineKind::jit) {
        auto compiled = jit::compile_cached(prog);
        if (!compiled)
            return failed_run(rep, compiled.error().message);
        jitted = std::move(*compiled);
    }
    // The repetition loops stay free of allocation and string handling: an error is built only when a run fails.
    bool ok = true;
    uint64_t r0 = 0;
    std::string error;
    const bool checked = engine == EngineKind::interp_checked;
    const std::span<const isa::Insn> code = engine_insns(engine, prog);
    const auto t0 = std::chrono::steady_clock::now();
    if (jitted) {
        jit::JitResult j = jit::run_repeated(*jitted, r1, ctx, *stack, repeat);
        r0 = j.r0;
        if (!j.ok) [[unlikely]] {
            ok = false;
            error = std::move(j.error);
        }
    } else {
        for (uint32_t i = 0; i < repeat; i++) {
            interp::InterpResult res =
                interp::run_validated(code, r1, 0, ctx, *stack, 0, checked,
                                      checked ? nullptr : prog.cache->program.get());
            r0 = res.r0;
            if (!res.ok) [[unlikely]] {
                ok = false;
                error = std::move(res.error);
                break;
            }
        }
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (!ok)
        return failed_run(rep, error);
    rep.ran = true;
    rep.r0 = r0;
    rep.retval = uint32_t(r0);
    rep.duration_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) / repeat;
    trc.finish(&rep);
    return rep;
}

RunReport run_fresh(EngineKind engine, std::shared_ptr<const loader::ObjectSpec> spec, const std::string& prog,
                    const RunRequest& req) {
    RunReport rep;
    rep.prog = prog;
    auto inst = runtime::ObjectInstance::create(spec, req.globals);
    if (!inst) {
        rep.error = inst.error().message;
        return rep;
    }
    const runtime::LinkedProgram* lp = inst.value()->find_program(prog);
    if (!lp) {
        rep.error = fmt::format("no program '{}' in {}", prog, spec->path);
        return rep;
    }
    if (!lp->linked) {
        rep.error = lp->link_error.message;
        return rep;
    }
    return run_linked(engine, *inst.value(), *lp, req);
}

} // namespace strbpf::exec
