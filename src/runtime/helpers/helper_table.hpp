// The helper table (runtime stage): every helper strbpf provides, declared as data with the kernel's ids and
// argument kinds (the kernel's bpf_func_proto) and the program types that may call it (the per-type
// get_func_proto). The verifier reads these rows; implementations trust them.
#pragma once
#include <array>
#include <cstdint>
#include <span>

#include "loader/object_spec.hpp"
#include "runtime/context.hpp"

namespace strbpf::runtime {

enum class ArgKind : uint8_t {
    none,
    anything,              // ARG_ANYTHING
    ptr_to_mem,            // ARG_PTR_TO_MEM
    ptr_to_mem_rdonly,     // ARG_PTR_TO_MEM | MEM_RDONLY
    ptr_to_mem_rdonly_or_null, // ARG_PTR_TO_MEM | PTR_MAYBE_NULL | MEM_RDONLY: also NULL, with a size that may be 0
    ptr_to_uninit_mem,     // ARG_PTR_TO_UNINIT_MEM
    const_size,            // ARG_CONST_SIZE
    const_size_or_zero,    // ARG_CONST_SIZE_OR_ZERO
    ptr_to_const_str,      // ARG_PTR_TO_CONST_STR
    const_map_ptr,         // ARG_CONST_MAP_PTR
    ptr_to_map_key,        // ARG_PTR_TO_MAP_KEY
    ptr_to_map_value,      // ARG_PTR_TO_MAP_VALUE
    ptr_to_func,           // ARG_PTR_TO_FUNC
    ptr_to_stack_or_null,  // ARG_PTR_TO_STACK_OR_NULL
    ptr_to_ctx,            // ARG_PTR_TO_CTX
    ptr_to_long,           // ARG_PTR_TO_LONG
    ptr_to_ringbuf_mem,    // ARG_PTR_TO_RINGBUF_MEM (release)
    const_alloc_size_or_zero, // ARG_CONST_ALLOC_SIZE_OR_ZERO
};

enum class RetKind : uint8_t {
    integer,               // RET_INTEGER (64-bit, sign-extended int/long)
    void_,                 // RET_VOID
    map_value_or_null,     // RET_PTR_TO_MAP_VALUE_OR_NULL
    ringbuf_mem_or_null,   // RET_PTR_TO_RINGBUF_MEM_OR_NULL
};

// A set of program types: bit N stands for enum bpf_prog_type N (all of them are below 64).
using ProgTypeSet = uint64_t;
constexpr ProgTypeSet prog_type_bit(loader::ProgType t) {
    return uint32_t(t) < 64 ? ProgTypeSet(1) << uint32_t(t) : 0;
}

struct HelperProto {
    int32_t id;
    const char* name;
    HelperFn fn;
    RetKind ret;
    std::array<ArgKind, 5> args;
    bool gpl_only;
    ProgTypeSet prog_types; // whose get_func_proto returns this helper (helper_table.cpp: kBase, kSkb, ...)
    bool pkt_access = false; // bpf_func_proto.pkt_access: its pointer arguments may be packet pointers
};

std::span<const HelperProto> helper_table();
const HelperProto* find_helper(int32_t id); // nullptr when strbpf does not provide it

// Whether a program of type T may call helper H: the kernel's get_func_proto(H) of type T is not NULL (else its
// verifier says "program of this type cannot use helper %s#%d").
constexpr bool helper_allowed(const HelperProto& h, loader::ProgType t) {
    return (h.prog_types & prog_type_bit(t)) != 0;
}

} // namespace strbpf::runtime

namespace strbpf::runtime {
// Fast id -> function lookup for engines (nullptr when absent or id out of range).
HelperFn helper_fn(int32_t id);
} // namespace strbpf::runtime
