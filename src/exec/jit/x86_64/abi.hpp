// SPDX-License-Identifier: BSD-2-Clause
// The contract between JIT-generated x86-64 code and its C++ side (exec stage, JIT): the per-run state the code
// reaches through ctx.engine_state, the frame the entry trampoline reads, and the exit codes of error stubs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "runtime/context.hpp"

namespace strbpf::exec::jit::x86_64 {

// How a run ended; written by the generated error stubs into RunState::status.
enum class ExitCode : uint32_t {
    ok = 0,
    aborted,     // a helper or kfunc called ctx.abort()
    call_depth,  // a local call (or a callback) would need a 9th frame
    bad_helper,  // helper id strbpf does not provide
    bad_kfunc,   // kfunc index outside the table
    legacy_ld,   // LD_ABS / LD_IND
    unlinked_ld, // ld_imm64 pseudo form left unresolved
    no_arena,    // an arena access in a program compiled without its arena (only an unverified program has one)
};

// What the entry trampoline loads: BPF r1..r5, the run context (kept in r12), the r10 the called function's
// prologue starts from (its own r10 is fp - 512) and the native address of the BPF function to call.
struct EntryFrame {
    uint64_t regs[5];
    runtime::RunContext* ctx;
    uint64_t fp;
    uint64_t target;
};

using EnterFn = uint64_t (*)(EntryFrame* frame);

// The entry of a lean program (one BPF function, no callback-taking helper): main's body inline, entered with the
// System V convention and saving only the callee-saved registers it uses. It needs no RunState: the result comes
// back in rax:rdx, status 0 on success, else an ExitCode in the low 32 bits and the stopping pc in the high 32.
struct LeanResult {
    uint64_t r0;
    uint64_t status;
};
using LeanFn = LeanResult (*)(uint64_t r1, uint64_t r2, runtime::RunContext* ctx, uint64_t fp);
inline uint64_t lean_status(ExitCode code, int32_t pc) { return uint64_t(code) | (uint64_t(uint32_t(pc)) << 32); }

// Per-run state on run()'s stack, reached from generated code as [r12 + engine_state offset].
struct RunState {
    uint64_t floor;     // r10 of the deepest frame allowed (stack.bytes + 512): a local call made from it fails
    uint64_t entry_rsp; // native rsp inside the innermost entry trampoline: error stubs unwind to it
    uint64_t cur_fp;    // r10 at the last call of a helper that may invoke a callback (bpf_loop, ...)
    uint32_t status;    // an ExitCode
    int32_t pc;         // the instruction an error stub names
    EnterFn enter;
    const void* program; // the CompiledProgram, for callback checks and messages
    bool abort_named;    // RunContext::abort_message already names its pc (a callback's stop named it)
};
static_assert(std::is_standard_layout_v<RunState> && std::is_standard_layout_v<EntryFrame>);

inline constexpr int32_t kStateFloor = offsetof(RunState, floor);
inline constexpr int32_t kStateEntryRsp = offsetof(RunState, entry_rsp);
inline constexpr int32_t kStateCurFp = offsetof(RunState, cur_fp);
inline constexpr int32_t kStateStatus = offsetof(RunState, status);
inline constexpr int32_t kStatePc = offsetof(RunState, pc);
inline constexpr int32_t kFrameCtx = offsetof(EntryFrame, ctx);
inline constexpr int32_t kFrameFp = offsetof(EntryFrame, fp);
inline constexpr int32_t kFrameTarget = offsetof(EntryFrame, target);

// Byte offsets of the RunContext fields generated code touches (RunContext is not standard-layout, so these are
// measured on an instance once rather than taken with offsetof).
struct ContextOffsets {
    int32_t aborted;
    int32_t engine_state;
    int32_t verified;
};
const ContextOffsets& context_offsets();

} // namespace strbpf::exec::jit::x86_64
