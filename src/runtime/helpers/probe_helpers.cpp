// bpf_probe_read_kernel (113) and bpf_probe_read_kernel_str (115), runtime stage (kernel/trace/bpf_trace.c,
// mm/maccess.c). In user space the "kernel" is program-visible memory: an address the kernel's
// copy_from_kernel_nofault_allowed() refuses gives -ERANGE, anything else outside the registry -EFAULT, as a
// faulting read would.
#include <cerrno>
#include <cstring>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/helpers/memory_helpers.hpp"

namespace strbpf::runtime {
namespace {

int64_t fail(uint64_t dst, uint64_t size, int err) {
    std::memset(reinterpret_cast<void*>(dst), 0, size);
    return -err;
}

} // namespace

uint64_t bpf_probe_read_kernel_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t,
                                      RunContext* ctx) {
    const uint32_t n = uint32_t(size);
    if (!checked_mem(dst, n, kPermWrite, ctx, "dst", "bpf_probe_read_kernel"))
        return 0;
    if (n == 0)
        return 0;
    if (ctx->mem.address_refused(src)) // x86-64 copy_from_kernel_nofault_allowed() judges the first byte only
        return uint64_t(fail(dst, n, ERANGE));
    if (!ctx->mem.check(src, n, kPermRead))
        return uint64_t(fail(dst, n, EFAULT));
    std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
    return 0;
}

// strncpy_from_kernel_nofault: copies up to size bytes, stopping after the NUL; without one, the last byte
// copied becomes NUL and the result is size.
uint64_t bpf_probe_read_kernel_str_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t,
                                          RunContext* ctx) {
    const uint32_t n = uint32_t(size);
    if (!checked_mem(dst, n, kPermWrite, ctx, "dst", "bpf_probe_read_kernel_str"))
        return 0;
    if (n == 0)
        return 0;
    if (ctx->mem.address_refused(src))
        return uint64_t(fail(dst, n, ERANGE));
    const uint64_t span = ctx->mem.readable_span(src);
    auto* d = reinterpret_cast<uint8_t*>(dst);
    const auto* s = reinterpret_cast<const uint8_t*>(src);
    for (uint32_t i = 0; i < n; i++) {
        if (i >= span)
            return uint64_t(fail(dst, n, EFAULT));
        d[i] = s[i];
        if (s[i] == 0)
            return i + 1;
    }
    d[n - 1] = 0;
    return n;
}


} // namespace strbpf::runtime
