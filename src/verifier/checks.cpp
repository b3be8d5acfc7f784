// SPDX-License-Identifier: BSD-2-Clause
// Memory access checks (verifier stage): loads, stores and helper memory arguments through every pointer kind,
// with the kernel's bounds rules and messages: map values, the stack (spills and fills), ctx per program type,
// packets (range proven by comparisons with pkt_end) and sized memory.
#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "verifier/domain/scalar.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/dynptr.hpp"
#include "verifier/env.hpp"
#include "verifier/kptr.hpp"
#include "verifier/timer.hpp"
#include "verifier/sock.hpp"

namespace strbpf::verifier {
namespace {

bool is_write(Access a) { return a == Access::write || a == Access::helper_write; }
bool is_helper(Access a) { return a == Access::helper_read || a == Access::helper_write; }

bool mem_ok(int64_t off, int64_t size, uint64_t mem_size) {
    return off >= 0 && uint64_t(size) <= mem_size && uint64_t(off) <= mem_size - uint64_t(size);
}

enum class Region { map_value, map_key, mem };

// The kernel's check_mem_region_access: fixed offset OFF plus the register's variable part.
bool check_region(Env& env, int regno, int64_t off, int64_t size, uint64_t mem_size, Region region) {
    const Reg& r = env.path.cur.cur().regs[regno];
    auto region_msg = [&](int64_t at) {
        if (region == Region::map_value)
            env.note(fmt::format("invalid access to map value, value_size={} off={} size={}", mem_size, at, size));
        else if (region == Region::map_key)
            env.note(fmt::format("invalid access to map key, key_size={} off={} size={}", mem_size, at, size));
        else
            env.note(fmt::format("invalid access to memory, mem_size={} off={} size={}", mem_size, at, size));
    };
    if (r.smin < 0 && (r.smin == std::numeric_limits<int64_t>::min() ||
                       off + r.smin != int64_t(int32_t(off + r.smin)) || r.smin + off < 0))
        return env.fail(fmt::format(
            "R{} min value is negative, either use unsigned index or do a if (index >=0) check.", regno));
    if (!mem_ok(r.smin + off, size, mem_size)) {
        region_msg(r.smin + off);
        return env.fail(fmt::format("R{} min value is outside of the allowed memory range", regno));
    }
    if (r.umax >= kMaxVarOff)
        return env.fail(
            fmt::format("R{} unbounded memory access, make sure to bounds check any such access", regno));
    if (!mem_ok(int64_t(r.umax) + off, size, mem_size)) {
        region_msg(int64_t(r.umax) + off);
        return env.fail(fmt::format("R{} max value is outside of the allowed memory range", regno));
    }
    return true;
}

// The kernel's check_map_access_type (bpf_map_flags_to_cap): programs may not write a BPF_F_RDONLY_PROG map
// (.rodata* is one) nor read a BPF_F_WRONLY_PROG one. OFF is the fixed offset (insn off + register off).
constexpr uint32_t kMapFlagWronlyProg = 1u << 8; // BPF_F_WRONLY_PROG
constexpr uint32_t kFlowKeysSize = 56;            // sizeof(struct bpf_flow_keys)
bool check_map_access_type(Env& env, const loader::MapSpec* spec, int64_t off, int64_t size, Access access) {
    if (!spec)
        return true;
    const bool rdonly = spec->frozen || (spec->map_flags & loader::kMapFlagRdonlyProg);
    const bool wronly = spec->map_flags & kMapFlagWronlyProg;
    if (is_write(access) && rdonly)
        return env.fail(fmt::format("write into map forbidden, value_size={} off={} size={}", spec->value_size, off,
                                    size));
    if (!is_write(access) && wronly)
        return env.fail(fmt::format("read from map forbidden, value_size={} off={} size={}", spec->value_size, off,
                                    size));
    return true;
}

// Reads SIZE bytes of a frozen read-only map value at a known offset: the verifier sees .rodata constants.
bool read_rdonly_value(Env& env, const Reg& ptr, int64_t off, int size, bool sx, Reg* out) {
    const loader::MapSpec* spec = env.facts.map_spec(ptr.aux);
    runtime::Map* map = env.facts.map(ptr.aux);
    if (!spec || !map || !spec->frozen || !ptr.var.is_const())
        return false;
    const uint8_t* base = map->direct_value();
    const int64_t at = off + int64_t(ptr.var.value);
    if (!base || at < 0 || at + size > int64_t(spec->value_size))
        return false;
    uint64_t v = 0;
    std::memcpy(&v, base + at, size_t(size));
    *out = reg_const(v);
    if (sx)
        coerce_to_size_sx(*out, size);
    return true;
}

StackSlot* stack_slot(Frame& f, int64_t byte_off, bool grow) {
    const size_t slot = size_t((-byte_off - 1) / 8);
    if (slot >= f.stack.size()) {
        if (!grow)
            return nullptr;
        f.stack.resize(slot + 1);
    }
    return &f.stack[slot];
}
int byte_index(int64_t byte_off) { return int((byte_off % 8 + 8) % 8); }

bool stack_bounds(Env& env, int regno, int64_t min_off, int64_t max_off, int size, Access access) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (min_off >= -isa::kStackSize && max_off + size <= 0 && size > 0)
        return true;
    const char* what = is_write(access) ? " write to" : " read from"; // helpers too, since Linux 6.x
    if (r.var.is_const())
        return env.fail(fmt::format("invalid{} stack R{} off={} size={}", what, regno, min_off, size));
    return env.fail(fmt::format("invalid variable-offset{} stack R{} var_off={} off={} size={}", what, regno,
                                tnum_str(r.var), r.off, size));
}

// A write into an iterator's slot scrubs it whole (the kernel's scrub_special_slot): its bytes become STACK_MISC,
// the iterator is gone (its reference stays held, and leaks).
void scrub_iter_slot(StackSlot* s) {
    if (s->bytes[0] != Slot::iter)
        return;
    *s = StackSlot{};
    s->bytes.fill(Slot::misc);
}

// True when the write spilled VALUE (check_stack_write_fixed_off's save_register_state), false for data bytes.
bool write_stack_fixed(Frame& f, int64_t off, int size, const Reg* value, bool value_is_zero) {
    StackSlot* s = stack_slot(f, off, true);
    scrub_iter_slot(s);
    const bool aligned = off % 8 == 0;
    if (aligned && value && (size == 8 || value->type == RegType::scalar)) {
        s->spilled = *value;
        if (size < 8 && value->type == RegType::scalar) {
            const int width = 64 - std::countl_zero(value->umax);
            if (width > size * 8)
                clear_scalar_id(s->spilled);
        }
        for (int i = 0; i < 8; i++) {
            if (i < size)
                s->bytes[i] = Slot::spill;
            else if (s->bytes[i] == Slot::spill)
                s->bytes[i] = Slot::misc;
        }
        return true;
    }
    const bool had_spill = std::find(s->bytes.begin(), s->bytes.end(), Slot::spill) != s->bytes.end();
    if (had_spill)
        for (Slot& b : s->bytes)
            if (b == Slot::spill)
                b = Slot::misc;
    const Slot type = value_is_zero ? Slot::zero : Slot::misc;
    const int first = byte_index(off);
    for (int i = 0; i < size; i++) {
        if (first + i < 8) {
            s->bytes[first + i] = type;
        } else { // crosses into the next slot up (only for unaligned wide writes)
            StackSlot* up = stack_slot(f, off + i, true);
            up->bytes[byte_index(off + i)] = type;
        }
    }
    return false;
}

// check_stack_read_fixed_off: a slot whose first byte holds a spill is a register fill (whole, or a narrow fill
// from the slot's start); any other read of it, and a read of a slot without a spill, is a constant 0 when every
// byte read is zero (a zeroed byte, or a byte of a spilled constant 0), an unknown scalar otherwise.
bool read_stack_fixed(Env& env, Frame& f, int64_t off, int size, int dst) {
    StackSlot* s = stack_slot(f, off, false);
    for (int i = 0; i < size; i++) { // an iterator's and a dynptr's bytes are not data
        const StackSlot* b = stack_slot(f, off + i, false);
        if (b && (b->bytes[byte_index(off + i)] == Slot::iter || b->bytes[byte_index(off + i)] == Slot::dynptr))
            return env.fail(fmt::format("invalid read from stack off {}+{} size {}", off, i, size));
    }
    Reg result = reg_unknown();
    if (s && s->bytes[0] == Slot::spill) {
        int spill_size = 0;
        while (spill_size < 8 && s->bytes[spill_size] == Slot::spill)
            spill_size++;
        if (size == 8 && spill_size == 8) {
            result = s->spilled;
            env.path.cur_entry.flags |= kHistFill;
        } else if (s->spilled.type != RegType::scalar) {
            return env.fail("invalid size of register fill");
        } else if (size <= spill_size && off % 8 == 0) {
            // A 32-bit fill of a 32-bit spill ties the register to the slot (check_stack_read_fixed_off).
            if (size == 4 && spill_size == 4 && 64 - std::countl_zero(s->spilled.umax) <= 32)
                assign_id_before_mov(env, s->spilled);
            result = s->spilled;
            env.path.cur_entry.flags |= kHistFill;
            if (64 - std::countl_zero(result.umax) > size * 8)
                clear_scalar_id(result);
        } else {
            int spill = 0, zero = 0;
            for (int i = 0; i < size && byte_index(off) + i < 8; i++) {
                spill += s->bytes[size_t(byte_index(off) + i)] == Slot::spill;
                zero += s->bytes[size_t(byte_index(off) + i)] == Slot::zero;
            }
            // check_stack_read_fixed_off: zero bytes of a spilled zero are a fill (precision follows the spill);
            // STACK_ZERO bytes or a mix read as data, which the kernel's backtracking does not follow.
            const bool spilled_zero = s->spilled.is_const() && s->spilled.var.value == 0;
            if (spill == size && spilled_zero)
                env.path.cur_entry.flags |= kHistFill;
            if ((spill == size && spilled_zero) || zero == size)
                result = reg_const(0);
        }
    } else {
        bool all_zero = true;
        for (int i = 0; i < size; i++) {
            StackSlot* b = stack_slot(f, off + i, false);
            if (!b || b->bytes[byte_index(off + i)] != Slot::zero)
                all_zero = false;
        }
        if (all_zero)
            result = reg_const(0);
    }
    if (dst >= 0)
        env.path.cur.cur().regs[dst] = result;
    return true;
}

// What a helper writing stack bytes [LO, HI) leaves there, as 6.18 records it: a raw (MEM_UNINIT) argument at a
// constant offset is written byte by byte after the arguments are checked (check_helper_call's BPF_B writes), any
// other write clobbers in check_stack_range_initialized; either way every byte becomes STACK_MISC and a slot
// holding a spilled register is scrubbed whole (its initialised bytes STACK_MISC, the register gone), so a
// pointer spilled there can no longer be filled. Only the byte writes mark the slots for the log (SCRATCH).
void helper_stack_write(Env& env, Frame& f, int64_t lo, int64_t hi, bool scratch) {
    for (int64_t a = std::max<int64_t>(lo, -isa::kStackSize); a < std::min<int64_t>(hi, 0); a++) {
        StackSlot* s = stack_slot(f, a, true);
        scrub_iter_slot(s);
        if (std::find(s->bytes.begin(), s->bytes.end(), Slot::spill) != s->bytes.end()) {
            for (Slot& b : s->bytes)
                if (b != Slot::invalid)
                    b = Slot::misc;
            s->spilled = Reg{};
        }
        s->bytes[byte_index(a)] = Slot::misc;
        if (scratch)
            env.log.scratched_slots |= 1ull << ((-a - 1) / 8);
    }
}

// check_stack_range_initialized on the special slots a helper's memory argument covers, [LO, HI + SIZE): at a
// constant offset a written (raw) argument may not overlap a dynptr; any other helper access may not read a dynptr's
// or an iterator's bytes.
bool helper_stack_objects(Env& env, const Frame& f, int regno, int64_t lo, int64_t hi, int size, Access access) {
    const Reg& r = env.path.cur.cur().regs[regno];
    const bool raw = access == Access::helper_write && r.var.is_const();
    for (int64_t a = lo; a < hi + size; a++) {
        const size_t spi = size_t((-a - 1) / 8);
        if (a >= 0 || spi >= f.stack.size())
            continue;
        const Slot k = f.stack[spi].bytes[byte_index(a)];
        if (raw && k == Slot::dynptr)
            return env.fail(fmt::format("potential write to dynptr at off={} disallowed", a));
        if (raw || (k != Slot::dynptr && k != Slot::iter))
            continue;
        if (r.var.is_const()) // Linux 6.18 no longer says "indirect" for helpers
            return env.fail(fmt::format("invalid read from stack R{} off {}+{} size {}", regno, lo, a - lo, size));
        return env.fail(fmt::format("invalid read from stack R{} var_off {}+{} size {}", regno, tnum_str(r.var),
                                    a - lo, size));
    }
    return true;
}

// check_stack_write_var_off over bytes [LO, HI): any byte may be written, so each becomes STACK_MISC and a slot
// holding a spilled register (or an iterator) loses it, its other bytes STACK_MISC too. Writing a known 0 (a
// register, or an immediate: VALUE_REGNO -2) leaves zeroed bytes zero and the bytes of a spilled constant 0 as
// they are, which makes the value written precise.
void write_stack_var(Env& env, Frame& f, int64_t lo, int64_t hi, int value_regno) {
    const Reg* v = value_regno >= 0 ? &env.path.cur.cur().regs[value_regno] : nullptr;
    const bool zero = v ? v->type == RegType::scalar && v->is_const() && v->var.value == 0
                        : value_regno == -2 && env.facts.insns[env.path.pc].imm == 0;
    bool zero_used = false;
    for (int64_t a = lo; a < hi; a++) {
        StackSlot* s = stack_slot(f, a, true);
        Slot& b = s->bytes[byte_index(a)];
        env.log.scratched_slots |= 1ull << ((-a - 1) / 8);
        if (zero && b == Slot::spill && s->bytes[0] == Slot::spill && s->spilled.type == RegType::scalar &&
            s->spilled.is_const() && s->spilled.var.value == 0) {
            zero_used = true;
            continue;
        }
        if (s->bytes[0] == Slot::spill || s->bytes[0] == Slot::iter) { // scrub_special_slot
            for (Slot& o : s->bytes)
                if (o != Slot::invalid)
                    o = Slot::misc;
        }
        s->spilled = Reg{};
        if (zero && b == Slot::zero)
            zero_used = true;
        else
            b = Slot::misc;
    }
    if (zero_used && value_regno >= 0)
        mark_reg_precise(env, value_regno);
}

bool stack_access(Env& env, int regno, int64_t off, int size, Access access, int value_regno) {
    const Reg r = env.path.cur.cur().regs[regno];
    Frame& f = env.path.cur.frames[r.frameno];
    const int64_t base = off + r.off;
    if (r.var.is_const()) {
        const int64_t at = base + int64_t(r.var.value);
        if (!stack_bounds(env, regno, at, at, size, access))
            return false;
        update_stack_depth(env, r.frameno, at);
        if (is_helper(access) && !helper_stack_objects(env, f, regno, at, at, size, access))
            return false;
        if (is_write(access)) // a dynptr slice that may be this memory is gone (dynptr.cpp)
            invalidate_buffer_slices(env.path.cur, r.frameno, at, at + size);
        if (access == Access::helper_write) {
            helper_stack_write(env, f, at, at + size, true);
            check_fastcall_stack_contract(env, f.subprog, at); // its bytes are written as stores (check_helper_call)
        }
        if (is_helper(access))
            return true; // privileged: reading uninitialised stack is allowed
        if (is_write(access) && !destroy_dynptr_at(env, r.frameno, int((-at - 1) / 8)))
            return false; // check_stack_write_fixed_off: a write into a dynptr destroys it
        note_stack_access(env, r.frameno, at, size);
        // check_stack_write_fixed_off asks for the written frame, check_stack_read_fixed_off for the current one.
        check_fastcall_stack_contract(env, is_write(access) ? f.subprog : env.path.cur.cur().subprog, at);
        if (is_write(access)) {
            const Reg* v = value_regno >= 0 ? &env.path.cur.cur().regs[value_regno] : nullptr;
            const Reg imm = value_regno == -2 ? reg_const(uint64_t(int64_t(env.facts.insns[env.path.pc].imm))) : Reg{};
            if (value_regno == -2)
                v = &imm;
            // is_spillable_regtype leaves out PTR_TO_TP_BUFFER: storing one writes data bytes (STACK_MISC) of any
            // size, and a fill reads a scalar.
            if (v && v->type == RegType::tp_buffer)
                v = nullptr;
            const bool zero = v && v->is_const() && v->var.value == 0;
            // check_stack_write_fixed_off: a pointer (is_spillable_regtype: every other pointer type) is spilled
            // whole.
            if (v && value_regno >= 0 && v->type != RegType::scalar && size != 8)
                return env.fail("invalid size of register spill");
            // check_stack_write_fixed_off: an aligned spill of a scalar that fits the store ties it to the slot.
            if (v && value_regno >= 0 && at % 8 == 0 && v->type == RegType::scalar &&
                64 - std::countl_zero(v->umax) <= size * 8)
                assign_id_before_mov(env, env.path.cur.cur().regs[value_regno]);
            if (write_stack_fixed(f, at, size, v, zero))
                env.path.cur_entry.flags |= kHistSpill;
            return true;
        }
        return read_stack_fixed(env, f, at, size, value_regno);
    }
    const int64_t lo = base + r.smin, hi = base + r.smax;
    if (r.smin < -isa::kStackSize * 2 || r.smax > isa::kStackSize * 2 ||
        !stack_bounds(env, regno, lo, hi, size, access))
        return env.failed() ? false : stack_bounds(env, regno, -1000000, 0, size, access);
    update_stack_depth(env, r.frameno, lo);
    if (is_helper(access) && !helper_stack_objects(env, f, regno, lo, hi, size, access))
        return false;
    if (is_write(access))
        invalidate_buffer_slices(env.path.cur, r.frameno, lo, hi + size);
    if (is_write(access) && !is_helper(access)) // check_stack_write_var_off: every dynptr it may touch
        for (int64_t a = lo; a < hi + size; a++)
            if (!destroy_dynptr_at(env, r.frameno, int((-a - 1) / 8)))
                return false;
    // check_stack_{write,read}_var_off: the lowest byte it may touch; a helper's output is written byte by byte
    // the same way (check_helper_call), its input is not checked.
    if (!is_helper(access) || access == Access::helper_write)
        check_fastcall_stack_contract(env, f.subprog, lo);
    if (access == Access::helper_write) {
        helper_stack_write(env, f, lo, hi + size, false);
    } else if (is_write(access)) {
        write_stack_var(env, f, lo, hi + size, value_regno);
    } else if (value_regno >= 0) {
        env.path.cur.cur().regs[value_regno] = reg_unknown();
    }
    return true;
}

// The kernel's check_ptr_alignment: stack accesses are always strictly aligned (the spill tracking relies on it);
// other pointers are not on x86-64 (efficient unaligned access, no BPF_F_STRICT_ALIGNMENT).
bool check_stack_alignment(Env& env, int regno, int32_t insn_off, int size) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (size == 1)
        return true;
    const uint64_t bits = r.var.value + uint64_t(int64_t(r.off) + insn_off);
    if (((bits | r.var.mask) & uint64_t(size - 1)) == 0)
        return true;
    const std::string var = r.var.is_const() ? fmt::format("{}", int64_t(r.var.value)) : tnum_str(r.var);
    return env.fail(fmt::format("misaligned stack access off {}+{}+{} size {}", var, r.off, insn_off, size));
}

// The rest of check_ptr_alignment, for BPF_F_STRICT_ALIGNMENT (without BPF_F_ANY_ALIGNMENT): packet pointers are
// checked as if the packet started NET_IP_ALIGN (2) bytes into an aligned buffer, other pointers as they are.
// STRICT_ONCE (atomics) checks whatever the flags say.
bool check_strict_alignment(Env& env, int regno, int32_t insn_off, int size, bool strict_once) {
    const uint32_t flags = env.facts.opts.prog_flags;
    const bool strict = strict_once || ((flags & kProgFlagStrictAlignment) && !(flags & kProgFlagAnyAlignment));
    if (!strict || size == 1)
        return true;
    const Reg& r = env.path.cur.cur().regs[regno];
    const bool packet = r.type == RegType::packet || r.type == RegType::packet_meta;
    const char* desc = r.type == RegType::map_value     ? "value "
                       : r.type == RegType::map_key     ? "key "
                       : r.type == RegType::ctx         ? "context "
                       : r.type == RegType::sock        ? "sock "
                       : r.type == RegType::sock_common ? "sock_common "
                       : r.type == RegType::tcp_sock    ? "tcp_sock "
                       : r.type == RegType::xdp_sock    ? "xdp_sock "
                       : r.type == RegType::flow_keys   ? "flow keys "
                                                        : "";
    const int64_t ip_align = packet ? 2 : 0;
    const uint64_t bits = r.var.value + uint64_t(ip_align + int64_t(r.off) + insn_off);
    if (((bits | r.var.mask) & uint64_t(size - 1)) == 0)
        return true;
    const std::string var = r.var.is_const() ? fmt::format("{}", int64_t(r.var.value)) : tnum_str(r.var);
    if (packet)
        return env.fail(fmt::format("misaligned packet access off {}+{}+{}+{} size {}", ip_align, var, r.off,
                                    insn_off, size));
    return env.fail(fmt::format("misaligned {}access off {}+{}+{} size {}", desc, var, r.off, insn_off, size));
}

} // namespace

bool check_ctx_reg_off(Env& env, int regno) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.off < 0)
        return env.fail(fmt::format("negative offset ctx ptr R{} off={} disallowed", regno, r.off));
    if (r.off != 0)
        return env.fail(fmt::format("dereference of modified ctx ptr R{} off={} disallowed", regno, r.off));
    if (!r.var.is_const() || r.var.value != 0)
        return env.fail(fmt::format("variable ctx access var_off={} disallowed", tnum_str(r.var)));
    return true;
}

namespace {

bool ctx_access(Env& env, int regno, int32_t off, int size, Access access, int value_regno, bool sign_extend) {
    if (!check_ctx_reg_off(env, regno))
        return false;
    if (env.facts.attach)
        return btf_ctx_load(env, off, size, is_write(access), is_write(access) ? -1 : value_regno);
    RegType field = RegType::scalar;
    if (!ctx_access_valid(env, off, size, is_write(access), sign_extend, &field))
        return env.fail(fmt::format("invalid bpf_context access off={} size={}", off, size));
    if (off + size > 0)
        env.aux.max_ctx_offset = std::max(env.aux.max_ctx_offset, uint32_t(off + size));
    env.aux.min_ctx_offset = std::min(env.aux.min_ctx_offset, off);
    if (!is_write(access) && value_regno >= 0) {
        Reg v = field == RegType::scalar ? reg_unknown() : reg_ptr(field);
        if (field == RegType::packet || field == RegType::packet_meta)
            v.aux = 0; // range
        if (is_sock_type(field) && ctx_sock_maybe_null(env.facts.prog.type, field)) {
            v.maybe_null = true;
            v.id = env.path.new_id();
        }
        env.path.cur.cur().regs[value_regno] = v;
    }
    return true;
}

// check_tp_buffer_access: a non-negative offset, the pointer's variable part known to be 0; the furthest byte is
// kept as the kernel's max_tp_access, which attaching compares with the tracepoint's writable size.
bool tp_buffer_access(Env& env, int regno, int64_t off, int size) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (off < 0)
        return env.fail(fmt::format("R{} invalid tracepoint buffer access: off={}, size={}", regno, off, size));
    if (!r.var.is_const() || r.var.value != 0)
        return env.fail(
            fmt::format("R{} invalid variable buffer offset: off={}, var_off={}", regno, off, tnum_str(r.var)));
    env.aux.max_tp_access = std::max<int64_t>(env.aux.max_tp_access, off + size);
    return true;
}

bool packet_access(Env& env, int regno, int64_t off, int64_t size) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.smin < 0)
        return env.fail(fmt::format(
            "R{} min value is negative, either use unsigned index or do a if (index >=0) check.", regno));
    const int64_t at = off + r.off;
    if (!mem_ok(at, size, r.aux)) {
        env.note(fmt::format("invalid access to packet, off={} size={}, R{}(id={},off={},r={})", at, size, regno, r.id,
                             r.off, r.aux));
        return env.fail(fmt::format("R{} offset is outside of the packet", regno));
    }
    return true;
}

} // namespace

bool check_reg_init(Env& env, int regno) {
    if (env.path.cur.cur().regs[regno].type == RegType::not_init)
        return env.fail(fmt::format("R{} !read_ok", regno));
    return true;
}

// value_regno: the register loaded into / stored from; -1 none; -2 the insn's imm (BPF_ST).
bool check_mem_access(Env& env, int regno, int32_t insn_off, int size, Access access, int value_regno,
                      bool sign_extend, bool strict_once) {
    const Reg r = env.path.cur.cur().regs[regno];
    Reg* dst = (!is_write(access) && value_regno >= 0) ? &env.path.cur.cur().regs[value_regno] : nullptr;
    if (!is_helper(access) && r.type != RegType::stack && r.type != RegType::arena && !r.maybe_null &&
        !check_strict_alignment(env, regno, insn_off, size, strict_once))
        return false;
    switch (r.type) {
    case RegType::map_value: {
        if (r.maybe_null)
            break;
        const loader::MapSpec* spec = env.facts.map_spec(r.aux);
        const uint32_t vs = spec ? spec->value_size : 0;
        const int64_t off = int64_t(insn_off) + r.off;
        if (!check_map_access_type(env, spec, off, size, access))
            return false;
        if (!check_region(env, regno, off, size, vs, Region::map_value) ||
            !check_map_fields_access(env, regno, off, size, is_helper(access)))
            return false;
        bool kptr = false; // a load or store of a kptr field (kptr.cpp)
        if (!is_helper(access) && !check_map_kptr_access(env, regno, off, value_regno, is_write(access), &kptr))
            return false;
        if (kptr)
            dst = nullptr;
        else if (dst) {
            Reg v;
            if (!read_rdonly_value(env, r, off, size, sign_extend, &v))
                v = reg_unknown();
            *dst = v;
        }
        break;
    }
    case RegType::map_key: {
        if (is_write(access))
            return env.fail(fmt::format("write to change key R{} not allowed", regno));
        const loader::MapSpec* spec = env.facts.map_spec(r.aux);
        if (!check_region(env, regno, int64_t(insn_off) + r.off, size, spec ? spec->key_size : 0, Region::map_key))
            return false;
        if (dst)
            *dst = reg_unknown();
        break;
    }
    case RegType::mem: {
        if (r.maybe_null)
            break;
        if (is_write(access) && r.rdonly)
            return env.fail(fmt::format("R{} cannot write into {}", regno, reg_type_str(r)));
        if (!check_region(env, regno, int64_t(insn_off) + r.off, size, r.aux, Region::mem))
            return false;
        if (dst)
            *dst = reg_unknown();
        break;
    }
    case RegType::stack:
        if (!check_stack_alignment(env, regno, insn_off, size))
            return false;
        if (!stack_access(env, regno, insn_off, size, access, value_regno))
            return false;
        break;
    case RegType::ctx:
        if (!ctx_access(env, regno, insn_off, size, access, value_regno, sign_extend))
            return false;
        dst = (dst && dst->type == RegType::scalar) ? dst : nullptr;
        break;
    case RegType::btf_id:
        if (r.maybe_null)
            break;
        if (is_helper(access))
            return env.fail(fmt::format("strbpf does not model helper memory access through R{} ({})", regno,
                                        reg_type_str(r)));
        if (!btf_ptr_access(env, regno, insn_off, size, is_write(access), is_write(access) ? -1 : value_regno))
            return false;
        dst = (dst && dst->type == RegType::scalar) ? dst : nullptr;
        break;
    case RegType::map_ptr: // check_ptr_to_map_access (btf_access.cpp)
        if (is_helper(access))
            break;
        if (r.maybe_null) // a map-in-map lookup before its null check: a map value to the kernel
            return env.fail(fmt::format("R{} invalid mem access '{}'", regno, inner_lookup_type_name(env)));
        if (!btf_map_ptr_access(env, regno, insn_off, size, is_write(access), is_write(access) ? -1 : value_regno))
            return false;
        dst = (dst && dst->type == RegType::scalar) ? dst : nullptr;
        break;
    case RegType::sock:
    case RegType::sock_common:
    case RegType::tcp_sock:
    case RegType::xdp_sock:
        if (r.maybe_null)
            break;
        if (is_helper(access))
            return env.fail(fmt::format("R{} invalid mem access '{}'", regno, reg_type_str(r)));
        if (!sock_access(env, regno, insn_off, size, is_write(access), is_write(access) ? -1 : value_regno))
            return false;
        break;
    case RegType::flow_keys: // check_flow_keys_access: within struct bpf_flow_keys
        if (is_helper(access))
            return env.fail(fmt::format("R{} invalid mem access '{}'", regno, reg_type_str(r)));
        if (int64_t at = int64_t(insn_off) + r.off; at < 0 || at + size > int64_t(kFlowKeysSize))
            return env.fail(fmt::format("invalid access to flow keys off={} size={}", at, size));
        [[fallthrough]];
    case RegType::arena: // no bounds: an access to a page not allocated reads 0 (arena.cpp)
        if (dst)
            *dst = reg_unknown();
        break;
    case RegType::tp_buffer:
        if (!tp_buffer_access(env, regno, int64_t(insn_off) + r.off, size))
            return false;
        if (dst)
            *dst = reg_unknown();
        break;
    case RegType::packet:
    case RegType::packet_meta:
        if (access == Access::write && !packet_writable(env.facts.prog.type))
            return env.fail("cannot write into packet");
        if (!packet_access(env, regno, insn_off, size))
            return false;
        if (dst)
            *dst = reg_unknown();
        break;
    default: break;
    }
    if ((r.type == RegType::map_value || r.type == RegType::mem || r.type == RegType::btf_id) && r.maybe_null)
        return env.fail(fmt::format("R{} invalid mem access '{}'", regno, reg_type_str(r)));
    if (r.type != RegType::map_value && r.type != RegType::mem && r.type != RegType::stack &&
        r.type != RegType::map_key && r.type != RegType::btf_id &&
        !(r.type == RegType::map_ptr && !is_helper(access)) && !(is_sock_type(r.type) && !r.maybe_null) &&
        r.type != RegType::ctx && r.type != RegType::packet && r.type != RegType::packet_meta &&
        r.type != RegType::flow_keys && r.type != RegType::tp_buffer && !(r.type == RegType::arena && !is_helper(access)))
        return env.fail(fmt::format("R{} invalid mem access '{}'", regno, reg_type_str(r)));
    if (dst && dst->type == RegType::scalar && size < 8) {
        if (sign_extend)
            coerce_to_size_sx(*dst, size);
        else
            coerce_to_size(*dst, size);
    }
    return true;
}

// check_ptr_alignment(strict) for a MEM_ALIGNED helper argument (ARG_PTR_TO_LONG, ARG_PTR_TO_INT).
bool check_aligned_arg(Env& env, int regno, int size) {
    if (env.path.cur.cur().regs[regno].type == RegType::stack)
        return check_stack_alignment(env, regno, 0, size);
    return check_strict_alignment(env, regno, 0, size, true);
}

namespace {

// Program types whose ctx the kernel reads without convert_ctx_access (tracing-like ones): check_helper_mem_access
// checks a ctx there by a one-byte access at its last byte; the other types refuse a ctx as memory.
bool ctx_checked_as_memory(loader::ProgType t) {
    using loader::ProgType;
    switch (t) {
    case ProgType::kprobe:
    case ProgType::tracepoint:
    case ProgType::raw_tracepoint:
    case ProgType::raw_tracepoint_writable:
    case ProgType::tracing:
    case ProgType::lsm:
    case ProgType::struct_ops:
    case ProgType::syscall: return true;
    default: return false;
    }
}

// check_helper_mem_access's PTR_TO_CTX: a program type whose ctx the kernel reads without convert_ctx_access checks
// the SIZE bytes by a one-byte access at the last (check_mem_access, then check_ctx_access, which also moves the
// furthest ctx byte a test run's ctx_in must hold: max_ctx_offset); the other types refuse a ctx as memory.
bool ctx_as_memory(Env& env, int regno, uint64_t size, bool zero_size_allowed) {
    if (!ctx_checked_as_memory(env.facts.prog.type)) // before any zero-size rule: the type decides first
        return env.fail(fmt::format("R{} type=ctx expected=fp", regno));
    if (size == 0) // a zero-byte access of a ctx: allowed where zero sizes are (the kernel's -EACCES has no words)
        return zero_size_allowed || env.fail(fmt::format("R{} zero-sized ctx access", regno));
    // check_mem_access of one byte at the last, read then written, as a program's own ctx load and store
    const int32_t last = int32_t(std::min<uint64_t>(size, 1u << 20) - 1);
    return check_mem_access(env, regno, last, 1, Access::read, -1) &&
           check_mem_access(env, regno, last, 1, Access::write, -1);
}

} // namespace

bool check_helper_mem(Env& env, int regno, uint64_t size, bool zero_size_allowed, Access access) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.type == RegType::ctx) // check_helper_mem_access switches on the type before any zero-size rule
        return ctx_as_memory(env, regno, size, zero_size_allowed);
    if (size == 0 && zero_size_allowed && r.type == RegType::stack) {
        // check_stack_access_within_bounds with access_size 0: the pointer itself must lie in [-512, -1] (a root
        // loader may read uninitialised stack) over its whole range.
        const bool cst = r.var.is_const();
        const int64_t min_off = (cst ? int64_t(r.var.value) : r.smin) + r.off;
        const int64_t max_off = (cst ? int64_t(r.var.value) : r.smax) + r.off;
        if (min_off < -isa::kStackSize || min_off > -1 || max_off > 0) {
            const char* extra = is_write(access) ? " write to" : " read from";
            if (cst)
                return env.fail(fmt::format("invalid{} stack R{} off={} size=0", extra, regno, min_off));
            return env.fail(fmt::format("invalid variable-offset{} stack R{} var_off={} off={} size=0", extra, regno,
                                        tnum_str(r.var), r.off));
        }
        update_stack_depth(env, r.frameno, min_off); // check_stack_access_within_bounds grows it, 0 bytes or not
        return true;
    }
    if (size == 0 && zero_size_allowed)
        return true;
    if (size == 0 && r.type == RegType::stack) // check_stack_range_initialized (a 0-byte key of a queue or stack)
        return env.fail("invalid zero-sized read");
    const int64_t sz = int64_t(size);
    switch (r.type) {
    case RegType::stack: return stack_access(env, regno, 0, int(std::min<uint64_t>(size, 1u << 20)), access, -1);
    case RegType::map_value: {
        const loader::MapSpec* spec = env.facts.map_spec(r.aux);
        const uint32_t vs = spec ? spec->value_size : 0;
        if (!check_map_access_type(env, spec, r.off, sz, access))
            return false;
        return check_region(env, regno, r.off, sz, vs, Region::map_value) &&
               check_map_fields_access(env, regno, r.off, int(sz), true);
    }
    case RegType::mem:
        if (is_write(access) && r.rdonly)
            return env.fail(fmt::format("R{} cannot write into {}", regno, reg_type_str(r)));
        return check_region(env, regno, r.off, sz, r.aux, Region::mem);
    case RegType::map_key: {
        if (is_write(access))
            return env.fail(fmt::format("R{} cannot write into map_key", regno));
        const loader::MapSpec* spec = env.facts.map_spec(r.aux);
        return check_region(env, regno, r.off, sz, spec ? spec->key_size : 0, Region::map_key);
    }
    case RegType::packet:
    case RegType::packet_meta: return packet_access(env, regno, 0, sz);
    case RegType::btf_id: // check_ptr_to_btf_access as a read of SIZE bytes at the pointer
        return btf_ptr_access(env, regno, 0, int(sz), false, -1);
    default: // check_helper_mem_access's default: a scalar or a pointer no memory check takes (a global function's
             // or kfunc's memory argument; helpers refuse these types by check_reg_type before)
        return env.fail(fmt::format("R{} type={} expected=fp", regno, reg_type_str(r)));
    }
}

} // namespace strbpf::verifier

namespace strbpf::verifier {

// The kernel's get_constant_map_key: zero bytes from the key's address to the end of its slot, or a spilled
// constant scalar of exactly SIZE bytes there (whose whole value is the key); nothing across slots.
bool stack_const(Env& env, int regno, int size, uint64_t* out) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.type != RegType::stack || !r.var.is_const())
        return false;
    const Frame& f = env.path.cur.frames[r.frameno];
    const int64_t off = int64_t(r.off) + int64_t(r.var.value);
    if (off < -isa::kStackSize || off + size > 0)
        return false;
    const size_t slot = size_t((-off - 1) / 8);
    if (slot >= f.stack.size())
        return false;
    const StackSlot& s = f.stack[slot];
    const int first = int((off % 8 + 8) % 8);
    int zero = 0, spill = 0;
    while (first + zero < 8 && s.bytes[size_t(first + zero)] == Slot::zero)
        zero++;
    if (zero >= size) {
        *out = 0;
        return true;
    }
    if (s.bytes[0] != Slot::spill || s.spilled.type != RegType::scalar)
        return false;
    while (first + spill < 8 && s.bytes[size_t(first + spill)] == Slot::spill)
        spill++;
    if (spill != size || !s.spilled.var.is_const())
        return false;
    *out = s.spilled.var.value;
    BtSet bt; // the decision rests on this spilled value
    bt.slots[r.frameno] = 1ull << slot;
    mark_precise(env, bt);
    return true;
}

} // namespace strbpf::verifier

namespace strbpf::verifier {
namespace {

// The class a "BPF_... uses reserved fields" message names (check_alu_op, do_check_insn, check_ld_abs).
const char* reserved_fields_class(const isa::OpInfo& op) {
    using isa::Shape;
    switch (op.shape) {
    case Shape::NEG64:
    case Shape::NEG32: return "BPF_NEG";
    case Shape::END: return "BPF_END";
    case Shape::ST: return "BPF_ST";
    case Shape::STX:
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW: return "BPF_STX";
    case Shape::LDX:
    case Shape::LDSX: return "BPF_LDX";
    case Shape::LD_ABS:
    case Shape::LD_IND: return "BPF_LD_[ABS|IND]";
    case Shape::JA:
    case Shape::GOTOL: return "BPF_JA";
    case Shape::CALL_HELPER:
    case Shape::CALL_LOCAL:
    case Shape::CALL_KFUNC: return "BPF_CALL";
    case Shape::EXIT: return "BPF_EXIT";
    case Shape::JMP_K:
    case Shape::JMP_X:
    case Shape::JMP32_K:
    case Shape::JMP32_X: return "BPF_JMP/JMP32";
    case Shape::LDDW: return "BPF_LD_IMM64";
    default:
        return op.sem == isa::Sem::mov || op.sem == isa::Sem::movsx8 || op.sem == isa::Sem::movsx16 ||
                       op.sem == isa::Sem::movsx32
                   ? "BPF_MOV"
                   : "BPF_ALU";
    }
}

} // namespace

bool check_insn_operands(Env& env, const isa::OpInfo& op, const isa::Insn& insn) {
    switch (isa::operand_error(op, insn)) {
    case isa::OperandError::none: return true;
    case isa::OperandError::reserved:
        return env.fail(fmt::format("{} uses reserved fields", reserved_fields_class(op)));
    case isa::OperandError::bad_src: return env.fail(fmt::format("R{} is invalid", insn.src));
    case isa::OperandError::bad_dst: return env.fail(fmt::format("R{} is invalid", insn.dst));
    case isa::OperandError::writes_r10:
    case isa::OperandError::fetch_writes_r10: return env.fail("frame pointer is read only");
    }
    return true;
}

} // namespace strbpf::verifier
