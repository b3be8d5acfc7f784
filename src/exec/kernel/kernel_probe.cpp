// SPDX-License-Identifier: BSD-2-Clause
// What the running kernel offers (exec stage, kernel engine): whether bpf() works, its release, its BTF FUNCs;
// plus libbpf's print routing, program listing and the verifier log's one-line reason.
// Project headers first: linux/bpf.h (via libbpf) defines BPF_* macros that clash with isa/insn.hpp names.
#include "exec/kernel/kernel_engine.hpp"
#include "exec/kernel/libbpf_capture.hpp"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <linux/bpf.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <unordered_set>

namespace strbpf::exec::kernel {
namespace {

std::atomic<bool> g_verbose{false};
thread_local std::string* t_capture = nullptr;

int print_fn(enum libbpf_print_level level, const char* fmt, va_list args) {
    if (t_capture && level != LIBBPF_DEBUG) { // warnings and info: what went wrong, not the chatter
        char buf[1024];
        va_list copy;
        va_copy(copy, args);
        int n = std::vsnprintf(buf, sizeof(buf), fmt, copy);
        va_end(copy);
        if (n > 0)
            t_capture->append(buf, std::min<size_t>(static_cast<size_t>(n), sizeof(buf) - 1));
    }
    if (g_verbose.load(std::memory_order_relaxed) && level != LIBBPF_DEBUG)
        return std::vfprintf(stderr, fmt, args);
    return 0;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.pop_back();
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return s.substr(i);
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(trim(line));
    return lines;
}

// Lines the verifier adds after its verdict: statistics, not reasons.
// Lines after the reason that are not it: statistics, and the two states "infinite loop detected" prints.
bool is_stats_line(const std::string& l) {
    return l.empty() || starts_with(l, "processed ") || starts_with(l, "verification time") ||
           starts_with(l, "stack depth") || starts_with(l, "func#") || starts_with(l, "-- ") ||
           starts_with(l, "cur state:") || starts_with(l, "old state:");
}

struct KernelFuncs {
    std::unordered_set<std::string> names;
};

void add_btf_funcs(const struct btf* btf, uint32_t first, KernelFuncs* out) {
    uint32_t n = btf__type_cnt(btf);
    for (uint32_t id = first; id < n; id++) {
        const struct btf_type* t = btf__type_by_id(btf, id);
        if (t && btf_is_func(t))
            out->names.insert(btf__name_by_offset(btf, t->name_off));
    }
}

const KernelFuncs& kernel_funcs() {
    static const KernelFuncs funcs = [] {
        KernelFuncs out;
        LibbpfCapture quiet;
        struct btf* vmlinux = btf__parse("/sys/kernel/btf/vmlinux", nullptr);
        if (!vmlinux)
            return out;
        add_btf_funcs(vmlinux, 1, &out);
        if (DIR* dir = opendir("/sys/kernel/btf")) {
            while (struct dirent* e = readdir(dir)) {
                std::string name = e->d_name;
                if (name == "." || name == ".." || name == "vmlinux")
                    continue;
                struct btf* mod = btf__parse_split(("/sys/kernel/btf/" + name).c_str(), vmlinux);
                if (!mod)
                    continue;
                add_btf_funcs(mod, btf__type_cnt(vmlinux), &out);
                btf__free(mod);
            }
            closedir(dir);
        }
        btf__free(vmlinux);
        return out;
    }();
    return funcs;
}

Status probe() {
    // r0 = 0; exit: the smallest program every kernel with bpf() accepts.
    struct bpf_insn insns[2] = {};
    insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
    insns[1].code = BPF_JMP | BPF_EXIT;
    LibbpfCapture quiet;
    int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "strbpf_probe", "GPL", insns, 2, nullptr);
    if (fd < 0) {
        int err = errno;
        return make_error("the kernel engine needs bpf(): BPF_PROG_LOAD failed: " + errno_text(err) +
                              (err == EPERM || err == EACCES ? " (run as root / CAP_BPF)" : ""),
                          -err);
    }
    uint8_t data[64] = {};
    LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = data, .data_size_in = sizeof(data), .repeat = 1);
    int rc = bpf_prog_test_run_opts(fd, &opts);
    int err = errno;
    ::close(fd);
    if (rc != 0)
        return make_error("the kernel engine needs BPF_PROG_TEST_RUN: it failed: " + errno_text(err), -err);
    return ok_status();
}

} // namespace

LibbpfCapture::LibbpfCapture() {
    libbpf_set_print(print_fn); // every time: another part of the process may have installed its own
    saved_ = t_capture;
    t_capture = &text_;
}

LibbpfCapture::~LibbpfCapture() { t_capture = saved_; }

std::string LibbpfCapture::first_error() const {
    for (std::string line : split_lines(text_)) {
        if (starts_with(line, "libbpf: "))
            line = line.substr(8);
        if (starts_with(line, "prog '")) {
            size_t q = line.find("': ");
            if (q != std::string::npos)
                line = line.substr(q + 3);
        }
        if (line.empty() || starts_with(line, "-- ") || starts_with(line, "elf: skipping") ||
            line.find("failed to load object") != std::string::npos)
            continue;
        return line;
    }
    return "";
}

std::string errno_text(int err) {
    char buf[128];
    return strerror_r(err, buf, sizeof(buf));
}

void set_verbose(bool verbose) { g_verbose.store(verbose); }

Status available() {
    static const Status status = probe();
    return status;
}

const std::string& kernel_release() {
    static const std::string release = [] {
        struct utsname u;
        if (uname(&u) != 0)
            return std::string("unknown");
        std::string r = u.release; // "6.18.44-fc-v669": keep major.minor
        size_t dot = r.find('.');
        size_t end = dot == std::string::npos ? std::string::npos : r.find_first_not_of("0123456789", dot + 1);
        return r.substr(0, end);
    }();
    return release;
}

bool kernel_has_function(const std::string& name) { return kernel_funcs().names.count(name) != 0; }

std::vector<std::string> program_names(const std::string& obj_path, std::string* error) {
    std::vector<std::string> names;
    LibbpfCapture quiet;
    struct bpf_object* obj = bpf_object__open_file(obj_path.c_str(), nullptr);
    if (!obj) {
        const int err = errno;
        if (error) {
            const std::string why = quiet.first_error();
            *error = fmt::format("libbpf cannot open {}: {}", obj_path, why.empty() ? errno_text(err) : why);
        }
        return names;
    }
    struct bpf_program* prog;
    bpf_object__for_each_program(prog, obj) names.push_back(bpf_program__name(prog));
    bpf_object__close(obj);
    if (names.empty() && error)
        *error = fmt::format("libbpf finds no programs in {}", obj_path);
    return names;
}

std::string verifier_reason(const std::string& log) {
    std::vector<std::string> lines = split_lines(log);
    size_t end = lines.size();
    for (size_t i = lines.size(); i-- > 0;) {
        if (starts_with(lines[i], "processed ") && lines[i].find(" insns") != std::string::npos) {
            end = i;
            break;
        }
    }
    for (size_t i = end; i-- > 0;) {
        if (!is_stats_line(lines[i]))
            return lines[i];
    }
    return "";
}

} // namespace strbpf::exec::kernel
