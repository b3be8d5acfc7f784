// SPDX-License-Identifier: BSD-2-Clause
// The embedder's extensions (include/strbpf/extensions.hpp): its helpers checked with the kernel's rules and words
// (the same misuse of a kernel helper with the same argument kinds, and the live kernel where it loads programs),
// its program type's ctx fields and return range enforced, and its helpers called on the interpreter and the JIT
// with the arguments the program passed.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "exec/runner.hpp"
#include "runtime/extensions.hpp"
#include "strbpf/object.hpp"
#include "verifier_raw_prog.hpp"

namespace {

using namespace strbpf;

std::string path(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name; }

// What the helpers saw: the user pointer of the set.
struct Seen {
    uint64_t sum_calls = 0, buf = 0, size = 0;
    bool misbehave = false; // host_clamp returns past its declared range
};

uint64_t host_sum(uint64_t buf, uint64_t size, uint64_t, uint64_t, uint64_t, CallContext* call) {
    auto* seen = static_cast<Seen*>(call_user(call));
    seen->sum_calls++;
    seen->buf = buf;
    seen->size = size;
    uint64_t s = 0;
    for (uint64_t i = 0; i < size; i++)
        s += reinterpret_cast<const uint8_t*>(buf)[i];
    return s;
}

uint64_t host_clamp(uint64_t x, uint64_t, uint64_t, uint64_t, uint64_t, CallContext* call) {
    if (static_cast<Seen*>(call_user(call))->misbehave)
        return 1000;
    return int64_t(x) < 0 ? 0 : x > 100 ? 100 : x;
}

constexpr int32_t kSum = 0x10000, kClamp = 0x10001;

Extensions make_ext(Seen* seen) {
    Extensions ext(seen);
    HelperDef sum;
    sum.name = "host_sum";
    sum.id = kSum;
    sum.fn = host_sum;
    sum.args = {ArgKind::ptr_to_mem_rdonly, ArgKind::const_size};
    sum.kernel_prog_types = {31}; // syscall
    EXPECT_TRUE(ext.add_helper(sum));
    HelperDef clamp;
    clamp.name = "host_clamp";
    clamp.id = kClamp;
    clamp.fn = host_clamp;
    clamp.args = {ArgKind::scalar};
    clamp.ret_range = ReturnRange{0, 100};
    EXPECT_TRUE(ext.add_helper(clamp));
    ProgramTypeDef filter;
    filter.name = "filter";
    filter.section = "filter";
    filter.ctx_size = 64;
    filter.fields = {{0, 4, false}, {4, 4, true}, {8, 56, false}};
    filter.ret_range = ReturnRange{0, 255};
    filter.helpers = {kSum, kClamp, 5}; // 5: bpf_ktime_get_ns
    EXPECT_TRUE(ext.add_program_type(filter));
    return ext;
}

// The object with only `prog` loaded; the load's error otherwise.
Result<Object> load_only(const Extensions& ext, const std::string& prog, Engine engine = Engine::jit) {
    OpenOptions oo;
    oo.extensions = ext;
    auto obj = Object::open(path("api_ext.bpf.o"), oo);
    if (!obj)
        return obj.error();
    for (const auto& n : obj->program_names())
        STRBPF_TRY(obj->program(n)->set_autoload(n == prog));
    LoadOptions lo;
    lo.engine = engine;
    STRBPF_TRY(obj->load(lo));
    return obj;
}

std::string load_error(const Extensions& ext, const std::string& prog) {
    auto obj = load_only(ext, prog);
    return obj ? std::string("loaded") : obj.error().message;
}

TEST(ApiExt, ProgramTypeCtxFieldsAndReturnRangeAreEnforced) {
    Seen seen;
    const Extensions ext = make_ext(&seen);
    EXPECT_NE(load_error(ext, "ext_write_readonly").find("invalid bpf_context access off=0 size=4"),
              std::string::npos)
        << load_error(ext, "ext_write_readonly");
    EXPECT_NE(load_error(ext, "ext_read_past_ctx").find("invalid bpf_context access off=64 size=4"),
              std::string::npos)
        << load_error(ext, "ext_read_past_ctx");
    EXPECT_NE(load_error(ext, "ext_bad_return")
                  .find("At program exit the register R0 has smin=1000 smax=1000 should have been in [0, 255]"),
              std::string::npos)
        << load_error(ext, "ext_bad_return");
    // host_sum has no declared range: its result is any scalar, outside the type's return range.
    EXPECT_NE(load_error(ext, "ext_unbounded_return").find("should have been in [0, 255]"), std::string::npos)
        << load_error(ext, "ext_unbounded_return");
    // host_clamp's range [0, 100] is what lets ext_sum return its result.
    EXPECT_EQ(load_error(ext, "ext_sum"), "loaded");
    EXPECT_EQ(load_error(ext, "ext_kernel_helper"), "loaded");
}

// The level-2 log of PROG loaded alone (whether the verifier accepts it or not).
std::string log_of(const Extensions& ext, const std::string& prog) {
    OpenOptions oo;
    oo.extensions = ext;
    auto obj = Object::open(path("api_ext.bpf.o"), oo);
    EXPECT_TRUE(obj);
    for (const auto& n : obj->program_names())
        EXPECT_TRUE(obj->program(n)->set_autoload(n == prog));
    LoadOptions lo;
    lo.log_level = 2;
    auto st = obj->load(lo);
    return obj->program(prog)->log() + (st ? "" : "\nload: " + st.error().message);
}

TEST(ApiExt, TheLogNamesTheEmbeddersHelpers) {
    Seen seen;
    const Extensions ext = make_ext(&seen);
    const std::string log = log_of(ext, "ext_sum");
    EXPECT_NE(log.find("(85) call host_sum#65536\n"), std::string::npos) << log;
    EXPECT_NE(log.find("(85) call host_clamp#65537\n"), std::string::npos) << log;
    EXPECT_EQ(log.find("unknown#"), std::string::npos) << log;
    const std::string refused = log_of(ext, "syscall_clamp");
    EXPECT_NE(refused.find("(85) call host_clamp#65537\nprogram of this type cannot use helper host_clamp#65537"),
              std::string::npos)
        << refused;
}

TEST(ApiExt, HelpersAreAllowedWhereDeclared) {
    Seen seen;
    const Extensions ext = make_ext(&seen);
    EXPECT_NE(load_error(ext, "ext_not_allowed").find("program of this type cannot use helper bpf_get_prandom_u32#7"),
              std::string::npos)
        << load_error(ext, "ext_not_allowed");
    EXPECT_EQ(load_error(ext, "syscall_sum"), "loaded");
    EXPECT_NE(load_error(ext, "syscall_clamp").find("program of this type cannot use helper host_clamp#65537"),
              std::string::npos)
        << load_error(ext, "syscall_clamp");
    // Without the extensions, the ids are the kernel's unknown helpers and the section is libbpf's unknown one.
    auto plain = Object::open(path("api_ext.bpf.o"));
    ASSERT_TRUE(plain);
    for (const auto& n : plain->program_names())
        ASSERT_TRUE(plain->program(n)->set_autoload(n == "syscall_sum"));
    auto st = plain->load();
    ASSERT_FALSE(st);
    EXPECT_NE(st.error().message.find("invalid func unknown#65536"), std::string::npos) << st.error().message;
    EXPECT_EQ(plain->program("ext_sum")->type(), 0u);
}

TEST(ApiExt, HelpersRunOnInterpAndJitWithTheProgramsArguments) {
    for (Engine engine : {Engine::interp, Engine::jit}) {
        Seen seen;
        const Extensions ext = make_ext(&seen);
        auto obj = load_only(ext, "ext_sum", engine);
        ASSERT_TRUE(obj) << obj.error().message;
        const ProgramRef prog = *obj->program("ext_sum");
        EXPECT_GE(prog.type(), 40u);
        uint8_t ctx[64] = {};
        ctx[0] = 3; // len
        for (int i = 0; i < 16; i++)
            ctx[8 + i] = uint8_t(i + 1); // data: sum 136
        auto runner = Runner::create(prog);
        ASSERT_TRUE(runner) << runner.error().message;
        auto r0 = runner->run(std::span<uint8_t>(ctx, sizeof ctx));
        ASSERT_TRUE(r0) << r0.error().message;
        EXPECT_EQ(*r0, 100u) << "host_clamp(136 + 3)";
        uint32_t verdict;
        std::memcpy(&verdict, ctx + 4, 4);
        EXPECT_EQ(verdict, 136u) << "host_sum's result stored in the writable field";
        EXPECT_EQ(seen.sum_calls, 1u);
        EXPECT_EQ(seen.size, 16u);
        EXPECT_NE(seen.buf, 0u);
        // The exact ctx size only.
        EXPECT_EQ(runner->call(std::span<uint8_t>(ctx, 32), &seen.buf), -EINVAL);
        // The full test run: ctx in and out.
        RunOptions ro;
        ro.ctx.assign(ctx, ctx + 64);
        ro.ctx[8] = 0;
        auto full = prog.run(ro);
        ASSERT_TRUE(full) << full.error().message;
        EXPECT_EQ(full->retval, 100u);
        ASSERT_EQ(full->ctx_out.size(), 64u);
        std::memcpy(&verdict, full->ctx_out.data() + 4, 4);
        EXPECT_EQ(verdict, 135u);
        ro.ctx.resize(8);
        EXPECT_FALSE(prog.run(ro));
        // A helper returning outside its declared range ends the run.
        seen.misbehave = true;
        auto bad = runner->run(std::span<uint8_t>(ctx, sizeof ctx));
        ASSERT_FALSE(bad);
        EXPECT_NE(
            bad.error().message.find("helper host_clamp#65537 returned 1000, outside its declared range [0, 100]"),
            std::string::npos)
            << bad.error().message;
    }
}

// interp_checked runs unverified programs: the embedder's helper is called only with arguments its row's kinds
// allow in the run's memory.
TEST(ApiExt, CheckedRunsCheckTheHelpersArguments) {
    Seen seen;
    const Extensions ext = make_ext(&seen);
    uint8_t ctx[64] = {};
    ctx[0] = 3;
    for (int i = 0; i < 16; i++)
        ctx[8 + i] = uint8_t(i + 1);
    auto ok = load_only(ext, "ext_sum", Engine::interp_checked);
    ASSERT_TRUE(ok) << ok.error().message;
    auto runner = Runner::create(*ok->program("ext_sum"));
    ASSERT_TRUE(runner) << runner.error().message;
    EXPECT_EQ(runner->run(std::span<uint8_t>(ctx, sizeof ctx)).value(), 100u) << "host_clamp(136 + 3)";
    EXPECT_EQ(seen.sum_calls, 1u);
    auto bad = load_only(ext, "ext_sum_past_stack", Engine::interp_checked);
    ASSERT_TRUE(bad) << bad.error().message;
    EXPECT_FALSE(bad->program("ext_sum_past_stack")->accepted());
    auto r = Runner::create(*bad->program("ext_sum_past_stack")).value().run(std::span<uint8_t>(ctx, sizeof ctx));
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("the embedder's helper host_sum#65536: argument 1"), std::string::npos)
        << r.error().message;
    EXPECT_EQ(seen.sum_calls, 1u) << "the helper never saw the bad arguments";
    EXPECT_NE(load_error(ext, "ext_sum_past_stack").find("invalid read from stack"), std::string::npos);
}

TEST(ApiExt, BadRowsAreRefused) {
    Extensions ext;
    HelperDef h;
    h.name = "h";
    h.id = 5; // a kernel id
    h.fn = host_sum;
    EXPECT_EQ(ext.add_helper(h).error().code, -EINVAL);
    h.id = kSum;
    h.args = {ArgKind::ptr_to_mem_rdonly}; // no size after it
    EXPECT_EQ(ext.add_helper(h).error().code, -EINVAL);
    h.args = {ArgKind::const_size};
    EXPECT_EQ(ext.add_helper(h).error().code, -EINVAL);
    h.args = {ArgKind::ptr_to_map_key};
    EXPECT_EQ(ext.add_helper(h).error().code, -EINVAL);
    h.args = {};
    h.ret = RetKind::map_value_or_null; // no map argument
    EXPECT_EQ(ext.add_helper(h).error().code, -EINVAL);
    h.ret = RetKind::integer;
    ASSERT_TRUE(ext.add_helper(h));
    EXPECT_EQ(ext.add_helper(h).error().code, -EEXIST);
    ProgramTypeDef t;
    t.name = "t";
    t.section = "xdp"; // libbpf's
    t.ctx_size = 8;
    EXPECT_EQ(ext.add_program_type(t).error().code, -EINVAL);
    t.section = "mine";
    t.fields = {{0, 8, false}, {4, 4, true}}; // overlap
    EXPECT_EQ(ext.add_program_type(t).error().code, -EINVAL);
    t.fields = {{0, 8, false}};
    t.helpers = {0x1ffff}; // no such helper: refused when an object is opened with the set
    ASSERT_TRUE(ext.add_program_type(t));
    OpenOptions oo;
    oo.extensions = ext;
    auto obj = Object::open(path("api_ext.bpf.o"), oo);
    ASSERT_FALSE(obj);
    EXPECT_NE(obj.error().message.find("no helper has id 131071"), std::string::npos) << obj.error().message;
    Seen seen;
    Extensions good = make_ext(&seen);
    oo.extensions = good;
    ASSERT_TRUE(Object::open(path("api_ext.bpf.o"), oo));
    h.id = kSum + 7;
    h.name = "late";
    EXPECT_EQ(good.add_helper(h).error().code, -EBUSY) << "frozen by the open";
}

// ---- the kernel's words: an embedder's helper misused as a kernel helper with the same kinds would be -----------

using vtest::raw_insn;
constexpr uint8_t kAluMovK = 0xb7, kStxDw = 0x7b, kAluAddK = 0x07, kAluMovX = 0xbf, kCall = 0x85, kExit = 0x95;

// r1 = a pointer to 8 stack bytes (or the scalar 5), r2 = size, call ID; exit.
std::vector<isa::Insn> call_prog(int32_t id, bool scalar_r1, int32_t size) {
    std::vector<isa::Insn> p = {raw_insn(kAluMovK, 1, 0, 0, 0), raw_insn(kStxDw, 10, 1, -8, 0)};
    if (scalar_r1)
        p.push_back(raw_insn(kAluMovK, 1, 0, 0, 5));
    else {
        p.push_back(raw_insn(kAluMovX, 1, 10, 0, 0));
        p.push_back(raw_insn(kAluAddK, 1, 0, 0, -8));
    }
    p.push_back(raw_insn(kAluMovK, 2, 0, 0, size));
    p.push_back(raw_insn(kCall, 0, 0, 0, id));
    p.push_back(raw_insn(kAluMovK, 0, 0, 0, 0));
    p.push_back(raw_insn(kExit, 0, 0, 0, 0));
    return p;
}

// strbpf's reason for a syscall program of INSNS, with the extensions' helpers linked.
std::string strbpf_reason(const std::vector<isa::Insn>& insns, std::shared_ptr<const runtime::Extensions> ext) {
    loader::ObjectSpec spec;
    spec.license = "GPL";
    loader::ProgramSpec prog;
    prog.name = "raw";
    prog.section = "syscall";
    prog.type = loader::ProgType::syscall;
    prog.sleepable = true;
    prog.insns = insns;
    spec.programs.push_back(prog);
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec));
    auto inst = runtime::ObjectInstance::create(shared, {}, std::move(ext));
    if (!inst)
        return "instance: " + inst.error().message;
    const runtime::LinkedProgram& lp = (*inst)->programs()[0];
    if (!lp.linked)
        return "link: " + lp.link_error.message;
    return verifier::verify(**inst, *lp.spec).reason;
}

TEST(ApiExt, MisuseIsRejectedInTheKernelsWords) {
    auto ext = std::make_shared<runtime::Extensions>();
    // host_sum's kinds are bpf_strncmp's first two (ARG_PTR_TO_MEM | MEM_RDONLY, ARG_CONST_SIZE).
    ASSERT_TRUE(ext->add_helper("host_sum", kSum, [](uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                                                     runtime::RunContext*) -> uint64_t { return 0; },
                                runtime::RetKind::integer,
                                {runtime::ArgKind::ptr_to_mem_rdonly, runtime::ArgKind::const_size}, std::nullopt,
                                false, runtime::prog_type_bit(loader::ProgType::syscall)));
    ASSERT_TRUE(ext->freeze());
    const vtest::RawProg syscall{"syscall", 31, 0, 1u << 4};
    struct Case {
        bool scalar_r1;
        int32_t size;
        const char* words;
    } cases[] = {
        {false, 0, "R2 invalid zero-sized read: u64=[0,0]"},
        {true, 8, "R1 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"},
        {false, 16, "invalid read from stack R1 off=-8 size=16"},
    };
    for (const Case& c : cases) {
        const std::string mine = strbpf_reason(call_prog(kSum, c.scalar_r1, c.size), ext);
        const std::string kernel_helper = strbpf_reason(call_prog(182, c.scalar_r1, c.size), nullptr);
        EXPECT_NE(mine.find(c.words), std::string::npos) << mine;
        EXPECT_EQ(mine, kernel_helper) << "the same misuse of bpf_strncmp";
        bool loaded = false;
        const std::string live = vtest::kernel_verdict(syscall, call_prog(182, c.scalar_r1, c.size), &loaded);
        if (!loaded && !live.empty() && live.find("Operation not permitted") == std::string::npos) {
            EXPECT_EQ(mine, live) << "the live kernel on bpf_strncmp";
        }
    }
    EXPECT_EQ(strbpf_reason(call_prog(kSum, false, 8), ext), "");
    EXPECT_NE(strbpf_reason(call_prog(kSum, false, 8), nullptr).find("invalid func unknown#65536"), std::string::npos);
}

} // namespace
