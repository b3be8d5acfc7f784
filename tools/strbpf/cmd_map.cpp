// SPDX-License-Identifier: BSD-2-Clause
// `strbpf map dump`: the maps of an object — as loaded, or after running one program — like bpftool's
// `map dump` (tools stage): map types by name, keys and values formatted through BTF where the object has it
// (map_format), hex otherwise and in --json beside the formatted form. Per-CPU maps print every CPU's value;
// ring buffers their size, positions and unconsumed records; perf event arrays each open slot's records (with
// --run, a reader is opened on the slot of every possible CPU first, as libbpf's perf_buffer__new does).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "global_set.hpp"
#include "map_format.hpp"
#include "map_input.hpp"
#include "exec/runner.hpp"
#include "runtime/maps/perf_event_array_map.hpp"
#include "runtime/maps/ringbuf_map.hpp"

namespace strbpf::cli {
namespace {

struct MapOptions {
    std::string obj, map, prog, ctx_hex, data_hex;
    std::vector<std::string> sets, map_ins;
    bool json = false;
};

std::string spaced_hex(const uint8_t* p, size_t n) {
    std::string s;
    for (size_t i = 0; i < n; i++)
        s += fmt::format("{}{:02x}", i ? " " : "", p[i]);
    return s;
}

using Records = std::vector<std::vector<uint8_t>>;

int keep_record(void* arg, const uint8_t* data, uint32_t size) {
    static_cast<Records*>(arg)->emplace_back(data, data + size);
    return 0;
}

void print_records(const Records& recs, const char* indent) {
    for (const auto& r : recs)
        std::printf("%srecord %zuB: %s\n", indent, r.size(), spaced_hex(r.data(), r.size()).c_str());
}

nlohmann::ordered_json records_json(const Records& recs) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& r : recs)
        list.push_back(spaced_hex(r.data(), r.size()));
    return list;
}

// A ring buffer has no entries to list: its size and positions, like bpftool's map show, then the records a
// consumer has not read yet (left unread).
void dump_ringbuf(runtime::RingbufMap& rb, bool json) {
    const auto& sp = rb.spec();
    const uint64_t cons = rb.query(runtime::RingbufMap::kConsPos), prod = rb.query(runtime::RingbufMap::kProdPos);
    Records recs;
    rb.peek([](void* arg, const void* d, uint32_t n) { return keep_record(arg, static_cast<const uint8_t*>(d), n); },
            &recs);
    if (json) {
        nlohmann::ordered_json j{{"map", sp.name},           {"type", map_type_name(sp.type)},
                                 {"max_entries", rb.ring_size()}, {"consumer_pos", cons},
                                 {"producer_pos", prod},      {"avail_data", prod - cons},
                                 {"records", records_json(recs)}};
        std::printf("%s\n", j.dump().c_str());
        return;
    }
    std::printf("map %s: ringbuf size %lluB consumer_pos %llu producer_pos %llu avail %llu bytes\n", sp.name.c_str(),
                (unsigned long long)rb.ring_size(), (unsigned long long)cons, (unsigned long long)prod,
                (unsigned long long)(prod - cons));
    print_records(recs, "  ");
}

// A perf event array: each open slot's records (sizes as a perf reader sees them) and lost count.
void dump_perf(runtime::PerfEventArrayMap& pa, bool json) {
    const auto& sp = pa.spec();
    nlohmann::ordered_json slots = nlohmann::ordered_json::array();
    if (!json)
        std::printf("map %s: perf_event_array max_entries %u\n", sp.name.c_str(), sp.max_entries);
    for (uint32_t i = 0; i < sp.max_entries; i++) {
        Records recs;
        if (pa.peek_records(i, keep_record, &recs) < 0)
            continue;
        if (json) {
            slots.push_back({{"slot", i}, {"lost", pa.lost(i)}, {"records", records_json(recs)}});
            continue;
        }
        std::printf("  slot %u: %zu records, %llu lost\n", i, recs.size(), (unsigned long long)pa.lost(i));
        print_records(recs, "    ");
    }
    if (json) {
        nlohmann::ordered_json j{{"map", sp.name}, {"type", map_type_name(sp.type)}, {"max_entries", sp.max_entries},
                                 {"slots", slots}};
        std::printf("%s\n", j.dump().c_str());
    }
}

// What libbpf's perf_buffer__new does before a run: a reader (64 pages) on the slot of each possible CPU.
void open_perf_readers(runtime::ObjectInstance& inst) {
    for (size_t i = 0; i < inst.map_count(); i++)
        if (runtime::PerfEventArrayMap* pa = inst.map(i)->as_perf_event_array())
            for (uint32_t c = 0; c < runtime::possible_cpus() && c < pa->spec().max_entries; c++)
                pa->open_slot(c, c, 64 * 4096);
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
    if (is_key && n == 0) // queue, stack: no key
        return nlohmann::ordered_json(nullptr);
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
    nlohmann::ordered_json f = nlohmann::ordered_json::object();
    if (sp.key_size)
        f["key"] = *k;
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
        nlohmann::ordered_json e = nlohmann::ordered_json::object();
        if (sp.key_size)
            e["key"] = hex_string(en.key);
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
        if (!sp.key_size) {
            std::printf("value: %s\n", spaced_hex(e.value.data(), sp.value_size).c_str());
            continue;
        }
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

// A queue's or stack's values in the order pops take them (bpftool's `map peek` shows the first): popped, then
// pushed back so that the map is as it was.
std::vector<Entry> keyless_entries(runtime::Map& m) {
    std::vector<Entry> out;
    std::vector<uint8_t> v(m.spec().value_size);
    while (m.pop_elem(v.data()) == 0)
        out.push_back(Entry{{}, v, std::nullopt});
    const bool stack = m.spec().type == loader::kMapStack;
    for (size_t i = 0; i < out.size(); i++)
        m.push_elem(out[stack ? out.size() - 1 - i : i].value.data(), 0);
    return out;
}

// Per-CPU maps show one value per possible CPU, as `bpftool map dump` does.
void dump_map(runtime::Map& m, bool json, const ObjectBtf* btf) {
    if (runtime::RingbufMap* rb = m.as_ringbuf())
        return dump_ringbuf(*rb, json);
    if (runtime::PerfEventArrayMap* pa = m.as_perf_event_array())
        return dump_perf(*pa, json);
    const auto& sp = m.spec();
    const MapTypes types = btf ? btf->types_of(sp) : MapTypes{};
    const uint64_t stride = (uint64_t(sp.value_size) + 7) & ~uint64_t(7);
    std::vector<Entry> entries;
    if (sp.type == loader::kMapQueue || sp.type == loader::kMapStack) {
        entries = keyless_entries(m);
        for (Entry& e : entries)
            e.btf = format_entry(m, btf, types, e, stride);
    }
    std::vector<uint8_t> cur(sp.key_size), next(sp.key_size);
    const void* prev = nullptr;
    while (sp.key_size && m.next_key(prev, next.data()) == 0) {
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
    auto globals = global_patches(o.obj, *spec.value(), o.sets);
    auto inputs = read_map_inputs(o.map_ins);
    if (!globals || !inputs) {
        std::fprintf(stderr, "strbpf map dump: %s\n", (!globals ? globals.error() : inputs.error()).message.c_str());
        return kExitUsage;
    }
    auto inst = runtime::ObjectInstance::create(spec.value(), *globals);
    if (!inst) {
        std::fprintf(stderr, "strbpf map dump: %s\n", inst.error().message.c_str());
        return kExitFailed;
    }
    if (Status st = apply_map_inputs(*inst.value(), *inputs); !st.ok()) {
        std::fprintf(stderr, "strbpf map dump: %s\n", st.error().message.c_str());
        return kExitUsage;
    }
    int rc = kExitOk;
    if (!o.prog.empty()) {
        const runtime::LinkedProgram* lp = inst.value()->find_program(o.prog);
        if (!lp) {
            std::fprintf(stderr, "strbpf map dump: no program '%s' in %s (its programs: %s)\n", o.prog.c_str(),
                         o.obj.c_str(), program_list(*spec.value()).c_str());
            return kExitUsage;
        }
        open_perf_readers(*inst.value());
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
    add_input_options(*d, &o->sets, &o->map_ins);
    return [o] { return run(*o); };
}

} // namespace strbpf::cli
