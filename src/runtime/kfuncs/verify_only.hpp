// SPDX-License-Identifier: BSD-2-Clause
// Kfuncs strbpf verifies but does not run (runtime stage): the kernel's task, cgroup, cpumask, RCU and cast kfuncs,
// whose arguments and results are kernel objects. The linker resolves their names besides the kfunc table's; the
// verifier's rules for them are verifier/kfunc_btf_table.cpp (one row per name here, kfunc_btf_test checks both).
// An engine that reaches one stops the run naming it.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace strbpf::runtime {

// A linked call of verify_only_kfuncs()[i] has imm = kVerifyOnlyKfuncBase + i: past the kfunc table, so the engines'
// kfunc dispatch finds no implementation and stops there.
inline constexpr int32_t kVerifyOnlyKfuncBase = 0x40000000;

std::span<const std::string_view> verify_only_kfuncs();
int verify_only_kfunc_index(std::string_view name); // -1 when absent
// What bpf_ksym_exists() sees for one: a non-zero address no program may dereference (the verifier types it as
// PTR_TO_MEM of size 0).
uint64_t verify_only_kfunc_address(int index);
// The run-time refusal of a linked call with IMM: "" when IMM is no verify-only kfunc call.
std::string verify_only_run_refusal(int32_t imm, int64_t pc);

} // namespace strbpf::runtime
