// SPDX-License-Identifier: BSD-2-Clause
// The `.kconfig` map's values (loader stage), as libbpf's bpf_object__resolve_externs fills them: the virtual
// LINUX_* externs first, then CONFIG_* lines of the kernel's configuration (y/n/m, "strings", integers), each
// checked against the C type of its extern; then every strong extern still without a value is an error.
#include "loader/btf_view.hpp"
#include "loader/externs.hpp"

#include <bpf/btf.h>
#include <fmt/format.h>
#include <sys/utsname.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace strbpf::loader {
namespace {

// libbpf's enum kcfg_type and enum libbpf_tristate.
enum class Kcfg { unknown, boolean, character, tristate, integer, char_array };
enum : uint32_t { kTriNo = 0, kTriYes = 1, kTriModule = 2 };

Kcfg kcfg_type(BtfRef btf, uint32_t id, bool* is_signed) {
    const btf_type* t = btfv::type_by_id(btf, id);
    for (int guard = 0; t && (btf_is_mod(t) || btf_is_typedef(t)) && guard < 64; ++guard)
        t = btfv::type_by_id(btf, t->type);
    if (!t)
        return Kcfg::unknown;
    const char* name = btfv::name_by_offset(btf, t->name_off);
    const bool tristate = name && std::strcmp(name, "libbpf_tristate") == 0;
    if (btf_is_int(t)) {
        const uint8_t enc = btf_int_encoding(t);
        if (enc & BTF_INT_BOOL)
            return t->size == 1 ? Kcfg::boolean : Kcfg::unknown;
        if (is_signed)
            *is_signed = (enc & BTF_INT_SIGNED) != 0;
        if (t->size == 1)
            return Kcfg::character;
        return t->size > 8 || (t->size & (t->size - 1)) ? Kcfg::unknown : Kcfg::integer;
    }
    if (btf_is_enum(t))
        return t->size == 4 && tristate ? Kcfg::tristate : Kcfg::unknown;
    if (btf_is_enum64(t))
        return tristate ? Kcfg::tristate : Kcfg::unknown;
    if (btf_is_array(t) && btf_array(t)->nelems > 0)
        return kcfg_type(btf, btf_array(t)->type, nullptr) == Kcfg::character ? Kcfg::char_array : Kcfg::unknown;
    return Kcfg::unknown;
}

// One extern being filled in: where its bytes go and what C type it has.
struct Slot {
    ExternSpec* ext;
    uint8_t* val;
    Kcfg type;
    bool is_signed = false;
    bool set = false;
};

// set_kcfg_value_num: an integer into an int, char or bool extern that can hold it. Empty: done.
std::string set_num(Slot& s, uint64_t v) {
    const std::string& n = s.ext->name;
    if (s.type != Kcfg::integer && s.type != Kcfg::character && s.type != Kcfg::boolean)
        return fmt::format("extern (kcfg) '{}': value '{}' implies integer, char, or boolean type", n, v);
    if (s.type == Kcfg::boolean && v > 1)
        return fmt::format("extern (kcfg) '{}': value '{}' isn't boolean compatible", n, v);
    const uint32_t bits = s.ext->size * 8;
    const bool fits = bits >= 64 || (s.is_signed ? v + (1ull << (bits - 1)) < (1ull << bits) : (v >> bits) == 0);
    if (!fits)
        return fmt::format("extern (kcfg) '{}': value '{}' doesn't fit in {} bytes", n, v, s.ext->size);
    if (s.ext->size != 1 && s.ext->size != 2 && s.ext->size != 4 && s.ext->size != 8)
        return fmt::format("extern (kcfg) '{}': {}-byte value", n, s.ext->size);
    std::memcpy(s.val, &v, s.ext->size); // little-endian: the low bytes
    s.set = true;
    return {};
}

// set_kcfg_value_tri: 'y', 'n' or 'm' into a bool, tristate or char extern.
std::string set_tri(Slot& s, char v) {
    const std::string& n = s.ext->name;
    if (s.type == Kcfg::boolean) {
        if (v == 'm')
            return fmt::format("extern (kcfg) '{}': value '{}' implies tristate or char type", n, v);
        *s.val = v == 'y';
    } else if (s.type == Kcfg::tristate) {
        const uint32_t tri = v == 'y' ? kTriYes : v == 'm' ? kTriModule : kTriNo;
        std::memcpy(s.val, &tri, sizeof tri);
    } else if (s.type == Kcfg::character) {
        *s.val = uint8_t(v);
    } else {
        return fmt::format("extern (kcfg) '{}': value '{}' implies bool, tristate, or char type", n, v);
    }
    s.set = true;
    return {};
}

// set_kcfg_value_str: a quoted string into a char array, truncated to fit with its NUL.
std::string set_str(Slot& s, const std::string& v) {
    const std::string& n = s.ext->name;
    if (s.type != Kcfg::char_array)
        return fmt::format("extern (kcfg) '{}': value '{}' implies char array type", n, v);
    if (v.size() < 2 || v.back() != '"')
        return fmt::format("extern (kcfg) '{}': invalid string config '{}'", n, v);
    size_t len = v.size() - 2;
    if (len >= s.ext->size)
        len = s.ext->size - 1; // libbpf warns "long string ... truncated" and goes on
    std::memcpy(s.val, v.data() + 1, len);
    s.val[len] = 0;
    s.set = true;
    return {};
}

// bpf_object__process_kconfig_line. Empty: fine (also for lines that name no extern).
std::string process_line(std::vector<Slot>& slots, std::string line) {
    if (line.rfind("CONFIG_", 0) != 0)
        return {};
    const size_t sep = line.find('=');
    if (sep == std::string::npos)
        return fmt::format("failed to parse '{}': no separator", line);
    if (!line.empty() && line.back() == '\n')
        line.pop_back();
    if (sep + 1 >= line.size())
        return fmt::format("failed to parse '{}': no value", line);
    const std::string name = line.substr(0, sep), value = line.substr(sep + 1);
    Slot* s = nullptr;
    for (Slot& c : slots)
        if (c.ext->name == name)
            s = &c;
    if (!s || s->set)
        return {};
    if (value[0] == 'y' || value[0] == 'n' || value[0] == 'm')
        return set_tri(*s, value[0]);
    if (value[0] == '"')
        return set_str(*s, value);
    char* end = nullptr;
    errno = 0;
    const uint64_t num = std::strtoull(value.c_str(), &end, 0);
    if (errno || *end)
        return fmt::format("extern (kcfg) '{}': value '{}' isn't a valid integer", name, value);
    if (s->type != Kcfg::integer && s->type != Kcfg::character)
        return fmt::format("extern (kcfg) '{}': value '{}' implies integer type", name, value);
    return set_num(*s, num);
}

// bpf_object__read_kconfig_file (gzopen reads plain text too). Empty: read.
std::string read_kconfig(std::vector<Slot>& slots, const std::string& path) {
    gzFile f = nullptr;
    if (!path.empty()) {
        f = gzopen(path.c_str(), "re");
        if (!f)
            return fmt::format("failed to open Kconfig file '{}': {}", path, std::strerror(errno ? errno : ENOENT));
    } else {
        struct utsname uts;
        uname(&uts);
        f = gzopen(fmt::format("/boot/config-{}", uts.release).c_str(), "re");
        if (!f)
            f = gzopen("/proc/config.gz", "re");
        if (!f)
            return "failed to open system Kconfig";
    }
    std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(f, gzclose);
    char buf[4096];
    while (gzgets(f, buf, sizeof buf)) {
        if (std::string why = process_line(slots, buf); !why.empty()) {
            std::string line = buf;
            if (!line.empty() && line.back() == '\n')
                line.pop_back();
            return fmt::format("{} (error parsing Kconfig line '{}')", why, line);
        }
    }
    return {};
}

// The LINUX_* externs libbpf computes itself. Empty: set.
std::string set_virtual(Slot& s) {
    const std::string& n = s.ext->name;
    uint64_t value = 0;
    if (n == "LINUX_KERNEL_VERSION") {
        value = running_kernel_version();
        if (!value)
            return fmt::format("extern (kcfg) '{}': failed to get kernel version", n);
    } else if (n == "LINUX_HAS_BPF_COOKIE" || n == "LINUX_HAS_SYSCALL_WRAPPER") {
        value = 1; // the 6.18 kernel strbpf follows has bpf_get_attach_cookie; x86-64 wraps syscalls
    } else if (n.rfind("LINUX_", 0) != 0 || !s.ext->weak) {
        return fmt::format("extern (kcfg) '{}': unrecognized virtual extern", n);
    }
    return set_num(s, value);
}

} // namespace

uint32_t running_kernel_version() {
    auto version = [](unsigned a, unsigned b, unsigned c) { return (a << 16) + (b << 8) + (c > 255 ? 255 : c); };
    unsigned major = 0, minor = 0, patch = 0;
    if (FILE* f = std::fopen("/proc/version_signature", "re")) {
        const int n = std::fscanf(f, "%*s %*s %u.%u.%u\n", &major, &minor, &patch);
        std::fclose(f);
        if (n == 3)
            return version(major, minor, patch);
    }
    struct utsname uts;
    if (uname(&uts) != 0)
        return 0;
    if (const char* p = std::strstr(uts.version, "Debian ");
        p && std::sscanf(p, "Debian %u.%u.%u", &major, &minor, &patch) == 3)
        return version(major, minor, patch);
    if (std::sscanf(uts.release, "%u.%u.%u", &major, &minor, &patch) != 3)
        return 0;
    return version(major, minor, patch);
}

std::vector<uint8_t> resolve_kconfig(ExternTable& table, BtfRef btf, const std::string& kconfig_path) {
    std::vector<uint8_t> data(table.kconfig_size, 0);
    std::vector<Slot> slots;
    bool need_config = false;
    for (ExternSpec& e : table.externs) {
        if (e.kind != ExternSpec::Kind::kconfig || !e.error.empty())
            continue;
        Slot s{&e, data.data() + e.kconfig_off, kcfg_type(btf, e.type_id, nullptr)};
        kcfg_type(btf, e.type_id, &s.is_signed);
        if (s.type == Kcfg::unknown) {
            e.error = fmt::format("extern (kcfg) '{}': type is unsupported", e.name);
            continue;
        }
        if (e.name.rfind("CONFIG_", 0) == 0) {
            need_config = true;
        } else if (std::string why = set_virtual(s); !why.empty()) {
            e.error = why;
            continue;
        }
        slots.push_back(s);
    }
    std::string config_error = need_config ? read_kconfig(slots, kconfig_path) : std::string();
    for (Slot& s : slots) {
        if (!config_error.empty()) // libbpf fails every kconfig extern's object when the file is unreadable
            s.ext->error = config_error;
        else if (!s.set && !s.ext->weak)
            s.ext->error = fmt::format("extern '{}' (strong): not resolved", s.ext->name);
    }
    return data;
}

} // namespace strbpf::loader
