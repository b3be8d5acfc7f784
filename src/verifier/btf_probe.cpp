// SPDX-License-Identifier: BSD-2-Clause
// Whether the running kernel loads trampoline-attached programs (verifier stage): one BPF_PROG_LOAD of
// "r0 = 0; exit" per kind and process, on a target every such kernel has (bpf_fentry_test1, bpf_lsm_file_open).
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <cerrno>
#include <mutex>
#include <unistd.h>

#include "loader/btf_view.hpp"
#include "verifier/btf_probe.hpp"

namespace strbpf::verifier {

int trampoline_load_errno(BtfRef b, bool lsm) {
    static std::mutex mu;
    static int answer[2] = {-1, -1};
    std::lock_guard<std::mutex> lock(mu);
    int& err = answer[lsm ? 1 : 0];
    if (err >= 0)
        return err;
    err = 0;
    const int id = btfv::find_by_name_kind(b, lsm ? "bpf_lsm_file_open" : "bpf_fentry_test1", BTF_KIND_FUNC);
    if (geteuid() != 0 || id <= 0)
        return err;
    const struct bpf_insn insns[] = {
        {BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0},
        {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
    };
    LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = lsm ? BPF_LSM_MAC : BPF_TRACE_FENTRY,
                .attach_btf_id = unsigned(id));
    const int fd =
        bpf_prog_load(lsm ? BPF_PROG_TYPE_LSM : BPF_PROG_TYPE_TRACING, "strbpf_probe", "GPL", insns, 2, &opts);
    if (fd >= 0)
        close(fd);
    else if (errno == EPERM || errno == EOPNOTSUPP || errno == ENOTSUP)
        err = errno;
    return err;
}

} // namespace strbpf::verifier
