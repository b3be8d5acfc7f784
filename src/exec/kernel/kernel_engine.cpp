// SPDX-License-Identifier: BSD-2-Clause
// Loads one program of a BPF object into the running kernel with libbpf and runs it with BPF_PROG_TEST_RUN
// (exec stage, kernel engine). One KernelObject owns one bpf_object; run() wraps it for single runs.

// Project headers first: linux/bpf.h (via libbpf) defines BPF_* macros that clash with isa/insn.hpp names.
#include "exec/kernel/kernel_engine.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <iterator>
#include <string_view>

#include <fmt/format.h>

#include "exec/contexts.hpp"
#include "exec/kernel/elf_kfuncs.hpp"
#include "exec/kernel/libbpf_capture.hpp"

namespace strbpf::exec::kernel {
namespace {

constexpr size_t kLogSize = 4u << 20; // the verifier rotates its log: a failed load keeps the tail
constexpr size_t kDefaultPacket = 64; // TEST_DATA_LEN: what the kernel's test_loader passes (exec/contexts.hpp)
constexpr size_t kOutSlack = 8192;    // room for programs that grow the packet (an xdp tail: linear and last frag)
constexpr size_t kCtxOutRoom = 256;   // at least the program type's ctx struct: the kernel copies all of it back
constexpr int kENOTSUPP = 524;        // kernel-internal "operation not supported", not in userspace errno

std::string run_error(int err, uint32_t type) {
    std::string text = err == kENOTSUPP ? "not supported" : errno_text(err);
    const char* name = libbpf_bpf_prog_type_str(static_cast<enum bpf_prog_type>(type));
    std::string msg = "BPF_PROG_TEST_RUN failed: " + text;
    if (err == kENOTSUPP || err == EINVAL)
        msg += std::string(" (program type ") + (name ? name : "?") + ")";
    return msg;
}

bool is_packet_type(uint32_t type) {
    switch (type) {
    case BPF_PROG_TYPE_SOCKET_FILTER:
    case BPF_PROG_TYPE_SCHED_CLS:
    case BPF_PROG_TYPE_SCHED_ACT:
    case BPF_PROG_TYPE_XDP:
    case BPF_PROG_TYPE_CGROUP_SKB:
    case BPF_PROG_TYPE_LWT_IN:
    case BPF_PROG_TYPE_LWT_OUT:
    case BPF_PROG_TYPE_LWT_XMIT:
    case BPF_PROG_TYPE_LWT_SEG6LOCAL:
    case BPF_PROG_TYPE_FLOW_DISSECTOR:
        return true;
    default:
        return false;
    }
}

// libbpf names global-data maps "<obj prefix>.data" (".rodata", ".bss"), or the section name itself (at most 15
// characters) for custom ".data.foo" sections.
bool map_matches(const std::string& name, std::string section) {
    if (!section.empty() && section[0] != '.')
        section = "." + section;
    if (name == section || (section.size() > 15 && name == section.substr(0, 15)))
        return true;
    return name.size() > section.size() && name.compare(name.size() - section.size(), std::string::npos, section) == 0;
}

std::string obj_name_of(const std::string& path) {
    std::string base = path.substr(path.find_last_of('/') + 1);
    return base.substr(0, base.find('.'));
}

// test_loader's is_unpriv_capable_map: the map types an unprivileged loader may create.
bool unpriv_capable_map(const struct bpf_map* m) {
    switch (bpf_map__type(m)) {
    case BPF_MAP_TYPE_HASH:
    case BPF_MAP_TYPE_PERCPU_HASH:
    case BPF_MAP_TYPE_HASH_OF_MAPS: return !(bpf_map__map_flags(m) & BPF_F_ZERO_SEED);
    case BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE:
    case BPF_MAP_TYPE_ARRAY:
    case BPF_MAP_TYPE_RINGBUF:
    case BPF_MAP_TYPE_PROG_ARRAY:
    case BPF_MAP_TYPE_CGROUP_ARRAY:
    case BPF_MAP_TYPE_PERCPU_ARRAY:
    case BPF_MAP_TYPE_USER_RINGBUF:
    case BPF_MAP_TYPE_ARRAY_OF_MAPS:
    case BPF_MAP_TYPE_CGROUP_STORAGE:
    case BPF_MAP_TYPE_PERF_EVENT_ARRAY: return true;
    default: return false;
    }
}

bool same_globals(const std::vector<runtime::GlobalPatch>& a, const std::vector<runtime::GlobalPatch>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
        return x.map == y.map && x.offset == y.offset && x.bytes == y.bytes;
    });
}

} // namespace

std::unique_ptr<KernelObject> KernelObject::load(const std::string& obj_path, const std::string& prog,
                                                 const std::vector<runtime::GlobalPatch>& globals,
                                                 const LoadOptions& opts) {
    std::unique_ptr<KernelObject> ko(new KernelObject());
    ko->path_ = obj_path;
    ko->prog_name_ = prog;
    ko->opts_ = opts;
    std::ifstream in(obj_path, std::ios::binary);
    if (!in) {
        ko->error_ = "cannot open " + obj_path + ": " + errno_text(errno);
        return ko;
    }
    ko->image_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    auto kfuncs = scan_kfuncs(ko->image_);
    if (!kfuncs.ok()) {
        ko->error_ = obj_path + ": " + kfuncs.error().message;
        return ko;
    }
    auto called = kfuncs->called.find(prog);
    if (called != kfuncs->called.end()) {
        for (const std::string& name : called->second) {
            if (!kernel_has_function(name)) {
                ko->error_ = "kfunc " + name + " is not available in this kernel (Linux " + kernel_release() + ")";
                ko->details_.unsupported = true;
                return ko;
            }
        }
    }
    for (const KfuncExtern& ext : kfuncs->externs)
        if (ext.weak)
            ko->weak_kfuncs_.push_back(ext.name);
    // Other programs' missing kfuncs would fail the whole object in libbpf: weak externs may stay unresolved.
    for (const KfuncExtern& ext : kfuncs->externs) {
        if (!ext.weak && !kernel_has_function(ext.name))
            make_extern_weak(&ko->image_, ext);
    }
    ko->open_and_load(globals);
    return ko;
}

KernelObject::~KernelObject() { close(); }

int KernelObject::map_fd(const std::string& name) const {
    const struct bpf_map* m = obj_ && prog_fd_ >= 0 ? bpf_object__find_map_by_name(obj_, name.c_str()) : nullptr;
    return m ? bpf_map__fd(m) : -1;
}

void KernelObject::close() {
    if (link_)
        bpf_link__destroy(link_);
    link_ = nullptr;
    if (obj_)
        bpf_object__close(obj_);
    for (auto& [addr, size] : arena_maps_)
        munmap(addr, size);
    arena_maps_.clear();
    obj_ = nullptr;
    prog_ = nullptr;
    prog_fd_ = -1;
    maps_.clear();
}

// libbpf 1.4's bpf_object__create_maps for BPF_MAP_TYPE_ARENA (33): the map, then its mmap of max_entries pages at
// map_extra (when set), and the map handed to libbpf. MAP_FIXED_NOREPLACE where libbpf passes MAP_FIXED: an address
// in use (another arena of this process) is refused, not overwritten.
Status KernelObject::create_arenas() {
    constexpr uint32_t kMapArena = 33;
    struct bpf_map* m;
    bpf_object__for_each_map(m, obj_) {
        if (bpf_map__type(m) != kMapArena || !bpf_map__autocreate(m))
            continue;
        LIBBPF_OPTS(bpf_map_create_opts, co, .map_flags = bpf_map__map_flags(m), .map_extra = bpf_map__map_extra(m));
        const int fd = bpf_map_create(static_cast<bpf_map_type>(kMapArena), bpf_map__name(m), 0, 0,
                                      bpf_map__max_entries(m), &co);
        if (fd < 0 && (errno == EPERM || errno == EOPNOTSUPP)) // a kernel that refuses arenas (a host fact)
            return make_error(fmt::format("this kernel refuses BPF_MAP_TYPE_ARENA maps (map '{}': "
                                          "BPF_MAP_CREATE: {})", bpf_map__name(m), errno_text(errno)),
                              -EOPNOTSUPP);
        if (fd < 0)
            return make_error(fmt::format("map '{}': failed to create arena: {}", bpf_map__name(m),
                                          errno_text(errno)), -errno);
        const size_t size = size_t(bpf_map__max_entries(m)) * size_t(sysconf(_SC_PAGE_SIZE));
        const uint64_t at = bpf_map__map_extra(m);
        void* p = mmap(reinterpret_cast<void*>(at), size, PROT_READ | PROT_WRITE,
                       MAP_SHARED | (at ? MAP_FIXED_NOREPLACE : 0), fd, 0);
        const int err = p == MAP_FAILED ? errno : 0;
        const int rc = err ? 0 : bpf_map__reuse_fd(m, fd);
        ::close(fd); // libbpf keeps its own copy
        if (err || rc) {
            if (!err)
                munmap(p, size);
            return make_error(fmt::format("map '{}': failed to mmap arena: {}", bpf_map__name(m),
                                          errno_text(err ? err : -rc)), err ? -err : rc);
        }
        arena_maps_.emplace_back(p, size);
    }
    return ok_status();
}

bool KernelObject::open_and_load(const std::vector<runtime::GlobalPatch>& globals) {
    LibbpfCapture capture;
    std::string obj_name = obj_name_of(path_);
    LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = obj_name.c_str());
    if (!opts_.btf_custom_path.empty())
        opts.btf_custom_path = opts_.btf_custom_path.c_str();
    obj_ = bpf_object__open_mem(image_.data(), image_.size(), &opts);
    if (!obj_ && capture.text().find("in section '.addr_space.1'") != std::string::npos) {
        error_ = std::string("the installed libbpf (") + libbpf_version_string() + ") does not know section '.addr_space.1' "
                 "(__arena globals need libbpf 1.4)";
        details_.log = capture.text();
        details_.unsupported = true;
        return false;
    }
    // An older libbpf (Debian's 1.1) knows no `struct_ops.s/` section: a sleepable struct_ops program is "not
    // struct_ops" to it, and the object does not open.
    if (!obj_ && capture.text().find("is not struct_ops BPF program") != std::string::npos &&
        std::string_view(reinterpret_cast<const char*>(image_.data()), image_.size()).find("struct_ops.s/") !=
            std::string_view::npos) {
        error_ = std::string("the installed libbpf (") + libbpf_version_string() +
                 ") does not know section 'struct_ops.s' (sleepable struct_ops programs need a newer libbpf)";
        details_.log = capture.text();
        details_.unsupported = true;
        return false;
    }
    if (!obj_) {
        std::string why = capture.first_error();
        error_ = "libbpf cannot open " + path_ + ": " + (why.empty() ? errno_text(errno) : why);
        details_.log = capture.text();
        return false;
    }
    prog_ = bpf_object__find_program_by_name(obj_, prog_name_.c_str());
    if (!prog_) {
        std::string names;
        struct bpf_program* p;
        bpf_object__for_each_program(p, obj_) names += std::string(names.empty() ? "" : ", ") + bpf_program__name(p);
        error_ = "no program '" + prog_name_ + "' in " + path_ + " (has: " + names + ")";
        close();
        return false;
    }
    struct bpf_program* p;
    bpf_object__for_each_program(p, obj_) {
        const std::string name = bpf_program__name(p);
        const bool aux = std::find(opts_.also_load.begin(), opts_.also_load.end(), name) != opts_.also_load.end();
        bpf_program__set_autoload(p, p == prog_ || aux);
    }
    prog_type_ = bpf_program__type(prog_);
    if (prog_type_ == BPF_PROG_TYPE_UNSPEC) { // the installed libbpf does not know the section: no kernel verdict
        error_ = "prog '" + prog_name_ + "': the installed libbpf (" + libbpf_version_string() +
                 ") does not know section '" + bpf_program__section_name(prog_) + "' (missing BPF prog type)";
        details_.unsupported = true;
        close();
        return false;
    }
    std::unique_ptr<char[]> log(new char[kLogSize]);
    log[0] = '\0';
    // log_level 0 with a buffer: libbpf loads without a log and, only on failure, retries with log_level 1.
    bpf_program__set_log_buf(prog_, log.get(), kLogSize);
    bpf_program__set_log_level(prog_, static_cast<uint32_t>(opts_.log_level));
    bpf_program__set_flags(prog_, bpf_program__flags(prog_) | opts_.prog_flags);
    if (opts_.unpriv) {
        struct bpf_map* m;
        bpf_object__for_each_map(m, obj_) bpf_map__set_autocreate(m, unpriv_capable_map(m));
    }

    struct bpf_map* m;
    bpf_object__for_each_map(m, obj_) {
        size_t size = 0;
        const void* init = bpf_map__is_internal(m) ? bpf_map__initial_value(m, &size) : nullptr;
        if (!init)
            continue;
        const uint8_t* b = static_cast<const uint8_t*>(init);
        maps_.push_back(GlobalMap{
            bpf_map__name(m), {b, b + size}, {b, b + size}, (bpf_map__map_flags(m) & BPF_F_RDONLY_PROG) != 0, m});
    }
    if (Status st = apply_globals_before_load(globals); !st.ok()) {
        error_ = st.error().message;
        close();
        return false;
    }
    if (Status st = create_arenas(); !st.ok()) {
        error_ = st.error().message;
        details_.log = capture.text();
        details_.unsupported = st.error().code == -EOPNOTSUPP;
        close();
        return false;
    }
    int rc = bpf_object__load(obj_);
    if (rc != 0) {
        int err = -rc;
        details_.log = std::string(log.get()) + capture.text();
        if (err == EPERM && log[0] == '\0' && trampoline_program()) {
            // A kernel without BPF trampolines refuses these before its verifier runs: no verdict to compare.
            error_ = "the running kernel loads no programs that attach through a BPF trampoline "
                     "(fentry/fexit/fmod_ret/lsm): BPF_PROG_LOAD fails with Operation not permitted before verifying";
            details_.unsupported = true;
            close();
            return false;
        }
        error_ = verifier_reason(log.get());
        if (error_.empty())
            error_ = capture.first_error();
        if (const std::string weak = incompatible_weak_kfunc(capture.text()); !weak.empty()) {
            error_ = fmt::format("the installed libbpf ({}) refuses the __weak kfunc extern '{}', whose prototype is "
                                 "incompatible with the kernel's; libbpf 1.3 and later leave it unresolved "
                                 "(bpf_ksym_exists() false), as strbpf does",
                                 libbpf_version_string(), weak);
            details_.unsupported = true;
        }
        if (error_.empty())
            error_ = "BPF_PROG_LOAD failed: " + errno_text(err);
        close();
        return false;
    }
    prog_fd_ = bpf_program__fd(prog_);
    applied_ = globals;
    error_.clear();
    details_.log = log.get(); // empty at log_level 0
    return true;
}

Result<std::vector<std::vector<uint8_t>>>
KernelObject::global_values(const std::vector<runtime::GlobalPatch>& globals) const {
    std::vector<std::vector<uint8_t>> values;
    for (const GlobalMap& g : maps_)
        values.push_back(g.initial);
    for (const runtime::GlobalPatch& patch : globals) {
        size_t i = 0;
        while (i < maps_.size() && maps_[i].name != patch.map)
            i++;
        if (i == maps_.size()) // no exact libbpf name: match by section
            i = std::find_if(maps_.begin(), maps_.end(),
                             [&](const GlobalMap& g) { return map_matches(g.name, patch.map); }) -
                maps_.begin();
        if (i == maps_.size()) {
            std::string names;
            for (const GlobalMap& g : maps_)
                names += std::string(names.empty() ? "" : ", ") + g.name;
            return make_error("global patch: no global-data map for '" + patch.map + "' in " + path_ +
                              " (has: " + (names.empty() ? "none" : names) + ")");
        }
        std::vector<uint8_t>& v = values[i];
        if (patch.offset > v.size() || patch.bytes.size() > v.size() - patch.offset)
            return make_error("global patch for " + patch.map + " at offset " + std::to_string(patch.offset) + " (" +
                              std::to_string(patch.bytes.size()) + " bytes) is past the map's end (" +
                              std::to_string(v.size()) + " bytes)");
        std::copy(patch.bytes.begin(), patch.bytes.end(), v.begin() + patch.offset);
    }
    return values;
}

Status KernelObject::apply_globals_before_load(const std::vector<runtime::GlobalPatch>& globals) {
    if (globals.empty())
        return ok_status();
    auto values = global_values(globals);
    if (!values.ok())
        return values.error();
    for (size_t i = 0; i < maps_.size(); i++) {
        if (values.value()[i] == maps_[i].initial)
            continue;
        if (int rc = bpf_map__set_initial_value(maps_[i].map, values.value()[i].data(), values.value()[i].size()))
            return make_error("cannot set the initial value of " + maps_[i].name + ": " + errno_text(-rc), rc);
        maps_[i].current = std::move(values.value()[i]);
    }
    return ok_status();
}

Status KernelObject::update_globals(const std::vector<runtime::GlobalPatch>& globals) {
    auto values = global_values(globals);
    if (!values.ok())
        return values.error();
    bool reload = false;
    for (size_t i = 0; i < maps_.size(); i++)
        reload |= maps_[i].frozen && values.value()[i] != maps_[i].current;
    if (reload) {
        close();
        if (!open_and_load(globals))
            return make_error(error_);
        return ok_status();
    }
    for (size_t i = 0; i < maps_.size(); i++) {
        if (maps_[i].frozen)
            continue;
        const uint32_t key = 0;
        if (bpf_map_update_elem(bpf_map__fd(maps_[i].map), &key, values.value()[i].data(), BPF_ANY) != 0)
            return make_error("cannot update " + maps_[i].name + ": " + errno_text(errno), -errno);
        maps_[i].current = std::move(values.value()[i]);
    }
    applied_ = globals;
    return ok_status();
}

RunReport KernelObject::run(const RunRequest& req) {
    RunReport report;
    report.prog = prog_name_;
    if (loaded() && !same_globals(req.globals, applied_)) {
        if (Status st = update_globals(req.globals); !st.ok()) {
            report.loaded = loaded();
            report.error = st.error().message;
            return report;
        }
    }
    if (!loaded()) {
        report.error = error_;
        return report;
    }
    report.loaded = true;
    if (Status st = check_cookie(loader::ProgType(prog_type_),
                                 loader::AttachType(bpf_program__expected_attach_type(prog_)), req.cookie);
        !st.ok()) {
        report.error = st.error().message;
        return report;
    }
    // Syscall and raw_tp test runs take only a ctx: no data, no ctx_out, no repeat (the kernel answers -EINVAL).
    if (trampoline_program() && prog_type_ == BPF_PROG_TYPE_TRACING)
        run_tracing(req, &report);
    else if (prog_type_ == BPF_PROG_TYPE_SYSCALL || prog_type_ == BPF_PROG_TYPE_RAW_TRACEPOINT)
        run_syscall(req, &report);
    else
        run_packet(req, is_packet_type(prog_type_), &report);
    report.r0 = report.retval;
    return report;
}

// A failed BPF_PROG_TEST_RUN. The kernel cannot test-run some program types (tracepoint, kprobe: -ENOTSUPP):
// that is a skip, not a failure.
void KernelObject::record_run_error(int err, RunReport* report) {
    report->error = run_error(err, prog_type_);
    details_.unsupported = err == kENOTSUPP;
}

// libbpf 1.1 and 1.2 fail the object on "extern (func ksym) 'X': func_proto [L] incompatible with kernel [K]" even
// for a __weak X (1.3+ leave it unresolved): X when that is why this load failed, else "".
std::string KernelObject::incompatible_weak_kfunc(const std::string& libbpf_text) const {
    static const std::string kHead = "extern (func ksym) '", kTail = "': func_proto [";
    for (size_t at = libbpf_text.find(kHead); at != std::string::npos; at = libbpf_text.find(kHead, at + 1)) {
        const size_t name = at + kHead.size(), end = libbpf_text.find(kTail, name);
        if (end == std::string::npos || libbpf_text.find("incompatible with", end) == std::string::npos)
            continue;
        const std::string x = libbpf_text.substr(name, end - name);
        if (std::find(weak_kfuncs_.begin(), weak_kfuncs_.end(), x) != weak_kfuncs_.end())
            return x;
    }
    return {};
}

bool KernelObject::trampoline_program() const {
    if (!prog_)
        return false;
    const enum bpf_prog_type t = bpf_program__type(prog_);
    const enum bpf_attach_type a = bpf_program__expected_attach_type(prog_);
    return t == BPF_PROG_TYPE_LSM ||
           (t == BPF_PROG_TYPE_TRACING && (a == BPF_TRACE_FENTRY || a == BPF_TRACE_FEXIT || a == BPF_MODIFY_RETURN));
}

// fentry/fexit/fmod_ret: the program runs only attached (bpf_prog_test_run_tracing calls the functions it may be
// attached to), so it is attached once, as test_progs attaches a skeleton before its test runs. The kernel reports
// the retval only: no duration, no outputs; data, ctx and repeat are passed as given (it does not look at them).
// The link carries the run's cookie (bpf_get_attach_cookie); a run asking for another cookie re-attaches.
void KernelObject::run_tracing(const RunRequest& req, RunReport* report) {
    if (link_ && link_cookie_ != req.cookie) {
        bpf_link__destroy(link_);
        link_ = nullptr;
    }
    if (!link_) {
        LibbpfCapture capture;
        LIBBPF_OPTS(bpf_trace_opts, topts, .cookie = req.cookie);
        link_ = bpf_program__attach_trace_opts(prog_, &topts);
        link_cookie_ = req.cookie;
        if (!link_) {
            const int err = errno;
            std::string why = capture.first_error();
            report->error = "cannot attach the program: " + (why.empty() ? errno_text(err) : why);
            return;
        }
    }
    LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = static_cast<int>(req.repeat), .flags = req.flags, .cpu = req.cpu);
    if (!req.data_in.empty()) {
        opts.data_in = req.data_in.data();
        opts.data_size_in = static_cast<uint32_t>(req.data_in.size());
    }
    if (!req.ctx_in.empty()) {
        opts.ctx_in = req.ctx_in.data();
        opts.ctx_size_in = static_cast<uint32_t>(req.ctx_in.size());
    }
    if (bpf_prog_test_run_opts(prog_fd_, &opts) != 0) {
        record_run_error(errno, report);
        return;
    }
    report->retval = opts.retval;
    report->duration_ns = opts.duration;
    report->ran = true;
}

// Syscall programs take only a ctx (no data, no repeat): the kernel copies the ctx back into ctx_in after the run;
// data_in, when given, goes to the kernel, which refuses it.
// raw_tp programs use the same path (their ctx is read-only, so ctx_out equals ctx_in).
void KernelObject::run_syscall(const RunRequest& req, RunReport* report) {
    std::vector<uint8_t> ctx = req.ctx_in;
    uint32_t repeat = std::max<uint32_t>(1, req.repeat);
    auto start = std::chrono::steady_clock::now();
    for (uint32_t i = 0; i < repeat; i++) {
        if (i > 0)
            std::copy(req.ctx_in.begin(), req.ctx_in.end(), ctx.begin());
        LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = req.flags, .cpu = req.cpu);
        if (!req.data_in.empty()) { // the kernel refuses data_in here (-EINVAL): every engine gives that answer
            opts.data_in = req.data_in.data();
            opts.data_size_in = static_cast<uint32_t>(req.data_in.size());
        }
        if (!ctx.empty()) {
            opts.ctx_in = ctx.data();
            opts.ctx_size_in = static_cast<uint32_t>(ctx.size());
        }
        if (bpf_prog_test_run_opts(prog_fd_, &opts) != 0) {
            record_run_error(errno, report);
            return;
        }
        report->retval = opts.retval;
    }
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    report->duration_ns = static_cast<uint64_t>(ns) / repeat;
    report->ctx_out = std::move(ctx);
    report->ran = true;
}

// Packet programs get data_in (kDefaultPacket zero bytes when there is none, like the kernel's test_loader and
// strbpf's own engines) and run `repeat` times in the kernel.
void KernelObject::run_packet(const RunRequest& req, bool is_packet, RunReport* report) {
    std::vector<uint8_t> data = req.data_in;
    if (is_packet && data.empty())
        data.assign(kDefaultPacket, 0);
    std::vector<uint8_t> data_out(data.empty() ? 0 : data.size() + kOutSlack);
    std::vector<uint8_t> ctx_out(std::max(req.ctx_in.size(), kCtxOutRoom));
    LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = std::max<int>(1, static_cast<int>(req.repeat)), .flags = req.flags,
                .cpu = req.cpu);
    if (!data.empty()) {
        opts.data_in = data.data();
        opts.data_size_in = static_cast<uint32_t>(data.size());
        opts.data_out = data_out.data();
        opts.data_size_out = static_cast<uint32_t>(data_out.size());
    }
    if (!req.ctx_in.empty()) {
        opts.ctx_in = req.ctx_in.data();
        opts.ctx_size_in = static_cast<uint32_t>(req.ctx_in.size());
        opts.ctx_out = ctx_out.data();
        opts.ctx_size_out = static_cast<uint32_t>(ctx_out.size());
    }
    if (bpf_prog_test_run_opts(prog_fd_, &opts) != 0) {
        record_run_error(errno, report);
        return;
    }
    report->retval = opts.retval;
    report->duration_ns = opts.duration;
    data_out.resize(std::min<size_t>(opts.data_size_out, data_out.size()));
    ctx_out.resize(std::min<size_t>(opts.ctx_size_out, ctx_out.size()));
    report->data_out = std::move(data_out);
    report->ctx_out = std::move(ctx_out);
    report->ran = true;
}

RunReport run(const std::string& obj_path, const std::string& prog, const RunRequest& req, RunDetails* details) {
    std::unique_ptr<KernelObject> ko = KernelObject::load(obj_path, prog, req.globals);
    RunReport report = ko->run(req);
    if (details)
        *details = ko->details();
    return report;
}

RunReport run_test(const std::string& obj_path, const std::string& prog, const RunRequest& req,
                   const LoadOptions& opts, bool execute, RunDetails* details) {
    std::unique_ptr<KernelObject> ko = KernelObject::load(obj_path, prog, req.globals, opts);
    RunReport report;
    report.prog = prog;
    if (execute) {
        report = ko->run(req);
    } else {
        report.loaded = ko->loaded();
        report.error = ko->error();
    }
    if (details)
        *details = ko->details();
    return report;
}

} // namespace strbpf::exec::kernel
