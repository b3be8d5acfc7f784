// SPDX-License-Identifier: BSD-2-Clause
// `strbpf test`'s runner (tools stage): one kernel test_loader subtest — a program's privileged or unprivileged
// mode — on one engine, judged by test_loader's rules; what it finds is a TestResult (printed by test_report).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/engine.hpp"
#include "exec/test_spec.hpp"
#include "map_input.hpp"
#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"

namespace strbpf::cli {

enum class Outcome { pass, fail, skip };

struct TestResult {
    std::string object;  // file name without ".bpf.o" / ".o"
    std::string prog;    // ELF program name
    std::string test;    // test_loader's name: __description or the program name, + " @unpriv"
    bool unpriv = false; // variant
    exec::EngineKind engine = exec::EngineKind::interp;
    Outcome result = Outcome::pass;
    bool expect_failure = false;
    std::optional<bool> accepted; // the verdict; none when nothing was loaded
    std::string error;            // one-line rejection reason or load error
    std::optional<std::string> messages; // "ok" / "missing: <pattern>" / "unexpected: <pattern>"; none: no patterns
    std::optional<uint32_t> retval;          // what the run returned
    std::optional<uint32_t> expected_retval; // none when not run or not compared (POINTER_VALUE)
    std::string reason;                      // why FAIL or SKIP
    uint32_t flags = 0;
    int log_level = 0;
    std::string log; // the verifier log the patterns were matched against
};

// One object as the runner sees it: every program's spec, and strbpf's loader's view (or why it has none).
struct TestObject {
    std::string path;
    std::string name;
    std::vector<exec::TestSpec> specs;
    std::shared_ptr<const loader::ObjectSpec> spec; // null: strbpf's loader refused the object
    std::string load_error;
    std::vector<runtime::GlobalPatch> globals; // --set: written before every load of the object
    std::vector<MapInput> maps;                // --map-in: written into the maps after each load, before the run
};

struct RunnerOptions {
    std::vector<exec::EngineKind> engines;
    int min_log_level = 0; // -v raises the log level to 1, as test_progs -v does
};

// Every subtest of spec index I of OBJ (priv, then unpriv, each on every engine); none for auxiliary programs.
std::vector<TestResult> run_program_tests(const TestObject& obj, size_t i, const RunnerOptions& opts);

} // namespace strbpf::cli
