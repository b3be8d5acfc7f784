// SPDX-License-Identifier: BSD-2-Clause
// The helper table (runtime stage): one row per helper id of Linux 6.18 (1..211, and per proto variant), the kernel's id,
// name, return and argument kinds, GPL and packet-access columns, the program types whose get_func_proto returns
// it, and proto flags; and the per-id stubs that stand in for helpers strbpf does not implement.
#include "runtime/helpers/helper_table.hpp"
#include "runtime/ctx_model.hpp"
#include "runtime/extensions.hpp"

#include <array>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "runtime/helpers/basic_helpers.hpp"
#include "runtime/helpers/callback_helpers.hpp"
#include "runtime/helpers/cgroup_helpers.hpp"
#include "runtime/helpers/csum_helpers.hpp"
#include "runtime/helpers/dynptr_helpers.hpp"
#include "runtime/helpers/map_helpers.hpp"
#include "runtime/helpers/perf_helpers.hpp"
#include "runtime/helpers/redirect_helpers.hpp"
#include "runtime/helpers/memory_helpers.hpp"
#include "runtime/helpers/net_helpers.hpp"
#include "runtime/helpers/ringbuf_helpers.hpp"
#include "runtime/helpers/skb_helpers.hpp"
#include "runtime/helpers/snprintf_helpers.hpp"
#include "runtime/helpers/sock_helpers.hpp"
#include "runtime/helpers/stack_helpers.hpp"
#include "runtime/helpers/storage_helpers.hpp"
#include "runtime/helpers/xdp_helpers.hpp"
#include "runtime/kfuncs/kptr_kfuncs.hpp"
#include "runtime/helpers/string_helpers.hpp"
#include "runtime/helpers/task_helpers.hpp"
#include "runtime/helpers/timer_helpers.hpp"
#include "runtime/helpers/trace_frame_helpers.hpp"
#include "runtime/helpers/user_ringbuf_helpers.hpp"

namespace strbpf::runtime {
namespace {

using A = ArgKind;
using R = RetKind;
using loader::ProgType;
constexpr A _ = A::none;

// Who may call what, as Linux 6.18 decides it for a root loader on an unlocked kernel (CAP_BPF, CAP_PERFMON,
// CAP_NET_ADMIN): each program type's verifier ops have a get_func_proto, and every one of them ends in
// bpf_base_func_proto (kernel/bpf/helpers.c) for the helpers it does not name itself. The sets were taken from the
// live 6.18 kernel, one load per (program type, helper id) with the kernel's "program of this type cannot use
// helper" as the answer, for every type it loads without an attach target (socket_filter .. netfilter, with
// syscall programs sleepable as the kernel requires). For the types it needs an attach target or an option this
// model has no counterpart for (lirc_mode2, tracing as fentry, lsm, struct_ops) the sets follow the 6.12 source's
// get_func_proto plus the live bpf_base_func_proto; ext programs take their target's and are given none.
// A type's choice that depends on its expected_attach_type is the one for the attach type tests load with
// (cgroup_sock_addr: connect4, cgroup_sockopt: getsockopt, sk_skb: stream_verdict, cgroup_skb: ingress).
// Argument and return kinds follow each variant's bpf_func_proto in the 6.12 source (the rows name a variant's
// proto where it is not bpf_<name>_proto).

// The program types by their ProgType names; T("a b") is the set of a and b, T("all -a") every type but a.
constexpr std::string_view kTypeNames[] = {
    "unspec", "socket_filter", "kprobe", "sched_cls", "sched_act", "tracepoint", "xdp", "perf_event", "cgroup_skb",
    "cgroup_sock", "lwt_in", "lwt_out", "lwt_xmit", "sock_ops", "sk_skb", "cgroup_device", "sk_msg",
    "raw_tracepoint", "cgroup_sock_addr", "lwt_seg6local", "lirc_mode2", "sk_reuseport", "flow_dissector",
    "cgroup_sysctl", "raw_tracepoint_writable", "cgroup_sockopt", "tracing", "struct_ops", "ext", "lsm",
    "sk_lookup", "syscall", "netfilter"};
// Every type that can call a helper: all but unspec and ext.
constexpr ProgTypeSet kAll = ((ProgTypeSet(1) << std::size(kTypeNames)) - 2) & ~prog_type_bit(ProgType::ext);

consteval ProgTypeSet T(std::string_view spec) {
    ProgTypeSet s = 0;
    while (!spec.empty()) {
        const size_t sp = spec.find(' ');
        std::string_view word = spec.substr(0, sp);
        spec = sp == std::string_view::npos ? std::string_view{} : spec.substr(sp + 1);
        const bool minus = word.front() == '-';
        if (minus)
            word.remove_prefix(1);
        ProgTypeSet bit = 0;
        if (word == "all")
            bit = kAll;
        for (size_t i = 0; i < std::size(kTypeNames); i++)
            if (kTypeNames[i] == word)
                bit = ProgTypeSet(1) << i;
        if (bit == 0)
            throw "unknown program type name"; // a compile error in a consteval call
        s = minus ? s & ~bit : s | bit;
    }
    return s;
}

// {id, name, implementation (nullptr: none), return, arguments, gpl_only, program types, pkt_access, flags}
constexpr HelperProto kHelpers[] = {
    {1, "bpf_map_lookup_elem", bpf_map_lookup_elem_helper, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_map_key, _, _, _}, false, kAll, true, 0},
    {2, "bpf_map_update_elem", bpf_map_update_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_map_key, A::ptr_to_map_value, A::anything, _}, false, kAll, true, 0},
    {3, "bpf_map_delete_elem", bpf_map_delete_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_map_key, _, _, _}, false, kAll, true, 0},
    {4, "bpf_probe_read", bpf_probe_read_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true, T("kprobe tracepoint perf_event raw_tracepoint raw_tracepoint_writable tracing lsm syscall"), false, 0}, // bpf_probe_read_compat_proto
    {5, "bpf_ktime_get_ns", bpf_ktime_get_ns_helper, R::integer, {_, _, _, _, _}, false, kAll, false, 0},
    {6, "bpf_trace_printk", bpf_trace_printk_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, _, _, _}, true, kAll, false, 0},
    {7, "bpf_get_prandom_u32", bpf_get_prandom_u32_helper, R::integer, {_, _, _, _, _}, false, kAll, false, 0},
    {8, "bpf_get_smp_processor_id", bpf_get_smp_processor_id_helper, R::integer, {_, _, _, _, _}, false, T("socket_filter cgroup_skb cgroup_sock sock_ops sk_skb cgroup_device sk_msg sk_reuseport flow_dissector cgroup_sysctl cgroup_sockopt sk_lookup netfilter"), false, 0}, // bpf_get_raw_smp_processor_id_proto
    {8, "bpf_get_smp_processor_id", bpf_get_smp_processor_id_helper, R::integer, {_, _, _, _, _}, false, T("all -socket_filter -cgroup_skb -cgroup_sock -sock_ops -sk_skb -cgroup_device -sk_msg -sk_reuseport -flow_dissector -cgroup_sysctl -cgroup_sockopt -sk_lookup -netfilter"), false, 0},
    {9, "bpf_skb_store_bytes", bpf_skb_store_bytes_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_mem_rdonly, A::const_size, A::anything}, false, T("sched_cls sched_act lwt_xmit sk_skb"), false, kChangesPktData},
    {10, "bpf_l3_csum_replace", bpf_l3_csum_replace_helper, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::anything, A::anything}, false, T("sched_cls sched_act lwt_xmit"), false, kChangesPktData},
    {11, "bpf_l4_csum_replace", bpf_l4_csum_replace_helper, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::anything, A::anything}, false, T("sched_cls sched_act lwt_xmit"), false, kChangesPktData},
    {12, "bpf_tail_call", bpf_tail_call_helper, R::void_, {A::ptr_to_ctx, A::const_map_ptr, A::anything, _, _}, false, kAll, false, kChangesPktData},
    {13, "bpf_clone_redirect", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("sched_cls sched_act lwt_xmit"), false, kChangesPktData},
    {14, "bpf_get_current_pid_tgid", bpf_get_current_pid_tgid_helper, R::integer, {_, _, _, _, _}, false, kAll, false, 0},
    {15, "bpf_get_current_uid_gid", bpf_get_current_uid_gid_helper, R::integer, {_, _, _, _, _}, false, kAll, false, 0},
    {16, "bpf_get_current_comm", bpf_get_current_comm_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size, _, _, _}, false, kAll, false, 0},
    {17, "bpf_get_cgroup_classid", nullptr, R::integer, {_, _, _, _, _}, false, T("all -sched_cls -sched_act -lwt_in -lwt_out -lwt_xmit -lwt_seg6local"), false, 0}, // bpf_get_cgroup_classid_curr_proto
    {17, "bpf_get_cgroup_classid", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("sched_cls sched_act lwt_in lwt_out lwt_xmit lwt_seg6local"), false, 0},
    {18, "bpf_skb_vlan_push", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("sched_cls sched_act"), false, kChangesPktData},
    {19, "bpf_skb_vlan_pop", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("sched_cls sched_act"), false, kChangesPktData},
    {20, "bpf_skb_get_tunnel_key", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_uninit_mem, A::const_size, A::anything, _}, false, T("sched_cls sched_act lwt_xmit"), false, 0},
    {21, "bpf_skb_set_tunnel_key", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size, A::anything, _}, false, T("sched_cls sched_act lwt_xmit"), false, 0},
    {22, "bpf_perf_event_read", nullptr, R::integer, {A::const_map_ptr, A::anything, _, _, _}, true, kAll, false, 0},
    {23, "bpf_redirect", bpf_redirect_helper, R::integer, {A::anything, A::anything, _, _, _}, false, T("sched_cls sched_act lwt_xmit"), false, 0},
    {23, "bpf_redirect", bpf_redirect_helper, R::integer, {A::anything, A::anything, _, _, _}, false, T("xdp"), false, 0}, // bpf_xdp_redirect_proto
    {24, "bpf_get_route_realm", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("sched_cls sched_act lwt_in lwt_out lwt_xmit lwt_seg6local"), false, 0},
    {25, "bpf_perf_event_output", bpf_perf_event_output_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, A::ptr_to_mem_rdonly, A::const_size_or_zero}, true, T("socket_filter sched_cls sched_act cgroup_skb lwt_in lwt_out lwt_xmit sk_skb lwt_seg6local"), false, 0}, // bpf_skb_event_output_proto
    {25, "bpf_perf_event_output", bpf_perf_event_output_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, A::ptr_to_mem_rdonly, A::const_size_or_zero}, true, T("kprobe"), false, 0},
    {25, "bpf_perf_event_output", bpf_perf_event_output_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, A::ptr_to_mem_rdonly, A::const_size_or_zero}, true, T("tracepoint perf_event"), false, 0}, // bpf_perf_event_output_proto_tp
    {25, "bpf_perf_event_output", bpf_perf_event_output_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, A::ptr_to_mem_rdonly, A::const_size_or_zero}, true, T("xdp"), false, 0}, // bpf_xdp_event_output_proto
    {25, "bpf_perf_event_output", bpf_perf_event_output_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, A::ptr_to_mem_rdonly, A::const_size_or_zero}, true, T("cgroup_sock sock_ops cgroup_device sk_msg cgroup_sock_addr cgroup_sysctl cgroup_sockopt sk_lookup"), false, 0}, // bpf_event_output_data_proto
    {25, "bpf_perf_event_output", bpf_perf_event_output_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, A::ptr_to_mem_rdonly, A::const_size_or_zero}, true, T("raw_tracepoint raw_tracepoint_writable tracing lsm syscall"), false, 0}, // bpf_perf_event_output_proto_raw_tp
    {26, "bpf_skb_load_bytes", bpf_skb_load_bytes_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_uninit_mem, A::const_size, _}, false, T("socket_filter sched_cls sched_act cgroup_skb lwt_in lwt_out lwt_xmit sk_skb lwt_seg6local"), false, 0},
    {26, "bpf_skb_load_bytes", bpf_skb_load_bytes_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_uninit_mem, A::const_size, _}, false, T("sk_reuseport"), false, 0}, // sk_reuseport_load_bytes_proto
    {26, "bpf_skb_load_bytes", bpf_skb_load_bytes_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_uninit_mem, A::const_size, _}, false, T("flow_dissector"), false, 0}, // bpf_flow_dissector_load_bytes_proto
    {27, "bpf_get_stackid", bpf_get_stackid_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, _, _}, true, T("kprobe"), false, 0},
    {27, "bpf_get_stackid", bpf_get_stackid_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, _, _}, true, T("tracepoint"), false, 0}, // bpf_get_stackid_proto_tp
    {27, "bpf_get_stackid", bpf_get_stackid_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, _, _}, false, T("perf_event"), false, 0}, // bpf_get_stackid_proto_pe
    {27, "bpf_get_stackid", bpf_get_stackid_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, _, _}, true, T("raw_tracepoint raw_tracepoint_writable tracing lsm syscall"), false, 0}, // bpf_get_stackid_proto_raw_tp
    {28, "bpf_csum_diff", bpf_csum_diff_helper, R::integer, {A::ptr_to_mem_rdonly_or_null, A::const_size_or_zero, A::ptr_to_mem_rdonly_or_null, A::const_size_or_zero, A::anything}, false, T("sched_cls sched_act xdp lwt_in lwt_out lwt_xmit lwt_seg6local"), true, 0},
    {29, "bpf_skb_get_tunnel_opt", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_uninit_mem, A::const_size, _, _}, false, T("sched_cls sched_act lwt_xmit"), false, 0},
    {30, "bpf_skb_set_tunnel_opt", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size, _, _}, false, T("sched_cls sched_act lwt_xmit"), false, 0},
    {31, "bpf_skb_change_proto", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("sched_cls sched_act"), false, kChangesPktData},
    {32, "bpf_skb_change_type", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sched_cls sched_act"), false, 0},
    {33, "bpf_skb_under_cgroup", bpf_skb_under_cgroup_helper, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, _, _}, false, T("sched_cls sched_act lwt_in lwt_out lwt_xmit lwt_seg6local"), false, 0},
    {34, "bpf_get_hash_recalc", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("sched_cls sched_act lwt_in lwt_out lwt_xmit lwt_seg6local"), false, 0},
    {35, "bpf_get_current_task", nullptr, R::integer, {_, _, _, _, _}, true, kAll, false, 0},
    {36, "bpf_probe_write_user", nullptr, R::integer, {A::anything, A::ptr_to_mem_rdonly, A::const_size, _, _}, true, T("tracing lsm"), false, 0},
    {37, "bpf_current_task_under_cgroup", bpf_current_task_under_cgroup_helper, R::integer, {A::const_map_ptr, A::anything, _, _, _}, false, kAll, false, 0},
    {38, "bpf_skb_change_tail", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("sched_cls sched_act lwt_xmit"), false, kChangesPktData},
    {38, "bpf_skb_change_tail", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("sk_skb"), false, kChangesPktData}, // sk_skb_change_tail_proto
    {39, "bpf_skb_pull_data", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sched_cls sched_act lwt_in lwt_out lwt_xmit lwt_seg6local"), false, kChangesPktData},
    {39, "bpf_skb_pull_data", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sk_skb"), false, kChangesPktData}, // sk_skb_pull_data_proto
    {40, "bpf_csum_update", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sched_cls sched_act lwt_xmit"), false, 0},
    {41, "bpf_set_hash_invalid", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("sched_cls sched_act lwt_xmit"), false, 0},
    {42, "bpf_get_numa_node_id", bpf_get_numa_node_id_helper, R::integer, {_, _, _, _, _}, false, kAll, false, 0},
    {43, "bpf_skb_change_head", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("sched_cls sched_act lwt_xmit"), false, kChangesPktData},
    {43, "bpf_skb_change_head", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("sk_skb"), false, kChangesPktData}, // sk_skb_change_head_proto
    {44, "bpf_xdp_adjust_head", bpf_xdp_adjust_head_helper, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("xdp"), false, kChangesPktData},
    {45, "bpf_probe_read_str", bpf_probe_read_str_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true, T("kprobe tracepoint perf_event raw_tracepoint raw_tracepoint_writable tracing lsm syscall"), false, 0}, // bpf_probe_read_compat_str_proto
    {46, "bpf_get_socket_cookie", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("socket_filter sched_cls sched_act cgroup_skb sk_skb"), false, 0},
    {46, "bpf_get_socket_cookie", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("cgroup_sock"), false, 0}, // bpf_get_socket_cookie_sock_proto
    {46, "bpf_get_socket_cookie", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("sock_ops"), false, 0}, // bpf_get_socket_cookie_sock_ops_proto
    {46, "bpf_get_socket_cookie", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("cgroup_sock_addr"), false, 0}, // bpf_get_socket_cookie_sock_addr_proto
    {46, "bpf_get_socket_cookie", nullptr, R::integer, {A::ptr_to_btf_id_sock_common_or_null, _, _, _, _}, false, T("sk_reuseport tracing lsm syscall"), false, 0}, // bpf_get_socket_ptr_cookie_proto
    {47, "bpf_get_socket_uid", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("socket_filter sched_cls sched_act cgroup_skb sk_skb"), false, 0},
    {48, "bpf_set_hash", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sched_cls sched_act"), false, 0},
    {49, "bpf_setsockopt", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::ptr_to_mem_rdonly, A::const_size}, false, T("sock_ops"), false, 0}, // bpf_sock_ops_setsockopt_proto
    {49, "bpf_setsockopt", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::ptr_to_mem_rdonly, A::const_size}, false, T("cgroup_sock_addr"), false, 0}, // bpf_sock_addr_setsockopt_proto
    {50, "bpf_skb_adjust_room", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::anything, _}, false, T("sched_cls sched_act"), false, kChangesPktData},
    {50, "bpf_skb_adjust_room", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::anything, _}, false, T("sk_skb"), false, kChangesPktData}, // sk_skb_adjust_room_proto
    {51, "bpf_redirect_map", bpf_redirect_map_helper, R::integer, {A::const_map_ptr, A::anything, A::anything, _, _}, false, T("xdp"), false, 0}, // bpf_xdp_redirect_map_proto
    {52, "bpf_sk_redirect_map", nullptr, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, A::anything, _}, false, T("sk_skb"), false, 0},
    {53, "bpf_sock_map_update", nullptr, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::ptr_to_map_key, A::anything, _}, false, T("sock_ops"), true, 0},
    {54, "bpf_xdp_adjust_meta", bpf_xdp_adjust_meta_helper, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("xdp"), false, kChangesPktData},
    {55, "bpf_perf_event_read_value", nullptr, R::integer, {A::const_map_ptr, A::anything, A::ptr_to_uninit_mem, A::const_size, _}, true, kAll, false, 0},
    {56, "bpf_perf_prog_read_value", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_uninit_mem, A::const_size, _, _}, true, T("perf_event"), false, 0},
    {57, "bpf_getsockopt", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::ptr_to_uninit_mem, A::const_size}, false, T("sock_ops"), false, 0}, // bpf_sock_ops_getsockopt_proto
    {57, "bpf_getsockopt", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::ptr_to_uninit_mem, A::const_size}, false, T("cgroup_sock_addr"), false, 0}, // bpf_sock_addr_getsockopt_proto
    {58, "bpf_override_return", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, true, 0, false, 0},
    {59, "bpf_sock_ops_cb_flags_set", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sock_ops"), false, 0},
    {60, "bpf_msg_redirect_map", nullptr, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::anything, A::anything, _}, false, T("sk_msg"), false, 0},
    {61, "bpf_msg_apply_bytes", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sk_msg"), false, 0},
    {62, "bpf_msg_cork_bytes", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sk_msg"), false, 0},
    {63, "bpf_msg_pull_data", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::anything, _}, false, T("sk_msg"), false, kChangesPktData},
    {64, "bpf_bind", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size, _, _}, false, T("cgroup_sock_addr"), false, 0},
    {65, "bpf_xdp_adjust_tail", bpf_xdp_adjust_tail_helper, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("xdp"), false, kChangesPktData},
    {66, "bpf_skb_get_xfrm_state", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_uninit_mem, A::const_size, A::anything}, false, T("sched_cls sched_act"), false, 0},
    {67, "bpf_get_stack", bpf_get_stack_helper, R::integer, {A::ptr_to_ctx, A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _}, true, T("kprobe"), false, 0},
    {67, "bpf_get_stack", bpf_get_stack_helper, R::integer, {A::ptr_to_ctx, A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _}, true, T("tracepoint"), false, 0}, // bpf_get_stack_proto_tp
    {67, "bpf_get_stack", bpf_get_stack_helper, R::integer, {A::ptr_to_ctx, A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _}, true, T("perf_event"), false, 0}, // bpf_get_stack_proto_pe
    {67, "bpf_get_stack", bpf_get_stack_helper, R::integer, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, _}, true, T("raw_tracepoint raw_tracepoint_writable tracing lsm syscall"), false, 0}, // bpf_get_stack_proto_raw_tp
    {68, "bpf_skb_load_bytes_relative", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_uninit_mem, A::const_size, A::anything}, false, T("socket_filter sched_cls sched_act cgroup_skb"), false, 0},
    {68, "bpf_skb_load_bytes_relative", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_uninit_mem, A::const_size, A::anything}, false, T("sk_reuseport"), false, 0}, // sk_reuseport_load_bytes_relative_proto
    {69, "bpf_fib_lookup", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem, A::const_size, A::anything, _}, true, T("sched_cls sched_act"), false, 0}, // bpf_skb_fib_lookup_proto
    {69, "bpf_fib_lookup", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem, A::const_size, A::anything, _}, true, T("xdp"), false, 0}, // bpf_xdp_fib_lookup_proto
    {70, "bpf_sock_hash_update", nullptr, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::ptr_to_map_key, A::anything, _}, false, T("sock_ops"), true, 0},
    {71, "bpf_msg_redirect_hash", nullptr, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::ptr_to_map_key, A::anything, _}, false, T("sk_msg"), false, 0},
    {72, "bpf_sk_redirect_hash", nullptr, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::ptr_to_map_key, A::anything, _}, false, T("sk_skb"), false, 0},
    {73, "bpf_lwt_push_encap", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_mem_rdonly, A::const_size, _}, false, T("lwt_in"), false, kChangesPktData}, // bpf_lwt_in_push_encap_proto
    {73, "bpf_lwt_push_encap", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_mem_rdonly, A::const_size, _}, false, T("lwt_xmit"), false, kChangesPktData}, // bpf_lwt_xmit_push_encap_proto
    {74, "bpf_lwt_seg6_store_bytes", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_mem_rdonly, A::const_size, _}, false, T("lwt_seg6local"), false, kChangesPktData},
    {75, "bpf_lwt_seg6_adjust_srh", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("lwt_seg6local"), false, kChangesPktData},
    {76, "bpf_lwt_seg6_action", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_mem_rdonly, A::const_size, _}, false, T("lwt_seg6local"), false, kChangesPktData},
    {77, "bpf_rc_repeat", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, true, T("lirc_mode2"), false, 0}, // rc_repeat_proto
    {78, "bpf_rc_keydown", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::anything, _}, true, T("lirc_mode2"), false, 0}, // rc_keydown_proto
    {79, "bpf_skb_cgroup_id", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("sched_cls sched_act cgroup_skb"), false, 0},
    {80, "bpf_get_current_cgroup_id", nullptr, R::integer, {_, _, _, _, _}, false, kAll, false, 0},
    {81, "bpf_get_local_storage", bpf_get_local_storage_helper, R::map_value, {A::const_map_ptr, A::anything, _, _, _}, false, T("cgroup_skb cgroup_sock sock_ops cgroup_device cgroup_sock_addr cgroup_sysctl cgroup_sockopt lsm"), false, 0},
    {82, "bpf_sk_select_reuseport", nullptr, R::integer, {A::ptr_to_ctx, A::const_map_ptr, A::ptr_to_map_key, A::anything, _}, false, T("sk_reuseport"), false, 0}, // sk_select_reuseport_proto
    {83, "bpf_skb_ancestor_cgroup_id", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sched_cls sched_act cgroup_skb"), false, 0},
    {84, "bpf_sk_lookup_tcp", bpf_sk_lookup_helper, R::socket_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("sched_cls sched_act"), true, 0}, // bpf_tc_sk_lookup_tcp_proto
    {84, "bpf_sk_lookup_tcp", bpf_sk_lookup_helper, R::socket_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("xdp"), true, 0}, // bpf_xdp_sk_lookup_tcp_proto
    {84, "bpf_sk_lookup_tcp", bpf_sk_lookup_helper, R::socket_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("cgroup_skb sk_skb"), true, 0},
    {84, "bpf_sk_lookup_tcp", bpf_sk_lookup_helper, R::socket_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("cgroup_sock_addr"), false, 0}, // bpf_sock_addr_sk_lookup_tcp_proto
    {85, "bpf_sk_lookup_udp", bpf_sk_lookup_helper, R::socket_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("sched_cls sched_act"), true, 0}, // bpf_tc_sk_lookup_udp_proto
    {85, "bpf_sk_lookup_udp", bpf_sk_lookup_helper, R::socket_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("xdp"), true, 0}, // bpf_xdp_sk_lookup_udp_proto
    {85, "bpf_sk_lookup_udp", bpf_sk_lookup_helper, R::socket_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("cgroup_skb sk_skb"), true, 0},
    {85, "bpf_sk_lookup_udp", bpf_sk_lookup_helper, R::socket_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("cgroup_sock_addr"), false, 0}, // bpf_sock_addr_sk_lookup_udp_proto
    {86, "bpf_sk_release", bpf_sk_release_helper, R::integer, {A::ptr_to_btf_id_sock_common_release, _, _, _, _}, false, T("sched_cls sched_act xdp cgroup_skb sk_skb cgroup_sock_addr sk_lookup"), false, 0},
    {87, "bpf_map_push_elem", bpf_map_push_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_map_value, A::anything, _, _}, false, kAll, true, 0},
    {88, "bpf_map_pop_elem", bpf_map_pop_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_uninit_map_value, _, _, _}, false, kAll, false, 0},
    {89, "bpf_map_peek_elem", bpf_map_peek_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_uninit_map_value, _, _, _}, false, kAll, false, 0},
    {90, "bpf_msg_push_data", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::anything, _}, false, T("sk_msg"), false, kChangesPktData},
    {91, "bpf_msg_pop_data", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, A::anything, _}, false, T("sk_msg"), false, kChangesPktData},
    {92, "bpf_rc_pointer_rel", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, true, T("lirc_mode2"), false, 0}, // rc_pointer_rel_proto
    {93, "bpf_spin_lock", bpf_spin_lock_helper, R::void_, {A::ptr_to_spin_lock, _, _, _, _}, false, kAll, false, 0},
    {94, "bpf_spin_unlock", bpf_spin_unlock_helper, R::void_, {A::ptr_to_spin_lock, _, _, _, _}, false, kAll, false, 0},
    {95, "bpf_sk_fullsock", bpf_sk_fullsock_helper, R::socket_or_null, {A::ptr_to_sock_common, _, _, _, _}, false, T("sched_cls sched_act cgroup_skb"), false, 0},
    {96, "bpf_tcp_sock", bpf_tcp_sock_helper, R::tcp_sock_or_null, {A::ptr_to_sock_common, _, _, _, _}, false, T("sched_cls sched_act cgroup_skb sock_ops cgroup_sockopt"), false, 0},
    {97, "bpf_skb_ecn_set_ce", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("sched_cls sched_act cgroup_skb"), false, 0},
    {98, "bpf_get_listener_sock", bpf_get_listener_sock_helper, R::socket_or_null, {A::ptr_to_sock_common, _, _, _, _}, false, T("sched_cls sched_act cgroup_skb"), false, 0},
    {99, "bpf_skc_lookup_tcp", bpf_sk_lookup_helper, R::sock_common_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("sched_cls sched_act"), true, 0}, // bpf_tc_skc_lookup_tcp_proto
    {99, "bpf_skc_lookup_tcp", bpf_sk_lookup_helper, R::sock_common_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("xdp"), true, 0}, // bpf_xdp_skc_lookup_tcp_proto
    {99, "bpf_skc_lookup_tcp", bpf_sk_lookup_helper, R::sock_common_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("cgroup_skb sk_skb"), true, 0},
    {99, "bpf_skc_lookup_tcp", bpf_sk_lookup_helper, R::sock_common_or_null, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, A::anything}, false, T("cgroup_sock_addr"), false, 0}, // bpf_sock_addr_skc_lookup_tcp_proto
    {100, "bpf_tcp_check_syncookie", nullptr, R::integer, {A::ptr_to_btf_id_sock_common, A::ptr_to_mem_rdonly, A::const_size, A::ptr_to_mem_rdonly, A::const_size}, true, T("sched_cls sched_act xdp"), true, 0},
    {101, "bpf_sysctl_get_name", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem, A::const_size, A::anything, _}, false, T("cgroup_sysctl"), false, 0},
    {102, "bpf_sysctl_get_current_value", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_uninit_mem, A::const_size, _, _}, false, T("cgroup_sysctl"), false, 0},
    {103, "bpf_sysctl_get_new_value", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_uninit_mem, A::const_size, _, _}, false, T("cgroup_sysctl"), false, 0},
    {104, "bpf_sysctl_set_new_value", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size, _, _}, false, T("cgroup_sysctl"), false, 0},
    {105, "bpf_strtol", bpf_strtol_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::anything, A::ptr_to_long, _}, false, kAll, false, 0},
    {106, "bpf_strtoul", bpf_strtoul_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::anything, A::ptr_to_long, _}, false, kAll, false, 0},
    {107, "bpf_sk_storage_get", bpf_sk_storage_get_helper, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_btf_id_sock_common, A::ptr_to_map_value_or_null, A::anything, _}, false, T("sched_cls sched_act cgroup_skb sock_ops sk_msg cgroup_sock_addr cgroup_sockopt lsm"), false, 0},
    {107, "bpf_sk_storage_get", bpf_sk_storage_get_helper, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_ctx, A::ptr_to_map_value_or_null, A::anything, _}, false, T("cgroup_sock"), false, 0}, // bpf_sk_storage_get_cg_sock_proto
    {107, "bpf_sk_storage_get", bpf_sk_storage_get_helper, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_btf_id_or_null, A::ptr_to_map_value_or_null, A::anything, _}, false, T("tracing syscall"), false, kAllowedCallback}, // bpf_sk_storage_get_tracing_proto
    {108, "bpf_sk_storage_delete", bpf_sk_storage_delete_helper, R::integer, {A::const_map_ptr, A::ptr_to_btf_id_sock_common, _, _, _}, false, T("sched_cls sched_act cgroup_skb sock_ops sk_msg cgroup_sock_addr cgroup_sockopt lsm"), false, 0},
    {108, "bpf_sk_storage_delete", bpf_sk_storage_delete_helper, R::integer, {A::const_map_ptr, A::ptr_to_btf_id_or_null, _, _, _}, false, T("tracing syscall"), false, kAllowedCallback}, // bpf_sk_storage_delete_tracing_proto
    {109, "bpf_send_signal", nullptr, R::integer, {A::anything, _, _, _, _}, false, kAll, false, 0},
    {110, "bpf_tcp_gen_syncookie", nullptr, R::integer, {A::ptr_to_btf_id_sock_common, A::ptr_to_mem_rdonly, A::const_size, A::ptr_to_mem_rdonly, A::const_size}, true, T("sched_cls sched_act xdp"), true, 0},
    {111, "bpf_skb_output", nullptr, R::integer, {A::ptr_to_btf_id, A::const_map_ptr, A::anything, A::ptr_to_mem_rdonly, A::const_size_or_zero}, true, T("tracing lsm syscall"), false, 0},
    {112, "bpf_probe_read_user", bpf_probe_read_user_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true, kAll, false, 0},
    {113, "bpf_probe_read_kernel", bpf_probe_read_kernel_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true, kAll, false, 0},
    {114, "bpf_probe_read_user_str", bpf_probe_read_user_str_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true, kAll, false, 0},
    {115, "bpf_probe_read_kernel_str", bpf_probe_read_kernel_str_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true, kAll, false, 0},
    {116, "bpf_tcp_send_ack", nullptr, R::integer, {A::ptr_to_btf_id, A::anything, _, _, _}, false, 0, false, 0},
    {117, "bpf_send_signal_thread", nullptr, R::integer, {A::anything, _, _, _, _}, false, kAll, false, 0},
    {118, "bpf_jiffies64", nullptr, R::integer, {_, _, _, _, _}, false, kAll, false, 0},
    {119, "bpf_read_branch_records", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem_or_null, A::const_size_or_zero, A::anything, _}, true, T("perf_event"), false, 0},
    {120, "bpf_get_ns_current_pid_tgid", nullptr, R::integer, {A::anything, A::anything, A::ptr_to_uninit_mem, A::const_size, _}, false, kAll, false, 0},
    {121, "bpf_xdp_output", nullptr, R::integer, {A::ptr_to_btf_id, A::const_map_ptr, A::anything, A::ptr_to_mem_rdonly, A::const_size_or_zero}, true, T("tracing lsm syscall"), false, 0},
    {122, "bpf_get_netns_cookie", bpf_get_netns_cookie_helper, R::integer, {A::ptr_to_ctx_or_null, _, _, _, _}, false, T("socket_filter sched_cls sched_act cgroup_skb cgroup_sock"), false, 0}, // bpf_get_netns_cookie_sock_proto
    {122, "bpf_get_netns_cookie", bpf_get_netns_cookie_helper, R::integer, {A::ptr_to_ctx_or_null, _, _, _, _}, false, T("sock_ops"), false, 0}, // bpf_get_netns_cookie_sock_ops_proto
    {122, "bpf_get_netns_cookie", bpf_get_netns_cookie_helper, R::integer, {A::ptr_to_ctx_or_null, _, _, _, _}, false, T("sk_msg"), false, 0}, // bpf_get_netns_cookie_sk_msg_proto
    {122, "bpf_get_netns_cookie", bpf_get_netns_cookie_helper, R::integer, {A::ptr_to_ctx_or_null, _, _, _, _}, false, T("cgroup_sock_addr"), false, 0}, // bpf_get_netns_cookie_sock_addr_proto
    {122, "bpf_get_netns_cookie", bpf_get_netns_cookie_helper, R::integer, {A::ptr_to_ctx_or_null, _, _, _, _}, false, T("cgroup_sockopt"), false, 0}, // bpf_get_netns_cookie_sockopt_proto
    {123, "bpf_get_current_ancestor_cgroup_id", nullptr, R::integer, {A::anything, _, _, _, _}, false, kAll, false, 0},
    {124, "bpf_sk_assign", bpf_sk_assign_helper, R::integer, {A::ptr_to_ctx, A::ptr_to_btf_id_sock_common, A::anything, _, _}, false, T("sched_cls sched_act"), false, 0},
    {124, "bpf_sk_assign", bpf_sk_assign_helper, R::integer, {A::ptr_to_ctx, A::ptr_to_socket_or_null, A::anything, _, _}, false, T("sk_lookup"), false, 0}, // bpf_sk_lookup_assign_proto
    {125, "bpf_ktime_get_boot_ns", bpf_ktime_get_boot_ns_helper, R::integer, {_, _, _, _, _}, false, kAll, false, 0},
    {126, "bpf_seq_printf", nullptr, R::integer, {A::ptr_to_btf_id, A::ptr_to_mem_rdonly, A::const_size, A::ptr_to_mem_rdonly_or_null, A::const_size_or_zero}, true, T("tracing lsm"), false, 0},
    {127, "bpf_seq_write", nullptr, R::integer, {A::ptr_to_btf_id, A::ptr_to_mem_rdonly, A::const_size_or_zero, _, _}, true, T("tracing lsm"), false, 0},
    {128, "bpf_sk_cgroup_id", nullptr, R::integer, {A::ptr_to_btf_id_sock_common, _, _, _, _}, false, T("cgroup_skb"), false, 0},
    {129, "bpf_sk_ancestor_cgroup_id", nullptr, R::integer, {A::ptr_to_btf_id_sock_common, A::anything, _, _, _}, false, T("cgroup_skb"), false, 0},
    {130, "bpf_ringbuf_output", bpf_ringbuf_output_helper, R::integer, {A::const_map_ptr, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, _}, false, kAll, false, 0},
    {131, "bpf_ringbuf_reserve", bpf_ringbuf_reserve_helper, R::ringbuf_mem_or_null, {A::const_map_ptr, A::const_alloc_size_or_zero, A::anything, _, _}, false, kAll, false, 0},
    {132, "bpf_ringbuf_submit", bpf_ringbuf_submit_helper, R::void_, {A::ptr_to_ringbuf_mem, A::anything, _, _, _}, false, kAll, false, 0},
    {133, "bpf_ringbuf_discard", bpf_ringbuf_discard_helper, R::void_, {A::ptr_to_ringbuf_mem, A::anything, _, _, _}, false, kAll, false, 0},
    {134, "bpf_ringbuf_query", bpf_ringbuf_query_helper, R::integer, {A::const_map_ptr, A::anything, _, _, _}, false, kAll, false, 0},
    {135, "bpf_csum_level", nullptr, R::integer, {A::ptr_to_ctx, A::anything, _, _, _}, false, T("sched_cls sched_act lwt_xmit"), false, 0},
    {136, "bpf_skc_to_tcp6_sock", bpf_skc_to_helper, R::ptr_to_btf_id_or_null, {A::ptr_to_btf_id_sock_common, _, _, _, _}, false, T("socket_filter sched_cls sched_act xdp cgroup_skb lwt_in lwt_out lwt_xmit sock_ops sk_skb sk_msg cgroup_sock_addr lwt_seg6local flow_dissector tracing lsm sk_lookup syscall"), false, 0},
    {137, "bpf_skc_to_tcp_sock", bpf_skc_to_helper, R::ptr_to_btf_id_or_null, {A::ptr_to_btf_id_sock_common, _, _, _, _}, false, T("socket_filter sched_cls sched_act xdp cgroup_skb lwt_in lwt_out lwt_xmit sock_ops sk_skb sk_msg cgroup_sock_addr lwt_seg6local flow_dissector tracing lsm sk_lookup syscall"), false, 0},
    {138, "bpf_skc_to_tcp_timewait_sock", bpf_skc_to_helper, R::ptr_to_btf_id_or_null, {A::ptr_to_btf_id_sock_common, _, _, _, _}, false, T("socket_filter sched_cls sched_act xdp cgroup_skb lwt_in lwt_out lwt_xmit sock_ops sk_skb sk_msg cgroup_sock_addr lwt_seg6local flow_dissector tracing lsm sk_lookup syscall"), false, 0},
    {139, "bpf_skc_to_tcp_request_sock", bpf_skc_to_helper, R::ptr_to_btf_id_or_null, {A::ptr_to_btf_id_sock_common, _, _, _, _}, false, T("socket_filter sched_cls sched_act xdp cgroup_skb lwt_in lwt_out lwt_xmit sock_ops sk_skb sk_msg cgroup_sock_addr lwt_seg6local flow_dissector tracing lsm sk_lookup syscall"), false, 0},
    {140, "bpf_skc_to_udp6_sock", bpf_skc_to_helper, R::ptr_to_btf_id_or_null, {A::ptr_to_btf_id_sock_common, _, _, _, _}, false, T("socket_filter sched_cls sched_act xdp cgroup_skb lwt_in lwt_out lwt_xmit sock_ops sk_skb sk_msg cgroup_sock_addr lwt_seg6local flow_dissector tracing lsm sk_lookup syscall"), false, 0},
    {141, "bpf_get_task_stack", bpf_get_task_stack_helper, R::integer, {A::ptr_to_btf_id, A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _}, false, kAll, false, 0},
    {142, "bpf_load_hdr_opt", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem_write, A::const_size, A::anything, _}, false, T("sock_ops"), false, 0}, // bpf_sock_ops_load_hdr_opt_proto
    {143, "bpf_store_hdr_opt", nullptr, R::integer, {A::ptr_to_ctx, A::ptr_to_mem_rdonly, A::const_size, A::anything, _}, false, T("sock_ops"), false, kChangesPktData}, // bpf_sock_ops_store_hdr_opt_proto
    {144, "bpf_reserve_hdr_opt", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("sock_ops"), false, 0}, // bpf_sock_ops_reserve_hdr_opt_proto
    {145, "bpf_inode_storage_get", nullptr, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_btf_id_or_null, A::ptr_to_map_value_or_null, A::anything, _}, false, T("lsm"), false, 0},
    {146, "bpf_inode_storage_delete", nullptr, R::integer, {A::const_map_ptr, A::ptr_to_btf_id_or_null, _, _, _}, false, T("lsm"), false, 0},
    {147, "bpf_d_path", nullptr, R::integer, {A::ptr_to_btf_id, A::ptr_to_mem, A::const_size_or_zero, _, _}, false, T("tracing lsm syscall"), false, kAllowedCallback},
    {148, "bpf_copy_from_user", nullptr, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, false, kAll, false, kMightSleep},
    {149, "bpf_snprintf_btf", nullptr, R::integer, {A::ptr_to_mem, A::const_size, A::ptr_to_mem_rdonly, A::const_size, A::anything}, false, kAll, false, 0},
    {150, "bpf_seq_printf_btf", nullptr, R::integer, {A::ptr_to_btf_id, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, _}, true, T("tracing lsm"), false, 0},
    {151, "bpf_skb_cgroup_classid", nullptr, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("sched_cls sched_act"), false, 0},
    {152, "bpf_redirect_neigh", bpf_redirect_neigh_helper, R::integer, {A::anything, A::ptr_to_mem_rdonly_or_null, A::const_size_or_zero, A::anything, _}, false, T("sched_cls sched_act"), false, 0},
    {153, "bpf_per_cpu_ptr", bpf_per_cpu_ptr_helper, R::mem_or_btf_id_rdonly_or_null, {A::ptr_to_percpu_btf_id, A::anything, _, _, _}, false, kAll, false, 0},
    {154, "bpf_this_cpu_ptr", bpf_this_cpu_ptr_helper, R::mem_or_btf_id_rdonly, {A::ptr_to_percpu_btf_id, _, _, _, _}, false, kAll, false, 0},
    {155, "bpf_redirect_peer", bpf_redirect_peer_helper, R::integer, {A::anything, A::anything, _, _, _}, false, T("sched_cls sched_act"), false, 0},
    {156, "bpf_task_storage_get", bpf_task_storage_get_helper, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_btf_id_or_null, A::ptr_to_map_value_or_null, A::anything, _}, false, kAll, false, 0}, // bpf_task_storage_get_recur_proto
    {157, "bpf_task_storage_delete", bpf_task_storage_delete_helper, R::integer, {A::const_map_ptr, A::ptr_to_btf_id_or_null, _, _, _}, false, kAll, false, 0}, // bpf_task_storage_delete_recur_proto
    {158, "bpf_get_current_task_btf", bpf_get_current_task_btf_helper, R::ptr_to_btf_id_trusted, {_, _, _, _, _}, true, kAll, false, 0},
    {159, "bpf_bprm_opts_set", nullptr, R::integer, {A::ptr_to_btf_id, A::anything, _, _, _}, false, T("lsm"), false, 0},
    {160, "bpf_ktime_get_coarse_ns", bpf_ktime_get_coarse_ns_helper, R::integer, {_, _, _, _, _}, false, T("all -kprobe -tracepoint -perf_event -cgroup_device -raw_tracepoint -lirc_mode2 -raw_tracepoint_writable -cgroup_sockopt -tracing -struct_ops -lsm -syscall -netfilter"), false, 0},
    {161, "bpf_ima_inode_hash", nullptr, R::integer, {A::ptr_to_btf_id, A::ptr_to_uninit_mem, A::const_size, _, _}, false, T("lsm"), false, kMightSleep | kAllowedCallback},
    {162, "bpf_sock_from_file", nullptr, R::ptr_to_btf_id_or_null, {A::ptr_to_btf_id, _, _, _, _}, false, T("tracing lsm syscall"), false, 0},
    {163, "bpf_check_mtu", bpf_check_mtu_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_fixed_size_mem_write_aligned, A::anything, A::anything}, true, T("sched_cls sched_act"), false, 0}, // bpf_skb_check_mtu_proto
    {163, "bpf_check_mtu", bpf_check_mtu_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_fixed_size_mem_write_aligned, A::anything, A::anything}, true, T("xdp"), false, 0}, // bpf_xdp_check_mtu_proto
    {164, "bpf_for_each_map_elem", bpf_for_each_map_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_func, A::ptr_to_stack_or_null, A::anything, _}, false, kAll, false, 0, {2, CallbackKind::sync, CallbackFrame::map_elem}},
    {165, "bpf_snprintf", bpf_snprintf_helper, R::integer, {A::ptr_to_mem_or_null, A::const_size_or_zero, A::ptr_to_const_str, A::ptr_to_mem_rdonly_or_null, A::const_size_or_zero}, true, kAll, false, 0},
    {166, "bpf_sys_bpf", nullptr, R::integer, {A::anything, A::ptr_to_mem_rdonly, A::const_size, _, _}, false, T("syscall"), false, kMightSleep},
    {167, "bpf_btf_find_by_name_kind", nullptr, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::anything, A::anything, _}, false, T("syscall"), false, kMightSleep},
    {168, "bpf_sys_close", nullptr, R::integer, {A::anything, _, _, _, _}, false, T("syscall"), false, kMightSleep},
    {169, "bpf_timer_init", bpf_timer_init_helper, R::integer, {A::ptr_to_timer, A::const_map_ptr, A::anything, _, _}, true, kAll, false, 0},
    {170, "bpf_timer_set_callback", bpf_timer_set_callback_helper, R::integer, {A::ptr_to_timer, A::ptr_to_func, _, _, _}, true, kAll, false, 0, {2, CallbackKind::async, CallbackFrame::timer}},
    {171, "bpf_timer_start", bpf_timer_start_helper, R::integer, {A::ptr_to_timer, A::anything, A::anything, _, _}, true, kAll, false, 0},
    {172, "bpf_timer_cancel", bpf_timer_cancel_helper, R::integer, {A::ptr_to_timer, _, _, _, _}, true, kAll, false, 0},
    {173, "bpf_get_func_ip", bpf_get_func_ip_helper, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("kprobe"), false, 0}, // bpf_get_func_ip_proto_kprobe_multi
    {173, "bpf_get_func_ip", bpf_get_func_ip_helper, R::integer, {A::ptr_to_ctx, _, _, _, _}, true, T("tracepoint perf_event raw_tracepoint raw_tracepoint_writable tracing lsm syscall"), false, 0}, // bpf_get_func_ip_proto_tracing
    {174, "bpf_get_attach_cookie", bpf_get_attach_cookie_helper, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("kprobe"), false, 0}, // bpf_get_attach_cookie_proto_kmulti
    {174, "bpf_get_attach_cookie", bpf_get_attach_cookie_helper, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("tracepoint"), false, 0}, // bpf_get_attach_cookie_proto_trace
    {174, "bpf_get_attach_cookie", bpf_get_attach_cookie_helper, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("perf_event"), false, 0}, // bpf_get_attach_cookie_proto_pe
    {174, "bpf_get_attach_cookie", bpf_get_attach_cookie_helper, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("raw_tracepoint raw_tracepoint_writable tracing"), false, 0}, // bpf_get_attach_cookie_proto_tracing
    {174, "bpf_get_attach_cookie", bpf_get_attach_cookie_helper, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("lsm"), false, 0},
    {175, "bpf_task_pt_regs", nullptr, R::ptr_to_btf_id, {A::ptr_to_btf_id, _, _, _, _}, true, kAll, false, 0},
    {176, "bpf_get_branch_snapshot", nullptr, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, _, _, _}, true, kAll, false, 0},
    {177, "bpf_trace_vprintk", bpf_trace_vprintk_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::ptr_to_mem_rdonly_or_null, A::const_size_or_zero, _}, true, kAll, false, 0},
    {178, "bpf_skc_to_unix_sock", bpf_skc_to_helper, R::ptr_to_btf_id_or_null, {A::ptr_to_btf_id_sock_common, _, _, _, _}, false, T("socket_filter sched_cls sched_act xdp cgroup_skb lwt_in lwt_out lwt_xmit sock_ops sk_skb sk_msg cgroup_sock_addr lwt_seg6local flow_dissector tracing lsm sk_lookup syscall"), false, 0},
    {179, "bpf_kallsyms_lookup_name", nullptr, R::integer, {A::ptr_to_mem, A::const_size_or_zero, A::anything, A::ptr_to_long, _}, false, T("syscall"), false, 0},
    {180, "bpf_find_vma", nullptr, R::integer, {A::ptr_to_btf_id, A::anything, A::ptr_to_func, A::ptr_to_stack_or_null, A::anything}, false, kAll, false, 0, {3, CallbackKind::sync, CallbackFrame::find_vma}},
    {181, "bpf_loop", bpf_loop_helper, R::integer, {A::scalar, A::ptr_to_func, A::ptr_to_stack_or_null, A::anything, _}, false, kAll, false, 0, {2, CallbackKind::sync, CallbackFrame::loop}},
    {182, "bpf_strncmp", bpf_strncmp_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::ptr_to_const_str, _, _}, false, kAll, false, 0},
    {183, "bpf_get_func_arg", bpf_get_func_arg_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_long, _, _}, false, T("tracing lsm"), false, 0},
    {184, "bpf_get_func_ret", bpf_get_func_ret_helper, R::integer, {A::ptr_to_ctx, A::ptr_to_long, _, _, _}, false, T("tracing lsm"), false, 0},
    {185, "bpf_get_func_arg_cnt", bpf_get_func_arg_cnt_helper, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("tracing lsm"), false, 0},
    {186, "bpf_get_retval", nullptr, R::integer, {_, _, _, _, _}, false, T("cgroup_sock cgroup_device cgroup_sock_addr cgroup_sysctl cgroup_sockopt"), false, 0},
    {187, "bpf_set_retval", nullptr, R::integer, {A::anything, _, _, _, _}, false, T("cgroup_sock cgroup_device cgroup_sock_addr cgroup_sysctl cgroup_sockopt"), false, 0},
    {188, "bpf_xdp_get_buff_len", bpf_xdp_get_buff_len_helper, R::integer, {A::ptr_to_ctx, _, _, _, _}, false, T("xdp"), false, 0},
    {188, "bpf_xdp_get_buff_len", bpf_xdp_get_buff_len_helper, R::integer, {A::ptr_to_btf_id, _, _, _, _}, false, T("tracing lsm syscall"), false, 0}, // bpf_xdp_get_buff_len_trace_proto
    {189, "bpf_xdp_load_bytes", bpf_xdp_load_bytes_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_uninit_mem, A::const_size, _}, false, T("xdp"), false, 0},
    {190, "bpf_xdp_store_bytes", bpf_xdp_store_bytes_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_mem_rdonly, A::const_size, _}, false, T("xdp"), false, 0},
    {191, "bpf_copy_from_user_task", nullptr, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, A::ptr_to_btf_id, A::anything}, true, kAll, false, kMightSleep},
    {192, "bpf_skb_set_tstamp", nullptr, R::integer, {A::ptr_to_ctx, A::anything, A::anything, _, _}, false, T("sched_cls sched_act"), false, 0},
    {193, "bpf_ima_file_hash", nullptr, R::integer, {A::ptr_to_btf_id, A::ptr_to_uninit_mem, A::const_size, _, _}, false, T("lsm"), false, kMightSleep | kAllowedCallback},
    {194, "bpf_kptr_xchg", bpf_kptr_xchg_helper, R::ptr_to_btf_id_or_null, {A::kptr_xchg_dest, A::ptr_to_btf_id_or_null_release, _, _, _}, false, kAll, false, 0},
    {195, "bpf_map_lookup_percpu_elem", nullptr, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_map_key, A::anything, _, _}, false, kAll, true, 0},
    {196, "bpf_skc_to_mptcp_sock", bpf_skc_to_helper, R::ptr_to_btf_id_or_null, {A::ptr_to_sock_common, _, _, _, _}, false, T("socket_filter sched_cls sched_act xdp cgroup_skb lwt_in lwt_out lwt_xmit sock_ops sk_skb sk_msg cgroup_sock_addr lwt_seg6local flow_dissector tracing lsm sk_lookup syscall"), false, 0},
    {197, "bpf_dynptr_from_mem", bpf_dynptr_from_mem_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, A::ptr_to_dynptr_local_uninit, _}, false, kAll, false, 0},
    {198, "bpf_ringbuf_reserve_dynptr", bpf_ringbuf_reserve_dynptr_helper, R::integer, {A::const_map_ptr, A::anything, A::anything, A::ptr_to_dynptr_ringbuf_uninit, _}, false, kAll, false, 0},
    {199, "bpf_ringbuf_submit_dynptr", bpf_ringbuf_submit_dynptr_helper, R::void_, {A::ptr_to_dynptr_ringbuf_release, A::anything, _, _, _}, false, kAll, false, 0},
    {200, "bpf_ringbuf_discard_dynptr", bpf_ringbuf_discard_dynptr_helper, R::void_, {A::ptr_to_dynptr_ringbuf_release, A::anything, _, _, _}, false, kAll, false, 0},
    {201, "bpf_dynptr_read", bpf_dynptr_read_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::ptr_to_dynptr_rdonly, A::anything, A::anything}, false, kAll, false, 0},
    {202, "bpf_dynptr_write", bpf_dynptr_write_helper, R::integer, {A::ptr_to_dynptr_rdonly, A::anything, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything}, false, kAll, false, 0},
    {203, "bpf_dynptr_data", bpf_dynptr_data_helper, R::dynptr_mem_or_null, {A::ptr_to_dynptr_rdonly, A::anything, A::const_alloc_size_or_zero, _, _}, false, kAll, false, 0},
    {204, "bpf_tcp_raw_gen_syncookie_ipv4", nullptr, R::integer, {A::ptr_to_fixed_size_mem, A::ptr_to_mem, A::const_size_or_zero, _, _}, true, T("sched_cls sched_act xdp"), true, 0},
    {205, "bpf_tcp_raw_gen_syncookie_ipv6", nullptr, R::integer, {A::ptr_to_fixed_size_mem, A::ptr_to_mem, A::const_size_or_zero, _, _}, true, T("sched_cls sched_act xdp"), true, 0},
    {206, "bpf_tcp_raw_check_syncookie_ipv4", nullptr, R::integer, {A::ptr_to_fixed_size_mem, A::ptr_to_fixed_size_mem, _, _, _}, true, T("sched_cls sched_act xdp"), true, 0},
    {207, "bpf_tcp_raw_check_syncookie_ipv6", nullptr, R::integer, {A::ptr_to_fixed_size_mem, A::ptr_to_fixed_size_mem, _, _, _}, true, T("sched_cls sched_act xdp"), true, 0},
    {208, "bpf_ktime_get_tai_ns", bpf_ktime_get_tai_ns_helper, R::integer, {_, _, _, _, _}, false, kAll, false, 0},
    {209, "bpf_user_ringbuf_drain", bpf_user_ringbuf_drain_helper, R::integer, {A::const_map_ptr, A::ptr_to_func, A::ptr_to_stack_or_null, A::anything, _}, false, kAll, false, 0, {2, CallbackKind::sync, CallbackFrame::dynptr}},
    {210, "bpf_cgrp_storage_get", bpf_cgrp_storage_get_helper, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_btf_id_or_null, A::ptr_to_map_value_or_null, A::anything, _}, false, kAll, false, 0},
    {211, "bpf_cgrp_storage_delete", bpf_cgrp_storage_delete_helper, R::integer, {A::const_map_ptr, A::ptr_to_btf_id_or_null, _, _, _}, false, kAll, false, 0},
};

constexpr int kMaxHelperId = 212; // __BPF_FUNC_MAX_ID of 6.18

struct ById {
    std::array<const HelperProto*, kMaxHelperId> rows{};
    constexpr ById() {
        for (const auto& h : kHelpers)
            if (!rows[h.id])
                rows[h.id] = &h;
    }
};
constexpr ById kById;

// The stand-in for a helper without a user-space implementation: the program verified, and this run reached
// the call, which ends it (the engines stop at once on RunContext::aborted).
template <int32_t Id>
uint64_t not_implemented(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    ctx->abort(fmt::format("helper {}#{} is not implemented by strbpf", kById.rows[Id]->name, Id));
    return 0;
}

constexpr HelperFn fn_or_stub(const HelperProto* row, HelperFn stub) {
    if (row == nullptr)
        return nullptr;
    return row->fn != nullptr ? row->fn : stub;
}

template <size_t... I>
constexpr std::array<HelperFn, kMaxHelperId> make_fns(std::index_sequence<I...>) {
    return {fn_or_stub(kById.rows[I], &not_implemented<int32_t(I)>)...};
}
constexpr std::array<HelperFn, kMaxHelperId> kFns = make_fns(std::make_index_sequence<kMaxHelperId>{});

constexpr const char* kArgNames[] = {
    "ARG_DONTCARE", "ARG_ANYTHING", "ARG_PTR_TO_MEM", "ARG_PTR_TO_MEM | MEM_RDONLY",
    "ARG_PTR_TO_MEM | PTR_MAYBE_NULL | MEM_RDONLY", "ARG_PTR_TO_UNINIT_MEM", "ARG_CONST_SIZE",
    "ARG_CONST_SIZE_OR_ZERO", "ARG_PTR_TO_CONST_STR", "ARG_CONST_MAP_PTR", "ARG_PTR_TO_MAP_KEY",
    "ARG_PTR_TO_MAP_VALUE", "ARG_PTR_TO_FUNC", "ARG_PTR_TO_STACK_OR_NULL", "ARG_PTR_TO_CTX",
    "ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED", "ARG_PTR_TO_RINGBUF_MEM | OBJ_RELEASE",
    "ARG_CONST_ALLOC_SIZE_OR_ZERO", "ARG_SCALAR", "ARG_PTR_TO_MEM | MEM_WRITE", "ARG_PTR_TO_MEM_OR_NULL",
    "ARG_PTR_TO_FIXED_SIZE_MEM", "ARG_PTR_TO_FIXED_SIZE_MEM | MEM_WRITE | MEM_ALIGNED",
    "ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED", "ARG_PTR_TO_CTX_OR_NULL",
    "ARG_PTR_TO_MAP_VALUE_OR_NULL", "ARG_PTR_TO_MAP_VALUE | MEM_UNINIT | MEM_WRITE", "ARG_PTR_TO_BTF_ID",
    "ARG_PTR_TO_BTF_ID_OR_NULL", "ARG_PTR_TO_BTF_ID_OR_NULL | OBJ_RELEASE", "ARG_PTR_TO_BTF_ID_SOCK_COMMON",
    "ARG_PTR_TO_BTF_ID_SOCK_COMMON | PTR_MAYBE_NULL", "ARG_PTR_TO_BTF_ID_SOCK_COMMON | OBJ_RELEASE",
    "ARG_PTR_TO_SOCK_COMMON", "ARG_PTR_TO_SOCKET_OR_NULL", "ARG_PTR_TO_SPIN_LOCK", "ARG_PTR_TO_TIMER",
    "ARG_PTR_TO_PERCPU_BTF_ID", "ARG_KPTR_XCHG_DEST", "ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_LOCAL | MEM_UNINIT",
    "ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_RINGBUF | MEM_UNINIT", "ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_RINGBUF | OBJ_RELEASE",
    "ARG_PTR_TO_DYNPTR | MEM_RDONLY"};
static_assert(std::size(kArgNames) == size_t(ArgKind::ptr_to_dynptr_rdonly) + 1);

constexpr const char* kRetNames[] = {
    "RET_INTEGER", "RET_VOID", "RET_PTR_TO_MAP_VALUE_OR_NULL", "RET_PTR_TO_RINGBUF_MEM_OR_NULL",
    "RET_PTR_TO_MAP_VALUE", "RET_PTR_TO_BTF_ID", "RET_PTR_TO_BTF_ID_OR_NULL", "RET_PTR_TO_BTF_ID_TRUSTED",
    "RET_PTR_TO_DYNPTR_MEM_OR_NULL", "RET_PTR_TO_MEM_OR_BTF_ID | MEM_RDONLY",
    "RET_PTR_TO_MEM_OR_BTF_ID | PTR_MAYBE_NULL | MEM_RDONLY", "RET_PTR_TO_SOCKET_OR_NULL",
    "RET_PTR_TO_SOCK_COMMON_OR_NULL", "RET_PTR_TO_TCP_SOCK_OR_NULL"};
static_assert(std::size(kRetNames) == size_t(RetKind::tcp_sock_or_null) + 1);

} // namespace

const char* arg_kind_name(ArgKind k) { return kArgNames[size_t(k)]; }
const char* ret_kind_name(RetKind k) { return kRetNames[size_t(k)]; }

std::span<const HelperProto> helper_table() { return kHelpers; }

const HelperProto* find_helper(int32_t id) { return id >= 0 && id < kMaxHelperId ? kById.rows[id] : nullptr; }

const HelperProto* find_helper(int32_t id, loader::ProgType t) {
    const HelperProto* first = find_helper(id);
    if (!first)
        return nullptr;
    for (const HelperProto* h = first; h < std::end(kHelpers) && h->id == id; h++)
        if (helper_allowed(*h, t))
            return h;
    return first;
}

// Ids past the kernel's are the embedder's helpers' slots (extensions.hpp) and strbpf's internal helpers, which
// only the verifier's rewrites call (ctx_model.hpp).
HelperFn helper_fn(int32_t id) {
    if (id >= 0 && id < kMaxHelperId)
        return kFns[size_t(id)];
    if (HelperFn f = ext_slot_fn(id))
        return f;
    return internal_helper_fn(id);
}

bool helper_implemented(int32_t id) {
    const HelperProto* h = find_helper(id);
    return h && h->fn;
}

} // namespace strbpf::runtime
