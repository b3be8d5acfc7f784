// SPDX-License-Identifier: BSD-2-Clause
// The producers of `strbpf bench` (tools stage): every batch's answer is checked against the scenario's Expect.
#include "bench_engines.hpp"

#include <time.h>

#include <cstring>

#include <fmt/format.h>

#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "runtime/instance.hpp"

namespace strbpf::cli::bench {
namespace {

constexpr size_t kPacket = 64; // the packet every XDP run gets (the kernel test_loader's default size)

// The calling thread's CPU time. Like the kernel's bpf_test_timer, which stops while the task is rescheduled,
// it leaves out time the thread spent descheduled, so a shared machine's other load does not read as slowness
// (and N producers on N free CPUs measure what each of them does).
double thread_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

// The answer of one run: the program's int at the start of the packet (or its return value for retval_only).
Status check_report(const exec::RunReport& rep, const Expect& expect) {
    if (!rep.loaded)
        return make_error(fmt::format("{}: load failed: {}", rep.prog, rep.error), kLoadRejected);
    if (!rep.ran)
        return make_error(fmt::format("{}: run failed: {}", rep.prog, rep.error));
    if (expect.retval_only) {
        if (!expect.matches(int(rep.retval)))
            return make_error(fmt::format("{}: wrong answer: retval {}, expected {}", rep.prog, rep.retval,
                                          expect.describe()));
        return ok_status();
    }
    if (rep.retval != 2 || rep.data_out.size() < sizeof(int))
        return make_error(fmt::format("{}: wrong answer: retval {} (expected XDP_PASS with the answer in the packet)",
                                      rep.prog, rep.retval));
    int got;
    std::memcpy(&got, rep.data_out.data(), sizeof got);
    if (!expect.matches(got))
        return make_error(fmt::format("{}: wrong answer: {}, expected {}", rep.prog, got, expect.describe()));
    return ok_status();
}

exec::RunRequest packet_request() {
    exec::RunRequest req;
    req.data_in.assign(kPacket, 0);
    return req;
}

class UserProducer : public Producer {
  public:
    UserProducer(exec::EngineKind engine, std::shared_ptr<const runtime::ObjectInstance> inst,
                 const runtime::LinkedProgram* prog, Expect expect)
        : engine_(engine), inst_(std::move(inst)), prog_(prog), expect_(expect), req_(packet_request()) {}

    Result<double> run_batch(uint32_t repeat) override {
        req_.repeat = repeat;
        const double t0 = thread_ns();
        exec::RunReport rep = exec::run_linked(engine_, *inst_, *prog_, req_);
        const double ns = thread_ns() - t0;
        STRBPF_TRY(check_report(rep, expect_));
        return ns;
    }

  private:
    exec::EngineKind engine_;
    std::shared_ptr<const runtime::ObjectInstance> inst_;
    const runtime::LinkedProgram* prog_;
    Expect expect_;
    exec::RunRequest req_;
};

class KernelProducer : public Producer {
  public:
    KernelProducer(std::shared_ptr<exec::kernel::KernelObject> ko, std::vector<runtime::GlobalPatch> globals,
                   Expect expect)
        : ko_(std::move(ko)), expect_(expect), req_(packet_request()) {
        req_.globals = std::move(globals); // the same as at load: run() then changes nothing
    }

    // The kernel's duration is its own average per run (whole ns, truncated), measured around its repeat loop.
    Result<double> run_batch(uint32_t repeat) override {
        req_.repeat = repeat;
        exec::RunReport rep = ko_->run(req_);
        STRBPF_TRY(check_report(rep, expect_));
        return double(rep.duration_ns) * double(repeat);
    }

  private:
    std::shared_ptr<exec::kernel::KernelObject> ko_;
    Expect expect_;
    exec::RunRequest req_;
};

class NativeProducer : public Producer {
  public:
    NativeProducer(const BenchDef& def, std::shared_ptr<const Buffers> bufs)
        : loop_(def.native_loop), bufs_(std::move(bufs)), expect_(def.expect(bufs_->len)), name_(def.name) {}

    Result<double> run_batch(uint32_t repeat) override {
        const double t0 = thread_ns();
        const int got = loop_(*bufs_, repeat);
        const double ns = thread_ns() - t0;
        if (!expect_.matches(got))
            return make_error(fmt::format("{}: wrong answer: {}, expected {}", name_, got, expect_.describe()));
        return ns;
    }

  private:
    int (*loop_)(const Buffers&, uint32_t);
    std::shared_ptr<const Buffers> bufs_;
    Expect expect_;
    std::string name_;
};

} // namespace

Prepared prepare_user(exec::EngineKind engine, std::shared_ptr<const loader::ObjectSpec> spec,
                      const std::string& prog, const std::vector<runtime::GlobalPatch>& globals, Expect expect) {
    Prepared p;
    std::string why;
    if (!exec::engine_available(engine, &why)) {
        p.skipped = true;
        p.why = fmt::format("engine {} is not available: {}", exec::engine_name(engine), why);
        return p;
    }
    auto inst = runtime::ObjectInstance::create(std::move(spec), globals);
    if (!inst) {
        p.why = fmt::format("{}: {}", prog, inst.error().message);
        return p;
    }
    std::shared_ptr<const runtime::ObjectInstance> shared = std::move(*inst);
    const runtime::LinkedProgram* lp = shared->find_program(prog);
    if (!lp) {
        p.why = fmt::format("no program '{}' in {}", prog, shared->spec().path);
        return p;
    }
    if (!lp->linked) {
        p.why = fmt::format("{}: {}", prog, lp->link_error.message);
        return p;
    }
    p.make = [engine, shared, lp, expect]() -> Result<std::unique_ptr<Producer>> {
        return std::unique_ptr<Producer>(new UserProducer(engine, shared, lp, expect));
    };
    return p;
}

Prepared prepare_kernel(const std::string& path, const std::string& prog,
                        const std::vector<runtime::GlobalPatch>& globals, Expect expect) {
    Prepared p;
    if (auto st = exec::kernel::available(); !st) {
        p.skipped = true;
        p.why = st.error().message;
        return p;
    }
    std::shared_ptr<exec::kernel::KernelObject> ko = exec::kernel::KernelObject::load(path, prog, globals);
    if (!ko->loaded()) {
        p.skipped = true; // a missing kfunc or a verifier rejection: a note, no answer was given
        p.why = fmt::format("{}: {}", prog, ko->error());
        return p;
    }
    p.min_batch_s = 0.05; // each BPF_PROG_TEST_RUN of an XDP program swaps the dispatcher (~30 ms of RCU)
    p.make = [ko, globals, expect]() -> Result<std::unique_ptr<Producer>> {
        return std::unique_ptr<Producer>(new KernelProducer(ko, globals, expect));
    };
    return p;
}

Prepared prepare_native(const BenchDef& def, std::shared_ptr<const Buffers> bufs) {
    Prepared p;
    p.make = [def, bufs]() -> Result<std::unique_ptr<Producer>> {
        return std::unique_ptr<Producer>(new NativeProducer(def, bufs));
    };
    return p;
}

} // namespace strbpf::cli::bench
