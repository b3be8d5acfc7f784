// SPDX-License-Identifier: BSD-2-Clause
// The embedder's extensions (runtime stage): its own helpers and program types, declared as data in the shape of
// the built-in tables (HelperProto rows, a program type's ctx fields and return range), so the linker accepts
// their ids, the verifier checks them with the kernel's rules and words, and the engines call them as built-ins;
// and its own kfuncs, rows of the kernel's kfunc prototype cases and KF_* flags, found by name after strbpf's own.
// An embedder's helper keeps its id for messages; linked programs call it through a process-wide slot id
// (kExtSlotBase + slot) whose function helper_fn() answers like a built-in's: no per-call lookup. A kfunc's linked
// calls are helper calls of its slot too.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/helpers/helper_table.hpp"
#include "strbpf/result.hpp"

namespace strbpf::runtime {

// The ids an embedder's helpers take: far past the kernel's (1..211), below libbpf's poison ids.
inline constexpr int32_t kExtHelperIdMin = 0x10000, kExtHelperIdMax = 0x1ffff;
// Slot ids linked programs call (below ctx_model.hpp's internal helpers); kMaxExtSlots in the whole process.
inline constexpr int32_t kExtSlotBase = 0x7ffd0000;
inline constexpr size_t kMaxExtSlots = 1024;
// Program types an embedder declares take these enum values (bpf_prog_type stops at 32): at most 24 per set.
inline constexpr uint32_t kExtProgTypeFirst = 40, kExtProgTypeEnd = 64;

// The function a slot id calls (nullptr for an id that is no live slot). What helper_fn() asks past the kernel's ids.
HelperFn ext_slot_fn(int32_t id);

// What the checked interpreter (unverified programs) calls for helper id ID: for a live slot, an entry that checks
// the call's arguments against the run's memory by the row's kinds before calling the embedder's function (a
// memory pointer and its size, a string, the ctx, a map and its key or value, a reference to release), registers a
// kfunc's returned memory and tracks its references, ending the run with a message on the first misuse; for any
// other id, helper_fn(ID).
HelperFn ext_checked_fn(int32_t id);
// A checked run of RUN begins (drops references a stopped run of the same context left) or ends: "" when it holds
// no reference an embedder's KF_ACQUIRE kfunc returned, else what the kernel's verifier would have refused.
void ext_checked_run_begin(const RunContext& run);
std::string ext_checked_run_end(const RunContext& run);

struct ExtRange {
    int64_t lo = 0, hi = 0;
};

struct ExtHelper {
    std::string name;
    HelperProto proto;     // id: the embedder's; fn: what the slot calls (a range-checking entry when ranged)
    HelperFn user_fn = nullptr;
    int32_t slot_id = 0;
    std::optional<ExtRange> ret_range; // RET_INTEGER bounded: the verifier assumes it, the slot's entry checks it
};

// An embedder's kfunc as the verifier reads it: the kernel's check_kfunc_args cases for a BTF prototype, as kinds.
enum class ExtKfuncArg : uint8_t { scalar, constant, mem, mem_sized, size, const_size, const_str, ctx };
struct ExtKfuncParam {
    ExtKfuncArg kind = ExtKfuncArg::scalar;
    uint32_t mem_size = 0; // mem: the bytes it must reach
    bool nullable = false;
};
enum class ExtKfuncRet : uint8_t { integer, void_, mem };
// The kernel's KF_ACQUIRE, KF_RELEASE, KF_RET_NULL, KF_TRUSTED_ARGS and KF_RCU values.
inline constexpr uint32_t kExtKfAcquire = 1u << 0, kExtKfRelease = 1u << 1, kExtKfRetNull = 1u << 2,
                          kExtKfTrustedArgs = 1u << 4, kExtKfRcu = 1u << 7;

struct ExtKfunc {
    std::string name;
    HelperFn fn = nullptr;
    std::vector<ExtKfuncParam> params; // at most 5
    ExtKfuncRet ret = ExtKfuncRet::integer;
    uint32_t ret_size = 0; // ExtKfuncRet::mem
    uint32_t flags = 0;    // kExtKf*
    ProgTypeSet kernel_types = 0;
    int32_t slot_id = 0; // linked calls are helper calls of this slot: engines call fn as a built-in
};

struct ExtCtxField {
    uint32_t offset = 0, size = 0;
    bool writable = false;
};

struct ExtProgType {
    std::string name, section;
    loader::ProgType type{};
    uint32_t ctx_size = 0;
    std::vector<ExtCtxField> fields;   // sorted by offset, disjoint
    std::optional<ExtRange> ret_range; // R0 at exit; none: any scalar
    std::vector<int32_t> helpers;      // kernel and embedder ids the type may call
    std::vector<HelperProto> rows;     // the allowed helpers' rows with this type's bit set (verifier's view)
    std::vector<std::string> kfuncs;   // the set's kfuncs the type may call
    bool writable() const;
};

class Extensions {
  public:
    explicit Extensions(void* user = nullptr) : user_(user) {}
    Extensions(const Extensions&) = delete;
    Extensions& operator=(const Extensions&) = delete;
    ~Extensions(); // frees the helpers' slots

    // Errors (-EINVAL, -EEXIST, -E2BIG, -EBUSY once frozen) name the field at fault.
    Status add_helper(std::string name, int32_t id, HelperFn fn, RetKind ret, const std::array<ArgKind, 5>& args,
                      std::optional<ExtRange> ret_range, bool gpl_only, ProgTypeSet kernel_types);
    Status add_prog_type(std::string name, std::string section, uint32_t ctx_size, std::vector<ExtCtxField> fields,
                         std::optional<ExtRange> ret_range, std::vector<int32_t> helpers,
                         std::vector<std::string> kfuncs = {});
    // The row is checked as the kernel's check_kfunc_args would read its prototype (a memory pointer with a
    // size after it, one constant at most, a pointer return for KF_ACQUIRE and KF_RET_NULL, a pointer argument
    // for KF_RELEASE). The name must be none of strbpf's kfuncs.
    Status add_kfunc(ExtKfunc def);
    // Called when an Object is opened with the set: checks every type's helper list (each id a kernel helper or
    // one of this set's) and builds the types' rows. Afterwards nothing more may be added, so objects read the
    // set without locks. Idempotent.
    Status freeze();
    bool frozen() const { return frozen_; }

    void* user() const { return user_; }
    const ExtHelper* helper_by_id(int32_t id) const;   // the embedder's id (the linker)
    const ExtHelper* helper_by_slot(int32_t id) const; // the slot id linked programs call
    const ExtProgType* prog_type(loader::ProgType t) const;
    // The type whose section is SEC exactly or its "section/..." prefix, as libbpf's section_defs match.
    const ExtProgType* prog_type_for_section(std::string_view sec) const;
    // The verifier's one lookup: the row a call of ID (as the program wrote it: the verifier walks the program
    // before linking) gets in a program of type T, given the built-in table's answer. An embedder's type sees the
    // rows it allows (with its bit), other types the built-in row, else the embedder's helper of that id.
    const HelperProto* resolve(int32_t id, loader::ProgType t, const HelperProto* builtin) const;
    const std::vector<std::unique_ptr<ExtHelper>>& helpers() const { return helpers_; }
    // The kfunc an object's `extern ... __ksym` NAME resolves to (after strbpf's own kfuncs), by name or by the
    // slot id its linked calls use.
    const ExtKfunc* kfunc(std::string_view name) const;
    const ExtKfunc* kfunc_by_slot(int32_t id) const;
    // Whether a program of type T may call K: a kernel type K lists, or an embedder's type naming K.
    bool kfunc_allowed(const ExtKfunc& k, loader::ProgType t) const;

  private:
    void* user_;
    bool frozen_ = false;
    std::vector<std::unique_ptr<ExtHelper>> helpers_; // stable addresses: rows are handed out
    std::vector<std::unique_ptr<ExtProgType>> types_;
    std::vector<std::unique_ptr<ExtKfunc>> kfuncs_;
};

} // namespace strbpf::runtime
