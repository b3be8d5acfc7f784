// SPDX-License-Identifier: BSD-2-Clause
// What libbpf left for the verifier (verifier stage): the address of a kfunc (ld_imm64 src=BPF_PSEUDO_BTF_ID,
// what bpf_ksym_exists loads), a call of a `__weak` kfunc the target lacks and an instruction a failed CO-RE
// relocation poisoned (both refused only where a path reaches them).
#pragma once
#include "isa/insn.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {

// check_pseudo_btf_id for a kfunc: PTR_TO_MEM | MEM_RDONLY of size 0 when strbpf has the kfunc; libbpf loads 0 for
// an absent weak one (a known scalar, so `if (bpf_ksym_exists(f))` prunes the call). An absent strong kfunc never
// reaches here (the program fails to link).
bool do_ksym_ld_imm64(Env& env, const isa::Insn& insn);

// A call of kfuncs[idx], which the kfunc table lacks: libbpf has turned a weak one into a helper call with id
// 2002000000 + its extern index, which the kernel refuses as "invalid func unknown#..." where it is reached and
// libbpf's log fixup reports as "kfunc 'X' is referenced but wasn't resolved".
bool fail_missing_kfunc(Env& env, uint32_t idx);

// A helper id 6.18 lacks: the kernel's "invalid func unknown#N", or libbpf's words for an instruction it poisoned
// because a CO-RE relocation failed ("failed to resolve CO-RE relocation <spec>", its log fixup).
bool fail_unknown_helper(Env& env, const isa::Insn& insn);

} // namespace strbpf::verifier
