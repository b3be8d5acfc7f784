// SPDX-License-Identifier: BSD-2-Clause
// The JIT's compile cache (exec stage, JIT): compile once per linked program, for the runner's repeated runs.
// The code lives in the program's own runtime::ProgramCache, so it is freed with the program and can never be
// served to another program that reuses its address.
#include <mutex>

#include "exec/jit/jit.hpp"

namespace strbpf::exec::jit {

Result<std::shared_ptr<const CompiledProgram>> compile_cached(const runtime::LinkedProgram& prog) {
    runtime::ProgramCache& c = *prog.cache;
    {
        std::lock_guard<std::mutex> lock(c.mu);
        if (c.jit)
            return std::static_pointer_cast<const CompiledProgram>(c.jit);
    }
    auto compiled = compile(prog); // outside the lock: compiling is the slow part
    if (!compiled)
        return compiled.error();
    std::shared_ptr<const CompiledProgram> code(std::move(*compiled));
    std::lock_guard<std::mutex> lock(c.mu);
    if (!c.jit) // another thread may have compiled it meanwhile: keep the first
        c.jit = code;
    return std::static_pointer_cast<const CompiledProgram>(c.jit);
}

} // namespace strbpf::exec::jit
