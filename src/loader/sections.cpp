// SPDX-License-Identifier: BSD-2-Clause
// Program types from SEC() names (loader stage): libbpf 1.7's section_defs table as data — every section prefix
// with its program type, expected attach type and flags — and libbpf's matching rules.
#include <string_view>

#include "loader/loader.hpp"

namespace strbpf::loader {
namespace {

using AT = AttachType;

// `pattern` ending in '+' matches the exact name or name + "/..."; ending in '/' matches any name starting with
// it; otherwise it must match exactly (libbpf's sec_def_matches).
bool section_matches(std::string_view sec, std::string_view pattern) {
    if (pattern.back() == '/')
        return sec.starts_with(pattern);
    if (pattern.back() == '+') {
        pattern.remove_suffix(1);
        if (!sec.starts_with(pattern))
            return false;
        return sec.size() == pattern.size() || sec[pattern.size()] == '/';
    }
    return sec == pattern;
}

// In libbpf's order: the first match wins ("sk_reuseport/migrate" before "sk_reuseport", "xdp.frags/devmap"
// before "xdp.frags", ...). Attach type 0 (cgroup_inet_ingress) where libbpf's row says 0.
constexpr SectionDef kSectionDefs[] = {
    {"socket", ProgType::socket_filter, AT::cgroup_inet_ingress, kSecNone},
    {"sk_reuseport/migrate", ProgType::sk_reuseport, AT::sk_reuseport_select_or_migrate, kSecAttachable},
    {"sk_reuseport", ProgType::sk_reuseport, AT::sk_reuseport_select, kSecAttachable},
    {"kprobe+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecNone},
    {"uprobe+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecNone},
    {"uprobe.s+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecSleepable},
    {"kretprobe+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecNone},
    {"uretprobe+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecNone},
    {"uretprobe.s+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecSleepable},
    {"kprobe.multi+", ProgType::kprobe, AT::trace_kprobe_multi, kSecNone},
    {"kretprobe.multi+", ProgType::kprobe, AT::trace_kprobe_multi, kSecNone},
    {"kprobe.session+", ProgType::kprobe, AT::trace_kprobe_session, kSecNone},
    {"uprobe.multi+", ProgType::kprobe, AT::trace_uprobe_multi, kSecNone},
    {"uretprobe.multi+", ProgType::kprobe, AT::trace_uprobe_multi, kSecNone},
    {"uprobe.session+", ProgType::kprobe, AT::trace_uprobe_session, kSecNone},
    {"uprobe.multi.s+", ProgType::kprobe, AT::trace_uprobe_multi, kSecSleepable},
    {"uretprobe.multi.s+", ProgType::kprobe, AT::trace_uprobe_multi, kSecSleepable},
    {"uprobe.session.s+", ProgType::kprobe, AT::trace_uprobe_session, kSecSleepable},
    {"ksyscall+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecNone},
    {"kretsyscall+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecNone},
    {"usdt+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecUsdt},
    {"usdt.s+", ProgType::kprobe, AT::cgroup_inet_ingress, kSecUsdt | kSecSleepable},
    {"tc/ingress", ProgType::sched_cls, AT::tcx_ingress, kSecNone},
    {"tc/egress", ProgType::sched_cls, AT::tcx_egress, kSecNone},
    {"tcx/ingress", ProgType::sched_cls, AT::tcx_ingress, kSecNone},
    {"tcx/egress", ProgType::sched_cls, AT::tcx_egress, kSecNone},
    {"tc", ProgType::sched_cls, AT::cgroup_inet_ingress, kSecNone},
    {"classifier", ProgType::sched_cls, AT::cgroup_inet_ingress, kSecNone},
    {"action", ProgType::sched_act, AT::cgroup_inet_ingress, kSecNone},
    {"netkit/primary", ProgType::sched_cls, AT::netkit_primary, kSecNone},
    {"netkit/peer", ProgType::sched_cls, AT::netkit_peer, kSecNone},
    {"tracepoint+", ProgType::tracepoint, AT::cgroup_inet_ingress, kSecNone},
    {"tp+", ProgType::tracepoint, AT::cgroup_inet_ingress, kSecNone},
    {"raw_tracepoint+", ProgType::raw_tracepoint, AT::cgroup_inet_ingress, kSecNone},
    {"raw_tp+", ProgType::raw_tracepoint, AT::cgroup_inet_ingress, kSecNone},
    {"raw_tracepoint.w+", ProgType::raw_tracepoint_writable, AT::cgroup_inet_ingress, kSecNone},
    {"raw_tp.w+", ProgType::raw_tracepoint_writable, AT::cgroup_inet_ingress, kSecNone},
    {"tp_btf+", ProgType::tracing, AT::trace_raw_tp, kSecAttachBtf},
    {"fentry+", ProgType::tracing, AT::trace_fentry, kSecAttachBtf},
    {"fmod_ret+", ProgType::tracing, AT::modify_return, kSecAttachBtf},
    {"fexit+", ProgType::tracing, AT::trace_fexit, kSecAttachBtf},
    {"fentry.s+", ProgType::tracing, AT::trace_fentry, kSecAttachBtf | kSecSleepable},
    {"fmod_ret.s+", ProgType::tracing, AT::modify_return, kSecAttachBtf | kSecSleepable},
    {"fexit.s+", ProgType::tracing, AT::trace_fexit, kSecAttachBtf | kSecSleepable},
    {"fsession+", ProgType::tracing, AT::trace_fsession, kSecAttachBtf},
    {"fsession.s+", ProgType::tracing, AT::trace_fsession, kSecAttachBtf | kSecSleepable},
    {"freplace+", ProgType::ext, AT::cgroup_inet_ingress, kSecAttachBtf},
    {"lsm+", ProgType::lsm, AT::lsm_mac, kSecAttachBtf},
    {"lsm.s+", ProgType::lsm, AT::lsm_mac, kSecAttachBtf | kSecSleepable},
    {"lsm_cgroup+", ProgType::lsm, AT::lsm_cgroup, kSecAttachBtf},
    {"iter+", ProgType::tracing, AT::trace_iter, kSecAttachBtf},
    {"iter.s+", ProgType::tracing, AT::trace_iter, kSecAttachBtf | kSecSleepable},
    {"syscall", ProgType::syscall, AT::cgroup_inet_ingress, kSecSleepable},
    {"xdp.frags/devmap", ProgType::xdp, AT::xdp_devmap, kSecXdpFrags},
    {"xdp/devmap", ProgType::xdp, AT::xdp_devmap, kSecAttachable},
    {"xdp.frags/cpumap", ProgType::xdp, AT::xdp_cpumap, kSecXdpFrags},
    {"xdp/cpumap", ProgType::xdp, AT::xdp_cpumap, kSecAttachable},
    {"xdp.frags", ProgType::xdp, AT::xdp, kSecXdpFrags},
    {"xdp", ProgType::xdp, AT::xdp, kSecAttachableOpt},
    {"perf_event", ProgType::perf_event, AT::cgroup_inet_ingress, kSecNone},
    {"lwt_in", ProgType::lwt_in, AT::cgroup_inet_ingress, kSecNone},
    {"lwt_out", ProgType::lwt_out, AT::cgroup_inet_ingress, kSecNone},
    {"lwt_xmit", ProgType::lwt_xmit, AT::cgroup_inet_ingress, kSecNone},
    {"lwt_seg6local", ProgType::lwt_seg6local, AT::cgroup_inet_ingress, kSecNone},
    {"sockops", ProgType::sock_ops, AT::cgroup_sock_ops, kSecAttachableOpt},
    {"sk_skb/stream_parser", ProgType::sk_skb, AT::sk_skb_stream_parser, kSecAttachableOpt},
    {"sk_skb/stream_verdict", ProgType::sk_skb, AT::sk_skb_stream_verdict, kSecAttachableOpt},
    {"sk_skb/verdict", ProgType::sk_skb, AT::sk_skb_verdict, kSecAttachableOpt},
    {"sk_skb", ProgType::sk_skb, AT::cgroup_inet_ingress, kSecNone},
    {"sk_msg", ProgType::sk_msg, AT::sk_msg_verdict, kSecAttachableOpt},
    {"lirc_mode2", ProgType::lirc_mode2, AT::lirc_mode2, kSecAttachableOpt},
    {"flow_dissector", ProgType::flow_dissector, AT::flow_dissector, kSecAttachableOpt},
    {"cgroup_skb/ingress", ProgType::cgroup_skb, AT::cgroup_inet_ingress, kSecAttachableOpt},
    {"cgroup_skb/egress", ProgType::cgroup_skb, AT::cgroup_inet_egress, kSecAttachableOpt},
    {"cgroup/skb", ProgType::cgroup_skb, AT::cgroup_inet_ingress, kSecNone},
    {"cgroup/sock_create", ProgType::cgroup_sock, AT::cgroup_inet_sock_create, kSecAttachable},
    {"cgroup/sock_release", ProgType::cgroup_sock, AT::cgroup_inet_sock_release, kSecAttachable},
    {"cgroup/sock", ProgType::cgroup_sock, AT::cgroup_inet_sock_create, kSecAttachableOpt},
    {"cgroup/post_bind4", ProgType::cgroup_sock, AT::cgroup_inet4_post_bind, kSecAttachable},
    {"cgroup/post_bind6", ProgType::cgroup_sock, AT::cgroup_inet6_post_bind, kSecAttachable},
    {"cgroup/bind4", ProgType::cgroup_sock_addr, AT::cgroup_inet4_bind, kSecAttachable},
    {"cgroup/bind6", ProgType::cgroup_sock_addr, AT::cgroup_inet6_bind, kSecAttachable},
    {"cgroup/connect4", ProgType::cgroup_sock_addr, AT::cgroup_inet4_connect, kSecAttachable},
    {"cgroup/connect6", ProgType::cgroup_sock_addr, AT::cgroup_inet6_connect, kSecAttachable},
    {"cgroup/connect_unix", ProgType::cgroup_sock_addr, AT::cgroup_unix_connect, kSecAttachable},
    {"cgroup/sendmsg4", ProgType::cgroup_sock_addr, AT::cgroup_udp4_sendmsg, kSecAttachable},
    {"cgroup/sendmsg6", ProgType::cgroup_sock_addr, AT::cgroup_udp6_sendmsg, kSecAttachable},
    {"cgroup/sendmsg_unix", ProgType::cgroup_sock_addr, AT::cgroup_unix_sendmsg, kSecAttachable},
    {"cgroup/recvmsg4", ProgType::cgroup_sock_addr, AT::cgroup_udp4_recvmsg, kSecAttachable},
    {"cgroup/recvmsg6", ProgType::cgroup_sock_addr, AT::cgroup_udp6_recvmsg, kSecAttachable},
    {"cgroup/recvmsg_unix", ProgType::cgroup_sock_addr, AT::cgroup_unix_recvmsg, kSecAttachable},
    {"cgroup/getpeername4", ProgType::cgroup_sock_addr, AT::cgroup_inet4_getpeername, kSecAttachable},
    {"cgroup/getpeername6", ProgType::cgroup_sock_addr, AT::cgroup_inet6_getpeername, kSecAttachable},
    {"cgroup/getpeername_unix", ProgType::cgroup_sock_addr, AT::cgroup_unix_getpeername, kSecAttachable},
    {"cgroup/getsockname4", ProgType::cgroup_sock_addr, AT::cgroup_inet4_getsockname, kSecAttachable},
    {"cgroup/getsockname6", ProgType::cgroup_sock_addr, AT::cgroup_inet6_getsockname, kSecAttachable},
    {"cgroup/getsockname_unix", ProgType::cgroup_sock_addr, AT::cgroup_unix_getsockname, kSecAttachable},
    {"cgroup/sysctl", ProgType::cgroup_sysctl, AT::cgroup_sysctl, kSecAttachable},
    {"cgroup/getsockopt", ProgType::cgroup_sockopt, AT::cgroup_getsockopt, kSecAttachable},
    {"cgroup/setsockopt", ProgType::cgroup_sockopt, AT::cgroup_setsockopt, kSecAttachable},
    {"cgroup/dev", ProgType::cgroup_device, AT::cgroup_device, kSecAttachableOpt},
    {"struct_ops+", ProgType::struct_ops, AT::cgroup_inet_ingress, kSecNone},
    {"struct_ops.s+", ProgType::struct_ops, AT::cgroup_inet_ingress, kSecSleepable},
    {"sk_lookup", ProgType::sk_lookup, AT::sk_lookup, kSecAttachable},
    {"netfilter", ProgType::netfilter, AT::netfilter, kSecNone},
};

} // namespace

const SectionDef* find_section_def(std::string_view section) {
    if (!section.empty() && section.front() == '?')
        section.remove_prefix(1);
    if (section.empty())
        return nullptr;
    for (const SectionDef& d : kSectionDefs)
        if (section_matches(section, d.pattern))
            return &d;
    return nullptr;
}

std::span<const SectionDef> section_defs() { return kSectionDefs; }

bool prog_type_from_section(const std::string& section, ProgType* type) {
    const SectionDef* d = find_section_def(section);
    if (d)
        *type = d->type;
    return d != nullptr;
}

} // namespace strbpf::loader
