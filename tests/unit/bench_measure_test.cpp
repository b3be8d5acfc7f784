// SPDX-License-Identifier: BSD-2-Clause
// strbpf bench's sampler (tools stage): calibration and the rate it reports, on producers with known costs.
#include <gtest/gtest.h>

#include <memory>

#include "bench_measure.hpp"

namespace strbpf::cli::bench {
namespace {

// A producer whose runs cost `run_ns` each, and whose first batch also pays `first_ns` once (verifying and
// compiling, or the kernel's load). It reports time instead of spending it.
class FakeProducer : public Producer {
  public:
    FakeProducer(double first_ns, double run_ns) : first_ns_(first_ns), run_ns_(run_ns) {}
    Result<double> run_batch(uint32_t repeat) override {
        const double once = first_ ? first_ns_ : 0;
        first_ = false;
        return once + double(repeat) * run_ns_;
    }

  private:
    bool first_ = true;
    double first_ns_, run_ns_;
};

SampleOptions short_run() {
    SampleOptions o;
    o.warmup_s = 0.02;
    o.duration_s = 0.1;
    return o;
}

// A 30 ms one-time cost must not be taken for the cost of a run: the batch still lasts about min_batch_s
// (10 ms / 3 us = 3333 runs), not one run.
TEST(BenchSample, OneTimeCostDoesNotShrinkTheBatch) {
    auto make = []() -> Result<std::unique_ptr<Producer>> {
        return std::unique_ptr<Producer>(new FakeProducer(30e6, 3000));
    };
    auto st = sample(make, short_run(), {});
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_GE(st->repeat, 1000u);
    EXPECT_NEAR(st->hits_mps, 1000.0 / 3000, 0.01); // 3 us per run: 0.333 M/s
}

TEST(BenchSample, RateIsRunsOverEngineTime) {
    auto make = []() -> Result<std::unique_ptr<Producer>> {
        return std::unique_ptr<Producer>(new FakeProducer(0, 40));
    };
    auto st = sample(make, short_run(), {});
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_NEAR(st->hits_mps, 25.0, 0.5); // 40 ns per run
    EXPECT_GE(st->samples, 1u);
}

// The fastest and the median sample come with the mean; at a constant cost all three are that cost's rate, and
// the fastest is never below the median.
TEST(BenchSample, BestAndMedianSamples) {
    auto make = []() -> Result<std::unique_ptr<Producer>> {
        return std::unique_ptr<Producer>(new FakeProducer(0, 40));
    };
    auto st = sample(make, short_run(), {});
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_NEAR(st->hits_mps_best, 25.0, 0.5);
    EXPECT_NEAR(st->hits_mps_median, 25.0, 0.5);
    EXPECT_GE(st->hits_mps_best, st->hits_mps_median);
}

} // namespace
} // namespace strbpf::cli::bench
