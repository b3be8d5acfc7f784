// SPDX-License-Identifier: BSD-2-Clause
// The bpf_wq kfuncs (runtime stage): kernel/bpf/helpers.c's bpf_wq_init, bpf_wq_set_callback_impl and bpf_wq_start
// over the instance's TimerQueue (runtime/timers/timer_queue.hpp has the model: a started bpf_wq is queued, due at
// once, and its callback runs when the embedder runs the queue, exec/timers.hpp). The verifier checks them from
// their kernel BTF rows (verifier/kfunc_btf_table.cpp): the bpf_wq argument is the map value's bpf_wq, the map the
// value's own, the callback an async callback of that map. For interp-checked, which runs without the verifier,
// the bpf_wq must be 16 bytes of writable program memory on an 8-byte boundary and the map one of the instance's.
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime::kfuncs {

// (struct bpf_wq *wq, void *p__map, unsigned int flags): int. Returns: 0; -EINVAL (flags not 0); -EBUSY (this
// bpf_wq is initialised already).
uint64_t bpf_wq_init(uint64_t wq, uint64_t map, uint64_t flags, uint64_t, uint64_t, RunContext* ctx);
// (struct bpf_wq *wq, int (callback_fn)(void *map, int *key, void *value), unsigned int flags, void *aux__prog):
// int. The callback is the engine's value of the function (what ld_imm64 BPF_PSEUDO_FUNC produced); aux__prog,
// which the kernel's verifier fills with the program, is not read: the queue run finds the program by the value.
// Returns: 0; -EINVAL (flags not 0; not initialised).
uint64_t bpf_wq_set_callback_impl(uint64_t wq, uint64_t callback, uint64_t flags, uint64_t, uint64_t, RunContext* ctx);
// (struct bpf_wq *wq, unsigned int flags): int. Returns: 0 (queued, or still queued from an earlier start);
// -EINVAL (flags not 0; not initialised, or no callback set).
uint64_t bpf_wq_start(uint64_t wq, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx);

} // namespace strbpf::runtime::kfuncs
