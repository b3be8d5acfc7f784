// SPDX-License-Identifier: BSD-2-Clause
// A loaded object made live (runtime stage): maps, global data, linked programs.
#include "runtime/instance.hpp"

#include "runtime/maps/arena_map.hpp"
#include "runtime/timers/timer_queue.hpp"
#include "runtime/extensions.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "isa/opcodes.hpp"
#include "loader/btf_fields.hpp"
#include "loader/core_relo.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "runtime/kfuncs/verify_only.hpp"

namespace strbpf::runtime {

using namespace isa;

// Each map's special fields (value_fields.hpp), as the kernel records them when libbpf creates the map with its BTF:
// none when the kernel would refuse the object's BTF (libbpf then creates every map without). The kernel's BTF is
// not read here: a kptr to a kernel struct with no destructor kfunc, which makes the kernel's record an error, is
// refused by the verifier wherever a program uses it (kptr.cpp).
void ObjectInstance::set_value_fields() {
    BtfRef b = spec_->btf.get();
    if (!b)
        return;
    std::vector<std::pair<Map*, loader::ValueFields>> found;
    for (auto* list : {&maps_, &templates_})
        for (auto& m : *list)
            if (loader::ValueFields f = loader::map_value_fields(b, nullptr, m->spec());
                !f.kptrs.empty() || !f.structs.empty())
                found.emplace_back(m.get(), std::move(f));
    if (found.empty() || !loader::object_btf_error(b, nullptr).empty())
        return;
    for (auto& [m, f] : found)
        m->set_value_fields(ValueFieldSet(f, m->spec().value_size));
}

Result<std::unique_ptr<ObjectInstance>> ObjectInstance::create(std::shared_ptr<const loader::ObjectSpec> spec,
                                                               const std::vector<GlobalPatch>& globals,
                                                               std::shared_ptr<const Extensions> ext) {
    std::unique_ptr<ObjectInstance> inst(new ObjectInstance());
    inst->timers_ = std::make_shared<TimerQueue>();
    inst->spec_ = std::move(spec);
    inst->ext_ = std::move(ext);
    const auto& os = *inst->spec_;
    for (const auto& ms : os.maps) {
        auto m = create_map(ms);
        if (!m)
            return m.error();
        inst->maps_.push_back(std::move(m).value());
    }
    STRBPF_TRY(inst->create_templates());
    inst->set_value_fields();
    for (size_t i = 0; i < os.maps.size(); i++) {
        const auto& ms = os.maps[i];
        Map* m = inst->maps_[i].get();
        if (ms.global_data && !ms.initial.empty())
            std::memcpy(m->arena(), ms.initial.data(), std::min<size_t>(ms.initial.size(), ms.value_size));
        ArenaMap* arena = ms.initial.empty() ? nullptr : as_arena_map(m);
        if (arena && !arena->place_globals(ms.initial.data(), ms.initial.size())) // libbpf: at the arena's start
            return make_error(fmt::format("map '{}': the arena's {} pages cannot hold its `.addr_space.1` globals "
                                          "({} bytes)", ms.name, ms.max_entries, ms.initial.size()), -E2BIG);
    }
    for (const auto& g : globals) {
        Map* m = inst->find_map(g.map);
        if (!m || !m->spec().global_data)
            return make_error(fmt::format("no global data section '{}' in {}", g.map, os.path));
        if (uint64_t(g.offset) + g.bytes.size() > m->spec().value_size)
            return make_error(fmt::format("global data write of {} bytes at offset {} exceeds '{}' ({} bytes)",
                                          g.bytes.size(), g.offset, g.map, m->spec().value_size));
        std::memcpy(m->arena() + g.offset, g.bytes.data(), g.bytes.size());
    }
    // Register storage. Frozen read-only maps (.rodata*) are readable only; nothing else in an arena past the
    // values is program-visible for global data (one value).
    for (auto& m : inst->maps_) {
        const auto& ms = m->spec();
        const bool rdonly = ms.frozen || (ms.map_flags & loader::kMapFlagRdonlyProg);
        const uint64_t size = ms.global_data ? ms.value_size : m->arena_size();
        if (size == 0) // fd maps and verify-only maps hold nothing a program may address
            continue;
        if (!inst->registry_.add(Region{reinterpret_cast<uint64_t>(m->arena()), size,
                                        uint8_t(rdonly ? kPermRead : kPermRW),
                                        ms.global_data ? RegionKind::global_data : RegionKind::map, ms.name.c_str()}))
            return make_error(fmt::format("map '{}': its storage at {:#x} ({} bytes) overlaps another region of the "
                                          "memory registry", ms.name, reinterpret_cast<uint64_t>(m->arena()), size));
    }
    inst->programs_.reserve(os.programs.size());
    for (const auto& p : os.programs) {
        LinkedProgram lp;
        if (auto st = inst->link(p, &lp); !st) {
            lp.insns.clear();
            lp.link_error = st.error();
        } else {
            lp.linked = true;
        }
        inst->programs_.push_back(std::move(lp));
    }
    inst->install_resolvers();
    STRBPF_TRY(inst->fill_slots());
    return inst;
}

namespace {
constexpr size_t kMaxUsedMaps = 64; // MAX_USED_MAPS
} // namespace

Status ObjectInstance::link(const loader::ProgramSpec& prog, LinkedProgram* out) {
    out->spec = &prog;
    if (!prog.load_error.empty()) // the loader could not build this program (unknown section, relocation)
        return make_error(prog.load_error, prog.load_error_code ? prog.load_error_code : -22);
    out->insns = prog.insns;
    auto& insns = out->insns;
    std::vector<uint32_t> used_maps; // distinct map indexes, in the order the program first references them
    auto fail = [&](size_t pc, std::string msg) {
        return make_error(fmt::format("program '{}': {}", prog.name, msg), -22, int64_t(pc));
    };
    for (size_t pc = 0; pc < insns.size(); pc++) {
        Insn& in = insns[pc];
        if (is_ld_imm64(in)) {
            if (pc + 1 >= insns.size())
                return fail(pc, fmt::format("invalid ld_imm64 at insn {}: missing second slot", pc));
            Insn& hi = insns[pc + 1];
            // The kernel's resolve_pseudo_ldimm64 reads these forms' imm as an index into the load's fd_array,
            // which libbpf passes only for module BTF fds, and refuses them without one (-EPROTO) before its
            // verifier runs; strbpf's map indexes are the object's maps, so there is no fd_array to index.
            if (in.src == BPF_PSEUDO_MAP_IDX || in.src == BPF_PSEUDO_MAP_IDX_VALUE)
                return make_error(fmt::format("program '{}': fd_idx without fd_array is invalid", prog.name), -EPROTO,
                                  int64_t(pc));
            if (in.src == BPF_PSEUDO_BTF_ID) { // a kfunc's address (bpf_ksym_exists)
                auto addr = kfunc_address(prog, uint32_t(in.imm));
                if (!addr)
                    return make_error(addr.error().message, addr.error().code, int64_t(pc));
                in.src = 0;
                in.imm = int32_t(uint32_t(*addr));
                hi.imm = int32_t(uint32_t(*addr >> 32));
            } else if (in.src == BPF_PSEUDO_MAP_FD || in.src == BPF_PSEUDO_MAP_VALUE) {
                const uint32_t idx = uint32_t(in.imm);
                if (idx >= maps_.size())
                    return fail(pc, fmt::format("ld_imm64 at insn {} refers to map #{} of {}", pc, idx, maps_.size()));
                // The kernel's __add_used_map: a program may reference at most MAX_USED_MAPS distinct maps.
                if (std::find(used_maps.begin(), used_maps.end(), idx) == used_maps.end()) {
                    if (used_maps.size() >= kMaxUsedMaps)
                        return make_error(fmt::format("program '{}': The total number of maps per program has "
                                                      "reached the limit of {}", prog.name, kMaxUsedMaps),
                                          -E2BIG, int64_t(pc));
                    used_maps.push_back(idx);
                }
                Map* m = maps_[idx].get();
                uint64_t addr = reinterpret_cast<uint64_t>(m);
                const ArenaMap* arena = in.src == BPF_PSEUDO_MAP_VALUE ? as_arena_map(m) : nullptr;
                if (arena) { // arena_map_direct_value_addr: a global of `.addr_space.1`, at its user address
                    const uint32_t off = uint32_t(hi.imm);
                    if (off > arena->user_size())
                        return make_error(fmt::format("program '{}': invalid access to map value pointer, "
                                                      "value_size=0 off={}", prog.name, off), -ERANGE, int64_t(pc));
                    addr = arena->user_vm_start() + off;
                } else if (in.src == BPF_PSEUDO_MAP_VALUE) {
                    const uint32_t off = uint32_t(hi.imm);
                    if (!m->direct_value())
                        return fail(pc, "no direct value access support for this map type");
                    if (off >= m->spec().value_size)
                        return fail(pc, fmt::format("invalid access to map value pointer, value_size={} off={}",
                                                    m->spec().value_size, off));
                    addr = reinterpret_cast<uint64_t>(m->direct_value()) + off;
                }
                in.src = 0;
                in.imm = int32_t(uint32_t(addr));
                hi.imm = int32_t(uint32_t(addr >> 32));
            }
            pc++;
            continue;
        }
        if (in.opcode != (BPF_JMP | BPF_CALL))
            continue;
        if (in.src == 0) {
            // Every helper id 6.18 has links; one strbpf does not implement ends a run that reaches it. libbpf's
            // poisoned CO-RE instruction links too: the verifier refuses it where a path reaches it.
            // An embedder's helper (extensions.hpp) is called through its slot: engines find it as a built-in.
            if (const ExtHelper* e = !find_helper(in.imm) && ext_ ? ext_->helper_by_id(in.imm) : nullptr)
                in.imm = e->slot_id;
            else if (!find_helper(in.imm) && in.imm != loader::kCorePoisonHelper)
                return fail(pc, fmt::format("invalid func unknown#{}", in.imm));
        } else if (in.src == BPF_PSEUDO_KFUNC_CALL) {
            const uint32_t idx = uint32_t(in.imm);
            if (idx >= spec_->kfuncs.size())
                return fail(pc, fmt::format("kfunc call at insn {} refers to extern #{}", pc, idx));
            if (kfunc_unresolved(*spec_, idx)) { // libbpf's poison_kfunc_call, as for an absent weak kfunc
                in.src = 0;
                in.imm = weak_kfunc_poison(*spec_, idx);
                continue;
            }
            const int k = kfunc_index(spec_->kfuncs[idx]);
            if (const int v = k < 0 ? verify_only_kfunc_index(spec_->kfuncs[idx]) : -1; v >= 0) {
                in.imm = kVerifyOnlyKfuncBase + v; // verified, never run (kfuncs/verify_only.hpp)
                continue;
            }
            // An embedder's kfunc (extensions.hpp), after strbpf's own: a helper call of its slot for the engines.
            if (const ExtKfunc* e = k < 0 && ext_ ? ext_->kfunc(spec_->kfuncs[idx]) : nullptr) {
                in.src = 0;
                in.imm = e->slot_id;
                continue;
            }
            if (k < 0) {
                const int32_t poison = weak_kfunc_poison(*spec_, idx);
                if (poison < 0)
                    return make_error(missing_kfunc_message(*spec_, idx), -ESRCH, int64_t(pc));
                // libbpf's poison_kfunc_call: an invalid helper id; the verifier refuses it only where reached.
                in.src = 0;
                in.imm = poison;
                continue;
            }
            in.imm = k;
        }
    }
    // What the kernel checks before its verifier walks a program; the operand rules of the insns the walk reaches
    // are the verifier's (the interpreter and the JIT run its verified program), and interp-checked, which runs the
    // linked program, validates it whole (exec::load_check).
    if (auto st = isa::validate(insns, isa::Scope::load); !st)
        return fail(size_t(std::max<int64_t>(st.error().pc, 0)), st.error().message);
    return ok_status();
}

// A kfunc's address for ld_imm64 (libbpf's RELO_EXTERN_LD64 of a ksym function): the implementation's address
// when strbpf has the kfunc, 0 for an absent weak one, libbpf's error for an absent strong one.
Result<uint64_t> ObjectInstance::kfunc_address(const loader::ProgramSpec& prog, uint32_t idx) const {
    if (idx >= spec_->kfuncs.size())
        return make_error(fmt::format("program '{}': ld_imm64 refers to kfunc #{}", prog.name, idx));
    if (kfunc_unresolved(*spec_, idx))
        return uint64_t(0);
    if (const int k = kfunc_index(spec_->kfuncs[idx]); k >= 0)
        return reinterpret_cast<uint64_t>(kfunc_table()[size_t(k)].fn);
    if (const int v = verify_only_kfunc_index(spec_->kfuncs[idx]); v >= 0)
        return verify_only_kfunc_address(v);
    if (const ExtKfunc* e = ext_ ? ext_->kfunc(spec_->kfuncs[idx]) : nullptr)
        return reinterpret_cast<uint64_t>(e->fn);
    if (weak_kfunc_poison(*spec_, idx) >= 0)
        return uint64_t(0);
    return make_error(missing_kfunc_message(*spec_, idx), -ESRCH);
}

Map* ObjectInstance::find_map(const std::string& name) const {
    for (auto& m : maps_)
        if (m->name() == name)
            return m.get();
    return nullptr;
}

bool ObjectInstance::is_map(uint64_t ptr) const {
    for (auto& m : maps_)
        if (reinterpret_cast<uint64_t>(m.get()) == ptr)
            return true;
    return false;
}

const LinkedProgram* ObjectInstance::find_program(const std::string& name) const {
    for (auto& p : programs_)
        if (p.spec->name == name)
            return &p;
    return nullptr;
}

} // namespace strbpf::runtime
