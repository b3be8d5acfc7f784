// SPDX-License-Identifier: BSD-2-Clause
// The verifier's driver (verifier stage): walks every path of the program depth-first from the entry (and from
// each global subprogram), one abstract state at a time, saving checkpoints at prune points and cutting paths
// that reach a checkpoint already proven safe. See src/verifier/README.md for the theory of operation.
#include "verifier/verifier.hpp"
#include "verifier/map_rules.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <unordered_map>

#include "isa/disasm.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/env.hpp"
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

struct Pending {
    State st;
    int32_t pc = 0;
    int32_t from = 0;
    StoredState* parent = nullptr;
    std::vector<HistEntry> hist;
    size_t log_pos = 0; // the log's length at the fork: level 1 keeps only the log of the path that fails
};

// Registers an instruction reads or writes (check_reg_arg marks them scratched for the log).
uint16_t insn_regs(const isa::OpInfo& op, const isa::Insn& insn) {
    const uint16_t dst = uint16_t(1u << (insn.dst & 0xf)), src = uint16_t(1u << (insn.src & 0xf));
    switch (op.shape) {
    case Shape::ALU64_X:
    case Shape::ALU32_X:
    case Shape::JMP_X:
    case Shape::JMP32_X:
    case Shape::LDX:
    case Shape::LDSX:
    case Shape::STX: return dst | src;
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW: return dst | src | (insn.imm == isa::BPF_CMPXCHG ? 1 : 0);
    case Shape::CALL_HELPER:
    case Shape::CALL_KFUNC: return 0x3f; // R1-R5 read, R0-R5 written
    case Shape::LD_ABS: return 0x7f;      // check_ld_abs: R6 read, R0-R5 written
    case Shape::LD_IND: return 0x7f | src;
    case Shape::JA:
    case Shape::GOTOL:
    case Shape::EXIT:
    case Shape::CALL_LOCAL: return 0;
    default: return dst;
    }
}

class Walker {
  public:
    explicit Walker(Env& env) : env_(env), explored_(env.insns.size()) {}

    bool run(int32_t entry, State initial) {
        env_.cur = std::move(initial);
        env_.pc = entry;
        env_.cur_parent = nullptr;
        env_.hist.clear();
        pending_.clear();
        mark_all_scratched(env_);
        for (;;) {
            bool path_done = false;
            if (!step(&path_done))
                return false;
            if (!path_done)
                continue;
            finish_path();
            if (pending_.empty()) {
                if (env_.opts.log_level == 1)
                    env_.log.clear(); // the kernel keeps no log of a successful check at level 1
                return true;
            }
            Pending p = std::move(pending_.back());
            pending_.pop_back();
            env_.cur = std::move(p.st);
            env_.pc = p.pc;
            env_.prev_pc = p.from;
            env_.cur_parent = p.parent;
            env_.hist = std::move(p.hist);
            if (env_.opts.log_level == 1)
                env_.log.resize(p.log_pos); // pop_stack: only the failing path's log remains
            mark_all_scratched(env_);
            from_pop_ = true;
        }
    }

    // The most checkpoints one prune point had when a path reached it (the kernel's max_states_per_insn).
    size_t max_states_per_insn() const { return max_states_; }

  private:
    // A path ended: checkpoints whose every path is now explored become usable for pruning.
    void finish_path() {
        for (StoredState* s = env_.cur_parent; s;) {
            if (--s->branches)
                break;
            PcStates& at = explored_[s->pc];
            auto [lo, hi] = at.active.equal_range(s->hash);
            for (auto it = lo; it != hi; ++it)
                if (it->second == s) {
                    at.active.erase(it);
                    break;
                }
            at.done.push_back(s);
            s = s->parent;
        }
    }

    bool push(State st, int32_t target) {
        if (pending_.size() + 1 > size_t(kComplexityLimitJmpSeq))
            return env_.fail(fmt::format("The sequence of {} jumps is too complex.", pending_.size() + 1));
        if (env_.cur_parent)
            env_.cur_parent->branches++;
        commit_entry();
        pending_.push_back(Pending{std::move(st), target, env_.pc, env_.cur_parent, env_.hist, env_.log.size()});
        return true;
    }

    // The insn being executed joins the path's history (once; before any path forks from it).
    void commit_entry() {
        if (committed_)
            return;
        env_.hist.push_back(env_.cur_entry);
        committed_ = true;
    }

    // Returning from a callback to its helper call: a checkpoint there still being explored that contains
    // this state (every scalar by range, as its precision marks are not final) covers it.
    // Like the kernel's is_state_visited, a checkpoint that keeps missing stops being compared (here: taken out of
    // the active set; it still becomes a pruning candidate when its paths end), n = 64 at forced checkpoints.
    int callback_loop_closed() {
        auto& active = explored_[env_.pc].active;
        for (auto it = active.begin(); it != active.end();) {
            StoredState* s = it->second;
            if (states_equal(env_, s->st, env_.cur, env_.pc, Cmp::all_precise)) {
                s->hit++;
                mark_precise(env_, all_scalars_of(env_.cur));
                return 1;
            }
            it = s->missed_too_often(kForcedMisses) ? active.erase(it) : std::next(it);
        }
        return 0;
    }

    // 1: pruned; 0: continue; -1: rejected.
    int visit_state() {
        PcStates& at = explored_[env_.pc];
        const bool forced = env_.callback_call[env_.pc];
        bool add = env_.jmps_processed - env_.prev_jmps >= 2 && env_.insn_processed - env_.prev_insns >= 8;
        const uint64_t h = state_hash(env_.cur);
        if (forced && callback_loop_closed())
            return 1;
        // Checkpoints still on the current path: reaching one again unchanged is an infinite loop. One that keeps
        // missing (only counted when a checkpoint would be added here, as in the kernel) is no longer compared.
        auto [lo, hi] = at.active.equal_range(h);
        for (auto it = lo; it != hi && !forced;) {
            if (!states_equal(env_, it->second->st, env_.cur, env_.pc, Cmp::exact)) {
                StoredState* s = it->second;
                it = add && s->missed_too_often(kMisses) ? at.active.erase(it) : std::next(it);
                continue;
            }
            if (env_.opts.log_level > 0)
                print_linfo(env_, env_.pc);
            env_.fail_pc = env_.pc;
            env_.fail(fmt::format("infinite loop detected at insn {}", env_.pc));
            if (env_.opts.log_level > 0) {
                const int f = int(env_.cur.frames.size()) - 1;
                env_.note("cur state:" + kernel_state_str(env_, env_.cur, f, true));
                env_.note("old state:" + kernel_state_str(env_, it->second->st, f, true));
            }
            return -1;
        }
        if (!at.active.empty() && env_.jmps_processed - env_.prev_jmps < 20 &&
            env_.insn_processed - env_.prev_insns < 100)
            add = false; // inside a loop: checkpoint less often
        // BPF_F_TEST_STATE_FREQ: a checkpoint at every prune point, as at a callback's call (is_state_visited's
        // force_new_state), so tests exercise pruning where the heuristics above would skip it.
        add = add || forced || (env_.opts.prog_flags & kProgFlagTestStateFreq);
        max_states_ = std::max(max_states_, at.done.size() + at.active.size());
        auto& list = at.done;
        for (size_t i = 0; i < list.size(); i++) {
            StoredState* sl = list[i];
            if (states_equal(env_, sl->st, env_.cur, env_.pc, Cmp::range)) {
                sl->hit++;
                // What the checkpoint's paths relied on, this path relies on too.
                mark_precise(env_, precise_set_of(sl->st));
                return 1;
            }
            if (sl->missed_too_often(kMisses)) {
                list.erase(list.begin() + long(i));
                i--;
            }
        }
        if (!add)
            return 0;
        pool_.push_back(std::make_unique<StoredState>());
        StoredState* s = pool_.back().get();
        s->st = env_.cur;
        clear_precise(s->st);
        s->hist = std::move(env_.hist);
        env_.hist.clear();
        s->pc = env_.pc;
        s->parent = env_.cur_parent;
        s->hash = h;
        at.active.emplace(h, s);
        env_.cur_parent = s;
        env_.prev_jmps = env_.jmps_processed;
        env_.prev_insns = env_.insn_processed;
        env_.total_states++;
        return 0;
    }

    // The kernel's do_check prints, per insn: the state the previous one left (if touched), the source line, and
    // "N: (op) insn". An ld_imm64 shows the value as the kernel does, with strbpf's addresses for maps.
    void log_insn() {
        if (env_.opts.log_level > 1 && from_pop_)
            env_.log += fmt::format("\nfrom {} to {}:{}\n", env_.prev_pc, env_.pc,
                                    kernel_state_str(env_, env_.cur, int(env_.cur.frames.size()) - 1, true));
        if (env_.opts.log_level > 1 && from_pop_)
            env_.scratched_regs = 0, env_.scratched_slots = 0;
        else if (env_.scratched_regs || env_.scratched_slots)
            print_insn_state(env_);
        from_pop_ = false;
        print_linfo(env_, env_.pc);
        const isa::Insn& in = env_.insns[size_t(env_.pc)];
        std::string text;
        if (in.opcode == (isa::BPF_LD | isa::BPF_IMM | isa::BPF_DW) && size_t(env_.pc) + 1 < env_.insns.size()) {
            uint64_t v = uint64_t(uint32_t(in.imm)) | uint64_t(uint32_t(env_.insns[size_t(env_.pc) + 1].imm)) << 32;
            runtime::Map* m = in.src == isa::BPF_PSEUDO_MAP_FD || in.src == isa::BPF_PSEUDO_MAP_VALUE
                                  ? env_.map(uint32_t(in.imm))
                                  : nullptr;
            if (in.src == isa::BPF_PSEUDO_MAP_FD)
                v = reinterpret_cast<uint64_t>(m);
            else if (in.src == isa::BPF_PSEUDO_MAP_VALUE)
                v = m && m->direct_value()
                        ? reinterpret_cast<uint64_t>(m->direct_value()) + uint32_t(env_.insns[size_t(env_.pc) + 1].imm)
                        : 0;
            text = fmt::format("r{} = {:#x}", int(in.dst), v);
        } else {
            auto names = [](uint8_t s, int32_t imm) -> std::string {
                const runtime::HelperProto* h = s == 0 ? runtime::find_helper(imm) : nullptr;
                return h ? h->name : "";
            };
            text = isa::disasm_insn(env_.insns, size_t(env_.pc), names);
        }
        const size_t start = env_.log.size();
        env_.log += fmt::format("{}: ({:02x}) {}\n", env_.pc, in.opcode, text);
        env_.prev_insn_print_pos = env_.log.size() - start;
        env_.prev_log_pos = env_.log.size();
    }

    bool step(bool* path_done) {
        if (++env_.insn_processed > kComplexityLimitInsns)
            return env_.fail(fmt::format("BPF program is too large. Processed {} insn", env_.insn_processed));
        if (env_.prune_point[env_.pc]) {
            const int r = visit_state();
            if (r < 0)
                return false;
            if (r == 1) {
                if (env_.opts.log_level > 0 && from_pop_)
                    env_.log += fmt::format("\nfrom {} to {}: safe\n", env_.prev_pc, env_.pc);
                else if (env_.opts.log_level > 0)
                    env_.log_line(fmt::format("{}: safe", env_.pc));
                from_pop_ = false;
                *path_done = true;
                return true;
            }
        }
        const isa::OpInfo* op = env_.ops[env_.pc];
        if (!op)
            return env_.fail(fmt::format("invalid insn {}", env_.pc));
        if (env_.opts.log_level > 0)
            log_insn();
        const isa::Insn& insn = env_.insns[env_.pc];
        env_.cur_entry = HistEntry{};
        env_.cur_entry.pc = env_.pc;
        env_.cur_entry.frame = uint8_t(env_.cur.frames.size() - 1);
        committed_ = false;
        env_.scratched_regs |= insn_regs(*op, insn);
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
            if (!do_alu(env_, op, insn))
                return false;
            env_.pc++;
            return true;
        case Shape::LDDW:
            if (!do_ld_imm64(env_, op, insn))
                return false;
            env_.pc += 2;
            return true;
        case Shape::JA:
            env_.jmps_processed++;
            env_.pc += insn.off + 1;
            return true;
        case Shape::GOTOL:
            env_.jmps_processed++;
            env_.pc += insn.imm + 1;
            return true;
        case Shape::JMP_K:
        case Shape::JMP_X:
        case Shape::JMP32_K:
        case Shape::JMP32_X: return cond_jump(op, insn);
        case Shape::CALL_HELPER:
            env_.jmps_processed++;
            if (!do_helper_call(env_, insn))
                return false;
            if (env_.callback_pending) {
                env_.callback_pending = false;
                if (!push(std::move(env_.callback_state), env_.callback_pc))
                    return false;
            }
            env_.pc++;
            return true;
        case Shape::CALL_KFUNC:
            env_.jmps_processed++;
            if (!do_kfunc_call(env_, insn))
                return false;
            env_.pc++;
            return true;
        case Shape::CALL_LOCAL: env_.jmps_processed++; return do_local_call(env_, env_.pc + insn.imm + 1);
        case Shape::EXIT: env_.jmps_processed++; return do_exit(env_, path_done);
        default:
            if (!do_load_store(env_, op, insn))
                return false;
            if (env_.callback_pending) { // LD_ABS/IND in a subprogram: the successful load is pending, and the
                env_.callback_pending = false; // failed one returns R0 = 0 to the caller
                if (!push(std::move(env_.callback_state), env_.callback_pc))
                    return false;
                return do_exit(env_, path_done);
            }
            env_.pc++;
            return true;
        }
    }

    bool cond_jump(const isa::OpInfo& op, const isa::Insn& insn) {
        env_.jmps_processed++;
        State branch;
        bool take = false, fall = false;
        if (!do_cond_jump(env_, op, insn, &branch, &take, &fall))
            return false;
        const int32_t target = env_.pc + insn.off + 1;
        if (take && fall) {
            if (!push(std::move(branch), target))
                return false;
            print_insn_state(env_); // check_cond_jmp_op prints the fall-through state after the fork
            env_.pc++;
        } else if (take) {
            if (!branch.frames.empty())
                env_.cur = std::move(branch);
            env_.pc = target;
        } else if (fall) {
            env_.pc++;
        } else {
            // neither successor is possible: this path cannot happen
            env_.pc++;
            return true;
        }
        return true;
    }

    struct PcStates {
        std::vector<StoredState*> done;                       // fully explored: used for pruning
        std::unordered_multimap<uint64_t, StoredState*> active; // on the current path, by state_hash
    };
    Env& env_;
    std::vector<PcStates> explored_;
    std::vector<std::unique_ptr<StoredState>> pool_;
    std::vector<Pending> pending_;
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
            env.fail_pc = built.error().pc;
            env.fail(built.error().message);
            v->ok = false;
        }
        return;
    }
}

} // namespace

Verdict verify(const runtime::ObjectInstance& inst, const loader::ProgramSpec& prog, const Options& opts) {
    Verdict v;
    Env env(inst, prog, opts);
    if (const std::string why = unverifiable_reason(prog); !why.empty()) {
        v.reason = why;
        v.log = v.reason + "\n";
        return v;
    }
    if (prog.insns.empty()) {
        v.reason = "empty program";
        v.log = v.reason + "\n";
        return v;
    }
    if (Status s = isa::validate(prog.insns); !s) {
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
    if (std::string why = map_prog_incompatibility(inst, prog); !why.empty()) {
        v.reason = why;
        v.log = why + "\n";
        return v;
    }
    if (env.prog.type == loader::ProgType::tracing || env.prog.type == loader::ProgType::lsm) {
        if (!resolve_attach_target(env)) { // check_attach_btf_id, before the program is walked
            v.reason = env.reason;
            v.log = env.log;
            return v;
        }
    }
    bool ok = check_cfg(env);
    if (ok && opts.log_level > 0)
        log_main_args(env);
    Walker walker(env);
    if (ok)
        ok = walker.run(0, entry_state());
    for (size_t i = 1; ok && i < env.subprogs.size(); i++) {
        const Subprog& sp = env.subprogs[i];
        if (!sp.global)
            continue;
        if (opts.log_level > 0)
            env.log_line(fmt::format("Validating {}() func#{}...", sp.name, i));
        State st;
        prepare_global_entry(env, sp, &st);
        ok = walker.run(sp.start, std::move(st));
        if (ok && opts.log_level > 0)
            env.log_line(fmt::format("Func#{} ('{}') is safe for any args that match its prototype", i, sp.name));
    }
    if (ok && !env.failed())
        ok = check_max_stack_depth(env);
    v.ok = ok && !env.failed();
    v.processed_insns = env.insn_processed;
    v.max_ctx_offset = env.max_ctx_offset;
    v.min_ctx_offset = env.min_ctx_offset;
    if (v.ok)
        attach_program(env, inst, prog, &v);
    if (!v.ok) {
        v.reason = env.reason;
        v.pc = env.fail_pc;
    }
    env.log += fmt::format("processed {} insns (limit {}) max_states_per_insn {} total_states {} peak_states {} "
                           "mark_read 0\n",
                           env.insn_processed, kComplexityLimitInsns, walker.max_states_per_insn(), env.total_states,
                           env.total_states);
    v.log = std::move(env.log);
    return v;
}

} // namespace strbpf::verifier
