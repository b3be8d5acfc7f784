// SPDX-License-Identifier: BSD-2-Clause
// Abstract machine state (verifier stage): what the verifier knows about every register and stack byte at one
// point of one path. Scalars carry a tnum and signed/unsigned 64- and 32-bit bounds; pointers carry their kind,
// a fixed offset, a variable offset (a scalar) and kind-specific facts (map, packet range, frame).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/insn.hpp"
#include "loader/btf_view.hpp"
#include "verifier/domain/tnum.hpp"

struct btf;

namespace strbpf::verifier {

enum class RegType : uint8_t {
    not_init,
    scalar,
    ctx,         // PTR_TO_CTX
    map_ptr,     // CONST_PTR_TO_MAP
    map_value,   // PTR_TO_MAP_VALUE (maybe_null: map_value_or_null)
    stack,       // PTR_TO_STACK ("fp")
    packet,      // PTR_TO_PACKET ("pkt")
    packet_meta, // PTR_TO_PACKET_META
    packet_end,  // PTR_TO_PACKET_END
    mem,         // PTR_TO_MEM (size in `aux`)
    func,        // PTR_TO_FUNC (subprogram start in `aux`)
    map_key,     // PTR_TO_MAP_KEY (map index in `aux`): a for_each_map_elem callback's key, read-only
    btf_id,      // PTR_TO_BTF_ID: a kernel object of BTF type `aux` in `btf` (trust in `btf_flags`)
    sock,        // PTR_TO_SOCKET: struct bpf_sock (sock.cpp has the access rules of these four)
    sock_common, // PTR_TO_SOCK_COMMON: struct bpf_sock, the fields before `type` and from `dst_port` on
    tcp_sock,    // PTR_TO_TCP_SOCK: struct bpf_tcp_sock
    xdp_sock,    // PTR_TO_XDP_SOCK: struct bpf_xdp_sock
    dynptr,      // CONST_PTR_TO_DYNPTR: a callback's or a global function's const struct bpf_dynptr * (dynptr.hpp)
    flow_keys,   // PTR_TO_FLOW_KEYS: a flow dissector's struct bpf_flow_keys (ctx->flow_keys)
    arena,       // PTR_TO_ARENA: a 32-bit offset into the program's arena (arena.cpp); no bounds, any arithmetic
    tp_buffer,   // PTR_TO_TP_BUFFER: a writable raw tracepoint's buffer (raw_tp.w ctx->args[0]); constant offsets >= 0
};

// The kernel's bpf_dynptr_type: what a dynptr's memory is (dynptr.hpp). 0: none.
enum class DynptrType : uint8_t { invalid, local, ringbuf, skb, xdp };

// PTR_TO_BTF_ID's type flags (the kernel's PTR_TRUSTED, MEM_RCU, PTR_UNTRUSTED); maybe_null is PTR_MAYBE_NULL.
// kBtfAlloc is MEM_ALLOC: a bpf_obj_new object of the program's BTF (alloc_obj.hpp), printed without a prefix.
// kBtfNonOwn is NON_OWN_REF: an object a graph kfunc took over, valid until bpf_spin_unlock (graph.hpp).
// kBtfPercpu is MEM_PERCPU: a bpf_percpu_obj_new object or a percpu_kptr, reached only through bpf_this_cpu_ptr /
// bpf_per_cpu_ptr ("percpu_" prefix).
inline constexpr uint8_t kBtfTrusted = 1, kBtfRcu = 2, kBtfUntrusted = 4, kBtfNonOwn = 8, kBtfPercpu = 16,
                         kBtfAlloc = 64;

// How a scalar sharing an id relates to the id's base value (the kernel's BPF_ADD_CONST64/32): none = equal;
// add64 = base + off; add32 = (u32)(base + off) zero-extended, the base being below 2^32.
enum class Link : uint8_t { none, add64, add32 };

struct Reg {
    RegType type = RegType::not_init;
    bool maybe_null = false;
    uint8_t frameno = 0; // stack pointers: the frame they point into
    bool dynptr_first = false; // a dynptr's stack slot: the first (higher-addressed) of its two
    int32_t off = 0;     // fixed offset of pointers; linked scalars: the delta to the base (see Link)
    uint32_t id = 0;     // null-check / packet-range / equal-scalar identity; 0 = none
    uint32_t ref_obj_id = 0; // the acquired reference this pointer is (a copy of); 0 = none (see State::refs)
    bool ringbuf = false;    // mem: a bpf_ringbuf_reserve reservation (the kernel's MEM_RINGBUF, "ringbuf_mem")
    uint8_t btf_flags = 0;   // btf_id: kBtf* flags
    bool rdonly = false;     // mem: MEM_RDONLY ("rdonly_mem": a bpf_dynptr_slice)
    DynptrType dynptr = DynptrType::invalid; // dynptr regs and slots: the type; mem: the dynptr a slice is of
    uint32_t dynptr_id = 0;  // mem: the id of the dynptr a slice was taken from (invalidated with it)
    BtfRef btf = nullptr; // btf_id: the kernel BTF `aux` is a type of
    Link link = Link::none; // scalars with an id: how the value follows the id's base
    // mem: a dynptr slice given a stack buffer (it may point there): the buffer's frame and fp offset (0: none); its
    // size is the slice's. A write into the buffer or the frame's return invalidates the slice, as Linux 6.18 does.
    uint8_t buf_frame = 0;
    int16_t buf_off = 0;
    uint32_t aux = 0;    // map_ptr / map_value: map index; mem: size; func: insn; packet: range
    Tnum var;            // scalars: the value; pointers: the variable part of the offset
    int64_t smin = 0, smax = 0;
    uint64_t umin = 0, umax = 0;
    int32_t s32min = 0, s32max = 0;
    uint32_t u32min = 0, u32max = 0;
    // Scalars in a checkpoint: some path below it depends on this exact value (set by backtracking, see
    // precision.cpp). Imprecise scalars match any scalar when pruning. Meaningless outside checkpoints.
    bool precise = false;

    bool operator==(const Reg&) const = default;
    bool is_pointer() const { return type != RegType::not_init && type != RegType::scalar; }
    bool is_const() const { return type == RegType::scalar && var.is_const(); }
    bool is_pkt() const { return type == RegType::packet || type == RegType::packet_meta; }
};

// Register constructors and bound maintenance (scalar.cpp).
Reg reg_const(uint64_t v);
Reg reg_unknown();
Reg reg_ptr(RegType t, uint32_t aux = 0, int32_t off = 0); // var offset 0
void mark_unbounded(Reg& r);             // scalar, nothing known
void mark_known(Reg& r, uint64_t v);     // scalar constant
void set_var_off_zero(Reg& r);           // pointer with var offset 0
void reg_sync(Reg& r);                   // reconcile tnum, 64- and 32-bit bounds
void clear_scalar_id(Reg& r);            // a scalar no longer tied to others (id, link and delta dropped)
void reg_zext32(Reg& r);                 // keep the low 32 bits (what a 32-bit op leaves in a register)
void reg_from_u32_bounds(Reg& r);        // 64-bit bounds := the (already valid) 32-bit bounds, upper half zero
bool reg_bounds_valid(const Reg& r);     // false when min > max somewhere (a path that cannot happen)
void coerce_to_size(Reg& r, int bytes);  // zero-extended load / truncation of a scalar to BYTES
void coerce_to_size_sx(Reg& r, int bytes); // sign-extended load of BYTES

enum class Slot : uint8_t { invalid, misc, zero, spill, iter, dynptr };

// An open-coded iterator on the stack (the kernel's STACK_ITER): its kfunc family and where it stands.
enum class IterState : uint8_t { invalid, active, drained };

struct StackSlot {
    std::array<Slot, 8> bytes{}; // per byte, lowest address first
    Reg spilled;                 // valid when any byte is Slot::spill; iter slots: ref_obj_id (first slot);
                                 // dynptr slots (both): id, ref_obj_id, dynptr type, dynptr_first
    // Slot::iter: the iterator's type (an index in iter.hpp's table), state, and the iterations unrolled so far
    // (kept only so that loop detection can tell iterations apart; never compared when pruning).
    uint8_t iter_kind = 0;
    IterState iter_state = IterState::invalid;
    uint32_t iter_depth = 0;
    bool operator==(const StackSlot&) const = default;
};

struct Frame {
    std::array<Reg, isa::kNumRegs> regs{};
    std::vector<StackSlot> stack; // slot i covers fp-8*(i+1) .. fp-8*i-1; grows on demand
    int32_t callsite = -1;        // pc of the call that made this frame; -1 for the entry frame
    int32_t subprog = 0;
    bool in_callback = false;     // a bpf_loop / for_each_map_elem callback: returns to `callsite` itself
    bool in_async_callback = false; // a timer callback: frame 0 of a path of its own, R0 0 at its exit
    bool in_exception_cb = false;   // the exception callback's frame 0: R0 checked as the program's at its exit
    uint32_t callback_depth = 0;  // callbacks of this frame's current helper call unrolled so far (bpf_loop)
    bool operator==(const Frame&) const = default;
};

// An acquired reference (the kernel's bpf_reference_state): released by id, reported by id and insn when leaked.
struct RefState {
    uint32_t id = 0;
    int32_t insn = 0; // the acquiring call
    bool operator==(const RefState&) const = default;
};

// The bpf_spin_lock a path holds (the kernel's active lock): the map whose value holds it and the id of the
// map value pointer it was taken through; map -1 when no lock is held.
struct LockState {
    int32_t map = -1; // the map of a map value's lock
    uint32_t id = 0;
    bool obj = false; // the lock of a program-allocated object (the kernel's active_lock.ptr = the program's BTF)
    // Where 6.18's reference array holds the lock among State::refs: before refs[pos] (refs.size(): last). A graph
    // kfunc acquires and releases references while the lock is held; the array's order is what the log prints.
    uint32_t pos = 0;
    bool held() const { return map >= 0 || obj; }
    bool operator==(const LockState&) const = default;
};

struct State {
    std::vector<Frame> frames; // frames.back() is the current one
    std::vector<RefState> refs; // references held on this path, in the kernel's order (release swaps in the last)
    bool active_rcu_lock = false; // between bpf_rcu_read_lock and bpf_rcu_read_unlock (kfunc_btf.cpp)
    uint32_t active_preempt_locks = 0; // bpf_preempt_disable calls not yet enabled again (preempt.cpp)
    uint32_t may_goto_depth = 0; // may_goto fall-throughs taken on this path (tells loop iterations apart)
    // The path runs where it may sleep (the kernel's state->in_sleepable, which 6.18's in_sleepable reads alone): a
    // sleepable program's main and global functions, a bpf_wq callback; never a bpf_timer callback.
    bool in_sleepable = false;
    LockState lock;
    Frame& cur() { return frames.back(); }
    const Frame& cur() const { return frames.back(); }
};

// Every register of every frame of ST and every register spilled on their stacks (the kernel's
// bpf_for_each_reg_in_vstate): what a release, an unlock or leaving an RCU section rewrites.
template <class F> void for_each_reg(State& st, F&& f) {
    for (Frame& fr : st.frames) {
        for (Reg& r : fr.regs)
            f(r);
        for (StackSlot& slot : fr.stack)
            if (slot.bytes[0] == Slot::spill || slot.bytes[7] == Slot::spill)
                f(slot.spilled);
    }
}

const char* reg_type_name(RegType t, bool maybe_null = false); // the kernel's reg_type_str: "map_value_or_null"
std::string reg_type_str(const Reg& r);                         // with the flags: "ringbuf_mem_or_null"

} // namespace strbpf::verifier
