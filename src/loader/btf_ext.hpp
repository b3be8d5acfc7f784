// SPDX-License-Identifier: BSD-2-Clause
// .BTF.ext parsing (loader stage): the func_info, line_info and CO-RE relocation records clang emits per code
// section.
// libbpf 1.1 keeps its btf_ext parser private, so this is our own, bounds-checked against the section.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "loader/btf_view.hpp"
#include "strbpf/result.hpp"

struct btf;

namespace strbpf::loader {

struct BtfExtFunc {
    uint32_t insn = 0; // instruction index within the section (the record's byte offset / 8)
    uint32_t type_id = 0;
};

struct BtfExtLine {
    uint32_t insn = 0; // instruction index within the section
    uint32_t file_name_off = 0;
    uint32_t line_off = 0;
    uint32_t line_col = 0; // line << 10 | column
};

// struct bpf_core_relo: one CO-RE relocation (kind: enum bpf_core_relo_kind).
struct BtfExtCoreRelo {
    uint32_t insn = 0; // instruction index within the section
    uint32_t type_id = 0;
    uint32_t access_str_off = 0;
    uint32_t kind = 0;
};

struct BtfExtSection {
    std::vector<BtfExtFunc> funcs;
    std::vector<BtfExtCoreRelo> core; // in the section's order (libbpf numbers them so: "relo #N")
    std::vector<BtfExtLine> lines; // sorted by insn (stable: records of one insn keep the section's order)
};

// Records by ELF section name. Section names are resolved through the object's BTF string table.
using BtfExt = std::map<std::string, BtfExtSection>;

Result<BtfExt> parse_btf_ext(std::span<const uint8_t> data, BtfRef btf);

} // namespace strbpf::loader
