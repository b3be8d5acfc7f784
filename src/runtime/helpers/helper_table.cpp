// The helper table (runtime stage): one row per helper, the kernel's id, name, return and argument kinds.
#include "runtime/helpers/helper_table.hpp"

#include <array>

#include "runtime/helpers/basic_helpers.hpp"
#include "runtime/helpers/map_helpers.hpp"
#include "runtime/helpers/string_helpers.hpp"

namespace strbpf::runtime {
namespace {

using A = ArgKind;
using R = RetKind;
constexpr A _ = A::none;

constexpr HelperProto kHelpers[] = {
    {1, "bpf_map_lookup_elem", bpf_map_lookup_elem_helper, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_map_key, _, _, _}, false},
    {2, "bpf_map_update_elem", bpf_map_update_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_map_key, A::ptr_to_map_value, A::anything, _}, false},
    {3, "bpf_map_delete_elem", bpf_map_delete_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_map_key, _, _, _}, false},
    {5, "bpf_ktime_get_ns", bpf_ktime_get_ns_helper, R::integer, {_, _, _, _, _}, false},
    {7, "bpf_get_prandom_u32", bpf_get_prandom_u32_helper, R::integer, {_, _, _, _, _}, false},
    {8, "bpf_get_smp_processor_id", bpf_get_smp_processor_id_helper, R::integer, {_, _, _, _, _}, false},
    {125, "bpf_ktime_get_boot_ns", bpf_ktime_get_boot_ns_helper, R::integer, {_, _, _, _, _}, false},
    {182, "bpf_strncmp", bpf_strncmp_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::ptr_to_const_str, _, _}, false},
};

constexpr int kMaxHelperId = 256;

struct ById {
    std::array<const HelperProto*, kMaxHelperId> rows{};
    constexpr ById() {
        for (const auto& h : kHelpers)
            rows[h.id] = &h;
    }
};
constexpr ById kById;

} // namespace

std::span<const HelperProto> helper_table() { return kHelpers; }

const HelperProto* find_helper(int32_t id) { return id >= 0 && id < kMaxHelperId ? kById.rows[id] : nullptr; }

HelperFn helper_fn(int32_t id) {
    const HelperProto* h = find_helper(id);
    return h ? h->fn : nullptr;
}

} // namespace strbpf::runtime
