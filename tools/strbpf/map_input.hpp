// SPDX-License-Identifier: BSD-2-Clause
// `--map-in MAP=FILE`: a map filled from a JSON file before a run, as bpftool's `map update` would fill it entry by
// entry (tools stage). FILE holds what `strbpf map dump --json` writes (one object per map and line; the line whose
// "map" is MAP is used, or the only one) or a bare list of entries as `bpftool map dump -j` writes them. An entry is
// {"key": K, "value": V} or, for per-CPU maps, {"key": K, "values": [{"cpu": N, "value": V}, ...]} (CPUs not listed
// get zeros); K and V are hex strings ("0a000000") or lists of bytes (["0x0a", "0x00", ...] or numbers). Queue,
// stack and bloom filter entries have no key: their values are pushed so that pops take them in the file's order
// (a queue's from the first entry, a stack's from the last: the dump lists a stack from its top). A user ring
// buffer's entries are samples ({"value": V} of any length), submitted in the file's order as libbpf's
// user_ring_buffer__reserve / __submit would (on the kernel engine through libbpf itself).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runtime/instance.hpp"
#include "strbpf/result.hpp"

namespace strbpf::exec::kernel {
class KernelObject;
}

namespace strbpf::cli {

struct MapInputEntry {
    std::vector<uint8_t> key;
    std::vector<std::vector<uint8_t>> values; // one for a plain map; per-CPU: values[cpu] (empty: zeros)
};

struct MapInput {
    std::string map, file;
    std::vector<MapInputEntry> entries;
};

// Reads every "MAP=FILE" argument; errors name the argument.
Result<std::vector<MapInput>> read_map_inputs(const std::vector<std::string>& args);

// Writes the entries into the instance's maps (the syscall view: BPF_MAP_UPDATE_ELEM with BPF_ANY).
Status apply_map_inputs(const runtime::ObjectInstance& inst, const std::vector<MapInput>& inputs);

// The same on a loaded kernel object, through bpf_map_update_elem on its maps' fds.
Status apply_map_inputs(const exec::kernel::KernelObject& ko, const std::vector<MapInput>& inputs);

// Adds --set VAR=VALUE and --map-in MAP=FILE (both repeatable) to a command.
void add_input_options(CLI::App& cmd, std::vector<std::string>* sets, std::vector<std::string>* map_ins);

} // namespace strbpf::cli
