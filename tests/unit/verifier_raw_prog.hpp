// SPDX-License-Identifier: BSD-2-Clause
// Raw-instruction programs verified by strbpf and by the live kernel (tests, shared by the verifier_*_test.cpp
// files that compare rule by rule): build a one-program object from instructions, verify it, load it.
#pragma once
#include <string>
#include <vector>

#include "exec/kernel/kernel_engine.hpp"
#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"
#include "verifier/verifier.hpp"

// last: its macros would clash with isa/insn.hpp's constants
#include <bpf/bpf.h>
#include <unistd.h>

namespace strbpf::vtest {

struct RawProg {
    const char* section; // SEC() name (for messages; the loader derives type and attach type from it)
    uint32_t prog_type;  // enum bpf_prog_type (UAPI numbers: the installed linux/bpf.h predates some of them)
    uint32_t attach;     // enum bpf_attach_type the kernel gets
    uint32_t flags = 0;  // BPF_F_* load flags (syscall programs must be BPF_F_SLEEPABLE)
};

inline isa::Insn raw_insn(uint8_t op, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
    isa::Insn i{};
    i.opcode = op;
    i.dst = dst & 0xf;
    i.src = src & 0xf;
    i.off = off;
    i.imm = imm;
    return i;
}

inline verifier::Verdict strbpf_verdict(const RawProg& p, const std::vector<isa::Insn>& insns) {
    loader::ObjectSpec spec;
    spec.license = "GPL";
    loader::ProgramSpec prog;
    prog.name = "raw";
    prog.section = p.section;
    prog.type = static_cast<loader::ProgType>(p.prog_type);
    prog.expected_attach_type = static_cast<loader::AttachType>(p.attach);
    prog.sleepable = (p.flags & (1u << 4)) != 0; // BPF_F_SLEEPABLE
    prog.insns = insns;
    spec.programs.push_back(prog);
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec));
    auto inst = runtime::ObjectInstance::create(shared);
    if (!inst) {
        verifier::Verdict v;
        v.reason = "instance: " + inst.error().message;
        return v;
    }
    return verifier::verify(*inst.value(), shared->programs[0]);
}

// The kernel's verdict: "" when it loads (*loaded), else its reason (the log's last line before the statistics).
inline std::string kernel_verdict(const RawProg& p, const std::vector<isa::Insn>& insns, bool* loaded) {
    std::vector<char> log(1 << 16);
    LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = static_cast<enum bpf_attach_type>(p.attach),
                .prog_flags = p.flags, .log_level = 1, .log_size = uint32_t(log.size()), .log_buf = log.data());
    const int fd = bpf_prog_load(static_cast<enum bpf_prog_type>(p.prog_type), "raw", "GPL",
                                 reinterpret_cast<const struct bpf_insn*>(insns.data()), insns.size(), &opts);
    *loaded = fd >= 0;
    if (fd >= 0) {
        close(fd);
        return "";
    }
    return exec::kernel::verifier_reason(log.data());
}

} // namespace strbpf::vtest
