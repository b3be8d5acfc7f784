// SPDX-License-Identifier: BSD-2-Clause
// `strbpf disasm`: each program as loaded (subprograms appended, relocations applied) in bpftool's syntax, with
// the source lines BTF line info gives (tools stage).
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "isa/disasm.hpp"
#include "isa/opcodes.hpp"
#include "runtime/helpers/helper_table.hpp"

namespace strbpf::cli {
namespace {

struct DisasmOptions {
    std::string obj, prog;
    bool no_source = false, json = false;
};

// Text (bpftool's `prog dump xlated` lines) or, with json, one object per program: its instructions with pc,
// opcode, text and the source line that starts there.
void print_program(const loader::ObjectSpec& spec, const loader::ProgramSpec& p, bool source, bool json) {
    nlohmann::ordered_json insns = nlohmann::ordered_json::array(), pending_src;
    if (!json)
        std::printf("%s: SEC(\"%s\") %s, %zu insns\n", p.name.c_str(), p.section.c_str(),
                    loader::prog_type_name(p.type), p.insns.size());
    isa::CallNameFn names = [&](uint8_t src, int32_t imm) -> std::string {
        if (src == 0) {
            const runtime::HelperProto* h = runtime::find_helper(imm);
            return h ? h->name : "";
        }
        if (src == isa::BPF_PSEUDO_KFUNC_CALL && imm >= 0 && size_t(imm) < spec.kfuncs.size())
            return spec.kfuncs[size_t(imm)];
        return "";
    };
    size_t li = 0, fi = 0;
    for (size_t pc = 0; pc < p.insns.size(); pc++) {
        while (fi < p.funcs.size() && p.funcs[fi].insn <= pc) {
            if (p.funcs[fi].insn == pc && (fi > 0 || pc > 0) && !json)
                std::printf("%s:\n", p.funcs[fi].name.c_str());
            fi++;
        }
        while (li < p.lines.size() && p.lines[li].insn <= pc) {
            const auto& l = p.lines[li];
            if (source && l.insn == pc && !l.source.empty()) {
                const std::string file = l.file.substr(l.file.find_last_of('/') + 1);
                if (json)
                    pending_src = {{"src", l.source}, {"file", file}, {"line", l.line}};
                else
                    std::printf("; %s @ %s:%u\n", l.source.c_str(), file.c_str(), l.line);
            }
            li++;
        }
        const std::string text = isa::disasm_insn(p.insns, pc, names);
        if (json) {
            nlohmann::ordered_json j{{"pc", pc}, {"opcode", p.insns[pc].opcode}, {"disasm", text}};
            if (!pending_src.is_null())
                j.update(pending_src);
            pending_src = nullptr;
            insns.push_back(j);
        } else {
            std::printf("%5zu: (%02x) %s\n", pc, p.insns[pc].opcode, text.c_str());
        }
        if (isa::is_ld_imm64(p.insns[pc]))
            pc++;
    }
    if (json) {
        nlohmann::ordered_json j{{"prog", p.name}, {"section", p.section}, {"type", loader::prog_type_name(p.type)},
                                 {"insns", insns}};
        std::printf("%s\n", j.dump().c_str());
    }
}

int run(const DisasmOptions& o) {
    auto spec = load_spec(o.obj);
    if (!spec) {
        std::fprintf(stderr, "strbpf disasm: %s\n", spec.error().message.c_str()); // it names the file
        return kExitUsage;
    }
    bool found = false, printed = false;
    int rc = kExitOk;
    for (const auto& p : spec.value()->programs) {
        if (!o.prog.empty() && p.name != o.prog)
            continue;
        found = true;
        if (!p.load_error.empty()) // a program that cannot load fails alone; its code is shown when it was built
            std::fprintf(stderr, "strbpf disasm: %s: %s\n", o.obj.c_str(), p.load_error.c_str());
        if (p.insns.empty()) {
            rc = kExitFailed;
            continue;
        }
        if (printed && !o.json)
            std::printf("\n");
        printed = true;
        print_program(*spec.value(), p, !o.no_source, o.json);
    }
    if (!found) {
        std::fprintf(stderr, "strbpf disasm: no program '%s' in %s (its programs: %s)\n", o.prog.c_str(),
                     o.obj.c_str(), program_list(*spec.value()).c_str());
        return kExitUsage;
    }
    return rc;
}

} // namespace

Runner add_disasm_command(CLI::App& app) {
    auto o = std::make_shared<DisasmOptions>();
    CLI::App* c = app.add_subcommand("disasm", "Disassemble an object's programs as loaded, with source lines");
    c->add_option("OBJ", o->obj, "BPF ELF object")->required()->check(CLI::ExistingFile);
    c->add_option("--prog", o->prog, "only this program");
    c->add_flag("--no-source", o->no_source, "omit the source lines from BTF line info");
    c->add_flag("--json", o->json, "one JSON object per program and line: its instructions with their source lines");
    return [o] { return run(*o); };
}

} // namespace strbpf::cli
