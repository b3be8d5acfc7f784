// SPDX-License-Identifier: BSD-2-Clause
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

// Argument kinds: the kernel's enum bpf_arg_type with its flags, one value per combination a 6.18 proto uses.
// arg_kind_name() gives the kernel's spelling; arg_kind_modelled() says whether strbpf's verifier checks it.
enum class ArgKind : uint8_t {
    none,
    anything,              // ARG_ANYTHING
    ptr_to_mem,            // ARG_PTR_TO_MEM (read)
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
    ptr_to_long,           // ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED, 8 bytes
    ptr_to_ringbuf_mem,    // ARG_PTR_TO_RINGBUF_MEM | OBJ_RELEASE
    const_alloc_size_or_zero, // ARG_CONST_ALLOC_SIZE_OR_ZERO
    scalar,                // ARG_SCALAR
    // Kinds strbpf's verifier does not model: a call reaching one is refused with a message naming it.
    ptr_to_mem_write,      // ARG_PTR_TO_MEM | MEM_WRITE
    ptr_to_mem_or_null,    // ARG_PTR_TO_MEM_OR_NULL | MEM_WRITE (modelled: memory written, or NULL with size 0)
    ptr_to_fixed_size_mem, // ARG_PTR_TO_FIXED_SIZE_MEM
    ptr_to_fixed_size_mem_write_aligned,   // ARG_PTR_TO_FIXED_SIZE_MEM | MEM_WRITE | MEM_ALIGNED
    ptr_to_fixed_size_uninit_mem_aligned,  // ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED
    ptr_to_ctx_or_null,    // ARG_PTR_TO_CTX_OR_NULL
    ptr_to_map_value_or_null, // ARG_PTR_TO_MAP_VALUE_OR_NULL
    ptr_to_uninit_map_value,  // ARG_PTR_TO_MAP_VALUE | MEM_UNINIT | MEM_WRITE
    ptr_to_btf_id,         // ARG_PTR_TO_BTF_ID
    ptr_to_btf_id_or_null, // ARG_PTR_TO_BTF_ID_OR_NULL
    ptr_to_btf_id_or_null_release, // ARG_PTR_TO_BTF_ID_OR_NULL | OBJ_RELEASE
    ptr_to_btf_id_sock_common,     // ARG_PTR_TO_BTF_ID_SOCK_COMMON
    ptr_to_btf_id_sock_common_or_null, // ARG_PTR_TO_BTF_ID_SOCK_COMMON | PTR_MAYBE_NULL
    ptr_to_btf_id_sock_common_release, // ARG_PTR_TO_BTF_ID_SOCK_COMMON | OBJ_RELEASE
    ptr_to_sock_common,    // ARG_PTR_TO_SOCK_COMMON
    ptr_to_socket_or_null, // ARG_PTR_TO_SOCKET_OR_NULL
    ptr_to_spin_lock,      // ARG_PTR_TO_SPIN_LOCK
    ptr_to_timer,          // ARG_PTR_TO_TIMER
    ptr_to_percpu_btf_id,  // ARG_PTR_TO_PERCPU_BTF_ID
    kptr_xchg_dest,        // ARG_KPTR_XCHG_DEST
    ptr_to_dynptr_local_uninit,    // ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_LOCAL | MEM_UNINIT | MEM_WRITE
    ptr_to_dynptr_ringbuf_uninit,  // ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_RINGBUF | MEM_UNINIT | MEM_WRITE
    ptr_to_dynptr_ringbuf_release, // ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_RINGBUF | OBJ_RELEASE
    ptr_to_dynptr_rdonly,  // ARG_PTR_TO_DYNPTR | MEM_RDONLY
};

// Return kinds: the kernel's enum bpf_return_type with its flags.
enum class RetKind : uint8_t {
    integer,               // RET_INTEGER (64-bit, sign-extended int/long)
    void_,                 // RET_VOID
    map_value_or_null,     // RET_PTR_TO_MAP_VALUE_OR_NULL
    ringbuf_mem_or_null,   // RET_PTR_TO_RINGBUF_MEM_OR_NULL
    // Kinds strbpf's verifier does not model.
    map_value,             // RET_PTR_TO_MAP_VALUE
    ptr_to_btf_id,         // RET_PTR_TO_BTF_ID
    ptr_to_btf_id_or_null, // RET_PTR_TO_BTF_ID_OR_NULL
    ptr_to_btf_id_trusted, // RET_PTR_TO_BTF_ID_TRUSTED
    dynptr_mem_or_null,    // RET_PTR_TO_DYNPTR_MEM_OR_NULL
    mem_or_btf_id_rdonly,  // RET_PTR_TO_MEM_OR_BTF_ID | MEM_RDONLY
    mem_or_btf_id_rdonly_or_null, // RET_PTR_TO_MEM_OR_BTF_ID | PTR_MAYBE_NULL | MEM_RDONLY
    socket_or_null,        // RET_PTR_TO_SOCKET_OR_NULL
    sock_common_or_null,   // RET_PTR_TO_SOCK_COMMON_OR_NULL
    tcp_sock_or_null,      // RET_PTR_TO_TCP_SOCK_OR_NULL
};

const char* arg_kind_name(ArgKind k); // the kernel's spelling, e.g. "ARG_PTR_TO_BTF_ID"
const char* ret_kind_name(RetKind k);
constexpr bool arg_kind_modelled(ArgKind k) {
    switch (k) {
    case ArgKind::ptr_to_uninit_map_value:
    case ArgKind::ptr_to_map_value_or_null:
    case ArgKind::ptr_to_ctx_or_null:
    case ArgKind::ptr_to_mem_or_null:
    case ArgKind::ptr_to_sock_common:
    case ArgKind::ptr_to_socket_or_null:
    case ArgKind::ptr_to_btf_id_sock_common:
    case ArgKind::ptr_to_btf_id_sock_common_or_null:
    case ArgKind::ptr_to_btf_id_sock_common_release:
    case ArgKind::ptr_to_spin_lock:
    case ArgKind::ptr_to_timer: return true;
    default: return k <= ArgKind::scalar;
    }
}
// The socket returns and RET_PTR_TO_MAP_VALUE are modelled too; RET_PTR_TO_BTF_ID_OR_NULL only for the helpers
// whose BTF type the verifier knows (the bpf_skc_to_* casts).
constexpr bool ret_kind_modelled(RetKind k) {
    return k <= RetKind::ringbuf_mem_or_null || k == RetKind::map_value || k == RetKind::socket_or_null ||
           k == RetKind::sock_common_or_null || k == RetKind::tcp_sock_or_null;
}

// Proto facts beyond the argument kinds (HelperProto::flags).
enum HelperFlag : uint8_t {
    kMightSleep = 1,       // bpf_func_proto.might_sleep: only sleepable programs may call it
    kChangesPktData = 2,   // bpf_helper_changes_pkt_data(): the call invalidates every packet pointer
    kAllowedCallback = 4,  // bpf_func_proto.allowed: a per-program predicate strbpf does not model
};

// A helper's callback argument: which argument takes it, whether it runs during the call (the kernel's
// is_sync_callback_calling_function) or later (is_async_callback_calling_function), and which arguments its frame
// gets (the kernel's set_*_callback_state, one kind per callee-state function). Engines and the verifier read
// these facts instead of naming helper ids.
enum class CallbackKind : uint8_t { none, sync, async };
enum class CallbackFrame : uint8_t {
    none,
    loop,      // bpf_loop: (u64 index, void *ctx); ctx is the helper's R3
    map_elem,  // bpf_for_each_map_elem: (map, key, value, void *ctx); map is R1, ctx R3
    dynptr,    // bpf_user_ringbuf_drain: (const struct bpf_dynptr *, void *ctx); ctx is R3
    find_vma,  // bpf_find_vma: (task, vma, void *ctx); ctx is R4
    timer,     // bpf_timer_set_callback: (map, key, value) of the timer's map element
};
struct CallbackInfo {
    uint8_t arg = 0; // 1..5: the argument taking the callback; 0: none
    CallbackKind kind = CallbackKind::none;
    CallbackFrame frame = CallbackFrame::none;
    constexpr bool takes() const { return arg != 0; }
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
    uint8_t flags = 0;       // HelperFlag bits
    CallbackInfo callback{}; // the callback argument, if it takes one
};

// Every helper id Linux 6.18 has (1..211; 0 is BPF_FUNC_unspec, no helper), ordered by id. An id whose proto differs
// by program type (e.g. bpf_skb_load_bytes for sk_reuseport) has one row per variant, with disjoint prog_types; a
// row with fn == nullptr has no user-space implementation (helper_fn gives a stub that ends the run naming it).
std::span<const HelperProto> helper_table();
const HelperProto* find_helper(int32_t id); // the id's first row; nullptr for an id 6.18 does not have
// The row of `id` that program type `t` gets; the first row when no variant is for `t`.
const HelperProto* find_helper(int32_t id, loader::ProgType t);

// Whether a program of type T may call helper H: the kernel's get_func_proto(H) of type T is not NULL (else its
// verifier says "program of this type cannot use helper %s#%d").
constexpr bool helper_allowed(const HelperProto& h, loader::ProgType t) {
    return (h.prog_types & prog_type_bit(t)) != 0;
}

} // namespace strbpf::runtime

namespace strbpf::runtime {
// Fast id -> function lookup for engines (nullptr for an id 6.18 does not have). A helper strbpf does not
// implement gets a per-id stub that aborts the run with "helper bpf_x#N is not implemented by strbpf".
HelperFn helper_fn(int32_t id);
bool helper_implemented(int32_t id);
} // namespace strbpf::runtime
