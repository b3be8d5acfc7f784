// SPDX-License-Identifier: BSD-2-Clause
// Static facts before the walk (verifier stage): the program's subprograms (global ones from BTF linkage),
// reachability ("unreachable insn %d"), prune points, and per-instruction register liveness used by pruning.
#include <algorithm>
#include <bpf/btf.h>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "verifier/env.hpp"
#include "verifier/ext_protos.hpp"
#include "verifier/graph.hpp"
#include "verifier/iter.hpp"

namespace strbpf::verifier {
namespace {

using isa::Shape;

bool is_global_func(const loader::ObjectSpec& obj, uint32_t type_id) {
    if (!obj.btf || type_id == 0)
        return false;
    const btf_type* t = btfv::type_by_id(obj.btf.get(), type_id);
    return t && btf_is_func(t) && btf_vlen(t) == BTF_FUNC_GLOBAL;
}

void find_subprogs(Env& env) {
    ProgramFacts& facts = env.setup_facts(); // before the walk: the facts are made here
    std::vector<std::pair<int32_t, const loader::FuncInfo*>> starts{{0, nullptr}};
    for (const loader::FuncInfo& f : facts.prog.funcs)
        starts.emplace_back(int32_t(f.insn), &f);
    for (size_t pc = 0; pc < facts.insns.size(); pc++) {
        const isa::OpInfo* op = facts.ops[pc];
        if (!op)
            continue;
        const bool func_ref = op->shape == Shape::LDDW && facts.insns[pc].src == isa::BPF_PSEUDO_FUNC;
        if (op->shape == Shape::CALL_LOCAL || func_ref)
            starts.emplace_back(int32_t(pc) + facts.insns[pc].imm + 1, nullptr);
    }
    std::stable_sort(starts.begin(), starts.end(), [](auto& a, auto& b) {
        return a.first < b.first || (a.first == b.first && a.second && !b.second);
    });
    for (auto& [start, fi] : starts) {
        if (!facts.subprogs.empty() && facts.subprogs.back().start == start)
            continue;
        Subprog sp;
        sp.start = start;
        if (fi) {
            sp.name = fi->name;
            sp.btf_type = fi->type_id;
            sp.global = start != 0 && is_global_func(facts.inst.spec(), fi->type_id);
        }
        facts.subprogs.push_back(sp);
    }
    for (size_t i = 0; i < facts.subprogs.size(); i++)
        facts.subprogs[i].end =
            i + 1 < facts.subprogs.size() ? facts.subprogs[i + 1].start : int32_t(facts.insns.size());
}

// Successors of pc within its function (calls continue at the next insn).
int successors(const Env& env, int32_t pc, int32_t out[2], int32_t* call_target) {
    const isa::OpInfo* op = env.facts.ops[pc];
    const isa::Insn& in = env.facts.insns[pc];
    *call_target = -1;
    switch (op->shape) {
    case Shape::EXIT: return 0;
    case Shape::JA: out[0] = pc + in.off + 1; return 1;
    case Shape::GOTOL: out[0] = pc + in.imm + 1; return 1;
    case Shape::JMP_K:
    case Shape::JMP_X:
    case Shape::JMP32_K:
    case Shape::JMP32_X:
    case Shape::MAY_GOTO:
        out[0] = pc + 1;
        out[1] = pc + in.off + 1;
        return 2;
    case Shape::CALL_LOCAL:
        *call_target = pc + in.imm + 1;
        out[0] = pc + 1;
        return 1;
    case Shape::LDDW:
        if (in.src == isa::BPF_PSEUDO_FUNC)
            *call_target = pc + in.imm + 1;
        out[0] = pc + 2;
        return 1;
    default: out[0] = pc + 1; return 1;
    }
}

uint16_t bit(int r) { return uint16_t(1u << r); }

// Stack slots an insn reads (use) or fully overwrites (def), for accesses through r10 at a constant offset.
// Anything that may read the stack another way (loads through other registers, calls) uses every slot.
void stack_use_def(const Env& env, int32_t pc, uint64_t* use, uint64_t* def) {
    const isa::OpInfo* op = env.facts.ops[pc];
    const isa::Insn& in = env.facts.insns[pc];
    *use = 0, *def = 0;
    auto slots = [](int32_t off, int size) {
        uint64_t m = 0;
        for (int32_t a = off; a < off + size; a++)
            if (a < 0 && a >= -isa::kStackSize)
                m |= 1ull << ((-a - 1) / 8);
        return m;
    };
    switch (op->shape) {
    case Shape::LDX:
    case Shape::LDSX: *use = in.src == 10 ? slots(in.off, isa::access_size(*op)) : ~0ull; break;
    case Shape::ST:
    case Shape::STX:
        if (in.dst == 10 && isa::access_size(*op) == 8 && in.off % 8 == 0)
            *def = slots(in.off, 8);
        break;
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW: *use = in.dst == 10 ? slots(in.off, isa::access_size(*op)) : ~0ull; break;
    case Shape::CALL_HELPER:
    case Shape::CALL_KFUNC:
    case Shape::CALL_LOCAL:
    case Shape::LD_ABS:
    case Shape::LD_IND: *use = ~0ull; break;
    default: break;
    }
}

void compute_liveness(Env& env) {
    ProgramFacts& facts = env.setup_facts(); // before the walk: the facts are made here
    const int32_t n = int32_t(facts.insns.size());
    facts.live_in.assign(n, 0);
    facts.stack_live_in.assign(n, 0);
    std::vector<uint16_t> use(n), def(n);
    std::vector<uint64_t> suse(n), sdef(n);
    for (int32_t pc = 0; pc < n; pc++)
        if (facts.ops[pc]) {
            use[pc] = isa::regs_read(*facts.ops[pc], facts.insns[pc]); // opcodes.def's reads / writes columns
            def[pc] = isa::regs_written(*facts.ops[pc], facts.insns[pc]);
            stack_use_def(env, pc, &suse[pc], &sdef[pc]);
        }
    for (bool changed = true; changed;) {
        changed = false;
        for (int32_t pc = n - 1; pc >= 0; pc--) {
            if (!facts.ops[pc])
                continue;
            int32_t succ[2], call;
            const int k = successors(env, pc, succ, &call);
            uint16_t out = 0;
            uint64_t sout = 0;
            for (int i = 0; i < k; i++)
                if (succ[i] >= 0 && succ[i] < n) {
                    out |= facts.live_in[succ[i]];
                    sout |= facts.stack_live_in[succ[i]];
                }
            const uint16_t in = uint16_t(use[pc] | (out & ~def[pc]) | bit(10));
            const uint64_t sin = suse[pc] | (sout & ~sdef[pc]);
            if (in != facts.live_in[pc] || sin != facts.stack_live_in[pc])
                facts.live_in[pc] = in, facts.stack_live_in[pc] = sin, changed = true;
        }
    }
}

// check_btf_func: a subprogram (not the main one) with LD_ABS/LD_IND must return a small int or an enum in BTF,
// since the load's hidden failure path returns 0 from it. Subprograms without BTF are not checked.
bool check_ld_abs_return(Env& env) {
    BtfRef b = env.facts.inst.spec().btf.get();
    for (size_t i = 1; b && i < env.facts.subprogs.size(); i++) {
        const Subprog& sp = env.facts.subprogs[i];
        const btf_type* fn = sp.btf_type ? btfv::type_by_id(b, sp.btf_type) : nullptr;
        const btf_type* proto = fn && btf_is_func(fn) ? btfv::type_by_id(b, fn->type) : nullptr;
        if (!proto || !btf_is_func_proto(proto))
            continue;
        bool has_ld_abs = false;
        for (int32_t pc = sp.start; pc < sp.end; pc++)
            if (env.facts.ops[pc] &&
                (env.facts.ops[pc]->shape == Shape::LD_ABS || env.facts.ops[pc]->shape == Shape::LD_IND))
                has_ld_abs = true;
        if (!has_ld_abs)
            continue;
        const btf_type* ret = proto->type ? btfv::type_by_id(b, proto->type) : nullptr;
        while (ret && (btf_is_mod(ret) || btf_is_typedef(ret)))
            ret = btfv::type_by_id(b, ret->type);
        const bool scalar = ret && ((btf_is_int(ret) && ret->size <= 8) || btf_is_enum(ret) || btf_is_enum64(ret));
        if (!scalar)
            return env.fail("LD_ABS is only allowed in functions that return 'int'.");
    }
    return true;
}

} // namespace

bool check_cfg(Env& env) {
    ProgramFacts& facts = env.setup_facts(); // before the walk: the facts are made here
    const int32_t n = int32_t(facts.insns.size());
    find_subprogs(env);
    if (facts.exception_cb_start > 0) // in func_info, so a subprogram of its own (add_subprog(ex_cb_insn))
        facts.exception_cb = facts.subprog_of(facts.exception_cb_start);
    // add_subprog_and_kfunc(): the first kfunc call of a non-GPL program fails the load, reachable or not.
    for (size_t pc = 0; pc < facts.insns.size() && !facts.gpl_compatible; pc++)
        if (facts.ops[pc] && facts.ops[pc]->shape == Shape::CALL_KFUNC) {
            env.log.fail_pc = int32_t(pc);
            return env.fail("cannot call kernel function from non-GPL compatible program");
        }
    for (const Subprog& sp : facts.subprogs) {
        if (sp.start < 0 || sp.start >= n)
            return env.fail(fmt::format("call to invalid destination"));
        int32_t last = sp.end - 1;
        if (last >= 1 && facts.ops[last - 1] && facts.ops[last - 1]->shape == Shape::LDDW)
            last--; // never the second slot
        const isa::OpInfo* op = facts.ops[last];
        if (!op || (op->shape != Shape::EXIT && op->shape != Shape::JA && op->shape != Shape::GOTOL)) {
            env.log.fail_pc = last;
            return env.fail("last insn is not an exit or jmp");
        }
    }
    // Jumps stay inside their subprogram.
    for (int32_t pc = 0; pc < n; pc++) {
        if (!facts.ops[pc])
            continue;
        int32_t succ[2], call;
        const int k = successors(env, pc, succ, &call);
        const Shape sh = facts.ops[pc]->shape;
        if (sh == Shape::LDDW || sh == Shape::CALL_LOCAL)
            continue;
        const Subprog& sp = facts.subprogs[facts.subprog_of(pc)];
        for (int i = 0; i < k; i++)
            if (succ[i] < sp.start || succ[i] >= sp.end) {
                env.log.fail_pc = pc;
                return env.fail(fmt::format("jump out of range from insn {} to {}", pc, succ[i]));
            }
    }
    if (!check_ld_abs_return(env))
        return false;
    // resolve_pseudo_ldimm64: a map fd the object did not relocate names no map strbpf has.
    for (uint32_t pc : facts.prog.raw_map_fds) {
        env.log.fail_pc = int32_t(pc);
        return env.fail(fmt::format("fd {} is not pointing to valid bpf_map", facts.insns[pc].imm));
    }
    // Reachability from the entry, through calls and callback references, and from the exception callback.
    std::vector<uint8_t> seen(n, 0);
    std::vector<int32_t> work{0};
    seen[0] = 1;
    if (facts.exception_cb > 0 && !seen[size_t(facts.exception_cb_start)]) {
        seen[size_t(facts.exception_cb_start)] = 1;
        work.push_back(facts.exception_cb_start);
    }
    while (!work.empty()) {
        const int32_t pc = work.back();
        work.pop_back();
        int32_t succ[3], call;
        int k = successors(env, pc, succ, &call);
        if (call >= 0)
            succ[k++] = call;
        for (int i = 0; i < k; i++)
            if (succ[i] >= 0 && succ[i] < n && !seen[succ[i]]) {
                seen[succ[i]] = 1;
                work.push_back(succ[i]);
            }
    }
    for (int32_t pc = 0; pc < n; pc++) {
        if (!facts.ops[pc])
            continue; // second slot of ld_imm64
        if (!seen[pc]) {
            env.log.fail_pc = pc;
            return env.fail(fmt::format("unreachable insn {}", pc));
        }
    }
    // Prune points: jump targets, conditional jumps, calls and the insns after them; jmp points likewise
    // (visit_insn / push_insn / visit_func_call_insn).
    facts.prune_point.assign(n + 1, 0);
    facts.callback_call.assign(n + 1, 0);
    facts.jmp_point.assign(n + 1, 0);
    auto target = [&](int32_t t, bool prune) {
        facts.jmp_point[t] = 1;
        if (prune)
            facts.prune_point[t] = 1;
    };
    facts.loop_point.assign(n + 1, 0);
    for (int32_t pc = 0; pc < n; pc++) {
        const isa::OpInfo* op = facts.ops[pc];
        if (!op)
            continue;
        const isa::Insn& in = facts.insns[pc];
        switch (op->shape) {
        case Shape::JA: target(pc + in.off + 1, true); break;
        case Shape::GOTOL: target(pc + in.imm + 1, true); break;
        case Shape::JMP_K:
        case Shape::JMP_X:
        case Shape::JMP32_K:
        case Shape::JMP32_X:
            facts.prune_point[pc] = 1;
            target(pc + in.off + 1, true); // and the target
            break;
        case Shape::MAY_GOTO:
            facts.prune_point[pc] = 1, facts.loop_point[pc] = kLoopMayGoto;
            target(pc + in.off + 1, true); // and the target
            break;
        case Shape::CALL_LOCAL: facts.prune_point[pc] = 1; [[fallthrough]];
        case Shape::CALL_HELPER:
            if (op->shape == Shape::CALL_HELPER) {
                // visit_insn: a sync callback's call is a forced checkpoint (its callback returns to it), an
                // async one's a prune point.
                const runtime::CallbackKind cb = helper_callback(env, in.imm).kind;
                if (cb == runtime::CallbackKind::sync)
                    facts.prune_point[pc] = facts.callback_call[pc] = facts.jmp_point[pc] = 1;
                else if (cb == runtime::CallbackKind::async)
                    facts.prune_point[pc] = 1;
            }
            [[fallthrough]];
        case Shape::CALL_KFUNC:
            if (op->shape == Shape::CALL_KFUNC && is_iter_next_call(env, in))
                facts.prune_point[pc] = 1, facts.loop_point[pc] = kLoopIterNext;
            if (op->shape == Shape::CALL_KFUNC && is_graph_callback_call(env, in)) // bpf_rbtree_add_impl
                facts.prune_point[pc] = facts.callback_call[pc] = facts.jmp_point[pc] = 1;
            target(pc + 1, true);
            break;
        default: break;
        }
    }
    compute_liveness(env);
    compute_insn_scc(env);
    return true;
}

void compute_insn_scc(Env& env) {
    ProgramFacts& facts = env.setup_facts();
    const auto& kfuncs = facts.inst.spec().kfuncs;
    const int32_t n = int32_t(facts.insns.size());
    bool throws = false;
    for (int32_t pc = 0; pc < n && !throws; pc++) {
        const isa::Insn& in = facts.insns[size_t(pc)];
        throws = facts.ops[size_t(pc)] && facts.ops[size_t(pc)]->shape == Shape::CALL_KFUNC && in.imm >= 0 &&
                 size_t(in.imm) < kfuncs.size() && kfuncs[size_t(in.imm)] == "bpf_throw";
    }
    if (!throws)
        return;
    // compute_scc: Tarjan's algorithm over every insn in order, each insn's successors fall-through first, without
    // recursion; a component is numbered (from 1, in the order its root completes) when it has two insns or more or
    // an edge to itself.
    constexpr uint32_t kNotOnStack = UINT32_MAX;
    std::vector<uint32_t> pre(size_t(n), 0), low(size_t(n), 0), scc(size_t(n), 0);
    std::vector<int32_t> stack, dfs;
    uint32_t next_pre = 1, next_scc = 1;
    auto succ_of = [&](int32_t pc, int32_t out[2]) {
        if (!facts.ops[size_t(pc)]) // an ld_imm64's second half: no successor of its own
            return 0;
        int32_t call = -1, k = successors(env, pc, out, &call), m = 0;
        for (int32_t j = 0; j < k; j++)
            if (out[j] >= 0 && out[j] < n && (j == 0 || out[j] != out[0]))
                out[m++] = out[j];
        return m;
    };
    for (int32_t i = 0; i < n; i++) {
        if (pre[size_t(i)])
            continue;
        dfs.assign(1, i);
        while (!dfs.empty()) {
            const int32_t w = dfs.back();
            if (!pre[size_t(w)]) {
                pre[size_t(w)] = low[size_t(w)] = next_pre++;
                stack.push_back(w);
            }
            int32_t succ[2];
            const int32_t cnt = succ_of(w, succ);
            bool descended = false;
            for (int32_t j = 0; j < cnt && !descended; j++) {
                if (pre[size_t(succ[j])])
                    low[size_t(w)] = std::min(low[size_t(w)], low[size_t(succ[j])]);
                else
                    dfs.push_back(succ[j]), descended = true;
            }
            if (descended)
                continue;
            if (low[size_t(w)] < pre[size_t(w)]) {
                dfs.pop_back();
                continue;
            }
            bool numbered = stack.back() != w;
            for (int32_t j = 0; j < cnt; j++)
                numbered |= succ[j] == w;
            int32_t t;
            do {
                t = stack.back();
                stack.pop_back();
                low[size_t(t)] = kNotOnStack;
                if (numbered)
                    scc[size_t(t)] = next_scc;
            } while (t != w);
            next_scc += numbered;
            dfs.pop_back();
        }
    }
    facts.insn_scc = std::move(scc);
}

int ProgramFacts::subprog_of(int32_t pc) const {
    int lo = 0;
    for (int i = 0; i < int(subprogs.size()); i++)
        if (subprogs[i].start <= pc)
            lo = i;
    return lo;
}

} // namespace strbpf::verifier
