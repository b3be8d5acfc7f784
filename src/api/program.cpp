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

namespace strbpf {
namespace {

using loader::ProgType;

Object::Impl& impl(void* p) { return *static_cast<Object::Impl*>(p); }

// Whether a program may run: loaded by load(), and accepted unless its engine is the unverified one.
Status runnable(const Object::Impl& o, const ProgramState& st) {
    if (!st.loaded)
        return make_error(fmt::format("program '{}' of {} is not loaded", st.spec->name, o.name), -ENOENT);
    if (!st.accepted && st.engine != Engine::interp_checked)
        return make_error(fmt::format("program '{}': {}", st.spec->name, st.reason), -EACCES);
    return ok_status();
}

struct Once {
    bool ok;
    uint64_t r0;
    std::string error;
    int64_t pc;
};

Once run_once(const ProgramState& st, uint64_t r1, runtime::RunContext& ctx, runtime::StackArea& stack) {
    if (st.jit) {
        exec::jit::JitResult j = st.jit->run(r1, ctx, stack);
        return Once{j.ok, j.r0, std::move(j.error), -1};
    }
    const bool checked = st.engine == Engine::interp_checked;
    // The verified program names its source pcs and holds its arena's view (the ARENA_* forms need it).
    exec::interp::InterpResult r = exec::interp::run_validated(
        exec::engine_insns(checked ? exec::EngineKind::interp_checked : exec::EngineKind::interp, *st.linked), r1,
        0, ctx, stack, 0, checked, checked ? nullptr : st.linked->cache->program.get());
    return Once{r.ok, r.r0, std::move(r.error), r.pc};
}

const runtime::ExtProgType* ext_type(const Object::Impl& o, const ProgramState& st) {
    return o.ext ? o.ext->prog_type(st.spec->type) : nullptr;
}

// An embedder's program type's ctx: exactly its ctx_size bytes, registered writable when a field is; no packet.
Status ext_ctx(const runtime::ExtProgType& t, const RunOptions& opts, std::vector<uint8_t>* buf,
               runtime::RunContext& ctx, uint64_t* r1) {
    if (opts.ctx.size() != t.ctx_size || !opts.data.empty())
        return make_error(fmt::format("a {} program's ctx is {} bytes and it has no packet (got {} and {})", t.name,
                                      t.ctx_size, opts.ctx.size(), opts.data.size()),
                          -EINVAL);
    buf->assign(opts.ctx.begin(), opts.ctx.end());
    *r1 = reinterpret_cast<uint64_t>(buf->data());
    ctx.mem.add_local(runtime::Region{*r1, buf->size(), t.writable() ? runtime::kPermRW : runtime::kPermRead,
                                      runtime::RegionKind::ctx, "ctx"});
    return ok_status();
}

} // namespace

// What a full test run builds, kept from run to run (ProgramRef::run: one per thread; a Runner: its own): the run
// context is reset and the test-run context rebuilt in place, so once their buffers have grown a run allocates
// only its result.
struct RunScratch {
    runtime::RunContext ctx;
    exec::TestRunContext trc;
    exec::RunRequest req;
    std::vector<uint8_t> ext_buf;
    bool busy = false; // a run on this thread is using it (an embedder's helper may run a program itself)
};

namespace {

// The run context for one full run of ST: the instance's memory, the stack, cpu, trace stream, verified flag.
void reset_run_context(runtime::RunContext& ctx, const Object::Impl& o, const ProgramState& st,
                       const RunOptions& opts, runtime::StackArea& stack) {
    runtime::prepare_run_context(ctx, o.inst.get(), &stack);
    ctx.cpu = opts.cpu % runtime::possible_cpus();
    ctx.trace_out = opts.trace;
    ctx.verified = st.engine != Engine::interp_checked;
    ctx.ctx_model = 0;
    ctx.tail_call_cnt = 0;
}

// The whole test run, as BPF_PROG_TEST_RUN: context per program type, `repeat` runs, outputs.
Result<RunResult> full_run(const Object::Impl& o, const ProgramState& st, const RunOptions& opts,
                           runtime::StackArea& stack, RunScratch& s) {
    STRBPF_TRY(runnable(o, st));
    const runtime::ExtProgType* ext = ext_type(o, st);
    if (st.engine != Engine::interp_checked && !ext)
        STRBPF_TRY(exec::check_ctx_size(st.spec->type, opts.ctx.size(), *st.linked->cache));
    runtime::RunContext& ctx = s.ctx;
    reset_run_context(ctx, o, st, opts, stack);
    uint64_t r1 = 0;
    if (ext) {
        STRBPF_TRY(ext_ctx(*ext, opts, &s.ext_buf, ctx, &r1));
    } else {
        s.req.ctx_in.assign(opts.ctx.begin(), opts.ctx.end());
        s.req.data_in.assign(opts.data.begin(), opts.data.end());
        if (auto b = s.trc.build(st.spec->type, s.req, ctx, &r1); !b)
            return make_error(b.error().message, -EINVAL);
    }
    const uint32_t repeat = opts.repeat == 0 ? 1 : opts.repeat;
    Once last{true, 0, {}, -1};
    std::chrono::steady_clock::time_point t0, t1;
    if (opts.timed)
        t0 = std::chrono::steady_clock::now();
    for (uint32_t i = 0; i < repeat && last.ok; i++) {
        wipe_stack(st, stack);
        last = run_once(st, r1, ctx, stack);
    }
    if (opts.timed)
        t1 = std::chrono::steady_clock::now();
    if (!last.ok)
        return make_error(fmt::format("program '{}': {}", st.spec->name, last.error), -EINVAL, last.pc);
    RunResult out;
    out.r0 = last.r0;
    out.retval = uint32_t(last.r0);
    if (opts.timed)
        out.duration_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) / repeat;
    if (ext) {
        out.ctx_out = s.ext_buf;
        return out;
    }
    exec::RunReport rep;
    s.trc.finish(&rep);
    out.data_out = std::move(rep.data_out);
    out.ctx_out = std::move(rep.ctx_out);
    return out;
}

// full_run on SCRATCH, or on a scratch of its own when SCRATCH is in use (a run started inside a run).
Result<RunResult> full_run_on(const Object::Impl& o, const ProgramState& st, const RunOptions& opts,
                              runtime::StackArea& stack, RunScratch& scratch) {
    if (scratch.busy) [[unlikely]] {
        auto own = std::make_unique<RunScratch>();
        auto own_stack = std::make_unique<runtime::StackArea>();
        return full_run(o, st, opts, *own_stack, *own);
    }
    scratch.busy = true;
    auto r = full_run(o, st, opts, stack, scratch);
    scratch.busy = false;
    return r;
}

bool ctx_is_bytes(ProgType t) {
    return t == ProgType::syscall || t == ProgType::raw_tracepoint || t == ProgType::tracepoint ||
           t == ProgType::kprobe;
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

Result<RunResult> ProgramRef::run(const RunOptions& opts) const {
    thread_local runtime::StackArea stack; // one per thread: runs on several threads never share them
    thread_local RunScratch scratch;
    return full_run_on(impl(obj_), state(obj_, index_), opts, stack, scratch);
}

// ---- Runner -----------------------------------------------------------------------------------------------------

struct Runner::Impl {
    // What every call reads, together at the start of the runner: the inline path's (the lean entry when there
    // is no stack to zero first, the ctx region registered now: local region 1, none for base 0) and
    // call_checked()'s ctx sizes, as one unsigned compare and one mask: min_ctx <= size <= min_ctx + ctx_span and
    // size & align_mask == 0. A type whose ctx is not the caller's bytes takes none (min 1, span 0, mask ~0).
    Fast fast;
    size_t min_ctx = 0, ctx_span = 0, align_mask = 0;
    // The rest: the program, its engine, the run's context and stack.
    exec::jit::x86_64::LeanFn lean = nullptr; // the JIT's lean entry (one function, no callbacks), else nullptr
    uint64_t stack_top = 0;                   // r10 of a lean run
    uint32_t wipe_frames = 0;                 // ProgramState::wipe_frames (0: nothing to zero)
    const Object::Impl* obj = nullptr;
    const ProgramState* st = nullptr;
    const exec::jit::CompiledProgram* jit = nullptr;
    std::span<const isa::Insn> insns;         // without the JIT: what the interpreter runs, found once
    bool checked = false;                     // ... on interp_checked
    runtime::RunContext ctx;
    runtime::StackArea stack;
    uint32_t cpu = 0;
    uint8_t ctx_perms = 0;         // read-write for syscall programs (and writable embedder types), else read-only

    // Registers the caller's ctx as local region 1, unless it is the one registered already, so calls with the
    // same buffer write nothing. A lean run leaves the regions as it found them (no callbacks; the types a Runner
    // takes have no helper that adds one); the other engines' runs may not (interp_checked registers what the
    // embedder's kfuncs return), so before them the count is checked too (call_other).
    void set_ctx(uint64_t base, uint64_t size) {
        if (base == fast.ctx_base && size == fast.ctx_size) [[likely]]
            return;
        replace_ctx(base, size);
    }
    [[gnu::noinline]] void replace_ctx(uint64_t base, uint64_t size) {
        ctx.mem.drop_local_from(1); // keep the stack, replace the ctx
        if (base)
            ctx.mem.add_local(runtime::Region{base, size, ctx_perms, runtime::RegionKind::ctx, "ctx"});
        fast.ctx_base = base;
        fast.ctx_size = size;
    }

    void reset_context() {
        fast.ctx_base = 0;
        fast.ctx_size = ~uint64_t(0); // matches no span: the next call registers its ctx after checking it
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

Runner::Runner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)), fast_(&impl_->fast) {}
Runner::Runner(Runner&& o) noexcept : impl_(std::move(o.impl_)), fast_(o.fast_) { o.fast_ = nullptr; }
Runner& Runner::operator=(Runner&& o) noexcept {
    impl_ = std::move(o.impl_);
    fast_ = o.fast_;
    o.fast_ = nullptr;
    return *this;
}
Runner::~Runner() = default;

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
    if (r->jit && r->jit->lean()) {
        r->lean = r->jit->lean_entry();
        r->stack_top = reinterpret_cast<uint64_t>(r->stack.bytes) + sizeof r->stack.bytes;
        // The same function type but for the run context's pointer type: the entry is generated code, called by
        // the System V convention with its two-word result in rax:rdx either way.
        static_assert(sizeof(Pair) == sizeof(exec::jit::x86_64::LeanResult) &&
                      offsetof(Pair, status) == offsetof(exec::jit::x86_64::LeanResult, status));
        if (!st.wipe_frames)
            r->fast.entry = reinterpret_cast<Pair (*)(uint64_t, uint64_t, void*, uint64_t)>(
                reinterpret_cast<uintptr_t>(r->lean));
        r->fast.stack_top = r->stack_top;
        r->fast.run = &r->ctx;
    }
    const ProgType t = st.spec->type;
    const bool checked = st.engine == Engine::interp_checked;
    r->checked = checked;
    r->insns = exec::engine_insns(checked ? exec::EngineKind::interp_checked : exec::EngineKind::interp, *st.linked);
    const runtime::ExtProgType* ext = ext_type(o, st);
    r->ctx_perms = t == ProgType::syscall || (ext && ext->writable()) ? runtime::kPermRW : runtime::kPermRead;
    if (ext) { // exactly the type's ctx
        r->min_ctx = ext->ctx_size;
    } else if (ctx_is_bytes(t) && (checked || st.linked->cache->min_ctx_offset >= 0)) {
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
    Impl& m = *impl_;
    const size_t size = ctx_bytes.size();
    if (size - m.min_ctx > m.ctx_span || (size & m.align_mask)) [[unlikely]]
        return m.refuse(size);
    const uint64_t r1 = size == 0 ? 0 : reinterpret_cast<uint64_t>(ctx_bytes.data());
    m.set_ctx(r1, size); // from now on, calls with this buffer take call()'s inline path
    return m.call_other(r1, r0);
}

int Runner::stopped(Pair p) { return impl_->lean_stopped(p.r0, p.status); }

// The cold and the slower paths stay out of call(), so it keeps the lean entry's result in registers and saves
// few of its own: a stopped lean run (passed by value), and programs the lean entry does not run.
int Runner::Impl::lean_stopped(uint64_t r0, uint64_t status) {
    return stopped(jit->lean_failure(exec::jit::x86_64::LeanResult{r0, status}, ctx).error, -1);
}

int Runner::Impl::call_other(uint64_t r1, uint64_t* r0) {
    if (ctx.mem.local_count() != (fast.ctx_base ? 2 : 1)) // the previous run left regions behind
        replace_ctx(fast.ctx_base, fast.ctx_size);
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
        exec::jit::JitResult j = jit->run(r1, ctx, stack);
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

const Error& Runner::last_error() const { return impl_->error; }

Result<RunResult> Runner::run(const RunOptions& opts) {
    if (!impl_->scratch)
        impl_->scratch = std::make_unique<RunScratch>();
    auto r = full_run_on(*impl_->obj, *impl_->st, opts, impl_->stack, *impl_->scratch);
    impl_->reset_context();
    if (!r)
        impl_->error = r.error();
    return r;
}

} // namespace strbpf
