// SPDX-License-Identifier: BSD-2-Clause
// The string-kernel dispatch (runtime stage): one table of function pointers per backend (serial, SSE2, AVX2,
// AVX-512BW), chosen once from CPUID at first use; tests and benchmarks may pin a backend, and STRBPF_STRINGS_HIDE
// makes this process act as a CPU without some backends.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/strings/serial.hpp"

namespace strbpf::runtime::strings {

// Every backend computes exactly the serial results (serial.hpp documents each entry).
struct StringOps {
    const char* name;
    int (*cmp)(Str s1, Str s2, uint64_t limit, bool icase);
    int (*nchr)(Str s, uint64_t count, uint8_t c);
    int (*chrnul)(Str s, uint8_t c);
    int (*rchr)(Str s, int32_t c);
    int (*nlen)(Str s, uint64_t count);
    int (*spn)(Str s, Str accept);
    int (*cspn)(Str s, Str reject);
    int (*nstr)(Str s1, Str s2, uint64_t len, bool icase);
    int (*ncmp)(Str s1, uint64_t n, Str s2);
    bool (*has_nul)(const uint8_t* p, uint64_t n);
    // Resumes, for the JIT's inline blocks to hand over where they stopped: cmp, nchr, chrnul, nlen and ncmp when
    // bytes [0, from) are known to hold no stop (readable in every string, no NUL, equal, not c). The answer is the
    // one from 0; a `from` past the scan's bound (limit, span) is taken as that bound.
    int (*cmp_at)(Str s1, Str s2, uint64_t limit, bool icase, uint64_t from);
    int (*nchr_at)(Str s, uint64_t count, uint8_t c, uint64_t from);
    int (*chrnul_at)(Str s, uint8_t c, uint64_t from);
    int (*nlen_at)(Str s, uint64_t count, uint64_t from);
    int (*ncmp_at)(Str s1, uint64_t n, Str s2, uint64_t from);
    // rchr from `from` (no NUL before it), `last` the answer so far (the last c before `from`, or -ENOENT).
    int (*rchr_at)(Str s, int32_t c, uint64_t from, int last);
};

enum class Backend : uint8_t { serial, sse2, avx2, avx512 };
const char* backend_name(Backend b);

constexpr Backend kAllBackends[] = {Backend::serial, Backend::sse2, Backend::avx2, Backend::avx512};

// Backends this process can run, slowest first: serial always; sse2 on every x86-64 CPU; avx2 and avx512 when CPUID
// (and the OS's XCR0) say so. STRBPF_STRINGS_HIDE=avx512,avx2 (read once) hides the listed vector backends as if
// the CPU lacked them, so a host with AVX-512 can run what a host without it runs.
std::vector<Backend> available_backends();
// The table of one backend; nullptr when the CPU lacks it (or it is hidden).
const StringOps* backend_ops(Backend b);
// Why backend_ops(b) is nullptr, naming the fact and this host's value: "CPU lacks AVX-512BW (cpuid 7.0 ebx bit
// 30 = 0)", "... (cpuid ... = 1) but the OS does not enable its register state (XCR0)", or "hidden by
// STRBPF_STRINGS_HIDE=avx512 (the CPU has it)". Empty when the backend is available.
std::string unavailable_reason(Backend b);
// Pins the backend used by ops() (false, and no change, when unavailable). Not for use while programs run.
bool set_backend(Backend b);
Backend current_backend();

namespace detail {
extern std::atomic<const StringOps*> g_ops;
const StringOps* select_default();
} // namespace detail

// The active table: AVX-512BW when the CPU has it (measured faster than AVX2 for every kernel since the scans
// test four vectors per step; see dispatch.cpp), else AVX2, else SSE2, unless set_backend() chose another.
inline const StringOps& ops() {
    const StringOps* o = detail::g_ops.load(std::memory_order_relaxed);
    return o ? *o : *detail::select_default();
}

// The per-backend tables (defined in serial.cpp's sibling files).
extern const StringOps kSerialOps;
extern const StringOps kSse2Ops;
extern const StringOps kAvx2Ops;
extern const StringOps kAvx512Ops;

} // namespace strbpf::runtime::strings
