// `strbpf test`: runs programs annotated with the kernel test_loader's tags (__success, __failure, __msg,
// __retval, ...) on every engine and reports PASS/FAIL per test and engine (tools stage).
#include <cstdio>

#include <fmt/format.h>

#include "cli.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "exec/test_spec.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::cli {
namespace {

constexpr size_t kTestDataLen = 64; // the kernel test_loader's TEST_DATA_LEN zero bytes for packet programs

struct TestOptions {
    std::vector<std::string> objs;
    std::vector<std::string> engines;
    std::string filter;
    bool verbose = false;
};

struct Totals {
    int passed = 0, failed = 0, skipped = 0;
};

// strbpf's own decl tags (comment:strbpf_data_hex=..., ...): test_spec keeps every tag it does not interpret.
const std::string* strbpf_tag(const exec::TestSpec& spec, const std::string& name) {
    for (const auto& [key, value] : spec.other_tags)
        if (key == "strbpf_" + name)
            return &value;
    return nullptr;
}

bool is_packet_prog(loader::ProgType t) {
    return t == loader::ProgType::xdp || t == loader::ProgType::sched_cls || t == loader::ProgType::socket_filter;
}

// Compares one engine's outcome with the spec; returns "" on PASS, else the reason.
// `log` is what the messages are matched against: the verifier log where there is one, else the error.
std::string judge(const exec::TestSpec& spec, const exec::RunReport& r, bool needs_run, const std::string& log) {
    const bool rejected = !r.loaded || (needs_run && !r.ran);
    if (!spec.expect_success) {
        if (!rejected)
            return "expected the program to be rejected, but it loaded and ran";
        std::string missing = exec::match_messages(spec, log.empty() ? r.error : r.error + "\n" + log);
        return missing.empty() ? "" : fmt::format("rejected with \"{}\", but {}", r.error, missing);
    }
    if (!r.loaded)
        return fmt::format("load failed: {}", r.error);
    if (spec.retval) {
        if (!r.ran)
            return fmt::format("run failed: {}", r.error);
        if (r.retval != *spec.retval)
            return fmt::format("retval {} (0x{:x}), expected {} (0x{:x})", int32_t(r.retval), r.retval,
                               int32_t(*spec.retval), *spec.retval);
    }
    return "";
}

int run(const TestOptions& o) {
    std::vector<exec::EngineKind> engines;
    std::vector<std::string> names = o.engines;
    const bool defaulted = names.empty();
    if (defaulted)
        names = {"interp", "jit", "kernel"}; // interp-checked only on request: it has no verifier
    for (const auto& n : names) {
        exec::EngineKind k;
        if (!exec::parse_engine(n, &k)) {
            std::fprintf(stderr, "strbpf test: unknown engine '%s' (interp, jit or kernel)\n", n.c_str());
            return kExitUsage;
        }
        std::string why;
        if (k == exec::EngineKind::kernel) {
            if (auto st = exec::kernel::available(); !st) {
                std::printf("NOTE  kernel engine unavailable, its tests are skipped: %s\n",
                            st.error().message.c_str());
                if (!defaulted)
                    return kExitUsage;
                continue;
            }
        } else if (!exec::engine_available(k, &why)) {
            if (!defaulted) {
                std::fprintf(stderr, "strbpf test: %s\n", why.c_str());
                return kExitUsage;
            }
            continue; // an engine still to come
        }
        engines.push_back(k);
    }

    Totals t;
    for (const auto& obj : o.objs) {
        auto specs = exec::parse_test_specs(obj);
        if (!specs) {
            std::fprintf(stderr, "strbpf test: %s: %s\n", obj.c_str(), specs.error().message.c_str());
            return kExitUsage;
        }
        auto loaded = load_spec(obj);
        if (!loaded) {
            std::fprintf(stderr, "strbpf test: %s: %s\n", obj.c_str(), loaded.error().message.c_str());
            return kExitUsage;
        }
        auto object = std::move(loaded).value();
        std::string objname = obj.substr(obj.find_last_of('/') + 1);
        if (auto dot = objname.find(".bpf.o"); dot != std::string::npos)
            objname.resize(dot);

        for (const auto& spec : specs.value()) {
            if (!o.filter.empty() && spec.prog.find(o.filter) == std::string::npos)
                continue;
            const loader::ProgramSpec* ps = object->find_program(spec.prog);
            exec::RunRequest req;
            if (const std::string* hex = strbpf_tag(spec, "data_hex")) {
                auto b = parse_hex(*hex);
                if (b)
                    req.data_in = std::move(b).value();
            } else if (ps && is_packet_prog(ps->type)) {
                req.data_in.assign(kTestDataLen, 0);
            }
            if (const std::string* hex = strbpf_tag(spec, "ctx_hex")) {
                auto b = parse_hex(*hex);
                if (b)
                    req.ctx_in = std::move(b).value();
            }
            // The kernel test_loader runs a program only when it has __retval; a rejection expected of a
            // user-space engine before the verifier lands shows at run time, so failure tests run too.
            const bool needs_run = spec.retval.has_value() || !spec.expect_success;
            for (auto engine : engines) {
                const std::string label = fmt::format("{}/{} [{}]", objname, spec.prog, exec::engine_name(engine));
                exec::RunReport r;
                exec::kernel::RunDetails details;
                if (engine == exec::EngineKind::kernel) {
                    r = exec::kernel::run(obj, spec.prog, req, &details);
                    if (details.unsupported) {
                        t.skipped++;
                        std::printf("SKIP  %s: %s\n", label.c_str(), r.error.c_str());
                        continue;
                    }
                } else if (strbpf_tag(spec, "needs_verifier") && engine == exec::EngineKind::interp_checked) {
                    t.skipped++;
                    std::printf("SKIP  %s: the expected rejection needs a verifier; this engine runs without one\n",
                                label.c_str());
                    continue;
                } else if (!ps) {
                    r.error = "strbpf's loader found no such program";
                } else if (needs_run) {
                    r = exec::run_fresh(engine, object, spec.prog, req);
                } else {
                    auto inst = runtime::ObjectInstance::create(object, req.globals);
                    const runtime::LinkedProgram* lp = inst ? inst.value()->find_program(spec.prog) : nullptr;
                    if (!inst) {
                        r.error = inst.error().message;
                    } else if (!lp) {
                        r.error = "no such program";
                    } else if (auto st = exec::load_check(engine, *inst.value(), *lp); !st) {
                        r.error = st.error().message;
                    } else {
                        r.loaded = true;
                    }
                }
                std::string log = details.log;
                if (!r.loaded && engine != exec::EngineKind::kernel && ps && !spec.expect_success) {
                    // Messages are matched against the whole verifier log, as the kernel's test_loader does.
                    if (auto inst = runtime::ObjectInstance::create(object, req.globals); inst)
                        log = verifier::verify(*inst.value(), *ps, verifier::Options{1}).log;
                }
                const std::string why = judge(spec, r, needs_run, log);
                if (why.empty()) {
                    t.passed++;
                    std::printf("PASS  %s\n", label.c_str());
                } else {
                    t.failed++;
                    std::printf("FAIL  %s: %s\n", label.c_str(), why.c_str());
                }
            }
        }
    }
    if (t.skipped)
        std::printf("%d skipped\n", t.skipped);
    std::printf("%d passed, %d failed\n", t.passed, t.failed);
    return t.failed ? kExitFailed : kExitOk;
}

} // namespace

Runner add_test_command(CLI::App& app) {
    auto o = std::make_shared<TestOptions>();
    CLI::App* c = app.add_subcommand("test", "Run the programs annotated with the kernel selftests' test_loader tags "
                                             "(__success, __failure, __msg, __retval) on every engine");
    c->add_option("OBJ", o->objs, "BPF ELF objects")->required()->check(CLI::ExistingFile);
    c->add_option("--engine", o->engines, "engines, comma-separated (default: every available one)")
        ->delimiter(',');
    c->add_option("--filter", o->filter, "only programs whose name contains this");
    c->add_flag("-v,--verbose", o->verbose, "print the reason for passing tests too");
    return [o] { return run(*o); };
}

} // namespace strbpf::cli
