// SPDX-License-Identifier: BSD-2-Clause
// BPF CO-RE relocations (loader stage): each `.BTF.ext` core_relo record resolved against a target BTF as libbpf
// resolves it (candidates of the same kind and essential name, the access string matched field by field, every
// candidate agreeing), then the instruction patched, or poisoned where the target cannot satisfy it.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "isa/insn.hpp"
#include "loader/btf_ext.hpp"
#include "loader/btf_view.hpp"
#include "strbpf/result.hpp"

struct btf;

namespace strbpf::loader {

// enum bpf_core_relo_kind.
enum CoreKind : uint32_t {
    kCoreFieldByteOffset = 0,
    kCoreFieldByteSize = 1,
    kCoreFieldExists = 2,
    kCoreFieldSigned = 3,
    kCoreFieldLshiftU64 = 4,
    kCoreFieldRshiftU64 = 5,
    kCoreTypeIdLocal = 6,
    kCoreTypeIdTarget = 7,
    kCoreTypeExists = 8,
    kCoreTypeSize = 9,
    kCoreEnumvalExists = 10,
    kCoreEnumvalValue = 11,
    kCoreTypeMatches = 12,
};
const char* core_kind_name(uint32_t kind); // libbpf's: "byte_off", "field_exists", "type_size", ...

// The helper id libbpf writes into an instruction whose relocation failed (0xbad2310, "bad relo").
inline constexpr int32_t kCorePoisonHelper = 195896080;

// What one relocation resolves to (libbpf's bpf_core_relo_res).
struct CoreResult {
    uint64_t orig = 0;                    // the value the instruction must hold now (checked when `validate`)
    uint64_t value = 0;                   // the value for the target
    uint32_t orig_size = 0, new_size = 0; // field relocations of loads/stores: the memory access sizes
    bool validate = true;
    bool poison = false;    // the target cannot satisfy it: the instruction becomes kCorePoisonHelper's call
    bool bad_memsz = false; // the field's size changed in a way a load/store cannot follow
    std::string spec; // libbpf's description of the local relocation: "<byte_off> [5] struct s.a (0:1 @ offset 4)"
};

// bpf_core_calc_relo_insn. `target` may be null only for kCoreTypeIdLocal. Errors carry libbpf's reason.
Result<CoreResult> core_resolve(BtfRef local, const BtfExtCoreRelo& relo, BtfRef target);

// bpf_core_patch_insn: `insn` is the relocated instruction and what follows it in the program.
Status core_patch(std::span<isa::Insn> insn, const CoreResult& res);

} // namespace strbpf::loader
