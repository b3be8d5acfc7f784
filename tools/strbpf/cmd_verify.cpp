// SPDX-License-Identifier: BSD-2-Clause
// `strbpf verify`: run strbpf's static verifier (or, with --engine kernel, the live kernel's) over an object's
// programs and print the verdict, the kernel's one-line reason for a rejection, and on request the whole
// kernel-style log (tools stage).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "runtime/instance.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::cli {
namespace {

struct VerifyOptions {
    std::string obj, prog, engine = "strbpf";
    int log_level = 0;
    uint32_t prog_flags = 0; // BPF_F_* of BPF_PROG_LOAD (BPF_F_TEST_STATE_FREQ = 8, ...), as a test's __flag
    bool json = false, log = false;
};

// The level the log is asked for at: --log alone means level 1.
int effective_level(const VerifyOptions& o) { return o.log && o.log_level == 0 ? 1 : o.log_level; }

// "processed N insns" of a kernel log; 0 when the log has no such line (level 0 keeps no log on success).
uint64_t processed_insns(const std::string& log) {
    const size_t at = log.rfind("processed ");
    return at == std::string::npos ? 0 : std::strtoull(log.c_str() + at + 10, nullptr, 10);
}

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
        if (effective_level(o) > 0)
            j["log"] = v.log;
        std::printf("%s\n", j.dump().c_str());
        return;
    }
    if (effective_level(o) > 0)
        std::fputs(v.log.c_str(), stdout);
    if (v.ok && v.processed_insns == 0) // the kernel at level 0 keeps no log, so no count
        std::printf("%s: verified\n", name.c_str());
    else if (v.ok)
        std::printf("%s: verified, processed %llu insns\n", name.c_str(), (unsigned long long)v.processed_insns);
    else if (v.pc >= 0)
        std::printf("%s: rejected at insn %lld: %s\n", name.c_str(), (long long)v.pc, v.reason.c_str());
    else
        std::printf("%s: rejected: %s\n", name.c_str(), v.reason.c_str());
}

// The statistics lines of a log (print_verification_stats), all the kernel prints at log level 4 alone.
std::string stats_only(const std::string& log) {
    std::string out;
    for (size_t at = 0; at < log.size();) {
        size_t end = log.find('\n', at);
        end = end == std::string::npos ? log.size() : end + 1;
        const std::string_view line(log.data() + at, end - at);
        if (line.starts_with("verification time") || line.starts_with("stack depth") || line.starts_with("processed "))
            out += line;
        at = end;
    }
    return out;
}

// The live kernel's verdict through libbpf (which retries a failed load at level 1, so a rejection has a log).
int verify_kernel(const VerifyOptions& o, const loader::ObjectSpec& spec) {
    if (auto st = exec::kernel::available(); !st) {
        std::fprintf(stderr, "strbpf verify: %s\n", st.error().message.c_str());
        return kExitUsage;
    }
    int rc = kExitOk;
    for (const loader::ProgramSpec& prog : spec.programs) {
        if (!o.prog.empty() && prog.name != o.prog)
            continue;
        exec::kernel::LoadOptions lo;
        lo.log_level = effective_level(o);
        lo.prog_flags = o.prog_flags;
        lo.btf_custom_path = target_options().btf_path;
        const auto t0 = std::chrono::steady_clock::now();
        auto ko = exec::kernel::KernelObject::load(o.obj, prog.name, {}, lo);
        verifier::Verdict v;
        v.ok = ko->loaded();
        v.reason = ko->error();
        v.log = ko->details().log;
        v.processed_insns = processed_insns(v.log);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        print_verdict(prog.name, v, secs, o);
        if (!v.ok)
            rc = kExitFailed;
    }
    return rc;
}

int verify_all(const VerifyOptions& o) {
    if (o.engine != "strbpf" && o.engine != "kernel") {
        std::fprintf(stderr, "strbpf verify: unknown engine '%s' (strbpf or kernel)\n", o.engine.c_str());
        return kExitUsage;
    }
    auto s = load_spec(o.obj); // its messages begin with the file's name
    if (!s) {
        std::fprintf(stderr, "strbpf verify: %s\n", s.error().message.c_str());
        return kExitUsage;
    }
    std::shared_ptr<const loader::ObjectSpec> spec = std::move(s).value();
    if (!o.prog.empty() && !spec->find_program(o.prog)) {
        std::fprintf(stderr, "strbpf verify: no program '%s' in %s (its programs: %s)\n", o.prog.c_str(),
                     o.obj.c_str(), program_list(*spec).c_str());
        return kExitUsage;
    }
    if (o.engine == "kernel")
        return verify_kernel(o, *spec);
    auto inst = runtime::ObjectInstance::create(spec);
    if (!inst) {
        std::fprintf(stderr, "strbpf verify: %s: %s\n", o.obj.c_str(), inst.error().message.c_str());
        return kExitUsage;
    }
    int rc = kExitOk;
    for (const loader::ProgramSpec& prog : spec->programs) {
        if (!o.prog.empty() && prog.name != o.prog)
            continue;
        const auto t0 = std::chrono::steady_clock::now();
        const int level = effective_level(o);
        verifier::Verdict v = verifier::verify(*inst.value(), prog, verifier::Options{level, o.prog_flags});
        if ((level & 3) == 0 && level) // BPF_LOG_STATS alone: the kernel prints only the statistics
            v.log = stats_only(v.log);
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
    c->add_option("--log-level", o->log_level,
                  "the kernel's log_level bits: 0: reason only; 1: the log; 2: states per insn and precision "
                  "backtracking; 4: statistics (verification time, stack depth)")
        ->check(CLI::Range(0, 7))
        ->capture_default_str();
    c->add_option("--engine", o->engine, "strbpf (strbpf's verifier) or kernel (the live kernel's, through libbpf)")
        ->capture_default_str();
    c->add_option("--prog-flags", o->prog_flags, "BPF_F_* load flags, as a test's __flag (8: BPF_F_TEST_STATE_FREQ)");
    c->add_flag("--log", o->log, "print the whole verifier log (at --log-level, at least 1)");
    c->add_flag("--json", o->json, "one JSON object per program and line");
    return [o] { return verify_all(*o); };
}

} // namespace strbpf::cli
