// SPDX-License-Identifier: BSD-2-Clause
// The kernel selftests' test annotations (exec stage): __success, __failure, __msg, __retval, __flag, ... read
// from an object's BTF decl tags by the rules of tools/testing/selftests/bpf/test_loader.c (Linux 6.12 to 6.18).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "strbpf/result.hpp"

namespace strbpf::exec {

// One expected-log pattern, in source order. msg: a substring, or, when it contains "{{...}}", verbatim text with
// POSIX extended regexes inside the braces; regex: a whole POSIX extended regex (strbpf's __regex, the form of
// Linux 6.9/6.10); not_msg: must not appear between the neighbouring positive matches (__not_msg).
enum class ExpectKind { msg, regex, not_msg };
struct Expect {
    ExpectKind kind = ExpectKind::msg;
    std::string text;
};

// BPF_PROG_LOAD prog_flags by name, as __flag(...) spells them (include/uapi/linux/bpf.h values).
inline constexpr uint32_t kBpfFStrictAlignment = 1u << 0, kBpfFAnyAlignment = 1u << 1, kBpfFTestRndHi32 = 1u << 2,
                          kBpfFTestStateFreq = 1u << 3, kBpfFSleepable = 1u << 4, kBpfFXdpHasFrags = 1u << 5,
                          kBpfFXdpDevBoundOnly = 1u << 6, kBpfFTestRegInvariants = 1u << 7;
// What test_loader starts every program with (testing_prog_flags() on kernels that know both).
inline constexpr uint32_t kDefaultProgFlags = kBpfFTestRndHi32 | kBpfFTestRegInvariants;
// "BPF_F_STRICT_ALIGNMENT|BPF_F_TEST_RND_HI32", or "0x100" for bits without a name; "0" for none.
std::string prog_flags_text(uint32_t flags);

// test_loader's modes: a program is tested privileged, unprivileged (capabilities dropped), or both.
inline constexpr int kModePriv = 1, kModeUnpriv = 2;
// __arch_* masks; a test without one runs on every architecture.
inline constexpr uint32_t kArchX86_64 = 0x2, kArchArm64 = 0x4, kArchRiscv64 = 0x8, kArchS390x = 0x10,
                          kArchLoongarch = 0x20;
uint32_t current_arch();
// __load_if_JITed / __load_if_no_JITed (load_mode=jited|no_jited); without one the test runs either way.
inline constexpr int kLoadJited = 1, kLoadNoJited = 2;

// What one mode of a test expects (test_loader's test_subspec). The unprivileged one inherits the privileged
// one's result, retval and patterns unless it has its own.
struct SubSpec {
    std::string name;                  // the test's name: __description or the program name (+ " @unpriv")
    bool expect_failure = false;       // __failure / __failure_unpriv
    std::vector<Expect> expects;       // __msg / __not_msg / __regex patterns, matched against the verifier log
    std::vector<std::string> xlated;   // __xlated patterns ("..." kept): strbpf cannot judge them yet
    std::vector<std::string> jited;    // __jited patterns for this architecture: strbpf cannot judge them yet
    std::optional<uint32_t> retval;    // __retval: the program is test-run (only when it is given)
    bool retval_any = false;           // __retval(POINTER_VALUE): run, but the value is not compared
    uint64_t caps = 0;                 // __caps_unpriv: capabilities kept in the unprivileged run
};

struct TestSpec {
    std::string prog;           // ELF program name
    std::string description;    // __description, "" when absent
    bool tagged = false;        // the program carries at least one "comment:" tag
    std::string error;          // the spec cannot be parsed (test_loader fails the test): why
    int mode_mask = kModePriv;  // which of priv/unpriv are tests
    SubSpec priv, unpriv;
    uint32_t prog_flags = kDefaultProgFlags; // after every __flag(...) (a "!" prefix clears)
    int log_level = 0;                       // __log_level
    uint32_t arch_mask = ~0u;                // __arch_*
    int load_mask = kLoadJited | kLoadNoJited;
    std::string btf_path;                    // __btf_path
    bool auxiliary = false;                  // __auxiliary(_unpriv): loaded with other tests, not a test itself
    int aux_mode_mask = 0;                   // which modes load it as an auxiliary
    // Tags test_loader knows that strbpf's runner does not judge (e.g. "test_expect_stderr"): such tests SKIP.
    std::vector<std::string> unsupported;
    // Every other "comment:..." tag, e.g. strbpf's own {"strbpf_data_hex", "..."}.
    std::vector<std::pair<std::string, std::string>> other_tags;

    // The privileged view, as earlier callers read it.
    bool expect_success = true;       // !priv.expect_failure
    bool has_expect = false;          // __success or __failure given
    std::vector<std::string> msgs;    // __msg texts (counter prefix stripped)
    std::vector<std::string> regexes; // __regex texts
    std::vector<Expect> expects;      // priv.expects: what match_messages(spec, log) walks
    std::optional<uint32_t> retval;   // priv.retval
};

// One spec per program of the object, in ELF order, as test_loader makes one for every program (untagged ones
// are success tests). A spec test_loader could not parse has `error` set. Errors: no BTF.
Result<std::vector<TestSpec>> parse_test_specs(const std::string& obj_path);

// Parses a __retval value as test_loader does: decimal, 0x hex, negative, INT_MIN/_INT_MIN, POINTER_VALUE,
// TEST_DATA_LEN; integer suffixes (u, l, ll) and outer parentheses are tolerated. False when unparsable.
bool parse_retval(const std::string& text, uint32_t* out);

// Checks a verifier log against patterns in order, like test_loader's validate_msgs: each positive pattern must
// match after the end of the previous match; a negative one must not occur between its positive neighbours.
// Returns "" on success, else what was missing or unexpected.
std::string match_messages(const std::vector<Expect>& expects, const std::string& log);
// The same with the failing pattern: failure "" when every pattern holds.
struct MessageCheck {
    std::string failure;     // match_messages' text
    std::string pattern;     // the first pattern that failed
    bool unexpected = false; // it is a __not_msg that matched
};
MessageCheck check_messages(const std::vector<Expect>& expects, const std::string& log);
std::string match_messages(const TestSpec& spec, const std::string& log);

} // namespace strbpf::exec
