// SPDX-License-Identifier: BSD-2-Clause
// The exception callback a program names with `__exception_cb(f)`: the kernel's bpf_find_exception_callback_insn_off
// (before the walk) and its refusal of a direct call of the callback (check_max_stack_depth, after the walk), in its
// words. The callback itself is verified as the kernel verifies it, as a global function of its own
// (verifier.cpp), and run by the engines when a bpf_throw ends the program.
#include <bpf/btf.h>
#include <cstring>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

constexpr const char kTag[] = "exception_callback:";

// btf_find_decl_tag_value(btf, main, -1, "exception_callback:"): the one tag's value, "" for none; *several when
// there are more than one.
std::string find_tag(BtfRef b, uint32_t func_id, bool* several) {
    std::string value;
    const uint32_t n = btfv::type_cnt(b);
    for (uint32_t id = 1; id < n; id++) {
        const btf_type* t = btfv::type_by_id(b, id);
        if (!t || !btf_is_decl_tag(t) || t->type != func_id || btf_decl_tag(t)->component_idx != -1)
            continue;
        const char* name = btfv::name_by_offset(b, t->name_off);
        if (!name || std::strncmp(name, kTag, sizeof(kTag) - 1) != 0)
            continue;
        if (!value.empty())
            *several = true;
        value = name + sizeof(kTag) - 1;
    }
    return value;
}

} // namespace

std::string exception_callback_refusal(const loader::ObjectSpec& obj, const loader::ProgramSpec& prog,
                                       int64_t* callback, int64_t* direct_call) {
    *callback = -1;
    *direct_call = -1;
    BtfRef b = obj.btf.get();
    if (!b || prog.funcs.empty() || prog.funcs[0].type_id == 0)
        return ""; // no func_info: the kernel looks for no callback
    bool several = false;
    const std::string name = find_tag(b, prog.funcs[0].type_id, &several);
    if (several)
        return "multiple exception callback tags for main subprog";
    if (name.empty())
        return "";
    const int32_t id = btfv::find_by_name_kind(b, name.c_str(), BTF_KIND_FUNC);
    if (id <= 0)
        return fmt::format("exception callback '{}' could not be found in BTF", name);
    if (btf_vlen(btfv::type_by_id(b, uint32_t(id))) != BTF_FUNC_GLOBAL) // a FUNC's vlen: its linkage
        return fmt::format("exception callback '{}' must have global linkage", name);
    int64_t start = -1;
    for (const loader::FuncInfo& f : prog.funcs)
        if (f.type_id == uint32_t(id))
            start = f.insn;
    if (start == 0)
        return "invalid exception callback insn_off in func_info: 0";
    if (start < 0)
        return "exception callback type id not found in func_info";
    *callback = start;
    // check_max_stack_depth_subprog: the callback is a root of its own, never a callee. The kernel finds a direct
    // call only after it has verified the program and the callback: the caller refuses the program there, so the
    // log has what the walk logged first.
    for (size_t pc = 0; pc < prog.insns.size(); pc++) {
        const isa::Insn& in = prog.insns[pc];
        if (in.opcode == (isa::BPF_JMP | isa::BPF_CALL) && in.src == isa::BPF_PSEUDO_CALL &&
            int64_t(pc) + in.imm + 1 == start) {
            *direct_call = int64_t(pc);
            break;
        }
    }
    return "";
}

} // namespace strbpf::verifier
