// SPDX-License-Identifier: BSD-2-Clause
// BtfView (loader/btf_view.hpp) against libbpf, whose answers it must give: on the running kernel's vmlinux BTF
// (every type id, size and resolved type, a sample of name lookups) and on small BTFs built with btf__add_*
// (every kind, arrays whose size overflows 32 bits, modifier chains); malformed data (a bad header, a cut or
// corrupt type section) ends in an error or absent types, never a read outside the data; and the BtfRef handle.
#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "loader/btf_view.hpp"

namespace strbpf {
namespace {

using BtfPtr = std::unique_ptr<struct btf, void (*)(struct btf*)>;

constexpr const char* kVmlinux = "/sys/kernel/btf/vmlinux";

std::vector<uint8_t> raw_of(const struct btf* b) {
    uint32_t size = 0;
    const auto* p = static_cast<const uint8_t*>(btf__raw_data(b, &size));
    return std::vector<uint8_t>(p, p + size);
}

// Every answer of the view equals libbpf's for every type id of LIB (plus two ids past the end).
void expect_same_answers(const struct btf* lib, BtfRef view, uint32_t step = 1) {
    const uint32_t n = btf__type_cnt(lib);
    ASSERT_EQ(btfv::type_cnt(view), n);
    for (uint32_t id = 0; id < n + 2; id += (id < n ? step : 1)) {
        SCOPED_TRACE("type id " + std::to_string(id));
        const btf_type* a = btf__type_by_id(lib, id);
        const btf_type* b = btfv::type_by_id(view, id);
        ASSERT_EQ(a == nullptr, b == nullptr);
        EXPECT_EQ(btfv::resolve_size(view, id), btf__resolve_size(lib, id));
        EXPECT_EQ(btfv::resolve_type(view, id), btf__resolve_type(lib, id));
        if (!a)
            continue;
        EXPECT_EQ(std::memcmp(a, b, sizeof *a), 0);
        const char* na = btf__name_by_offset(lib, a->name_off);
        const char* nb = btfv::name_by_offset(view, b->name_off);
        ASSERT_EQ(na == nullptr, nb == nullptr);
        if (na) {
            EXPECT_STREQ(na, nb);
        }
    }
}

TEST(BtfView, AgreesWithLibbpfOnTheRunningKernelsBtf) {
    if (!std::filesystem::exists(kVmlinux))
        GTEST_SKIP() << "this host has no " << kVmlinux;
    BtfPtr lib(btf__parse(kVmlinux, nullptr), btf__free);
    ASSERT_TRUE(lib);
    auto view = BtfView::map_file(kVmlinux);
    ASSERT_TRUE(view.ok()) << view.error().message;
    expect_same_answers(lib.get(), view->get());
    // Name lookups: the first type of each sampled name and kind is found where libbpf finds it.
    const uint32_t n = btf__type_cnt(lib.get());
    int looked = 0;
    for (uint32_t id = 1; id < n; id += 997) {
        const btf_type* t = btf__type_by_id(lib.get(), id);
        const char* name = btf__name_by_offset(lib.get(), t->name_off);
        if (!name || !*name)
            continue;
        EXPECT_EQ((*view)->find_by_name_kind(name, btf_kind(t)), btf__find_by_name_kind(lib.get(), name, btf_kind(t)))
            << name;
        ++looked;
    }
    EXPECT_GT(looked, 20);
    EXPECT_EQ((*view)->find_by_name_kind("strbpf_no_such_type", BTF_KIND_STRUCT), -ENOENT);
    EXPECT_EQ((*view)->find_by_name_kind("void", BTF_KIND_STRUCT), 0);
}

TEST(BtfView, LookupsFromSeveralThreadsSeeOneIndex) {
    if (!std::filesystem::exists(kVmlinux))
        GTEST_SKIP() << "this host has no " << kVmlinux;
    BtfPtr lib(btf__parse(kVmlinux, nullptr), btf__free);
    ASSERT_TRUE(lib);
    auto view = BtfView::map_file(kVmlinux);
    ASSERT_TRUE(view.ok());
    const uint32_t n = btf__type_cnt(lib.get());
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (uint32_t id = n - 1 - uint32_t(t); id > 0; id = id > 4001 ? id - 4001 : 0) // each from the far end
                if (std::memcmp(btfv::type_by_id(view->get(), id), btf__type_by_id(lib.get(), id), sizeof(btf_type)))
                    ++wrong;
        });
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(wrong.load(), 0);
}

// int(1) s64(2) char(3) struct pair { int a; s64 b; }(4) ptr->pair(5) typedef pair_t(6) const pair_t(7)
// volatile(8) int[3][5](9,10) huge[1<<20] of pair(11) huge2[1<<20] of huge(12: 2^40 elems) enum e(13) enum64(14)
// union u { int; char[3] }(15) fwd(16) float(17) func proto(18) func(19) restrict(20) ptr->void(21) and an
// array of itself(22)
BtfPtr every_kind() {
    BtfPtr b(btf__new_empty(), btf__free);
    struct btf* l = b.get();
    btf__add_int(l, "int", 4, BTF_INT_SIGNED);
    btf__add_int(l, "s64", 8, BTF_INT_SIGNED);
    btf__add_int(l, "char", 1, BTF_INT_CHAR);
    btf__add_struct(l, "pair", 16);
    btf__add_field(l, "a", 1, 0, 0);
    btf__add_field(l, "b", 2, 64, 0);
    btf__add_ptr(l, 4);
    btf__add_typedef(l, "pair_t", 4);
    btf__add_const(l, 6);
    btf__add_volatile(l, 7);
    btf__add_array(l, 1, 1, 5);
    btf__add_array(l, 1, 9, 3);
    btf__add_array(l, 1, 4, 1 << 20);
    btf__add_array(l, 1, 11, 1 << 20);
    btf__add_enum(l, "e", 4);
    btf__add_enum_value(l, "E1", 1);
    btf__add_enum64(l, "e64", 8, false);
    btf__add_enum64_value(l, "BIG", 1ull << 40);
    btf__add_union(l, "u", 4);
    btf__add_field(l, "i", 1, 0, 0);
    btf__add_field(l, "c", 3, 0, 0);
    btf__add_fwd(l, "later", BTF_FWD_STRUCT);
    btf__add_float(l, "double", 8);
    const int proto = btf__add_func_proto(l, 1);
    btf__add_func_param(l, "x", 5);
    btf__add_func(l, "f", BTF_FUNC_GLOBAL, proto);
    btf__add_restrict(l, 5);
    btf__add_ptr(l, 0);
    btf__add_array(l, 1, 22, 3); // its own element: resolving it runs out of depth
    return b;
}

TEST(BtfView, AgreesWithLibbpfOnEveryKind) {
    BtfPtr lib = every_kind();
    const std::vector<uint8_t> raw = raw_of(lib.get());
    auto view = BtfView::over(raw.data(), raw.size());
    ASSERT_TRUE(view.ok()) << view.error().message;
    expect_same_answers(lib.get(), view->get());
    EXPECT_EQ(btfv::resolve_size(view->get(), 12), -E2BIG); // 2^40 elements
    EXPECT_EQ(btfv::resolve_size(view->get(), 10), 60);     // int[3][5]
    EXPECT_EQ(btfv::resolve_type(view->get(), 8), 4);       // volatile const pair_t -> struct pair
    EXPECT_EQ((*view)->find_by_name_kind("pair", BTF_KIND_STRUCT), 4);
    EXPECT_EQ((*view)->find_by_name_kind("pair", BTF_KIND_UNION), -ENOENT);
}

TEST(BtfView, MalformedDataIsAnErrorOrEndsTheTypes) {
    BtfPtr lib = every_kind();
    std::vector<uint8_t> raw = raw_of(lib.get());
    btf_header h{};
    std::memcpy(&h, raw.data(), sizeof h);

    std::vector<uint8_t> bad = raw;
    bad[0] ^= 0xff; // magic
    EXPECT_FALSE(BtfView::over(bad.data(), bad.size()).ok());
    EXPECT_FALSE(BtfView::over(raw.data(), sizeof h - 1).ok());   // shorter than the header
    EXPECT_FALSE(BtfView::over(raw.data(), raw.size() - 1).ok()); // strings run past the end

    // A kind no BTF has, in the fifth type's header: ids 1-4 stay, the rest read as absent.
    bad = raw;
    uint32_t off = 0;
    for (uint32_t id = 1; id < 5; ++id)
        off += uint32_t(reinterpret_cast<const uint8_t*>(btf__type_by_id(lib.get(), id + 1)) -
                        reinterpret_cast<const uint8_t*>(btf__type_by_id(lib.get(), id)));
    btf_type t{};
    std::memcpy(&t, &bad[h.hdr_len + h.type_off + off], sizeof t);
    t.info = (t.info & ~(0x1fu << 24)) | (0x1fu << 24);
    std::memcpy(&bad[h.hdr_len + h.type_off + off], &t, sizeof t);
    auto view = BtfView::over(bad.data(), bad.size());
    ASSERT_TRUE(view.ok());
    EXPECT_NE((*view)->type_by_id(4), nullptr);
    EXPECT_EQ((*view)->type_by_id(5), nullptr);
    EXPECT_EQ((*view)->type_cnt(), 5u);
    EXPECT_EQ((*view)->find_by_name_kind("double", BTF_KIND_FLOAT), -ENOENT);

    // A struct claiming more members than the section holds: it ends the types.
    bad = raw;
    const uint32_t last = btf__type_cnt(lib.get()) - 1; // ptr -> void, the section's last record
    std::vector<uint8_t> cut(bad.begin(), bad.end());
    const auto* lt = btf__type_by_id(lib.get(), last);
    const size_t last_off =
        size_t(reinterpret_cast<const uint8_t*>(lt) - reinterpret_cast<const uint8_t*>(btf__type_by_id(lib.get(), 1)));
    btf_type s{};
    std::memcpy(&s, &cut[h.hdr_len + h.type_off + last_off], sizeof s);
    s.info = (BTF_KIND_STRUCT << 24) | 60; // 60 members after the last header
    std::memcpy(&cut[h.hdr_len + h.type_off + last_off], &s, sizeof s);
    auto v2 = BtfView::over(cut.data(), cut.size());
    ASSERT_TRUE(v2.ok());
    EXPECT_NE((*v2)->type_by_id(last - 1), nullptr);
    EXPECT_EQ((*v2)->type_by_id(last), nullptr);
    EXPECT_EQ((*v2)->name_by_offset(h.str_len), nullptr); // past the string section
}

TEST(BtfView, KernelBtfIsReadOncePerPathAndFallsBackToLibbpf) {
    BtfPtr lib = every_kind();
    const std::vector<uint8_t> raw = raw_of(lib.get());
    const auto dir = std::filesystem::temp_directory_path() / ("strbpf_btf_view_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string good = (dir / "raw.btf").string(), junk = (dir / "junk.btf").string();
    std::ofstream(good, std::ios::binary).write(reinterpret_cast<const char*>(raw.data()), std::streamsize(raw.size()));
    std::ofstream(junk) << "not BTF\n";

    auto a = kernel_btf(good), b = kernel_btf(good);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
    EXPECT_NE(a->view(), nullptr);
    EXPECT_EQ(btfv::find_by_name_kind(*a, "pair", BTF_KIND_STRUCT), 4);

    auto j = kernel_btf(junk);
    EXPECT_FALSE(j.ok());
    EXPECT_FALSE(j.error().message.empty());
    auto missing = kernel_btf((dir / "absent").string());
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, -ENOENT);
    std::filesystem::remove_all(dir);
}

TEST(BtfView, RefTellsItsKindAndCompares) {
    BtfPtr lib = every_kind();
    const std::vector<uint8_t> raw = raw_of(lib.get());
    auto view = BtfView::over(raw.data(), raw.size());
    ASSERT_TRUE(view.ok());
    const BtfRef none, l(lib.get()), v(view->get());
    EXPECT_FALSE(none);
    EXPECT_TRUE(l && v);
    EXPECT_EQ(l.libbpf(), lib.get());
    EXPECT_EQ(l.view(), nullptr);
    EXPECT_EQ(v.view(), view->get());
    EXPECT_EQ(v.libbpf(), nullptr);
    EXPECT_NE(l, v);
    EXPECT_EQ(BtfRef(view->get()), v);
    EXPECT_EQ(BtfRef(static_cast<const BtfView*>(nullptr)), none);
}

} // namespace
} // namespace strbpf
