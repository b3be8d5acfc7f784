// SPDX-License-Identifier: BSD-2-Clause
// What an Object holds behind include/strbpf (api stage): the loaded spec, then the live instance, and per program
// its autoload and engine choices, the verifier's verdict and log, and the JIT's code.
#pragma once
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "exec/engine.hpp"
#include "exec/jit/jit.hpp"
#include "isa/insn.hpp"
#include "loader/object_spec.hpp"
#include "runtime/extensions.hpp"
#include "runtime/instance.hpp"
#include "strbpf/object.hpp"

namespace strbpf {

struct ProgramState {
    const loader::ProgramSpec* spec = nullptr;
    bool autoload = true;
    bool engine_set = false;
    Engine engine = Engine::jit;
    // Set by load():
    bool loaded = false;
    bool accepted = false;
    std::string reason;
    std::string log;
    const runtime::LinkedProgram* linked = nullptr;
    std::shared_ptr<const exec::jit::CompiledProgram> jit; // engine jit only
    // What a run zeroes of its stack first (the verifier lets programs read stack bytes they never wrote, so a
    // reused stack would show them a previous run's): wipe_bytes at the top of each of the first wipe_frames
    // frames. Verified programs: the deepest stack_depth of their functions, in as many frames as they have
    // functions (calls cannot recurse); all of it after a tail call or on interp_checked. 0: nothing to zero.
    uint32_t wipe_frames = 0, wipe_bytes = 0;
    bool tail_calls = false; // calls bpf_tail_call: the JIT runs it through exec::jit::run_with_tail_calls
    // Loads through kernel object pointers (PTR_TO_BTF_ID): the interpreter runs the program checked (a tracing or
    // struct_ops program holding one: exec::interp_probes), or its engine does not run them at all (another type:
    // exec::check_btf_loads says why when a run is asked for).
    bool probe = false;
    bool btf_refused = false;

    void unload(bool keep_log) { // back to the state before load(), choices kept; the verdict too if keep_log
        loaded = accepted = false;
        if (!keep_log) {
            reason.clear();
            log.clear();
        }
        linked = nullptr;
        jit.reset();
        wipe_frames = wipe_bytes = 0;
        tail_calls = probe = btf_refused = false;
    }
};

// A global variable's place, from the ELF symbol table (clang leaves BTF DATASEC offsets for libbpf to fill in).
struct GlobalSymbol {
    std::string name;
    size_t map = 0; // index into spec->maps
    uint64_t offset = 0;
    uint64_t size = 0;
};

struct Object::Impl {
    std::string name;
    OpenOptions opts;
    std::shared_ptr<loader::ObjectSpec> spec; // globals are written into its maps' initial bytes until load()
    std::unique_ptr<runtime::ObjectInstance> inst;
    std::vector<ProgramState> progs; // one per spec->programs entry, same order
    std::vector<GlobalSymbol> globals;
    std::shared_ptr<runtime::Extensions> ext; // OpenOptions::extensions, frozen; nullptr: none

    void log(LogLevel level, const std::string& msg) const {
        if (opts.log)
            opts.log(level, msg);
    }
};

// Zeroes what ST's runs may read of STACK before writing it (ProgramState::wipe_*).
inline void wipe_stack(const ProgramState& st, runtime::StackArea& stack) {
    uint8_t* top = stack.bytes + sizeof stack.bytes;
    for (uint32_t f = 0; f < st.wipe_frames; f++, top -= isa::kStackSize)
        std::memset(top - st.wipe_bytes, 0, st.wipe_bytes);
}

// Fills o.globals from the object's ELF image (globals.cpp).
Status index_globals(Object::Impl& o, std::vector<uint8_t> image);

inline exec::EngineKind engine_kind(Engine e) {
    switch (e) {
    case Engine::interp:
        return exec::EngineKind::interp;
    case Engine::interp_checked:
        return exec::EngineKind::interp_checked;
    case Engine::jit:
        break;
    }
    return exec::EngineKind::jit;
}

} // namespace strbpf
