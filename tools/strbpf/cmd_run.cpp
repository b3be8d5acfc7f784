// SPDX-License-Identifier: BSD-2-Clause
// `strbpf run`: load an object and test-run its programs on an engine, like bpftool's `prog run` (tools stage).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "verifier/verifier.hpp"
#include "cli.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"

namespace strbpf::cli {
namespace {

struct RunOptions {
    std::string btf; // --btf: the kernel BTF tracing and lsm programs are verified against
    std::string obj, prog, engine = "interp", ctx_in, ctx_hex, data_in, data_hex, data_out, ctx_out;
    uint32_t repeat = 1;
    bool json = false;
};

// Below this many repetitions a run is never split for the progress line.
constexpr uint32_t kProgressMinRepeat = 100000;

using RunFn = std::function<exec::RunReport(const exec::RunRequest&)>;

// What the duration measures: strbpf's engines and the kernel's ctx-only test runs (one bpf() call per repetition,
// looped in user space) are timed by strbpf on the wall clock; packet programs in the kernel report the kernel's
// own test-run timer (bpf_test_run's average over its repeat loop).
const char* timer_name(exec::EngineKind engine, loader::ProgType type) {
    if (engine != exec::EngineKind::kernel)
        return "wall clock";
    switch (type) {
    case loader::ProgType::xdp:
    case loader::ProgType::sched_cls:
    case loader::ProgType::sched_act:
    case loader::ProgType::socket_filter:
        return "kernel test-run timer";
    default:
        return "wall clock of one bpf() call per run";
    }
}

void print_report(const exec::RunReport& r, const RunOptions& o, const char* timer) {
    if (o.json) {
        nlohmann::ordered_json j;
        j["prog"] = r.prog;
        j["loaded"] = r.loaded;
        if (r.loaded && r.ran) {
            j["retval"] = r.retval;
            j["duration_ns"] = r.duration_ns;
            j["repeat"] = o.repeat;
            j["timer"] = timer;
            if (!r.data_out.empty())
                j["data_out"] = hex_string(r.data_out);
            if (!r.ctx_out.empty())
                j["ctx_out"] = hex_string(r.ctx_out);
        } else {
            j["error"] = r.error;
        }
        std::printf("%s\n", j.dump().c_str());
    } else if (!r.loaded) {
        std::printf("%s: load failed: %s\n", r.prog.c_str(), r.error.c_str());
    } else if (!r.ran) {
        std::printf("%s: run failed: %s\n", r.prog.c_str(), r.error.c_str());
    } else {
        std::printf("%s: Return value: %d (0x%x), duration (average of %u, %s): %lluns\n", r.prog.c_str(),
                    int32_t(r.retval), r.retval, o.repeat, timer, static_cast<unsigned long long>(r.duration_ns));
    }
    std::fflush(stdout);
}

// Runs `repeat` times; on a terminal, long runs go in 100 slices with a progress line on stderr (erased after).
exec::RunReport run_with_progress(const std::string& name, uint32_t repeat, exec::RunRequest req, const RunFn& fn) {
    if (repeat < kProgressMinRepeat || !isatty(STDERR_FILENO)) {
        req.repeat = repeat;
        return fn(req);
    }
    const uint32_t slice = repeat / 100;
    uint64_t total_ns = 0;
    uint32_t done = 0;
    exec::RunReport r;
    while (done < repeat) {
        req.repeat = std::min(slice, repeat - done);
        r = fn(req);
        if (!r.loaded || !r.ran)
            break;
        total_ns += r.duration_ns * req.repeat;
        done += req.repeat;
        std::fprintf(stderr, "\r%s: %u of %u runs (%u%%)", name.c_str(), done, repeat,
                     unsigned(uint64_t(done) * 100 / repeat));
    }
    std::fprintf(stderr, "\r\033[K");
    if (r.ran)
        r.duration_ns = total_ns / repeat;
    return r;
}

bool read_inputs(const RunOptions& o, exec::RunRequest* req) {
    auto input = [&](const std::string& file, const std::string& hex, std::vector<uint8_t>* out,
                     const char* what) -> bool {
        auto bytes = !file.empty() ? read_file(file) : parse_hex(hex);
        if (!bytes) {
            std::fprintf(stderr, "strbpf run: --%s: %s\n", what, bytes.error().message.c_str());
            return false;
        }
        *out = std::move(bytes).value();
        return true;
    };
    return input(o.ctx_in, o.ctx_hex, &req->ctx_in, "ctx") && input(o.data_in, o.data_hex, &req->data_in, "data");
}

bool write_output(const std::string& path, const std::vector<uint8_t>& bytes, const char* what) {
    if (path.empty())
        return true;
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (f.good())
        return true;
    std::fprintf(stderr, "strbpf run: --%s-out: cannot write '%s'\n", what, path.c_str());
    return false;
}

// The programs to run, in ELF order (libbpf's list for the kernel engine); empty after a printed usage error.
std::vector<std::string> select_programs(const RunOptions& o, exec::EngineKind engine, const loader::ObjectSpec& spec) {
    std::vector<std::string> progs;
    if (engine == exec::EngineKind::kernel) {
        std::string why;
        progs = exec::kernel::program_names(o.obj, &why);
        if (progs.empty())
            std::fprintf(stderr, "strbpf run: %s\n", why.c_str());
    } else {
        for (const auto& p : spec.programs)
            progs.push_back(p.name);
    }
    if (o.prog.empty() || progs.empty())
        return progs;
    if (std::find(progs.begin(), progs.end(), o.prog) == progs.end()) {
        std::string names;
        for (const auto& p : progs)
            names += (names.empty() ? "" : ", ") + p;
        std::fprintf(stderr, "strbpf run: no program '%s' in %s (its programs: %s)\n", o.prog.c_str(), o.obj.c_str(),
                     names.c_str());
        return {};
    }
    return {o.prog};
}

bool engine_ready(exec::EngineKind engine) {
    if (engine == exec::EngineKind::kernel) {
        if (auto st = exec::kernel::available(); !st) {
            std::fprintf(stderr, "strbpf run: %s\n", st.error().message.c_str());
            return false;
        }
        return true;
    }
    std::string why;
    if (!exec::engine_available(engine, &why)) {
        std::fprintf(stderr, "strbpf run: %s\n", why.c_str());
        return false;
    }
    return true;
}

// One program: loaded once (one instance, or one kernel load), then run.
exec::RunReport run_program(const RunOptions& o, exec::EngineKind engine,
                            const std::shared_ptr<const loader::ObjectSpec>& spec, const std::string& name,
                            const exec::RunRequest& req) {
    exec::RunReport failed;
    failed.prog = name;
    if (engine == exec::EngineKind::kernel) {
        std::shared_ptr<exec::kernel::KernelObject> ko = exec::kernel::KernelObject::load(o.obj, name);
        if (!ko->loaded()) {
            failed.error = ko->error();
            return failed;
        }
        return run_with_progress(name, o.repeat, req, [ko](const exec::RunRequest& r) { return ko->run(r); });
    }
    auto inst = runtime::ObjectInstance::create(spec);
    if (!inst) {
        failed.error = inst.error().message;
        return failed;
    }
    std::shared_ptr<const runtime::ObjectInstance> in = std::move(inst).value();
    const runtime::LinkedProgram* lp = in->find_program(name);
    if (!lp || !lp->linked) {
        failed.error = lp ? lp->link_error.message : "not linked";
        return failed;
    }
    return run_with_progress(name, o.repeat, req, [in, lp, engine](const exec::RunRequest& r) {
        return exec::run_linked(engine, *in, *lp, r);
    });
}

int run(const RunOptions& o) {
    if (!o.btf.empty())
        verifier::set_target_btf_path(o.btf);
    exec::EngineKind engine;
    if (!exec::parse_engine(o.engine, &engine)) {
        std::fprintf(stderr, "strbpf run: unknown engine '%s' (interp, jit, kernel or interp-checked)\n",
                     o.engine.c_str());
        return kExitUsage;
    }
    exec::RunRequest req;
    if (!read_inputs(o, &req))
        return kExitUsage;
    // strbpf's loader vets every object first: libbpf 1.1 is not robust against corrupt ELF files. Its messages
    // begin with the file's name.
    auto s = load_spec(o.obj);
    if (!s) {
        std::fprintf(stderr, "strbpf run: %s\n", s.error().message.c_str());
        return kExitUsage;
    }
    std::shared_ptr<const loader::ObjectSpec> spec = std::move(s).value();
    if (!engine_ready(engine))
        return kExitUsage;
    const std::vector<std::string> progs = select_programs(o, engine, *spec);
    if (progs.empty())
        return kExitUsage;
    int rc = kExitOk;
    for (const auto& name : progs) {
        exec::RunReport r = run_program(o, engine, spec, name, req);
        r.prog = name;
        const loader::ProgramSpec* ps = spec->find_program(name);
        print_report(r, o, timer_name(engine, ps ? ps->type : loader::ProgType::unspec));
        if (!r.loaded || !r.ran)
            rc = kExitFailed;
        else if (!write_output(o.data_out, r.data_out, "data") || !write_output(o.ctx_out, r.ctx_out, "ctx"))
            rc = kExitUsage;
    }
    return rc;
}

} // namespace

Runner add_run_command(CLI::App& app) {
    auto o = std::make_shared<RunOptions>();
    CLI::App* c = app.add_subcommand("run", "Test-run programs of an object (every program in ELF order, each on "
                                            "a fresh load, unless --prog)");
    c->add_option("OBJ", o->obj, "BPF ELF object (clang -target bpf)")->required()->check(CLI::ExistingFile);
    c->add_option("--btf", o->btf, "kernel BTF (vmlinux) that types tracing and lsm programs (default: "
                   "the running kernel's /sys/kernel/btf/vmlinux)")
        ->check(CLI::ExistingFile);
    c->add_option("--prog", o->prog, "run only this program");
    c->add_option("--engine", o->engine, "interp, jit, kernel, or interp-checked (no verifier, every access checked)")
        ->capture_default_str();
    auto* ci = c->add_option("--ctx-in", o->ctx_in, "file with the ctx bytes")->check(CLI::ExistingFile);
    auto* ch = c->add_option("--ctx-hex", o->ctx_hex, "ctx bytes as hex");
    ci->excludes(ch);
    auto* di = c->add_option("--data-in", o->data_in, "file with the packet bytes")->check(CLI::ExistingFile);
    auto* dh = c->add_option("--data-hex", o->data_hex, "packet bytes as hex");
    di->excludes(dh);
    c->add_option("--data-out", o->data_out, "write the packet after the run to this file (the last program's)");
    c->add_option("--ctx-out", o->ctx_out, "write the ctx after the run to this file (the last program's)");
    c->add_option("--repeat", o->repeat, "repetitions (duration is the average; a progress line on a terminal)")
        ->check(CLI::Range(1u, 100000000u))->capture_default_str();
    c->add_flag("--json", o->json, "one JSON object per program and line");
    return [o] { return run(*o); };
}

} // namespace strbpf::cli
