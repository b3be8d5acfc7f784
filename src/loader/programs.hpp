// SPDX-License-Identifier: BSD-2-Clause
// Programs and subprograms (loader stage): finds every function in the object's code sections, then builds each
// program's instruction stream — main function, every reachable subprogram appended — with relocations applied.
#pragma once
#include <map>
#include <vector>

#include "loader/btf_ext.hpp"
#include "loader/elf_file.hpp"
#include "loader/maps.hpp"
#include "loader/object_spec.hpp"

struct btf;

namespace strbpf::loader {

struct LinkInputs {
    const ElfFile* elf = nullptr;
    const struct btf* btf = nullptr; // may be null
    const BtfExt* btf_ext = nullptr; // may be null
    const MapTable* maps = nullptr;
};

// Appends one ProgramSpec per program (ELF order) and every kfunc name the programs call.
Status build_programs(const LinkInputs& in, std::vector<ProgramSpec>& programs, std::vector<std::string>& kfuncs);

} // namespace strbpf::loader
