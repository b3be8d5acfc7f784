// SPDX-License-Identifier: BSD-2-Clause
// The live kernel as the verifier oracle (kernel-differential fuzzer): bpf() map creation, relocation of the
// harness encoding, BPF_PROG_LOAD with a log, and the kernel errors that are no verdict.
#include "kernel_diff/kernel_oracle.hpp"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/harness.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"

namespace strbpf::fuzz::kdiff {
namespace {

constexpr int kTransientRetries = 3;
// linux/bpf.h's macros hide isa::'s constants of the same names in this file.
constexpr uint8_t kLdImm64 = 0x18, kCall = 0x85, kPseudoMapFd = 1, kPseudoMapValue = 2, kPseudoKfuncCall = 2,
                  kPseudoFunc = 4;

int quiet_libbpf(enum libbpf_print_level, const char*, va_list) { return 0; }

std::string errno_name(int err) {
    switch (err) {
    case EACCES:
        return "EACCES";
    case EINVAL:
        return "EINVAL";
    case E2BIG:
        return "E2BIG";
    case EPERM:
        return "EPERM";
    case EFAULT:
        return "EFAULT";
    case ENOSPC:
        return "ENOSPC";
    case EAGAIN:
        return "EAGAIN";
    case ENOMEM:
        return "ENOMEM";
    case ENOENT:
        return "ENOENT";
    case EPROTO:
        return "EPROTO";
    case 524:
        return "ENOTSUPP";
    default:
        return "errno " + std::to_string(err);
    }
}

// Errors that say nothing about the program: the load is retried, then reported as no verdict.
bool transient(int err) { return err == EAGAIN || err == ENOMEM || err == EINTR || err == EBUSY; }

int make_map(const char* name, bpf_map_type type, uint32_t key, uint32_t value, uint32_t entries, uint32_t flags) {
    LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);
    return bpf_map_create(type, name, key, value, entries, &opts);
}

// The kernel's reason: verifier_reason's line, except that after "infinite loop detected at insn N" the kernel
// prints the two states compared ("cur state: ...", "old state: ..."): the reason is the line above them.
std::string one_line_reason(const std::string& log) {
    const std::string r = exec::kernel::verifier_reason(log);
    if (r.rfind("old state:", 0) != 0 && r.rfind("cur state:", 0) != 0)
        return r;
    const size_t cur = log.rfind("\ncur state:");
    if (cur == std::string::npos || cur == 0)
        return r;
    const size_t begin = log.rfind('\n', cur - 1);
    return log.substr(begin == std::string::npos ? 0 : begin + 1, cur - (begin == std::string::npos ? 0 : begin + 1));
}

} // namespace

const char* outcome_name(Outcome o) {
    return o == Outcome::accept ? "accept" : o == Outcome::reject ? "reject" : "error";
}

// The log rotates: a log longer than the buffer keeps its last lines (the reason) and fails the load with ENOSPC.
std::unique_ptr<KernelOracle> KernelOracle::open(std::string& why, size_t log_size) {
    libbpf_set_print(quiet_libbpf);
    if (Status st = exec::kernel::available(); !st) {
        why = st.error().message;
        return nullptr;
    }
    std::unique_ptr<KernelOracle> k(new KernelOracle());
    if (!k->create_maps(why) || !k->resolve_kfuncs(why) || !k->load_btf(why))
        return nullptr;
    k->log_.assign(std::max<size_t>(log_size, 128), '\0'); // the kernel refuses a log_size below 128
    return k;
}

KernelOracle::~KernelOracle() {
    for (int fd : map_fds_)
        if (fd >= 0)
            close(fd);
    btf__free(btf_);
}

std::vector<int> KernelOracle::kfuncs() const {
    std::vector<int> have;
    for (size_t i = 0; i < kfunc_ids_.size(); i++)
        if (kfunc_ids_[i] != 0)
            have.push_back(int(i));
    return have;
}

// Program BTF for func_info: clang gives every function a FUNC record, and the kernel needs them for callbacks
// (`missing btf func_info`, `callback function not static`). Subprograms are static, as the generator's are.
bool KernelOracle::load_btf(std::string& why) {
    btf_ = btf__new_empty();
    const int int_id = btf_ ? btf__add_int(btf_, "int", 4, BTF_INT_SIGNED) : -1;
    const int ptr_id = int_id > 0 ? btf__add_ptr(btf_, 0) : -1;
    const int main_proto = ptr_id > 0 ? btf__add_func_proto(btf_, int_id) : -1;
    if (main_proto > 0 && btf__add_func_param(btf_, "ctx", ptr_id) == 0)
        btf_main_ = btf__add_func(btf_, "fuzz", BTF_FUNC_GLOBAL, main_proto);
    const int sub_proto = btf_main_ > 0 ? btf__add_func_proto(btf_, int_id) : -1;
    btf_sub_ = sub_proto > 0 ? btf__add_func(btf_, "sub", BTF_FUNC_STATIC, sub_proto) : -1;
    if (btf_sub_ <= 0 || btf__load_into_kernel(btf_) != 0) {
        why = std::string("cannot load the program BTF: ") + std::strerror(errno);
        return false;
    }
    return true;
}

// The harness object's maps (harness.hpp HarnessMap order), as libbpf creates them from an object: global data as
// mmapable one-entry arrays, .rodata frozen and read-only to programs.
bool KernelOracle::create_maps(std::string& why) {
    const uint32_t mm = BPF_F_MMAPABLE;
    map_fds_ = {
        make_map("arr", BPF_MAP_TYPE_ARRAY, 4, 64, 1, 0),
        make_map("hash", BPF_MAP_TYPE_HASH, 8, 16, 8, 0),
        make_map("fuzz.rodata", BPF_MAP_TYPE_ARRAY, 4, 64, 1, mm | BPF_F_RDONLY_PROG),
        make_map("fuzz.bss", BPF_MAP_TYPE_ARRAY, 4, 128, 1, mm),
        make_map("rb", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0),
        make_map("pcpu", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 32, 2, 0),
        make_map("lru", BPF_MAP_TYPE_LRU_HASH, 8, 8, 4, 0),
    };
    static_assert(kNumHarnessMaps == 7, "the kernel oracle creates every harness map");
    for (size_t i = 0; i < map_fds_.size(); i++)
        if (map_fds_[i] < 0) {
            why = "cannot create harness map " + std::to_string(i) + ": " + std::strerror(errno);
            return false;
        }
    const loader::ObjectSpec obj = make_object(FuzzProgram{});
    const std::vector<uint8_t>& rodata = obj.maps[kMapRodata].initial;
    const uint32_t key = 0;
    if (bpf_map_update_elem(map_fds_[kMapRodata], &key, rodata.data(), BPF_ANY) != 0 ||
        bpf_map_freeze(map_fds_[kMapRodata]) != 0) {
        why = std::string("cannot fill and freeze .rodata: ") + std::strerror(errno);
        return false;
    }
    return true;
}

bool KernelOracle::resolve_kfuncs(std::string& why) {
    struct btf* vmlinux = btf__load_vmlinux_btf();
    if (!vmlinux) {
        why = "no vmlinux BTF (/sys/kernel/btf/vmlinux): kfunc calls cannot be resolved";
        return false;
    }
    for (const runtime::KfuncProto& f : runtime::kfunc_table()) {
        const int id = btf__find_by_name_kind(vmlinux, f.name, BTF_KIND_FUNC);
        kfunc_ids_.push_back(id > 0 ? id : 0);
    }
    btf__free(vmlinux);
    return true;
}

bool KernelOracle::relocate(std::vector<isa::Insn>& insns, std::string& why) const {
    for (size_t pc = 0; pc < insns.size(); pc++) {
        isa::Insn& i = insns[pc];
        if (i.opcode == kLdImm64 && (i.src == kPseudoMapFd || i.src == kPseudoMapValue)) {
            if (i.imm < 0 || size_t(i.imm) >= map_fds_.size()) {
                why = "ld_imm64 names map " + std::to_string(i.imm) + ", not a harness map";
                return false;
            }
            i.imm = map_fds_[size_t(i.imm)];
        } else if (i.opcode == kCall && i.src == kPseudoKfuncCall) {
            if (i.imm < 0 || size_t(i.imm) >= kfunc_ids_.size() || kfunc_ids_[size_t(i.imm)] == 0) {
                why = "kfunc " + std::to_string(i.imm) + " is not in this kernel's BTF";
                return false;
            }
            i.imm = kfunc_ids_[size_t(i.imm)];
        }
    }
    return true;
}

KernelVerdict KernelOracle::load(loader::ProgType type, const std::vector<isa::Insn>& insns, int log_level) {
    LIBBPF_OPTS(bpf_prog_load_opts, opts);
    if (type == loader::ProgType::syscall)
        opts.prog_flags = BPF_F_SLEEPABLE; // libbpf's SEC("syscall")
    if (type == loader::ProgType::xdp)
        opts.expected_attach_type = BPF_XDP; // libbpf's SEC("xdp")
    opts.log_level = uint32_t(log_level);
    if (log_level) {
        log_[0] = '\0';
        opts.log_buf = log_.data();
        opts.log_size = uint32_t(log_.size());
    }
    // func_info: main and every in-range target of a bpf-to-bpf call or callback reference, ascending.
    std::vector<bpf_func_info> funcs{{0, uint32_t(btf_main_)}};
    std::vector<bool> start(insns.size(), false);
    for (size_t pc = 0; pc < insns.size(); pc++) {
        const isa::Insn& i = insns[pc];
        const bool ref = (i.opcode == kCall && i.src == 1) || (i.opcode == kLdImm64 && i.src == kPseudoFunc);
        const int64_t target = int64_t(pc) + i.imm + 1;
        if (ref && target > 0 && target < int64_t(insns.size()))
            start[size_t(target)] = true;
        pc += i.opcode == kLdImm64;
    }
    for (size_t pc = 1; pc < insns.size(); pc++)
        if (start[pc])
            funcs.push_back({uint32_t(pc), uint32_t(btf_sub_)});
    opts.prog_btf_fd = uint32_t(btf__fd(btf_));
    opts.func_info = funcs.data();
    opts.func_info_cnt = uint32_t(funcs.size());
    opts.func_info_rec_size = sizeof(bpf_func_info);
    KernelVerdict v;
    int fd = -1;
    for (int attempt = 0; attempt <= kTransientRetries; attempt++) {
        fd = bpf_prog_load(bpf_prog_type(type), "fuzz", "GPL", reinterpret_cast<const bpf_insn*>(insns.data()),
                           insns.size(), &opts);
        v.err = fd < 0 ? errno : 0;
        if (fd >= 0 || !transient(v.err))
            break;
    }
    if (fd >= 0) {
        close(fd);
        v.outcome = Outcome::accept;
        return v;
    }
    if (transient(v.err)) {
        v.reason = "BPF_PROG_LOAD: " + errno_name(v.err) + " after retries";
        return v;
    }
    v.outcome = Outcome::reject;
    if (log_level)
        v.reason = one_line_reason(std::string(log_.data(), strnlen(log_.data(), log_.size())));
    if (v.reason.empty())
        v.reason = "BPF_PROG_LOAD: " + errno_name(v.err) + " (no verifier message)";
    return v;
}

KernelVerdict KernelOracle::verify(loader::ProgType type, const std::vector<isa::Insn>& insns) {
    std::vector<isa::Insn> prog = insns;
    KernelVerdict v;
    if (!relocate(prog, v.reason))
        return v;
    v = load(type, prog, 1);
    if (v.outcome == Outcome::reject && v.err == ENOSPC) {
        // The log overflowed: the kernel fails the load whatever the verdict. Its rotated tail still ends with the
        // reason of a rejection; a load without a log gives the verdict.
        const std::string tail_reason = v.reason;
        v = load(type, prog, 0);
        if (v.outcome == Outcome::reject)
            v.reason = tail_reason;
    }
    return v;
}

std::string KernelOracle::log(loader::ProgType type, const std::vector<isa::Insn>& insns, int log_level) {
    std::vector<isa::Insn> prog = insns;
    std::string why;
    if (!relocate(prog, why))
        return why + "\n";
    const KernelVerdict v = load(type, prog, log_level);
    return std::string(log_.data(), strnlen(log_.data(), log_.size())) +
           (v.outcome == Outcome::accept ? "(accepted)\n" : "");
}

} // namespace strbpf::fuzz::kdiff
