// SPDX-License-Identifier: BSD-2-Clause
// The kernel-differential fuzzer's counters and its summary file (summary.md): executions per second, verdict
// agreement, S and K counts overall and per hour, and the top categories of each kind of disagreement.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernel_diff/differ.hpp"

namespace strbpf::fuzz::kdiff {

struct CategoryCount {
    uint64_t count = 0;
    std::string example; // the minimised finding's file, relative to the output directory
};

class Stats {
  public:
    explicit Stats(std::string command);

    // Counts one judged program; returns the category's count after it (1: a new category).
    uint64_t add(loader::ProgType type, Class c, const Judged& j);
    void set_example(Class c, const std::string& cat, const std::string& file);
    uint64_t executions() const { return execs_; }
    double elapsed_hours() const;
    std::string markdown() const;

  private:
    struct Hour {
        uint64_t execs = 0, s = 0, k = 0, no_verdict = 0;
    };
    using Clock = std::chrono::steady_clock;
    std::string command_;
    std::string started_utc_;
    Clock::time_point start_;
    uint64_t execs_ = 0;
    uint64_t by_class_[5] = {};
    uint64_t reasons_agree_ = 0; // both reject with the same one-line reason
    struct PerType {
        uint64_t execs = 0, kernel_accepts = 0, strbpf_accepts = 0, disagreements = 0;
    };
    std::map<std::string, PerType> per_type_;
    std::map<std::pair<int, std::string>, CategoryCount> cats_;     // (class, category)
    std::map<std::string, uint64_t> reason_diffs_;                  // both reject: "kernel → strbpf"
    std::map<std::string, uint64_t> no_verdict_;
    std::vector<Hour> hours_;

    void table(std::string& out, Class c, const char* title, size_t top) const;
};

std::string utc_now();

} // namespace strbpf::fuzz::kdiff
