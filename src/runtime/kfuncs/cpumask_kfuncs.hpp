// SPDX-License-Identifier: BSD-2-Clause
// The BPF cpumask kfuncs (runtime stage): kernel/bpf/cpumask.c's bpf_cpumask_* on strbpf's own cpumask objects. The
// verifier checks them against their kernel BTF prototypes (verifier/kfunc_btf_table.cpp); here they run. A
// bpf_cpumask is an object of the program-allocated objects' registry (obj_kfuncs.hpp: kfuncs::obj_drop releases
// one a map's kptr field holds) with one bit per possible CPU (nr_cpu_ids: maps' possible_cpus()) and a reference
// count, as struct bpf_cpumask's cpumask_t and refcount_t. Every operation sees only the bits below nr_cpu_ids, as
// the kernel's cpumask_* functions do; a CPU at or past it is invalid (set/clear do nothing, tests answer false),
// and the first/any/weight queries answer nr_cpu_ids when no bit is found. A `const struct cpumask *` argument that
// is not one of these objects (a kernel cpumask such as task->cpus_ptr, which no strbpf run has) ends the run.
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime::kfuncs {

uint64_t bpf_cpumask_create(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_acquire(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_release(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_first(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_first_zero(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_first_and(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_set_cpu(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_clear_cpu(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_test_cpu(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_test_and_set_cpu(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_test_and_clear_cpu(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_setall(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_clear(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_and(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_or(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_xor(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_equal(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_intersects(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_subset(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_empty(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_full(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_copy(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_any_distribute(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_any_and_distribute(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cpumask_weight(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);

} // namespace strbpf::runtime::kfuncs
