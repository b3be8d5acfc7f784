// SPDX-License-Identifier: BSD-2-Clause
// The redirect helpers in test runs (runtime stage). See redirect_helpers.hpp.
#include "runtime/helpers/redirect_helpers.hpp"

#include <fmt/format.h>

#include "runtime/ctx_model.hpp"
#include "runtime/helpers/helper_checks.hpp"
#include "runtime/maps/redirect_maps.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kTcActShot = 2, kTcActRedirect = 7;     // include/uapi/linux/pkt_cls.h
constexpr uint64_t kXdpAborted = 0, kXdpRedirect = 4;      // enum xdp_action
constexpr uint64_t kBpfFIngress = 1;                       // BPF_F_INGRESS
constexpr uint64_t kXdpActionMask = 3;                     // XDP_ABORTED | XDP_DROP | XDP_PASS | XDP_TX
constexpr int64_t kRedirNeighSize = 20;                    // sizeof(struct bpf_redir_neigh)

} // namespace

// One helper id, two protos: the engines call one function per id, so the run's ctx model (an xdp_buff in xdp
// runs, set by every engine's run setup) tells bpf_xdp_redirect from tc's bpf_redirect.
uint64_t bpf_redirect_helper(uint64_t ifindex, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (ctx->ctx_model == uint8_t(CtxModel::xdp))
        return bpf_xdp_redirect_helper(ifindex, flags, 0, 0, 0, ctx);
    return flags & ~kBpfFIngress ? kTcActShot : kTcActRedirect;
}

uint64_t bpf_xdp_redirect_helper(uint64_t, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext*) {
    return flags ? kXdpAborted : kXdpRedirect;
}

uint64_t bpf_redirect_peer_helper(uint64_t, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext*) {
    return flags ? kTcActShot : kTcActRedirect;
}

// plen is an int compared with a size_t: a negative one is a huge size, not a short one.
uint64_t bpf_redirect_neigh_helper(uint64_t, uint64_t, uint64_t plen, uint64_t flags, uint64_t, RunContext*) {
    const uint64_t len = uint64_t(int64_t(int32_t(uint32_t(plen))));
    return (len && len < uint64_t(kRedirNeighSize)) || flags ? kTcActShot : kTcActRedirect;
}

uint64_t bpf_redirect_map_helper(uint64_t map, uint64_t key, uint64_t flags, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_redirect_map");
    if (!m)
        return 0;
    RedirectMap* r = as_redirect_map(m);
    if (!r) {
        ctx->abort(fmt::format("cannot pass map_type {} into func bpf_redirect_map#51", m->spec().type));
        return 0;
    }
    if (flags & ~(kXdpActionMask | r->redirect_flags()))
        return kXdpAborted;
    if (!r->redirect_target(uint32_t(key)) && !(flags & kBpfFBroadcast))
        return flags & kXdpActionMask;
    return kXdpRedirect;
}

} // namespace strbpf::runtime
