// SPDX-License-Identifier: BSD-2-Clause
// Packet helpers for skb programs (runtime stage), on the test-run packet (exec/contexts.cpp): a linear buffer
// whose address is in the SkbModel's data field (runtime/ctx_model.hpp). The xdp ones are in xdp_helpers.hpp.
// bpf_skb_load_bytes: Returns: 0; -EFAULT (offset + len past the packet; `to` is zeroed). On a flow dissector's
// ctx (bpf_flow_dissector_load_bytes) always -EFAULT with `to` zeroed: test runs have no skb.
// bpf_skb_store_bytes: Returns: 0; -EINVAL (flags other than BPF_F_RECOMPUTE_CSUM | BPF_F_INVALIDATE_HASH);
//   -EFAULT (offset above INT_MAX, or offset + len past the packet).
// bpf_l3_csum_replace / bpf_l4_csum_replace: Returns: 0; -EINVAL (unknown flags, field size not 0, 2 or 4, or
//   from != 0 with size 0); -EFAULT (odd offset, offset above 0xffff, or the 2-byte checksum past the packet).
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_skb_load_bytes_helper(uint64_t skb, uint64_t offset, uint64_t to, uint64_t len, uint64_t, RunContext*);
uint64_t bpf_skb_store_bytes_helper(uint64_t skb, uint64_t offset, uint64_t from, uint64_t len, uint64_t flags,
                                    RunContext*);
uint64_t bpf_l3_csum_replace_helper(uint64_t skb, uint64_t offset, uint64_t from, uint64_t to, uint64_t flags,
                                    RunContext*);
uint64_t bpf_l4_csum_replace_helper(uint64_t skb, uint64_t offset, uint64_t from, uint64_t to, uint64_t flags,
                                    RunContext*);
} // namespace strbpf::runtime
