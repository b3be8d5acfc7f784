// SPDX-License-Identifier: BSD-2-Clause
// The live kernel as the verifier oracle (kernel-differential fuzzer): the harness object's maps created with
// bpf(), its kfunc indexes resolved to vmlinux BTF ids, and each program loaded with BPF_PROG_LOAD as libbpf would
// load it from its section (syscall: BPF_F_SLEEPABLE; xdp: expected attach type BPF_XDP).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isa/insn.hpp"
#include "loader/object_spec.hpp"

namespace strbpf::fuzz::kdiff {

enum class Outcome { accept, reject, error };

struct KernelVerdict {
    Outcome outcome = Outcome::error;
    std::string reason; // rejection: the kernel's one-line reason; error: what went wrong (not a verdict)
    int err = 0;        // errno of a failed load
};

class KernelOracle {
  public:
    // Null with `why` set when bpf() cannot be used here (not root, no CAP_BPF, seccomp, no BTF). `log_size`: the
    // verifier log buffer (a smaller one only makes ENOSPC likelier: the answer stays the same).
    static std::unique_ptr<KernelOracle> open(std::string& why, size_t log_size = size_t(1) << 20);
    ~KernelOracle();
    KernelOracle(const KernelOracle&) = delete;
    KernelOracle& operator=(const KernelOracle&) = delete;

    // The kernel's verdict on INSNS (the harness encoding: map and kfunc indexes) as a program of TYPE.
    KernelVerdict verify(loader::ProgType type, const std::vector<isa::Insn>& insns);

    // The kernel's verifier log of INSNS at LOG_LEVEL (1: the failing path, 2: every state), for reading a finding.
    std::string log(loader::ProgType type, const std::vector<isa::Insn>& insns, int log_level);

    // The kfunc-table indexes this kernel has (the generator is told to call only these).
    std::vector<int> kfuncs() const;

  private:
    KernelOracle() = default;
    bool create_maps(std::string& why);
    bool resolve_kfuncs(std::string& why);
    bool load_btf(std::string& why);
    // The program with map indexes replaced by fds and kfunc indexes by BTF ids; false (with `why`) when an
    // index names no harness map or kfunc (then the kernel's answer would say nothing about strbpf's).
    bool relocate(std::vector<isa::Insn>& insns, std::string& why) const;
    KernelVerdict load(loader::ProgType type, const std::vector<isa::Insn>& insns, int log_level);

    std::vector<int> map_fds_;
    struct btf* btf_ = nullptr; // main `int fuzz(void *ctx)` (global) and `int sub(void)` (static), as clang emits
    int btf_main_ = 0, btf_sub_ = 0;
    std::vector<int32_t> kfunc_ids_; // by kfunc-table index; 0 when this kernel lacks it
    std::vector<char> log_;
};

const char* outcome_name(Outcome o);

} // namespace strbpf::fuzz::kdiff
