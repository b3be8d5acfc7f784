// SPDX-License-Identifier: BSD-2-Clause
// The kernel-differential fuzzer's counters and summary.md.
#include "kernel_diff/summary.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "kernel_diff/finding_file.hpp"

namespace strbpf::fuzz::kdiff {
namespace {

std::string pct(uint64_t n, uint64_t d) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f%%", d ? 100.0 * double(n) / double(d) : 0.0);
    return b;
}

std::string cell(const std::string& s) {
    std::string o;
    for (char c : s)
        o += c == '|' ? '/' : c;
    return o.empty() ? "(none)" : o;
}

template <class Map> std::vector<std::pair<uint64_t, std::string>> by_count(const Map& m) {
    std::vector<std::pair<uint64_t, std::string>> v;
    for (const auto& [k, n] : m)
        v.emplace_back(n, k);
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first
                                                                                               : a.second < b.second; });
    return v;
}

} // namespace

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return b;
}

Stats::Stats(std::string command) : command_(std::move(command)), started_utc_(utc_now()), start_(Clock::now()) {}

double Stats::elapsed_hours() const {
    return std::chrono::duration<double>(Clock::now() - start_).count() / 3600.0;
}

uint64_t Stats::add(loader::ProgType type, Class c, const Judged& j) {
    execs_++;
    by_class_[int(c)]++;
    const size_t hour = size_t(elapsed_hours());
    if (hours_.size() <= hour)
        hours_.resize(hour + 1);
    Hour& h = hours_[hour];
    h.execs++;
    h.s += c == Class::strbpf_only;
    h.k += c == Class::kernel_only;
    h.no_verdict += c == Class::no_verdict;
    PerType& t = per_type_[type_name(type)];
    t.execs++;
    t.kernel_accepts += j.kernel.outcome == Outcome::accept;
    t.strbpf_accepts += j.strbpf_ok;
    t.disagreements += c == Class::strbpf_only || c == Class::kernel_only;
    if (c == Class::both_reject) {
        if (j.kernel.reason == j.strbpf_reason)
            reasons_agree_++;
        else
            reason_diffs_[category(j.kernel.reason) + "  →  " + category(j.strbpf_reason)]++;
    }
    if (c == Class::no_verdict)
        no_verdict_[category(j.kernel.reason)]++;
    if (c != Class::strbpf_only && c != Class::kernel_only)
        return 0;
    return ++cats_[{int(c), finding_category(c, j)}].count;
}

void Stats::set_example(Class c, const std::string& cat, const std::string& file) {
    cats_[{int(c), cat}].example = file;
}

void Stats::table(std::string& out, Class c, const char* title, size_t top) const {
    std::vector<std::pair<uint64_t, std::pair<std::string, std::string>>> rows;
    for (const auto& [key, cc] : cats_)
        if (key.first == int(c))
            rows.push_back({cc.count, {key.second, cc.example}});
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    out += std::string("\n## ") + title + "\n\n| count | reason (numbers stripped) | minimised example |\n|---:|---|---|\n";
    for (size_t i = 0; i < rows.size() && i < top; i++)
        out += "| " + std::to_string(rows[i].first) + " | " + cell(rows[i].second.first) + " | " +
               (rows[i].second.second.empty() ? "" : "`" + rows[i].second.second + "`") + " |\n";
    if (rows.size() > top)
        out += "| ... | " + std::to_string(rows.size() - top) + " more categories | |\n";
}

std::string Stats::markdown() const {
    const double hours = elapsed_hours();
    const uint64_t judged = execs_ - by_class_[int(Class::no_verdict)];
    const uint64_t agree = by_class_[int(Class::both_accept)] + by_class_[int(Class::both_reject)];
    const uint64_t s = by_class_[int(Class::strbpf_only)], k = by_class_[int(Class::kernel_only)];
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.1f", hours > 0 ? double(execs_) / (hours * 3600.0) : 0.0);
    char hrs[32];
    std::snprintf(hrs, sizeof hrs, "%.2f", hours);
    std::string o = "# Kernel-differential verifier fuzzer: summary\n\n";
    o += "- command: `" + command_ + "`\n";
    o += "- started " + started_utc_ + ", updated " + utc_now() + " (" + hrs + " h)\n";
    o += "- executions: " + std::to_string(execs_) + " (" + rate + "/s); with a kernel verdict: " +
         std::to_string(judged) + "\n";
    o += "- verdicts agree: " + std::to_string(agree) + " (" + pct(agree, judged) + "): both accept " +
         std::to_string(by_class_[int(Class::both_accept)]) + ", both reject " +
         std::to_string(by_class_[int(Class::both_reject)]) + " (same one-line reason: " +
         std::to_string(reasons_agree_) + ", " + pct(reasons_agree_, by_class_[int(Class::both_reject)]) + ")\n";
    o += "- **S** (strbpf-only accepts): " + std::to_string(s) + " (" + pct(s, judged) + ")\n";
    o += "- **K** (kernel-only accepts): " + std::to_string(k) + " (" + pct(k, judged) + ")\n";
    o += "- no kernel verdict (not compared): " + std::to_string(by_class_[int(Class::no_verdict)]) + "\n";
    o += "\nEach category keeps its first program, minimised, under findings/ (the kernel's and strbpf's answers, the "
         "program disassembled); `strbpf_kernel_diff --recheck FILE` judges one again. The title names the program "
         "(`--seed S --start N --execs 1` regenerates it unminimised).\n";
    o += "\n## Per program type\n\n| type | executions | kernel accepts | strbpf accepts | disagreements |\n"
         "|---|---:|---:|---:|---:|\n";
    for (const auto& [t, n] : per_type_)
        o += "| " + t + " | " + std::to_string(n.execs) + " | " + std::to_string(n.kernel_accepts) + " (" +
             pct(n.kernel_accepts, n.execs) + ") | " + std::to_string(n.strbpf_accepts) + " (" +
             pct(n.strbpf_accepts, n.execs) + ") | " + std::to_string(n.disagreements) + " (" +
             pct(n.disagreements, n.execs) + ") |\n";
    o += "\n## Per hour\n\n| hour | executions | S | K | disagreement |\n|---:|---:|---:|---:|---:|\n";
    for (size_t i = 0; i < hours_.size(); i++) {
        const Hour& h = hours_[i];
        o += "| " + std::to_string(i) + " | " + std::to_string(h.execs) + " | " + std::to_string(h.s) + " | " +
             std::to_string(h.k) + " | " + pct(h.s + h.k, h.execs - h.no_verdict) + " |\n";
    }
    table(o, Class::strbpf_only, "S: strbpf accepts, the kernel rejects (by the kernel's reason)", 25);
    table(o, Class::kernel_only, "K: the kernel accepts, strbpf rejects (by strbpf's reason)", 25);
    o += "\n## Both reject, different one-line reasons (kernel → strbpf)\n\n| count | reasons |\n|---:|---|\n";
    const auto diffs = by_count(reason_diffs_);
    for (size_t i = 0; i < diffs.size() && i < 25; i++)
        o += "| " + std::to_string(diffs[i].first) + " | " + cell(diffs[i].second) + " |\n";
    if (!no_verdict_.empty()) {
        o += "\n## No kernel verdict\n\n| count | why |\n|---:|---|\n";
        for (const auto& [n, why] : by_count(no_verdict_))
            o += "| " + std::to_string(n) + " | " + cell(why) + " |\n";
    }
    return o;
}

} // namespace strbpf::fuzz::kdiff
