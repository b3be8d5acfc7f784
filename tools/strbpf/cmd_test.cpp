// SPDX-License-Identifier: BSD-2-Clause
// `strbpf test`: runs BPF objects annotated with the kernel test_loader's tags (__success, __failure, __msg,
// __retval, __flag, ...) on every engine, test_loader's way (test_runner), and reports each subtest per engine
// (test_report) in program order, with -j N programs at a time (tools stage).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "verifier/verifier.hpp"
#include "cli.hpp"
#include "global_set.hpp"
#include "map_input.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "test_report.hpp"
#include "test_runner.hpp"

namespace strbpf::cli {
namespace {

struct TestOptions {
    std::vector<std::string> objs;
    std::vector<std::string> engines;
    std::vector<std::string> sets, map_ins;
    std::string filter;
    bool verbose = false;
    bool json = false;
    bool tagged_only = false;
    int jobs = 1;
};

// Engines by name; the default set drops the ones this machine lacks (the kernel without bpf()) with a note.
// Returns false (usage error) for an unknown or unavailable engine asked for by name.
bool select_engines(const TestOptions& o, std::vector<exec::EngineKind>* engines) {
    std::vector<std::string> names = o.engines;
    const bool defaulted = names.empty();
    if (defaulted)
        names = {"interp", "jit", "kernel"}; // interp-checked only on request: it has no verifier
    for (const auto& n : names) {
        exec::EngineKind k;
        if (!exec::parse_engine(n, &k)) {
            std::fprintf(stderr, "strbpf test: unknown engine '%s' (interp, jit, kernel or interp-checked)\n",
                         n.c_str());
            return false;
        }
        std::string why;
        if (k == exec::EngineKind::kernel) {
            if (auto st = exec::kernel::available(); !st) {
                std::fprintf(o.json ? stderr : stdout, "NOTE  kernel engine unavailable, its tests are skipped: %s\n",
                             st.error().message.c_str());
                if (!defaulted)
                    return false;
                continue;
            }
        } else if (!exec::engine_available(k, &why)) {
            if (!defaulted) {
                std::fprintf(stderr, "strbpf test: %s\n", why.c_str());
                return false;
            }
            continue;
        }
        engines->push_back(k);
    }
    return true;
}

std::string object_name(const std::string& path) {
    std::string name = path.substr(path.find_last_of('/') + 1);
    for (const char* ext : {".bpf.o", ".o"}) {
        if (name.size() > std::string(ext).size() && name.ends_with(ext)) {
            name.resize(name.size() - std::string(ext).size());
            break;
        }
    }
    return name;
}

// One unit of work: a program of an object (all its variants and engines).
struct Job {
    const TestObject* obj;
    size_t spec;
};

bool selected(const exec::TestSpec& s, const std::string& filter, bool tagged_only) {
    if (tagged_only && !s.tagged)
        return false;
    return filter.empty() || s.prog.find(filter) != std::string::npos ||
           s.priv.name.find(filter) != std::string::npos;
}

// Runs JOBS on N threads; EMIT sees each job's results in job order as soon as they and all before them are done.
template <typename Emit>
void run_jobs(const std::vector<Job>& jobs, int n, const RunnerOptions& ro, Emit emit) {
    std::vector<std::vector<TestResult>> results(jobs.size());
    std::vector<char> done(jobs.size(), 0);
    std::mutex mu;
    std::condition_variable cv;
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
            std::vector<TestResult> r = run_program_tests(*jobs[i].obj, jobs[i].spec, ro);
            std::lock_guard<std::mutex> lock(mu);
            results[i] = std::move(r);
            done[i] = 1;
            cv.notify_all();
        }
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < n; t++)
        threads.emplace_back(worker);
    if (n <= 1) {
        worker();
    }
    for (size_t i = 0; i < jobs.size(); i++) {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return done[i] != 0; });
        std::vector<TestResult> r = std::move(results[i]);
        lock.unlock();
        for (const TestResult& t : r)
            emit(t);
    }
    for (auto& t : threads)
        t.join();
}

int run(const TestOptions& o) {
    RunnerOptions ro;
    if (!select_engines(o, &ro.engines))
        return kExitUsage;
    ro.min_log_level = o.verbose ? 1 : 0;
    if (o.jobs < 1) {
        std::fprintf(stderr, "strbpf test: -j needs a positive number\n");
        return kExitUsage;
    }

    auto read = read_map_inputs(o.map_ins);
    if (!read) {
        std::fprintf(stderr, "strbpf test: %s\n", read.error().message.c_str());
        return kExitUsage;
    }
    const std::vector<MapInput> maps = std::move(read).value();
    bool io_error = false;
    std::vector<std::unique_ptr<TestObject>> objects;
    for (const auto& path : o.objs) {
        auto specs = exec::parse_test_specs(path);
        if (!specs) {
            std::fprintf(stderr, "strbpf test: %s\n", specs.error().message.c_str()); // it names the file
            io_error = true;
            continue;
        }
        auto obj = std::make_unique<TestObject>();
        obj->path = path;
        obj->name = object_name(path);
        obj->specs = std::move(specs).value();
        // A refusal by strbpf's loader does not end the object: each program reports it, the kernel still runs.
        if (auto loaded = load_spec(path))
            obj->spec = std::move(loaded).value();
        else
            obj->load_error = loaded.error().message;
        if (!o.sets.empty()) { // --set: every test of the object loads with these globals
            auto g = obj->spec ? global_patches(path, *obj->spec, o.sets) : make_error(obj->load_error);
            if (!g) {
                std::fprintf(stderr, "strbpf test: %s\n", g.error().message.c_str());
                return kExitUsage;
            }
            obj->globals = std::move(g).value();
        }
        obj->maps = maps;
        objects.push_back(std::move(obj));
    }
    std::vector<Job> jobs;
    for (const auto& obj : objects)
        for (size_t i = 0; i < obj->specs.size(); i++)
            if (selected(obj->specs[i], o.filter, o.tagged_only))
                jobs.push_back(Job{obj.get(), i});

    Totals t;
    run_jobs(jobs, o.jobs, ro, [&](const TestResult& r) {
        t.add(r);
        if (o.json)
            std::printf("%s\n", json_line(r, o.verbose).c_str());
        else
            print_human(stdout, r, o.verbose);
        std::fflush(stdout);
    });
    // With --json stdout holds only the records; the closing line goes to stderr.
    std::fprintf(o.json ? stderr : stdout, "%s\n", t.line().c_str());
    if (io_error)
        return kExitUsage;
    return t.failed ? kExitFailed : kExitOk;
}

} // namespace

Runner add_test_command(CLI::App& app) {
    auto o = std::make_shared<TestOptions>();
    CLI::App* c = app.add_subcommand("test", "Run BPF objects annotated with the kernel selftests' test_loader tags "
                                             "(__success, __failure, __msg, __retval, __flag, ...) on every engine");
    c->add_option("OBJ", o->objs, "BPF ELF objects")->required()->check(CLI::ExistingFile);
    // One value per --engine (repeatable, comma-separated), so that OBJs may follow it.
    c->add_option("--engine", o->engines, "engines, comma-separated (default: interp, jit and kernel if available)")
        ->delimiter(',')
        ->allow_extra_args(false);
    c->add_option("--filter", o->filter, "only programs whose name or test name contains this");
    c->add_option("-j,--jobs", o->jobs, "programs run in parallel (output stays in program order)");
    c->add_flag("--tagged-only", o->tagged_only,
                "test only programs with at least one test tag (test_loader tests untagged ones as __success)");
    c->add_flag("--json", o->json, "JSON Lines: one object per test, variant and engine (closing line on stderr)");
    c->add_option("--set", o->sets, "set a global variable of every OBJ before each test loads: VAR=VALUE, "
                                    "VAR.member=VALUE, VAR[i]=VALUE (repeatable)")
        ->allow_extra_args(false);
    c->add_option("--map-in", o->map_ins, "fill map MAP of every OBJ from FILE after each test loads, before its run "
                                          "(JSON as `map dump --json` writes it; repeatable)")
        ->allow_extra_args(false);
    c->add_flag("-v,--verbose", o->verbose,
                "print the verifier log of failures; loads at log level 1 at least, as test_progs -v does");
    return [o] { return run(*o); };
}

} // namespace strbpf::cli
