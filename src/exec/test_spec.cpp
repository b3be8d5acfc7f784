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
#include <map>

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

Status apply_tag(const RawTag& raw, TestSpec* spec, std::vector<std::optional<long>>* counters) {
    const std::string& b = raw.body;
    const char* v;
    if (b == "test_expect_success" || b == "test_expect_failure") {
        spec->expect_success = b == "test_expect_success";
        spec->has_expect = true;
    } else if (b == "test_auxiliary") {
        spec->auxiliary = true;
    } else if ((v = value_after(b, "test_description="))) {
        spec->description = v;
    } else if ((v = value_after(b, "test_expect_msg=")) || (v = value_after(b, "test_expect_regex=")) ||
               (v = value_after(b, "test_expect_not_msg="))) {
        std::string text = v;
        std::optional<long> counter = strip_counter(&text);
        ExpectKind kind = starts_with(b, "test_expect_regex=")     ? ExpectKind::regex
                          : starts_with(b, "test_expect_not_msg=") ? ExpectKind::not_msg
                                                                   : ExpectKind::msg;
        spec->expects.push_back(Expect{kind, text});
        counters->push_back(raw.counter ? raw.counter : counter);
    } else if ((v = value_after(b, "test_retval="))) {
        uint32_t r = 0;
        if (!parse_retval(v, &r))
            return make_error(spec->prog + ": cannot parse __retval from '" + v + "'");
        spec->retval = r;
    } else if ((v = value_after(b, "test_log_level="))) {
        uint32_t level = 0;
        if (!parse_retval(v, &level))
            return make_error(spec->prog + ": cannot parse __log_level from '" + v + "'");
        spec->log_level = static_cast<int>(level);
    } else {
        size_t eq = b.find('=');
        spec->other_tags.emplace_back(b.substr(0, eq), eq == std::string::npos ? "" : b.substr(eq + 1));
    }
    return ok_status();
}

Result<TestSpec> build_spec(const std::string& func, const std::vector<RawTag>& tags) {
    TestSpec spec;
    spec.prog = func;
    std::vector<std::optional<long>> counters;
    for (const RawTag& raw : tags)
        STRBPF_TRY(apply_tag(raw, &spec, &counters));
    // When every pattern carries a counter, the counters give source order whatever order the compiler chose.
    if (!counters.empty() && std::all_of(counters.begin(), counters.end(), [](auto& c) { return c.has_value(); })) {
        std::vector<size_t> idx(counters.size());
        for (size_t i = 0; i < idx.size(); i++)
            idx[i] = i;
        std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return *counters[a] < *counters[b]; });
        std::vector<Expect> sorted;
        for (size_t i : idx)
            sorted.push_back(spec.expects[i]);
        spec.expects = std::move(sorted);
    }
    for (const Expect& e : spec.expects) {
        if (e.kind == ExpectKind::msg)
            spec.msgs.push_back(e.text);
        else if (e.kind == ExpectKind::regex)
            spec.regexes.push_back(e.text);
    }
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
    for (const std::string& name : order) {
        auto it = tags.find(name);
        if (it == tags.end())
            continue;
        auto spec = build_spec(name, it->second);
        if (!spec.ok())
            return spec.error();
        specs.push_back(std::move(spec.value()));
    }
    return specs;
}

std::string match_messages(const TestSpec& spec, const std::string& log) {
    const std::vector<Expect>& ex = spec.expects;
    std::vector<size_t> start(ex.size(), std::string::npos), end(ex.size(), std::string::npos);
    size_t pos = 0;
    std::string error, prev;
    for (size_t i = 0; i < ex.size(); i++) {
        if (ex[i].kind == ExpectKind::not_msg)
            continue;
        if (!find_expect(ex[i], log, pos, &start[i], &end[i], &error)) {
            if (!error.empty())
                return error;
            return std::string("expected ") + kind_name(ex[i].kind) + " not found: '" + ex[i].text + "'" +
                   (prev.empty() ? "" : " (after '" + prev + "')");
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
            return "unexpected message found: '" + ex[i].text + "'";
        if (!error.empty())
            return error;
    }
    return "";
}

} // namespace strbpf::exec
