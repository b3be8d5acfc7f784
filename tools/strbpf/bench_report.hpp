// SPDX-License-Identifier: BSD-2-Clause
// What `strbpf bench` prints (tools stage): one line per measurement in the kernel bench's words, JSON lines,
// the summary tables of ns per operation with the ratios that matter, and an SVG plot (log-log).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bench_scenarios.hpp"

namespace strbpf::cli::bench {

struct Measurement {
    std::string bench;  // "strncmp-helper"
    std::string engine; // interp, jit, kernel, native
    uint32_t len = 0;
    uint32_t producers = 1;
    double hits_mps = 0, hits_mps_stddev = 0;
    uint32_t samples = 0;
    double hits_mps_best = 0, hits_mps_median = 0; // the fastest and the median sample
    uint32_t rounds = 1; // --rounds: the median round's mean, the stddev of the rounds' means
    double ns_per_op() const { return hits_mps > 0 ? 1e3 / hits_mps : 0; }
};

// `strncmp-helper     len=4095  jit     hits   42.123 ± 0.101M/s` (no drops column: nothing is dropped); with several
// producers a `p=N` column and the per-producer rate, as the kernel's Summary line has it.
std::string text_line(const Measurement& m, bool show_producers);
// {"bench":..,"engine":..,"len":..,"producers":..,"hits_mps":..,"hits_mps_stddev":..,"ns_per_op":..,...}
std::string json_line(const Measurement& m);

// Markdown tables: per family, ns per operation (one producer) by length and engine, then the ratios
// home-made/helper per engine, kernel/strbpf and strbpf/glibc; then each bounded kfunc beside its unbounded form
// (strnlen vs strlen, strnchr vs strchr, strnstr vs strstr) per engine with their ratio; then scaling against one
// producer when measured.
std::string summary(const Scenario& sc, const std::vector<Measurement>& ms, const std::vector<std::string>& engines,
                    const std::vector<uint32_t>& lengths);

// A standalone SVG: one log-log panel of ns per operation against length per family (shared axes), a line per
// bench and engine with ± 1 stddev error bars; one legend: engines by colour, kfunc/loop/glibc by dash.
std::string svg_plot(const Scenario& sc, const std::vector<Measurement>& ms, const std::string& subtitle);

} // namespace strbpf::cli::bench
