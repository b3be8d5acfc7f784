// SPDX-License-Identifier: BSD-2-Clause
// bpf_get_current_uid_gid (15), bpf_get_current_comm (16), bpf_get_numa_node_id (42), bpf_ktime_get_coarse_ns
// (160), bpf_ktime_get_tai_ns (208) and the current task (bpf_get_current_task_btf's answer outside tracing runs), runtime stage (kernel/bpf/helpers.c). The
// current task is the thread running the program, as it is for the kernel's BPF_PROG_TEST_RUN.
#include "runtime/helpers/task_helpers.hpp"

#include "runtime/maps/sk_storage_map.hpp"

#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace strbpf::runtime {
namespace {

uint64_t clock_ns(clockid_t id) {
    timespec ts;
    clock_gettime(id, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

} // namespace

// current_uid_gid(): the real uid and gid, gid in the upper half.
uint64_t bpf_get_current_uid_gid_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    return (uint64_t(uint32_t(getgid())) << 32) | uint32_t(getuid());
}

// strscpy_pad(buf, current->comm, size): at most size - 1 bytes of the thread's name, the rest NUL; returns 0.
// The verifier proved [buf, buf+size) writable and size > 0.
uint64_t bpf_get_current_comm_helper(uint64_t buf, uint64_t size, uint64_t, uint64_t, uint64_t, RunContext*) {
    char comm[17] = {};
    prctl(PR_GET_NAME, comm);
    auto* d = reinterpret_cast<char*>(buf);
    const size_t n = size_t(uint32_t(size));
    std::memset(d, 0, n);
    std::memcpy(d, comm, std::min(n - 1, std::strlen(comm)));
    return 0;
}

// numa_node_id(): the node of the CPU the run is on (RunContext::cpu), from sysfs; 0 when the CPU has none.
uint64_t bpf_get_numa_node_id_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const unsigned cpu = ctx ? ctx->cpu : 0;
    for (int node = 0; node < 1024; node++) {
        char path[96];
        std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%u/node%d", cpu, node);
        if (access(path, F_OK) == 0)
            return uint64_t(node);
    }
    return 0;
}

uint64_t bpf_ktime_get_coarse_ns_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    return clock_ns(CLOCK_MONOTONIC_COARSE);
}

uint64_t bpf_ktime_get_tai_ns_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    return clock_ns(CLOCK_TAI);
}

namespace {
struct CurrentTask {
    uint64_t tid = uint64_t(gettid());
    ~CurrentTask() { drop_task_storage(kHostTask | tid); }
};
thread_local CurrentTask current_task;
} // namespace

uint64_t current_task_token() { return reinterpret_cast<uint64_t>(&current_task); }

uint64_t current_task_owner(uint64_t token, const RunContext* ctx) {
    const bool current = token == current_task_token() || (ctx && ctx->current_task && token == ctx->current_task);
    return current ? kHostTask | current_task.tid : 0;
}

} // namespace strbpf::runtime
