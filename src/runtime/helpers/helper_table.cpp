// The helper table (runtime stage): one row per helper, the kernel's id, name, return and argument kinds.
#include "runtime/helpers/helper_table.hpp"

#include <array>

#include "runtime/helpers/basic_helpers.hpp"
#include "runtime/helpers/callback_helpers.hpp"
#include "runtime/helpers/map_helpers.hpp"
#include "runtime/helpers/memory_helpers.hpp"
#include "runtime/helpers/ringbuf_helpers.hpp"
#include "runtime/helpers/skb_helpers.hpp"
#include "runtime/helpers/string_helpers.hpp"

namespace strbpf::runtime {
namespace {

using A = ArgKind;
using R = RetKind;
constexpr A _ = A::none;

// Rows follow the kernel's bpf_func_proto of each helper (v6.x): unused argument slots are ARG_DONTCARE (none).
constexpr HelperProto kHelpers[] = {
    {1, "bpf_map_lookup_elem", bpf_map_lookup_elem_helper, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_map_key, _, _, _}, false},
    {2, "bpf_map_update_elem", bpf_map_update_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_map_key, A::ptr_to_map_value, A::anything, _}, false},
    {3, "bpf_map_delete_elem", bpf_map_delete_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_map_key, _, _, _}, false},
    {5, "bpf_ktime_get_ns", bpf_ktime_get_ns_helper, R::integer, {_, _, _, _, _}, false},
    {6, "bpf_trace_printk", bpf_trace_printk_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, _, _, _}, true},
    {7, "bpf_get_prandom_u32", bpf_get_prandom_u32_helper, R::integer, {_, _, _, _, _}, false},
    {8, "bpf_get_smp_processor_id", bpf_get_smp_processor_id_helper, R::integer, {_, _, _, _, _}, false},
    {14, "bpf_get_current_pid_tgid", bpf_get_current_pid_tgid_helper, R::integer, {_, _, _, _, _}, false},
    {26, "bpf_skb_load_bytes", bpf_skb_load_bytes_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_uninit_mem, A::const_size, _}, false},
    {105, "bpf_strtol", bpf_strtol_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::anything, A::ptr_to_long, _}, false},
    {106, "bpf_strtoul", bpf_strtoul_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::anything, A::ptr_to_long, _}, false},
    {113, "bpf_probe_read_kernel", bpf_probe_read_kernel_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true},
    {115, "bpf_probe_read_kernel_str", bpf_probe_read_kernel_str_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true},
    {125, "bpf_ktime_get_boot_ns", bpf_ktime_get_boot_ns_helper, R::integer, {_, _, _, _, _}, false},
    {130, "bpf_ringbuf_output", bpf_ringbuf_output_helper, R::integer, {A::const_map_ptr, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, _}, false},
    {131, "bpf_ringbuf_reserve", bpf_ringbuf_reserve_helper, R::ringbuf_mem_or_null, {A::const_map_ptr, A::const_alloc_size_or_zero, A::anything, _, _}, false},
    {132, "bpf_ringbuf_submit", bpf_ringbuf_submit_helper, R::void_, {A::ptr_to_ringbuf_mem, A::anything, _, _, _}, false},
    {133, "bpf_ringbuf_discard", bpf_ringbuf_discard_helper, R::void_, {A::ptr_to_ringbuf_mem, A::anything, _, _, _}, false},
    {134, "bpf_ringbuf_query", bpf_ringbuf_query_helper, R::integer, {A::const_map_ptr, A::anything, _, _, _}, false},
    {164, "bpf_for_each_map_elem", bpf_for_each_map_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_func, A::ptr_to_stack_or_null, A::anything, _}, false},
    {181, "bpf_loop", bpf_loop_helper, R::integer, {A::anything, A::ptr_to_func, A::ptr_to_stack_or_null, A::anything, _}, false},
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
