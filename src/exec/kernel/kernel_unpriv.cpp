// SPDX-License-Identifier: BSD-2-Clause
// test_loader's unprivileged mode on the kernel engine (exec stage): the load happens in a child process with
// CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_PERFMON and CAP_BPF dropped from its effective set; the result comes back as
// one JSON object over a pipe.
#include "exec/kernel/kernel_engine.hpp"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include <nlohmann/json.hpp>

#include "exec/kernel/libbpf_capture.hpp"

namespace strbpf::exec::kernel {
namespace {

constexpr uint64_t kCapsToDrop = (1ull << CAP_SYS_ADMIN) | (1ull << CAP_NET_ADMIN) | (1ull << 38 /* CAP_PERFMON */) |
                                 (1ull << 39 /* CAP_BPF */);

// Reads the effective set into *eff, or sets it from *eff when SET.
bool effective_caps(uint64_t* eff, bool set) {
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capget, &hdr, data) != 0)
        return false;
    if (!set) {
        *eff = uint64_t(data[0].effective) | uint64_t(data[1].effective) << 32;
        return true;
    }
    data[0].effective = static_cast<uint32_t>(*eff);
    data[1].effective = static_cast<uint32_t>(*eff >> 32);
    return syscall(SYS_capset, &hdr, data) == 0;
}

nlohmann::json to_json(const RunReport& r, const RunDetails& d) {
    return {{"loaded", r.loaded}, {"ran", r.ran},          {"error", r.error},
            {"retval", r.retval}, {"log", d.log},          {"unsupported", d.unsupported}};
}

void write_all(int fd, const std::string& s) {
    size_t done = 0;
    while (done < s.size()) {
        ssize_t n = write(fd, s.data() + done, s.size() - done);
        if (n <= 0 && errno != EINTR)
            return;
        if (n > 0)
            done += size_t(n);
    }
}

// The child: drop, load, restore (test_loader restores capabilities before the test run), run, report.
[[noreturn]] void child(int fd, const std::string& obj_path, const std::string& prog, const RunRequest& req,
                        LoadOptions opts, bool execute, uint64_t keep_caps) {
    RunReport r;
    RunDetails d;
    uint64_t old = 0;
    if (!effective_caps(&old, false)) {
        r.error = "capget failed: " + errno_text(errno);
    } else {
        uint64_t reduced = (old & ~kCapsToDrop) | keep_caps;
        if (!effective_caps(&reduced, true)) {
            r.error = "failed to drop capabilities: " + errno_text(errno);
        } else {
            opts.unpriv = true;
            std::unique_ptr<KernelObject> ko = KernelObject::load(obj_path, prog, req.globals, opts);
            effective_caps(&old, true);
            if (execute) {
                r = ko->run(req);
            } else {
                r.loaded = ko->loaded();
                r.error = ko->error();
            }
            d = ko->details();
        }
    }
    write_all(fd, to_json(r, d).dump());
    close(fd);
    _exit(0);
}

} // namespace

int unprivileged_bpf_disabled() {
    std::ifstream in("/proc/sys/kernel/unprivileged_bpf_disabled");
    int v = -1;
    if (!(in >> v))
        return -1;
    return v;
}

bool kernel_jit_enabled() {
    std::ifstream in("/proc/sys/net/core/bpf_jit_enable");
    int v = 0;
    return (in >> v) && v != 0;
}

RunReport run_test_unprivileged(const std::string& obj_path, const std::string& prog, const RunRequest& req,
                                const LoadOptions& opts, bool execute, uint64_t keep_caps, RunDetails* details) {
    RunReport report;
    report.prog = prog;
    int fds[2];
    if (pipe(fds) != 0) {
        report.error = "pipe failed: " + errno_text(errno);
        return report;
    }
    pid_t pid = fork();
    if (pid < 0) {
        report.error = "fork failed: " + errno_text(errno);
        close(fds[0]);
        close(fds[1]);
        return report;
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], obj_path, prog, req, opts, execute, keep_caps);
    }
    close(fds[1]);
    std::string text;
    char buf[65536];
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        text.append(buf, size_t(n));
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        report.error = "the unprivileged child died (status " + std::to_string(status) + ")";
        return report;
    }
    report.loaded = j.value("loaded", false);
    report.ran = j.value("ran", false);
    report.error = j.value("error", "");
    report.retval = j.value("retval", 0u);
    report.r0 = report.retval;
    if (details) {
        details->log = j.value("log", "");
        details->unsupported = j.value("unsupported", false);
    }
    return report;
}

} // namespace strbpf::exec::kernel
