// `strbpf map dump`: the maps of an object — as loaded, or after running one program — like bpftool's
// `map dump` (tools stage): map types by name, keys and values formatted through BTF where the object has it
// (map_format), hex otherwise and in --json beside the formatted form. Per-CPU maps print every CPU's value;
// ring buffers their size and positions.
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

// Per-CPU maps show one value per possible CPU, as `bpftool map dump` does.
void dump_map(runtime::Map& m, bool json, const ObjectBtf* btf) {
    if (runtime::RingbufMap* rb = m.as_ringbuf())
        return dump_ringbuf(*rb, json);
    const auto& sp = m.spec();
    const MapTypes types = btf ? btf->types_of(sp) : MapTypes{};
    nlohmann::ordered_json pretty = nlohmann::ordered_json::array(); // the plain form with BTF, bpftool's
    bool all_formatted = btf != nullptr;
    const uint64_t stride = (uint64_t(sp.value_size) + 7) & ~uint64_t(7);
    std::vector<uint8_t> key(sp.key_size), next(sp.key_size), value(m.syscall_value_size());
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    if (!json)
        std::printf("map %s: %s key %uB value %uB max_entries %u%s%s\n", sp.name.c_str(),
                    map_type_name(sp.type).c_str(), sp.key_size, sp.value_size, sp.max_entries, m.percpu() ? " (per-CPU)" : "", sp.frozen ? " (frozen)" : "");
    const void* prev = nullptr;
    while (m.next_key(prev, next.data()) == 0) {
        key = next;
        prev = key.data();
        if (m.copy_value(key.data(), value.data()) != 0)
            continue;
        nlohmann::ordered_json f;
        if (auto fk = formatted(btf, types, true, sp, key.data(), key.size()))
            f["key"] = *fk;
        if (m.percpu()) {
            nlohmann::ordered_json vals = nlohmann::ordered_json::array();
            for (uint32_t c = 0; c < m.ncpus() && f.contains("key"); c++)
                if (auto fv = formatted(btf, types, false, sp, value.data() + c * stride, sp.value_size))
                    vals.push_back({{"cpu", c}, {"value", *fv}});
            if (vals.size() == m.ncpus())
                f["values"] = vals;
        } else if (auto fv = formatted(btf, types, false, sp, value.data(), sp.value_size); fv && f.contains("key")) {
            f["value"] = *fv;
        }
        const bool ok = f.size() == 2;
        all_formatted = all_formatted && ok;
        if (ok)
            pretty.push_back(f);
        if (json) {
            nlohmann::ordered_json e{{"key", hex_string(key)}};
            if (m.percpu()) {
                nlohmann::ordered_json vals = nlohmann::ordered_json::array();
                for (uint32_t c = 0; c < m.ncpus(); c++) {
                    const uint8_t* v = value.data() + c * stride;
                    vals.push_back({{"cpu", c}, {"value", hex_string({v, v + sp.value_size})}});
                }
                e["values"] = vals;
            } else {
                e["value"] = hex_string({value.data(), value.data() + sp.value_size});
            }
            if (ok)
                e["formatted"] = f;
            entries.push_back(e);
        } else if (all_formatted) {
            continue; // printed below, all at once
        } else if (m.percpu()) {
            std::printf("key: %s\n", spaced_hex(key.data(), key.size()).c_str());
            for (uint32_t c = 0; c < m.ncpus(); c++)
                std::printf("  cpu %u: %s\n", c, spaced_hex(value.data() + c * stride, sp.value_size).c_str());
        } else {
            std::printf("key: %s  value: %s\n", spaced_hex(key.data(), key.size()).c_str(),
                        spaced_hex(value.data(), sp.value_size).c_str());
        }
    }
    if (!json && all_formatted)
        std::printf("%s\n", pretty.dump(4).c_str());
    if (json) {
        nlohmann::ordered_json j{{"map", sp.name}, {"type", map_type_name(sp.type)}, {"key_size", sp.key_size},
                                 {"value_size", sp.value_size}, {"max_entries", sp.max_entries},
                                 {"entries", entries}};
        std::printf("%s\n", j.dump().c_str());
    }
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
