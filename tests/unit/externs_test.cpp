// SPDX-License-Identifier: BSD-2-Clause
// Extern symbols (loader and runtime stages): the .kconfig map libbpf builds (layout, values from a Kconfig file
// of the test's own, libbpf's errors for values of the wrong type and for strong externs left unresolved, each
// failing only the programs that use it) and kfunc externs (a weak one strbpf lacks: address 0, calls poisoned).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "loader/externs.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"

namespace strbpf::loader {
namespace {

const std::string kTypes = std::string(STRBPF_PROGS_DIR) + "/externs_kconfig_types.bpf.o";
const std::string kVirtual = std::string(STRBPF_PROGS_DIR) + "/externs_kconfig.bpf.o";
const std::string kKsym = std::string(STRBPF_PROGS_DIR) + "/externs_ksym.bpf.o";

std::string write_kconfig(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}

LoadOptions with_kconfig(const std::string& path) {
    LoadOptions o;
    o.kconfig_path = path;
    return o;
}

const ExternSpec* find_extern(const ObjectSpec& obj, const std::string& name) {
    for (const ExternSpec& e : obj.externs)
        if (e.name == name)
            return &e;
    return nullptr;
}

const MapSpec& kconfig_map(const ObjectSpec& obj) {
    const int idx = obj.find_map(".kconfig");
    EXPECT_GE(idx, 0);
    return obj.maps[size_t(idx)];
}

template <class T> T value_of(const ObjectSpec& obj, const std::string& name) {
    const ExternSpec* e = find_extern(obj, name);
    EXPECT_NE(e, nullptr) << name;
    T v{};
    if (e)
        std::memcpy(&v, kconfig_map(obj).initial.data() + e->kconfig_off, sizeof v);
    return v;
}

TEST(Externs, KconfigLayoutFollowsLibbpfOrder) {
    const std::string cfg = write_kconfig("externs_layout.config", "CONFIG_HZ=250\nCONFIG_BPF_SYSCALL=y\n");
    auto r = load_object_file(kTypes, with_kconfig(cfg));
    ASSERT_TRUE(r.ok()) << r.error().message;
    // cmp_externs: alignment 8 first, then 4, then 1 (by size: the char before the 16-byte array).
    ASSERT_EQ(r->externs.size(), 4u);
    EXPECT_EQ(r->externs[0].name, "CONFIG_ILLEGAL_POINTER_VALUE");
    EXPECT_EQ(r->externs[0].kconfig_off, 0u);
    EXPECT_EQ(r->externs[1].name, "CONFIG_HZ");
    EXPECT_EQ(r->externs[1].kconfig_off, 8u);
    EXPECT_EQ(r->externs[2].name, "CONFIG_BPF_SYSCALL");
    EXPECT_EQ(r->externs[2].kconfig_off, 12u);
    EXPECT_EQ(r->externs[3].name, "CONFIG_DEFAULT_HOSTNAME");
    EXPECT_EQ(r->externs[3].kconfig_off, 13u);
    const MapSpec& m = kconfig_map(*r);
    EXPECT_EQ(m.value_size, 29u);
    EXPECT_TRUE(m.frozen);
    EXPECT_TRUE(m.map_flags & kMapFlagRdonlyProg);
}

TEST(Externs, KconfigValuesOfEveryType) {
    const std::string cfg =
        write_kconfig("externs_values.config", "# comment\nCONFIG_HZ=1000\n"
                                               "CONFIG_ILLEGAL_POINTER_VALUE=0xdead000000000000\n"
                                               "CONFIG_BPF_SYSCALL=m\n"
                                               "CONFIG_DEFAULT_HOSTNAME=\"a-rather-long-hostname\"\n");
    auto r = load_object_file(kTypes, with_kconfig(cfg));
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const ExternSpec& e : r->externs)
        EXPECT_EQ(e.error, "") << e.name;
    EXPECT_EQ(value_of<int32_t>(*r, "CONFIG_HZ"), 1000);
    EXPECT_EQ(value_of<uint64_t>(*r, "CONFIG_ILLEGAL_POINTER_VALUE"), 0xdead000000000000ull);
    EXPECT_EQ(value_of<char>(*r, "CONFIG_BPF_SYSCALL"), 'm');
    const ExternSpec* host = find_extern(*r, "CONFIG_DEFAULT_HOSTNAME");
    ASSERT_NE(host, nullptr);
    const char* s = reinterpret_cast<const char*>(kconfig_map(*r).initial.data() + host->kconfig_off);
    EXPECT_EQ(std::string(s), "a-rather-long-h"); // truncated to 15 bytes and its NUL, as libbpf does
}

TEST(Externs, StrongUnresolvedFailsOnlyItsProgram) {
    const std::string cfg = write_kconfig("externs_strong.config", "CONFIG_BPF_SYSCALL=y\n");
    auto r = load_object_file(kTypes, with_kconfig(cfg));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const ProgramSpec* hz = r->find_program("config_int");
    ASSERT_NE(hz, nullptr);
    EXPECT_NE(hz->load_error.find("extern 'CONFIG_HZ' (strong): not resolved"), std::string::npos) << hz->load_error;
    EXPECT_EQ(r->find_program("config_char")->load_error, "");
    EXPECT_EQ(r->find_program("config_u64")->load_error, ""); // weak: zero
    EXPECT_EQ(value_of<uint64_t>(*r, "CONFIG_ILLEGAL_POINTER_VALUE"), 0u);
}

TEST(Externs, ValueOfTheWrongTypeIsLibbpfsError) {
    const std::string cfg = write_kconfig("externs_wrong.config", "CONFIG_HZ=\"250\"\nCONFIG_BPF_SYSCALL=y\n");
    auto r = load_object_file(kTypes, with_kconfig(cfg));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const std::string& why = r->find_program("config_int")->load_error;
    EXPECT_NE(why.find("extern (kcfg) 'CONFIG_HZ': value '\"250\"' implies char array type"), std::string::npos) << why;
    // libbpf stops reading at the bad line and fails the object: every kconfig user fails here.
    EXPECT_NE(r->find_program("config_char")->load_error, "");
}

TEST(Externs, MissingKconfigFileIsAClearError) {
    auto r = load_object_file(kTypes, with_kconfig("/nonexistent/strbpf.config"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_NE(
        r->find_program("config_int")->load_error.find("failed to open Kconfig file '/nonexistent/strbpf.config'"),
        std::string::npos);
}

TEST(Externs, VirtualExterns) {
    auto r = load_object_file(kVirtual, with_kconfig(write_kconfig("externs_virtual.config", "CONFIG_BPF_SYSCALL=y\n"
                                                                                             "CONFIG_BPF_JIT=m\n")));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(value_of<uint32_t>(*r, "LINUX_KERNEL_VERSION"), running_kernel_version());
    EXPECT_NE(running_kernel_version(), 0u);
    EXPECT_EQ(value_of<uint8_t>(*r, "LINUX_HAS_BPF_COOKIE"), 1);
    EXPECT_EQ(value_of<uint8_t>(*r, "LINUX_HAS_NO_SUCH_FEATURE"), 0);
    EXPECT_EQ(value_of<uint32_t>(*r, "CONFIG_BPF_JIT"), 2u); // TRI_MODULE
    EXPECT_EQ(value_of<uint8_t>(*r, "CONFIG_BPF_SYSCALL"), 1);
}

TEST(Externs, EssentialName) {
    EXPECT_EQ(essential_name("bpf_strlen___v2"), "bpf_strlen");
    EXPECT_EQ(essential_name("task_struct___x___y"), "task_struct___x");
    EXPECT_EQ(essential_name("a____b"), "a____b");
    EXPECT_EQ(essential_name("plain"), "plain");
}

TEST(Externs, WeakAbsentKfuncIsPoisonedPresentOneLinks) {
    auto r = load_object_file(kKsym);
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto spec = std::make_shared<const ObjectSpec>(std::move(*r));
    ASSERT_EQ(spec->externs.size(), 2u); // by name: bpf_strbpf_absent_kfunc, bpf_strlen
    EXPECT_EQ(spec->externs[0].name, "bpf_strbpf_absent_kfunc");
    EXPECT_TRUE(spec->externs[0].weak);
    auto inst = runtime::ObjectInstance::create(spec);
    ASSERT_TRUE(inst.ok()) << inst.error().message;
    const runtime::LinkedProgram* absent = (*inst)->find_program("guarded_call_absent");
    ASSERT_NE(absent, nullptr);
    ASSERT_TRUE(absent->linked) << absent->link_error.message;
    bool poisoned = false;
    for (const isa::Insn& in : absent->insns)
        poisoned |= in.opcode == (isa::BPF_JMP | isa::BPF_CALL) && in.src == 0 && in.imm == 2002000000;
    EXPECT_TRUE(poisoned);
    EXPECT_TRUE((*inst)->find_program("guarded_call_present")->linked);
}

} // namespace
} // namespace strbpf::loader
