// SPDX-License-Identifier: BSD-2-Clause
// The eBPF interpreter (exec stage): runs a linked program with the kernel's semantics (kernel/bpf/core.c
// ___bpf_prog_run), one computed-goto dispatch generated from isa/opcodes.def over small per-class handlers.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "isa/insn.hpp"
#include "runtime/context.hpp"

namespace strbpf::verifier {
struct VerifiedProgram;
}

namespace strbpf::exec::interp {

struct InterpResult {
    bool ok = false;
    uint64_t r0 = 0;
    std::string error; // set when !ok: names the pc and the cause
    int64_t pc = -1;   // the instruction that failed (-1 when the program never started)
    uint64_t insns_executed = 0;
};

// Runs insns (a runtime::LinkedProgram's encoding: plain ld_imm64, helper ids, kfunc table indexes, local calls
// by relative offset; engines pass the verified program's, exec::engine_insns(), or the linked program as written
// for interp-checked, whose uAPI ctx accesses and LD_ABS/LD_IND are emulated on the run's ctx model) from pc 0 with r1, r2 as given and r10 = top of frame 0 of `stack`. insns are checked with
// isa::validate() first. Every load, store and atomic is checked against ctx.mem; a helper or kfunc that calls
// ctx.abort() ends the run with its message. insn_limit > 0 stops the run after that many instructions (callbacks
// included). During the run ctx.invoke_callback / ctx.engine_state are the interpreter's (a helper such as bpf_loop
// runs a callback, whose value is what ld_imm64 BPF_PSEUDO_FUNC loaded: the address of its first instruction, one
// frame below its caller); their previous values are restored afterwards.
InterpResult run(std::span<const isa::Insn> insns, uint64_t r1, uint64_t r2, runtime::RunContext& ctx,
                 runtime::StackArea& stack, uint64_t insn_limit = 0);

// run() without isa::validate(): for callers that validated the program once (e.g. at link time). Undefined
// behaviour for a program validate() refuses (jumps out of range are not re-checked).
// checked = false trusts every memory access: only for programs strbpf's verifier accepted (the runner's interp
// engine); checked = true (interp-checked, tests, fuzzing) stops at the first access outside ctx.mem; with a SOURCE
// as well (a verified program run checked because it loads through kernel object pointers), a load SOURCE's facts
// type PTR_TO_BTF_ID that is outside ctx.mem reads 0, as the kernel's BPF_PROBE_MEM loads read 0 where they fault.
// SOURCE (unchecked runs): the verified program insns are, whose pc table error messages name pcs through
// (exec/source_pc.hpp); the programs tail calls enter name theirs.
InterpResult run_validated(std::span<const isa::Insn> insns, uint64_t r1, uint64_t r2, runtime::RunContext& ctx,
                           runtime::StackArea& stack, uint64_t insn_limit = 0, bool checked = true,
                           const verifier::VerifiedProgram* source = nullptr);

// run_validated() of the function starting at insns[pc] with r1..r5 = args, as frame 0 of `stack`: a timer
// callback run after the program that set it returned (exec/timers.hpp). insns is what that program ran.
InterpResult run_function(std::span<const isa::Insn> insns, size_t pc, const std::array<uint64_t, 5>& args,
                          runtime::RunContext& ctx, runtime::StackArea& stack, bool checked,
                          const verifier::VerifiedProgram* source);
} // namespace strbpf::exec::interp
