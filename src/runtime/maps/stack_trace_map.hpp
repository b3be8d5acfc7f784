// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_STACK_TRACE (runtime stage): stack ids for bpf_get_stackid, as kernel/bpf/stackmap.c keeps them.
// roundup_pow_of_two(max_entries) buckets, each empty or holding one trace; max_entries preallocated traces, so a
// full map answers -ENOMEM. A trace's id is its jhash2 masked to the bucket count; with BPF_F_STACK_BUILD_ID each
// entry is a struct bpf_stack_build_id. The syscall view copies a bucket's trace and zeros the rest of the value.
#pragma once
#include <cstdint>

#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

// include/uapi/linux/bpf.h's bpf_get_stackid / bpf_get_stack flags.
inline constexpr uint64_t kStackSkipMask = 0xff;        // BPF_F_SKIP_FIELD_MASK
inline constexpr uint64_t kStackUser = 1u << 8;         // BPF_F_USER_STACK
inline constexpr uint64_t kStackFastCmp = 1u << 9;      // BPF_F_FAST_STACK_CMP
inline constexpr uint64_t kStackReuseId = 1u << 10;     // BPF_F_REUSE_STACKID
inline constexpr uint64_t kStackUserBuildId = 1u << 11; // BPF_F_USER_BUILD_ID
inline constexpr uint32_t kStackBuildIdSize = 32;       // sizeof(struct bpf_stack_build_id)
// sysctl_perf_event_max_stack at its default (kernel.perf_event_max_stack): the deepest trace the kernel takes.
inline constexpr uint32_t kPerfMaxStack = 127;

// stack_map_calculate_max_depth: the entries SIZE bytes hold, plus the skipped ones, at most kPerfMaxStack.
uint32_t stack_max_depth(uint32_t size, uint32_t elem_size, uint64_t flags);
// BPF_F_STACK_BUILD_ID's fallback (stack_map_get_build_id_offset when no VMA of the task holds the ip, as for
// every modelled ip): status BPF_STACK_BUILD_ID_IP, build_id zeroed, the ip kept. OUT holds N entries whose ip is
// set.
void stack_build_id_fallback(uint8_t* out, uint32_t n);

class StackTraceMap;
StackTraceMap* as_stack_trace(Map* map);
// The bytes of one trace entry: 8, or kStackBuildIdSize with BPF_F_STACK_BUILD_ID.
uint32_t stack_trace_elem_size(const StackTraceMap& m);

// bpf_get_stackid's bucket step (stackid_init/fastpath/new_bucket/install) for TRACE, the callchain of NR entries
// get_perf_callchain gave (at most stack_max_depth(value_size, elem size, flags)), under FLAGS' skip, fast compare
// and reuse rules. Returns: the id; -EFAULT (NR <= skip); -EEXIST (the bucket holds another trace and
// BPF_F_REUSE_STACKID is off); -ENOMEM (every preallocated trace is in use).
long stack_trace_get_id(StackTraceMap& m, const uint64_t* trace, uint32_t nr, uint64_t flags);

Result<std::unique_ptr<Map>> create_stack_trace_map(const loader::MapSpec& spec);

} // namespace strbpf::runtime
