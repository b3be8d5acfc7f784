// SPDX-License-Identifier: BSD-2-Clause
// The verifier's log (verifier stage): register type names, source line notes from BTF line info, and how a
// rejection is recorded. Register states are printed by log_state.cpp.
#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "isa/disasm.hpp"
#include "runtime/extensions.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "verifier/dynptr.hpp"
#include "verifier/env.hpp"
#include "verifier/ext_protos.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {

const char* reg_type_name(RegType t, bool maybe_null) {
    switch (t) {
    case RegType::not_init: return "?";
    case RegType::scalar: return "scalar";
    case RegType::ctx: return "ctx";
    case RegType::map_ptr: return maybe_null ? "map_ptr_or_null" : "map_ptr";
    case RegType::map_value: return maybe_null ? "map_value_or_null" : "map_value";
    case RegType::stack: return "fp";
    case RegType::packet: return "pkt";
    case RegType::packet_meta: return "pkt_meta";
    case RegType::packet_end: return "pkt_end";
    case RegType::mem: return maybe_null ? "mem_or_null" : "mem";
    case RegType::func: return "func";
    case RegType::map_key: return "map_key";
    case RegType::btf_id: return maybe_null ? "ptr_or_null_" : "ptr_";
    case RegType::sock: return maybe_null ? "sock_or_null" : "sock";
    case RegType::sock_common: return maybe_null ? "sock_common_or_null" : "sock_common";
    case RegType::tcp_sock: return maybe_null ? "tcp_sock_or_null" : "tcp_sock";
    case RegType::xdp_sock: return maybe_null ? "xdp_sock_or_null" : "xdp_sock";
    case RegType::dynptr: return "dynptr_ptr";
    case RegType::flow_keys: return "flow_keys";
    case RegType::arena: return "arena";
    case RegType::tp_buffer: return "tp_buffer";
    }
    return "?";
}

const char* inner_lookup_type_name(const Env& env) {
    return env.facts.variant.typed_lookup ? "map_ptr_or_null" : "map_value_or_null";
}

std::string reg_type_str(const Reg& r) {
    std::string name = reg_type_name(r.type, r.maybe_null);
    if (r.type == RegType::btf_id) // reg_type_str's flag prefixes, in its order
        return std::string((r.btf_flags & kBtfPercpu) ? "percpu_" : "") + ((r.btf_flags & kBtfRcu) ? "rcu_" : "") +
               ((r.btf_flags & kBtfUntrusted) ? "untrusted_" : "") + ((r.btf_flags & kBtfTrusted) ? "trusted_" : "") +
               name;
    return std::string(r.rdonly ? "rdonly_" : "") + (r.ringbuf ? "ringbuf_" : "") + name;
}

ProgramFacts::ProgramFacts(const runtime::ObjectInstance& inst_, const loader::ProgramSpec& prog_,
                           const Options& opts_)
    : inst(inst_), prog(prog_), opts(opts_), variant(opts_.variant ? *opts_.variant : default_kernel_variant()),
      insns(prog_.insns) {
    gpl_compatible = license_is_gpl_compatible(inst_.spec().license);
    ops.resize(insns.size(), nullptr);
    for (size_t pc = 0; pc < insns.size(); pc++) {
        ops[pc] = isa::decode(insns[pc]);
        if (ops[pc] && ops[pc]->shape == isa::Shape::LDDW)
            pc++; // second slot stays null
    }
}

Env::Env(const runtime::ObjectInstance& inst_, const loader::ProgramSpec& prog_, const Options& opts_)
    : facts_(inst_, prog_, opts_), aux(prog_.insns.size()) {
    log.level = opts_.log_level;
}

bool VerifierLog::fail(std::string line, int32_t pc) {
    if (!failed_) {
        failed_ = true;
        reason = line;
        if (fail_pc < 0)
            fail_pc = pc;
        note(line);
    }
    return false;
}

// print_bpf_insn: an ld_imm64 shows the value as the kernel does, with strbpf's addresses for maps.
std::string insn_text(const Env& env, int32_t pc) {
    const isa::Insn& in = env.facts.insns[size_t(pc)];
    if (in.opcode == (isa::BPF_LD | isa::BPF_IMM | isa::BPF_DW) && size_t(pc) + 1 < env.facts.insns.size()) {
        const uint32_t hi = uint32_t(env.facts.insns[size_t(pc) + 1].imm);
        uint64_t v = uint64_t(uint32_t(in.imm)) | uint64_t(hi) << 32;
        runtime::Map* m = in.src == isa::BPF_PSEUDO_MAP_FD || in.src == isa::BPF_PSEUDO_MAP_VALUE
                              ? env.facts.map(uint32_t(in.imm))
                              : nullptr;
        if (in.src == isa::BPF_PSEUDO_MAP_FD)
            v = reinterpret_cast<uint64_t>(m);
        else if (in.src == isa::BPF_PSEUDO_MAP_VALUE)
            v = m && m->direct_value() ? reinterpret_cast<uint64_t>(m->direct_value()) + hi : 0;
        return fmt::format("r{} = {:#x}", int(in.dst), v);
    }
    if (in.opcode == (isa::BPF_JMP | isa::BPF_CALL) && in.src == isa::BPF_PSEUDO_KFUNC_CALL) {
        std::string text = kfunc_btf_call_text(env, in); // "call bpf_task_acquire#<BTF id>" (kfunc_btf.cpp)
        if (!text.empty())
            return text;
        if (text = dynptr_kfunc_call_text(env, in); !text.empty()) // dynptr.cpp
            return text;
        const auto& kf = env.facts.inst.spec().kfuncs;
        if (const runtime::ExtKfunc* e = size_t(in.imm) < kf.size() ? ext_kfunc(env, kf[size_t(in.imm)]) : nullptr)
            return fmt::format("call {}#{}", e->name, in.imm); // the embedder's kfunc by its registered name
    }
    // Helpers by name, the embedder's too (as the kernel names its own); "unknown#N" for an id none has.
    auto names = [&env](uint8_t s, int32_t imm) -> std::string {
        const runtime::HelperProto* h = s != 0 ? nullptr : runtime::find_helper(imm);
        if (!h && s == 0)
            h = helper_proto(env, imm);
        return h ? h->name : "";
    };
    return isa::disasm_insn(env.facts.insns, size_t(pc), names);
}

const loader::MapSpec* ProgramFacts::map_spec(uint32_t index) const {
    const runtime::Map* m = inst.map(index);
    return m ? &m->spec() : nullptr;
}

} // namespace strbpf::verifier
