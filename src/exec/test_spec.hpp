// The kernel selftests' test annotations (exec stage): __success, __failure, __msg, __regex, __retval, ... read
// from an object's BTF decl tags the way tools/testing/selftests/bpf/test_loader.c reads them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "strbpf/result.hpp"

namespace strbpf::exec {

// One expected-log pattern, in source order. msg: a substring, or, when it contains "{{...}}", verbatim text with
// POSIX extended regexes inside the braces (newer kernels); regex: a whole POSIX extended regex (__regex);
// not_msg: must not appear between the neighbouring positive matches (__not_msg).
enum class ExpectKind { msg, regex, not_msg };
struct Expect {
    ExpectKind kind = ExpectKind::msg;
    std::string text;
};

struct TestSpec {
    std::string prog;
    std::string description;
    bool expect_success = true;       // __failure sets false
    bool has_expect = false;          // __success or __failure given
    std::vector<std::string> msgs;    // __msg texts (counter prefix stripped)
    std::vector<std::string> regexes; // __regex texts
    std::vector<Expect> expects;      // every msg, regex and not_msg in order: what match_messages walks
    std::optional<uint32_t> retval;   // __retval, as the low 32 bits BPF_PROG_TEST_RUN reports
    int log_level = 0;                // __log_level
    bool auxiliary = false;           // __auxiliary: loaded by other tests, not a test itself
    // Every other "comment:..." tag, e.g. {"test_expect_msg_unpriv", "..."}, {"test_flags", "..."}.
    std::vector<std::pair<std::string, std::string>> other_tags;
};

// Specs of the programs that carry at least one test tag, in ELF order. Errors: no BTF, an unparsable __retval
// or __log_level (naming the program and the text).
Result<std::vector<TestSpec>> parse_test_specs(const std::string& obj_path);

// Parses a __retval value as test_loader does: decimal, 0x hex, negative, INT_MIN/_INT_MIN, POINTER_VALUE,
// TEST_DATA_LEN; integer suffixes (u, l, ll) and outer parentheses are tolerated. False when unparsable.
bool parse_retval(const std::string& text, uint32_t* out);

// Checks a verifier log (or a one-line error) against spec.expects in order, like test_loader: each positive
// pattern must match after the end of the previous match. Returns "" on success, else what was missing.
std::string match_messages(const TestSpec& spec, const std::string& log);

} // namespace strbpf::exec
