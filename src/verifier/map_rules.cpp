// SPDX-License-Identifier: BSD-2-Clause
// Map-type rules as data (verifier stage): the two switches of the kernel's check_map_func_compatibility
// (kernel/bpf/verifier.c, Linux 6.18) as tables. A map type listed in kByMapType allows only its helpers; a helper
// listed in kByHelper takes only its map types; everything else is unrestricted by this check.
#include "verifier/map_rules.hpp"

#include <algorithm>
#include <iterator>
#include <span>
#include <string_view>

#include <bpf/btf.h>
#include <fmt/format.h>

#include "isa/opcodes.hpp"
#include "loader/btf_view.hpp"
#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"

namespace strbpf::verifier {
namespace {

using namespace loader;

// Helper ids (enum bpf_func_id).
enum : int32_t {
    kLookup = 1, kUpdate = 2, kDelete = 3, kTailCall = 12, kPerfEventRead = 22, kPerfEventOutput = 25,
    kGetStackid = 27, kSkbUnderCgroup = 33, kCurrentTaskUnderCgroup = 37, kRedirectMap = 51, kSkRedirectMap = 52,
    kSockMapUpdate = 53, kPerfEventReadValue = 55, kMsgRedirectMap = 60, kSockHashUpdate = 70,
    kMsgRedirectHash = 71, kSkRedirectHash = 72, kGetLocalStorage = 81, kSkSelectReuseport = 82, kPush = 87,
    kPop = 88, kPeek = 89, kSkStorageGet = 107, kSkStorageDelete = 108, kSkbOutput = 111, kXdpOutput = 121,
    kRingbufOutput = 130, kRingbufReserve = 131, kRingbufQuery = 134, kInodeStorageGet = 145,
    kInodeStorageDelete = 146, kTaskStorageGet = 156, kTaskStorageDelete = 157, kLookupPercpu = 195,
    kRingbufReserveDynptr = 198, kRingbufSubmitDynptr = 199, kRingbufDiscardDynptr = 200, kUserRingbufDrain = 209,
    kCgrpStorageGet = 210, kCgrpStorageDelete = 211,
};

constexpr size_t kMaxList = 8;
struct Row {
    int32_t key; // a map type (kByMapType) or a helper id (kByHelper)
    int32_t allowed[kMaxList];
};

// First switch: map type -> the only helpers that may take it. Sockmap and sockhash also allow update and delete
// in the program types may_update_sockmap names (the caller asks it first).
constexpr Row kByMapType[] = {
    {kMapProgArray, {kTailCall}},
    {kMapPerfEventArray, {kPerfEventRead, kPerfEventOutput, kPerfEventReadValue, kSkbOutput, kXdpOutput}},
    {kMapRingbuf, {kRingbufOutput, kRingbufReserve, kRingbufQuery, kRingbufReserveDynptr, kRingbufSubmitDynptr,
                   kRingbufDiscardDynptr}},
    {kMapUserRingbuf, {kUserRingbufDrain}},
    {kMapStackTrace, {kGetStackid}},
    {kMapCgroupArray, {kSkbUnderCgroup, kCurrentTaskUnderCgroup}},
    {kMapCgroupStorage, {kGetLocalStorage}},
    {kMapPercpuCgroupStorage, {kGetLocalStorage}},
    {kMapDevmap, {kRedirectMap, kLookup}},
    {kMapDevmapHash, {kRedirectMap, kLookup}},
    {kMapCpumap, {kRedirectMap}},
    {kMapXskmap, {kRedirectMap, kLookup}},
    {kMapArrayOfMaps, {kLookup}},
    {kMapHashOfMaps, {kLookup}},
    {kMapSockmap, {kSkRedirectMap, kSockMapUpdate, kMsgRedirectMap, kSkSelectReuseport, kLookup}},
    {kMapSockhash, {kSkRedirectHash, kSockHashUpdate, kMsgRedirectHash, kSkSelectReuseport, kLookup}},
    {kMapReuseportSockarray, {kSkSelectReuseport}},
    {kMapQueue, {kPeek, kPop, kPush}},
    {kMapStack, {kPeek, kPop, kPush}},
    {kMapSkStorage, {kSkStorageGet, kSkStorageDelete}},
    {kMapInodeStorage, {kInodeStorageGet, kInodeStorageDelete}},
    {kMapTaskStorage, {kTaskStorageGet, kTaskStorageDelete}},
    {kMapCgrpStorage, {kCgrpStorageGet, kCgrpStorageDelete}},
    {kMapBloomFilter, {kPeek, kPush}},
};

// Second switch: helper -> the only map types it takes.
constexpr Row kByHelper[] = {
    {kTailCall, {kMapProgArray}},
    {kPerfEventRead, {kMapPerfEventArray}},
    {kPerfEventOutput, {kMapPerfEventArray}},
    {kPerfEventReadValue, {kMapPerfEventArray}},
    {kSkbOutput, {kMapPerfEventArray}},
    {kXdpOutput, {kMapPerfEventArray}},
    {kRingbufOutput, {kMapRingbuf}},
    {kRingbufReserve, {kMapRingbuf}},
    {kRingbufQuery, {kMapRingbuf}},
    {kRingbufReserveDynptr, {kMapRingbuf}},
    {kRingbufSubmitDynptr, {kMapRingbuf}},
    {kRingbufDiscardDynptr, {kMapRingbuf}},
    {kUserRingbufDrain, {kMapUserRingbuf}},
    {kGetStackid, {kMapStackTrace}},
    {kCurrentTaskUnderCgroup, {kMapCgroupArray}},
    {kSkbUnderCgroup, {kMapCgroupArray}},
    {kRedirectMap, {kMapDevmap, kMapDevmapHash, kMapCpumap, kMapXskmap}},
    {kSkRedirectMap, {kMapSockmap}},
    {kMsgRedirectMap, {kMapSockmap}},
    {kSockMapUpdate, {kMapSockmap}},
    {kSkRedirectHash, {kMapSockhash}},
    {kMsgRedirectHash, {kMapSockhash}},
    {kSockHashUpdate, {kMapSockhash}},
    {kGetLocalStorage, {kMapCgroupStorage, kMapPercpuCgroupStorage}},
    {kSkSelectReuseport, {kMapReuseportSockarray, kMapSockmap, kMapSockhash}},
    {kPop, {kMapQueue, kMapStack}},
    {kPeek, {kMapQueue, kMapStack, kMapBloomFilter}},
    {kPush, {kMapQueue, kMapStack, kMapBloomFilter}},
    {kLookupPercpu, {kMapPercpuArray, kMapPercpuHash, kMapLruPercpuHash}},
    {kSkStorageGet, {kMapSkStorage}},
    {kSkStorageDelete, {kMapSkStorage}},
    {kInodeStorageGet, {kMapInodeStorage}},
    {kInodeStorageDelete, {kMapInodeStorage}},
    {kTaskStorageGet, {kMapTaskStorage}},
    {kTaskStorageDelete, {kMapTaskStorage}},
    {kCgrpStorageGet, {kMapCgrpStorage}},
    {kCgrpStorageDelete, {kMapCgrpStorage}},
};

// Whether `table` restricts `key`, and if so whether it lists `value`.
bool restricted(std::span<const Row> table, int32_t key, int32_t value, bool* listed) {
    for (const Row& r : table) {
        if (r.key != key)
            continue;
        *listed = std::find(std::begin(r.allowed), std::end(r.allowed), value) != std::end(r.allowed) && value;
        return true;
    }
    return false;
}

constexpr uint32_t kForEachTypes[] = {kMapHash, kMapPercpuHash, kMapLruHash, kMapLruPercpuHash, kMapArray,
                                      kMapPercpuArray};

// The map types a sleepable program may use (check_map_prog_compatibility's switch).
constexpr uint32_t kSleepableTypes[] = {kMapHash, kMapLruHash, kMapArray, kMapPercpuHash, kMapPercpuArray,
                                        kMapLruPercpuHash, kMapArrayOfMaps, kMapHashOfMaps, kMapRingbuf,
                                        kMapUserRingbuf, kMapInodeStorage, kMapSkStorage, kMapTaskStorage,
                                        kMapCgrpStorage, kMapQueue, kMapStack, kMapArena};

bool sleepable_map_type(uint32_t type) {
    return std::find(std::begin(kSleepableTypes), std::end(kSleepableTypes), type) != std::end(kSleepableTypes);
}

// libbpf loads syscall programs and those of a "<type>.s" section (fentry.s/, lsm.s/, uprobe.s, ...) with
// BPF_F_SLEEPABLE.
bool sleepable(const ProgramSpec& prog) {
    if (prog.type == ProgType::syscall)
        return true;
    const std::string_view sec = prog.section;
    const std::string_view head = sec.substr(0, sec.find('/'));
    return head.size() > 2 && head.substr(head.size() - 2) == ".s";
}

// The special fields of a map's value (the kernel's btf_record, parsed from the value's BTF when the map is
// created): bit 0 bpf_spin_lock, 1 bpf_timer, 2 bpf_wq, 3 bpf_list_head / bpf_rb_root, among the members of a
// `__type(value, struct ...)` value or the variables of a global-data section.
enum : unsigned { kFieldSpinLock = 1, kFieldTimer = 2, kFieldWq = 4, kFieldGraphRoot = 8 };

unsigned special_field_of(BtfRef b, uint32_t type_id) {
    const int id = btfv::resolve_type(b, type_id); // through typedefs and modifiers
    const btf_type* t = id < 0 ? nullptr : btfv::type_by_id(b, uint32_t(id));
    if (!t || !btf_is_struct(t))
        return 0;
    static constexpr std::pair<std::string_view, unsigned> kNames[] = {
        {"bpf_spin_lock", kFieldSpinLock}, {"bpf_timer", kFieldTimer}, {"bpf_wq", kFieldWq},
        {"bpf_list_head", kFieldGraphRoot}, {"bpf_rb_root", kFieldGraphRoot}};
    const std::string_view name = btfv::name_by_offset(b, t->name_off);
    for (const auto& [n, bitv] : kNames)
        if (name == n)
            return bitv;
    return 0;
}

unsigned special_fields(const loader::ObjectSpec& obj, const loader::MapSpec& map) {
    BtfRef b = obj.btf.get();
    if (!b)
        return 0;
    const std::string_view sec = map.global_data ? std::string_view(map.section) : ".maps";
    const int sec_id = btfv::find_by_name_kind(b, std::string(sec).c_str(), BTF_KIND_DATASEC);
    if (sec_id < 0)
        return 0;
    const btf_type* ds = btfv::type_by_id(b, uint32_t(sec_id));
    unsigned fields = 0;
    const btf_var_secinfo* vs = btf_var_secinfos(ds);
    for (uint16_t i = 0; i < btf_vlen(ds); i++) {
        const btf_type* var = btfv::type_by_id(b, vs[i].type);
        if (map.global_data) { // the section's variables are the value's fields
            fields |= var ? special_field_of(b, var->type) : 0;
            continue;
        }
        if (!var || map.name != btfv::name_by_offset(b, var->name_off))
            continue;
        const btf_type* def = btfv::type_by_id(b, uint32_t(btfv::resolve_type(b, var->type)));
        if (!def || !btf_is_struct(def))
            return 0;
        const btf_member* mem = btf_members(def);
        for (uint16_t k = 0; k < btf_vlen(def); k++) {
            const btf_type* ptr = btfv::type_by_id(b, mem[k].type);
            if (std::string_view(btfv::name_by_offset(b, mem[k].name_off)) != "value" || !ptr || !btf_is_ptr(ptr))
                continue;
            const btf_type* val = btfv::type_by_id(b, uint32_t(btfv::resolve_type(b, ptr->type)));
            if (!val || !btf_is_struct(val))
                return 0;
            const btf_member* vm = btf_members(val);
            for (uint16_t j = 0; j < btf_vlen(val); j++)
                fields |= special_field_of(b, vm[j].type);
        }
        return fields;
    }
    return fields;
}

// is_tracing_prog_type
bool tracing_type(ProgType t) {
    return t == ProgType::kprobe || t == ProgType::tracepoint || t == ProgType::perf_event ||
           t == ProgType::raw_tracepoint || t == ProgType::raw_tracepoint_writable;
}

// check_map_prog_compatibility's rules on a value's special fields, in its order.
std::string special_field_incompatibility(const loader::ObjectSpec& obj, const loader::MapSpec& map, ProgType t) {
    const unsigned f = special_fields(obj, map);
    if ((f & kFieldGraphRoot) && tracing_type(t))
        return "tracing progs cannot use bpf_{list_head,rb_root} yet";
    if ((f & kFieldSpinLock) && t == ProgType::socket_filter)
        return "socket filter progs cannot use bpf_spin_lock yet";
    if ((f & kFieldSpinLock) && tracing_type(t))
        return "tracing progs cannot use bpf_spin_lock yet";
    if ((f & kFieldTimer) && tracing_type(t))
        return "tracing progs cannot use bpf_timer yet";
    if ((f & kFieldTimer) && map.type != loader::kMapHash && map.type != loader::kMapLruHash &&
        map.type != loader::kMapArray) // map_check_btf: the kernel refuses to create the map (-EOPNOTSUPP)
        return fmt::format("map '{}' of type {} cannot hold a bpf_timer (the kernel creates none: -EOPNOTSUPP)",
                           map.name, map.type);
    if ((f & kFieldWq) && tracing_type(t))
        return "tracing progs cannot use bpf_wq yet";
    return {};
}

} // namespace

std::string map_prog_incompatibility(const runtime::ObjectInstance& inst, const loader::ProgramSpec& prog,
                                     const KernelVariant& variant) {
    const runtime::Map* storage[2] = {}; // bpf_cgroup_storage_assign: one map per storage type (shared, per-CPU)
    const runtime::Map* arena = nullptr;
    for (size_t pc = 0; pc + 1 < prog.insns.size(); pc++) {
        const isa::Insn& in = prog.insns[pc];
        if (!isa::is_ld_imm64(in))
            continue;
        pc++;
        if (in.src != isa::BPF_PSEUDO_MAP_FD && in.src != isa::BPF_PSEUDO_MAP_VALUE)
            continue;
        const runtime::Map* m = inst.map(uint32_t(in.imm));
        if (!m)
            continue;
        if (std::string why = special_field_incompatibility(inst.spec(), m->spec(), prog.type); !why.empty())
            return why;
        if (sleepable(prog)) {
            const int inner = variant.sleepable_inner_maps ? inst.inner_template(uint32_t(in.imm)) : -1;
            const runtime::Map* im = inner >= 0 ? inst.map(uint32_t(inner)) : nullptr;
            if (!sleepable_map_type(m->spec().type) || (im && !sleepable_map_type(im->spec().type)))
                return variant.sleepable_inner_maps
                           ? "Sleepable programs can only use array, hash, ringbuf and local storage maps, also as "
                             "inner maps"
                           : "Sleepable programs can only use array, hash, ringbuf and local storage maps";
        }
        const uint32_t t = m->spec().type;
        if (t == loader::kMapArena) {
            if (arena && arena != m)
                return "Only one arena per program";
            arena = m;
        }
        if (t == loader::kMapCgroupStorage || t == loader::kMapPercpuCgroupStorage) {
            const runtime::Map*& held = storage[t == loader::kMapPercpuCgroupStorage];
            if (held && held != m)
                return "only one cgroup storage of each type is allowed";
            held = m;
        }
    }
    return {};
}

std::string map_func_incompatibility(uint32_t map_type, int32_t func_id, const char* func_name) {
    bool listed = false;
    if ((restricted(kByMapType, int32_t(map_type), func_id, &listed) && !listed) ||
        (restricted(kByHelper, func_id, int32_t(map_type), &listed) && !listed))
        return fmt::format("cannot pass map_type {} into func {}#{}", map_type, func_name, func_id);
    return {};
}

bool may_update_sockmap(ProgType type, int32_t func_id) {
    if (func_id != kUpdate && func_id != kDelete)
        return false;
    switch (type) {
    case ProgType::sock_ops: return func_id == kDelete; // updates only through the sock_ops helpers
    case ProgType::socket_filter:
    case ProgType::sched_cls:
    case ProgType::sched_act:
    case ProgType::xdp:
    case ProgType::sk_reuseport:
    case ProgType::flow_dissector:
    case ProgType::sk_lookup: return true;
    default: return false;
    }
}

bool map_has_for_each(uint32_t map_type) {
    return std::find(std::begin(kForEachTypes), std::end(kForEachTypes), map_type) != std::end(kForEachTypes);
}

LookupResult map_lookup_result(uint32_t map_type) {
    if (is_map_in_map(map_type))
        return LookupResult::inner_map;
    if (map_type == kMapSockmap || map_type == kMapSockhash || map_type == kMapXskmap)
        return LookupResult::socket;
    return LookupResult::map_value;
}

} // namespace strbpf::verifier
