// SPDX-License-Identifier: BSD-2-Clause
// `strbpf test`'s output (tools stage): a human line per result (PASS/FAIL/SKIP, with -v the verifier log of
// failures), or one JSON object per line with --json; then the closing counts line.
#pragma once
#include <cstdio>
#include <string>

#include "test_runner.hpp"

namespace strbpf::cli {

struct Totals {
    int passed = 0, failed = 0, skipped = 0;
    void add(const TestResult& r);
    std::string line() const; // "N passed, N failed, N skipped"
};

void print_human(std::FILE* out, const TestResult& r, bool verbose);
// One JSON Lines record (the schema in docs/testing.md); "log" only when VERBOSE.
std::string json_line(const TestResult& r, bool verbose);

} // namespace strbpf::cli
