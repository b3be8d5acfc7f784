// SPDX-License-Identifier: BSD-2-Clause
// The ISA levels the JIT's inline string paths can be compiled for (exec/jit/jit.hpp CompileOptions' sse42 and
// avx2), for the tests that run each of them (tests stage).
#pragma once
#include <string>

#include "exec/jit/jit.hpp"

namespace strbpf::runtime {

struct IsaLevel {
    const char* name;
    bool sse42, avx2;
};
inline constexpr IsaLevel kSse2{"SSE2", false, false}, kSse42{"SSE4.2", true, false}, kAvx2{"AVX2", true, true};

// Why this host cannot run kAvx2's code (a test SKIPs with it), or "".
inline std::string avx2_missing() {
    return exec::jit::CompileOptions::host().avx2
               ? ""
               : "CPU lacks AVX2 or BMI1 (cpuid 7.0 ebx bit 5 or 3), or the OS does not enable the ymm state (XCR0)";
}

// Options for `level` on this host (SSE4.2 only where the host has it; AVX2 as asked: check avx2_missing first).
inline exec::jit::CompileOptions isa_options(IsaLevel level) {
    exec::jit::CompileOptions opts = exec::jit::CompileOptions::host();
    opts.sse42 = opts.sse42 && level.sse42;
    opts.avx2 = level.avx2;
    return opts;
}

} // namespace strbpf::runtime
