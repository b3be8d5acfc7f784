// SPDX-License-Identifier: BSD-2-Clause
// x86-64 code generation for the JIT (exec stage, JIT): emits the entry trampoline and every BPF function of a
// validated program into an asmjit CodeHolder. The native addresses are known only after relocation (jit.cpp).
#pragma once
#include "runtime/maps/arena_view.hpp"
#include <span>
#include <vector>

#include <asmjit/x86.h>

#include "isa/insn.hpp"
#include "runtime/kfuncs/call_site.hpp"
#include "strbpf/result.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf::exec::jit::x86_64 {

struct Emitted {
    asmjit::Label enter;                  // the entry trampoline: uint64_t enter(EntryFrame*)
    asmjit::Label enter_main;             // valid for a lean program: LeanFn with main inline (abi.hpp)
    asmjit::Label main;                   // pc 0's function entry (not bound when enter_main is valid)
    std::vector<asmjit::Label> functions; // every BPF function entry (pc 0, local-call and callback targets)
    std::vector<int64_t> function_pcs;    // their pcs
    std::vector<uint32_t> insn_offsets;   // per pc: offset of its code in .text (ld_imm64's 2nd slot: the 1st's)
    // Per forward jump, in emission order: true when its rel32 form reached no further than rel8 can. Code only
    // shrinks when those jumps are re-emitted as rel8, so a second emission may use the short form for them.
    std::vector<bool> short_ok;
};

struct CodegenOptions {
    bool bmi2 = false; // shlx/shrx/sarx for register shifts (no need to route the count through cl)
    bool sse42 = false; // pcmpistrm: the short paths of strspn/strcspn and the strstr family (short_strings.hpp)
    bool avx2 = false;  // AVX2 + BMI1: 32-byte blocks in the short paths of the scans and compares
    // From a first emission's Emitted::short_ok: which forward jumps to emit as rel8 (none when null).
    const std::vector<bool>* short_jumps = nullptr;
    // Two slots per call site with call-site entries (count_call_sites), all holding &runtime::kNoRegion at first;
    // they must outlive the code. Null: every helper and kfunc call goes to its generic entry.
    runtime::CallSiteSlot* site_slots = nullptr;
    size_t site_count = 0; // call sites site_slots has room for (calls beyond go to the generic entry)
    // The verifier's program these instructions are (null: nobody verified them): its call facts specialise the
    // string call sites, and a lean program leaves the registers the verifier proved unread at entry unset.
    const verifier::VerifiedProgram* verified = nullptr;
    runtime::ArenaView arena{}; // the program's arena, for its ARENA_* accesses (window null: they stop the run)
};

// How many calls of `insns` have call-site entries (the string kfuncs, bpf_strncmp): CodegenOptions::site_slots
// needs twice as many slots.
size_t count_call_sites(std::span<const isa::Insn> insns);

// Emits `insns` (already accepted by isa::validate) into `code`, which must be initialised for x86-64.
Status emit_program(std::span<const isa::Insn> insns, asmjit::CodeHolder& code, const CodegenOptions& opts,
                    Emitted* out);

} // namespace strbpf::exec::jit::x86_64
