// SPDX-License-Identifier: BSD-2-Clause
// The graph roots' records (loader stage), on tests/progs/graph_list.bpf.c: a bpf_list_head's `contains:` decl tag
// resolved as btf_parse_graph_root resolves it (the struct of the program's BTF and its node member's offset), in
// a map value, in a global data section (whose DATASEC offsets the loader fixes from the ELF symbols, as libbpf's
// btf_fixup_datasec does: clang leaves them 0) and in an object's struct; and btf_parse_fields' rule that a root
// needs a bpf_spin_lock beside it.
#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "loader/btf_fields.hpp"
#include "loader/btf_view.hpp"
#include "loader/loader.hpp"

namespace strbpf::loader {
namespace {

const std::string kPath = std::string(STRBPF_PROGS_DIR) + "/graph_list.bpf.o";

const MapSpec* map_named(const ObjectSpec& o, const std::string& name) {
    for (const MapSpec& m : o.maps)
        if (m.name == name || m.section == name)
            return &m;
    return nullptr;
}

uint32_t struct_id(const ObjectSpec& o, const char* name) {
    const int id = btfv::find_by_name_kind(o.btf.get(), name, BTF_KIND_STRUCT);
    return id > 0 ? uint32_t(id) : 0;
}

const SpecialStruct* field(const ValueFields& f, const char* name, int nth = 0) {
    for (const SpecialStruct& s : f.structs)
        if (std::strcmp(s.name, name) == 0 && nth-- == 0)
            return &s;
    return nullptr;
}

TEST(GraphFields, MapValueListHeadNamesItsStructAndNode) {
    auto o = load_object_file(kPath);
    ASSERT_TRUE(o.ok()) << o.error().message;
    const MapSpec* m = map_named(*o, "list_map");
    ASSERT_NE(m, nullptr);
    const ValueFields f = map_value_fields(o->btf.get(), nullptr, *m);
    EXPECT_EQ(f.offset_of(kFieldSpinLock), 0);
    const SpecialStruct* head = field(f, "bpf_list_head");
    ASSERT_NE(head, nullptr);
    EXPECT_EQ(head->off, 16u); // struct value { lock; long data; head }
    EXPECT_EQ(head->value_type_id, struct_id(*o, "item"));
    EXPECT_EQ(head->node_off, 8u); // struct item { long data; struct bpf_list_node node; }
}

TEST(GraphFields, GlobalSectionFieldsLieAtTheirSymbols) {
    auto o = load_object_file(kPath);
    ASSERT_TRUE(o.ok()) << o.error().message;
    const MapSpec* a = map_named(*o, ".bss.A");
    const MapSpec* b = map_named(*o, ".bss.B");
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    const ValueFields fa = map_value_fields(o->btf.get(), nullptr, *a);
    const SpecialStruct* lock = field(fa, "bpf_spin_lock");
    const SpecialStruct* head = field(fa, "bpf_list_head");
    ASSERT_NE(lock, nullptr);
    ASSERT_NE(head, nullptr);
    EXPECT_NE(lock->off, head->off); // without the fixup both variables read as offset 0
    EXPECT_EQ(head->off % 8, 0u);
    EXPECT_LE(head->off + 16, a->value_size);
    const ValueFields fb = map_value_fields(o->btf.get(), nullptr, *b);
    const SpecialStruct* head2 = field(fb, "bpf_list_head");
    ASSERT_NE(head2, nullptr);
    EXPECT_EQ(head2->value_type_id, struct_id(*o, "two_nodes"));
    EXPECT_EQ(head2->node_off, 32u); // two_nodes { first; long data; second }
}

TEST(GraphFields, ObjectStructsRecordRootsAndNodes) {
    auto o = load_object_file(kPath);
    ASSERT_TRUE(o.ok()) << o.error().message;
    const StructMeta owner = struct_meta(o->btf.get(), nullptr, struct_id(*o, "owner"));
    ASSERT_TRUE(owner.has);
    EXPECT_EQ(owner.error, "");
    const SpecialStruct* head = field(owner.fields, "bpf_list_head");
    ASSERT_NE(head, nullptr);
    EXPECT_EQ(head->value_type_id, struct_id(*o, "item"));
    const StructMeta two = struct_meta(o->btf.get(), nullptr, struct_id(*o, "two_nodes"));
    ASSERT_TRUE(two.has);
    ASSERT_NE(field(two.fields, "bpf_list_node", 1), nullptr);
    EXPECT_EQ(field(two.fields, "bpf_list_node", 0)->off, 0u);
    EXPECT_EQ(field(two.fields, "bpf_list_node", 1)->off, 32u);
    EXPECT_EQ(object_btf_error(o->btf.get(), nullptr), "");
}

} // namespace
} // namespace strbpf::loader
