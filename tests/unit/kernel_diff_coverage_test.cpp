// SPDX-License-Identifier: BSD-2-Clause
// Which helpers and map types have a kernel-differential test (tests): derived from the tests themselves. Every
// tests/progs object with a progs.<stem>.kernel test is loaded; a program test_loader test-runs and compares (a
// success test with a __retval other than POINTER_VALUE) covers the helpers it calls and the map types it
// references when `strbpf test` PASSes it with a retval on interp, jit and the kernel. Unit tests that compare with
// the kernel by a script of their own are declared in kernel_diff_coverage.hpp and run here, one by one. The test
// prints one line per implemented helper and per map type strbpf creates, and fails on any that no test covers and
// that is not in the commented exception list (docs/testing.md, "Kernel-differential coverage").
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "exec/kernel/kernel_engine.hpp"
#include "exec/test_spec.hpp"
#include "isa/insn.hpp"
#include "kernel_diff_coverage.hpp"
#include "loader/loader.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "runtime/maps/map.hpp"
#include "shell_run.hpp"

namespace strbpf {
namespace {

using json = nlohmann::json;
using coverage::Kind;

// What covers each helper id and map type: test names ("progs.maps_queue_stack: queue_is_fifo").
struct Cover {
    std::map<int32_t, std::set<std::string>> helpers;
    std::map<uint32_t, std::set<std::string>> maps;
};

// The stems with a progs.<stem>.kernel test, as tests/cli.cmake registered them.
std::vector<std::string> kernel_stems() {
    std::ifstream in(STRBPF_KERNEL_PROG_LIST);
    std::vector<std::string> stems;
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            stems.push_back(line);
    return stems;
}

// The programs test_loader test-runs privileged and whose retval it compares.
std::set<std::string> compared_programs(const std::string& path) {
    std::set<std::string> out;
    auto specs = exec::parse_test_specs(path);
    if (!specs)
        return out;
    for (const exec::TestSpec& s : *specs)
        if (!s.auxiliary && (s.mode_mask & exec::kModePriv) && !s.priv.expect_failure && s.priv.retval &&
            !s.priv.retval_any && s.unsupported.empty())
            out.insert(s.prog);
    return out;
}

// The helpers a program calls and the map types it references (an outer map's inner template too); global data
// (.rodata, .bss, ...) is left out: a program reads it without a helper.
void add_uses(const loader::ObjectSpec& o, const loader::ProgramSpec& p, const std::string& who, Cover& c) {
    for (size_t i = 0; i < p.insns.size(); i++) {
        const isa::Insn& in = p.insns[i];
        if (in.opcode == (isa::BPF_JMP | isa::BPF_CALL) && in.src == 0)
            c.helpers[in.imm].insert(who);
        const bool map_ref = in.src == isa::BPF_PSEUDO_MAP_FD || in.src == isa::BPF_PSEUDO_MAP_VALUE;
        if (in.opcode != (isa::BPF_LD | isa::BPF_DW | isa::BPF_IMM) || !map_ref)
            continue;
        i++; // ld_imm64 takes two slots
        if (in.imm < 0 || size_t(in.imm) >= o.maps.size() || o.maps[in.imm].global_data)
            continue;
        const loader::MapSpec& m = o.maps[in.imm];
        c.maps[m.type].insert(who);
        if (m.inner)
            c.maps[m.inner->type].insert(who);
    }
}

// Runs the objects on every engine in one `strbpf test` (two programs at a time): per object stem, the programs
// that PASSed with a retval on interp, jit and the kernel.
std::map<std::string, std::set<std::string>> passed_everywhere(const std::vector<std::string>& stems,
                                                               std::string* err) {
    std::string cmd = fmt::format("{} test --engine interp,jit,kernel --json -j 2", STRBPF_CLI);
    for (const std::string& stem : stems)
        cmd += fmt::format(" '{}/{}.bpf.o'", STRBPF_PROGS_DIR, stem);
    auto o = testing_support::run_shell(cmd);
    std::map<std::pair<std::string, std::string>, int> passes;
    std::istringstream in(o.out);
    for (std::string line; std::getline(in, line);) {
        json j = json::parse(line, nullptr, false);
        if (j.is_discarded() || j["variant"] != "priv")
            continue;
        if (j["result"] == "PASS" && !j["retval"].is_null())
            passes[{j["object"].get<std::string>(), j["prog"].get<std::string>()}]++;
    }
    if (o.rc != 0 && o.rc != 1)
        *err = fmt::format("strbpf test exited {}: {}", o.rc, o.err);
    std::map<std::string, std::set<std::string>> out;
    for (const auto& [key, n] : passes)
        if (n == 3)
            out[key.first].insert(key.second);
    return out;
}

// Coverage by the tests/progs programs compared on interp, jit and the kernel.
Cover from_progs(std::vector<std::string>* errors) {
    std::map<std::string, Cover> uses; // per stem: what its compared programs use, by program name
    for (const std::string& stem : kernel_stems()) {
        const std::string path = std::string(STRBPF_PROGS_DIR) + "/" + stem + ".bpf.o";
        auto obj = loader::load_object_file(path);
        if (!obj)
            continue; // an object the loader refuses runs on the kernel only: nothing compared
        const std::set<std::string> compared = compared_programs(path);
        Cover u;
        for (const loader::ProgramSpec& p : obj->programs)
            if (compared.count(p.name))
                add_uses(*obj, p, p.name, u);
        if (!u.helpers.empty() || !u.maps.empty()) // nothing to learn from the others: spare their runs
            uses[stem] = std::move(u);
    }
    std::vector<std::string> stems;
    for (const auto& [stem, u] : uses)
        stems.push_back(stem);
    std::string err;
    const auto passed = passed_everywhere(stems, &err);
    if (!err.empty())
        errors->push_back(err);
    Cover c;
    for (const auto& [stem, u] : uses) {
        auto it = passed.find(stem);
        if (it == passed.end())
            continue;
        const std::string test = "progs." + stem + ".{interp,jit,kernel}";
        for (const auto& [id, progs] : u.helpers)
            for (const std::string& p : progs)
                if (it->second.count(p))
                    c.helpers[id].insert(test + ": " + p);
        for (const auto& [type, progs] : u.maps)
            for (const std::string& p : progs)
                if (it->second.count(p))
                    c.maps[type].insert(test + ": " + p);
    }
    return c;
}

// Runs one declared unit test: "" when it passed and was not skipped, else why not.
std::string run_declared(const coverage::DeclaredTest& d) {
    auto o = testing_support::run_shell(
        fmt::format("'{}/{}' --gtest_filter='{}'", STRBPF_TESTS_BINARY_DIR, d.binary, d.filter), true);
    if (o.rc != 0)
        return fmt::format("exited {}", o.rc);
    if (o.out.find("[  SKIPPED ]") != std::string::npos)
        return "skipped";
    if (o.out.find("[  PASSED  ]") == std::string::npos || o.out.find("[  PASSED  ] 0 tests") != std::string::npos)
        return "ran no test";
    return "";
}

void from_declared(Cover& c, std::vector<std::string>* errors) {
    for (const coverage::DeclaredTest& d : coverage::kDeclaredTests) {
        const std::string why = run_declared(d);
        if (!why.empty()) {
            errors->push_back(fmt::format("declared test {} {}: {}", d.binary, d.filter, why));
            continue;
        }
        const std::string name = fmt::format("{} {}", d.binary, d.filter);
        for (int32_t id : d.helpers)
            c.helpers[id].insert(name);
        for (uint32_t t : d.maps)
            c.maps[t].insert(name);
    }
}

const coverage::Exception* exception_for(Kind k, uint32_t id) {
    for (const coverage::Exception& e : coverage::kExceptions)
        if (e.kind == k && e.id == id && (!e.only_with || verifier::default_kernel_variant().*e.only_with))
            return &e;
    return nullptr;
}

// The implemented helper ids, once each.
std::vector<int32_t> implemented_helpers() {
    std::vector<int32_t> ids;
    for (const runtime::HelperProto& h : runtime::helper_table())
        if (h.fn && (ids.empty() || ids.back() != h.id))
            ids.push_back(h.id);
    return ids;
}

// Every map type strbpf creates: all of 6.18's but unspec and struct_ops.
std::vector<uint32_t> created_map_types() {
    std::vector<uint32_t> types;
    for (uint32_t t = 1; t < loader::kMapTypeCount; t++)
        if (t != loader::kMapStructOps)
            types.push_back(t);
    return types;
}

// One line per item: covered (by what), excepted (why), or UNCOVERED; counts what is covered.
struct Tally {
    size_t covered = 0, excepted = 0, total = 0;
    std::vector<std::string> uncovered, stale;
};
void report(const char* what, Kind k, uint32_t id, const std::string& name, const std::set<std::string>* by,
            Tally& t) {
    t.total++;
    const coverage::Exception* e = exception_for(k, id);
    if (by && !by->empty()) {
        t.covered++;
        std::string list;
        for (const std::string& s : *by)
            list += (list.empty() ? "" : "; ") + s;
        std::printf("%s %u %s: covered by %s\n", what, id, name.c_str(), list.c_str());
        if (e)
            t.stale.push_back(fmt::format("{} {} {} is covered but listed as an exception", what, id, name));
    } else if (e) {
        t.excepted++;
        std::printf("%s %u %s: EXCEPTION: %s\n", what, id, name.c_str(), e->reason);
    } else {
        std::printf("%s %u %s: UNCOVERED\n", what, id, name.c_str());
        t.uncovered.push_back(fmt::format("{} {} {}", what, id, name));
    }
}

TEST(KernelDiffCoverage, EveryHelperAndMapTypeIsComparedWithTheKernel) {
    if (auto st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    std::vector<std::string> errors;
    Cover c = from_progs(&errors);
    const Cover progs_only = c;
    from_declared(c, &errors);
    Tally h, m;
    for (int32_t id : implemented_helpers()) {
        auto it = c.helpers.find(id);
        report("helper", Kind::helper, id, runtime::find_helper(id)->name, it == c.helpers.end() ? nullptr : &it->second, h);
    }
    for (uint32_t t : created_map_types()) {
        auto it = c.maps.find(t);
        report("map", Kind::map, t, loader::map_type_name(t), it == c.maps.end() ? nullptr : &it->second, m);
    }
    size_t progs_h = 0, progs_m = 0;
    for (int32_t id : implemented_helpers())
        progs_h += progs_only.helpers.count(id);
    for (uint32_t t : created_map_types())
        progs_m += progs_only.maps.count(t);
    std::printf("helpers: %zu of %zu covered (%zu by tests/progs alone), %zu excepted\n", h.covered, h.total, progs_h,
                h.excepted);
    std::printf("map types: %zu of %zu covered (%zu by tests/progs alone), %zu excepted\n", m.covered, m.total,
                progs_m, m.excepted);
    for (const coverage::Exception& e : coverage::kExceptions)
        if (e.kind == Kind::helper && !runtime::helper_implemented(int32_t(e.id)))
            ADD_FAILURE() << "exception for helper " << e.id << ", which strbpf does not implement";
    for (const std::string& e : errors)
        ADD_FAILURE() << e;
    for (const auto* t : {&h, &m}) {
        for (const std::string& u : t->uncovered)
            ADD_FAILURE() << u << ": no kernel-differential test and no exception";
        for (const std::string& s : t->stale)
            ADD_FAILURE() << s;
    }
}

} // namespace
} // namespace strbpf
