// SPDX-License-Identifier: BSD-2-Clause
// Run-time errors name instructions as the user wrote them (exec stage): the interpreter and the JIT run the
// verifier's rewritten program, whose pcs differ from the linked program's wherever a rewrite added instructions.
#pragma once
#include <cstdint>
#include <string>

namespace strbpf::verifier {
struct VerifiedProgram;
}

namespace strbpf::exec {

// MESSAGE with the first "pc N" (N: a pc of SOURCE's rewritten program) read as the linked program's pc through
// SOURCE's pc table: "pc M" where the two agree, "pc M (rewritten pc N)" where they differ. Unchanged without
// SOURCE (the checked interpreter runs the linked program itself) or without such a pc.
std::string name_source_pc(std::string message, const verifier::VerifiedProgram* source);

// MESSAGE, why a helper or kfunc ended the run (runtime::RunContext::abort), with the call that made it: PC is the
// call instruction, a pc of SOURCE's rewritten program (of the linked program without SOURCE). "MESSAGE (call at
// pc M)", or "(call at pc M, rewritten pc N)" where the two differ.
std::string name_call_pc(std::string message, int64_t pc, const verifier::VerifiedProgram* source);

} // namespace strbpf::exec
