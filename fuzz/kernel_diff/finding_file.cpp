// SPDX-License-Identifier: BSD-2-Clause
// Kernel-differential findings as text files: writing (with a disassembly beside each instruction) and parsing.
#include "kernel_diff/finding_file.hpp"

#include <cstring>
#include <sstream>

#include "isa/disasm.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"

namespace strbpf::fuzz::kdiff {
namespace {

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos)
        return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Helper and kfunc names for the disassembly (harness encoding: a kfunc call's imm is its kfunc-table index).
std::string call_name(uint8_t src, int32_t imm) {
    if (src == 0)
        if (const runtime::HelperProto* h = runtime::find_helper(imm))
            return h->name;
    const auto kfuncs = runtime::kfunc_table();
    if (src == isa::BPF_PSEUDO_KFUNC_CALL && imm >= 0 && size_t(imm) < kfuncs.size())
        return kfuncs[size_t(imm)].name;
    return "";
}

std::string insn_hex(const isa::Insn& i) {
    uint8_t b[8];
    std::memcpy(b, &i, 8);
    static const char* kHex = "0123456789abcdef";
    std::string s;
    for (uint8_t c : b) {
        s += kHex[c >> 4];
        s += kHex[c & 15];
    }
    return s;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

Result<isa::Insn> parse_insn(const std::string& word, size_t line_no) {
    uint8_t b[8];
    for (size_t k = 0; k < 8; k++) {
        const int hi = word.size() == 16 ? hex_digit(word[2 * k]) : -1;
        const int lo = word.size() == 16 ? hex_digit(word[2 * k + 1]) : -1;
        if (hi < 0 || lo < 0)
            return make_error("line " + std::to_string(line_no) + ": an instruction is 16 hex digits, got '" + word +
                              "'");
        b[k] = uint8_t(hi << 4 | lo);
    }
    isa::Insn i;
    std::memcpy(&i, b, 8);
    return i;
}

Result<bool> parse_verdict(const std::string& v, const char* key) {
    if (v == "accept")
        return true;
    if (v == "reject")
        return false;
    return make_error(std::string(key) + ": expected accept or reject, got '" + v + "'");
}

} // namespace

Result<loader::ProgType> prog_type_of(const std::string& name) {
    if (name == "syscall")
        return loader::ProgType::syscall;
    if (name == "xdp")
        return loader::ProgType::xdp;
    if (name == "socket" || name == "socket_filter")
        return loader::ProgType::socket_filter;
    return make_error("unknown program type '" + name + "' (syscall, xdp, socket)");
}

const char* type_name(loader::ProgType t) {
    return t == loader::ProgType::xdp ? "xdp" : t == loader::ProgType::socket_filter ? "socket_filter" : "syscall";
}

std::string format_finding(const Finding& f) {
    std::ostringstream o;
    o << "# " << f.title << "\n";
    o << "type: " << type_name(f.type) << "\n";
    o << "kernel: " << (f.kernel_ok ? "accept" : "reject") << "\n";
    o << "kernel-reason: " << f.kernel_reason << "\n";
    o << "strbpf: " << (f.strbpf_ok ? "accept" : "reject") << "\n";
    o << "strbpf-reason: " << f.strbpf_reason << "\n";
    o << "insns:\n";
    for (size_t pc = 0; pc < f.insns.size(); pc++) {
        o << insn_hex(f.insns[pc]) << "  " << pc << ": " << isa::disasm_insn(f.insns, pc, call_name) << "\n";
        if (f.insns[pc].opcode == (isa::BPF_LD | isa::BPF_IMM | isa::BPF_DW) && pc + 1 < f.insns.size())
            o << insn_hex(f.insns[++pc]) << "\n";
    }
    return o.str();
}

Result<Finding> parse_finding(const std::string& text) {
    Finding f;
    std::istringstream in(text);
    std::string line;
    bool in_insns = false, have_type = false, have_kernel = false, have_strbpf = false;
    for (size_t line_no = 1; std::getline(in, line); line_no++) {
        const std::string t = trim(line);
        if (t.empty())
            continue;
        if (t[0] == '#') {
            if (f.title.empty())
                f.title = trim(t.substr(1));
            continue;
        }
        if (in_insns) {
            auto insn = parse_insn(t.substr(0, t.find_first_of(" \t")), line_no);
            if (!insn)
                return insn.error();
            f.insns.push_back(insn.value());
            continue;
        }
        const size_t colon = t.find(':');
        if (colon == std::string::npos)
            return make_error("line " + std::to_string(line_no) + ": expected 'key: value', got '" + t + "'");
        const std::string key = t.substr(0, colon), value = trim(t.substr(colon + 1));
        if (key == "type") {
            auto ty = prog_type_of(value);
            if (!ty)
                return ty.error();
            f.type = ty.value();
            have_type = true;
        } else if (key == "kernel" || key == "strbpf") {
            auto ok = parse_verdict(value, key.c_str());
            if (!ok)
                return ok.error();
            (key == "kernel" ? f.kernel_ok : f.strbpf_ok) = ok.value();
            (key == "kernel" ? have_kernel : have_strbpf) = true;
        } else if (key == "kernel-reason") {
            f.kernel_reason = value;
        } else if (key == "strbpf-reason") {
            f.strbpf_reason = value;
        } else if (key == "insns") {
            in_insns = true;
        } else {
            return make_error("line " + std::to_string(line_no) + ": unknown key '" + key + "'");
        }
    }
    if (!have_type || !have_kernel || !have_strbpf || f.insns.empty())
        return make_error("a finding needs type, kernel, strbpf and at least one instruction");
    return f;
}

} // namespace strbpf::fuzz::kdiff
