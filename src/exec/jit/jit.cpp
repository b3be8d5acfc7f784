// SPDX-License-Identifier: BSD-2-Clause
// The x86-64 JIT's compile and run (exec stage, JIT): validation, emission (x86_64/codegen.cpp), relocation into
// W^X memory near the helpers, and the per-run state, callback entry and error messages.
#include "exec/jit/jit.hpp"

#include <algorithm>

#include <asmjit/x86.h>
#include <fmt/format.h>

#include "exec/jit/x86_64/abi.hpp"
#include "exec/jit/x86_64/codegen.hpp"
#include "exec/runner.hpp"
#include "exec/source_pc.hpp"
#include "isa/opcodes.hpp"
#include "runtime/kfuncs/verify_only.hpp"
#include "verifier/verified_program.hpp"
#include "runtime/helpers/helper_table.hpp"

namespace strbpf::exec::jit {

namespace x86_64 {
const ContextOffsets& context_offsets() {
    static const ContextOffsets offsets = [] {
        runtime::RunContext probe;
        const auto* base = reinterpret_cast<const char*>(&probe);
        return ContextOffsets{int32_t(reinterpret_cast<const char*>(&probe.aborted) - base),
                              int32_t(reinterpret_cast<const char*>(&probe.engine_state) - base),
                              int32_t(reinterpret_cast<const char*>(&probe.verified) - base)};
    }();
    return offsets;
}
} // namespace x86_64

namespace {

using x86_64::ExitCode;
using x86_64::RunState;

// RunContext::invoke_callback for JIT code: enters the callback's native function through the trampoline, one
// frame below the frame that called the helper. A failure inside the callback becomes ctx->abort(), so the
// helper returns and the calling program stops too.
uint64_t invoke_callback(runtime::RunContext* ctx, uint64_t callback, uint64_t r1, uint64_t r2, uint64_t r3,
                         uint64_t r4, uint64_t r5) {
    auto* st = static_cast<RunState*>(ctx->engine_state);
    const auto* prog = static_cast<const CompiledProgram*>(st->program);
    if (ctx->aborted)
        return 0;
    const int64_t pc = prog->function_pc(callback);
    if (pc < 0) {
        ctx->abort(fmt::format("invalid callback {:#x}: not a function of this program", callback));
        return 0;
    }
    if (st->cur_fp <= st->floor) {
        ctx->abort(name_source_pc(fmt::format("call depth exceeds {} frames (callback at pc {})", isa::kMaxCallDepth,
                                              pc),
                                  prog->source()));
        return 0;
    }
    x86_64::EntryFrame f{{r1, r2, r3, r4, r5}, ctx, st->cur_fp, callback};
    const uint64_t saved_rsp = st->entry_rsp, saved_fp = st->cur_fp;
    const uint64_t r0 = st->enter(&f);
    st->entry_rsp = saved_rsp;
    st->cur_fp = saved_fp;
    if (st->status != uint32_t(ExitCode::ok)) {
        // The innermost frame to see a stop names its pc; the frames it unwinds through keep that message.
        if (st->status != uint32_t(ExitCode::aborted))
            ctx->abort(prog->stop_message(st->status, st->pc, *ctx));
        else if (!st->abort_named)
            ctx->abort_message = prog->stop_message(st->status, st->pc, *ctx);
        st->abort_named = true;
        st->status = uint32_t(ExitCode::ok);
        return 0;
    }
    return r0;
}

Error asmjit_error(const char* what, asmjit::Error err) {
    return make_error(fmt::format("JIT: {} failed: {}", what, asmjit::DebugUtils::errorAsString(err)));
}

// Sets up the RunState of one run (ctx.engine_state and ctx.invoke_callback point at it while it lasts).
class RunScope {
  public:
    RunScope(const CompiledProgram* prog, uint64_t enter, runtime::RunContext& ctx, runtime::StackArea& stack)
        : ctx_(ctx), saved_fn_(ctx.invoke_callback), saved_state_(ctx.engine_state) {
        top = reinterpret_cast<uint64_t>(stack.bytes) + sizeof stack.bytes;
        st.floor = reinterpret_cast<uint64_t>(stack.bytes) + isa::kStackSize;
        st.entry_rsp = 0;
        st.cur_fp = top;
        st.status = uint32_t(ExitCode::ok);
        st.pc = -1;
        st.enter = reinterpret_cast<x86_64::EnterFn>(enter);
        st.program = prog;
        st.abort_named = false;
        ctx.engine_state = &st;
        ctx.invoke_callback = &invoke_callback;
    }
    ~RunScope() {
        ctx_.invoke_callback = saved_fn_;
        ctx_.engine_state = saved_state_;
    }
    RunState st;
    uint64_t top;

  private:
    runtime::RunContext& ctx_;
    runtime::RunContext::CallbackFn saved_fn_;
    void* saved_state_;
};

} // namespace

JitResult CompiledProgram::lean_failure(const x86_64::LeanResult& res, const runtime::RunContext& ctx) const {
    return JitResult{false, res.r0, stop_message(uint32_t(res.status), int32_t(res.status >> 32), ctx)};
}

JitResult CompiledProgram::run_trampoline(uint64_t r1, uint64_t r2, runtime::RunContext& ctx,
                                          runtime::StackArea& stack) const {
    RunScope scope(this, enter_, ctx, stack);
    // The function prologue moves r10 512 bytes down: start one frame above the top so main gets the top.
    x86_64::EntryFrame f{{r1, r2, 0, 0, 0}, &ctx, scope.top + isa::kStackSize, main_};
    const uint64_t r0 = reinterpret_cast<x86_64::EnterFn>(run_entry_)(&f);
    if (scope.st.status == uint32_t(ExitCode::ok)) [[likely]]
        return JitResult{true, r0, {}};
    if (scope.st.status == uint32_t(ExitCode::aborted) && scope.st.abort_named)
        return JitResult{false, r0, ctx.abort_message};
    return JitResult{false, r0, stop_message(scope.st.status, scope.st.pc, ctx)};
}

JitResult CompiledProgram::run_callback(uint64_t callback, const std::array<uint64_t, 5>& args,
                                        runtime::RunContext& ctx, runtime::StackArea& stack) const {
    RunScope scope(this, enter_, ctx, stack);
    const uint64_t r0 = ctx.invoke_callback(&ctx, callback, args[0], args[1], args[2], args[3], args[4]);
    if (ctx.aborted)
        return JitResult{false, r0, ctx.abort_message};
    return JitResult{true, r0, {}};
}

int64_t CompiledProgram::function_pc(uint64_t target) const {
    const auto it = std::lower_bound(functions_.begin(), functions_.end(), std::pair<uint64_t, int64_t>(target, -1));
    return it != functions_.end() && it->first == target ? it->second : -1;
}

// The interpreter's wording (exec/interp/interpreter.cpp), so both engines fail the same way; pcs as written. A
// helper's or kfunc's abort names its call (the stub of the call at PC).
std::string CompiledProgram::stop_message(uint32_t status, int32_t pc, const runtime::RunContext& ctx) const {
    if (ExitCode(status) == ExitCode::aborted)
        return name_call_pc(ctx.abort_message, pc, source_.get());
    return name_source_pc(rewritten_stop_message(status, pc, ctx), source_.get());
}

std::string CompiledProgram::rewritten_stop_message(uint32_t status, int32_t pc, const runtime::RunContext& ctx) const {
    const isa::Insn* i = pc >= 0 && size_t(pc) < insns_.size() ? &insns_[size_t(pc)] : nullptr;
    switch (ExitCode(status)) {
    case ExitCode::ok:
        return {};
    case ExitCode::aborted:
        return ctx.abort_message;
    case ExitCode::call_depth:
        return fmt::format("call depth exceeds {} frames at pc {}", isa::kMaxCallDepth, pc);
    case ExitCode::bad_helper:
        return fmt::format("unknown helper #{} at pc {}: strbpf does not provide it", i ? i->imm : 0, pc);
    case ExitCode::bad_kfunc:
        if (std::string why = runtime::verify_only_run_refusal(i ? i->imm : 0, int64_t(pc)); !why.empty())
            return why;
        return fmt::format("unknown kfunc index {} at pc {}", i ? i->imm : 0, pc);
    case ExitCode::legacy_ld:
        return fmt::format("BPF_LD_ABS/BPF_LD_IND at pc {} are not supported", pc);
    case ExitCode::unlinked_ld: {
        const char* name = i ? isa::ld_imm64_pseudo_name(i->src) : nullptr;
        return fmt::format("ld_imm64 {} at pc {} was not resolved by the linker", name ? name : "?", pc);
    }
    case ExitCode::no_arena:
        return fmt::format("arena access at pc {} in a program without an arena", pc);
    }
    return fmt::format("JIT run stopped with unknown status {}", status);
}

CompileOptions CompileOptions::host() {
    static const CompileOptions host = [] {
        CompileOptions o;
        o.bmi2 = asmjit::CpuInfo::host().hasFeature(asmjit::CpuFeatures::X86::kBMI2);
        o.sse42 = asmjit::CpuInfo::host().hasFeature(asmjit::CpuFeatures::X86::kSSE4_2);
        // asmjit reports AVX2 only when the OS saves the ymm state (XCR0), as the string backends require
        o.avx2 = asmjit::CpuInfo::host().hasFeature(asmjit::CpuFeatures::X86::kAVX2) &&
                 asmjit::CpuInfo::host().hasFeature(asmjit::CpuFeatures::X86::kBMI);
        return o;
    }();
    return host;
}

Result<std::unique_ptr<CompiledProgram>> compile(std::span<const isa::Insn> insns, const CompileOptions& opts) {
    STRBPF_TRY(isa::validate(insns));
    if (opts.bmi2 && !CompileOptions::host().bmi2)
        return make_error("JIT: BMI2 code requested, but this CPU lacks BMI2 (cpuid 7.0 ebx bit 8 = 0)");
    if (opts.sse42 && !CompileOptions::host().sse42)
        return make_error("JIT: SSE4.2 code requested, but this CPU lacks SSE4.2 (cpuid 1 ecx bit 20 = 0)");
    if (opts.avx2 && !CompileOptions::host().avx2)
        return make_error("JIT: AVX2 code requested, but this CPU lacks AVX2 or BMI1 (cpuid 7.0 ebx bits 5 and 3) "
                          "or the OS does not enable its ymm state (XCR0)");
    const bool bmi2 = opts.bmi2;
    std::unique_ptr<runtime::CallSiteSlot[]> slots;
    const size_t sites = opts.call_sites ? x86_64::count_call_sites(insns) : 0;
    if (sites) {
        slots.reset(new runtime::CallSiteSlot[2 * sites]);
        for (size_t k = 0; k < 2 * sites; k++)
            slots[k].store(&runtime::kNoRegion, std::memory_order_relaxed);
    }
    // Two emissions: the first with rel32 forward jumps measures which of them fit in rel8; the second uses rel8
    // for those (x86 has no relaxing assembler in asmjit; the kernel's JIT iterates its passes the same way).
    x86_64::Emitted first;
    {
        asmjit::CodeHolder code;
        if (asmjit::Error e = code.init(asmjit::Environment::host()))
            return asmjit_error("CodeHolder::init", e);
        STRBPF_TRY(
            x86_64::emit_program(insns, code, x86_64::CodegenOptions{bmi2, opts.sse42, opts.avx2, nullptr, slots.get(), sites, opts.verified, opts.arena}, &first));
    }
    asmjit::CodeHolder code;
    if (asmjit::Error e = code.init(asmjit::Environment::host()))
        return asmjit_error("CodeHolder::init", e);
    x86_64::Emitted em;
    STRBPF_TRY(
        x86_64::emit_program(insns, code, x86_64::CodegenOptions{bmi2, opts.sse42, opts.avx2, &first.short_ok, slots.get(), sites, opts.verified, opts.arena}, &em));
    if (asmjit::Error e = code.flatten())
        return asmjit_error("flatten", e);
    if (asmjit::Error e = code.resolveUnresolvedLinks())
        return asmjit_error("resolving labels", e);

    std::unique_ptr<CompiledProgram> prog(new CompiledProgram());
    // Near the helpers, so `call imm` relocates to a direct rel32 call rather than asmjit's address table.
    auto mem = ExecMemory::allocate(code.codeSize(), reinterpret_cast<uint64_t>(&runtime::helper_fn));
    if (!mem)
        return mem.error();
    prog->mem_ = std::move(*mem);
    prog->site_slots_ = std::move(slots);
    prog->call_sites_ = sites;
    const uint64_t base = reinterpret_cast<uint64_t>(prog->mem_.data());
    if (asmjit::Error e = code.relocateToBase(base))
        return asmjit_error("relocation", e);
    prog->code_size_ = code.codeSize();
    if (prog->code_size_ > prog->mem_.size())
        return make_error("JIT: relocated code grew past its region");
    if (asmjit::Error e =
            code.copyFlattenedData(prog->mem_.data(), prog->mem_.size(), asmjit::CopySectionFlags::kPadTargetBuffer))
        return asmjit_error("copying code", e);
    STRBPF_TRY(prog->mem_.seal());

    prog->direct_calls_ = !code.hasAddressTable() || code.addressTableSection()->realSize() == 0;
    prog->enter_ = base + code.labelOffsetFromBase(em.enter);
    if (em.enter_main.isValid()) { // lean: main's body is inline in its own entry
        prog->lean_ = true;
        prog->run_entry_ = base + code.labelOffsetFromBase(em.enter_main);
        prog->main_ = prog->run_entry_;
    } else {
        prog->run_entry_ = prog->enter_;
        prog->main_ = base + code.labelOffsetFromBase(em.main);
    }
    for (size_t k = 0; k < em.functions.size(); k++)
        prog->functions_.emplace_back(base + code.labelOffsetFromBase(em.functions[k]), em.function_pcs[k]);
    std::sort(prog->functions_.begin(), prog->functions_.end());
    prog->insns_.assign(insns.begin(), insns.end());
    prog->insn_offsets_ = std::move(em.insn_offsets); // .text is the first section, at offset 0
    return prog;
}

Result<std::unique_ptr<CompiledProgram>> compile(const runtime::LinkedProgram& prog) {
    if (!prog.linked)
        return prog.link_error;
    const std::span<const isa::Insn> code = engine_insns(EngineKind::jit, prog);
    if (code.empty())
        return make_error(fmt::format("JIT: program '{}' has no verified program (load_check() first)",
                                      prog.spec->name));
    CompileOptions opts = CompileOptions::host();
    opts.call_sites = true;
    opts.verified = prog.cache->program.get();
    if (prog.cache && prog.cache->program)
        opts.arena = prog.cache->program->arena;
    auto compiled = compile(code, opts);
    if (compiled)
        (*compiled)->source_ = prog.cache->program;
    return compiled;
}

} // namespace strbpf::exec::jit
