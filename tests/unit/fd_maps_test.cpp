// SPDX-License-Identifier: BSD-2-Clause
// prog_array, array_of_maps and hash_of_maps (runtime/maps/fd_maps.hpp): `values` initialisers applied when the
// object is instantiated, and the syscall view's answers (fds are object indexes in strbpf).
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>

#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/fd_maps.hpp"

namespace strbpf::runtime {
namespace {

std::unique_ptr<ObjectInstance> instantiate(const char* name) {
    auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/" + name);
    EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message);
    if (!spec.ok())
        return nullptr;
    auto inst = ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(spec).value()));
    EXPECT_TRUE(inst.ok()) << (inst.ok() ? "" : inst.error().message);
    return inst.ok() ? std::move(inst).value() : nullptr;
}

uint32_t program_index(const ObjectInstance& inst, const char* name) {
    for (size_t i = 0; i < inst.programs().size(); i++)
        if (inst.programs()[i].spec->name == name)
            return uint32_t(i);
    return UINT32_MAX;
}

TEST(ProgArray, ValuesInitialiseSlotsAndTheSyscallViewAnswersAsTheKernel) {
    auto inst = instantiate("maps_tail_call.bpf.o");
    ASSERT_TRUE(inst);
    Map* m = inst->find_map("jmp_init");
    ASSERT_TRUE(m && m->as_prog_array());
    ProgArrayMap* pa = m->as_prog_array();
    EXPECT_EQ(uint32_t(pa->prog(0)), program_index(*inst, "target_seven"));
    EXPECT_EQ(uint32_t(pa->prog(1)), program_index(*inst, "self_loop"));
    EXPECT_EQ(pa->prog(2), -1);
    EXPECT_EQ(pa->prog(4), -1); // past max_entries
    uint32_t k = 2, v = 0;
    EXPECT_EQ(m->copy_value(&k, &v), -ENOENT);
    k = 0;
    ASSERT_EQ(m->copy_value(&k, &v), 0);
    EXPECT_EQ(v, program_index(*inst, "target_seven"));
    v = program_index(*inst, "taken_slot");
    k = 3;
    EXPECT_EQ(m->update(&k, &v, kBpfNoexist), -EINVAL); // fd arrays take BPF_ANY only
    k = 4;
    EXPECT_EQ(m->update(&k, &v, kBpfAny), -E2BIG);
    k = 3;
    uint32_t bad = 1000;
    EXPECT_EQ(m->update(&k, &bad, kBpfAny), -EBADF);
    ASSERT_EQ(m->update(&k, &v, kBpfAny), 0);
    EXPECT_EQ(uint32_t(pa->prog(3)), v);
    EXPECT_EQ(m->remove(&k), 0);
    EXPECT_EQ(m->remove(&k), -ENOENT);
    EXPECT_EQ(m->lookup(&k), nullptr); // programs cannot look prog arrays up
}

TEST(MapInMap, LookupsReturnInnerMapsAndUpdatesMustMatchTheTemplate) {
    auto inst = instantiate("maps_in_map.bpf.o");
    ASSERT_TRUE(inst);
    Map* outer = inst->find_map("outer_arr");
    Map* in0 = inst->find_map("in0");
    Map* in1 = inst->find_map("in1");
    ASSERT_TRUE(outer && in0 && in1);
    uint32_t k = 0;
    EXPECT_EQ(outer->lookup(&k), in0);
    k = 1;
    EXPECT_EQ(outer->lookup(&k), nullptr);
    k = 2;
    EXPECT_EQ(outer->lookup(&k), in1);
    uint32_t fd = 0;
    ASSERT_EQ(outer->copy_value(&k, &fd), 0);
    EXPECT_EQ(inst->map(fd), in1);
    // The inner template is a map the verifier sees past map_count().
    const int t = inst->inner_template(size_t(inst->spec().find_map("outer_arr")));
    ASSERT_GE(t, int(inst->map_count()));
    EXPECT_EQ(inst->map(size_t(t))->spec().name, "outer_arr.inner");
    // bpf_map_meta_equal: a hash of maps is not an array of 4 u64s.
    uint32_t other = uint32_t(inst->spec().find_map("outer_hash"));
    k = 1;
    EXPECT_EQ(outer->update(&k, &other, kBpfAny), -EINVAL);
    uint32_t bad = 1000;
    EXPECT_EQ(outer->update(&k, &bad, kBpfAny), -EBADF);
    fd = uint32_t(inst->spec().find_map("in0"));
    ASSERT_EQ(outer->update(&k, &fd, kBpfAny), 0);
    EXPECT_EQ(outer->lookup(&k), in0);
    EXPECT_EQ(outer->remove(&k), 0);
    EXPECT_EQ(outer->remove(&k), -ENOENT);

    Map* hash = inst->find_map("outer_hash");
    ASSERT_TRUE(hash);
    k = 1;
    EXPECT_EQ(hash->lookup(&k), in1);
    k = 7;
    EXPECT_EQ(hash->lookup(&k), nullptr);
    EXPECT_EQ(hash->update(&k, &fd, kBpfExist), -ENOENT); // the hash map's flags apply
    ASSERT_EQ(hash->update(&k, &fd, kBpfNoexist), 0);
    EXPECT_EQ(hash->lookup(&k), in0);
}

TEST(SocketMaps, SockmapTakesSocketFdsWithTheKernelsErrnos) {
    auto inst = instantiate("maps_types.bpf.o");
    ASSERT_TRUE(inst);
    Map* sock = inst->find_map("sockm");
    ASSERT_TRUE(sock);
    int k = 0;
    uint64_t v = ~0ull; // above S32_MAX
    EXPECT_EQ(sock->update(&k, &v, kBpfAny), -EINVAL);
    v = 0x7fffff00; // no such fd
    EXPECT_EQ(sock->update(&k, &v, kBpfAny), -EBADF);
    EXPECT_EQ(sock->remove(&k), -EINVAL); // an empty slot
    // sk_storage's spec rules are the local storages'.
    Map* sk = inst->find_map("sk_st");
    ASSERT_TRUE(sk);
    loader::MapSpec bad = sk->spec();
    bad.max_entries = 4; // local storage needs max_entries 0
    EXPECT_EQ(create_map(bad).error().code, -EINVAL);
    bad = sk->spec();
    bad.map_flags = 0; // ... and BPF_F_NO_PREALLOC
    EXPECT_EQ(create_map(bad).error().code, -EINVAL);
}

} // namespace
} // namespace strbpf::runtime
