// SPDX-License-Identifier: BSD-2-Clause
// bpf_fastcall and the stack the kernel reports (verifier stage). clang surrounds a call to a bpf_fastcall function
// with spills and fills of the caller-saved registers the function does not clobber; the kernel finds those
// patterns before the walk, drops them from a subprogram whose pattern slots nothing else touched, and then counts
// only the stack above them: its combined stack limit and the log's "stack depth" see the smaller figure. strbpf's
// engines run the program as written (every frame has its 512 bytes), so only those two answers change. The
// statistics also count the stack the kernel's later rewrites add: an inlined bpf_loop's three saved registers and
// the timed may_goto's counter and timestamp.
#include <algorithm>
#include <bpf/btf.h>
#include <cstring>

#include "loader/btf_view.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/env.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {
namespace {

constexpr uint8_t kStxDw = isa::BPF_STX | isa::BPF_MEM | isa::BPF_DW;
constexpr uint8_t kLdxDw = isa::BPF_LDX | isa::BPF_MEM | isa::BPF_DW;
constexpr uint8_t kCall = isa::BPF_JMP | isa::BPF_CALL;
constexpr uint32_t kCallerSaved = 0x3f; // r0..r5
constexpr int32_t kHelperGetSmpProcessorId = 8;
constexpr int32_t kDisabled = INT16_MIN; // fastcall_stack_off once a foreign access touched the pattern slots

// The insns a branch edge of the kernel's check_cfg reaches (its jump_target marks): jump targets, may_goto
// targets, and the entries of called and referenced subprograms. Every insn is reachable after check_cfg.
std::vector<uint8_t> jump_targets(const Env& env) {
    const size_t n = env.facts.insns.size();
    std::vector<uint8_t> t(n + 1, 0);
    auto mark = [&](int64_t pc) {
        if (pc >= 0 && size_t(pc) <= n)
            t[size_t(pc)] = 1;
    };
    for (size_t pc = 0; pc < n; pc++) {
        const isa::OpInfo* op = env.facts.ops[pc];
        if (!op)
            continue;
        const isa::Insn& in = env.facts.insns[pc];
        switch (op->shape) {
        case isa::Shape::JA:
        case isa::Shape::JMP_K:
        case isa::Shape::JMP_X:
        case isa::Shape::JMP32_K:
        case isa::Shape::JMP32_X:
        case isa::Shape::MAY_GOTO: mark(int64_t(pc) + in.off + 1); break;
        case isa::Shape::GOTOL: mark(int64_t(pc) + in.imm + 1); break;
        case isa::Shape::CALL_LOCAL: mark(int64_t(pc) + in.imm + 1); break;
        case isa::Shape::LDDW:
            if (in.src == isa::BPF_PSEUDO_FUNC)
                mark(int64_t(pc) + in.imm + 1);
            break;
        default: break;
        }
    }
    return t;
}

// The registers a call clobbers under the bpf_fastcall contract (r0 when it returns a value, r1..rN for its N
// parameters), and whether the kernel inlines it on x86-64 so that its patterns may go. All caller-saved
// registers for calls the kernel cannot name (bpf-to-bpf calls, helpers the program type lacks, unknown kfuncs).
struct CallContract {
    uint32_t clobbers = kCallerSaved;
    bool inlined = false;
};

// allow_fastcall and inlined by the verifier on x86-64 with the JIT: only bpf_get_smp_processor_id in 6.18, and
// only where the program type's proto is bpf_get_smp_processor_id_proto: tc, xdp, lwt and the tracing types. The
// others get bpf_base_func_proto's bpf_get_raw_smp_processor_id_proto, which has no bpf_fastcall. Measured on the
// live kernel for every type it loads here (the trampoline types follow the source); struct_ops depends on the
// struct's own proto function and is counted as not inlined, which can only keep stack the kernel drops.
bool fastcall_cpu_id(loader::ProgType t) {
    using loader::ProgType;
    switch (t) {
    case ProgType::sched_cls:
    case ProgType::sched_act:
    case ProgType::xdp:
    case ProgType::lwt_in:
    case ProgType::lwt_out:
    case ProgType::lwt_xmit:
    case ProgType::lwt_seg6local:
    case ProgType::kprobe:
    case ProgType::tracepoint:
    case ProgType::perf_event:
    case ProgType::raw_tracepoint:
    case ProgType::raw_tracepoint_writable:
    case ProgType::syscall:
    case ProgType::tracing:
    case ProgType::lsm: return true;
    default: return false;
    }
}

CallContract helper_contract(const Env& env, const isa::Insn& in) {
    const runtime::HelperProto* h = runtime::find_helper(in.imm, env.facts.prog.type);
    if (!h || !(h->prog_types & runtime::prog_type_bit(env.facts.prog.type)))
        return {}; // get_helper_proto fails: no pattern
    CallContract c{0, false};
    if (h->ret != runtime::RetKind::void_)
        c.clobbers |= 1u;
    for (size_t i = 0; i < h->args.size(); i++)
        if (h->args[i] != runtime::ArgKind::none)
            c.clobbers |= 1u << (i + 1);
    c.inlined = in.imm == kHelperGetSmpProcessorId && fastcall_cpu_id(env.facts.prog.type);
    return c;
}

CallContract kfunc_contract(const Env& env, const isa::Insn& in) {
    const auto& names = env.facts.inst.spec().kfuncs;
    if (in.imm < 0 || size_t(in.imm) >= names.size())
        return {};
    const std::string& name = names[size_t(in.imm)];
    if (!runtime::find_kfunc(name) && !find_kfunc_btf(name))
        return {}; // fetch_kfunc_meta fails: no pattern
    std::string error;
    bool running = false;
    const BtfRef b = target_btf(&error, &running);
    const int32_t id = b ? btfv::find_by_name_kind(b, name.c_str(), BTF_KIND_FUNC) : -1;
    const btf_type* func = id > 0 ? btfv::type_by_id(b, uint32_t(id)) : nullptr;
    const btf_type* proto = func ? btfv::type_by_id(b, func->type) : nullptr;
    if (!proto || !btf_is_func_proto(proto))
        return {};
    CallContract c{0, false};
    if (proto->type != 0)
        c.clobbers |= 1u;
    for (uint32_t i = 0; i < btf_vlen(proto) && i < 5; i++)
        c.clobbers |= 1u << (i + 1);
    c.inlined = name == "bpf_cast_to_kern_ctx" || name == "bpf_rdonly_cast";
    return c;
}

// mark_fastcall_pattern_for_call: pairs `*(u64 *)(r10 + off) = rX` before the call and `rX = *(u64 *)(r10 + off)`
// after it, outward from the call, at offsets rising from the subprogram's lowest spill, each of a register the
// call does not clobber, none past a jump target.
void mark_call(Env& env, const std::vector<uint8_t>& targets, size_t sp, int32_t pc, int32_t lowest_off) {
    const isa::Insn& call = env.facts.insns[size_t(pc)];
    CallContract c;
    if (call.src == 0)
        c = helper_contract(env, call);
    else if (call.src == isa::BPF_PSEUDO_KFUNC_CALL)
        c = kfunc_contract(env, call);
    if (c.clobbers == kCallerSaved)
        return;
    uint32_t expected = ~c.clobbers & kCallerSaved;
    auto& fc = env.aux.fastcall;
    const int32_t n = int32_t(env.facts.insns.size());
    int32_t i = 1, off = lowest_off;
    for (; i <= 6; i++, off += 8) {
        if (pc - i < 0 || pc + i >= n || targets[size_t(pc - i + 1)] || targets[size_t(pc + i)])
            break;
        const isa::Insn& stx = env.facts.insns[size_t(pc - i)];
        const isa::Insn& ldx = env.facts.insns[size_t(pc + i)];
        if (stx.opcode != kStxDw || ldx.opcode != kLdxDw || stx.dst != 10 || ldx.src != 10 || stx.src != ldx.dst)
            break;
        if (!(expected & (1u << stx.src)) || stx.off != off || ldx.off != off)
            break;
        expected &= ~(1u << stx.src);
        fc.pattern[size_t(pc - i)] = fc.pattern[size_t(pc + i)] = 1;
    }
    if (i == 1)
        return;
    if (c.inlined)
        fc.spills[size_t(pc)] = uint8_t(i - 1);
    else
        fc.keep[sp] = 1;
    fc.stack_off[sp] = std::min(fc.stack_off[sp], off);
}

} // namespace

void mark_fastcall_patterns(Env& env) {
    const size_t n = env.facts.insns.size(), subprogs = env.facts.subprogs.size();
    auto& fc = env.aux.fastcall;
    fc.stack_off.assign(subprogs, 0);
    fc.keep.assign(subprogs, 0);
    fc.pattern.assign(n, 0);
    fc.spills.assign(n, 0);
    const std::vector<uint8_t> targets = jump_targets(env);
    for (size_t sp = 0; sp < subprogs; sp++) {
        const Subprog& s = env.facts.subprogs[sp];
        int32_t lowest_off = 0;
        for (int32_t pc = s.start; pc < s.end; pc++) {
            const isa::Insn& in = env.facts.insns[size_t(pc)];
            if (env.facts.ops[size_t(pc)] && in.opcode == kStxDw && in.dst == 10)
                lowest_off = std::min(lowest_off, int32_t(in.off));
        }
        for (int32_t pc = s.start; pc < s.end; pc++)
            if (env.facts.ops[size_t(pc)] && env.facts.insns[size_t(pc)].opcode == kCall)
                mark_call(env, targets, sp, pc, lowest_off);
    }
}

void check_fastcall_stack_contract(Env& env, int subprog, int64_t off) {
    auto& fc = env.aux.fastcall;
    if (subprog < 0 || size_t(subprog) >= fc.stack_off.size())
        return;
    const size_t pc = size_t(env.path.pc);
    if (fc.stack_off[size_t(subprog)] <= off || (pc < fc.pattern.size() && fc.pattern[pc]))
        return;
    // Something outside the patterns touched their slots: this subprogram keeps them all (once per subprogram).
    fc.stack_off[size_t(subprog)] = kDisabled;
    const Subprog& s = env.facts.subprogs[size_t(subprog)];
    for (int32_t i = s.start; i < s.end; i++)
        fc.pattern[size_t(i)] = fc.spills[size_t(i)] = 0;
}

void remove_fastcall_stack(Env& env) {
    const auto& fc = env.aux.fastcall;
    const size_t subprogs = env.facts.subprogs.size();
    env.aux.stack_depth.resize(std::max(env.aux.stack_depth.size(), subprogs));
    env.aux.kernel_stack_depth = env.aux.stack_depth;
    for (size_t sp = 0; sp < subprogs && sp < fc.stack_off.size(); sp++) {
        const Subprog& s = env.facts.subprogs[sp];
        bool removed = false;
        for (int32_t pc = s.start; pc < s.end; pc++)
            removed |= fc.spills[size_t(pc)] > 0;
        if (removed && !fc.keep[sp])
            env.aux.kernel_stack_depth[sp] = -fc.stack_off[sp];
    }
}

int32_t kernel_stack_depth(const Env& env, size_t subprog) {
    const auto& d = env.aux.kernel_stack_depth.size() > subprog ? env.aux.kernel_stack_depth : env.aux.stack_depth;
    return subprog < d.size() ? d[subprog] : 0;
}

void update_loop_inline(Env& env, int32_t callback_subprog, bool flags_zero) {
    auto [it, first] = env.aux.loop_inline.try_emplace(env.path.pc);
    if (first) {
        it->second = {flags_zero, callback_subprog};
        return;
    }
    it->second.fit = it->second.fit && flags_zero && it->second.callback == callback_subprog;
}

std::vector<int32_t> reported_stack_depths(const Env& env) {
    const size_t subprogs = env.facts.subprogs.size();
    std::vector<int32_t> d;
    for (size_t sp = 0; sp < subprogs; sp++) {
        const Subprog& s = env.facts.subprogs[sp];
        const auto first = env.aux.seen.begin() + std::min<ptrdiff_t>(s.start, ptrdiff_t(env.aux.seen.size()));
        const auto last = env.aux.seen.begin() + std::min<ptrdiff_t>(s.end, ptrdiff_t(env.aux.seen.size()));
        if (sp > 0 && std::find(first, last, uint8_t(1)) == last)
            continue; // opt_remove_dead_code drops a function no path reached, and its entry in the list
        d.push_back(kernel_stack_depth(env, sp));
        bool loop = false, may_goto = false;
        for (int32_t pc = s.start; pc < s.end; pc++) {
            const auto it = env.aux.loop_inline.find(pc);
            loop |= it != env.aux.loop_inline.end() && it->second.fit;
            const isa::OpInfo* op = env.facts.ops[size_t(pc)];
            may_goto |= op && op->shape == isa::Shape::MAY_GOTO && size_t(pc) < env.aux.seen.size() &&
                        env.aux.seen[size_t(pc)];
        }
        if (loop) // optimize_bpf_loop: r6..r8 saved below the frame, rounded to 8 bytes first
            d.back() += 3 * 8 + (d.back() + 7) / 8 * 8 - d.back();
        if (may_goto) // do_misc_fixups: the x86-64 JIT's timed may_goto keeps a count and a timestamp
            d.back() += 16;
    }
    return d;
}

} // namespace strbpf::verifier
