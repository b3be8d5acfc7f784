// SPDX-License-Identifier: BSD-2-Clause
// The special fields of a map value (loader stage), found in the object's BTF as Linux 6.18's btf_parse_fields
// finds them: kptrs (pointer members tagged `kptr`, `kptr_untrusted` or `percpu_kptr`) and the named kernel structs
// (bpf_spin_lock, bpf_timer, bpf_wq, bpf_list_head, bpf_rb_root, bpf_refcount), arrays of them and structs holding
// them repeated as btf_repeat_fields repeats them. The verifier (verifier/kptr.cpp) and the runtime's maps (what a
// copy into or out of a value skips: runtime/maps/value_fields.hpp) read the same record.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "loader/btf_view.hpp"
#include "loader/object_spec.hpp"

namespace strbpf::loader {

enum class KptrKind : uint8_t { unref, ref, percpu }; // kptr_untrusted, kptr, percpu_kptr

struct KptrField {
    uint32_t off = 0;
    KptrKind kind = KptrKind::ref;
    bool local = false;   // the pointee is a type of the program's BTF only (a bpf_obj_new object)
    uint32_t type_id = 0; // the pointee struct: in `btf` (kernel BTF) or, when local, in the program's BTF
    BtfRef btf = nullptr;
    std::string type_name;
};

// The kinds of special field (bits), for map_check_btf's per-type rules.
enum : unsigned {
    kFieldSpinLock = 1,
    kFieldTimer = 2,
    kFieldWq = 4,
    kFieldGraphRoot = 8,
    kFieldRefcount = 16,
    kFieldKptr = 32,
    kFieldGraphNode = 64 // bpf_list_node, bpf_rb_node: fields of program-local structs only (struct_meta)
};

// A special struct in the value: one of the kFieldSpinLock..kFieldRefcount bits, its offset and its BTF size.
struct SpecialStruct {
    uint32_t off = 0;
    uint32_t size = 0;
    unsigned kind = 0;
    const char* name = ""; // the struct's name (btf_field_type_name): "bpf_spin_lock", "bpf_list_head", ...
    // bpf_list_head / bpf_rb_root (btf_find_graph_root, btf_parse_graph_root): the struct of the program's BTF
    // its `contains:<struct>:<node>` decl tag names, and the offset of that node member in it.
    uint32_t value_type_id = 0;
    uint32_t node_off = 0;
};

struct ValueFields {
    std::vector<KptrField> kptrs;       // by offset
    std::vector<SpecialStruct> structs; // by offset
    // The first special struct of kind KIND (one of the kField* bits) at offset OFF, or null.
    const SpecialStruct* find(unsigned kind, uint32_t off) const {
        for (const SpecialStruct& s : structs)
            if (s.kind == kind && s.off == off)
                return &s;
        return nullptr;
    }
    // The offset of the (one) bpf_spin_lock, bpf_refcount, ...: -1 when there is none.
    int32_t offset_of(unsigned kind) const {
        for (const SpecialStruct& s : structs)
            if (s.kind == kind)
                return int32_t(s.off);
        return -1;
    }
    bool no_btf = false; // map_check_btf refuses the value's special fields for this map type: libbpf creates the
                         // map without BTF (no field at all)
};

// The special fields of map M's value in the object's BTF B (KB: the kernel's BTF, or null when it cannot be read:
// then every kptr's pointee counts as a program-local type). None when the map has no BTF-typed value (a legacy
// definition), when btf_parse_fields fails for the value (the map then has no special field), or when the map's
// type refuses them (no_btf set).
ValueFields map_value_fields(BtfRef b, BtfRef kb, const MapSpec& m);

// btf_parse_struct_metas' record of the program-local struct ID (a bpf_obj_new object's type): `has` when the
// struct has one (a direct member of type bpf_spin_lock, bpf_list_head/_node, bpf_rb_root/_node or bpf_refcount, or
// a kptr member), its fields then (those kinds and kptrs, nested structs and arrays walked; no bpf_timer or bpf_wq);
// `error` when btf_parse_fields fails for it (the kernel then refuses the object's BTF: object_btf_error).
struct StructMeta {
    bool has = false;
    ValueFields fields;
    std::string error;
};
StructMeta struct_meta(BtfRef b, BtfRef kb, uint32_t id);

// btf_parse_struct_metas, when the kernel loads the object's BTF: why the kernel refuses the BTF as a whole ('' when
// it loads); libbpf then creates every map without BTF.
std::string object_btf_error(BtfRef b, BtfRef kb);

} // namespace strbpf::loader
