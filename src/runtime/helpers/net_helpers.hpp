// SPDX-License-Identifier: BSD-2-Clause
// Helpers that ask about the network the test run's packet is in (runtime stage, net/core/filter.c): the
// namespace's cookie and the device's MTU. A test run's skb and xdp_buff are on the loopback device of the
// calling process's network namespace (bpf_prog_test_run_skb/_xdp), or on the device its ctx_in names; strbpf
// asks the host for the same device's facts.
//
// bpf_get_netns_cookie(ctx): the cookie of the namespace of the ctx's socket (the test run's socket is in the
//   caller's namespace: SO_NETNS_COOKIE), init_net's for NULL. strbpf knows init_net's cookie only when the process
//   runs in it; elsewhere a NULL call ends the run naming that limit.
// bpf_check_mtu(ctx, ifindex, &mtu_len, len_diff, flags): the device (the packet's for ifindex 0, else ifindex in
//   the same namespace) and its MTU; the length checked is *mtu_len + hard_header_len when *mtu_len is set, else
//   the packet's (skb->len, xdp data_end - data), plus len_diff. Returns: 0 (BPF_MTU_CHK_RET_SUCCESS) or 1
//   (FRAG_NEEDED), *mtu_len set to the device's MTU; -EINVAL (unknown flags; BPF_MTU_CHK_SEGS with len_diff or
//   *mtu_len; any flag for xdp; BPF_MTU_CHK_SEGS on a GSO skb without a transport header, which test runs never
//   set); -ENODEV (no such device). A device whose hard_header_len strbpf cannot derive (other than Ethernet and
//   loopback) ends the run naming it.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_get_netns_cookie_helper(uint64_t ctx_arg, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_check_mtu_helper(uint64_t ctx_arg, uint64_t ifindex, uint64_t mtu_len, uint64_t len_diff, uint64_t flags,
                              RunContext* ctx);
} // namespace strbpf::runtime
