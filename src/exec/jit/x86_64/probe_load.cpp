// SPDX-License-Identifier: BSD-2-Clause
// The JIT's probe loads (exec stage, JIT): see probe_load.hpp. A site computes r11 = src + off and loads inline when
// the bytes lie inside RunMemory::hot; its cold path is `mov r10d, size; call thunk; mov dst, r11; jmp back`. The
// thunk saves r0..r5 (rax rdi rsi rdx rcx r8, the registers a System V call may clobber), checks the access against
// the run's memory in probe_read (which keeps the region it found as the new hot one) and restores them. The
// callee-saved BPF registers (r6..r10) and r12 (&ctx) survive the call as any helper call's do.
#include "exec/jit/x86_64/probe_load.hpp"

#include <cstring>
#include <iterator>

#include "runtime/context.hpp"

namespace strbpf::exec::jit::x86_64 {

namespace x86 = asmjit::x86;
using asmjit::imm;

bool is_probe_load(const verifier::VerifiedProgram* vp, size_t pc) {
    if (!vp || pc >= vp->facts.size() || pc >= vp->insns.size() || vp->facts[pc].mem != verifier::MemKind::btf_id)
        return false;
    const uint8_t cls = isa::insn_class(vp->insns[pc].opcode);
    return cls == isa::BPF_LDX;
}

bool has_btf_store(const verifier::VerifiedProgram* vp, size_t* pc) {
    for (size_t i = 0; vp && i < vp->facts.size() && i < vp->insns.size(); i++)
        if (vp->facts[i].mem == verifier::MemKind::btf_id && isa::insn_class(vp->insns[i].opcode) != isa::BPF_LDX) {
            *pc = i;
            return true;
        }
    return false;
}

namespace {

// Where RunMemory::hot's two words sit in a RunContext (it is not standard-layout: measured on an instance).
struct HotOffsets {
    int32_t base, size;
};
const HotOffsets& hot_offsets() {
    static const HotOffsets offsets = [] {
        static const runtime::RunContext probe;
        const auto* at = reinterpret_cast<const char*>(&probe);
        return HotOffsets{int32_t(reinterpret_cast<const char*>(&probe.mem.hot().base) - at),
                          int32_t(reinterpret_cast<const char*>(&probe.mem.hot().size) - at)};
    }();
    return offsets;
}

} // namespace

uint64_t probe_read(void* run_context, uint64_t addr, uint32_t size_sx) {
    auto* ctx = static_cast<runtime::RunContext*>(run_context);
    const uint32_t size = size_sx & 0xff;
    const bool sx = (size_sx >> 8) != 0;
    const runtime::Region* r = ctx->mem.find(addr);
    if (!r || !(r->perms & runtime::kPermRead) || !r->contains(addr, size))
        return 0; // the kernel's probe load faulted: the destination reads 0
    ctx->mem.set_hot(*r);
    const void* p = reinterpret_cast<const void*>(addr);
    switch (size) {
    case 1: {
        uint8_t v;
        std::memcpy(&v, p, 1);
        return sx ? uint64_t(int64_t(int8_t(v))) : v;
    }
    case 2: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return sx ? uint64_t(int64_t(int16_t(v))) : v;
    }
    case 4: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return sx ? uint64_t(int64_t(int32_t(v))) : v;
    }
    default: {
        uint64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    }
}

// lea r11, [src + off]; r10 = r11 - hot.base; below hot.size, and r10 + size not above it (r10 < size <= 2^63 keeps
// the sum from wrapping): the load through r11; else the cold path.
void ProbeLoads::emit_site(x86::Assembler& a, const x86::Gp& ctx, const x86::Gp& dst, const x86::Gp& src, int16_t off,
                           int size, bool sx) {
    if (!thunk_.isValid())
        thunk_ = a.newLabel();
    const HotOffsets& h = hot_offsets();
    const Cold c{a.newLabel(), a.newLabel(), dst, uint32_t(size) | (sx ? 0x100u : 0u)};
    a.lea(x86::r11, x86::ptr(src, off));
    a.mov(x86::r10, x86::r11);
    a.sub(x86::r10, x86::qword_ptr(ctx, h.base));
    a.cmp(x86::r10, x86::qword_ptr(ctx, h.size));
    a.jae(c.slow);
    a.add(x86::r10, imm(size));
    a.cmp(x86::r10, x86::qword_ptr(ctx, h.size));
    a.ja(c.slow);
    const x86::Gp d32 = dst.r32(), d64 = dst.r64();
    switch (size) {
    case 1:
        sx ? a.movsx(d64, x86::byte_ptr(x86::r11)) : a.movzx(d32, x86::byte_ptr(x86::r11));
        break;
    case 2:
        sx ? a.movsx(d64, x86::word_ptr(x86::r11)) : a.movzx(d32, x86::word_ptr(x86::r11));
        break;
    case 4:
        sx ? a.movsxd(d64, x86::dword_ptr(x86::r11)) : a.mov(d32, x86::dword_ptr(x86::r11));
        break;
    default:
        a.mov(d64, x86::qword_ptr(x86::r11));
        break;
    }
    a.bind(c.done);
    cold_.push_back(c);
}

void ProbeLoads::emit_thunk(x86::Assembler& a, const x86::Gp& ctx) {
    if (!thunk_.isValid())
        return;
    for (const Cold& c : cold_) {
        a.bind(c.slow);
        a.mov(x86::r10d, imm(c.code));
        a.call(thunk_);
        a.mov(c.dst.r64(), x86::r11);
        a.jmp(c.done);
    }
    a.bind(thunk_);
    const x86::Gp saved[] = {x86::rax, x86::rdi, x86::rsi, x86::rdx, x86::rcx, x86::r8};
    for (const x86::Gp& r : saved)
        a.push(r);
    a.sub(x86::rsp, 8); // the site's call and six pushes leave rsp 8 off the 16-byte boundary a call needs
    a.mov(x86::rdi, ctx);
    a.mov(x86::rsi, x86::r11);
    a.mov(x86::edx, x86::r10d);
    a.call(imm(reinterpret_cast<uint64_t>(&probe_read)));
    a.mov(x86::r11, x86::rax);
    a.add(x86::rsp, 8);
    for (auto it = std::rbegin(saved); it != std::rend(saved); ++it)
        a.pop(*it);
    a.ret();
}

} // namespace strbpf::exec::jit::x86_64
