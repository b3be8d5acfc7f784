// SPDX-License-Identifier: BSD-2-Clause
// `strbpf test`'s runner (tools stage): each subtest follows run_subtest() of the kernel's test_loader.c —
// architecture and load-mode filters, the unprivileged mode's conditions, the load with the test's flags, log level
// and auxiliary programs, the verdict against __success/__failure, the patterns against the log, then a test run
// only when __retval is given. What strbpf cannot judge yet is a SKIP with the reason, never a PASS.
#include "test_runner.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "cli.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/kernel/kernel_variant_probe.hpp"
#include "exec/runner.hpp"
#include "verifier/kernel_variant_tag.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::cli {
namespace {

constexpr size_t kTestDataLen = 64; // test_loader's TEST_DATA_LEN zero bytes for packet programs

// Flags strbpf's engines take without a difference in verdict or result: BPF_F_TEST_RND_HI32 poisons only upper
// halves the kernel's verifier proved unread.
constexpr uint32_t kNoVerdictFlags = exec::kBpfFTestRndHi32;

// strbpf's own decl tags (comment:strbpf_data_hex=..., ...): test_spec keeps every tag it does not interpret.
const std::string* strbpf_tag(const exec::TestSpec& spec, const std::string& name) {
    for (const auto& [key, value] : spec.other_tags)
        if (key == "strbpf_" + name)
            return &value;
    return nullptr;
}

// strbpf_kernel_variant=FACT[,!FACT...]: the test holds only on a 6.18 build with (or, after "!", without) each
// named fact of verifier/kernel_variant.hpp. "" when the engine's build is such a one, else the SKIP reason. The
// kernel engine's build is the running kernel's; strbpf's engines model the verifier's default (--kernel-variant).
std::string kernel_variant_mismatch(const exec::TestSpec& spec, exec::EngineKind engine) {
    const std::string* want = strbpf_tag(spec, "kernel_variant");
    if (!want)
        return "";
    verifier::KernelVariant have = verifier::default_kernel_variant();
    if (engine == exec::EngineKind::kernel) {
        Result<verifier::KernelVariant> running = exec::kernel::running_kernel_variant();
        have = running ? running.value() : verifier::KernelVariant{};
    }
    std::string error;
    const auto needs = verifier::parse_kernel_variant_tag(*want, &error);
    if (!needs)
        return error;
    for (const verifier::KernelVariantNeed& n : *needs)
        if (have.*n.fact->field != n.set)
            return fmt::format("for Linux 6.18 builds {} {} ({}); the {} engine's build is {}",
                               n.set ? "with" : "without", n.fact->name, n.fact->what, exec::engine_name(engine),
                               have == verifier::KernelVariant{} ? "the 6.18 source's"
                                                                 : "one with " + verifier::format_kernel_variant(have));
    return "";
}

// A 6.18 build without arenas (KernelVariant::no_arena) cannot create an object's BPF_MAP_TYPE_ARENA, so none of its
// programs loads there: on strbpf's engines modelling that build such a test is a SKIP naming the fact (the kernel
// engine reports the live kernel's refusal itself).
constexpr const char* kNoArenaSkip =
    "the object has an arena map, and the {} engine's Linux 6.18 build has none (kernel variant no_arena: "
    "BPF_MAP_TYPE_ARENA refused with EPERM)";

bool has_arena_map(const TestObject& obj) {
    if (!obj.spec)
        return false;
    for (const loader::MapSpec& m : obj.spec->maps)
        if (m.type == loader::kMapArena)
            return true;
    return false;
}

bool is_packet_prog(loader::ProgType t) {
    return t == loader::ProgType::xdp || t == loader::ProgType::sched_cls || t == loader::ProgType::socket_filter;
}

std::string arch_names(uint32_t mask) {
    static const std::pair<uint32_t, const char*> kNames[] = {{exec::kArchX86_64, "X86_64"},
                                                              {exec::kArchArm64, "ARM64"},
                                                              {exec::kArchRiscv64, "RISCV64"},
                                                              {exec::kArchS390x, "s390x"},
                                                              {exec::kArchLoongarch, "LOONGARCH"}};
    std::string out;
    for (const auto& [bit, name] : kNames)
        if (mask & bit)
            out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

// Whether strbpf could not judge a program because kernel BTF is not there to read (no /sys/kernel/btf/vmlinux
// and no --btf, or --btf names no BTF): BTF-typed programs, kfuncs typed by kernel BTF, CO-RE relocations. Such a
// test is a SKIP naming what is missing, not a FAIL.
bool missing_kernel_btf(const std::string& why) {
    return why.find("cannot read kernel BTF") != std::string::npos ||
           why.find("need the target kernel's BTF") != std::string::npos ||
           why.find("failed to parse target BTF") != std::string::npos;
}

// The test run of a program strbpf's verifier accepted, on the instance it was verified in, after --map-in filled
// its maps (a verdict does not depend on map contents; the instance is the test's own).
exec::RunReport run_filled(exec::EngineKind engine, const runtime::ObjectInstance& inst, const std::string& prog,
                           const exec::RunRequest& req, const std::vector<MapInput>& maps) {
    exec::RunReport rep;
    rep.prog = prog;
    const runtime::LinkedProgram* lp = inst.find_program(prog);
    if (!lp || !lp->linked) {
        rep.error = lp ? lp->link_error.message : "strbpf's loader has no program '" + prog + "'";
        return rep;
    }
    if (Status st = apply_map_inputs(inst, maps); !st.ok()) {
        rep.loaded = true;
        rep.error = st.error().message;
        return rep;
    }
    return exec::run_linked(engine, inst, *lp, req);
}

// exec::kernel::run_test with --map-in applied between the load and the run.
exec::RunReport run_kernel_filled(const std::string& path, const std::string& prog, const exec::RunRequest& req,
                                  const exec::kernel::LoadOptions& lo, bool execute, const std::vector<MapInput>& maps,
                                  exec::kernel::RunDetails* d) {
    if (maps.empty() || !execute)
        return exec::kernel::run_test(path, prog, req, lo, execute, d);
    std::unique_ptr<exec::kernel::KernelObject> ko = exec::kernel::KernelObject::load(path, prog, req.globals, lo);
    *d = ko->details();
    exec::RunReport rep;
    rep.prog = prog;
    rep.loaded = ko->loaded();
    rep.error = ko->error();
    if (!ko->loaded())
        return rep;
    if (Status st = apply_map_inputs(*ko, maps); !st.ok()) {
        rep.error = st.error().message;
        return rep;
    }
    return ko->run(req);
}

// The kernel's log level 4 alone (BPF_LOG_STATS) prints only the statistics lines of the level-1 log.
std::string stats_lines(const std::string& log) {
    std::istringstream in(log);
    std::string line, out;
    while (std::getline(in, line))
        if (line.starts_with("processed ") || line.starts_with("verification time") ||
            line.starts_with("stack depth"))
            out += line + "\n";
    return out;
}

// The runner's verdict on a TestResult whose fields are filled: the first failure, else the skip, else PASS.
struct Judgement {
    std::vector<std::string> failures;
    std::string skip;
    void fail(std::string why) { failures.push_back(std::move(why)); }
    void apply(TestResult* r) const {
        if (!failures.empty()) {
            r->result = Outcome::fail;
            r->reason = failures.front();
        } else if (!skip.empty()) {
            r->result = Outcome::skip;
            r->reason = skip;
        } else {
            r->result = Outcome::pass;
        }
    }
};

exec::RunRequest request_for(const TestObject& obj, const exec::TestSpec& spec, const loader::ProgramSpec* ps) {
    exec::RunRequest req;
    req.globals = obj.globals;
    if (const std::string* hex = strbpf_tag(spec, "data_hex")) {
        if (auto b = parse_hex(*hex))
            req.data_in = std::move(b).value();
    } else if (ps && is_packet_prog(ps->type)) {
        req.data_in.assign(kTestDataLen, 0);
    }
    if (const std::string* hex = strbpf_tag(spec, "ctx_hex")) {
        if (auto b = parse_hex(*hex))
            req.ctx_in = std::move(b).value();
    }
    return req;
}

// The auxiliary programs test_loader autoloads with a test in this mode.
std::vector<std::string> auxiliaries(const TestObject& obj, const exec::TestSpec& spec, bool unpriv) {
    std::vector<std::string> out;
    for (const exec::TestSpec& s : obj.specs)
        if (s.error.empty() && s.auxiliary && s.prog != spec.prog &&
            (s.aux_mode_mask & (unpriv ? exec::kModeUnpriv : exec::kModePriv)))
            out.push_back(s.prog);
    return out;
}

// Patterns, then the checks strbpf cannot make, then the run; shared by every engine once the verdict is known.
void judge_loaded(const exec::SubSpec& sub, TestResult* r, Judgement* j) {
    const bool accepted = r->accepted.value_or(false);
    if (!r->accepted)
        j->fail(r->error.empty() ? "not loaded" : r->error);
    else if (sub.expect_failure && accepted)
        j->fail("expected the program to be rejected, but it was accepted");
    else if (!sub.expect_failure && !accepted)
        j->fail("rejected: " + r->error);
    if (!sub.expects.empty() && r->accepted) {
        exec::MessageCheck m = exec::check_messages(sub.expects, r->log);
        r->messages = m.failure.empty() ? "ok" : (m.unexpected ? "unexpected: " : "missing: ") + m.pattern;
        if (!m.failure.empty())
            j->fail(m.failure);
    }
    if (!sub.xlated.empty())
        j->skip = "strbpf cannot check __xlated yet (the program text after the kernel verifier's rewrites)";
    else if (!sub.jited.empty())
        j->skip = "strbpf cannot check __jited yet (no disassembler for the kernel JIT's code)";
}


// A test run's r0 against __retval (test_loader's do_prog_test_run): POINTER_VALUE runs but is not compared.
void judge_run(const exec::SubSpec& sub, const exec::RunReport& run, TestResult* r, Judgement* j) {
    r->retval = run.retval;
    if (!sub.retval_any && run.retval != *sub.retval)
        j->fail(fmt::format("retval {} (0x{:x}), expected {} (0x{:x})", int32_t(run.retval), run.retval,
                            int32_t(*sub.retval), *sub.retval));
}

void run_strbpf(const TestObject& obj, const exec::TestSpec& spec, const exec::SubSpec& sub, TestResult* r,
                Judgement* j) {
    const uint32_t unimplemented = r->flags & ~(kNoVerdictFlags | verifier::kProgFlagsImplemented);
    if (unimplemented) {
        j->skip = "strbpf's verifier does not implement " + exec::prog_flags_text(unimplemented);
        return;
    }
    // __btf_path: the target BTF of this test's CO-RE relocations, so the object is loaded again against it.
    std::shared_ptr<const loader::ObjectSpec> ospec = obj.spec;
    std::string load_error = obj.load_error;
    if (!spec.btf_path.empty()) {
        loader::LoadOptions lo = target_options();
        lo.btf_path = spec.btf_path;
        auto loaded = loader::load_object_file(obj.path, lo);
        ospec = loaded ? std::make_shared<const loader::ObjectSpec>(std::move(loaded).value()) : nullptr;
        load_error = loaded ? "" : loaded.error().message;
    }
    if (!ospec) {
        r->error = "strbpf cannot load the object: " + load_error;
        if (missing_kernel_btf(load_error))
            j->skip = r->error;
        else
            j->fail(r->error);
        return;
    }
    const loader::ProgramSpec* ps = ospec->find_program(spec.prog);
    if (!ps) {
        r->error = "strbpf's loader has no program '" + spec.prog + "'";
        j->fail(r->error);
        return;
    }
    // A program that failed to load, or whose type strbpf cannot verify, gets no verdict; the others still run.
    if (std::string why = verifier::unverifiable_reason(*ps); !why.empty()) {
        r->error = why;
        if (missing_kernel_btf(why))
            j->skip = why;
        else
            j->fail(r->error);
        return;
    }
    const exec::RunRequest req = request_for(obj, spec, ps);
    auto inst = runtime::ObjectInstance::create(ospec, req.globals);
    if (!inst) {
        r->error = inst.error().message;
        j->fail(r->error);
        return;
    }
    if (r->engine == exec::EngineKind::interp_checked) {
        if (sub.expect_failure) {
            j->skip = "interp-checked runs without a verifier: it cannot judge an expected rejection";
            return;
        }
        r->accepted = true;
    } else {
        // Verified at level 1 at least: at level 0 the kernel keeps no log on success, and on failure libbpf
        // retries at level 1, whose log test_loader matches.
        const int level = r->log_level & 3;
        verifier::Options vo{(level == 0 ? 1 : level) | (r->log_level & 4), r->flags}; // 4: the statistics
        verifier::Verdict v = verifier::verify(*inst.value(), *ps, vo);
        for (const std::string& aux : auxiliaries(obj, spec, r->unpriv)) {
            const loader::ProgramSpec* aps = ospec->find_program(aux);
            if (!v.ok || !aps)
                continue;
            verifier::Verdict av = verifier::verify(*inst.value(), *aps, verifier::Options{0, r->flags});
            if (!av.ok) {
                v.ok = false;
                v.reason = "auxiliary program " + aux + ": " + av.reason;
            }
        }
        if (!v.ok && missing_kernel_btf(v.reason)) {
            j->skip = v.reason;
            return;
        }
        r->accepted = v.ok;
        r->error = v.reason;
        if (r->log_level == 0 && v.ok)
            r->log.clear();
        else if ((r->log_level & 3) == 0 && v.ok)
            r->log = stats_lines(v.log);
        else
            r->log = v.log;
    }
    judge_loaded(sub, r, j);
    if (!sub.retval || sub.expect_failure || !r->accepted.value_or(false))
        return;
    exec::RunReport run = run_filled(r->engine, *inst.value(), spec.prog, req, obj.maps);
    if (!run.ran && run.unsupported) { // what this engine cannot run yet: a SKIP naming it, never a PASS
        j->skip = run.error;
        return;
    }
    if (!run.ran) {
        j->fail("run failed: " + run.error);
        return;
    }
    judge_run(sub, run, r, j);
}

void run_kernel(const TestObject& obj, const exec::TestSpec& spec, const exec::SubSpec& sub, TestResult* r,
                Judgement* j) {
    if (r->unpriv) {
        const int disabled = exec::kernel::unprivileged_bpf_disabled();
        if (disabled != 0) {
            j->skip = fmt::format("unprivileged BPF is disabled (kernel.unprivileged_bpf_disabled = {})", disabled);
            return;
        }
    }
    const loader::ProgramSpec* ps = obj.spec ? obj.spec->find_program(spec.prog) : nullptr;
    const exec::RunRequest req = request_for(obj, spec, ps);
    exec::kernel::LoadOptions lo;
    lo.prog_flags = r->flags;
    lo.log_level = r->log_level;
    lo.also_load = auxiliaries(obj, spec, r->unpriv);
    lo.btf_custom_path = spec.btf_path.empty() ? target_options().btf_path : spec.btf_path;
    const bool execute = sub.retval.has_value() && !sub.expect_failure;
    exec::kernel::RunDetails d;
    if (r->unpriv && execute && !obj.maps.empty()) {
        j->skip = "--map-in fills maps of privileged runs only (the unprivileged run happens in a child process)";
        return;
    }
    exec::RunReport run =
        r->unpriv ? exec::kernel::run_test_unprivileged(obj.path, spec.prog, req, lo, execute, sub.caps, &d)
                  : run_kernel_filled(obj.path, spec.prog, req, lo, execute, obj.maps, &d);
    if (!run.loaded && d.unsupported) {
        j->skip = run.error;
        return;
    }
    r->error = run.error;
    r->log = d.log;
    // libbpf refusing the object or finding no such program is no verdict of the kernel's verifier.
    if (run.loaded || !(run.error.starts_with("libbpf cannot open") || run.error.starts_with("no program '")))
        r->accepted = run.loaded;
    if (run.loaded)
        r->error.clear();
    judge_loaded(sub, r, j);
    if (!execute || !run.loaded)
        return;
    if (!run.ran) {
        j->fail("run failed: " + run.error);
        return;
    }
    judge_run(sub, run, r, j);
}

TestResult run_one(const TestObject& obj, const exec::TestSpec& spec, bool unpriv, exec::EngineKind engine,
                   const RunnerOptions& opts) {
    const exec::SubSpec& sub = unpriv ? spec.unpriv : spec.priv;
    TestResult r;
    r.object = obj.name;
    r.prog = spec.prog;
    r.test = sub.name;
    r.unpriv = unpriv;
    r.engine = engine;
    r.expect_failure = sub.expect_failure;
    r.flags = spec.prog_flags;
    // prepare_case: at least the runner's minimum, keeping the independent statistics bit (4).
    r.log_level = (spec.log_level & 3) < opts.min_log_level ? (spec.log_level & 4) | opts.min_log_level
                                                             : spec.log_level;
    if (sub.retval && !sub.retval_any && !sub.expect_failure)
        r.expected_retval = sub.retval;
    Judgement j;
    if (!spec.error.empty()) {
        j.fail("cannot parse the test spec: " + spec.error);
    } else if ((exec::current_arch() & spec.arch_mask) == 0) {
        j.skip = "__arch_*: the test is for " + arch_names(spec.arch_mask) + " only";
    } else if (!spec.unsupported.empty()) {
        j.skip = "strbpf test does not judge the tag " + spec.unsupported.front();
    } else if (std::string why = kernel_variant_mismatch(spec, engine); !why.empty()) {
        j.skip = why;
    } else {
        const bool jited = engine == exec::EngineKind::jit ||
                           (engine == exec::EngineKind::kernel && exec::kernel::kernel_jit_enabled());
        if (!(spec.load_mask & (jited ? exec::kLoadJited : exec::kLoadNoJited))) {
            j.skip = jited ? fmt::format("__load_if_no_JITed: the {} engine JITs", exec::engine_name(engine))
                           : fmt::format("__load_if_JITed: the {} engine does not JIT", exec::engine_name(engine));
        } else if (engine == exec::EngineKind::kernel) {
            run_kernel(obj, spec, sub, &r, &j); // a kernel refusing arenas: the engine's own SKIP (create_arenas)
        } else if (has_arena_map(obj) && verifier::default_kernel_variant().no_arena) {
            j.skip = fmt::format(fmt::runtime(kNoArenaSkip), exec::engine_name(engine));
        } else if (unpriv) {
            j.skip = "strbpf's verifier has no unprivileged mode";
        } else {
            run_strbpf(obj, spec, sub, &r, &j);
        }
    }
    j.apply(&r);
    // Reasons and errors are one line each (a pattern or a libbpf message may hold newlines).
    for (std::string* s : {&r.reason, &r.error})
        std::replace(s->begin(), s->end(), '\n', ' ');
    return r;
}

} // namespace

std::vector<TestResult> run_program_tests(const TestObject& obj, size_t i, const RunnerOptions& opts) {
    const exec::TestSpec& spec = obj.specs[i];
    std::vector<TestResult> out;
    if (spec.error.empty() && spec.auxiliary)
        return out;
    for (bool unpriv : {false, true}) {
        if (!(spec.mode_mask & (unpriv ? exec::kModeUnpriv : exec::kModePriv)))
            continue;
        for (exec::EngineKind engine : opts.engines)
            out.push_back(run_one(obj, spec, unpriv, engine, opts));
    }
    return out;
}

} // namespace strbpf::cli
