// SPDX-License-Identifier: BSD-2-Clause
// The interpreter's run state (exec stage): call frames, the memory-check cache in front of ctx.mem, and the
// outcome the dispatch loop hands back to interpreter.cpp, which turns it into an InterpResult.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "isa/insn.hpp"
#include "runtime/context.hpp"

namespace strbpf::verifier {
struct VerifiedProgram;
}

namespace strbpf::exec::interp {

// One region of ctx.mem known to grant the cache's permission; size 0 = empty slot.
struct CachedRegion {
    uint64_t base = 0;
    uint64_t size = 0;
    bool contains(uint64_t a, uint64_t n) const {
        const uint64_t off = a - base;
        return off < size && n <= size - off;
    }
};

// Two most recently used regions per access kind. Every access that misses goes to ctx.mem, so the cache only
// saves lookups; it is cleared after helper and kfunc calls.
class MemCache {
  public:
    // checked = false: the program was verified, so every access is trusted (one predictable branch each).
    MemCache(const runtime::RunMemory& mem, bool checked) : mem_(mem), checked_(checked) {}
    bool readable(uint64_t a, uint64_t n) {
        return !checked_ || rd_[0].contains(a, n) || rd_[1].contains(a, n) || refill(rd_, a, n, runtime::kPermRead);
    }
    bool writable(uint64_t a, uint64_t n) {
        return !checked_ || wr_[0].contains(a, n) || wr_[1].contains(a, n) || refill(wr_, a, n, runtime::kPermWrite);
    }
    bool read_writable(uint64_t a, uint64_t n) { // atomics
        return !checked_ || wr_[0].contains(a, n) || wr_[1].contains(a, n) || refill(wr_, a, n, runtime::kPermRW);
    }
    void clear() { rd_[0] = rd_[1] = wr_[0] = wr_[1] = CachedRegion{}; }

  private:
    // Looks the access up in ctx.mem with the permissions `need`; caches the region when it grants the cache's.
    bool refill(CachedRegion* c, uint64_t a, uint64_t n, uint8_t need);
    const runtime::RunMemory& mem_;
    bool checked_;
    CachedRegion rd_[2];
    CachedRegion wr_[2]; // regions granting read and write (atomics need both)
};

struct Frame {
    uint64_t saved[4];    // r6..r9 of the caller
    uint64_t fp;          // the caller's r10
    const isa::Insn* ret; // the call instruction
};

enum class Stop : uint8_t {
    exit,        // main frame returned; r0 holds the result
    mem_read,    // addr/size outside readable memory
    mem_write,   // addr/size outside writable memory
    limit,       // insn_limit reached
    invalid,     // opcode/form the table does not define (only without validation)
    bad_helper,  // helper id strbpf does not provide
    bad_kfunc,   // kfunc index outside the table
    aborted,     // a helper or kfunc called ctx.abort()
    call_depth,  // a local call would need a 9th frame
    legacy_ld,   // LD_ABS / LD_IND
    unlinked_ld, // ld_imm64 pseudo form left unresolved
    no_arena,    // an arena access without the verified program's arena (only an unverified program has one)
};

struct Outcome {
    Stop stop = Stop::exit;
    uint64_t r0 = 0;
    const isa::Insn* at = nullptr; // the instruction that stopped the run
    uint64_t addr = 0;
    uint64_t size = 0;
    uint64_t executed = 0;
};

// Where a loop starts: pc 0 of the program (depth 1) or a callback a helper invokes one frame below its caller.
struct Entry {
    const isa::Insn* start;
    uint64_t args[5]; // r1..r5
    int depth;        // frames in use while `start` runs; r10 = top of the stack area - (depth - 1) * 512
};

// Per-run state shared by the main loop and the callbacks it runs (ctx.engine_state points at it).
struct EngineState {
    const isa::Insn* code = nullptr; // the program, for checking callback values
    size_t size = 0;
    runtime::StackArea* stack = nullptr;
    uint64_t limit = 0;  // the run's insn_limit, 0 = none
    bool checked = true; // check every access against ctx.mem (false only for verified programs)
    int depth = 1;       // frames in use at the helper/kfunc call in progress
    uint64_t used = 0;   // instructions executed before the loop that made that call started
    uint64_t nested = 0; // instructions callbacks executed during that call
    const isa::Insn* tail_target = nullptr; // set by bpf_tail_call: the loop continues at this program's start
    size_t tail_size = 0;
    uint64_t may_goto_left = isa::kMaxLoops; // unverified runs: the may_goto budget of the whole run
    // The program running, when verified: error pcs map through it; a checked run with one reads 0 for its
    // PTR_TO_BTF_ID loads outside the run's memory (the kernel's probe loads).
    const verifier::VerifiedProgram* source = nullptr;
    bool abort_named = false; // ctx.abort_message already names a pc (the first stop to see an abort names it)
};

// runtime::RunContext::TailCallFn of the interpreter (interpreter.cpp): checks the target loads (the verifier, as
// the kernel verified it when it was loaded) and names it in EngineState for the dispatch loop.
bool interp_tail_call(runtime::RunContext* ctx, const void* target);

// The dispatch loop (dispatch.cpp): runs from e.start until its frame exits or a stop condition; `limit` is the
// remaining instruction budget (0 = none). out.executed includes instructions run by callbacks.
void execute(const Entry& e, runtime::RunContext& ctx, EngineState& st, uint64_t limit, Outcome& out);

// The exception callback of the instance's program whose linked instructions (CODE, SIZE) an unverified run is
// running (interpreter.cpp): the function its `__exception_cb` tag names, as the verifier finds it; nullptr when
// it names none (or CODE is no program of ctx.instance as written).
const isa::Insn* unverified_exception_callback(const runtime::RunContext& ctx, const isa::Insn* code, size_t size);

// The message for a run that stopped (interpreter.cpp); pcs count from `code`.
std::string stop_message(const Outcome& o, const isa::Insn* code, const runtime::RunContext& ctx, uint64_t limit);

// runtime::RunContext::CallbackFn of the interpreter (interpreter.cpp): runs the BPF function at `callback` (the
// address of its first instruction, what ld_imm64 BPF_PSEUDO_FUNC loads) with r1..r5, returns its r0. A failure
// inside the callback aborts ctx with the callback's error.
uint64_t invoke_callback(runtime::RunContext* ctx, uint64_t callback, uint64_t r1, uint64_t r2, uint64_t r3,
                         uint64_t r4, uint64_t r5);

} // namespace strbpf::exec::interp
