// SPDX-License-Identifier: BSD-2-Clause
// Loader tests (loader stage): loads tests/progs/loader_basic.bpf.o and checks every part of the ObjectSpec —
// programs, subprogram layout, relocated pseudo forms, maps and their initial bytes, kfuncs, license, line info.
#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "loader/loader.hpp"

namespace strbpf::loader {
namespace {

using isa::Insn;

const std::string kBasic = std::string(STRBPF_PROGS_DIR) + "/loader_basic.bpf.o";

class LoaderBasic : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        auto r = load_object_file(kBasic);
        ASSERT_TRUE(r.ok()) << r.error().message;
        obj_ = new ObjectSpec(std::move(r.value()));
    }
    static void TearDownTestSuite() {
        delete obj_;
        obj_ = nullptr;
    }
    static const ProgramSpec& prog(const std::string& name) {
        const ProgramSpec* p = obj_->find_program(name);
        EXPECT_NE(p, nullptr) << name;
        static ProgramSpec empty;
        return p ? *p : empty;
    }
    static const FuncInfo* func(const ProgramSpec& p, const std::string& name) {
        for (const FuncInfo& f : p.funcs)
            if (f.name == name)
                return &f;
        return nullptr;
    }
    // Length of function `i` of a program: up to the next function or the end.
    static size_t func_len(const ProgramSpec& p, size_t i) {
        return (i + 1 < p.funcs.size() ? p.funcs[i + 1].insn : p.insns.size()) - p.funcs[i].insn;
    }
    static std::vector<size_t> ld_imm64_with_src(const ProgramSpec& p, uint8_t src) {
        std::vector<size_t> out;
        for (size_t i = 0; i < p.insns.size(); ++i)
            if (isa::is_ld_imm64(p.insns[i]) && p.insns[i].src == src)
                out.push_back(i++);
        return out;
    }
    static inline ObjectSpec* obj_ = nullptr;
};

TEST_F(LoaderBasic, LicenseBtfAndPath) {
    EXPECT_EQ(obj_->license, "GPL");
    EXPECT_NE(obj_->btf, nullptr);
    EXPECT_EQ(obj_->path, kBasic);
}

TEST_F(LoaderBasic, ProgramsInSectionThenOffsetOrder) {
    struct Want {
        const char* name;
        const char* section;
        ProgType type;
        bool autoload;
    };
    const Want want[] = {
        {"prog_strings", "syscall", ProgType::syscall, true},
        {"prog_calls", "syscall", ProgType::syscall, true},
        {"prog_maps", "tp/syscalls/sys_enter_getpid", ProgType::tracepoint, true},
        {"prog_optional", "tp/syscalls/sys_enter_getppid", ProgType::tracepoint, false},
        {"prog_loop", "xdp", ProgType::xdp, true},
    };
    ASSERT_EQ(obj_->programs.size(), std::size(want));
    for (size_t i = 0; i < std::size(want); ++i) {
        const ProgramSpec& p = obj_->programs[i];
        EXPECT_EQ(p.name, want[i].name);
        EXPECT_EQ(p.section, want[i].section);
        EXPECT_EQ(p.type, want[i].type) << p.name;
        EXPECT_EQ(p.autoload, want[i].autoload) << p.name;
        ASSERT_FALSE(p.funcs.empty());
        EXPECT_EQ(p.funcs[0].insn, 0u);
        EXPECT_EQ(p.funcs[0].name, p.name);
        EXPECT_EQ(p.insns.back().opcode, isa::BPF_JMP | isa::BPF_EXIT) << p.name;
    }
}

TEST_F(LoaderBasic, BtfMaps) {
    ASSERT_EQ(obj_->maps.size(), 7u);
    const MapSpec& counts = obj_->maps[0];
    EXPECT_EQ(counts.name, "counts");
    EXPECT_EQ(counts.section, ".maps");
    EXPECT_EQ(counts.type, kMapHash);
    EXPECT_EQ(counts.key_size, 4u);
    EXPECT_EQ(counts.value_size, 8u);
    EXPECT_EQ(counts.max_entries, 16u);
    EXPECT_FALSE(counts.global_data);
    const MapSpec& slots = obj_->maps[1];
    EXPECT_EQ(slots.name, "slots");
    EXPECT_EQ(slots.type, kMapArray);
    EXPECT_EQ(slots.key_size, 4u);
    EXPECT_EQ(slots.value_size, 24u);
    EXPECT_EQ(slots.max_entries, 4u);
    EXPECT_EQ(slots.map_flags, 0u);
    EXPECT_TRUE(slots.initial.empty());
}

TEST_F(LoaderBasic, GlobalDataMapsInSectionOrder) {
    struct Want {
        const char* name;
        std::vector<uint8_t> initial;
        bool rodata;
    };
    const std::vector<Want> want = {
        {".data", {7, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0}, false},
        {".rodata", {42, 0, 0, 0}, true},
        {".data.foo", {0x34, 0x12, 0, 0}, false},
        {".rodata.str1.1", {'l', 'i', 't', 'e', 'r', 'a', 'l', ' ', 's', 't', 'r', 'i', 'n', 'g', 0}, true},
        {".bss", {0, 0, 0, 0, 0, 0, 0, 0}, false},
    };
    for (size_t i = 0; i < want.size(); ++i) {
        const MapSpec& m = obj_->maps[2 + i];
        EXPECT_EQ(m.name, want[i].name);
        EXPECT_EQ(m.section, want[i].name);
        EXPECT_EQ(m.type, kMapArray);
        EXPECT_EQ(m.key_size, 4u);
        EXPECT_EQ(m.value_size, want[i].initial.size()) << m.name;
        EXPECT_EQ(m.max_entries, 1u);
        EXPECT_TRUE(m.global_data);
        EXPECT_EQ(m.frozen, want[i].rodata) << m.name;
        EXPECT_EQ((m.map_flags & kMapFlagRdonlyProg) != 0, want[i].rodata) << m.name;
        EXPECT_EQ(m.initial, want[i].initial) << m.name;
        EXPECT_EQ(obj_->find_map(want[i].name), int(2 + i));
    }
    EXPECT_EQ(obj_->find_map("nope"), -1);
}

TEST_F(LoaderBasic, KfuncCallsBecomePseudoKfuncCalls) {
    ASSERT_EQ(obj_->kfuncs, (std::vector<std::string>{"bpf_strlen", "bpf_strcmp"}));
    const ProgramSpec& p = prog("prog_strings");
    std::vector<int32_t> calls;
    for (const Insn& i : p.insns)
        if (i.opcode == (isa::BPF_JMP | isa::BPF_CALL)) {
            EXPECT_EQ(i.src, isa::BPF_PSEUDO_KFUNC_CALL);
            calls.push_back(i.imm);
        }
    EXPECT_EQ(calls, (std::vector<int32_t>{0, 1, 0})); // strlen, strcmp, strlen: names deduplicated
}

TEST_F(LoaderBasic, GlobalDataLoadsBecomeMapValues) {
    const ProgramSpec& p = prog("prog_strings");
    std::vector<size_t> at = ld_imm64_with_src(p, isa::BPF_PSEUDO_MAP_VALUE);
    ASSERT_EQ(at.size(), 5u); // s, s, greeting, greeting, ro_word
    auto map_off = [&](size_t i) { return std::make_pair(p.insns[i].imm, p.insns[i + 1].imm); };
    const int str = obj_->find_map(".rodata.str1.1"), data = obj_->find_map(".data"), ro = obj_->find_map(".rodata");
    EXPECT_EQ(map_off(at[0]), std::make_pair(str, 0));
    EXPECT_EQ(map_off(at[1]), std::make_pair(str, 0));
    EXPECT_EQ(map_off(at[2]), std::make_pair(data, 4)); // greeting follows data_word in .data
    EXPECT_EQ(map_off(at[3]), std::make_pair(data, 4));
    EXPECT_EQ(map_off(at[4]), std::make_pair(ro, 0));
    // .data.foo and .bss through prog_calls: foo_word in main, bss_word in local_helper.
    const ProgramSpec& c = prog("prog_calls");
    std::vector<int32_t> maps;
    for (size_t i : ld_imm64_with_src(c, isa::BPF_PSEUDO_MAP_VALUE))
        maps.push_back(c.insns[i].imm);
    EXPECT_NE(std::find(maps.begin(), maps.end(), obj_->find_map(".data.foo")), maps.end());
    EXPECT_NE(std::find(maps.begin(), maps.end(), obj_->find_map(".bss")), maps.end());
}

TEST_F(LoaderBasic, MapLoadsBecomeMapFds) {
    const ProgramSpec& p = prog("prog_maps");
    std::vector<size_t> at = ld_imm64_with_src(p, isa::BPF_PSEUDO_MAP_FD);
    ASSERT_EQ(at.size(), 2u);
    EXPECT_EQ(p.insns[at[0]].imm, obj_->find_map("counts"));
    EXPECT_EQ(p.insns[at[1]].imm, obj_->find_map("slots"));
    EXPECT_EQ(p.insns[at[0] + 1].imm, 0);
    EXPECT_EQ(p.funcs.size(), 1u);
    // helper calls (bpf_map_lookup_elem = 1) are left alone
    for (const Insn& i : p.insns)
        if (i.opcode == (isa::BPF_JMP | isa::BPF_CALL)) {
            EXPECT_EQ(i.src, 0);
            EXPECT_EQ(i.imm, 1);
        }
}

// Every pseudo call lands on the first instruction of a function listed in FuncInfo; returns the callee names.
std::vector<std::string> call_targets(const ProgramSpec& p) {
    std::vector<std::string> out;
    for (size_t pc = 0; pc < p.insns.size(); ++pc) {
        const Insn& i = p.insns[pc];
        bool call = i.opcode == (isa::BPF_JMP | isa::BPF_CALL) && i.src == isa::BPF_PSEUDO_CALL;
        bool func_addr = isa::is_ld_imm64(i) && i.src == isa::BPF_PSEUDO_FUNC;
        if (!call && !func_addr)
            continue;
        int64_t target = int64_t(pc) + i.imm + 1;
        auto it = std::find_if(p.funcs.begin(), p.funcs.end(), [&](const FuncInfo& f) { return f.insn == target; });
        EXPECT_NE(it, p.funcs.end()) << p.name << " pc " << pc << " -> " << target;
        if (it != p.funcs.end())
            out.push_back(it->name);
    }
    return out;
}

TEST_F(LoaderBasic, SubprogramsAppendedInFirstReachedOrder) {
    const ProgramSpec& p = prog("prog_calls");
    std::vector<std::string> names;
    for (const FuncInfo& f : p.funcs)
        names.push_back(f.name);
    EXPECT_EQ(names,
              (std::vector<std::string>{"prog_calls", "global_add", "twice_static", "local_helper", "leaf_static"}));
    EXPECT_EQ(call_targets(p),
              (std::vector<std::string>{"global_add", "twice_static", "local_helper", "leaf_static", "leaf_static"}));
    // The same .text subprogram appended to another program has the same body.
    const ProgramSpec& o = prog("prog_optional");
    ASSERT_EQ(o.funcs.size(), 2u);
    EXPECT_EQ(o.funcs[1].name, "global_add");
    EXPECT_EQ(call_targets(o), (std::vector<std::string>{"global_add"}));
    const FuncInfo* ga = func(p, "global_add");
    ASSERT_NE(ga, nullptr);
    ASSERT_EQ(func_len(o, 1), func_len(p, 1));
    EXPECT_EQ(std::memcmp(&o.insns[o.funcs[1].insn], &p.insns[ga->insn], func_len(o, 1) * sizeof(Insn)), 0);
    EXPECT_EQ(o.insns.size(), o.funcs[1].insn + func_len(p, 1));
}

TEST_F(LoaderBasic, FuncInfoCarriesBtfFuncIds) {
    for (const ProgramSpec& p : obj_->programs) {
        for (const FuncInfo& f : p.funcs) {
            ASSERT_NE(f.type_id, 0u) << p.name << "/" << f.name;
            const btf_type* t = btf__type_by_id(obj_->btf.get(), f.type_id);
            ASSERT_NE(t, nullptr);
            EXPECT_TRUE(btf_is_func(t));
            EXPECT_STREQ(btf__name_by_offset(obj_->btf.get(), t->name_off), f.name.c_str());
        }
    }
}

TEST_F(LoaderBasic, CallbackAndSameSectionStaticSubprogram) {
    const ProgramSpec& p = prog("prog_loop");
    ASSERT_EQ(p.funcs.size(), 3u);
    EXPECT_EQ(p.funcs[1].name, "loop_cb");
    EXPECT_EQ(p.funcs[2].name, "xdp_local");
    EXPECT_EQ(ld_imm64_with_src(p, isa::BPF_PSEUDO_FUNC).size(), 1u);
    EXPECT_EQ(call_targets(p), (std::vector<std::string>{"loop_cb", "xdp_local"}));
    bool saw_bpf_loop = false;
    for (const Insn& i : p.insns)
        saw_bpf_loop |= i.opcode == (isa::BPF_JMP | isa::BPF_CALL) && i.src == 0 && i.imm == 181;
    EXPECT_TRUE(saw_bpf_loop);
}

TEST_F(LoaderBasic, LineInfoWithSourceText) {
    const ProgramSpec& p = prog("prog_calls");
    ASSERT_FALSE(p.lines.empty());
    EXPECT_EQ(p.lines[0].insn, 0u);
    EXPECT_NE(p.lines[0].source.find("return global_add(1, 2) + twice_static(3)"), std::string::npos)
        << p.lines[0].source;
    EXPECT_NE(p.lines[0].file.find("loader_basic.bpf.c"), std::string::npos) << p.lines[0].file;
    EXPECT_GT(p.lines[0].line, 0u);
    for (size_t i = 1; i < p.lines.size(); ++i)
        EXPECT_LE(p.lines[i - 1].insn, p.lines[i].insn);
    for (const LineInfo& l : p.lines)
        EXPECT_LT(l.insn, p.insns.size());
    // Lines of appended subprograms are remapped to their new positions.
    const FuncInfo* leaf = func(p, "leaf_static");
    ASSERT_NE(leaf, nullptr);
    bool found = false;
    for (const LineInfo& l : p.lines)
        if (l.insn >= leaf->insn && l.source.find("return x * 3;") != std::string::npos)
            found = true;
    EXPECT_TRUE(found);
}

TEST(Loader, MemoryAndFileLoadsAgree) {
    std::ifstream in(kBasic, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto a = load_object_memory(bytes, "mem");
    auto b = load_object_file(kBasic);
    ASSERT_TRUE(a.ok()) << a.error().message;
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_EQ(a->path, "mem");
    ASSERT_EQ(a->programs.size(), b->programs.size());
    for (size_t i = 0; i < a->programs.size(); ++i) {
        ASSERT_EQ(a->programs[i].insns.size(), b->programs[i].insns.size());
        EXPECT_EQ(std::memcmp(a->programs[i].insns.data(), b->programs[i].insns.data(),
                              a->programs[i].insns.size() * sizeof(Insn)),
                  0);
    }
}

TEST(Loader, MissingFileIsAnError) {
    auto r = load_object_file("/nonexistent/loader_missing.bpf.o");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("/nonexistent/loader_missing.bpf.o"), std::string::npos);
    auto dir = load_object_file(STRBPF_SOURCE_DIR);
    ASSERT_FALSE(dir.ok());
    EXPECT_NE(dir.error().message.find("not a regular file"), std::string::npos) << dir.error().message;
}

TEST(Loader, ProgTypeFromSection) {
    struct Case {
        const char* section;
        bool known;
        ProgType type;
    };
    const Case cases[] = {
        {"syscall", true, ProgType::syscall},
        {"xdp", true, ProgType::xdp},
        {"xdp.frags", true, ProgType::xdp},
        {"xdp/devmap", true, ProgType::xdp},
        {"tc", true, ProgType::sched_cls},
        {"tc/ingress", true, ProgType::sched_cls},
        {"tcx/egress", true, ProgType::sched_cls},
        {"classifier", true, ProgType::sched_cls},
        {"action", true, ProgType::sched_act},
        {"socket", true, ProgType::socket_filter},
        {"raw_tp/sys_enter", true, ProgType::raw_tracepoint},
        {"raw_tracepoint/sys_enter", true, ProgType::raw_tracepoint},
        {"tp/syscalls/sys_enter_openat", true, ProgType::tracepoint},
        {"tracepoint/syscalls/sys_enter_openat", true, ProgType::tracepoint},
        {"kprobe/do_sys_open", true, ProgType::kprobe},
        {"kretprobe/do_sys_open", true, ProgType::kprobe},
        {"perf_event", true, ProgType::perf_event},
        {"?syscall", true, ProgType::syscall},
        {"xdpx", false, ProgType::unspec},
        {"tcfoo", false, ProgType::unspec},
        {"syscall/x", false, ProgType::unspec},
        {"kprobex", false, ProgType::unspec},
        {"", false, ProgType::unspec},
        {".text", false, ProgType::unspec},
        {"tcx", false, ProgType::unspec},
    };
    for (const Case& c : cases) {
        ProgType t = ProgType::unspec;
        EXPECT_EQ(prog_type_from_section(c.section, &t), c.known) << c.section;
        if (c.known) {
            EXPECT_EQ(t, c.type) << c.section;
        }
    }
}

} // namespace
} // namespace strbpf::loader
