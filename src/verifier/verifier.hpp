// SPDX-License-Identifier: BSD-2-Clause
// The static verifier (verifier stage): proves a program safe before any engine runs it, in the manner of the
// kernel's verifier (path-sensitive abstract interpretation), and rejects it with the kernel's one-line reason.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"
#include "verifier/kernel_variant.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf::verifier {

// BPF_PROG_LOAD's prog_flags (include/uapi/linux/bpf.h values) that change what the verifier decides.
inline constexpr uint32_t kProgFlagStrictAlignment = 1u << 0; // BPF_F_STRICT_ALIGNMENT
inline constexpr uint32_t kProgFlagAnyAlignment = 1u << 1;    // BPF_F_ANY_ALIGNMENT
inline constexpr uint32_t kProgFlagTestStateFreq = 1u << 3;   // BPF_F_TEST_STATE_FREQ
inline constexpr uint32_t kProgFlagTestRegInvariants = 1u << 7; // BPF_F_TEST_REG_INVARIANTS
// The flags verify() implements: strict alignment (cleared by any-alignment, as the kernel does), a checkpoint at
// every prune point (test-state frequency), and bounds that contradict each other rejected as the kernel's
// verifier bug instead of forgotten (test-reg-invariants). Callers that are asked for other flags must say the
// verdict may differ from the kernel's.
inline constexpr uint32_t kProgFlagsImplemented =
    kProgFlagStrictAlignment | kProgFlagAnyAlignment | kProgFlagTestStateFreq | kProgFlagTestRegInvariants;

struct Options {
    int log_level = 0; // 0: reason only; 1: the kernel's log level 1; 2: register states after every insn
    uint32_t prog_flags = 0; // BPF_F_* of BPF_PROG_LOAD; verify() honours kProgFlagsImplemented
    // The kernel build whose verdicts to give (kernel_variant.hpp); null: default_kernel_variant().
    const KernelVariant* variant = nullptr;
};

struct Verdict {
    bool ok = false;
    std::string reason;   // rejection: the ONE line the kernel prints, in its words
    int64_t pc = -1;      // where (instruction index in ProgramSpec::insns)
    std::string log;      // the kernel's log format, with "; source @ file:line" from BTF line info
    uint64_t processed_insns = 0;
    // The end of the furthest ctx field the program touches (the kernel's prog->aux->max_ctx_offset): a test run
    // must pass at least this much ctx_in, as the kernel demands for raw_tp programs (-EINVAL otherwise).
    uint32_t max_ctx_offset = 0;
    // The lowest ctx offset it touches when negative (tracepoint programs: the kernel lets those through), else 0.
    int32_t min_ctx_offset = 0;
    // The end of the furthest byte of a writable raw tracepoint's buffer it touches (the kernel's
    // prog->aux->max_tp_access, which attaching compares with the tracepoint's writable size); 0 for other types.
    int64_t max_tp_access = 0;
    // Accepted: the program the engines run (verified_program.hpp), built from the instance's linked program of
    // PROG. Null on rejection, and for a PROG that is not one of the instance's programs (nothing was linked).
    std::shared_ptr<const VerifiedProgram> program;
};

// Verifies PROG (one of inst.spec().programs, pseudo forms intact) against INST's maps and the helper and kfunc
// tables. Self-contained and reentrant: no global state; never throws for any input.
Verdict verify(const runtime::ObjectInstance& inst, const loader::ProgramSpec& prog, const Options& opts = {});

// Why PROG cannot be verified at all — the loader's load_error, or a program type the kernel types by BTF (tracing,
// lsm, struct_ops, ext), which strbpf does not model yet — else empty. verify() rejects such a program with it
// (pc -1); ctx_access.cpp.
std::string unverifiable_reason(const loader::ProgramSpec& prog);

// A program's `__exception_cb` callback as bpf_find_exception_callback_insn_off finds it before the walk
// (exception_cb.cpp): the kernel's refusal of a tag it cannot resolve, "" otherwise, with *CALLBACK the callback's
// first insn in PROG (-1: the program names none). A program that calls its callback directly gets *DIRECT_CALL the
// call's pc, which the kernel refuses after the walk. The checked interpreter asks it too: it runs programs as
// written, without a verdict.
std::string exception_callback_refusal(const loader::ObjectSpec& obj, const loader::ProgramSpec& prog,
                                       int64_t* callback, int64_t* direct_call);

// The kernel BTF (a vmlinux BTF file) that tracing and lsm programs are verified against, for the whole process
// (the CLI's --btf FILE); empty, the default, is the running kernel's /sys/kernel/btf/vmlinux. Each file is parsed
// once and kept.
void set_target_btf_path(std::string path);

} // namespace strbpf::verifier
