// SPDX-License-Identifier: BSD-2-Clause
// Micro-benchmarks of the string kernels (runtime stage): each kernel x length x backend (serial, sse2, avx2,
// avx512) beside glibc on the same buffers. Names: <function>/<backend>/<length>.
#include <benchmark/benchmark.h>
#include <strings.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/strings/dispatch.hpp"

namespace {
using namespace strbpf::runtime::strings;

constexpr size_t kBuf = 8192; // every string's span: the strings live in bigger regions, as in BPF maps
const int kLengths[] = {1, 8, 64, 256, 1024, 4095};

struct Buffers {
    alignas(64) char digits[kBuf];  // random '1'..'9', NUL at len
    alignas(64) char digits2[kBuf]; // equal to digits
    alignas(64) char less[kBuf];    // digits with its last byte decremented (the kernel's strncmp bench)
    alignas(64) char upper[kBuf];   // digits, upper-cased letters variant for strcasecmp
    alignas(64) char text[kBuf];    // ordinary words
    alignas(64) char quarter[kBuf]; // digits' last quarter (at least one byte): the needle of `strbpf bench`
    void set(size_t len) {
        std::mt19937 rng(42);
        for (size_t i = 0; i < kBuf; i++)
            digits[i] = char('1' + rng() % 9);
        static const char* words[] = {"the ",  "quick ", "brown ",  "fox ",    "jumps ",  "over ",
                                      "lazy ", "dog ",   "packet ", "filter ", "kernel ", "string "};
        std::string t;
        while (t.size() < kBuf)
            t += words[rng() % 12];
        std::memcpy(text, t.data(), kBuf);
        digits[len] = text[len] = 0;
        std::memcpy(digits2, digits, kBuf);
        std::memcpy(less, digits, kBuf);
        less[len - 1]--;
        for (size_t i = 0; i < kBuf; i++)
            upper[i] = char(std::toupper(static_cast<unsigned char>(text[i])));
        const size_t q = len / 4 ? len / 4 : 1;
        std::memset(quarter, 0, kBuf);
        std::memcpy(quarter, digits + len - q, q);
    }
};

Str S(const char* p) { return Str{reinterpret_cast<const uint8_t*>(p), kBuf}; }
const uint8_t* U(const char* p) { return reinterpret_cast<const uint8_t*>(p); }

enum class Fn {
    strncmp,
    strlen,
    strnlen,
    strcmp,
    strcasecmp,
    strchr_miss,
    strnchr_miss,
    strchrnul_miss,
    strrchr,
    strspn,
    strstr_miss,
    strstr_quarter,
};
const char* fn_name(Fn f) {
    static const char* n[] = {"strncmp_helper", "strlen",         "strnlen", "strcmp", "strcasecmp",  "strchr_miss",
                              "strnchr_miss",   "strchrnul_miss", "strrchr", "strspn", "strstr_miss", "strstr_quarter"};
    return n[int(f)];
}

int run_ops(const StringOps& o, Fn f, const Buffers& b, size_t len) {
    switch (f) {
    case Fn::strncmp:
        return o.ncmp(S(b.less), len + 1, S(b.digits));
    case Fn::strlen:
        return o.nlen(S(b.digits), kMaxLen);
    case Fn::strnlen:
        return o.nlen(S(b.digits), len + 1);
    case Fn::strcmp:
        return o.cmp(S(b.digits), S(b.digits2), kMaxLen, false);
    case Fn::strcasecmp:
        return o.cmp(S(b.text), S(b.upper), kMaxLen, true);
    case Fn::strchr_miss:
        return o.nchr(S(b.digits), kMaxLen, 'x');
    case Fn::strnchr_miss:
        return o.nchr(S(b.digits), len + 1, 'x');
    case Fn::strchrnul_miss:
        return o.chrnul(S(b.digits), 'x');
    case Fn::strrchr:
        return o.rchr(S(b.digits), '5');
    case Fn::strspn:
        return o.spn(S(b.digits), Str{U("123456789"), 10});
    case Fn::strstr_miss:
        return o.nstr(S(b.text), Str{U("zebra"), 6}, kMaxLen, false);
    case Fn::strstr_quarter:
        return o.nstr(S(b.digits), S(b.quarter), kMaxLen, false);
    }
    return 0;
}

long run_glibc(Fn f, const Buffers& b, size_t len) {
    switch (f) {
    case Fn::strncmp:
        return std::strncmp(b.less, b.digits, len + 1);
    case Fn::strlen:
        return long(std::strlen(b.digits));
    case Fn::strnlen:
        return long(::strnlen(b.digits, len + 1));
    case Fn::strcmp:
        return std::strcmp(b.digits, b.digits2);
    case Fn::strcasecmp:
        return ::strcasecmp(b.text, b.upper);
    case Fn::strchr_miss:
        return std::strchr(b.digits, 'x') != nullptr;
    case Fn::strnchr_miss: // glibc has no strnchr: memchr over the same len + 1 bytes, as `strbpf bench` does
        return std::memchr(b.digits, 'x', len + 1) != nullptr;
    case Fn::strchrnul_miss:
        return long(strchrnul(b.digits, 'x') - b.digits);
    case Fn::strrchr:
        return std::strrchr(b.digits, '5') != nullptr;
    case Fn::strspn:
        return long(std::strspn(b.digits, "123456789"));
    case Fn::strstr_miss:
        return std::strstr(b.text, "zebra") != nullptr;
    case Fn::strstr_quarter:
        return std::strstr(b.digits, b.quarter) != nullptr;
    }
    return 0;
}

void register_all() {
    static Buffers bufs[std::size(kLengths)];
    for (size_t k = 0; k < std::size(kLengths); k++)
        bufs[k].set(size_t(kLengths[k]));
    for (int fi = 0; fi <= int(Fn::strstr_quarter); fi++) {
        const Fn f = Fn(fi);
        for (size_t k = 0; k < std::size(kLengths); k++) {
            const Buffers* b = &bufs[k];
            const size_t len = size_t(kLengths[k]);
            for (Backend be : available_backends()) {
                const StringOps* o = backend_ops(be);
                const std::string name = std::string(fn_name(f)) + "/" + backend_name(be) + "/" + std::to_string(len);
                benchmark::RegisterBenchmark(name.c_str(), [o, f, b, len](benchmark::State& st) {
                    for (auto _ : st)
                        benchmark::DoNotOptimize(run_ops(*o, f, *b, len));
                });
            }
            const std::string name = std::string(fn_name(f)) + "/glibc/" + std::to_string(len);
            benchmark::RegisterBenchmark(name.c_str(), [f, b, len](benchmark::State& st) {
                for (auto _ : st) {
                    benchmark::DoNotOptimize(b);
                    benchmark::DoNotOptimize(run_glibc(f, *b, len));
                }
            });
        }
    }
}
} // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
