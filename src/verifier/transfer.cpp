// SPDX-License-Identifier: BSD-2-Clause
// Transfer functions (verifier stage): how ALU instructions, loads, stores, atomics and ld_imm64 change the
// abstract state, including the kernel's pointer arithmetic rules.
#include <algorithm>
#include <fmt/format.h>

#include "verifier/alloc_obj.hpp"
#include "verifier/arena.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/env.hpp"
#include "verifier/preempt.hpp"
#include "verifier/sock.hpp"
#include "verifier/ksym.hpp"

namespace strbpf::verifier {
namespace {

using isa::Sem;
using isa::Shape;

const char* alu_name(Sem s) {
    switch (s) {
    case Sem::add: return "+=";
    case Sem::sub: return "-=";
    case Sem::mul: return "*=";
    case Sem::div:
    case Sem::sdiv: return "/=";
    case Sem::or_: return "|=";
    case Sem::and_: return "&=";
    case Sem::lsh: return "<<=";
    case Sem::rsh: return ">>=";
    case Sem::neg: return "neg";
    case Sem::mod:
    case Sem::smod: return "%=";
    case Sem::xor_: return "^=";
    case Sem::mov: return "=";
    case Sem::arsh: return "s>>=";
    default: return "?";
    }
}

// The kernel's check_reg_sane_offset.
bool sane_offset(Env& env, const Reg& r, const Reg& ptr) {
    const std::string tn = reg_type_str(ptr);
    const int64_t val = int64_t(r.var.value);
    const int64_t lim = int64_t(kMaxVarOff);
    if (r.var.is_const() && (val >= lim || val <= -lim))
        return env.fail(fmt::format("math between {} pointer and {} is not allowed", tn, val));
    if (r.off >= lim || r.off <= -lim)
        return env.fail(fmt::format("{} pointer offset {} is not allowed", tn, r.off));
    if (r.smin == std::numeric_limits<int64_t>::min())
        return env.fail(
            fmt::format("math between {} pointer and register with unbounded min value is not allowed", tn));
    if (r.smin >= lim || r.smin <= -lim)
        return env.fail(fmt::format("value {} makes {} pointer be out of bounds", r.smin, tn));
    return true;
}

bool ptr_arith(Env& env, int dst, const Reg& ptr, const Reg& off, Sem sem, bool scalar_minus_ptr) {
    const std::string tn =
        ptr.type == RegType::map_ptr && ptr.maybe_null ? inner_lookup_type_name(env) : reg_type_str(ptr);
    if (ptr.maybe_null)
        return env.fail(fmt::format("R{} pointer arithmetic on {} prohibited, null-check it first", dst, tn));
    switch (ptr.type) {
    case RegType::ctx:
    case RegType::map_value:
    case RegType::stack:
    case RegType::packet:
    case RegType::packet_meta:
    case RegType::mem:
    case RegType::map_key:
    case RegType::btf_id:
    case RegType::dynptr:
    case RegType::tp_buffer:
    case RegType::func: break;
    case RegType::flow_keys: // a known offset only, kept in the fixed offset
        if (off.is_const())
            break;
        [[fallthrough]];
    case RegType::map_ptr:
        if (off.is_const() && off.var.value == 0 && sem == Sem::add)
            break;
        [[fallthrough]];
    default: return env.fail(fmt::format("R{} pointer arithmetic on {} prohibited", dst, tn));
    }
    // adjust_ptr_min_max_vals: the offsets' sanity first, then the operator.
    if (!sane_offset(env, off, ptr) || !sane_offset(env, ptr, ptr))
        return false;
    if (sem == Sem::and_ || sem == Sem::or_ || sem == Sem::xor_)
        return env.fail(fmt::format("R{} bitwise operator {} on pointer prohibited", dst, alu_name(sem)));
    if (sem != Sem::add && sem != Sem::sub)
        return env.fail(fmt::format("R{} pointer arithmetic with {} operator prohibited", dst, alu_name(sem)));
    if (sem == Sem::sub && scalar_minus_ptr)
        return env.fail(fmt::format("R{} tried to subtract pointer from scalar", dst));
    // Any subtraction from a stack pointer, even of a constant (JITs might not generate correct code for it).
    if (sem == Sem::sub && ptr.type == RegType::stack)
        return env.fail(fmt::format("R{} subtraction from stack pointer prohibited", dst));
    Reg out = ptr;
    const bool known = off.is_const();
    const int64_t k = int64_t(off.var.value);
    int64_t fixed = 0;
    if (known && !__builtin_add_overflow(int64_t(ptr.off), sem == Sem::add ? k : -k, &fixed) &&
        fixed == int64_t(int32_t(fixed))) {
        out.off = int32_t(fixed);
    } else {
        Reg var = ptr;
        var.type = RegType::scalar;
        pointer_offset_alu(var, off, sem);
        out.var = var.var;
        out.smin = var.smin, out.smax = var.smax, out.umin = var.umin, out.umax = var.umax;
        out.s32min = var.s32min, out.s32max = var.s32max, out.u32min = var.u32min, out.u32max = var.u32max;
        if (ptr.is_pkt()) {
            out.id = env.path.new_id();
            if (sem == Sem::add || off.smin < 0)
                out.aux = 0;
        }
    }
    if (!sane_offset(env, out, ptr))
        return false;
    env.path.cur.cur().regs[dst] = out;
    return true;
}

bool alu_mov(Env& env, const isa::OpInfo& op, const isa::Insn& insn) {
    auto& regs = env.path.cur.cur().regs;
    const bool is64 = op.shape == Shape::ALU64_K || op.shape == Shape::ALU64_X;
    if (op.shape == Shape::ALU64_K) {
        regs[insn.dst] = reg_const(uint64_t(int64_t(insn.imm)));
        return true;
    }
    if (op.shape == Shape::ALU32_K) {
        regs[insn.dst] = reg_const(uint32_t(insn.imm));
        return true;
    }
    Reg& src = regs[insn.src];
    if (op.sem != Sem::mov) { // movsx
        const int bytes = op.sem == Sem::movsx8 ? 1 : op.sem == Sem::movsx16 ? 2 : 4;
        Reg out;
        if (src.type != RegType::scalar) { // privileged: the pointer's bits, unknown ("sign-extension part of
            out = reg_unknown();            // pointer" is the unprivileged verdict)
            if (!is64)
                reg_zext32(out);
            regs[insn.dst] = out;
            return true;
        }
        // A source below the width's sign bit is copied exactly (check_alu_op's no_sext), so the copy stays tied.
        const bool no_sext = src.umax < (1ull << (bytes * 8 - 1));
        if (no_sext)
            assign_id_before_mov(env, src);
        scalar_movsx(out, src, bytes, is64);
        if (no_sext)
            out.id = src.id, out.link = src.link, out.off = src.off;
        regs[insn.dst] = out;
        return true;
    }
    if (is64) {
        assign_id_before_mov(env, src);
        regs[insn.dst] = src;
        return true;
    }
    // A 32-bit move copies the value exactly (and so stays tied to it) when the source fits in 32 bits.
    const bool fits = src.type == RegType::scalar && src.umax <= 0xffffffffull;
    if (fits)
        assign_id_before_mov(env, src);
    Reg out = src;
    if (out.type != RegType::scalar)
        out = reg_unknown();
    const Reg kept = out;
    reg_zext32(out);
    if (fits)
        out.id = kept.id, out.link = kept.link, out.off = kept.off;
    regs[insn.dst] = out;
    return true;
}

// After "dst OP= src" on scalars: dst stays tied to its old id's base when the op adds or subtracts a constant
// to an untied-so-far copy (the kernel's BPF_ADD_CONST64/32, so a later comparison refines both); else untied.
void update_scalar_link(Reg& dst, const Reg& before, const Reg& src, Sem sem, bool is64) {
    const bool src_const = is64 ? src.var.is_const() : tnum_subreg(src.var).is_const();
    if ((sem != Sem::add && sem != Sem::sub) || before.id == 0 || !src_const || before.link != Link::none ||
        (!is64 && before.umax > 0xffffffffull)) {
        clear_scalar_id(dst);
        return;
    }
    const uint64_t val = is64 ? src.var.value : uint64_t(uint32_t(src.var.value));
    int64_t off = is64 ? int64_t(val) : int64_t(int32_t(uint32_t(val)));
    if (off < INT32_MIN || off > INT32_MAX || (sem == Sem::sub && off == INT32_MIN)) {
        clear_scalar_id(dst);
        return;
    }
    if (sem == Sem::sub)
        off = -off;
    dst.id = before.id;
    dst.link = is64 ? Link::add64 : Link::add32;
    dst.off = int32_t(off);
}

} // namespace

// rX = rY of a scalar: both get one id (a new one unless Y has one); a Y tied by a constant delta is untied
// first, as the kernel keeps one delta per register.
void assign_id_before_mov(Env& env, Reg& src) {
    if (src.type != RegType::scalar)
        return;
    if (src.link != Link::none)
        clear_scalar_id(src);
    if (src.id == 0 && !src.var.is_const())
        src.id = env.path.new_id();
}

// maybe_fork_scalars: a scalar known to be 0 or -1 (in 64 bits, else in its low 32), ANDed or ORed with a
// constant, is the compiler's branchless select (`x s>> 63` then a mask). The kernel walks both values: a path
// that executes this insn again with the register 0 is pushed, and this one goes on with it all ones.
static void fork_sign_mask(Env& env, const isa::Insn& insn, Reg& dst) {
    bool low32;
    if (dst.smin == -1 && dst.smax == 0)
        low32 = false;
    else if (dst.s32min == -1 && dst.s32max == 0)
        low32 = true;
    else
        return;
    env.path.fork = Fork{Fork::Kind::again, env.path.cur, env.path.pc};
    Reg& zero = env.path.fork->st.cur().regs[insn.dst];
    auto low_known = [](Reg& r, uint32_t v) {
        r.var = tnum_with_subreg(r.var, Tnum::constant(v));
        r.u32min = r.u32max = v;
        r.s32min = r.s32max = int32_t(v);
    };
    if (low32) {
        low_known(zero, 0);
        low_known(dst, 0xffffffffu);
    } else {
        mark_known(zero, 0);
        mark_known(dst, ~0ull);
    }
}

bool do_alu(Env& env, const isa::OpInfo& op, const isa::Insn& insn) {
    auto& regs = env.path.cur.cur().regs;
    const bool is_x = op.shape == Shape::ALU64_X || op.shape == Shape::ALU32_X;
    const bool is64 = op.shape == Shape::ALU64_K || op.shape == Shape::ALU64_X || op.shape == Shape::NEG64 ||
                      (op.shape == Shape::END && (op.sem == Sem::bswap16 || op.sem == Sem::bswap32 ||
                                                  op.sem == Sem::bswap64));
    if (op.sem == Sem::addr_space_cast)
        return do_addr_space_cast(env, insn); // arena.cpp
    if (is_x && !check_reg_init(env, insn.src))
        return false;
    const bool is_mov = op.sem == Sem::mov || op.sem == Sem::movsx8 || op.sem == Sem::movsx16 || op.sem == Sem::movsx32;
    if (is_mov)
        return alu_mov(env, op, insn);
    if (!check_reg_init(env, insn.dst))
        return false;
    Reg& dst = regs[insn.dst];
    if ((op.shape == Shape::END || op.shape == Shape::NEG64 || op.shape == Shape::NEG32) &&
        dst.type != RegType::scalar) {
        dst = reg_unknown(); // check_alu_op: a privileged program's pointer becomes an unknown scalar (DST_OP)
        return true;
    }
    if (op.shape == Shape::END) {
        scalar_bswap(dst, op.sem);
        clear_scalar_id(dst);
        return true;
    }
    if (op.shape == Shape::NEG64 || op.shape == Shape::NEG32) {
        if (is64)
            scalar_alu64(dst, dst, Sem::neg);
        else
            scalar_alu32(dst, dst, Sem::neg);
        clear_scalar_id(dst);
        return true;
    }
    const Reg src = is_x ? regs[insn.src] : reg_const(is64 ? uint64_t(int64_t(insn.imm)) : uint32_t(insn.imm));
    if (!is_x) {
        const int width = is64 ? 64 : 32;
        if ((op.sem == Sem::lsh || op.sem == Sem::rsh || op.sem == Sem::arsh) && (insn.imm < 0 || insn.imm >= width))
            return env.fail(fmt::format("invalid shift {}", insn.imm));
        if ((op.sem == Sem::div || op.sem == Sem::mod || op.sem == Sem::sdiv || op.sem == Sem::smod) && insn.imm == 0)
            return env.fail("div by zero"); // check_alu_op's words
    }
    if (dst.type == RegType::arena || src.type == RegType::arena) {
        arena_alu(env, insn, is64); // arena.cpp: any op, an arena pointer out
        return true;
    }
    if (dst.type != RegType::scalar || src.type != RegType::scalar) {
        if (!is64) {
            if (op.sem == Sem::sub) {
                regs[insn.dst] = reg_unknown();
                reg_zext32(regs[insn.dst]);
                return true;
            }
            return env.fail(fmt::format("R{} 32-bit pointer arithmetic prohibited", insn.dst));
        }
        if (dst.type != RegType::scalar && src.type != RegType::scalar) {
            if (op.sem == Sem::sub) {
                regs[insn.dst] = reg_unknown();
                return true;
            }
            return env.fail(fmt::format("R{} pointer {} pointer prohibited", insn.dst, alu_name(op.sem)));
        }
        // The pointer's bounds rest on the scalar's: it must be known exactly wherever it came from.
        if (dst.type != RegType::scalar) {
            if (is_x)
                mark_reg_precise(env, insn.src);
            return ptr_arith(env, insn.dst, dst, src, op.sem, false);
        }
        mark_reg_precise(env, insn.dst);
        return ptr_arith(env, insn.dst, src, dst, op.sem, true);
    }
    if ((op.sem == Sem::and_ || op.sem == Sem::or_) && src.var.is_const())
        fork_sign_mask(env, insn, dst);
    const Reg before = dst;
    if (is64)
        scalar_alu64(dst, src, op.sem);
    else
        scalar_alu32(dst, src, op.sem);
    update_scalar_link(dst, before, src, op.sem, is64);
    return true;
}

// The kernel's save_aux_ptr_type: one insn may access memory through different pointer types on different paths,
// unless one of them is ctx or a socket (whose accesses the kernel rewrites per insn, for one type), an arena or a
// kernel object (PTR_TO_BTF_ID: the kernel's probe load, which engines run per insn). A bpf_obj_new object (a
// PTR_TO_BTF_ID | MEM_ALLOC to the kernel) is plain memory to the engines: recorded as RegType::mem, its pc kept in
// insn_alloc, and no other type may share the insn.
static bool save_aux_ptr_type(Env& env, const Reg& r) {
    const bool alloc = is_alloc_obj(r);
    const RegType type = alloc ? RegType::mem : r.type;
    RegType& prev = env.aux.insn_ptr_type[size_t(env.path.pc)];
    auto& allocs = env.aux.insn_alloc;
    const bool prev_alloc = std::find(allocs.begin(), allocs.end(), env.path.pc) != allocs.end();
    const auto per_insn = [](RegType t) {
        return t == RegType::ctx || is_sock_type(t) || t == RegType::arena || t == RegType::btf_id;
    };
    if (prev == RegType::not_init) {
        prev = type;
        if (alloc)
            allocs.push_back(env.path.pc);
    } else if (alloc != prev_alloc || (prev != type && (per_insn(prev) || per_insn(type)))) {
        return env.fail("same insn cannot be used with different pointers");
    } else if (prev != type && (prev == RegType::map_ptr || type == RegType::map_ptr)) { // the kernel allows this
        return env.fail("strbpf does not model one load through a map pointer and another pointer type (it "
                        "rewrites a load through a map pointer as a read of the map's kernel-object view)");
    }
    return true;
}

bool do_load_store(Env& env, const isa::OpInfo& op, const isa::Insn& insn) {
    const int size = isa::access_size(op);
    switch (op.shape) {
    case Shape::LDX:
    case Shape::LDSX: {
        if (!check_reg_init(env, insn.src))
            return false;
        const Reg src_reg = env.path.cur.cur().regs[insn.src]; // before the load may overwrite it
        return check_mem_access(env, insn.src, insn.off, size, Access::read, insn.dst, op.shape == Shape::LDSX) &&
               save_aux_ptr_type(env, src_reg);
    }
    case Shape::ST:
        if (!check_reg_init(env, insn.dst))
            return false;
        return check_mem_access(env, insn.dst, insn.off, size, Access::write, -2) &&
               save_aux_ptr_type(env, env.path.cur.cur().regs[insn.dst]);
    case Shape::STX:
        if (!check_reg_init(env, insn.src) || !check_reg_init(env, insn.dst))
            return false;
        return check_mem_access(env, insn.dst, insn.off, size, Access::write, insn.src) &&
               save_aux_ptr_type(env, env.path.cur.cur().regs[insn.dst]);
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW: {
        if (!check_reg_init(env, insn.src) || !check_reg_init(env, insn.dst))
            return false;
        if (insn.imm == isa::BPF_CMPXCHG && !check_reg_init(env, 0))
            return false;
        const Reg& d = env.path.cur.cur().regs[insn.dst];
        const bool arena_fetch_bitop = insn.imm == (isa::BPF_FETCH | 0x40) || insn.imm == (isa::BPF_FETCH | 0x50) ||
                                       insn.imm == (isa::BPF_FETCH | 0xa0); // x86-64's JIT lacks them in arenas
        if (d.type == RegType::ctx || d.is_pkt() || d.type == RegType::flow_keys || is_sock_type(d.type) ||
            (d.type == RegType::arena && arena_fetch_bitop))
            return env.fail(fmt::format("BPF_ATOMIC stores into R{} {} is not allowed", insn.dst,
                                        reg_type_str(d)));
        // check_atomic_rmw: a read, then for a fetch a second read into the loading register (a stack slot
        // fills it as a load would: a zeroed slot gives 0, a spilled register itself), then the write.
        // The loading register is marked written first (check_reg_arg DST_OP), so it cannot also be the address.
        const int load_reg = insn.imm == isa::BPF_CMPXCHG ? 0 : (insn.imm & isa::BPF_FETCH) ? int(insn.src) : -1;
        if (load_reg >= 0)
            env.path.cur.cur().regs[load_reg] = reg_unknown();
        if (!check_mem_access(env, insn.dst, insn.off, size, Access::read, -1, false, true))
            return false;
        if (load_reg >= 0 && !check_mem_access(env, insn.dst, insn.off, size, Access::read, load_reg, false, true))
            return false;
        // Only an arena destination is recorded (the kernel's BPF_PROBE_ATOMIC); other atomics keep their form.
        const Reg& dst_reg = env.path.cur.cur().regs[insn.dst];
        if (dst_reg.type == RegType::arena && !save_aux_ptr_type(env, dst_reg))
            return false;
        return check_mem_access(env, insn.dst, insn.off, size, Access::write, -1, false, true);
    }
    case Shape::LD_ABS:
    case Shape::LD_IND: {
        auto& regs = env.path.cur.cur().regs;
        // check_ld_abs's order: only the __sk_buff program types (may_access_skb), then the implicit R6, then the
        // explicit source of LD_IND.
        const loader::ProgType t = env.facts.prog.type;
        if (t != loader::ProgType::socket_filter && t != loader::ProgType::sched_cls &&
            t != loader::ProgType::sched_act)
            return env.fail("BPF_LD_[ABS|IND] instructions not allowed for this program type");
        if (!check_reg_init(env, 6))
            return false;
        // The load may end the program at run time: no reference may be held (check_resource_leak).
        if (!check_lock_leak(env, "BPF_LD_[ABS|IND]", false) || !check_reference_leak(env, "BPF_LD_[ABS|IND]") ||
            !check_region_leak(env, "BPF_LD_[ABS|IND]"))
            return false;
        if (regs[6].type != RegType::ctx)
            return env.fail("at the time of BPF_LD_ABS|IND R6 != pointer to skb");
        if (op.shape == Shape::LD_IND && !check_reg_init(env, insn.src))
            return false;
        for (int r = 1; r <= 5; r++)
            regs[r] = Reg{};
        regs[0] = reg_unknown(); // check_ld_abs: all 64 bits unknown, whatever the load's width
        if (env.path.cur.frames.size() == 1)
            return true;
        // In a subprogram a failed load returns 0 from it (bpf_gen_ld_abs's hidden exit), and the kernel explores
        // that first: the load's success goes on as a pending path, this one (R0 = 0) exits (the walker).
        env.path.fork = Fork{Fork::Kind::ld_abs, env.path.cur, env.path.pc + 1};
        regs[0] = reg_const(0);
        return true;
    }
    default: return env.fail("unknown insn class");
    }
}

bool do_ld_imm64(Env& env, const isa::OpInfo& op, const isa::Insn& insn) {
    (void)op;
    auto& regs = env.path.cur.cur().regs;
    const isa::Insn& hi = env.facts.insns[env.path.pc + 1];
    switch (insn.src) {
    case 0:
        regs[insn.dst] = reg_const(uint64_t(uint32_t(insn.imm)) | (uint64_t(uint32_t(hi.imm)) << 32));
        return true;
    case isa::BPF_PSEUDO_MAP_FD:
    case isa::BPF_PSEUDO_MAP_IDX:
    case isa::BPF_PSEUDO_MAP_VALUE:
    case isa::BPF_PSEUDO_MAP_IDX_VALUE: {
        const loader::MapSpec* spec = env.facts.map_spec(uint32_t(insn.imm));
        if (insn.imm < 0 || !spec)
            return env.fail(fmt::format("fd {} is not pointing to valid bpf_map", insn.imm));
        if (insn.src == isa::BPF_PSEUDO_MAP_FD || insn.src == isa::BPF_PSEUDO_MAP_IDX) {
            regs[insn.dst] = reg_ptr(RegType::map_ptr, uint32_t(insn.imm));
            return true;
        }
        if (spec->type == loader::kMapArena) { // a global of `.addr_space.1`: its user address, a scalar
            regs[insn.dst] = reg_unknown();
            return true;
        }
        if (spec->type != loader::kMapArray || spec->max_entries != 1)
            return env.fail("no direct value access support for this map type");
        if (uint32_t(hi.imm) >= spec->value_size)
            return env.fail(fmt::format("direct value offset of {} is not allowed", uint32_t(hi.imm)));
        regs[insn.dst] = reg_ptr(RegType::map_value, uint32_t(insn.imm), hi.imm);
        return true;
    }
    case isa::BPF_PSEUDO_FUNC:
        if (env.facts.subprogs[size_t(env.facts.subprog_of(env.path.pc + insn.imm + 1))].global)
            return env.fail("callback function not static");
        regs[insn.dst] = reg_ptr(RegType::func, uint32_t(env.path.pc + insn.imm + 1));
        return true;
    case isa::BPF_PSEUDO_BTF_ID: return do_ksym_ld_imm64(env, insn);
    default: return env.fail(fmt::format("unsupported ld_imm64 pseudo form src={}", insn.src));
    }
}

} // namespace strbpf::verifier
