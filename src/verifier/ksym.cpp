// SPDX-License-Identifier: BSD-2-Clause
// What libbpf left for the verifier (verifier stage): ksym.hpp.
#include "verifier/ksym.hpp"

#include <fmt/format.h>

#include "loader/core_relo.hpp"
#include "runtime/instance.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/kfuncs/verify_only.hpp"
#include "verifier/ext_protos.hpp"

namespace strbpf::verifier {

bool do_ksym_ld_imm64(Env& env, const isa::Insn& insn) {
    const auto& names = env.facts.inst.spec().kfuncs;
    auto& regs = env.path.cur.cur().regs;
    if (insn.imm < 0 || size_t(insn.imm) >= names.size())
        return env.fail(fmt::format("ldimm64 insn specifies invalid btf_id {}.", insn.imm));
    if (runtime::kfunc_unresolved(env.facts.inst.spec(), uint32_t(insn.imm)))
        regs[insn.dst] = reg_const(0); // libbpf left it unresolved: a plain 0
    else if (runtime::find_kfunc(names[size_t(insn.imm)]) ||
             runtime::verify_only_kfunc_index(names[size_t(insn.imm)]) >= 0 ||
             ext_kfunc(env, names[size_t(insn.imm)])) // the embedder's: linked to its function's address too
        regs[insn.dst] = reg_ptr(RegType::mem, 0); // mem_size 0: nothing may be read through it
    else
        regs[insn.dst] = reg_const(0);
    return true;
}

bool fail_missing_kfunc(Env& env, uint32_t idx) {
    const auto& names = env.facts.inst.spec().kfuncs;
    const int32_t poison = runtime::weak_kfunc_poison(env.facts.inst.spec(), idx);
    // libbpf's log fixup of the kernel's "invalid func unknown#<poison>" at the poisoned call.
    if (poison >= 0)
        return env.fail(
            fmt::format("kfunc '{}' is referenced but wasn't resolved",
                        env.facts.inst.spec().externs[size_t(poison - runtime::kPoisonCallKfuncBase)].name));
    return env.fail(fmt::format("calling kernel function {} is not allowed", names[idx]));
}

namespace {

// libbpf's log fixup also rewrites the poisoned instruction's line: "N: (85) call unknown#X" -> "N: <what>".
void rewrite_call_line(Env& env, int32_t imm, const char* what) {
    const std::string line = fmt::format("{}: (85) call unknown#{}\n", env.path.pc, imm);
    if (env.log.text.size() >= line.size() &&
        env.log.text.compare(env.log.text.size() - line.size(), line.size(), line) == 0)
        env.log.text.replace(env.log.text.size() - line.size(), line.size(),
                             fmt::format("{}: {}\n", env.path.pc, what));
}

} // namespace

bool fail_unknown_helper(Env& env, const isa::Insn& insn) {
    if (insn.imm == loader::kCorePoisonHelper)
        for (const loader::ProgramSpec::CorePoison& p : env.facts.prog.core_poisons)
            if (int64_t(p.insn) == env.path.pc) {
                rewrite_call_line(env, insn.imm, "<invalid CO-RE relocation>");
                return env.fail("failed to resolve CO-RE relocation " + p.spec);
            }
    return env.fail(fmt::format("invalid func unknown#{}", insn.imm));
}

} // namespace strbpf::verifier
