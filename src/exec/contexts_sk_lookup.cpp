// SPDX-License-Identifier: BSD-2-Clause
// sk_lookup test runs (exec stage), as 6.18's bpf_prog_test_run_sk_lookup builds them: no data, a struct
// bpf_sk_lookup ctx_in (bpf_ctx_init's size rules, then the fields a run may not set), the program's ctx strbpf's
// bpf_sk_lookup_kern model (runtime/ctx_model.hpp), and ctx_out: ctx_in with the selected socket's cookie (a host
// socket a sockmap or sockhash lookup gave, runtime/maps/host_sock.hpp).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "exec/contexts.hpp"
#include "runtime/ctx_model.hpp"
#include "runtime/maps/host_sock.hpp"

#include <sys/socket.h>

namespace strbpf::exec {
namespace {

struct SkLookupCtx { // struct bpf_sk_lookup (include/uapi/linux/bpf.h)
    uint64_t cookie; // sk
    uint32_t family, protocol, remote_ip4, remote_ip6[4];
    uint16_t remote_port, pad;
    uint32_t local_ip4, local_ip6[4], local_port, ingress_ifindex;
    uint32_t tail; // padding to the struct's 8-byte alignment
};
static_assert(sizeof(SkLookupCtx) == 72 && offsetof(SkLookupCtx, remote_port) == 36 &&
              offsetof(SkLookupCtx, ingress_ifindex) == 64);

constexpr uint32_t kAfInet = 2, kAfInet6 = 10;
constexpr size_t kPageSize = 4096; // bpf_check_uarg_tail_zero refuses a larger ctx_in

Status refused(const std::string& why, const char* errno_name, int code) {
    return make_error(fmt::format("{} (the kernel answers {})", why, errno_name), code);
}

// bpf_ctx_init over struct bpf_sk_lookup: at most a page, zero past the struct.
Status sk_lookup_ctx_in(const std::vector<uint8_t>& in, SkLookupCtx* out) {
    *out = SkLookupCtx{};
    if (in.empty())
        return refused("sk_lookup test runs need a ctx_in (struct bpf_sk_lookup)", "-EINVAL", -22);
    if (in.size() > kPageSize)
        return refused(fmt::format("sk_lookup ctx_in is larger than a page ({} bytes)", in.size()), "-E2BIG", -7);
    if (std::any_of(in.begin() + std::min(in.size(), sizeof *out), in.end(), [](uint8_t b) { return b != 0; }))
        return refused("bpf_sk_lookup ctx_in has non-zero bytes past the struct", "-E2BIG", -7);
    std::memcpy(out, in.data(), std::min(in.size(), sizeof *out));
    return ok_status();
}

} // namespace

// The ctx checks of bpf_prog_test_run_sk_lookup in the kernel's order, then the model: family, protocol and the
// local port as the kernel's u16 fields, the addresses of that family only.
Status TestRunContext::build_sk_lookup(const RunRequest& req, runtime::RunContext& ctx, uint64_t* r1) {
    if (!req.data_in.empty())
        return refused("sk_lookup programs take no data_in", "-EINVAL", -22);
    SkLookupCtx u;
    STRBPF_TRY(sk_lookup_ctx_in(ctx_buf_, &u));
    if (u.cookie != 0)
        return refused("bpf_sk_lookup ctx_in sets sk", "-EINVAL", -22);
    if (u.ingress_ifindex != 0 || u.tail != 0)
        return refused("bpf_sk_lookup ctx_in sets bytes past local_port", "-EINVAL", -22);
    if (u.local_port > 0xffff)
        return refused(fmt::format("bpf_sk_lookup local_port {} exceeds 65535", u.local_port), "-ERANGE", -34);
    runtime::SkLookupModel m{};
    m.family = uint16_t(u.family);
    m.protocol = uint16_t(u.protocol);
    m.dport = uint16_t(u.local_port);
    m.sport = u.remote_port;
    if (m.family == kAfInet) {
        m.local_ip4 = u.local_ip4;
        m.remote_ip4 = u.remote_ip4;
    } else if (m.family == kAfInet6) {
        std::memcpy(m.local_ip6, u.local_ip6, sizeof m.local_ip6);
        std::memcpy(m.remote_ip6, u.remote_ip6, sizeof m.remote_ip6);
    } else {
        return refused(fmt::format("bpf_sk_lookup family {} is neither AF_INET nor AF_INET6", m.family),
                       "-EAFNOSUPPORT", -97);
    }
    static_assert(sizeof m <= sizeof ctx_struct_);
    std::memcpy(ctx_struct_, &m, sizeof m);
    ctx_buf_.assign(reinterpret_cast<const uint8_t*>(&u), reinterpret_cast<const uint8_t*>(&u) + sizeof u);
    *r1 = reinterpret_cast<uint64_t>(ctx_struct_);
    if (!runtime::add_ctx_model_region(ctx, runtime::CtxModel::sk_lookup, *r1, runtime::kPermRead, "bpf_sk_lookup"))
        return make_error("too many memory regions for an sk_lookup test run");
    return ok_status();
}

void TestRunContext::clear_sk_lookup_selection() {
    if (type_ == loader::ProgType::sk_lookup)
        reinterpret_cast<runtime::SkLookupModel*>(ctx_struct_)->selected_sk = 0;
}

// After the run: a selected socket with SO_REUSEPORT fails the test run (-EOPNOTSUPP) unless the program asked for
// BPF_SK_LOOKUP_F_NO_REUSEPORT; else bpf_ctx_finish copies ctx_in back with the selected socket's cookie (0: none).
Status TestRunContext::finish_sk_lookup(RunReport* report) const {
    runtime::SkLookupModel m;
    std::memcpy(&m, ctx_struct_, sizeof m);
    uint64_t cookie = 0;
    if (m.selected_sk) {
        if (runtime::host_sock_opt(m.selected_sk, SOL_SOCKET, SO_REUSEPORT) && !m.no_reuseport)
            return refused("the sk_lookup program selected a SO_REUSEPORT socket without "
                           "BPF_SK_LOOKUP_F_NO_REUSEPORT", "-EOPNOTSUPP", -95);
        cookie = runtime::host_sock_cookie_at(m.selected_sk);
    }
    report->ctx_out = ctx_buf_;
    std::memcpy(report->ctx_out.data(), &cookie, sizeof cookie);
    return ok_status();
}

} // namespace strbpf::exec
