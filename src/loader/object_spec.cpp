// SPDX-License-Identifier: BSD-2-Clause
// ObjectSpec look-ups (loader stage).
#include "loader/object_spec.hpp"

namespace strbpf::loader {

const ProgramSpec* ObjectSpec::find_program(const std::string& name) const {
    for (const auto& p : programs)
        if (p.name == name)
            return &p;
    return nullptr;
}

int ObjectSpec::find_map(const std::string& name) const {
    for (size_t i = 0; i < maps.size(); i++)
        if (maps[i].name == name)
            return int(i);
    return -1;
}

const char* prog_type_name(ProgType t) {
    switch (t) {
    case ProgType::unspec: return "unspec";
    case ProgType::socket_filter: return "socket_filter";
    case ProgType::kprobe: return "kprobe";
    case ProgType::sched_cls: return "sched_cls";
    case ProgType::sched_act: return "sched_act";
    case ProgType::tracepoint: return "tracepoint";
    case ProgType::xdp: return "xdp";
    case ProgType::perf_event: return "perf_event";
    case ProgType::cgroup_skb: return "cgroup_skb";
    case ProgType::cgroup_sock: return "cgroup_sock";
    case ProgType::lwt_in: return "lwt_in";
    case ProgType::lwt_out: return "lwt_out";
    case ProgType::lwt_xmit: return "lwt_xmit";
    case ProgType::sock_ops: return "sock_ops";
    case ProgType::sk_skb: return "sk_skb";
    case ProgType::cgroup_device: return "cgroup_device";
    case ProgType::sk_msg: return "sk_msg";
    case ProgType::raw_tracepoint: return "raw_tracepoint";
    case ProgType::cgroup_sock_addr: return "cgroup_sock_addr";
    case ProgType::lwt_seg6local: return "lwt_seg6local";
    case ProgType::lirc_mode2: return "lirc_mode2";
    case ProgType::sk_reuseport: return "sk_reuseport";
    case ProgType::flow_dissector: return "flow_dissector";
    case ProgType::cgroup_sysctl: return "cgroup_sysctl";
    case ProgType::raw_tracepoint_writable: return "raw_tracepoint_writable";
    case ProgType::cgroup_sockopt: return "cgroup_sockopt";
    case ProgType::tracing: return "tracing";
    case ProgType::struct_ops: return "struct_ops";
    case ProgType::ext: return "ext";
    case ProgType::lsm: return "lsm";
    case ProgType::sk_lookup: return "sk_lookup";
    case ProgType::syscall: return "syscall";
    case ProgType::netfilter: return "netfilter";
    }
    return "unknown";
}

} // namespace strbpf::loader
