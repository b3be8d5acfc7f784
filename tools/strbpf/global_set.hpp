// SPDX-License-Identifier: BSD-2-Clause
// `--set VAR=VALUE`: global variables of .rodata, .data, .bss (and their .name forms) set by name before a run, as a
// libbpf skeleton user writes skel->rodata->VAR before load (tools stage). The ELF symbol table says where a
// variable lives, the object's BTF what it is; the value is encoded by that type:
//   integers, enums, pointers  decimal, 0x hex or 0 octal, negative for signed types, 'c' for a character, an
//                              enumerator's name, true/false for bool
//   floats                     a decimal or hex float
//   char arrays                a string (NUL-padded; at most size - 1 characters) or 0x hex bytes
//   other arrays, structs      0x hex bytes (at most the type's size; the rest zero)
// VAR.field and VAR[i] (in any combination) reach members and elements; bitfields are written in place.
#pragma once
#include <string>
#include <vector>

#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"
#include "strbpf/result.hpp"

namespace strbpf::cli {

// One patch per global-data section the assignments touch (its whole image, the ELF's bytes with every assignment
// applied in order), or an error naming the assignment. `obj_path` is read for its symbol table.
Result<std::vector<runtime::GlobalPatch>> global_patches(const std::string& obj_path, const loader::ObjectSpec& spec,
                                                         const std::vector<std::string>& assignments);

} // namespace strbpf::cli
