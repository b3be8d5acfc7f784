// SPDX-License-Identifier: BSD-2-Clause
// struct_ops variables (loader stage): which program each `.struct_ops` / `.struct_ops.link` member names.
#pragma once
#include <string>

#include "loader/btf_view.hpp"
#include "loader/elf_file.hpp"
#include "loader/object_spec.hpp"

struct btf;

namespace strbpf::loader {

// A struct_ops program's place (libbpf's struct_ops map): the variable whose function-pointer member names it.
struct StructOpsUse {
    std::string map;    // the variable, libbpf's map name
    std::string type;   // its struct's name in the object's BTF: "tcp_congestion_ops", "bpf_dummy_ops", ...
    std::string member; // "ssthresh", "test_1", ...
    bool link = false;  // in `.struct_ops.link`
    std::string error;  // libbpf's refusal when loading it (a second variable names it for another member)
};

// Reads every struct_ops variable of the object after build_programs (libbpf's init_struct_ops_maps and
// collect_st_ops_relos) and keeps each program's StructOpsUse with the object's BTF (BTF is how libbpf finds the
// variables; the record lives until that BTF is freed: forget_struct_ops). A struct_ops program no variable names
// has none (the verifier refuses it with libbpf's "isn't referenced anywhere"); a variable naming a program of
// another type fails that program alone; a malformed section fails the object, as libbpf fails it.
Status bind_struct_ops(const ElfFile& elf, BtfRef btf, ObjectSpec& obj);

// The StructOpsUse of OBJ's program PROG; nullptr when none names it.
const StructOpsUse* struct_ops_use(const ObjectSpec& obj, const std::string& prog);

// Drops what bind_struct_ops kept for BTF (the deleter of ObjectSpec::btf calls it).
void forget_struct_ops(BtfRef btf);

} // namespace strbpf::loader
