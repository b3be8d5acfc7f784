// SPDX-License-Identifier: BSD-2-Clause
// The fuzz harness (fuzz stage): the fixed object around a fuzzed program, verification, run requests, counters.
#include "common/harness.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "common/byte_reader.hpp"
#include "common/program_gen.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"

namespace strbpf::fuzz {
namespace {

constexpr size_t kMaxRawInsns = 1 << 16;

loader::MapSpec map_spec(const char* name, uint32_t type, uint32_t key, uint32_t value, uint32_t entries) {
    loader::MapSpec m;
    m.name = name;
    m.section = ".maps";
    m.type = type;
    m.key_size = key;
    m.value_size = value;
    m.max_entries = entries;
    return m;
}

loader::MapSpec global_spec(const char* name, std::vector<uint8_t> initial, bool frozen) {
    loader::MapSpec m = map_spec(name, loader::kMapArray, 4, uint32_t(initial.size()), 1);
    m.section = name;
    m.global_data = true;
    m.frozen = frozen;
    m.map_flags = loader::kMapFlagMmapable | (frozen ? loader::kMapFlagRdonlyProg : 0);
    m.initial = std::move(initial);
    return m;
}

std::vector<uint8_t> rodata_bytes() {
    std::vector<uint8_t> b(64, 0);
    auto put = [&](int32_t off, const char* s) { std::memcpy(b.data() + off, s, std::strlen(s) + 1); };
    put(kRodataAbc, "abc");
    put(kRodataHello, "hello");
    put(kRodataFmt, "%d %x\n");
    put(kRodataLong, "the quick brown fox jumps ove"); // 29 bytes + NUL, ends at 62
    b[63] = 'z';                                       // the last byte: a string without NUL
    return b;
}

struct Counter {
    uint64_t total = 0, accepted = 0, structured = 0, structured_accepted = 0;
};
std::mutex g_counters_mu;
std::map<std::string, Counter>* g_counters = nullptr;

void print_counters() {
    std::lock_guard<std::mutex> lock(g_counters_mu);
    if (!g_counters)
        return;
    for (const auto& [name, c] : *g_counters) {
        const uint64_t raw = c.total - c.structured, raw_acc = c.accepted - c.structured_accepted;
        std::fprintf(stderr, "%s: %llu programs, %llu accepted (%.1f%%); structured %llu/%llu, raw %llu/%llu\n",
                     name.c_str(), (unsigned long long)c.total, (unsigned long long)c.accepted,
                     c.total ? 100.0 * double(c.accepted) / double(c.total) : 0.0,
                     (unsigned long long)c.structured_accepted, (unsigned long long)c.structured,
                     (unsigned long long)raw_acc, (unsigned long long)raw);
    }
}

// Findings reported to the owners of the code at fault and not fixed yet: (name, text the finding contains).
// Each has a reproducer in tests/fuzz/<target>/open/; remove the row when it is fixed (and move the file up).
// Empty now: the first one (bpf_skb_load_bytes accepted in syscall programs) was fixed in src/verifier.
constexpr std::array<std::pair<const char*, const char*>, 0> kKnownOpen{};

const char* known_open(const std::string& what) {
    for (const auto& [name, text] : kKnownOpen)
        if (what.find(text) != std::string::npos)
            return name;
    return nullptr;
}

} // namespace

FuzzProgram decode_program(const uint8_t* data, size_t size, bool deterministic) {
    ByteReader in(data, size);
    FuzzProgram p;
    const uint8_t mode = in.u8();
    p.structured = (mode & 3) != 3;
    p.type = (mode & 4) ? loader::ProgType::xdp : loader::ProgType::syscall;
    const size_t wanted = in.u8(); // read before remaining(): argument evaluation order is unspecified
    const size_t n = std::min(wanted, in.remaining());
    p.ctx_prefix.assign(in.data(), in.data() + n);
    in.skip(n);
    if (p.structured) {
        p.insns = generate_program(p.type, in, deterministic);
    } else {
        const size_t count = std::min(in.remaining() / sizeof(isa::Insn), kMaxRawInsns);
        p.insns.resize(count);
        if (count)
            std::memcpy(p.insns.data(), in.data(), count * sizeof(isa::Insn));
    }
    return p;
}

loader::ObjectSpec make_object(const FuzzProgram& p) {
    loader::ObjectSpec obj;
    obj.path = "fuzz.bpf.o"; // global data maps named as libbpf names an object "fuzz"'s (fuzz.rodata, fuzz.bss)
    obj.license = "GPL";
    obj.maps.push_back(map_spec("arr", loader::kMapArray, 4, 64, 1));
    obj.maps.push_back(map_spec("hash", loader::kMapHash, 8, 16, 8));
    obj.maps.push_back(global_spec(".rodata", rodata_bytes(), true));
    obj.maps.push_back(global_spec(".bss", std::vector<uint8_t>(128, 0), false));
    obj.maps.push_back(map_spec("rb", loader::kMapRingbuf, 0, 0, 4096));
    obj.maps.push_back(map_spec("pcpu", loader::kMapPercpuArray, 4, 32, 2));
    obj.maps.push_back(map_spec("lru", loader::kMapLruHash, 8, 8, 4));
    for (const runtime::KfuncProto& k : runtime::kfunc_table())
        obj.kfuncs.push_back(k.name);
    loader::ProgramSpec prog;
    prog.name = "fuzz";
    prog.section = p.type == loader::ProgType::xdp             ? "xdp"
                   : p.type == loader::ProgType::socket_filter ? "socket"
                                                               : "syscall";
    prog.type = p.type;
    prog.insns = p.insns;
    prog.funcs.push_back(loader::FuncInfo{0, "fuzz", 0});
    obj.programs.push_back(std::move(prog));
    return obj;
}

Loaded load(const FuzzProgram& p) {
    Loaded l;
    l.spec = std::make_shared<const loader::ObjectSpec>(make_object(p));
    auto inst = runtime::ObjectInstance::create(l.spec);
    if (!inst)
        finding("harness: cannot instantiate the fixed object: " + inst.error().message);
    l.inst = std::move(inst).value();
    const runtime::LinkedProgram& lp = l.inst->programs().front();
    if (lp.linked)
        l.prog = &lp;
    return l;
}

verifier::Verdict verify(const Loaded& l) {
    verifier::Verdict v = verifier::verify(*l.inst, l.spec->programs.front());
    if (l.prog) {
        runtime::ProgramCache& c = *l.prog->cache;
        std::lock_guard<std::mutex> lock(c.mu);
        c.verified = true;
        c.accepted = v.ok;
        c.reason = v.reason;
        c.program = v.program;
    }
    return v;
}

exec::RunRequest run_request(const FuzzProgram& p) {
    exec::RunRequest req;
    if (p.type == loader::ProgType::xdp) {
        req.data_in.assign(14 + p.ctx_prefix.size(), 0);
        std::copy(p.ctx_prefix.begin(), p.ctx_prefix.end(), req.data_in.begin());
    } else {
        req.ctx_in.assign(kSyscallCtxSize, 0);
        std::copy(p.ctx_prefix.begin(), p.ctx_prefix.end(), req.ctx_in.begin());
    }
    return req;
}

bool calls_helper(const FuzzProgram& p, int32_t id) {
    for (const isa::Insn& i : p.insns)
        if (i.opcode == (isa::BPF_JMP | isa::BPF_CALL) && i.src == 0 && i.imm == id)
            return true;
    return false;
}

bool calls_nondeterministic_helper(const FuzzProgram& p) {
    // bpf_ktime_get_ns, bpf_trace_printk, bpf_get_prandom_u32, bpf_ktime_get_boot_ns
    return calls_helper(p, 5) || calls_helper(p, 6) || calls_helper(p, 7) || calls_helper(p, 125);
}

void count_reason(const std::string& reason) {
    static std::mutex mu;
    static std::map<std::string, uint64_t>* reasons = nullptr;
    std::lock_guard<std::mutex> lock(mu);
    if (!reasons) {
        reasons = new std::map<std::string, uint64_t>();
        std::atexit([] {
            std::vector<std::pair<uint64_t, std::string>> by_count;
            for (const auto& [r, n] : *reasons)
                by_count.emplace_back(n, r);
            std::sort(by_count.rbegin(), by_count.rend());
            for (size_t i = 0; i < by_count.size() && i < 25; i++)
                std::fprintf(stderr, "%8llu  %s\n", (unsigned long long)by_count[i].first, by_count[i].second.c_str());
        });
    }
    // Numbers vary per program; the reason's words are what matter.
    std::string key;
    for (char c : reason.substr(0, 70))
        key += (c >= '0' && c <= '9') ? '#' : c;
    (*reasons)[key]++;
}

void count_verdict(const char* target, bool structured, bool accepted, const std::string& reason) {
    if (structured && !accepted && std::getenv("STRBPF_FUZZ_REASONS"))
        count_reason(reason);
    uint64_t total;
    {
        std::lock_guard<std::mutex> lock(g_counters_mu);
        if (!g_counters) {
            g_counters = new std::map<std::string, Counter>();
            if (std::getenv("STRBPF_FUZZ_QUIET") == nullptr)
                std::atexit(print_counters);
        }
        Counter& c = (*g_counters)[target];
        c.total++;
        c.accepted += accepted;
        c.structured += structured;
        c.structured_accepted += structured && accepted;
        total = c.total;
    }
    if (total >= 4096 && (total & (total - 1)) == 0 && std::getenv("STRBPF_FUZZ_QUIET") == nullptr)
        print_counters();
}

void finding(const std::string& what) {
    if (const char* open = known_open(what); open && std::getenv("STRBPF_FUZZ_STRICT") == nullptr) {
        static std::mutex mu;
        static std::map<std::string, uint64_t> seen;
        std::lock_guard<std::mutex> lock(mu);
        if (seen[open]++ == 0)
            std::fprintf(stderr, "strbpf fuzz: known open finding '%s' (not aborting): %s\n", open, what.c_str());
        return;
    }
    std::fprintf(stderr, "strbpf fuzz finding: %s\n", what.c_str());
    std::fflush(stderr);
    if (std::getenv("STRBPF_FUZZ_CONTINUE") == nullptr)
        std::abort();
}

} // namespace strbpf::fuzz
