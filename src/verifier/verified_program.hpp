// SPDX-License-Identifier: BSD-2-Clause
// The verified program (verifier stage): what an accepting verdict hands the engines, and the only thing the
// interpreter and the JIT run. Like the program the kernel's verifier leaves after do_check (convert_ctx_accesses,
// do_misc_fixups), it is the linked program rewritten: uAPI ctx accesses of xdp and __sk_buff programs become
// accesses to strbpf's ctx models (runtime/ctx_model.hpp), LD_ABS/LD_IND become a call of an internal load helper
// and `r0 = 0; exit` when it fails, a load through a map pointer two loads (the map's kernel-object view, then the
// field in it). A may_goto keeps its instruction with imm = the fp offset of its function's loop
// counter, a slot below the function's stack (stack_depth includes it) that the function's first instruction sets to
// BPF_MAX_LOOPS; it jumps once the counter is 0 and else counts it down (what the kernel's fix-up emits). Later fix-ups (helper inlining, map-lookup inlining) are further passes over
// the same structure (rewrite.hpp: a pass hands back patches; the driver splices them and fixes every jump).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/insn.hpp"
#include "loader/object_spec.hpp"
#include "runtime/ctx_model.hpp"
#include "runtime/maps/arena_view.hpp"

namespace strbpf::verifier {

// What a load, store or atomic accesses, as the verifier proved it.
enum class MemKind : uint8_t {
    none,      // not a memory access
    ctx,       // the ctx bytes themselves (syscall, raw_tp, tracepoint, kprobe, perf_event: no model)
    ctx_model, // a converted ctx access: strbpf's xdp or sk_buff model
    stack,
    map_value,
    map_key,
    packet, // packet data or metadata
    mem,    // PTR_TO_MEM (ring buffer records, helper results)
    arena,  // PTR_TO_ARENA: the instruction became an internal ARENA_* form (isa/opcodes.def)
    btf_id, // PTR_TO_BTF_ID: a kernel object (the kernel's BPF_PROBE_MEM load); interp and jit run these as probe
            // loads (a miss reads 0) in tracing and struct_ops runs, and refuse them elsewhere
    map_view, // through a map pointer: the map's kernel-object view (runtime/maps/kernel_view.hpp), reached by a
              // load of the view's address from the map (InsnOrigin::map_view)
    mixed,  // different kinds on different paths (never ctx: the verifier refuses that)
};

// Where a rewritten instruction came from.
enum class InsnOrigin : uint8_t {
    copied,     // the linked instruction itself (jump offsets adjusted)
    ctx_access, // emitted for a converted ctx access (CtxConv of the field, narrow-load shift and mask)
    ld_abs,     // emitted for a lowered LD_ABS/LD_IND
    may_goto,   // a function's first instruction: its may_goto counter set to BPF_MAX_LOOPS
    map_view,   // a load through a map pointer: dst = the map's view address (its slot in the map), dst = the field
};

struct InsnFacts {
    int32_t orig_pc = 0; // the linked program's instruction it came from
    InsnOrigin origin = InsnOrigin::copied;
    MemKind mem = MemKind::none;
    // ctx accesses: the uAPI offset and size the program asked for (before conversion), else 0.
    int16_t ctx_off = 0;
    uint8_t ctx_size = 0;
};

// A BPF function of the rewritten program: the main program, a static or global subprogram, a callback.
struct Function {
    int32_t start = 0; // first instruction (rewritten numbering)
    int32_t end = 0;   // one past the last
    int32_t orig_start = 0;
    std::string name;
    bool global = false;
    bool callback = false;    // the target of an ld_imm64 BPF_PSEUDO_FUNC (bpf_loop, for_each_map_elem)
    uint32_t stack_depth = 0; // deepest stack byte any path reached, in bytes (a multiple of 8), + 8 with may_goto
};

// What the verifier found in an argument register of a string call (bpf_strncmp, the string kfuncs) on every path
// it explored to that call, resolved against the instance it verified for (callsite_facts.cpp). A path the
// verifier pruned before the call reaches it with a state judged as safe, not necessarily with the same values:
// an engine that relies on a fact checks the register against it first (one compare) and else takes the general
// path.
struct ArgFact {
    enum class Kind : uint8_t {
        none,      // differs between paths, or nothing an engine can use
        address,   // a pointer into a global-data value (one fixed value per instance), inside it
        constant,  // a scalar constant
        stack,     // a pointer into the run's stack (PTR_TO_STACK) at a constant offset from a frame's r10
        stack_any, // a pointer into the run's stack, its offset not one constant (variable, or differs by path)
    };
    Kind kind = Kind::none;
    bool frozen = false; // address: the bytes from `value` to the value's end never change (frozen .rodata)
    uint8_t up = 0;      // stack: frames between the call's frame and the one pointed into (0: the call's own)
    uint32_t span = 0;   // address: bytes from `value` to the end of the global-data value (> 0)
    uint64_t value = 0;  // address: the pointer; constant: the scalar; stack: the offset from that frame's r10 (s64)
    bool operator==(const ArgFact&) const = default;
};

struct CallFacts {
    int32_t pc = 0;              // the call
    std::array<ArgFact, 3> args; // R1..R3
};

struct VerifiedProgram {
    loader::ProgType type = loader::ProgType::unspec;
    runtime::CtxModel ctx_model = runtime::CtxModel::none; // what R1 must point at in a run
    std::vector<isa::Insn> insns;   // the linked encoding (runtime::LinkedProgram), rewritten; isa::validate passes
    std::vector<InsnFacts> facts;   // one per instruction of insns (an ld_imm64's second slot repeats the first)
    std::vector<int32_t> new_pc;    // per linked instruction: the first rewritten instruction it became
    std::vector<Function> functions; // sorted by start; functions[0] is the main program
    // The first instruction of the program's own exception callback (`__exception_cb`), which a bpf_throw runs on
    // the main program's frame with R1 = the cookie, its R0 the program's; -1: the default callback (R0 = the
    // cookie), the kernel's hidden `r0 = r1; exit`.
    int32_t exception_cb = -1;
    uint32_t max_ctx_offset = 0;    // verifier::Verdict's
    int32_t min_ctx_offset = 0;
    uint32_t ctx_rewrites = 0, ld_abs_rewrites = 0; // how many accesses were converted (statistics, tests)
    runtime::ArenaView arena;       // the program's arena, for its ARENA_* accesses (window null: it uses none)
    std::vector<CallFacts> call_facts; // sorted by pc (rewritten numbering): the string calls some path reached

    // The facts of the call at rewritten pc, or nullptr.
    const CallFacts* call_facts_at(int64_t pc) const {
        auto it = std::lower_bound(call_facts.begin(), call_facts.end(), pc,
                                   [](const CallFacts& f, int64_t p) { return f.pc < p; });
        return it != call_facts.end() && it->pc == pc ? &*it : nullptr;
    }

    // The linked instruction rewritten instruction PC came from.
    int32_t orig_pc(int64_t pc) const {
        return pc >= 0 && size_t(pc) < facts.size() ? facts[size_t(pc)].orig_pc : int32_t(pc);
    }
};

} // namespace strbpf::verifier
