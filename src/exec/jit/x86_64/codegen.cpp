// SPDX-License-Identifier: BSD-2-Clause
// x86-64 code generation for the JIT (exec stage, JIT): one asmjit emission per BPF instruction, chosen by the
// opcode table's shape and sem, plus the entry trampoline, function prologues/epilogues and cold error stubs.
// The register mapping and the division and atomic sequences follow the kernel's arch/x86/net/bpf_jit_comp.c.
//
// Native frame of a BPF function: the entry trampoline (or the caller's `call`) pushes the return address, the
// prologue pushes rbp rbx r13 r14 r15 (r10, r6..r9) and moves rbp (r10) 512 bytes down the StackArea; `exit`
// pops them and returns. So rsp is 16-byte aligned inside every function body and helpers are called with a
// plain `call rel32`. r12 holds &ctx for the whole run; r9, r10, r11 are scratch. A lean program (one function,
// no callbacks) instead runs inline in its own System V entry, which saves only the registers the program uses;
// that entry starts the code (page-aligned), and the trampoline follows the stubs.
#include "exec/jit/x86_64/codegen.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include <fmt/format.h>

#include "exec/jit/x86_64/abi.hpp"
#include "exec/jit/x86_64/probe_load.hpp"
#include "exec/jit/x86_64/short_strings.hpp"
#include "exec/jit/x86_64/stack_site.hpp"
#include "isa/opcodes.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "runtime/helpers/string_helpers.hpp"
#include "runtime/kfuncs/graph_kfuncs.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/kfuncs/throw_kfunc.hpp"

namespace strbpf::exec::jit::x86_64 {
namespace {

namespace x86 = asmjit::x86;
using asmjit::imm;
using asmjit::Label;
using isa::Sem;
using isa::Shape;
using CC = x86::CondCode;

// BPF r0..r10 -> native register ids: rax rdi rsi rdx rcx r8 rbx r13 r14 r15 rbp (the kernel's reg2hex).
constexpr uint32_t kRegId[isa::kNumRegs] = {0, 7, 6, 2, 1, 8, 3, 13, 14, 15, 5};
constexpr uint32_t kRax = 0, kRcx = 1;
const x86::Gp kCtxReg = x86::r12;

x86::Gp q(int r) { return x86::gpq(kRegId[r]); }
x86::Gp d(int r) { return x86::gpd(kRegId[r]); }
x86::Gp w(int r) { return x86::gpw(kRegId[r]); }
x86::Gp b(int r) { return x86::gpb_lo(kRegId[r]); }
x86::Gp sized(bool w64, const x86::Gp& r) { return w64 ? x86::Gp(r.r64()) : x86::Gp(r.r32()); }

class FirstError : public asmjit::ErrorHandler {
  public:
    void handleError(asmjit::Error err, const char* message, asmjit::BaseEmitter*) override {
        if (!error) {
            error = err;
            text = message;
        }
    }
    asmjit::Error error = asmjit::kErrorOk;
    std::string text;
};

bool takes_callback(int32_t helper_id) {
    const runtime::HelperProto* p = runtime::find_helper(helper_id);
    return p && p->callback.takes(); // the helper table's callback column
}

// Loop heads (targets of backward jumps) start on a 64-byte boundary, so a loop spans the fewest cache lines and
// op-cache windows. Measured on the two byte-loop strncmps at 4095 bytes (AMD EPYC): unaligned 3.4 us each; with
// 32-byte alignment 2.3 us (jit_bench) and 3.4 us (`strbpf bench`'s, whose 61-byte loop then straddles a line);
// with 64-byte alignment 2.3 and 2.7 us, where offsets 4..60 into a line ranged from 3.4 to 4.4 us.
constexpr uint32_t kLoopAlign = 64;

CC jump_cond(Sem s) {
    switch (s) {
    case Sem::jeq:
        return CC::kE;
    case Sem::jne:
        return CC::kNE;
    case Sem::jgt:
        return CC::kA;
    case Sem::jge:
        return CC::kAE;
    case Sem::jlt:
        return CC::kB;
    case Sem::jle:
        return CC::kBE;
    case Sem::jsgt:
        return CC::kG;
    case Sem::jsge:
        return CC::kGE;
    case Sem::jslt:
        return CC::kL;
    case Sem::jsle:
        return CC::kLE;
    default:
        return CC::kNZ; // jset
    }
}

class Gen {
  public:
    Gen(std::span<const isa::Insn> insns, asmjit::CodeHolder& code, const CodegenOptions& opts)
        : insns_(insns), a_(&code), opts_(opts), co_(context_offsets()) {
        a_.setErrorHandler(&err_);
        a_.addEncodingOptions(asmjit::EncodingOptions::kOptimizedAlign); // multi-byte NOPs
    }
    Status run(Emitted* out);

  private:
    struct Stub {
        Label label;
        int32_t pc;
        ExitCode code;
    };

    void find_targets();
    void emit_enter();
    void emit_enter_main();
    void emit_enter_head();
    void emit_enter_tail();
    void lean_plan();
    void emit_lean_tail();
    void prologue();
    void epilogue();
    void emit_insn(size_t pc, const isa::OpInfo& op, const isa::Insn& i);
    void alu_k(bool w64, Sem s, int dst, int32_t k);
    void alu_x(bool w64, Sem s, int dst, int src);
    void mov_imm(int dst, uint64_t v);
    void shift_k(bool w64, Sem s, int dst, int32_t k);
    void shift_x(bool w64, Sem s, int dst, int src);
    void divmod(bool w64, Sem s, int dst, int src, int32_t k);
    void byte_swap(Sem s, int dst);
    void load(Sem s, int dst, int src, int16_t off);
    void store_imm(Sem s, int dst, int16_t off, int32_t k);
    void store_reg(Sem s, int dst, int src, int16_t off);
    void atomic(bool w64, Sem s, int dst, int src, int16_t off);
    void atomic_rmw(bool w64, Sem s, int src, const x86::Mem& mem);
    void arena_atomic(size_t pc, const isa::OpInfo& op, const isa::Insn& i);
    x86::Mem arena_address(size_t pc, int reg, int16_t off, int size, const Label& absent);
    void arena_insn(size_t pc, const isa::OpInfo& op, const isa::Insn& i);
    void atomic_loop(bool w64, Sem s, int src, const x86::Mem& mem);
    void jump(bool w64, bool reg, Sem s, const isa::Insn& i, size_t target);
    void call_native(uint64_t fn, bool callback_capable);
    void call_site(size_t pc, const runtime::CallSiteEntries& e, bool check_abort);
    bool site_guard(const verifier::ArgFact* f, int reg, const x86::Gp& span, const Label& miss);
    bool stack_guard(const verifier::ArgFact* f, int reg, const x86::Gp& span, const Label& miss, int64_t* known);
    Label tail_stub(runtime::ShortPath kind, const Label& call, const Label& done);
    bool stack_site_ok() const;
    void call_local(size_t pc, size_t target);
    void emit_throw();
    void jump_to(const Label& l, CC cc, bool always);
    void jcc(CC cc, const Label& l) { jump_to(l, cc, false); }
    void jmp(const Label& l) { jump_to(l, CC::kNZ, true); }
    void finish_jumps(Emitted* out);
    Label stub(size_t pc, ExitCode code);
    void emit_stubs();
    size_t target(size_t pc, const isa::OpInfo& op) const { return size_t(*isa::target_pc(op, insns_[pc], pc)); }

    std::span<const isa::Insn> insns_;
    x86::Assembler a_;
    CodegenOptions opts_;
    ContextOffsets co_;
    FirstError err_;
    std::vector<Label> body_;  // per pc: bound at the instruction's code (jump targets, function bodies)
    std::vector<bool> loop_head_; // per pc: the target of a backward jump
    std::vector<size_t> aligns_;  // offsets of the loop heads aligned so far (ascending)
    std::vector<Label> entry_; // per pc: bound before the prologue of a function starting there
    std::vector<Stub> stubs_;
    struct MissStub {
        Label miss, done;
        uint64_t slots, fn;
    };
    std::vector<MissStub> miss_stubs_; // call sites' cold paths: the miss entry, then back to `done`
    struct StackStub {
        Label enter, back, miss;
        int reg;
        x86::Gp span;
        Label tail; // valid: a span below 16 goes there (TailStub)
    };
    // A one-string scan's stack string within 16 bytes of the top: answered by emit_stack_tail.
    struct TailStub {
        Label enter, call, done;
        runtime::ShortPath kind;
    };
    std::vector<TailStub> tail_stubs_;
    std::vector<StackStub> stack_stubs_; // a slot check that missed: the pointer may lie in the run's stack
    size_t next_site_ = 0;             // the next call site's index into opts_.site_slots
    ShortPool short_pool_;             // the short paths' constants (emit_short_constants), after the stubs
    ProbeLoads probes_;                // loads through kernel object pointers (probe_load.hpp): their thunk
    Label enter_, enter_exit_, enter_main_, fail_;
    size_t insn_pc_ = 0; // the instruction emit_insn is emitting: a helper or kfunc call's abort stub names it
    // Per BPF register, the ld_imm64 value it holds here when the straight-line code since the last jump target
    // set it and nothing wrote it after (track_imm64): a call site's guard of that exact address is then proved.
    std::array<std::optional<uint64_t>, 11> imm64_;
    // Per BPF register, K when the straight-line code since the last jump target made it r10 + K (a mov from
    // r10, then adds and subtracts of constants): in a lean program's main a string call site then knows the
    // pointer's stack span with no compare at all (stack_known).
    std::array<std::optional<int64_t>, 11> fp_off_;
    void track_imm64(size_t pc, const isa::OpInfo& op);
    void track_fp_off(const isa::OpInfo& op, const isa::Insn& i);
    bool stack_known(int reg, const x86::Gp& span, int64_t* known);
    // Lean program (one BPF function, no callback-taking helper): main runs inline in enter_main_ (a LeanFn) and
    // exits straight to its caller; stubs return their status in rdx instead of unwinding through the RunState.
    bool single_ = false;
    bool calls_back_ = false;           // it calls a helper that takes a callback (bpf_loop, ...)
    bool lean_calls_ = false;           // it calls helpers or kfuncs: r12 holds &ctx, rsp 16-aligned at calls
    std::vector<x86::Gp> lean_saved_;   // the callee-saved registers it uses, in push order
    bool lean_pad_ = false;             // an 8-byte pad keeps rsp 16-aligned at calls
    std::vector<std::pair<Label, size_t>> jumps_; // forward jumps: (target, offset just past the jump)
};

// ---- program structure ---------------------------------------------------------------------------------------
void Gen::find_targets() {
    const size_t n = insns_.size();
    body_.assign(n, Label());
    loop_head_.assign(n, false);
    entry_.assign(n, Label());
    auto mark_body = [&](size_t t) {
        if (!body_[t].isValid())
            body_[t] = a_.newLabel();
    };
    auto mark_function = [&](size_t t) {
        if (!entry_[t].isValid())
            entry_[t] = a_.newLabel();
        mark_body(t);
    };
    mark_function(0);
    // The program's own exception callback: no instruction calls it, a bpf_throw enters it (emit_throw).
    if (opts_.verified && opts_.verified->exception_cb >= 0 && size_t(opts_.verified->exception_cb) < n)
        mark_function(size_t(opts_.verified->exception_cb));
    for (size_t pc = 0; pc < n;) {
        const isa::OpInfo& op = *isa::decode(insns_[pc]);
        switch (op.shape) {
        case Shape::JA:
        case Shape::MAY_GOTO:
        case Shape::GOTOL:
        case Shape::JMP_K:
        case Shape::JMP_X:
        case Shape::JMP32_K:
        case Shape::JMP32_X:
            mark_body(target(pc, op));
            if (target(pc, op) <= pc)
                loop_head_[target(pc, op)] = true;
            break;
        case Shape::CALL_LOCAL:
            mark_function(target(pc, op));
            break;
        case Shape::LDDW:
            if (op.sem == Sem::func)
                mark_function(target(pc, op));
            break;
        case Shape::CALL_HELPER:
            calls_back_ = calls_back_ || takes_callback(insns_[pc].imm);
            break;
        case Shape::CALL_KFUNC: // bpf_rbtree_add_impl's `less`
            calls_back_ = calls_back_ || runtime::kfunc_takes_callback(uint32_t(insns_[pc].imm));
            break;
        default:
            break;
        }
        pc += size_t(isa::slots(op));
    }
}

// uint64_t enter(EntryFrame* f): saves the System V callee-saved registers, loads the BPF registers from f and
// calls f->target. Error stubs come back to enter_exit_ with rsp = RunState::entry_rsp.
void Gen::emit_enter() {
    a_.bind(enter_);
    emit_enter_head();
    a_.mov(x86::r11, x86::qword_ptr(x86::rdi, kFrameTarget));
    a_.xor_(x86::eax, x86::eax); // r0 and r6..r9 start at 0, as in the interpreter
    a_.xor_(x86::ebx, x86::ebx);
    a_.xor_(x86::r13d, x86::r13d);
    a_.xor_(x86::r14d, x86::r14d);
    a_.xor_(x86::r15d, x86::r15d);
    a_.mov(x86::rsi, x86::qword_ptr(x86::rdi, 8));
    a_.mov(x86::rdx, x86::qword_ptr(x86::rdi, 16));
    a_.mov(x86::rcx, x86::qword_ptr(x86::rdi, 24));
    a_.mov(x86::r8, x86::qword_ptr(x86::rdi, 32));
    a_.mov(x86::rdi, x86::qword_ptr(x86::rdi, 0));
    a_.call(x86::r11);
    a_.bind(enter_exit_);
    emit_enter_tail();
}

// The first half of both entries: System V callee-saved registers, &ctx in r12, the unwind point, r10.
void Gen::emit_enter_head() {
    for (const x86::Gp& r : {x86::rbp, x86::rbx, x86::r12, x86::r13, x86::r14, x86::r15})
        a_.push(r);
    a_.sub(x86::rsp, 8); // 6 pushes + return address: realign to 16 (function bodies run 16-byte aligned)
    a_.mov(kCtxReg, x86::qword_ptr(x86::rdi, kFrameCtx));
    a_.mov(x86::r11, x86::qword_ptr(kCtxReg, co_.engine_state));
    a_.mov(x86::qword_ptr(x86::r11, kStateEntryRsp), x86::rsp);
    a_.mov(x86::rbp, x86::qword_ptr(x86::rdi, kFrameFp));
}

void Gen::emit_enter_tail() {
    a_.add(x86::rsp, 8);
    for (const x86::Gp& r : {x86::r15, x86::r14, x86::r13, x86::r12, x86::rbx, x86::rbp})
        a_.pop(r);
    a_.ret();
}

// Which callee-saved registers a lean program uses (BPF r6..r10 and, when it calls out, r12 = &ctx).
void Gen::lean_plan() {
    bool used[16] = {}; // register fields are 4 bits wide
    for (size_t pc = 0; pc < insns_.size();) {
        const isa::OpInfo& op = *isa::decode(insns_[pc]);
        if (op.shape == Shape::CALL_HELPER || op.shape == Shape::CALL_KFUNC)
            lean_calls_ = true;
        else if (op.shape != Shape::EXIT) { // the registers it reads or writes (opcodes.def's columns)
            lean_calls_ = lean_calls_ || is_probe_load(opts_.verified, pc); // it calls the probe thunk
            const uint16_t regs = uint16_t(isa::regs_read(op, insns_[pc]) | isa::regs_written(op, insns_[pc]));
            for (int r = 0; r < 16; r++)
                used[r] = used[r] || ((regs >> r) & 1);
            used[10] = used[10] || op.shape == Shape::MAY_GOTO; // its verified form counts down a slot at r10 + imm
        }
        pc += size_t(isa::slots(op));
    }
    lean_saved_.clear();
    if (used[10])
        lean_saved_.push_back(x86::rbp);
    for (int r = 6; r <= 9; r++)
        if (used[r])
            lean_saved_.push_back(q(r));
    if (lean_calls_)
        lean_saved_.push_back(kCtxReg);
    // The caller's call leaves rsp 8 off a 16-byte boundary; each push moves it 8.
    lean_pad_ = lean_calls_ && lean_saved_.size() % 2 == 0;
}

// LeanResult enter_main(r1, r2, ctx, fp) for a lean program: saves what lean_plan() found, then main's body
// follows directly. r0, r3..r5 and the used r6..r9 start at 0, as in the interpreter, unless the code is a
// verified program's (which reads none of them before writing it).
void Gen::emit_enter_main() {
    a_.bind(enter_main_);
    for (const x86::Gp& r : lean_saved_)
        a_.push(r);
    if (lean_pad_)
        a_.sub(x86::rsp, 8);
    if (lean_calls_)
        a_.mov(kCtxReg, x86::rdx);
    if (std::find(lean_saved_.begin(), lean_saved_.end(), x86::rbp) != lean_saved_.end())
        a_.mov(x86::rbp, x86::rcx);
    if (opts_.verified) // the verifier refuses any read of r0 or r3..r9 before a write (R3 !read_ok)
        return;
    a_.xor_(x86::eax, x86::eax);
    a_.xor_(x86::edx, x86::edx);
    a_.xor_(x86::ecx, x86::ecx);
    a_.xor_(x86::r8d, x86::r8d);
    for (const x86::Gp& r : lean_saved_)
        if (r != x86::rbp && r != kCtxReg)
            a_.xor_(r.r32(), r.r32());
}

// A lean program's way out (rax = r0, rdx = status already set): undoes emit_enter_main's pushes.
void Gen::emit_lean_tail() {
    if (lean_pad_)
        a_.add(x86::rsp, 8);
    for (auto it = lean_saved_.rbegin(); it != lean_saved_.rend(); ++it)
        a_.pop(*it);
    a_.ret();
}

void Gen::prologue() {
    for (const x86::Gp& r : {x86::rbp, x86::rbx, x86::r13, x86::r14, x86::r15})
        a_.push(r);
    a_.sub(x86::rbp, isa::kStackSize); // this frame's r10: 512 bytes below the caller's
}

void Gen::epilogue() {
    for (const x86::Gp& r : {x86::r15, x86::r14, x86::r13, x86::rbx, x86::rbp})
        a_.pop(r);
    a_.ret();
}

Status Gen::run(Emitted* out) {
    enter_ = a_.newLabel();
    enter_exit_ = a_.newLabel();
    fail_ = a_.newLabel();
    short_pool_.fold = a_.newLabel();
    find_targets();
    // Callbacks need the trampoline's RunState, so a program calling a callback-taking helper is never lean.
    single_ = !calls_back_ &&
              std::count_if(entry_.begin(), entry_.end(), [](const Label& l) { return l.isValid(); }) == 1;
    if (single_) { // the lean entry first, at the code's page-aligned start; the trampoline after the stubs
        enter_main_ = a_.newLabel();
        lean_plan();
        emit_enter_main();
    } else {
        emit_enter();
    }
    const isa::OpInfo* prev = nullptr;
    out->insn_offsets.assign(insns_.size(), 0);
    for (size_t pc = 0; pc < insns_.size();) {
        const isa::OpInfo& op = *isa::decode(insns_[pc]);
        if (entry_[pc].isValid() && !single_) {
            // A function may start right after an instruction that falls through (e.g. `call local +0`).
            if (prev && prev->shape != Shape::EXIT && prev->shape != Shape::JA && prev->shape != Shape::GOTOL)
                jmp(body_[pc]);
            a_.bind(entry_[pc]);
            prologue();
        }
        if (loop_head_[pc]) { // see kLoopAlign
            a_.align(asmjit::AlignMode::kCode, kLoopAlign);
            aligns_.push_back(a_.offset());
        }
        if (body_[pc].isValid()) {
            a_.bind(body_[pc]);
            imm64_.fill(std::nullopt); // another path may arrive here
            fp_off_.fill(std::nullopt);
        }
        out->insn_offsets[pc] = uint32_t(a_.offset());
        if (isa::slots(op) == 2)
            out->insn_offsets[pc + 1] = out->insn_offsets[pc];
        emit_insn(pc, op, insns_[pc]);
        track_fp_off(op, insns_[pc]);
        track_imm64(pc, op);
        prev = &op;
        pc += size_t(isa::slots(op));
    }
    emit_stubs();
    if (single_)
        emit_enter();
    probes_.emit_thunk(a_, kCtxReg);
    emit_short_constants(a_, short_pool_);
    if (err_.error != asmjit::kErrorOk)
        return make_error(fmt::format("JIT: asmjit: {}", err_.text));
    finish_jumps(out);
    out->enter = enter_;
    out->enter_main = enter_main_;
    out->main = entry_[0];
    out->functions.clear();
    out->function_pcs.clear();
    for (size_t pc = 0; pc < entry_.size() && !single_; pc++)
        if (entry_[pc].isValid()) {
            out->functions.push_back(entry_[pc]);
            out->function_pcs.push_back(int64_t(pc));
        }
    return ok_status();
}

// ---- ALU -----------------------------------------------------------------------------------------------------
void Gen::alu_k(bool w64, Sem s, int dst, int32_t k) {
    const x86::Gp D = w64 ? q(dst) : d(dst);
    const asmjit::Imm K = w64 ? imm(int64_t(k)) : imm(k);
    switch (s) {
    case Sem::add:
        a_.add(D, K);
        break;
    case Sem::sub:
        a_.sub(D, K);
        break;
    case Sem::or_:
        a_.or_(D, K);
        break;
    case Sem::and_:
        a_.and_(D, K);
        break;
    case Sem::xor_:
        a_.xor_(D, K);
        break;
    case Sem::mul:
        a_.imul(D, D, K);
        break;
    case Sem::mov:
        mov_imm(dst, w64 ? uint64_t(int64_t(k)) : uint64_t(uint32_t(k)));
        break;
    case Sem::lsh:
    case Sem::rsh:
    case Sem::arsh:
        shift_k(w64, s, dst, k);
        break;
    case Sem::div:
    case Sem::mod:
    case Sem::sdiv:
    case Sem::smod:
        divmod(w64, s, dst, -1, k);
        break;
    default:
        break;
    }
}

void Gen::alu_x(bool w64, Sem s, int dst, int src) {
    const x86::Gp D = w64 ? q(dst) : d(dst);
    const x86::Gp S = w64 ? q(src) : d(src);
    switch (s) {
    case Sem::add:
        a_.add(D, S);
        break;
    case Sem::sub:
        a_.sub(D, S);
        break;
    case Sem::or_:
        a_.or_(D, S);
        break;
    case Sem::and_:
        a_.and_(D, S);
        break;
    case Sem::xor_:
        a_.xor_(D, S);
        break;
    case Sem::mul:
        a_.imul(D, S);
        break;
    case Sem::mov:
        if (!w64 || dst != src) // mov32 to itself still zero-extends
            a_.mov(D, S);
        break;
    case Sem::movsx8:
        a_.movsx(D, b(src));
        break;
    case Sem::movsx16:
        a_.movsx(D, w(src));
        break;
    case Sem::movsx32:
        a_.movsxd(q(dst), d(src));
        break;
    case Sem::addr_space_cast: // alu_cast handles it (it reads imm)
        break;
    case Sem::lsh:
    case Sem::rsh:
    case Sem::arsh:
        shift_x(w64, s, dst, src);
        break;
    case Sem::div:
    case Sem::mod:
    case Sem::sdiv:
    case Sem::smod:
        divmod(w64, s, dst, src, 0);
        break;
    default:
        break;
    }
}

// The shortest form, as the kernel's emit_mov_imm32/64: xor for 0, a zero-extending 32-bit mov for values that
// fit in 32 bits unsigned, a sign-extended imm32 for small negatives, movabs otherwise.
void Gen::mov_imm(int dst, uint64_t v) {
    if (v == 0)
        a_.xor_(d(dst), d(dst));
    else if (v <= 0xffffffffu)
        a_.mov(d(dst), imm(uint32_t(v)));
    else
        a_.mov(q(dst), imm(v));
}

void Gen::shift_k(bool w64, Sem s, int dst, int32_t k) {
    const int n = k & (w64 ? 63 : 31);
    const x86::Gp D = w64 ? q(dst) : d(dst);
    if (n == 0) { // the count is masked to 0: the value stays, a 32-bit form still zero-extends
        if (!w64)
            a_.mov(D, D);
        return;
    }
    if (s == Sem::lsh)
        a_.shl(D, imm(n));
    else if (s == Sem::rsh)
        a_.shr(D, imm(n));
    else
        a_.sar(D, imm(n));
}

// x86 masks shift counts exactly as BPF does (mod 64, or mod 32 for 32-bit operands).
void Gen::shift_x(bool w64, Sem s, int dst, int src) {
    if (opts_.bmi2) {
        const x86::Gp D = sized(w64, q(dst)), S = sized(w64, q(src));
        if (s == Sem::lsh)
            a_.shlx(D, D, S);
        else if (s == Sem::rsh)
            a_.shrx(D, D, S);
        else
            a_.sarx(D, D, S);
        return;
    }
    auto emit = [&](const x86::Gp& v) {
        if (s == Sem::lsh)
            a_.shl(v, x86::cl);
        else if (s == Sem::rsh)
            a_.shr(v, x86::cl);
        else
            a_.sar(v, x86::cl);
    };
    if (kRegId[src] == kRcx) { // the count is already in cl (dst may be rcx too)
        emit(sized(w64, q(dst)));
        return;
    }
    a_.mov(x86::r11, x86::rcx); // r4 lives in rcx: park it while cl holds the count
    a_.mov(x86::rcx, q(src));
    if (kRegId[dst] == kRcx) {
        emit(sized(w64, x86::r11));
        a_.mov(x86::rcx, x86::r11);
    } else {
        emit(sized(w64, q(dst)));
        a_.mov(x86::rcx, x86::r11);
    }
}

// dst = dst (s)div/(s)mod divisor, with the kernel's results for a zero divisor (div 0, mod keeps dst) and for
// INT_MIN / -1 (sdiv wraps to INT_MIN = -dst, smod 0). src < 0: the divisor is the immediate k.
void Gen::divmod(bool w64, Sem s, int dst, int src, int32_t k) {
    const bool is_signed = s == Sem::sdiv || s == Sem::smod;
    const bool is_mod = s == Sem::mod || s == Sem::smod;
    const x86::Gp D = w64 ? q(dst) : d(dst);
    if (src < 0 && (k == 0 || (is_signed && k == -1))) { // constant divisor with a defined special result
        if (k == 0 ? !is_mod : is_mod)
            a_.xor_(d(dst), d(dst));
        else if (k == 0 && !w64)
            a_.mov(D, D); // mod by 0 keeps dst; 32-bit forms zero-extend it
        else if (k != 0)
            a_.neg(D);
        return;
    }
    const x86::Gp R11 = sized(w64, x86::r11);
    Label zero, minus1, done;
    if (src < 0) {
        a_.mov(R11, w64 ? imm(int64_t(k)) : imm(uint32_t(k)));
    } else {
        a_.mov(R11, w64 ? q(src) : d(src));
        zero = a_.newLabel();
        done = a_.newLabel();
        a_.test(R11, R11);
        jcc(CC::kZ, zero);
        if (is_signed) {
            minus1 = a_.newLabel();
            a_.cmp(R11, imm(-1));
            jcc(CC::kE, minus1);
        }
    }
    a_.mov(x86::r9, x86::rax); // r0 and r3 live in rax and rdx, which (i)div uses
    a_.mov(x86::r10, x86::rdx);
    if (kRegId[dst] != kRax)
        a_.mov(x86::rax, q(dst));
    if (is_signed) {
        if (w64)
            a_.cqo();
        else
            a_.cdq();
        a_.idiv(R11);
    } else {
        a_.xor_(x86::edx, x86::edx);
        a_.div(R11);
    }
    a_.mov(R11, sized(w64, is_mod ? x86::rdx : x86::rax));
    a_.mov(x86::rax, x86::r9);
    a_.mov(x86::rdx, x86::r10);
    a_.mov(D, R11);
    if (src < 0)
        return;
    jmp(done);
    a_.bind(zero);
    if (!is_mod)
        a_.xor_(d(dst), d(dst));
    else if (!w64)
        a_.mov(D, D);
    if (is_signed) {
        jmp(done);
        a_.bind(minus1);
        if (is_mod)
            a_.xor_(d(dst), d(dst));
        else
            a_.neg(D);
    }
    a_.bind(done);
}

void Gen::byte_swap(Sem s, int dst) {
    switch (s) {
    case Sem::le16:
        a_.movzx(d(dst), w(dst));
        break;
    case Sem::le32:
        a_.mov(d(dst), d(dst));
        break;
    case Sem::le64:
        break;
    case Sem::be16:
    case Sem::bswap16:
        a_.ror(w(dst), imm(8));
        a_.movzx(d(dst), w(dst));
        break;
    case Sem::be32:
    case Sem::bswap32:
        a_.bswap(d(dst));
        break;
    default:
        a_.bswap(q(dst));
        break; // be64, bswap64
    }
}

// ---- memory --------------------------------------------------------------------------------------------------
void Gen::load(Sem s, int dst, int src, int16_t off) {
    switch (s) {
    case Sem::u8:
        a_.movzx(d(dst), x86::byte_ptr(q(src), off));
        break;
    case Sem::u16:
        a_.movzx(d(dst), x86::word_ptr(q(src), off));
        break;
    case Sem::u32:
        a_.mov(d(dst), x86::dword_ptr(q(src), off));
        break;
    case Sem::u64:
        a_.mov(q(dst), x86::qword_ptr(q(src), off));
        break;
    case Sem::s8:
        a_.movsx(q(dst), x86::byte_ptr(q(src), off));
        break;
    case Sem::s16:
        a_.movsx(q(dst), x86::word_ptr(q(src), off));
        break;
    default:
        a_.movsxd(q(dst), x86::dword_ptr(q(src), off));
        break; // s32
    }
}

void Gen::store_imm(Sem s, int dst, int16_t off, int32_t k) {
    switch (s) {
    case Sem::u8:
        a_.mov(x86::byte_ptr(q(dst), off), imm(int8_t(k)));
        break;
    case Sem::u16:
        a_.mov(x86::word_ptr(q(dst), off), imm(int16_t(k)));
        break;
    case Sem::u32:
        a_.mov(x86::dword_ptr(q(dst), off), imm(k));
        break;
    default:
        a_.mov(x86::qword_ptr(q(dst), off), imm(k));
        break; // imm32 sign-extended, as BPF_ST|BPF_DW
    }
}

void Gen::store_reg(Sem s, int dst, int src, int16_t off) {
    switch (s) {
    case Sem::u8:
        a_.mov(x86::byte_ptr(q(dst), off), b(src));
        break;
    case Sem::u16:
        a_.mov(x86::word_ptr(q(dst), off), w(src));
        break;
    case Sem::u32:
        a_.mov(x86::dword_ptr(q(dst), off), d(src));
        break;
    default:
        a_.mov(x86::qword_ptr(q(dst), off), q(src));
        break;
    }
}

// An arena access (runtime/maps/arena_view.hpp's arena_access): r11 = (u32)reg + off + kArenaGuard, the index
// into the reservation; the presence bytes of the first and the last byte's page are tested (r9, r10 scratch),
// and an absent page jumps to ABSENT. Returns the operand [window + r11]. Without an arena the run stops.
x86::Mem Gen::arena_address(size_t pc, int reg, int16_t off, int size, const Label& absent) {
    const runtime::ArenaView& ar = opts_.arena;
    if (!ar.window) {
        jmp(stub(pc, ExitCode::no_arena));
        return x86::qword_ptr(x86::r11);
    }
    a_.mov(x86::r11d, d(reg));
    a_.add(x86::r11, imm(int32_t(off) + int32_t(runtime::kArenaGuard)));
    a_.mov(x86::r10, imm(reinterpret_cast<uint64_t>(ar.present)));
    a_.mov(x86::r9, x86::r11);
    a_.shr(x86::r9, imm(12));
    a_.cmp(x86::byte_ptr(x86::r10, x86::r9), imm(0));
    a_.je(absent);
    if (size > 1) {
        a_.lea(x86::r9, x86::ptr(x86::r11, size - 1));
        a_.shr(x86::r9, imm(12));
        a_.cmp(x86::byte_ptr(x86::r10, x86::r9), imm(0));
        a_.je(absent);
    }
    a_.mov(x86::r10, imm(reinterpret_cast<uint64_t>(ar.window)));
    return x86::ptr(x86::r10, x86::r11);
}

// ARENA_* forms: the access through [window + r11], or on an absent page a load of 0 and no store.
void Gen::arena_insn(size_t pc, const isa::OpInfo& op, const isa::Insn& i) {
    const bool ld = op.shape == Shape::ARENA_LDX || op.shape == Shape::ARENA_LDSX;
    const int size = isa::access_size(op);
    const Label absent = a_.newLabel(), done = a_.newLabel();
    x86::Mem m = arena_address(pc, ld ? i.src : i.dst, i.off, size, absent);
    m.setSize(uint32_t(size));
    if (ld) {
        const bool sx = op.shape == Shape::ARENA_LDSX;
        if (size == 8)
            a_.mov(q(i.dst), m);
        else if (size == 4)
            sx ? a_.movsxd(q(i.dst), m) : a_.mov(d(i.dst), m);
        else
            sx ? a_.movsx(q(i.dst), m) : a_.movzx(d(i.dst), m);
        a_.jmp(done);
        a_.bind(absent);
        a_.xor_(d(i.dst), d(i.dst));
    } else if (op.shape == Shape::ARENA_ST) {
        if (size == 8)
            a_.mov(m, imm(i.imm));
        else
            a_.mov(m, imm(size == 4 ? int64_t(i.imm) : size == 2 ? int64_t(int16_t(i.imm)) : int64_t(int8_t(i.imm))));
        a_.bind(absent);
    } else {
        a_.mov(m, size == 8 ? q(i.src) : size == 4 ? d(i.src) : size == 2 ? w(i.src) : b(i.src));
        a_.bind(absent);
    }
    a_.bind(done);
}

// BPF_ATOMIC: lock-prefixed read-modify-write. 32-bit fetch results zero-extend (x86 32-bit writes do).
void Gen::atomic(bool w64, Sem s, int dst, int src, int16_t off) {
    if (s == Sem::fetch_or || s == Sem::fetch_and || s == Sem::fetch_xor) { // a cmpxchg loop through rax
        a_.lea(x86::r9, x86::ptr(q(dst), off));
        atomic_loop(w64, s, src, w64 ? x86::qword_ptr(x86::r9) : x86::dword_ptr(x86::r9));
        return;
    }
    atomic_rmw(w64, s, src, w64 ? x86::qword_ptr(q(dst), off) : x86::dword_ptr(q(dst), off));
}

// The one-instruction atomics (all but fetch_or/and/xor) on MEM, sized.
void Gen::atomic_rmw(bool w64, Sem s, int src, const x86::Mem& mem) {
    const x86::Gp S = w64 ? q(src) : d(src);
    switch (s) {
    case Sem::add:
        a_.lock().add(mem, S);
        break;
    case Sem::or_:
        a_.lock().or_(mem, S);
        break;
    case Sem::and_:
        a_.lock().and_(mem, S);
        break;
    case Sem::xor_:
        a_.lock().xor_(mem, S);
        break;
    case Sem::fetch_add:
        a_.lock().xadd(mem, S);
        break;
    case Sem::xchg:
        a_.xchg(mem, S);
        break;         // xchg with memory is implicitly locked
    case Sem::cmpxchg: // compares with r0 (rax), which receives the old value
        a_.lock().cmpxchg(mem, S);
        if (!w64)
            a_.mov(x86::eax, x86::eax);
        break;
    default: break; // fetch_or/and/xor go through atomic_loop; no arena form has them
    }
}

// ARENA_ATOMIC_* forms: the atomic on [window + r11], or on an absent page no store, and the register a 32-bit
// fetch loads zero-extended (the interpreter's arena_atomic_miss_w).
void Gen::arena_atomic(size_t pc, const isa::OpInfo& op, const isa::Insn& i) {
    const bool w64 = op.shape == Shape::ARENA_ATOMIC_DW;
    const Label absent = a_.newLabel(), done = a_.newLabel();
    x86::Mem m = arena_address(pc, i.dst, i.off, w64 ? 8 : 4, absent);
    m.setSize(w64 ? 8 : 4);
    atomic_rmw(w64, op.sem, i.src, m);
    const bool loads = op.sem == Sem::fetch_add || op.sem == Sem::xchg || op.sem == Sem::cmpxchg;
    if (!w64 && loads) {
        a_.jmp(done);
        a_.bind(absent);
        const x86::Gp r = op.sem == Sem::cmpxchg ? d(0) : d(i.src); // r0 is rax
        a_.mov(r, r);
    } else {
        a_.bind(absent);
    }
    a_.bind(done);
}

void Gen::atomic_loop(bool w64, Sem s, int src, const x86::Mem& mem) {
    const bool src_is_r0 = kRegId[src] == kRax;
    const x86::Gp V = sized(w64, src_is_r0 ? x86::Gp(x86::r10) : q(src)); // src is r0: read r0's copy
    a_.mov(x86::r10, x86::rax);
    a_.mov(sized(w64, x86::rax), mem);
    const Label again = a_.newLabel();
    a_.bind(again);
    a_.mov(sized(w64, x86::r11), sized(w64, x86::rax));
    if (s == Sem::fetch_or)
        a_.or_(sized(w64, x86::r11), V);
    else if (s == Sem::fetch_and)
        a_.and_(sized(w64, x86::r11), V);
    else
        a_.xor_(sized(w64, x86::r11), V);
    a_.lock().cmpxchg(mem, sized(w64, x86::r11));
    a_.jne(again);
    if (!src_is_r0) { // src = old value, r0 restored; when src is r0 it simply keeps the old value
        a_.mov(sized(w64, q(src)), sized(w64, x86::rax));
        a_.mov(x86::rax, x86::r10);
    }
}

// ---- control flow --------------------------------------------------------------------------------------------
void Gen::jump(bool w64, bool reg, Sem s, const isa::Insn& i, size_t target) {
    const x86::Gp D = w64 ? q(i.dst) : d(i.dst);
    if (reg) {
        const x86::Gp S = w64 ? q(i.src) : d(i.src);
        if (s == Sem::jset)
            a_.test(D, S);
        else
            a_.cmp(D, S);
    } else {
        const asmjit::Imm K = w64 ? imm(int64_t(i.imm)) : imm(i.imm);
        if (s == Sem::jset)
            a_.test(D, K);
        else if (i.imm == 0 && (s == Sem::jeq || s == Sem::jne))
            a_.test(D, D);
        else
            a_.cmp(D, K);
    }
    jcc(jump_cond(s), body_[target]);
}

// r0 = fn(r1..r5, &ctx): the BPF argument registers already are the System V ones; the context goes in r9.
void Gen::call_native(uint64_t fn, bool callback_capable) {
    if (callback_capable) { // invoke_callback runs the callback one frame below this one
        a_.mov(x86::r11, x86::qword_ptr(kCtxReg, co_.engine_state));
        a_.mov(x86::qword_ptr(x86::r11, kStateCurFp), x86::rbp);
    }
    a_.mov(x86::r9, kCtxReg);
    a_.call(imm(fn));
    a_.cmp(x86::byte_ptr(kCtxReg, co_.aborted), imm(0));
    jcc(CC::kNE, stub(insn_pc_, ExitCode::aborted));
}

// A call with call-site entries (runtime/kfuncs/call_site.hpp): each string pointer is checked against the region
// its slot keeps; all inside -> its span (region end - pointer) goes in r4 (rcx) / r5 (r8) and `resolved` is called,
// no registry look-up (a short string is first answered inline, x86_64/short_strings.hpp); any outside -> the cold
// path calls `miss` with r4 = the slots (it looks up and fills them). Where the verifier found the pointer to be
// one global-data address on every path (verifier::CallFacts), the check is one compare with that address and the
// span an immediate, and the short path knows both (and a frozen string's bytes).
void Gen::call_site(size_t pc, const runtime::CallSiteEntries& e, bool check_abort) {
    runtime::CallSiteSlot* slots = opts_.site_slots + 2 * next_site_++;
    const verifier::CallFacts* facts = opts_.verified ? opts_.verified->call_facts_at(int64_t(pc)) : nullptr;
    const x86::Gp span_reg[2] = {x86::rcx, x86::r8};
    const MissStub ms{a_.newLabel(), a_.newLabel(), reinterpret_cast<uint64_t>(slots),
                      reinterpret_cast<uint64_t>(e.miss)};
    SiteKnowledge known;
    const Label call = a_.newLabel();
    int64_t tail_known = 0; // a stack string's span fixed below 16 bytes at compile time (emit_stack_tail)
    for (int r = 0; facts && r < 3; r++) // a constant scalar argument (a character, a limit)
        if (facts->args[r].kind == verifier::ArgFact::Kind::constant) {
            known.has_scalar[r] = true;
            known.scalar[r] = int64_t(facts->args[r].value);
        }
    for (int k = 0; k < 2; k++) {
        if (!e.ptr_regs[k])
            continue;
        const x86::Gp S = span_reg[k];
        const verifier::ArgFact* f = facts && e.ptr_regs[k] <= 3 ? &facts->args[e.ptr_regs[k] - 1] : nullptr;
        if (site_guard(f, e.ptr_regs[k], S, ms.miss)) {
            known.span[k] = f->span;
            known.bytes[k] = f->frozen ? reinterpret_cast<const uint8_t*>(f->value) : nullptr;
            continue;
        }
        const bool stack_ok = e.stack_strings && stack_site_ok();
        const bool tail = stack_ok && k == 0 && e.ptr_regs[0] == 1 && !e.ptr_regs[1] && stack_tail_kind(e.short_path);
        if (stack_ok && (stack_known(e.ptr_regs[k], S, &known.span[k]) ||
                         stack_guard(f, e.ptr_regs[k], S, ms.miss, &known.span[k]))) {
            if (tail && known.span[k] < 0) {
                a_.cmp(S, imm(kStackTailMax));
                jcc(CC::kBE, tail_stub(e.short_path, call, ms.done));
            }
            tail_known = tail && known.span[k] > 0 && known.span[k] <= kStackTailMax ? known.span[k] : 0;
            continue;
        }
        a_.mov(x86::r11, imm(reinterpret_cast<uint64_t>(&slots[k])));
        a_.mov(x86::r11, x86::qword_ptr(x86::r11)); // const Region*
        a_.mov(x86::r9, q(e.ptr_regs[k]));
        a_.sub(x86::r9, x86::qword_ptr(x86::r11, int32_t(offsetof(runtime::Region, base)))); // off = ptr - base
        a_.mov(S, x86::qword_ptr(x86::r11, int32_t(offsetof(runtime::Region, size))));
        a_.sub(S, x86::r9); // span = size - off
        if (!stack_ok) {
            jcc(CC::kBE, ms.miss); // unsigned off >= size: below base or at/after the end
            continue;
        }
        stack_stubs_.push_back(StackStub{a_.newLabel(), a_.newLabel(), ms.miss, e.ptr_regs[k], S,
                                         tail ? tail_stub(e.short_path, call, ms.done) : Label()});
        jcc(CC::kBE, stack_stubs_.back().enter); // not in the kept region: perhaps in the stack
        a_.bind(stack_stubs_.back().back);
    }
    // answers short strings inline
    if (tail_known)
        emit_stack_tail(a_, e.short_path, tail_known, call, ms.done);
    else
        emit_short_path(a_, e.short_path, call, ms.done, co_.verified, ShortIsa{opts_.sse42, opts_.avx2}, known,
                        short_pool_);
    a_.bind(call);
    a_.mov(x86::r9, kCtxReg);
    a_.call(imm(reinterpret_cast<uint64_t>(e.resolved)));
    a_.bind(ms.done);
    miss_stubs_.push_back(ms);
    if (check_abort) {
        a_.cmp(x86::byte_ptr(kCtxReg, co_.aborted), imm(0));
        jcc(CC::kNE, stub(insn_pc_, ExitCode::aborted));
    }
}

// A pointer the verifier's fact F names (one global-data address): `ptr` (BPF register `reg`) must be that
// address, else the cold path's look-up decides; its span is an immediate. The compare is left out when the
// straight-line code before the call loaded that very address into the register (imm64_). False (nothing
// emitted) without such a fact.
bool Gen::site_guard(const verifier::ArgFact* f, int reg, const x86::Gp& span, const Label& miss) {
    if (!f || f->kind != verifier::ArgFact::Kind::address || f->span == 0)
        return false;
    if (imm64_[size_t(reg)] != f->value) {
        a_.mov(x86::r11, imm(f->value));
        a_.cmp(q(reg), x86::r11);
        jcc(CC::kNE, miss);
    }
    a_.mov(span.r32(), imm(f->span));
    return true;
}

// A pointer the verifier found in the run's stack on every path (F: stack or stack_any): checked against the
// stack first (a pruned path may bring another pointer: the look-up path answers it); in a lean program's main,
// an fp-relative constant offset is one compare with its span an immediate (*known). False (nothing emitted)
// without such a fact.
bool Gen::stack_guard(const verifier::ArgFact* f, int reg, const x86::Gp& span, const Label& miss, int64_t* known) {
    using K = verifier::ArgFact::Kind;
    if (!f || (f->kind != K::stack && f->kind != K::stack_any))
        return false;
    CC outside;
    if (single_ && f->kind == K::stack && f->up == 0 &&
        emit_stack_fact(a_, int64_t(f->value), q(reg), span, &outside)) {
        *known = -int64_t(f->value);
    } else {
        outside = emit_stack_span(a_, StackTop{single_, co_.engine_state}, q(reg), span);
    }
    jcc(outside, miss);
    return true;
}

// A lean program's main whose straight-line code made `reg` r10 + K, K inside the StackArea (fp_off_): r10 is the
// area's top, so the pointer lies in the stack with span -K, whatever the verifier found; no compare is needed.
// False (nothing emitted) otherwise.
bool Gen::stack_known(int reg, const x86::Gp& span, int64_t* known) {
    const std::optional<int64_t> k = fp_off_[size_t(reg)];
    if (!single_ || !k || *k >= 0 || *k < -int64_t(sizeof(runtime::StackArea::bytes)))
        return false;
    a_.mov(span.r32(), imm(uint32_t(-*k)));
    *known = -*k;
    return true;
}

// After the instruction I: what fp_off_ knows. `rX = r10`, `rX = rY` (rY known), `rX += K` and `rX -= K` (rX known)
// keep or set it; any other write of a register forgets it.
void Gen::track_fp_off(const isa::OpInfo& op, const isa::Insn& i) {
    if (op.shape == Shape::ALU64_X && op.sem == Sem::mov && i.dst < 10) {
        fp_off_[i.dst] = i.src == 10 ? std::optional<int64_t>(0) : (i.src < 10 ? fp_off_[i.src] : std::nullopt);
        return;
    }
    if (op.shape == Shape::ALU64_K && (op.sem == Sem::add || op.sem == Sem::sub) && i.dst < 10 && fp_off_[i.dst]) {
        const int64_t k = op.sem == Sem::add ? int64_t(i.imm) : -int64_t(i.imm);
        *fp_off_[i.dst] += k;
        if (*fp_off_[i.dst] < -(int64_t(1) << 32) || *fp_off_[i.dst] > 0) // far outside any frame: no use to keep
            fp_off_[i.dst] = std::nullopt;
        return;
    }
    const uint16_t written = isa::regs_written(op, i); // opcodes.def's column: calls write r0..r5
    for (size_t r = 0; r < fp_off_.size(); r++)
        if ((written >> r) & 1)
            fp_off_[r] = std::nullopt;
}

// Cold code answering a one-string scan's stack string whose span (in rcx) is 1..15 bytes (stack_site.hpp).
Label Gen::tail_stub(runtime::ShortPath kind, const Label& call, const Label& done) {
    tail_stubs_.push_back(TailStub{a_.newLabel(), call, done, kind});
    return tail_stubs_.back().enter;
}

// Whether this program's string call sites may resolve stack pointers: rbp is the frame pointer in every
// function, but a lean program that never reads r10 leaves the caller's rbp there (and has no stack pointer). No
// code writes r10 (the JIT refuses it: "frame pointer r10 is read only"), so a lean main's r10 stays the top.
bool Gen::stack_site_ok() const {
    return !single_ || std::find(lean_saved_.begin(), lean_saved_.end(), x86::rbp) != lean_saved_.end();
}

// After the instruction at pc: what imm64_ knows. An ld_imm64 of a value sets its register; anything else that may
// write a register forgets it (stores and jumps write none; calls clobber r0..r5; an atomic may write r0 and its src).
void Gen::track_imm64(size_t pc, const isa::OpInfo& op) {
    const isa::Insn& i = insns_[pc];
    auto forget = [&](int r) { imm64_[size_t(r)] = std::nullopt; };
    switch (op.shape) {
    case Shape::LDDW:
        if (op.sem == Sem::imm)
            imm64_[i.dst] = uint64_t(uint32_t(i.imm)) | (uint64_t(uint32_t(insns_[pc + 1].imm)) << 32);
        else
            forget(i.dst);
        break;
    case Shape::ST:
    case Shape::STX:
    case Shape::ARENA_ST:
    case Shape::ARENA_STX:
    case Shape::JA:
    case Shape::JMP_K:
    case Shape::JMP_X:
    case Shape::JMP32_K:
    case Shape::JMP32_X:
    case Shape::GOTOL:
    case Shape::MAY_GOTO:
    case Shape::EXIT:
        break;
    case Shape::ALU64_K:
    case Shape::ALU64_X:
    case Shape::ALU32_K:
    case Shape::ALU32_X:
    case Shape::NEG64:
    case Shape::NEG32:
    case Shape::END:
    case Shape::LDX:
    case Shape::LDSX:
    case Shape::ARENA_LDX:
    case Shape::ARENA_LDSX:
        forget(i.dst);
        break;
    default: // calls, atomics, legacy packet loads: everything
        imm64_.fill(std::nullopt);
        break;
    }
}

void Gen::call_local(size_t pc, size_t target) {
    a_.mov(x86::r11, x86::qword_ptr(kCtxReg, co_.engine_state));
    a_.cmp(x86::rbp, x86::qword_ptr(x86::r11, kStateFloor));
    jcc(CC::kBE, stub(pc, ExitCode::call_depth));
    a_.call(entry_[target]);
}

// bpf_throw(cookie in rdi) ends the program from any depth (the verifier allows it only where the frames below are
// the main program's chain, no callback's). A lean program's one frame returns r0 = the cookie, the default
// callback's answer. Otherwise rsp goes back to the entry trampoline's call of main (RunState::entry_rsp), which
// drops every BPF frame at once (their saved registers are BPF r6..r10, which nothing needs any more); the
// program's own exception callback then runs on the main program's frame (main's r10 is the stack's top, the
// RunState's floor + 7 frames: the callback's prologue moves r10 512 down from 512 above it), with r1 = the
// cookie, and its r0 leaves through the trampoline's exit as main's would. Code without a bpf_throw is unchanged.
void Gen::emit_throw() {
    if (single_) {
        a_.mov(x86::rax, x86::rdi);
        a_.xor_(x86::edx, x86::edx); // status: ok
        emit_lean_tail();
        return;
    }
    a_.mov(x86::r11, x86::qword_ptr(kCtxReg, co_.engine_state));
    a_.mov(x86::rsp, x86::qword_ptr(x86::r11, kStateEntryRsp));
    const int32_t cb = opts_.verified ? opts_.verified->exception_cb : -1;
    if (cb < 0 || size_t(cb) >= entry_.size() || !entry_[size_t(cb)].isValid()) {
        a_.mov(x86::rax, x86::rdi);
    } else {
        a_.mov(x86::rbp, x86::qword_ptr(x86::r11, kStateFloor));
        a_.add(x86::rbp, imm(int32_t(isa::kMaxCallDepth * isa::kStackSize)));
        a_.call(entry_[size_t(cb)]);
    }
    a_.jmp(enter_exit_);
}

Label Gen::stub(size_t pc, ExitCode code) {
    stubs_.push_back(Stub{a_.newLabel(), int32_t(pc), code});
    return stubs_.back().label;
}

// Cold code after the program. A lean program's stubs return their status in rdx; otherwise each stub records
// (code, pc) in the RunState and unwinds to the entry trampoline.
void Gen::emit_stubs() {
    for (const StackStub& t : stack_stubs_) {
        a_.bind(t.enter);
        jcc(emit_stack_span(a_, StackTop{single_, co_.engine_state}, q(t.reg), t.span), t.miss);
        if (t.tail.isValid()) {
            a_.cmp(t.span, imm(kStackTailMax));
            jcc(CC::kBE, t.tail);
        }
        jmp(t.back);
    }
    for (const TailStub& t : tail_stubs_) {
        a_.bind(t.enter);
        emit_stack_tail(a_, t.kind, -1, t.call, t.done);
    }
    for (const MissStub& m : miss_stubs_) {
        a_.bind(m.miss);
        a_.mov(x86::rcx, imm(m.slots));
        a_.mov(x86::r9, kCtxReg);
        a_.call(imm(m.fn));
        jmp(m.done);
    }
    if (single_) {
        for (const Stub& s : stubs_) {
            a_.bind(s.label);
            a_.mov(x86::rdx, imm(lean_status(s.code, s.pc)));
            emit_lean_tail();
        }
        return;
    }
    for (const Stub& s : stubs_) {
        a_.bind(s.label);
        a_.mov(x86::r10d, imm(s.pc));
        a_.mov(x86::r9d, imm(uint32_t(s.code)));
        jmp(fail_);
    }
    a_.bind(fail_);
    a_.mov(x86::r11, x86::qword_ptr(kCtxReg, co_.engine_state));
    a_.mov(x86::dword_ptr(x86::r11, kStateStatus), x86::r9d);
    a_.mov(x86::dword_ptr(x86::r11, kStatePc), x86::r10d);
    a_.mov(x86::rsp, x86::qword_ptr(x86::r11, kStateEntryRsp));
    a_.jmp(enter_exit_);
}

// Jumps to a bound label (backward) are sized by asmjit. A forward jump is rel8 when the first emission found
// that it fits (opts_.short_jumps), else rel32; its reach is recorded for finish_jumps().
void Gen::jump_to(const Label& l, CC cc, bool always) {
    if (a_.code()->isLabelBound(l)) {
        always ? a_.jmp(l) : a_.j(cc, l);
        return;
    }
    const size_t k = jumps_.size();
    if (opts_.short_jumps && k < opts_.short_jumps->size() && (*opts_.short_jumps)[k])
        a_.short_();
    always ? a_.jmp(l) : a_.j(cc, l);
    jumps_.emplace_back(l, a_.offset());
}

// A jump fits rel8 in the second emission if it reached <= 127 bytes in this one with every loop-head padding
// it crosses grown to the most it can be (code only shrinks, but a padding may grow up to kLoopAlign - 1).
void Gen::finish_jumps(Emitted* out) {
    out->short_ok.assign(jumps_.size(), false);
    for (size_t k = 0; k < jumps_.size(); k++) {
        const size_t from = jumps_[k].second, to = a_.code()->labelOffset(jumps_[k].first);
        const auto crossed = std::upper_bound(aligns_.begin(), aligns_.end(), to) -
                             std::upper_bound(aligns_.begin(), aligns_.end(), from);
        out->short_ok[k] = to - from + size_t(crossed) * (kLoopAlign - 1) <= 127;
    }
}

void Gen::emit_insn(size_t pc, const isa::OpInfo& op, const isa::Insn& i) {
    insn_pc_ = pc;
    switch (op.shape) {
    case Shape::ALU64_K:
        alu_k(true, op.sem, i.dst, i.imm);
        break;
    case Shape::ALU32_K:
        alu_k(false, op.sem, i.dst, i.imm);
        break;
    case Shape::ALU64_X:
        if (op.sem == Sem::addr_space_cast) { // verified form: offset -> user address, imm = its upper half
            const Label null = a_.newLabel();
            a_.mov(d(i.dst), d(i.src));
            a_.test(d(i.dst), d(i.dst));
            a_.jz(null);
            a_.mov(x86::r11, imm(uint64_t(uint32_t(i.imm)) << 32));
            a_.or_(q(i.dst), x86::r11);
            a_.bind(null);
            break;
        }
        alu_x(true, op.sem, i.dst, i.src);
        break;
    case Shape::ALU32_X:
        alu_x(false, op.sem, i.dst, i.src);
        break;
    case Shape::NEG64:
        a_.neg(q(i.dst));
        break;
    case Shape::NEG32:
        a_.neg(d(i.dst));
        break;
    case Shape::END:
        byte_swap(op.sem, i.dst);
        break;
    case Shape::LDX:
    case Shape::LDSX:
        if (is_probe_load(opts_.verified, pc))
            probes_.emit_site(a_, kCtxReg, q(i.dst), q(i.src), i.off, isa::access_size(op), op.shape == Shape::LDSX);
        else
            load(op.sem, i.dst, i.src, i.off);
        break;
    case Shape::ST:
        store_imm(op.sem, i.dst, i.off, i.imm);
        break;
    case Shape::STX:
        store_reg(op.sem, i.dst, i.src, i.off);
        break;
    case Shape::ARENA_LDX:
    case Shape::ARENA_LDSX:
    case Shape::ARENA_ST:
    case Shape::ARENA_STX:
        arena_insn(pc, op, i);
        break;
    case Shape::ARENA_ATOMIC_W:
    case Shape::ARENA_ATOMIC_DW:
        arena_atomic(pc, op, i);
        break;
    case Shape::ATOMIC_W:
        atomic(false, op.sem, i.dst, i.src, i.off);
        break;
    case Shape::ATOMIC_DW:
        atomic(true, op.sem, i.dst, i.src, i.off);
        break;
    case Shape::LDDW:
        if (op.sem == Sem::imm)
            mov_imm(i.dst, uint64_t(uint32_t(i.imm)) | (uint64_t(uint32_t(insns_[pc + 1].imm)) << 32));
        else if (op.sem == Sem::func) // the callback value: the function's native entry address
            a_.lea(q(i.dst), x86::ptr(entry_[target(pc, op)]));
        else
            jmp(stub(pc, ExitCode::unlinked_ld));
        break;
    case Shape::LD_ABS:
    case Shape::LD_IND:
        jmp(stub(pc, ExitCode::legacy_ld));
        break;
    case Shape::JA:
    case Shape::GOTOL:
        jmp(body_[target(pc, op)]);
        break;
    case Shape::MAY_GOTO: // the kernel's fix-up: jump once the counter at r10 + imm is 0, else count it down
        a_.cmp(x86::qword_ptr(q(10), i.imm), asmjit::imm(0));
        a_.je(body_[target(pc, op)]);
        a_.sub(x86::qword_ptr(q(10), i.imm), asmjit::imm(1));
        break;
    case Shape::JMP_K:
        jump(true, false, op.sem, i, target(pc, op));
        break;
    case Shape::JMP_X:
        jump(true, true, op.sem, i, target(pc, op));
        break;
    case Shape::JMP32_K:
        jump(false, false, op.sem, i, target(pc, op));
        break;
    case Shape::JMP32_X:
        jump(false, true, op.sem, i, target(pc, op));
        break;
    case Shape::CALL_HELPER: {
        const runtime::HelperFn fn = runtime::helper_fn(i.imm);
        const runtime::CallSiteEntries* site = runtime::helper_call_site(i.imm);
        if (fn && site && next_site_ < opts_.site_count)
            call_site(pc, *site, true);
        else if (fn)
            call_native(reinterpret_cast<uint64_t>(fn), takes_callback(i.imm));
        else
            jmp(stub(pc, ExitCode::bad_helper));
        break;
    }
    case Shape::CALL_KFUNC: {
        const auto table = runtime::kfunc_table();
        const runtime::KfuncProto* k = uint32_t(i.imm) < table.size() ? &table[uint32_t(i.imm)] : nullptr;
        if (k && k->fn == runtime::kfuncs::bpf_throw)
            emit_throw();
        else if (k && k->fn && k->site && next_site_ < opts_.site_count)
            call_site(pc, *k->site, false); // the string kfuncs never abort a run
        else if (k && k->fn)
            call_native(reinterpret_cast<uint64_t>(k->fn), runtime::kfunc_takes_callback(uint32_t(i.imm)));
        else
            jmp(stub(pc, ExitCode::bad_kfunc));
        break;
    }
    case Shape::CALL_LOCAL:
        call_local(pc, target(pc, op));
        break;
    case Shape::EXIT:
        if (single_) {
            a_.xor_(x86::edx, x86::edx); // status: ok
            emit_lean_tail();
        } else
            epilogue();
        break;
    }
}

} // namespace

size_t count_call_sites(std::span<const isa::Insn> insns) {
    const auto table = runtime::kfunc_table();
    size_t n = 0;
    for (size_t pc = 0; pc < insns.size();) {
        const isa::OpInfo* op = isa::decode(insns[pc]);
        if (!op)
            return n; // emit_program refuses the program anyway
        const auto k = uint32_t(insns[pc].imm);
        if (op->shape == Shape::CALL_HELPER)
            n += runtime::helper_fn(insns[pc].imm) && runtime::helper_call_site(insns[pc].imm);
        else if (op->shape == Shape::CALL_KFUNC)
            n += k < table.size() && table[k].fn && table[k].site;
        pc += size_t(isa::slots(*op));
    }
    return n;
}

Status emit_program(std::span<const isa::Insn> insns, asmjit::CodeHolder& code, const CodegenOptions& opts,
                    Emitted* out) {
    if (insns.empty())
        return make_error("empty program");
    for (size_t pc = 0; pc < insns.size(); pc++) { // only the verified form has its counter slot in the frame
        const isa::OpInfo* op = isa::decode(insns[pc]);
        const int32_t imm = insns[pc].imm;
        if (op && op->shape == isa::Shape::MAY_GOTO && (imm >= 0 || imm < -isa::kStackSize || imm % 8 != 0))
            return make_error(fmt::format("may_goto at pc {} has no loop counter slot (imm {}): the JIT runs only "
                                          "verified programs' may_goto", pc, imm));
    }
    Gen gen(insns, code, opts);
    return gen.run(out);
}

} // namespace strbpf::exec::jit::x86_64
