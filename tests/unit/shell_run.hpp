// SPDX-License-Identifier: BSD-2-Clause
// Running the strbpf CLI from unit tests (tests): a shell command's exit status and stdout, with stderr kept
// apart in a temporary file or merged into stdout. Shared by the CLI, bench and conformance-plugin tests.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace strbpf::testing_support {

struct ShellOut {
    int rc = -1;     // the exit status; -1 when the command could not run or was killed
    std::string out; // stdout (and stderr when merged)
    std::string err; // stderr when kept apart
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs `cmd` through the shell (it must be shell-safe; redirections of stdin may be part of it).
inline ShellOut run_shell(const std::string& cmd, bool merge_stderr = false) {
    std::string tmpl = ::testing::TempDir() + "/strbpf_stderr_XXXXXX";
    const int fd = mkstemp(tmpl.data());
    if (fd >= 0)
        close(fd);
    ShellOut o;
    FILE* p = popen((cmd + (merge_stderr ? " 2>&1" : " 2>" + tmpl)).c_str(), "r");
    if (p) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0)
            o.out.append(buf, n);
        const int st = pclose(p);
        o.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (!merge_stderr)
            o.err = slurp(tmpl);
    }
    unlink(tmpl.c_str());
    return o;
}

} // namespace strbpf::testing_support
