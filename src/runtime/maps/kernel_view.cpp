// SPDX-License-Identifier: BSD-2-Clause
// Maps as kernel objects (runtime stage): each map's view laid out by kernel BTF and filled with the values the
// kernel computes for it (kernel_view.hpp). The values follow the kernel's map_alloc functions: bpf_map_init_from_attr
// for struct bpf_map, array_map_alloc, htab_map_alloc, queue_stack_map_alloc, trie_alloc, bloom_map_alloc,
// stack_map_alloc, ringbuf_map_alloc.
#include "runtime/maps/kernel_view.hpp"

#include <bpf/btf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "runtime/instance.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

using namespace loader;

constexpr uint32_t kNumaNodeFlag = 1u << 2, kNoPrealloc = 1u << 0, kZeroSeed = 1u << 6; // BPF_F_*

bool is_modifier(const btf_type* t) { return t && (btf_is_mod(t) || btf_is_typedef(t)); }

const btf_type* skip_mods(BtfRef b, uint32_t id) {
    const btf_type* t = btfv::type_by_id(b, id);
    while (is_modifier(t))
        t = btfv::type_by_id(b, t->type);
    return t;
}

// The members of struct T at byte BASE, flattened: nested structs walked, everything else one field.
void flatten(BtfRef b, const btf_type* t, uint32_t base, const std::string& prefix,
             std::vector<KernelViewField>* out, int depth) {
    const btf_member* m = btf_members(t);
    for (uint32_t i = 0; i < btf_vlen(t); i++, m++) {
        const char* n = btfv::name_by_offset(b, m->name_off);
        const std::string name = n && *n ? prefix + n : prefix + "(anon)";
        const uint32_t off = base + btf_member_bit_offset(t, i) / 8;
        const btf_type* mt = skip_mods(b, m->type);
        if (mt && btf_is_struct(mt) && depth < 8) {
            flatten(b, mt, off, n && *n ? name + "." : prefix, out, depth + 1);
            continue;
        }
        const int64_t size = btf_member_bitfield_size(t, i) ? 0 : btfv::resolve_size(b, m->type);
        if (size > 0) // bitfields and flexible arrays: no field a read may touch
            out->push_back(KernelViewField{off, uint32_t(size), name, false});
    }
}

uint64_t pow2_roundup(uint64_t v) {
    uint64_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

// The value the kernel holds in field NAME of map M's struct (SIZE bytes at P, zero on entry); false when strbpf
// does not know it. BTF sizes the kernel's own structs (htab_elem).
bool fill_map_field(const Map& m, const std::string& name, uint8_t* p, uint32_t size) {
    const MapSpec& s = m.spec();
    auto put = [&](uint64_t v) {
        if (size > 8)
            return false;
        std::memcpy(p, &v, size); // little-endian: the low SIZE bytes
        return true;
    };
    // Zero where strbpf's maps never have what the kernel's would: no hash requested (BPF_OBJ_GET_INFO_BY_FD's
    // hash), no exclusive program, no security blob asked for.
    if (name == "map.sha" || name == "map.excl" || name == "map.excl_prog_sha")
        return true;
    if (name == "map.ops")
        return put(kKernelViewToken);
    if (name == "map.inner_map_meta")
        return put(m.map_in_map() ? kKernelViewToken : 0);
    if (name == "map.map_type")
        return put(s.type);
    if (name == "map.key_size")
        return put(s.key_size);
    if (name == "map.value_size")
        return put(s.value_size);
    if (name == "map.max_entries")
        return put(s.max_entries);
    if (name == "map.map_extra")
        return s.type != kMapArena && put(s.map_extra);
    if (name == "map.map_flags")
        return put(s.map_flags);
    if (name == "map.id")
        return put(m.id());
    if (name == "map.numa_node")
        return !(s.map_flags & kNumaNodeFlag) && put(uint64_t(-1)); // NUMA_NO_NODE
    if (name == "map.frozen")
        return put(s.frozen ? 1 : 0);
    if (name == "map.name") { // what libbpf passes: the name, at most BPF_OBJ_NAME_LEN - 1 bytes; not global data's
        if (s.global_data || size == 0)
            return false;
        std::memcpy(p, s.name.data(), std::min<size_t>(s.name.size(), size - 1));
        return true;
    }
    return false;
}

bool fill_container_field(const Map& m, BtfRef b, const std::string& name, uint8_t* p, uint32_t size) {
    const MapSpec& s = m.spec();
    auto put = [&](uint64_t v) {
        if (size > 8)
            return false;
        std::memcpy(p, &v, size);
        return true;
    };
    const char* type = kernel_struct_of(s.type);
    const std::string st = type ? type : "";
    if (st == "bpf_array") {
        if (name == "elem_size")
            return put((uint64_t(s.value_size) + 7) / 8 * 8);
        if (name == "index_mask")
            return put(pow2_roundup(s.max_entries) - 1);
        if (name == "aux") // prog_array_map_alloc's bpf_array_aux; the other array types have none
            return put(s.type == kMapProgArray ? kKernelViewToken : 0);
    } else if (st == "bpf_htab") {
        const bool percpu = s.type == kMapPercpuHash || s.type == kMapLruPercpuHash;
        const bool lru = s.type == kMapLruHash || s.type == kMapLruPercpuHash;
        if (name == "n_buckets")
            return put(pow2_roundup(s.max_entries));
        if (name == "elem_size") {
            const int32_t e = btfv::find_by_name_kind(b, "htab_elem", BTF_KIND_STRUCT);
            const btf_type* t = e > 0 ? btfv::type_by_id(b, uint32_t(e)) : nullptr;
            return t && put(t->size + (uint64_t(s.key_size) + 7) / 8 * 8 +
                            (percpu ? 8 : (uint64_t(s.value_size) + 7) / 8 * 8));
        }
        if (name == "use_percpu_counter") { // PERCPU_COUNTER_BATCH 32 per online CPU
            const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            return cpus > 0 && put(s.max_entries / 2 > uint64_t(cpus) * 32 ? 1 : 0);
        }
        if (name == "count.counter") // counted only by maps that allocate per element; preallocated ones keep 0
            return (lru || !(s.map_flags & kNoPrealloc)) && put(0);
    } else if (st == "bpf_queue_stack") {
        if (name == "size")
            return put(uint64_t(s.max_entries) + 1);
    } else if (st == "lpm_trie") {
        const uint64_t data = s.key_size >= 4 ? s.key_size - 4 : 0; // past struct bpf_lpm_trie_key_hdr
        if (name == "data_size")
            return put(data);
        if (name == "max_prefixlen")
            return put(data * 8);
    } else if (st == "bpf_bloom_filter") {
        const uint64_t nhash = (s.map_extra & 0xf) ? (s.map_extra & 0xf) : 5;
        if (name == "nr_hash_funcs")
            return put(nhash);
        if (name == "hash_seed") // random unless BPF_F_ZERO_SEED
            return (s.map_flags & kZeroSeed) && put(0);
        if (name == "bitset_mask") { // max_entries * hash functions / ln 2 (as * 7 / 5) bits, a power of 2, >= 64
            const uint64_t k = uint64_t(s.max_entries) * nhash;
            if (k > 0xffffffffull || k / 5 * 7 > (1ull << 31))
                return put(0xffffffffull);
            return put(std::max<uint64_t>(pow2_roundup(k / 5 * 7), 64) - 1);
        }
    } else if (st == "bpf_stack_map") {
        if (name == "n_buckets")
            return put(pow2_roundup(s.max_entries));
    } else if (st == "bpf_ringbuf_map") {
        if (name == "rb")
            return put(kKernelViewToken);
    }
    return false;
}

Result<std::shared_ptr<const KernelView>> layout(const Map& m, BtfRef b) {
    auto v = std::make_shared<KernelView>();
    v->btf = b;
    const char* type = kernel_struct_of(m.spec().type);
    v->type = type ? type : "bpf_map";
    const int32_t id = btfv::find_by_name_kind(b, v->type.c_str(), BTF_KIND_STRUCT);
    const btf_type* t = id > 0 ? btfv::type_by_id(b, uint32_t(id)) : nullptr;
    if (!t)
        return make_error(fmt::format("the kernel BTF has no struct {}", v->type), -22);
    v->bytes.assign(t->size, 0);
    flatten(b, t, 0, "", &v->fields, 0);
    for (KernelViewField& f : v->fields) {
        if (f.off + uint64_t(f.size) > v->bytes.size())
            continue;
        uint8_t* p = v->bytes.data() + f.off;
        f.known = f.name.starts_with("map.") ? fill_map_field(m, f.name, p, f.size)
                                             : fill_container_field(m, b, f.name, p, f.size);
        if (!f.known)
            std::memset(p, 0, f.size);
    }
    return std::shared_ptr<const KernelView>(std::move(v));
}

std::mutex& views_mutex() {
    static std::mutex mu;
    return mu;
}

} // namespace

const char* kernel_struct_of(uint32_t map_type) {
    switch (map_type) {
    case kMapHash: case kMapPercpuHash: case kMapLruHash: case kMapLruPercpuHash: case kMapHashOfMaps:
        return "bpf_htab";
    case kMapArray: case kMapProgArray: case kMapPerfEventArray: case kMapPercpuArray: case kMapCgroupArray:
    case kMapArrayOfMaps:
        return "bpf_array";
    case kMapStackTrace: return "bpf_stack_map";
    case kMapLpmTrie: return "lpm_trie";
    case kMapDevmap: case kMapDevmapHash: return "bpf_dtab";
    case kMapXskmap: return "xsk_map";
    case kMapSockmap: return "bpf_stab";
    case kMapCpumap: return "bpf_cpu_map";
    case kMapSockhash: return "bpf_shtab";
    case kMapCgroupStorage: case kMapPercpuCgroupStorage: return "bpf_cgroup_storage_map";
    case kMapReuseportSockarray: return "reuseport_array";
    case kMapQueue: case kMapStack: return "bpf_queue_stack";
    case kMapSkStorage: case kMapInodeStorage: case kMapTaskStorage: case kMapCgrpStorage:
        return "bpf_local_storage_map";
    case kMapStructOps: return "bpf_struct_ops_map";
    case kMapRingbuf: case kMapUserRingbuf: return "bpf_ringbuf_map";
    case kMapBloomFilter: return "bpf_bloom_filter";
    case kMapArena: return "bpf_arena";
    default: return nullptr;
    }
}

const KernelViewField* KernelView::field_at(uint32_t off) const {
    for (const KernelViewField& f : fields)
        if (off >= f.off && off < f.off + f.size)
            return &f;
    return nullptr;
}

std::string KernelView::unmodelled(int64_t off, int size) const {
    if (off < 0 || size <= 0 || off + size > int64_t(bytes.size()))
        return fmt::format("past the end of struct {} ({} bytes: its flexible array member is the map's own "
                           "storage)", type, bytes.size());
    for (int64_t o = off; o < off + size; o++) {
        const KernelViewField* f = field_at(uint32_t(o));
        if (!f)
            return fmt::format("padding of struct {} at offset {}", type, o);
        if (!f->known)
            return fmt::format("field {} of struct {} (its value is the kernel's own state)", f->name, type);
    }
    return {};
}

void Map::set_kernel_view(std::shared_ptr<const KernelView> v) {
    kview_bytes_ = v ? v->bytes.data() : nullptr;
    kview_ = std::move(v);
}

Status build_kernel_views(const ObjectInstance& inst, BtfRef btf) {
    std::lock_guard<std::mutex> lock(views_mutex());
    for (size_t i = 0;; i++) {
        Map* m = inst.map(i);
        if (!m)
            return ok_status();
        if (const KernelView* v = m->kernel_view()) {
            if (v->btf != btf)
                return make_error(fmt::format("map '{}' was laid out as a kernel object by another kernel BTF",
                                              m->name()), -22);
            continue;
        }
        auto v = layout(*m, btf);
        if (!v)
            return v.error();
        m->set_kernel_view(std::move(*v));
    }
}

} // namespace strbpf::runtime
