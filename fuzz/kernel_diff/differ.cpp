// SPDX-License-Identifier: BSD-2-Clause
// Judging one program on both verifiers, classes and categories of verdict pairs, and the minimiser.
#include "kernel_diff/differ.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "common/harness.hpp"

namespace strbpf::fuzz::kdiff {
namespace {


// Where a relative reference lives in an instruction: 0 none, 1 off, 2 imm.
int relative_field(const isa::Insn& i) {
    const uint8_t cls = i.opcode & 7, op = i.opcode & 0xf0;
    if (isa::is_ld_imm64(i))
        return i.src == isa::BPF_PSEUDO_FUNC ? 2 : 0;
    if (cls != isa::BPF_JMP && cls != isa::BPF_JMP32)
        return 0;
    if (op == isa::BPF_CALL)
        return i.src == isa::BPF_PSEUDO_CALL ? 2 : 0;
    if (op == isa::BPF_EXIT)
        return 0;
    return cls == isa::BPF_JMP32 && op == isa::BPF_JA ? 2 : 1; // gotol keeps its offset in imm
}

// second[pc]: pc is the second slot of an ld_imm64 (its bytes are no instruction of their own).
std::vector<bool> second_slots(const std::vector<isa::Insn>& insns) {
    std::vector<bool> second(insns.size() + 1, false);
    for (size_t pc = 0; pc < insns.size(); pc += isa::is_ld_imm64(insns[pc]) ? 2 : 1)
        if (isa::is_ld_imm64(insns[pc]))
            second[pc + 1] = true;
    return second;
}

} // namespace

const char* class_name(Class c) {
    switch (c) {
    case Class::both_accept:
        return "both accept";
    case Class::both_reject:
        return "both reject";
    case Class::strbpf_only:
        return "S";
    case Class::kernel_only:
        return "K";
    default:
        return "no verdict";
    }
}

Judged strbpf_verdict(loader::ProgType type, const std::vector<isa::Insn>& insns) {
    FuzzProgram p;
    p.type = type;
    p.insns = insns;
    const Loaded l = load(p);
    const verifier::Verdict v = verify(l);
    Judged j;
    j.strbpf_ok = v.ok && l.prog; // a verified program that does not link cannot load either: its link error
    j.strbpf_reason = !v.ok ? v.reason : l.prog ? "" : l.inst->programs().front().link_error.message;
    const std::string where = "program 'fuzz': "; // the link error names the program; the kernel's words follow
    if (j.strbpf_reason.rfind(where, 0) == 0)
        j.strbpf_reason.erase(0, where.size());
    return j;
}

std::string strbpf_log(loader::ProgType type, const std::vector<isa::Insn>& insns, int log_level) {
    FuzzProgram p;
    p.type = type;
    p.insns = insns;
    const Loaded l = load(p);
    verifier::Options o;
    o.log_level = log_level;
    const verifier::Verdict v = verifier::verify(*l.inst, l.spec->programs.front(), o);
    return v.log + (v.ok ? "(accepted)\n" : "");
}

Judged judge(KernelOracle& k, loader::ProgType type, const std::vector<isa::Insn>& insns) {
    Judged j = strbpf_verdict(type, insns);
    j.kernel = k.verify(type, insns);
    return j;
}

Class classify(const Judged& j) {
    if (j.kernel.outcome == Outcome::error)
        return Class::no_verdict;
    const bool k = j.kernel.outcome == Outcome::accept;
    if (k == j.strbpf_ok)
        return k ? Class::both_accept : Class::both_reject;
    return j.strbpf_ok ? Class::strbpf_only : Class::kernel_only;
}

std::string category(const std::string& reason) {
    std::string out;
    for (size_t i = 0; i < reason.size();) {
        if (!std::isdigit(static_cast<unsigned char>(reason[i]))) {
            out += reason[i++];
            continue;
        }
        if (reason[i] == '0' && i + 1 < reason.size() && (reason[i + 1] == 'x' || reason[i + 1] == 'X'))
            i += 2;
        while (i < reason.size() && std::isxdigit(static_cast<unsigned char>(reason[i])))
            i++;
        out += 'N';
    }
    return out.size() > 160 ? out.substr(0, 160) : out;
}

std::string finding_category(Class c, const Judged& j) {
    return category(c == Class::strbpf_only ? j.kernel.reason : j.strbpf_reason);
}

std::vector<isa::Insn> remove_range(const std::vector<isa::Insn>& insns, size_t from, size_t to) {
    const auto moved = [&](int64_t x) {
        if (x < int64_t(from))
            return x;
        return x < int64_t(to) ? int64_t(from) : x - int64_t(to - from);
    };
    const std::vector<bool> second = second_slots(insns);
    std::vector<isa::Insn> out;
    out.reserve(insns.size() - (to - from));
    for (size_t pc = 0; pc < insns.size(); pc++) {
        if (pc >= from && pc < to)
            continue;
        isa::Insn i = insns[pc];
        const int field = second[pc] ? 0 : relative_field(i);
        if (field) {
            const int64_t rel = field == 1 ? i.off : i.imm;
            const int64_t target = int64_t(pc) + rel + 1;
            const int64_t now = moved(target) - moved(int64_t(pc)) - 1;
            if (field == 1)
                i.off = int16_t(now);
            else
                i.imm = int32_t(now);
        }
        out.push_back(i);
    }
    return out;
}

namespace {

// One pass of chunk removals, halving the chunk from half the program down to one instruction.
using Clock = std::chrono::steady_clock;

void minimise_pass(KernelOracle& k, loader::ProgType type, Minimised& m, Class want, const std::string& want_cat,
                   size_t max_checks, Clock::time_point deadline) {
    for (size_t chunk = m.insns.size() / 2; chunk >= 1 && m.checks < max_checks; chunk /= 2) {
        for (size_t from = 0; from < m.insns.size() && m.checks < max_checks && Clock::now() < deadline;) {
            const std::vector<bool> second = second_slots(m.insns);
            size_t a = from, b = std::min(from + chunk, m.insns.size());
            if (second[a])
                a--; // never split an ld_imm64 from its second slot
            if (b < m.insns.size() && second[b])
                b++;
            std::vector<isa::Insn> cand = remove_range(m.insns, a, b);
            Judged j = judge(k, type, cand);
            m.checks++;
            if (classify(j) == want && finding_category(want, j) == want_cat) {
                m.insns = std::move(cand);
                m.judged = std::move(j);
            } else {
                from = b;
            }
        }
    }
}

} // namespace

Minimised minimise(KernelOracle& k, loader::ProgType type, const std::vector<isa::Insn>& insns, size_t max_checks,
                   double max_seconds) {
    const Clock::time_point deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_seconds));
    Minimised m;
    m.insns = insns;
    m.judged = judge(k, type, insns);
    const Class want = classify(m.judged);
    const std::string want_cat = finding_category(want, m.judged);
    for (size_t before = 0; before != m.insns.size() && m.checks < max_checks && Clock::now() < deadline;) {
        before = m.insns.size(); // until a pass removes nothing
        minimise_pass(k, type, m, want, want_cat, max_checks, deadline);
    }
    return m;
}

} // namespace strbpf::fuzz::kdiff
