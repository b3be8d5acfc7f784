// SPDX-License-Identifier: BSD-2-Clause
// bpf_trace_printk (6), bpf_trace_vprintk (177) and bpf_get_current_pid_tgid (14), runtime stage. The format rules are
// those of the kernel's bpf_bprintf_prepare (kernel/bpf/helpers.c): at most 3 conversions (bpf_trace_vprintk: data_len
// / 8) of [0 +-]*[width] followed by %d %i %u %x %X with l/ll, %c, %s, %p; printable ASCII only. The message goes to
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

namespace strbpf::runtime {
namespace {

constexpr size_t kMaxOut = 1024; // MAX_BPRINTF_BUF
constexpr uint32_t kMaxVarargs = 12; // MAX_BPRINTF_VARARGS

// Appends one conversion's text; `spec` is the conversion as written ("%-08lx"). False on an invalid one.
bool format_one(std::string& spec, char conv, int lcount, uint64_t arg, RunContext* ctx, std::string& out) {
    char buf[600];
    int n = 0;
    if (conv == 's') {
        char tmp[512];
        const uint64_t span = ctx->mem.readable_span(arg);
        size_t i = 0;
        for (; i + 1 < sizeof tmp && i < span; i++) {
            tmp[i] = reinterpret_cast<const char*>(arg)[i];
            if (!tmp[i])
                break;
        }
        if (i >= span) // the string runs out of readable memory: a faulting read, printed as ""
            i = 0;
        tmp[i] = 0;
        n = std::snprintf(buf, sizeof buf, spec.c_str(), tmp);
    } else if (conv == 'c') {
        n = std::snprintf(buf, sizeof buf, spec.c_str(), int(uint8_t(arg)));
    } else if (conv == 'p') {
        n = std::snprintf(buf, sizeof buf, spec.c_str(), reinterpret_cast<void*>(arg));
    } else if (lcount == 0) {
        const bool sign = conv == 'd' || conv == 'i';
        n = sign ? std::snprintf(buf, sizeof buf, spec.c_str(), int(int32_t(arg)))
                 : std::snprintf(buf, sizeof buf, spec.c_str(), unsigned(uint32_t(arg)));
    } else {
        spec.replace(spec.size() - 1 - size_t(lcount), size_t(lcount), "ll");
        const bool sign = conv == 'd' || conv == 'i';
        n = sign ? std::snprintf(buf, sizeof buf, spec.c_str(), (long long)int64_t(arg))
                 : std::snprintf(buf, sizeof buf, spec.c_str(), (unsigned long long)arg);
    }
    if (n < 0)
        return false;
    out.append(buf, std::min<size_t>(size_t(n), sizeof buf - 1));
    return true;
}

// Formats fmt[0..len) with up to num_args arguments; -EINVAL on what bpf_bprintf_prepare refuses.
int format(const char* fmt, size_t len, const uint64_t* args, int num_args, RunContext* ctx, std::string& out) {
    int used = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = uint8_t(fmt[i]);
        if (c > 0x7e || (c < 0x20 && !(c >= '\t' && c <= '\r')))
            return -EINVAL;
        if (c != '%') {
            out += char(c);
            continue;
        }
        if (fmt[i + 1] == '%') {
            out += '%';
            i++;
            continue;
        }
        if (used >= num_args)
            return -EINVAL;
        const size_t start = i++;
        while (fmt[i] == '0' || fmt[i] == '+' || fmt[i] == '-' || fmt[i] == ' ')
            i++;
        while (fmt[i] >= '0' && fmt[i] <= '9')
            i++;
        int lcount = 0;
        char conv = fmt[i];
        if (conv != 'p' && conv != 's' && conv != 'c') {
            while (fmt[i] == 'l' && lcount < 2)
                i++, lcount++;
            conv = fmt[i];
            if (conv != 'i' && conv != 'd' && conv != 'u' && conv != 'x' && conv != 'X')
                return -EINVAL;
        }
        std::string spec(fmt + start, i + 1 - start);
        if (!format_one(spec, conv, lcount, args[used++], ctx, out))
            return -EINVAL;
    }
    return 0;
}

// Formats and writes one trace line; returns its length or -EINVAL.
uint64_t print(const char* f, size_t len, const uint64_t* args, int num_args, RunContext* ctx) {
    std::string out;
    if (const int err = format(f, len, args, num_args, ctx, out))
        return uint64_t(int64_t(err));
    if (out.size() > kMaxOut - 1)
        out.resize(kMaxOut - 1);
    if (ctx->trace_out) { // one line per call, as trace_pipe ends every event with a newline
        std::fwrite(out.data(), 1, out.size(), ctx->trace_out);
        std::fputc('\n', ctx->trace_out);
        std::fflush(ctx->trace_out);
    }
    return out.size();
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
