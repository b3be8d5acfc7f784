// SPDX-License-Identifier: BSD-2-Clause
// Which kfunc externs each program of a BPF ELF object calls (exec stage, kernel engine): read from the ELF's
// symbols and call relocations, following BPF-to-BPF calls, so a program can be skipped when this kernel lacks
// one, and the missing externs of *other* programs can be made weak so libbpf still loads this one.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "strbpf/result.hpp"

namespace strbpf::exec::kernel {

struct KfuncExtern {
    std::string name;
    bool weak = false;
    size_t info_offset = 0; // file offset of the symbol's st_info byte
};

struct ObjectKfuncs {
    std::vector<KfuncExtern> externs;                    // undefined symbols that call instructions target
    std::map<std::string, std::set<std::string>> called; // program name -> kfunc externs it can reach
};

// Scans an ELF image (bounds-checked; malformed input gives an Error, never a crash).
Result<ObjectKfuncs> scan_kfuncs(const std::vector<uint8_t>& image);

// Rewrites the binding of extern NAME to STB_WEAK in IMAGE (libbpf then leaves it unresolved without failing).
void make_extern_weak(std::vector<uint8_t>* image, const KfuncExtern& ext);

} // namespace strbpf::exec::kernel
