// SPDX-License-Identifier: BSD-2-Clause
// The verifier's driver (verifier stage): walks every path of the program depth-first from the entry (and from
// each global subprogram), one abstract state at a time, saving checkpoints at prune points and cutting paths
// that reach a checkpoint already proven safe. See src/verifier/README.md for the theory of operation.
#include "verifier/arena.hpp"
#include "verifier/verifier.hpp"
#include "verifier/map_rules.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <unordered_map>

#include "isa/disasm.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/callsite_facts.hpp"
#include "verifier/env.hpp"
#include "verifier/iter.hpp"
#include "verifier/kfunc_btf.hpp"
#include "verifier/sock.hpp"
#include "verifier/rewrite.hpp"

namespace strbpf::verifier {
namespace {

// An encoding error in the kernel's words where it has its own: an opcode no instruction has is refused by the
// first pass over every instruction (resolve_pseudo_ldimm64: "unknown opcode %02x").
std::string encoding_reason(const std::string& isa_message) {
    unsigned pc = 0, opcode = 0;
    char tail = 0;
    if (std::sscanf(isa_message.c_str(), "pc %u: invalid opcode 0x%x%c", &pc, &opcode, &tail) == 2)
        return fmt::format("unknown opcode {:02x}", opcode);
    return isa_message;
}

using isa::Shape;

constexpr int kLogStats = 4; // BPF_LOG_STATS

// What the kernel refuses before it walks a program (resolve_pseudo_ldimm64: "BPF_LDX uses reserved fields", then
// the ld_imm64 forms and opcodes; check_subprogs / check_cfg: jumps): isa::validate's load scope. The other operand
// rules (isa::check_operands) apply only to the insns the walk reaches (check_insn_operands).
Status upfront_checks(std::span<const isa::Insn> insns) {
    for (size_t pc = 0; pc < insns.size(); pc++)
        if ((insns[pc].opcode & 0x07) == isa::BPF_LDX && insns[pc].imm != 0)
            return make_error("BPF_LDX uses reserved fields", -22, int64_t(pc));
    return isa::validate(insns, isa::Scope::load);
}

struct Pending {
    State st;
    int32_t pc = 0;
    int32_t from = 0;
    StoredState* parent = nullptr;
    std::vector<HistEntry> hist;
    uint32_t jmp_history = 0;
    size_t log_pos = 0; // the log's length at the fork: level 1 keeps only the log of the path that fails
};

// Registers check_reg_arg marks scratched for the log: those the insn reads or writes (opcodes.def's columns),
// except at an exit and a local call, which change frames without checking registers one by one.
uint16_t insn_regs(const isa::OpInfo& op, const isa::Insn& insn) {
    if (op.shape == Shape::EXIT || op.shape == Shape::CALL_LOCAL)
        return 0;
    return uint16_t(isa::regs_read(op, insn) | isa::regs_written(op, insn));
}

// The kernel's callback_unroll_depth in the infinite-loop check: two rounds of a callback are never one loop.
bool same_callback_rounds(const State& a, const State& b) {
    if (a.frames.size() != b.frames.size())
        return false;
    for (size_t i = 0; i < a.frames.size(); i++)
        if (a.frames[i].callback_depth != b.frames[i].callback_depth)
            return false;
    return true;
}

class Walker {
  public:
    explicit Walker(Env& env) : env_(env), explored_(env.facts.insns.size()), seen_(env.facts.insns.size() + 1) {
        env_.path.open_checkpoints.assign(env.facts.insns.size(), {});
    }

    bool run(int32_t entry, State initial) {
        initial.in_sleepable = env_.facts.prog.sleepable; // do_check_common
        env_.path.cur = std::move(initial);
        env_.path.pc = entry;
        env_.path.cur_parent = nullptr;
        env_.path.hist.clear();
        env_.path.jmp_history = 0;
        pending_.clear();
        for (std::vector<StoredState*>& open : env_.path.open_checkpoints)
            open.clear();
        mark_all_scratched(env_);
        for (;;) {
            bool path_done = false;
            if (!step(&path_done))
                return false;
            if (!path_done)
                continue;
            finish_path();
            if (pending_.empty()) {
                if ((env_.log.level & 3) == 1)
                    env_.log.text.clear(); // the kernel keeps no log of a successful check at level 1
                return true;
            }
            Pending p = std::move(pending_.back());
            pending_.pop_back();
            env_.path.cur = std::move(p.st);
            env_.path.pc = p.pc;
            env_.path.prev_pc = p.from;
            env_.path.cur_parent = p.parent;
            env_.path.hist = std::move(p.hist);
            env_.path.jmp_history = p.jmp_history;
            if ((env_.log.level & 3) == 1)
                env_.log.text.resize(p.log_pos); // pop_stack: only the failing path's log remains
            mark_all_scratched(env_);
            from_pop_ = true;
        }
    }

    // The most checkpoints one prune point had when a path reached it (the kernel's max_states_per_insn).
    size_t max_states_per_insn() const { return max_states_; }
    // Per insn: whether a path reached it (the kernel's insn_aux_data.seen; both slots of an ld_imm64).
    const std::vector<uint8_t>& seen() const { return seen_; }

  private:
    // A path ended: checkpoints whose every path is now explored become usable for pruning (they stay in their
    // insn's list); an evicted one no longer counts towards the peak once nothing below it is explored.
    void finish_path() {
        for (StoredState* s = env_.path.cur_parent; s; s = s->parent) {
            if (--s->branches)
                break;
            close_checkpoint(s);
            if (s->evicted)
                env_.path.cur_states--;
            if (auto it = backedges_.find(s); it != backedges_.end()) {
                propagate_backedges(it->second);
                backedges_.erase(it);
            }
        }
    }

    // S is explored: it leaves its insn's open checkpoints, where it is the last (any later one there would be
    // below it, and so explored before it).
    void close_checkpoint(StoredState* s) {
        std::vector<StoredState*>& open = env_.path.open_checkpoints[size_t(s->pc)];
        auto it = std::find(open.rbegin(), open.rend(), s);
        if (it != open.rend())
            open.erase(std::next(it).base());
    }

    // A path cut against a checkpoint whose precision marks were not final (one still being explored: a callback
    // round back at its helper call; or one inside such a loop): what the checkpoint marks later, the cut path
    // relies on too. Kept, with the path's history, until the loop's head is explored (the kernel's backedges).
    struct Backedge {
        State st;
        StoredState* parent = nullptr;
        std::vector<HistEntry> hist;
        const StoredState* equal = nullptr;
    };

    // The innermost loop head (a checkpoint still being explored that paths were cut against) above S, if any.
    StoredState* open_loop_of(StoredState* s) {
        if (backedges_.empty())
            return nullptr;
        for (; s; s = s->parent)
            if (s->branches > 0 && backedges_.count(s))
                return s;
        return nullptr;
    }

    void add_backedge(StoredState* head, const StoredState* equal) {
        backedges_[head].push_back(Backedge{env_.path.cur, env_.path.cur_parent, env_.path.hist, equal});
    }

    // The loop is explored: each cut path takes the marks of the checkpoint it was cut against, again until none
    // adds a mark (marks reaching one checkpoint can reach another through a later path).
    void propagate_backedges(std::vector<Backedge>& list) {
        std::swap(saved_.st, env_.path.cur);
        std::swap(saved_.hist, env_.path.hist);
        StoredState* parent = env_.path.cur_parent;
        for (bool changed = true; changed;) {
            changed = false;
            for (Backedge& b : list) {
                std::swap(env_.path.cur, b.st);
                std::swap(env_.path.hist, b.hist);
                env_.path.cur_parent = b.parent;
                changed = mark_precise(env_, precise_set_of(b.equal->st)) || changed;
                std::swap(env_.path.cur, b.st);
                std::swap(env_.path.hist, b.hist);
            }
        }
        env_.path.cur_parent = parent;
        std::swap(saved_.st, env_.path.cur);
        std::swap(saved_.hist, env_.path.hist);
    }

    // A path to explore later from TARGET; WITH_CURRENT: the insn being executed is in its history (not when the
    // path executes that insn again).
    bool push(State st, int32_t target, bool with_current = true) {
        if (pending_.size() + 1 > size_t(kComplexityLimitJmpSeq))
            return env_.fail(fmt::format("The sequence of {} jumps is too complex.", pending_.size() + 1));
        if (env_.path.cur_parent)
            env_.path.cur_parent->branches++;
        if (with_current)
            commit_entry();
        pending_.push_back(Pending{std::move(st), target, env_.path.pc, env_.path.cur_parent, env_.path.hist,
                                   env_.path.jmp_history, env_.log.text.size()});
        return true;
    }

    // An async callback's path (push_async_cb): a fresh state with no parent and no history, so nothing found
    // on it reaches back into the path that set the callback.
    bool push_async(State st, int32_t target) {
        if (pending_.size() + 1 > size_t(kComplexityLimitJmpSeq))
            return env_.fail(fmt::format("The sequence of {} jumps is too complex for async cb.", pending_.size() + 1));
        pending_.push_back(Pending{std::move(st), target, env_.path.pc, nullptr, {}, 0, env_.log.text.size()});
        return true;
    }

    // The path the insn being executed forked off, if any (PathState::fork), pushed by its kind.
    bool push_fork() {
        if (!env_.path.fork)
            return true;
        Fork f = std::move(*env_.path.fork);
        env_.path.fork.reset();
        switch (f.kind) {
        case Fork::Kind::again: return push(std::move(f.st), f.pc, false);
        case Fork::Kind::async: return push_async(std::move(f.st), f.pc);
        case Fork::Kind::path:
        case Fork::Kind::ld_abs: break;
        }
        return push(std::move(f.st), f.pc);
    }

    // The insn being executed joins the path's history (once; before any path forks from it).
    void commit_entry() {
        if (committed_)
            return;
        const HistEntry& e = env_.path.cur_entry;
        if (env_.facts.jmp_point[size_t(e.pc)] || e.sframe >= 0 || e.linked >= 0)
            env_.path.jmp_history++; // an entry of the kernel's jump history
        env_.path.hist.push_back(e);
        committed_ = true;
    }

    // The current path is an infinite loop: it reached a checkpoint still on it, unchanged.
    int infinite_loop(const StoredState* s) {
        if (env_.log.level > 0)
            print_linfo(env_, env_.path.pc);
        env_.log.fail_pc = env_.path.pc;
        env_.fail(fmt::format("infinite loop detected at insn {}", env_.path.pc));
        if (env_.log.level > 0) {
            const int f = int(env_.path.cur.frames.size()) - 1;
            env_.note("cur state:" + kernel_state_str(env_, env_.path.cur, f, true));
            env_.note("old state:" + kernel_state_str(env_, s->st, f, true));
        }
        return -1;
    }

    // One checkpoint at the current insn against the current state (is_state_visited's loop body). 1: the path
    // is covered; 0: a miss; -1: rejected. *add is cleared inside a loop, where checkpoints are added sparingly.
    int compare(StoredState* s, bool forced, uint8_t loop, bool force_new, bool* add) {
        if (s->branches == 0) {
            // Inside a loop still being explored the checkpoint's marks are not final: every scalar by range.
            StoredState* loop = open_loop_of(s);
            if (!states_equal(env_, s->st, env_.path.cur, env_.path.pc, loop ? Cmp::all_precise : Cmp::range))
                return 0;
            propagate_precision(env_, s->st); // what its paths relied on, this path relies on too
            if (loop)
                add_backedge(loop, s);
            return 1;
        }
        if (forced) {
            // A callback round back at its helper call: a checkpoint there still being explored that contains
            // this state (every scalar by range, its precision marks not being final) covers it.
            if (!states_equal(env_, s->st, env_.path.cur, env_.path.pc, Cmp::all_precise))
                return 0;
            propagate_precision(env_, s->st);
            add_backedge(s, s);
            return 1;
        }
        // An iterator's next call never repeats an iteration unchanged (the drained branch ends it).
        if (loop != kLoopIterNext && states_maybe_looping(s->st, env_.path.cur) && same_iteration(s->st) &&
            same_callback_rounds(s->st, env_.path.cur))
            return infinite_loop(s);
        if (!force_new && env_.path.jmps_processed - env_.path.prev_jmps < 20 &&
            env_.path.insn_processed - env_.path.prev_insns < 100)
            *add = false; // inside a loop: checkpoint less often
        return 0;
    }

    // A may_goto or an iterator's next call reached again: a checkpoint there still being explored that contains
    // this state by the loop's own rule (iter_loop.cpp: every scalar by range, the may_goto depth or the
    // iterator's state) closes the loop. Its precision marks are not final: the cut path is kept as a backedge of
    // that checkpoint and takes the marks it has once it is explored (6.18's SCC backedges). Marking every scalar
    // of the cut path at once instead kept imprecise counters from being widened in nested loops (iters.c's
    // iter_nested_deeply_iters ran out of the 1M-insn budget).
    int loop_closed(std::vector<StoredState*>& list) {
        for (size_t i = list.size(); i-- > 0;) {
            StoredState* s = list[i];
            if (s->branches == 0 || s->st.frames.size() != env_.path.cur.frames.size() ||
                !loop_closed_by(env_, s->st, env_.path.cur, env_.path.pc))
                continue;
            s->hit++;
            propagate_precision(env_, s->st);
            add_backedge(s, s);
            return 1;
        }
        return 0;
    }

    // An exact repeat of a checkpoint on the current path, except across may_goto levels or iterations of an
    // active iterator (is_state_visited's infinite-loop test).
    bool same_iteration(const State& old) const {
        return old.may_goto_depth == env_.path.cur.may_goto_depth && !iter_active_depths_differ(old, env_.path.cur) &&
               states_equal(env_, old, env_.path.cur, env_.path.pc, Cmp::exact);
    }

    // The kernel's is_state_visited at a prune point. 1: pruned; 0: continue; -1: rejected.
    int visit_state() {
        std::vector<StoredState*>& list = explored_[env_.path.pc];
        const bool forced = env_.facts.callback_call[env_.path.pc];
        const uint8_t loop = env_.facts.loop_point[env_.path.pc];
        // A checkpoint whatever the heuristics say: at a callback's call, at a may_goto or an iterator's next call,
        // under BPF_F_TEST_STATE_FREQ (so tests exercise pruning where they would skip it), or when the path's jump
        // history grew long (a loop that never reaches a checkpoint otherwise would make every backtrack walk all
        // of it).
        const bool force_new = forced || loop || (env_.facts.opts.prog_flags & kProgFlagTestStateFreq) ||
                               env_.path.jmp_history > kMaxJmpHistory;
        // Otherwise only after 2 jumps and 8 insns since the last one.
        bool add = force_new || (env_.path.jmps_processed - env_.path.prev_jmps >= 2 &&
                                 env_.path.insn_processed - env_.path.prev_insns >= 8);
        max_states_ = std::max(max_states_, list.size());
        if (loop && loop_closed(list))
            return 1;
        for (size_t i = list.size(); i-- > 0;) { // newest first, as the kernel's list
            StoredState* s = list[i];
            // The kernel's lists are per insn and callsite (explored_state): a checkpoint of another call of the
            // same function is neither compared nor charged a miss.
            if (!same_callsites(s->st, env_.path.cur))
                continue;
            const int r = compare(s, forced, loop, force_new, &add);
            if (r != 0) {
                s->hit += r > 0;
                return r;
            }
            if (add)
                s->miss++; // only counted when a checkpoint is added here, so a loop keeps some early ones
            const uint32_t n = (forced || loop) && s->branches > 0 ? kForcedMisses : kMisses; // force checkpoints: 64
            if (s->miss > s->hit * n + n) { // unlikely to be useful: no longer compared
                s->evicted = true;
                env_.path.cur_states -= s->branches == 0;
                list.erase(list.begin() + long(i));
            }
        }
        if (!add)
            return 0;
        add_checkpoint(list);
        return 0;
    }

    void add_checkpoint(std::vector<StoredState*>& list) {
        pool_.push_back(std::make_unique<StoredState>());
        StoredState* s = pool_.back().get();
        s->st = env_.path.cur;
        clear_precise(s->st);
        s->hist = std::move(env_.path.hist);
        env_.path.hist.clear();
        env_.path.jmp_history = 0;
        s->pc = env_.path.pc;
        s->parent = env_.path.cur_parent;
        list.push_back(s);
        note_scc_checkpoint(env_); // maybe_enter_scc
        env_.path.open_checkpoints[size_t(s->pc)].push_back(s);
        env_.path.cur_parent = s;
        env_.path.prev_jmps = env_.path.jmps_processed;
        env_.path.prev_insns = env_.path.insn_processed;
        env_.path.total_states++;
        env_.path.peak_states = std::max(env_.path.peak_states, ++env_.path.cur_states);
    }

    // The kernel's do_check prints, per insn: the state the previous one left (if touched), the source line, and
    // "N: (op) insn". An ld_imm64 shows the value as the kernel does, with strbpf's addresses for maps.
    void log_insn() {
        if ((env_.log.level & 2) && from_pop_)
            env_.log.text += fmt::format("\nfrom {} to {}:{}\n", env_.path.prev_pc, env_.path.pc,
                                    kernel_state_str(env_, env_.path.cur, int(env_.path.cur.frames.size()) - 1, true));
        if (env_.log.scratched_regs || env_.log.scratched_slots) // after a pop everything is: the state again, "N: ..."
            print_insn_state(env_);
        from_pop_ = false;
        print_linfo(env_, env_.path.pc);
        const isa::Insn& in = env_.facts.insns[size_t(env_.path.pc)];
        const std::string text = insn_text(env_, env_.path.pc);
        const size_t start = env_.log.text.size();
        env_.log.text += fmt::format("{}: ({:02x}) {}\n", env_.path.pc, in.opcode, text);
        env_.log.prev_insn_print_pos = env_.log.text.size() - start;
        env_.log.prev_log_pos = env_.log.text.size();
    }

    bool step(bool* path_done) {
        if (++env_.path.insn_processed > kComplexityLimitInsns)
            return env_.fail(fmt::format("BPF program is too large. Processed {} insn", env_.path.insn_processed));
        if (env_.facts.prune_point[env_.path.pc]) {
            const int r = visit_state();
            if (r < 0)
                return false;
            if (r == 1) {
                if (env_.log.level > 0 && from_pop_)
                    env_.log.text += fmt::format("\nfrom {} to {}: safe\n", env_.path.prev_pc, env_.path.pc);
                else if (env_.log.level > 0)
                    env_.log_line(fmt::format("{}: safe", env_.path.pc));
                from_pop_ = false;
                *path_done = true;
                return true;
            }
        }
        const isa::OpInfo* op = env_.facts.ops[env_.path.pc];
        if (!op)
            return env_.fail(fmt::format("invalid insn {}", env_.path.pc));
        if (env_.log.level > 0)
            log_insn();
        seen_[size_t(env_.path.pc)] = 1;
        if (op->shape == Shape::LDDW)
            seen_[size_t(env_.path.pc) + 1] = 1;
        const isa::Insn& insn = env_.facts.insns[env_.path.pc];
        if (!check_insn_operands(env_, *op, insn))
            return false;
        env_.aux.seen[size_t(env_.path.pc)] = 1;
        env_.path.cur_entry = HistEntry{};
        env_.path.cur_entry.pc = env_.path.pc;
        env_.path.cur_entry.frame = uint8_t(env_.path.cur.frames.size() - 1);
        committed_ = false;
        env_.log.scratched_regs |= insn_regs(*op, insn);
        if (!exec(*op, insn, path_done))
            return false;
        commit_entry();
        return true;
    }

    bool exec(const isa::OpInfo& op, const isa::Insn& insn, bool* path_done) {
        switch (op.shape) {
        case Shape::ALU64_K:
        case Shape::ALU64_X:
        case Shape::ALU32_K:
        case Shape::ALU32_X:
        case Shape::NEG64:
        case Shape::NEG32:
        case Shape::END:
            if (!do_alu(env_, op, insn) || !push_fork()) // a 0-or-minus-1 mask: the insn again with the register 0
                return false;
            env_.path.pc++;
            return true;
        case Shape::LDDW:
            if (!do_ld_imm64(env_, op, insn))
                return false;
            env_.path.pc += 2;
            return true;
        case Shape::JA:
            env_.path.jmps_processed++;
            env_.path.pc += insn.off + 1;
            return true;
        case Shape::GOTOL:
            env_.path.jmps_processed++;
            env_.path.pc += insn.imm + 1;
            return true;
        case Shape::MAY_GOTO: // the jump first; the fall-through is pushed one level deeper
            env_.path.jmps_processed++;
            if (!check_may_goto(env_, insn) || !push(may_goto_fallthrough(env_), env_.path.pc + 1))
                return false;
            env_.path.pc += insn.off + 1;
            return true;
        case Shape::JMP_K:
        case Shape::JMP_X:
        case Shape::JMP32_K:
        case Shape::JMP32_X: return cond_jump(op, insn);
        case Shape::CALL_HELPER:
            env_.path.jmps_processed++;
            note_call_facts(env_, insn);
            if (!do_helper_call(env_, insn) || !push_fork()) // a callback's body
                return false;
            env_.path.pc++;
            return true;
        case Shape::CALL_KFUNC:
            env_.path.jmps_processed++;
            note_call_facts(env_, insn);
            if (!do_kfunc_call(env_, insn) || !push_fork()) // an iterator's next call: its active branch
                return false;
            if (env_.path.exception_exit) { // bpf_throw: the path ends here, as an exit does
                env_.path.exception_exit = false;
                if (!check_throw_scc_exit(env_)) // update_branch_counts leaves the component the throw is in
                    return false;
                *path_done = true;
                return true;
            }
            env_.path.pc++;
            return true;
        case Shape::CALL_LOCAL: env_.path.jmps_processed++; return do_local_call(env_, env_.path.pc + insn.imm + 1);
        case Shape::EXIT: {
            env_.path.jmps_processed++;
            const int32_t at = env_.path.pc;
            if (!do_exit(env_, path_done))
                return false;
            if (!*path_done) { // back in a caller: the kernel logs the next insn as after a pop ("from 18 to 9")
                env_.path.prev_pc = at;
                from_pop_ = true;
            }
            return true;
        }
        default:
            if (!do_load_store(env_, op, insn))
                return false;
            if (env_.path.fork) { // LD_ABS/IND in a subprogram: the successful load is pending, and the failed one
                // returns R0 = 0 to the caller
                return push_fork() && do_exit(env_, path_done);
            }
            env_.path.pc++;
            return true;
        }
    }

    bool cond_jump(const isa::OpInfo& op, const isa::Insn& insn) {
        env_.path.jmps_processed++;
        State branch;
        bool take = false, fall = false;
        if (!do_cond_jump(env_, op, insn, &branch, &take, &fall))
            return false;
        const int32_t target = env_.path.pc + insn.off + 1;
        if (take && fall) {
            if (!push(std::move(branch), target))
                return false;
            print_insn_state(env_); // check_cond_jmp_op prints the fall-through state after the fork
            env_.path.pc++;
        } else if (take) { // a decided jump: check_cond_jmp_op prints the state before following it
            print_insn_state(env_);
            if (!branch.frames.empty())
                env_.path.cur = std::move(branch);
            env_.path.pc = target;
        } else if (fall) {
            print_insn_state(env_);
            env_.path.pc++;
        } else {
            // neither successor is possible: this path cannot happen
            env_.path.pc++;
            return true;
        }
        return true;
    }

    Env& env_;
    std::vector<std::vector<StoredState*>> explored_; // per insn: its checkpoints, oldest first
    std::vector<std::unique_ptr<StoredState>> pool_;
    std::vector<Pending> pending_;
    std::vector<uint8_t> seen_;
    std::unordered_map<const StoredState*, std::vector<Backedge>> backedges_; // by loop head
    struct {
        State st;
        std::vector<HistEntry> hist;
    } saved_; // the current path's state while backedges are propagated
    size_t max_states_ = 0;
    bool committed_ = false;
    bool from_pop_ = false; // the kernel's do_print_state: the path was just popped
};

State entry_state() {
    State st;
    st.frames.assign(1, Frame{});
    st.frames[0].regs[1] = reg_ptr(RegType::ctx);
    st.frames[0].regs[10] = reg_ptr(RegType::stack);
    return st;
}

// The accepting verdict's verified program, from the instance's linked form of PROG (none when PROG is not one of
// the instance's programs or did not link). A rewrite that fails is a rejection (Env::fail), never a run.
void attach_program(Env& env, const runtime::ObjectInstance& inst, const loader::ProgramSpec& prog, Verdict* v) {
    for (const runtime::LinkedProgram& lp : inst.programs()) {
        if (lp.spec != &prog || !lp.linked)
            continue;
        auto built = build_verified_program(env, lp);
        if (built) {
            v->program = std::move(*built);
        } else {
            env.log.fail_pc = built.error().pc;
            env.fail(built.error().message);
            v->ok = false;
        }
        return;
    }
}

} // namespace

Verdict verify(const runtime::ObjectInstance& inst, const loader::ProgramSpec& prog, const Options& opts) {
    const auto started = std::chrono::steady_clock::now();
    Verdict v;
    // The walk logs at the level's BPF_LOG_LEVEL bits only: with BPF_LOG_STATS alone the kernel prints no
    // instructions or states (do_check tests `level & BPF_LOG_LEVEL`), so none are formatted here either.
    Options walk_opts = opts;
    walk_opts.log_level &= 3;
    Env env(inst, prog, walk_opts);
    if (const std::string why = unverifiable_reason(prog); !why.empty()) {
        v.reason = why;
        v.log = v.reason + "\n";
        return v;
    }
    if (std::string why = kfunc_proto_mismatch(inst.spec(), prog); !why.empty()) { // libbpf's, before any load
        v.reason = why;
        v.log = why + "\n";
        return v;
    }
    if (prog.insns.empty()) {
        v.reason = "empty program";
        v.log = v.reason + "\n";
        return v;
    }
    if (Status s = upfront_checks(prog.insns); !s) {
        v.reason = encoding_reason(s.error().message);
        v.pc = s.error().pc;
        v.log = v.reason + "\n";
        return v;
    }
    if (std::string why = spin_lock_map_incompatibility(env); !why.empty()) { // resolve_pseudo_ldimm64's checks
        v.reason = why;
        v.log = why + "\n";
        return v;
    }
    if (std::string why = map_prog_incompatibility(inst, prog, env.facts.variant); !why.empty()) {
        v.reason = why;
        v.log = why + "\n";
        return v;
    }
    int64_t exception_cb = -1, exception_cb_direct_call = -1;
    if (std::string why = exception_callback_refusal(inst.spec(), prog, &exception_cb, &exception_cb_direct_call);
        !why.empty()) {
        v.reason = why;
        v.log = why + "\n";
        return v;
    }
    env.setup_facts().exception_cb_start = int32_t(exception_cb);
    find_prog_arena(env); // arena.cpp: the kernel's prog->aux->arena
    if (env.facts.prog.type == loader::ProgType::tracing || env.facts.prog.type == loader::ProgType::lsm ||
        env.facts.prog.type == loader::ProgType::struct_ops) {
        if (!resolve_attach_target(env)) { // check_attach_btf_id, before the program is walked
            v.reason = env.log.reason;
            v.log = env.log.text;
            return v;
        }
    }
    bool ok = check_cfg(env);
    if (ok)
        mark_fastcall_patterns(env); // fastcall.cpp
    if (ok && env.log.level > 0)
        log_main_args(env);
    if (ok && env.facts.exception_cb > 0) { // do_check_subprogs presumes the exception callback called; its
        // stack is a root of its own (mark_subprog_exc_cb: is_async_cb)
        const auto cb = size_t(env.facts.exception_cb);
        env.aux.global_called.resize(env.facts.subprogs.size());
        env.aux.global_called[cb] = 1;
        env.aux.async_cb.resize(std::max(env.aux.async_cb.size(), cb + 1));
        env.aux.async_cb[cb] = 1;
        env.aux.mark_cb(int(cb));
    }
    Walker walker(env);
    if (ok)
        ok = walker.run(0, entry_state());
    // do_check_subprogs: each global function some verified path called, in index order, again until a pass
    // finds none new (one verified late may call others); a global function nothing calls is never walked.
    std::vector<uint8_t> verified(env.facts.subprogs.size(), 0);
    for (bool again = true; ok && again;) {
        again = false;
        for (size_t i = 1; ok && i < env.facts.subprogs.size(); i++) {
            const Subprog& sp = env.facts.subprogs[i];
            const bool called = i < env.aux.global_called.size() && env.aux.global_called[i];
            if (!sp.global || !called || verified[i])
                continue;
            if (env.log.level > 0)
                env.log_line(fmt::format("Validating {}() func#{}...", sp.name, i));
            State st;
            if (int(i) == env.facts.exception_cb) { // do_check_common: in_exception_callback_fn
                if (std::string why = exception_cb_entry_problem(env, sp); !why.empty()) {
                    ok = env.log.fail(why, sp.start);
                    break;
                }
            }
            ok = prepare_global_entry(env, sp, &st);
            if (ok && int(i) == env.facts.exception_cb)
                st.frames[0].in_exception_cb = true;
            ok = ok && walker.run(sp.start, std::move(st));
            if (ok && env.log.level > 0)
                env.log_line(fmt::format("Func#{} ('{}') is safe for any args that match its prototype", i, sp.name));
            verified[i] = 1;
            again = true;
        }
    }
    if (ok && !env.failed() && exception_cb_direct_call >= 0) { // check_max_stack_depth_subprog
        ok = env.log.fail(fmt::format("insn {} cannot call exception cb directly", exception_cb_direct_call),
                          int32_t(exception_cb_direct_call));
        env.log.text.pop_back(); // the 6.18 kernel's line has no newline: the statistics follow on it
    }
    if (ok && !env.failed() && env.aux.throw_in_callback_pc >= 0) { // check_max_stack_depth_subprog's bpf_throw rule
        int32_t pc = env.aux.throw_in_callback_pc;
        int subprog = env.aux.throw_in_callback_subprog;
        first_throw_in_callback(env, &pc, &subprog); // the one the kernel's static walk meets first
        ok = env.log.fail(fmt::format("bpf_throw kfunc (insn {}) cannot be called from callback subprog {}", pc,
                                      subprog),
                          pc);
    }
    if (ok && !env.failed()) {
        remove_fastcall_stack(env); // the kernel checks the stack it keeps
        ok = check_max_stack_depth(env);
    }
    if (ok && !env.failed())
        ok = check_subprog_refs(env, walker.seen());
    v.ok = ok && !env.failed();
    v.processed_insns = env.path.insn_processed;
    v.max_ctx_offset = env.aux.max_ctx_offset;
    v.min_ctx_offset = env.aux.min_ctx_offset;
    v.max_tp_access = env.aux.max_tp_access;
    if (v.ok)
        attach_program(env, inst, prog, &v);
    if (!v.ok) {
        v.reason = env.log.reason;
        v.pc = env.log.fail_pc;
    }
    if (opts.log_level & kLogStats) { // print_verification_stats
        std::string depths;
        const std::vector<int32_t> reported = reported_stack_depths(env); // fastcall.cpp
        for (size_t i = 0; i < reported.size(); i++)
            depths += fmt::format("{}{}", i ? "+" : "", reported[i]);
        const auto usec = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - started);
        env.log.text += fmt::format("verification time {} usec\nstack depth {}\n", usec.count(), depths);
    }
    env.log.text += fmt::format("processed {} insns (limit {}) max_states_per_insn {} total_states {} peak_states {} "
                                "mark_read 0\n",
                                env.path.insn_processed, kComplexityLimitInsns, walker.max_states_per_insn(),
                                env.path.total_states, env.path.peak_states);
    v.log = std::move(env.log.text);
    return v;
}

} // namespace strbpf::verifier
