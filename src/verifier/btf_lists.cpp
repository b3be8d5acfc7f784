// SPDX-License-Identifier: BSD-2-Clause
// The kernel's name sets for BTF-typed programs, as data (verifier stage): kernel/bpf/bpf_lsm.c's hook sets (by hook
// name, without the bpf_lsm_ prefix), verifier.c's btf_id_deny and noreturn_deny, and btf.c's raw_tp_null_args
// (the union of the entries of 6.12 and later kernels: a tracepoint listed here has NULL-able arguments, so listing
// one too many only rejects more).
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "verifier/btf_lists.hpp"

namespace strbpf::verifier {
namespace {

using NameSet = std::unordered_set<std::string_view>;

const NameSet kLsmDisabled = {
    "vm_enough_memory", "inode_need_killpriv", "inode_getsecurity", "inode_listsecurity", "inode_copy_up_xattr",
    "getselfattr", "getprocattr", "setprocattr", "key_getsecurity", "audit_rule_match", "xfrm_decode_session",
    "ismaclabel",
};

const NameSet kLsmSleepable = {
    "bpf", "bpf_map", "bpf_map_create", "bpf_map_free", "bpf_prog", "bpf_prog_load", "bpf_token_create",
    "bpf_token_free", "bpf_token_cmd", "bpf_token_capable", "bprm_check_security", "bprm_committed_creds",
    "bprm_committing_creds", "bprm_creds_for_exec", "bprm_creds_from_file", "capget", "capset", "cred_prepare",
    "file_ioctl", "file_lock", "file_open", "file_post_open", "file_receive", "inode_create",
    "inode_free_security", "inode_getattr", "inode_getxattr", "inode_mknod", "inode_need_killpriv",
    "inode_post_setxattr", "inode_readlink", "inode_rename", "inode_rmdir", "inode_setattr", "inode_setxattr",
    "inode_symlink", "inode_unlink", "kernel_module_request", "kernel_read_file", "kernfs_init_security",
    "path_unlink", "path_mkdir", "path_rmdir", "path_truncate", "path_symlink", "path_link", "path_rename",
    "path_chmod", "path_chown", "mmap_file", "netlink_send", "path_notify", "release_secctx", "sb_alloc_security",
    "sb_eat_lsm_opts", "sb_kern_mount", "sb_mount", "sb_remount", "sb_set_mnt_opts", "sb_show_options",
    "sb_statfs", "sb_umount", "settime", "socket_accept", "socket_bind", "socket_connect", "socket_create",
    "socket_getpeername", "socket_getpeersec_dgram", "socket_getsockname", "socket_getsockopt", "socket_listen",
    "socket_post_create", "socket_recvmsg", "socket_sendmsg", "socket_shutdown", "socket_socketpair", "syslog",
    "task_alloc", "current_getsecid_subj", "task_getsecid_obj", "task_prctl", "task_setscheduler", "userns_create",
};

const NameSet kLsmUntrusted = {
    "bpf_map_free", "bpf_prog_free", "file_alloc_security", "file_free_security", "sk_alloc_security",
    "sk_free_security", "task_free",
};

const NameSet kLsmBool = {
    "xfrm_state_pol_flow_match", "audit_rule_known", "inode_xattr_skipcap",
};

// Functions of kernel/bpf/bpf_lsm.c named bpf_lsm_* that are not hooks.
const NameSet kLsmNotHooks = {
    "verify_prog", "find_cgroup_shim", "is_sleepable_hook", "is_trusted", "get_retval_range", "func_proto",
    "init", "get_bpf_lsm_func_proto", "bpf_lsm_find_cgroup_shim", "lsm_cgroup_shim", "current_cgroup_shim",
};

const NameSet kTracingDeny = {
    "migrate_disable", "migrate_enable", "rcu_read_unlock_strict", "preempt_count_add", "preempt_count_sub",
    "__rcu_read_lock", "__rcu_read_unlock",
};

const NameSet kNoreturnDeny = {
    "__ia32_sys_exit", "__ia32_sys_exit_group", "__kunit_abort", "kunit_try_catch_throw",
    "__module_put_and_kthread_exit", "__x64_sys_exit", "__x64_sys_exit_group", "do_exit", "do_group_exit",
    "kthread_complete_and_exit", "kthread_exit", "make_task_dead",
};

const std::unordered_map<std::string_view, uint64_t> kRawTpNullArgs = {
    {"afs_flock_ev", 0x10},
    {"afs_make_fs_call", 0x10},
    {"afs_make_fs_call1", 0x10},
    {"afs_make_fs_call2", 0x10},
    {"afs_make_fs_calli", 0x10},
    {"afs_protocol_error", 0x1},
    {"amdgpu_vm_bo_map", 0x1},
    {"amdgpu_vm_bo_unmap", 0x1},
    {"amdtp_packet", 0x100},
    {"binder_transaction", 0x100},
    {"bpf_testmod_test_read", 0x0},
    {"break_lease_block", 0x10},
    {"break_lease_noblock", 0x10},
    {"break_lease_unblock", 0x10},
    {"btree_path_free", 0x100},
    {"cachefiles_io_error", 0x1},
    {"cachefiles_lookup", 0x201},
    {"cachefiles_mark_active", 0x1},
    {"cachefiles_mark_failed", 0x1},
    {"cachefiles_mark_inactive", 0x1},
    {"cachefiles_ondemand_close", 0x1},
    {"cachefiles_ondemand_copen", 0x1},
    {"cachefiles_ondemand_cread", 0x1},
    {"cachefiles_ondemand_fd_release", 0x1},
    {"cachefiles_ondemand_fd_write", 0x1},
    {"cachefiles_ondemand_open", 0x1},
    {"cachefiles_ondemand_read", 0x1},
    {"cachefiles_prep_read", 0x1},
    {"cachefiles_rename", 0x1},
    {"cachefiles_unlink", 0x1},
    {"cachefiles_vfs_error", 0x1},
    {"cfg80211_inform_bss_frame", 0x100},
    {"cfg80211_michael_mic_failure", 0x10000},
    {"cfg80211_report_wowlan_wakeup", 0x100},
    {"cfg80211_scan_done", 0x11},
    {"coda_dec_pic_done", 0x10},
    {"coda_dec_pic_run", 0x10},
    {"device_pm_callback_start", 0x10},
    {"dpu_crtc_setup_mixer", 0x100},
    {"ext4_mballoc_discard", 0x10},
    {"ext4_mballoc_free", 0x10},
    {"fcntl_setlk", 0x10},
    {"fib_table_lookup", 0x100},
    {"flock_lock_inode", 0x10},
    {"folio_wait_writeback", 0x10},
    {"generic_delete_lease", 0x10},
    {"hfi1_sdma_progress", 0x1000},
    {"host1x_cdma_push_gather", 0x10000},
    {"hugetlbfs_alloc_inode", 0x10},
    {"iptfs_ingress_postq_event", 0x1000},
    {"kfree_skb", 0x1000},
    {"kvm_page_fault_enter", 0x100},
    {"locks_remove_posix", 0x10},
    {"mm_collapse_huge_page_isolate", 0x1},
    {"mm_khugepaged_collapse_file", 0x10},
    {"mm_khugepaged_scan_file", 0x10},
    {"mm_khugepaged_scan_pmd", 0x10},
    {"mm_page_alloc", 0x1},
    {"mm_page_alloc_zone_locked", 0x1},
    {"mm_page_pcpu_drain", 0x1},
    {"mr_integ_alloc", 0x2000},
    {"neigh_update", 0x10},
    {"netfs_failure", 0x10},
    {"netfs_folioq", 0x1},
    {"nfs4_inode_callback_event", 0x200},
    {"nfs4_inode_stateid_callback_event", 0x200},
    {"nfs4_setup_sequence", 0x1},
    {"nfsd_dirent", 0x1},
    {"nfsd_file_acquire", 0x1001},
    {"nfsd_file_cons_err", 0x1},
    {"nfsd_file_insert_err", 0x1},
    {"pnfs_mds_fallback_pg_get_mirror_count", 0x10000},
    {"pnfs_mds_fallback_pg_init_read", 0x10000},
    {"pnfs_mds_fallback_pg_init_write", 0x10000},
    {"pnfs_mds_fallback_read_done", 0x10000},
    {"pnfs_mds_fallback_read_pagelist", 0x10000},
    {"pnfs_mds_fallback_write_done", 0x10000},
    {"pnfs_mds_fallback_write_pagelist", 0x10000},
    {"pnfs_update_layout", 0x10000},
    {"posix_lock_inode", 0x10},
    {"qdisc_dequeue", 0x1000},
    {"rdev_set_coalesce", 0x10},
    {"rxrpc_client", 0x1},
    {"rxrpc_recvdata", 0x1},
    {"rxrpc_resend", 0x10},
    {"rxrpc_tq", 0x10},
    {"sched_pi_setprio", 0x10},
    {"sched_process_wait", 0x1},
    {"sched_stick_numa", 0x100},
    {"sched_swap_numa", 0x100},
    {"signal_deliver", 0x20},
    {"signal_generate", 0x20},
    {"spufs_context", 0x10},
    {"tcp_send_reset", 0x11},
    {"tcp_sendmsg_locked", 0x100},
    {"tegra_dma_tx_status", 0x100},
    {"time_out_leases", 0x10},
    {"tmigr_update_events", 0x1},
    {"wiphy_work_cancel", 0x10},
    {"wiphy_work_flush", 0x10},
    {"wiphy_work_queue", 0x10},
    {"wiphy_work_run", 0x10},
    {"writeback_dirty_folio", 0x10},
    {"xchk_metapath_lookup", 0x100},
    {"xchk_nlinks_live_update", 0x10},
    {"xfs_blockgc_flush_all", 0x1},
    {"xfs_blockgc_free_space", 0x10},
    {"xfs_blockgc_start", 0x1},
    {"xfs_blockgc_stop", 0x1},
    {"xfs_blockgc_worker", 0x1},
    {"xfs_btree_overlapped_query_range", 0x100},
    {"xfs_btree_updkeys", 0x100},
    {"xfs_defer_add_item", 0x1},
    {"xfs_defer_cancel_item", 0x1},
    {"xfs_defer_cancel_list", 0x1},
    {"xfs_defer_create_intent", 0x1},
    {"xfs_defer_finish_item", 0x1},
    {"xfs_defer_isolate_paused", 0x1},
    {"xfs_defer_item_pause", 0x1},
    {"xfs_defer_item_unpause", 0x1},
    {"xfs_defer_pending_abort", 0x1},
    {"xfs_defer_pending_finish", 0x1},
    {"xfs_defer_relog_intent", 0x1},
    {"xfs_fs_sync_fs", 0x1},
    {"xfs_inodegc_flush", 0x1},
    {"xfs_inodegc_push", 0x1},
    {"xfs_inodegc_queue", 0x1},
    {"xfs_inodegc_start", 0x1},
    {"xfs_inodegc_stop", 0x1},
    {"xfs_inodegc_throttle", 0x1},
    {"xfs_ioc_free_eofblocks", 0x10},
    {"xfs_iomap_alloc", 0x1000},
    {"xfs_iomap_found", 0x1000},
    {"xfs_map_blocks_alloc", 0x10000},
    {"xfs_map_blocks_found", 0x10000},
    {"xprt_get_cong", 0x10},
    {"xprt_put_cong", 0x10},
    {"xprt_release_cong", 0x10},
    {"xprt_reserve_cong", 0x10},
    {"xs_stream_read_data", 0x1},
};

// bpf_iter_reg.ctx_arg_info of each target whose ctx fields are all kernel objects (task_iter.c, cgroup_iter.c,
// map_iter.c, prog_iter.c, link_iter.c, tcp_ipv4.c, udp.c, af_unix.c, af_netlink.c, ipv6/route.c).
const std::map<std::string, uint64_t, std::less<>> kIterTargets = {
    {"task", 0x30},       // task: OR_NULL | TRUSTED
    {"task_file", 0x1010}, // task, file: OR_NULL
    {"task_vma", 0x110},  // task, vma: OR_NULL
    {"cgroup", 0x30},     // cgroup: OR_NULL | TRUSTED
    {"bpf_map", 0x30},    // map: OR_NULL | TRUSTED
    {"bpf_prog", 0x10},   // prog: OR_NULL
    {"bpf_link", 0x10},   // link: OR_NULL
    {"tcp", 0x30},        // sk_common: OR_NULL | TRUSTED
    {"udp", 0x30},        // udp_sk: OR_NULL | TRUSTED
    {"unix", 0x10},       // unix_sk: OR_NULL
    {"netlink", 0x10},    // sk: OR_NULL
    {"ipv6_route", 0x10}, // rt: OR_NULL
};

std::string_view hook(const std::string& func) {
    std::string_view f = func;
    return f.substr(0, 8) == "bpf_lsm_" ? f.substr(8) : std::string_view();
}

} // namespace

bool lsm_is_hook(const std::string& func) {
    const std::string_view h = hook(func);
    return !h.empty() && !kLsmNotHooks.count(h);
}
bool lsm_hook_disabled(const std::string& func) { return kLsmDisabled.count(hook(func)) > 0; }
bool lsm_hook_sleepable(const std::string& func) { return kLsmSleepable.count(hook(func)) > 0; }
bool lsm_hook_untrusted(const std::string& func) { return kLsmUntrusted.count(hook(func)) > 0; }
bool lsm_hook_bool(const std::string& func) { return kLsmBool.count(hook(func)) > 0; }
bool tracing_denied(const std::string& func) { return kTracingDeny.count(func) > 0; }
bool noreturn_denied(const std::string& func) { return kNoreturnDeny.count(func) > 0; }

// The functions registered with register_btf_fmodret_id_set in Linux 6.18 (net/bpf/test_run.c's
// bpf_test_modify_return_ids): btf_kfunc_is_modify_return lets fmod_ret programs attach to them.
bool fmodret_kfunc(const std::string& func) {
    static const NameSet kSet = {"bpf_modify_return_test", "bpf_modify_return_test2", "bpf_modify_return_test_tp",
                                 "bpf_fentry_test1"};
    return kSet.count(func) > 0;
}

uint64_t raw_tp_null_mask(const std::string& tracepoint) {
    const auto it = kRawTpNullArgs.find(tracepoint);
    return it == kRawTpNullArgs.end() ? 0 : it->second;
}

bool iter_target(const std::string& target, uint64_t* ctx_args) {
    const auto it = kIterTargets.find(target);
    if (it == kIterTargets.end())
        return false;
    *ctx_args = it->second;
    return true;
}

} // namespace strbpf::verifier
