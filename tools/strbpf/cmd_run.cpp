// `strbpf run`: load an object and test-run its programs on an engine, like bpftool's `prog run` (tools stage).
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"

namespace strbpf::cli {
namespace {

struct RunOptions {
    std::string obj, prog, engine = "interp", ctx_in, ctx_hex, data_in, data_hex;
    uint32_t repeat = 1;
    bool json = false;
};

void print_report(const exec::RunReport& r, bool json) {
    if (json) {
        nlohmann::ordered_json j;
        j["prog"] = r.prog;
        j["loaded"] = r.loaded;
        if (r.loaded && r.ran) {
            j["retval"] = r.retval;
            j["duration_ns"] = r.duration_ns;
            if (!r.data_out.empty())
                j["data_out"] = hex_string(r.data_out);
        } else {
            j["error"] = r.error;
        }
        std::printf("%s\n", j.dump().c_str());
        return;
    }
    if (!r.loaded)
        std::printf("%s: load failed: %s\n", r.prog.c_str(), r.error.c_str());
    else if (!r.ran)
        std::printf("%s: run failed: %s\n", r.prog.c_str(), r.error.c_str());
    else
        std::printf("%s: Return value: %u, duration (average): %lluns\n", r.prog.c_str(), r.retval,
                    static_cast<unsigned long long>(r.duration_ns));
}

int run(const RunOptions& o) {
    exec::EngineKind engine;
    if (!exec::parse_engine(o.engine, &engine)) {
        std::fprintf(stderr, "strbpf run: unknown engine '%s' (interp, jit, kernel or interp-checked)\n", o.engine.c_str());
        return kExitUsage;
    }
    exec::RunRequest req;
    req.repeat = o.repeat;
    auto input = [&](const std::string& file, const std::string& hex, std::vector<uint8_t>* out,
                     const char* what) -> bool {
        if (!file.empty() && !hex.empty()) {
            std::fprintf(stderr, "strbpf run: give --%s-in or --%s-hex, not both\n", what, what);
            return false;
        }
        auto bytes = !file.empty() ? read_file(file) : parse_hex(hex);
        if (!bytes) {
            std::fprintf(stderr, "strbpf run: --%s: %s\n", what, bytes.error().message.c_str());
            return false;
        }
        *out = std::move(bytes).value();
        return true;
    };
    if (!input(o.ctx_in, o.ctx_hex, &req.ctx_in, "ctx") || !input(o.data_in, o.data_hex, &req.data_in, "data"))
        return kExitUsage;

    std::vector<std::string> progs;
    std::shared_ptr<const loader::ObjectSpec> spec;
    // strbpf's loader vets every object first: libbpf 1.1 is not robust against corrupt ELF files.
    auto s = load_spec(o.obj);
    if (!s) {
        std::fprintf(stderr, "strbpf run: %s: %s\n", o.obj.c_str(), s.error().message.c_str());
        return kExitUsage;
    }
    spec = std::move(s).value();
    if (engine == exec::EngineKind::kernel) {
        if (auto st = exec::kernel::available(); !st) {
            std::fprintf(stderr, "strbpf run: %s\n", st.error().message.c_str());
            return kExitUsage;
        }
        std::string why;
        progs = exec::kernel::program_names(o.obj, &why);
        if (progs.empty()) {
            std::fprintf(stderr, "strbpf run: %s\n", why.c_str());
            return kExitUsage;
        }
    } else {
        std::string why;
        if (!exec::engine_available(engine, &why)) {
            std::fprintf(stderr, "strbpf run: %s\n", why.c_str());
            return kExitUsage;
        }
        for (const auto& p : spec->programs)
            progs.push_back(p.name);
    }
    if (!o.prog.empty()) {
        if (std::find(progs.begin(), progs.end(), o.prog) == progs.end()) {
            std::fprintf(stderr, "strbpf run: no program '%s' in %s\n", o.prog.c_str(), o.obj.c_str());
            return kExitUsage;
        }
        progs = {o.prog};
    }
    int rc = kExitOk;
    for (const auto& name : progs) {
        exec::RunReport r = engine == exec::EngineKind::kernel ? exec::kernel::run(o.obj, name, req)
                                                               : exec::run_fresh(engine, spec, name, req);
        r.prog = name;
        print_report(r, o.json);
        if (!r.loaded || !r.ran)
            rc = kExitFailed;
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
    c->add_option("--engine", o->engine, "interp, jit, kernel, or interp-checked (no verifier, every access checked)")->capture_default_str();
    auto* ci = c->add_option("--ctx-in", o->ctx_in, "file with the ctx bytes")->check(CLI::ExistingFile);
    auto* ch = c->add_option("--ctx-hex", o->ctx_hex, "ctx bytes as hex");
    ci->excludes(ch);
    auto* di = c->add_option("--data-in", o->data_in, "file with the packet bytes")->check(CLI::ExistingFile);
    auto* dh = c->add_option("--data-hex", o->data_hex, "packet bytes as hex");
    di->excludes(dh);
    c->add_option("--repeat", o->repeat, "repetitions (duration is the average)")
        ->check(CLI::Range(1u, 100000000u))->capture_default_str();
    c->add_flag("--json", o->json, "one JSON object per program and line");
    return [o] { return run(*o); };
}

} // namespace strbpf::cli
