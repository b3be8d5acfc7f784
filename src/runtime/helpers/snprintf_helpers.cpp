// SPDX-License-Identifier: BSD-2-Clause
// bpf_snprintf and the printf-like helpers' format rules (runtime stage). See snprintf_helpers.hpp. One pass over
// the format both checks it (the verifier's call, without arguments) and formats it (a run): each conversion is
// decoded, its argument's bytes are counted against the 512-byte argument buffer, and its text is padded as the
// kernel's vsnprintf pads (numbers with zeros after the sign or with spaces, everything else with spaces).
#include "runtime/helpers/snprintf_helpers.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/memory/nofault.hpp"

namespace strbpf::runtime {
namespace {

constexpr size_t kBinArgs = 512;        // MAX_BPRINTF_BIN_ARGS
constexpr int kMaxWidth = (1 << 23) - 1; // a field width is a 24-bit field in the kernel's printf_spec

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_punct(char c) { return c > ' ' && c < 0x7f && !std::isalnum(static_cast<unsigned char>(c)); }
// What may follow %s, %pks, %pus and a bare %p.
bool ends_conversion(char c) { return c == 0 || is_space(c) || is_punct(c); }

struct Spec {
    bool left = false, zero = false, plus = false, space = false;
    int width = -1; // -1: none
};

// The text padded to the field width: spaces on the left (right with '-').
void pad(std::string* out, const std::string& text, const Spec& s) {
    const size_t w = s.width > 0 ? size_t(s.width) : 0;
    if (!s.left && text.size() < w)
        out->append(w - text.size(), ' ');
    *out += text;
    if (s.left && text.size() < w)
        out->append(w - text.size(), ' ');
}

// A number as the kernel's number() prints it: sign ('-', or '+' / ' ' for signed conversions), zero padding
// after the sign unless left-justified.
void number(std::string* out, uint64_t v, bool is_signed, bool negative, int base, bool upper, const Spec& s) {
    std::string digits = base == 16 ? (upper ? fmt::format("{:X}", v) : fmt::format("{:x}", v)) : fmt::format("{}", v);
    std::string sign;
    if (is_signed)
        sign = negative ? "-" : s.plus ? "+" : s.space ? " " : "";
    const size_t w = s.width > 0 ? size_t(s.width) : 0, len = sign.size() + digits.size();
    if (s.zero && !s.left && len < w)
        digits.insert(0, w - len, '0');
    pad(out, sign + digits, s);
}

class Bprintf {
  public:
    Bprintf(const char* f, size_t n, const uint64_t* args, uint32_t nargs, RunContext* ctx, std::string* out)
        : f_(f), n_(n), args_(args), nargs_(nargs), ctx_(ctx), out_(out) {}

    int run() {
        for (i_ = 0; i_ < n_; i_++) {
            const char c = f_[i_];
            if (static_cast<unsigned char>(c) > 0x7e || (c < 0x20 && !is_space(c)))
                return -EINVAL;
            if (c != '%') {
                emit(std::string(1, c));
                continue;
            }
            if (f_[i_ + 1] == '%') {
                emit("%");
                i_++;
                continue;
            }
            if (spec_ >= nargs_)
                return -EINVAL;
            i_++;
            if (int err = conversion(); err)
                return err;
            spec_++;
        }
        return 0;
    }

  private:
    bool formatting() const { return out_ != nullptr; }
    void emit(const std::string& s) {
        if (out_)
            *out_ += s;
    }
    uint64_t arg() const { return args_ ? args_[spec_] : 0; }

    Spec decode_flags() {
        Spec s;
        for (;; i_++) {
            const char c = f_[i_];
            if (c == '-')
                s.left = true;
            else if (c == '0')
                s.zero = true;
            else if (c == '+')
                s.plus = true;
            else if (c == ' ')
                s.space = true;
            else
                break;
        }
        if (f_[i_] >= '1' && f_[i_] <= '9') {
            int64_t w = 0;
            for (; f_[i_] >= '0' && f_[i_] <= '9'; i_++)
                w = std::min<int64_t>(w * 10 + (f_[i_] - '0'), kMaxWidth);
            s.width = int(w);
        }
        return s;
    }

    // Reserves `size` bytes of the argument buffer, 4-aligned (integers and pointers).
    int reserve_aligned(size_t size) {
        used_ = (used_ + 3) & ~size_t(3);
        if (kBinArgs - std::min(used_, kBinArgs) < size)
            return -ENOSPC;
        used_ += size;
        return 0;
    }

    int conversion() {
        const Spec s = decode_flags();
        const char c = f_[i_];
        if (c == 'p')
            return pointer(s);
        if (c == 's')
            return string(s, 'k');
        if (c == 'c') {
            if (formatting()) {
                if (used_ >= kBinArgs)
                    return -ENOSPC;
                used_++;
                pad(out_, std::string(1, char(uint8_t(arg()))), s);
            }
            return 0;
        }
        size_t size = 4;
        if (f_[i_] == 'l')
            size = 8, i_++;
        if (f_[i_] == 'l')
            i_++;
        const char conv = f_[i_];
        if (conv != 'i' && conv != 'd' && conv != 'u' && conv != 'x' && conv != 'X')
            return -EINVAL;
        if (!formatting())
            return 0;
        if (int err = reserve_aligned(size); err)
            return err;
        const bool is_signed = conv == 'd' || conv == 'i';
        uint64_t v = size == 4 ? uint64_t(uint32_t(arg())) : arg();
        bool negative = false;
        if (is_signed && (size == 4 ? int32_t(v) < 0 : int64_t(v) < 0)) {
            negative = true;
            v = size == 4 ? uint64_t(-int64_t(int32_t(v))) : uint64_t(0) - v;
        }
        number(out_, v, is_signed, negative, conv == 'd' || conv == 'i' || conv == 'u' ? 10 : 16, conv == 'X', s);
        return 0;
    }

    // %s (and %pks / %pus after their prefix): the kernel's strncpy_from_*_nofault into what is left of the
    // argument buffer; a faulting read prints "".
    int string(const Spec& s, char space) {
        if (!ends_conversion(f_[i_ + 1]))
            return -EINVAL;
        if (!formatting())
            return 0;
        if (used_ >= kBinArgs)
            return -ENOSPC;
        const size_t room = kBinArgs - used_;
        const uint64_t addr = arg();
        const uint64_t span = space == 'k' && ctx_ ? nofault_span(ctx_->mem, addr) : 0;
        const char* p = reinterpret_cast<const char*>(addr);
        const size_t scan = size_t(std::min<uint64_t>(span, room));
        const void* nul = scan ? std::memchr(p, 0, scan) : nullptr;
        std::string text;
        if (nul) {
            text.assign(p, size_t(static_cast<const char*>(nul) - p));
            used_ += text.size() + 1;
        } else if (span >= room) { // cut where the buffer ends
            text.assign(p, room - 1);
            used_ = kBinArgs;
        } else {
            used_ += 1;
        }
        pad(out_, text, s);
        return 0;
    }

    // The %p family; i_ is at the 'p'.
    int pointer(const Spec& s) {
        const char x = f_[i_ + 1];
        if (ends_conversion(x))
            return plain_pointer(s, false, true);
        if ((x == 'k' || x == 'u') && f_[i_ + 2] == 's') {
            i_ += 2;
            return string(s, x);
        }
        if (x == 'K' || x == 'x') {
            i_++;
            return plain_pointer(s, false, x == 'K');
        }
        if (x == 's' || x == 'S' || x == 'B') {
            i_++;
            return plain_pointer(s, true, false);
        }
        if ((x != 'i' && x != 'I') || (f_[i_ + 2] != '4' && f_[i_ + 2] != '6'))
            return -EINVAL;
        i_ += 2;
        return address(s, x == 'I', f_[i_] == '4');
    }

    // A pointer's 16 hex digits (zero-padded unless a width is given), or a symbol's "0x..." text: strbpf has no
    // kernel symbols. The kernel's %pK is %p when kptr_restrict is 0.
    int plain_pointer(const Spec& s, bool symbol, bool hashed) {
        if (!formatting())
            return 0;
        if (int err = reserve_aligned(8); err)
            return err;
        if (symbol) {
            pad(out_, fmt::format("0x{:x}", arg()), s);
            return 0;
        }
        Spec p = s;
        if (p.width < 0) {
            p.width = 16;
            p.zero = true;
        }
        // %p and %pK: the kernel prints a 32-bit hash of the pointer (per boot); strbpf its low 32 bits.
        // NULL and error pointers (the last 4095 addresses) print as they are.
        const bool plain = arg() == 0 || arg() >= uint64_t(-4095);
        number(out_, hashed && !plain ? uint32_t(arg()) : arg(), false, false, 16, false, p);
        return 0;
    }

    // %pI4 "1.2.3.4", %pi4 "001.002.003.004", %pI6 eight colon-separated groups, %pi6 32 hex digits; the bytes
    // are read without faulting (zeros where they cannot be).
    int address(const Spec& s, bool dotted, bool v4) {
        if (!formatting())
            return 0;
        const size_t n = v4 ? 4 : 16;
        if (kBinArgs - std::min(used_, kBinArgs) < n)
            return -ENOSPC;
        uint8_t b[16] = {};
        if (ctx_ && nofault_readable(ctx_->mem, arg(), n))
            std::memcpy(b, reinterpret_cast<const void*>(arg()), n);
        std::string text;
        for (size_t k = 0; k < n; k++) {
            if (v4)
                text += dotted ? fmt::format("{}{}", k ? "." : "", b[k]) : fmt::format("{}{:03}", k ? "." : "", b[k]);
            else
                text += fmt::format("{}{:02x}", dotted && k && k % 2 == 0 ? ":" : "", b[k]);
        }
        const size_t room = kBinArgs - used_;
        if (text.size() >= room)
            text.resize(room - 1);
        used_ = std::min(kBinArgs, used_ + text.size() + 1);
        pad(out_, text, s);
        return 0;
    }

    const char* f_;
    size_t n_;
    const uint64_t* args_;
    uint32_t nargs_;
    RunContext* ctx_;
    std::string* out_;
    size_t i_ = 0, used_ = 0;
    uint32_t spec_ = 0;
};

} // namespace

int bprintf_check(const char* fmt, size_t size, uint32_t num_args) {
    const void* nul = std::memchr(fmt, 0, size);
    if (!nul)
        return -EINVAL;
    return Bprintf(fmt, size_t(static_cast<const char*>(nul) - fmt), nullptr, num_args, nullptr, nullptr).run();
}

int bprintf_format(const char* fmt, size_t size, const uint64_t* args, uint32_t num_args, RunContext* ctx,
                   std::string* out) {
    const void* nul = std::memchr(fmt, 0, size);
    if (!nul)
        return -EINVAL;
    return Bprintf(fmt, size_t(static_cast<const char*>(nul) - fmt), args, num_args, ctx, out).run();
}

uint64_t bpf_snprintf_helper(uint64_t str, uint64_t str_size, uint64_t fmt, uint64_t data, uint64_t data_len,
                             RunContext* ctx) {
    const uint32_t size = uint32_t(str_size), dlen = uint32_t(data_len);
    if ((size && !checked_mem(str, size, kPermWrite, ctx, "str", "bpf_snprintf")) ||
        (dlen && data && !checked_mem(data, dlen, kPermRead, ctx, "data", "bpf_snprintf")))
        return 0;
    if (dlen % 8 || dlen > kMaxBprintfVarargs * 8 || (dlen && !data))
        return uint64_t(int64_t(-EINVAL));
    uint64_t args[kMaxBprintfVarargs] = {};
    if (dlen)
        std::memcpy(args, reinterpret_cast<const void*>(data), dlen);
    // The verifier proved fmt a NUL-terminated string of a read-only map; its readable span bounds the search.
    const uint64_t span = ctx->mem.readable_span(fmt);
    std::string out;
    if (const int err = bprintf_format(reinterpret_cast<const char*>(fmt), size_t(span), args, dlen / 8, ctx, &out))
        return uint64_t(int64_t(err));
    if (size) {
        const size_t n = std::min<size_t>(out.size(), size - 1);
        std::memcpy(reinterpret_cast<void*>(str), out.data(), n);
        reinterpret_cast<char*>(str)[n] = 0;
    }
    return out.size() + 1;
}

} // namespace strbpf::runtime
