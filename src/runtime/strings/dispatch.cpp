// SPDX-License-Identifier: BSD-2-Clause
// The string-kernel dispatch (runtime stage): CPUID selection and the test/benchmark override.
#include "runtime/strings/dispatch.hpp"

#include <cpuid.h>

#include <array>
#include <cstdlib>
#include <cstring>

namespace strbpf::runtime::strings {

const StringOps kSerialOps = {
    "serial",       serial::cmp,     serial::nchr,      serial::chrnul, serial::rchr,
    serial::nlen,   serial::spn,     serial::cspn,      serial::nstr,   serial::ncmp,
    serial::has_nul, serial::cmp_at, serial::nchr_at,   serial::chrnul_at, serial::nlen_at,
    serial::ncmp_at, serial::rchr_at,
};

namespace detail {
std::atomic<const StringOps*> g_ops{nullptr};

const StringOps* select_default() {
    const StringOps* best = &kSerialOps;
    if (const StringOps* o = backend_ops(Backend::sse2))
        best = o;
    if (const StringOps* o = backend_ops(Backend::avx2))
        best = o;
    // AVX-512BW measured faster than AVX2 for cmp/ncmp/nlen/nchr/rchr/spn/nstr at 8..4095 bytes (bench/strings_bench
    // on Zen 4, four-vector blocks with one combined test); masked loads also make its short-string path cheaper.
    if (const StringOps* o = backend_ops(Backend::avx512))
        best = o;
    const StringOps* expected = nullptr;
    g_ops.compare_exchange_strong(expected, best, std::memory_order_relaxed);
    return g_ops.load(std::memory_order_relaxed);
}
} // namespace detail

const char* backend_name(Backend b) {
    switch (b) {
    case Backend::serial:
        return "serial";
    case Backend::sse2:
        return "sse2";
    case Backend::avx2:
        return "avx2";
    case Backend::avx512:
        return "avx512";
    }
    return "?";
}

namespace {

// One CPU feature a backend needs: its CPUID bit, and whether the process may use it (__builtin_cpu_supports also
// checks that the OS enabled the register state in XCR0).
struct Feature {
    const char* name;
    unsigned leaf, subleaf;
    const char* reg; // "ebx", "ecx", "edx"
    unsigned bit;
    bool (*usable)();
};

const Feature kSse2{"SSE2", 1, 0, "edx", 26, [] { return bool(__builtin_cpu_supports("sse2")); }};
const Feature kAvx2Needs[] = {
    {"AVX2", 7, 0, "ebx", 5, [] { return bool(__builtin_cpu_supports("avx2")); }},
    {"BMI1", 7, 0, "ebx", 3, [] { return bool(__builtin_cpu_supports("bmi")); }},
    {"BMI2", 7, 0, "ebx", 8, [] { return bool(__builtin_cpu_supports("bmi2")); }},
    {"POPCNT", 1, 0, "ecx", 23, [] { return bool(__builtin_cpu_supports("popcnt")); }},
};
const Feature kAvx512Needs[] = {
    // and everything AVX2's backend needs
    {"AVX-512F", 7, 0, "ebx", 16, [] { return bool(__builtin_cpu_supports("avx512f")); }},
    {"AVX-512BW", 7, 0, "ebx", 30, [] { return bool(__builtin_cpu_supports("avx512bw")); }},
    {"AVX-512VL", 7, 0, "ebx", 31, [] { return bool(__builtin_cpu_supports("avx512vl")); }},
};

unsigned cpuid_bit(const Feature& f) {
    unsigned r[4] = {0, 0, 0, 0}; // eax, ebx, ecx, edx
    if (!__get_cpuid_count(f.leaf, f.subleaf, &r[0], &r[1], &r[2], &r[3]))
        return 0;
    const unsigned v = std::strcmp(f.reg, "ebx") == 0 ? r[1] : std::strcmp(f.reg, "ecx") == 0 ? r[2] : r[3];
    return (v >> f.bit) & 1;
}

// "" when usable, else the fact and this CPU's value.
std::string missing(const Feature& f) {
    __builtin_cpu_init();
    if (f.usable())
        return "";
    const unsigned bit = cpuid_bit(f);
    std::string where = "cpuid " + std::to_string(f.leaf) + "." + std::to_string(f.subleaf) + " " + f.reg + " bit " +
                        std::to_string(f.bit) + " = " + std::to_string(bit);
    if (bit)
        return std::string("CPU reports ") + f.name + " (" + where +
               ") but the OS does not enable its register state (XCR0)";
    return std::string("CPU lacks ") + f.name + " (" + where + ")";
}

std::string cpu_missing(Backend b) {
    switch (b) {
    case Backend::serial:
        return "";
    case Backend::sse2:
        return missing(kSse2);
    case Backend::avx512:
        for (const Feature& f : kAvx512Needs)
            if (std::string m = missing(f); !m.empty())
                return m;
        [[fallthrough]];
    case Backend::avx2:
        for (const Feature& f : kAvx2Needs)
            if (std::string m = missing(f); !m.empty())
                return m;
        return "";
    }
    return "unknown backend";
}

// STRBPF_STRINGS_HIDE, read once: the vector backends this process acts as if the CPU lacked.
const std::string& hide_list() {
    static const std::string list = [] {
        const char* e = std::getenv("STRBPF_STRINGS_HIDE");
        return std::string(e ? e : "");
    }();
    return list;
}

bool hidden(Backend b) {
    if (b == Backend::serial) // the reference every backend is checked against
        return false;
    const std::string& list = hide_list();
    const std::string name = backend_name(b);
    for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        if (list.compare(at, comma - at, name) == 0)
            return true;
        at = comma + 1;
    }
    return false;
}

const StringOps* table(Backend b) {
    switch (b) {
    case Backend::serial:
        return &kSerialOps;
    case Backend::sse2:
        return &kSse2Ops;
    case Backend::avx2:
        return &kAvx2Ops;
    case Backend::avx512:
        return &kAvx512Ops;
    }
    return nullptr;
}

} // namespace

std::string unavailable_reason(Backend b) {
    if (std::string m = cpu_missing(b); !m.empty())
        return m;
    if (hidden(b))
        return "hidden by STRBPF_STRINGS_HIDE=" + hide_list() + " (the CPU has it)";
    return "";
}

const StringOps* backend_ops(Backend b) {
    static const auto usable = [] {
        std::array<bool, std::size(kAllBackends)> u{};
        for (Backend k : kAllBackends)
            u[size_t(k)] = unavailable_reason(k).empty();
        return u;
    }();
    return size_t(b) < usable.size() && usable[size_t(b)] ? table(b) : nullptr;
}

std::vector<Backend> available_backends() {
    std::vector<Backend> out;
    for (Backend b : kAllBackends)
        if (backend_ops(b))
            out.push_back(b);
    return out;
}

bool set_backend(Backend b) {
    const StringOps* o = backend_ops(b);
    if (!o)
        return false;
    detail::g_ops.store(o, std::memory_order_relaxed);
    return true;
}

Backend current_backend() {
    const StringOps* o = &ops();
    for (Backend b : kAllBackends)
        if (backend_ops(b) == o)
            return b;
    return Backend::serial;
}

} // namespace strbpf::runtime::strings
