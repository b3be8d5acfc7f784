// The verifier's working environment (verifier stage, internal): the program under check, its subprograms and
// static facts (prune points, register liveness), the current path's state, and the rejection being reported.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "isa/opcodes.hpp"
#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"
#include "verifier/domain/state.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::verifier {

inline constexpr uint64_t kComplexityLimitInsns = 1000000; // BPF_COMPLEXITY_LIMIT_INSNS
inline constexpr int kComplexityLimitJmpSeq = 8192;        // BPF_COMPLEXITY_LIMIT_JMP_SEQ
inline constexpr uint64_t kMaxVarOff = 1ull << 29;          // BPF_MAX_VAR_OFF
inline constexpr uint64_t kMaxVarSiz = 1ull << 29;          // BPF_MAX_VAR_SIZ

struct Subprog {
    int32_t start = 0;
    int32_t end = 0; // one past the last insn
    std::string name;
    uint32_t btf_type = 0;
    bool global = false;
};

// One executed instruction of the current path, for precision backtracking (precision.cpp).
struct HistEntry {
    int32_t pc = 0;
    uint8_t frame = 0;     // frame the insn ran in
    int8_t sframe = -1;    // stack accesses at a constant offset: the frame whose stack was touched
    uint8_t flags = 0;     // kHist*
    int32_t linked = -1;   // conditional jumps: index into Env::linked_sets of scalars sharing an operand's id
    uint64_t smask = 0;    // stack slots touched (bit i = fp-8*(i+1))
};
inline constexpr uint8_t kHistFullSlot = 1;    // a store that overwrote whole 8-byte slot(s)
inline constexpr uint8_t kHistCallbackRet = 2; // an exit from a callback frame (back to the helper call)

// Registers (per frame) and stack slots (per frame) whose values must be known exactly.
struct BtSet {
    std::array<uint16_t, isa::kMaxCallDepth> regs{};
    std::array<uint64_t, isa::kMaxCallDepth> slots{};
    bool empty() const {
        for (size_t i = 0; i < regs.size(); i++)
            if (regs[i] || slots[i])
                return false;
        return true;
    }
};

// A checkpoint: a state saved at a prune point, used to cut later paths that are no more general.
struct StoredState {
    std::vector<HistEntry> hist; // the insns executed from `parent` to here
    State st;
    int32_t pc = 0;
    StoredState* parent = nullptr;
    uint32_t branches = 1; // paths from here still being explored
    uint32_t hit = 0, miss = 0;
    uint64_t hash = 0;     // of the current frame's registers (loop detection)
    bool evicted = false;
};

class Env {
  public:
    Env(const runtime::ObjectInstance& inst, const loader::ProgramSpec& prog, const Options& opts);

    // ---- rejection and log --------------------------------------------------------------------------
    bool fail(std::string line);      // records the reason (the last line printed) and returns false
    void note(const std::string& line); // a log line before the reason (e.g. "invalid access to map value, ...")
    bool failed() const { return failed_; }
    void log_line(const std::string& line) {
        if (opts.log_level > 0)
            log += line, log += '\n';
    }
    std::string source_note(int32_t pc) const; // "; <source> @ file:line" when line info says so, else ""

    // ---- program facts -------------------------------------------------------------------------------
    const isa::OpInfo* op(int32_t pc) const { return ops[pc]; }
    int subprog_of(int32_t pc) const;
    const loader::MapSpec* map_spec(uint32_t index) const;
    runtime::Map* map(uint32_t index) const { return inst.map(index); }
    uint32_t new_id() { return ++id_gen; }

    const runtime::ObjectInstance& inst;
    const loader::ProgramSpec& prog;
    Options opts;
    std::span<const isa::Insn> insns;
    std::vector<const isa::OpInfo*> ops;
    std::vector<Subprog> subprogs;
    std::vector<uint8_t> prune_point;
    std::vector<uint16_t> live_in; // registers read before written on some path from pc (bit i = r_i)
    std::vector<uint64_t> stack_live_in; // stack slots likewise (bit i = fp-8*(i+1)); all bits when unknown
    std::vector<uint8_t> callback_call;  // bpf_loop / bpf_for_each_map_elem calls: forced checkpoints

    // ---- path exploration ----------------------------------------------------------------------------
    State cur;
    StoredState* cur_parent = nullptr;
    int32_t pc = 0;
    int32_t prev_pc = -1;
    uint64_t insn_processed = 0;
    uint64_t jmps_processed = 0, prev_jmps = 0, prev_insns = 0;
    uint32_t id_gen = 0;
    uint64_t total_states = 0, peak_states = 0, cur_states = 0;

    // ---- precision (precision.cpp) -------------------------------------------------------------------
    std::vector<HistEntry> hist;   // insns executed since cur_parent
    HistEntry cur_entry;           // the insn being executed (stack access and links filled in as it runs)
    std::vector<BtSet> linked_sets;
    // A callback body to verify, set by do_helper_call; the walker pushes it as a pending path.
    bool callback_pending = false;
    State callback_state;
    int32_t callback_pc = 0;

    std::string log;
    std::string reason;
    int64_t fail_pc = -1;

  private:
    bool failed_ = false;
    size_t line_cursor_ = 0;
};

// cfg.cpp: subprograms, reachability ("unreachable insn %d"), prune points, register liveness.
bool check_cfg(Env& env);
// transfer.cpp: one instruction that is not a jump, call or exit.
bool do_alu(Env& env, const isa::OpInfo& op, const isa::Insn& insn);
bool do_load_store(Env& env, const isa::OpInfo& op, const isa::Insn& insn);
bool do_ld_imm64(Env& env, const isa::OpInfo& op, const isa::Insn& insn);
// checks.cpp: memory access through a pointer register.
enum class Access : uint8_t { read, write, helper_read, helper_write };
bool check_mem_access(Env& env, int regno, int32_t insn_off, int size, Access access, int value_regno,
                      bool sign_extend = false);
bool check_reg_init(Env& env, int regno);
// Region checks shared by memory access and helper arguments (checks.cpp).
bool check_helper_mem(Env& env, int regno, uint64_t size, bool zero_size_allowed, Access access);
// The constant SIZE-byte value the stack pointer in REGNO points at, when the state knows it.
bool stack_const(Env& env, int regno, int size, uint64_t* out);
// calls.cpp
bool do_helper_call(Env& env, const isa::Insn& insn);
bool do_kfunc_call(Env& env, const isa::Insn& insn);
bool do_local_call(Env& env, int32_t target); // pushes a frame and jumps
bool do_exit(Env& env, bool* path_done);     // returns from a frame, or ends the path
bool prepare_global_entry(Env& env, const Subprog& sp, State* st);
// branches.cpp: conditional jumps. *taken_only / *fall_only: which successors remain; branch_state gets the
// state for the taken successor when both remain.
bool do_cond_jump(Env& env, const isa::OpInfo& op, const isa::Insn& insn, State* branch_state, bool* take_jump,
                  bool* fall_through);
// states.cpp. range: imprecise scalars match any scalar; all_precise: every scalar compared by range (used
// against checkpoints whose paths are still being explored); exact: equality (infinite loops).
enum class Cmp : uint8_t { range, all_precise, exact };
bool states_equal(const Env& env, const State& old, const State& cur, int32_t pc, Cmp cmp);
uint64_t state_hash(const State& st);
// precision.cpp: marks the scalars in SET (values in the current state, before the current insn) precise in
// every checkpoint of the current path they flow from, backtracking through the path's instruction history.
void mark_precise(Env& env, BtSet set);
void mark_reg_precise(Env& env, int regno);             // a register of the current frame, if a scalar
BtSet precise_set_of(const State& st);                  // what a checkpoint has marked precise
BtSet all_scalars_of(const State& st);                  // every scalar register and spilled slot
void clear_precise(State& st);                          // a new checkpoint starts with no precise marks
void note_stack_access(Env& env, int frameno, int64_t off, int size, bool full_slot);

} // namespace strbpf::verifier
