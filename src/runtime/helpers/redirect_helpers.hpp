// SPDX-License-Identifier: BSD-2-Clause
// The redirect helpers in test runs (runtime stage, net/core/filter.c of Linux 6.18, checked on the live kernel by
// tests/progs/maps_redirect.bpf.c and tests/unit/dev_maps_test.cpp). BPF_PROG_TEST_RUN without live frames sends
// nothing: the kernel's helpers check their flags, note the target in the CPU's bpf_redirect_info and answer the
// action, and the test run returns the program's answer. strbpf's answer the same actions; they note no target,
// since a test run never reads one.
//
// bpf_redirect(ifindex, flags), tc: TC_ACT_REDIRECT (7); TC_ACT_SHOT (2) for flags other than BPF_F_INGRESS.
// bpf_redirect(ifindex, flags), xdp (bpf_xdp_redirect): XDP_REDIRECT (4); XDP_ABORTED (0) for any flag.
// bpf_redirect_peer(ifindex, flags), tc: TC_ACT_REDIRECT; TC_ACT_SHOT for any flag.
// bpf_redirect_neigh(ifindex, params, plen, flags), tc: TC_ACT_REDIRECT; TC_ACT_SHOT for any flag or a plen
//   (an int) that is neither 0 nor at least sizeof(struct bpf_redir_neigh), 20.
// bpf_redirect_map(map, key, flags), xdp (__bpf_xdp_redirect_map): XDP_ABORTED for flags beyond the fallback action
//   (the low two bits) and the type's own (devmap types: BPF_F_BROADCAST, BPF_F_EXCLUDE_INGRESS); else
//   XDP_REDIRECT when the entry at (u32)key exists or BPF_F_BROADCAST is set, the fallback action otherwise.
// The engines call one function per helper id: bpf_redirect_helper answers for both forms, by the run's ctx model.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_redirect_helper(uint64_t ifindex, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_xdp_redirect_helper(uint64_t ifindex, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_redirect_peer_helper(uint64_t ifindex, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_redirect_neigh_helper(uint64_t ifindex, uint64_t params, uint64_t plen, uint64_t flags, uint64_t,
                                   RunContext* ctx);
uint64_t bpf_redirect_map_helper(uint64_t map, uint64_t key, uint64_t flags, uint64_t, uint64_t, RunContext* ctx);
} // namespace strbpf::runtime
