// SPDX-License-Identifier: BSD-2-Clause
// Map-type rules of the verifier (verifier stage), as data: the kernel's check_map_func_compatibility (which
// helpers each map type allows, which map types each helper takes), the map types bpf_for_each_map_elem can
// walk, and what a lookup returns for map types whose values are not plain memory.
#pragma once
#include <cstdint>
#include <string>

#include "loader/object_spec.hpp"
#include "verifier/kernel_variant.hpp"

namespace strbpf::runtime {
class ObjectInstance;
}

namespace strbpf::verifier {

// check_map_prog_compatibility, which the kernel applies to every map a program's ld_imm64 names before it walks
// the program: empty, or the one line the kernel prints (sleepable programs: syscall, SEC("*.s/...")). Kernel
// builds with KernelVariant::sleepable_inner_maps check a map-in-map's inner map type too.
std::string map_prog_incompatibility(const runtime::ObjectInstance& inst, const loader::ProgramSpec& prog,
                                     const KernelVariant& variant);

// Empty when helper `func_id` may take a map of `map_type`; else the kernel's message
// ("cannot pass map_type 3 into func bpf_map_lookup_elem#1").
std::string map_func_incompatibility(uint32_t map_type, int32_t func_id, const char* func_name);

// may_update_sockmap: whether bpf_map_update_elem / bpf_map_delete_elem (`func_id` 2 / 3) may take a sockmap or
// sockhash in a program of `type` (tracing iterators too, which strbpf's verifier does not walk).
bool may_update_sockmap(loader::ProgType type, int32_t func_id);

// set_map_elem_callback_state: the map types with a for_each callback (map_for_each_callback).
bool map_has_for_each(uint32_t map_type);

// What bpf_map_lookup_elem's non-null result is for the map type.
enum class LookupResult : uint8_t {
    map_value, // PTR_TO_MAP_VALUE
    inner_map, // CONST_PTR_TO_MAP of the inner map template (array_of_maps, hash_of_maps)
    socket,    // PTR_TO_SOCKET (sockmap, sockhash; a referenced socket), PTR_TO_XDP_SOCK (xskmap): not modelled
};
LookupResult map_lookup_result(uint32_t map_type);

} // namespace strbpf::verifier
