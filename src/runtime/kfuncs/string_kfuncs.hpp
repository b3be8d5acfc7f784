// SPDX-License-Identifier: BSD-2-Clause
// The 15 string kfuncs (runtime stage), with the native HelperFn signature: R1..R5 and the run's context.
// Each returns the kernel's C int as (u64)(u32)result. Return values are listed in docs/kfuncs.md.
#pragma once
#include <cstdint>

#include "runtime/context.hpp"
#include "runtime/kfuncs/call_site.hpp"

namespace strbpf::runtime::kfuncs {

// Each kfunc's generic entry and (name_site) its JIT call-site entries (call_site.hpp).
#define STRBPF_KFUNC(name)                                                                                             \
    extern const CallSiteEntries name##_site;                                                                          \
    uint64_t name(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx)
STRBPF_KFUNC(bpf_strcmp);      // (s1__ign, s2__ign): -1/0/1; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strcasecmp);  // (s1__ign, s2__ign): as bpf_strcmp, Latin-1 folded
STRBPF_KFUNC(bpf_strncasecmp); // (s1__ign, s2__ign, len): as bpf_strcasecmp over at most len bytes
STRBPF_KFUNC(bpf_strchr);      // (s__ign, char c): index; -ENOENT; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strchrnul);   // (s__ign, char c): index of c or NUL; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strnchr);     // (s__ign, count, char c): index; -ENOENT; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strrchr);     // (s__ign, int c): last index; -ENOENT; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strlen);      // (s__ign): length; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strnlen);     // (s__ign, count): length; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strspn);      // (s__ign, accept__ign): length; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strcspn);     // (s__ign, reject__ign): length; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strstr);      // (s1__ign, s2__ign): index; -ENOENT; -EFAULT; -E2BIG; -ERANGE
STRBPF_KFUNC(bpf_strcasestr);  // (s1__ign, s2__ign): as bpf_strstr, Latin-1 folded
STRBPF_KFUNC(bpf_strnstr);     // (s1__ign, s2__ign, len): match within s1's first len bytes
STRBPF_KFUNC(bpf_strncasestr); // (s1__ign, s2__ign, len): as bpf_strnstr, Latin-1 folded
#undef STRBPF_KFUNC

} // namespace strbpf::runtime::kfuncs
