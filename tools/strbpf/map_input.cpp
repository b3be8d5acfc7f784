// SPDX-License-Identifier: BSD-2-Clause
// `--map-in MAP=FILE` (tools stage). See map_input.hpp.
#include "map_input.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "runtime/maps/user_ringbuf_map.hpp"

namespace strbpf::cli {
namespace {

using json = nlohmann::json;

// "0a0b" or ["0x0a", "0x0b"] / [10, 11].
Result<std::vector<uint8_t>> bytes_of(const json& j) {
    if (j.is_string())
        return parse_hex(j.get<std::string>());
    if (!j.is_array())
        return make_error("a key or value is a hex string or a list of bytes", -EINVAL);
    std::vector<uint8_t> out;
    for (const json& b : j) {
        uint64_t v = 256;
        if (b.is_number_unsigned())
            v = b.get<uint64_t>();
        else if (b.is_string())
            v = std::strtoull(b.get<std::string>().c_str(), nullptr, 16);
        if (v > 255)
            return make_error("a byte of a key or value list is not 0..255", -EINVAL);
        out.push_back(uint8_t(v));
    }
    return out;
}

Result<MapInputEntry> entry_of(const json& e) {
    MapInputEntry out;
    if (!e.is_object())
        return make_error("an entry is an object with \"key\" and \"value\" (or \"values\")", -EINVAL);
    if (e.contains("key")) {
        auto k = bytes_of(e["key"]);
        if (!k)
            return k.error();
        out.key = std::move(k).value();
    }
    if (e.contains("value")) {
        auto v = bytes_of(e["value"]);
        if (!v)
            return v.error();
        out.values.push_back(std::move(v).value());
        return out;
    }
    if (!e.contains("values") || !e["values"].is_array())
        return make_error("an entry has no \"value\" or \"values\"", -EINVAL);
    for (const json& c : e["values"]) {
        if (!c.is_object() || !c.contains("cpu") || !c["cpu"].is_number_unsigned() || !c.contains("value"))
            return make_error("a per-CPU value is {\"cpu\": N, \"value\": ...}", -EINVAL);
        const uint64_t cpu = c["cpu"].get<uint64_t>();
        if (cpu >= 4096)
            return make_error(fmt::format("cpu {} is past the possible CPUs", cpu), -EINVAL);
        auto v = bytes_of(c["value"]);
        if (!v)
            return v.error();
        if (out.values.size() <= cpu)
            out.values.resize(cpu + 1);
        out.values[cpu] = std::move(v).value();
    }
    return out;
}

// The file's JSON values: one document, or one per line (a whole `map dump --json`).
Result<std::vector<json>> documents(const std::string& path) {
    std::ifstream f(path);
    if (!f)
        return make_error(fmt::format("cannot open '{}'", path), -ENOENT);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    json one = json::parse(text, nullptr, false);
    if (!one.is_discarded())
        return std::vector<json>{one};
    std::vector<json> docs;
    std::istringstream lines(text);
    std::string line;
    for (int n = 1; std::getline(lines, line); n++) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        json j = json::parse(line, nullptr, false);
        if (j.is_discarded())
            return make_error(fmt::format("'{}' line {} is not JSON", path, n), -EINVAL);
        docs.push_back(std::move(j));
    }
    return docs;
}

// The entries list meant for MAP.
Result<json> entries_for(const std::vector<json>& docs, const std::string& map, const std::string& path) {
    if (docs.size() == 1 && docs[0].is_array())
        return docs[0];
    std::string names;
    std::vector<const json*> maps; // the lines with entries (a `--run` line before them has none)
    for (const json& d : docs)
        if (d.is_object() && d.contains("entries"))
            maps.push_back(&d);
    if (maps.empty())
        return make_error(fmt::format("'{}' holds neither a list of entries nor `map dump --json` lines", path),
                          -EINVAL);
    for (const json* d : maps) {
        const std::string name = d->value("map", "");
        if (name == map || (maps.size() == 1 && name.empty()))
            return (*d)["entries"];
        names += (names.empty() ? "" : ", ") + name;
    }
    return make_error(fmt::format("'{}' has no map '{}' (it has: {})", path, map, names), -ENOENT);
}

Result<MapInput> read_one(const std::string& arg) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
        return make_error("expected MAP=FILE", -EINVAL);
    MapInput in{arg.substr(0, eq), arg.substr(eq + 1), {}};
    auto docs = documents(in.file);
    if (!docs)
        return docs.error();
    auto list = entries_for(*docs, in.map, in.file);
    if (!list)
        return list.error();
    if (!list->is_array())
        return make_error(fmt::format("'{}': \"entries\" is not a list", in.file), -EINVAL);
    for (const json& e : *list) {
        auto en = entry_of(e);
        if (!en)
            return make_error(fmt::format("'{}' entry {}: {}", in.file, in.entries.size() + 1, en.error().message),
                              en.error().code);
        in.entries.push_back(std::move(en).value());
    }
    return in;
}

// The entry's value as BPF_MAP_UPDATE_ELEM takes it: value_size bytes, or round_up(value_size, 8) per CPU.
Result<std::vector<uint8_t>> syscall_value(const MapInputEntry& e, uint32_t value_size, uint32_t ncpus, bool percpu) {
    const uint64_t stride = percpu ? (uint64_t(value_size) + 7) & ~uint64_t(7) : value_size;
    if (!percpu && e.values.size() != 1)
        return make_error("a per-CPU \"values\" list for a map that is not per-CPU", -EINVAL);
    if (e.values.size() > (percpu ? ncpus : 1))
        return make_error(fmt::format("values for {} CPUs; the map has {}", e.values.size(), ncpus), -EINVAL);
    std::vector<uint8_t> out(stride * (percpu ? ncpus : 1), 0);
    for (size_t c = 0; c < e.values.size(); c++) {
        if (e.values[c].empty() && percpu)
            continue;
        if (e.values[c].size() != value_size)
            return make_error(fmt::format("a value of {} bytes; the map's are {}", e.values[c].size(), value_size),
                              -EINVAL);
        std::memcpy(out.data() + c * stride, e.values[c].data(), value_size);
    }
    return out;
}

bool writable_type(uint32_t type) {
    switch (type) {
    case loader::kMapProgArray:
    case loader::kMapPerfEventArray:
    case loader::kMapRingbuf:
    case 12: // array_of_maps
    case 13: // hash_of_maps
    case loader::kMapStackTrace: return false;
    default: return true;
    }
}

// One map: sizes checked, then `update(key or null, value)` per entry.
template <typename Update>
Status fill(const MapInput& in, uint32_t type, uint32_t key_size, uint32_t value_size, uint32_t ncpus, bool percpu,
            Update update) {
    if (!writable_type(type))
        return make_error(fmt::format("--map-in {}: a {} map cannot be filled from a file", in.map,
                                      loader::map_type_name(type)), -EINVAL);
    // A dump lists a stack from its top: pushing from the last entry puts the first back on top.
    const bool reverse = type == loader::kMapStack;
    for (size_t n = 0; n < in.entries.size(); n++) {
        const size_t i = reverse ? in.entries.size() - 1 - n : n;
        const MapInputEntry& e = in.entries[i];
        auto fail = [&](const std::string& why, int code) {
            return make_error(fmt::format("--map-in {}: '{}' entry {}: {}", in.map, in.file, i + 1, why), code);
        };
        if (e.key.size() != key_size)
            return fail(fmt::format("a key of {} bytes; the map's are {}", e.key.size(), key_size), -EINVAL);
        auto v = syscall_value(e, value_size, ncpus, percpu);
        if (!v)
            return fail(v.error().message, v.error().code);
        if (int err = update(key_size ? e.key.data() : nullptr, v->data()); err < 0)
            return fail(fmt::format("the update failed: {}", std::strerror(-err)), err);
    }
    return ok_status();
}

// A user ring buffer's entries are samples (no key, a value of any size), submitted in the file's order.
template <typename Produce> Status fill_samples(const MapInput& in, Produce produce) {
    for (size_t i = 0; i < in.entries.size(); i++) {
        const MapInputEntry& e = in.entries[i];
        auto fail = [&](const std::string& why, int code) {
            return make_error(fmt::format("--map-in {}: '{}' entry {}: {}", in.map, in.file, i + 1, why), code);
        };
        if (!e.key.empty() || e.values.size() != 1)
            return fail("a user ring buffer's entry is a sample: a \"value\" and no key", -EINVAL);
        if (int err = produce(e.values[0]); err < 0)
            return fail(fmt::format("the sample was not submitted: {}", std::strerror(-err)), err);
    }
    return ok_status();
}

// The samples through libbpf's producer on the kernel's map.
Status fill_kernel_samples(const MapInput& in, int fd) {
    user_ring_buffer* rb = user_ring_buffer__new(fd, nullptr);
    if (!rb)
        return make_error(fmt::format("--map-in {}: user_ring_buffer__new: {}", in.map, std::strerror(errno)), -errno);
    Status st = fill_samples(in, [rb](const std::vector<uint8_t>& v) {
        void* p = user_ring_buffer__reserve(rb, uint32_t(v.size()));
        if (!p)
            return -errno;
        std::memcpy(p, v.data(), v.size());
        user_ring_buffer__submit(rb, p);
        return 0;
    });
    user_ring_buffer__free(rb);
    return st;
}

bool percpu_type(uint32_t type) {
    return type == 5 || type == 6 || type == 10 || type == 21; // percpu_hash, percpu_array, lru_percpu_hash, percpu_cgroup_storage
}

} // namespace

Result<std::vector<MapInput>> read_map_inputs(const std::vector<std::string>& args) {
    std::vector<MapInput> out;
    for (const std::string& a : args) {
        auto in = read_one(a);
        if (!in)
            return make_error(fmt::format("--map-in {}: {}", a, in.error().message), in.error().code);
        out.push_back(std::move(in).value());
    }
    return out;
}

Status apply_map_inputs(const runtime::ObjectInstance& inst, const std::vector<MapInput>& inputs) {
    for (const MapInput& in : inputs) {
        runtime::Map* m = inst.find_map(in.map);
        if (!m)
            return make_error(fmt::format("--map-in {}: no map '{}' in the object", in.map, in.map), -ENOENT);
        const loader::MapSpec& sp = m->spec();
        if (sp.type == loader::kMapUserRingbuf) {
            auto* rb = static_cast<runtime::UserRingbufMap*>(m);
            STRBPF_TRY(fill_samples(in, [rb](const std::vector<uint8_t>& v) {
                int err = 0;
                void* p = rb->reserve(uint32_t(v.size()), &err);
                if (p) {
                    std::memcpy(p, v.data(), v.size());
                    err = rb->commit(p, false);
                }
                return err;
            }));
            continue;
        }
        STRBPF_TRY(fill(in, sp.type, sp.key_size, sp.value_size, m->ncpus(), m->percpu(),
                        [m](const void* key, const void* value) { return m->update_value(key, value, 0); }));
    }
    return ok_status();
}

Status apply_map_inputs(const exec::kernel::KernelObject& ko, const std::vector<MapInput>& inputs) {
    for (const MapInput& in : inputs) {
        const int fd = ko.map_fd(in.map);
        bpf_map_info info{};
        uint32_t len = sizeof info;
        if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) != 0)
            return make_error(fmt::format("--map-in {}: no map '{}' in the loaded object", in.map, in.map), -ENOENT);
        if (info.type == loader::kMapUserRingbuf) {
            STRBPF_TRY(fill_kernel_samples(in, fd));
            continue;
        }
        const int ncpus = libbpf_num_possible_cpus();
        STRBPF_TRY(fill(in, info.type, info.key_size, info.value_size, uint32_t(ncpus > 0 ? ncpus : 1),
                        percpu_type(info.type), [fd](const void* key, const void* value) {
                            return bpf_map_update_elem(fd, key, value, 0) ? -errno : 0;
                        }));
    }
    return ok_status();
}

} // namespace strbpf::cli

namespace strbpf::cli {

void add_input_options(CLI::App& cmd, std::vector<std::string>* sets, std::vector<std::string>* map_ins) {
    cmd.add_option("--set", *sets, "set a global variable before load: VAR=VALUE, VAR.member=VALUE, VAR[i]=VALUE "
                                   "(.rodata too, so the verifier sees the constant; repeatable)")
        ->allow_extra_args(false);
    cmd.add_option("--map-in", *map_ins, "fill map MAP before the run from FILE (JSON as `map dump --json` writes "
                                         "it, or bpftool's entry list; repeatable)")
        ->allow_extra_args(false);
}

} // namespace strbpf::cli
