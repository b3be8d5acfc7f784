// SPDX-License-Identifier: BSD-2-Clause
// What every engine (interpreter, JIT, the live kernel) takes and gives for one program run (exec stage).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/instance.hpp"

namespace strbpf::exec {

// interp and jit run only programs strbpf's verifier accepted; interp_checked runs any program with every memory
// access checked against the registry (for debugging and fuzzing); kernel is the live kernel.
enum class EngineKind { interp, jit, kernel, interp_checked };
const char* engine_name(EngineKind k);
bool parse_engine(const std::string& s, EngineKind* out);

struct RunRequest {
    std::vector<uint8_t> ctx_in;  // syscall: the ctx bytes; others: the program type's ctx struct (optional)
    std::vector<uint8_t> data_in; // packet for xdp/tc/socket programs
    uint32_t repeat = 1;
    uint32_t flags = 0; // BPF_PROG_TEST_RUN's flags (BPF_F_TEST_RUN_ON_CPU, ...), checked per program type
    uint32_t cpu = 0;   // with BPF_F_TEST_RUN_ON_CPU (raw_tp): the CPU to run on
    uint64_t cookie = 0; // the BPF cookie of the link a tracing run attaches with (bpf_get_attach_cookie)
    std::vector<runtime::GlobalPatch> globals; // applied before load (before .rodata is frozen)
};

struct RunReport {
    std::string prog;
    bool loaded = false; // false: rejected at load (error says why, in the kernel's words where it has them)
    bool ran = false;    // false with loaded: the run failed (error says why)
    bool unsupported = false; // with !ran: this engine cannot run the program yet (error names what it lacks)
    std::string error;
    uint64_t r0 = 0;
    uint32_t retval = 0; // low 32 bits of R0, as BPF_PROG_TEST_RUN reports it
    uint64_t duration_ns = 0; // average per repetition
    std::vector<uint8_t> data_out;
    std::vector<uint8_t> ctx_out;
};

} // namespace strbpf::exec
