// SPDX-License-Identifier: BSD-2-Clause
// Dynptrs (verifier stage): dynptr.hpp. A struct bpf_dynptr on the stack is two Slot::dynptr slots whose spilled
// registers hold its id (one per dynptr, tying slices to it), its type, which slot comes first, and for ring buffer
// dynptrs the reservation's reference (clones share it). A const pointer to one (a callback's or a global function's
// argument) is RegType::dynptr.
#include "verifier/dynptr.hpp"

#include <algorithm>
#include <array>
#include <bpf/btf.h>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {

bool check_kfunc_mem_size(Env& env, int size_regno, int mem_regno); // calls.cpp

namespace {

using runtime::ArgKind;
constexpr int kNrSlots = 2; // BPF_DYNPTR_NR_SLOTS
constexpr int kErange = -34, kEinval = -22;

// stack_slot_obj_get_spi for a dynptr: its first slot, -ERANGE beyond the allocated stack, -EINVAL (logged) else.
int dynptr_get_spi(Env& env, const Reg& r) {
    if (!r.var.is_const()) {
        env.note("dynptr has to be at a constant offset");
        return kEinval;
    }
    const int64_t off = r.off + int64_t(r.var.value);
    const int64_t spi = (-off - 1) / 8;
    if (off % 8 || spi + 1 < kNrSlots) {
        env.note(fmt::format("cannot pass in dynptr at an offset={}", off));
        return kEinval;
    }
    const Frame& f = env.path.cur.frames[r.frameno];
    if (spi - kNrSlots + 1 < 0 || spi >= int64_t(f.stack.size()))
        return kErange;
    return int(spi);
}

// The same without a log line, for facts read after the arguments were checked.
int quiet_spi(const Env& env, const Reg& r) {
    if (r.type != RegType::stack || !r.var.is_const() || r.frameno >= env.path.cur.frames.size())
        return -1;
    const int64_t off = r.off + int64_t(r.var.value);
    const int64_t spi = (-off - 1) / 8;
    if (off % 8 || spi < 1 || spi >= int64_t(env.path.cur.frames[r.frameno].stack.size()))
        return -1;
    return int(spi);
}

bool is_dynptr_slot(const StackSlot& s) { return s.bytes[0] == Slot::dynptr; }

// __check_ptr_off_reg for a const dynptr pointer (no fixed offset allowed), in its order.
bool check_const_dynptr_off(Env& env, int regno) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.off < 0)
        return env.fail(fmt::format("negative offset dynptr_ptr ptr R{} off={} disallowed", regno, r.off));
    if (r.off)
        return env.fail(fmt::format("dereference of modified dynptr_ptr ptr R{} off={} disallowed", regno, r.off));
    if (!r.var.is_const() || r.var.value)
        return env.fail(fmt::format("variable dynptr_ptr access var_off={} disallowed", tnum_str(r.var)));
    return true;
}

// mark_reg_invalid for a root loader: the register becomes an unknown scalar.
template <class Pred> void invalidate_regs(State& st, Pred pred) {
    for (Frame& f : st.frames) {
        for (Reg& r : f.regs)
            if (pred(r))
                r = reg_unknown();
        for (StackSlot& s : f.stack)
            if (s.bytes[0] == Slot::spill && pred(s.spilled))
                s.spilled = reg_unknown();
    }
}

void clear_pair(Frame& f, int spi) {
    for (int i = 0; i < kNrSlots; i++)
        f.stack[size_t(spi - i)] = StackSlot{};
}

// mark_stack_slots_dynptr after the slots were destroyed and written: both slots typed, a new dynptr id, and the
// reservation's reference for ring buffer dynptrs (a clone's parent's, else a new one acquired at this call).
void mark_slots(Env& env, Frame& f, int spi, DynptrType type, uint32_t clone_ref) {
    const uint32_t id = env.path.new_id();
    uint32_t ref = 0;
    if (type == DynptrType::ringbuf)
        ref = clone_ref ? clone_ref : acquire_reference(env, env.path.pc);
    for (int i = 0; i < kNrSlots; i++) {
        StackSlot& s = f.stack[size_t(spi - i)];
        s = StackSlot{};
        s.bytes.fill(Slot::dynptr);
        s.spilled.type = RegType::dynptr;
        s.spilled.id = id;
        s.spilled.ref_obj_id = ref;
        s.spilled.dynptr = type;
        s.spilled.dynptr_first = i == 0;
        env.log.scratched_slots |= 1ull << (spi - i);
    }
}

bool valid_init(const Env& env, const Reg& r, int spi) {
    if (r.type == RegType::dynptr)
        return true;
    if (spi < 0)
        return false;
    const Frame& f = env.path.cur.frames[r.frameno];
    return f.stack[size_t(spi)].spilled.dynptr_first && is_dynptr_slot(f.stack[size_t(spi)]) &&
           is_dynptr_slot(f.stack[size_t(spi - 1)]) &&
           std::all_of(f.stack[size_t(spi)].bytes.begin(), f.stack[size_t(spi)].bytes.end(),
                       [](Slot b) { return b == Slot::dynptr; }) &&
           std::all_of(f.stack[size_t(spi - 1)].bytes.begin(), f.stack[size_t(spi - 1)].bytes.end(),
                       [](Slot b) { return b == Slot::dynptr; });
}

// How a dynptr argument is used (the arg type's MEM_UNINIT / MEM_RDONLY and DYNPTR_TYPE_* flags).
struct DynptrArg {
    bool uninit = false;
    bool rdonly = false;
    DynptrType type = DynptrType::invalid; // invalid: any initialized dynptr
};

// process_dynptr_func. CLONE_REF: the reference a clone shares with its parent.
bool process_dynptr(Env& env, int regno, const DynptrArg& a, uint32_t clone_ref, const char* type_msg) {
    const Reg r = env.path.cur.cur().regs[regno];
    if (r.type != RegType::stack && r.type != RegType::dynptr)
        return env.fail(fmt::format("arg#{} expected pointer to stack or {}", regno - 1, type_msg));
    if (a.uninit) {
        if (r.type == RegType::dynptr)
            return env.fail("Dynptr has to be an uninitialized dynptr");
        const int spi = dynptr_get_spi(env, r);
        if (spi < 0 && spi != kErange)
            return env.fail("Dynptr has to be an uninitialized dynptr");
        for (int i = 0; i < kNrSlots * 8; i += 8) // writes 8 bytes at a time (destroying what was there)
            if (!check_mem_access(env, regno, i, 8, Access::write, -1))
                return false;
        const int at = dynptr_get_spi(env, r);
        if (at < 0)
            return env.fail("Dynptr has to be an uninitialized dynptr");
        mark_slots(env, env.path.cur.frames[r.frameno], at, a.type, clone_ref);
        return true;
    }
    if (r.type == RegType::dynptr && !a.rdonly)
        return env.fail("cannot pass pointer to const bpf_dynptr, the helper mutates it");
    const int spi = r.type == RegType::dynptr ? 0 : dynptr_get_spi(env, r);
    if (!valid_init(env, r, spi))
        return env.fail(fmt::format("Expected an initialized dynptr as arg #{}", regno - 1));
    const DynptrType have =
        r.type == RegType::dynptr ? r.dynptr : env.path.cur.frames[r.frameno].stack[size_t(spi)].spilled.dynptr;
    if (a.type != DynptrType::invalid && have != a.type)
        return env.fail(fmt::format("Expected a dynptr of type {} as arg #{}", dynptr_type_str(a.type), regno - 1));
    if (r.type == RegType::stack && r.frameno + 1u == env.path.cur.frames.size())
        env.log.scratched_slots |= 3ull << (spi - 1); // the log shows the dynptr after the call
    return true;
}

// invalidate_dynptr: the pair's slots become STACK_INVALID.
void invalidate_pair(Frame& f, int spi) { clear_pair(f, spi); }

// unmark_stack_slots_dynptr: a released dynptr (bpf_ringbuf_submit/discard_dynptr) and, for a ring buffer
// reservation, its slices (by reference) and every clone of it in the same frame.
bool unmark_slots(Env& env, const Reg& r) {
    const int spi = quiet_spi(env, r);
    if (spi < 0)
        return env.fail("verifier bug");
    Frame& f = env.path.cur.frames[r.frameno];
    if (f.stack[size_t(spi)].spilled.dynptr != DynptrType::ringbuf) {
        invalidate_pair(f, spi);
        return true;
    }
    const uint32_t ref = f.stack[size_t(spi)].spilled.ref_obj_id;
    release_reference(env, ref); // the slices taken from it (dynptr slots are not spilled registers)
    Frame& g = env.path.cur.frames[r.frameno];
    for (size_t i = 1; i < g.stack.size(); i++)
        if (is_dynptr_slot(g.stack[i]) && g.stack[i].spilled.ref_obj_id == ref && g.stack[i].spilled.dynptr_first)
            invalidate_pair(g, int(i));
    return true;
}

DynptrArg helper_dynptr_arg(ArgKind k) {
    switch (k) {
    case ArgKind::ptr_to_dynptr_local_uninit: return {true, false, DynptrType::local};
    case ArgKind::ptr_to_dynptr_ringbuf_uninit: return {true, false, DynptrType::ringbuf};
    case ArgKind::ptr_to_dynptr_ringbuf_release: return {false, false, DynptrType::ringbuf};
    default: return {false, true, DynptrType::invalid}; // ptr_to_dynptr_rdonly
    }
}

// ---- kfuncs ---------------------------------------------------------------------------------------------------

enum class DK : uint8_t {
    from_skb,
    from_xdp,
    slice,
    slice_rdwr,
    adjust,
    clone,
    size,
    is_null,
    is_rdonly,
    copy,
    memset
};
// A parameter's role (the kernel's get_kfunc_ptr_arg_type for these prototypes).
enum class PR : uint8_t { none, ctx, scalar, dynptr, dynptr_uninit, buf_opt /* + the __szk size after it */ };

struct DynptrKfunc {
    const char* name;
    DK kind;
    std::array<PR, 5> params;
};
// clang-format off
constexpr DynptrKfunc kKfuncs[] = {
    {"bpf_dynptr_from_skb",    DK::from_skb,   {PR::ctx, PR::scalar, PR::dynptr_uninit, PR::none, PR::none}},
    {"bpf_dynptr_from_xdp",    DK::from_xdp,   {PR::ctx, PR::scalar, PR::dynptr_uninit, PR::none, PR::none}},
    {"bpf_dynptr_slice",       DK::slice,      {PR::dynptr, PR::scalar, PR::buf_opt, PR::none, PR::none}},
    {"bpf_dynptr_slice_rdwr",  DK::slice_rdwr, {PR::dynptr, PR::scalar, PR::buf_opt, PR::none, PR::none}},
    {"bpf_dynptr_adjust",      DK::adjust,     {PR::dynptr, PR::scalar, PR::scalar, PR::none, PR::none}},
    {"bpf_dynptr_clone",       DK::clone,      {PR::dynptr, PR::dynptr_uninit, PR::none, PR::none, PR::none}},
    {"bpf_dynptr_size",        DK::size,       {PR::dynptr, PR::none, PR::none, PR::none, PR::none}},
    {"bpf_dynptr_is_null",     DK::is_null,    {PR::dynptr, PR::none, PR::none, PR::none, PR::none}},
    {"bpf_dynptr_is_rdonly",   DK::is_rdonly,  {PR::dynptr, PR::none, PR::none, PR::none, PR::none}},
    {"bpf_dynptr_copy",        DK::copy,       {PR::dynptr, PR::scalar, PR::dynptr, PR::scalar, PR::scalar}},
    {"bpf_dynptr_memset",      DK::memset,     {PR::dynptr, PR::scalar, PR::scalar, PR::scalar, PR::none}},
};
// clang-format on

const DynptrKfunc* dynptr_kfunc_of(std::string_view name) {
    for (const DynptrKfunc& k : kKfuncs)
        if (name == k.name)
            return &k;
    return nullptr;
}

// The program types whose kfunc sets hold the constructor (bpf_kfunc_set_skb / _xdp; tracing programs are typed by
// kernel BTF and refused before their walk).
bool constructor_allowed(DK k, loader::ProgType t) {
    using loader::ProgType;
    if (k == DK::from_xdp)
        return t == ProgType::xdp;
    if (k != DK::from_skb)
        return true; // the common set: every program type
    switch (t) {
    case ProgType::sched_cls:
    case ProgType::sched_act:
    case ProgType::sk_skb:
    case ProgType::socket_filter:
    case ProgType::cgroup_skb:
    case ProgType::lwt_out:
    case ProgType::lwt_in:
    case ProgType::lwt_xmit:
    case ProgType::lwt_seg6local:
    case ProgType::netfilter:
    case ProgType::tracing: return true;
    default: return false;
    }
}

// What check_kfunc_args learns of the initialized dynptr arguments (meta->initialized_dynptr): the last one's.
struct KfuncMeta {
    DynptrRef dynptr;
    uint64_t const_size = 0;
    uint8_t buf_frame = 0; // a stack buffer argument's frame and offset (0: none)
    int16_t buf_off = 0;
};

// A tracing program's bpf_dynptr_from_skb takes the kernel's struct sk_buff (its __sk_buff argument is that type's
// ctx conversion), trusted and unmodified.
bool trusted_skb_arg(Env& env, int i, const Reg& r) {
    const btf_type* t = r.type == RegType::btf_id && r.btf ? btfv::type_by_id(r.btf, r.aux) : nullptr;
    const char* name = t ? btfv::name_by_offset(r.btf, t->name_off) : nullptr;
    if (!name || std::string_view(name) != "sk_buff" || !(r.btf_flags & kBtfTrusted) || r.off || !r.var.is_const() ||
        r.var.value)
        return env.fail(fmt::format("arg#{} expected pointer to ctx, but got {}", i, reg_type_str(r)));
    return true;
}

bool kfunc_ptr_arg(Env& env, const DynptrKfunc& k, int i, KfuncMeta* m) {
    const int regno = i + 1;
    const Reg& r = env.path.cur.cur().regs[regno];
    const PR p = k.params[size_t(i)];
    // check_kfunc_args' NULL check, before the argument's kind: from_skb's arguments are trusted (maybe-NULL
    // pointers too), a dynptr argument is never nullable
    const bool dynptr_param = p == PR::dynptr || p == PR::dynptr_uninit;
    if ((k.kind == DK::from_skb && r.maybe_null) || ((k.kind == DK::from_skb || dynptr_param) && is_null_const(r)))
        return env.fail(fmt::format("Possibly NULL pointer passed to trusted arg{}", i));
    if (p == PR::ctx && env.facts.prog.type == loader::ProgType::tracing) // a trusted struct sk_buff, not the ctx
        return trusted_skb_arg(env, i, r);
    if (p == PR::ctx) {
        if (r.type == RegType::ctx && !check_ctx_reg_off(env, regno))
            return false;
        if (r.type != RegType::ctx)
            return env.fail(fmt::format("arg#{} expected pointer to ctx, but got {}", i, reg_type_str(r)));
        return true;
    }
    if (p == PR::buf_opt) {
        const bool null = r.type == RegType::scalar && r.is_const() && r.var.value == 0;
        const uint64_t scratched = env.log.scratched_slots; // check_mem_size_reg writes no bytes: the log shows none
        const bool ok = null || check_kfunc_mem_size(env, regno + 1, regno);
        env.log.scratched_slots = scratched;
        if (!ok) { // the specific complaint is logged first
            env.log.reason = fmt::format("arg#{} arg#{} memory, len pair leads to invalid memory access", i, i + 1);
            env.note(env.log.reason);
            return false;
        }
        const Reg& sz = env.path.cur.cur().regs[regno + 1];
        if (!sz.var.is_const())
            return env.fail(fmt::format("R{} must be a known constant", regno + 1));
        m->const_size = sz.var.value;
        if (r.type == RegType::stack && r.var.is_const()) { // the slice may be this buffer
            m->buf_frame = r.frameno;
            m->buf_off = int16_t(r.off + int64_t(r.var.value));
        }
        return true;
    }
    // KF_ARG_PTR_TO_DYNPTR: check_func_arg_reg_off, then process_dynptr_func, which checks the register type
    // (6.18 has no check of its own here, so its words are process_dynptr_func's).
    if (r.type == RegType::dynptr && !check_const_dynptr_off(env, regno))
        return false;
    if (!check_arg_reg_off(env, r, regno, false)) // a modified ctx pointer, in check_func_arg_reg_off's words
        return false;
    DynptrArg a;
    a.rdonly = r.type == RegType::dynptr;
    a.uninit = p == PR::dynptr_uninit;
    uint32_t clone_ref = 0;
    if (a.uninit) {
        a.type = k.kind == DK::from_skb ? DynptrType::skb : k.kind == DK::from_xdp ? DynptrType::xdp : m->dynptr.type;
        clone_ref = k.kind == DK::clone ? m->dynptr.ref_obj_id : 0;
    }
    if (!process_dynptr(env, regno, a, clone_ref, "const struct bpf_dynptr"))
        return false;
    if (!a.uninit)
        m->dynptr = dynptr_of_reg(env, regno);
    return true;
}

bool kfunc_args(Env& env, const DynptrKfunc& k, KfuncMeta* m) {
    for (int i = 0; i < 5 && k.params[size_t(i)] != PR::none; i++) {
        const int regno = i + 1;
        if (!check_reg_init(env, regno))
            return false;
        if (k.params[size_t(i)] == PR::scalar) {
            if (env.path.cur.cur().regs[regno].type != RegType::scalar)
                return env.fail(fmt::format("R{} is not a scalar", regno));
            continue;
        }
        if (!kfunc_ptr_arg(env, k, i, m))
            return false;
        if (k.params[size_t(i)] == PR::buf_opt)
            i++; // its size was checked with it
    }
    return true;
}

} // namespace

const char* dynptr_type_str(DynptrType t) {
    switch (t) {
    case DynptrType::local: return "local";
    case DynptrType::ringbuf: return "ringbuf";
    case DynptrType::skb: return "skb";
    case DynptrType::xdp: return "xdp";
    default: return "<invalid>";
    }
}

std::string dynptr_slot_str(const StackSlot& first) {
    const Reg& r = first.spilled;
    std::string inner;
    if (r.id)
        inner += fmt::format("id={}", r.id);
    if (r.ref_obj_id)
        inner += fmt::format("{}ref_id={}", inner.empty() ? "" : ",", r.ref_obj_id);
    // The kernel's slot register keeps a slice's dynptr_id in the same union word as first_slot, so the first slot
    // prints "dynptr_id=1".
    if (r.dynptr_first)
        inner += fmt::format("{}dynptr_id=1", inner.empty() ? "" : ",");
    return fmt::format("dynptr_{}({})", dynptr_type_str(r.dynptr), inner);
}

bool is_dynptr_arg_kind(ArgKind k) {
    return k == ArgKind::ptr_to_dynptr_local_uninit || k == ArgKind::ptr_to_dynptr_ringbuf_uninit ||
           k == ArgKind::ptr_to_dynptr_ringbuf_release || k == ArgKind::ptr_to_dynptr_rdonly;
}

DynptrRef dynptr_of_reg(const Env& env, int regno) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.type == RegType::dynptr)
        return {r.id, r.ref_obj_id, r.dynptr};
    const int spi = quiet_spi(env, r);
    if (spi < 0)
        return {};
    const Reg& s = env.path.cur.frames[r.frameno].stack[size_t(spi)].spilled;
    return {s.id, s.ref_obj_id, s.dynptr};
}

bool check_dynptr_helper_arg(Env& env, const runtime::HelperProto& h, int regno, ArgKind kind) {
    const Reg& r = env.path.cur.cur().regs[regno];
    (void)h;
    // check_reg_type's dynptr_types, then check_func_arg_reg_off (a const dynptr pointer as it was passed).
    if (r.type != RegType::stack && r.type != RegType::dynptr)
        return env.fail(fmt::format("R{} type={} expected=fp, dynptr_ptr", regno, reg_type_str(r)));
    if (r.type == RegType::dynptr && !check_const_dynptr_off(env, regno))
        return false;
    if (kind == ArgKind::ptr_to_dynptr_ringbuf_release) { // OBJ_RELEASE: only a dynptr the stack owns
        if (r.type != RegType::stack)
            return env.fail("cannot release unowned const bpf_dynptr");
        const int spi = dynptr_get_spi(env, r);
        if (spi < 0 || !env.path.cur.frames[r.frameno].stack[size_t(spi)].spilled.ref_obj_id)
            return env.fail(fmt::format("arg {} is an unacquired reference", regno));
    }
    return process_dynptr(env, regno, helper_dynptr_arg(kind), 0, "const struct bpf_dynptr");
}

bool finish_dynptr_helper_args(Env& env, const runtime::HelperProto& h) {
    for (int i = 0; i < 5; i++)
        if (h.args[size_t(i)] == ArgKind::ptr_to_dynptr_ringbuf_release &&
            !unmark_slots(env, env.path.cur.cur().regs[i + 1]))
            return false;
    if (h.id == 197 && env.path.cur.cur().regs[1].type != RegType::map_value) // bpf_dynptr_from_mem
        return env.fail(fmt::format("Unsupported reg type {} for bpf_dynptr_from_mem data",
                                    reg_type_str(env.path.cur.cur().regs[1])));
    return true;
}

bool dynptr_call_changes_pkt(const Env& env, const runtime::HelperProto& h) {
    return h.id == 202 && dynptr_of_reg(env, 1).type == DynptrType::skb; // bpf_dynptr_write
}

bool is_dynptr_kfunc(std::string_view name) { return dynptr_kfunc_of(name) != nullptr; }

std::string dynptr_kfunc_call_text(const Env& env, const isa::Insn& insn) {
    const auto& names = env.facts.inst.spec().kfuncs;
    if (insn.imm < 0 || size_t(insn.imm) >= names.size() || !is_dynptr_kfunc(names[size_t(insn.imm)]))
        return {};
    std::string error;
    bool running = false;
    BtfRef b = target_btf(&error, &running);
    const int id = b ? btfv::find_by_name_kind(b, names[size_t(insn.imm)].c_str(), BTF_KIND_FUNC) : -1;
    return id > 0 ? fmt::format("call {}#{}", names[size_t(insn.imm)], id) : std::string();
}

bool do_dynptr_kfunc(Env& env, const runtime::KfuncProto& proto) {
    const DynptrKfunc& k = *dynptr_kfunc_of(proto.name);
    if (!constructor_allowed(k.kind, env.facts.prog.type))
        return env.fail(fmt::format("calling kernel function {} is not allowed", k.name));
    KfuncMeta m;
    if (!kfunc_args(env, k, &m))
        return false;
    Frame& f = env.path.cur.cur();
    for (int i = 1; i <= 5; i++)
        f.regs[size_t(i)] = Reg{};
    f.regs[0] = reg_unknown();
    if (k.kind != DK::slice && k.kind != DK::slice_rdwr)
        return true;
    if (k.kind == DK::slice_rdwr && env.facts.variant.no_slice_rdwr) // a build that refuses it after its arguments
        return env.fail("bpf_dynptr_slice_rdwr() is not allowed");
    if (k.kind == DK::slice_rdwr && !packet_writable(env.facts.prog.type))
        return env.fail("the prog does not allow writes to packet data");
    Reg r0 = reg_ptr(RegType::mem, uint32_t(std::min<uint64_t>(m.const_size, kMaxVarSiz)));
    r0.rdonly = k.kind == DK::slice;
    r0.dynptr = m.dynptr.type; // the kernel's DYNPTR_TYPE_* flag on the slice
    r0.dynptr_id = m.dynptr.id;
    r0.ref_obj_id = m.dynptr.ref_obj_id; // Linux 6.18: a ring buffer dynptr's release invalidates its slices
    r0.buf_frame = m.buf_frame;
    r0.buf_off = m.buf_off;
    r0.maybe_null = true; // KF_RET_NULL
    r0.id = env.path.new_id();
    f.regs[0] = r0;
    return true;
}

bool destroy_dynptr_at(Env& env, int frameno, int spi) {
    Frame& f = env.path.cur.frames[size_t(frameno)];
    if (spi < 0 || size_t(spi) >= f.stack.size() || !is_dynptr_slot(f.stack[size_t(spi)]))
        return true;
    if (!f.stack[size_t(spi)].spilled.dynptr_first)
        spi++;
    if (size_t(spi) >= f.stack.size())
        return env.fail("verifier bug");
    if (f.stack[size_t(spi)].spilled.dynptr == DynptrType::ringbuf)
        return env.fail("cannot overwrite referenced dynptr");
    env.log.scratched_slots |= 3ull << (spi - 1);
    const uint32_t id = f.stack[size_t(spi)].spilled.id;
    clear_pair(f, spi);
    // Its slices: the kernel matches PTR_TO_MEM and PTR_TO_MEM | PTR_MAYBE_NULL exactly, so bpf_dynptr_data's
    // slices go and the kfuncs' (typed with the dynptr's type, or read-only) stay.
    invalidate_regs(env.path.cur, [id](const Reg& r) {
        return r.type == RegType::mem && !r.rdonly && !r.ringbuf && r.dynptr == DynptrType::invalid &&
               r.dynptr_id == id;
    });
    return true;
}

void invalidate_buffer_slices(State& st, int frameno, int64_t lo, int64_t hi) {
    const bool ret = lo == 0 && hi == 0;
    invalidate_regs(st, [&](const Reg& r) {
        if (r.type != RegType::mem || !r.buf_off || r.buf_frame != frameno)
            return false;
        return ret || (lo < int64_t(r.buf_off) + int64_t(r.aux) && int64_t(r.buf_off) < hi);
    });
}

bool dynptr_slots_equal(const StackSlot& o, const StackSlot& c) {
    return o.spilled.dynptr == c.spilled.dynptr && o.spilled.dynptr_first == c.spilled.dynptr_first;
}

bool is_dynptr_param(BtfRef b, const btf_type* t) {
    if (!b || !t || !btf_is_ptr(t))
        return false;
    const btf_type* p = btfv::type_by_id(b, t->type);
    while (p && (btf_is_mod(p) || btf_is_typedef(p))) // btf_type_is_modifier: typedefs too
        p = btfv::type_by_id(b, p->type);
    if (!p || !(btf_is_struct(p) || (btf_is_fwd(p) && !btf_kflag(p))))
        return false;
    const char* name = btfv::name_by_offset(b, p->name_off);
    return name && std::string_view(name) == "bpf_dynptr";
}

bool check_kfunc_dynptr_arg(Env& env, int regno) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.type == RegType::dynptr && !check_const_dynptr_off(env, regno))
        return false;
    if (!check_arg_reg_off(env, r, regno, false))
        return false;
    return process_dynptr(env, regno, {false, r.type == RegType::dynptr, DynptrType::invalid}, 0,
                          "const struct bpf_dynptr");
}

bool check_global_dynptr_arg(Env& env, int regno) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.type == RegType::dynptr && !check_const_dynptr_off(env, regno))
        return false;
    return process_dynptr(env, regno, {false, true, DynptrType::invalid}, 0, "const struct bpf_dynptr");
}

Reg callback_dynptr_reg(Env& env) {
    Reg r = reg_ptr(RegType::dynptr);
    r.dynptr = DynptrType::local;
    r.dynptr_first = true;
    r.id = env.path.new_id();
    return r;
}

Reg global_dynptr_reg(Env& env) {
    Reg r = reg_ptr(RegType::dynptr);
    r.dynptr = DynptrType::skb; // what Linux 6.18 gives it: its slices are packet slices (and print type=skb)
    r.dynptr_first = true;
    r.id = env.path.new_id();
    return r;
}

} // namespace strbpf::verifier
