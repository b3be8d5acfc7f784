// SPDX-License-Identifier: BSD-2-Clause
// load_object_file / load_object_memory: ELF → ObjectSpec (loader stage). Reads sections and symbols, BTF and
// .BTF.ext, builds the maps, then links each program with its subprograms.
#include "loader/loader.hpp"

#include <bpf/btf.h>
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "loader/btf_ext.hpp"
#include "loader/elf_file.hpp"
#include "loader/externs.hpp"
#include "loader/maps.hpp"
#include "loader/programs.hpp"
#include "loader/struct_ops.hpp"

namespace strbpf::loader {
namespace {

constexpr uint64_t kMaxObjectSize = 1ull << 30; // refuse to read objects over 1 GiB

// libbpf's btf_fixup_datasec: clang leaves a DATASEC's size and its variables' offsets 0; the section's size and
// each variable's ELF symbol give them (a variable without a symbol keeps its offset). Done once, as libbpf does
// before anything reads the object's BTF, so a global variable's special fields (bpf_spin_lock, bpf_list_head)
// lie where the program's relocations put it.
void fixup_datasecs(const ElfFile& elf, struct btf* b) {
    const uint32_t n = btf__type_cnt(b);
    for (uint32_t id = 1; id < n; id++) {
        auto* t = const_cast<btf_type*>(btf__type_by_id(b, id));
        if (!t || !btf_is_datasec(t))
            continue;
        const char* sname = btf__name_by_offset(b, t->name_off);
        const ElfSection* s = sname ? elf.find_section(sname) : nullptr;
        if (!s)
            continue;
        if (t->size == 0 && s->size <= UINT32_MAX)
            t->size = uint32_t(s->size);
        btf_var_secinfo* v = btf_var_secinfos(t);
        for (uint16_t i = 0; i < btf_vlen(t); i++) {
            const btf_type* var = btf__type_by_id(b, v[i].type);
            const char* vname = var ? btf__name_by_offset(b, var->name_off) : nullptr;
            for (const ElfSymbol& sym : elf.symbols())
                if (vname && v[i].offset == 0 && sym.shndx == s->index && sym.type == STT_OBJECT && sym.name == vname &&
                    sym.value <= UINT32_MAX)
                    v[i].offset = uint32_t(sym.value);
        }
    }
}

Result<std::shared_ptr<struct btf>> load_btf(const ElfFile& elf) {
    const ElfSection* sec = elf.find_section(".BTF");
    if (!sec)
        return std::shared_ptr<struct btf>();
    if (sec->bytes.empty() || sec->size > UINT32_MAX)
        return make_error(fmt::format("section '.BTF': bad size {}", sec->size));
    struct btf* raw = btf__new(sec->bytes.data(), static_cast<uint32_t>(sec->size));
    if (!raw)
        return make_error(fmt::format("section '.BTF': libbpf rejects it ({})", std::strerror(errno)));
    fixup_datasecs(elf, raw);
    return std::shared_ptr<struct btf>(raw, [](struct btf* b) {
        forget_struct_ops(b); // what bind_struct_ops kept for this object
        btf__free(b);
    });
}

std::string read_license(const ElfFile& elf) {
    const ElfSection* sec = elf.find_section("license");
    if (!sec || sec->bytes.empty())
        return {};
    const uint8_t* end = static_cast<const uint8_t*>(std::memchr(sec->bytes.data(), 0, sec->bytes.size()));
    return std::string(sec->bytes.data(), end ? end : sec->bytes.data() + sec->bytes.size());
}

bool has_core_relos(const BtfExt& ext) {
    for (const auto& [name, sec] : ext)
        if (!sec.core.empty())
            return true;
    return false;
}

// The BTF CO-RE relocations resolve against: the file given, else the running kernel's (kernel_btf: read once per
// path, shared read-only).
Result<BtfRef> target_btf(const std::string& path) {
    auto b = kernel_btf(path);
    if (b)
        return *b;
    const std::string file = path.empty() ? "/sys/kernel/btf/vmlinux" : path;
    const std::string& why = b.error().message;
    return make_error(path.empty() ? fmt::format("CO-RE relocations need the target kernel's BTF, and {} cannot be "
                                                 "read ({}): give one with --btf FILE",
                                                 file, why)
                                   : fmt::format("failed to parse target BTF '{}': {}", file, why),
                      b.error().code);
}

bool has_weak_kfunc(const ExternTable& t) {
    return std::any_of(t.externs.begin(), t.externs.end(),
                       [](const ExternSpec& e) { return e.weak && e.kind == ExternSpec::Kind::kfunc; });
}

// libbpf's internal `.kconfig` map: one read-only, mmapable array element holding every kconfig extern.
MapSpec kconfig_map_spec(std::vector<uint8_t> data) {
    MapSpec m;
    m.name = ".kconfig";
    m.section = ".kconfig";
    m.type = kMapArray;
    m.key_size = 4;
    m.value_size = uint32_t(data.size());
    m.max_entries = 1;
    m.map_flags = kMapFlagMmapable | kMapFlagRdonlyProg;
    m.global_data = true;
    m.frozen = true;
    m.initial = std::move(data);
    return m;
}

} // namespace

Result<ObjectSpec> load_object_memory(std::span<const uint8_t> image, const std::string& name,
                                      const LoadOptions& opts) {
    auto parsed = ElfFile::parse(std::vector<uint8_t>(image.begin(), image.end()));
    if (!parsed.ok())
        return make_error(name + ": " + parsed.error().message, parsed.error().code);
    const ElfFile& elf = **parsed;
    ObjectSpec obj;
    obj.path = name;
    obj.license = read_license(elf);
    auto result = [&]() -> Status {
        auto btf = load_btf(elf);
        STRBPF_TRY(btf);
        obj.btf = *btf;
        BtfExt ext;
        if (const ElfSection* sec = elf.find_section(".BTF.ext")) {
            auto parsed_ext = parse_btf_ext(sec->bytes, obj.btf.get());
            STRBPF_TRY(parsed_ext);
            ext = std::move(*parsed_ext);
        }
        auto maps = collect_maps(elf, obj.btf.get());
        STRBPF_TRY(maps);
        ExternTable externs = collect_externs(elf, obj.btf.get());
        int kconfig_map = -1;
        if (externs.kconfig_size) {
            kconfig_map = int(maps->specs.size());
            maps->specs.push_back(kconfig_map_spec(resolve_kconfig(externs, obj.btf.get(), opts.kconfig_path)));
        }
        LinkInputs in{&elf, obj.btf.get(), &ext, &*maps, &externs, kconfig_map, nullptr, {}};
        if (has_core_relos(ext)) { // libbpf needs the target's BTF for any CO-RE relocation
            auto t = target_btf(opts.btf_path);
            if (t)
                in.target = *t;
            else
                in.target_error = t.error().message;
        }
        if (has_weak_kfunc(externs)) { // compared with the target's prototypes when its BTF is readable
            auto t = in.target ? Result<BtfRef>(in.target) : target_btf(opts.btf_path);
            if (t)
                mark_incompatible_weak_kfuncs(externs, obj.btf.get(), *t);
        }
        STRBPF_TRY(build_programs(in, obj));
        STRBPF_TRY(bind_struct_ops(elf, obj.btf.get(), obj));
        obj.maps = std::move(maps->specs);
        obj.externs = std::move(externs.externs);
        return ok_status();
    }();
    if (!result.ok())
        return make_error(name + ": " + result.error().message, result.error().code, result.error().pc);
    return obj;
}

Result<ObjectSpec> load_object_file(const std::string& path, const LoadOptions& opts) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return make_error(fmt::format("{}: no such file", path), -ENOENT);
    if (!std::filesystem::is_regular_file(path, ec))
        return make_error(fmt::format("{}: not a regular file", path));
    uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec || size > kMaxObjectSize)
        return make_error(fmt::format("{}: cannot read an object of {} bytes", path, size));
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    if (!in || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
        return make_error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)), -EIO);
    return load_object_memory(bytes, path, opts);
}

} // namespace strbpf::loader
