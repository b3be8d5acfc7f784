// The string-kernel dispatch (runtime stage): one table of function pointers per backend (serial, SSE2, AVX2,
// AVX-512BW), chosen once from CPUID at first use; tests and benchmarks may pin a backend.
#pragma once
#include <atomic>
#include <cstdint>
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
};

enum class Backend : uint8_t { serial, sse2, avx2, avx512 };
const char* backend_name(Backend b);

// Backends this CPU can run, slowest first (serial and sse2 always).
std::vector<Backend> available_backends();
// The table of one backend; nullptr when the CPU lacks it.
const StringOps* backend_ops(Backend b);
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
