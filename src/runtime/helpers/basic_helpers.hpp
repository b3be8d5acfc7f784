// SPDX-License-Identifier: BSD-2-Clause
// Helpers without memory arguments (runtime stage). Returns: the value; they cannot fail.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_ktime_get_ns_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_ktime_get_boot_ns_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_get_prandom_u32_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_get_smp_processor_id_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
// bpf_per_cpu_ptr(percpu_ptr, cpu) and bpf_this_cpu_ptr(percpu_ptr) on a bpf_percpu_obj_new object: the CPU's copy.
uint64_t bpf_per_cpu_ptr_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_this_cpu_ptr_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
} // namespace strbpf::runtime
