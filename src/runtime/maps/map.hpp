// SPDX-License-Identifier: BSD-2-Clause
// Map storage (runtime stage): the base class every map type implements. Each map keeps all its program-visible
// storage in one arena that the object's MemoryRegistry knows, so program-visible map memory is one region per map.
// Every operation is safe to call from several threads at once (the kernel's maps are too).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "loader/object_spec.hpp"
#include "runtime/maps/value_fields.hpp"
#include "strbpf/result.hpp"

namespace strbpf::runtime {

class RingbufMap;
class FdMap;
class ProgArrayMap;
class PerfEventArrayMap;
struct KernelView; // kernel_view.hpp

// Update flags (include/uapi/linux/bpf.h).
inline constexpr uint64_t kBpfAny = 0, kBpfNoexist = 1, kBpfExist = 2, kBpfFLock = 4;

// The number of possible CPUs (what the kernel's per-CPU maps hold one value for); at least 1.
uint32_t possible_cpus();

class Map {
  public:
    explicit Map(const loader::MapSpec& spec);
    virtual ~Map() = default;
    Map(const Map&) = delete;
    Map& operator=(const Map&) = delete;

    const loader::MapSpec& spec() const { return spec_; }
    const std::string& name() const { return spec_.name; }

    // The kernel's map operations as a program on CPU 0 sees them; negative errno on failure. lookup returns
    // nullptr when absent.
    virtual void* lookup(const void* key) = 0;
    virtual int update(const void* key, const void* value, uint64_t flags) = 0;
    virtual int remove(const void* key) = 0;
    virtual int next_key(const void* key, void* next_key) = 0; // key null: first key; -ENOENT at the end

    // The arena: all program-visible storage of this map.
    virtual uint8_t* arena() = 0;
    virtual uint64_t arena_size() const = 0;
    // Direct value address for ld_imm64 BPF_PSEUDO_MAP_VALUE (array maps: element 0); nullptr when unsupported.
    virtual uint8_t* direct_value() { return nullptr; }

    // ---- per-CPU aware operations (helpers pass RunContext::cpu; the host API uses the syscall forms) ----------
    // Copies of each value: possible_cpus() for per-CPU maps, 1 otherwise.
    virtual uint32_t ncpus() const { return 1; }
    bool percpu() const {
        return spec_.type == loader::kMapPercpuArray || spec_.type == loader::kMapPercpuHash ||
               spec_.type == loader::kMapLruPercpuHash;
    }
    // Bytes of one value as the bpf() syscall moves it: value_size, or round_up(value_size, 8) * ncpus().
    uint64_t syscall_value_size() const {
        return percpu() ? ((uint64_t(spec_.value_size) + 7) & ~uint64_t(7)) * ncpus() : spec_.value_size;
    }
    // Program view: bpf_map_lookup_elem / bpf_map_update_elem running on `cpu` (< ncpus()).
    virtual void* lookup_elem(const void* key, uint32_t cpu) {
        (void)cpu;
        return lookup(key);
    }
    virtual int update_elem(const void* key, const void* value, uint64_t flags, uint32_t cpu) {
        (void)cpu;
        return update(key, value, flags);
    }
    // Syscall view (BPF_MAP_LOOKUP_ELEM / BPF_MAP_UPDATE_ELEM): syscall_value_size() bytes, every CPU's value.
    // Returns: 0; -ENOENT (lookup of an absent key); update: the update errors.
    virtual int copy_value(const void* key, void* out);
    virtual int update_value(const void* key, const void* values, uint64_t flags) { return update(key, values, flags); }
    // BPF_MAP_LOOKUP_ELEM with its flags (map_lookup_elem): -EINVAL for flags other than BPF_F_LOCK, and for
    // BPF_F_LOCK on a value without a bpf_spin_lock; BPF_F_LOCK copies under the value's lock (copy_value otherwise).
    int lookup_value(const void* key, void* out, uint64_t flags);
    // BPF_MAP_UPDATE_ELEM's own check before the map's (map_update_elem): BPF_F_LOCK on a value without a
    // bpf_spin_lock is -EINVAL.
    int syscall_update(const void* key, const void* values, uint64_t flags) {
        if ((flags & kBpfFLock) && !fields_.has_lock())
            return -22;
        return update_value(key, values, flags);
    }

    // The value's special fields (value_fields.hpp): set by the instance once, after creation, before any use.
    void set_value_fields(ValueFieldSet f) { fields_ = std::move(f); }
    const ValueFieldSet& value_fields() const { return fields_; }

    // bpf_for_each_map_elem: calls visit(key, value of `cpu`, arg) for each element in map order until it returns
    // non-zero. Returns the number of elements visited (the stopping one included); -EINVAL when unsupported.
    using Visitor = uint64_t (*)(const void* key, void* value, void* arg);
    virtual long for_each(uint32_t cpu, Visitor visit, void* arg) {
        (void)cpu, (void)visit, (void)arg;
        return -22;
    }

    // bpf_map_push_elem / pop_elem / peek_elem (queue, stack; bloom_filter: push and peek). The syscall view of
    // queue and stack is the same: lookup = peek, update = push, lookup_and_delete = pop (key NULL).
    // Returns: 0; the type's errno; -EOPNOTSUPP on map types without the operation (the verifier refuses them).
    virtual int push_elem(const void* value, uint64_t flags) {
        (void)value, (void)flags;
        return -95;
    }
    virtual int pop_elem(void* value) {
        (void)value;
        return -95;
    }
    virtual int peek_elem(void* value) {
        (void)value;
        return -95;
    }
    // BPF_MAP_LOOKUP_AND_DELETE_ELEM: -ENOTSUPP (524) where strbpf's map type has none. flags: BPF_F_LOCK copies
    // a value with a bpf_spin_lock under it (the caller checked it has one).
    virtual int lookup_and_delete(const void* key, void* out, uint64_t flags) {
        (void)key, (void)out, (void)flags;
        return -524;
    }

    virtual RingbufMap* as_ringbuf() { return nullptr; }
    virtual PerfEventArrayMap* as_perf_event_array() { return nullptr; }
    virtual FdMap* as_fd_map() { return nullptr; }           // prog_array, array_of_maps, hash_of_maps
    virtual ProgArrayMap* as_prog_array() { return nullptr; }
    bool map_in_map() const { return loader::is_map_in_map(spec_.type); }

    // The map as the kernel object a program reads through its map pointer (kernel_view.hpp): null until the
    // verifier first accepts such a read; then fixed for the map's life. kernel_view_slot() is where its bytes'
    // address sits in this object: the verified program loads it from there, then the field from the bytes.
    const KernelView* kernel_view() const { return kview_.get(); }
    void set_kernel_view(std::shared_ptr<const KernelView> v);
    int32_t kernel_view_slot() const {
        return int32_t(reinterpret_cast<const char*>(&kview_bytes_) - reinterpret_cast<const char*>(this));
    }
    uint32_t id() const { return id_; } // the kernel's map id as strbpf models it: unique in the process, above 0

  private:
    const uint8_t* kview_bytes_ = nullptr; // first, so that its slot is a small offset; kview_->bytes.data()
    std::shared_ptr<const KernelView> kview_;
    uint32_t id_ = 0;

  protected:
    loader::MapSpec spec_;
    ValueFieldSet fields_;
};

// Creates a map of spec.type; -EINVAL/-E2BIG style errors for bad or unsupported specs. Ring buffers' sizes are
// first adjusted as libbpf adjusts them (libbpf_ringbuf_size).
Result<std::unique_ptr<Map>> create_map(const loader::MapSpec& spec);

// Per-type factories (one file per map type); they check the type's own spec rules.
Result<std::unique_ptr<Map>> create_array_map(const loader::MapSpec& spec);
Result<std::unique_ptr<Map>> create_percpu_array_map(const loader::MapSpec& spec);
Result<std::unique_ptr<Map>> create_hash_map(const loader::MapSpec& spec); // hash, percpu_hash, lru_hash
Result<std::unique_ptr<Map>> create_ringbuf_map(const loader::MapSpec& spec);
Result<std::unique_ptr<Map>> create_queue_stack_map(const loader::MapSpec& spec); // queue, stack
Result<std::unique_ptr<Map>> create_bloom_filter_map(const loader::MapSpec& spec);
Result<std::unique_ptr<Map>> create_lpm_trie_map(const loader::MapSpec& spec);
Result<std::unique_ptr<Map>> create_perf_event_array_map(const loader::MapSpec& spec);
Result<std::unique_ptr<Map>> create_sock_map(const loader::MapSpec& spec); // sockmap, sockhash (sock_map.cpp)
Result<std::unique_ptr<Map>> create_reuseport_array_map(const loader::MapSpec& spec);
uint32_t libbpf_ringbuf_size(uint32_t max_entries);
// prog_array, array_of_maps and hash_of_maps: fd_maps.hpp.

} // namespace strbpf::runtime
