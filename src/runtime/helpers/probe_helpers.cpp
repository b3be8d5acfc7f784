// SPDX-License-Identifier: BSD-2-Clause
// bpf_probe_read_kernel (113) and bpf_probe_read_kernel_str (115), bpf_probe_read_user (112) and
// bpf_probe_read_user_str (114), and x86-64's compat bpf_probe_read (4) and bpf_probe_read_str (45), runtime stage
// (kernel/trace/bpf_trace.c, mm/maccess.c). In user space the "kernel" is program-visible memory: an address the
// kernel's copy_from_kernel_nofault_allowed() refuses gives -ERANGE, anything else outside the registry -EFAULT,
// as a faulting read would. The run's task has no user memory strbpf can name: program-visible memory is kernel
// memory, which the kernel's user reads refuse, so every user read of a non-zero size faults (-EFAULT, dst
// zeroed). The compat helpers read user memory below TASK_SIZE and kernel memory elsewhere; program-visible
// memory counts as kernel memory wherever the host put it.
#include <cerrno>
#include <cstring>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/helpers/memory_helpers.hpp"
#include "runtime/memory/address_model.hpp"
#include "runtime/memory/nofault.hpp"

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
    if (!nofault_readable(ctx->mem, src, n))
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
    const uint64_t span = nofault_span(ctx->mem, src);
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

// copy_from_user_nofault / strncpy_from_user_nofault on an address the task cannot read: nothing for size 0,
// else -EFAULT with dst zeroed (both helpers answer alike).
uint64_t bpf_probe_read_user_helper(uint64_t dst, uint64_t size, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint32_t n = uint32_t(size);
    if (!checked_mem(dst, n, kPermWrite, ctx, "dst", "bpf_probe_read_user"))
        return 0;
    return n == 0 ? 0 : uint64_t(fail(dst, n, EFAULT));
}

uint64_t bpf_probe_read_user_str_helper(uint64_t dst, uint64_t size, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint32_t n = uint32_t(size);
    if (!checked_mem(dst, n, kPermWrite, ctx, "dst", "bpf_probe_read_user_str"))
        return 0;
    return n == 0 ? 0 : uint64_t(fail(dst, n, EFAULT));
}

namespace {
// bpf_probe_read_compat: an address below TASK_SIZE is a user address unless it is program-visible.
bool compat_reads_kernel(uint64_t src, RunContext* ctx) {
    return ctx->mem.find(src) != nullptr || src >= address_model().task_size_max();
}
} // namespace

uint64_t bpf_probe_read_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t, RunContext* ctx) {
    return compat_reads_kernel(src, ctx) ? bpf_probe_read_kernel_helper(dst, size, src, 0, 0, ctx)
                                         : bpf_probe_read_user_helper(dst, size, src, 0, 0, ctx);
}

uint64_t bpf_probe_read_str_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t, RunContext* ctx) {
    return compat_reads_kernel(src, ctx) ? bpf_probe_read_kernel_str_helper(dst, size, src, 0, 0, ctx)
                                         : bpf_probe_read_user_str_helper(dst, size, src, 0, 0, ctx);
}

} // namespace strbpf::runtime
