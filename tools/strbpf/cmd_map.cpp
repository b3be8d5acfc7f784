// SPDX-License-Identifier: BSD-2-Clause
// `strbpf map dump`: the maps of an object — as loaded, or after running one program — like bpftool's
// `map dump` (tools stage): map types by name, keys and values formatted through BTF where the object has it
// (map_format), hex otherwise and in --json beside the formatted form. Per-CPU maps print every CPU's value;
// ring buffers their size and positions.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "map_format.hpp"
#include "exec/runner.hpp"
#include "runtime/maps/ringbuf_map.hpp"

namespace strbpf::cli {
namespace {

struct MapOptions {
    std::string obj, map, prog, ctx_hex, data_hex;
    bool json = false;
};

std::string spaced_hex(const uint8_t* p, size_t n) {
    std::string s;
    for (size_t i = 0; i < n; i++)
        s += fmt::format("{}{:02x}", i ? " " : "", p[i]);
    return s;
}

// A ring buffer has no entries to list: its size and positions, like bpftool's map show.
void dump_ringbuf(runtime::RingbufMap& rb, bool json) {
    const auto& sp = rb.spec();
    const uint64_t cons = rb.query(runtime::RingbufMap::kConsPos), prod = rb.query(runtime::RingbufMap::kProdPos);
    if (json) {
        nlohmann::ordered_json j{{"map", sp.name}, {"type", map_type_name(sp.type)}, {"max_entries", sp.max_entries},
                                 {"consumer_pos", cons}, {"producer_pos", prod}, {"avail_data", prod - cons}};
        std::printf("%s\n", j.dump().c_str());
    } else {
        std::printf("map %s: ringbuf size %uB consumer_pos %llu producer_pos %llu avail %llu bytes\n",
                    sp.name.c_str(), sp.max_entries, (unsigned long long)cons, (unsigned long long)prod,
                    (unsigned long long)(prod - cons));
    }
}

// A key or value through BTF; nullopt without BTF for it. Global data keys are the u32 index.
std::optional<nlohmann::ordered_json> formatted(const ObjectBtf* btf, const MapTypes& types, bool is_key,
                                                const loader::MapSpec& sp, const uint8_t* p, size_t n) {
    if (!btf)
        return std::nullopt;
    if (is_key && sp.global_data && n == 4) {
        uint32_t k;
        std::memcpy(&k, p, 4);
        return nlohmann::ordered_json(k);
    }
    if (!is_key && types.datasec)
        return btf->format_datasec(types.value, p, n);
    return btf->format(is_key ? types.key : types.value, p, n);
}

struct Entry {
    std::vector<uint8_t> key, value;           // value: one stride per CPU for per-CPU maps
    std::optional<nlohmann::ordered_json> btf; // {"key":..., "value" or "values":...} when BTF formats both
};

// The BTF form of one entry (per-CPU: "values", one per CPU, as bpftool prints them); nullopt if any part has none.
std::optional<nlohmann::ordered_json> format_entry(const runtime::Map& m, const ObjectBtf* btf, const MapTypes& types,
                                                   const Entry& e, uint64_t stride) {
    const auto& sp = m.spec();
    auto k = formatted(btf, types, true, sp, e.key.data(), e.key.size());
    if (!k)
        return std::nullopt;
    nlohmann::ordered_json f{{"key", *k}};
    if (!m.percpu()) {
        auto v = formatted(btf, types, false, sp, e.value.data(), sp.value_size);
        if (!v)
            return std::nullopt;
        f["value"] = *v;
        return f;
    }
    nlohmann::ordered_json vals = nlohmann::ordered_json::array();
    for (uint32_t c = 0; c < m.ncpus(); c++) {
        auto v = formatted(btf, types, false, sp, e.value.data() + c * stride, sp.value_size);
        if (!v)
            return std::nullopt;
        vals.push_back({{"cpu", c}, {"value", *v}});
    }
    f["values"] = vals;
    return f;
}

// hex and, where BTF formats it, "formatted": bpftool -j's shape.
void print_json(const runtime::Map& m, const std::vector<Entry>& entries, uint64_t stride) {
    const auto& sp = m.spec();
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Entry& en : entries) {
        nlohmann::ordered_json e{{"key", hex_string(en.key)}};
        if (m.percpu()) {
            nlohmann::ordered_json vals = nlohmann::ordered_json::array();
            for (uint32_t c = 0; c < m.ncpus(); c++) {
                const uint8_t* v = en.value.data() + c * stride;
                vals.push_back({{"cpu", c}, {"value", hex_string({v, v + sp.value_size})}});
            }
            e["values"] = vals;
        } else {
            e["value"] = hex_string({en.value.data(), en.value.data() + sp.value_size});
        }
        if (en.btf)
            e["formatted"] = *en.btf;
        list.push_back(e);
    }
    nlohmann::ordered_json j{{"map", sp.name},           {"type", map_type_name(sp.type)},
                             {"key_size", sp.key_size},  {"value_size", sp.value_size},
                             {"max_entries", sp.max_entries}, {"entries", list}};
    std::printf("%s\n", j.dump().c_str());
}

// The BTF form of every entry when BTF formats them all (bpftool's plain output), else hex lines.
void print_plain(const runtime::Map& m, const std::vector<Entry>& entries, uint64_t stride) {
    const auto& sp = m.spec();
    std::printf("map %s: %s key %uB value %uB max_entries %u%s%s\n", sp.name.c_str(), map_type_name(sp.type).c_str(),
                sp.key_size, sp.value_size, sp.max_entries, m.percpu() ? " (per-CPU)" : "",
                sp.frozen ? " (frozen)" : "");
    const bool all_btf = !entries.empty() && std::all_of(entries.begin(), entries.end(), [](const Entry& e) {
        return e.btf.has_value();
    });
    if (all_btf) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const Entry& e : entries)
            list.push_back(*e.btf);
        std::printf("%s\n", list.dump(4).c_str());
        return;
    }
    for (const Entry& e : entries) {
        if (!m.percpu()) {
            std::printf("key: %s  value: %s\n", spaced_hex(e.key.data(), e.key.size()).c_str(),
                        spaced_hex(e.value.data(), sp.value_size).c_str());
            continue;
        }
        std::printf("key: %s\n", spaced_hex(e.key.data(), e.key.size()).c_str());
        for (uint32_t c = 0; c < m.ncpus(); c++)
            std::printf("  cpu %u: %s\n", c, spaced_hex(e.value.data() + c * stride, sp.value_size).c_str());
    }
}

// Per-CPU maps show one value per possible CPU, as `bpftool map dump` does.
void dump_map(runtime::Map& m, bool json, const ObjectBtf* btf) {
    if (runtime::RingbufMap* rb = m.as_ringbuf())
        return dump_ringbuf(*rb, json);
    const auto& sp = m.spec();
    const MapTypes types = btf ? btf->types_of(sp) : MapTypes{};
    const uint64_t stride = (uint64_t(sp.value_size) + 7) & ~uint64_t(7);
    std::vector<Entry> entries;
    std::vector<uint8_t> cur(sp.key_size), next(sp.key_size);
    const void* prev = nullptr;
    while (m.next_key(prev, next.data()) == 0) {
        cur = next;
        prev = cur.data();
        Entry e{cur, std::vector<uint8_t>(m.syscall_value_size()), std::nullopt};
        if (m.copy_value(e.key.data(), e.value.data()) != 0)
            continue;
        e.btf = format_entry(m, btf, types, e, stride);
        entries.push_back(std::move(e));
    }
    if (json)
        print_json(m, entries, stride);
    else
        print_plain(m, entries, stride);
}

int run(const MapOptions& o) {
    auto spec = load_spec(o.obj);
    if (!spec) {
        std::fprintf(stderr, "strbpf map dump: %s\n", spec.error().message.c_str()); // it names the file
        return kExitUsage;
    }
    auto inst = runtime::ObjectInstance::create(spec.value());
    if (!inst) {
        std::fprintf(stderr, "strbpf map dump: %s\n", inst.error().message.c_str());
        return kExitFailed;
    }
    int rc = kExitOk;
    if (!o.prog.empty()) {
        const runtime::LinkedProgram* lp = inst.value()->find_program(o.prog);
        if (!lp) {
            std::fprintf(stderr, "strbpf map dump: no program '%s' in %s (its programs: %s)\n", o.prog.c_str(),
                         o.obj.c_str(), program_list(*spec.value()).c_str());
            return kExitUsage;
        }
        exec::RunRequest req;
        for (auto [hex, out] : {std::pair{&o.ctx_hex, &req.ctx_in}, std::pair{&o.data_hex, &req.data_in}}) {
            auto b = parse_hex(*hex);
            if (!b) {
                std::fprintf(stderr, "strbpf map dump: %s\n", b.error().message.c_str());
                return kExitUsage;
            }
            *out = std::move(b).value();
        }
        auto r = exec::run_linked(exec::EngineKind::interp, *inst.value(), *lp, req);
        if (!r.loaded || !r.ran) {
            std::fprintf(stderr, "strbpf map dump: %s: %s\n", o.prog.c_str(), r.error.c_str());
            rc = kExitFailed;
        } else if (o.json) {
            std::printf("%s\n", nlohmann::ordered_json{{"prog", o.prog}, {"retval", r.retval}}.dump().c_str());
        } else {
            std::printf("%s: Return value: %d (0x%x)\n", o.prog.c_str(), int32_t(r.retval), r.retval);
        }
    }
    const std::unique_ptr<ObjectBtf> btf = ObjectBtf::open(o.obj);
    bool found = o.map.empty();
    for (size_t i = 0; i < inst.value()->map_count(); i++) {
        runtime::Map* m = inst.value()->map(i);
        if (!o.map.empty() && m->name() != o.map)
            continue;
        found = true;
        dump_map(*m, o.json, btf.get());
    }
    if (!found) {
        std::fprintf(stderr, "strbpf map dump: no map '%s' in %s\n", o.map.c_str(), o.obj.c_str());
        return kExitUsage;
    }
    return rc;
}

} // namespace

Runner add_map_command(CLI::App& app) {
    auto o = std::make_shared<MapOptions>();
    CLI::App* c = app.add_subcommand("map", "Inspect an object's maps");
    c->require_subcommand(1);
    CLI::App* d = c->add_subcommand("dump", "Print every entry of the object's maps (after --run PROG on the "
                                            "interpreter, if given)");
    d->add_option("OBJ", o->obj, "BPF ELF object")->required()->check(CLI::ExistingFile);
    d->add_option("--map", o->map, "only this map (global data maps are named by section: .data, .rodata, ...)");
    d->add_option("--run", o->prog, "run this program once first");
    d->add_option("--ctx-hex", o->ctx_hex, "ctx bytes for --run");
    d->add_option("--data-hex", o->data_hex, "packet bytes for --run");
    d->add_flag("--json", o->json, "one JSON object per map");
    return [o] { return run(*o); };
}

} // namespace strbpf::cli
