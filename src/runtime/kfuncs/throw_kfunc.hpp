// SPDX-License-Identifier: BSD-2-Clause
// bpf_throw (runtime stage): ends the program from any call depth. The native function only records the throw in
// the RunContext (thrown, throw_cookie) and stops the run the way an abort does; the interpreter then unwinds to
// the main program's frame and runs the exception callback there (exec/interp/dispatch.cpp). The JIT never calls
// it: it compiles a bpf_throw call into that unwind itself (exec/jit/x86_64/codegen.cpp, emit_throw).
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime::kfuncs {

uint64_t bpf_throw(uint64_t cookie, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx); // void

} // namespace strbpf::runtime::kfuncs
