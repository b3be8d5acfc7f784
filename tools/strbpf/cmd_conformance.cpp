// SPDX-License-Identifier: BSD-2-Clause
// `strbpf conformance-plugin`: the bpf_conformance plugin protocol (tools stage). The suite tests the ISA, not the
// verifier, so the raw program runs in the memory-checked interpreter (and, with --engine jit, on the JIT too).
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "cli.hpp"
#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "isa/insn.hpp"
#include "runtime/context.hpp"

namespace strbpf::cli {
namespace {

constexpr const char* kName = "strbpf conformance-plugin";

struct ConformanceOptions {
    std::vector<std::string> memory; // hex bytes, one or many arguments
    std::string engine = "interp";
    uint64_t insn_limit = 10'000'000;
};

// One run's state: the stack and a private read-write copy of the test's memory (r1 = its address, r2 = its size;
// r1 = 0 when there is none).
struct RunEnv {
    runtime::RunContext ctx;
    runtime::StackArea stack;
    std::vector<uint8_t> mem;
    uint64_t r1 = 0;
    explicit RunEnv(const std::vector<uint8_t>& m) : mem(m) {
        runtime::prepare_run_context(ctx, nullptr, &stack);
        ctx.trace_out = stderr; // stdout carries only r0
        if (!mem.empty()) {
            r1 = reinterpret_cast<uint64_t>(mem.data());
            ctx.mem.add_local(runtime::Region{r1, mem.size(), runtime::kPermRW, runtime::RegionKind::ctx, "mem"});
        }
    }
};

struct Outcome {
    bool ok = false;
    uint64_t r0 = 0;
    std::string error;
};

Outcome run_interp(std::span<const isa::Insn> prog, const std::vector<uint8_t>& mem, uint64_t insn_limit) {
    RunEnv env(mem);
    const auto res = exec::interp::run(prog, env.r1, env.mem.size(), env.ctx, env.stack, insn_limit);
    return Outcome{res.ok, res.r0, res.error};
}

// Errors only the checked interpreter can see: the JIT checks no access and has no instruction limit, so such a
// program must never reach it.
bool checked_only(const std::string& error) {
    return error.find("invalid memory") != std::string::npos ||
           error.find("outside program-visible memory") != std::string::npos ||
           error.find("instruction limit") != std::string::npos;
}

// The JIT runs a program only after the interpreter ran it without a memory fault or hitting the limit; otherwise
// the interpreter's error is the answer.
Outcome run_jit(std::span<const isa::Insn> prog, const std::vector<uint8_t>& mem, uint64_t insn_limit) {
    const Outcome ref = run_interp(prog, mem, insn_limit);
    if (!ref.ok && checked_only(ref.error))
        return ref;
    auto compiled = exec::jit::compile(prog);
    if (!compiled)
        return Outcome{false, 0, compiled.error().message};
    RunEnv env(mem);
    const auto res = (*compiled)->run(env.r1, env.mem.size(), env.ctx, env.stack);
    return Outcome{res.ok, res.r0, res.error};
}

// Reads the program: hex bytes on stdin (whitespace anywhere), a whole number of 8-byte instructions.
std::optional<std::vector<isa::Insn>> read_program() {
    const std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    auto bytes = parse_hex(text);
    if (!bytes) {
        std::fprintf(stderr, "%s: program on stdin: %s\n", kName, bytes.error().message.c_str());
        return std::nullopt;
    }
    if (bytes->empty() || bytes->size() % sizeof(isa::Insn) != 0) {
        std::fprintf(stderr, "%s: program on stdin: %zu bytes; expected a non-zero multiple of 8\n", kName,
                     bytes->size());
        return std::nullopt;
    }
    std::vector<isa::Insn> prog(bytes->size() / sizeof(isa::Insn));
    std::memcpy(prog.data(), bytes->data(), bytes->size());
    return prog;
}

int run(const ConformanceOptions& o) {
    if (o.engine != "interp" && o.engine != "jit") {
        std::fprintf(stderr, "%s: unknown engine '%s' (interp or jit)\n", kName, o.engine.c_str());
        return kExitUsage;
    }
    std::string joined;
    for (const auto& m : o.memory)
        joined += m;
    auto mem = parse_hex(joined);
    if (!mem) {
        std::fprintf(stderr, "%s: memory: %s\n", kName, mem.error().message.c_str());
        return kExitUsage;
    }
    const auto prog = read_program();
    if (!prog)
        return kExitUsage;
    const Outcome out = o.engine == "jit" ? run_jit(*prog, *mem, o.insn_limit) : run_interp(*prog, *mem, o.insn_limit);
    if (!out.ok) {
        std::fprintf(stderr, "%s: %s\n", kName, out.error.c_str());
        return kExitFailed;
    }
    std::printf("%llx\n", static_cast<unsigned long long>(out.r0));
    return kExitOk;
}

} // namespace

Runner add_conformance_command(CLI::App& app) {
    auto o = std::make_shared<ConformanceOptions>();
    CLI::App* c = app.add_subcommand(
        "conformance-plugin",
        "bpf_conformance plugin: reads the program as hex bytes on stdin, runs it with r1 = a copy of MEMORY and "
        "r2 = its length (r1 = r2 = 0 without MEMORY), prints r0 in lowercase hex and exits 0. No verifier: the "
        "raw program runs in the memory-checked interpreter. Helpers are strbpf's (uBPF's test helpers are not "
        "provided; an unknown helper fails the run). Exit 1 with the error on stderr when the run fails; exit 2 "
        "for bad hex, an empty program or a program length that is not a multiple of 8 bytes.");
    c->add_option("MEMORY", o->memory, "the test's memory as hex bytes, in one argument or many");
    c->add_option("--engine", o->engine,
                  "interp, or jit: the interpreter runs the program first; if it faults on memory or reaches the "
                  "instruction limit its error is reported (the JIT checks neither), otherwise the program is "
                  "compiled with the x86-64 JIT and the JIT's result is reported")
        ->capture_default_str();
    c->add_option("--insn-limit", o->insn_limit, "stop the interpreter after this many instructions (0: no limit)")
        ->capture_default_str();
    return [o] { return run(*o); };
}

} // namespace strbpf::cli
