// SPDX-License-Identifier: BSD-2-Clause
// The x86-64 JIT (exec stage): compiles a linked program once into native code with asmjit and runs it with the
// kernel's semantics and the kernel JIT's register mapping (arch/x86/net/bpf_jit_comp.c). Trusts the verifier:
// loads and stores are not checked. Helpers and kfuncs are called directly (rel32) with &ctx in r9.
#pragma once
#include "runtime/maps/arena_view.hpp"
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "exec/jit/exec_memory.hpp"
#include "exec/jit/x86_64/abi.hpp"
#include "isa/insn.hpp"
#include "runtime/context.hpp"
#include "runtime/instance.hpp"
#include "runtime/kfuncs/call_site.hpp"
#include "strbpf/result.hpp"

namespace strbpf::exec::jit {

// The instruction-set extensions compiled code may use. host() is what this CPU has (asmjit's CpuInfo, read once);
// tests clear a field to emit and run the baseline encoding on any host (jit_shift_test.cpp).
struct CompileOptions {
    bool bmi2 = false; // shlx/shrx/sarx for shifts by register; without: shl/shr/sar with the count in cl
    bool sse42 = false; // pcmpistrm in the inline short-string paths of the set and substring kfuncs
    bool avx2 = false;  // AVX2 (with BMI1): 32-byte blocks in the inline short-string paths; without: 16-byte SSE2
    // String kfunc and bpf_strncmp calls go through call-site entries (runtime/kfuncs/call_site.hpp) that keep the
    // shared region each string pointer was found in. Such code must only run with one object instance's
    // contexts (compile(LinkedProgram) sets it: a linked program belongs to its instance), and with the StackArea
    // it runs on registered as the run's stack region (runtime::prepare_run_context): a site resolves a pointer
    // into that area from the frame pointer (x86_64/stack_site.hpp).
    bool call_sites = false;
    // The verified program the instructions are (compile(LinkedProgram) sets it): its call facts specialise the
    // string call sites (x86_64/codegen.hpp); it must outlive the code.
    const verifier::VerifiedProgram* verified = nullptr;
    runtime::ArenaView arena{}; // the verified program's arena (compile(LinkedProgram) sets it)
    static CompileOptions host();
};

struct JitResult {
    bool ok = false;
    uint64_t r0 = 0;
    std::string error; // set when !ok, in the interpreter's words ("call depth exceeds 8 frames at pc 3", ...)
};

// Immutable after compile() but for its call-site slots (atomic, filled on first use): any number of threads may run
// it at once, each with its own ctx and stack.
class CompiledProgram {
  public:
    // Runs from pc 0 with r1 (and r2) as given, r10 = top of frame 0 of `stack`. Sets ctx.invoke_callback and
    // ctx.engine_state for the run (bpf_loop callbacks) and clears them afterwards.
    JitResult run(uint64_t r1, runtime::RunContext& ctx, runtime::StackArea& stack) const {
        return run(r1, 0, ctx, stack);
    }
    JitResult run(uint64_t r1, uint64_t r2, runtime::RunContext& ctx, runtime::StackArea& stack) const {
        if (lean_) [[likely]] { // one function, no callbacks: no RunState; main's r10 is the top of the stack
            const x86_64::LeanResult res = run_lean(r1, r2, ctx, stack);
            if (res.status == 0) [[likely]]
                return JitResult{true, res.r0, {}};
            return lean_failure(res, ctx);
        }
        return run_trampoline(r1, r2, ctx, stack);
    }
    // One run of a lean() program as run() makes it, without building a JitResult: status 0 on success, else
    // lean_failure() says why the run stopped. Only for lean() programs.
    x86_64::LeanResult run_lean(uint64_t r1, uint64_t r2, runtime::RunContext& ctx, runtime::StackArea& stack) const {
        const uint64_t top = reinterpret_cast<uint64_t>(stack.bytes) + sizeof stack.bytes;
        return reinterpret_cast<x86_64::LeanFn>(run_entry_)(r1, r2, &ctx, top);
    }
    JitResult lean_failure(const x86_64::LeanResult& res, const runtime::RunContext& ctx) const;
    // What run_lean() calls, for a caller that keeps the stack top itself (the embedding API's Runner); nullptr
    // unless lean().
    x86_64::LeanFn lean_entry() const { return lean_ ? reinterpret_cast<x86_64::LeanFn>(run_entry_) : nullptr; }
    // Runs the BPF function a callback value names (what ld_imm64 BPF_PSEUDO_FUNC loads: the function's native
    // entry) through ctx.invoke_callback, as a helper called from frame 0 would (the function runs in frame 1).
    JitResult run_callback(uint64_t callback, const std::array<uint64_t, 5>& args, runtime::RunContext& ctx,
                           runtime::StackArea& stack) const;

    size_t code_size() const { return code_size_; }
    // The generated machine code (entry trampoline first), for golden-bytes tests and disassembly.
    std::span<const uint8_t> code() const { return {mem_.data(), code_size_}; }
    // True when every helper and kfunc call is a rel32 call (the code landed within reach of the helpers).
    bool direct_calls() const { return direct_calls_; }
    size_t insn_count() const { return insns_.size(); }
    // The region call-site slot k keeps (two per string call site, in program order); nullptr past the last slot.
    const runtime::Region* call_site_region(size_t k) const {
        return k < 2 * call_sites_ ? site_slots_[k].load(std::memory_order_acquire) : nullptr;
    }
    // Tests: makes slot k keep `r` (which must outlive the code and be readable wherever a pointer in it points),
    // as a miss would keep a shared region, so a test can put a site's strings right before a guard page.
    void keep_call_site_region(size_t k, const runtime::Region* r) const {
        if (k < 2 * call_sites_)
            site_slots_[k].store(r, std::memory_order_release);
    }
    // True when run() enters main directly, without the trampoline and its per-run state (x86_64/abi.hpp LeanFn).
    bool lean() const { return lean_; }

    // The pc of the BPF function whose native entry is `target` (a valid callback value); -1 when none is.
    int64_t function_pc(uint64_t target) const;
    size_t function_count() const { return functions_.size(); }
    // Offset in code() of pc 0's function entry: its prologue, or for a lean program (one function, no
    // callback-taking helper) the entry that runs main inline (enter_main).
    size_t main_offset() const { return size_t(main_ - reinterpret_cast<uint64_t>(mem_.data())); }
    // Offset in code() of the native code of BPF instruction `pc`.
    size_t insn_offset(size_t pc) const { return pc < insn_offsets_.size() ? insn_offsets_[pc] : code_size_; }
    // The error message for a run that stopped with `status` at `pc` (see x86_64/abi.hpp ExitCode), naming the pc
    // as the linked program has it when the code was compiled from a verified program.
    std::string stop_message(uint32_t status, int32_t pc, const runtime::RunContext& ctx) const;
    // The verified program the code was compiled from (its pc table), or nullptr.
    const verifier::VerifiedProgram* source() const { return source_.get(); }

  private:
    friend Result<std::unique_ptr<CompiledProgram>> compile(std::span<const isa::Insn> insns,
                                                            const CompileOptions& opts);
    friend Result<std::unique_ptr<CompiledProgram>> compile(const runtime::LinkedProgram& prog);
    JitResult run_trampoline(uint64_t r1, uint64_t r2, runtime::RunContext& ctx, runtime::StackArea& stack) const;
    std::string rewritten_stop_message(uint32_t status, int32_t pc, const runtime::RunContext& ctx) const;
    CompiledProgram() = default;

    ExecMemory mem_;
    size_t code_size_ = 0;
    bool direct_calls_ = false;
    uint64_t enter_ = 0;     // native address of the entry trampoline
    uint64_t main_ = 0;      // native address of pc 0's function entry (or of enter_main)
    uint64_t run_entry_ = 0; // what run() calls: enter_ (an EnterFn), or enter_main (a LeanFn) when lean_
    bool lean_ = false;      // one function and no callback-taking helper: run() needs no RunState
    std::vector<std::pair<uint64_t, int64_t>> functions_; // (native entry, pc) of every BPF function, sorted
    std::vector<isa::Insn> insns_;                        // for error messages
    std::shared_ptr<const verifier::VerifiedProgram> source_; // compile(LinkedProgram): error pcs map through it
    std::vector<uint32_t> insn_offsets_;
    std::unique_ptr<runtime::CallSiteSlot[]> site_slots_; // two per call site (x86_64::count_call_sites)
    size_t call_sites_ = 0;
};

// Validates (isa::validate) and compiles. LD_ABS/LD_IND, unknown helpers/kfuncs and unresolved ld_imm64 pseudo
// forms compile to stubs that end the run with the interpreter's error when reached. Options beyond host() (an
// extension this CPU lacks) are refused.
Result<std::unique_ptr<CompiledProgram>> compile(std::span<const isa::Insn> insns, const CompileOptions& opts);
inline Result<std::unique_ptr<CompiledProgram>> compile(std::span<const isa::Insn> insns) {
    return compile(insns, CompileOptions::host());
}
// The engine's entry: compiles PROG's verified program (exec::load_check() must have accepted it; otherwise an
// error). The span form above is the code generator itself, for instructions nobody verified (tests, the
// bpf_conformance plugin).
Result<std::unique_ptr<CompiledProgram>> compile(const runtime::LinkedProgram& prog);

// compile(prog) once per linked program (cache.cpp): later calls with the same program return the same code.
Result<std::shared_ptr<const CompiledProgram>> compile_cached(const runtime::LinkedProgram& prog);

// A run that follows bpf_tail_call (tail_call.cpp): the helper names the target, the run unwinds as on an abort,
// and the target runs from its start with the same r1 and stack; at most MAX_TAIL_CALL_CNT times per run. The
// JIT runs tail calls made by programs of one BPF function (a tail call from a subprogram returns to its caller,
// which would need the frames this unwinding drops); others fail with a message saying so.
JitResult run_with_tail_calls(const CompiledProgram& first, uint64_t r1, runtime::RunContext& ctx,
                              runtime::StackArea& stack);
// A test run's repeat loop: run_with_tail_calls `repeat` times, stopping at the first run that fails (its result is
// returned; else the last run's). A lean program's runs build no JitResult, so the loop costs little beyond the
// program's own entry.
JitResult run_repeated(const CompiledProgram& first, uint64_t r1, runtime::RunContext& ctx, runtime::StackArea& stack,
                       uint32_t repeat);

} // namespace strbpf::exec::jit
