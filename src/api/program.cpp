// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's programs and runners (api stage): runs go through the verdict load() cached and the JIT
// code it compiled; the stack is per thread (ProgramRef::run) or per Runner, never allocated per call.
#include "strbpf/program.hpp"

#include <cerrno>
#include <chrono>
#include <cstddef>

#include <fmt/format.h>

#include "api/object_impl.hpp"
#include "exec/contexts.hpp"
#include "exec/interp/interpreter.hpp"
#include "exec/runner.hpp"
#include "runtime/helpers/stack_helpers.hpp"

namespace strbpf {
namespace {

using loader::ProgType;

Object::Impl& impl(void* p) { return *static_cast<Object::Impl*>(p); }

// Whether a program may run: loaded by load(), and accepted unless its engine is the unverified one; and its loads
// through kernel object pointers run on its engine (exec::check_btf_loads: tracing and struct_ops programs).
Status runnable(const Object::Impl& o, const ProgramState& st) {
    if (!st.loaded)
        return make_error(fmt::format("program '{}' of {} is not loaded", st.spec->name, o.name), -ENOENT);
    if (!st.accepted && st.engine != Engine::interp_checked)
        return make_error(fmt::format("program '{}': {}", st.spec->name, st.reason), -EACCES);
    if (st.btf_refused) [[unlikely]] {
        const Status why = exec::check_btf_loads(engine_kind(st.engine), *st.linked);
        return make_error(fmt::format("program '{}': {}", st.spec->name, why ? "" : why.error().message), -EOPNOTSUPP);
    }
    return ok_status();
}

const runtime::ExtProgType* ext_type(const Object::Impl& o, const ProgramState& st) {
    return o.ext ? o.ext->prog_type(st.spec->type) : nullptr;
}

// One run of ST on the engine it was loaded for (not the JIT's lean entry: run_repeat takes that itself). The
// interpreter runs checked on interp_checked and for a program's loads through kernel object pointers (ST.probe).
Status run_once(const ProgramState& st, uint64_t r1, runtime::RunContext& ctx, runtime::StackArea& stack,
                uint64_t* r0) {
    if (st.jit) {
        exec::jit::JitResult j =
            st.tail_calls ? exec::jit::run_with_tail_calls(*st.jit, r1, ctx, stack) : st.jit->run(r1, ctx, stack);
        if (!j.ok) [[unlikely]]
            return make_error(std::move(j.error), -EINVAL);
        *r0 = j.r0;
        return ok_status();
    }
    const bool checked = st.engine == Engine::interp_checked;
    // The verified program names its source pcs and holds its arena's view (the ARENA_* forms need it).
    exec::interp::InterpResult r = exec::interp::run_validated(
        exec::engine_insns(checked ? exec::EngineKind::interp_checked : exec::EngineKind::interp, *st.linked), r1, 0,
        ctx, stack, 0, checked || st.probe, checked ? nullptr : st.linked->cache->program.get());
    if (!r.ok) [[unlikely]]
        return make_error(std::move(r.error), -EINVAL, r.pc);
    *r0 = r.r0;
    return ok_status();
}

// REPEAT runs of ST from R1, each on a stack zeroed where the program may read it before writing; *r0 is the last
// run's. A JIT'd program of one function without tail calls is entered directly, its two-word result kept in
// registers; the first run that stops ends the loop with its error.
Status run_repeat(const ProgramState& st, uint64_t r1, runtime::RunContext& ctx, runtime::StackArea& stack,
                  uint32_t repeat, uint64_t* r0) {
    if (st.jit && st.jit->lean() && !st.tail_calls) {
        const exec::jit::x86_64::LeanFn fn = st.jit->lean_entry();
        const uint64_t top = reinterpret_cast<uint64_t>(stack.bytes) + sizeof stack.bytes;
        for (uint32_t i = 0; i < repeat; i++) {
            wipe_stack(st, stack);
            const exec::jit::x86_64::LeanResult res = fn(r1, 0, &ctx, top);
            if (res.status != 0) [[unlikely]]
                return make_error(st.jit->lean_failure(res, ctx).error, -EINVAL);
            *r0 = res.r0;
        }
        return ok_status();
    }
    for (uint32_t i = 0; i < repeat; i++) {
        wipe_stack(st, stack);
        STRBPF_TRY(run_once(st, r1, ctx, stack, r0));
    }
    return ok_status();
}

} // namespace

// What a full test run builds, kept from run to run (ProgramRef::run: one per thread; a Runner: its own): the run
// context is reset and the test-run context rebuilt in place, and the buffers keep their capacity, so a run into a
// reused RunResult allocates nothing.
struct RunScratch {
    runtime::RunContext ctx;
    std::vector<uint8_t> ctx_buf; // the ctx of a type whose ctx is the caller's bytes (or an embedder's type)
    exec::TestRunContext trc;     // the other types' ctx and packet
    exec::RunRequest req;
    exec::RunReport rep;
    runtime::StackModel stacks; // RunOptions' stacks, when it names them
    bool busy = false; // a run on this thread is using it (an embedder's helper may run a program itself)
};

namespace {

// The run context for one full run of ST: the instance's memory, the stack, cpu, trace stream, verified flag.
void reset_run_context(runtime::RunContext& ctx, const Object::Impl& o, const ProgramState& st,
                       const RunOptions& opts, runtime::StackArea& stack, runtime::StackModel& stacks) {
    runtime::prepare_run_context(ctx, o.inst.get(), &stack);
    const uint32_t cpus = runtime::possible_cpus();
    ctx.cpu = opts.cpu < cpus ? opts.cpu : opts.cpu % cpus;
    ctx.trace_out = opts.trace;
    ctx.verified = st.engine != Engine::interp_checked;
    ctx.ctx_model = 0;
    ctx.tail_call_cnt = 0;
    ctx.attach_cookie = opts.cookie; // exec::check_cookie: only runs that model a link take one
    if (opts.kernel_stack || opts.user_stack) {
        const runtime::StackModel& d = runtime::default_stack_model();
        stacks = {opts.kernel_stack ? std::span<const uint64_t>(*opts.kernel_stack) : d.kernel,
                  opts.user_stack ? std::span<const uint64_t>(*opts.user_stack) : d.user};
        ctx.stacks = &stacks;
    }
}

// A ctx that is the caller's bytes (syscall, raw_tp, tp, kprobe; an embedder's type: exactly its ctx_size), copied
// into the scratch buffer and registered, read-write where the program may write it, for the helpers that look
// it up (the string kfuncs on the ctx, ...); no packet. The checks are the kernel's test run's, and for verified
// programs check_ctx_size: the ctx holds every byte the verifier saw the program read.
Status bytes_ctx(const ProgramState& st, const runtime::ExtProgType* ext, const RunOptions& opts, RunScratch& s,
                 uint64_t* r1) {
    const loader::ProgType t = st.spec->type;
    if (ext) {
        if (opts.ctx.size() != ext->ctx_size || !opts.data.empty())
            return make_error(fmt::format("a {} program's ctx is {} bytes and it has no packet (got {} and {})",
                                          ext->name, ext->ctx_size, opts.ctx.size(), opts.data.size()),
                              -EINVAL);
    } else if (auto ok = exec::check_bytes_ctx(t, opts.ctx.size(), opts.data.size()); !ok) {
        return make_error(ok.error().message, -EINVAL);
    }
    s.ctx_buf.assign(opts.ctx.begin(), opts.ctx.end());
    *r1 = s.ctx_buf.empty() ? 0 : reinterpret_cast<uint64_t>(s.ctx_buf.data());
    const bool writable = ext ? ext->writable() : t == ProgType::syscall;
    s.ctx.mem.add_local(runtime::Region{*r1, s.ctx_buf.size(), writable ? runtime::kPermRW : runtime::kPermRead,
                                        runtime::RegionKind::ctx, "ctx"});
    return ok_status();
}

// A tracing (fentry, fexit, fmod_ret) or struct_ops (bpf_dummy_ops) test run, as the CLI's (exec/runner.cpp): the
// kernel's test run calls the program itself, through the functions it is attached to (tracing) or as the struct's
// member with ctx's arguments (struct_ops); the retval is the test run's. RunOptions::cookie is the link's
// (fentry, fexit, fmod_ret). `repeat` is ignored and no duration or ctx_out is reported, as the kernel's.
Status attached_run(const Object::Impl& o, const ProgramState& st, const RunOptions& opts, runtime::StackArea& stack,
                    RunScratch& s, RunResult& out) {
    const loader::ProgramSpec& spec = *st.spec;
    if (auto ok = exec::check_cookie(spec.type, spec.expected_attach_type, opts.cookie); !ok)
        return make_error(ok.error().message, -EINVAL);
    reset_run_context(s.ctx, o, st, opts, stack, s.stacks);
    s.req.ctx_in.assign(opts.ctx.begin(), opts.ctx.end());
    s.req.data_in.clear();
    s.req.flags = s.req.cpu = 0;
    s.req.cookie = opts.cookie;
    exec::TracingRun once = [&](uint64_t r1, uint64_t* r0) {
        wipe_stack(st, stack);
        return run_once(st, r1, s.ctx, stack, r0);
    };
    uint32_t retval = 0;
    const Status ran = exec::called_test_run(o.inst->spec(), spec, s.req, s.ctx, once, &retval);
    if (!ran)
        return make_error(fmt::format("program '{}': {}", spec.name, ran.error().message),
                          ran.error().code < 0 ? ran.error().code : -EINVAL, ran.error().pc);
    out.r0 = retval;
    out.retval = retval;
    out.duration_ns = 0;
    out.data_out.clear();
    out.ctx_out.clear();
    return ok_status();
}

// The whole test run, as BPF_PROG_TEST_RUN: context per program type, `repeat` runs, outputs into OUT (its
// buffers reused), written only once the runs succeeded.
Status full_run(const Object::Impl& o, const ProgramState& st, const RunOptions& opts, runtime::StackArea& stack,
                RunScratch& s, RunResult& out) {
    STRBPF_TRY(runnable(o, st));
    const runtime::ExtProgType* ext = ext_type(o, st);
    if (!ext && (st.spec->type == ProgType::tracing || st.spec->type == ProgType::struct_ops))
        return attached_run(o, st, opts, stack, s, out);
    if (opts.cookie)
        if (auto ok = exec::check_cookie(st.spec->type, st.spec->expected_attach_type, opts.cookie); !ok)
            return make_error(ok.error().message, -EINVAL);
    const bool bytes = ext || exec::ctx_is_bytes(st.spec->type);
    if (!bytes)
        if (auto ok = exec::check_test_run(*st.spec); !ok)
            return make_error(ok.error().message, -EINVAL);
    if (st.engine != Engine::interp_checked && !ext)
        STRBPF_TRY(exec::check_ctx_size(st.spec->type, opts.ctx.size(), *st.linked->cache));
    reset_run_context(s.ctx, o, st, opts, stack, s.stacks);
    uint64_t r1 = 0;
    if (bytes) {
        STRBPF_TRY(bytes_ctx(st, ext, opts, s, &r1));
    } else {
        s.req.ctx_in.assign(opts.ctx.begin(), opts.ctx.end());
        s.req.data_in.assign(opts.data.begin(), opts.data.end());
        if (auto b = s.trc.build(st.spec->type, s.req, s.ctx, &r1); !b)
            return make_error(b.error().message, -EINVAL);
    }
    const uint32_t repeat = opts.repeat == 0 ? 1 : opts.repeat;
    uint64_t r0 = 0;
    std::chrono::steady_clock::time_point t0, t1;
    if (opts.timed)
        t0 = std::chrono::steady_clock::now();
    Status ran = ok_status();
    if (st.spec->type == ProgType::sk_lookup) { // each repetition starts with no socket selected
        for (uint32_t i = 0; ran && i < repeat; i++) {
            s.trc.clear_sk_lookup_selection();
            ran = run_repeat(st, r1, s.ctx, stack, 1, &r0);
        }
    } else {
        ran = run_repeat(st, r1, s.ctx, stack, repeat, &r0);
    }
    if (!ran) [[unlikely]]
        return make_error(fmt::format("program '{}': {}", st.spec->name, ran.error().message), ran.error().code,
                          ran.error().pc);
    if (opts.timed)
        t1 = std::chrono::steady_clock::now();
    out.r0 = r0;
    out.retval = uint32_t(r0);
    out.duration_ns =
        opts.timed ? uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) / repeat : 0;
    if (bytes) { // syscall programs and embedder types report their ctx back
        out.data_out.clear();
        if (ext || st.spec->type == ProgType::syscall)
            out.ctx_out.assign(s.ctx_buf.begin(), s.ctx_buf.end());
        else
            out.ctx_out.clear();
        return ok_status();
    }
    s.rep.data_out.clear();
    s.rep.ctx_out.clear();
    if (Status f = s.trc.finish(&s.rep); !f)
        return make_error(fmt::format("program '{}': {}", st.spec->name, f.error().message), f.error().code);
    out.data_out.assign(s.rep.data_out.begin(), s.rep.data_out.end());
    out.ctx_out.assign(s.rep.ctx_out.begin(), s.rep.ctx_out.end());
    return ok_status();
}

// full_run on SCRATCH, or on a scratch of its own when SCRATCH is in use (a run started inside a run).
Status full_run_on(const Object::Impl& o, const ProgramState& st, const RunOptions& opts, runtime::StackArea& stack,
                   RunScratch& scratch, RunResult& out) {
    if (scratch.busy) [[unlikely]] {
        auto own = std::make_unique<RunScratch>();
        auto own_stack = std::make_unique<runtime::StackArea>();
        return full_run(o, st, opts, *own_stack, *own, out);
    }
    scratch.busy = true;
    Status r = full_run(o, st, opts, stack, scratch, out);
    scratch.busy = false;
    return r;
}

// What ProgramRef::run uses on each thread, made at the thread's first run and freed when the thread exits. The
// pointer is a trivial thread_local, so a run reads it with one TLS access and no guard; its owner, touched only
// when it is made, frees it.
struct ThreadRuns {
    runtime::StackArea stack;
    RunScratch scratch;
};
thread_local ThreadRuns* t_runs = nullptr;
[[gnu::noinline]] ThreadRuns& make_thread_runs() {
    thread_local std::unique_ptr<ThreadRuns> owner;
    owner = std::make_unique<ThreadRuns>();
    t_runs = owner.get();
    return *owner;
}
ThreadRuns& thread_runs() {
    ThreadRuns* t = t_runs;
    return t ? *t : make_thread_runs();
}

} // namespace

// ---- ProgramRef -------------------------------------------------------------------------------------------------

namespace {
const ProgramState& state(void* obj, size_t i) { return impl(obj).progs[i]; }
} // namespace

const std::string& ProgramRef::name() const { return state(obj_, index_).spec->name; }
const std::string& ProgramRef::section() const { return state(obj_, index_).spec->section; }
uint32_t ProgramRef::type() const { return uint32_t(state(obj_, index_).spec->type); }
bool ProgramRef::autoload() const { return state(obj_, index_).autoload; }
Engine ProgramRef::engine() const { return state(obj_, index_).engine; }
bool ProgramRef::loaded() const { return state(obj_, index_).loaded; }
bool ProgramRef::accepted() const { return state(obj_, index_).accepted; }
const std::string& ProgramRef::reason() const { return state(obj_, index_).reason; }
const std::string& ProgramRef::log() const { return state(obj_, index_).log; }

Status ProgramRef::set_autoload(bool on) {
    if (impl(obj_).inst)
        return make_error(fmt::format("program '{}': the object is loaded already", name()), -EBUSY);
    impl(obj_).progs[index_].autoload = on;
    return ok_status();
}

Status ProgramRef::set_engine(Engine engine) {
    if (impl(obj_).inst)
        return make_error(fmt::format("program '{}': the object is loaded already", name()), -EBUSY);
    ProgramState& st = impl(obj_).progs[index_];
    st.engine = engine;
    st.engine_set = true;
    return ok_status();
}

Status ProgramRef::run(const RunOptions& opts, RunResult& out) const {
    ThreadRuns& t = thread_runs(); // one stack and scratch per thread: runs on several threads never share them
    return full_run_on(impl(obj_), state(obj_, index_), opts, t.stack, t.scratch, out);
}

Result<RunResult> ProgramRef::run(const RunOptions& opts) const {
    RunResult out;
    STRBPF_TRY(run(opts, out));
    return out;
}

// ---- Runner -----------------------------------------------------------------------------------------------------

struct Runner::Impl {
    // call_checked()'s ctx sizes, as one unsigned compare and one mask: min_ctx <= size <= min_ctx + ctx_span and
    // size & align_mask == 0. A type whose ctx is not the caller's bytes takes none (min 1, span 0, mask ~0).
    size_t min_ctx = 0, ctx_span = 0, align_mask = 0;
    // The ctx registered now (local region 1; none for an empty buffer): the caller's buffer, its size (SIZE_MAX:
    // none registered) and the r1 the program gets.
    const uint8_t* reg_data = nullptr;
    size_t reg_size = SIZE_MAX;
    uint64_t reg_r1 = 0;
    // The program, its engine, the run's context and stack.
    exec::jit::x86_64::LeanFn lean = nullptr; // the JIT's lean entry (one function, no callbacks, no tail calls)
    bool fast = false;                        // ... and no stack to zero first: call() enters it inline
    uint64_t stack_top = 0;                   // r10 of a lean run
    uint32_t wipe_frames = 0;                 // ProgramState::wipe_frames (0: nothing to zero)
    const Object::Impl* obj = nullptr;
    const ProgramState* st = nullptr;
    const exec::jit::CompiledProgram* jit = nullptr;
    std::span<const isa::Insn> insns; // without the JIT: what the interpreter runs, found once
    bool checked = false;             // ... on interp_checked
    runtime::RunContext ctx;
    runtime::StackArea stack;
    uint32_t cpu = 0;
    uint8_t ctx_perms = 0; // read-write for syscall programs (and writable embedder types), else read-only

    // Registers the caller's ctx as local region 1, unless it is the one registered already, so calls with the
    // same buffer write nothing. A lean run leaves the regions as it found them (no callbacks; the types a Runner
    // takes have no helper that adds one); the other engines' runs may not (interp_checked registers what the
    // embedder's kfuncs return), so before them the count is checked too (call_other).
    void set_ctx(const uint8_t* data, size_t size) {
        if (data == reg_data && size == reg_size) [[likely]]
            return;
        replace_ctx(data, size);
    }
    [[gnu::noinline]] void replace_ctx(const uint8_t* data, size_t size) {
        ctx.mem.drop_local_from(1); // keep the stack, replace the ctx
        reg_r1 = size == 0 ? 0 : reinterpret_cast<uint64_t>(data);
        if (reg_r1)
            ctx.mem.add_local(runtime::Region{reg_r1, size, ctx_perms, runtime::RegionKind::ctx, "ctx"});
        reg_data = data;
        reg_size = size;
    }

    void reset_context() {
        reg_data = nullptr;
        reg_size = SIZE_MAX; // matches no span: the next call registers its ctx after checking it
        reg_r1 = 0;
        runtime::prepare_run_context(ctx, obj->inst.get(), &stack); // the stack is local region 0
        ctx.cpu = cpu;
        ctx.verified = st->engine != Engine::interp_checked;
    }
    int stopped(std::string why, int64_t pc) {
        reset_context(); // a run that stopped may leave an abort message and regions behind
        error = make_error(fmt::format("program '{}': {}", st->spec->name, why), -EINVAL, pc);
        return error.code;
    }
    [[gnu::noinline]] int refuse(size_t size);
    [[gnu::noinline]] int lean_stopped(uint64_t r0, uint64_t status);
    [[gnu::noinline]] int call_other(uint64_t r1, uint64_t* r0);
    Error error; // of the last call that failed
    std::unique_ptr<RunScratch> scratch; // run(RunOptions)'s, made at its first use
};

Runner::Runner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
    if (impl_->fast) {
        // The same function type but for the run context's pointer type: the entry is generated code, called by
        // the System V convention with its two-word result in rax:rdx either way.
        static_assert(sizeof(Pair) == sizeof(exec::jit::x86_64::LeanResult) &&
                      offsetof(Pair, status) == offsetof(exec::jit::x86_64::LeanResult, status));
        fast_.entry = reinterpret_cast<decltype(fast_.entry)>(reinterpret_cast<uintptr_t>(impl_->lean));
        fast_.run = &impl_->ctx;
        fast_.stack_top = impl_->stack_top;
    }
    sync_fast();
}
Runner::Runner(Runner&& o) noexcept : fast_(o.fast_), impl_(std::move(o.impl_)) { o.fast_ = Fast{}; }
Runner& Runner::operator=(Runner&& o) noexcept {
    fast_ = o.fast_;
    impl_ = std::move(o.impl_);
    o.fast_ = Fast{};
    return *this;
}
Runner::~Runner() = default;

// The inline path sees the registered ctx only when the lean entry may run the program alone.
void Runner::sync_fast() {
    if (impl_ && impl_->fast) {
        fast_.ctx_data = impl_->reg_data;
        fast_.ctx_size = impl_->reg_size;
        fast_.r1 = impl_->reg_r1;
    } else {
        fast_.ctx_size = SIZE_MAX;
    }
}

Result<Runner> Runner::create(const ProgramRef& prog, uint32_t cpu) {
    const Object::Impl& o = impl(prog.obj_);
    const ProgramState& st = o.progs[prog.index_];
    STRBPF_TRY(runnable(o, st));
    auto r = std::make_unique<Impl>();
    r->obj = &o;
    r->st = &st;
    r->jit = st.jit.get();
    r->cpu = cpu % runtime::possible_cpus();
    r->wipe_frames = st.wipe_frames;
    if (r->jit && r->jit->lean() && !st.tail_calls) {
        r->lean = r->jit->lean_entry();
        r->stack_top = reinterpret_cast<uint64_t>(r->stack.bytes) + sizeof r->stack.bytes;
        r->fast = !st.wipe_frames;
    }
    const ProgType t = st.spec->type;
    const bool checked = st.engine == Engine::interp_checked;
    r->checked = checked;
    r->insns = exec::engine_insns(checked ? exec::EngineKind::interp_checked : exec::EngineKind::interp, *st.linked);
    const runtime::ExtProgType* ext = ext_type(o, st);
    r->ctx_perms = t == ProgType::syscall || (ext && ext->writable()) ? runtime::kPermRW : runtime::kPermRead;
    if (ext) { // exactly the type's ctx
        r->min_ctx = ext->ctx_size;
    } else if (exec::ctx_is_bytes(t) && (checked || st.linked->cache->min_ctx_offset >= 0)) {
        r->min_ctx = checked ? 0 : st.linked->cache->max_ctx_offset;
        r->ctx_span = SIZE_MAX - r->min_ctx;
        if (t == ProgType::raw_tracepoint) { // at most 12 u64 arguments
            r->ctx_span = r->min_ctx <= 96 ? 96 - r->min_ctx : 0;
            r->align_mask = r->min_ctx <= 96 ? 7 : ~size_t(0);
        }
    } else {
        r->min_ctx = 1;
        r->align_mask = ~size_t(0);
    }
    r->reset_context();
    return Runner(std::move(r));
}

// A ctx the fast path does not take: the reason, as check_ctx_size gives it or ours.
int Runner::Impl::refuse(size_t size) {
    const runtime::ExtProgType* ext = ext_type(*obj, *st);
    auto ok = exec::check_ctx_size(st->spec->type, size, *st->linked->cache);
    if (!ok && st->engine != Engine::interp_checked)
        error = ok.error();
    else
        error = make_error(fmt::format("program '{}': a {} program's context is not {} bytes (use run(RunOptions))",
                                       st->spec->name, ext ? ext->name.c_str() : loader::prog_type_name(st->spec->type),
                                       size),
                           -EINVAL);
    return error.code;
}

// The per-call path: the checks that keep the run inside its memory (the ctx is what the verifier saw: the
// program's type takes a bytes ctx of at least the size it reads), the ctx region, the engine. Nothing is built
// per call: the run context and stack are the runner's, the result is r0.
int Runner::call_checked(std::span<uint8_t> ctx_bytes, uint64_t* r0) {
    if (!impl_) [[unlikely]]
        return -EBADF; // a moved-from runner
    Impl& m = *impl_;
    const size_t size = ctx_bytes.size();
    if (size - m.min_ctx > m.ctx_span || (size & m.align_mask)) [[unlikely]]
        return m.refuse(size);
    m.set_ctx(ctx_bytes.data(), size);
    sync_fast(); // from now on, calls with this buffer take call()'s inline path (when it runs the program)
    const int err = m.call_other(m.reg_r1, r0);
    if (err) [[unlikely]]
        sync_fast(); // the run stopped: the context was reset
    return err;
}

int Runner::stopped(Pair p) {
    const int err = impl_->lean_stopped(p.r0, p.status);
    sync_fast();
    return err;
}

// The cold and the slower paths stay out of call(), so it keeps the lean entry's result in registers and saves
// few of its own: a stopped lean run (passed by value), and programs the lean entry does not run.
int Runner::Impl::lean_stopped(uint64_t r0, uint64_t status) {
    return stopped(jit->lean_failure(exec::jit::x86_64::LeanResult{r0, status}, ctx).error, -1);
}

int Runner::Impl::call_other(uint64_t r1, uint64_t* r0) {
    if (ctx.mem.local_count() != (reg_r1 ? 2 : 1)) // the previous run left regions behind
        replace_ctx(reg_data, reg_size);
    if (wipe_frames) // what the program may read of its stack before writing it
        wipe_stack(*st, stack);
    if (lean) {
        const exec::jit::x86_64::LeanResult res = lean(r1, 0, &ctx, stack_top);
        if (res.status == 0) [[likely]] {
            *r0 = res.r0;
            return 0;
        }
        return lean_stopped(res.r0, res.status);
    }
    if (jit) {
        exec::jit::JitResult j =
            st->tail_calls ? exec::jit::run_with_tail_calls(*jit, r1, ctx, stack) : jit->run(r1, ctx, stack);
        if (j.ok) [[likely]] {
            *r0 = j.r0;
            return 0;
        }
        return stopped(std::move(j.error), -1);
    }
    exec::interp::InterpResult r = exec::interp::run_validated(insns, r1, 0, ctx, stack, 0, checked,
                                                               checked ? nullptr : st->linked->cache->program.get());
    if (r.ok) [[likely]] {
        *r0 = r.r0;
        return 0;
    }
    return stopped(std::move(r.error), r.pc);
}

const Error& Runner::last_error() const {
    static const Error moved{-EBADF, "the runner was moved from", -1};
    return impl_ ? impl_->error : moved;
}

Status Runner::run(const RunOptions& opts, RunResult& out) {
    if (!impl_) [[unlikely]]
        return last_error();
    if (!impl_->scratch)
        impl_->scratch = std::make_unique<RunScratch>();
    Status r = full_run_on(*impl_->obj, *impl_->st, opts, impl_->stack, *impl_->scratch, out);
    if (!r)
        impl_->error = r.error();
    return r;
}

Result<RunResult> Runner::run(const RunOptions& opts) {
    RunResult out;
    STRBPF_TRY(run(opts, out));
    return out;
}

} // namespace strbpf
