// SPDX-License-Identifier: BSD-2-Clause
// Argument facts of the string calls (verifier stage), see callsite_facts.hpp.
#include "verifier/callsite_facts.hpp"

#include "isa/opcodes.hpp"
#include "runtime/helpers/string_helpers.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"

namespace strbpf::verifier {
namespace {

// A call whose engines have call-site entries: bpf_strncmp and the string kfuncs.
bool is_string_call(const Env& env, const isa::Insn& insn) {
    const isa::OpInfo* op = env.facts.ops[size_t(env.path.pc)];
    if (op && op->shape == isa::Shape::CALL_HELPER)
        return runtime::helper_call_site(insn.imm) != nullptr;
    if (!op || op->shape != isa::Shape::CALL_KFUNC)
        return false;
    const auto& names = env.facts.inst.spec().kfuncs;
    if (insn.imm < 0 || size_t(insn.imm) >= names.size())
        return false;
    const runtime::KfuncProto* proto = runtime::find_kfunc(names[size_t(insn.imm)]);
    return proto && proto->site;
}

// A stack pointer: the frame it points into, counted up from the call's, and its offset from that frame's r10
// when the offset is one constant. The string kfuncs' pointers are __ign, so nothing bounds the offset: an engine
// relying on the fact checks the register against it and the pointer against its stack.
ArgFact stack_fact(const Env& env, const Reg& r) {
    const size_t cur = env.path.cur.frames.size() - 1;
    if (r.frameno > cur)
        return {};
    ArgFact f;
    f.kind = r.var.is_const() ? ArgFact::Kind::stack : ArgFact::Kind::stack_any;
    f.up = uint8_t(cur - r.frameno);
    if (f.kind == ArgFact::Kind::stack)
        f.value = uint64_t(int64_t(r.off) + int64_t(r.var.value));
    return f;
}

// Two paths' facts about one argument: the same, or both pointers into the stack (stack_any), or none.
ArgFact merge(const ArgFact& a, const ArgFact& b) {
    if (a == b)
        return a;
    auto on_stack = [](const ArgFact& f) {
        return f.kind == ArgFact::Kind::stack || f.kind == ArgFact::Kind::stack_any;
    };
    if (on_stack(a) && on_stack(b) && a.up == b.up) {
        ArgFact any;
        any.kind = ArgFact::Kind::stack_any;
        any.up = a.up;
        return any;
    }
    return {};
}

// What R holds, as far as an engine can use it: global data has one value per instance, at a fixed address, so a
// map-value pointer into it with a constant offset names one address; other map values move from element to
// element and are left alone.
ArgFact fact_of(const Env& env, const Reg& r) {
    if (r.type == RegType::scalar)
        return r.var.is_const() ? ArgFact{ArgFact::Kind::constant, false, 0, 0, r.var.value} : ArgFact{};
    if (r.type == RegType::stack && !r.maybe_null)
        return stack_fact(env, r);
    if (r.type != RegType::map_value || r.maybe_null || !r.var.is_const())
        return {};
    runtime::Map* m = env.facts.inst.map(r.aux);
    if (!m || !m->spec().global_data)
        return {};
    const int64_t off = int64_t(r.off) + int64_t(r.var.value);
    const uint32_t size = m->spec().value_size;
    if (off < 0 || off >= int64_t(size))
        return {}; // outside the value: the kernel's answer depends on what lies there
    return ArgFact{ArgFact::Kind::address, m->spec().frozen, 0, uint32_t(size - uint64_t(off)),
                   reinterpret_cast<uint64_t>(m->arena()) + uint64_t(off)};
}

} // namespace

void note_call_facts(Env& env, const isa::Insn& insn) {
    if (!is_string_call(env, insn))
        return;
    const auto& regs = env.path.cur.cur().regs;
    auto [it, fresh] = env.aux.call_facts.try_emplace(env.path.pc);
    it->second.pc = env.path.pc;
    for (size_t k = 0; k < it->second.args.size(); k++) {
        const ArgFact f = fact_of(env, regs[k + 1]);
        it->second.args[k] = fresh ? f : merge(it->second.args[k], f);
    }
}

void attach_call_facts(const Env& env, VerifiedProgram& vp) {
    vp.call_facts.clear();
    for (const auto& [pc, f] : env.aux.call_facts) {
        if (pc < 0 || size_t(pc) >= vp.new_pc.size())
            continue;
        size_t k = size_t(vp.new_pc[size_t(pc)]); // past a may_goto counter's set-up at a function's start
        while (k < vp.facts.size() && vp.facts[k].orig_pc == pc && vp.facts[k].origin != InsnOrigin::copied)
            k++;
        if (k >= vp.facts.size() || vp.facts[k].orig_pc != pc)
            continue;
        CallFacts c = f;
        c.pc = int32_t(k);
        vp.call_facts.push_back(c);
    }
}

} // namespace strbpf::verifier
