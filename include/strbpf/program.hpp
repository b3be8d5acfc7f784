// SPDX-License-Identifier: BSD-2-Clause
// strbpf's embedding API: a program of an Object, and Runner, the per-thread fast path for calling one program
// many times. A program runs only after Object::load() verified it; the verifier's verdict and log stay with it.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strbpf/result.hpp"

namespace strbpf {

// Where programs run. jit and interp run only what the verifier accepted; interp_checked runs any program that
// links, with every memory access checked at run time (debugging, fuzzing): the one engine without the verifier.
enum class Engine { jit, interp, interp_checked };

struct RunOptions {
    std::vector<uint8_t> ctx;  // ctx_in: syscall ctx bytes, raw_tp u64 arguments, a struct __sk_buff, ...
    std::vector<uint8_t> data; // data_in: the packet of xdp/tc/socket programs
    uint32_t repeat = 1;       // runs, as BPF_PROG_TEST_RUN's repeat; the result is the last run's
    uint32_t cpu = 0;          // the CPU the program runs as: per-CPU map values, bpf_get_smp_processor_id
    std::FILE* trace = stderr; // where bpf_trace_printk writes
    bool timed = false;        // fill RunResult::duration_ns (two clock reads around the runs); else it is 0
    // The call stacks bpf_get_stackid and bpf_get_stack see: return addresses, innermost first (empty: no frames,
    // as a kernel thread's user stack). Unset: strbpf's modelled stacks (docs/maps.md, "Stack traces").
    std::optional<std::vector<uint64_t>> kernel_stack;
    std::optional<std::vector<uint64_t>> user_stack;
    // The BPF cookie of the link the run models, what bpf_get_attach_cookie reads (`strbpf run --cookie`): fentry,
    // fexit and fmod_ret test runs and strbpf's own kprobe, tracepoint and perf_event runs take one; any other
    // type's test run attaches nothing and refuses a non-zero cookie (-EINVAL).
    uint64_t cookie = 0;
};

struct RunResult {
    uint64_t r0 = 0;
    uint32_t retval = 0; // low 32 bits of r0, as BPF_PROG_TEST_RUN reports it
    uint64_t duration_ns = 0; // average per repetition, when RunOptions::timed
    std::vector<uint8_t> data_out;
    std::vector<uint8_t> ctx_out;
};

class Object;

// A program of an Object; valid as long as the Object. Before load(): name, section, autoload and engine. After:
// the verdict, the log and runs. Any number of threads may run one program at once.
class ProgramRef {
  public:
    const std::string& name() const;
    const std::string& section() const;
    uint32_t type() const; // enum bpf_prog_type, from the section name as libbpf maps it
    bool autoload() const;

    // Before load(): whether load() verifies and prepares this program (libbpf's bpf_program__set_autoload), and
    // the engine it is prepared for (the object's LoadOptions::engine when unset). Errors: -EBUSY after load().
    Status set_autoload(bool on);
    Status set_engine(Engine engine);
    Engine engine() const;

    // After load(): the verifier accepted the program; otherwise reason() is the kernel's one-line reason. log()
    // is the kernel-format verifier log at LoadOptions::log_level (empty at level 0).
    bool loaded() const;
    bool accepted() const;
    const std::string& reason() const;
    const std::string& log() const;

    // Runs the program as BPF_PROG_TEST_RUN would, on its engine, with a per-thread stack. Errors: not loaded
    // (-ENOENT), rejected by the verifier (-EACCES), a test-run context the kernel refuses (-EINVAL), loads
    // through kernel object pointers outside tracing and struct_ops runs (-EOPNOTSUPP), or a run that stopped (an
    // invalid access on interp_checked, ...) with a message naming the pc. Tracing programs (fentry, fexit,
    // fmod_ret) run as the kernel's test run runs them, on its bpf_fentry_test* / bpf_modify_return_test*
    // functions (ctx unused; the retval is the test run's); struct_ops programs of bpf_dummy_ops as the member
    // they implement, with ctx the member's u64 arguments (the first a pointer to the caller's struct
    // bpf_dummy_ops_state or 0), the state copied in and back; neither reports a duration or ctx_out.
    Result<RunResult> run(const RunOptions& opts = {}) const;
    // The same into OUT, whose buffers are reused: once they have grown, a run allocates nothing (the result
    // above allocates its ctx_out each run). OUT is written only when the run succeeds.
    Status run(const RunOptions& opts, RunResult& out) const;

  private:
    friend class Object;
    friend class Runner;
    ProgramRef(void* obj, size_t index) : obj_(obj), index_(index) {}
    void* obj_;    // Object::Impl
    size_t index_; // into the object's programs
};

// One thread's way to call one loaded program many times: owns the run's stack and context, so a call allocates
// nothing. Not shared between threads (make one per thread); valid as long as the Object.
class Runner {
  public:
    // Errors: the program is not loaded or was rejected by the verifier (on jit or interp).
    static Result<Runner> create(const ProgramRef& prog, uint32_t cpu = 0);
    Runner(Runner&&) noexcept;
    Runner& operator=(Runner&&) noexcept;
    ~Runner();

    // Programs whose ctx is the bytes given (syscall, raw_tp, tp, kprobe): runs once with ctx as the program's
    // context (read-write for syscall programs, read-only otherwise) and returns r0. Errors: another program type
    // (-EINVAL: use run(RunOptions)), ctx shorter than the program reads (-EINVAL), a run that stopped.
    Result<uint64_t> run(std::span<uint8_t> ctx) {
        uint64_t r0;
        if (const int err = call(ctx, &r0); err == 0) [[likely]]
            return r0;
        return last_error();
    }
    // The same without a Result: 0 with *r0 set, or the negative errno with last_error() describing it. The
    // cheapest call the API has (what run(span) and the C API's strbpf_runner_run are built on): inline, a JIT'd
    // program given the buffer the previous call registered is entered directly (two compares, the call, the
    // status test); anything else takes call_checked().
    int call(std::span<uint8_t> ctx, uint64_t* r0) {
        if (ctx.data() == fast_.ctx_data && ctx.size() == fast_.ctx_size) [[likely]] {
            const Pair p = fast_.entry(fast_.r1, 0, fast_.run, fast_.stack_top);
            if (p.status == 0) [[likely]] {
                *r0 = p.r0;
                return 0;
            }
            return stopped(p);
        }
        return call_checked(ctx, r0);
    }
    // The error of the last call() or run() that failed.
    const Error& last_error() const;
    // Any program type: the full test run, as ProgramRef::run, on this runner's stack; the second form into OUT,
    // reusing its buffers.
    Result<RunResult> run(const RunOptions& opts);
    Status run(const RunOptions& opts, RunResult& out);

  private:
    struct Pair {
        uint64_t r0, status; // status 0: ran to its exit
    };
    // What call() reads inline, held in the Runner itself: the buffer the last call registered after checking
    // its size against what the verifier saw the program read, the r1 the program gets for it (0 for an empty
    // buffer), and the JIT's lean entry with its run context and stack top. ctx_size SIZE_MAX (no buffer has
    // it) when nothing is registered and always when the lean entry cannot run the program alone (another
    // engine, a stack to zero first, tail calls): call() then takes call_checked().
    struct Fast {
        const uint8_t* ctx_data = nullptr;
        size_t ctx_size = SIZE_MAX;
        Pair (*entry)(uint64_t r1, uint64_t r2, void* run, uint64_t fp) = nullptr;
        uint64_t r1 = 0;
        void* run = nullptr;
        uint64_t stack_top = 0;
    };
    int call_checked(std::span<uint8_t> ctx, uint64_t* r0); // the ctx checks, then the engine
    int stopped(Pair p);                                     // a run call() entered that did not reach its exit
    void sync_fast();                                        // fast_ from the ctx the runner registered
    struct Impl;
    explicit Runner(std::unique_ptr<Impl> impl);
    Fast fast_;
    std::unique_ptr<Impl> impl_;
};

} // namespace strbpf
