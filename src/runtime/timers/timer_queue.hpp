// SPDX-License-Identifier: BSD-2-Clause
// The timers of one object instance (runtime stage): what bpf_timer_init / set_callback / start / cancel do to
// a map value's struct bpf_timer, and the queue of armed timers the embedder runs (exec/timers.hpp).
//
// The model. The kernel keeps a pointer to its timer in the value's 16 bytes and fires the callback from an
// hrtimer in softirq context. strbpf keeps the timer in this queue and writes its token (a nonzero number, never
// an address) into the value's first 8 bytes; a timer is the one whose token and address both match, so a value
// overwritten by an update (the kernel frees the timer of an updated element) has none, and a stale or forged
// token finds nothing. A deleted or replaced hash element is found out when its timer is due: the element the key
// now names is not the one the timer was set in, so the callback does not run (the kernel cancels the timer at
// delete). Callbacks run when the embedder asks (run_due), on the thread that asks, one at a time.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace strbpf::runtime {

class Map;

// One due timer's callback, as run_due hands it to the engine: callback(map, key, value).
struct TimerFire {
    uint64_t callback = 0; // the engine's value of the callback (what ld_imm64 BPF_PSEUDO_FUNC produced)
    Map* map = nullptr;
    std::vector<uint8_t> key; // the element's key (an array's u32 index)
    uint64_t value = 0;       // the map value the timer is in
};

// Which armed timers run_due runs.
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

    // Runs the armed timers MODE selects, earliest expiry first (ties in the order they were armed), each once:
    // a timer a callback arms again waits for the next call. RUN is the engine's: it calls the callback.
    // Returns how many callbacks ran.
    size_t run_due(TimerRun mode, const std::function<void(const TimerFire&)>& run);
    size_t armed() const; // how many timers are armed
    // The earliest expiry among armed timers, on CLOCK_MONOTONIC (the others converted at the time of the call).
    std::optional<uint64_t> next_expiry() const;

  private:
    struct Timer {
        uint64_t token = 0;
        uint64_t addr = 0;  // the value's struct bpf_timer
        uint64_t value = 0; // the map value
        Map* map = nullptr;
        std::vector<uint8_t> key;
        uint32_t clock = 0;
        uint64_t callback = 0; // 0: none set
        bool armed = false;
        uint64_t expires = 0; // on `clock`
        uint64_t seq = 0;     // arming order
    };
    Timer* find(uint64_t addr); // with mu_ held: the timer whose token and address match, else nullptr
    bool live(const Timer& t) const; // with mu_ held: the timer's element is still its key's

    mutable std::mutex mu_;
    std::map<uint64_t, Timer> timers_; // by token
    uint64_t next_token_ = 1, next_seq_ = 1;
};

} // namespace strbpf::runtime
