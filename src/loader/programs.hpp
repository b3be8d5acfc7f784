// SPDX-License-Identifier: BSD-2-Clause
// Programs and subprograms (loader stage): finds every function in the object's code sections, then builds each
// program's instruction stream — main function, every reachable subprogram appended — with relocations applied.
#pragma once
#include <map>
#include <vector>

#include "loader/btf_ext.hpp"
#include "loader/btf_view.hpp"
#include "loader/elf_file.hpp"
#include "loader/externs.hpp"
#include "loader/maps.hpp"
#include "loader/object_spec.hpp"

struct btf;

namespace strbpf::loader {

struct LinkInputs {
    const ElfFile* elf = nullptr;
    BtfRef btf = nullptr; // may be null
    const BtfExt* btf_ext = nullptr; // may be null
    const MapTable* maps = nullptr;
    const ExternTable* externs = nullptr; // may be null
    int kconfig_map = -1;                 // index of the .kconfig map, -1 when none
    BtfRef target = nullptr;   // CO-RE relocations' target BTF; null: target_error says why
    std::string target_error;
};

// Appends one ProgramSpec per program (ELF order) to obj.programs and every kfunc they call or take the address
// of to obj.kfuncs (with obj.kfunc_extern).
Status build_programs(const LinkInputs& in, ObjectSpec& obj);

} // namespace strbpf::loader
