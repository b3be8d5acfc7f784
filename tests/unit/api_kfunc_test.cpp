// SPDX-License-Identifier: BSD-2-Clause
// The embedder's kfuncs (include/strbpf/extensions.hpp, KfuncDef): resolved by name from an object's
// `extern ... __ksym` declarations, checked as the kernel's check_kfunc_args checks a kfunc's prototype (scalars,
// `__k` constants, memory and `__sz` pairs, `__str` strings, the ctx, KF_ACQUIRE / KF_RELEASE / KF_RET_NULL
// references, KF_TRUSTED_ARGS / KF_RCU's NULL rule) with the kernel's words, named in the verifier log, and called
// on the interpreter and the JIT, and on interp_checked through argument checks; the C API's
// strbpf_extensions_add_kfunc declares the same rows.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "strbpf/object.hpp"
#include "strbpf/strbpf.h"

namespace {

using namespace strbpf;

std::string path(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name; }

struct Host {
    std::atomic<int> gets{0}, puts{0};
    uint64_t obj[2] = {0, 0};
};

uint64_t host_mix(uint64_t a, uint64_t b, uint64_t, uint64_t, uint64_t, CallContext*) { return a * 10 + b; }
uint64_t host_hash(uint64_t buf, uint64_t size, uint64_t, uint64_t, uint64_t, CallContext*) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < size; i++)
        s += reinterpret_cast<const uint8_t*>(buf)[i];
    return s;
}
uint64_t host_strlen(uint64_t s, uint64_t, uint64_t, uint64_t, uint64_t, CallContext*) {
    return std::strlen(reinterpret_cast<const char*>(s));
}
uint64_t host_obj_get(uint64_t id, uint64_t, uint64_t, uint64_t, uint64_t, CallContext* call) {
    Host* h = static_cast<Host*>(call_user(call));
    if (id == 0)
        return 0;
    h->gets++;
    h->obj[0] = 10;
    h->obj[1] = 20;
    return reinterpret_cast<uint64_t>(h->obj);
}
uint64_t host_obj_put(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, CallContext* call) {
    static_cast<Host*>(call_user(call))->puts++;
    return 0;
}
uint64_t host_maybe(uint64_t buf, uint64_t, uint64_t, uint64_t, uint64_t, CallContext*) { return buf == 0; }
uint64_t host_twice(uint64_t a, uint64_t, uint64_t, uint64_t, uint64_t, CallContext*) { return a * 2; }
uint64_t host_peek(uint64_t o, uint64_t, uint64_t, uint64_t, uint64_t, CallContext*) {
    return o ? reinterpret_cast<const uint64_t*>(o)[0] : 99;
}
uint64_t host_ctx_len(uint64_t ctx, uint64_t, uint64_t, uint64_t, uint64_t, CallContext*) {
    uint32_t v;
    std::memcpy(&v, reinterpret_cast<const void*>(ctx), 4);
    return v;
}

KfuncDef kfunc(std::string name, HelperFn fn, std::vector<KfuncArg> args, std::vector<uint32_t> types = {},
               KfuncRet ret = KfuncRet::integer, uint32_t ret_size = 0, uint32_t flags = 0) {
    KfuncDef d;
    d.name = std::move(name);
    d.fn = fn;
    d.args = std::move(args);
    d.ret = ret;
    d.ret_size = ret_size;
    d.flags = flags;
    d.kernel_prog_types = std::move(types);
    return d;
}

KfuncArg arg(KfuncArgKind kind, uint32_t mem_size = 0, bool nullable = false) {
    KfuncArg a;
    a.kind = kind;
    a.mem_size = mem_size;
    a.nullable = nullable;
    return a;
}

OpenOptions with(const Extensions& ext) {
    OpenOptions oo;
    oo.extensions = ext;
    return oo;
}

LoadOptions at(Engine engine, int log_level) {
    LoadOptions lo;
    lo.engine = engine;
    lo.log_level = log_level;
    return lo;
}

Extensions make_ext(Host* host) {
    Extensions ext(host);
    using K = KfuncArgKind;
    const std::vector<uint32_t> syscall = {31};
    EXPECT_TRUE(ext.add_kfunc(kfunc("host_mix", host_mix, {arg(K::scalar), arg(K::constant)}, syscall)));
    EXPECT_TRUE(ext.add_kfunc(kfunc("host_hash", host_hash, {arg(K::mem_sized), arg(K::size)}, syscall)));
    EXPECT_TRUE(ext.add_kfunc(kfunc("host_strlen", host_strlen, {arg(K::const_str)}, syscall)));
    EXPECT_TRUE(ext.add_kfunc(
        kfunc("host_obj_get", host_obj_get, {arg(K::scalar)}, syscall, KfuncRet::mem, 16, kKfAcquire | kKfRetNull)));
    EXPECT_TRUE(
        ext.add_kfunc(kfunc("host_obj_put", host_obj_put, {arg(K::mem, 16)}, syscall, KfuncRet::void_, 0, kKfRelease)));
    EXPECT_TRUE(ext.add_kfunc(kfunc("host_ctx_len", host_ctx_len, {arg(K::ctx)})));
    EXPECT_TRUE(ext.add_kfunc(kfunc("host_twice", host_twice, {arg(K::scalar)}, syscall)));
    EXPECT_TRUE(ext.add_kfunc(kfunc("host_maybe", host_maybe, {arg(K::mem_sized, 0, true), arg(K::size)}, syscall)));
    const KfuncRet integer = KfuncRet::integer;
    EXPECT_TRUE(ext.add_kfunc(kfunc("host_peek", host_peek, {arg(K::mem, 16)}, syscall, integer, 0, kKfTrustedArgs)));
    EXPECT_TRUE(ext.add_kfunc(kfunc("host_peek_rcu", host_peek, {arg(K::mem, 16)}, syscall, integer, 0, kKfRcu)));
    EXPECT_TRUE(ext.add_kfunc(kfunc("host_peek_plain", host_peek, {arg(K::mem, 16)}, syscall)));
    EXPECT_TRUE(
        ext.add_kfunc(kfunc("host_peek_opt", host_peek, {arg(K::mem, 16, true)}, syscall, integer, 0, kKfTrustedArgs)));
    ProgramTypeDef t;
    t.name = "kfilter";
    t.section = "kfilter";
    t.ctx_size = 8;
    t.fields = {{0, 8, false}};
    t.kfuncs = {"host_ctx_len"};
    EXPECT_TRUE(ext.add_program_type(t));
    return ext;
}

// The object with only PROG autoloaded, loaded on ENGINE at log level 1 (or the load's error).
Result<Object> load_only(const Extensions& ext, const std::string& prog, Engine engine = Engine::jit,
                         int log_level = 1) {
    auto obj = Object::open(path("api_kfunc.bpf.o"), with(ext));
    if (!obj)
        return obj.error();
    for (const auto& n : obj->program_names())
        STRBPF_TRY(obj->program(n)->set_autoload(n == prog));
    STRBPF_TRY(obj->load(at(engine, log_level)));
    return obj;
}

std::string load_error(const Extensions& ext, const std::string& prog) {
    auto obj = load_only(ext, prog);
    return obj ? std::string("loaded") : obj.error().message;
}

// The level-1 log of PROG, which the verifier rejects.
std::string rejected_log(const Extensions& ext, const std::string& prog) {
    auto obj = Object::open(path("api_kfunc.bpf.o"), with(ext));
    EXPECT_TRUE(obj);
    for (const auto& n : obj->program_names())
        EXPECT_TRUE(obj->program(n)->set_autoload(n == prog));
    EXPECT_FALSE(obj->load(at(Engine::jit, 1)));
    return obj->program(prog)->log();
}

TEST(ApiKfunc, MisuseIsRejectedInTheKernelsWords) {
    Host host;
    const Extensions ext = make_ext(&host);
    const struct {
        const char* prog;
        const char* words;
    } cases[] = {
        {"kf_not_const", "R2 must be a known constant"},
        {"kf_not_scalar", "R1 is not a scalar"},
        {"kf_bad_size", "invalid read from stack R1 off=-16 size=32"},
        {"kf_not_str", "arg#0 doesn't point to a const string"},
        {"kf_not_opt", "R1 type=scalar expected=fp"},
        {"kf_leak", "BPF_EXIT instruction in main prog would lead to reference leak"},
        {"kf_unchecked", "R0 invalid mem access 'mem_or_null'"},
        {"kf_release_unreferenced", "release kernel function host_obj_put expects refcounted PTR_TO_BTF_ID"},
        {"kf_use_after_release", "invalid mem access 'scalar'"},
        {"kf_ctx_kfunc_elsewhere", "calling kernel function host_ctx_len is not allowed"},
        {"kf_filter_not_allowed", "calling kernel function host_mix is not allowed"},
        {"kf_filter_not_ctx", "arg#0 expected pointer to ctx, but got fp"},
        {"kf_trusted_maybe_null", "Possibly NULL pointer passed to trusted arg0"},
        {"kf_rcu_maybe_null", "Possibly NULL pointer passed to trusted arg0"},
        {"kf_trusted_null", "Possibly NULL pointer passed to trusted arg0"},
        {"kf_release_maybe_null", "Possibly NULL pointer passed to trusted arg0"},
    };
    for (const auto& c : cases) {
        const std::string err = load_error(ext, c.prog);
        EXPECT_NE(err.find(c.words), std::string::npos) << c.prog << ": " << err;
    }
    // The pair's own line follows the memory access's, and a leak names the reference, as the kernel logs them.
    EXPECT_NE(rejected_log(ext, "kf_bad_size")
                  .find("invalid read from stack R1 off=-16 size=32\n"
                        "arg#0 arg#1 memory, len pair leads to invalid memory access"),
              std::string::npos)
        << rejected_log(ext, "kf_bad_size");
    EXPECT_NE(rejected_log(ext, "kf_leak").find("Unreleased reference id=2 alloc_insn="), std::string::npos)
        << rejected_log(ext, "kf_leak");
}

TEST(ApiKfunc, WithoutTheExtensionsTheExternIsNotFound) {
    auto obj = Object::open(path("api_kfunc.bpf.o"));
    ASSERT_TRUE(obj);
    for (const auto& n : obj->program_names())
        ASSERT_TRUE(obj->program(n)->set_autoload(n == "kf_sum"));
    auto st = obj->load();
    ASSERT_FALSE(st);
    EXPECT_NE(st.error().message.find("extern (func ksym) 'host_hash': not found in kernel or module BTFs"),
              std::string::npos)
        << st.error().message;
}

TEST(ApiKfunc, CallsRunOnInterpAndJit) {
    for (Engine engine : {Engine::interp, Engine::jit}) {
        Host host;
        const Extensions ext = make_ext(&host);
        auto obj = load_only(ext, "kf_sum", engine);
        ASSERT_TRUE(obj) << obj.error().message;
        auto runner = Runner::create(*obj->program("kf_sum"));
        ASSERT_TRUE(runner) << runner.error().message;
        uint64_t ctx[1] = {0};
        auto r0 = runner->run(std::span<uint8_t>(reinterpret_cast<uint8_t*>(ctx), sizeof ctx));
        ASSERT_TRUE(r0) << r0.error().message;
        EXPECT_EQ(*r0, 136u + 34u + 5u);

        auto objs = load_only(ext, "kf_obj", engine);
        ASSERT_TRUE(objs) << objs.error().message;
        auto run = objs->program("kf_obj")->run(RunOptions{});
        ASSERT_TRUE(run) << run.error().message;
        EXPECT_EQ(run->retval, 35u) << "(10 + 5) + 20, through the kfunc's memory";
        EXPECT_EQ(host.gets.load(), 1);
        EXPECT_EQ(host.puts.load(), 1);

        auto opt = load_only(ext, "kf_opt", engine);
        ASSERT_TRUE(opt) << opt.error().message;
        auto opt_run = opt->program("kf_opt")->run(RunOptions{});
        ASSERT_TRUE(opt_run) << opt_run.error().message;
        EXPECT_EQ(opt_run->retval, 1u) << "the NULL reached the kfunc";

        auto f = load_only(ext, "kf_filter_ctx", engine);
        ASSERT_TRUE(f) << f.error().message;
        uint8_t fctx[8] = {42, 0, 0, 0, 9, 9, 9, 9};
        auto fr = Runner::create(*f->program("kf_filter_ctx"));
        ASSERT_TRUE(fr);
        auto fr0 = fr->run(std::span<uint8_t>(fctx, sizeof fctx));
        ASSERT_TRUE(fr0) << fr0.error().message;
        EXPECT_EQ(*fr0, 42u);
    }
}

TEST(ApiKfunc, KsymExistsSeesTheirAddress) {
    Host host;
    const Extensions ext = make_ext(&host);
    for (Engine engine : {Engine::interp, Engine::jit}) {
        auto obj = load_only(ext, "kf_exists", engine, 2); // level 2: the instructions of accepted paths too
        ASSERT_TRUE(obj) << obj.error().message;
        EXPECT_NE(obj->program("kf_exists")->log().find("call host_twice#"), std::string::npos)
            << "the verifier walked the call the run takes:\n"
            << obj->program("kf_exists")->log();
        auto r = obj->program("kf_exists")->run(RunOptions{});
        ASSERT_TRUE(r) << r.error().message;
        EXPECT_EQ(r->retval, 8u);
    }
}

TEST(ApiKfunc, TheLogNamesThem) {
    Host host;
    const Extensions ext = make_ext(&host);
    auto obj = load_only(ext, "kf_sum", Engine::jit, 2);
    ASSERT_TRUE(obj) << obj.error().message;
    const std::string& log = obj->program("kf_sum")->log();
    for (const char* name : {"call host_hash#", "call host_mix#", "call host_strlen#"})
        EXPECT_NE(log.find(name), std::string::npos) << name << "\n" << log;
    EXPECT_EQ(log.find("call kfunc#"), std::string::npos) << log;
}

// KF_TRUSTED_ARGS and KF_RCU are what refuse a maybe-NULL pointer: the same call of the flagless kfunc verifies,
// and a checked pointer (or NULL for a nullable parameter) passes on every engine.
TEST(ApiKfunc, TrustedAndRcuArgumentsMayNotBeNull) {
    Host host;
    const Extensions ext = make_ext(&host);
    EXPECT_EQ(load_error(ext, "kf_plain_maybe_null"), "loaded");
    for (Engine e : {Engine::jit, Engine::interp, Engine::interp_checked}) {
        auto obj = load_only(ext, "kf_trusted_ok", e);
        ASSERT_TRUE(obj) << obj.error().message;
        RunOptions ro;
        ro.ctx.resize(8);
        EXPECT_EQ(obj->program("kf_trusted_ok")->run(ro).value().retval, 7u + 7u + 99u);
    }
}

// interp_checked runs unverified programs: an embedder's kfunc sees only arguments its row's kinds allow in the
// run's memory, its returned memory is checked like any region, and its references are held per run.
TEST(ApiKfunc, CheckedRunsCheckTheirArguments) {
    Host host;
    const Extensions ext = make_ext(&host);
    auto run = [&](const char* prog) {
        auto obj = load_only(ext, prog, Engine::interp_checked);
        EXPECT_TRUE(obj) << prog << ": " << obj.error().message;
        RunOptions ro;
        ro.ctx.resize(8);
        return obj ? obj->program(prog)->run(ro) : Result<RunResult>(obj.error());
    };
    EXPECT_EQ(run("kf_sum").value().retval, 136u + 34u + 5u);
    EXPECT_EQ(run("kf_obj").value().retval, 35u);
    EXPECT_EQ(host.gets.load(), host.puts.load());
    const struct {
        const char* prog;
        const char* words;
    } stops[] = {
        {"kf_bad_size", "the embedder's kfunc host_hash: argument 1"},
        {"kf_not_opt", "the embedder's kfunc host_hash: argument 1 (0x0, 8 bytes) is not memory the program may"},
        {"kf_release_unreferenced", "the embedder's kfunc host_obj_put: argument 1 releases no reference"},
        {"kf_leak", "the run ended holding the reference host_obj_get returned"},
        {"kf_filter_not_ctx", "is not the program's ctx"},
    };
    for (const auto& c : stops) {
        auto r = run(c.prog);
        ASSERT_FALSE(r) << c.prog;
        EXPECT_NE(r.error().message.find(c.words), std::string::npos) << c.prog << ": " << r.error().message;
    }
    const int puts = host.puts.load();
    auto uaf = run("kf_use_after_release"); // the released object's memory is refused from then on
    ASSERT_FALSE(uaf);
    EXPECT_EQ(host.puts.load(), puts + 1);
}

TEST(ApiKfunc, BadRowsAreRefused) {
    Extensions ext;
    using K = KfuncArgKind;
    auto code = [&](const char* name, std::vector<KfuncArg> args, KfuncRet ret = KfuncRet::integer,
                    uint32_t flags = 0) {
        auto st = ext.add_kfunc(kfunc(name, host_mix, std::move(args), {}, ret, 0, flags));
        return st ? 0 : st.error().code;
    };
    EXPECT_EQ(code("bpf_strlen", {}), -EEXIST) << "one of strbpf's kfuncs";
    EXPECT_EQ(code("a", {arg(K::mem_sized)}), -EINVAL) << "no size after it";
    EXPECT_EQ(code("a", {arg(K::scalar), arg(K::size)}), -EINVAL) << "a size after no pointer";
    EXPECT_EQ(code("a", {arg(K::mem)}), -EINVAL) << "memory without mem_size";
    EXPECT_EQ(code("a", {arg(K::constant), arg(K::constant)}), -EINVAL) << "two constants";
    EXPECT_EQ(code("a", {}, KfuncRet::integer, kKfAcquire), -EINVAL) << "acquire without a pointer return";
    EXPECT_EQ(code("a", {arg(K::scalar)}, KfuncRet::integer, kKfRelease), -EINVAL) << "release without a pointer";
    EXPECT_EQ(code("a", {arg(K::scalar, 0, true)}), -EINVAL) << "a nullable scalar";
    EXPECT_EQ(
        code("a", {arg(K::scalar), arg(K::scalar), arg(K::scalar), arg(K::scalar), arg(K::scalar), arg(K::scalar)}),
        -EINVAL)
        << "six arguments";
    EXPECT_EQ(code("a", {}, KfuncRet::mem), -EINVAL) << "a memory return without its size";
    EXPECT_EQ(code("a", {}), 0);
    EXPECT_EQ(code("a", {}), -EEXIST);
    ProgramTypeDef t;
    t.name = "t";
    t.section = "tsec";
    t.ctx_size = 8;
    t.kfuncs = {"nope"};
    ASSERT_TRUE(ext.add_program_type(t));
    auto obj = Object::open(path("api_kfunc.bpf.o"), with(ext));
    ASSERT_FALSE(obj);
    EXPECT_NE(obj.error().message.find("no kfunc of the set is named 'nope'"), std::string::npos)
        << obj.error().message;
}

// ---- the C API: the same rows ---------------------------------------------------------------------------------

uint64_t c_mix(uint64_t a, uint64_t b, uint64_t, uint64_t, uint64_t, strbpf_call*) { return a * 10 + b; }
uint64_t c_hash(uint64_t buf, uint64_t size, uint64_t, uint64_t, uint64_t, strbpf_call*) {
    return host_hash(buf, size, 0, 0, 0, nullptr);
}
uint64_t c_strlen(uint64_t s, uint64_t, uint64_t, uint64_t, uint64_t, strbpf_call*) {
    return std::strlen(reinterpret_cast<const char*>(s));
}

TEST(ApiKfunc, TheCApiDeclaresThem) {
    strbpf_extensions* ext = strbpf_extensions_new(nullptr);
    const uint32_t syscall = 31;
    const strbpf_kfunc_arg mix_args[] = {{STRBPF_KFUNC_ARG_SCALAR, 0, 0}, {STRBPF_KFUNC_ARG_CONSTANT, 0, 0}};
    const strbpf_kfunc_arg hash_args[] = {{STRBPF_KFUNC_ARG_MEM_SIZED, 0, 0}, {STRBPF_KFUNC_ARG_SIZE, 0, 0}};
    const strbpf_kfunc_arg str_args[] = {{STRBPF_KFUNC_ARG_CONST_STR, 0, 0}};
    strbpf_kfunc_def d{};
    d.sz = sizeof d;
    d.kernel_prog_types = &syscall;
    d.n_kernel_prog_types = 1;
    d.name = "host_mix", d.fn = c_mix, d.args = mix_args, d.n_args = 2;
    ASSERT_EQ(strbpf_extensions_add_kfunc(ext, &d), 0) << strbpf_last_error();
    d.name = "host_hash", d.fn = c_hash, d.args = hash_args, d.n_args = 2;
    ASSERT_EQ(strbpf_extensions_add_kfunc(ext, &d), 0) << strbpf_last_error();
    d.name = "host_strlen", d.fn = c_strlen, d.args = str_args, d.n_args = 1;
    ASSERT_EQ(strbpf_extensions_add_kfunc(ext, &d), 0) << strbpf_last_error();
    d.name = "bad", d.args = hash_args, d.n_args = 1; // a sized pointer without its size
    EXPECT_EQ(strbpf_extensions_add_kfunc(ext, &d), -EINVAL);
    EXPECT_NE(std::string(strbpf_last_error()).find("must be followed by its size"), std::string::npos)
        << strbpf_last_error();

    strbpf_open_opts oo{};
    oo.sz = sizeof oo;
    oo.extensions = ext;
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file(path("api_kfunc.bpf.o").c_str(), &oo, &obj), 0) << strbpf_last_error();
    strbpf_extensions_free(ext);                                   // the object keeps what it needs
    for (const char* name : {"kf_obj", "kf_filter_ctx", "kf_opt"}) // their kfuncs are not in this set
        ASSERT_EQ(strbpf_program_set_autoload(strbpf_object_find_program(obj, name), 0), 0) << name;
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0) << strbpf_last_error();
    strbpf_run_opts ro{};
    ro.sz = sizeof ro;
    uint64_t ctx = 0;
    ro.ctx_in = &ctx;
    ro.ctx_size_in = sizeof ctx;
    ASSERT_EQ(strbpf_program_run(strbpf_object_find_program(obj, "kf_sum"), &ro), 0) << strbpf_last_error();
    EXPECT_EQ(ro.retval, 136u + 34u + 5u);
    strbpf_object_close(obj);
}

TEST(ApiKfunc, TheCApiDeclaresTrustedArguments) {
    strbpf_extensions* ext = strbpf_extensions_new(nullptr);
    const uint32_t syscall = 31;
    const strbpf_kfunc_arg obj_arg[] = {{STRBPF_KFUNC_ARG_MEM, 16, 0}};
    strbpf_kfunc_def d{};
    d.sz = sizeof d;
    d.kernel_prog_types = &syscall;
    d.n_kernel_prog_types = 1;
    d.name = "host_peek", d.fn = c_mix, d.args = obj_arg, d.n_args = 1, d.flags = STRBPF_KF_TRUSTED_ARGS;
    ASSERT_EQ(strbpf_extensions_add_kfunc(ext, &d), 0) << strbpf_last_error();
    strbpf_open_opts oo{};
    oo.sz = sizeof oo;
    oo.extensions = ext;
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file(path("api_kfunc.bpf.o").c_str(), &oo, &obj), 0) << strbpf_last_error();
    strbpf_extensions_free(ext);
    for (const char* name : {"kf_sum", "kf_obj", "kf_exists", "kf_filter_ctx", "kf_opt"})
        ASSERT_EQ(strbpf_program_set_autoload(strbpf_object_find_program(obj, name), 0), 0) << name;
    ASSERT_EQ(strbpf_program_set_autoload(strbpf_object_find_program(obj, "kf_trusted_maybe_null"), 1), 0);
    EXPECT_NE(strbpf_object_load(obj, nullptr), 0);
    EXPECT_NE(std::string(strbpf_last_error()).find("Possibly NULL pointer passed to trusted arg0"), std::string::npos)
        << strbpf_last_error();
    strbpf_object_close(obj);
}

} // namespace
