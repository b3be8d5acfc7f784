// SPDX-License-Identifier: BSD-2-Clause
// Preemption-disabled regions (verifier stage): preempt.hpp. The kernel counts bpf_preempt_disable calls per path
// (bpf_verifier_state's active_preempt_locks, compared exactly when states are pruned): enable counts down and is
// refused at 0; with a count, sleepable helpers and kfuncs, global functions that may sleep, tail calls, LD_ABS and
// the main program's exit are refused in Linux 6.18's words. Static functions run in the caller's region, so a
// region may open in one and close in another.
#include <fmt/format.h>
#include <vector>

#include "runtime/helpers/helper_table.hpp"
#include "verifier/arena.hpp"
#include "verifier/env.hpp"
#include "verifier/kfunc_btf.hpp"
#include "verifier/preempt.hpp"

namespace strbpf::verifier {
namespace {

// is_kfunc_sleepable for the kfuncs strbpf verifies: the KF_SLEEPABLE rows of the kfunc_btf table and the arena
// kfuncs (KF_SLEEPABLE in 6.18).
bool kfunc_sleepable(std::string_view name) {
    const KfuncBtf* k = find_kfunc_btf(name);
    return (k && (k->flags & kKfSleepable)) || is_arena_kfunc(name);
}

// The kernel's subprog might_sleep, which check_cfg sets on every function with a might_sleep helper or a
// sleepable kfunc call and merges from each function it calls (merge_callee_effects; callbacks are not calls).
bool subprog_might_sleep(const Env& env, int idx, std::vector<bool>& seen) {
    const auto& kfuncs = env.facts.inst.spec().kfuncs;
    return find_call_in_callees(env, idx, seen, false, [&env, &kfuncs](const isa::Insn& in) {
        if (in.src == 0) {
            const runtime::HelperProto* h = runtime::find_helper(in.imm, env.facts.prog.type);
            return h && (h->flags & runtime::kMightSleep);
        }
        return in.src == isa::BPF_PSEUDO_KFUNC_CALL && in.imm >= 0 && size_t(in.imm) < kfuncs.size() &&
               kfunc_sleepable(kfuncs[size_t(in.imm)]);
    }) >= 0;
}

} // namespace

bool is_preempt_kfunc(std::string_view name) { return name == "bpf_preempt_disable" || name == "bpf_preempt_enable"; }

bool do_preempt_kfunc(Env& env, std::string_view name) {
    uint32_t& count = env.path.cur.active_preempt_locks;
    if (name == "bpf_preempt_disable") {
        count++;
    } else if (count == 0) {
        return env.fail(fmt::format("unmatched attempt to enable preemption (kernel function {})", name));
    } else {
        count--;
    }
    clear_caller_saved(env); // a void result leaves R0 uninitialized
    return true;
}

bool check_sleepable_kfunc_preempt(Env& env, std::string_view name) {
    if (env.path.cur.active_preempt_locks && kfunc_sleepable(name))
        return env.fail(fmt::format("kernel func {} is sleepable within non-preemptible region", name));
    return true;
}

bool check_sleepable_helper_preempt(Env& env, const char* name, int32_t id) {
    if (env.path.cur.active_preempt_locks)
        return env.fail(fmt::format("sleepable helper {}#{} in non-preemptible region", name, id));
    return true;
}

bool check_region_leak(Env& env, const char* prefix) {
    if (env.path.cur.active_rcu_lock)
        return env.fail(fmt::format("{} cannot be used inside bpf_rcu_read_lock-ed region", prefix));
    if (env.path.cur.active_preempt_locks)
        return env.fail(fmt::format("{} cannot be used inside bpf_preempt_disable-ed region", prefix));
    return true;
}

bool check_global_call_sleep(Env& env, const Subprog& sp) {
    const bool atomic = env.path.cur.active_rcu_lock || env.path.cur.active_preempt_locks || !env.path.cur.in_sleepable;
    std::vector<bool> seen(env.facts.subprogs.size());
    if (!atomic || !subprog_might_sleep(env, int(&sp - env.facts.subprogs.data()), seen))
        return true;
    env.note("global functions that may sleep are not allowed in non-sleepable context,");
    env.note("i.e., in a RCU/IRQ/preempt-disabled section, or in");
    return env.fail("a non-sleepable BPF program context");
}

} // namespace strbpf::verifier
