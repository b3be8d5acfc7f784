// SPDX-License-Identifier: BSD-2-Clause
// How `strbpf bench` measures (tools stage): producers run batches of one operation (a BPF program on an engine,
// or a glibc call); a sampler turns them into M hits/s samples the way the kernel's bench.c does each second, and
// reports mean ± sample stddev (n-1) over the samples after warm-up.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "strbpf/result.hpp"

namespace strbpf::cli::bench {

// Runs one operation in batches. Each batch checks the answer: a wrong one is an error, never a figure.
class Producer {
  public:
    virtual ~Producer() = default;
    // Runs the operation `repeat` times; returns the nanoseconds the engine spent in its repeat loop (the
    // kernel's own duration; the thread's CPU time for user-space engines and glibc).
    virtual Result<double> run_batch(uint32_t repeat) = 0;
};

// Makes one producer per thread; all of them run the same loaded program (and so share its maps).
using ProducerFactory = std::function<Result<std::unique_ptr<Producer>>()>;

struct SampleOptions {
    double warmup_s = 1;
    double duration_s = 5;
    uint32_t producers = 1;
    double min_batch_s = 0.010; // a batch lasts about this long (more for engines with a per-call cost)
};

struct Stats {
    double hits_mps = 0;        // mean of the per-sample totals over all producers, in M/s
    double hits_mps_stddev = 0; // sample standard deviation (n - 1); 0 with one sample
    uint32_t samples = 0;
    uint32_t repeat = 0;       // the batch size calibration chose
    double hits_mps_best = 0;   // the fastest sample: the least disturbed by a shared machine's other load
    double hits_mps_median = 0; // the median sample
};

// One sample per interval (1 s, or duration / 5 for runs shorter than 5 s) after warm-up. A sample's rate is
// the sum over producers of hits / engine time, so the time between batches (set-up, the kernel's XDP
// dispatcher swap) does not count, exactly as the kernel's own duration excludes it.
// `progress` (may be empty) is told the phase ("calibrating", "warm-up", "sample 3/5").
Result<Stats> sample(const ProducerFactory& make, const SampleOptions& opts,
                     const std::function<void(const std::string&)>& progress);

} // namespace strbpf::cli::bench
