// SPDX-License-Identifier: BSD-2-Clause
// The sampler of `strbpf bench` (tools stage): calibration, producer threads, per-interval samples.
#include "bench_measure.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace strbpf::cli::bench {
namespace {

using Clock = std::chrono::steady_clock;

// What one producer thread has done so far (written by it, read by the sampler).
struct alignas(64) Counter {
    std::mutex mu; // hits and ns change together, once per batch
    uint64_t hits = 0;
    uint64_t ns = 0;
};

// Grows the batch until it lasts opts.min_batch_s. A first run, not timed, pays the one-time costs (verifying,
// compiling, the kernel's load): timed, a 20-40 ms verification of a long loop made one run look like a whole
// batch, and every later batch held a single run plus the per-batch set-up.
Result<uint32_t> calibrate(Producer& p, double min_batch_s) {
    const double target_ns = min_batch_s * 1e9;
    if (auto first = p.run_batch(1); !first)
        return first.error();
    uint64_t repeat = 1;
    for (;;) {
        auto ns = p.run_batch(uint32_t(repeat));
        if (!ns)
            return ns.error();
        const double t = std::max(*ns, 1.0);
        if (t >= target_ns / 4 || repeat >= (1u << 30)) {
            const double scaled = double(repeat) * target_ns / t;
            return uint32_t(std::clamp(scaled, 1.0, double(1u << 30)));
        }
        repeat = uint64_t(std::min(double(repeat) * 16, double(repeat) * target_ns / (4 * t) + 1));
    }
}

double mean_of(const std::vector<double>& v) {
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? 0 : s / double(v.size());
}

double stddev_of(const std::vector<double>& v, double mean) {
    if (v.size() < 2)
        return 0;
    double s = 0;
    for (double x : v)
        s += (x - mean) * (x - mean);
    return std::sqrt(s / double(v.size() - 1));
}

} // namespace

Result<Stats> sample(const ProducerFactory& make, const SampleOptions& opts,
                     const std::function<void(const std::string&)>& progress) {
    auto tell = [&](const std::string& s) {
        if (progress)
            progress(s);
    };
    const uint32_t n = std::max<uint32_t>(1, opts.producers);
    std::vector<std::unique_ptr<Producer>> producers;
    for (uint32_t i = 0; i < n; i++) {
        auto p = make();
        if (!p)
            return p.error();
        producers.push_back(std::move(*p));
    }
    tell("calibrating");
    auto repeat = calibrate(*producers[0], opts.min_batch_s);
    if (!repeat)
        return repeat.error();

    std::vector<Counter> counters(n);
    std::atomic<bool> stop{false};
    std::mutex err_mu;
    std::string error;
    std::vector<std::thread> threads;
    for (uint32_t i = 0; i < n; i++) {
        threads.emplace_back([&, i] {
            while (!stop.load(std::memory_order_relaxed)) {
                auto ns = producers[i]->run_batch(*repeat);
                if (!ns) {
                    std::lock_guard<std::mutex> lock(err_mu);
                    if (error.empty())
                        error = ns.error().message;
                    stop = true;
                    return;
                }
                std::lock_guard<std::mutex> lock(counters[i].mu);
                counters[i].ns += uint64_t(*ns);
                counters[i].hits += *repeat;
            }
        });
    }
    const double interval = opts.duration_s >= 5 ? 1.0 : std::max(opts.duration_s / 5, 0.02);
    const auto wanted = uint32_t(std::max(1.0, std::round(opts.duration_s / interval)));
    std::vector<double> samples;
    auto snapshot = [&](std::vector<std::pair<uint64_t, uint64_t>>* s) {
        s->resize(n);
        for (uint32_t i = 0; i < n; i++) {
            std::lock_guard<std::mutex> lock(counters[i].mu);
            (*s)[i] = {counters[i].hits, counters[i].ns};
        }
    };
    auto sleep_for = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
    tell("warm-up");
    sleep_for(opts.warmup_s);
    std::vector<std::pair<uint64_t, uint64_t>> prev, cur;
    snapshot(&prev);
    // An interval in which some producer finished no batch is merged into the next one (bounded).
    for (uint32_t tries = 0; samples.size() < wanted && tries < wanted * 20 && !stop; tries++) {
        tell(fmt::format("sample {}/{}", samples.size() + 1, wanted));
        sleep_for(interval);
        snapshot(&cur);
        double mps = 0;
        bool complete = true;
        for (uint32_t i = 0; i < n; i++) {
            const uint64_t dh = cur[i].first - prev[i].first, dns = cur[i].second - prev[i].second;
            complete &= dh > 0 && dns > 0;
            if (dns > 0)
                mps += double(dh) * 1e3 / double(dns);
        }
        if (!complete)
            continue;
        samples.push_back(mps);
        prev = cur;
    }
    stop = true;
    for (auto& t : threads)
        t.join();
    if (!error.empty())
        return make_error(error);
    if (samples.empty())
        return make_error("no batch completed within the measurement (raise -d)");
    Stats st;
    st.hits_mps = mean_of(samples);
    st.hits_mps_stddev = stddev_of(samples, st.hits_mps);
    st.samples = uint32_t(samples.size());
    std::sort(samples.begin(), samples.end());
    st.hits_mps_best = samples.back();
    const size_t mid = samples.size() / 2;
    st.hits_mps_median = samples.size() % 2 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
    st.repeat = *repeat;
    return st;
}

} // namespace strbpf::cli::bench
