// SPDX-License-Identifier: BSD-2-Clause
// The interpreter's dispatch loop (exec stage): one computed-goto label per row of isa/opcodes.def, its body
// generated from the row's shape and sem; the semantics live in alu_ops.hpp, jmp_ops.hpp and atomic_ops.hpp.
// Forms sharing an opcode byte (div/sdiv, mov/movsx, byte swaps, atomics, ld_imm64, calls) dispatch to the
// value-0 form, which hands any other field value to L_RESOLVE; opcodes without a value-0 form go there directly.
#include <cstring>

#include "exec/interp/alu_ops.hpp"
#include "exec/interp/atomic_ops.hpp"
#include "exec/interp/jmp_ops.hpp"
#include "exec/interp/machine.hpp"
#include "isa/opcodes.hpp"
#include "runtime/ctx_model.hpp"
#include "runtime/extensions.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf::exec::interp {
namespace {

// Access types named after the table's sem column (LDX/ST/STX: u8..u64; LDSX: s8..s32).
using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;
using s8 = int8_t;
using s16 = int16_t;
using s32 = int32_t;

// A program's plain load or store. Map values and arena pages are shared between concurrent runs, where one run's
// plain load may meet another's atomic (a compare-and-swap loop reads its counter so), as the kernel's plain moves
// do: an aligned access is a relaxed host atomic (the same single move, with no data race in the C++ sense); an
// unaligned one, which the host does in pieces anyway, is copied.
template <class T> inline T load(uint64_t a) {
    if (a % sizeof(T) == 0)
        return __atomic_load_n(reinterpret_cast<const T*>(a), __ATOMIC_RELAXED);
    T v;
    std::memcpy(&v, reinterpret_cast<const void*>(a), sizeof v);
    return v;
}
template <class T> inline void store(uint64_t a, T v) {
    if (a % sizeof(T) == 0)
        __atomic_store_n(reinterpret_cast<T*>(a), v, __ATOMIC_RELAXED);
    else
        std::memcpy(reinterpret_cast<void*>(a), &v, sizeof v);
}

// A 32-bit arena fetch, exchange or compare-exchange on a page not allocated: the register it loads keeps its low
// half and its upper half is cleared, as the verifier assumes of a 32-bit load (the kernel's x86-64 JIT clears it
// after cmpxchg only: strbpf does not let an upper half the verifier takes for zero reach the program).
inline void arena_atomic_miss_w(const isa::Insn& i, uint64_t* reg) {
    if (i.imm == isa::BPF_CMPXCHG)
        reg[0] = uint32_t(reg[0]);
    else if (i.imm & isa::BPF_FETCH)
        reg[i.src] = uint32_t(reg[i.src]);
}

struct SubForm {
    isa::Field field;
    int32_t value;
    const void* label;
};

struct Tables {
    const void* by_opcode[256];
    SubForm subs[isa::kNumOps];
    uint16_t first[256];
    uint16_t count[256];
};

inline int32_t field_of(isa::Field f, const isa::Insn& i) {
    return f == isa::Field::OFF ? i.off : f == isa::Field::IMM ? i.imm : f == isa::Field::SRC ? i.src : 0;
}

// labels[k] is the handler of op_table()[k].
Tables build_tables(const void* const* labels, const void* resolve, const void* invalid) {
    Tables t{};
    const auto ops = isa::op_table();
    for (auto& p : t.by_opcode)
        p = invalid;
    uint16_t k = 0;
    for (unsigned opc = 0; opc < 256; opc++) {
        const auto forms = isa::forms_of(uint8_t(opc));
        if (forms.empty())
            continue;
        t.first[opc] = k;
        t.count[opc] = uint16_t(forms.size());
        const void* direct = resolve;
        for (const isa::OpInfo& f : forms) {
            const void* label = labels[&f - ops.data()];
            t.subs[k++] = SubForm{f.field, f.value, label};
            if (f.field == isa::Field::NONE || f.value == 0)
                direct = label;
        }
        t.by_opcode[opc] = direct;
    }
    return t;
}

bool refill_impl(const runtime::RunMemory& mem, CachedRegion* c, uint64_t a, uint64_t n, uint8_t need,
                 uint8_t cacheable) {
    const runtime::Region* r = mem.find(a);
    if (!r || (r->perms & need) != need || !r->contains(a, n))
        return false;
    if ((r->perms & cacheable) == cacheable) {
        c[1] = c[0];
        c[0] = CachedRegion{r->base, r->size};
    }
    return true;
}

// The bytes a load or store of OPCODE moves (its BPF_SIZE field).
int ldst_size(uint8_t opcode) {
    const uint8_t sz = opcode & 0x18;
    return sz == isa::BPF_B ? 1 : sz == isa::BPF_H ? 2 : sz == isa::BPF_W ? 4 : 8;
}

// The verifier's facts of IP when the checked run is running the verified program's own code (a tail call's
// target runs as written: none), else nullptr.
const verifier::InsnFacts* verified_facts(const EngineState& st, const isa::Insn* ip) {
    if (!st.source || st.code != st.source->insns.data())
        return nullptr;
    const auto pc = size_t(ip - st.code);
    return pc < st.source->facts.size() ? &st.source->facts[pc] : nullptr;
}

// A load of the verified program the checked run is running that the verifier typed PTR_TO_BTF_ID: the kernel's
// BPF_PROBE_MEM load, which reads 0 where it faults.
bool probe_load(const EngineState& st, const isa::Insn* ip) {
    const verifier::InsnFacts* f = verified_facts(st, ip);
    return f && f->mem == verifier::MemKind::btf_id && isa::insn_class(ip->opcode) == isa::BPF_LDX;
}

// The exception callback a throw runs in the program running now (after a tail call, the target's): the
// verified program's own (VerifiedProgram::exception_cb), or the one an unverified program's tag names
// (interpreter.cpp); nullptr for the default callback (R0 = the cookie).
const isa::Insn* exception_callback(const EngineState& st, const runtime::RunContext& ctx) {
    if (!st.source || st.code != st.source->insns.data())
        return unverified_exception_callback(ctx, st.code, st.size);
    return st.source->exception_cb < 0 ? nullptr : st.code + st.source->exception_cb;
}

// A load the verifier made of a read through a map pointer (InsnOrigin::map_view): the map's view address from
// its slot in the map, then the field in the view (runtime/maps/kernel_view.hpp). Neither is program-visible
// memory; the verifier proved both, so a checked run of the verified program loads them as an unchecked one does.
bool map_view_load(const EngineState& st, const isa::Insn* ip, uint64_t addr, uint64_t* reg) {
    const verifier::InsnFacts* f = verified_facts(st, ip);
    if (!f || f->origin != verifier::InsnOrigin::map_view)
        return false;
    const size_t size = size_t(ldst_size(ip->opcode));
    uint64_t v = 0;
    std::memcpy(&v, reinterpret_cast<const void*>(addr), size);
    if ((ip->opcode & 0xe0) == isa::BPF_MEMSX && size < 8)
        v = uint64_t(int64_t(v << (64 - 8 * size)) >> (64 - 8 * size));
    reg[ip->dst] = v;
    return true;
}

// The checked interpreter runs programs as written: an access that missed every region may be a uAPI ctx access
// (xdp_md, __sk_buff) on the run's ctx model, whose region grants nothing so that every access comes here. True:
// done as the verifier's rewrite would have done it (runtime/ctx_model.hpp).
bool emulate_ctx_access(const runtime::RunContext& ctx, const isa::Insn& in, uint64_t addr, uint64_t* reg) {
    const runtime::Region* r = ctx.mem.find(addr);
    if (!ctx.ctx_model || !r || r->kind != runtime::RegionKind::ctx || r->perms != 0)
        return false;
    const auto model = runtime::CtxModel(ctx.ctx_model);
    auto* base = reinterpret_cast<uint8_t*>(r->base);
    const auto off = int32_t(addr - r->base);
    const int size = ldst_size(in.opcode);
    switch (isa::insn_class(in.opcode)) {
    case isa::BPF_LDX:
        return runtime::ctx_model_load(model, base, off, size, (in.opcode & 0xe0) == isa::BPF_MEMSX, &reg[in.dst]);
    case isa::BPF_ST:
        return (in.opcode & 0xe0) == isa::BPF_MEM &&
               runtime::ctx_model_store(model, base, off, size, true, uint64_t(int64_t(in.imm)));
    case isa::BPF_STX:
        return (in.opcode & 0xe0) == isa::BPF_MEM && runtime::ctx_model_store(model, base, off, size, false, reg[in.src]);
    default: return false;
    }
}

// LD_ABS/LD_IND on the checked interpreter (the verified program has them lowered to a helper call): R6 must be
// the skb model. *r0: the value, or -EFAULT when the bytes are not in the packet.
bool emulate_ld_abs(const runtime::RunContext& ctx, const isa::Insn& in, const uint64_t* reg, int64_t* r0) {
    const runtime::Region* r = ctx.mem.find(reg[6]);
    if (runtime::CtxModel(ctx.ctx_model) != runtime::CtxModel::skb || !r || r->kind != runtime::RegionKind::ctx ||
        r->base != reg[6])
        return false;
    const int size = (in.opcode & 0x18) == isa::BPF_B ? 1 : (in.opcode & 0x18) == isa::BPF_H ? 2 : 4;
    const int64_t off = (in.opcode & 0xe0) == isa::BPF_IND ? int64_t(reg[in.src]) + in.imm : in.imm;
    *r0 = runtime::skb_load_abs(*reinterpret_cast<const runtime::SkbModel*>(r->base), int32_t(off), size);
    return true;
}

} // namespace

bool MemCache::refill(CachedRegion* c, uint64_t a, uint64_t n, uint8_t need) {
    return refill_impl(mem_, c, a, n, need, c == rd_ ? uint8_t(runtime::kPermRead) : uint8_t(runtime::kPermRW));
}

namespace {

// ---- pieces of the generated handlers ------------------------------------------------------------------------
#define DST reg[ip->dst]
#define SRC reg[ip->src]
#define DISPATCH()                                                                                                     \
    do {                                                                                                               \
        if (kLimit && n >= limit)                                                                                      \
            goto L_LIMIT;                                                                                              \
        ++n;                                                                                                           \
        goto* tbl[ip->opcode];                                                                                         \
    } while (0)
#define NEXT()                                                                                                         \
    do {                                                                                                               \
        ++ip;                                                                                                          \
        DISPATCH();                                                                                                    \
    } while (0)
#define CHECK(ok_expr, a, len, fault)                                                                                  \
    if (!(ok_expr)) {                                                                                                  \
        fault_addr = a;                                                                                                \
        fault_size = len;                                                                                              \
        goto fault;                                                                                                    \
    }

// A value-0 form hands other values of its discriminating field to the resolver.
#define FORM_CHECK_NONE(v)
#define FORM_CHECK_OFF(v)                                                                                              \
    if ((v) == 0 && ip->off != 0)                                                                                      \
        goto L_RESOLVE;
#define FORM_CHECK_IMM(v)                                                                                              \
    if ((v) == 0 && ip->imm != 0)                                                                                      \
        goto L_RESOLVE;
#define FORM_CHECK_SRC(v)                                                                                              \
    if ((v) == 0 && ip->src != 0)                                                                                      \
        goto L_RESOLVE;

// ALU: K forms take imm sign-extended (64) or as u32 (32); 32-bit results are zero-extended by the assignment.
#define EXEC_ALU64_K(sem)                                                                                              \
    DST = alu::sem##_64(DST, uint64_t(int64_t(ip->imm)));                                                              \
    NEXT();
#define EXEC_ALU64_X(sem)                                                                                              \
    DST = alu::alu64_x(alu::sem##_64, DST, SRC, ip->imm);                                                              \
    NEXT();
#define EXEC_ALU32_K(sem)                                                                                              \
    DST = alu::sem##_32(uint32_t(DST), uint32_t(ip->imm));                                                             \
    NEXT();
#define EXEC_ALU32_X(sem)                                                                                              \
    DST = alu::sem##_32(uint32_t(DST), uint32_t(SRC));                                                                 \
    NEXT();
#define EXEC_NEG64(sem)                                                                                                \
    DST = 0 - DST;                                                                                                     \
    NEXT();
#define EXEC_NEG32(sem)                                                                                                \
    DST = uint32_t(0u - uint32_t(DST));                                                                                \
    NEXT();
#define EXEC_END(sem)                                                                                                  \
    DST = alu::sem(DST);                                                                                               \
    NEXT();

// Memory: every access is checked against ctx.mem (through the cache), unless the program was verified.
#define EXEC_LDX(T)                                                                                                    \
    {                                                                                                                  \
        const uint64_t a = SRC + uint64_t(int64_t(ip->off));                                                           \
        CHECK(mc.readable(a, sizeof(T)), a, sizeof(T), L_READ_FAULT)                                                   \
        DST = uint64_t(load<T>(a));                                                                                    \
    }                                                                                                                  \
    NEXT();
#define EXEC_LDSX(T) EXEC_LDX(T) // T is signed: the conversion to uint64_t sign-extends
#define EXEC_ST(T)                                                                                                     \
    {                                                                                                                  \
        const uint64_t a = DST + uint64_t(int64_t(ip->off));                                                           \
        CHECK(mc.writable(a, sizeof(T)), a, sizeof(T), L_WRITE_FAULT)                                                  \
        store<T>(a, T(ip->imm));                                                                                       \
    }                                                                                                                  \
    NEXT();
#define EXEC_STX(T)                                                                                                    \
    {                                                                                                                  \
        const uint64_t a = DST + uint64_t(int64_t(ip->off));                                                           \
        CHECK(mc.writable(a, sizeof(T)), a, sizeof(T), L_WRITE_FAULT)                                                  \
        store<T>(a, T(SRC));                                                                                           \
    }                                                                                                                  \
    NEXT();
// Arena accesses (the verifier's ARENA_* forms): a page not allocated reads 0 and takes no store. A program run
// without a verified arena view (the checked interpreter over a hand-made program) stops at them.
#define EXEC_ARENA_LDX(T)                                                                                              \
    {                                                                                                                  \
        uint8_t* a = nullptr;                                                                                          \
        if (!arena.window)                                                                                             \
            goto L_NO_ARENA;                                                                                           \
        DST = runtime::arena_access(arena, SRC, ip->off, sizeof(T), &a) ? uint64_t(load<T>(uint64_t(a))) : 0;          \
    }                                                                                                                  \
    NEXT();
#define EXEC_ARENA_LDSX(T) EXEC_ARENA_LDX(T)
#define EXEC_ARENA_ST(T)                                                                                               \
    {                                                                                                                  \
        uint8_t* a = nullptr;                                                                                          \
        if (!arena.window)                                                                                             \
            goto L_NO_ARENA;                                                                                           \
        if (runtime::arena_access(arena, DST, ip->off, sizeof(T), &a))                                                 \
            store<T>(uint64_t(a), T(ip->imm));                                                                         \
    }                                                                                                                  \
    NEXT();
#define EXEC_ARENA_STX(T)                                                                                              \
    {                                                                                                                  \
        uint8_t* a = nullptr;                                                                                          \
        if (!arena.window)                                                                                             \
            goto L_NO_ARENA;                                                                                           \
        if (runtime::arena_access(arena, DST, ip->off, sizeof(T), &a))                                                 \
            store<T>(uint64_t(a), T(SRC));                                                                             \
    }                                                                                                                  \
    NEXT();
#define ATOMIC_add(T, a) atomic::add<T>(a, SRC)
#define ATOMIC_or_(T, a) atomic::or_<T>(a, SRC)
#define ATOMIC_and_(T, a) atomic::and_<T>(a, SRC)
#define ATOMIC_xor_(T, a) atomic::xor_<T>(a, SRC)
#define ATOMIC_fetch_add(T, a) SRC = atomic::fetch_add<T>(a, SRC)
#define ATOMIC_fetch_or(T, a) SRC = atomic::fetch_or<T>(a, SRC)
#define ATOMIC_fetch_and(T, a) SRC = atomic::fetch_and<T>(a, SRC)
#define ATOMIC_fetch_xor(T, a) SRC = atomic::fetch_xor<T>(a, SRC)
#define ATOMIC_xchg(T, a) SRC = atomic::xchg<T>(a, SRC)
#define ATOMIC_cmpxchg(T, a) reg[0] = atomic::cmpxchg<T>(a, reg[0], SRC)
#define EXEC_ATOMIC(T, sem)                                                                                            \
    {                                                                                                                  \
        const uint64_t a = DST + uint64_t(int64_t(ip->off));                                                           \
        CHECK(mc.read_writable(a, sizeof(T)), a, sizeof(T), L_WRITE_FAULT)                                             \
        ATOMIC_##sem(T, a);                                                                                            \
    }                                                                                                                  \
    NEXT();
#define EXEC_ATOMIC_W(sem) EXEC_ATOMIC(uint32_t, sem)
#define EXEC_ATOMIC_DW(sem) EXEC_ATOMIC(uint64_t, sem)
// Arena atomics (the verifier's ARENA_ATOMIC_* forms): on a page not allocated nothing is stored, as the kernel's
// fix-up skips the faulting instruction; the register a 32-bit fetch loads keeps its low half (arena_atomic_miss).
#define EXEC_ARENA_ATOMIC(T, sem)                                                                                      \
    {                                                                                                                  \
        uint8_t* a = nullptr;                                                                                          \
        if (!arena.window)                                                                                             \
            goto L_NO_ARENA;                                                                                           \
        if (runtime::arena_access(arena, DST, ip->off, sizeof(T), &a))                                                 \
            ATOMIC_##sem(T, uint64_t(a));                                                                              \
        else if (sizeof(T) == 4)                                                                                       \
            arena_atomic_miss_w(*ip, reg);                                                                             \
    }                                                                                                                  \
    NEXT();
#define EXEC_ARENA_ATOMIC_W(sem) EXEC_ARENA_ATOMIC(uint32_t, sem)
#define EXEC_ARENA_ATOMIC_DW(sem) EXEC_ARENA_ATOMIC(uint64_t, sem)

// ld_imm64: only the plain form runs; the linker resolves pseudo forms to plain ones.
#define EXEC_LDDW(sem) LDDW_##sem
#define LDDW_imm                                                                                                       \
    DST = uint64_t(uint32_t(ip->imm)) | (uint64_t(uint32_t(ip[1].imm)) << 32);                                         \
    ++ip;                                                                                                              \
    NEXT();
#define LDDW_map_fd goto L_UNLINKED;
#define LDDW_map_value goto L_UNLINKED;
#define LDDW_btf_id goto L_UNLINKED;
#define LDDW_func /* the callback value: the address of the function's first instruction */                            \
    DST = uint64_t(ip + 1 + ip->imm);                                                                                  \
    ++ip;                                                                                                              \
    NEXT();
#define LDDW_map_idx goto L_UNLINKED;
#define LDDW_map_idx_value goto L_UNLINKED;
#define EXEC_LD_ABS(sem) goto L_LEGACY;
#define EXEC_LD_IND(sem) goto L_LEGACY;

// Jumps: the target is relative to the next instruction, which NEXT() steps to.
#define EXEC_JA(sem)                                                                                                   \
    ip += ip->off;                                                                                                     \
    NEXT();
// may_goto as the kernel's fix-up leaves it: a verified program's counter is the stack slot at r10 + imm (set to
// BPF_MAX_LOOPS when its function starts); a program run unverified counts one budget per run.
#define EXEC_MAY_GOTO(sem)                                                                                             \
    {                                                                                                                  \
        uint64_t* left = st.checked ? &st.may_goto_left : reinterpret_cast<uint64_t*>(reg[10] + int64_t(ip->imm));     \
        if (*left == 0)                                                                                                \
            ip += ip->off;                                                                                             \
        else                                                                                                           \
            --*left;                                                                                                   \
    }                                                                                                                  \
    NEXT();
#define EXEC_GOTOL(sem)                                                                                                \
    ip += ip->imm;                                                                                                     \
    NEXT();
#define EXEC_JMP_K(sem)                                                                                                \
    if (jmp::sem<uint64_t>(DST, uint64_t(int64_t(ip->imm))))                                                           \
        ip += ip->off;                                                                                                 \
    NEXT();
#define EXEC_JMP_X(sem)                                                                                                \
    if (jmp::sem<uint64_t>(DST, SRC))                                                                                  \
        ip += ip->off;                                                                                                 \
    NEXT();
#define EXEC_JMP32_K(sem)                                                                                              \
    if (jmp::sem<uint32_t>(uint32_t(DST), uint32_t(ip->imm)))                                                          \
        ip += ip->off;                                                                                                 \
    NEXT();
#define EXEC_JMP32_X(sem)                                                                                              \
    if (jmp::sem<uint32_t>(uint32_t(DST), uint32_t(SRC)))                                                              \
        ip += ip->off;                                                                                                 \
    NEXT();

// Calls: helpers and kfuncs are native functions; r1..r5 keep whatever they held (the verifier forbids reading
// them after a call). A helper may run callbacks (invoke_callback) one frame below this one; their instruction
// count joins ours. Local calls push a frame: r6..r9 and r10 of the caller, and the return address.
#define CALL_NATIVE()                                                                                                  \
    st.depth = depth;                                                                                                  \
    st.used = used0 + n;                                                                                               \
    reg[0] = fn(reg[1], reg[2], reg[3], reg[4], reg[5], &ctx);                                                         \
    n += st.nested;                                                                                                    \
    st.nested = 0;                                                                                                     \
    if (ctx.aborted)                                                                                                   \
        goto L_ABORTED;                                                                                                \
    mc.clear();                                                                                                        \
    if (st.tail_target) [[unlikely]]                                                                                   \
        goto L_TAIL_CALL;                                                                                              \
    NEXT();
#define EXEC_CALL_HELPER(sem)                                                                                          \
    fn = st.checked ? runtime::ext_checked_fn(ip->imm) : runtime::helper_fn(ip->imm);                                  \
    if (!fn)                                                                                                           \
        goto L_BAD_HELPER;                                                                                             \
    CALL_NATIVE()
#define EXEC_CALL_KFUNC(sem)                                                                                           \
    {                                                                                                                  \
        const auto kt = runtime::kfunc_table();                                                                        \
        fn = uint32_t(ip->imm) < kt.size() ? kt[uint32_t(ip->imm)].fn : nullptr;                                       \
    }                                                                                                                  \
    if (!fn)                                                                                                           \
        goto L_BAD_KFUNC;                                                                                              \
    CALL_NATIVE()
#define EXEC_CALL_LOCAL(sem)                                                                                           \
    if (depth == isa::kMaxCallDepth)                                                                                   \
        goto L_CALL_DEPTH;                                                                                             \
    frames[depth - 1] = Frame{{reg[6], reg[7], reg[8], reg[9]}, reg[10], ip};                                          \
    depth++;                                                                                                           \
    reg[10] = uint64_t(top - (depth - 1) * isa::kStackSize);                                                           \
    ip += ip->imm;                                                                                                     \
    NEXT();
#define EXEC_EXIT(sem)                                                                                                 \
    if (depth == base_depth)                                                                                           \
        goto L_DONE;                                                                                                   \
    depth--;                                                                                                           \
    {                                                                                                                  \
        const Frame& f = frames[depth - 1];                                                                            \
        reg[6] = f.saved[0], reg[7] = f.saved[1], reg[8] = f.saved[2], reg[9] = f.saved[3];                            \
        reg[10] = f.fp;                                                                                                \
        ip = f.ret;                                                                                                    \
    }                                                                                                                  \
    NEXT();

template <bool kLimit>
void loop(const Entry& entry, runtime::RunContext& ctx, EngineState& st, [[maybe_unused]] uint64_t limit,
          Outcome& out) {
    static const void* const kLabels[] = {
#define STRBPF_OP(name, opcode, field, value, mnemonic, shape, sem, reads, writes) &&L_##name,
#include "isa/opcodes.def"
    };
    static const Tables tables = build_tables(kLabels, &&L_RESOLVE, &&L_INVALID);
    const void* const* const tbl = tables.by_opcode;

    // r0..r10; 11..15 never named by a validated program. Set word by word: `= {}` became a `rep stos`, whose
    // start-up was half of an empty program's run (10 of 20 ns on AMD EPYC, bench/jit_bench empty_interp).
    uint64_t reg[16];
    reg[0] = 0;
    std::memcpy(&reg[1], entry.args, sizeof entry.args);
    for (int r = 6; r < 16; r++)
        reg[r] = 0;
    uint8_t* const top = st.stack->bytes + sizeof st.stack->bytes;
    const int base_depth = entry.depth; // main: 1; a callback: one below the frame of the helper's caller
    int depth = base_depth;
    reg[10] = uint64_t(top - (depth - 1) * isa::kStackSize);
    Frame frames[isa::kMaxCallDepth];
    MemCache mc(ctx.mem, st.checked);
    const runtime::ArenaView arena = st.source ? st.source->arena : runtime::ArenaView{};
    const isa::Insn* ip = entry.start;
    const uint64_t used0 = st.used;
    uint64_t n = 0;
    uint64_t fault_addr = 0, fault_size = 0;
    runtime::HelperFn fn = nullptr;

    DISPATCH();

#define STRBPF_OP(name, opcode, field, value, mnemonic, shape, sem, reads, writes)                                     \
    L_##name : FORM_CHECK_##field(value) EXEC_##shape(sem)
#include "isa/opcodes.def"

L_RESOLVE : {
    const SubForm* s = tables.subs + tables.first[ip->opcode];
    const SubForm* const e = s + tables.count[ip->opcode];
    for (; s != e; ++s)
        if (field_of(s->field, *ip) == s->value)
            goto * s->label;
    goto L_INVALID;
}
// bpf_tail_call succeeded: the target runs in this frame (its stack, r1 = ctx still) in place of the caller,
// and returns where the caller would have returned.
L_TAIL_CALL:
    ip = st.tail_target;
    st.code = st.tail_target;
    st.size = st.tail_size;
    st.tail_target = nullptr;
    DISPATCH();
L_DONE:
    out.stop = Stop::exit;
    goto L_STOP;
L_READ_FAULT:
    if (emulate_ctx_access(ctx, *ip, fault_addr, reg))
        NEXT();
    if (probe_load(st, ip)) {
        reg[ip->dst] = 0;
        NEXT();
    }
    if (map_view_load(st, ip, fault_addr, reg))
        NEXT();
    out.stop = Stop::mem_read;
    goto L_FAULT;
L_WRITE_FAULT:
    if ((ip->opcode & 0xe0) == isa::BPF_MEM && emulate_ctx_access(ctx, *ip, fault_addr, reg))
        NEXT();
    out.stop = Stop::mem_write;
L_FAULT:
    out.addr = fault_addr;
    out.size = fault_size;
    goto L_STOP;
L_LIMIT:
    out.stop = Stop::limit;
    goto L_STOP;
L_INVALID:
    out.stop = Stop::invalid;
    goto L_STOP;
L_BAD_HELPER:
    out.stop = Stop::bad_helper;
    goto L_STOP;
L_BAD_KFUNC:
    out.stop = Stop::bad_kfunc;
    goto L_STOP;
L_ABORTED:
    if (ctx.thrown && base_depth == 1) [[unlikely]] // the program's own loop: a callback's passes it on
        goto L_THROWN;
    out.stop = Stop::aborted;
    goto L_STOP;
// bpf_throw: every frame unwinds to the main program's, whose r10 the exception callback runs with (as the
// kernel's JIT runs it on the main frame); its R0 is the program's. The default callback returns the cookie.
L_THROWN: {
    ctx.thrown = false;
    ctx.aborted = false;
    ctx.abort_message.clear();
    st.abort_named = false;
    depth = base_depth;
    reg[10] = uint64_t(top);
    const isa::Insn* const cb = exception_callback(st, ctx);
    if (!cb) {
        reg[0] = ctx.throw_cookie;
        goto L_DONE;
    }
    reg[1] = ctx.throw_cookie;
    ip = cb;
    mc.clear();
    DISPATCH();
}
L_CALL_DEPTH:
    out.stop = Stop::call_depth;
    goto L_STOP;
L_LEGACY: {
    int64_t v = 0;
    if (st.checked && emulate_ld_abs(ctx, *ip, reg, &v)) {
        for (int r = 1; r <= 5; r++)
            reg[r] = 0; // clobbered by the call the verifier's lowering makes
        reg[0] = uint64_t(v);
        if (v >= 0)
            NEXT();
        reg[0] = 0; // the lowering's `r0 = 0; exit`
        goto L_EXIT;
    }
    out.stop = Stop::legacy_ld;
    goto L_STOP;
}
L_UNLINKED:
    out.stop = Stop::unlinked_ld;
    goto L_STOP;
L_NO_ARENA:
    out.stop = Stop::no_arena;
L_STOP:
    out.at = ip;
    out.r0 = reg[0];
    out.executed = n;
}

} // namespace

void execute(const Entry& e, runtime::RunContext& ctx, EngineState& st, uint64_t limit, Outcome& out) {
    if (limit > 0)
        loop<true>(e, ctx, st, limit, out);
    else
        loop<false>(e, ctx, st, 0, out);
}

} // namespace strbpf::exec::interp
