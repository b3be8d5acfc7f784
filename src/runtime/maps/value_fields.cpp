// SPDX-License-Identifier: BSD-2-Clause
// A map value's special fields at run time (runtime stage): value_fields.hpp.
#include "runtime/maps/value_fields.hpp"

#include <algorithm>
#include <immintrin.h>
#include <string_view>

#include "runtime/kfuncs/graph_kfuncs.hpp"
#include "runtime/kfuncs/obj_kfuncs.hpp"

namespace strbpf::runtime {

namespace {
constexpr uint32_t kGraphRootSize = 16; // struct bpf_list_head, struct bpf_rb_root
} // namespace

ValueFieldSet::ValueFieldSet(const loader::ValueFields& found, uint32_t value_size) {
    auto add = [&](uint32_t off, uint32_t size, bool freed, FieldHolds holds = FieldHolds::nothing) {
        if (uint64_t(off) + size <= value_size && size > 0)
            fields_.push_back(ValueField{off, size, freed, holds});
    };
    for (const loader::KptrField& k : found.kptrs)
        add(k.off, 8, true,
            k.kind != loader::KptrKind::unref && k.off % 8 == 0 ? FieldHolds::kptr : FieldHolds::nothing);
    for (const loader::SpecialStruct& s : found.structs) {
        const bool lock = s.kind == loader::kFieldSpinLock;
        if (lock && lock_off_ < 0 && s.off % 4 == 0 && uint64_t(s.off) + 4 <= value_size)
            lock_off_ = int32_t(s.off);
        const std::string_view name = s.name;
        if (s.kind == loader::kFieldGraphRoot && s.size == kGraphRootSize && s.off % 8 == 0 &&
            (name == "bpf_list_head" || name == "bpf_rb_root")) {
            add(s.off, s.size, true, name == "bpf_list_head" ? FieldHolds::list : FieldHolds::tree);
            continue;
        }
        add(s.off, s.size, !lock && s.kind != loader::kFieldRefcount);
    }
    std::sort(fields_.begin(), fields_.end(), [](const ValueField& a, const ValueField& b) { return a.off < b.off; });
    // Overlapping fields (only a malformed BTF makes them) merge into one, freed if either is.
    std::vector<ValueField> merged;
    for (const ValueField& f : fields_) {
        if (!merged.empty() && f.off < merged.back().off + merged.back().size) {
            ValueField& m = merged.back();
            m.size = std::max(m.off + m.size, f.off + f.size) - m.off;
            m.freed = m.freed || f.freed;
            m.holds = FieldHolds::nothing; // only a malformed BTF overlaps fields: never drop through it
            continue;
        }
        merged.push_back(f);
    }
    fields_ = std::move(merged);
}

void ValueFieldSet::zero_in_copy(void* dst, uint64_t n) const {
    for (const ValueField& f : fields_)
        if (f.off + f.size <= n)
            std::memset(static_cast<uint8_t*>(dst) + f.off, 0, f.size);
}

void ValueFieldSet::copy_out(void* dst, const void* value, uint64_t n) const {
    load_shared(dst, value, n);
    zero_in_copy(dst, n);
}

void ValueFieldSet::copy_in(void* value, const void* src, uint64_t n) const {
    auto* d = static_cast<uint8_t*>(value);
    const auto* s = static_cast<const uint8_t*>(src);
    uint64_t at = 0;
    for (const ValueField& f : fields_) {
        if (f.off >= n)
            break;
        if (f.off > at)
            store_shared(d + at, s + at, f.off - at);
        at = std::max<uint64_t>(at, f.off + f.size);
    }
    if (at < n)
        store_shared(d + at, s + at, n - at);
}

namespace {

// What field F of VALUE holds dropped: a referenced kptr exchanged for NULL and its object dropped, a list or tree
// emptied (bpf_list_head_free / bpf_rb_root_free, under the value's bpf_spin_lock at LOCK_OFF, the lock the kernel's
// graph roots always have; -1: none) and each node's object dropped. False when F holds nothing.
bool drop_held(const ValueField& f, void* value, int32_t lock_off) {
    uint8_t* at = static_cast<uint8_t*>(value) + f.off;
    auto lock = [&] {
        return lock_off >= 0 ? reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(value) + lock_off) : nullptr;
    };
    switch (f.holds) {
    case FieldHolds::kptr:
        kfuncs::obj_drop(__atomic_exchange_n(reinterpret_cast<uint64_t*>(at), uint64_t(0), __ATOMIC_SEQ_CST));
        return true;
    case FieldHolds::list: kfuncs::list_head_free(at, lock()); return true;
    case FieldHolds::tree: kfuncs::rb_root_free(at, lock()); return true;
    case FieldHolds::nothing: break;
    }
    return false;
}

void zero_shared(uint8_t* at, uint32_t n) {
    static const uint8_t kZeros[32] = {};
    for (uint32_t i = 0; i < n; i += sizeof(kZeros))
        store_shared(at + i, kZeros, std::min<uint32_t>(sizeof(kZeros), n - i));
}

} // namespace

void ValueFieldSet::free_fields(void* value) const {
    for (const ValueField& f : fields_) // bpf_obj_free_fields: what a field holds dropped, the other freed ones zeroed
        if (!drop_held(f, value, lock_off_) && f.freed)
            zero_shared(static_cast<uint8_t*>(value) + f.off, f.size);
}

void ValueFieldSet::drop_objects(void* value) const {
    for (const ValueField& f : fields_)
        drop_held(f, value, lock_off_);
}

void ValueFieldSet::init_fields(void* value) const {
    for (const ValueField& f : fields_) // a reused slot: a program may still hold a pointer to its old value
        zero_shared(static_cast<uint8_t*>(value) + f.off, f.size);
}

void ValueFieldSet::init_reused(void* value, const void* src, uint64_t n) const {
    if (src) {
        copy_in(value, src, n);
    } else { // zeros around the fields
        auto* d = static_cast<uint8_t*>(value);
        uint64_t at = 0;
        for (const ValueField& f : fields_) {
            if (f.off >= n)
                break;
            if (f.off > at)
                zero_shared(d + at, uint32_t(f.off - at));
            at = std::max<uint64_t>(at, f.off + f.size);
        }
        if (at < n)
            zero_shared(d + at, uint32_t(n - at));
    }
    // Freed first: each referenced kptr exchanged for NULL (the object it held dropped), each list or tree drained
    // to an empty root, timers zeroed. Those fields are not stored to again: a run still holding the old value's
    // pointer may exchange an object in at any moment, and it then stays with the new value, as the kernel's
    // does (a plain zero store there would lose it). The rest, the lock word included, zeroed.
    free_fields(value);
    for (const ValueField& f : fields_)
        if (f.holds == FieldHolds::nothing)
            zero_shared(static_cast<uint8_t*>(value) + f.off, f.size);
}

void ValueFieldSet::copy_locked(void* value, void* other, uint64_t n, bool to_value) const {
    auto* word = reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(value) + lock_off_);
    while (__atomic_exchange_n(word, 1u, __ATOMIC_ACQUIRE) != 0) // as bpf_spin_lock_helper takes it
        while (__atomic_load_n(word, __ATOMIC_RELAXED) != 0)
            _mm_pause();
    if (to_value)
        copy_in(value, other, n);
    else
        copy_out(other, value, n);
    __atomic_store_n(word, 0u, __ATOMIC_RELEASE);
}

} // namespace strbpf::runtime
