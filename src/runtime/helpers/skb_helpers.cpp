// bpf_skb_load_bytes (26), runtime stage (net/core/filter.c): copies len bytes at offset from the skb's data, as
// skb_header_pointer does. The user-space __sk_buff (exec/contexts.cpp) carries len at offset 0 and the packet's
// address in data (offset 76).
#include <cerrno>
#include <cstring>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/helpers/skb_helpers.hpp"

namespace strbpf::runtime {

uint64_t bpf_skb_load_bytes_helper(uint64_t skb, uint64_t offset, uint64_t to, uint64_t len, uint64_t,
                                   RunContext* ctx) {
    constexpr uint64_t kLenOff = 0, kDataOff = 76, kSkbSize = 192;
    const uint32_t n = uint32_t(len);
    const Region* r = ctx->mem.find(skb);
    if (!r || r->kind != RegionKind::ctx || r->base != skb || r->size != kSkbSize) {
        ctx->abort("R1 type=scalar expected=ctx (in bpf_skb_load_bytes)");
        return 0;
    }
    if (!checked_mem(to, n, kPermWrite, ctx, "to", "bpf_skb_load_bytes"))
        return 0;
    uint32_t pkt_len, data;
    std::memcpy(&pkt_len, reinterpret_cast<const uint8_t*>(skb) + kLenOff, 4);
    std::memcpy(&data, reinterpret_cast<const uint8_t*>(skb) + kDataOff, 4);
    const uint32_t off = uint32_t(offset);
    if (off > 0x7fffffffu || uint64_t(off) + n > pkt_len || !ctx->mem.check(uint64_t(data) + off, n, kPermRead)) {
        std::memset(reinterpret_cast<void*>(to), 0, n);
        return uint64_t(int64_t(-EFAULT));
    }
    std::memcpy(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(uint64_t(data) + off), n);
    return 0;
}

} // namespace strbpf::runtime
