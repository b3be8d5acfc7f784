// SPDX-License-Identifier: BSD-2-Clause
// strbpf_kernel_diff: the kernel-differential verifier fuzzer. Generates programs with the fuzz harness's program
// generator, asks the live kernel (BPF_PROG_LOAD) and strbpf's verifier for their verdicts, and keeps every
// disagreement's category with a minimised example; OUT/summary.md says how it is going (docs/testing.md,
// "Kernel-differential fuzzing").
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/byte_reader.hpp"
#include "common/program_gen.hpp"
#include "exec/kernel/kernel_variant_probe.hpp"
#include "kernel_diff/differ.hpp"
#include "kernel_diff/finding_file.hpp"
#include "kernel_diff/kernel_oracle.hpp"
#include "kernel_diff/summary.hpp"

namespace kd = strbpf::fuzz::kdiff;

namespace {

constexpr const char* kUsage =
    "usage: strbpf_kernel_diff [--hours H] [--execs N] [--seed S] [--start N] [--types xdp,socket,syscall]\n"
    "                          [--out DIR] [--minimise-checks N]\n"
    "       strbpf_kernel_diff [--log LEVEL] --recheck FILE.kdiff...\n"
    "Generates programs, judges each with the live kernel and strbpf's verifier, and writes DIR/summary.md and\n"
    "DIR/findings/*.kdiff (one minimised program per category of disagreement). Stops after H hours (default 1)\n"
    "or N executions, whichever comes first; --start N begins at program N of the seed (reproduces one program:\n"
    "--seed S --start N --execs 1). --recheck judges kept findings again: it fails when the live kernel's answer\n"
    "is no longer the recorded one, and prints strbpf's (--log 1 or 2: and the kernel's verifier log). Needs bpf() (root or CAP_BPF): without it, says so and\n"
    "exits 0.\n";

struct Options {
    double hours = 1.0;
    uint64_t execs = 0; // 0: no limit
    uint64_t start = 0;
    uint64_t seed = 0;
    bool seed_given = false;
    std::vector<strbpf::loader::ProgType> types;
    std::string out = "build/kernel-diff";
    size_t minimise_checks = 600;
    int log_level = 0; // --recheck: print the kernel's log at this level
    std::string command;
    std::vector<std::string> recheck;
};

std::atomic<bool> g_stop{false};

bool parse_types(const std::string& list, std::vector<strbpf::loader::ProgType>& types) {
    size_t b = 0;
    while (b <= list.size()) {
        const size_t e = std::min(list.find(',', b), list.size());
        auto t = kd::prog_type_of(list.substr(b, e - b));
        if (!t) {
            std::fprintf(stderr, "strbpf_kernel_diff: %s\n", t.error().message.c_str());
            return false;
        }
        types.push_back(t.value());
        b = e + 1;
    }
    return true;
}

bool parse_args(int argc, char** argv, Options& o) {
    for (int i = 0; i < argc; i++)
        o.command += std::string(i ? " " : "") + argv[i];
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        }
        if (a == "--recheck") {
            while (i + 1 < argc)
                o.recheck.push_back(argv[++i]);
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "strbpf_kernel_diff: %s needs a value\n%s", a.c_str(), kUsage);
            return false;
        }
        const std::string v = argv[++i];
        char* end = nullptr;
        if (a == "--hours") {
            o.hours = std::strtod(v.c_str(), &end);
        } else if (a == "--execs") {
            o.execs = std::strtoull(v.c_str(), &end, 0);
        } else if (a == "--seed") {
            o.seed = std::strtoull(v.c_str(), &end, 0);
            o.seed_given = true;
        } else if (a == "--start") {
            o.start = std::strtoull(v.c_str(), &end, 0);
        } else if (a == "--log") {
            o.log_level = int(std::strtol(v.c_str(), &end, 0));
        } else if (a == "--minimise-checks") {
            o.minimise_checks = std::strtoull(v.c_str(), &end, 0);
        } else if (a == "--out") {
            o.out = v;
            continue;
        } else if (a == "--types") {
            if (!parse_types(v, o.types))
                return false;
            continue;
        } else {
            std::fprintf(stderr, "strbpf_kernel_diff: unknown option %s\n%s", a.c_str(), kUsage);
            return false;
        }
        if (!end || *end != '\0' || v.empty()) {
            std::fprintf(stderr, "strbpf_kernel_diff: %s: not a number: %s\n", a.c_str(), v.c_str());
            return false;
        }
    }
    if (o.types.empty())
        o.types = {strbpf::loader::ProgType::xdp, strbpf::loader::ProgType::socket_filter,
                   strbpf::loader::ProgType::syscall};
    if (!o.seed_given)
        o.seed = std::random_device{}();
    return true;
}

uint64_t splitmix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Program number N of seed S: its own generator stream, so one program is reproducible alone.
std::vector<uint8_t> program_bytes(uint64_t seed, uint64_t n) {
    std::mt19937_64 rng(splitmix(seed ^ splitmix(n)));
    // Mostly short programs (whole-program acceptance falls with length), some long ones.
    static constexpr size_t kLengths[] = {48, 64, 96, 192, 768};
    std::vector<uint8_t> b(16 + rng() % kLengths[rng() % 5]);
    for (uint8_t& c : b)
        c = uint8_t(rng());
    return b;
}

std::string slug(const std::string& s) {
    std::string o;
    for (char c : s) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alnum)
            o += char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        else if (!o.empty() && o.back() != '_')
            o += '_';
        if (o.size() >= 64)
            break;
    }
    while (!o.empty() && o.back() == '_')
        o.pop_back();
    uint32_t h = 2166136261u; // FNV-1a of the whole category: "value -N ..." and "value N ..." are two files
    for (char c : s)
        h = (h ^ uint8_t(c)) * 16777619u;
    char tag[8];
    std::snprintf(tag, sizeof tag, "-%04x", h & 0xffff);
    return (o.empty() ? "no_reason" : o) + tag;
}

bool write_file(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::trunc);
        if (!(f << text))
            return false;
    }
    return std::rename(tmp.c_str(), path.c_str()) == 0;
}

// Minimises the first program of a new category and writes it to OUT/findings/; returns the file's name.
std::string keep_finding(kd::KernelOracle& k, const Options& o, strbpf::loader::ProgType type,
                         const std::vector<strbpf::isa::Insn>& insns, kd::Class c, const std::string& cat,
                         uint64_t n) {
    const kd::Minimised m = kd::minimise(k, type, insns, o.minimise_checks);
    kd::Finding f;
    f.type = type;
    f.kernel_ok = m.judged.kernel.outcome == kd::Outcome::accept;
    f.kernel_reason = m.judged.kernel.reason;
    f.strbpf_ok = m.judged.strbpf_ok;
    f.strbpf_reason = m.judged.strbpf_reason;
    f.insns = m.insns;
    f.title = std::string(c == kd::Class::strbpf_only ? "S (strbpf-only accept)" : "K (kernel-only accept)") +
              ": " + cat + " — program " + std::to_string(n) + " of --seed " + std::to_string(o.seed) + ", " +
              std::to_string(insns.size()) + " → " + std::to_string(m.insns.size()) + " insns";
    const std::string name =
        std::string(c == kd::Class::strbpf_only ? "S-" : "K-") + kd::type_name(type) + "-" + slug(cat) + ".kdiff";
    if (!write_file(o.out + "/findings/" + name, kd::format_finding(f)))
        std::fprintf(stderr, "strbpf_kernel_diff: cannot write %s/findings/%s\n", o.out.c_str(), name.c_str());
    return "findings/" + name;
}

// Both reject in different words: the first program of each pair of reasons (by category), unminimised, as
// findings/M-<type>-<kernel's reason>.kdiff, at most kMaxWordPairs of them.
constexpr size_t kMaxWordPairs = 64;
void keep_word_pair(const Options& o, strbpf::loader::ProgType type, const std::vector<strbpf::isa::Insn>& insns,
                    const kd::Judged& j, uint64_t n, std::set<std::string>& seen) {
    const std::string kcat = kd::category(j.kernel.reason), scat = kd::category(j.strbpf_reason);
    if (kcat == scat || seen.size() >= kMaxWordPairs || !seen.insert(kcat + "\n" + scat).second)
        return;
    kd::Finding f;
    f.type = type;
    f.kernel_reason = j.kernel.reason;
    f.strbpf_reason = j.strbpf_reason;
    f.insns = insns;
    f.title = "M (both reject, different words): " + kcat + "  →  " + scat + " — program " + std::to_string(n) +
              " of --seed " + std::to_string(o.seed);
    const std::string name = "M-" + std::string(kd::type_name(type)) + "-" + slug(kcat) + "-" +
                             std::to_string(seen.size()) + ".kdiff";
    if (!write_file(o.out + "/findings/" + name, kd::format_finding(f)))
        std::fprintf(stderr, "strbpf_kernel_diff: cannot write %s/findings/%s\n", o.out.c_str(), name.c_str());
}

std::string answer(bool ok, const std::string& reason) { return ok ? "accept" : "reject: " + reason; }

// --recheck: 0 when the kernel still gives every file's recorded answer.
int recheck(kd::KernelOracle& k, const std::vector<std::string>& files, int log_level) {
    int bad = 0;
    for (const std::string& path : files) {
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        auto f = kd::parse_finding(text.str());
        if (!in || !f) {
            std::printf("%s: cannot read: %s\n", path.c_str(), in ? f.error().message.c_str() : "no such file");
            bad++;
            continue;
        }
        const kd::Judged j = kd::judge(k, f.value().type, f.value().insns);
        const std::string kernel = j.kernel.outcome == kd::Outcome::error
                                       ? "no verdict: " + j.kernel.reason
                                       : answer(j.kernel.outcome == kd::Outcome::accept, j.kernel.reason);
        const std::string recorded = answer(f.value().kernel_ok, f.value().kernel_reason);
        std::printf("%s\n  kernel: %s%s\n  strbpf: %s\n", path.c_str(), kernel.c_str(),
                    kernel == recorded ? " (as recorded)" : (" (RECORDED: " + recorded + ")").c_str(),
                    answer(j.strbpf_ok, j.strbpf_reason).c_str());
        bad += kernel != recorded;
        if (log_level > 0)
            std::printf("-- kernel log:\n%s-- strbpf log:\n%s", k.log(f.value().type, f.value().insns, log_level).c_str(),
                        kd::strbpf_log(f.value().type, f.value().insns, log_level).c_str());
    }
    return bad ? 1 : 0;
}

void on_signal(int) { g_stop = true; }

// What a crash of strbpf's verifier (or of this driver) prints: the program to reproduce it with.
char g_crash_note[256];
void on_crash(int sig) {
    const ssize_t n = write(2, g_crash_note, strnlen(g_crash_note, sizeof g_crash_note));
    (void)n;
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse_args(argc, argv, o))
        return 2;
    std::string why;
    std::unique_ptr<kd::KernelOracle> kernel = kd::KernelOracle::open(why);
    if (!kernel) {
        std::printf("strbpf_kernel_diff: skipped, the live kernel cannot be the oracle here: %s\n", why.c_str());
        return 0;
    }
    // strbpf judges as the running 6.18 build does (verifier/kernel_variant.hpp); the 6.18 source's where it
    // cannot tell which build runs.
    if (auto v = strbpf::exec::kernel::running_kernel_variant())
        strbpf::verifier::set_default_kernel_variant(v.value());
    if (!o.recheck.empty())
        return recheck(*kernel, o.recheck, o.log_level);
    mkdir(o.out.c_str(), 0755);
    mkdir((o.out + "/findings").c_str(), 0755);
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL})
        std::signal(sig, on_crash);
    std::printf("strbpf_kernel_diff: seed %llu, writing %s/summary.md\n", (unsigned long long)o.seed, o.out.c_str());
    std::fflush(stdout);
    kd::Stats stats(o.command + (o.seed_given ? "" : " --seed " + std::to_string(o.seed)));
    auto last_write = std::chrono::steady_clock::now();
    const std::vector<int> kfuncs = kernel->kfuncs();
    std::set<std::string> word_pairs;
    for (uint64_t n = o.start; !g_stop && stats.elapsed_hours() < o.hours && (o.execs == 0 || n - o.start < o.execs);
         n++) {
        std::snprintf(g_crash_note, sizeof g_crash_note,
                      "strbpf_kernel_diff: crashed on program %llu; reproduce with --seed %llu --start %llu --execs 1\n",
                      (unsigned long long)n, (unsigned long long)o.seed, (unsigned long long)n);
        const std::vector<uint8_t> bytes = program_bytes(o.seed, n);
        const strbpf::loader::ProgType type = o.types[bytes[0] % o.types.size()];
        strbpf::fuzz::ByteReader in(bytes.data() + 1, bytes.size() - 1);
        const std::vector<strbpf::isa::Insn> insns = strbpf::fuzz::generate_program(type, in, false, kfuncs);
        const kd::Judged j = kd::judge(*kernel, type, insns);
        const kd::Class c = kd::classify(j);
        if (c == kd::Class::both_reject)
            keep_word_pair(o, type, insns, j, n, word_pairs);
        if (stats.add(type, c, j) == 1) {
            const std::string cat = kd::finding_category(c, j);
            stats.set_example(c, cat, keep_finding(*kernel, o, type, insns, c, cat, n));
        }
        if (std::chrono::steady_clock::now() - last_write > std::chrono::seconds(30)) {
            write_file(o.out + "/summary.md", stats.markdown());
            last_write = std::chrono::steady_clock::now();
        }
    }
    write_file(o.out + "/summary.md", stats.markdown());
    std::printf("strbpf_kernel_diff: %llu executions in %.2f h; summary in %s/summary.md\n",
                (unsigned long long)stats.executions(), stats.elapsed_hours(), o.out.c_str());
    return 0;
}
