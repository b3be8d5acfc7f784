// SPDX-License-Identifier: BSD-2-Clause
// Global subprograms' ctx arguments (verifier stage): which pointer parameters the kernel's btf_prepare_func_args
// types PTR_TO_CTX — the program type's ctx as include/linux/bpf_types.h spells it (btf_is_prog_ctx_type), or any
// `arg:ctx`-tagged pointer that btf_validate_prog_ctx_type accepts for the program type — as data per type.
#pragma once

#include <string>

#include "loader/btf_view.hpp"
#include "loader/object_spec.hpp"

namespace strbpf::verifier {

// btf_is_prog_ctx_type: PTR (a BTF pointer type of the program's BTF, modifiers skipped) points at the program
// type's ctx by name (the uAPI struct, its kernel projection, the struct a uAPI typedef names, kprobe's
// bpf_user_pt_regs_t typedef), so an untagged parameter of that type is the ctx.
bool is_prog_ctx_type(BtfRef b, const btf_type* ptr, loader::ProgType type);

// btf_validate_prog_ctx_type for an `arg:ctx`-tagged parameter ARG of type PTR: "" when the kernel accepts it for
// the program type and expected attach type, else the line the kernel logs (`arg#0 should be `struct pt_regs *``).
std::string ctx_tag_problem(BtfRef b, const btf_type* ptr, int arg, loader::ProgType type, loader::AttachType attach);

} // namespace strbpf::verifier
