// SPDX-License-Identifier: BSD-2-Clause
// strbpf's embedding API: the embedder's own helpers and program types, declared as data the verifier reads (the
// kernel's bpf_func_proto and a program type's ctx and return rules) and its own kfuncs (a kfunc's BTF prototype and
// KF_* flags, resolved by name from the object's `extern ... __ksym` declarations). A program that misuses an embedder's helper
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

// Kfunc parameter kinds, as the kernel's check_kfunc_args reads a kfunc's BTF prototype (its parameter types and
// name suffixes).
enum class KfuncArgKind : uint8_t {
    scalar,     // an integer parameter: "R1 is not a scalar" for anything else
    constant,   // `__k`: a scalar the verifier knows exactly ("R1 must be a known constant")
    mem,        // a pointer to mem_size bytes (a scalar or a struct of scalars): KF_ARG_PTR_TO_MEM, read and written
    mem_sized,  // a pointer (`void *` allowed) whose size is the next parameter: KF_ARG_PTR_TO_MEM_SIZE
    size,       // `__sz`: the bytes of the mem_sized parameter before it, 0 allowed
    const_size, // `__szk`: the same, a known constant
    const_str,  // `__str`: a NUL-terminated string in a frozen map (the kernel's KF_ARG_PTR_TO_CONST_STR)
    ctx,        // the program's ctx (KF_ARG_PTR_TO_CTX)
};

struct KfuncArg {
    KfuncArgKind kind = KfuncArgKind::scalar;
    uint32_t mem_size = 0;  // mem: the bytes the pointer must reach
    bool nullable = false;  // a pointer that may be NULL (`__nullable`; `__opt` for mem_sized: then its size is
                            // not checked against memory)
};

// Kfunc returns: a scalar (the kernel's int/long returns: R0 unknown), nothing (R0 unreadable after the call), or
// a pointer to ret_size bytes of memory the kfunc owns (PTR_TO_MEM, as the kernel types a kfunc's pointer to a
// scalar).
enum class KfuncRet : uint8_t { integer, void_, mem };

// The kernel's KF_* flags an embedder's kfunc may carry (include/linux/btf.h values).
inline constexpr uint32_t kKfAcquire = 1u << 0; // returns a reference the program must release (needs KfuncRet::mem)
inline constexpr uint32_t kKfRelease = 1u << 1; // releases the reference passed in its pointer argument
inline constexpr uint32_t kKfRetNull = 1u << 2; // the returned pointer may be NULL: the program must check it
// A pointer argument that may be NULL is refused ("Possibly NULL pointer passed to trusted argN") unless the
// parameter is nullable (a mem_sized one's `__opt` does not count); KF_RELEASE implies it. KF_RCU has the same rule
// for an embedder's kfunc: its arguments are memory, never the kernel's RCU-protected objects.
inline constexpr uint32_t kKfTrustedArgs = 1u << 4;
inline constexpr uint32_t kKfRcu = 1u << 7;

struct KfuncDef {
    std::string name; // what the program's `extern ... __ksym` names; in messages and in the verifier's log
    HelperFn fn = nullptr; // called with the program's r1..r5 (pointers are host addresses)
    std::vector<KfuncArg> args; // at most 5
    KfuncRet ret = KfuncRet::integer;
    uint32_t ret_size = 0; // KfuncRet::mem: the bytes the program may read and write through R0
    uint32_t flags = 0;    // kKf*
    // Kernel program types (enum bpf_prog_type values) whose programs may call it; an embedder's program type
    // allows it by listing its name in ProgramTypeDef::kfuncs. Elsewhere: "calling kernel function NAME is not
    // allowed".
    std::vector<uint32_t> kernel_prog_types;
};

struct ProgramTypeDef {
    std::string name;    // in messages
    std::string section; // programs in SEC("section") or SEC("section/...") are of this type (not a libbpf name)
    uint32_t ctx_size = 0;        // a run's ctx is exactly this many bytes
    std::vector<CtxField> fields; // every other ctx access is the kernel's "invalid bpf_context access"
    std::optional<ReturnRange> ret_range; // R0 at exit ("At program exit the register R0 has ... should have been in")
    std::vector<int32_t> helpers; // embedder and kernel helper ids its programs may call (kernel helpers that read
                                  // their program's ctx, such as bpf_skb_load_bytes, are refused)
    std::vector<std::string> kfuncs; // names of the set's kfuncs its programs may call
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
    // -EINVAL (a bad row), -EEXIST (the name is taken, by this set or by one of strbpf's kfuncs), -E2BIG, -EBUSY.
    Status add_kfunc(const KfuncDef& def);

    struct Impl;
    const std::shared_ptr<Impl>& impl() const { return impl_; }

  private:
    std::shared_ptr<Impl> impl_;
};

} // namespace strbpf
