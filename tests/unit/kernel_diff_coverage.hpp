// SPDX-License-Identifier: BSD-2-Clause
// The data of kernel_diff_coverage_test (tests): the unit tests that compare with the kernel by a script of their
// own (no tests/progs program shows what they cover), and the helpers and map types no test can compare with the
// kernel on a host like the reference one, each with its reason.
#pragma once
#include <cstdint>
#include <vector>

#include "verifier/kernel_variant.hpp"

namespace strbpf::coverage {

enum class Kind { helper, map };

// A unit test run by name (binary under build/<preset>/tests, a gtest filter) and what it compares with the kernel.
struct DeclaredTest {
    const char* binary;
    const char* filter;
    std::vector<int32_t> helpers;
    std::vector<uint32_t> maps;
};

inline const std::vector<DeclaredTest> kDeclaredTests = {
    // inode_storage's helpers are lsm-only (no test run): its syscall view (owners named by any file, O_PATH too)
    // is compared with a kernel inode_storage map; task and cgrp storage's too.
    {"local_storage_test", "LocalStorageKernel.SyscallViewTakesTheKernelsFds", {}, {28, 29, 32}},
    // devmap, cpumap, xskmap and devmap_hash filled through the syscall view (a device, a CPU, an AF_XDP socket)
    // and bpf_redirect_map finding their entries, on the kernel (maps_redirect.bpf.c's runs are of empty maps);
    // the syscall views compared operation by operation.
    {"dev_maps_test", "DevMapRunsKernel.*:DevMaps.*", {51}, {14, 16, 17, 25}},
    // cgroup_array filled with cgroup v2 directories, its helpers run from the root and from a child cgroup.
    {"cgroup_array_test", "CgroupArrayKernel.*:CgroupArray.*", {33, 37}, {8}},
    // sockmap, sockhash and reuseport_sockarray filled with the host's sockets through the syscall view, compared
    // operation by operation; sockmap and sockhash looked up, read and updated by a tc program (maps_sock.bpf.c's
    // empty-map runs compare sockmap and sockhash too; no program can run with a reuseport_sockarray).
    {"sock_maps_test", "SockMaps.*:SockMapRuns.*", {1, 2, 86, 95, 98}, {15, 18, 20}},
};

struct Exception {
    Kind kind;
    uint32_t id; // helper id or map type
    const char* reason;
    // Set: the exception holds only where the running 6.18 build has this fact (verifier/kernel_variant.hpp).
    bool verifier::KernelVariant::*only_with = nullptr;
};

inline const std::vector<Exception> kExceptions = {
    // Helpers only fentry/fexit/fmod_ret (and lsm, kprobe) programs may call: the reference host's kernel refuses
    // to load trampoline programs (EPERM before verifying), kprobe programs have no test run, and tp_btf/raw_tp
    // programs may not call them (btf_tracing_helpers.bpf.c checks those refusals beside the kernel).
    // tracing_helpers_test compares them with the kernel where trampolines load.
    {Kind::helper, 173, "bpf_get_func_ip: trampoline and kprobe programs only; this kernel refuses trampolines"},
    {Kind::helper, 183, "bpf_get_func_arg: trampoline and lsm programs only; this kernel refuses trampolines"},
    {Kind::helper, 184, "bpf_get_func_ret: trampoline and lsm programs only; this kernel refuses trampolines"},
    {Kind::helper, 185, "bpf_get_func_arg_cnt: trampoline and lsm programs only; this kernel refuses trampolines"},
    // The kernel refuses BPF_MAP_CREATE of an arena with EPERM (as root, with CAP_BPF): progs.maps_arena*.kernel
    // skip, and the arena's rules come from 6.18's source (docs/testing.md, "Host facts").
    {Kind::map, 33, "arena: this kernel refuses BPF_MAP_TYPE_ARENA (EPERM)"},
    // A build without bpf_xdp_adjust_meta in xdp (kernel variant no_xdp_adjust_meta) cannot run xdp_testrun's
    // adjust_meta programs; strbpf's engines still run them as the 6.18 source has them (tests/cli.cmake).
    {Kind::helper, 54, "bpf_xdp_adjust_meta: this kernel build refuses it in xdp programs",
     &verifier::KernelVariant::no_xdp_adjust_meta},
};

} // namespace strbpf::coverage
