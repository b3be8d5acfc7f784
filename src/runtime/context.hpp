// SPDX-License-Identifier: BSD-2-Clause
// The state of one program run that helpers and kfuncs see (runtime stage). Engines pass it to every helper and
// kfunc as a sixth argument, so natively called code needs no thread-local state.
#pragma once
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "runtime/memory/registry.hpp"

namespace strbpf::runtime {

class ObjectInstance;

// The trampoline frame of a tracing program's run (fentry, fexit, fmod_ret), what the kernel keeps beside the ctx:
// the traced function's address (ctx[-2]), its argument count (ctx[-1], the trampoline's nr_regs) and, after the
// arguments, the return value slot. bpf_get_func_arg, _ret, _arg_cnt and _ip read it (trace_frame_helpers.cpp).
struct TraceFrame {
    const uint64_t* slots = nullptr; // the ctx: nr_args arguments, then the return value (fexit, fmod_ret)
    uint32_t nr_args = 0;
    bool has_ret = false; // fexit and fmod_ret: bpf_get_func_ret reads slots[nr_args]
    uint64_t func_ip = 0; // the traced function's address (modelled, exec/contexts_tracing.cpp)
};

// The call stacks a run's program sees (bpf_get_stackid, bpf_get_stack, bpf_get_task_stack): return addresses,
// innermost first, as the kernel's perf callchain lists them. RunContext::stacks null: stack_helpers.hpp's
// default_stack_model(), the modelled stack docs/maps.md describes.
struct StackModel {
    std::span<const uint64_t> kernel;
    std::span<const uint64_t> user;
};

struct RunContext {
    RunMemory mem;
    const ObjectInstance* instance = nullptr;
    std::FILE* trace_out = stderr;     // bpf_trace_printk
    uint32_t cpu = 0;                  // the CPU the run is on: per-CPU map values, bpf_get_smp_processor_id
    uint64_t sock = 0;                 // the test run's socket (skb->sk), the owner of its sk storage; 0: none
    const TraceFrame* trace = nullptr; // a tracing program's trampoline frame while it runs; null: none
    uint64_t attach_cookie = 0;        // bpf_get_attach_cookie: the cookie of the link the run models (0: none)
    uint64_t current_task = 0;         // bpf_get_current_task_btf: the run's modelled task_struct; 0: none
    const StackModel* stacks = nullptr; // the stacks the program sees; null: the default modelled stacks

    // Set by the engine that runs the program: calls a BPF callback (the value an ld_imm64 BPF_PSEUDO_FUNC
    // produced in that engine) with r1..r5 and returns its r0. bpf_loop and for_each_map_elem use it. A callback
    // failure (e.g. an invalid memory access) sets `aborted`.
    using CallbackFn = uint64_t (*)(RunContext* ctx, uint64_t callback, uint64_t r1, uint64_t r2, uint64_t r3,
                                    uint64_t r4, uint64_t r5);
    CallbackFn invoke_callback = nullptr;
    void* engine_state = nullptr; // the engine's own per-run state for invoke_callback

    // bpf_tail_call: the helper hands the engine the target (a LinkedProgram of `instance`); the engine switches to
    // it when the helper returns, or answers false (it aborted ctx). Null: the engine does not run tail calls.
    // tail_call_cnt counts the run's tail calls against the kernel's MAX_TAIL_CALL_CNT.
    using TailCallFn = bool (*)(RunContext* ctx, const void* target);
    TailCallFn tail_call = nullptr;
    uint32_t tail_call_cnt = 0;

    // bpf_preempt_disable calls not yet matched by bpf_preempt_enable (preempt_kfuncs.hpp): 0 when a run ends
    // normally, as the verifier guarantees.
    uint32_t preempt_count = 0;

    // The program passed strbpf's verifier: helpers may trust what it proved about their arguments (e.g.
    // bpf_strncmp's s1 size and NUL-terminated read-only s2) instead of re-checking them on every call.
    bool verified = false;

    // An xdp or __sk_buff run's ctx is strbpf's model of the kernel struct (ctx_model.hpp: 1 xdp_buff, 2 sk_buff,
    // 0 none), registered as the ctx region. Verified programs reach it through the verifier's rewritten accesses;
    // the checked interpreter, which runs programs as written, emulates their uAPI accesses on it.
    uint8_t ctx_model = 0;

    // A helper that finds a condition the kernel's verifier would have refused (possible only on interp-checked)
    // ends the run: it sets abort_message and returns; the engine stops at once and reports it.
    bool aborted = false;
    std::string abort_message;
    // bpf_throw (kfuncs/throw_kfunc.hpp) sets `aborted` too, so every engine leaves the frames as on an abort; the
    // run's main loop then sees `thrown`, clears both and runs the exception callback with the cookie.
    bool thrown = false;
    uint64_t throw_cookie = 0;
    void abort(std::string msg) {
        if (!aborted) {
            aborted = true;
            abort_message = std::move(msg);
        }
    }
};

// Every helper and kfunc has this native signature: BPF r1..r5, then the run's context. The result is R0.
using HelperFn = uint64_t (*)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);

} // namespace strbpf::runtime

namespace strbpf::runtime {

// The stack of one run: kMaxCallDepth frames of kStackSize bytes. Frame 0 is at the top (highest addresses);
// frame k's r10 is bytes + (kMaxCallDepth - k) * kStackSize.
struct alignas(64) StackArea {
    uint8_t bytes[8 * 512];
};

// Points ctx at the instance's shared memory and registers the stack as a read-write local region.
void prepare_run_context(RunContext& ctx, const ObjectInstance* instance, StackArea* stack);

} // namespace strbpf::runtime
