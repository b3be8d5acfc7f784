// SPDX-License-Identifier: BSD-2-Clause
// BTF without a copy (loader stage): the target kernel's BTF read in place from one read-only mapping of its file
// (sysfs maps /sys/kernel/btf/vmlinux since 6.16), indexed once, instead of libbpf's copy of its megabytes; and
// BtfRef, the one handle the loader and the verifier pass around for any BTF: the object's own (libbpf's struct btf)
// or such a view. The btfv:: functions answer as libbpf's btf__ functions of the same names do, on either kind.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "strbpf/result.hpp"

struct btf;
struct btf_type;

namespace strbpf {

class BtfView;

// A BTF handle: libbpf's struct btf or a BtfView, one pointer wide (the low bit tells which). Null by default.
class BtfRef {
  public:
    BtfRef() = default;
    BtfRef(std::nullptr_t) {}
    BtfRef(const struct btf* b) : bits_(reinterpret_cast<uintptr_t>(b)) {}
    BtfRef(const BtfView* v) : bits_(v ? reinterpret_cast<uintptr_t>(v) | 1u : 0) {}

    explicit operator bool() const { return bits_ != 0; }
    friend bool operator==(BtfRef a, BtfRef b) { return a.bits_ == b.bits_; }
    friend auto operator<=>(BtfRef a, BtfRef b) { return a.bits_ <=> b.bits_; }

    // libbpf's handle, or null for a view (for the few libbpf calls that take only its own handles).
    const struct btf* libbpf() const { return (bits_ & 1u) ? nullptr : reinterpret_cast<const struct btf*>(bits_); }
    const BtfView* view() const {
        return (bits_ & 1u) ? reinterpret_cast<const BtfView*>(bits_ & ~uintptr_t(1)) : nullptr;
    }

  private:
    uintptr_t bits_ = 0;
};

// Raw BTF bytes (native byte order) read in place: the bytes stay where they are, mapped or owned elsewhere. Types
// are indexed lazily, as far as the highest id asked for (a name lookup walks on until it finds the name), so a
// verification that needs a few core structs touches a small part of vmlinux's megabytes. Safe to share between
// threads. A malformed record ends the type section there: it and every later id read as absent (null).
class BtfView {
  public:
    ~BtfView();
    BtfView(const BtfView&) = delete;
    BtfView& operator=(const BtfView&) = delete;

    // Maps PATH read-only and indexes it. Error: it cannot be opened or mapped, or it is not raw BTF in this host's
    // byte order (the caller then tries libbpf, which also reads ELF files and swapped BTF).
    static Result<std::unique_ptr<BtfView>> map_file(const std::string& path);
    // Indexes BYTES, which the caller keeps alive and unchanged for the view's life.
    static Result<std::unique_ptr<BtfView>> over(const uint8_t* bytes, size_t size);

    const btf_type* type_by_id(uint32_t id) const;
    const char* name_by_offset(uint32_t off) const;
    int32_t find_by_name_kind(const char* name, uint32_t kind) const;
    uint32_t type_cnt() const; // indexes every type

  private:
    BtfView() = default;
    Status open(const uint8_t* bytes, size_t size); // checks the header and places the sections
    bool reach(uint32_t id) const;                  // indexes up to ID; false when the section ends first

    void* map_ = nullptr; // the file's mapping, when the view owns one
    size_t map_size_ = 0;
    const uint8_t* types_ = nullptr;
    uint32_t types_len_ = 0;
    const char* strs_ = nullptr;
    uint32_t strs_len_ = 0;
    // Type id -> byte offset in the type section, [0] void; sized for the most records the section can hold (12
    // bytes each), so it never moves; the first count_ are set, and count_ only grows (under mu_).
    std::unique_ptr<uint32_t[]> offsets_;
    mutable std::atomic<uint32_t> count_{0};
    mutable std::mutex mu_;
    mutable uint64_t next_ = 0; // offset of the first type not yet indexed; types_len_ when done
};

// The kernel BTF at PATH ("" = the running kernel's /sys/kernel/btf/vmlinux), read once per process and path and
// kept for its life: a BtfView of its mapping when it is raw BTF, else libbpf's parse of it (an ELF vmlinux).
// Error: libbpf's reason, with the path.
Result<BtfRef> kernel_btf(const std::string& path);

// libbpf's btf__ functions of the same names, on either kind of handle.
namespace btfv {
const btf_type* type_by_id(BtfRef b, uint32_t id);
const char* name_by_offset(BtfRef b, uint32_t off);
int32_t find_by_name_kind(BtfRef b, const char* name, uint32_t kind);
uint32_t type_cnt(BtfRef b);
int64_t resolve_size(BtfRef b, uint32_t id);
int32_t resolve_type(BtfRef b, uint32_t id);
} // namespace btfv

} // namespace strbpf
