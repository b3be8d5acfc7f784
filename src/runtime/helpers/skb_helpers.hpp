// Packet helpers for skb programs (runtime stage). bpf_skb_load_bytes: Returns: 0; -EFAULT (offset + len past
// the packet; `to` is zeroed).
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_skb_load_bytes_helper(uint64_t skb, uint64_t offset, uint64_t to, uint64_t len, uint64_t, RunContext*);
} // namespace strbpf::runtime
