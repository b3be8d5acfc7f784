// SPDX-License-Identifier: BSD-2-Clause
// A loaded object made live (runtime stage): maps created and registered, global data initialised and frozen,
// programs linked (pseudo ld_imm64 resolved to addresses, helper ids and kfunc names checked against the tables).
// Immutable after create(), so any number of threads may run its programs at once.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "loader/object_spec.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/memory/registry.hpp"
#include "strbpf/result.hpp"

namespace strbpf::verifier {
struct VerifiedProgram; // verifier/verified_program.hpp: what the interpreter and the JIT run
} // namespace strbpf::verifier

namespace strbpf::runtime {

// Bytes written into a global-data map (".data", ".rodata", ".bss", ...) before the object is frozen: what
// libbpf's bpf_map__set_initial_value() and a skeleton's rodata writes do.
struct GlobalPatch {
    std::string map;
    uint32_t offset = 0;
    std::vector<uint8_t> bytes;
};

// A program ready to execute. Encoding differs from ProgramSpec in two ways:
// - every ld_imm64 pseudo form (map fd, map value) is replaced by a plain ld_imm64 (src=0) of the host address
//   (a Map* for map fds, the value's address for map values);
// - kfunc calls (src=BPF_PSEUDO_KFUNC_CALL) carry imm = index into kfunc_table().
// Helper calls keep imm = helper id (validated against helper_table()); local calls keep their relative offsets.
// What engines derive once from a linked program and keep with it: the verifier's verdict and the JIT's code.
// Guarded by `mu`; lives as long as the program (never keyed by address, so it cannot outlive its program).
struct ProgramCache {
    std::mutex mu;
    bool verified = false;       // the verifier ran
    bool accepted = false;       // ... and accepted the program
    std::string reason;          // ... or rejected it with this one-line reason
    uint32_t max_ctx_offset = 0; // ... the end of the furthest ctx byte it reads (verifier::Verdict)
    int32_t min_ctx_offset = 0;  // ... the lowest (negative) ctx offset it reads, else 0
    // ... and the program it proved safe, rewritten: the only input of the interpreter and the JIT.
    std::shared_ptr<const verifier::VerifiedProgram> program;
    std::shared_ptr<const void> jit; // the JIT's compiled program (type known to the JIT only)
};

struct LinkedProgram {
    std::shared_ptr<ProgramCache> cache = std::make_shared<ProgramCache>();
    const loader::ProgramSpec* spec = nullptr;
    std::vector<isa::Insn> insns;
    bool linked = false;    // false: link_error says why the program cannot be loaded (other programs still can)
    Error link_error;
};

// libbpf's poisoned call of a `__weak` kfunc the target lacks (kfuncs[idx] of `spec`): the helper id
// 2002000000 + the extern's index, which the verifier refuses as "invalid func unknown#..." only where a path
// reaches it. -1 when the kfunc is strong (its absence fails the program: missing_kfunc_message).
int32_t weak_kfunc_poison(const loader::ObjectSpec& spec, uint32_t idx);
// A `__weak` kfunc libbpf leaves unresolved although strbpf has it: its prototype is incompatible with the
// target kernel's (loader::ExternSpec::incompatible). Linked and verified as an absent weak kfunc.
bool kfunc_unresolved(const loader::ObjectSpec& spec, uint32_t idx);
std::string missing_kfunc_message(const loader::ObjectSpec& spec, uint32_t idx);
inline constexpr int32_t kPoisonCallKfuncBase = 2002000000;

class Extensions; // runtime/extensions.hpp: the embedder's own helpers and program types
class TimerQueue; // runtime/timers/timer_queue.hpp: the bpf_timer helpers' timers

class ObjectInstance {
  public:
    // ext: the embedder's helpers and program types (the linker accepts their ids, the verifier reads their
    // rows); it must outlive the instance, which keeps it.
    static Result<std::unique_ptr<ObjectInstance>> create(std::shared_ptr<const loader::ObjectSpec> spec,
                                                          const std::vector<GlobalPatch>& globals = {},
                                                          std::shared_ptr<const Extensions> ext = nullptr);

    const loader::ObjectSpec& spec() const { return *spec_; }
    const Extensions* extensions() const { return ext_.get(); } // nullptr: none
    const MemoryRegistry& registry() const { return registry_; }
    // Indexes past map_count() are inner map templates (inner_template()), which only the verifier sees.
    Map* map(size_t index) const {
        return index < maps_.size()                          ? maps_[index].get()
               : index - maps_.size() < templates_.size() ? templates_[index - maps_.size()].get()
                                                             : nullptr;
    }
    // The index (for map()) of the inner map template of map-in-map `index`, -1 for other maps.
    int inner_template(size_t index) const { return index < inner_index_.size() ? inner_index_[index] : -1; }
    Map* find_map(const std::string& name) const;
    size_t map_count() const { return maps_.size(); }
    // True when ptr is one of this instance's Map objects (helpers validate map arguments with it).
    bool is_map(uint64_t ptr) const;

    // The timers the programs' bpf_timer_* calls keep (exec/timers.hpp runs them); any thread may use it.
    TimerQueue& timers() const { return *timers_; }

    const std::vector<LinkedProgram>& programs() const { return programs_; }
    const LinkedProgram* find_program(const std::string& name) const;

  private:
    ObjectInstance() = default;
    Status link(const loader::ProgramSpec& prog, LinkedProgram* out);
    Result<uint64_t> kfunc_address(const loader::ProgramSpec& prog, uint32_t idx) const;
    Status create_templates();
    void set_value_fields(); // each map's special fields, from the object's BTF
    void install_resolvers();
    Status fill_slots();

    std::shared_ptr<const loader::ObjectSpec> spec_;
    std::shared_ptr<const Extensions> ext_;
    std::vector<std::unique_ptr<Map>> maps_;
    std::vector<std::unique_ptr<Map>> templates_; // inner map templates of map-in-maps
    std::vector<int> inner_index_;                // per map: its template's index in map(), or -1
    MemoryRegistry registry_;
    std::vector<LinkedProgram> programs_;
    std::shared_ptr<TimerQueue> timers_; // shared_ptr: destroyed where TimerQueue is complete
};

} // namespace strbpf::runtime
