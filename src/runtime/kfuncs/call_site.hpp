// SPDX-License-Identifier: BSD-2-Clause
// Call-site entries of the string kfuncs and bpf_strncmp (runtime stage): what the JIT calls instead of the generic
// entry so that a call whose string pointers lie in shared memory (global data, map values) needs no registry
// look-up. Each JIT call site owns one slot per string pointer, holding the shared region that pointer was last
// found in (or an empty region). The generated code checks the pointer against the slot's region inline; on a hit
// it passes each pointer's readable span (region end - pointer) in the first free argument registers and calls
// `resolved`, on a miss it passes the site's slots and calls `miss`, which runs the generic entry and fills the
// slots. Neither entry aborts the run, so the JIT does not test RunContext::aborted after them. On a hit, the JIT
// may first answer a short string inline (`short_path`): from the first 16 bytes, when the spans cover them and the
// answer lies within them; anything else falls through to `resolved`. A pointer into the run's own stack needs no
// slot: the stack's bounds are known to the code, and a stack pointer is resolved as a kept region's would be.
#pragma once
#include <atomic>
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime {

// A site's slot: the last shared region a pointer argument was found in. Shared regions never change while their
// instance lives, and a compiled program belongs to one instance, so a kept region stays valid.
using CallSiteSlot = std::atomic<const Region*>;
static_assert(sizeof(CallSiteSlot) == sizeof(const Region*) && CallSiteSlot::is_always_lock_free);

// What an empty slot holds: a region no address lies in.
inline constexpr Region kNoRegion{};

// The call's inline short-string answer (exec/jit/x86_64/short_strings.cpp), or none. The ones after strncmp
// use SSE4.2's pcmpistrm and are emitted only where the compiled code may use SSE4.2.
enum class ShortPath : uint8_t {
    none,
    strlen,
    strnlen,
    strchr,
    strchrnul,
    strnchr,
    strrchr,
    strcmp,
    strncmp,
    strcasecmp,
    strncasecmp,
    strspn,
    strcspn,
    strstr,
    strnstr,
    strcasestr,
    strncasestr,
};

struct CallSiteEntries {
    // r1..r3 as the generic entry gets them; r4 (and r5) carry the readable spans of the pointers named by ptr_regs.
    HelperFn resolved;
    // r1..r3 as the generic entry gets them; r4 = the address of the site's first slot (the second follows it).
    HelperFn miss;
    uint8_t ptr_regs[2]; // the BPF argument registers holding string pointers (0: none)
    ShortPath short_path = ShortPath::none;
    // A pointer into the run's own stack may take `resolved` too, with its span to the stack's top (the JIT
    // checks it against the frame pointer; x86_64/stack_site.hpp). False for bpf_strncmp's s2, which the verifier
    // proves read-only global data and whose unverified runs must reach the generic entry's checks.
    bool stack_strings = true;
};

} // namespace strbpf::runtime
