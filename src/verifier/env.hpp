// SPDX-License-Identifier: BSD-2-Clause
// The verifier's working environment (verifier stage, internal), in four parts as the kernel's verifier keeps
// them: the program's facts computed before the walk (read-only during it), what the walk learns per instruction
// for the rewrite, the current path's state with the exploration's bookkeeping, and the log with the rejection.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "isa/opcodes.hpp"
#include "loader/btf_fields.hpp"
#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"
#include "verifier/domain/state.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::verifier {

inline constexpr uint64_t kComplexityLimitInsns = 1000000; // BPF_COMPLEXITY_LIMIT_INSNS
inline constexpr int kComplexityLimitJmpSeq = 8192;        // BPF_COMPLEXITY_LIMIT_JMP_SEQ
// is_state_visited's eviction: a checkpoint that missed more than hit * n + n times is no longer compared
// (n = 64 for a forced checkpoint still being explored, else 3).
inline constexpr uint32_t kMisses = 3, kForcedMisses = 64;
inline constexpr uint32_t kMaxJmpHistory = 40; // is_state_visited: "avoid accumulating infinitely long jmp history"
inline constexpr uint64_t kMaxVarOff = 1ull << 29;          // BPF_MAX_VAR_OFF
inline constexpr uint64_t kMaxVarSiz = 1ull << 29;          // BPF_MAX_VAR_SIZ

struct BtfAttach; // btf_target.hpp

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
inline constexpr uint8_t kHistFill = 1;        // a load that restored a spilled register (precision follows it)
inline constexpr uint8_t kHistSpill = 16;      // a store that spilled a register or an immediate into its slot
inline constexpr uint8_t kHistCallbackRet = 2; // an exit from a callback frame (back to the helper call)
// A conditional jump whose dst / src operand is a stack pointer (INSN_F_DST_REG_STACK / INSN_F_SRC_REG_STACK):
// backtracking does not ask for its precision.
inline constexpr uint8_t kHistDstStack = 4, kHistSrcStack = 8;

// Registers (per frame) and stack slots (per frame) whose values must be known exactly.
struct BtSet {
    std::array<uint16_t, isa::kMaxCallDepth> regs{};
    std::array<uint64_t, isa::kMaxCallDepth> slots{};
    bool empty() const { // one reduction, no branch per frame: backtracking asks after every insn
        uint64_t any = 0;
        for (size_t i = 0; i < regs.size(); i++)
            any |= regs[i] | slots[i];
        return any == 0;
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
    bool evicted = false;  // missed more than hit * n + n times (n = kMisses or kForcedMisses): no longer compared
};

// license_is_gpl_compatible() of include/linux/license.h: the licenses that may call gpl_only helpers and kfuncs.
bool license_is_gpl_compatible(std::string_view license);

// (a) What the program is: facts the passes before the walk compute (the constructor, find_prog_arena,
// resolve_attach_target, check_cfg) and the walk only reads (Env::facts is const). The kernel keeps these in
// bpf_verifier_env and bpf_prog_aux.
struct KptrRecord; // kptr.hpp

struct ProgramFacts {
    ProgramFacts(const runtime::ObjectInstance& inst, const loader::ProgramSpec& prog, const Options& opts);

    const isa::OpInfo* op(int32_t pc) const { return ops[pc]; }
    int subprog_of(int32_t pc) const;
    const loader::MapSpec* map_spec(uint32_t index) const;
    runtime::Map* map(uint32_t index) const { return inst.map(index); }

    const runtime::ObjectInstance& inst;
    const loader::ProgramSpec& prog;
    Options opts; // log_level: VerifierLog::level is the one the walk reads
    KernelVariant variant; // the kernel build modelled: opts.variant, else the process default
    std::span<const isa::Insn> insns;
    std::vector<const isa::OpInfo*> ops;
    std::vector<Subprog> subprogs;
    std::vector<uint8_t> prune_point;
    // A program that calls bpf_throw: each insn's strongly connected component of the insn graph (compute_scc's
    // numbering; 0: in none, a component being two insns or more, or one with an edge to itself), for 6.18's check of
    // an exception exit inside one (scc.cpp). Empty for every other program.
    std::vector<uint32_t> insn_scc;
    std::vector<uint16_t> live_in; // registers read before written on some path from pc (bit i = r_i)
    std::vector<uint64_t> stack_live_in; // stack slots likewise (bit i = fp-8*(i+1)); all bits when unknown
    std::vector<uint8_t> callback_call;  // bpf_loop / bpf_for_each_map_elem calls: forced checkpoints
    // The kernel's jmp points: insns a path may reach other than from the insn before (jump targets, the insn
    // after a call, callback calls). The kernel's per-path jump history records them (and stack accesses).
    std::vector<uint8_t> jmp_point;
    std::vector<uint8_t> loop_point;     // may_goto and iterator next calls: forced checkpoints closing loops
    // The subprogram the main function's `exception_callback:` decl tag names (exception_cb.cpp; the kernel's
    // env->exception_callback_subprog), -1 for none: a throw then runs the default callback.
    int exception_cb = -1;
    int32_t exception_cb_start = -1; // its first insn, known before the subprograms are (verifier.cpp)
    // The arena the program's ld_imm64s name (the kernel's prog->aux->arena; arena.cpp), -1 for none.
    int32_t arena_map = -1;
    bool gpl_compatible = false;         // the object's license is one the kernel counts as GPL-compatible
    // BTF-typed programs (tracing, lsm): the attach target in kernel BTF (btf_target.cpp); null for other types.
    std::shared_ptr<const BtfAttach> attach;
    bool attach_on_running_kernel = false; // the target BTF is the running kernel's: its symbols can be asked
    // Per map, where its value holds a struct bpf_spin_lock (refs.cpp: spin_lock_offset), found on first use: a
    // cache of a fact of the maps, filled in during the walk.
    mutable std::vector<int32_t> spin_lock_offs;
    mutable std::vector<int32_t> timer_offs; // the same for struct bpf_timer (timer.cpp: timer_offset)
    mutable std::vector<std::shared_ptr<const KptrRecord>> kptr_records; // kptr fields (kptr.cpp)
    mutable std::string kptr_btf_error; // kptr.cpp: why the kernel refuses the object's BTF + "\n"; '' unknown
    // Program-local structs' records (btf_parse_struct_metas), by type ID (alloc_obj.cpp).
    mutable std::map<uint32_t, std::shared_ptr<const loader::StructMeta>> struct_metas;
};

// (b) What the walk learned per instruction, for the rewrite (verified_program.cpp) and the engines: the kernel's
// insn_aux_data and the per-program results of the walk.
struct InsnAux {
    explicit InsnAux(size_t n) : seen(n, 0), insn_ptr_type(n, RegType::not_init) {}

    // Insns some path executed (the kernel's insn_aux_data.seen): the verified program replaces unseen ones whose
    // operands an engine would refuse (isa::check_operands) with the kernel's dead-code trap, `ja -1`.
    std::vector<uint8_t> seen;
    // Per load/store insn, the pointer type it accessed through on the first path that reached it (the kernel's
    // insn_aux_data.ptr_type): ctx accesses are rewritten per insn, so no other path may use another type there.
    std::vector<RegType> insn_ptr_type;
    std::vector<int32_t> insn_ptr_mixed; // load/store pcs reached through different (non-ctx) pointer types
    // Load/store pcs that accessed a bpf_obj_new object (MEM_ALLOC, recorded as RegType::mem: plain memory to the
    // engines); the kernel's save_aux_ptr_type keeps PTR_TO_BTF_ID there, which no other pointer type may share.
    std::vector<int32_t> insn_alloc;
    // Helper call pcs that were given kernel object memory (PTR_TO_BTF_ID | PTR_TRUSTED as ARG_PTR_TO_MEM): the
    // engines run no such call (runner.cpp's check_btf_loads), as the objects are not the run's memory.
    std::vector<int32_t> btf_mem_calls;
    // The first bpf_throw reached in a callback (or in what a callback called): its insn and subprogram, refused
    // after the walk as check_max_stack_depth refuses it (the walk's own refusals come first).
    int32_t throw_in_callback_pc = -1, throw_in_callback_subprog = -1;
    // The call chains (callsites, then the component) of the checkpoints made inside a component (scc.cpp): the
    // kernel's bpf_scc_visit instances, which maybe_enter_scc allocates for the whole verification.
    std::set<std::vector<int32_t>> scc_visits;
    // Per call of bpf_obj_new / _drop, bpf_refcount_acquire, a list push or bpf_rbtree_add: the struct meta its object
    // has (the struct's type ID, 0 for a struct without special fields), the kernel's insn_aux kptr_struct_meta,
    // which every path through the call must agree on (graph.cpp).
    std::map<int32_t, uint32_t> kfunc_struct_meta;
    int32_t map_view_slot = -1; // runtime::Map::kernel_view_slot() once a read through a map pointer is accepted
    std::map<int32_t, CallFacts> call_facts; // per string call reached (linked pc): its argument facts
    // Per insn whether a 64-bit ALU op had an arena operand on some path (the kernel's needs_zext: it becomes
    // 32-bit).
    std::vector<uint8_t> arena_zext;
    // A bpf_throw call was verified (the kernel's env->seen_exception): without the program's own exception
    // callback, the kernel appends its default one as a hidden subprogram after the walk.
    bool seen_exception = false;
    uint32_t max_ctx_offset = 0;         // furthest ctx byte accessed (off + size)
    int32_t min_ctx_offset = 0;          // lowest negative ctx offset accessed
    int64_t max_tp_access = 0;           // furthest tracepoint buffer byte accessed (off + size; raw_tp.w)
    std::vector<int32_t> stack_depth;    // per subprogram: the deepest stack byte any path touched, in 8-byte slots
    // Per subprogram, whether a path set it as a timer callback (the kernel's subprog_info.is_async_cb): its own
    // root of the stack-depth check, not its referrer's callee.
    std::vector<uint8_t> async_cb;
    bool is_async_cb(size_t subprog) const { return subprog < async_cb.size() && async_cb[subprog]; }
    // Per subprogram, whether a path entered it as a callback of any kind, or it is the exception callback (the
    // kernel's subprog_info.is_cb): check_max_stack_depth refuses a bpf_throw in it or in what it calls.
    std::vector<uint8_t> is_cb;
    void mark_cb(int subprog) {
        if (subprog < 0)
            return;
        if (is_cb.size() <= size_t(subprog))
            is_cb.resize(size_t(subprog) + 1, 0);
        is_cb[size_t(subprog)] = 1;
    }
    bool cb(size_t subprog) const { return subprog < is_cb.size() && is_cb[subprog]; }
    // bpf_fastcall patterns (fastcall.cpp): per subprogram the offset their slots lie below (the kernel's
    // fastcall_stack_off; INT16_MIN once another access touched them) and whether a call the kernel does not inline
    // keeps them (keep_fastcall_stack); per insn whether it is a pattern's spill or fill, and per inlined call how
    // many pairs the kernel drops.
    struct Fastcall {
        std::vector<int32_t> stack_off;
        std::vector<uint8_t> keep;
        std::vector<uint8_t> pattern;
        std::vector<uint8_t> spills;
    } fastcall;
    // The kernel's stack_depth after it dropped the fastcall patterns: what the combined stack limit and the
    // statistics count (stack_depth stays the stack the engines' code touches).
    std::vector<int32_t> kernel_stack_depth;
    // Per bpf_loop call reached (pc): whether every visit had a zero flags argument and the same callback (the
    // kernel's loop_inline_state.fit_for_inline: the kernel then inlines the loop).
    struct LoopInline {
        bool fit = false;
        int32_t callback = -1;
    };
    std::map<int32_t, LoopInline> loop_inline;
    // Per subprogram: a path called it as a global function (the kernel's func_info_aux.called): only those are
    // verified on their own after the main program.
    std::vector<uint8_t> global_called;
};

// A path an instruction's transfer function hands the walker to explore later (the kernel's push_stack /
// push_async_cb), instead of continuing the current one there.
struct Fork {
    enum class Kind : uint8_t {
        again,    // the same insn again with another state (maybe_fork_scalars: the zero half of a 0-or-1 mask)
        path,     // a callback body, an iterator's active branch: a path with the current one's history
        async,    // an async callback's body: no parent state, no history (push_async_cb)
        ld_abs,   // LD_ABS/IND in a subprogram: its successful load; the current path is its failure, an exit
    };
    Kind kind = Kind::path;
    State st;
    int32_t pc = 0;
};

// (c) The current path and the exploration's bookkeeping: the kernel's bpf_verifier_state being walked (cur),
// its parent checkpoint and jump history, the counters behind the complexity limits and the statistics.
struct PathState {
    uint32_t new_id() { return ++id_gen; }

    State cur;
    StoredState* cur_parent = nullptr;
    int32_t pc = 0;
    int32_t prev_pc = -1;
    uint64_t insn_processed = 0;
    uint64_t jmps_processed = 0, prev_jmps = 0, prev_insns = 0;
    uint32_t id_gen = 0;
    uint64_t total_states = 0, peak_states = 0, cur_states = 0;
    // Per insn, its checkpoints still being explored (branches > 0), oldest first. They all lie on the current
    // path (the walk is depth-first), so the last one whose call sites match is the nearest such ancestor.
    std::vector<std::vector<StoredState*>> open_checkpoints;
    // Precision (precision.cpp): the insns executed since cur_parent, and how many of them the kernel's jump
    // history holds (jmp points, fixed-offset stack accesses, linked scalars at a conditional jump): past
    // kMaxJmpHistory a prune point forces a checkpoint, as is_state_visited does.
    std::vector<HistEntry> hist;
    uint32_t jmp_history = 0;
    HistEntry cur_entry;           // the insn being executed (stack access and links filled in as it runs)
    std::vector<BtSet> linked_sets;
    // What the insn being executed forks off (set by do_alu, do_load_store, do_helper_call, do_kfunc_call; the
    // walker pushes it as a pending path before the insn's own successor). At most one per insn.
    std::optional<Fork> fork;
    // bpf_throw ended the path at the insn being executed (process_bpf_exit_full's exception exit).
    bool exception_exit = false;
};

// (d) The log and the rejection. Kernel-style log state (log_state.cpp): registers and stack slots (by slot index,
// any frame) the current instruction touched; where the last instruction line starts and how long it is; the
// last line info printed.
struct VerifierLog {
    // Records the reason (the last line printed; PC: where, unless set before) and returns false.
    bool fail(std::string line, int32_t pc);
    void note(const std::string& line) { text += line, text += '\n'; } // a log line before the reason
    bool failed() const { return failed_; }

    int level = 0; // Options::log_level (0 while marks beyond the kernel's are made: not in its log)
    std::string text;
    uint16_t scratched_regs = 0;
    uint64_t scratched_slots = 0;
    size_t prev_log_pos = 0, prev_insn_print_pos = 0;
    int prev_linfo = -1;
    std::string reason;
    int64_t fail_pc = -1;

  private:
    bool failed_ = false;
};

// The verifier's working environment: the four parts above. The passes before the walk fill the program facts in
// through setup_facts(); the walk and everything it calls see them through the const `facts`.
class Env {
  public:
    Env(const runtime::ObjectInstance& inst, const loader::ProgramSpec& prog, const Options& opts);
    Env(const Env&) = delete;
    Env& operator=(const Env&) = delete;

    ProgramFacts& setup_facts() { return facts_; } // only before the walk: cfg.cpp, arena.cpp, btf_target.cpp

  private:
    ProgramFacts facts_;

  public:
    const ProgramFacts& facts = facts_;
    InsnAux aux;
    PathState path;
    VerifierLog log;

    // ---- rejection and log --------------------------------------------------------------------------
    bool fail(std::string line) { return log.fail(std::move(line), path.pc); }
    void note(const std::string& line) { log.note(line); }
    bool failed() const { return log.failed(); }
    void log_line(const std::string& line) {
        if (log.level > 0)
            log.note(line);
    }
};

// log_state.cpp: the kernel's print_reg_state / print_verifier_state (ALL: every register and slot, else only the
// scratched ones), print_insn_state (the "; R0=..." column), verbose_linfo.
std::string kernel_reg_str(const Env& env, const Reg& r, int frameno);
// The kernel's name of map INDEX as libbpf creates it (map->name in the kernel's messages): "" for an inner map.
std::string kernel_map_name(const Env& env, uint32_t index);
std::string kernel_state_str(const Env& env, const State& st, int frameno, bool all);
void mark_all_scratched(Env& env);
void print_insn_state(Env& env);
void print_linfo(Env& env, int32_t pc);
std::string insn_text(const Env& env, int32_t pc); // log.cpp: an insn as the kernel's print_bpf_insn prints it
// log.cpp: what the kernel calls a map-in-map lookup's result before its null check: the outer map's
// map_value_or_null, or map_ptr_or_null in builds that type lookups at the call (KernelVariant::typed_lookup).
const char* inner_lookup_type_name(const Env& env);
void log_main_args(Env& env); // calls.cpp: btf_prepare_func_args' complaint about the main function's arguments

// retval.cpp: enum bpf_attach_type values (the kernel's UAPI numbers) that change a verification rule.
enum : uint32_t {
    kAttachCgroupInetEgress = 1,
    kAttachCgroupInet4Bind = 8,
    kAttachCgroupInet6Bind = 9,
    kAttachCgroupUdp4Recvmsg = 19,
    kAttachCgroupUdp6Recvmsg = 20,
    kAttachCgroupInet4Getpeername = 29,
    kAttachCgroupInet6Getpeername = 30,
    kAttachCgroupInet4Getsockname = 31,
    kAttachCgroupInet6Getsockname = 32,
    kAttachXdpDevmap = 33,
    kAttachXdpCpumap = 35,
    kAttachCgroupUnixRecvmsg = 51,
    kAttachCgroupUnixGetpeername = 52,
    kAttachCgroupUnixGetsockname = 53,
    kAttachTraceKprobeSession = 56,
    kAttachTraceUprobeSession = 57,
};
struct RetvalRange {
    int64_t lo = 0, hi = 1;
};
// The expected attach type libbpf derives from PROG's SEC() name (0 when the section names none).
uint32_t expected_attach_type(const loader::ProgramSpec& prog);
// The first call insn (its pc) in subprogram IDX, or in a subprogram it calls (and, THROUGH_FUNC_REFS, one it takes
// as a callback), for which MATCH holds; -1 for none. SEEN (one flag per subprogram) keeps each walked once. What
// check_cfg merges from callees: might_sleep, changes_pkt_data, a bpf_throw (calls.cpp, preempt.cpp).
int32_t find_call_in_callees(const Env& env, int idx, std::vector<bool>& seen, bool through_func_refs,
                             const std::function<bool(const isa::Insn&)>& match);
// The range R0 must be in at the program's exit (enum bpf_prog_type value, attach type); false: any value.
bool program_retval_range(uint32_t prog_type, uint32_t attach, RetvalRange* range);
// check_return_code's test of REGNO (R0 at an exit, bpf_throw's cookie in R1) against RANGE, in the kernel's words.
bool check_exit_reg_range(Env& env, int regno, const RetvalRange& range);
bool check_return_code(Env& env); // the exit of frame 0 (the program, or a global subprogram verified alone)
std::string invalid_scalar_msg(const Reg& r, const char* ctx, const char* reg, int64_t lo, int64_t hi);

// calls.cpp: a call's clear_caller_saved_regs: R0-R5 uninitialized (R0 until the call's result is set) and marked
// scratched, so the next instruction's state prints them.
void clear_caller_saved(Env& env);
// calls.cpp: push_callback_call's frame: CALLEE (its argument registers set) entered at ENTRY on a copy ST of the
// caller's state, as a pending path; the caller goes on after the call (bpf_loop and the other sync callbacks,
// bpf_rbtree_add's `less`).
void push_callback_frame(Env& env, State st, Frame callee, int32_t entry);

// stack_depth.cpp: a stack access reaching down to MIN_OFF in frame FRAMENO deepens its subprogram's stack; after
// the walk, "combined stack size of %d calls is %d. Too large" over the static call graph.
void update_stack_depth(Env& env, int frameno, int64_t min_off);
bool check_max_stack_depth(Env& env);

// exception_cb.cpp (exception_callback_refusal: verifier.hpp). exception_cb_entry_problem: what the kernel finds
// wrong with the callback's prototype when it starts verifying it (btf_prepare_func_args, then "exception cb only
// supports single integer argument"); "" for nothing.
std::string exception_cb_entry_problem(const Env& env, const Subprog& sp);

// fastcall.cpp: the kernel's bpf_fastcall patterns, found before the walk (mark_fastcall_patterns), given up for
// a subprogram when a stack access of the insn at path.pc outside them reaches their slots (OFF: the access's
// offset in SUBPROG's frame), and dropped after the walk (remove_fastcall_stack: kernel_stack_depth); a bpf_loop
// call's inlining state at each visit; the per-subprogram depths print_verification_stats prints.
void mark_fastcall_patterns(Env& env);
void check_fastcall_stack_contract(Env& env, int subprog, int64_t off);
void remove_fastcall_stack(Env& env);
int32_t kernel_stack_depth(const Env& env, size_t subprog);
void update_loop_inline(Env& env, int32_t callback_subprog, bool flags_zero);
std::vector<int32_t> reported_stack_depths(const Env& env);

// dead_code.cpp: after an accepting walk, the kernel removes the insns no path reached (SEEN: per insn, whether
// one did) and then finds each remaining local call's and callback reference's subprogram; a reference left
// pointing at no subprogram is its "verifier bug: No program to jit at insn %d (subprog < 0)".
bool check_subprog_refs(Env& env, const std::vector<uint8_t>& seen);

// cfg.cpp: subprograms, reachability ("unreachable insn %d"), prune points, register liveness.
bool check_cfg(Env& env);
// cfg.cpp (compute_insn_scc) and scc.cpp: Linux 6.18's strongly connected components of the insn graph, as far as
// they decide a verdict. The
// kernel ends a path at a bpf_throw as at an exit and leaves the component the throw is in; with no checkpoint ever
// made inside that component (for the same call chain) it has no record of entering it and refuses the program,
// `verifier bug: scc exit: no visit info for call chain (N)`. compute: ProgramFacts::insn_scc, for a program that
// calls bpf_throw; note_checkpoint: a checkpoint made at the current insn; check_throw_scc_exit: that refusal.
void compute_insn_scc(Env& env);
void note_scc_checkpoint(Env& env);
bool check_throw_scc_exit(Env& env);
// transfer.cpp: one instruction that is not a jump, call or exit.
bool do_alu(Env& env, const isa::OpInfo& op, const isa::Insn& insn);
bool do_load_store(Env& env, const isa::OpInfo& op, const isa::Insn& insn);
bool do_ld_imm64(Env& env, const isa::OpInfo& op, const isa::Insn& insn);
// The kernel's assign_scalar_id_before_mov: a scalar about to be copied (mov, spill, 32-bit fill) gets an id to tie
// the copies (a new one unless it has one; none for a constant; a tie by a constant delta is dropped first).
void assign_id_before_mov(Env& env, Reg& src);
// checks.cpp: memory access through a pointer register.
enum class Access : uint8_t { read, write, helper_read, helper_write };
// strict_once: check alignment strictly whatever the program's flags (the kernel's strict_alignment_once, atomics).
bool check_mem_access(Env& env, int regno, int32_t insn_off, int size, Access access, int value_regno,
                      bool sign_extend = false, bool strict_once = false);
bool check_reg_init(Env& env, int regno);
// __check_ptr_off_reg for the ctx in REGNO: only as the program got it ("negative offset ctx ptr R1 off=-8
// disallowed", "dereference of modified ctx ptr ...", "variable ctx access var_off=... disallowed").
bool check_ctx_reg_off(Env& env, int regno);
// The operand rules of the insn being walked (isa::operand_error) in the kernel's words: "BPF_ALU uses reserved
// fields" and its kin, "R%d is invalid", "frame pointer is read only".
bool check_insn_operands(Env& env, const isa::OpInfo& op, const isa::Insn& insn);
// ctx_access.cpp: whether the program type lets a load (or store) of SIZE bytes at ctx offset OFF through; *field:
// what a load gives (a scalar, or pkt / pkt_end / pkt_meta).
bool ctx_access_valid(const Env& env, int32_t off, int size, bool write, bool sign_extend, RegType* field);
// may_access_direct_pkt_data for a store: whether TYPE may write through a packet pointer.
bool packet_writable(loader::ProgType type);
// Region checks shared by memory access and helper arguments (checks.cpp).
bool check_helper_mem(Env& env, int regno, uint64_t size, bool zero_size_allowed, Access access);
bool check_aligned_arg(Env& env, int regno, int size); // MEM_ALIGNED arguments: always strict
// The constant SIZE-byte value the stack pointer in REGNO points at, when the state knows it.
bool stack_const(Env& env, int regno, int size, uint64_t* out);
// calls.cpp
bool do_helper_call(Env& env, const isa::Insn& insn);
bool do_kfunc_call(Env& env, const isa::Insn& insn);
bool do_local_call(Env& env, int32_t target); // pushes a frame and jumps
bool do_exit(Env& env, bool* path_done);     // returns from a frame, or ends the path
bool prepare_global_entry(Env& env, const Subprog& sp, State* st);
// refs.cpp: acquired references (State::refs). acquire: a new id for the object the call at INSN hands out;
// release: false when ID is not held, else every copy of the pointer becomes an unknown scalar; nomark: only the
// reference goes (a null check's NULL branch); leak: in the main frame, "Unreleased reference id=%d
// alloc_insn=%d" for each one held, then "PREFIX would lead to reference leak".
uint32_t acquire_reference(Env& env, int32_t insn);
// KEEP_PERCPU: bpf_kptr_xchg's release inside an RCU read-side section, where a copy of a percpu object (MEM_ALLOC |
// MEM_PERCPU) stays usable as the map's, MEM_PERCPU | MEM_RCU without the reference.
bool release_reference(Env& env, uint32_t id, bool keep_percpu = false);
bool release_reference_nomark(State& st, uint32_t id);
bool check_reference_leak(Env& env, const char* prefix, bool exception_exit = false);
// branches.cpp: conditional jumps. *taken_only / *fall_only: which successors remain; branch_state gets the
// state for the taken successor when both remain.
bool do_cond_jump(Env& env, const isa::OpInfo& op, const isa::Insn& insn, State* branch_state, bool* take_jump,
                  bool* fall_through);
// states.cpp. range: imprecise scalars match any scalar; all_precise: every scalar compared by range (used
// against checkpoints whose paths are still being explored); exact: equality (infinite loops).
enum class Cmp : uint8_t { range, all_precise, exact };
bool states_equal(const Env& env, const State& old, const State& cur, int32_t pc, Cmp cmp);
// The kernel's states_maybe_looping: the current frames' registers are bit for bit alike (precision aside), the
// cheap test before an exact comparison for an infinite loop.
bool states_maybe_looping(const State& old, const State& cur);
// precision.cpp: marks the scalars in SET (values in the current state, before the current insn) precise in
// every checkpoint of the current path they flow from, backtracking through the path's instruction history;
// true when some checkpoint was not marked so before.
bool mark_precise(Env& env, BtSet set);
void mark_reg_precise(Env& env, int regno);             // a register of the current frame, if a scalar
BtSet precise_set_of(const State& st);                  // what a checkpoint has marked precise
// What the checkpoint OLD a path was pruned against marked precise, marked in the current path too (logged at
// level 2 as "frame %d: propagating r1,fp-8").
void propagate_precision(Env& env, const State& old);
BtSet all_scalars_of(const State& st); // every scalar register and spilled slot
void clear_precise(State& st);                          // a new checkpoint starts with no precise marks
void note_stack_access(Env& env, int frameno, int64_t off, int size);

} // namespace strbpf::verifier
