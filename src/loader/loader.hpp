// SPDX-License-Identifier: BSD-2-Clause
// Loads a BPF ELF object as clang -target bpf builds it for libbpf (loader stage).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "loader/object_spec.hpp"
#include "strbpf/result.hpp"

namespace strbpf::loader {

// What the object is loaded for: the kernel configuration `__kconfig` externs read and the BTF CO-RE relocations
// are resolved against.
struct LoadOptions {
    std::string kconfig_path; // a Kconfig file (plain or gzip); empty: /boot/config-$(uname -r), /proc/config.gz
    std::string btf_path;     // the target's BTF (raw or an ELF with .BTF); empty: /sys/kernel/btf/vmlinux
};

// Reads and relocates an object. Errors name the section or offset at fault; never crashes on bad input.
Result<ObjectSpec> load_object_file(const std::string& path, const LoadOptions& opts = {});
Result<ObjectSpec> load_object_memory(std::span<const uint8_t> image, const std::string& name = "<memory>",
                                      const LoadOptions& opts = {});

// libbpf's section flags (enum sec_def_flags).
enum SectionFlag : uint32_t {
    kSecNone = 0,
    kSecExpAttachOpt = 1,  // the expected attach type may be dropped on kernels that lack it
    kSecAttachable = 2,    // attachable through BPF_LINK_CREATE / BPF_PROG_ATTACH
    kSecAttachableOpt = kSecAttachable | kSecExpAttachOpt,
    kSecAttachBtf = 4,     // the part after '/' names a kernel BTF target (fentry/..., lsm/..., tp_btf/..., iter/...)
    kSecSleepable = 8,     // loaded with BPF_F_SLEEPABLE
    kSecXdpFrags = 16,     // loaded with BPF_F_XDP_HAS_FRAGS
    kSecUsdt = 32,
};

// One row of libbpf's section_defs: a SEC() pattern ("name", "name+" or "name/") and what it loads as.
struct SectionDef {
    const char* pattern;
    ProgType type;
    AttachType attach;
    uint32_t flags; // SectionFlag bits
};

// The row libbpf matches SECTION with (a leading '?' ignored), or null when libbpf does not know it.
const SectionDef* find_section_def(std::string_view section);
std::span<const SectionDef> section_defs(); // every row, in libbpf's order

// Program type from a SEC() name, as libbpf's section table maps it ("syscall", "xdp", "tc", "tp/...", ...).
// Returns false when the section is not a known program section.
bool prog_type_from_section(const std::string& section, ProgType* type);

} // namespace strbpf::loader
