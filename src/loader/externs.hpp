// SPDX-License-Identifier: BSD-2-Clause
// Extern symbols (loader stage): `__kconfig` variables, `__ksym` functions and variables, found and ordered as
// libbpf's bpf_object__collect_externs finds them, and the `.kconfig` map's values as bpf_object__resolve_externs
// fills them (virtual LINUX_* values, CONFIG_* from the kernel's configuration).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loader/btf_view.hpp"
#include "loader/elf_file.hpp"
#include "loader/object_spec.hpp"

struct btf;

namespace strbpf::loader {

struct ExternTable {
    std::vector<ExternSpec> externs; // libbpf's order
    uint32_t kconfig_size = 0;       // the .kconfig map's value size; 0 when the object has no kconfig extern

    int find(std::string_view name) const; // index into externs, -1 when absent
};

// Every undefined GLOBAL/WEAK NOTYPE symbol the object's BTF declares as an extern VAR or FUNC. A problem libbpf
// would refuse the object for (no BTF for it, an unknown section, a kconfig type it cannot fill) is kept in that
// extern's `error`, so only the programs that use it fail. Without BTF the table is empty.
ExternTable collect_externs(const ElfFile& elf, BtfRef btf);

// libbpf's bpf_object__resolve_ksym_func_btf_id for the `__weak` kfunc externs: one whose FUNC the target kernel
// BTF (TARGET) has, with a prototype bpf_core_types_are_compat finds incompatible with the object's, is marked
// `incompatible` (libbpf 1.3+ leaves it unresolved; 1.1 and 1.2 refuse the object). A strong one is the verifier's
// to refuse (verifier/kfunc_btf.hpp kfunc_proto_mismatch), for the programs that use it only.
void mark_incompatible_weak_kfuncs(ExternTable& table, BtfRef local, BtfRef target);

// The `.kconfig` map's value: LINUX_KERNEL_VERSION, LINUX_HAS_BPF_COOKIE, LINUX_HAS_SYSCALL_WRAPPER, and CONFIG_*
// from `kconfig_path` (empty: /boot/config-$(uname -r), then /proc/config.gz; gzip or plain text). Externs that
// cannot be resolved get libbpf's message in `error`; a weak one left unresolved reads as zero.
std::vector<uint8_t> resolve_kconfig(ExternTable& table, BtfRef btf, const std::string& kconfig_path);

// libbpf's get_kernel_version(): KERNEL_VERSION(major, minor, patch) of the running kernel (Ubuntu's
// /proc/version_signature, Debian's uname version, else the release), 0 when it cannot be parsed.
uint32_t running_kernel_version();

// The name without a trailing "___flavor" (libbpf's bpf_core_essential_name_len).
std::string_view essential_name(std::string_view name);

} // namespace strbpf::loader
