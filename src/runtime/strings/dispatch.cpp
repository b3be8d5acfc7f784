// The string-kernel dispatch (runtime stage): CPUID selection and the test/benchmark override.
#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime::strings {

const StringOps kSerialOps = {
    "serial",    serial::cmp,  serial::nchr, serial::chrnul, serial::rchr,    serial::nlen,
    serial::spn, serial::cspn, serial::nstr, serial::ncmp,   serial::has_nul,
};

namespace detail {
std::atomic<const StringOps*> g_ops{nullptr};

const StringOps* select_default() {
    const StringOps* best = backend_ops(Backend::sse2);
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

const StringOps* backend_ops(Backend b) {
    __builtin_cpu_init();
    switch (b) {
    case Backend::serial:
        return &kSerialOps;
    case Backend::sse2:
        return &kSse2Ops;
    case Backend::avx2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
                       __builtin_cpu_supports("popcnt")
                   ? &kAvx2Ops
                   : nullptr;
    case Backend::avx512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                       __builtin_cpu_supports("avx512vl") && backend_ops(Backend::avx2)
                   ? &kAvx512Ops
                   : nullptr;
    }
    return nullptr;
}

std::vector<Backend> available_backends() {
    std::vector<Backend> out;
    for (Backend b : {Backend::serial, Backend::sse2, Backend::avx2, Backend::avx512})
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
    for (Backend b : {Backend::serial, Backend::sse2, Backend::avx2, Backend::avx512})
        if (backend_ops(b) == o)
            return b;
    return Backend::serial;
}

} // namespace strbpf::runtime::strings
