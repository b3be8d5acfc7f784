// SPDX-License-Identifier: BSD-2-Clause
// bpf_user_ringbuf_drain (209), runtime stage (kernel/bpf/ringbuf.c): calls the callback with a const struct
// bpf_dynptr (a local dynptr over the sample, in the helper's own frame as in the kernel) for each committed sample
// of a user ring buffer, skipping discarded ones, until the ring is empty or holds a busy sample, the callback
// returns 1, or BPF_MAX_USER_RINGBUF_SAMPLES samples (discarded ones counted) have been looked at.
// Returns: the number of samples passed to the callback; -EINVAL (flags other than BPF_RB_NO_WAKEUP and
// BPF_RB_FORCE_WAKEUP; a malformed ring); -EBUSY (another drain of the same map is running, e.g. the callback's);
// -E2BIG (a sample larger than the ring or than a dynptr holds). Producers are woken as the kernel wakes them.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_user_ringbuf_drain_helper(uint64_t map, uint64_t fn, uint64_t cb_ctx, uint64_t flags, uint64_t,
                                       RunContext* ctx);
} // namespace strbpf::runtime
