// SPDX-License-Identifier: BSD-2-Clause
// Fuzz target `elf_loader` (fuzz stage): the bytes as a BPF ELF object through the loader's in-memory entry
// point, then ObjectInstance::create (maps, global data, linking every program). Any input must give an object or
// a clean, non-empty error; a crash, leak or hang is a finding. The verifier is left to the `verifier` target: a
// mutated test object keeps programs that run the verifier to its 1M-instruction budget (seconds under ASan).
#include <memory>

#include "common/harness.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "targets/targets.hpp"

namespace {

// The harness's own memory budget: objects declaring more map memory than this load but are not instantiated
// (the runtime's per-map cap is 1 GiB, too much for thousands of runs per second).
constexpr uint64_t kMaxInstantiatedMapBytes = 16u << 20;

uint64_t declared_map_bytes(const strbpf::loader::ObjectSpec& obj) {
    uint64_t total = 0;
    for (const auto& m : obj.maps)
        total += (uint64_t(m.key_size) + m.value_size + 16) * (uint64_t(m.max_entries) + 1);
    return total;
}

} // namespace

int strbpf_fuzz_elf_loader(const uint8_t* data, size_t size) {
    using namespace strbpf;
    auto obj = loader::load_object_memory({data, size}, "<fuzz>");
    if (!obj) {
        if (obj.error().message.empty())
            fuzz::finding("elf_loader: an error without a message");
        return 0;
    }
    if (declared_map_bytes(*obj) > kMaxInstantiatedMapBytes)
        return 0;
    auto spec = std::make_shared<const loader::ObjectSpec>(std::move(obj).value());
    auto inst = runtime::ObjectInstance::create(spec);
    if (!inst) {
        if (inst.error().message.empty())
            fuzz::finding("elf_loader: ObjectInstance::create failed without a message");
        return 0;
    }
    for (const runtime::LinkedProgram& p : inst.value()->programs()) {
        if (!p.linked && p.link_error.message.empty())
            fuzz::finding("elf_loader: a link error without a message");
        if (p.linked && p.insns.size() != p.spec->insns.size())
            fuzz::finding("elf_loader: linking changed the instruction count of '" + p.spec->name + "'");
    }
    return 0;
}
