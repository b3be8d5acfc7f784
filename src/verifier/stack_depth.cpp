// SPDX-License-Identifier: BSD-2-Clause
// The combined stack limit across a call chain (verifier stage): each subprogram's stack depth as the walk saw
// it, then the kernel's check_max_stack_depth over the static call graph — frames rounded up as the JIT lays them
// out, summed along every chain of calls, at most 512 bytes; private stacks for tracing program types.
#include <algorithm>
#include <fmt/format.h>

#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

constexpr int kPrivStackMinSize = 64; // BPF_PRIV_STACK_MIN_SIZE

// The kernel's round_up_stack_depth with the JIT on (bpf_jit_enable=1, as on every x86-64 distribution kernel):
// the JIT aligns each frame to 16 bytes. (The interpreter's granularity, round_up(max(depth, 1), 32), applies only
// without the JIT.)
int round_up_depth(int depth) { return (depth + 15) / 16 * 16; }

// bpf_enable_priv_stack: the x86-64 JIT gives these types (no trampoline, possibly nested) a private stack per
// subprogram of at least 64 bytes, which then does not count toward the combined limit.
bool priv_stack_type(loader::ProgType t) {
    using loader::ProgType;
    return t == ProgType::kprobe || t == ProgType::tracepoint || t == ProgType::perf_event ||
           t == ProgType::raw_tracepoint;
}

struct Walk {
    Env& env;
    bool priv_stack = false;
    std::vector<int> chain; // subprogram indexes, outermost first
    // Per subprogram, memoised: the most bytes and frames any chain starting there uses (kUnbounded inside a
    // cycle). Subtrees that cannot exceed either limit are not walked, so the walk stays linear.
    static constexpr int64_t kUnbounded = int64_t(1) << 40;
    std::vector<int64_t> bytes, frames;
    std::vector<uint8_t> done; // 0 unknown, 1 in progress, 2 known

    int own(int idx) const {
        const int d = round_up_depth(kernel_stack_depth(env, size_t(idx)));
        return priv_stack && d >= kPrivStackMinSize ? 0 : d;
    }

    bool has_tail_call(int idx) const {
        const Subprog& sp = env.facts.subprogs[size_t(idx)];
        for (int32_t pc = sp.start; pc < sp.end; pc++) {
            const isa::OpInfo* op = env.facts.ops[size_t(pc)];
            if (op && op->shape == isa::Shape::CALL_HELPER && env.facts.insns[size_t(pc)].imm == 12) // bpf_tail_call
                return true;
        }
        return false;
    }

    // Calls and callback references in subprogram IDX, in insn order: F(callee) for each.
    template <typename F> bool for_each_callee(int idx, F&& f) {
        const Subprog& sp = env.facts.subprogs[size_t(idx)];
        for (int32_t pc = sp.start; pc < sp.end; pc++) {
            const isa::OpInfo* op = env.facts.ops[size_t(pc)];
            const isa::Insn& in = env.facts.insns[size_t(pc)];
            const bool call = op && op->shape == isa::Shape::CALL_LOCAL;
            const bool func_ref = op && op->shape == isa::Shape::LDDW && in.src == isa::BPF_PSEUDO_FUNC;
            const int callee = env.facts.subprog_of(pc + in.imm + 1);
            // An async callback's stack is not its referrer's: it is a root of its own (check_max_stack_depth).
            if (func_ref && env.aux.is_async_cb(size_t(callee))) {
                if (has_tail_call(callee))
                    return env.fail("verifier bug. subprog has tail_call and async cb");
                continue;
            }
            if ((call || func_ref) && !f(callee))
                return false;
        }
        return true;
    }

    // LEVEL bounds the recursion: chains longer than the frame limit are unbounded (the walk then fails on them).
    void measure(int idx, int level = 0) {
        if (done[size_t(idx)] == 2)
            return;
        if (done[size_t(idx)] == 1 || level > isa::kMaxCallDepth + 1) { // recursion, or too deep to matter
            bytes[size_t(idx)] = frames[size_t(idx)] = kUnbounded;
            done[size_t(idx)] = done[size_t(idx)] == 1 ? 1 : 2;
            return;
        }
        done[size_t(idx)] = 1;
        int64_t b = 0, f = 0;
        for_each_callee(idx, [&](int callee) {
            measure(callee, level + 1);
            b = std::max(b, bytes[size_t(callee)]);
            f = std::max(f, frames[size_t(callee)]);
            return true;
        });
        if (bytes[size_t(idx)] != kUnbounded)
            bytes[size_t(idx)] = std::min(kUnbounded, own(idx) + b), frames[size_t(idx)] = std::min(kUnbounded, f + 1);
        done[size_t(idx)] = 2;
    }

    // The kernel's check_max_stack_depth_subprog, as a recursion over the call instructions of subprogram IDX
    // (bpf-to-bpf calls and callback references alike). DEPTH: bytes used by the frames below.
    bool visit(int idx, int depth) {
        measure(idx);
        if (depth + bytes[size_t(idx)] <= isa::kStackSize &&
            int64_t(chain.size()) - 1 + frames[size_t(idx)] <= isa::kMaxCallDepth)
            return true; // nothing below can exceed a limit
        depth += own(idx);
        if (depth > isa::kStackSize)
            return env.fail(fmt::format("combined stack size of {} calls is {}. Too large", chain.size(), depth));
        return for_each_callee(idx, [&](int callee) {
            if (chain.size() >= size_t(isa::kMaxCallDepth))
                return env.fail(fmt::format("the call stack of {} frames is too deep !", chain.size()));
            chain.push_back(callee);
            if (!visit(callee, depth))
                return false;
            chain.pop_back();
            return true;
        });
    }
};

} // namespace

void update_stack_depth(Env& env, int frameno, int64_t min_off) {
    const int sp = env.path.cur.frames[size_t(frameno)].subprog;
    if (env.aux.stack_depth.size() < env.facts.subprogs.size())
        env.aux.stack_depth.resize(env.facts.subprogs.size());
    const int64_t size = (-min_off + 7) / 8 * 8; // grow_stack_state: whole 8-byte slots
    if (sp >= 0 && size_t(sp) < env.aux.stack_depth.size() && size > env.aux.stack_depth[size_t(sp)])
        env.aux.stack_depth[size_t(sp)] = int32_t(size);
}

bool check_max_stack_depth(Env& env) {
    if (env.aux.stack_depth.size() < env.facts.subprogs.size())
        env.aux.stack_depth.resize(env.facts.subprogs.size());
    const size_t n = env.facts.subprogs.size();
    Walk w{env,
           priv_stack_type(env.facts.prog.type),
           {0},
           std::vector<int64_t>(n),
           std::vector<int64_t>(n),
           std::vector<uint8_t>(n)};
    if (!w.visit(0, 0))
        return false;
    for (size_t i = 1; i < n; i++) // async callbacks start a call chain of their own
        if (env.aux.is_async_cb(i)) {
            w.chain.assign(1, int(i));
            if (!w.visit(int(i), 0))
                return false;
        }
    return true;
}

} // namespace strbpf::verifier
