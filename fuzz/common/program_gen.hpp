// SPDX-License-Identifier: BSD-2-Clause
// The structured program generator (fuzz stage): reads fuzz bytes as choices and emits a program the verifier
// often accepts — a syscall, socket filter or xdp program with a fixed register discipline (r6 ctx, r7 a map value, r8/r9
// scalars), scalar ALU, ctx/stack/map/global/packet accesses with constant and bounded variable offsets, if/else
// blocks, bounded loops, helper and kfunc calls, atomics, static subprograms and callbacks. The byte choices
// reach the edges (bounds off by one, signed vs unsigned checks), so the verifier must reject some of them.
#pragma once
#include <vector>

#include "common/byte_reader.hpp"
#include "isa/insn.hpp"
#include "loader/object_spec.hpp"

namespace strbpf::fuzz {

// The program for `type` (syscall, socket_filter or xdp) the choices in `in` describe; it ends when `in` runs out.
// `deterministic`: no helper whose result differs between two runs (bpf_ktime_get_ns, bpf_get_prandom_u32).
std::vector<isa::Insn> generate_program(loader::ProgType type, ByteReader& in, bool deterministic);

// The same, calling only the kfuncs whose kfunc-table indexes are in `kfuncs` (none when it is empty): the
// kernel-differential fuzzer's kernel lacks the newest string kfuncs.
std::vector<isa::Insn> generate_program(loader::ProgType type, ByteReader& in, bool deterministic,
                                        const std::vector<int>& kfuncs);

} // namespace strbpf::fuzz
