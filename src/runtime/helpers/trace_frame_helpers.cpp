// SPDX-License-Identifier: BSD-2-Clause
// The trampoline-frame helpers (runtime stage). 6.18's verifier inlines bpf_get_func_arg, _ret, _arg_cnt and _ip for
// tracing programs as loads beside the ctx (nr_args at ctx[-1], the function's address at ctx[-2], the return
// value at ctx[nr_args]); strbpf's tracing test run keeps the same facts in RunContext::trace, and these helpers
// answer from it:
//   bpf_get_func_arg(ctx, n, &v): n below the argument count: v = argument n, 0; else -EINVAL and v untouched;
//   bpf_get_func_ret(ctx, &v): fexit, fmod_ret: v = the return slot (fmod_ret: 0, the trampoline clears it), 0;
//     fentry: -EOPNOTSUPP, v untouched;
//   bpf_get_func_arg_cnt(ctx): the argument count (the trampoline's register count: an argument of 9..16 bytes
//     counts twice, the kernel's nr_regs);
//   bpf_get_func_ip(ctx): the traced function's address;
//   bpf_get_attach_cookie(ctx): the cookie of the link the run models (RunRequest::cookie; 0 without one).
// The kernel compares n's low 32 bits with the count and then indexes with all 64 (an n of 2^32 or more reads
// outside its frame); strbpf compares all 64 bits, so such an n is -EINVAL.
// Outside a tracing test run (no frame: strbpf's kprobe runs on a given ctx) the func-arg/ip helpers end the run
// naming themselves: there is no trampoline or probe whose facts they could give. So does bpf_get_current_task_btf
// without the run's modelled task.
#include "runtime/helpers/trace_frame_helpers.hpp"

#include "runtime/helpers/task_helpers.hpp"

#include <cstring>

#include <fmt/format.h>

#include "runtime/helpers/helper_checks.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kEinval = uint64_t(-22);
constexpr uint64_t kEopnotsupp = uint64_t(-95);

const TraceFrame* frame_or_abort(RunContext* ctx, const char* helper) {
    if (ctx->trace)
        return ctx->trace;
    ctx->abort(fmt::format("{} is modelled in tracing test runs only (fentry, fexit, fmod_ret): this run has no "
                           "trampoline frame",
                           helper));
    return nullptr;
}

// The verifier proved VALUE an 8-byte aligned writable slot; interp-checked runs check it here.
bool value_slot(uint64_t value, RunContext* ctx, const char* helper) {
    return ctx->verified || checked_mem(value, 8, kPermWrite, ctx, "value", helper);
}

} // namespace

uint64_t bpf_get_func_arg_helper(uint64_t, uint64_t n, uint64_t value, uint64_t, uint64_t, RunContext* ctx) {
    const TraceFrame* f = frame_or_abort(ctx, "bpf_get_func_arg#183");
    if (!f || !value_slot(value, ctx, "bpf_get_func_arg"))
        return 0;
    if (n >= f->nr_args)
        return kEinval;
    std::memcpy(reinterpret_cast<void*>(value), &f->slots[n], 8);
    return 0;
}

uint64_t bpf_get_func_ret_helper(uint64_t, uint64_t value, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const TraceFrame* f = frame_or_abort(ctx, "bpf_get_func_ret#184");
    if (!f || !value_slot(value, ctx, "bpf_get_func_ret"))
        return 0;
    if (!f->has_ret)
        return kEopnotsupp;
    std::memcpy(reinterpret_cast<void*>(value), &f->slots[f->nr_args], 8);
    return 0;
}

uint64_t bpf_get_func_arg_cnt_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const TraceFrame* f = frame_or_abort(ctx, "bpf_get_func_arg_cnt#185");
    return f ? f->nr_args : 0;
}

uint64_t bpf_get_func_ip_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const TraceFrame* f = frame_or_abort(ctx, "bpf_get_func_ip#173");
    return f ? f->func_ip : 0;
}

uint64_t bpf_get_attach_cookie_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return ctx->attach_cookie;
}

// A trusted task_struct the verifier lets the program read by BTF: the modelled one a tracing test run registers
// (exec/contexts_tracing.cpp); elsewhere the calling thread's token (task_helpers.hpp), which task storage and
// bpf_get_task_stack know as the current task and no engine loads through.
uint64_t bpf_get_current_task_btf_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return ctx->current_task ? ctx->current_task : current_task_token();
}

} // namespace strbpf::runtime
