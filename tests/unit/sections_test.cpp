// SPDX-License-Identifier: BSD-2-Clause
// libbpf's section table (loader stage): SEC() names to program type, expected attach type and load flags, as
// libbpf 1.7's section_defs decides them, and a program in a section libbpf does not know failing alone.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "loader/loader.hpp"

namespace strbpf::loader {
namespace {

using AT = AttachType;

struct Case {
    const char* section;
    ProgType type;
    AttachType attach;
    uint32_t flags;
};

// One or more names per family of rows, with libbpf's matching rules: "x+" is x or x/..., "x/" needs the slash,
// plain names match exactly, and the first row in libbpf's order wins.
constexpr Case kKnown[] = {
    {"socket", ProgType::socket_filter, AT::cgroup_inet_ingress, kSecNone},
    {"sk_reuseport/migrate", ProgType::sk_reuseport, AT::sk_reuseport_select_or_migrate, kSecAttachable},
    {"sk_reuseport", ProgType::sk_reuseport, AT::sk_reuseport_select, kSecAttachable},
    {"kprobe/do_sys_open", ProgType::kprobe, AT::cgroup_inet_ingress, kSecNone},
    {"uprobe.s/bin:fn", ProgType::kprobe, AT::cgroup_inet_ingress, kSecSleepable},
    {"kprobe.multi/do_*", ProgType::kprobe, AT::trace_kprobe_multi, kSecNone},
    {"kprobe.session", ProgType::kprobe, AT::trace_kprobe_session, kSecNone},
    {"uprobe.multi.s/bin:fn", ProgType::kprobe, AT::trace_uprobe_multi, kSecSleepable},
    {"uprobe.session.s", ProgType::kprobe, AT::trace_uprobe_session, kSecSleepable},
    {"usdt/bin:prov:name", ProgType::kprobe, AT::cgroup_inet_ingress, kSecUsdt},
    {"tc/ingress", ProgType::sched_cls, AT::tcx_ingress, kSecNone},
    {"tcx/egress", ProgType::sched_cls, AT::tcx_egress, kSecNone},
    {"tc", ProgType::sched_cls, AT::cgroup_inet_ingress, kSecNone},
    {"netkit/peer", ProgType::sched_cls, AT::netkit_peer, kSecNone},
    {"action", ProgType::sched_act, AT::cgroup_inet_ingress, kSecNone},
    {"tp/syscalls/sys_enter_openat", ProgType::tracepoint, AT::cgroup_inet_ingress, kSecNone},
    {"raw_tp/sys_enter", ProgType::raw_tracepoint, AT::cgroup_inet_ingress, kSecNone},
    {"raw_tp.w/bpf_test_finish", ProgType::raw_tracepoint_writable, AT::cgroup_inet_ingress, kSecNone},
    {"raw_tracepoint.w", ProgType::raw_tracepoint_writable, AT::cgroup_inet_ingress, kSecNone},
    {"tp_btf/sys_enter", ProgType::tracing, AT::trace_raw_tp, kSecAttachBtf},
    {"fentry/bpf_fentry_test1", ProgType::tracing, AT::trace_fentry, kSecAttachBtf},
    {"fmod_ret.s/x", ProgType::tracing, AT::modify_return, kSecAttachBtf | kSecSleepable},
    {"fexit/x", ProgType::tracing, AT::trace_fexit, kSecAttachBtf},
    {"freplace/x", ProgType::ext, AT::cgroup_inet_ingress, kSecAttachBtf},
    {"lsm/file_open", ProgType::lsm, AT::lsm_mac, kSecAttachBtf},
    {"lsm.s/bpf", ProgType::lsm, AT::lsm_mac, kSecAttachBtf | kSecSleepable},
    {"lsm_cgroup/socket_bind", ProgType::lsm, AT::lsm_cgroup, kSecAttachBtf},
    {"iter/task", ProgType::tracing, AT::trace_iter, kSecAttachBtf},
    {"iter.s/task_file", ProgType::tracing, AT::trace_iter, kSecAttachBtf | kSecSleepable},
    {"syscall", ProgType::syscall, AT::cgroup_inet_ingress, kSecSleepable},
    {"xdp.frags/devmap", ProgType::xdp, AT::xdp_devmap, kSecXdpFrags},
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
    {"sk_skb/verdict", ProgType::sk_skb, AT::sk_skb_verdict, kSecAttachableOpt},
    {"sk_skb", ProgType::sk_skb, AT::cgroup_inet_ingress, kSecNone},
    {"sk_msg", ProgType::sk_msg, AT::sk_msg_verdict, kSecAttachableOpt},
    {"lirc_mode2", ProgType::lirc_mode2, AT::lirc_mode2, kSecAttachableOpt},
    {"flow_dissector", ProgType::flow_dissector, AT::flow_dissector, kSecAttachableOpt},
    {"cgroup_skb/egress", ProgType::cgroup_skb, AT::cgroup_inet_egress, kSecAttachableOpt},
    {"cgroup/skb", ProgType::cgroup_skb, AT::cgroup_inet_ingress, kSecNone},
    {"cgroup/sock", ProgType::cgroup_sock, AT::cgroup_inet_sock_create, kSecAttachableOpt},
    {"cgroup/sock_release", ProgType::cgroup_sock, AT::cgroup_inet_sock_release, kSecAttachable},
    {"cgroup/post_bind6", ProgType::cgroup_sock, AT::cgroup_inet6_post_bind, kSecAttachable},
    {"cgroup/bind4", ProgType::cgroup_sock_addr, AT::cgroup_inet4_bind, kSecAttachable},
    {"cgroup/connect_unix", ProgType::cgroup_sock_addr, AT::cgroup_unix_connect, kSecAttachable},
    {"cgroup/sendmsg6", ProgType::cgroup_sock_addr, AT::cgroup_udp6_sendmsg, kSecAttachable},
    {"cgroup/recvmsg4", ProgType::cgroup_sock_addr, AT::cgroup_udp4_recvmsg, kSecAttachable},
    {"cgroup/getpeername_unix", ProgType::cgroup_sock_addr, AT::cgroup_unix_getpeername, kSecAttachable},
    {"cgroup/getsockname_unix", ProgType::cgroup_sock_addr, AT::cgroup_unix_getsockname, kSecAttachable},
    {"cgroup/sysctl", ProgType::cgroup_sysctl, AT::cgroup_sysctl, kSecAttachable},
    {"cgroup/getsockopt", ProgType::cgroup_sockopt, AT::cgroup_getsockopt, kSecAttachable},
    {"cgroup/setsockopt", ProgType::cgroup_sockopt, AT::cgroup_setsockopt, kSecAttachable},
    {"cgroup/dev", ProgType::cgroup_device, AT::cgroup_device, kSecAttachableOpt},
    {"struct_ops/test_1", ProgType::struct_ops, AT::cgroup_inet_ingress, kSecNone},
    {"struct_ops.s", ProgType::struct_ops, AT::cgroup_inet_ingress, kSecSleepable},
    {"sk_lookup", ProgType::sk_lookup, AT::sk_lookup, kSecAttachable},
    {"netfilter", ProgType::netfilter, AT::netfilter, kSecNone},
    {"?netfilter", ProgType::netfilter, AT::netfilter, kSecNone},
};

TEST(Sections, LibbpfRows) {
    for (const Case& c : kKnown) {
        const SectionDef* d = find_section_def(c.section);
        ASSERT_NE(d, nullptr) << c.section;
        EXPECT_EQ(d->type, c.type) << c.section;
        EXPECT_EQ(d->attach, c.attach) << c.section;
        EXPECT_EQ(d->flags, c.flags) << c.section;
    }
}

TEST(Sections, UnknownNames) {
    // "x/" rows need the slash, plain rows match exactly, "x+" rows take only '/' after the name.
    for (const char* s : {"", "?", ".text", "tcx", "tcx/foo", "xdpx", "syscall/x", "kprobex", "lwt_in/x",
                          "cgroup/skb/x", "cgroup/connect7", "sk_msg/x", "netfilter/x", "fentryx", "no_such_type/foo",
                          "cgroup_skb", "cgroup", "struct_opsx", "sk_lookup/x"})
        EXPECT_EQ(find_section_def(s), nullptr) << s;
}

TEST(Sections, TableIsWhole) {
    // Every prog type the table names, and each pattern once (libbpf 1.7's 105 rows).
    std::set<std::string> patterns;
    std::set<ProgType> types;
    for (const SectionDef& d : section_defs()) {
        EXPECT_TRUE(patterns.insert(d.pattern).second) << d.pattern;
        types.insert(d.type);
    }
    EXPECT_EQ(section_defs().size(), 105u);
    for (ProgType t : {ProgType::socket_filter, ProgType::kprobe, ProgType::sched_cls, ProgType::sched_act,
                       ProgType::tracepoint, ProgType::xdp, ProgType::perf_event, ProgType::cgroup_skb,
                       ProgType::cgroup_sock, ProgType::lwt_in, ProgType::lwt_out, ProgType::lwt_xmit,
                       ProgType::sock_ops, ProgType::sk_skb, ProgType::cgroup_device, ProgType::sk_msg,
                       ProgType::raw_tracepoint, ProgType::cgroup_sock_addr, ProgType::lwt_seg6local,
                       ProgType::lirc_mode2, ProgType::sk_reuseport, ProgType::flow_dissector,
                       ProgType::cgroup_sysctl, ProgType::raw_tracepoint_writable, ProgType::cgroup_sockopt,
                       ProgType::tracing, ProgType::struct_ops, ProgType::ext, ProgType::lsm, ProgType::sk_lookup,
                       ProgType::syscall, ProgType::netfilter})
        EXPECT_EQ(types.count(t), 1u) << prog_type_name(t);
}

// An object with a program in a section libbpf does not know, and one with a call the loader cannot relocate,
// loads; each of those programs alone carries its error.
TEST(Sections, UnknownSectionFailsThatProgramAlone) {
    auto obj = load_object_file(std::string(STRBPF_PROGS_DIR) + "/loader_progtypes.bpf.o");
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    const ProgramSpec* bad = obj->find_program("unknown_sec");
    ASSERT_NE(bad, nullptr);
    EXPECT_EQ(bad->load_error, "prog 'unknown_sec': missing BPF prog type, check ELF section name 'no_such_type/x'");
    EXPECT_EQ(bad->load_error_code, -22);
    EXPECT_FALSE(bad->insns.empty()); // built all the same: disasm shows it
    const ProgramSpec* skb = obj->find_program("cg_skb_egress");
    ASSERT_NE(skb, nullptr);
    EXPECT_TRUE(skb->load_error.empty()) << skb->load_error;
    EXPECT_EQ(skb->type, ProgType::cgroup_skb);
    EXPECT_EQ(skb->expected_attach_type, AT::cgroup_inet_egress);
    const ProgramSpec* sys = obj->find_program("sys_sleepable");
    ASSERT_NE(sys, nullptr);
    EXPECT_TRUE(sys->sleepable);
    EXPECT_FALSE(sys->autoload); // SEC("?syscall")
    const ProgramSpec* frags = obj->find_program("xdp_frags");
    ASSERT_NE(frags, nullptr);
    EXPECT_TRUE(frags->xdp_frags);
    EXPECT_EQ(frags->expected_attach_type, AT::xdp);
    const ProgramSpec* call = obj->find_program("bad_call");
    ASSERT_NE(call, nullptr);
    EXPECT_NE(call->load_error.find("program 'bad_call': "), std::string::npos) << call->load_error;
    EXPECT_NE(call->load_error.find("call with src=6 has no relocation"), std::string::npos) << call->load_error;
    EXPECT_TRUE(call->insns.empty());
    EXPECT_EQ(call->type, ProgType::syscall);
}

} // namespace
} // namespace strbpf::loader
