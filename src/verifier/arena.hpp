// SPDX-License-Identifier: BSD-2-Clause
// Arena programs (verifier stage, internal): the map a program's arena accesses reach (the kernel's
// prog->aux->arena), addr_space_cast, PTR_TO_ARENA registers (any arithmetic, no bounds; loads and stores through
// them become the internal ARENA_* forms, the kernel's BPF_PROBE_MEM32), and the arena kfuncs' checks.
#pragma once
#include <cstdint>
#include <string_view>

#include "isa/opcodes.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf::runtime {
struct KfuncProto;
}

namespace strbpf::verifier {

class Env;

// Before the walk: the arena the program's ld_imm64s name (Env::arena_map).
void find_prog_arena(Env& env);
// BPF_ALU64 | BPF_MOV | BPF_X with off 1: the checks of check_alu_op and the result (imm 1: as(1) -> as(0), a
// PTR_TO_ARENA; imm 1 << 16: the other way, a scalar). False after env.fail.
bool do_addr_space_cast(Env& env, const isa::Insn& insn);
// An ALU op with a PTR_TO_ARENA operand (adjust_reg_min_max_vals's first case): allowed whatever it is, the result an
// arena pointer; a 64-bit op is recorded to become 32-bit.
void arena_alu(Env& env, const isa::Insn& insn, bool is64);
bool is_arena_kfunc(std::string_view name);
// check_kfunc_call for bpf_arena_alloc_pages / _free_pages / _reserve_pages (KF_TRUSTED_ARGS | KF_SLEEPABLE, the map
// argument a __map one). False after env.fail.
bool do_arena_kfunc(Env& env, const runtime::KfuncProto& proto, const isa::Insn& insn);
// The verified form of linked instruction PC (convert_ctx_accesses' PTR_TO_ARENA case, do_misc_fixups' casts and
// needs_zext): IN is changed in place and its facts marked.
void arena_rewrite(const Env& env, int32_t pc, const isa::OpInfo& op, isa::Insn* in, InsnFacts* facts);
// The program's arena for the engines (VerifiedProgram::arena).
void fill_arena_view(const Env& env, VerifiedProgram* vp);

} // namespace strbpf::verifier
