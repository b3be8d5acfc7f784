// SPDX-License-Identifier: BSD-2-Clause
// The interpreter's entry points (exec stage): validation, the dispatch loop (dispatch.cpp), and the translation
// of how a run stopped into an InterpResult with a message naming the pc.
#include "exec/interp/interpreter.hpp"

#include <fmt/format.h>

#include "exec/interp/machine.hpp"
#include "exec/runner.hpp"
#include "exec/source_pc.hpp"
#include "runtime/extensions.hpp"
#include "runtime/instance.hpp"
#include "runtime/kfuncs/verify_only.hpp"
#include "isa/opcodes.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::exec::interp {
namespace {

// Why an access starting at addr failed, as the end of "invalid memory read at pc 5: 8 bytes at 0x...".
std::string describe_access(const runtime::RunMemory& mem, uint64_t addr, uint8_t need) {
    const runtime::Region* r = mem.find(addr);
    if (!r)
        return "outside program-visible memory";
    const char* kind = runtime::region_kind_name(r->kind);
    if ((r->perms & need) != need)
        return fmt::format("in {} region '{}', which is not {}", kind, r->name,
                           need == runtime::kPermRead ? "readable" : "writable");
    return fmt::format("crossing the end of {} region '{}' ({} bytes at {:#x})", kind, r->name, r->size, r->base);
}

} // namespace

std::string stop_message(const Outcome& o, const isa::Insn* code, const runtime::RunContext& ctx, uint64_t limit) {
    const isa::Insn& i = *o.at;
    const int64_t pc = o.at - code;
    switch (o.stop) {
    case Stop::exit:
        return {};
    case Stop::mem_read:
        return fmt::format("invalid memory read at pc {}: {} bytes at {:#x} {}", pc, o.size, o.addr,
                           describe_access(ctx.mem, o.addr, runtime::kPermRead));
    case Stop::mem_write: {
        const bool atomic = (i.opcode & 0xe7) == (isa::BPF_STX | isa::BPF_ATOMIC);
        return fmt::format("invalid memory {} at pc {}: {} bytes at {:#x} {}", atomic ? "atomic access" : "write", pc,
                           o.size, o.addr,
                           describe_access(ctx.mem, o.addr, atomic ? runtime::kPermRW : runtime::kPermWrite));
    }
    case Stop::limit:
        return fmt::format("instruction limit of {} reached at pc {}", limit, pc);
    case Stop::invalid:
        return fmt::format("invalid instruction at pc {} (opcode 0x{:02x})", pc, i.opcode);
    case Stop::bad_helper:
        return fmt::format("unknown helper #{} at pc {}: strbpf does not provide it", i.imm, pc);
    case Stop::bad_kfunc:
        if (std::string why = runtime::verify_only_run_refusal(i.imm, int64_t(pc)); !why.empty())
            return why;
        return fmt::format("unknown kfunc index {} at pc {}", i.imm, pc);
    case Stop::aborted:
        return ctx.abort_message;
    case Stop::call_depth:
        return fmt::format("call depth exceeds {} frames at pc {}", isa::kMaxCallDepth, pc);
    case Stop::legacy_ld:
        return fmt::format("BPF_LD_ABS/BPF_LD_IND at pc {} are not supported", pc);
    case Stop::unlinked_ld:
        return fmt::format("ld_imm64 {} at pc {} was not resolved by the linker",
                           isa::ld_imm64_pseudo_name(i.src) ? isa::ld_imm64_pseudo_name(i.src) : "?", pc);
    case Stop::no_arena:
        return fmt::format("arena access at pc {} in a program without an arena", pc);
    }
    return "unknown stop";
}

namespace {

// A helper or kfunc ended the run: the first frame to see it names its call (O.at) in the message, once.
void name_abort(runtime::RunContext& ctx, EngineState& st, const Outcome& o) {
    if (st.abort_named)
        return;
    ctx.abort_message = name_call_pc(std::move(ctx.abort_message), o.at - st.code, st.source);
    st.abort_named = true;
}

} // namespace

const isa::Insn* unverified_exception_callback(const runtime::RunContext& ctx, const isa::Insn* code, size_t size) {
    if (!ctx.instance)
        return nullptr;
    for (const runtime::LinkedProgram& lp : ctx.instance->programs()) {
        if (lp.insns.data() != code || !lp.spec)
            continue;
        int64_t cb = -1, direct_call = -1;
        if (!verifier::exception_callback_refusal(ctx.instance->spec(), *lp.spec, &cb, &direct_call).empty() ||
            cb <= 0 || size_t(cb) >= size)
            return nullptr;
        return code + cb;
    }
    return nullptr;
}

bool interp_tail_call(runtime::RunContext* ctx, const void* target) {
    EngineState& st = *static_cast<EngineState*>(ctx->engine_state);
    const auto& prog = *static_cast<const runtime::LinkedProgram*>(target);
    if (!prog.linked || prog.insns.empty()) {
        ctx->abort(fmt::format("bpf_tail_call: program '{}' cannot run: {}", prog.spec->name, prog.link_error.message));
        return false;
    }
    // A verified run may enter only verified programs; interp-checked runs check every access, of valid insns.
    if (Status s = load_check(st.checked ? EngineKind::interp_checked : EngineKind::interp, *ctx->instance, prog);
        !s) {
        ctx->abort(fmt::format("bpf_tail_call: program '{}' cannot load: {}", prog.spec->name, s.error().message));
        return false;
    }
    const std::span<const isa::Insn> code = engine_insns(st.checked ? EngineKind::interp_checked : EngineKind::interp,
                                                        prog);
    st.tail_target = code.data();
    st.tail_size = code.size();
    st.source = st.checked ? nullptr : prog.cache->program.get();
    return true;
}

uint64_t invoke_callback(runtime::RunContext* ctx, uint64_t callback, uint64_t r1, uint64_t r2, uint64_t r3,
                         uint64_t r4, uint64_t r5) {
    EngineState& st = *static_cast<EngineState*>(ctx->engine_state);
    if (ctx->aborted)
        return 0;
    const uint64_t off = callback - reinterpret_cast<uint64_t>(st.code);
    const uint64_t pc = off / sizeof(isa::Insn);
    if (off % sizeof(isa::Insn) != 0 || pc >= st.size || (pc > 0 && isa::is_ld_imm64(st.code[pc - 1]))) {
        ctx->abort(fmt::format("invalid callback {:#x}: not an instruction of this program", callback));
        return 0;
    }
    if (st.depth >= isa::kMaxCallDepth) {
        ctx->abort(name_source_pc(fmt::format("call depth exceeds {} frames (callback at pc {})", isa::kMaxCallDepth,
                                              pc),
                                  st.source));
        return 0;
    }
    const int saved_depth = st.depth;
    const uint64_t saved_used = st.used, saved_nested = st.nested;
    st.used = saved_used + saved_nested;
    st.nested = 0;
    if (st.limit && st.used >= st.limit) {
        ctx->abort(name_source_pc(fmt::format("instruction limit of {} reached (callback at pc {})", st.limit, pc),
                                  st.source));
        return 0;
    }
    Outcome out;
    execute(Entry{st.code + pc, {r1, r2, r3, r4, r5}, saved_depth + 1}, *ctx, st, st.limit ? st.limit - st.used : 0,
            out);
    st.depth = saved_depth;
    st.used = saved_used;
    st.nested = saved_nested + out.executed;
    if (out.stop != Stop::exit) {
        if (out.stop == Stop::aborted) {
            name_abort(*ctx, st, out);
        } else {
            ctx->abort(name_source_pc(stop_message(out, st.code, *ctx, st.limit), st.source));
            st.abort_named = true;
        }
        return 0;
    }
    return out.r0;
}

namespace {
InterpResult run_at(std::span<const isa::Insn> insns, size_t pc, const std::array<uint64_t, 5>& args,
                    runtime::RunContext& ctx, runtime::StackArea& stack, uint64_t insn_limit, bool checked,
                    const verifier::VerifiedProgram* source) {
    InterpResult res;
    if (insns.empty() || pc >= insns.size()) {
        res.error = "empty program";
        return res;
    }
    EngineState st;
    st.code = insns.data();
    st.size = insns.size();
    st.stack = &stack;
    st.limit = insn_limit;
    st.checked = checked;
    st.source = source;
    const auto saved_fn = ctx.invoke_callback;
    void* const saved_state = ctx.engine_state;
    const auto saved_tail = ctx.tail_call;
    ctx.invoke_callback = invoke_callback;
    ctx.tail_call = interp_tail_call;
    ctx.tail_call_cnt = 0; // the kernel counts tail calls per run
    ctx.preempt_count = 0;
    ctx.engine_state = &st;
    Outcome out;
    if (checked) // the embedder's kfuncs' references, held per run (runtime/extensions.hpp)
        runtime::ext_checked_run_begin(ctx);
    execute(Entry{insns.data() + pc, {args[0], args[1], args[2], args[3], args[4]}, 1}, ctx, st, insn_limit, out);
    if (checked)
        if (std::string leak = runtime::ext_checked_run_end(ctx); !leak.empty() && out.stop == Stop::exit) {
            out.stop = Stop::aborted;
            ctx.abort(std::move(leak));
        }
    ctx.invoke_callback = saved_fn;
    ctx.tail_call = saved_tail;
    ctx.engine_state = saved_state;
    res.insns_executed = out.executed;
    res.r0 = out.r0;
    res.pc = out.at - st.code; // after a tail call, pcs count in the program that ran last
    res.ok = out.stop == Stop::exit;
    if (out.stop == Stop::aborted) {
        name_abort(ctx, st, out);
        res.error = ctx.abort_message;
    } else if (!res.ok) {
        res.error = name_source_pc(stop_message(out, st.code, ctx, insn_limit), st.source);
    }
    return res;
}

} // namespace

InterpResult run_validated(std::span<const isa::Insn> insns, uint64_t r1, uint64_t r2, runtime::RunContext& ctx,
                           runtime::StackArea& stack, uint64_t insn_limit, bool checked,
                           const verifier::VerifiedProgram* source) {
    return run_at(insns, 0, {r1, r2, 0, 0, 0}, ctx, stack, insn_limit, checked, source);
}

InterpResult run_function(std::span<const isa::Insn> insns, size_t pc, const std::array<uint64_t, 5>& args,
                          runtime::RunContext& ctx, runtime::StackArea& stack, bool checked,
                          const verifier::VerifiedProgram* source) {
    return run_at(insns, pc, args, ctx, stack, 0, checked, source);
}

InterpResult run(std::span<const isa::Insn> insns, uint64_t r1, uint64_t r2, runtime::RunContext& ctx,
                 runtime::StackArea& stack, uint64_t insn_limit) {
    if (Status st = isa::validate(insns); !st.ok()) {
        InterpResult res;
        res.error = st.error().message;
        res.pc = st.error().pc;
        return res;
    }
    return run_validated(insns, r1, r2, ctx, stack, insn_limit);
}

} // namespace strbpf::exec::interp
