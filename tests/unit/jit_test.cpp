// SPDX-License-Identifier: BSD-2-Clause
// The x86-64 JIT (exec stage): golden bytes of the sequences whose encoding matters (prologue, helper call,
// division-by-zero guard) in the style of asmjit's TEST_INSTRUCTION, W^X code pages, helper and kfunc calls,
// aborts unwinding from nested frames, call depth, callbacks (ld_imm64 BPF_PSEUDO_FUNC) and concurrent runs.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "exec/jit/jit.hpp"
#include "isa/assembler.hpp"
#include "runtime/context.hpp"
#include "runtime/helpers/helper_table.hpp"

namespace strbpf {
namespace {

using exec::jit::CompiledProgram;

std::unique_ptr<CompiledProgram> compile_text(const std::string& source) {
    auto prog = isa::assemble(source);
    EXPECT_TRUE(prog.ok()) << prog.error().message;
    if (!prog.ok())
        return nullptr;
    auto compiled = exec::jit::compile(*prog);
    EXPECT_TRUE(compiled.ok()) << compiled.error().message;
    return compiled.ok() ? std::move(*compiled) : nullptr;
}

struct Harness {
    runtime::RunContext ctx;
    runtime::StackArea stack;
    uint64_t top() const { return reinterpret_cast<uint64_t>(stack.bytes) + sizeof stack.bytes; }
    exec::jit::JitResult run(const CompiledProgram& p, uint64_t r1 = 0) { return p.run(r1, ctx, stack); }
};

// ---- golden bytes ----------------------------------------------------------------------------------------------
// `pattern` is hex bytes with "??" for bytes that depend on addresses (rel32 displacements); spaces are ignored.
bool bytes_match(std::span<const uint8_t> code, size_t at, const std::string& pattern, std::string* got) {
    std::string hex;
    for (char c : pattern)
        if (c != ' ')
            hex += c;
    const size_t n = hex.size() / 2;
    if (at + n > code.size())
        return false;
    bool ok = true;
    char buf[4];
    for (size_t k = 0; k < n; k++) {
        std::snprintf(buf, sizeof buf, "%02X", code[at + k]);
        *got += buf;
        *got += k + 1 < n ? " " : "";
        const std::string want = hex.substr(2 * k, 2);
        ok = ok && (want == "??" || want == buf);
    }
    return ok;
}

#define EXPECT_CODE_AT(prog, offset, pattern)                                                                          \
    do {                                                                                                               \
        std::string got_;                                                                                              \
        EXPECT_TRUE(bytes_match((prog).code(), (offset), (pattern), &got_))                                            \
            << "want " << (pattern) << "\ngot  " << got_;                                                              \
    } while (0)

// push rbp; push rbx; push r13; push r14; push r15 (BPF r10, r6..r9); sub rbp, 512 (this frame's r10).
constexpr const char* kPrologue = "55 53 4155 4156 4157 4881ED00020000";
// pop r15; pop r14; pop r13; pop rbx; pop rbp; ret.
constexpr const char* kEpilogue = "415F 415E 415D 5B 5D C3";

// A program with a subprogram: every BPF function starts with kPrologue and leaves through kEpilogue.
TEST(JitGolden, FunctionPrologueAndEpilogue) {
    auto p = compile_text("call local f\nexit\nf:\nmov %r0, 7\nexit");
    ASSERT_TRUE(p);
    EXPECT_CODE_AT(*p, p->main_offset(), kPrologue);
    // f: its prologue right before its first instruction; mov eax, 7 (the shortest mov rax, 7); the epilogue.
    EXPECT_CODE_AT(*p, p->insn_offset(2) - 15, std::string(kPrologue) + "B807000000" + kEpilogue);
}

// A one-function program is lean: it runs inline in its System V entry, which saves nothing it does not use, and
// exit returns r0 in rax and status 0 in rdx straight to run().
TEST(JitGolden, OneFunctionExitReturnsToTheCaller) {
    auto p = compile_text("mov %r0, 0\nexit");
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->lean());
    // entry: r0 and r3..r5 start at 0; then xor eax, eax (mov r0, 0); xor edx, edx (status ok); ret.
    EXPECT_CODE_AT(*p, p->main_offset(), "31C0 31D2 31C9 4531C0 31C0 31D2 C3");
}

// A lean entry saves only the callee-saved registers the program touches: here r10 (rbp, taken from the fp
// argument in rcx) and r6 (rbx); exit pops them in reverse.
TEST(JitGolden, LeanEntrySavesOnlyWhatItUses) {
    auto p = compile_text("mov %r6, 1\nstxdw [%r10-8], %r6\nmov %r0, 0\nexit");
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->lean());
    // push rbp; push rbx; mov rbp, rcx; xor eax, eax; xor edx, edx; xor ecx, ecx; xor r8d, r8d; xor ebx, ebx.
    EXPECT_CODE_AT(*p, p->main_offset(), "55 53 4889CD 31C0 31D2 31C9 4531C0 31DB");
    // exit: xor edx, edx; pop rbx; pop rbp; ret.
    EXPECT_CODE_AT(*p, p->insn_offset(3), "31D2 5B 5D C3");
    Harness h;
    const auto r = h.run(*p);
    EXPECT_TRUE(r.ok) << r.error;
    uint64_t slot;
    std::memcpy(&slot, h.stack.bytes + sizeof h.stack.bytes - 8, 8);
    EXPECT_EQ(slot, 1u); // r10 was the top of the stack area
}

// Forward jumps: rel8 where the target is within reach, rel32 where it is not (the second emission keeps the
// first one's rel32 for those).
TEST(JitGolden, ForwardJumpsAreShortWhenTheyReach) {
    std::string far = "jeq %r1, 0, +40\n";
    for (int k = 0; k < 20; k++) // 20 x movabs (10 bytes each): 200 bytes, out of rel8's reach
        far += "lddw %r2, 0x1122334455667788\n";
    far += "mov %r0, 0\nexit";
    auto p = compile_text(far);
    ASSERT_TRUE(p);
    EXPECT_CODE_AT(*p, p->insn_offset(0), "4885FF 0F84????????"); // test rdi, rdi; je rel32
    auto q = compile_text("jeq %r1, 0, +1\nmov %r0, 1\nexit");
    ASSERT_TRUE(q);
    EXPECT_CODE_AT(*q, q->insn_offset(0), "4885FF 74??"); // test rdi, rdi; je rel8
    Harness h;
    EXPECT_EQ(h.run(*p, 0).r0, 0u);
    EXPECT_EQ(h.run(*q, 0).r0, 0u);
    EXPECT_EQ(h.run(*q, 5).r0, 1u);
}

// A helper call: r1..r5 already sit in rdi rsi rdx rcx r8; mov r9, r12 (&ctx); call rel32 straight to the helper
// (asmjit pads it with a REX byte); cmp byte [r12 + offsetof(aborted)], 0; jne (rel8) to the abort stub.
TEST(JitGolden, HelperCallIsDirect) {
    auto p = compile_text("call 8\nexit"); // bpf_get_smp_processor_id
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->direct_calls());
    runtime::RunContext probe;
    const long aborted = reinterpret_cast<char*>(&probe.aborted) - reinterpret_cast<char*>(&probe);
    char cmp[64];
    if (aborted < 128)
        std::snprintf(cmp, sizeof cmp, "41807C24%02lX00", aborted);
    else
        std::snprintf(cmp, sizeof cmp, "4180BC24%02lX%02lX000000", aborted & 0xff, aborted >> 8);
    EXPECT_CODE_AT(*p, p->insn_offset(0), std::string("4D89E1") + "40E8????????" + cmp + "75??");
    EXPECT_EQ(p->insn_offset(1) - p->insn_offset(0), 3 + 6 + std::strlen(cmp) / 2 + 2);
    // The rel32 lands on the helper itself: no thunk, no table.
    const size_t call_at = p->insn_offset(0) + 3 + 1;
    int32_t rel;
    std::memcpy(&rel, p->code().data() + call_at + 1, 4);
    const uint64_t target = reinterpret_cast<uint64_t>(p->code().data() + call_at + 5) + int64_t(rel);
    EXPECT_EQ(target, reinterpret_cast<uint64_t>(runtime::helper_fn(8)));
}

// div r1, r2: divisor in r11, zero check, rax/rdx (r0/r3) parked in r9/r10 around the div, result into rdi.
TEST(JitGolden, DivisionByZeroGuard) {
    auto p = compile_text("div %r1, %r2\nexit");
    ASSERT_TRUE(p);
    EXPECT_CODE_AT(*p, p->insn_offset(0),
                   "4989F3"        // mov r11, rsi
                   "4D85DB"        // test r11, r11
                   "74??"          // jz zero
                   "4989C1 4989D2" // mov r9, rax; mov r10, rdx
                   "4889F8"        // mov rax, rdi
                   "31D2 49F7F3"   // xor edx, edx; div r11
                   "4989C3"        // mov r11, rax (the quotient)
                   "4C89C8 4C89D2" // mov rax, r9; mov rdx, r10
                   "4C89DF"        // mov rdi, r11
                   "EB??"          // jmp done
                   "31FF");        // zero: xor edi, edi (BPF: x / 0 = 0)
    EXPECT_EQ(p->insn_offset(1) - p->insn_offset(0), 38u);
}

// ---- W^X -------------------------------------------------------------------------------------------------------
std::string maps_perms_of(uint64_t addr) {
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
        unsigned long lo = 0, hi = 0;
        char perms[8] = {};
        if (std::sscanf(line.c_str(), "%lx-%lx %7s", &lo, &hi, perms) == 3 && addr >= lo && addr < hi)
            return perms;
    }
    return "";
}

TEST(JitMemory, CodePagesAreNeverWritableAndExecutable) {
    auto mem = exec::jit::ExecMemory::allocate(100, reinterpret_cast<uint64_t>(&runtime::helper_fn));
    ASSERT_TRUE(mem.ok()) << mem.error().message;
    const uint64_t a = reinterpret_cast<uint64_t>(mem->data());
    EXPECT_EQ(maps_perms_of(a), "rw-p"); // being filled: writable, not executable
    ASSERT_TRUE(mem->seal().ok());
    EXPECT_EQ(maps_perms_of(a), "r-xp"); // sealed: executable, not writable

    auto p = compile_text("mov %r0, 1\nexit");
    ASSERT_TRUE(p);
    const uint64_t code = reinterpret_cast<uint64_t>(p->code().data());
    EXPECT_EQ(maps_perms_of(code), "r-xp");
    EXPECT_EQ(maps_perms_of(code + p->code_size() - 1), "r-xp");
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);)
        EXPECT_EQ(line.find(" rwx"), std::string::npos) << line;
}

TEST(JitMemory, CodeIsFreedWithTheProgram) {
    uint64_t code = 0;
    {
        auto p = compile_text("mov %r0, 1\nexit");
        ASSERT_TRUE(p);
        code = reinterpret_cast<uint64_t>(p->code().data());
    }
    // Unmapped, or back in the JIT's read-write reservation: the freed code can no longer be executed.
    const std::string perms = maps_perms_of(code);
    EXPECT_TRUE(perms.empty() || perms == "rw-p") << perms;
}

// ---- runs ------------------------------------------------------------------------------------------------------
TEST(Jit, R10IsTheTopOfFrameZeroAndCalleesGet512BytesBelow) {
    Harness h;
    auto p = compile_text("mov %r0, %r10\nexit");
    ASSERT_TRUE(p);
    EXPECT_EQ(h.run(*p).r0, h.top());
    auto q = compile_text("mov %r1, %r10\ncall local f\nexit\nf:\nmov %r0, %r1\nsub %r0, %r10\nexit");
    ASSERT_TRUE(q);
    EXPECT_EQ(h.run(*q).r0, 512u);
}

// bpf_strncmp (182): s1 on the stack, s2 in read-only memory, as the kernel's verifier demands.
struct StrncmpRun {
    Harness h;
    alignas(8) char s2[8] = "abd";
    std::unique_ptr<CompiledProgram> prog;
    // Calls bpf_strncmp `nest` local calls deep.
    explicit StrncmpRun(int nest) {
        std::string src;
        for (int k = 0; k < nest; k++)
            src += "call local f" + std::to_string(k) + "\nexit\nf" + std::to_string(k) + ":\n";
        src += "stw [%r10-8], 0x636261\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 4\nlddw %r3, " +
               std::to_string(reinterpret_cast<uint64_t>(s2)) + "\ncall 182\nexit";
        prog = compile_text(src);
    }
    exec::jit::JitResult run(bool s2_read_only) {
        runtime::RunContext ctx;
        ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(h.stack.bytes), sizeof h.stack.bytes,
                                          runtime::kPermRW, runtime::RegionKind::stack, "stack"});
        ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(s2), sizeof s2,
                                          s2_read_only ? runtime::kPermRead : runtime::kPermRW,
                                          runtime::RegionKind::global_data, ".rodata"});
        return prog->run(0, ctx, h.stack);
    }
};

TEST(Jit, HelperCallReturnsIntoR0) {
    StrncmpRun s(0);
    ASSERT_TRUE(s.prog);
    const auto res = s.run(true);
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_LT(int64_t(res.r0), 0); // "abc" < "abd", sign-extended int
}

TEST(Jit, HelperAbortUnwindsFromNestedFramesAndTheProgramRunsAgain) {
    StrncmpRun s(3);
    ASSERT_TRUE(s.prog);
    for (int k = 0; k < 3; k++) {
        const auto bad = s.run(false);
        ASSERT_FALSE(bad.ok);
        // the call is at pc 12, below three frames of local calls (0, 2, 4)
        EXPECT_NE(bad.error.find("R3 does not point to a readonly map' (call at pc 12)"), std::string::npos)
            << bad.error;
        const auto good = s.run(true);
        ASSERT_TRUE(good.ok) << good.error;
        EXPECT_LT(int64_t(good.r0), 0);
    }
}

// A lean program (one function) stops from the call's own stub too, which names it.
TEST(Jit, LeanHelperAbortNamesTheCall) {
    StrncmpRun s(0);
    ASSERT_TRUE(s.prog);
    const auto bad = s.run(false);
    ASSERT_FALSE(bad.ok);
    EXPECT_NE(bad.error.find("R3 does not point to a readonly map' (call at pc 6)"), std::string::npos) << bad.error;
    EXPECT_TRUE(s.run(true).ok);
}

TEST(Jit, CallDepthLimitIsTheInterpreters) {
    Harness h;
    auto p = compile_text("call local f\nexit\nf:\ncall local f\nexit");
    ASSERT_TRUE(p);
    const auto res = h.run(*p);
    ASSERT_FALSE(res.ok);
    EXPECT_EQ(res.error, "call depth exceeds 8 frames at pc 2");
}

TEST(Jit, ValidationErrorsComeFromCompile) {
    auto prog = isa::assemble("mov %r0, 0\nja +7\nexit");
    ASSERT_TRUE(prog.ok());
    auto compiled = exec::jit::compile(*prog);
    ASSERT_FALSE(compiled.ok());
    EXPECT_EQ(compiled.error().pc, 1);
    EXPECT_NE(compiled.error().message.find("jump out of range"), std::string::npos) << compiled.error().message;
    EXPECT_FALSE(exec::jit::compile(std::span<const isa::Insn>()).ok());
}

TEST(Jit, UnlinkedProgramIsRefused) {
    runtime::LinkedProgram lp;
    lp.linked = false;
    lp.link_error = make_error("unknown kfunc bpf_nope");
    auto compiled = exec::jit::compile(lp);
    ASSERT_FALSE(compiled.ok());
    EXPECT_EQ(compiled.error().message, "unknown kfunc bpf_nope");
}

// ---- callbacks ----------------------------------------------------------------------------------------------
// main: r0 = the callback value of `cb` (ld_imm64 src=4, imm = cb's pc - 1); cb(r1, r2) returns r1 + r2 - r10 +
// top, i.e. r1 + r2 + 512 when it runs one frame below main.
std::vector<isa::Insn> callback_program(bool recurse) {
    std::vector<isa::Insn> p;
    p.push_back(isa::Insn{0x18, 0, isa::BPF_PSEUDO_FUNC, 0, 2}); // pc 0: lddw r0, func (pc 0 + 2 + 1)
    p.push_back(isa::Insn{0, 0, 0, 0, 0});
    p.push_back(isa::Insn{0x95, 0, 0, 0, 0}); // pc 2: exit
    if (recurse) {                            // pc 3: call local pc 3 (forever)
        p.push_back(isa::Insn{0x85, 0, 1, 0, -1});
    } else {
        p.push_back(isa::Insn{0xbf, 0, 1, 0, 0}); // pc 3: r0 = r1
    }
    p.push_back(isa::Insn{0x0f, 0, 2, 0, 0});  // r0 += r2
    p.push_back(isa::Insn{0x1f, 0, 10, 0, 0}); // r0 -= r10
    p.push_back(isa::Insn{0x95, 0, 0, 0, 0});
    return p;
}

TEST(JitCallback, PseudoFuncValueRunsThroughInvokeCallback) {
    auto compiled = exec::jit::compile(callback_program(false));
    ASSERT_TRUE(compiled.ok()) << compiled.error().message;
    const CompiledProgram& p = **compiled;
    Harness h;
    const auto value = h.run(p);
    ASSERT_TRUE(value.ok) << value.error;
    EXPECT_EQ(p.function_pc(value.r0), 3);
    const auto res = p.run_callback(value.r0, {40, 2, 0, 0, 0}, h.ctx, h.stack);
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(res.r0 + (h.top() - 512), 42u);  // r10 of frame 1
    EXPECT_EQ(h.ctx.invoke_callback, nullptr); // the run's hooks are gone afterwards
    EXPECT_EQ(h.ctx.engine_state, nullptr);
}

TEST(JitCallback, DepthAndBadValuesEndTheRun) {
    auto compiled = exec::jit::compile(callback_program(true));
    ASSERT_TRUE(compiled.ok()) << compiled.error().message;
    const CompiledProgram& p = **compiled;
    Harness h;
    const auto value = h.run(p);
    ASSERT_TRUE(value.ok) << value.error;
    const auto deep = p.run_callback(value.r0, {}, h.ctx, h.stack);
    ASSERT_FALSE(deep.ok);
    EXPECT_EQ(deep.error, "call depth exceeds 8 frames at pc 3");
    Harness h2;
    const auto bad = p.run_callback(value.r0 + 1, {}, h2.ctx, h2.stack);
    ASSERT_FALSE(bad.ok);
    EXPECT_NE(bad.error.find("invalid callback"), std::string::npos) << bad.error;
}

// ---- concurrency ------------------------------------------------------------------------------------------------
TEST(Jit, OneProgramManyThreads) {
    auto p = compile_text("mov %r6, %r1\nmov %r0, 0\nloop:\ncall local f\nsub %r6, 1\njne %r6, 0, loop\nexit\n"
                          "f:\nstxdw [%r10-8], %r6\nldxdw %r1, [%r10-8]\nadd %r0, %r1\nexit");
    ASSERT_TRUE(p);
    std::vector<std::thread> threads;
    std::vector<uint64_t> sums(4, 0);
    for (size_t t = 0; t < sums.size(); t++)
        threads.emplace_back([&, t] {
            Harness h;
            for (int k = 0; k < 2000; k++)
                sums[t] += p->run(100 + t, h.ctx, h.stack).r0;
        });
    for (auto& th : threads)
        th.join();
    for (size_t t = 0; t < sums.size(); t++) {
        const uint64_t n = 100 + t;
        EXPECT_EQ(sums[t], 2000 * n * (n + 1) / 2);
    }
}

} // namespace
} // namespace strbpf
