// SPDX-License-Identifier: BSD-2-Clause
// Fuzz target `strings` (fuzz stage): every string kernel of src/runtime/strings — serial reference vs each vector
// backend the CPU has (SSE2, AVX2, AVX-512BW) — on the same inputs, each string placed so that its span ends at
// a PROT_NONE guard page (optionally after a few junk bytes). Different answers are a finding; a read past a span
// crashes on the guard page.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/byte_reader.hpp"
#include "common/harness.hpp"
#include "runtime/strings/dispatch.hpp"
#include "targets/targets.hpp"

namespace {

using namespace strbpf::runtime::strings;
using strbpf::fuzz::ByteReader;

constexpr size_t kArea = 80 * 1024; // room for strings past the 64 KiB scan cap

// A read-write area followed by a PROT_NONE page; strings are placed to end right at it.
class GuardedArea {
  public:
    GuardedArea() {
        const size_t page = size_t(sysconf(_SC_PAGESIZE));
        total_ = kArea + page;
        void* m = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || mprotect(static_cast<uint8_t*>(m) + kArea, page, PROT_NONE) != 0)
            std::abort();
        end_ = static_cast<uint8_t*>(m) + kArea;
    }
    GuardedArea(const GuardedArea&) = delete;
    GuardedArea& operator=(const GuardedArea&) = delete;
    // The bytes, then `slack` junk bytes, ending at the guard page; the span covers both.
    Str place(const std::vector<uint8_t>& bytes, size_t slack, uint8_t junk) {
        uint8_t* p = end_ - slack - bytes.size();
        if (!bytes.empty())
            std::memcpy(p, bytes.data(), bytes.size());
        std::memset(p + bytes.size(), junk, slack);
        return Str{p, bytes.size() + slack};
    }

  private:
    uint8_t* end_ = nullptr;
    size_t total_ = 0;
};

constexpr uint64_t kLimits[] = {0,    1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 65535, 65536, 65537, (1ull << 32) + 1,
                                ~0ull};

uint64_t read_limit(ByteReader& in) {
    const uint8_t k = in.u8();
    if (k < 128)
        return kLimits[k % std::size(kLimits)];
    if (k < 224)
        return in.u8();
    return in.u64();
}

// Grows a string to about 64 KiB by repeating it (the -E2BIG edges), without a NUL unless it had one.
void stretch(std::vector<uint8_t>& s, ByteReader& in) {
    if (s.empty())
        s.push_back('a');
    const size_t target = 65536 - 16 + in.u8() % 32;
    const size_t n = s.size();
    while (s.size() < target)
        s.push_back(s[s.size() % n]);
}

struct Case {
    Str s1, s2;
    uint64_t limit;
    int32_t c;
    bool icase;
};

// Each kernel once on `o`, into out (fixed order).
void run_all(const StringOps& o, const Case& k, int* out) {
    const uint8_t c8 = uint8_t(k.c);
    out[0] = o.cmp(k.s1, k.s2, k.limit, k.icase);
    out[1] = o.nchr(k.s1, k.limit, c8);
    out[2] = o.chrnul(k.s1, c8);
    out[3] = o.rchr(k.s1, k.c);
    out[4] = o.nlen(k.s1, k.limit);
    out[5] = o.spn(k.s1, k.s2);
    out[6] = o.cspn(k.s1, k.s2);
    out[7] = o.nstr(k.s1, k.s2, k.limit, k.icase);
    // strncmp's contract: n readable bytes of s1, s2 NUL-terminated within its span.
    const uint64_t n = k.limit < k.s1.span ? k.limit : k.s1.span;
    out[8] = serial::has_nul(k.s2.p, k.s2.span) ? o.ncmp(k.s1, n, k.s2) : 0;
    out[9] = o.has_nul(k.s1.p, n);
}

constexpr const char* kNames[] = {"cmp", "nchr", "chrnul", "rchr", "nlen", "spn", "cspn", "nstr", "ncmp", "has_nul"};

} // namespace

int strbpf_fuzz_strings(const uint8_t* data, size_t size) {
    static GuardedArea a1, a2;
    static const std::vector<Backend> backends = available_backends();
    ByteReader in(data, size);
    const uint8_t flags = in.u8();
    Case k{};
    k.limit = read_limit(in);
    k.c = (flags & 8) ? int32_t(in.u32()) : int32_t(in.u8());
    k.icase = flags & 1;
    const size_t slack1 = in.u8() % 4, slack2 = in.u8() % 4;
    const uint8_t junk = (flags & 16) ? 0 : uint8_t('a' + in.u8() % 3);
    const size_t split = in.remaining() ? in.u16() % (in.remaining() + 1) : 0;
    std::vector<uint8_t> b1(in.data(), in.data() + std::min(split, in.remaining()));
    in.skip(b1.size());
    std::vector<uint8_t> b2(in.data(), in.data() + in.remaining());
    // One string at most grows to ~64 KiB, and then the other keeps at most 64 bytes: the span and substring
    // kernels are O(|s1| x |s2|), as the kernel's loops are.
    if ((flags & 6) == 2) {
        stretch(b1, in);
        b2.resize(std::min<size_t>(b2.size(), 64));
    } else if ((flags & 6) == 4) {
        stretch(b2, in);
        b1.resize(std::min<size_t>(b1.size(), 64));
    }
    k.s1 = a1.place(b1, slack1, junk);
    k.s2 = a2.place(b2, slack2, junk);
    int want[10], got[10];
    run_all(kSerialOps, k, want);
    for (Backend b : backends) {
        if (b == Backend::serial)
            continue;
        run_all(*backend_ops(b), k, got);
        for (int i = 0; i < 10; i++)
            if (got[i] != want[i])
                strbpf::fuzz::finding(fmt::format("strings: {} on {} = {}, serial = {} (s1 {} bytes, s2 {} bytes, "
                                                  "limit {}, c {}, icase {})",
                                                  kNames[i], backend_name(b), got[i], want[i], k.s1.span, k.s2.span,
                                                  k.limit, k.c, k.icase));
    }
    return 0;
}
