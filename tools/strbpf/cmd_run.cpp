// SPDX-License-Identifier: BSD-2-Clause
// `strbpf run`: load an object and test-run its programs on an engine, like bpftool's `prog run` (tools stage).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "verifier/verifier.hpp"
#include "cli.hpp"
#include "global_set.hpp"
#include "map_input.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"

namespace strbpf::cli {
namespace {

struct RunOptions {
    std::string obj, prog, engine = "interp", ctx_in, ctx_hex, data_in, data_dir, data_out, ctx_out;
    std::vector<std::string> data_hex, sets, map_ins;
    uint32_t repeat = 1;
    uint32_t test_flags = 0;
    int64_t cpu = -1; // --cpu: BPF_F_TEST_RUN_ON_CPU with this CPU
    uint64_t cookie = 0; // --cookie: the BPF cookie of the link a tracing run attaches with
    bool json = false;
};

// One packet of the run: its bytes and where they came from (for the report when there are several).
struct Packet {
    std::string source;
    std::vector<uint8_t> bytes;
};

// Below this many repetitions a run is never split for the progress line.
constexpr uint32_t kProgressMinRepeat = 100000;

using RunFn = std::function<exec::RunReport(const exec::RunRequest&)>;

// What the duration measures: strbpf's engines and the kernel's ctx-only test runs (one bpf() call per repetition,
// looped in user space) are timed by strbpf on the wall clock; packet programs in the kernel report the kernel's
// own test-run timer (bpf_test_run's average over its repeat loop).
const char* timer_name(exec::EngineKind engine, loader::ProgType type) {
    if (type == loader::ProgType::tracing) // bpf_prog_test_run_tracing reports the retval only
        return "none: tracing test runs report no duration";
    if (type == loader::ProgType::struct_ops) // so does bpf_struct_ops_test_run
        return "none: struct_ops test runs report no duration";
    if (engine != exec::EngineKind::kernel)
        return "wall clock";
    switch (type) {
    case loader::ProgType::xdp:
    case loader::ProgType::sched_cls:
    case loader::ProgType::sched_act:
    case loader::ProgType::socket_filter:
    case loader::ProgType::cgroup_skb:
    case loader::ProgType::lwt_in:
    case loader::ProgType::lwt_out:
    case loader::ProgType::lwt_xmit:
        return "kernel test-run timer";
    default:
        return "wall clock of one bpf() call per run";
    }
}

// `label` names the packet when the run has several ("" otherwise).
void print_report(const exec::RunReport& r, const RunOptions& o, const char* timer, const std::string& label,
                  size_t packet) {
    const std::string name = label.empty() ? r.prog : fmt::format("{} [{}]", r.prog, label);
    if (o.json) {
        nlohmann::ordered_json j;
        j["prog"] = r.prog;
        if (!label.empty()) {
            j["packet"] = packet;
            j["input"] = label;
        }
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
        std::printf("%s: load failed: %s\n", name.c_str(), r.error.c_str());
    } else if (!r.ran) {
        std::printf("%s: run failed: %s\n", name.c_str(), r.error.c_str());
    } else {
        std::printf("%s: Return value: %d (0x%x), duration (average of %u, %s): %lluns\n", name.c_str(),
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

// The ctx and the packets: --data-in, each --data-hex, then --data-dir's regular files by name; none: one run
// without data (packet programs get the 64 zero bytes every engine gives them).
bool read_inputs(const RunOptions& o, exec::RunRequest* req, std::vector<Packet>* packets) {
    auto fail = [](const char* what, const std::string& msg) {
        std::fprintf(stderr, "strbpf run: --%s: %s\n", what, msg.c_str());
        return false;
    };
    auto ctx = !o.ctx_in.empty() ? read_file(o.ctx_in) : parse_hex(o.ctx_hex);
    if (!ctx)
        return fail("ctx", ctx.error().message);
    req->ctx_in = std::move(ctx).value();
    if (!o.data_in.empty()) {
        auto b = read_file(o.data_in);
        if (!b)
            return fail("data-in", b.error().message);
        packets->push_back({o.data_in, std::move(b).value()});
    }
    for (const std::string& hex : o.data_hex) {
        auto b = parse_hex(hex);
        if (!b)
            return fail("data-hex", b.error().message);
        packets->push_back({fmt::format("--data-hex #{}", packets->size() + 1), std::move(b).value()});
    }
    if (!o.data_dir.empty()) {
        std::error_code ec;
        std::vector<std::string> files;
        for (const auto& e : std::filesystem::directory_iterator(o.data_dir, ec))
            if (e.is_regular_file())
                files.push_back(e.path().string());
        if (ec)
            return fail("data-dir", fmt::format("cannot read '{}': {}", o.data_dir, ec.message()));
        if (files.empty())
            return fail("data-dir", fmt::format("'{}' has no files", o.data_dir));
        std::sort(files.begin(), files.end());
        for (const std::string& f : files) {
            auto b = read_file(f);
            if (!b)
                return fail("data-dir", b.error().message);
            packets->push_back({f, std::move(b).value()});
        }
    }
    if (packets->empty())
        packets->push_back({"", {}});
    return true;
}

// bpftool's hex_print layout: offset, 16 bytes in hex, their printable characters.
void hex_dump(const char* what, const std::vector<uint8_t>& bytes) {
    std::printf("%s (%zu bytes):\n", what, bytes.size());
    for (size_t at = 0; at < bytes.size(); at += 16) {
        std::string hex, text;
        for (size_t i = at; i < at + 16; i++) {
            hex += i < bytes.size() ? fmt::format("{:02x} ", bytes[i]) : "   ";
            if (i < bytes.size())
                text += bytes[i] >= 0x20 && bytes[i] < 0x7f ? char(bytes[i]) : '.';
        }
        std::printf("%07zx: %s %s\n", at, hex.c_str(), text.c_str());
    }
}

// FILE, or "-" for a hex dump on stdout (as bpftool's data_out/ctx_out). With several packets, FILE.N per packet.
bool write_output(std::string path, const std::vector<uint8_t>& bytes, const char* what, size_t packet,
                  size_t packets, bool json) {
    if (path.empty())
        return true;
    if (path == "-") {
        if (!json) { // the JSON line carries it already
            std::string name = what; // "data-out" -> "data_out", bpftool's word
            std::replace(name.begin(), name.end(), '-', '_');
            hex_dump(name.c_str(), bytes);
        }
        return true;
    }
    if (packets > 1)
        path += fmt::format(".{}", packet);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (f.good())
        return true;
    std::fprintf(stderr, "strbpf run: --%s: cannot write '%s'\n", what, path.c_str());
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

// What --set and --map-in put into the object before its programs run.
struct Inputs {
    std::vector<runtime::GlobalPatch> globals;
    std::vector<MapInput> maps;
};

// One program: loaded once (one instance, or one kernel load; globals set before load, maps filled after it),
// then run on every packet.
std::vector<exec::RunReport> run_program(const RunOptions& o, exec::EngineKind engine,
                                         const std::shared_ptr<const loader::ObjectSpec>& spec,
                                         const std::string& name, exec::RunRequest req,
                                         const std::vector<Packet>& packets, const Inputs& in_) {
    exec::RunReport failed;
    failed.prog = name;
    req.globals = in_.globals; // the kernel object keeps them (a run with others would restore the ELF's)
    RunFn fn;
    if (engine == exec::EngineKind::kernel) {
        std::shared_ptr<exec::kernel::KernelObject> ko = exec::kernel::KernelObject::load(o.obj, name, in_.globals);
        if (!ko->loaded()) {
            failed.error = ko->error();
            return {failed};
        }
        if (Status st = apply_map_inputs(*ko, in_.maps); !st.ok()) {
            failed.error = st.error().message;
            return {failed};
        }
        fn = [ko](const exec::RunRequest& r) { return ko->run(r); };
    } else {
        auto inst = runtime::ObjectInstance::create(spec, in_.globals);
        if (!inst) {
            failed.error = inst.error().message;
            return {failed};
        }
        std::shared_ptr<const runtime::ObjectInstance> in = std::move(inst).value();
        if (Status st = apply_map_inputs(*in, in_.maps); !st.ok()) {
            failed.error = st.error().message;
            return {failed};
        }
        const runtime::LinkedProgram* lp = in->find_program(name);
        if (!lp || !lp->linked) {
            failed.error = lp ? lp->link_error.message : "not linked";
            return {failed};
        }
        fn = [in, lp, engine](const exec::RunRequest& r) { return exec::run_linked(engine, *in, *lp, r); };
    }
    std::vector<exec::RunReport> reports;
    for (const Packet& p : packets) {
        req.data_in = p.bytes;
        reports.push_back(run_with_progress(name, o.repeat, req, fn));
        if (!reports.back().loaded)
            break; // a load failure is the program's, not the packet's
    }
    return reports;
}

int run(const RunOptions& o) {
    exec::EngineKind engine;
    if (!exec::parse_engine(o.engine, &engine)) {
        std::fprintf(stderr, "strbpf run: unknown engine '%s' (interp, jit, kernel or interp-checked)\n",
                     o.engine.c_str());
        return kExitUsage;
    }
    exec::RunRequest req;
    req.flags = o.test_flags;
    req.cookie = o.cookie;
    if (o.cpu >= 0) {
        req.flags |= 1u; // BPF_F_TEST_RUN_ON_CPU
        req.cpu = uint32_t(o.cpu);
    }
    std::vector<Packet> packets;
    if (!read_inputs(o, &req, &packets))
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
    Inputs inputs;
    auto globals = global_patches(o.obj, *spec, o.sets);
    auto maps = read_map_inputs(o.map_ins);
    if (!globals || !maps) {
        std::fprintf(stderr, "strbpf run: %s\n", (!globals ? globals.error() : maps.error()).message.c_str());
        return kExitUsage;
    }
    inputs.globals = std::move(globals).value();
    inputs.maps = std::move(maps).value();
    const std::vector<std::string> progs = select_programs(o, engine, *spec);
    if (progs.empty())
        return kExitUsage;
    int rc = kExitOk;
    for (const auto& name : progs) {
        const std::vector<exec::RunReport> reports = run_program(o, engine, spec, name, req, packets, inputs);
        const loader::ProgramSpec* ps = spec->find_program(name);
        const char* timer = timer_name(engine, ps ? ps->type : loader::ProgType::unspec);
        for (size_t i = 0; i < reports.size(); i++) {
            exec::RunReport r = reports[i];
            r.prog = name;
            const std::string label = packets.size() > 1 ? fmt::format("packet {}: {}", i + 1, packets[i].source) : "";
            print_report(r, o, timer, label, i + 1);
            if (!r.loaded || !r.ran)
                rc = kExitFailed;
            else if (!write_output(o.data_out, r.data_out, "data-out", i + 1, packets.size(), o.json) ||
                     !write_output(o.ctx_out, r.ctx_out, "ctx-out", i + 1, packets.size(), o.json))
                rc = kExitUsage;
        }
    }
    return rc;
}

} // namespace

Runner add_run_command(CLI::App& app) {
    auto o = std::make_shared<RunOptions>();
    CLI::App* c = app.add_subcommand("run", "Test-run programs of an object (every program in ELF order, each on "
                                            "a fresh load, unless --prog)");
    c->add_option("OBJ", o->obj, "BPF ELF object (clang -target bpf)")->required()->check(CLI::ExistingFile);
    c->add_option("--prog", o->prog, "run only this program");
    c->add_option("--engine", o->engine, "interp, jit, kernel, or interp-checked (no verifier, every access checked)")
        ->capture_default_str();
    auto* ci = c->add_option("--ctx-in", o->ctx_in, "file with the ctx bytes")->check(CLI::ExistingFile);
    auto* ch = c->add_option("--ctx-hex", o->ctx_hex, "ctx bytes as hex");
    ci->excludes(ch);
    c->add_option("--data-in", o->data_in, "file with the packet bytes")->check(CLI::ExistingFile);
    c->add_option("--data-hex", o->data_hex, "packet bytes as hex; repeat the flag for several packets, each run on "
                                             "the same load")
        ->allow_extra_args(false);
    c->add_option("--data-dir", o->data_dir, "run every file of this directory (by name) as a packet, on one load")
        ->check(CLI::ExistingDirectory);
    c->add_option("--data-out", o->data_out, "write the packet after the run to FILE (FILE.N for packet N of "
                                             "several; the last program's), or '-': a hex dump on stdout");
    c->add_option("--ctx-out", o->ctx_out, "write the ctx after the run (ctx_out) the same way");
    c->add_option("--repeat", o->repeat, "repetitions (duration is the average; a progress line on a terminal)")
        ->check(CLI::Range(1u, 100000000u))->capture_default_str();
    c->add_option("--test-flags", o->test_flags,
                  "BPF_PROG_TEST_RUN's flags, as a number (each program type's test "
                  "run refuses the ones it does not take, as the kernel does)");
    c->add_option("--cpu", o->cpu, "run on this CPU (BPF_F_TEST_RUN_ON_CPU; raw_tp programs)")
        ->check(CLI::Range(int64_t(0), int64_t(UINT32_MAX)));
    c->add_option("--cookie", o->cookie,
                  "the BPF cookie of the link the run attaches with, for bpf_get_attach_cookie (fentry, fexit, "
                  "fmod_ret; kprobe, tracepoint, perf_event runs)");
    c->add_flag("--json", o->json, "one JSON object per program and line");
    add_input_options(*c, &o->sets, &o->map_ins);
    return [o] { return run(*o); };
}

} // namespace strbpf::cli
