// SPDX-License-Identifier: BSD-2-Clause
// The fuzz harness (fuzz stage): decodes an input into a program (structured or raw), places it in a fixed object
// (the maps below, every string kfunc), verifies it and runs it through the real engines (exec::run_linked).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec/engine.hpp"
#include "isa/insn.hpp"
#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::fuzz {

// The harness object's maps, by index (ld_imm64 src=1/2 imm). Values are small so that a verifier bug reading past
// a value leaves the map's region and the checked interpreter sees it.
enum HarnessMap : int32_t {
    kMapArr,     // array, key 4, value 64, 1 entry: the arena is exactly one value
    kMapHash,    // hash, key 8, value 16, 8 entries
    kMapRodata,  // ".rodata", 64 bytes, frozen: NUL-terminated strings for bpf_strncmp / printk formats
    kMapBss,     // ".bss", 128 bytes
    kMapRingbuf, // ringbuf, 4096 bytes
    kMapPcpu,    // percpu array, key 4, value 32, 2 entries
    kMapLru,     // lru hash, key 8, value 8, 4 entries
    kNumHarnessMaps
};
// .rodata contents: offsets of its strings.
inline constexpr int32_t kRodataAbc = 0, kRodataHello = 8, kRodataFmt = 16, kRodataEmpty = 24, kRodataLong = 32;

// Sizes of the run inputs: syscall programs get a 64 KiB ctx (the verifier allows ctx offsets below 65535, as the
// kernel does for BPF_PROG_TYPE_SYSCALL), xdp programs a packet of 14..kMaxPacket bytes.
inline constexpr size_t kSyscallCtxSize = 65536;
inline constexpr size_t kMaxPacket = 512;

struct FuzzProgram {
    loader::ProgType type = loader::ProgType::syscall;
    std::vector<isa::Insn> insns;
    std::vector<uint8_t> ctx_prefix; // the first bytes of the ctx (syscall); the packet (xdp)
    bool structured = false;
};

// Input format: byte 0 chooses the mode (low 2 bits == 3: raw, else structured) and, for raw programs, the
// program type (bit 2: xdp, else syscall); byte 1 is n, the length of the ctx prefix / packet that follows; the
// rest is the program: raw instruction words, or the structured generator's choices (program_gen.hpp).
// `deterministic`: the generator leaves out helpers whose results differ between two runs (time, random).
FuzzProgram decode_program(const uint8_t* data, size_t size, bool deterministic);

// The harness object around one program, made live.
struct Loaded {
    std::shared_ptr<const loader::ObjectSpec> spec;
    std::unique_ptr<runtime::ObjectInstance> inst;
    const runtime::LinkedProgram* prog = nullptr; // null when the program did not link
};
loader::ObjectSpec make_object(const FuzzProgram& p);
Loaded load(const FuzzProgram& p); // inst null only if the fixed maps cannot be created (aborts: harness bug)

// Verifies once and records the verdict in the program's cache, so run() on interp/jit does not verify again.
verifier::Verdict verify(const Loaded& l);

// The run request of the program: the ctx or packet built from its prefix.
exec::RunRequest run_request(const FuzzProgram& p);

// True when the program calls a helper whose result or side effect is not reproducible between runs (time,
// random numbers, output to the trace pipe): such programs are verified but not compared or not run.
bool calls_nondeterministic_helper(const FuzzProgram& p);
bool calls_helper(const FuzzProgram& p, int32_t id);

// Counts inputs and verifier acceptances per target; prints "<target>: N programs, M accepted (x%)" to stderr at
// powers of two from 4096 on and at exit. With STRBPF_FUZZ_REASONS set, also the most frequent rejection reasons
// of structured programs at exit (to tune the generator).
void count_verdict(const char* target, bool structured, bool accepted, const std::string& reason);

// Reports a finding and aborts; with STRBPF_FUZZ_CONTINUE set in the environment it only prints (triage of a
// whole corpus: `STRBPF_FUZZ_CONTINUE=1 fuzz_x -runs=0 DIR`). A finding of a known open class (reported, in code
// this harness does not own, reproducer in tests/fuzz/<target>/open/) is counted and printed once instead, so
// fuzzing goes on past it, unless STRBPF_FUZZ_STRICT is set (the regression test's replay of open findings).
void finding(const std::string& what);

} // namespace strbpf::fuzz
