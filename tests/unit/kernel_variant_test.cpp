// SPDX-License-Identifier: BSD-2-Clause
// The Linux 6.18 builds strbpf models (verifier/kernel_variant.hpp; tests): each fact's two answers on every host,
// by judging the probe programs (exec/kernel/kernel_variant_probe.bpf.c) and test programs with the variant forced
// either way; and, where the live 6.18 kernel can be asked, that the probe reads it and strbpf then agrees with it.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "exec/kernel/kernel_engine.hpp"
#include "exec/kernel/kernel_variant_probe.hpp"
#include "host_facts.hpp"
#include "kernel_prog_log.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "verifier/kernel_variant_tag.hpp"
#include "verifier/verifier.hpp"

namespace strbpf {
namespace {

struct Loaded {
    std::shared_ptr<const loader::ObjectSpec> spec;
    std::unique_ptr<runtime::ObjectInstance> inst;
    const loader::ProgramSpec* prog(const std::string& name) const {
        for (const loader::ProgramSpec& p : spec->programs)
            if (p.name == name)
                return &p;
        return nullptr;
    }
};

Loaded load(Result<loader::ObjectSpec> spec) {
    EXPECT_TRUE(spec) << (spec ? "" : spec.error().message);
    Loaded l;
    l.spec = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
    auto inst = runtime::ObjectInstance::create(l.spec);
    EXPECT_TRUE(inst) << (inst ? "" : inst.error().message);
    l.inst = std::move(inst).value();
    return l;
}

Loaded probes() {
    const std::span<const unsigned char> image = exec::kernel::kernel_variant_probe_object();
    return load(loader::load_object_memory(std::span<const uint8_t>(image.data(), image.size()), "kvariant"));
}

verifier::Verdict judge(const Loaded& l, const std::string& prog, const verifier::KernelVariant& v, int level = 0) {
    const loader::ProgramSpec* p = l.prog(prog);
    EXPECT_NE(p, nullptr) << prog;
    verifier::Options o;
    o.log_level = level;
    o.variant = &v;
    return p ? verifier::verify(*l.inst, *p, o) : verifier::Verdict{};
}

verifier::KernelVariant only(bool verifier::KernelVariant::*field) {
    verifier::KernelVariant v;
    v.*field = true;
    return v;
}

const verifier::KernelVariant kUpstream;

TEST(KernelVariant, SliceRdwrIsRefusedAfterItsArgumentsOnlyWhereTheBuildSaysSo) {
    const Loaded l = probes();
    const auto v = only(&verifier::KernelVariant::no_slice_rdwr);
    EXPECT_EQ(judge(l, "no_slice_rdwr", kUpstream).reason, "the prog does not allow writes to packet data");
    EXPECT_EQ(judge(l, "no_slice_rdwr", v).reason, "bpf_dynptr_slice_rdwr() is not allowed");
    // On packet memory it is allowed by the 6.18 source and refused by the variant, in xdp as in syscall programs.
    const Loaded pkt = load(loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/dynptr_packet.bpf.o"));
    EXPECT_TRUE(judge(pkt, "xdp_slice_rdwr", kUpstream).ok);
    EXPECT_EQ(judge(pkt, "xdp_slice_rdwr", v).reason, "bpf_dynptr_slice_rdwr() is not allowed");
}

TEST(KernelVariant, TypedLookupNamesTheInnerMapAndTheSocketAtTheCall) {
    const Loaded l = probes();
    const auto v = only(&verifier::KernelVariant::typed_lookup);
    EXPECT_EQ(judge(l, "typed_lookup", kUpstream).reason, "R1 type=map_value_or_null expected=map_ptr");
    const verifier::Verdict typed = judge(l, "typed_lookup", v, 2);
    EXPECT_EQ(typed.reason, "R1 type=map_ptr_or_null expected=map_ptr");
    EXPECT_NE(typed.log.find("R0=map_ptr_or_null(id=1,ks=4,vs=8)"), std::string::npos) << typed.log;
    const Loaded sock = load(loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/helpers_sock.bpf.o"));
    const verifier::Verdict up = judge(sock, "sockmap_lookup_leak", kUpstream, 2);
    const verifier::Verdict var = judge(sock, "sockmap_lookup_leak", v, 2);
    EXPECT_NE(up.log.find("R0=map_value_or_null(id=2,ref_obj_id=2,map=sock_map,ks=4,vs=4)"), std::string::npos);
    EXPECT_NE(var.log.find("R0=sock_or_null(id=2,ref_obj_id=2) refs=2"), std::string::npos) << var.log;
    EXPECT_EQ(up.reason, var.reason); // the socket is the same after the null check
}

TEST(KernelVariant, SleepableInnerMapsAreCheckedOnlyWhereTheBuildSaysSo) {
    const Loaded l = probes();
    EXPECT_TRUE(judge(l, "sleepable_inner_maps", kUpstream).ok);
    EXPECT_EQ(judge(l, "sleepable_inner_maps", only(&verifier::KernelVariant::sleepable_inner_maps)).reason,
              "Sleepable programs can only use array, hash, ringbuf and local storage maps, also as inner maps");
}

TEST(KernelVariant, ArenaKfuncsAreAllowedNowhereWithoutArenas) {
    const Loaded l = probes();
    EXPECT_TRUE(judge(l, "no_arena", kUpstream).ok);
    EXPECT_EQ(judge(l, "no_arena", only(&verifier::KernelVariant::no_arena)).reason,
              "calling kernel function bpf_arena_alloc_pages is not allowed");
}

TEST(KernelVariant, XdpAdjustMetaIsRefusedInXdpOnlyWhereTheBuildSaysSo) {
    const Loaded l = probes();
    EXPECT_TRUE(judge(l, "no_xdp_adjust_meta", kUpstream).ok);
    EXPECT_EQ(judge(l, "no_xdp_adjust_meta", only(&verifier::KernelVariant::no_xdp_adjust_meta)).reason,
              "program of this type cannot use helper bpf_xdp_adjust_meta#54");
}

TEST(KernelVariant, NamesParseAndPrint) {
    std::string error;
    EXPECT_EQ(verifier::parse_kernel_variant("upstream", &error), kUpstream);
    const auto v = verifier::parse_kernel_variant("no_arena,typed_lookup", &error);
    ASSERT_TRUE(v);
    EXPECT_TRUE(v->no_arena && v->typed_lookup && !v->no_slice_rdwr && !v->sleepable_inner_maps &&
                !v->no_xdp_adjust_meta);
    EXPECT_EQ(verifier::format_kernel_variant(*v), "typed_lookup,no_arena");
    const auto w = verifier::parse_kernel_variant("no_xdp_adjust_meta", &error);
    ASSERT_TRUE(w);
    EXPECT_EQ(*w, only(&verifier::KernelVariant::no_xdp_adjust_meta));
    EXPECT_EQ(verifier::format_kernel_variant(*w), "no_xdp_adjust_meta");
    EXPECT_FALSE(verifier::parse_kernel_variant("typed_lookup,no_such_fact", &error));
    EXPECT_NE(error.find("unknown kernel variant fact 'no_such_fact'"), std::string::npos) << error;
}

// The `__kernel_variant` test tag as `strbpf test` and the verifier's tests both read it: facts in order, "!"
// negating one, an unknown name refused in the runner's words.
TEST(KernelVariant, TestTagsParseIntoTheBuildTheyName) {
    std::string error;
    const auto needs = verifier::parse_kernel_variant_tag("no_arena,!typed_lookup", &error);
    ASSERT_TRUE(needs) << error;
    ASSERT_EQ(needs->size(), 2u);
    EXPECT_STREQ((*needs)[0].fact->name, "no_arena");
    EXPECT_TRUE((*needs)[0].set);
    EXPECT_STREQ((*needs)[1].fact->name, "typed_lookup");
    EXPECT_FALSE((*needs)[1].set);
    EXPECT_EQ(verifier::kernel_variant_for(*needs), only(&verifier::KernelVariant::no_arena));
    // A name holding another as a substring is not that fact.
    EXPECT_FALSE(verifier::parse_kernel_variant_tag("no_arena_x", &error));
    EXPECT_EQ(error, "__kernel_variant names no fact 'no_arena_x'");
    EXPECT_FALSE(verifier::parse_kernel_variant_tag("!", &error));
    EXPECT_EQ(error, "__kernel_variant names no fact ''");
}

// The live kernel: the probe reads its build, and strbpf's verdicts and words on the probes are then the kernel's.
TEST(KernelVariant, ProbeReadsTheRunningKernelAndStrbpfAgreesWithIt) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    Result<verifier::KernelVariant> running = exec::kernel::probe_kernel_variant();
    ASSERT_TRUE(running) << running.error().message;
    std::printf("the running kernel's 6.18 build: %s\n",
                verifier::format_kernel_variant(running.value()).empty()
                    ? "the 6.18 source's"
                    : verifier::format_kernel_variant(running.value()).c_str());
    const Loaded l = probes();
    const std::string path = ::testing::TempDir() + "kvariant_probe.bpf.o";
    {
        const std::span<const unsigned char> image = exec::kernel::kernel_variant_probe_object();
        FILE* f = std::fopen(path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        std::fwrite(image.data(), 1, image.size(), f);
        std::fclose(f);
    }
    for (const loader::ProgramSpec& p : l.spec->programs) {
        const verifier::Verdict v = judge(l, p.name, running.value());
        const testing_support::KernelLoad k = testing_support::kernel_load_program(path, p.name, 1, 1 << 20);
        EXPECT_EQ(v.ok, !k.rejected) << p.name << ": strbpf " << v.reason;
        if (k.rejected) {
            EXPECT_EQ(v.reason, exec::kernel::verifier_reason(k.log)) << p.name;
        }
    }
}

} // namespace
} // namespace strbpf
