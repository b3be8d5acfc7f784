// SPDX-License-Identifier: BSD-2-Clause
// Preemption-disabled regions (verifier stage, internal): bpf_preempt_disable / bpf_preempt_enable and the kernel's
// count of them (State::active_preempt_locks), the calls such a region refuses (sleepable helpers and kfuncs, global
// functions that may sleep), and check_resource_leak's checks of the RCU and preemption regions at an exit, a tail
// call and LD_ABS/LD_IND, as Linux 6.18 makes them.
#pragma once
#include <string_view>

#include "isa/insn.hpp"

namespace strbpf::verifier {

class Env;
struct Subprog;

// bpf_preempt_disable, bpf_preempt_enable (helpers.c common_kfunc_set: every program type).
bool is_preempt_kfunc(std::string_view name);
// check_kfunc_call for one of them: disable counts up, enable down ("unmatched attempt to enable preemption" at 0);
// R0-R5 are clobbered, the result is void. False after env.fail.
bool do_preempt_kfunc(Env& env, std::string_view name);
// check_kfunc_call's refusal of a KF_SLEEPABLE kfunc with preemption disabled. False after env.fail.
bool check_sleepable_kfunc_preempt(Env& env, std::string_view name);
// check_helper_call's refusal of a might_sleep helper with preemption disabled. False after env.fail.
bool check_sleepable_helper_preempt(Env& env, const char* name, int32_t id);
// check_resource_leak's last checks (after the spin lock and the references): "PREFIX cannot be used inside
// bpf_rcu_read_lock-ed region", then "... bpf_preempt_disable-ed region". False after env.fail.
bool check_region_leak(Env& env, const char* prefix);
// check_func_call for a global function: one that may sleep (the kernel's subprog might_sleep: a might_sleep
// helper or a sleepable kfunc in it or in a function it calls) is refused in an RCU or preemption-disabled region
// and in a program that is not sleepable. False after env.fail.
bool check_global_call_sleep(Env& env, const Subprog& sp);

} // namespace strbpf::verifier
