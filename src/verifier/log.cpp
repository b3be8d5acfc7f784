// The verifier's log (verifier stage): register and frame printing in the kernel's style, source line notes
// from BTF line info, and how a rejection is recorded.
#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "verifier/env.hpp"

namespace strbpf::verifier {

const char* reg_type_name(RegType t, bool maybe_null) {
    switch (t) {
    case RegType::not_init: return "?";
    case RegType::scalar: return "scalar";
    case RegType::ctx: return "ctx";
    case RegType::map_ptr: return "map_ptr";
    case RegType::map_value: return maybe_null ? "map_value_or_null" : "map_value";
    case RegType::stack: return "fp";
    case RegType::packet: return "pkt";
    case RegType::packet_meta: return "pkt_meta";
    case RegType::packet_end: return "pkt_end";
    case RegType::mem: return maybe_null ? "mem_or_null" : "mem";
    case RegType::func: return "func";
    case RegType::map_key: return "map_key";
    }
    return "?";
}

namespace {

std::string bounds_str(const Reg& r) {
    std::vector<std::string> parts;
    constexpr int64_t kS64Min = std::numeric_limits<int64_t>::min(), kS64Max = std::numeric_limits<int64_t>::max();
    if (r.smin != kS64Min)
        parts.push_back(fmt::format("smin={}", r.smin));
    if (r.smax != kS64Max)
        parts.push_back(fmt::format("smax={}", r.smax));
    if (r.umin != 0)
        parts.push_back(fmt::format("umin={}", r.umin));
    if (r.umax != ~0ull)
        parts.push_back(fmt::format("umax={}", r.umax));
    if (r.s32min != std::numeric_limits<int32_t>::min() && int64_t(r.s32min) != r.smin)
        parts.push_back(fmt::format("smin32={}", r.s32min));
    if (r.s32max != std::numeric_limits<int32_t>::max() && int64_t(r.s32max) != r.smax)
        parts.push_back(fmt::format("smax32={}", r.s32max));
    if (r.u32min != 0 && r.u32min != r.umin)
        parts.push_back(fmt::format("umin32={}", r.u32min));
    if (r.u32max != ~0u && r.u32max != r.umax)
        parts.push_back(fmt::format("umax32={}", r.u32max));
    if (!r.var.is_unknown())
        parts.push_back("var_off=" + tnum_str(r.var));
    std::string s;
    for (size_t i = 0; i < parts.size(); i++)
        s += (i ? "," : "") + parts[i];
    return s;
}

} // namespace

std::string reg_str(const Reg& r) {
    if (r.type == RegType::scalar) {
        if (r.var.is_const())
            return fmt::format("{}", int64_t(r.var.value));
        const std::string b = bounds_str(r);
        std::string id = r.id ? fmt::format("id={}", r.id) : "";
        if (r.id && r.link != Link::none)
            id += fmt::format("{:+}", r.off);
        return fmt::format("scalar({}{}{})", id, !id.empty() && !b.empty() ? "," : "", b);
    }
    std::string s = reg_type_name(r.type, r.maybe_null);
    if (r.type == RegType::stack)
        return fmt::format("fp{}", r.off) + (r.var.is_const() ? "" : "(" + bounds_str(r) + ")");
    std::vector<std::string> parts;
    if (r.id)
        parts.push_back(fmt::format("id={}", r.id));
    if (r.off)
        parts.push_back(fmt::format("off={}", r.off));
    if (r.type == RegType::packet || r.type == RegType::packet_meta)
        parts.push_back(fmt::format("r={}", r.aux));
    if (r.type == RegType::mem)
        parts.push_back(fmt::format("sz={}", r.aux));
    if (!r.var.is_const())
        parts.push_back(bounds_str(r));
    std::string inner;
    for (size_t i = 0; i < parts.size(); i++)
        inner += (i ? "," : "") + parts[i];
    return s + "(" + inner + ")";
}

std::string frame_str(const Frame& f, int frameno) {
    std::string s = frameno ? fmt::format("frame{}:", frameno) : "";
    for (int i = 0; i < isa::kNumRegs; i++) {
        if (f.regs[i].type == RegType::not_init)
            continue;
        s += fmt::format(" R{}={}", i, i == 10 ? fmt::format("fp0") : reg_str(f.regs[i]));
    }
    for (size_t slot = 0; slot < f.stack.size(); slot++) {
        const StackSlot& st = f.stack[slot];
        bool any = false, spill = false;
        std::string bytes;
        for (int b = 7; b >= 0; b--) {
            const Slot k = st.bytes[b];
            any |= k != Slot::invalid;
            spill |= k == Slot::spill;
            bytes += k == Slot::invalid ? '?' : k == Slot::misc ? 'm' : k == Slot::zero ? '0' : 'r';
        }
        if (!any)
            continue;
        s += fmt::format(" fp-{}={}", 8 * (slot + 1), spill ? reg_str(st.spilled) : bytes);
    }
    return s.empty() ? s : s.substr(s[0] == ' ' ? 1 : 0);
}

Env::Env(const runtime::ObjectInstance& inst_, const loader::ProgramSpec& prog_, const Options& opts_)
    : inst(inst_), prog(prog_), opts(opts_), insns(prog_.insns) {
    ops.resize(insns.size(), nullptr);
    for (size_t pc = 0; pc < insns.size(); pc++) {
        ops[pc] = isa::decode(insns[pc]);
        if (ops[pc] && ops[pc]->shape == isa::Shape::LDDW)
            pc++; // second slot stays null
    }
}

void Env::note(const std::string& line) {
    log += line;
    log += '\n';
}

bool Env::fail(std::string line) {
    if (!failed_) {
        failed_ = true;
        reason = line;
        if (fail_pc < 0)
            fail_pc = pc;
        note(line);
    }
    return false;
}

std::string Env::source_note(int32_t at) const {
    const auto& lines = prog.lines;
    auto it = std::upper_bound(lines.begin(), lines.end(), uint32_t(at),
                               [](uint32_t v, const loader::LineInfo& l) { return v < l.insn; });
    if (it == lines.begin())
        return "";
    --it;
    if (it->insn != uint32_t(at))
        return "";
    std::string file = it->file;
    const size_t slash = file.rfind('/');
    if (slash != std::string::npos)
        file = file.substr(slash + 1);
    return fmt::format("; {} @ {}:{}", it->source, file, it->line);
}

const loader::MapSpec* Env::map_spec(uint32_t index) const {
    const runtime::Map* m = inst.map(index);
    return m ? &m->spec() : nullptr;
}

} // namespace strbpf::verifier
