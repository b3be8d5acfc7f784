// SPDX-License-Identifier: BSD-2-Clause
// The timers and workqueues of one object instance (runtime stage): kernel/bpf/helpers.c's bpf_timer_* and
// bpf_wq_* answers over strbpf's queue, and the queue run (timer_queue.hpp has the model).
#include "runtime/timers/timer_queue.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <tuple>

#include "loader/object_spec.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kMaxClocks = 16;            // MAX_CLOCKS: bpf_timer_init's flags are a clock id below it
constexpr uint64_t kTimerAbs = 1, kTimerCpuPin = 2; // BPF_F_TIMER_ABS, BPF_F_TIMER_CPU_PIN

uint64_t clock_now(uint32_t clock) {
    timespec ts{};
    clock_gettime(clockid_t(clock), &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// The token in the value's bpf_timer: read and written as the one 8-byte word it is (programs cannot touch it,
// the host's map copies may race with a helper).
uint64_t load_token(uint64_t addr) {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(addr)).load(std::memory_order_acquire);
}
void store_token(uint64_t addr, uint64_t token) {
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(addr)).store(token, std::memory_order_release);
}

uint64_t round8(uint64_t n) { return (n + 7) & ~uint64_t(7); }

// The element of MAP that holds address ADDR (the verifier proved it a value's bpf_timer or bpf_wq): its value and key,
// from the kernel's layouts strbpf's maps keep (arrays: round_up(value_size, 8) per element; hash maps: the key
// rounded up to 8 bytes, then the value). False for an address outside the map's elements.
bool element_of(Map* map, uint64_t addr, uint64_t* value, std::vector<uint8_t>* key) {
    const loader::MapSpec& s = map->spec();
    const uint64_t base = reinterpret_cast<uint64_t>(map->arena());
    if (addr < base || addr >= base + map->arena_size())
        return false;
    if (s.type == loader::kMapArray) {
        const uint64_t elem = round8(s.value_size);
        const uint32_t idx = uint32_t((addr - base) / elem);
        *value = base + idx * elem;
        key->resize(sizeof idx);
        std::memcpy(key->data(), &idx, sizeof idx);
        return true;
    }
    if (s.type != loader::kMapHash && s.type != loader::kMapLruHash)
        return false;
    const uint64_t key8 = round8(s.key_size), esize = key8 + round8(s.value_size);
    const uint64_t elem = base + (addr - base) / esize * esize;
    if (addr < elem + key8)
        return false;
    *value = elem + key8;
    key->assign(reinterpret_cast<const uint8_t*>(elem), reinterpret_cast<const uint8_t*>(elem) + s.key_size);
    return true;
}

} // namespace

TimerQueue::Timer* TimerQueue::find(uint64_t addr, AsyncKind kind) {
    const auto it = timers_.find(load_token(addr));
    return it != timers_.end() && it->second.addr == addr && it->second.kind == kind ? &it->second : nullptr;
}

void TimerQueue::add(Timer t) {
    // An entry still queued at this address belongs to an element that was updated or deleted since: it is gone.
    std::erase_if(timers_, [&](const auto& kv) { return kv.second.addr == t.addr; });
    t.token = next_token_++;
    store_token(t.addr, t.token);
    timers_.emplace(t.token, std::move(t));
}

bool TimerQueue::live(const Timer& t) const {
    if (t.map->spec().type == loader::kMapArray)
        return true; // array elements are never deleted; an update overwrites the token
    return reinterpret_cast<uint64_t>(t.map->lookup(t.key.data())) == t.value;
}

int TimerQueue::init(uint64_t timer, Map* map, uint64_t flags) {
    const uint64_t clock = flags & (kMaxClocks - 1);
    if (flags >= kMaxClocks || (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME && clock != CLOCK_BOOTTIME))
        return -EINVAL;
    Timer t;
    if (!map || !element_of(map, timer, &t.value, &t.key))
        return -EINVAL;
    std::lock_guard lock(mu_);
    if (find(timer, AsyncKind::timer))
        return -EBUSY;
    t.addr = timer;
    t.map = map;
    t.clock = uint32_t(clock);
    add(std::move(t));
    return 0;
}

int TimerQueue::set_callback(uint64_t timer, uint64_t callback) {
    std::lock_guard lock(mu_);
    Timer* t = find(timer, AsyncKind::timer);
    if (!t)
        return -EINVAL;
    t->callback = callback;
    return 0;
}

int TimerQueue::start(uint64_t timer, uint64_t nsecs, uint64_t flags) {
    if (flags & ~(kTimerAbs | kTimerCpuPin))
        return -EINVAL;
    std::lock_guard lock(mu_);
    Timer* t = find(timer, AsyncKind::timer);
    if (!t || !t->callback)
        return -EINVAL;
    t->expires = (flags & kTimerAbs) ? nsecs : clock_now(t->clock) + nsecs;
    t->armed = true;
    t->seq = next_seq_++;
    return 0;
}

namespace {
// The timer whose callback runs on this thread (the kernel's per-CPU hrtimer_running), for -EDEADLK.
thread_local const void* running_queue = nullptr;
thread_local uint64_t running_token = 0;
} // namespace

int TimerQueue::cancel(uint64_t timer) {
    std::lock_guard lock(mu_);
    Timer* t = find(timer, AsyncKind::timer);
    if (!t)
        return -EINVAL;
    if (running_queue == this && running_token == t->token)
        return -EDEADLK;
    const bool was_armed = t->armed;
    t->armed = false;
    t->callback = 0;
    return was_armed ? 1 : 0;
}

int TimerQueue::wq_init(uint64_t wq, Map* map, uint64_t flags) {
    if (flags)
        return -EINVAL;
    Timer t;
    if (!map || !element_of(map, wq, &t.value, &t.key))
        return -EINVAL;
    std::lock_guard lock(mu_);
    if (find(wq, AsyncKind::wq))
        return -EBUSY;
    t.kind = AsyncKind::wq;
    t.addr = wq;
    t.map = map;
    t.clock = CLOCK_MONOTONIC;
    add(std::move(t));
    return 0;
}

int TimerQueue::wq_set_callback(uint64_t wq, uint64_t callback, uint64_t flags) {
    if (flags)
        return -EINVAL;
    std::lock_guard lock(mu_);
    Timer* t = find(wq, AsyncKind::wq);
    if (!t)
        return -EINVAL;
    t->callback = callback;
    return 0;
}

int TimerQueue::wq_start(uint64_t wq, uint64_t flags) {
    if (flags)
        return -EINVAL;
    std::lock_guard lock(mu_);
    Timer* t = find(wq, AsyncKind::wq);
    if (!t || !t->callback)
        return -EINVAL;
    if (t->armed) // pending work is not queued twice
        return 0;
    t->expires = clock_now(CLOCK_MONOTONIC);
    t->armed = true;
    t->seq = next_seq_++;
    return 0;
}

size_t TimerQueue::run_due(TimerRun mode, const std::function<void(const TimerFire&)>& run) {
    // The timers due when the call starts, by expiry then arming order; each is checked again before it runs (an
    // earlier callback may have cancelled, re-armed or freed it).
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> due; // expiry (monotonic), seq, token
    {
        std::lock_guard lock(mu_);
        for (const auto& [token, t] : timers_) {
            if (!t.armed)
                continue;
            const uint64_t now = clock_now(t.clock);
            if (mode == TimerRun::due && t.kind == AsyncKind::timer && t.expires > now)
                continue;
            const uint64_t mono = clock_now(CLOCK_MONOTONIC);
            due.emplace_back(t.expires >= now ? mono + (t.expires - now) : mono - std::min(mono, now - t.expires),
                             t.seq, token);
        }
    }
    std::sort(due.begin(), due.end());
    size_t ran = 0;
    for (const auto& [expiry, seq, token] : due) {
        TimerFire fire;
        {
            std::lock_guard lock(mu_);
            const auto it = timers_.find(token);
            if (it == timers_.end())
                continue;
            Timer& t = it->second;
            if (!t.armed || t.seq != seq)
                continue;
            // HRTIMER_NORESTART, and a work item is no longer pending once it runs: a callback that wants more
            // starts it again.
            t.armed = false;
            if (load_token(t.addr) != token || !live(t)) { // its element was updated or deleted: freed
                timers_.erase(it);
                continue;
            }
            fire = TimerFire{t.callback, t.map, t.key, t.value, t.kind};
        }
        running_queue = this, running_token = token; // only bpf_timer_cancel asks (a bpf_wq has no cancel)
        run(fire);
        running_queue = nullptr, running_token = 0;
        ran++;
    }
    return ran;
}

size_t TimerQueue::armed() const {
    std::lock_guard lock(mu_);
    return size_t(std::count_if(timers_.begin(), timers_.end(), [&](const auto& kv) {
        const Timer& t = kv.second;
        return t.armed && load_token(t.addr) == t.token && live(t);
    }));
}

std::optional<uint64_t> TimerQueue::next_expiry() const {
    std::lock_guard lock(mu_);
    std::optional<uint64_t> best;
    const uint64_t mono = clock_now(CLOCK_MONOTONIC);
    for (const auto& [token, t] : timers_) {
        if (!t.armed || load_token(t.addr) != token || !live(t))
            continue;
        const uint64_t now = clock_now(t.clock);
        const uint64_t at = t.expires >= now ? mono + (t.expires - now) : mono - std::min(mono, now - t.expires);
        best = best ? std::min(*best, at) : at;
    }
    return best;
}

} // namespace strbpf::runtime
