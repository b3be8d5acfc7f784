// SPDX-License-Identifier: BSD-2-Clause
// The uBPF / bpf_conformance assembler and its inverse printer (isa stage); every mnemonic comes from opcodes.def.
#include "isa/assembler.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "isa/opcodes.hpp"

namespace strbpf::isa {
namespace {

using Operands = std::vector<std::string_view>;

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Parses a decimal or 0x-hex integer with an optional sign, range-checked against [lo, hi].
std::optional<int64_t> parse_int(std::string_view s, int64_t lo, uint64_t hi) {
    s = trim(s);
    bool neg = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    }
    uint64_t mag = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), mag, base);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    if (neg) {
        if (mag > uint64_t(-(lo + 1)) + 1)
            return std::nullopt;
        return int64_t(0 - mag);
    }
    if (mag > hi)
        return std::nullopt;
    return int64_t(mag);
}

std::optional<uint8_t> parse_reg(std::string_view s) {
    s = trim(s);
    if (!s.empty() && s[0] == '%')
        s.remove_prefix(1);
    if (s.size() < 2 || s[0] != 'r')
        return std::nullopt;
    uint32_t n = 0;
    auto [p, ec] = std::from_chars(s.data() + 1, s.data() + s.size(), n);
    if (ec != std::errc() || p != s.data() + s.size() || n > 15)
        return std::nullopt;
    return uint8_t(n);
}

bool looks_like_reg(std::string_view s) { return parse_reg(s).has_value(); }

// What one source line holds after the mnemonic and operands are split.
struct Line {
    int number;
    std::string mnemonic;
    Operands ops;
};

// Pending label reference: instruction index and which field holds the relative target.
struct Fixup {
    size_t pc;
    std::string label;
    bool in_imm;
    int line;
};

class Assembler {
  public:
    Result<std::vector<Insn>> run(std::string_view text);

  private:
    Status statement(std::string_view body, int line_no);
    Status encode(const OpInfo& op, const Line& l);
    Status mem_operand(std::string_view s, Insn* insn, bool base_is_src, int line);
    Result<uint8_t> reg_operand(std::string_view s, int line);
    Status imm32_operand(std::string_view s, int32_t* imm, int line);
    Status target_operand(std::string_view s, bool in_imm, int line);
    Status ld_imm64(const OpInfo& op, const Line& l, Insn* first, Insn* second);
    const OpInfo* pick(const std::string& mnemonic, const Operands& ops) const;

    std::vector<Insn> out_;
    std::unordered_map<std::string, size_t> labels_;
    std::vector<Fixup> fixups_;
    std::optional<size_t> first_exit_; // bpf_conformance's implicit label "exit"
};

Error line_error(int line, std::string msg) { return make_error(fmt::format("line {}: {}", line, msg)); }

const std::multimap<std::string, const OpInfo*>& mnemonic_index() {
    static const auto idx = [] {
        std::multimap<std::string, const OpInfo*> m;
        for (const OpInfo& op : op_table())
            m.emplace(op.mnemonic, &op);
        return m;
    }();
    return idx;
}

std::string canonical_mnemonic(std::string m) {
    static const std::unordered_map<std::string, std::string> kAliases = {
        {"swap16", "bswap16"},   {"swap32", "bswap32"}, {"swap64", "bswap64"}, {"ldsxb", "ldxsb"},
        {"ldsxh", "ldxsh"},      {"ldsxw", "ldxsw"},    {"gotol", "ja32"},     {"call kfunc", "call runtime"},
        {"call helper", "call"},
    };
    if (auto it = kAliases.find(m); it != kAliases.end())
        return it->second;
    if (!mnemonic_index().contains(m) && m.size() > 2 && m.ends_with("64"))
        return m.substr(0, m.size() - 2); // "add64" == "add"
    return m;
}

// Splits "jeq %r1, 5, +1" into operands at top-level commas (commas inside [] or () stay).
Operands split_operands(std::string_view s) {
    Operands ops;
    int depth = 0;
    size_t start = 0;
    for (size_t k = 0; k <= s.size(); k++) {
        const char c = k < s.size() ? s[k] : ',';
        if (c == '[' || c == '(')
            depth++;
        else if (c == ']' || c == ')')
            depth--;
        else if (c == ',' && depth <= 0) {
            std::string_view op = trim(s.substr(start, k - start));
            if (!op.empty() || k < s.size())
                ops.push_back(op);
            start = k + 1;
        }
    }
    return ops;
}

// Words that belong to the mnemonic: "lock [fetch] op", "call local|runtime|helper|kfunc".
std::string take_mnemonic(std::string_view* rest) {
    auto word = [&]() {
        *rest = trim(*rest);
        size_t n = 0;
        while (n < rest->size() && is_ident_char((*rest)[n]))
            n++;
        std::string w(rest->substr(0, n));
        for (char& c : w)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        return w;
    };
    auto consume = [&](const std::string& w) { rest->remove_prefix(w.size()); };
    std::string m = word();
    consume(m);
    if (m == "lock") {
        std::string w = word();
        consume(w);
        if (w == "fetch") {
            m += " fetch";
            w = word();
            consume(w);
        }
        return m + " " + w;
    }
    if (m == "call") {
        std::string_view save = *rest;
        std::string w = word();
        if (w == "local" || w == "runtime" || w == "helper" || w == "kfunc") {
            consume(w);
            return m + " " + w;
        }
        *rest = save;
    }
    return m;
}

const OpInfo* Assembler::pick(const std::string& mnemonic, const Operands& ops) const {
    auto [lo, hi] = mnemonic_index().equal_range(mnemonic);
    for (auto it = lo; it != hi; ++it) {
        const OpInfo& op = *it->second;
        switch (op.shape) {
        case Shape::ALU64_K:
        case Shape::ALU32_K:
        case Shape::JMP_K:
        case Shape::JMP32_K:
            if (ops.size() >= 2 && looks_like_reg(ops[1]))
                continue;
            return &op;
        case Shape::ALU64_X:
        case Shape::ALU32_X:
        case Shape::JMP_X:
        case Shape::JMP32_X:
            if (ops.size() < 2 || !looks_like_reg(ops[1]))
                continue;
            return &op;
        case Shape::LDDW: {
            std::string_view v = ops.size() >= 2 ? ops[1] : std::string_view();
            const size_t paren = v.find('(');
            std::string_view name = paren == std::string_view::npos ? std::string_view() : trim(v.substr(0, paren));
            if (name != ld_imm64_pseudo_name(uint8_t(op.value)))
                continue;
            return &op;
        }
        default:
            return &op;
        }
    }
    return nullptr;
}

Result<uint8_t> Assembler::reg_operand(std::string_view s, int line) {
    auto r = parse_reg(s);
    if (!r)
        return line_error(line, fmt::format("expected a register, got '{}'", s));
    return *r;
}

// Sets a bit-field (dst/src) from a Result, propagating its error.
#define STRBPF_ASM_SET(lhs, expr)                                                                                      \
    do {                                                                                                               \
        auto r_ = (expr);                                                                                              \
        if (!r_.ok())                                                                                                  \
            return r_.error();                                                                                         \
        lhs = *r_;                                                                                                     \
    } while (0)

Status Assembler::imm32_operand(std::string_view s, int32_t* imm, int line) {
    auto v = parse_int(s, std::numeric_limits<int32_t>::min(), std::numeric_limits<uint32_t>::max());
    if (!v)
        return line_error(line, fmt::format("expected a 32-bit immediate, got '{}'", s));
    *imm = int32_t(uint32_t(uint64_t(*v)));
    return ok_status();
}

// "[%r1+4]", "[%r10 - 8]", "[%r1]"
Status Assembler::mem_operand(std::string_view s, Insn* insn, bool base_is_src, int line) {
    s = trim(s);
    if (s.size() < 3 || s.front() != '[' || s.back() != ']')
        return line_error(line, fmt::format("expected a memory operand like [%r1+4], got '{}'", s));
    std::string_view in = trim(s.substr(1, s.size() - 2));
    size_t sign = in.find_first_of("+-");
    if (base_is_src)
        STRBPF_ASM_SET(insn->src, reg_operand(in.substr(0, sign), line));
    else
        STRBPF_ASM_SET(insn->dst, reg_operand(in.substr(0, sign), line));
    insn->off = 0;
    if (sign != std::string_view::npos) {
        std::string num(in.substr(sign));
        std::erase_if(num, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
        auto v = parse_int(num, std::numeric_limits<int16_t>::min(), std::numeric_limits<uint16_t>::max());
        if (!v)
            return line_error(line, fmt::format("bad offset in memory operand '{}'", s));
        insn->off = int16_t(uint16_t(uint64_t(*v)));
    }
    return ok_status();
}

// "+3", "-2", "7" (relative) or a label, resolved after the last line.
Status Assembler::target_operand(std::string_view s, bool in_imm, int line) {
    s = trim(s);
    Insn& i = out_.back();
    if (!s.empty() && (s[0] == '+' || s[0] == '-' || std::isdigit(static_cast<unsigned char>(s[0])))) {
        auto v = in_imm ? parse_int(s, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())
                        : parse_int(s, std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max());
        if (!v)
            return line_error(line, fmt::format("bad jump offset '{}'", s));
        if (in_imm)
            i.imm = int32_t(*v);
        else
            i.off = int16_t(*v);
        return ok_status();
    }
    if (s.empty() || !std::all_of(s.begin(), s.end(), is_ident_char))
        return line_error(line, fmt::format("expected a jump target (+N, -N or a label), got '{}'", s));
    fixups_.push_back(Fixup{out_.size() - 1, std::string(s), in_imm, line});
    return ok_status();
}

Status Assembler::ld_imm64(const OpInfo& op, const Line& l, Insn* first, Insn* second) {
    STRBPF_ASM_SET(first->dst, reg_operand(l.ops[0], l.number));
    std::string_view v = trim(l.ops[1]);
    if (op.value == 0) {
        auto n = parse_int(v, std::numeric_limits<int64_t>::min(), std::numeric_limits<uint64_t>::max());
        if (!n)
            return line_error(l.number, fmt::format("expected a 64-bit immediate, got '{}'", v));
        first->imm = int32_t(uint32_t(uint64_t(*n)));
        second->imm = int32_t(uint32_t(uint64_t(*n) >> 32));
        return ok_status();
    }
    const size_t open = v.find('(');
    if (v.back() != ')')
        return line_error(l.number, fmt::format("expected {}(...), got '{}'", ld_imm64_pseudo_name(op.value), v));
    Operands args = split_operands(v.substr(open + 1, v.size() - open - 2));
    const bool two = op.value == BPF_PSEUDO_MAP_VALUE || op.value == BPF_PSEUDO_MAP_IDX_VALUE;
    if (args.size() != (two ? 2u : 1u))
        return line_error(l.number,
                          fmt::format("{}(...) takes {} argument(s)", ld_imm64_pseudo_name(op.value), two ? 2 : 1));
    STRBPF_TRY(imm32_operand(args[0], &first->imm, l.number));
    if (two)
        STRBPF_TRY(imm32_operand(args[1], &second->imm, l.number));
    return ok_status();
}

size_t operand_count(Shape s) {
    switch (s) {
    case Shape::NEG64:
    case Shape::NEG32:
    case Shape::END:
    case Shape::LD_ABS:
    case Shape::JA:
    case Shape::MAY_GOTO:
    case Shape::GOTOL:
    case Shape::CALL_HELPER:
    case Shape::CALL_LOCAL:
    case Shape::CALL_KFUNC:
        return 1;
    case Shape::JMP_K:
    case Shape::JMP_X:
    case Shape::JMP32_K:
    case Shape::JMP32_X:
        return 3;
    case Shape::EXIT:
        return 0;
    default:
        return 2;
    }
}

Status Assembler::encode(const OpInfo& op, const Line& l) {
    // may_goto takes its verified form's counter slot as an optional second operand ("may_goto +2, -8")
    const bool counter_slot = op.shape == Shape::MAY_GOTO && l.ops.size() == 2;
    if (l.ops.size() != operand_count(op.shape) && !counter_slot)
        return line_error(l.number, fmt::format("'{}' takes {} operand(s), got {}", op.mnemonic,
                                                operand_count(op.shape), l.ops.size()));
    Insn i{};
    i.opcode = op.opcode;
    if (op.field == Field::OFF)
        i.off = int16_t(op.value);
    else if (op.field == Field::IMM)
        i.imm = op.value;
    else if (op.field == Field::SRC)
        i.src = uint8_t(op.value);
    out_.push_back(i);
    Insn& n = out_.back();
    const int ln = l.number;
    switch (op.shape) {
    case Shape::ALU64_K:
    case Shape::ALU32_K:
        STRBPF_ASM_SET(n.dst, reg_operand(l.ops[0], ln));
        return imm32_operand(l.ops[1], &n.imm, ln);
    case Shape::ALU64_X:
    case Shape::ALU32_X:
        STRBPF_ASM_SET(n.dst, reg_operand(l.ops[0], ln));
        STRBPF_ASM_SET(n.src, reg_operand(l.ops[1], ln));
        return ok_status();
    case Shape::NEG64:
    case Shape::NEG32:
    case Shape::END:
        STRBPF_ASM_SET(n.dst, reg_operand(l.ops[0], ln));
        return ok_status();
    case Shape::LDX:
    case Shape::LDSX:
    case Shape::ARENA_LDX: // internal forms: their two-word mnemonics never parse; kept for the switch
    case Shape::ARENA_LDSX:
        STRBPF_ASM_SET(n.dst, reg_operand(l.ops[0], ln));
        return mem_operand(l.ops[1], &n, true, ln);
    case Shape::ST:
    case Shape::ARENA_ST:
        STRBPF_TRY(mem_operand(l.ops[0], &n, false, ln));
        return imm32_operand(l.ops[1], &n.imm, ln);
    case Shape::STX:
    case Shape::ARENA_STX:
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW:
    case Shape::ARENA_ATOMIC_W:
    case Shape::ARENA_ATOMIC_DW:
        STRBPF_TRY(mem_operand(l.ops[0], &n, false, ln));
        STRBPF_ASM_SET(n.src, reg_operand(l.ops[1], ln));
        return ok_status();
    case Shape::LDDW: {
        Insn second{};
        Status s = ld_imm64(op, l, &n, &second);
        out_.push_back(second);
        return s;
    }
    case Shape::LD_ABS:
        return imm32_operand(l.ops[0], &n.imm, ln);
    case Shape::LD_IND:
        STRBPF_ASM_SET(n.src, reg_operand(l.ops[0], ln));
        return imm32_operand(l.ops[1], &n.imm, ln);
    case Shape::JA:
        return target_operand(l.ops[0], false, ln);
    case Shape::MAY_GOTO:
        if (l.ops.size() == 2)
            STRBPF_TRY(imm32_operand(l.ops[1], &n.imm, ln));
        return target_operand(l.ops[0], false, ln);
    case Shape::GOTOL:
    case Shape::CALL_LOCAL:
        return target_operand(l.ops[0], true, ln);
    case Shape::JMP_K:
    case Shape::JMP32_K:
        STRBPF_ASM_SET(n.dst, reg_operand(l.ops[0], ln));
        STRBPF_TRY(imm32_operand(l.ops[1], &n.imm, ln));
        return target_operand(l.ops[2], false, ln);
    case Shape::JMP_X:
    case Shape::JMP32_X:
        STRBPF_ASM_SET(n.dst, reg_operand(l.ops[0], ln));
        STRBPF_ASM_SET(n.src, reg_operand(l.ops[1], ln));
        return target_operand(l.ops[2], false, ln);
    case Shape::CALL_HELPER:
    case Shape::CALL_KFUNC:
        return imm32_operand(l.ops[0], &n.imm, ln);
    case Shape::EXIT:
        return ok_status();
    }
    return line_error(ln, "unhandled shape");
}

Status Assembler::statement(std::string_view body, int line_no) {
    // Leading labels: "name:" (possibly followed by an instruction on the same line).
    for (;;) {
        size_t n = 0;
        while (n < body.size() && is_ident_char(body[n]))
            n++;
        if (n == 0 || n >= body.size() || body[n] != ':')
            break;
        std::string label(body.substr(0, n));
        if (!labels_.emplace(label, out_.size()).second)
            return line_error(line_no, fmt::format("duplicate label '{}'", label));
        body = trim(body.substr(n + 1));
    }
    if (body.empty())
        return ok_status();
    Line l{line_no, {}, {}};
    std::string_view rest = body;
    l.mnemonic = canonical_mnemonic(take_mnemonic(&rest));
    l.ops = split_operands(trim(rest));
    const OpInfo* op = pick(l.mnemonic, l.ops);
    if (!op) {
        if (!mnemonic_index().contains(l.mnemonic))
            return line_error(line_no, fmt::format("unknown mnemonic '{}'", l.mnemonic));
        return line_error(line_no, fmt::format("operands do not fit '{}': '{}'", l.mnemonic, trim(rest)));
    }
    if (op->shape == Shape::EXIT && !first_exit_)
        first_exit_ = out_.size();
    return encode(*op, l);
}

Result<std::vector<Insn>> Assembler::run(std::string_view text) {
    int line_no = 0;
    while (!text.empty()) {
        line_no++;
        const size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        if (const size_t c = std::min(line.find('#'), line.find("//")); c != std::string_view::npos)
            line = line.substr(0, c);
        STRBPF_TRY(statement(trim(line), line_no));
    }
    for (const Fixup& f : fixups_) {
        auto it = labels_.find(f.label);
        std::optional<size_t> target = it != labels_.end() ? std::optional(it->second) : std::nullopt;
        if (!target && f.label == "exit")
            target = first_exit_;
        if (!target)
            return line_error(f.line, fmt::format("undefined label '{}'", f.label));
        const int64_t rel = int64_t(*target) - int64_t(f.pc) - 1;
        if (f.in_imm) {
            out_[f.pc].imm = int32_t(rel);
        } else {
            if (rel < std::numeric_limits<int16_t>::min() || rel > std::numeric_limits<int16_t>::max())
                return line_error(f.line, fmt::format("label '{}' is {} insns away, too far for off", f.label, rel));
            out_[f.pc].off = int16_t(rel);
        }
    }
    if (out_.empty())
        return make_error("no instructions");
    return std::move(out_);
}

std::string mem(uint8_t reg, int16_t off) { return fmt::format("[%r{}{:+d}]", reg, off); }

} // namespace

Result<std::vector<Insn>> assemble(std::string_view text) {
    Assembler a;
    return a.run(text);
}

std::string to_asm(std::span<const Insn> prog, size_t pc) {
    if (pc >= prog.size())
        return "# pc out of range";
    const Insn& i = prog[pc];
    const OpInfo* op = decode(i);
    if (!op)
        return fmt::format("# invalid insn opcode 0x{:02x}", i.opcode);
    const char* m = op->mnemonic;
    switch (op->shape) {
    case Shape::ALU64_K:
    case Shape::ALU32_K:
        return fmt::format("{} %r{}, {}", m, i.dst, i.imm);
    case Shape::ALU64_X:
    case Shape::ALU32_X:
        return fmt::format("{} %r{}, %r{}", m, i.dst, i.src);
    case Shape::NEG64:
    case Shape::NEG32:
    case Shape::END:
        return fmt::format("{} %r{}", m, i.dst);
    case Shape::LDX:
    case Shape::LDSX:
    case Shape::ARENA_LDX:
    case Shape::ARENA_LDSX:
        return fmt::format("{} %r{}, {}", m, i.dst, mem(i.src, i.off));
    case Shape::ST:
    case Shape::ARENA_ST:
        return fmt::format("{} {}, {}", m, mem(i.dst, i.off), i.imm);
    case Shape::STX:
    case Shape::ARENA_STX:
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW:
    case Shape::ARENA_ATOMIC_W:
    case Shape::ARENA_ATOMIC_DW:
        return fmt::format("{} {}, %r{}", m, mem(i.dst, i.off), i.src);
    case Shape::LDDW: {
        if (pc + 1 >= prog.size())
            return "# ld_imm64 without its second slot";
        const int32_t hi = prog[pc + 1].imm;
        if (op->value == 0)
            return fmt::format("lddw %r{}, 0x{:x}", i.dst, uint64_t(uint32_t(i.imm)) | uint64_t(uint32_t(hi)) << 32);
        if (op->value == BPF_PSEUDO_MAP_VALUE || op->value == BPF_PSEUDO_MAP_IDX_VALUE)
            return fmt::format("lddw %r{}, {}({}, {})", i.dst, ld_imm64_pseudo_name(i.src), i.imm, hi);
        return fmt::format("lddw %r{}, {}({})", i.dst, ld_imm64_pseudo_name(i.src), i.imm);
    }
    case Shape::LD_ABS:
        return fmt::format("{} {}", m, i.imm);
    case Shape::LD_IND:
        return fmt::format("{} %r{}, {}", m, i.src, i.imm);
    case Shape::JA:
        return fmt::format("{} {:+d}", m, i.off);
    case Shape::MAY_GOTO:
        return i.imm ? fmt::format("{} {:+d}, {}", m, i.off, i.imm) : fmt::format("{} {:+d}", m, i.off);
    case Shape::GOTOL:
    case Shape::CALL_LOCAL:
        return fmt::format("{} {:+d}", m, i.imm);
    case Shape::JMP_K:
    case Shape::JMP32_K:
        return fmt::format("{} %r{}, {}, {:+d}", m, i.dst, i.imm, i.off);
    case Shape::JMP_X:
    case Shape::JMP32_X:
        return fmt::format("{} %r{}, %r{}, {:+d}", m, i.dst, i.src, i.off);
    case Shape::CALL_HELPER:
    case Shape::CALL_KFUNC:
        return fmt::format("{} {}", m, i.imm);
    case Shape::EXIT:
        return "exit";
    }
    return "# unhandled";
}

std::string to_asm_program(std::span<const Insn> prog) {
    std::string out;
    for (size_t pc = 0; pc < prog.size(); pc++) {
        out += to_asm(prog, pc);
        out += '\n';
        if (const OpInfo* op = decode(prog[pc]); op && slots(*op) == 2)
            pc++;
    }
    return out;
}

} // namespace strbpf::isa
