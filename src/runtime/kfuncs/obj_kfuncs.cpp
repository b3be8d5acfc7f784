// SPDX-License-Identifier: BSD-2-Clause
// Program-allocated objects (runtime stage): obj_kfuncs.hpp.
#include "runtime/kfuncs/obj_kfuncs.hpp"

#include <bpf/btf.h>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "loader/btf_fields.hpp"
#include "loader/btf_view.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

namespace {

std::shared_ptr<const ObjMeta> make_meta(BtfRef b, uint32_t type_id) {
    const btf_type* t = btfv::type_by_id(b, type_id);
    const loader::StructMeta sm = loader::struct_meta(b, nullptr, type_id);
    if (!t || !sm.has || !sm.error.empty())
        return nullptr;
    auto m = std::make_shared<ObjMeta>();
    m->fields = ValueFieldSet(sm.fields, t->size);
    for (const loader::SpecialStruct& s : sm.fields.structs)
        if (s.kind == loader::kFieldRefcount && s.off % 4 == 0 && uint64_t(s.off) + 4 <= t->size)
            m->refcount_off = int32_t(s.off);
    return m;
}

// The records made so far, per BTF (the weak_ptr tells a live BTF from a freed one at the same address).
struct MetaCache {
    struct Entry {
        std::weak_ptr<struct btf> btf;
        std::unordered_map<uint32_t, std::shared_ptr<const ObjMeta>> metas;
    };
    std::mutex mu;
    std::unordered_map<const struct btf*, Entry> by_btf;
};
MetaCache& meta_cache() {
    static MetaCache* c = new MetaCache(); // never destroyed: objects may be dropped by static maps at exit
    return *c;
}

} // namespace

std::shared_ptr<const ObjMeta> obj_meta(const std::shared_ptr<struct btf>& b, uint32_t type_id) {
    MetaCache& c = meta_cache();
    std::lock_guard<std::mutex> g(c.mu);
    MetaCache::Entry& e = c.by_btf[b.get()];
    if (e.btf.owner_before(b) || b.owner_before(e.btf)) { // new, or another (freed) BTF's entry
        if (c.by_btf.size() > 16)
            std::erase_if(c.by_btf, [](const auto& kv) { return kv.second.btf.expired(); });
        MetaCache::Entry& fresh = c.by_btf[b.get()];
        fresh.btf = b;
        fresh.metas.clear();
        return fresh.metas.emplace(type_id, make_meta(b.get(), type_id)).first->second;
    }
    if (auto it = e.metas.find(type_id); it != e.metas.end())
        return it->second;
    return e.metas.emplace(type_id, make_meta(b.get(), type_id)).first->second;
}

namespace kfuncs {
namespace {

// What precedes each object: 32 bytes, so the object keeps malloc's 16-byte alignment. A per-CPU object's header
// precedes its first CPU's copy; `size` is then the distance between copies.
struct alignas(16) ObjHeader {
    std::shared_ptr<const ObjMeta> meta; // null: no special field (always, for a per-CPU object)
    uint32_t size;
    uint32_t type_id;
    uint64_t magic;
};
static_assert(sizeof(ObjHeader) == 32);
constexpr uint64_t kObjMagic = 0x6f626a5f6e657721ull;    // "obj_new!"
constexpr uint64_t kPercpuMagic = 0x7063707568657721ull; // "pcpuhew!": a bpf_percpu_obj_new object
constexpr uint64_t kCpumaskMagic = 0x6370756d61736b21ull; // "cpumask!": a bpf_cpumask (bits, then the count)

// bpf_percpu_obj_new's limit (the verifier's BPF_GLOBAL_PERCPU_MA_MAX_SIZE): larger structs are refused at load.
constexpr uint64_t kMaxPercpuObjSize = 512;

// bpf_mem_alloc's limits for the non-percpu allocator: no unit for size 0, the largest unit 4096 bytes, each
// object preceded by its 8-byte list node.
constexpr uint64_t kMaxObjSize = 4096 - 8;

// The live objects: start -> size.
// The live objects: start -> size. Freed blocks are kept by size for the next object of that size and never go
// back to malloc: a program of another run may still hold an RCU pointer (MEM_RCU) to an object another thread
// dropped, as the kernel defers the free past an RCU grace period; here such a pointer reaches memory that stays
// an object's block of the same size (type-stable memory, as SLAB_TYPESAFE_BY_RCU), never memory the runtime
// handed elsewhere.
struct Registry {
    std::mutex mu;
    std::map<uint64_t, uint32_t> live;
    std::unordered_map<uint64_t, std::vector<void*>> free_blocks; // block size -> blocks
};
Registry& registry() {
    static Registry* r = new Registry(); // never destroyed: objects may be dropped by static maps at exit
    return *r;
}

ObjHeader* header_of(uint64_t obj) { return reinterpret_cast<ObjHeader*>(obj) - 1; }

// A zeroed block of COPIES copies of SIZE bytes each (rounded up to 8) behind a header carrying MAGIC, registered
// live; its first copy's address, or 0.
uint64_t obj_alloc(uint64_t magic, std::shared_ptr<const ObjMeta> meta, uint32_t size, uint32_t type_id,
                   uint32_t copies) {
    const uint64_t stride = copies > 1 ? (uint64_t(size) + 7) & ~uint64_t{7} : size;
    const uint64_t block = sizeof(ObjHeader) + stride * copies;
    void* mem = nullptr;
    {
        Registry& r = registry();
        std::lock_guard<std::mutex> g(r.mu);
        if (auto it = r.free_blocks.find(block); it != r.free_blocks.end() && !it->second.empty()) {
            mem = it->second.back();
            it->second.pop_back();
        }
    }
    if (mem)
        std::memset(mem, 0, block);
    else if (!(mem = std::calloc(1, block)))
        return 0;
    auto* h = new (mem) ObjHeader{std::move(meta), uint32_t(stride), type_id, magic};
    const uint64_t obj = reinterpret_cast<uint64_t>(h + 1);
    if (h->meta && h->meta->refcount_off >= 0) // bpf_obj_init: refcount_set(1)
        __atomic_store_n(reinterpret_cast<uint32_t*>(obj + uint64_t(h->meta->refcount_off)), 1u, __ATOMIC_RELAXED);
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    r.live.emplace(obj, uint32_t(stride * copies));
    return obj;
}

// The struct of the program's BTF that local type ID R1 names, when it is one an object may be made of.
const btf_type* obj_type(uint64_t r1, RunContext* ctx, uint64_t max_size) {
    BtfRef b = ctx && ctx->instance ? ctx->instance->spec().btf.get() : nullptr;
    const btf_type* t = b && r1 <= UINT32_MAX ? btfv::type_by_id(b, uint32_t(r1)) : nullptr;
    return t && btf_is_struct(t) && t->size != 0 && t->size <= max_size ? t : nullptr;
}

void obj_free(uint64_t obj) {
    ObjHeader* h = header_of(obj);
    const uint64_t block = sizeof(ObjHeader) + uint64_t(h->size) * (h->magic == kPercpuMagic ? possible_cpus() : 1);
    h->magic = 0;
    h->~ObjHeader();
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    r.live.erase(obj);
    r.free_blocks[block].push_back(h);
}

} // namespace

uint64_t bpf_obj_new_impl(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const btf_type* t = obj_type(r1, ctx, kMaxObjSize);
    if (!t)
        return 0;
    return obj_alloc(kObjMagic, obj_meta(ctx->instance->spec().btf, uint32_t(r1)), t->size, uint32_t(r1), 1);
}

uint64_t bpf_percpu_obj_new_impl(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const btf_type* t = obj_type(r1, ctx, kMaxPercpuObjSize);
    return t ? obj_alloc(kPercpuMagic, nullptr, t->size, uint32_t(r1), possible_cpus()) : 0;
}

void obj_drop(uint64_t obj) {
    if (!obj)
        return;
    if (header_of(obj)->magic == kPercpuMagic) { // a struct of scalars: nothing of its own to free
        obj_free(obj);
        return;
    }
    if (header_of(obj)->magic == kCpumaskMagic) { // bpf_cpumask_release: refcount_dec_and_test
        uint32_t* rc = cpumask_refcount(obj);
        if (__atomic_sub_fetch(rc, 1u, __ATOMIC_ACQ_REL) == 0)
            obj_free(obj);
        return;
    }
    const ObjMeta* m = header_of(obj)->meta.get();
    if (m && m->refcount_off >= 0 && // refcount_dec_and_test: other references remain
        __atomic_sub_fetch(reinterpret_cast<uint32_t*>(obj + uint64_t(m->refcount_off)), 1u, __ATOMIC_ACQ_REL) != 0)
        return;
    if (m) // bpf_obj_free_fields: its lists and trees drained, its kptrs dropped
        m->fields.free_fields(reinterpret_cast<void*>(obj));
    obj_free(obj);
}

uint64_t bpf_obj_drop_impl(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    obj_drop(r1);
    return 0;
}

uint64_t bpf_percpu_obj_drop_impl(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    obj_drop(r1);
    return 0;
}

uint64_t cpumask_alloc(uint32_t words) {
    const uint64_t obj = obj_alloc(kCpumaskMagic, nullptr, words * 8 + 8, words, 1);
    if (obj)
        __atomic_store_n(cpumask_refcount(obj), 1u, __ATOMIC_RELAXED);
    return obj;
}

uint64_t* cpumask_bits(uint64_t obj, uint32_t* words) {
    if (!obj || obj_containing(obj, 1) != obj || header_of(obj)->magic != kCpumaskMagic)
        return nullptr;
    *words = header_of(obj)->type_id;
    return reinterpret_cast<uint64_t*>(obj);
}

uint32_t* cpumask_refcount(uint64_t obj) {
    return reinterpret_cast<uint32_t*>(obj + uint64_t(header_of(obj)->type_id) * 8);
}

uint64_t percpu_obj_copy(uint64_t obj, uint64_t cpu) {
    if (!obj || header_of(obj)->magic != kPercpuMagic || cpu >= possible_cpus())
        return 0;
    return obj + cpu * header_of(obj)->size;
}

uint64_t bpf_refcount_acquire_impl(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const ObjMeta* m = obj_containing(r1, 1) == r1 ? header_of(r1)->meta.get() : nullptr;
    if (!m || m->refcount_off < 0) {
        ctx->abort(fmt::format("bpf_refcount_acquire_impl: {:#x} is no live object with a bpf_refcount", r1));
        return 0;
    }
    auto* rc = reinterpret_cast<uint32_t*>(r1 + uint64_t(m->refcount_off));
    uint32_t c = __atomic_load_n(rc, __ATOMIC_RELAXED);
    do { // refcount_inc_not_zero
        if (c == 0)
            return 0;
    } while (!__atomic_compare_exchange_n(rc, &c, c + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return r1;
}

uint64_t obj_containing(uint64_t addr, uint64_t size) {
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    auto it = r.live.upper_bound(addr);
    if (it == r.live.begin())
        return 0;
    --it;
    return addr - it->first <= it->second && size <= it->second - (addr - it->first) ? it->first : 0;
}

size_t live_objects() {
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    return r.live.size();
}

} // namespace kfuncs
} // namespace strbpf::runtime
