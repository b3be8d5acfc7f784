// SPDX-License-Identifier: BSD-2-Clause
// The JIT's probe loads (exec stage, JIT): a load the verifier typed PTR_TO_BTF_ID (the kernel's BPF_PROBE_MEM load)
// reads its bytes only when [addr, addr + size) lies inside one readable region of the run's memory (RunContext::mem,
// the set the checked interpreter checks against) and reads 0 otherwise, never touching other host memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include <asmjit/x86.h>

#include "verifier/verified_program.hpp"

namespace strbpf::exec::jit::x86_64 {

// Whether the instruction at PC of the verified program VP is a probe load: an LDX or LDSX the verifier typed btf_id.
bool is_probe_load(const verifier::VerifiedProgram* vp, size_t pc);

// Whether VP holds an access through a kernel object pointer the JIT cannot run: a store or atomic typed btf_id
// (the verifier refuses those, so none should exist); its pc in *PC.
bool has_btf_store(const verifier::VerifiedProgram* vp, size_t* pc);

// The probe loads of one program. A site checks the address against the region the run's last slow probe found
// readable (RunMemory::hot, kept in the run context and forgotten whenever a region may go or change) and loads
// inline when the bytes lie inside it; otherwise its cold path, after the program, calls one shared thunk.
class ProbeLoads {
  public:
    // DST = *(SIZE bytes at SRC + OFF), sign-extended when SX, or 0 outside the run's memory. CTX holds &RunContext;
    // rsp must be 16-byte aligned here (as at a helper call). Clobbers r10 and r11 only, besides DST.
    void emit_site(asmjit::x86::Assembler& a, const asmjit::x86::Gp& ctx, const asmjit::x86::Gp& dst,
                   const asmjit::x86::Gp& src, int16_t off, int size, bool sx);
    // The sites' cold paths and the thunk (after the program's code, when any site needs them): the thunk saves
    // the caller-saved BPF registers, calls probe_read(ctx, r11 = address, r10d = size | sx << 8) and returns the
    // value in r11.
    void emit_thunk(asmjit::x86::Assembler& a, const asmjit::x86::Gp& ctx);

  private:
    struct Cold {
        asmjit::Label slow, done;
        asmjit::x86::Gp dst;
        uint32_t code; // size | sx << 8
    };
    asmjit::Label thunk_;
    std::vector<Cold> cold_;
};

// What the thunk calls: the load's value when [addr, addr + size) is readable in ctx's run memory (whose region it
// then keeps as RunMemory::hot), else 0.
uint64_t probe_read(void* run_context, uint64_t addr, uint32_t size_sx);

} // namespace strbpf::exec::jit::x86_64
