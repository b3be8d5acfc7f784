// SPDX-License-Identifier: BSD-2-Clause
// The verifier log's register states as Linux 6.18 prints them (verifier stage): print_reg_state,
// print_scalar_ranges and print_verifier_state, the "; state" column after each instruction (print_insn_state:
// only the registers and stack slots the instruction touched), libbpf's map names, and line info (verbose_linfo).
#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <vector>

#include "verifier/btf_target.hpp"
#include "verifier/dynptr.hpp"
#include "verifier/iter.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

// is_snum_decimal / is_unum_decimal: numbers within 16 bits in decimal, the rest in hex.
bool snum_decimal(int64_t v) { return v >= -32768 && v <= 32767; }
std::string snum(int64_t v) { return snum_decimal(v) ? fmt::format("{}", v) : fmt::format("{:#x}", uint64_t(v)); }
std::string unum(uint64_t v) { return v <= 65535 ? fmt::format("{}", v) : fmt::format("{:#x}", v); }

// print_scalar_ranges: equal bounds share one value ("smax=umax=0xffffffff"), never mixing signs.
std::string scalar_ranges(const Reg& r) {
    struct MinMax {
        const char* name;
        uint64_t val;
        bool omit;
    };
    const auto s32 = [](int32_t v) { return snum_decimal(v) ? uint64_t(int64_t(v)) : uint64_t(uint32_t(v)); };
    MinMax m[] = {
        {"smin", uint64_t(r.smin), r.smin == std::numeric_limits<int64_t>::min()},
        {"smax", uint64_t(r.smax), r.smax == std::numeric_limits<int64_t>::max()},
        {"umin", r.umin, r.umin == 0},
        {"umax", r.umax, r.umax == ~0ull},
        {"smin32", s32(r.s32min), r.s32min == std::numeric_limits<int32_t>::min()},
        {"smax32", s32(r.s32max), r.s32max == std::numeric_limits<int32_t>::max()},
        {"umin32", r.u32min, r.u32min == 0},
        {"umax32", r.u32max, r.u32max == ~0u},
    };
    std::string out;
    for (size_t i = 0; i < std::size(m); i++) {
        if (m[i].omit)
            continue;
        const bool neg1 = m[i].name[0] == 's' && int64_t(m[i].val) < 0;
        out += fmt::format("{}{}=", out.empty() ? "" : ",", m[i].name);
        for (size_t j = i + 2; j < std::size(m); j += 2) {
            if (m[j].omit || m[j].val != m[i].val)
                continue;
            const bool neg2 = m[j].name[0] == 's' && int64_t(m[j].val) < 0;
            if (neg1 != neg2)
                continue;
            m[j].omit = true;
            out += fmt::format("{}=", m[j].name);
        }
        out += m[i].name[0] == 's' ? snum(int64_t(m[i].val)) : unum(m[i].val);
    }
    return out;
}

bool is_map_pointer(RegType t) { return t == RegType::map_ptr || t == RegType::map_value || t == RegType::map_key; }

} // namespace

// libbpf's name for a map: the BTF name, or for global data "<object name, 8 chars><section>" (internal_map_name).
std::string kernel_map_name(const Env& env, uint32_t index) {
    if (index >= env.facts.inst.map_count())
        return ""; // an inner map template: the kernel's inner map meta has no name
    const loader::MapSpec* spec = env.facts.map_spec(index);
    if (!spec)
        return "";
    std::string name = spec->name;
    if (spec->section != ".maps") {
        std::string obj = env.facts.inst.spec().path;
        obj = obj.substr(obj.rfind('/') == std::string::npos ? 0 : obj.rfind('/') + 1);
        obj = obj.substr(0, obj.find('.'));
        const size_t sfx = std::max<size_t>(7, name.size());
        const size_t pfx = name.find('.', 1) != std::string::npos ? 0 : std::min<size_t>(16 - sfx - 1, obj.size());
        name = obj.substr(0, pfx) + name.substr(0, sfx);
        for (char& c : name)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.')
                c = '_';
    }
    return name.substr(0, 15); // BPF_OBJ_NAME_LEN
}

// print_reg_state.
std::string kernel_reg_str(const Env& env, const Reg& r, int frameno) {
    if (r.type == RegType::scalar && r.var.is_const())
        return snum(int64_t(r.var.value));
    std::string out = reg_type_str(r);
    if (r.type == RegType::btf_id)
        out += btf_reg_type_name(r);
    uint32_t map_index = r.aux;
    if (r.type == RegType::map_ptr && r.maybe_null && !env.facts.variant.typed_lookup) {
        // A map-in-map lookup before its null check: strbpf types it as the inner template at the call, the kernel
        // prints it as the outer map's value until the check.
        for (size_t o = 0; o < env.facts.inst.map_count(); o++)
            if (env.facts.inst.inner_template(o) == int(r.aux)) {
                map_index = uint32_t(o);
                out = "map_value_or_null";
                break;
            }
    }
    if (r.type == RegType::stack) {
        if (r.frameno != frameno)
            out += fmt::format("[{}]", r.frameno);
        if (r.var.is_const())
            return out + snum(int64_t(r.var.value) + r.off);
    }
    std::vector<std::string> parts;
    if (r.id)
        parts.push_back(fmt::format("id={}", r.id) +
                        (r.type == RegType::scalar && r.link != Link::none ? fmt::format("{:+}", r.off) : ""));
    if (r.ref_obj_id)
        parts.push_back(fmt::format("ref_obj_id={}", r.ref_obj_id));
    if (r.type == RegType::btf_id && (r.btf_flags & kBtfAlloc) && (r.btf_flags & kBtfNonOwn))
        parts.push_back("non_own_ref"); // type_is_non_owning_ref
    if (is_map_pointer(r.type)) {
        const loader::MapSpec* spec = env.facts.map_spec(map_index);
        const std::string name = kernel_map_name(env, map_index);
        if (!name.empty())
            parts.push_back("map=" + name);
        parts.push_back(fmt::format("ks={},vs={}", spec ? spec->key_size : 0, spec ? spec->value_size : 0));
    }
    if (r.type != RegType::scalar && r.off)
        parts.push_back("off=" + snum(r.off));
    if (r.is_pkt())
        parts.push_back("r=" + unum(r.aux));
    if (r.type == RegType::mem)
        parts.push_back("sz=" + unum(r.aux));
    if (r.type == RegType::mem && r.buf_off) // a dynptr slice's stack buffer: frame, offset, size
        parts.push_back(fmt::format("buf=fp[{}]{}+{}", r.buf_frame, r.buf_off, r.aux));
    if (r.type == RegType::dynptr)
        parts.push_back(std::string("type=") + dynptr_type_str(r.dynptr));
    if (r.var.is_const()) {
        if (r.var.value)
            parts.push_back("imm=" + snum(int64_t(r.var.value)));
    } else {
        const std::string ranges = scalar_ranges(r);
        if (!ranges.empty())
            parts.push_back(ranges);
        if (!r.var.is_unknown())
            parts.push_back("var_off=" + tnum_str(r.var));
    }
    std::string inner;
    for (const std::string& p : parts)
        inner += (inner.empty() ? "" : ",") + p;
    return out + "(" + inner + ")";
}

// print_verifier_state of frame FRAMENO: every register and stack slot, or only the scratched ones.
std::string kernel_state_str(const Env& env, const State& st, int frameno, bool all) {
    const Frame& f = st.frames[size_t(frameno)];
    std::string out = frameno ? fmt::format(" frame{}:", frameno) : "";
    for (int i = 0; i < isa::kNumRegs; i++) {
        if (f.regs[size_t(i)].type == RegType::not_init || (!all && !(env.log.scratched_regs & (1u << i))))
            continue;
        out += fmt::format(" R{}={}", i, kernel_reg_str(env, f.regs[size_t(i)], frameno));
    }
    for (size_t slot = 0; slot < f.stack.size() && slot < 64; slot++) {
        if (!all && !(env.log.scratched_slots & (1ull << slot)))
            continue;
        const StackSlot& s = f.stack[slot];
        if (s.bytes[0] == Slot::iter) { // the iterator's first slot holds its reference; the others print nothing
            if (s.spilled.ref_obj_id)
                out += fmt::format(" fp{}={}", -8 * int(slot + 1), iter_slot_str(s));
            continue;
        }
        if (s.bytes[0] == Slot::dynptr) { // printed once, at the dynptr's first slot, after its second one
            if (!s.spilled.dynptr_first && slot + 1 < f.stack.size())
                out += fmt::format(" fp{}={}", -8 * int(slot + 2), dynptr_slot_str(f.stack[slot + 1]));
            if (!s.spilled.dynptr_first)
                slot++;
            continue;
        }
        std::string types; // the kernel's slot_type[0..7]: highest address first
        bool valid = false;
        for (int b = 7; b >= 0; b--) {
            const Slot k = s.bytes[size_t(b)];
            valid |= k != Slot::invalid;
            types += k == Slot::invalid ? '?' : k == Slot::misc ? 'm' : k == Slot::zero ? '0' : 'r';
        }
        if (!valid)
            continue;
        out += fmt::format(" fp{}=", -8 * int(slot + 1));
        if (s.bytes[0] == Slot::spill) // print the bytes above a narrow spill, then the spilled register
            out += types.substr(0, types.find('r')) + kernel_reg_str(env, s.spilled, frameno);
        else
            out += types;
    }
    // 6.18 keeps a held bpf_spin_lock among the references, under the id of the pointer it was taken through, at
    // its place in the array (LockState::pos). It prints the ids after the first only when the first is not 0,
    // and then only those that are not 0 (a global variable's lock has id 0).
    std::vector<uint32_t> ids;
    for (size_t i = 0; i <= st.refs.size(); i++) {
        if (st.lock.held() && st.lock.pos == i)
            ids.push_back(st.lock.id);
        if (i < st.refs.size())
            ids.push_back(st.refs[i].id);
    }
    if (!ids.empty() && ids[0]) {
        out += fmt::format(" refs={}", ids[0]);
        for (size_t i = 1; i < ids.size(); i++)
            if (ids[i])
                out += fmt::format(",{}", ids[i]);
    }
    if (f.in_callback)
        out += " cb";
    if (f.in_async_callback) // print_verifier_state's marker of an async callback's frame
        out += " async_cb";
    return out;
}

void mark_all_scratched(Env& env) {
    env.log.scratched_regs = 0x7ff;
    env.log.scratched_slots = ~0ull;
}

// print_insn_state: after the instruction line when nothing came between, else on a line of its own.
void print_insn_state(Env& env) {
    if (env.log.level <= 0)
        return;
    if (env.log.prev_log_pos && env.log.prev_log_pos == env.log.text.size()) {
        env.log.text.pop_back(); // the instruction line's newline
        const size_t pos = env.log.prev_insn_print_pos;
        const size_t aligned = (std::max<size_t>(pos + 4, 40) + 7) / 8 * 8 - pos - 1; // vlog_alignment
        env.log.text.append(aligned, ' ');
        env.log.text += ';';
    } else {
        env.log.text += fmt::format("{}:", env.path.pc);
    }
    env.log.text += kernel_state_str(env, env.path.cur, int(env.path.cur.frames.size()) - 1, false);
    env.log.text += '\n';
    env.log.scratched_regs = 0;
    env.log.scratched_slots = 0;
}

// verbose_linfo: the line info record covering PC, unless it is the one printed last or names the same line.
void print_linfo(Env& env, int32_t pc) {
    const auto& lines = env.facts.prog.lines;
    auto it = std::upper_bound(lines.begin(), lines.end(), uint32_t(pc),
                               [](uint32_t v, const loader::LineInfo& l) { return v < l.insn; });
    if (it == lines.begin())
        return;
    const int idx = int(it - lines.begin()) - 1;
    if (idx == env.log.prev_linfo)
        return;
    const loader::LineInfo& cur = lines[size_t(idx)];
    if (env.log.prev_linfo >= 0 && lines[size_t(env.log.prev_linfo)].file == cur.file &&
        lines[size_t(env.log.prev_linfo)].line == cur.line)
        return;
    const size_t start = cur.source.find_first_not_of(" \t\n\r\f\v");
    std::string file = cur.file.substr(cur.file.rfind('/') == std::string::npos ? 0 : cur.file.rfind('/') + 1);
    env.log.text +=
        fmt::format("; {} @ {}:{}\n", start == std::string::npos ? "" : cur.source.substr(start), file, cur.line);
    env.log.prev_linfo = idx;
}

} // namespace strbpf::verifier
