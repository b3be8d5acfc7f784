// The interpreter's run state (exec stage): call frames, the memory-check cache in front of ctx.mem, and the
// outcome the dispatch loop hands back to interpreter.cpp, which turns it into an InterpResult.
#pragma once
#include <cstdint>
#include <cstring>

#include "isa/insn.hpp"
#include "runtime/context.hpp"

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
    explicit MemCache(const runtime::RunMemory& mem) : mem_(mem) {}
    bool readable(uint64_t a, uint64_t n) {
        return rd_[0].contains(a, n) || rd_[1].contains(a, n) || refill(rd_, a, n, runtime::kPermRead);
    }
    bool writable(uint64_t a, uint64_t n) {
        return wr_[0].contains(a, n) || wr_[1].contains(a, n) || refill(wr_, a, n, runtime::kPermWrite);
    }
    bool read_writable(uint64_t a, uint64_t n) { // atomics
        return wr_[0].contains(a, n) || wr_[1].contains(a, n) || refill(wr_, a, n, runtime::kPermRW);
    }
    void clear() { rd_[0] = rd_[1] = wr_[0] = wr_[1] = CachedRegion{}; }

  private:
    // Looks the access up in ctx.mem with the permissions `need`; caches the region when it grants the cache's.
    bool refill(CachedRegion* c, uint64_t a, uint64_t n, uint8_t need);
    const runtime::RunMemory& mem_;
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
};

struct Outcome {
    Stop stop = Stop::exit;
    uint64_t r0 = 0;
    const isa::Insn* at = nullptr; // the instruction that stopped the run
    uint64_t addr = 0;
    uint64_t size = 0;
    uint64_t executed = 0;
};

// The dispatch loop (dispatch.cpp): runs from insns[0] until exit or a stop condition.
void execute(const isa::Insn* insns, uint64_t r1, uint64_t r2, runtime::RunContext& ctx, runtime::StackArea& stack,
             uint64_t insn_limit, Outcome& out);

} // namespace strbpf::exec::interp
