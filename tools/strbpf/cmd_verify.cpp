// `strbpf verify`: run strbpf's static verifier over an object's programs and print the verdict, the kernel's
// one-line reason for a rejection, and (with --log-level) the kernel-style log (tools stage).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "runtime/instance.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::cli {
namespace {

struct VerifyOptions {
    std::string obj, prog;
    int log_level = 0;
    bool json = false;
};

void print_verdict(const std::string& name, const verifier::Verdict& v, double seconds, const VerifyOptions& o) {
    if (o.json) {
        nlohmann::ordered_json j;
        j["prog"] = name;
        j["ok"] = v.ok;
        if (!v.ok) {
            j["reason"] = v.reason;
            j["pc"] = v.pc;
        }
        j["processed_insns"] = v.processed_insns;
        j["seconds"] = seconds;
        if (o.log_level > 0)
            j["log"] = v.log;
        std::printf("%s\n", j.dump().c_str());
        return;
    }
    if (o.log_level > 0)
        std::fputs(v.log.c_str(), stdout);
    if (v.ok)
        std::printf("%s: verified, processed %llu insns\n", name.c_str(), (unsigned long long)v.processed_insns);
    else if (v.pc < 0) // refused before any instruction: the program failed to load, or strbpf cannot type it
        std::printf("%s: rejected: %s\n", name.c_str(), v.reason.c_str());
    else
        std::printf("%s: rejected at insn %lld: %s\n", name.c_str(), (long long)v.pc, v.reason.c_str());
}

int verify_all(const VerifyOptions& o) {
    auto s = load_spec(o.obj);
    if (!s) {
        std::fprintf(stderr, "strbpf verify: %s: %s\n", o.obj.c_str(), s.error().message.c_str());
        return kExitUsage;
    }
    std::shared_ptr<const loader::ObjectSpec> spec = std::move(s).value();
    auto inst = runtime::ObjectInstance::create(spec);
    if (!inst) {
        std::fprintf(stderr, "strbpf verify: %s: %s\n", o.obj.c_str(), inst.error().message.c_str());
        return kExitUsage;
    }
    if (!o.prog.empty() && !spec->find_program(o.prog)) {
        std::fprintf(stderr, "strbpf verify: no program '%s' in %s\n", o.prog.c_str(), o.obj.c_str());
        return kExitUsage;
    }
    int rc = kExitOk;
    for (const loader::ProgramSpec& prog : spec->programs) {
        if (!o.prog.empty() && prog.name != o.prog)
            continue;
        const auto t0 = std::chrono::steady_clock::now();
        const verifier::Verdict v = verifier::verify(*inst.value(), prog, verifier::Options{o.log_level});
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        print_verdict(prog.name, v, secs, o);
        if (!v.ok)
            rc = kExitFailed;
    }
    return rc;
}

} // namespace

Runner add_verify_command(CLI::App& app) {
    auto o = std::make_shared<VerifyOptions>();
    CLI::App* c = app.add_subcommand("verify", "Verify programs of an object statically, as the kernel's verifier "
                                               "would (every program in ELF order unless --prog)");
    c->add_option("OBJ", o->obj, "BPF ELF object (clang -target bpf)")->required()->check(CLI::ExistingFile);
    c->add_option("--prog", o->prog, "verify only this program");
    c->add_option("--log-level", o->log_level, "0: reason only; 1: the kernel's log level 1; 2: states per insn")
        ->check(CLI::Range(0, 2))
        ->capture_default_str();
    c->add_flag("--json", o->json, "one JSON object per program and line");
    return [o] { return verify_all(*o); };
}

} // namespace strbpf::cli
