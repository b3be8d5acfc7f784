// SPDX-License-Identifier: BSD-2-Clause
// Reads the kernel selftests' BTF decl-tag annotations and matches verifier logs against them (exec stage).
// Tag forms over kernel versions: "comment:test_expect_msg=msg" (old), "comment:test_expect_msg=<N>=msg" (a
// __COUNTER__ so equal messages stay distinct), "comment:<N>:test_expect_msg=msg" (newest; order by N).
#include "exec/test_spec.hpp"
// Project headers before libbpf's: linux/bpf.h macros clash with isa/insn.hpp names.
#include "exec/kernel/kernel_engine.hpp"
#include "exec/kernel/libbpf_capture.hpp"

#include <bpf/btf.h>
#include <regex.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <iterator>
#include <map>

#include <fmt/format.h>

namespace strbpf::exec {
namespace {

struct RawTag {
    std::optional<long> counter; // "comment:<N>:" form
    std::string body;            // "test_expect_msg=..." without "comment:" and the counter
};

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Splits a leading "<digits>=" counter off a msg/regex value.
std::optional<long> strip_counter(std::string* value) {
    size_t i = 0;
    while (i < value->size() && (*value)[i] >= '0' && (*value)[i] <= '9')
        i++;
    if (i == 0 || i >= value->size() || (*value)[i] != '=')
        return std::nullopt;
    long n = std::strtol(value->substr(0, i).c_str(), nullptr, 10);
    value->erase(0, i + 1);
    return n;
}

RawTag parse_raw(const std::string& tag) {
    RawTag raw;
    raw.body = tag.substr(8); // after "comment:"
    size_t i = 0;
    while (i < raw.body.size() && raw.body[i] >= '0' && raw.body[i] <= '9')
        i++;
    if (i > 0 && i < raw.body.size() && raw.body[i] == ':') {
        raw.counter = std::strtol(raw.body.substr(0, i).c_str(), nullptr, 10);
        raw.body.erase(0, i + 1);
    }
    return raw;
}

// FUNC name -> its "comment:" tags in BTF order.
std::map<std::string, std::vector<RawTag>> collect_tags(const struct btf* btf, std::vector<std::string>* order) {
    std::map<std::string, std::vector<RawTag>> tags;
    uint32_t n = btf__type_cnt(btf);
    for (uint32_t id = 1; id < n; id++) {
        const struct btf_type* t = btf__type_by_id(btf, id);
        if (!t || !btf_is_decl_tag(t) || btf_decl_tag(t)->component_idx != -1)
            continue;
        const struct btf_type* target = btf__type_by_id(btf, t->type);
        std::string tag = btf__name_by_offset(btf, t->name_off);
        if (!target || !btf_is_func(target) || !starts_with(tag, "comment:"))
            continue;
        std::string func = btf__name_by_offset(btf, target->name_off);
        if (!tags.count(func))
            order->push_back(func);
        tags[func].push_back(parse_raw(tag));
    }
    for (auto& [func, list] : tags) {
        std::stable_sort(list.begin(), list.end(), [](const RawTag& a, const RawTag& b) {
            if (a.counter.has_value() != b.counter.has_value())
                return a.counter.has_value();
            return a.counter.value_or(0) < b.counter.value_or(0);
        });
    }
    return tags;
}

const char* value_after(const std::string& body, const char* key) {
    size_t n = std::char_traits<char>::length(key);
    return body.compare(0, n, key) == 0 ? body.c_str() + n : nullptr;
}

// test_loader's parse_int: "0x" hex or decimal (strtol), the whole string.
bool parse_int(const std::string& s, long* out) {
    const bool hex = starts_with(s, "0x");
    const char* p = s.c_str() + (hex ? 2 : 0);
    errno = 0;
    char* end = nullptr;
    long v = std::strtol(p, &end, hex ? 16 : 10);
    if (errno != 0 || end == p || *end != '\0')
        return false;
    *out = v;
    return true;
}

struct FlagName {
    const char* name;
    uint32_t value;
};
constexpr FlagName kFlagNames[] = {
    {"BPF_F_STRICT_ALIGNMENT", kBpfFStrictAlignment}, {"BPF_F_ANY_ALIGNMENT", kBpfFAnyAlignment},
    {"BPF_F_TEST_RND_HI32", kBpfFTestRndHi32},       {"BPF_F_TEST_STATE_FREQ", kBpfFTestStateFreq},
    {"BPF_F_SLEEPABLE", kBpfFSleepable},             {"BPF_F_XDP_HAS_FRAGS", kBpfFXdpHasFrags},
    {"BPF_F_XDP_DEV_BOUND_ONLY", kBpfFXdpDevBoundOnly}, {"BPF_F_TEST_REG_INVARIANTS", kBpfFTestRegInvariants},
};

struct ArchName {
    const char* name;
    uint32_t mask;
};
constexpr ArchName kArchNames[] = {{"X86_64", kArchX86_64},
                                   {"ARM64", kArchArm64},
                                   {"RISCV64", kArchRiscv64},
                                   {"s390x", kArchS390x},
                                   {"LOONGARCH", kArchLoongarch}};

// Tags test_loader reads that this runner does not judge: a test carrying one is skipped, never passed.
constexpr const char* kUnjudgedTags[] = {"test_expect_stderr",        "test_expect_stderr_unpriv",
                                         "test_expect_stdout",        "test_expect_stdout_unpriv",
                                         "test_linear_size",          "test_btf_func_path",
                                         "test_kconfig"};

// Parse state beyond the spec: what test_loader keeps in locals while it walks the tags.
struct ParseState {
    bool has_unpriv_result = false, has_unpriv_retval = false;
    bool collect_jit = false; // the last __arch_* is this machine's
    uint32_t arch_mask = 0;
    std::vector<std::optional<long>> priv_counters, unpriv_counters;
};

Status set_retval(const std::string& text, SubSpec* sub, const std::string& prog) {
    uint32_t r = 0;
    if (!parse_retval(text, &r))
        return make_error(prog + ": cannot parse __retval from '" + text + "'");
    sub->retval = r;
    // POINTER_VALUE: 0xcafe4a by name in 6.12's bpf_misc.h, 0xbadcafe expanded in newer ones.
    sub->retval_any = text == "POINTER_VALUE" || r == 0xcafe4au || r == 0xbadcafeu;
    return ok_status();
}

Status apply_flag(std::string v, TestSpec* spec) {
    const bool clear = !v.empty() && v[0] == '!';
    if (clear)
        v.erase(0, 1);
    std::optional<uint32_t> flag;
    for (const FlagName& f : kFlagNames)
        if (v == f.name)
            flag = f.value;
    if (!flag) {
        long n = 0;
        if (!parse_int(v, &n))
            return make_error(spec->prog + ": cannot parse __flag from '" + v + "'");
        flag = static_cast<uint32_t>(n);
    }
    spec->prog_flags = clear ? spec->prog_flags & ~*flag : spec->prog_flags | *flag;
    return ok_status();
}

Status apply_caps(const std::string& v, SubSpec* sub, const std::string& prog) {
    size_t at = 0;
    while (at <= v.size()) {
        size_t bar = v.find('|', at);
        std::string token = v.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
        long cap = 0;
        if (starts_with(token, "CAP_") || !parse_int(token, &cap) || cap <= 0 || cap >= 64)
            return make_error(prog + ": cannot parse __caps_unpriv from '" + v + "'");
        sub->caps |= 1ull << cap;
        if (bar == std::string::npos)
            break;
        at = bar + 1;
    }
    return ok_status();
}

Status apply_tag(const RawTag& raw, TestSpec* spec, ParseState* st) {
    const std::string& b = raw.body;
    const char* v;
    if (b == "test_expect_success" || b == "test_expect_failure") {
        spec->priv.expect_failure = b == "test_expect_failure";
        spec->has_expect = true;
        spec->mode_mask |= kModePriv;
    } else if (b == "test_expect_success_unpriv" || b == "test_expect_failure_unpriv") {
        spec->unpriv.expect_failure = b == "test_expect_failure_unpriv";
        st->has_unpriv_result = true;
        spec->mode_mask |= kModeUnpriv;
    } else if (b == "test_auxiliary" || b == "test_auxiliary_unpriv") {
        spec->auxiliary = true;
        const int mode = b == "test_auxiliary" ? kModePriv : kModeUnpriv;
        spec->aux_mode_mask |= mode;
        spec->mode_mask |= mode;
    } else if ((v = value_after(b, "test_description="))) {
        spec->description = v;
    } else if ((v = value_after(b, "test_expect_msg=")) || (v = value_after(b, "test_expect_regex=")) ||
               (v = value_after(b, "test_expect_not_msg=")) || (v = value_after(b, "test_expect_msg_unpriv=")) ||
               (v = value_after(b, "test_expect_regex_unpriv=")) ||
               (v = value_after(b, "test_expect_not_msg_unpriv="))) {
        const bool unpriv = b.find("_unpriv=") != std::string::npos;
        std::string text = v;
        std::optional<long> counter = strip_counter(&text);
        ExpectKind kind = starts_with(b, "test_expect_regex")     ? ExpectKind::regex
                          : starts_with(b, "test_expect_not_msg") ? ExpectKind::not_msg
                                                                  : ExpectKind::msg;
        (unpriv ? spec->unpriv : spec->priv).expects.push_back(Expect{kind, text});
        (unpriv ? st->unpriv_counters : st->priv_counters).push_back(raw.counter ? raw.counter : counter);
        spec->mode_mask |= unpriv ? kModeUnpriv : kModePriv;
    } else if ((v = value_after(b, "test_expect_xlated=")) || (v = value_after(b, "test_expect_xlated_unpriv="))) {
        const bool unpriv = b.find("_unpriv=") != std::string::npos;
        std::string text = v;
        strip_counter(&text);
        (unpriv ? spec->unpriv : spec->priv).xlated.push_back(text);
        spec->mode_mask |= unpriv ? kModeUnpriv : kModePriv;
    } else if ((v = value_after(b, "test_jited=")) || (v = value_after(b, "test_jited_unpriv="))) {
        const bool unpriv = b.find("_unpriv=") != std::string::npos;
        if (st->arch_mask == 0)
            return make_error(spec->prog + ": __jited used before __arch_*");
        if (st->collect_jit) {
            std::string text = v;
            strip_counter(&text);
            (unpriv ? spec->unpriv : spec->priv).jited.push_back(text);
            spec->mode_mask |= unpriv ? kModeUnpriv : kModePriv;
        }
    } else if ((v = value_after(b, "test_retval="))) {
        STRBPF_TRY(set_retval(v, &spec->priv, spec->prog));
        spec->mode_mask |= kModePriv;
    } else if ((v = value_after(b, "test_retval_unpriv="))) {
        STRBPF_TRY(set_retval(v, &spec->unpriv, spec->prog));
        st->has_unpriv_retval = true;
        spec->mode_mask |= kModeUnpriv;
    } else if ((v = value_after(b, "test_log_level="))) {
        long level = 0;
        if (!parse_int(v, &level))
            return make_error(spec->prog + ": cannot parse __log_level from '" + v + "'");
        spec->log_level = static_cast<int>(level);
    } else if ((v = value_after(b, "test_prog_flags="))) {
        STRBPF_TRY(apply_flag(v, spec));
    } else if ((v = value_after(b, "test_arch="))) {
        const ArchName* a = std::find_if(std::begin(kArchNames), std::end(kArchNames),
                                         [&](const ArchName& n) { return std::string(v) == n.name; });
        if (a == std::end(kArchNames))
            return make_error(spec->prog + ": bad arch spec: '" + v + "'");
        st->arch_mask |= a->mask;
        st->collect_jit = a->mask == current_arch();
    } else if ((v = value_after(b, "test_btf_path="))) {
        spec->btf_path = v;
    } else if ((v = value_after(b, "test_caps_unpriv="))) {
        STRBPF_TRY(apply_caps(v, &spec->unpriv, spec->prog));
        spec->mode_mask |= kModeUnpriv;
    } else if ((v = value_after(b, "load_mode="))) {
        if (std::string(v) == "jited")
            spec->load_mask = kLoadJited;
        else if (std::string(v) == "no_jited")
            spec->load_mask = kLoadNoJited;
        else
            return make_error(spec->prog + ": bad load spec: '" + v + "'");
    } else {
        size_t eq = b.find('=');
        std::string key = b.substr(0, eq);
        if (std::find(std::begin(kUnjudgedTags), std::end(kUnjudgedTags), key) != std::end(kUnjudgedTags))
            spec->unsupported.push_back(key);
        spec->other_tags.emplace_back(key, eq == std::string::npos ? "" : b.substr(eq + 1));
    }
    return ok_status();
}

// When every pattern carries a counter, the counters give source order whatever order the compiler chose.
void sort_by_counter(std::vector<Expect>* expects, const std::vector<std::optional<long>>& counters) {
    if (counters.empty() || !std::all_of(counters.begin(), counters.end(), [](auto& c) { return c.has_value(); }))
        return;
    std::vector<size_t> idx(counters.size());
    for (size_t i = 0; i < idx.size(); i++)
        idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return *counters[a] < *counters[b]; });
    std::vector<Expect> sorted;
    for (size_t i : idx)
        sorted.push_back((*expects)[i]);
    *expects = std::move(sorted);
}

// test_loader's parse_test_spec after the tag walk: names, and what the unprivileged mode inherits.
void finish_spec(TestSpec* spec, const ParseState& st) {
    spec->arch_mask = st.arch_mask ? st.arch_mask : ~0u;
    if (spec->mode_mask == 0)
        spec->mode_mask = kModePriv;
    const std::string base = spec->description.empty() ? spec->prog : spec->description;
    spec->priv.name = base;
    spec->unpriv.name = base + " @unpriv";
    if (!st.has_unpriv_result)
        spec->unpriv.expect_failure = spec->priv.expect_failure;
    if (!st.has_unpriv_retval) {
        spec->unpriv.retval = spec->priv.retval;
        spec->unpriv.retval_any = spec->priv.retval_any;
    }
    if (spec->unpriv.expects.empty())
        spec->unpriv.expects = spec->priv.expects;
    if (spec->unpriv.xlated.empty())
        spec->unpriv.xlated = spec->priv.xlated;
    if (spec->unpriv.jited.empty())
        spec->unpriv.jited = spec->priv.jited;
    spec->expect_success = !spec->priv.expect_failure;
    spec->expects = spec->priv.expects;
    spec->retval = spec->priv.retval;
    for (const Expect& e : spec->expects) {
        if (e.kind == ExpectKind::msg)
            spec->msgs.push_back(e.text);
        else if (e.kind == ExpectKind::regex)
            spec->regexes.push_back(e.text);
    }
}

TestSpec build_spec(const std::string& func, const std::vector<RawTag>& tags) {
    TestSpec spec;
    spec.prog = func;
    spec.mode_mask = 0;
    spec.tagged = !tags.empty();
    ParseState st;
    for (const RawTag& raw : tags) {
        if (Status s = apply_tag(raw, &spec, &st); !s.ok()) {
            spec.error = s.error().message;
            break;
        }
    }
    sort_by_counter(&spec.priv.expects, st.priv_counters);
    sort_by_counter(&spec.unpriv.expects, st.unpriv_counters);
    finish_spec(&spec, st);
    return spec;
}

// A compiled POSIX extended regex (REG_NEWLINE, as test_loader compiles them).
class Regex {
  public:
    explicit Regex(const std::string& re) { err_ = regcomp(&re_, re.c_str(), REG_EXTENDED | REG_NEWLINE); }
    ~Regex() {
        if (err_ == 0)
            regfree(&re_);
    }
    Regex(const Regex&) = delete;
    Regex& operator=(const Regex&) = delete;
    std::string error() const {
        char buf[256] = "";
        if (err_ != 0)
            regerror(err_, &re_, buf, sizeof(buf));
        return buf;
    }
    bool find(const char* s, size_t* so, size_t* eo) const {
        regmatch_t m[1];
        if (err_ != 0 || regexec(&re_, s, 1, m, 0) != 0)
            return false;
        *so = static_cast<size_t>(m[0].rm_so);
        *eo = static_cast<size_t>(m[0].rm_eo);
        return true;
    }

  private:
    regex_t re_{};
    int err_ = 0;
};

// "text{{re}}text" -> one extended regex with the verbatim parts escaped (test_loader's compile_regex).
std::string msg_to_regex(const std::string& pattern) {
    std::string out;
    bool in_regex = false;
    for (size_t i = 0; i < pattern.size(); i++) {
        if (pattern.compare(i, 2, in_regex ? "}}" : "{{") == 0) {
            in_regex = !in_regex;
            i++;
            continue;
        }
        if (!in_regex && std::string(".[]\\()*+?{}|^$").find(pattern[i]) != std::string::npos)
            out += '\\';
        out += pattern[i];
    }
    return out;
}

// Finds E in LOG at or after FROM. Returns false when absent; *error set when the pattern does not compile.
bool find_expect(const Expect& e, const std::string& log, size_t from, size_t* so, size_t* eo, std::string* error) {
    bool is_regex = e.kind == ExpectKind::regex || e.text.find("{{") != std::string::npos;
    if (!is_regex) {
        size_t at = log.find(e.text, from);
        if (at == std::string::npos)
            return false;
        *so = at;
        *eo = at + e.text.size();
        return true;
    }
    Regex re(e.kind == ExpectKind::regex ? e.text : msg_to_regex(e.text));
    if (!re.error().empty()) {
        *error = "bad pattern '" + e.text + "': " + re.error();
        return false;
    }
    if (!re.find(log.c_str() + from, so, eo))
        return false;
    *so += from;
    *eo += from;
    return true;
}

const char* kind_name(ExpectKind k) { return k == ExpectKind::regex ? "regex" : "message"; }

} // namespace

uint32_t current_arch() {
#if defined(__x86_64__)
    return kArchX86_64;
#elif defined(__aarch64__)
    return kArchArm64;
#else
    return 0x1; // test_loader's ARCH_UNKNOWN
#endif
}

std::string prog_flags_text(uint32_t flags) {
    if (flags == 0)
        return "0";
    std::string out;
    for (const FlagName& f : kFlagNames) {
        if (flags & f.value) {
            out += (out.empty() ? "" : "|") + std::string(f.name);
            flags &= ~f.value;
        }
    }
    if (flags)
        out += (out.empty() ? "" : "|") + fmt::format("{:#x}", flags);
    return out;
}

bool parse_retval(const std::string& text, uint32_t* out) {
    std::string s = text;
    while (s.size() >= 2 && s.front() == '(' && s.back() == ')')
        s = s.substr(1, s.size() - 2);
    static const std::pair<const char*, uint32_t> kNamed[] = {
        {"INT_MIN", 0x80000000u}, {"_INT_MIN", 0x80000000u}, {"POINTER_VALUE", 0xcafe4au}, {"TEST_DATA_LEN", 64u}};
    for (const auto& [name, value] : kNamed) {
        if (s == name) {
            *out = value;
            return true;
        }
    }
    while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L'))
        s.pop_back();
    bool neg = !s.empty() && s[0] == '-';
    std::string digits = neg ? s.substr(1) : s;
    int base = 10;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        base = 16;
        digits = digits.substr(2);
    }
    if (digits.empty() || digits[0] == '-' || digits[0] == '+' || digits[0] == ' ')
        return false;
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(digits.c_str(), &end, base);
    if (errno != 0 || *end != '\0' || v > 0xffffffffull)
        return false;
    *out = neg ? static_cast<uint32_t>(0u - static_cast<uint32_t>(v)) : static_cast<uint32_t>(v);
    return true;
}

Result<std::vector<TestSpec>> parse_test_specs(const std::string& obj_path) {
    struct btf* btf = nullptr;
    {
        kernel::LibbpfCapture quiet;
        btf = btf__parse_elf(obj_path.c_str(), nullptr);
    }
    if (!btf)
        return make_error(obj_path + ": cannot read BTF (" + kernel::errno_text(errno) +
                          "); build the object with clang -g");
    std::vector<std::string> tagged;
    auto tags = collect_tags(btf, &tagged);
    btf__free(btf);

    std::vector<std::string> order = kernel::program_names(obj_path);
    if (order.empty())
        order = tagged; // libbpf could not open the object: BTF order is the best guess
    std::vector<TestSpec> specs;
    static const std::vector<RawTag> kNoTags;
    for (const std::string& name : order) {
        auto it = tags.find(name);
        specs.push_back(build_spec(name, it == tags.end() ? kNoTags : it->second));
    }
    return specs;
}

std::string match_messages(const TestSpec& spec, const std::string& log) { return match_messages(spec.expects, log); }

MessageCheck check_messages(const std::vector<Expect>& ex, const std::string& log) {
    std::vector<size_t> start(ex.size(), std::string::npos), end(ex.size(), std::string::npos);
    size_t pos = 0;
    std::string error, prev;
    for (size_t i = 0; i < ex.size(); i++) {
        if (ex[i].kind == ExpectKind::not_msg)
            continue;
        if (!find_expect(ex[i], log, pos, &start[i], &end[i], &error)) {
            if (!error.empty())
                return {error, ex[i].text, false};
            return {std::string("expected ") + kind_name(ex[i].kind) + " not found: '" + ex[i].text + "'" +
                        (prev.empty() ? "" : " (after '" + prev + "')"),
                    ex[i].text, false};
        }
        pos = end[i];
        prev = ex[i].text;
    }
    // A negative pattern must not occur between the previous positive match and the next one.
    size_t span_start = 0;
    for (size_t i = 0; i < ex.size(); i++) {
        if (ex[i].kind != ExpectKind::not_msg) {
            span_start = end[i];
            continue;
        }
        size_t span_end = log.size();
        for (size_t j = i + 1; j < ex.size(); j++) {
            if (ex[j].kind != ExpectKind::not_msg) {
                span_end = start[j];
                break;
            }
        }
        size_t so = 0, eo = 0;
        if (find_expect(ex[i], log, span_start, &so, &eo, &error) && eo <= span_end)
            return {"unexpected message found: '" + ex[i].text + "'", ex[i].text, true};
        if (!error.empty())
            return {error, ex[i].text, true};
    }
    return {};
}

std::string match_messages(const std::vector<Expect>& ex, const std::string& log) {
    return check_messages(ex, log).failure;
}

} // namespace strbpf::exec
