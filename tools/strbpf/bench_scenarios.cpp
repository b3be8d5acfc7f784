// SPDX-License-Identifier: BSD-2-Clause
// The scenarios of `strbpf bench` (tools stage): strings set up like the kernel's bench_strncmp.c and the v3
// string-kfunc benchmark, the programs of bench/progs/*.bpf.c, and glibc on the same buffers.
#include "bench_scenarios.hpp"

#include <cstring>
#include <memory>
#include <random>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <strings.h>

namespace strbpf::cli::bench {
namespace {

constexpr int kXdpPass = 2;
constexpr int kEnoent = 2;

void fill_target(Buffers* b) {
    std::mt19937 rng(20211130); // fixed: every run and engine sees the same digits
    std::uniform_int_distribution<int> digit('1', '9');
    for (uint32_t i = 0; i < kMaxLen; i++)
        b->target[i] = char(digit(rng));
    b->target[kMaxLen] = 0;
}

// bench_strncmp.c's setup: str = target's first len bytes, the last one decremented (str < target).
void fill_strncmp(uint32_t len, Buffers* b) {
    b->len = len;
    fill_target(b);
    std::memset(b->str, 0, kStrSize);
    std::memcpy(b->str, b->target, len);
    b->str[len - 1] = char(b->str[len - 1] - 1);
}

// string-kfuncs: str = target's first len bytes with '0' (found nowhere else) last; sub = its last quarter.
void fill_kfuncs(uint32_t len, Buffers* b) {
    b->len = len;
    fill_target(b);
    std::memset(b->str, 0, kStrSize);
    std::memset(b->sub, 0, kStrSize);
    std::memcpy(b->str, b->target, len);
    b->str[len - 1] = '0';
    const uint32_t q = len / 4 ? len / 4 : 1;
    std::memcpy(b->sub, b->str + len - q, q);
}

void fill_trigger(uint32_t len, Buffers* b) { b->len = len; }

// Runs Op repeat times. The empty asm statements hide the buffer from the optimiser and make each result
// observable, so the call is neither hoisted out of the loop nor dropped.
template <int (*Op)(const Buffers&)> int native_loop(const Buffers& b, uint32_t repeat) {
    int r = 0;
    for (uint32_t i = 0; i < repeat; i++) {
        const Buffers* p = &b;
        asm volatile("" : "+r"(p)::"memory");
        r = Op(*p);
        asm volatile("" ::"r"(r));
    }
    return r;
}

int idx(const Buffers& b, const char* p) { return p ? int(p - b.str) : -kEnoent; }
int g_strncmp(const Buffers& b) { return std::strncmp(b.str, b.target, b.len + 1); }
int g_strlen(const Buffers& b) { return int(std::strlen(b.str)); }
int g_strnlen(const Buffers& b) { return int(strnlen(b.str, b.len + 1)); }
int g_strchr(const Buffers& b) { return idx(b, std::strchr(b.str, '0')); }
int g_strnchr(const Buffers& b) { return idx(b, static_cast<const char*>(std::memchr(b.str, '0', b.len + 1))); }
int g_strchrnul(const Buffers& b) { return idx(b, strchrnul(b.str, '0')); }
int g_strrchr(const Buffers& b) { return idx(b, std::strrchr(b.str, '0')); }
int g_strcmp(const Buffers& b) { return std::strcmp(b.str, b.target); }
int g_strcasecmp(const Buffers& b) { return strcasecmp(b.str, b.target); }
int g_strncasecmp(const Buffers& b) { return strncasecmp(b.str, b.target, b.len + 1); }
int g_strspn(const Buffers& b) { return int(std::strspn(b.str, "123456789")); }
int g_strcspn(const Buffers& b) { return int(std::strcspn(b.str, "0")); }
int g_strstr(const Buffers& b) { return idx(b, std::strstr(b.str, b.sub)); }
int g_strnstr(const Buffers& b) { // glibc has no strnstr: memmem within the first len bytes
    return idx(b, static_cast<const char*>(memmem(b.str, b.len, b.sub, std::strlen(b.sub))));
}
int g_strcasestr(const Buffers& b) { return idx(b, strcasestr(b.str, b.sub)); }

Expect minus_one(uint32_t) { return {-1}; }
Expect negative(uint32_t) { return {-1, true}; }
Expect length(uint32_t len) { return {int(len)}; }
Expect last(uint32_t len) { return {int(len) - 1}; }
Expect quarter(uint32_t len) { return {int(len - (len / 4 ? len / 4 : 1))}; }
Expect pass(uint32_t) { return {kXdpPass, false, true}; }

// One kfunc family: the kfunc program, the open-coded loop (when written), glibc (when it has the call).
void add_family(Scenario* sc, const std::string& op, bool open_coded, int (*native)(const Buffers&, uint32_t),
                Expect (*expect)(uint32_t), Expect (*native_expect)(uint32_t)) {
    Family f{op, op + "-kfunc", open_coded ? op + "-loop" : "", native ? op + "-glibc" : "", "kfunc", "loop"};
    sc->benches.push_back({f.fast, "kfunc_" + op, "bpf_" + op, nullptr, expect});
    if (open_coded)
        sc->benches.push_back({f.slow, "open_" + op, "", nullptr, expect});
    if (native)
        sc->benches.push_back({f.native, "", "", native, native_expect});
    sc->families.push_back(std::move(f));
}

std::vector<Scenario> make_scenarios() {
    std::vector<Scenario> all;
    Scenario s{"strncmp", "strncmp_bench.bpf.o", "cmp_str_len", {}, {}, fill_strncmp, {}};
    s.benches = {{"strncmp-helper", "strncmp_helper", "", nullptr, minus_one},
                 {"strncmp-no-helper", "strncmp_no_helper", "", nullptr, minus_one},
                 {"strncmp-glibc", "", "", native_loop<g_strncmp>, negative}};
    s.families = {{"strncmp", "strncmp-helper", "strncmp-no-helper", "strncmp-glibc"}};
    all.push_back(std::move(s));

    Scenario k{"string-kfuncs", "string_kfuncs_bench.bpf.o", "str_len", {}, {}, fill_kfuncs, {}};
    add_family(&k, "strlen", true, native_loop<g_strlen>, length, length);
    add_family(&k, "strnlen", true, native_loop<g_strnlen>, length, length);
    add_family(&k, "strchr", true, native_loop<g_strchr>, last, last);
    add_family(&k, "strnchr", true, native_loop<g_strnchr>, last, last);
    add_family(&k, "strchrnul", true, native_loop<g_strchrnul>, last, last);
    add_family(&k, "strrchr", true, native_loop<g_strrchr>, last, last);
    add_family(&k, "strcmp", true, native_loop<g_strcmp>, minus_one, negative);
    add_family(&k, "strcasecmp", false, native_loop<g_strcasecmp>, minus_one, negative);
    add_family(&k, "strncasecmp", false, native_loop<g_strncasecmp>, minus_one, negative);
    add_family(&k, "strspn", false, native_loop<g_strspn>, last, last);
    add_family(&k, "strcspn", false, native_loop<g_strcspn>, last, last);
    add_family(&k, "strstr", false, native_loop<g_strstr>, quarter, quarter);
    add_family(&k, "strnstr", false, native_loop<g_strnstr>, quarter, quarter);
    add_family(&k, "strcasestr", false, native_loop<g_strcasestr>, quarter, quarter);
    add_family(&k, "strncasestr", false, nullptr, quarter, quarter);
    for (const char* op : {"len", "chr", "str"}) {
        const std::string b = fmt::format("strn{}", op), u = fmt::format("str{}", op);
        k.pairs.push_back({b + "-kfunc", u + "-kfunc", b, u});
    }
    all.push_back(std::move(k));

    Scenario t{"trigger", "trigger_bench.bpf.o", "", {}, {}, fill_trigger, {}};
    t.benches = {{"trigger", "trigger_empty", "", nullptr, pass}};
    t.families = {{"trigger", "trigger", "", "", "empty", ""}};
    all.push_back(std::move(t));
    return all;
}

// Offset of variable `var` in the DATASEC `sec`. clang leaves DATASEC offsets at 0 in the ELF; libbpf's open
// fills them in from the symbol table, so the BTF is read from a libbpf-opened object (nothing is loaded).
Result<uint32_t> var_offset(const btf* bt, const std::string& path, const char* sec, const std::string& var) {
    const int32_t id = btf__find_by_name_kind(bt, sec, BTF_KIND_DATASEC);
    if (id < 0)
        return make_error(fmt::format("{}: no section {} in the BTF", path, sec));
    const btf_type* ds = btf__type_by_id(bt, id);
    const btf_var_secinfo* vi = btf_var_secinfos(ds);
    for (uint16_t i = 0; i < btf_vlen(ds); i++, vi++) {
        const btf_type* v = btf__type_by_id(bt, vi->type);
        if (v && var == btf__name_by_offset(bt, v->name_off))
            return vi->offset;
    }
    return make_error(fmt::format("{}: no variable '{}' in {}", path, var, sec));
}

} // namespace

bool Expect::matches(int got) const {
    if (sign_only)
        return (got < 0) == (value < 0) && (got > 0) == (value > 0);
    return got == value;
}

std::string Expect::describe() const {
    if (retval_only)
        return fmt::format("retval {}", value);
    return sign_only ? (value < 0 ? "a negative value" : value > 0 ? "a positive value" : "0")
                     : std::to_string(value);
}

const std::vector<Scenario>& scenarios() {
    static const std::vector<Scenario> all = make_scenarios();
    return all;
}

const Scenario* find_scenario(const std::string& name) {
    for (const Scenario& s : scenarios())
        if (s.name == name)
            return &s;
    return nullptr;
}

Result<VarOffsets> var_offsets(const Scenario& sc, const std::string& obj_path) {
    VarOffsets v;
    if (sc.len_var.empty())
        return v;
    std::unique_ptr<bpf_object, void (*)(bpf_object*)> obj(bpf_object__open_file(obj_path.c_str(), nullptr),
                                                           bpf_object__close);
    if (!obj || !bpf_object__btf(obj.get()))
        return make_error(fmt::format("libbpf cannot open {} or it has no BTF", obj_path));
    const btf* bt = bpf_object__btf(obj.get());
    auto get = [&](const char* sec, const std::string& var, uint32_t* out) -> Status {
        auto off = var_offset(bt, obj_path, sec, var);
        if (!off)
            return off.error();
        *out = *off;
        return ok_status();
    };
    STRBPF_TRY(get(".rodata", sc.len_var, &v.len));
    STRBPF_TRY(get(".rodata", "target", &v.target));
    STRBPF_TRY(get(".bss", "str", &v.str));
    if (sc.name == "string-kfuncs") {
        STRBPF_TRY(get(".bss", "sub", &v.sub));
        v.has_sub = true;
    }
    v.present = true;
    return v;
}

void Buffers::place(const VarOffsets& v) {
    target = storage_[0] + v.target % kPage;
    str = storage_[1] + v.str % kPage;
    sub = storage_[2] + v.sub % kPage;
}

std::vector<runtime::GlobalPatch> global_patches(const VarOffsets& v, const Buffers& b) {
    std::vector<runtime::GlobalPatch> out;
    if (!v.present)
        return out;
    auto add = [&](const char* sec, uint32_t off, const void* bytes, size_t n) {
        const auto* p = static_cast<const uint8_t*>(bytes);
        out.push_back({sec, off, std::vector<uint8_t>(p, p + n)});
    };
    const uint32_t len = b.len;
    add(".rodata", v.len, &len, sizeof len);
    add(".rodata", v.target, b.target, kStrSize);
    add(".bss", v.str, b.str, kStrSize);
    if (v.has_sub)
        add(".bss", v.sub, b.sub, kStrSize);
    return out;
}

} // namespace strbpf::cli::bench
