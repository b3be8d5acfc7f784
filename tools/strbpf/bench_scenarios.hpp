// SPDX-License-Identifier: BSD-2-Clause
// The scenarios of `strbpf bench` (tools stage): which BPF programs and glibc calls are measured, the strings
// they run on (the kernel's bench setup), the global-data patches that hand those strings to every engine, and
// the answer each measured operation must give.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/instance.hpp"
#include "strbpf/result.hpp"

namespace strbpf::cli::bench {

inline constexpr uint32_t kStrSize = 4096; // BENCH_STR_SZ in bench/progs/bench_common.h
inline constexpr uint32_t kMaxLen = kStrSize - 1;

// Offsets of a scenario's variables in its object's .rodata (the length variable, target) and .bss (str, sub), from
// the object's BTF. `present` is false for scenarios without strings (trigger).
struct VarOffsets {
    bool present = false;
    uint32_t len = 0, target = 0, str = 0, sub = 0;
    bool has_sub = false;
};

// The strings of one length, exactly as the BPF programs see them in .rodata/.bss (and glibc sees them natively).
// Each array is kStrSize bytes. place() puts glibc's copies at the same offsets within a page as the program's
// variables (every engine maps a global-data section page-aligned; target follows the 4-byte length in .rodata),
// each in its own pages, so the native line meets the same (mis)alignment, page crossings and 4K-aliasing
// distance between the strings as the helpers and kfuncs do.
struct Buffers {
    Buffers() = default;
    Buffers(const Buffers&) = delete;
    Buffers& operator=(const Buffers&) = delete;
    void place(const VarOffsets& v);

    uint32_t len = 0;
    char* target = storage_[0]; // 4095 random digits '1'..'9' + NUL (fixed seed)
    char* str = storage_[1];    // len bytes, NUL-terminated (see the scenario's fill)
    char* sub = storage_[2];    // string-kfuncs: the last max(1, len / 4) bytes of str

  private:
    static constexpr uint32_t kPage = 4096;
    alignas(kPage) char storage_[3][kStrSize + kPage] = {};
};

// What a measured operation must answer. sign_only: only the sign of `value` is specified (glibc's strcmp family).
struct Expect {
    int value = 0;
    bool sign_only = false;
    bool retval_only = false; // the program answers only through its return value (trigger)
    bool matches(int got) const;
    std::string describe() const;
};

// One measured operation: a BPF program of the scenario's object, or a glibc call on the same buffers.
struct BenchDef {
    std::string name;   // "strncmp-helper", "strlen-kfunc", "strlen-glibc"
    std::string prog;   // BPF program name; empty for native benches
    std::string kfunc;  // the kernel function the program needs ("bpf_strlen"); empty when none
    int (*native_loop)(const Buffers& b, uint32_t repeat) = nullptr; // native: runs the call repeat times
    Expect (*expect)(uint32_t len) = nullptr;
    bool native() const { return prog.empty(); }
};

// Benches compared in the summary: fast (helper/kfunc) vs slow (home-made loop), and both vs glibc.
struct Family {
    std::string label; // "strncmp", "strlen"
    std::string fast, slow, native; // bench names; slow/native may be empty
    std::string fast_short = "helper", slow_short = "no-helper";
};

// A bounded kfunc beside its unbounded form on the same string (strnlen vs strlen), as the string-kfunc series'
// run_bench_string_kfuncs.sh compares them: the bounded one's time over the unbounded one's, per engine.
struct BoundedPair {
    std::string bounded, unbounded; // bench names: "strnlen-kfunc", "strlen-kfunc"
    std::string bounded_short, unbounded_short; // column heads: "strnlen", "strlen"
};

struct Scenario {
    std::string name;    // "strncmp", "string-kfuncs", "trigger"
    std::string object;  // file name in the bench programs directory
    std::string len_var; // the .rodata length variable; empty: the scenario has no lengths
    std::vector<BenchDef> benches;
    std::vector<Family> families;
    void (*fill)(uint32_t len, Buffers* b) = nullptr;
    std::vector<BoundedPair> pairs;
};

const std::vector<Scenario>& scenarios();
const Scenario* find_scenario(const std::string& name);

Result<VarOffsets> var_offsets(const Scenario& sc, const std::string& obj_path);
// The patches that give a BPF object the strings in `b`: the length and target in .rodata (set before load, so
// the kernel's verifier sees constants), str (and sub) in .bss.
std::vector<runtime::GlobalPatch> global_patches(const VarOffsets& v, const Buffers& b);

} // namespace strbpf::cli::bench
