// SPDX-License-Identifier: BSD-2-Clause
// Reads through map pointers (runtime/maps/kernel_view.hpp): what strbpf refuses although the kernel accepts it
// (fields whose value is the kernel's own state, bytes past the container struct, one load through a map pointer
// and another pointer type), in strbpf's words; reads it accepts run on interp and jit, each load rewritten into
// two, and the checked interpreter, which runs the program as written, stops at one with a clear error. The
// values every engine reads, the kernel's included, are tests/progs/maps_kernel_view.bpf.c's.
#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "exec/runner.hpp"
#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"
#include "verifier/verifier.hpp"

namespace strbpf {
namespace {

using exec::EngineKind;

// The byte offset of MEMBER in the running kernel's struct NAME (members of nested structs not searched).
int member_offset(const char* name, const char* member) {
    static const struct btf* b = btf__load_vmlinux_btf();
    const int id = b ? btf__find_by_name_kind(b, name, BTF_KIND_STRUCT) : -1;
    const btf_type* t = id > 0 ? btf__type_by_id(b, uint32_t(id)) : nullptr;
    for (uint32_t i = 0; t && i < btf_vlen(t); i++)
        if (std::string(btf__name_by_offset(b, btf_members(t)[i].name_off)) == member)
            return int(btf_member_bit_offset(t, i) / 8);
    return -1;
}
int struct_size(const char* name) {
    static const struct btf* b = btf__load_vmlinux_btf();
    const int id = b ? btf__find_by_name_kind(b, name, BTF_KIND_STRUCT) : -1;
    return id > 0 ? int(btf__type_by_id(b, uint32_t(id))->size) : -1;
}

isa::Insn insn(uint8_t op, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
    isa::Insn i{};
    i.opcode = op;
    i.dst = dst & 0xf;
    i.src = src & 0xf;
    i.off = off;
    i.imm = imm;
    return i;
}

// One map of TYPE (array: key 4, value 12, 5 entries; queue: value 4) and a syscall program of INSNS.
std::shared_ptr<const loader::ObjectSpec> object(uint32_t type, std::vector<isa::Insn> insns) {
    loader::ObjectSpec obj;
    obj.path = "map_view";
    obj.license = "GPL";
    loader::MapSpec m;
    m.name = "m";
    m.type = type;
    m.key_size = type == loader::kMapQueue ? 0 : 4;
    m.value_size = type == loader::kMapQueue ? 4 : 12;
    m.max_entries = 5;
    obj.maps.push_back(m);
    loader::ProgramSpec p;
    p.name = "prog";
    p.section = "syscall";
    p.type = loader::ProgType::syscall;
    p.sleepable = true;
    p.insns = std::move(insns);
    obj.programs.push_back(p);
    return std::make_shared<const loader::ObjectSpec>(std::move(obj));
}

// r1 = &m; r0 = *(SIZE *)(r1 + OFF); exit
std::vector<isa::Insn> read_field(int off, uint8_t size_bits) {
    return {insn(0x18, 1, isa::BPF_PSEUDO_MAP_FD, 0, 0), insn(0, 0, 0, 0, 0),
            insn(uint8_t(isa::BPF_LDX | isa::BPF_MEM | size_bits), 0, 1, int16_t(off), 0), insn(0x95, 0, 0, 0, 0)};
}

std::string verdict_reason(const std::shared_ptr<const loader::ObjectSpec>& spec) {
    auto inst = runtime::ObjectInstance::create(spec);
    if (!inst)
        return "instance: " + inst.error().message;
    const verifier::Verdict v = verifier::verify(*inst.value(), spec->programs[0]);
    return v.ok ? "" : v.reason;
}

class MapKernelView : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!std::filesystem::exists("/sys/kernel/btf/vmlinux"))
            GTEST_SKIP() << "no /sys/kernel/btf/vmlinux: the view is laid out by the running kernel's BTF";
    }
};

TEST_F(MapKernelView, ModelledFieldsRunOnInterpAndJit) {
    const int max_entries = member_offset("bpf_map", "max_entries");
    const int elem_size = member_offset("bpf_array", "elem_size");
    ASSERT_GT(max_entries, 0);
    ASSERT_GT(elem_size, 0);
    for (EngineKind e : {EngineKind::interp, EngineKind::jit}) {
        SCOPED_TRACE(exec::engine_name(e));
        exec::RunReport r = exec::run_fresh(e, object(loader::kMapArray, read_field(max_entries, isa::BPF_W)),
                                            "prog", exec::RunRequest{});
        ASSERT_TRUE(r.ran) << r.error;
        EXPECT_EQ(r.retval, 5u);
        r = exec::run_fresh(e, object(loader::kMapArray, read_field(elem_size, isa::BPF_W)), "prog",
                            exec::RunRequest{});
        ASSERT_TRUE(r.ran) << r.error;
        EXPECT_EQ(r.retval, 16u); // round_up(12, 8)
        // r0 = the map pointer's own register as dst: the rewrite's first load overwrites it, the second reads
        std::vector<isa::Insn> same = read_field(max_entries, isa::BPF_W);
        same[2] = insn(uint8_t(isa::BPF_LDX | isa::BPF_MEM | isa::BPF_W), 1, 1, int16_t(max_entries), 0);
        same.insert(same.begin() + 3, insn(0xbf, 0, 1, 0, 0)); // r0 = r1
        r = exec::run_fresh(e, object(loader::kMapArray, same), "prog", exec::RunRequest{});
        ASSERT_TRUE(r.ran) << r.error;
        EXPECT_EQ(r.retval, 5u);
    }
}

TEST_F(MapKernelView, TheCheckedInterpreterStopsAtAReadThroughAMapPointer) {
    const int max_entries = member_offset("bpf_map", "max_entries");
    exec::RunReport r = exec::run_fresh(EngineKind::interp_checked,
                                        object(loader::kMapArray, read_field(max_entries, isa::BPF_W)), "prog",
                                        exec::RunRequest{});
    EXPECT_FALSE(r.ran);
    EXPECT_NE(r.error.find("invalid memory read"), std::string::npos) << r.error;
}

TEST_F(MapKernelView, KernelStateFieldsAreRefusedNamingTheField) {
    const int refcnt = member_offset("bpf_map", "refcnt");
    ASSERT_GT(refcnt, 0);
    const std::string why = verdict_reason(object(loader::kMapArray, read_field(refcnt, isa::BPF_DW)));
    EXPECT_EQ(why, fmt::format("strbpf does not model this read through a map pointer (off={} size=8): field "
                               "map.refcnt.counter of struct bpf_array (its value is the kernel's own state)",
                               refcnt));
    const int head = member_offset("bpf_queue_stack", "head");
    ASSERT_GT(head, 0);
    EXPECT_NE(verdict_reason(object(loader::kMapQueue, read_field(head, isa::BPF_W)))
                  .find("field head of struct bpf_queue_stack"),
              std::string::npos);
}

// bpf_queue_stack ends in `char elements[]`: the kernel's walk lets a read into it through (a scalar); strbpf's
// view holds the struct only, the elements being the map's own storage.
TEST_F(MapKernelView, ReadsPastTheContainerStructAreRefused) {
    const int end = struct_size("bpf_queue_stack");
    ASSERT_GT(end, 0);
    const std::string why = verdict_reason(object(loader::kMapQueue, read_field(end + 8, isa::BPF_W)));
    EXPECT_NE(why.find(fmt::format("past the end of struct bpf_queue_stack ({} bytes", end)), std::string::npos)
        << why;
}

// The kernel lets one load read through a map pointer on one path and the stack on another; strbpf rewrites the
// load for the map pointer, so it refuses the mix.
TEST_F(MapKernelView, OneLoadThroughAMapPointerAndTheStackIsRefused) {
    const std::vector<isa::Insn> insns = {
        insn(0x7a, 10, 0, -8, 0),                           // *(u64 *)(r10 - 8) = 0
        insn(0x85, 0, 0, 0, 7),                             // r0 = bpf_get_prandom_u32()
        insn(0xbf, 1, 10, 0, 0),                            // r1 = r10
        insn(0x07, 1, 0, 0, -8),                            // r1 += -8
        insn(0x15, 0, 0, 2, 0),                             // if r0 == 0 goto +2
        insn(0x18, 1, isa::BPF_PSEUDO_MAP_FD, 0, 0),        // r1 = &m
        insn(0, 0, 0, 0, 0),
        insn(0x61, 0, 1, 0, 0),                             // r0 = *(u32 *)(r1 + 0): map.sha or the stack
        insn(0x95, 0, 0, 0, 0),
    };
    EXPECT_NE(verdict_reason(object(loader::kMapArray, insns))
                  .find("strbpf does not model one load through a map pointer and another pointer type"),
              std::string::npos);
}

TEST_F(MapKernelView, WritesKeepTheKernelsWords) {
    std::vector<isa::Insn> insns = read_field(0, isa::BPF_W);
    insns[2] = insn(0x62, 1, 0, int16_t(member_offset("bpf_map", "max_entries")), 1); // *(u32 *)(r1 + off) = 1
    insns.insert(insns.begin() + 3, insn(0xb7, 0, 0, 0, 0));
    EXPECT_EQ(verdict_reason(object(loader::kMapArray, insns)), "only read from bpf_array is supported");
}

} // namespace
} // namespace strbpf
