// SPDX-License-Identifier: BSD-2-Clause
// The timers and workqueues of one object instance (runtime stage): what bpf_timer_init / set_callback / start /
// cancel do to a map value's struct bpf_timer, what bpf_wq_init / set_callback_impl / start do to its struct bpf_wq,
// and the one queue of armed timers and started workqueues the embedder runs (exec/timers.hpp).
//
// The model. The kernel keeps a pointer to its timer (or work item) in the value's 16 bytes and runs the callback
// from an hrtimer in softirq context (a bpf_wq's from a kworker, where it may sleep). strbpf keeps both in this
// queue and writes the entry's token (a nonzero number, never an address) into the value's first 8 bytes; an entry
// is the one whose token, address and kind all match, so a value overwritten by an update (the kernel frees the
// timer or work of an updated element) has none, and a stale or forged token finds nothing. A deleted or replaced
// hash element is found out when its entry is due: the element the key now names is not the one the entry was
// set in, so the callback does not run (the kernel cancels the timer or work at delete). Callbacks run when the
// embedder asks (run_due), on the thread that asks, one at a time. A started bpf_wq is due at once: its expiry is
// the moment bpf_wq_start queued it, on CLOCK_MONOTONIC, so it runs in the same order as timers that expired then.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace strbpf::runtime {

class Map;

// What a queue entry stands for: the value's struct bpf_timer or its struct bpf_wq (the kernel's bpf_async_type).
enum class AsyncKind : uint8_t { timer, wq };

// One due timer's or workqueue's callback, as run_due hands it to the engine: callback(map, key, value).
struct TimerFire {
    uint64_t callback = 0; // the engine's value of the callback (what ld_imm64 BPF_PSEUDO_FUNC produced)
    Map* map = nullptr;
    std::vector<uint8_t> key; // the element's key (an array's u32 index)
    uint64_t value = 0;       // the map value the timer is in
    AsyncKind kind = AsyncKind::timer;
};

// Which armed timers run_due runs (a started bpf_wq is due in either mode).
enum class TimerRun : uint8_t {
    due, // those whose expiry has passed on their clock (CLOCK_MONOTONIC = bpf_ktime_get_ns, REALTIME, BOOTTIME)
    all, // every armed timer, in expiry order, as if the time until the latest had passed
};

class TimerQueue {
  public:
    // bpf_timer_init: 0, -EINVAL (flags beyond a clock id, a clock other than MONOTONIC, REALTIME, BOOTTIME),
    // -EBUSY (already initialised). TIMER: the value's bpf_timer; the element is looked up in MAP.
    int init(uint64_t timer, Map* map, uint64_t flags);
    // bpf_timer_set_callback: 0, -EINVAL (not initialised).
    int set_callback(uint64_t timer, uint64_t callback);
    // bpf_timer_start: 0, -EINVAL (unknown flags; not initialised or no callback). BPF_F_TIMER_ABS: nsecs is the
    // expiry on the timer's clock; else relative to now. BPF_F_TIMER_CPU_PIN changes nothing here.
    int start(uint64_t timer, uint64_t nsecs, uint64_t flags);
    // bpf_timer_cancel: 1 (it was armed), 0 (it was not), -EINVAL (not initialised), -EDEADLK (from its own
    // callback). The callback is dropped, as the kernel drops the program: start needs set_callback again.
    int cancel(uint64_t timer);

    // bpf_wq_init: 0, -EINVAL (flags not 0), -EBUSY (already initialised). WQ: the value's bpf_wq; the element is
    // looked up in MAP. The kernel's -EPERM (a map no user space holds) never arises: an Object holds its maps.
    int wq_init(uint64_t wq, Map* map, uint64_t flags);
    // bpf_wq_set_callback_impl: 0, -EINVAL (flags not 0; not initialised).
    int wq_set_callback(uint64_t wq, uint64_t callback, uint64_t flags);
    // bpf_wq_start: 0, -EINVAL (flags not 0; not initialised or no callback). Queues the work, due at once; work
    // already queued and not yet run stays queued once (schedule_work of pending work), so it runs once.
    int wq_start(uint64_t wq, uint64_t flags);

    // Runs the armed timers MODE selects and every started bpf_wq, earliest expiry first (ties in the order they
    // were armed), each once: a timer a callback arms again, or a bpf_wq it starts again, waits for the next call.
    // RUN is the engine's: it calls the callback. Returns how many callbacks ran.
    size_t run_due(TimerRun mode, const std::function<void(const TimerFire&)>& run);
    size_t armed() const; // how many timers are armed and bpf_wq started, not yet run
    // The earliest expiry among armed timers and started bpf_wq, on CLOCK_MONOTONIC (the others converted at the
    // time of the call).
    std::optional<uint64_t> next_expiry() const;

  private:
    struct Timer {
        uint64_t token = 0;
        AsyncKind kind = AsyncKind::timer;
        uint64_t addr = 0;  // the value's struct bpf_timer or struct bpf_wq
        uint64_t value = 0; // the map value
        Map* map = nullptr;
        std::vector<uint8_t> key;
        uint32_t clock = 0;    // a bpf_wq's: CLOCK_MONOTONIC
        uint64_t callback = 0; // 0: none set
        bool armed = false;    // a bpf_wq: started and not yet run (its work pending)
        uint64_t expires = 0;  // on `clock`; a bpf_wq's: when it was started
        uint64_t seq = 0;      // arming order
    };
    // With mu_ held: the entry of KIND whose token and address match, else nullptr.
    Timer* find(uint64_t addr, AsyncKind kind);
    // With mu_ held: T (kind, address, map, value and key filled in) becomes a new entry, its token stored at its
    // address; an entry an earlier element left at that address is dropped.
    void add(Timer t);
    bool live(const Timer& t) const; // with mu_ held: the timer's element is still its key's

    mutable std::mutex mu_;
    std::map<uint64_t, Timer> timers_; // by token
    uint64_t next_token_ = 1, next_seq_ = 1;
};

} // namespace strbpf::runtime
