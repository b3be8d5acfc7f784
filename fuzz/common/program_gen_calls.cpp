// SPDX-License-Identifier: BSD-2-Clause
// The structured program generator's calls (fuzz stage): helpers, kfuncs, callbacks and static subprograms with the
// bodies placed after main, and the socket filter's packet statements (LD_ABS/LD_IND, bpf_skb_load_bytes).
#include "common/harness.hpp"
#include "common/program_gen_impl.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"

namespace strbpf::fuzz::gen {

void Gen::map_lookup(int32_t map, int value_size) {
    if (map == kMapPcpu) {
        st(BPF_W, R10, kArrKeySlot, in_.u8() % 3);
        ld_map(R1, map);
        mov(R2, R10);
        alu64_k(BPF_ADD, R2, kArrKeySlot);
    } else {
        mov(R1, ssrc());
        if (in_.coin())
            alu64_k(BPF_AND, R1, 7);
        stx(BPF_DW, R10, R1, kHashKeySlot);
        ld_map(R1, map);
        mov(R2, R10);
        alu64_k(BPF_ADD, R2, kHashKeySlot);
    }
    call(1);
    const size_t j = jump(BPF_JMP | BPF_JEQ | BPF_K, R0, 0, 0);
    mem_access(R0, offset_in(value_size, 8));
    patch(j);
}

void Gen::callback_helper(bool for_each) {
    if (for_each) {
        ld_map(R1, in_.coin() ? kMapArr : kMapHash);
    } else if (in_.coin()) {
        alu64_k(BPF_MOV, R1, int32_t(in_.u8() % 20));
    } else {
        mov(R1, ssrc());
        alu64_k(BPF_AND, R1, 15);
    }
    fixups_.push_back({pc(), for_each ? 10 + int(in_.u8() % 3) : int(in_.u8() % 4), int32_t(in_.u8())});
    ld_imm64(R2, BPF_PSEUDO_FUNC, 0, 0);
    if (in_.coin()) {
        mov(R3, R10);
        alu64_k(BPF_ADD, R3, -64);
    } else {
        alu64_k(BPF_MOV, R3, 0);
    }
    alu64_k(BPF_MOV, R4, 0);
    call(for_each ? 164 : 181);
    mov(sdst(), R0);
}

void Gen::helper() {
    switch (in_.u8() % 12) {
    case 0:
        return map_lookup(kMapHash, kHashValue);
    case 1:
        return map_lookup(kMapLru, kLruValue);
    case 2:
        return map_lookup(kMapPcpu, kPcpuValue);
    case 3:
    case 4:
        return map_update();
    case 5: { // helpers without arguments
        static constexpr int32_t kDet[] = {8, 14}, kAny[] = {8, 14, 5, 7, 125};
        call(det_ ? pick(in_, kDet) : pick(in_, kAny));
        return mov(sdst(), R0);
    }
    case 6: // bpf_strncmp(s1, s1_sz, const string in .rodata)
        pointer_arg(R1);
        alu64_k(BPF_MOV, R2, 1 + int32_t(in_.u8() % 24));
        ld_map_value(R3, kMapRodata, in_.u8() % 8 ? int32_t(in_.u8() % 5) * 8 : int32_t(in_.u8() % kRodataSize));
        call(182);
        return mov(sdst(), R0);
    case 7:
        return callback_helper(false);
    case 8:
        return callback_helper(true);
    case 9: // bpf_probe_read_kernel{,_str}(stack buffer, size, any address)
        mov(R1, R10);
        alu64_k(BPF_ADD, R1, -64);
        alu64_k(BPF_MOV, R2, int32_t(in_.u8() % 17));
        pointer_arg(R3);
        call(in_.coin() ? 113 : 115);
        return mov(sdst(), R0);
    case 10: // bpf_strtol / bpf_strtoul(buf, size, flags, &res)
        pointer_arg(R1);
        alu64_k(BPF_MOV, R2, 1 + int32_t(in_.u8() % 16));
        alu64_k(BPF_MOV, R3, in_.coin() ? int32_t(in_.u8() % 4) * 8 : int32_t(in_.u8()));
        mov(R4, R10);
        alu64_k(BPF_ADD, R4, -40);
        call(in_.coin() ? 105 : 106);
        return mov(sdst(), R0);
    default:
        return ringbuf();
    }
}

// bpf_map_update_elem(hash or lru, key, 16 stack bytes, flags 0..4) or bpf_map_delete_elem.
void Gen::map_update() {
    const bool update = in_.coin();
    const int32_t map = in_.coin() ? kMapHash : kMapLru;
    stx(BPF_DW, R10, ssrc(), kHashKeySlot);
    ld_map(R1, map);
    mov(R2, R10);
    alu64_k(BPF_ADD, R2, kHashKeySlot);
    if (update) {
        mov(R3, R10);
        alu64_k(BPF_ADD, R3, -64);
        alu64_k(BPF_MOV, R4, int32_t(in_.u8() % 5));
    }
    call(update ? 2 : 3);
    mov(sdst(), R0);
}

// Ring buffer: reserve, write, submit or discard; or bpf_ringbuf_output of stack bytes.
void Gen::ringbuf() {
    ld_map(R1, kMapRingbuf);
    if (in_.coin()) {
        mov(R2, R10);
        alu64_k(BPF_ADD, R2, -64);
        alu64_k(BPF_MOV, R3, 8 * int32_t(in_.u8() % 9));
        alu64_k(BPF_MOV, R4, 0);
        call(130);
        return mov(sdst(), R0);
    }
    const int32_t sz = 8 + 8 * int32_t(in_.u8() % 4);
    alu64_k(BPF_MOV, R2, sz);
    alu64_k(BPF_MOV, R3, 0);
    call(131);
    const size_t j = jump(BPF_JMP | BPF_JEQ | BPF_K, R0, 0, 0);
    mem_access(R0, offset_in(sz, 8));
    mov(R1, R0);
    alu64_k(BPF_MOV, R2, 0);
    call(in_.coin() ? 132 : 133);
    patch(j);
}

// A pointer (or not) for a helper or kfunc argument: stack, map value, ctx, .rodata/.bss, a scalar, an address.
void Gen::pointer_arg(uint8_t reg) {
    switch (in_.u8() % 8) {
    case 0:
        mov(reg, R10);
        return alu64_k(BPF_ADD, reg, -64 + int32_t(in_.u8() % 64));
    case 1:
        mov(reg, R7);
        return alu64_k(BPF_ADD, reg, int32_t(in_.u8() % (kArrValue + 4)));
    case 2:
        if (xdp_)
            return mov(reg, R7);
        mov(reg, R6);
        return alu64_k(BPF_ADD, reg, int32_t(in_.u8()));
    case 3:
        return ld_map_value(reg, kMapRodata, int32_t(in_.u8() % kRodataSize));
    case 4:
        return ld_map_value(reg, kMapBss, int32_t(in_.u8() % kBssSize));
    case 5:
        return mov(reg, ssrc());
    case 6: {
        static constexpr uint64_t kAddrs[] = {0,
                                              1,
                                              0x1000,
                                              0x7ffffffff000ull,
                                              0xffff800000000000ull,
                                              0xffff888000000000ull,
                                              0xffffffffff600000ull,
                                              ~0ull,
                                              0x8000000000000000ull};
        const uint64_t a = pick(in_, kAddrs);
        return ld_imm64(reg, 0, int32_t(uint32_t(a)), int32_t(uint32_t(a >> 32)));
    }
    default:
        mov(reg, R7);
        mov(R5, ssrc());
        alu64_k(BPF_AND, R5, 63);
        return alu64_x(BPF_ADD, reg, R5);
    }
}

void Gen::kfunc() {
    const auto table = runtime::kfunc_table();
    if (kfuncs_ && kfuncs_->empty())
        return alu_imm();
    const uint32_t k = kfuncs_ ? uint32_t((*kfuncs_)[in_.below(uint32_t(kfuncs_->size()))])
                               : in_.below(uint32_t(table.size()));
    const runtime::KfuncProto& f = table[k];
    for (int i = 0; i < f.nparams; i++) {
        const uint8_t reg = uint8_t(R1 + i);
        if (f.params[i].kind == runtime::KfuncParamKind::ptr)
            pointer_arg(reg);
        else if (in_.coin())
            alu64_k(BPF_MOV, reg, imm());
        else
            mov(reg, ssrc());
    }
    emit(mk(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, int32_t(k)));
    mov(sdst(), R0);
}

void Gen::subprog_call() {
    mov(R1, ssrc());
    if (in_.coin()) {
        mov(R2, R7);
    } else {
        mov(R2, R10);
        alu64_k(BPF_ADD, R2, -64);
    }
    fixups_.push_back({pc(), 20 + int(in_.u8() % 5), int32_t(in_.u8())});
    emit(mk(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0));
    mov(sdst(), R0);
}

void Gen::body(int kind, int32_t arg) {
    const int16_t off = int16_t(arg % 72);
    switch (kind) {
    case 0:
        alu64_k(BPF_MOV, R0, 0);
        break;
    case 1:
        mov(R0, R1);
        alu64_k(BPF_AND, R0, 1);
        break;
    case 2:
        ldx(BPF_B, R0, R2, int16_t(arg % 64));
        alu64_k(BPF_AND, R0, 1);
        break; // ctx: stack or NULL
    case 3:
        mov(R0, R1);
        emit(mk(BPF_JMP | BPF_JGT | BPF_K, R0, 0, 1, arg % 16));
        alu64_k(BPF_MOV, R0, 0);
        break;
    case 10:
        ldx(BPF_W, R0, R3, int16_t(arg % 20));
        alu64_k(BPF_AND, R0, 1);
        break; // value
    case 11:
        ldx(BPF_W, R0, R2, 0);
        alu64_k(BPF_MOV, R0, 0);
        break; // key
    case 12:
        st(BPF_DW, R3, int16_t((arg % 3) * 8), arg);
        alu64_k(BPF_MOV, R0, 0);
        break;
    case 20:
        mov(R0, R1);
        alu64_k(BPF_MUL, R0, 3);
        break;
    case 21:
        ldx(BPF_W, R0, R2, int16_t(off & ~3));
        break;
    case 22:
        mov(R0, R1);
        emit(mk(BPF_JMP | BPF_JGT | BPF_K, R0, 0, 1, 5));
        alu64_k(BPF_MOV, R0, 5);
        break;
    case 23:
        stx(BPF_DW, R10, R1, -8);
        ldx(BPF_DW, R0, R10, int16_t(-8 - (arg & 8)));
        break;
    default:
        mov(R0, R1);
        alu64_k(BPF_AND, R0, arg % 2 ? 15 : 63);
        alu64_x(BPF_ADD, R2, R0);
        ldx(BPF_B, R0, R2, 0);
        break;
    }
    exit_insn();
}

void Gen::place_bodies() {
    for (const Fixup& f : fixups_) {
        const size_t start = pc();
        body(f.kind, f.arg);
        code_[f.pc].imm = int32_t(start - f.pc - 1);
    }
}
// A __sk_buff field with its size: mostly readable ones (u32 fields, the u64 tstamp, narrow loads of a u32), some
// a socket filter may not read (data, data_end, tc_classid, flow_keys, sk, ...).
void Gen::skb_ctx_load() {
    struct Field {
        int16_t off;
        uint8_t size;
    };
    static constexpr Field kFields[] = {
        {0, BPF_W},    {4, BPF_W},    {8, BPF_W},    {12, BPF_W},   {16, BPF_W},  {20, BPF_W},  {24, BPF_W},
        {28, BPF_W},   {32, BPF_W},   {36, BPF_W},   {40, BPF_W},   {44, BPF_W},  {48, BPF_W},  {64, BPF_W},
        {68, BPF_W},   {72, BPF_W},   {76, BPF_W},   {80, BPF_W},   {84, BPF_W},  {88, BPF_W},  {92, BPF_W},
        {100, BPF_W},  {132, BPF_W},  {136, BPF_W},  {140, BPF_W},  {144, BPF_DW}, {152, BPF_DW}, {160, BPF_W},
        {164, BPF_W},  {168, BPF_DW}, {176, BPF_W},  {180, BPF_B},  {184, BPF_DW}, {0, BPF_H},   {2, BPF_H},
        {8, BPF_B},    {11, BPF_B},   {16, BPF_H},   {48, BPF_DW},  {52, BPF_H},  {0, BPF_DW},  {192, BPF_W},
    };
    const Field f = pick(in_, kFields);
    const uint8_t mode = f.size != BPF_DW && in_.u8() % 8 == 0 ? BPF_MEMSX : BPF_MEM;
    const uint8_t dst = sdst();
    emit(mk(BPF_LDX | mode | f.size, dst, R6, f.off, 0));
    if (f.off == 168 && f.size == BPF_DW && in_.coin()) { // skb->sk: sock_common_or_null, a field behind a check
        const size_t j = jump(BPF_JMP | BPF_JEQ | BPF_K, dst, 0, 0);
        ldx(BPF_W, dst, dst, int16_t(4 * (in_.u8() % 8)));
        patch(j);
    }
}

// The socket filter's packet reads: LD_ABS / LD_IND (r6 the ctx; r0 the value; r1-r5 clobbered) and
// bpf_skb_load_bytes(skb, off, stack buffer, len).
void Gen::skb_access() {
    static constexpr uint8_t kLdSizes[] = {BPF_B, BPF_H, BPF_W, BPF_W, BPF_DW};
    switch (in_.u8() % 3) {
    case 0:
        emit(mk(BPF_LD | BPF_ABS | pick(in_, kLdSizes), 0, 0, 0, in_.u8() % 4 ? int32_t(in_.u8() % 64) : imm()));
        break;
    case 1:
        emit(mk(BPF_LD | BPF_IND | pick(in_, kLdSizes), 0, ssrc(), 0, int32_t(in_.u8() % 32)));
        break;
    default:
        mov(R1, R6);
        if (in_.coin()) {
            alu64_k(BPF_MOV, R2, int32_t(in_.u8() % 64));
        } else {
            mov(R2, ssrc());
            alu64_k(BPF_AND, R2, 63);
        }
        mov(R3, R10);
        alu64_k(BPF_ADD, R3, -64);
        alu64_k(BPF_MOV, R4, int32_t(in_.u8() % 18));
        call(26);
        break;
    }
    mov(sdst(), R0);
}

} // namespace strbpf::fuzz::gen
