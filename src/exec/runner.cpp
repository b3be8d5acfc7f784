// SPDX-License-Identifier: BSD-2-Clause
// User-space test runs (exec stage): per-program-type context set-up, like the kernel's bpf_prog_test_run_*.
#include "exec/runner.hpp"

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "exec/contexts.hpp"
#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "exec/jit/x86_64/probe_load.hpp"
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

namespace {

// The first load through a kernel object pointer (PTR_TO_BTF_ID, the kernel's BPF_PROBE_MEM) of a verified
// program, as its pc: -1 for none.
int64_t first_btf_load(const verifier::VerifiedProgram* vp) {
    if (vp)
        for (size_t i = 0; i < vp->facts.size(); i++)
            if (vp->facts[i].mem == verifier::MemKind::btf_id)
                return vp->facts[i].orig_pc;
    return -1;
}

// Whether ENGINE runs PROG's loads through kernel object pointers: the interpreter and the JIT do in tracing and
// struct_ops test runs, where the program's ctx is plain memory and the objects those pointers reach are the run's
// modelled ones. The interpreter then runs the verified program with every access checked against the run's memory;
// the JIT checks each such load against it (jit/x86_64/probe_load.hpp). A load that misses it reads 0, as the
// kernel's probe loads read 0 where they fault: no program reads host memory outside the run's regions. No engine
// runs them in other program types (their ctx models are rewritten accesses the checked mode would not recognise,
// and the kernel objects there are not modelled).
bool runs_btf_loads(EngineKind engine, const runtime::LinkedProgram& prog) {
    return (engine == EngineKind::interp || engine == EngineKind::jit) &&
           (prog.spec->type == loader::ProgType::tracing || prog.spec->type == loader::ProgType::struct_ops);
}

} // namespace

// A verified program whose loads through kernel object pointers ENGINE does not run is not run (the pc names the
// first).
Status check_btf_loads(EngineKind engine, const runtime::LinkedProgram& prog) {
    if (const verifier::VerifiedProgram* vp = prog.cache->program.get(); vp && engine != EngineKind::interp_checked)
        for (size_t i = 0; i < vp->facts.size() && i < vp->insns.size(); i++)
            if (vp->facts[i].mem == verifier::MemKind::btf_id && isa::insn_class(vp->insns[i].opcode) == isa::BPF_JMP)
                return make_error(fmt::format("strbpf's {} does not run helper calls on kernel object memory (a "
                                              "trusted PTR_TO_BTF_ID passed as memory; the call at insn {})",
                                              engine_name(engine), vp->facts[i].orig_pc),
                                  -95, vp->facts[i].orig_pc);
    if (size_t pc = 0; engine == EngineKind::jit && jit::x86_64::has_btf_store(prog.cache->program.get(), &pc))
        return make_error(fmt::format("strbpf's jit does not run stores through kernel object pointers (the "
                                      "rewritten insn {})",
                                      pc),
                          -95); // the verifier refuses them ("only read is supported"): none reaches here
    if (engine == EngineKind::interp_checked || runs_btf_loads(engine, prog))
        return ok_status();
    if (const int64_t pc = first_btf_load(prog.cache->program.get()); pc >= 0)
        return make_error(fmt::format("strbpf's {} does not run loads through kernel object pointers (the kernel's "
                                      "BPF_PROBE_MEM; the load at insn {}){}",
                                      engine_name(engine), pc,
                                      runs_btf_loads(EngineKind::interp, prog) ? ": the interp engine runs them" : ""),
                          -95, pc);
    return ok_status();
}

bool interp_probes(const runtime::LinkedProgram& prog) {
    return runs_btf_loads(EngineKind::interp, prog) && prog.cache && first_btf_load(prog.cache->program.get()) >= 0;
}

namespace {

// One program on one engine: run(r1) runs it once, run_repeated(r1, n) n times (the last R0).
struct ProgramRun {
    EngineKind engine;
    const runtime::LinkedProgram& prog;
    runtime::RunContext& ctx;
    runtime::StackArea& stack;
    std::shared_ptr<const jit::CompiledProgram> jitted; // compiled once per linked program
    std::span<const isa::Insn> code;

    bool probe = false; // interp: a verified program whose kernel object loads run checked (runs_btf_loads)

    Status prepare() {
        code = engine_insns(engine, prog);
        probe = engine == EngineKind::interp && interp_probes(prog);
        if (engine != EngineKind::jit)
            return ok_status();
        auto compiled = jit::compile_cached(prog);
        if (!compiled)
            return compiled.error();
        jitted = std::move(*compiled);
        return ok_status();
    }
    // The repetition loops stay free of allocation and string handling: an error is built only when a run fails.
    bool run_repeated(uint64_t r1, uint32_t repeat, uint64_t* r0, std::string* error) {
        if (jitted) {
            jit::JitResult j = jit::run_repeated(*jitted, r1, ctx, stack, repeat);
            *r0 = j.r0;
            if (!j.ok) [[unlikely]]
                *error = std::move(j.error);
            return j.ok;
        }
        const bool as_written = engine == EngineKind::interp_checked;
        for (uint32_t i = 0; i < repeat; i++) {
            interp::InterpResult res = interp::run_validated(code, r1, 0, ctx, stack, 0, as_written || probe,
                                                             as_written ? nullptr : prog.cache->program.get());
            *r0 = res.r0;
            if (!res.ok) [[unlikely]] {
                *error = std::move(res.error);
                return false;
            }
        }
        return true;
    }
};

// A test run whose kernel counterpart calls the program itself (bpf_prog_test_run_tracing over the test functions a
// tracing program is attached to, contexts_tracing.cpp; bpf_struct_ops_test_run's call of a bpf_dummy_ops member,
// contexts_struct_ops.cpp, called_test_run): the retval is the test run's and no duration is reported.
RunReport run_called(RunReport rep, ProgramRun& pr, const runtime::ObjectInstance& inst, const RunRequest& req) {
    std::string error;
    bool unsupported = false;
    TracingRun once = [&](uint64_t r1, uint64_t* r0) -> Status {
        if (Status st = check_btf_loads(pr.engine, pr.prog); !st) { // only a program that runs needs them
            unsupported = true;
            return st;
        }
        if (pr.run_repeated(r1, 1, r0, &error))
            return ok_status();
        return make_error(error);
    };
    uint32_t retval = 0;
    if (auto st = called_test_run(inst.spec(), *pr.prog.spec, req, pr.ctx, once, &retval); !st) {
        rep.unsupported = unsupported;
        return failed_run(rep, st.error().message);
    }
    rep.ran = true;
    rep.r0 = retval;
    rep.retval = retval;
    return rep;
}

} // namespace

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
    if (auto st = check_cookie(prog.spec->type, prog.spec->expected_attach_type, req.cookie); !st)
        return failed_run(rep, st.error().message);

    runtime::RunContext ctx;
    auto stack = std::make_unique<runtime::StackArea>();
    runtime::prepare_run_context(ctx, &inst, stack.get());
    ctx.verified = engine != EngineKind::interp_checked; // load_check() passed
    ctx.attach_cookie = req.cookie;                      // check_cookie(): only runs that model a link have one
    ProgramRun pr{engine, prog, ctx, *stack, nullptr, {}};
    if (auto st = pr.prepare(); !st)
        return failed_run(rep, st.error().message);
    if (prog.spec->type == loader::ProgType::tracing || prog.spec->type == loader::ProgType::struct_ops)
        return run_called(rep, pr, inst, req);
    if (auto st = check_btf_loads(engine, prog); !st) {
        rep.unsupported = true;
        return failed_run(rep, st.error().message);
    }

    TestRunContext trc;
    uint64_t r1 = 0;
    if (auto st = trc.build(prog.spec->type, req, ctx, &r1); !st)
        return failed_run(rep, st.error().message);

    const uint32_t repeat = req.repeat == 0 ? 1 : req.repeat;
    uint64_t r0 = 0;
    std::string error;
    const auto t0 = std::chrono::steady_clock::now();
    bool ok = true;
    if (prog.spec->type == loader::ProgType::sk_lookup) { // each repetition starts with no socket selected
        for (uint32_t i = 0; ok && i < repeat; i++) {
            trc.clear_sk_lookup_selection();
            ok = pr.run_repeated(r1, 1, &r0, &error);
        }
    } else {
        ok = pr.run_repeated(r1, repeat, &r0, &error);
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (!ok)
        return failed_run(rep, error);
    rep.ran = true;
    rep.r0 = r0;
    rep.retval = uint32_t(r0);
    rep.duration_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) / repeat;
    if (auto st = trc.finish(&rep); !st)
        return failed_run(rep, st.error().message);
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
