// SPDX-License-Identifier: BSD-2-Clause
// Helpers without memory arguments (runtime stage): time, randomness, CPU id, per-CPU object copies.
#include "runtime/helpers/basic_helpers.hpp"

#include <fmt/format.h>
#include <time.h>

#include <random>

#include "runtime/kfuncs/obj_kfuncs.hpp"
#include "runtime/maps/map.hpp"

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

// The only per-CPU pointers a verified program hands these helpers are bpf_percpu_obj_new objects (a percpu
// `__ksym` variable fails its program at load), and the verifier types the answer non-NULL (an object of the
// struct). Linux 6.18's bpf_per_cpu_ptr answers NULL for a CPU at or past nr_cpu_ids, which such a program may
// then dereference: strbpf stops the run there instead.
uint64_t bpf_per_cpu_ptr_helper(uint64_t r1, uint64_t r2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (const uint64_t p = kfuncs::percpu_obj_copy(r1, r2))
        return p;
    ctx->abort(r2 >= possible_cpus()
                   ? fmt::format("bpf_per_cpu_ptr: CPU {} is not below the {} possible CPUs; Linux 6.18 answers NULL "
                                 "here, which its verifier lets the program dereference",
                                 r2, possible_cpus())
                   : fmt::format("bpf_per_cpu_ptr: {:#x} is no per-CPU object", r1));
    return 0;
}

uint64_t bpf_this_cpu_ptr_helper(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (const uint64_t p = kfuncs::percpu_obj_copy(r1, ctx->cpu))
        return p;
    ctx->abort(fmt::format("bpf_this_cpu_ptr: {:#x} is no per-CPU object", r1));
    return 0;
}

} // namespace strbpf::runtime
