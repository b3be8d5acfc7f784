// SPDX-License-Identifier: BSD-2-Clause
// The builds of Linux 6.18 strbpf's verifier models (verifier stage): the facts in which two 6.18 kernels that
// both report the same release give different verdicts or words, each a switch the verifier reads. The running
// kernel's facts are probed by exec/kernel/kernel_variant_probe; without a kernel to ask, the defaults are the
// 6.18 source's (docs/program-types.md, "Kernel builds").
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace strbpf::verifier {

struct KernelVariant {
    // bpf_map_lookup_elem on a map-in-map, sockmap, sockhash or xskmap gives map_ptr_or_null / sock_or_null /
    // xdp_sock_or_null at the call; the 6.18 source gives map_value_or_null and converts at the null check.
    bool typed_lookup = false;
    // A sleepable program's maps are checked with their inner maps, refused with "..., also as inner maps".
    bool sleepable_inner_maps = false;
    // bpf_dynptr_slice_rdwr is refused everywhere, after its arguments: "bpf_dynptr_slice_rdwr() is not allowed".
    bool no_slice_rdwr = false;
    // BPF_MAP_TYPE_ARENA cannot be created (EPERM) and the arena kfuncs are allowed in no program type.
    bool no_arena = false;
    // bpf_xdp_adjust_meta is not in xdp programs' helper set: "program of this type cannot use helper
    // bpf_xdp_adjust_meta#54".
    bool no_xdp_adjust_meta = false;

    bool operator==(const KernelVariant&) const = default;
};

// One row per fact: its name in `--kernel-variant` lists and JSON, and what the switch changes.
struct KernelVariantFact {
    const char* name;
    bool KernelVariant::*field;
    const char* what;
};
inline constexpr KernelVariantFact kKernelVariantFacts[] = {
    {"typed_lookup", &KernelVariant::typed_lookup,
     "map-in-map, sockmap, sockhash and xskmap lookups typed map_ptr_or_null / sock_or_null / xdp_sock_or_null"},
    {"sleepable_inner_maps", &KernelVariant::sleepable_inner_maps,
     "sleepable programs' map types checked with their inner maps"},
    {"no_slice_rdwr", &KernelVariant::no_slice_rdwr, "bpf_dynptr_slice_rdwr refused in every program type"},
    {"no_arena", &KernelVariant::no_arena, "no arena maps, the arena kfuncs allowed nowhere"},
    {"no_xdp_adjust_meta", &KernelVariant::no_xdp_adjust_meta, "bpf_xdp_adjust_meta refused in xdp programs"},
};

// The facts set, comma-separated ("" for the 6.18 source's build), and the inverse: a list of fact names, or
// "upstream" for none; nullopt (with *error) for a name that is not a fact.
std::string format_kernel_variant(const KernelVariant& v);
std::optional<KernelVariant> parse_kernel_variant(std::string_view text, std::string* error);

// The variant verify() uses when its Options name none: the 6.18 source's until a caller (the CLI, a test, an
// embedder) sets the running kernel's. Process-wide; set it before verifying on several threads.
const KernelVariant& default_kernel_variant();
void set_default_kernel_variant(const KernelVariant& v);

} // namespace strbpf::verifier
