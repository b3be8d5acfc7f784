// The JIT's compile cache (exec stage, JIT): compile once per linked program, for the runner's repeated runs.
// Keyed by the LinkedProgram's address and checked against a copy of its instructions, so a new program that
// happens to reuse a freed address is compiled afresh rather than served someone else's code.
#include <cstring>
#include <list>
#include <mutex>

#include "exec/jit/jit.hpp"

namespace strbpf::exec::jit {
namespace {

constexpr size_t kCacheEntries = 64;

struct Entry {
    const runtime::LinkedProgram* key;
    std::vector<isa::Insn> insns;
    std::shared_ptr<const CompiledProgram> code;
};

bool same_insns(const std::vector<isa::Insn>& a, const std::vector<isa::Insn>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(isa::Insn)) == 0;
}

} // namespace

Result<std::shared_ptr<const CompiledProgram>> compile_cached(const runtime::LinkedProgram& prog) {
    static std::mutex mu;
    static auto& entries = *new std::list<Entry>(); // most recently used first; kept until exit, never destroyed
    {
        std::lock_guard<std::mutex> lock(mu);
        for (auto it = entries.begin(); it != entries.end(); ++it)
            if (it->key == &prog && same_insns(it->insns, prog.insns)) {
                entries.splice(entries.begin(), entries, it);
                return entries.front().code;
            }
    }
    auto compiled = compile(prog); // outside the lock: compiling is the slow part
    if (!compiled)
        return compiled.error();
    std::shared_ptr<const CompiledProgram> code(std::move(*compiled));
    std::lock_guard<std::mutex> lock(mu);
    entries.push_front(Entry{&prog, prog.insns, code});
    if (entries.size() > kCacheEntries)
        entries.pop_back(); // runs still holding it keep it alive through their shared_ptr
    return code;
}

} // namespace strbpf::exec::jit
