// SPDX-License-Identifier: BSD-2-Clause
// The verified program's driver (verifier stage): asks the passes for a patch per linked instruction, splices
// the patches in, re-targets every jump, local call and callback reference, and records the per-instruction facts
// and the function table (see verified_program.hpp and rewrite.hpp).
#include "verifier/rewrite.hpp"

#include "verifier/arena.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "verifier/callsite_facts.hpp"

namespace strbpf::verifier {
namespace {

using isa::Shape;

MemKind mem_kind(RegType t, runtime::CtxModel model) {
    switch (t) {
    case RegType::ctx: return model == runtime::CtxModel::none ? MemKind::ctx : MemKind::ctx_model;
    case RegType::stack: return MemKind::stack;
    case RegType::map_value: return MemKind::map_value;
    case RegType::map_key: return MemKind::map_key;
    case RegType::packet:
    case RegType::packet_meta: return MemKind::packet;
    case RegType::mem: return MemKind::mem;
    case RegType::btf_id:
        return MemKind::btf_id;
    default: return MemKind::none;
    }
}

bool is_mem_access(Shape s) {
    return s == Shape::LDX || s == Shape::LDSX || s == Shape::ST || s == Shape::STX || s == Shape::ATOMIC_W ||
           s == Shape::ATOMIC_DW;
}

bool may_access_skb(loader::ProgType t) {
    return t == loader::ProgType::socket_filter || t == loader::ProgType::sched_cls ||
           t == loader::ProgType::sched_act;
}

// The linked instruction at PC when it needs a patch: the pass's result (false: the pass refused, a verifier bug).
bool patch_of(const Env& env, runtime::CtxModel model, int32_t pc, const isa::OpInfo& op, const isa::Insn& in,
              Patch* p) {
    if ((op.shape == Shape::LD_ABS || op.shape == Shape::LD_IND) && may_access_skb(env.facts.prog.type)) {
        lower_ld_abs(in, p);
        return true;
    }
    if ((op.shape == Shape::LDX || op.shape == Shape::LDSX) && env.aux.insn_ptr_type[size_t(pc)] == RegType::map_ptr) {
        // dst = the view's address, from its slot in the map; dst = the field (the walk proved the offset)
        if (env.aux.map_view_slot < 0 || env.aux.map_view_slot > INT16_MAX)
            return false;
        p->insns = {isa::Insn{isa::BPF_LDX | isa::BPF_MEM | isa::BPF_DW, in.dst, in.src, int16_t(env.aux.map_view_slot), 0},
                    isa::Insn{in.opcode, in.dst, in.dst, in.off, 0}};
        p->origin = InsnOrigin::map_view;
        return true;
    }
    const bool ctx_access = op.shape == Shape::LDX || op.shape == Shape::LDSX || op.shape == Shape::ST ||
                            op.shape == Shape::STX;
    if (ctx_access && model != runtime::CtxModel::none && env.aux.insn_ptr_type[size_t(pc)] == RegType::ctx)
        return convert_ctx_access(model, in, p);
    return true;
}

// COUNTER_AT: per linked instruction, whether a may_goto counter's set-up precedes it (its function's start):
// calls and callback references reach the set-up, jumps (a loop back to the first instruction) the insn after it.
Status retarget(VerifiedProgram& vp, const std::vector<uint8_t>& counter_at) {
    for (size_t k = 0; k < vp.insns.size(); k++) {
        if (vp.facts[k].origin != InsnOrigin::copied)
            continue;
        isa::Insn& in = vp.insns[k];
        const isa::OpInfo* op = isa::decode(in);
        const int32_t pc = vp.facts[k].orig_pc;
        const int64_t t = op ? isa::target_pc(*op, in, size_t(pc)).value_or(-1) : -1;
        if (t < 0 || size_t(t) >= vp.new_pc.size()) {
            k += op && op->shape == Shape::LDDW;
            continue;
        }
        const bool call = op->shape == Shape::CALL_LOCAL || op->shape == Shape::LDDW;
        const int64_t rel = int64_t(vp.new_pc[size_t(t)]) + (counter_at[size_t(t)] && !call) - int64_t(k) - 1;
        if (op->shape == Shape::GOTOL || op->shape == Shape::CALL_LOCAL || op->shape == Shape::LDDW) {
            in.imm = int32_t(rel);
        } else {
            if (rel < INT16_MIN || rel > INT16_MAX)
                return make_error(fmt::format("the rewritten program's jump at insn {} is out of range (the kernel "
                                              "answers -ERANGE)", pc), -34, pc);
            in.off = int16_t(rel);
        }
        if (op->shape == Shape::LDDW)
            k++;
    }
    return ok_status();
}

void build_functions(const Env& env, const std::vector<int32_t>& slots, VerifiedProgram& vp) {
    std::vector<int32_t> callbacks;
    for (size_t k = 0; k < vp.insns.size(); k++)
        if (isa::is_ld_imm64(vp.insns[k]) && vp.insns[k].src == isa::BPF_PSEUDO_FUNC) {
            callbacks.push_back(int32_t(k) + 1 + vp.insns[k].imm);
            k++;
        }
    const int32_t total = int32_t(vp.insns.size());
    for (size_t i = 0; i < env.facts.subprogs.size(); i++) {
        const Subprog& sp = env.facts.subprogs[i];
        Function f;
        f.orig_start = sp.start;
        f.start = vp.new_pc[size_t(sp.start)];
        f.end = size_t(sp.end) < vp.new_pc.size() ? vp.new_pc[size_t(sp.end)] : total;
        f.name = sp.name;
        f.global = sp.global;
        f.callback = std::find(callbacks.begin(), callbacks.end(), f.start) != callbacks.end();
        f.stack_depth = i < env.aux.stack_depth.size() ? uint32_t(env.aux.stack_depth[i]) : 0;
        f.stack_depth += i < slots.size() && slots[i] ? 8 : 0; // the may_goto counter
        if (int(i) == env.facts.exception_cb)
            vp.exception_cb = f.start;
        vp.functions.push_back(std::move(f));
    }
    std::sort(vp.functions.begin(), vp.functions.end(),
              [](const Function& a, const Function& b) { return a.start < b.start; });
}

} // namespace

Result<std::shared_ptr<const VerifiedProgram>> build_verified_program(const Env& env,
                                                                      const runtime::LinkedProgram& lp) {
    auto vp = std::make_shared<VerifiedProgram>();
    vp->type = env.facts.prog.type;
    vp->ctx_model = ctx_model_of(env.facts.prog.type);
    vp->max_ctx_offset = env.aux.max_ctx_offset;
    vp->min_ctx_offset = env.aux.min_ctx_offset;
    const auto& src = lp.insns;
    if (src.size() != env.facts.insns.size())
        return make_error(fmt::format("program '{}': the linked program has {} instructions, the verified one {}",
                                      env.facts.prog.name, src.size(), env.facts.insns.size()));
    vp->new_pc.assign(src.size(), 0);
    auto slots_or = may_goto_slots(env);
    if (!slots_or)
        return slots_or.error();
    const std::vector<int32_t>& slots = *slots_or;
    std::vector<uint8_t> counter_at(src.size(), 0);
    for (size_t pc = 0; pc < src.size(); pc++) {
        vp->new_pc[pc] = int32_t(vp->insns.size());
        const isa::OpInfo* op = isa::decode(src[pc]);
        const int sp = env.facts.subprog_of(int32_t(pc));
        if (env.facts.subprogs[size_t(sp)].start == int32_t(pc) && slots[size_t(sp)]) {
            counter_at[pc] = 1;
            vp->insns.push_back(may_goto_counter_init(slots[size_t(sp)]));
            vp->facts.push_back(InsnFacts{int32_t(pc), InsnOrigin::may_goto, MemKind::stack, 0, 0});
        }
        if (op && !env.aux.seen[pc] && isa::operand_error(*op, src[pc]) != isa::OperandError::none) {
            // Dead code the engines would refuse: the kernel's dead-code trap (sanitize_dead_code), per slot.
            for (int k = 0; k < isa::slots(*op) && pc < src.size(); k++, pc++) {
                vp->new_pc[pc] = int32_t(vp->insns.size());
                vp->insns.push_back(isa::Insn{isa::BPF_JMP | isa::BPF_JA, 0, 0, -1, 0});
                vp->facts.push_back(InsnFacts{.orig_pc = int32_t(pc)});
            }
            pc--;
            continue;
        }
        if (op && op->shape == Shape::MAY_GOTO) {
            vp->insns.push_back(may_goto_insn(src[pc], slots[size_t(sp)]));
            vp->facts.push_back(InsnFacts{int32_t(pc), InsnOrigin::copied, MemKind::none, 0, 0});
            continue;
        }
        Patch p;
        if (op && !patch_of(env, vp->ctx_model, int32_t(pc), *op, src[pc], &p))
            return make_error(fmt::format("program '{}': no conversion for the ctx access at insn {} (off {})",
                                          env.facts.prog.name, pc, src[pc].off), -14, int64_t(pc));
        InsnFacts facts;
        facts.orig_pc = int32_t(pc);
        const bool mem = op && is_mem_access(op->shape);
        if (mem) {
            facts.mem = mem_kind(env.aux.insn_ptr_type[pc], vp->ctx_model);
            if (std::find(env.aux.insn_ptr_mixed.begin(), env.aux.insn_ptr_mixed.end(), int32_t(pc)) !=
                env.aux.insn_ptr_mixed.end())
                facts.mem = MemKind::mixed;
        } else if (std::find(env.aux.btf_mem_calls.begin(), env.aux.btf_mem_calls.end(), int32_t(pc)) !=
                   env.aux.btf_mem_calls.end()) {
            facts.mem = MemKind::btf_id; // a helper call reading kernel object memory
        }
        if (p.insns.empty()) {
            vp->insns.push_back(src[pc]);
            if (op)
                arena_rewrite(env, int32_t(pc), *op, &vp->insns.back(), &facts); // arena.cpp
            vp->facts.push_back(facts);
            if (op && op->shape == Shape::LDDW && pc + 1 < src.size()) { // the second slot, same facts
                vp->new_pc[++pc] = int32_t(vp->insns.size());
                vp->insns.push_back(src[pc]);
                vp->facts.push_back(facts);
            }
            continue;
        }
        facts.origin = p.origin;
        if (p.origin == InsnOrigin::ctx_access) {
            facts.ctx_off = src[pc].off;
            facts.ctx_size = uint8_t(isa::access_size(*op));
            vp->ctx_rewrites++;
        } else if (p.origin == InsnOrigin::ld_abs) {
            vp->ld_abs_rewrites++;
        } else if (p.origin == InsnOrigin::map_view) {
            facts.mem = MemKind::map_view;
        }
        for (const isa::Insn& in : p.insns) {
            vp->insns.push_back(in);
            vp->facts.push_back(facts);
        }
    }
    STRBPF_TRY(retarget(*vp, counter_at));
    build_functions(env, slots, *vp);
    attach_call_facts(env, *vp);
    fill_arena_view(env, vp.get());
    if (Status s = isa::validate(vp->insns); !s)
        return make_error(fmt::format("program '{}': the rewritten program is invalid: {}", env.facts.prog.name,
                                      s.error().message),
                          -14, vp->orig_pc(s.error().pc));
    return std::shared_ptr<const VerifiedProgram>(std::move(vp));
}

} // namespace strbpf::verifier
