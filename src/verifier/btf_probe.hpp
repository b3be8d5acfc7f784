// SPDX-License-Identifier: BSD-2-Clause
// A host fact BTF-typed programs depend on (verifier stage, internal; btf_probe.cpp): whether the running kernel
// loads programs that attach through a BPF trampoline. Apart because it speaks bpf() through libbpf's headers,
// whose macros clash with isa/insn.hpp's constants.
#pragma once
#include "loader/btf_view.hpp"

namespace strbpf::verifier {

// 0 when the running kernel (whose BTF is B) loads a trivial fentry program (LSM: an lsm program), or when this
// process cannot ask (not root); else the errno it refuses it with. A kernel built without trampoline support
// refuses every fentry/fexit/fmod_ret/lsm program before verifying it. Asked once per kind and process.
int trampoline_load_errno(BtfRef b, bool lsm);

} // namespace strbpf::verifier
