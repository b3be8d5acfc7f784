// SPDX-License-Identifier: BSD-2-Clause
// Open-coded iterators (verifier stage): the kernel's KF_ITER_NEW / KF_ITER_NEXT / KF_ITER_DESTROY kfuncs of the
// numbers and bits iterators. An iterator lives in stack slots marked Slot::iter (the kernel's STACK_ITER) holding
// a reference from new() to destroy(); next() forks: the drained path (NULL, checked first) and the active one
// (a non-NULL int pointer, one iteration deeper, widened against the previous iteration), which a checkpoint at
// the next call closes (iter_loop.cpp). The kernel's process_iter_arg, mark_stack_slots_iter,
// is_iter_reg_valid_(un)init and process_iter_next_call, in the same order and words.
#include <array>
#include <fmt/format.h>
#include <string_view>

#include "verifier/domain/scalar.hpp"
#include "verifier/iter.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {
namespace {

enum class Role : uint8_t { new_, next, destroy };

struct IterType {
    const char* name; // iter_<name>, struct bpf_iter_<name>
    int nr_slots;     // sizeof(struct bpf_iter_<name>) / 8
};
constexpr std::array<IterType, 5> kIterTypes{
    {{"", 0}, {"num", 1}, {"bits", 2}, {"css_task", 1}, {"task_vma", 1}}}; // 0: none

struct IterKfunc {
    const char* kfunc;
    uint8_t type; // index in kIterTypes
    Role role;
};
// clang-format off
constexpr IterKfunc kIterKfuncs[] = {
    {"bpf_iter_num_new", 1, Role::new_}, {"bpf_iter_num_next", 1, Role::next}, {"bpf_iter_num_destroy", 1, Role::destroy},
    {"bpf_iter_bits_new", 2, Role::new_}, {"bpf_iter_bits_next", 2, Role::next}, {"bpf_iter_bits_destroy", 2, Role::destroy},
    // kernel objects (kfunc_btf_table.cpp, verify-only): arguments and the element typed by kernel BTF
    {"bpf_iter_css_task_new", 3, Role::new_}, {"bpf_iter_css_task_next", 3, Role::next}, {"bpf_iter_css_task_destroy", 3, Role::destroy},
    {"bpf_iter_task_vma_new", 4, Role::new_}, {"bpf_iter_task_vma_next", 4, Role::next}, {"bpf_iter_task_vma_destroy", 4, Role::destroy},
};
// clang-format on

const IterKfunc* iter_kfunc_of(std::string_view name) {
    for (const IterKfunc& k : kIterKfuncs)
        if (name == k.kfunc)
            return &k;
    return nullptr;
}

// stack_slot_obj_get_spi: the iterator's first slot, -ERANGE beyond the allocated stack, -EINVAL (logged) else.
constexpr int kErange = -34, kEinval = -22;
int iter_get_spi(Env& env, const Reg& r, int nr_slots) {
    if (!r.var.is_const()) {
        env.note("iter has to be at a constant offset");
        return kEinval;
    }
    const int64_t off = r.off + int64_t(r.var.value);
    const int64_t spi = (-off - 1) / 8;
    if (off % 8 || spi + 1 < nr_slots) {
        env.note(fmt::format("cannot pass in iter at an offset={}", off));
        return kEinval;
    }
    const Frame& f = env.path.cur.frames[r.frameno];
    if (spi - nr_slots + 1 < 0 || spi >= int64_t(f.stack.size()))
        return kErange;
    return int(spi);
}

bool slot_is_iter(const StackSlot& s) {
    for (Slot b : s.bytes)
        if (b != Slot::iter)
            return false;
    return true;
}

// is_iter_reg_valid_init: every slot an iterator of TYPE, the reference on the first one only.
bool valid_init(const Frame& f, int spi, uint8_t type, int nr_slots) {
    for (int i = 0; i < nr_slots; i++) {
        const StackSlot& s = f.stack[size_t(spi - i)];
        if (!slot_is_iter(s) || s.iter_kind != type || (i == 0) != (s.spilled.ref_obj_id != 0))
            return false;
    }
    return true;
}

bool iter_new(Env& env, const IterKfunc& k, const IterType& t) {
    const Reg r = env.path.cur.cur().regs[1];
    int spi = iter_get_spi(env, r, t.nr_slots);
    bool uninit = spi == kErange;
    if (spi >= 0) {
        uninit = true;
        for (int i = 0; i < t.nr_slots; i++)
            for (Slot b : env.path.cur.frames[r.frameno].stack[size_t(spi - i)].bytes)
                uninit = uninit && b != Slot::iter;
    }
    if (!uninit)
        return env.fail(fmt::format("expected uninitialized iter_{} as arg #0", t.name));
    for (int i = 0; i < t.nr_slots * 8; i += 8)
        if (!check_mem_access(env, 1, i, 8, Access::write, -1))
            return false;
    spi = iter_get_spi(env, r, t.nr_slots);
    if (spi < 0)
        return env.fail(fmt::format("expected uninitialized iter_{} as arg #0", t.name));
    const uint32_t id = acquire_reference(env, env.path.pc);
    Frame& f = env.path.cur.frames[r.frameno];
    for (int i = 0; i < t.nr_slots; i++) {
        StackSlot& s = f.stack[size_t(spi - i)];
        s.bytes.fill(Slot::iter);
        s.spilled = Reg{};
        s.spilled.ref_obj_id = i == 0 ? id : 0;
        s.iter_kind = k.type;
        s.iter_state = IterState::active;
        s.iter_depth = 0;
        env.log.scratched_slots |= 1ull << (spi - i);
    }
    return true;
}

// next: the kernel's process_iter_next_call. The current path continues drained with R0 = 0; an active iterator
// also forks the path where R0 is the next element ELEM (handed to the walker as a pending path).
bool iter_next(Env& env, int spi, uint8_t frameno, const Reg& elem) {
    Frame& f = env.path.cur.frames[frameno];
    env.log.scratched_slots |= 1ull << spi; // the log shows the iterator after the call
    if (f.stack[size_t(spi)].iter_state == IterState::active) {
        State queued = env.path.cur;
        StackSlot& qs = queued.frames[frameno].stack[size_t(spi)];
        qs.iter_depth++;
        if (const StoredState* prev = find_prev_entry(env, env.path.cur))
            widen_imprecise_scalars(prev->st, queued);
        queued.cur().regs[0] = elem;
        env.path.fork = Fork{Fork::Kind::path, std::move(queued), env.path.pc + 1};
    }
    f.stack[size_t(spi)].iter_state = IterState::drained;
    env.path.cur.cur().regs[0] = reg_const(0);
    return true;
}

bool iter_destroy(Env& env, int spi, const Reg& r, int nr_slots) {
    Frame& f = env.path.cur.frames[r.frameno];
    const uint32_t id = f.stack[size_t(spi)].spilled.ref_obj_id;
    for (int i = 0; i < nr_slots; i++) {
        StackSlot& s = f.stack[size_t(spi - i)];
        s = StackSlot{};
        env.log.scratched_slots |= 1ull << (spi - i);
    }
    release_reference(env, id);
    return true;
}

// The scalar arguments after the iterator (check_kfunc_args: "R%d is not a scalar").
bool scalar_args(Env& env, const runtime::KfuncProto& proto) {
    for (int i = 1; i < proto.nparams; i++) {
        const std::string_view name = proto.params[i].name ? proto.params[i].name : "";
        if (name.size() > 5 && name.substr(name.size() - 5) == "__ign")
            continue;
        if (env.path.cur.cur().regs[i + 1].type != RegType::scalar)
            return env.fail(fmt::format("R{} is not a scalar", i + 1));
    }
    return true;
}

// check_css_task_iter_allowlist: lsm and iter programs, else only sleepable ones.
bool css_task_iter_allowed(const Env& env) {
    if (env.facts.prog.type == loader::ProgType::lsm)
        return true;
    if (env.facts.prog.type == loader::ProgType::tracing &&
        env.facts.prog.expected_attach_type == loader::AttachType::trace_iter)
        return true;
    return env.path.cur.in_sleepable;
}

// The iterator's arguments after arg 0: the numbers and bits iterators' scalars (PROTO), or a kernel-object
// iterator's arguments checked against its kernel BTF prototype (KB).
bool rest_args(Env& env, const runtime::KfuncProto* proto, const KfuncBtf* kb) {
    if (proto)
        return scalar_args(env, *proto);
    for (int i = 1; i < 5; i++)
        if (!check_kfunc_btf_arg(env, *kb, i))
            return false;
    return true;
}

bool do_iter(Env& env, std::string_view name, const runtime::KfuncProto* proto, const KfuncBtf* kb) {
    const IterKfunc& k = *iter_kfunc_of(name);
    const IterType& t = kIterTypes[k.type];
    const Reg r = env.path.cur.cur().regs[1];
    if (is_null_const(r)) // check_kfunc_args' NULL check, first
        return env.fail("Possibly NULL pointer passed to trusted arg0");
    if (!check_arg_reg_off(env, r, 1, false)) // check_func_arg_reg_off: a modified ctx pointer, in its words
        return false;
    if (r.type != RegType::stack)
        return env.fail("arg#0 expected pointer to an iterator on stack");
    int spi = -1;
    if (k.role == Role::new_ && t.name == std::string_view("css_task") && !css_task_iter_allowed(env))
        return env.fail("css_task_iter is only allowed in bpf_lsm, bpf_iter and sleepable progs");
    if (k.role == Role::new_) {
        if (!iter_new(env, k, t))
            return false;
    } else {
        spi = iter_get_spi(env, r, t.nr_slots);
        if (spi < 0 || !valid_init(env.path.cur.frames[r.frameno], spi, k.type, t.nr_slots))
            return env.fail(fmt::format("expected an initialized iter_{} as arg #0", t.name));
    }
    if (!rest_args(env, proto, kb))
        return false;
    Reg elem = reg_ptr(RegType::mem, 4); // the numbers and bits iterators' int *, not NULL
    if (k.role == Role::next && kb && !kfunc_btf_trusted_result(env, *kb, &elem))
        return false;
    if (k.role == Role::destroy)
        iter_destroy(env, spi, r, t.nr_slots);
    for (int i = 1; i <= 5; i++)
        env.path.cur.cur().regs[i] = Reg{};
    env.path.cur.cur().regs[0] = k.role == Role::new_ ? reg_unknown() : Reg{};
    return k.role == Role::next ? iter_next(env, spi, r.frameno, elem) : true;
}

} // namespace

bool is_iter_kfunc(std::string_view name) { return iter_kfunc_of(name) != nullptr; }

bool is_iter_next_call(const Env& env, const isa::Insn& insn) {
    const auto& names = env.facts.inst.spec().kfuncs;
    if (insn.src != isa::BPF_PSEUDO_KFUNC_CALL || insn.imm < 0 || size_t(insn.imm) >= names.size())
        return false;
    const IterKfunc* k = iter_kfunc_of(names[size_t(insn.imm)]);
    return k && k->role == Role::next;
}

bool iter_arg_active(const State& cur) {
    const Reg& r = cur.cur().regs[1];
    if (r.type != RegType::stack || !r.var.is_const() || r.frameno >= cur.frames.size())
        return false;
    const int64_t spi = (-(r.off + int64_t(r.var.value)) - 1) / 8;
    const auto& stack = cur.frames[r.frameno].stack;
    return spi >= 0 && size_t(spi) < stack.size() && stack[size_t(spi)].bytes[0] == Slot::iter &&
           stack[size_t(spi)].iter_state == IterState::active;
}

bool do_iter_btf_kfunc(Env& env, std::string_view name) {
    const KfuncBtf* kb = find_kfunc_btf(name);
    return kb && kfunc_btf_usable(env, *kb) && do_iter(env, name, nullptr, kb);
}

bool do_iter_kfunc(Env& env, const runtime::KfuncProto& proto) { return do_iter(env, proto.name, &proto, nullptr); }

std::string iter_slot_str(const StackSlot& s) {
    const char* state = s.iter_state == IterState::active    ? "active"
                        : s.iter_state == IterState::drained ? "drained"
                                                             : "<invalid>";
    const char* type = s.iter_kind < kIterTypes.size() ? kIterTypes[s.iter_kind].name : "";
    return fmt::format("iter_{}(ref_id={},state={},depth={})", type, s.spilled.ref_obj_id, state, s.iter_depth);
}

bool iter_slots_equal(const StackSlot& o, const StackSlot& c) {
    return o.iter_kind == c.iter_kind && o.iter_state == c.iter_state;
}

} // namespace strbpf::verifier
