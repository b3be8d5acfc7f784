// SPDX-License-Identifier: BSD-2-Clause
// bpf_tail_call on the JIT (exec stage): the helper hands the target to jit_tail_call, which ends the running
// code the way an abort does; run_with_tail_calls then enters the target's compiled code with the same r1 and
// stack, as the kernel's JIT jumps into the target past its prologue, reusing the frame.
#include <fmt/format.h>

#include "exec/jit/jit.hpp"
#include "exec/runner.hpp"
#include "runtime/instance.hpp"

namespace strbpf::exec::jit {
namespace {

constexpr const char* kPending = "bpf_tail_call: switching programs";

// The target a tail call named, between the helper and run_with_tail_calls on the same thread (the run's code
// unwinds in between, so nothing else of the run can read or set it).
thread_local const void* t_pending = nullptr;

bool jit_tail_call(runtime::RunContext* ctx, const void* target) {
    t_pending = target;
    ctx->abort(kPending);
    return true;
}

// The next program of the chain, or an error message.
Result<std::shared_ptr<const CompiledProgram>> next_program(const CompiledProgram& cur, runtime::RunContext& ctx,
                                                            const runtime::LinkedProgram& target) {
    if (cur.function_count() > 1)
        return make_error("bpf_tail_call: the JIT runs tail calls only from programs without bpf-to-bpf calls "
                          "(the interpreter runs this one)");
    if (Status s = load_check(EngineKind::jit, *ctx.instance, target); !s)
        return make_error(fmt::format("bpf_tail_call: program '{}' cannot load: {}", target.spec->name,
                                      s.error().message));
    return compile_cached(target);
}

} // namespace

namespace {
// The tail-call chain after the first program stopped for one: kept out of line, so a run without tail calls
// costs one flag test beyond the program's own entry.
[[gnu::noinline]] JitResult follow_tail_calls(const CompiledProgram& first, uint64_t r1, runtime::RunContext& ctx,
                                              runtime::StackArea& stack, JitResult res) {
    std::shared_ptr<const CompiledProgram> held;
    const CompiledProgram* cur = &first;
    while (!res.ok && t_pending) {
        const auto* target = static_cast<const runtime::LinkedProgram*>(t_pending);
        t_pending = nullptr;
        ctx.aborted = false;
        ctx.abort_message.clear();
        auto next = next_program(*cur, ctx, *target);
        if (!next)
            return JitResult{false, 0, next.error().message};
        held = std::move(*next);
        cur = held.get();
        res = cur->run(r1, ctx, stack);
    }
    return res;
}
} // namespace

JitResult run_with_tail_calls(const CompiledProgram& first, uint64_t r1, runtime::RunContext& ctx,
                              runtime::StackArea& stack) {
    const auto saved = ctx.tail_call;
    ctx.tail_call = jit_tail_call;
    ctx.tail_call_cnt = 0;
    ctx.preempt_count = 0;
    t_pending = nullptr;
    JitResult res = first.run(r1, ctx, stack);
    if (!res.ok && t_pending) [[unlikely]]
        res = follow_tail_calls(first, r1, ctx, stack, std::move(res));
    ctx.tail_call = saved;
    return res;
}

namespace {
// A lean run that stopped (status != 0): why, or where its tail calls led. Out of line and given the two words by
// value, so the repeat loop keeps them in registers.
[[gnu::noinline]] JitResult lean_stopped(const CompiledProgram& first, uint64_t r1, runtime::RunContext& ctx,
                                         runtime::StackArea& stack, uint64_t r0, uint64_t status) {
    JitResult res = first.lean_failure(x86_64::LeanResult{r0, status}, ctx);
    if (t_pending)
        res = follow_tail_calls(first, r1, ctx, stack, std::move(res));
    return res;
}

// Up to *left runs of a lean program, stopping after the first that does not end with status 0; *left is what
// remains. Out of line with nothing else live, so the entry, its arguments and the count stay in callee-saved
// registers across the calls. The tail-call count needs no reset between runs that end with status 0: the
// helper counts only a tail call it takes, and taking one ends the run. Four runs per loop turn: the calls and
// returns are then the only taken branches of most runs (an empty program's run is a few instructions).
[[gnu::noinline]] x86_64::LeanResult lean_runs(x86_64::LeanFn fn, uint64_t r1, runtime::RunContext* ctx,
                                               uint64_t top, uint32_t* left) {
    x86_64::LeanResult lr{0, 0};
    uint32_t n = *left;
    for (; n >= 4; n -= 4) {
#pragma GCC unroll 4
        for (uint32_t k = 1; k <= 4; k++) {
            lr = fn(r1, 0, ctx, top);
            if (lr.status != 0) [[unlikely]] {
                *left = n - k;
                return lr;
            }
        }
    }
    while (n != 0) {
        lr = fn(r1, 0, ctx, top);
        n--;
        if (lr.status != 0) [[unlikely]] {
            *left = n;
            return lr;
        }
    }
    *left = 0;
    return lr;
}
} // namespace

JitResult run_repeated(const CompiledProgram& first, uint64_t r1, runtime::RunContext& ctx, runtime::StackArea& stack,
                       uint32_t repeat) {
    JitResult res{true, 0, {}};
    if (!first.lean()) {
        for (uint32_t i = 0; i < repeat && res.ok; i++)
            res = run_with_tail_calls(first, r1, ctx, stack);
        return res;
    }
    const auto saved = ctx.tail_call;
    ctx.tail_call = jit_tail_call;
    t_pending = nullptr; // from here on, every tail call the helper names is consumed below before the next run
    const uint64_t top = reinterpret_cast<uint64_t>(stack.bytes) + sizeof stack.bytes;
    uint64_t r0 = 0;
    uint32_t left = repeat;
    while (left != 0) {
        ctx.tail_call_cnt = 0;
        ctx.preempt_count = 0;
        const x86_64::LeanResult lr = lean_runs(first.lean_entry(), r1, &ctx, top, &left);
        r0 = lr.r0;
        if (lr.status == 0)
            continue;
        res = lean_stopped(first, r1, ctx, stack, lr.r0, lr.status);
        r0 = res.r0;
        if (!res.ok)
            break;
    }
    ctx.tail_call = saved;
    res.r0 = r0;
    return res;
}

} // namespace strbpf::exec::jit
