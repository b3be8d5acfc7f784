// SPDX-License-Identifier: BSD-2-Clause
// `strbpf bench`: the kernel's strncmp and string-kfunc benchmarks rebuilt on strbpf's engines, the live kernel
// and glibc, with every answer checked (tools stage). Prints one line per measurement like the kernel's bench,
// then ns-per-operation tables with the ratios; --json and --plot for machines and people.
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "bench_engines.hpp"
#include "bench_measure.hpp"
#include "bench_report.hpp"
#include "bench_scenarios.hpp"
#include "cli.hpp"
#include "exec/kernel/kernel_engine.hpp"

namespace strbpf::cli {
namespace {

using namespace strbpf::cli::bench;

// Defaults: a quick run (a few minutes for string-kfuncs) unless --full asks for the kernel bench's timings over
// every length and engine. Options given explicitly win over both.
struct BenchDefaults {
    const char* engines;
    const char* lengths;
    double warmup, duration;
};
constexpr BenchDefaults kQuick{"jit,kernel", "1,8,64,512,4095", 0.05, 0.25};
constexpr BenchDefaults kFull{"interp,jit,kernel", "1,8,32,64,128,512,2048,4095", 1, 5};

struct BenchOptions {
    std::string scenario, engines, lengths, plot, progs_dir, only;
    double warmup = -1, duration = -1; // < 0: the default of the quick or --full run
    uint32_t producers = 1, rounds = 1;
    bool json = false, quiet = false, no_native = false, full = false;
    void apply_defaults() {
        const BenchDefaults& d = full ? kFull : kQuick;
        if (engines.empty())
            engines = d.engines;
        if (lengths.empty())
            lengths = d.lengths;
        if (warmup < 0)
            warmup = d.warmup;
        if (duration < 0)
            duration = d.duration;
    }
};

// "1m05s", "42s": the progress line's estimate of the time left.
std::string eta_text(double s) {
    const long t = std::lround(std::max(0.0, s));
    return t >= 60 ? fmt::format("{}m{:02}s", t / 60, t % 60) : fmt::format("{}s", t);
}

// Where bench/progs/*.bpf.o are: beside an installed CLI (<prefix>/share/strbpf/bench), else where the build put
// them (without the build's definition: beside the executable's build tree).
std::string default_progs_dir() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    const std::string exe = n > 0 ? std::string(buf, size_t(n)) : ".";
    const std::string bin = exe.substr(0, exe.find_last_of('/'));
    if (access((bin + "/../share/strbpf/bench").c_str(), R_OK) == 0)
        return bin + "/../share/strbpf/bench";
#ifdef STRBPF_BENCH_PROGS_DIR
    return STRBPF_BENCH_PROGS_DIR;
#else
    return bin + "/../../bench/progs";
#endif
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

Result<std::vector<uint32_t>> parse_lengths(const std::string& s) {
    std::vector<uint32_t> out;
    for (const std::string& item : split(s)) {
        char* end = nullptr;
        const unsigned long v = std::strtoul(item.c_str(), &end, 10);
        if (*end || v < 1 || v > kMaxLen)
            return make_error(fmt::format("--lengths: '{}' is not a length in 1..{}", item, kMaxLen));
        out.push_back(uint32_t(v));
    }
    if (out.empty())
        return make_error("--lengths: no length given");
    return out;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

// The run: every (length, bench, engine, producers) measurement in turn, printed as it completes.
class BenchRun {
  public:
    BenchRun(const BenchOptions& o, const Scenario& sc) : o_(o), sc_(sc) {}
    int run();

  private:
    Status setup();
    void measure_one(const BenchDef& def, const std::string& engine, uint32_t len, const Prepared& p);
    Prepared prepare(const BenchDef& def, const std::string& engine, const std::shared_ptr<const Buffers>& bufs,
                     const std::vector<runtime::GlobalPatch>& globals);
    void note(const std::string& msg);
    void progress(const std::string& msg);
    void finish();
    void measure_all(uint32_t round, const VarOffsets& vars);
    std::vector<Measurement> merged_rounds() const;

    const BenchOptions& o_;
    const Scenario& sc_;
    std::vector<std::string> engines_;
    std::vector<uint32_t> lengths_;
    std::vector<const BenchDef*> benches_;
    std::string obj_path_;
    std::shared_ptr<const loader::ObjectSpec> spec_;
    std::vector<Measurement> results_;
    std::vector<std::string> notes_;
    std::set<std::string> noted_;
    bool failed_ = false, tty_ = false;
    size_t done_ = 0, total_ = 0, finished_ = 0; // started, planned and finished measurements
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

Status BenchRun::setup() {
    for (const std::string& e : split(o_.engines)) {
        exec::EngineKind k;
        if (!exec::parse_engine(e, &k))
            return make_error(fmt::format("--engine: unknown engine '{}' (interp, jit, kernel or interp-checked)", e));
        engines_.push_back(exec::engine_name(k));
    }
    if (sc_.len_var.empty()) {
        lengths_ = {0};
    } else {
        auto l = parse_lengths(o_.lengths);
        if (!l)
            return l.error();
        lengths_ = std::move(*l);
    }
    const std::vector<std::string> only = split(o_.only);
    for (const BenchDef& b : sc_.benches) {
        if (b.native() && o_.no_native)
            continue;
        bool keep = only.empty();
        for (const std::string& w : only)
            keep |= b.name == w || b.name.rfind(w + "-", 0) == 0;
        if (keep)
            benches_.push_back(&b);
    }
    if (benches_.empty())
        return make_error(fmt::format("--only '{}' selects no bench of {}", o_.only, sc_.name));
    const std::string dir = o_.progs_dir.empty() ? default_progs_dir() : o_.progs_dir;
    obj_path_ = dir + "/" + sc_.object;
    if (access(obj_path_.c_str(), R_OK) != 0)
        return make_error(fmt::format("cannot read {} (build the bench programs, or give --progs-dir)", obj_path_));
    auto spec = load_spec(obj_path_);
    if (!spec)
        return make_error(fmt::format("{}: {}", obj_path_, spec.error().message));
    spec_ = std::move(*spec);
    if (std::find(engines_.begin(), engines_.end(), "kernel") != engines_.end()) {
        if (auto st = exec::kernel::available(); !st) {
            note("kernel engine unavailable, its lines are left out: " + st.error().message);
            engines_.erase(std::find(engines_.begin(), engines_.end(), "kernel"));
        }
    }
    size_t per_len = 0;
    for (const BenchDef* b : benches_)
        per_len += b->native() ? 1 : engines_.size();
    total_ = per_len * lengths_.size() * (o_.producers > 1 ? 2 : 1) * o_.rounds;
    tty_ = !o_.quiet && isatty(STDERR_FILENO);
    return ok_status();
}

void BenchRun::note(const std::string& msg) {
    if (noted_.insert(msg).second)
        notes_.push_back(msg);
}

// The progress line, with the time left estimated from the measurements done so far.
void BenchRun::progress(const std::string& msg) {
    if (!tty_)
        return;
    std::string eta;
    if (!msg.empty() && finished_ > 0 && finished_ <= total_) {
        const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        eta = " · ETA " + eta_text(spent / double(finished_) * double(total_ - finished_));
    }
    std::fprintf(stderr, "\r\033[K%s%s", msg.c_str(), eta.c_str());
}

Prepared BenchRun::prepare(const BenchDef& def, const std::string& engine, const std::shared_ptr<const Buffers>& bufs,
                           const std::vector<runtime::GlobalPatch>& globals) {
    if (def.native())
        return prepare_native(def, bufs);
    const Expect expect = def.expect(bufs->len);
    exec::EngineKind k;
    exec::parse_engine(engine, &k);
    if (k == exec::EngineKind::kernel)
        return prepare_kernel(obj_path_, def.prog, globals, expect);
    return prepare_user(k, spec_, def.prog, globals, expect);
}

void BenchRun::measure_one(const BenchDef& def, const std::string& engine, uint32_t len, const Prepared& p) {
    std::vector<uint32_t> counts = {1};
    if (o_.producers > 1)
        counts.push_back(o_.producers);
    for (uint32_t n : counts) {
        struct Finished {
            size_t& count;
            ~Finished() { count++; }
        } finished{finished_};
        const std::string what = fmt::format("[{}/{}] {} len={} {}{}", ++done_, total_, def.name, len, engine,
                                             n > 1 ? fmt::format(" p={}", n) : "");
        if (!p.make) {
            if (p.skipped)
                note(fmt::format("{} on {}: {}", def.name, engine, p.why));
            else {
                failed_ = true;
                progress("");
                std::fprintf(stderr, "strbpf bench: %s len=%u %s: %s\n", def.name.c_str(), len, engine.c_str(),
                             p.why.c_str());
            }
            continue;
        }
        SampleOptions so{o_.warmup, o_.duration, n, std::max(0.01, p.min_batch_s)};
        auto st = sample(p.make, so, [&](const std::string& phase) { progress(what + ": " + phase); });
        progress("");
        if (!st && st.error().code == kLoadRejected) {
            note(fmt::format("{} len={} on {}: {}", def.name, len, engine, st.error().message));
            continue;
        }
        if (!st) {
            failed_ = true;
            std::fprintf(stderr, "strbpf bench: %s len=%u %s: %s\n", def.name.c_str(), len, engine.c_str(),
                         st.error().message.c_str());
            continue;
        }
        Measurement m{def.name, engine, len, n, st->hits_mps, st->hits_mps_stddev, st->samples,
                      st->hits_mps_best, st->hits_mps_median};
        results_.push_back(m);
        if (o_.rounds > 1) // the merged line comes after the last round
            continue;
        std::printf("%s\n", o_.json ? json_line(m).c_str() : text_line(m, o_.producers > 1).c_str());
        std::fflush(stdout);
    }
}

// One measurement per (bench, engine, length, producers) from o_.rounds rounds, in the order of the first round:
// the median of the rounds' means (a round that fell into a slow phase of a shared machine moves it little), the
// stddev of those means, the fastest sample of all and the median of the rounds' medians.
std::vector<Measurement> BenchRun::merged_rounds() const {
    std::vector<Measurement> out;
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        const size_t h = v.size() / 2;
        return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
    };
    for (const Measurement& first : results_) {
        const bool seen = std::any_of(out.begin(), out.end(), [&](const Measurement& m) {
            return m.bench == first.bench && m.engine == first.engine && m.len == first.len &&
                   m.producers == first.producers;
        });
        if (seen)
            continue;
        std::vector<double> means, medians;
        Measurement m = first;
        m.samples = 0;
        for (const Measurement& r : results_) {
            if (r.bench != first.bench || r.engine != first.engine || r.len != first.len ||
                r.producers != first.producers)
                continue;
            means.push_back(r.hits_mps);
            medians.push_back(r.hits_mps_median);
            m.hits_mps_best = std::max(m.hits_mps_best, r.hits_mps_best);
            m.samples += r.samples;
        }
        m.hits_mps = median(means);
        m.hits_mps_median = median(medians);
        double var = 0;
        for (double x : means)
            var += (x - m.hits_mps) * (x - m.hits_mps);
        m.hits_mps_stddev = means.size() > 1 ? std::sqrt(var / double(means.size() - 1)) : 0;
        m.rounds = uint32_t(means.size());
        out.push_back(m);
    }
    return out;
}

void BenchRun::finish() {
    if (o_.rounds > 1) {
        results_ = merged_rounds();
        for (const Measurement& m : results_)
            std::printf("%s\n", o_.json ? json_line(m).c_str() : text_line(m, o_.producers > 1).c_str());
    }
    std::vector<std::string> shown = engines_;
    if (!o_.json) {
        std::printf("%s", summary(sc_, results_, shown, lengths_).c_str());
        for (const std::string& n : notes_)
            std::printf("note: %s\n", n.c_str());
    } else {
        for (const std::string& n : notes_)
            std::fprintf(stderr, "note: %s\n", n.c_str());
    }
    if (!o_.plot.empty()) {
        struct utsname u {};
        uname(&u);
        const std::string sub = fmt::format("Linux {} · {} · warm-up {} s, {} s per measurement · every answer "
                                            "checked",
                                            u.release, cpu_model(), o_.warmup, o_.duration);
        std::ofstream out(o_.plot);
        out << svg_plot(sc_, results_, sub);
        if (!out) {
            std::fprintf(stderr, "strbpf bench: cannot write %s\n", o_.plot.c_str());
            failed_ = true;
        } else if (!o_.json) {
            std::printf("plot: %s\n", o_.plot.c_str());
        }
    }
}

// One round: every length, bench and engine in turn.
void BenchRun::measure_all(uint32_t round, const VarOffsets& vars) {
    const std::string r = o_.rounds > 1 ? fmt::format(" round {}/{}", round + 1, o_.rounds) : "";
    for (uint32_t len : lengths_) {
        auto bufs = std::make_shared<Buffers>();
        bufs->place(vars);
        sc_.fill(len, bufs.get());
        const std::vector<runtime::GlobalPatch> globals = global_patches(vars, *bufs);
        for (const BenchDef* def : benches_) {
            const std::vector<std::string> engines = def->native() ? std::vector<std::string>{"native"} : engines_;
            for (const std::string& engine : engines) {
                progress(fmt::format("[{}/{}]{} {} len={} {}: loading", done_ + 1, total_, r, def->name, len, engine));
                measure_one(*def, engine, len, prepare(*def, engine, bufs, globals));
            }
        }
    }
}

int BenchRun::run() {
    if (auto st = setup(); !st) {
        std::fprintf(stderr, "strbpf bench: %s\n", st.error().message.c_str());
        return kExitUsage;
    }
    if (!o_.plot.empty() && !std::ofstream(o_.plot, std::ios::app)) { // before minutes of measuring, not after
        std::fprintf(stderr, "strbpf bench: --plot: cannot write %s\n", o_.plot.c_str());
        return kExitUsage;
    }
    if (!o_.json)
        std::printf("# strbpf bench %s: engines %s; warm-up %g s, duration %g s; %u producer(s); answers checked\n",
                    sc_.name.c_str(), fmt::format("{}", fmt::join(engines_, ",")).c_str(), o_.warmup, o_.duration,
                    o_.producers);
    auto vars = var_offsets(sc_, obj_path_); // the same object for every length
    if (!vars) {
        std::fprintf(stderr, "strbpf bench: %s\n", vars.error().message.c_str());
        return kExitFailed;
    }
    for (uint32_t round = 0; round < o_.rounds; round++)
        measure_all(round, *vars);
    progress("");
    finish();
    return failed_ ? kExitFailed : kExitOk;
}

} // namespace

Runner add_bench_command(CLI::App& app) {
    auto o = std::make_shared<BenchOptions>();
    CLI::App* c = app.add_subcommand(
        "bench", "Benchmark the string helper and kfuncs on strbpf's engines, the live kernel and glibc, like the "
                 "kernel's bench (scenarios: strncmp, string-kfuncs, trigger)");
    std::vector<std::string> names;
    for (const Scenario& s : scenarios())
        names.push_back(s.name);
    c->add_option("SCENARIO", o->scenario, "strncmp, string-kfuncs or trigger")
        ->required()
        ->check(CLI::IsMember(names));
    c->add_option("--engine", o->engines,
                  fmt::format("comma-separated engines: interp, jit, kernel (default {}; --full: {})", kQuick.engines,
                              kFull.engines));
    c->add_option(
        "--lengths", o->lengths,
        fmt::format("comma-separated string lengths, 1..4095 (default {}; --full: {})", kQuick.lengths, kFull.lengths));
    c->add_option("-w,--warmup", o->warmup,
                  fmt::format("warm-up seconds per measurement (default {}; --full: {})", kQuick.warmup, kFull.warmup))
        ->check(CLI::Range(0.0, 600.0));
    c->add_option("-d,--duration", o->duration,
                  fmt::format("measured seconds per measurement (1 s samples; 5 samples when shorter than 5 s; "
                              "default {}; --full: {})",
                              kQuick.duration, kFull.duration))
        ->check(CLI::Range(0.05, 3600.0));
    c->add_flag("--full", o->full, "the long run: the kernel bench's timings on every engine and more lengths");
    c->add_option("-p,--producers", o->producers, "threads running the same loaded program (also measured with 1)")
        ->check(CLI::Range(1u, 64u))
        ->capture_default_str();
    c->add_option("--rounds", o->rounds,
                  "measure everything this many times, round after round, and report each measurement's median "
                  "round (and its fastest sample) once at the end")
        ->check(CLI::Range(1u, 100u))
        ->capture_default_str();
    c->add_option("--only", o->only, "comma-separated benches or families to run (e.g. strlen,strcmp-kfunc)");
    c->add_flag("--no-native", o->no_native, "leave out the glibc lines");
    c->add_flag("--json", o->json, "one JSON object per measurement and line (no table)");
    c->add_option("--plot", o->plot, "write an SVG plot of ns per operation against length (log-log)");
    c->add_option("--progs-dir", o->progs_dir, "directory of the bench's BPF objects (default: the build's)");
    c->add_flag("-q,--quiet", o->quiet, "no progress line on stderr");
    return [o] {
        o->apply_defaults();
        const Scenario* sc = find_scenario(o->scenario);
        BenchRun run(*o, *sc);
        return run.run();
    };
}

} // namespace strbpf::cli
