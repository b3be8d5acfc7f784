// SPDX-License-Identifier: BSD-2-Clause
// `strbpf test`'s output (tools stage): human lines and the JSON Lines records of TestResult.
#include "test_report.hpp"

#include <nlohmann/json.hpp>

namespace strbpf::cli {
namespace {

const char* outcome_name(Outcome o) { return o == Outcome::pass ? "PASS" : o == Outcome::fail ? "FAIL" : "SKIP"; }

template <typename T> nlohmann::json or_null(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

} // namespace

void Totals::add(const TestResult& r) {
    (r.result == Outcome::pass ? passed : r.result == Outcome::fail ? failed : skipped)++;
}

std::string Totals::line() const {
    return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed, " + std::to_string(skipped) +
           " skipped";
}

void print_human(std::FILE* out, const TestResult& r, bool verbose) {
    std::fprintf(out, "%s  %s/%s [%s]%s%s\n", outcome_name(r.result), r.object.c_str(), r.test.c_str(),
                 exec::engine_name(r.engine), r.reason.empty() ? "" : ": ", r.reason.c_str());
    if (verbose && r.result == Outcome::fail)
        std::fprintf(out, "VERIFIER LOG:\n=============\n%s%s=============\n", r.log.c_str(),
                     r.log.empty() || r.log.back() == '\n' ? "" : "\n");
}

std::string json_line(const TestResult& r, bool verbose) {
    nlohmann::ordered_json j;
    j["object"] = r.object;
    j["prog"] = r.prog;
    j["test"] = r.test;
    j["variant"] = r.unpriv ? "unpriv" : "priv";
    j["engine"] = exec::engine_name(r.engine);
    j["result"] = outcome_name(r.result);
    j["expected"] = r.expect_failure ? "failure" : "success";
    j["verdict"] = r.accepted ? nlohmann::json(*r.accepted ? "accepted" : "rejected") : nlohmann::json(nullptr);
    j["error"] = r.error;
    j["messages"] = or_null(r.messages);
    j["retval"] = or_null(r.retval);
    j["expected_retval"] = or_null(r.expected_retval);
    j["reason"] = r.reason;
    j["flags"] = r.flags;
    j["log_level"] = r.log_level;
    if (verbose)
        j["log"] = r.log;
    // Logs and messages may hold any byte: replace invalid UTF-8 rather than fail.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace strbpf::cli
