// SPDX-License-Identifier: BSD-2-Clause
// Helpers without memory arguments (runtime stage): time, randomness, CPU id.
#include "runtime/helpers/basic_helpers.hpp"

#include <time.h>

#include <random>

namespace strbpf::runtime {

uint64_t bpf_ktime_get_ns_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

uint64_t bpf_ktime_get_boot_ns_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

uint64_t bpf_get_prandom_u32_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    thread_local std::minstd_rand rng{std::random_device{}()};
    return uint32_t(rng());
}

// The CPU the engine runs the program as (RunContext::cpu), which also selects per-CPU map values.
uint64_t bpf_get_smp_processor_id_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return ctx ? ctx->cpu : 0;
}

} // namespace strbpf::runtime
