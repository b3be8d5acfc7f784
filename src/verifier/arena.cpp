// SPDX-License-Identifier: BSD-2-Clause
// Arena programs (verifier stage): arena.hpp. Linux 6.18's rules:
//  - a program has an arena when one of its ld_imm64s names an arena map (check_map_prog_compatibility: one per
//    program); only then may it hold addr_space_cast;
//  - addr_space_cast(src, 0, 1) (imm 1) makes a PTR_TO_ARENA: the arena offset, the low 32 bits of the user
//    address; addr_space_cast(src, 1, 0) (imm 1 << 16) makes the user address back, an unknown scalar;
//  - every ALU op with an arena operand is allowed and gives an arena pointer; a 64-bit one runs as 32-bit
//    (needs_zext), so an arena pointer's upper half is always zero;
//  - loads and stores through an arena pointer need no bounds: they become ARENA_* forms that read 0 from and drop
//    stores to pages not allocated (the kernel's BPF_PROBE_MEM32 and its exception-table fix-up);
//  - atomics through one (check_atomic_rmw's save_aux_ptr_type) become ARENA_ATOMIC_* forms (BPF_PROBE_ATOMIC), but
//    for fetch_and/or/xor, which atomic_ptr_type_ok refuses because x86-64's JIT has no arena form of them
//    (bpf_jit_supports_insn): on a page not allocated they store nothing and change no register; the fix-ups turn
//    a cast to as(0) into a 32-bit move, and both casts when the map has BPF_F_NO_USER_CONV.
// A cast to as(1) keeps its form; the engines read its imm as the upper half of the arena's user address.
#include "verifier/arena.hpp"

#include <fmt/format.h>

#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/maps/arena_map.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/env.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {
namespace {

constexpr int32_t kCastToKern = 1;        // addr_space_cast(src, 0, 1): arena pointer to offset (as(1) -> as(0))
constexpr int32_t kCastToUser = 1 << 16;  // addr_space_cast(src, 1, 0): offset to user address

// The arena kfuncs' BTF_ID_FLAGS (kernel/bpf/arena.c), registered for every program type.
constexpr KfuncBtf kArenaKfuncs[] = {
    {"bpf_arena_alloc_pages", kKfTrustedArgs | kKfSleepable, KfuncSet::common, KfuncSpecial::none},
    {"bpf_arena_free_pages", kKfTrustedArgs | kKfSleepable, KfuncSet::common, KfuncSpecial::none},
    {"bpf_arena_reserve_pages", kKfTrustedArgs | kKfSleepable, KfuncSet::common, KfuncSpecial::none},
};

const KfuncBtf* arena_kfunc(std::string_view name) {
    for (const KfuncBtf& k : kArenaKfuncs)
        if (name == k.name)
            return &k;
    return nullptr;
}

uint8_t arena_form(isa::Shape s, uint8_t opcode) {
    const uint8_t cls = opcode & 0x07, size = opcode & 0x18;
    switch (s) {
    case isa::Shape::LDX:
    case isa::Shape::ST:
    case isa::Shape::STX: return uint8_t(cls | 0xa0 | size); // the kernel's BPF_PROBE_MEM32 mode
    case isa::Shape::LDSX: return uint8_t(cls | 0xc0 | size);
    case isa::Shape::ATOMIC_W:
    case isa::Shape::ATOMIC_DW: return uint8_t(cls | 0xe0 | size); // BPF_PROBE_ATOMIC
    default: return opcode;
    }
}

} // namespace

void find_prog_arena(Env& env) {
    const auto& insns = env.facts.prog.insns;
    for (size_t pc = 0; pc + 1 < insns.size(); pc++) {
        const isa::Insn& in = insns[pc];
        if (!isa::is_ld_imm64(in))
            continue;
        pc++;
        if (in.src != isa::BPF_PSEUDO_MAP_FD && in.src != isa::BPF_PSEUDO_MAP_VALUE)
            continue;
        const loader::MapSpec* spec = in.imm >= 0 ? env.facts.map_spec(uint32_t(in.imm)) : nullptr;
        if (spec && spec->type == loader::kMapArena) {
            env.setup_facts().arena_map = in.imm;
            return; // map_prog_incompatibility refused a second one
        }
    }
}

bool do_addr_space_cast(Env& env, const isa::Insn& insn) {
    if (insn.imm != kCastToKern && insn.imm != kCastToUser)
        return env.fail("addr_space_cast insn can only convert between address space 1 and 0");
    if (env.facts.arena_map < 0)
        return env.fail("addr_space_cast insn can only be used in a program that has an associated arena");
    if (!check_reg_init(env, insn.src))
        return false;
    Reg& dst = env.path.cur.cur().regs[insn.dst];
    dst = reg_unknown();
    if (insn.imm == kCastToKern)
        dst.type = RegType::arena;
    return true;
}

void arena_alu(Env& env, const isa::Insn& insn, bool is64) {
    auto& regs = env.path.cur.cur().regs;
    if (regs[insn.dst].type != RegType::arena)
        regs[insn.dst] = regs[insn.src]; // the source is the arena pointer
    if (is64) {
        if (env.aux.arena_zext.empty())
            env.aux.arena_zext.assign(env.facts.insns.size(), 0);
        env.aux.arena_zext[size_t(env.path.pc)] = 1;
    }
}

bool is_arena_kfunc(std::string_view name) { return arena_kfunc(name) != nullptr; }

bool do_arena_kfunc(Env& env, const runtime::KfuncProto& proto, const isa::Insn& insn) {
    if (env.facts.variant.no_arena) // a build without arenas registers their kfuncs for no program type
        return env.fail(fmt::format("calling kernel function {} is not allowed", proto.name));
    return check_kfunc_btf_call(env, *arena_kfunc(proto.name), insn);
}

void arena_rewrite(const Env& env, int32_t pc, const isa::OpInfo& op, isa::Insn* in, InsnFacts* facts) {
    if (env.facts.arena_map < 0)
        return;
    if (op.sem == isa::Sem::addr_space_cast) {
        const runtime::Map* m = env.facts.map(uint32_t(env.facts.arena_map));
        if (in->imm == kCastToKern || (m->spec().map_flags & runtime::kMapFlagNoUserConv)) {
            *in = isa::Insn{uint8_t(isa::BPF_ALU | 0xb0 | 0x08), in->dst, in->src, 0, 0}; // wdst = wsrc
            return;
        }
        runtime::ArenaView v;
        runtime::as_arena_map(const_cast<runtime::Map*>(m))->fill_view(&v);
        in->imm = int32_t(v.user_hi);
        return;
    }
    const bool alu64 = op.shape == isa::Shape::ALU64_K || op.shape == isa::Shape::ALU64_X;
    if (alu64 && size_t(pc) < env.aux.arena_zext.size() && env.aux.arena_zext[size_t(pc)]) {
        in->opcode = uint8_t((in->opcode & ~0x07) | isa::BPF_ALU);
        return;
    }
    const bool mem = op.shape == isa::Shape::LDX || op.shape == isa::Shape::LDSX || op.shape == isa::Shape::ST ||
                     op.shape == isa::Shape::STX || op.shape == isa::Shape::ATOMIC_W ||
                     op.shape == isa::Shape::ATOMIC_DW;
    if (mem && env.aux.insn_ptr_type[size_t(pc)] == RegType::arena) {
        in->opcode = arena_form(op.shape, in->opcode);
        facts->mem = MemKind::arena;
    }
}

void fill_arena_view(const Env& env, VerifiedProgram* vp) {
    if (env.facts.arena_map < 0)
        return;
    if (runtime::ArenaMap* a = runtime::as_arena_map(env.facts.map(uint32_t(env.facts.arena_map))))
        a->fill_view(&vp->arena);
}

} // namespace strbpf::verifier
