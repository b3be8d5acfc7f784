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

JitResult run_with_tail_calls(const CompiledProgram& first, uint64_t r1, runtime::RunContext& ctx,
                              runtime::StackArea& stack) {
    const auto saved = ctx.tail_call;
    ctx.tail_call = jit_tail_call;
    ctx.tail_call_cnt = 0;
    t_pending = nullptr;
    std::shared_ptr<const CompiledProgram> held;
    const CompiledProgram* cur = &first;
    JitResult res;
    for (;;) {
        res = cur->run(r1, ctx, stack);
        if (res.ok || !t_pending)
            break;
        const auto* target = static_cast<const runtime::LinkedProgram*>(t_pending);
        t_pending = nullptr;
        ctx.aborted = false;
        ctx.abort_message.clear();
        auto next = next_program(*cur, ctx, *target);
        if (!next) {
            res = JitResult{false, 0, next.error().message};
            break;
        }
        held = std::move(*next);
        cur = held.get();
    }
    ctx.tail_call = saved;
    return res;
}

} // namespace strbpf::exec::jit
