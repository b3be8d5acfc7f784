// SPDX-License-Identifier: BSD-2-Clause
// bpf_trace_printk (6), bpf_trace_vprintk (177) and bpf_get_current_pid_tgid (14), runtime stage. The format rules are
// those of the kernel's bpf_bprintf_prepare, shared with bpf_snprintf (snprintf_helpers.hpp): at most 3 conversions
// (bpf_trace_vprintk: data_len / 8). The message goes to
// RunContext::trace_out (stderr unless the embedder set another stream) followed by a newline, as trace_pipe prints
// each event on its own line; %s reads program memory and prints "" where
// the kernel's read would fault.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/helpers/memory_helpers.hpp"
#include "runtime/helpers/snprintf_helpers.hpp"

namespace strbpf::runtime {
namespace {

constexpr size_t kMaxOut = 1024; // MAX_BPRINTF_BUF
constexpr uint32_t kMaxVarargs = kMaxBprintfVarargs;

// Formats and writes one trace line (at most MAX_BPRINTF_BUF - 1 characters); returns the whole text's length, as
// the kernel's bstr_printf does, or the format's error.
uint64_t print(const char* f, size_t len, const uint64_t* args, int num_args, RunContext* ctx) {
    std::string out;
    if (const int err = bprintf_format(f, len + 1, args, uint32_t(num_args), ctx, &out))
        return uint64_t(int64_t(err));
    const size_t whole = out.size();
    if (out.size() > kMaxOut - 1)
        out.resize(kMaxOut - 1);
    if (ctx->trace_out) { // one line per call, as trace_pipe ends every event with a newline
        std::fwrite(out.data(), 1, out.size(), ctx->trace_out);
        std::fputc('\n', ctx->trace_out);
        std::fflush(ctx->trace_out);
    }
    return whole;
}

} // namespace

uint64_t bpf_trace_printk_helper(uint64_t fmt, uint64_t fmt_size, uint64_t a1, uint64_t a2, uint64_t a3,
                                 RunContext* ctx) {
    const uint32_t n = uint32_t(fmt_size);
    if (!checked_mem(fmt, n, kPermRead, ctx, "fmt", "bpf_trace_printk"))
        return 0;
    const char* f = reinterpret_cast<const char*>(fmt);
    const void* nul = std::memchr(f, 0, n);
    if (!nul)
        return uint64_t(int64_t(-EINVAL));
    const uint64_t args[3] = {a1, a2, a3};
    return print(f, size_t(static_cast<const char*>(nul) - f), args, 3, ctx);
}

// bpf_trace_vprintk: the arguments are data_len / 8 u64 values at `data`, at most MAX_BPRINTF_VARARGS (12).
uint64_t bpf_trace_vprintk_helper(uint64_t fmt, uint64_t fmt_size, uint64_t data, uint64_t data_len, uint64_t,
                                  RunContext* ctx) {
    const uint32_t n = uint32_t(fmt_size), dlen = uint32_t(data_len);
    if (!checked_mem(fmt, n, kPermRead, ctx, "fmt", "bpf_trace_vprintk") ||
        (dlen && !checked_mem(data, dlen, kPermRead, ctx, "data", "bpf_trace_vprintk")))
        return 0;
    if ((dlen & 7) || dlen > kMaxVarargs * 8 || (dlen && !data))
        return uint64_t(int64_t(-EINVAL));
    const char* f = reinterpret_cast<const char*>(fmt);
    const void* nul = std::memchr(f, 0, n);
    if (!nul)
        return uint64_t(int64_t(-EINVAL));
    uint64_t args[kMaxVarargs] = {};
    if (dlen)
        std::memcpy(args, reinterpret_cast<const void*>(data), dlen);
    return print(f, size_t(static_cast<const char*>(nul) - f), args, int(dlen / 8), ctx);
}

uint64_t bpf_get_current_pid_tgid_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    return (uint64_t(uint32_t(getpid())) << 32) | uint32_t(gettid());
}

} // namespace strbpf::runtime
