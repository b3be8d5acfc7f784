// SPDX-License-Identifier: BSD-2-Clause
// A map value's special fields at run time (runtime stage): where its kptrs, bpf_spin_lock, bpf_timer and the other
// kernel structs lie (loader/btf_fields.hpp finds them, once, when the instance creates the map) and the kernel's
// copies around them (kernel/bpf: copy_map_value, copy_map_value_locked, check_and_init_map_value,
// bpf_obj_free_fields):
// - a copy out to the syscall's caller reads every special field as zeros;
// - a copy in skips them: the destination keeps its own; an update then frees the old element's fields (a kptr
//   becomes NULL, a timer or bpf_wq is cancelled and freed: strbpf zeroes its bytes, which also takes its token,
//   so the timer queue finds no timer there: timer_queue.hpp) but keeps the lock word;
// - a fresh element (a new hash element) has every special field zero;
// - BPF_F_LOCK copies under the value's bpf_spin_lock, taken as the bpf_spin_lock helper takes it.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "loader/btf_fields.hpp"
#include "runtime/maps/value_copy.hpp"

namespace strbpf::runtime {

// What a field holds that freeing it drops: a referenced or percpu kptr's object (only bpf_obj_new and
// bpf_percpu_obj_new objects in strbpf's runs), the objects on a bpf_list_head or in a bpf_rb_root.
enum class FieldHolds : uint8_t { nothing, kptr, list, tree };

struct ValueField {
    uint32_t off = 0;
    uint32_t size = 0;
    bool freed = false; // bpf_obj_free_fields clears it (kptrs, timers, bpf_wq, graph roots); not a lock word
    FieldHolds holds = FieldHolds::nothing;
};

class ValueFieldSet {
  public:
    ValueFieldSet() = default;
    // The fields of a value of VALUE_SIZE bytes, those past its end dropped (a malformed BTF cannot make a copy
    // write out of the value).
    ValueFieldSet(const loader::ValueFields& found, uint32_t value_size);

    bool empty() const { return fields_.empty(); }
    bool has_lock() const { return lock_off_ >= 0; }
    int32_t lock_off() const { return lock_off_; }
    const std::vector<ValueField>& fields() const { return fields_; }

    // check_and_init_map_value: the special fields of a copy (N bytes at DST, the caller's memory) set to zero.
    void zero_in_copy(void* dst, uint64_t n) const;
    // A value (N bytes) out to the caller: load_shared, the special fields read as zeros.
    void copy_out(void* dst, const void* value, uint64_t n) const;
    // copy_map_value: SRC into the value DST (N bytes), the special fields skipped.
    void copy_in(void* value, const void* src, uint64_t n) const;
    // bpf_obj_free_fields: the freed fields zeroed, kptrs' objects dropped, lists and trees drained.
    void free_fields(void* value) const;
    // Whether some field holds objects its freeing drops (FieldHolds).
    bool drops_objects() const {
        for (const ValueField& f : fields_)
            if (f.holds != FieldHolds::nothing)
                return true;
        return false;
    }
    // The element's referenced kptrs emptied and their objects dropped (a deleted element, a map freed).
    void drop_objects(void* value) const;
    // A fresh element's fields: every one zeroed.
    void init_fields(void* value) const;
    // A preallocated element taken again for a new value (a hash map's fresh element): SRC (N bytes; nullptr: zeros)
    // copied around the special fields, then every field freed (free_fields) and the ones that hold no object
    // zeroed: the value starts with NULL kptrs, empty lists and trees, a zero lock and no timer. The element's
    // fields were freed when it was deleted, replaced or evicted; a program that kept a pointer to its old value may
    // have put an object in since (bpf_kptr_xchg), which is dropped here rather than lost.
    void init_reused(void* value, const void* src, uint64_t n) const;
    // An update of an existing value: copy_in, then free_fields.
    void update_existing(void* value, const void* src, uint64_t n) const {
        copy_in(value, src, n);
        free_fields(value);
    }
    // copy_map_value_locked: the copy in (TO_VALUE) or out, under the value's bpf_spin_lock (has_lock()).
    void copy_locked(void* value, void* other, uint64_t n, bool to_value) const;

  private:
    std::vector<ValueField> fields_; // by offset, not overlapping
    int32_t lock_off_ = -1;
};

} // namespace strbpf::runtime
