// SPDX-License-Identifier: BSD-2-Clause
// The XDP test-run buffer and the helpers on it (runtime stage), after net/bpf/test_run.c and net/core/filter.c:
// one zero-filled page holding XDP_PACKET_HEADROOM, the linear data and skb_shared_info at its end, frags beyond the
// linear part, and bpf_xdp_adjust_head/_meta/_tail, bpf_xdp_get_buff_len and bpf_xdp_load/store_bytes over it.
#pragma once
#include <cstdint>

#include "runtime/context.hpp"
#include "runtime/ctx_model.hpp"

namespace strbpf::runtime {

struct XdpMd { // struct xdp_md (include/uapi/linux/bpf.h): what ctx_in and ctx_out hold
    uint32_t data, data_end, data_meta, ingress_ifindex, rx_queue_index, egress_ifindex;
};

// The xdp_buff of one test run. The program's ctx pointer points at `model` (the first member), the XdpModel the
// verifier rewrites xdp_md accesses onto (runtime/ctx_model.hpp); publish() keeps its 64-bit pointers equal to the
// buffer's. The pointers, the frags and the region slots are the truth helpers use.
struct XdpBuff {
    static constexpr uint32_t kHeadroom = 256;        // XDP_PACKET_HEADROOM
    static constexpr uint32_t kFrameSize = 4096;      // PAGE_SIZE: the linear buffer's frame_sz and each frag's size
    static constexpr uint32_t kSharedInfoSize = 320;  // SKB_DATA_ALIGN(sizeof(struct skb_shared_info))
    static constexpr uint32_t kMaxLinear = kFrameSize - kHeadroom - kSharedInfoSize; // 3520
    static constexpr uint32_t kMaxFrags = 17;         // MAX_SKB_FRAGS
    static constexpr uint32_t kXdpFrameSize = 40;     // sizeof(struct xdp_frame): headroom data/meta never enter
    static constexpr uint32_t kEthHlen = 14;

    struct Frag {
        uint8_t* page = nullptr; // kFrameSize bytes
        uint32_t len = 0;        // skb_frag_size (the frag's offset is 0 in test runs)
    };

    XdpModel model{};
    uint8_t* hard_start = nullptr; // kFrameSize bytes, zero-filled before the packet is copied in
    uint8_t* data_meta = nullptr;
    uint8_t* data = nullptr;
    uint8_t* data_end = nullptr;
    uint32_t nr_frags = 0;
    uint32_t frags_size = 0; // sinfo->xdp_frags_size
    bool has_frags = false;  // XDP_FLAGS_HAS_FRAGS
    Frag frags[kMaxFrags];
    Region* packet_region = nullptr; // this run's packet region (data_meta..data_end), moved by publish()

    uint8_t* shared_info() const { return hard_start + kFrameSize - kSharedInfoSize; } // xdp_data_hard_end
    uint32_t linear_len() const { return uint32_t(data_end - data); }
    uint32_t buff_len() const { return linear_len() + (has_frags ? frags_size : 0); } // xdp_get_buff_len

    // Registers the packet (data_meta..data_end, read-write) and then the whole page as packet room
    // (runtime/memory/nofault.hpp): find() answers the packet for its bytes, the room for the rest.
    bool add_regions(RunMemory& mem);
    // After the pointers or frags moved: the model, the packet region and the skb_shared_info bytes the kernel keeps
    // (nr_frags, xdp_frags_size, each frag's page, size and offset) that nofault reads of the tailroom see.
    void publish();
    // bpf_xdp_copy_buf: copies [off, off+len) of linear data and frags into (to_packet false) or from buf.
    void copy(uint32_t off, uint8_t* buf, uint32_t len, bool to_packet) const;
};

// The XdpBuff a ctx argument points at (its model), or nullptr (after aborting the run) when it is not this run's
// XdpBuff model.
XdpBuff* xdp_buff_of(uint64_t ctx_arg, RunContext* ctx, const char* helper);
extern const char kXdpBuffRegionName[]; // the name of the ctx region an XdpBuff's model is registered under

// bpf_xdp_adjust_head(xdp, delta). Returns: 0; -EINVAL when data would leave [hard_start + sizeof(xdp_frame) +
// metalen, data_end - ETH_HLEN]. The metadata moves with data.
uint64_t bpf_xdp_adjust_head_helper(uint64_t r1, uint64_t r2, uint64_t, uint64_t, uint64_t, RunContext* ctx);
// bpf_xdp_adjust_meta(xdp, delta). Returns: 0; -EINVAL when data_meta would leave [hard_start +
// sizeof(xdp_frame), data]; -EACCES for a metadata length not a multiple of 4 or above 255.
uint64_t bpf_xdp_adjust_meta_helper(uint64_t r1, uint64_t r2, uint64_t, uint64_t, uint64_t, RunContext* ctx);
// bpf_xdp_adjust_tail(xdp, delta). Returns: 0; -EINVAL past the shared info (linear) or the last frag's page,
// or when fewer than ETH_HLEN bytes would remain. Growing zeroes the new bytes; shrinking leaves old ones in place.
uint64_t bpf_xdp_adjust_tail_helper(uint64_t r1, uint64_t r2, uint64_t, uint64_t, uint64_t, RunContext* ctx);
// bpf_xdp_get_buff_len(xdp): linear data plus frags.
uint64_t bpf_xdp_get_buff_len_helper(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
// bpf_xdp_load_bytes(xdp, offset, buf, len) / bpf_xdp_store_bytes: over linear data and frags.
// Returns: 0; -EFAULT for offset or len above 0xffff; -EINVAL past bpf_xdp_get_buff_len.
uint64_t bpf_xdp_load_bytes_helper(uint64_t xdp, uint64_t offset, uint64_t buf, uint64_t len, uint64_t,
                                   RunContext* ctx);
uint64_t bpf_xdp_store_bytes_helper(uint64_t xdp, uint64_t offset, uint64_t buf, uint64_t len, uint64_t,
                                    RunContext* ctx);

} // namespace strbpf::runtime
