// SPDX-License-Identifier: BSD-2-Clause
// The JIT's probe loads (exec stage, JIT): see probe_load.hpp. A site is `lea r11, [src + off]; mov r10d, size;
// call thunk; mov dst, r11`; the thunk saves r0..r5 (rax rdi rsi rdx rcx r8, the registers a System V call may
// clobber), checks the access against the run's memory in probe_read and restores them. The callee-saved BPF
// registers (r6..r10) and r12 (&ctx) survive the call as any helper call's do.
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

uint64_t probe_read(const void* run_context, uint64_t addr, uint32_t size_sx) {
    const auto* ctx = static_cast<const runtime::RunContext*>(run_context);
    const uint32_t size = size_sx & 0xff;
    const bool sx = (size_sx >> 8) != 0;
    if (!ctx->mem.check(addr, size, runtime::kPermRead))
        return 0; // the kernel's probe load faulted: the destination reads 0
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

void ProbeLoads::emit_site(x86::Assembler& a, const x86::Gp& dst, const x86::Gp& src, int16_t off, int size, bool sx) {
    if (!thunk_.isValid())
        thunk_ = a.newLabel();
    a.lea(x86::r11, x86::ptr(src, off));
    a.mov(x86::r10d, imm(uint32_t(size) | (sx ? 0x100u : 0u)));
    a.call(thunk_);
    a.mov(dst, x86::r11);
}

void ProbeLoads::emit_thunk(x86::Assembler& a, const x86::Gp& ctx) {
    if (!thunk_.isValid())
        return;
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
