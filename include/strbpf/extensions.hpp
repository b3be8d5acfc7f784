// SPDX-License-Identifier: BSD-2-Clause
// strbpf's embedding API: the embedder's own helpers and program types, declared as data the verifier reads (the
// kernel's bpf_func_proto and a program type's ctx and return rules). A program that misuses an embedder's helper
// is rejected in the kernel's words for the same misuse of a kernel helper; an accepted program calls the
// embedder's function directly from the interpreter and the JIT. Pass the set in OpenOptions::extensions: from
// then on it is frozen (add_* answer -EBUSY) and shared by every object opened with it.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strbpf/result.hpp"

namespace strbpf {

// Argument kinds, as the kernel's enum bpf_arg_type names them.
enum class ArgKind : uint8_t {
    none,                      // no argument (and none after it)
    anything,                  // ARG_ANYTHING: any initialised register
    scalar,                    // ARG_SCALAR: a number, not a pointer
    ptr_to_mem,                // ARG_PTR_TO_MEM: memory checked as the kernel checks it (writable); a size follows
    ptr_to_mem_rdonly,         // ARG_PTR_TO_MEM | MEM_RDONLY: memory the helper reads; a size follows
    ptr_to_mem_rdonly_or_null, // ... | PTR_MAYBE_NULL: also NULL (then the size must be 0)
    ptr_to_uninit_mem,         // ARG_PTR_TO_UNINIT_MEM: memory the helper fills (may be uninitialised stack)
    const_size,                // ARG_CONST_SIZE: the bytes of the memory argument before it, > 0
    const_size_or_zero,        // ARG_CONST_SIZE_OR_ZERO: the same, 0 allowed
    ptr_to_const_str,          // ARG_PTR_TO_CONST_STR: a NUL-terminated string in read-only map memory
    ptr_to_ctx,                // ARG_PTR_TO_CTX: the program's ctx, unmodified
    const_map_ptr,             // ARG_CONST_MAP_PTR: a map of the object (the helper gets strbpf's map)
    ptr_to_map_key,            // ARG_PTR_TO_MAP_KEY: key_size bytes of the map argument before it
    ptr_to_map_value,          // ARG_PTR_TO_MAP_VALUE: value_size bytes of the map argument before it
    ptr_to_stack_or_null,      // ARG_PTR_TO_STACK_OR_NULL: a stack pointer or NULL
    ptr_to_long,               // a u64 the helper writes (8 aligned writable bytes)
};

// Return kinds: RET_INTEGER (with an optional range the verifier assumes), RET_VOID, RET_PTR_TO_MAP_VALUE_OR_NULL
// (a value of the call's map argument, or NULL: the program must check it).
enum class RetKind : uint8_t { integer, void_, map_value_or_null };

// The run as an embedder's helper sees it: opaque. call_user() gives the Extensions' user pointer.
struct CallContext;
void* call_user(const CallContext* call);

// r1..r5 as the program passed them (pointers are host addresses), and the run. The result is the program's R0.
using HelperFn = uint64_t (*)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, CallContext* call);

struct ReturnRange {
    int64_t min = 0, max = 0;
};

struct HelperDef {
    std::string name; // in messages, as the kernel's bpf_x#N
    int32_t id = 0;   // kHelperIdMin..kHelperIdMax: what the program's call instruction names
    HelperFn fn = nullptr;
    RetKind ret = RetKind::integer;
    // RET_INTEGER with a range: the verifier bounds R0 to it; a run whose helper returns a value outside stops
    // with an error (the verifier's proof depended on it).
    std::optional<ReturnRange> ret_range;
    std::array<ArgKind, 5> args{};
    bool gpl_only = false;
    // Kernel program types (enum bpf_prog_type values) whose programs may call it; an embedder's program type
    // allows it by listing its id in ProgramTypeDef::helpers.
    std::vector<uint32_t> kernel_prog_types;
};

// A ctx byte range programs may read (loads of 1, 2, 4 or 8 bytes inside it, aligned to their size) and, when
// writable, write.
struct CtxField {
    uint32_t offset = 0;
    uint32_t size = 0;
    bool writable = false;
};

struct ProgramTypeDef {
    std::string name;    // in messages
    std::string section; // programs in SEC("section") or SEC("section/...") are of this type (not a libbpf name)
    uint32_t ctx_size = 0;        // a run's ctx is exactly this many bytes
    std::vector<CtxField> fields; // every other ctx access is the kernel's "invalid bpf_context access"
    std::optional<ReturnRange> ret_range; // R0 at exit ("At program exit the register R0 has ... should have been in")
    std::vector<int32_t> helpers; // embedder and kernel helper ids its programs may call (kernel helpers that read
                                  // their program's ctx, such as bpf_skb_load_bytes, are refused)
};

inline constexpr int32_t kHelperIdMin = 0x10000, kHelperIdMax = 0x1ffff;

class Extensions {
  public:
    // user: what call_user() answers inside the helpers.
    explicit Extensions(void* user = nullptr);
    Extensions(const Extensions&);
    Extensions& operator=(const Extensions&);
    ~Extensions();

    // Errors: -EINVAL (a bad row: the message names the field), -EEXIST (id, name or section taken), -E2BIG,
    // -EBUSY (an object was opened with the set).
    Status add_helper(const HelperDef& def);
    Status add_program_type(const ProgramTypeDef& def);

    struct Impl;
    const std::shared_ptr<Impl>& impl() const { return impl_; }

  private:
    std::shared_ptr<Impl> impl_;
};

} // namespace strbpf
