// The helper table (runtime stage): one row per helper, the kernel's id, name, return and argument kinds, and the
// program types that may call it.
#include "runtime/helpers/helper_table.hpp"

#include <array>
#include <initializer_list>

#include "runtime/helpers/basic_helpers.hpp"
#include "runtime/helpers/callback_helpers.hpp"
#include "runtime/helpers/csum_helpers.hpp"
#include "runtime/helpers/map_helpers.hpp"
#include "runtime/helpers/memory_helpers.hpp"
#include "runtime/helpers/ringbuf_helpers.hpp"
#include "runtime/helpers/skb_helpers.hpp"
#include "runtime/helpers/string_helpers.hpp"

namespace strbpf::runtime {
namespace {

using A = ArgKind;
using R = RetKind;
using loader::ProgType;
constexpr A _ = A::none;

// Who may call what, as Linux 6.18 decides it: each program type's verifier ops have a get_func_proto, and every
// one of them ends in bpf_base_func_proto (kernel/bpf/helpers.c) for the helpers it does not name itself:
//   kprobe, tracepoint, perf_event, raw_tracepoint  kprobe/tp/pe/raw_tp_prog_func_proto -> bpf_tracing_func_proto
//                                                   (kernel/trace/bpf_trace.c) -> bpf_base_func_proto
//   syscall                                         syscall_prog_func_proto (kernel/bpf/syscall.c) ->
//                                                   tracing_prog_func_proto -> raw_tp_prog_func_proto -> ...
//   socket_filter, sched_cls/act, xdp               sk_filter/tc_cls_act/xdp_func_proto (net/core/filter.c) ->
//                                                   bpf_sk_base_func_proto -> bpf_base_func_proto
// bpf_base_func_proto answers in three switches, the second only with CAP_BPF, the third only with CAP_PERFMON
// (bpf_trace_printk, bpf_probe_read_kernel[_str]; the latter two also NULL under lockdown=confidentiality). strbpf
// models a root loader on an unlocked kernel, so all three count. Sets are bit masks over enum bpf_prog_type.
constexpr ProgTypeSet bits(std::initializer_list<ProgType> types) {
    ProgTypeSet s = 0;
    for (ProgType t : types)
        s |= prog_type_bit(t);
    return s;
}
// bpf_base_func_proto: every program type, also those strbpf does not model.
constexpr ProgTypeSet kBase = ~ProgTypeSet(0);
// The __sk_buff helpers of sk_filter_func_proto and tc_cls_act_func_proto (not xdp, not tracing, not syscall).
// Other skb program types (cgroup_skb, lwt_*, sk_skb) also have them in the kernel; strbpf loads none of those,
// and a raw program of such a type is refused them, which is stricter than the kernel, never looser.
constexpr ProgTypeSet kSkb = bits({ProgType::socket_filter, ProgType::sched_cls, ProgType::sched_act});

// Rows follow the kernel's bpf_func_proto of each helper (v6.x): unused argument slots are ARG_DONTCARE (none).
constexpr HelperProto kHelpers[] = {
    {1, "bpf_map_lookup_elem", bpf_map_lookup_elem_helper, R::map_value_or_null, {A::const_map_ptr, A::ptr_to_map_key, _, _, _}, false, kBase, true},
    {2, "bpf_map_update_elem", bpf_map_update_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_map_key, A::ptr_to_map_value, A::anything, _}, false, kBase, true},
    {3, "bpf_map_delete_elem", bpf_map_delete_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_map_key, _, _, _}, false, kBase, true},
    {5, "bpf_ktime_get_ns", bpf_ktime_get_ns_helper, R::integer, {_, _, _, _, _}, false, kBase},
    {6, "bpf_trace_printk", bpf_trace_printk_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, _, _, _}, true, kBase},
    {7, "bpf_get_prandom_u32", bpf_get_prandom_u32_helper, R::integer, {_, _, _, _, _}, false, kBase},
    {8, "bpf_get_smp_processor_id", bpf_get_smp_processor_id_helper, R::integer, {_, _, _, _, _}, false, kBase},
    {12, "bpf_tail_call", bpf_tail_call_helper, R::void_, {A::ptr_to_ctx, A::const_map_ptr, A::anything, _, _}, false, kBase},
    {14, "bpf_get_current_pid_tgid", bpf_get_current_pid_tgid_helper, R::integer, {_, _, _, _, _}, false, kBase},
    {26, "bpf_skb_load_bytes", bpf_skb_load_bytes_helper, R::integer, {A::ptr_to_ctx, A::anything, A::ptr_to_uninit_mem, A::const_size, _}, false, kSkb},
    {28, "bpf_csum_diff", bpf_csum_diff_helper, R::integer, {A::ptr_to_mem_rdonly_or_null, A::const_size_or_zero, A::ptr_to_mem_rdonly_or_null, A::const_size_or_zero, A::anything}, false, bits({ProgType::sched_cls, ProgType::sched_act, ProgType::xdp}), true},
    {105, "bpf_strtol", bpf_strtol_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::anything, A::ptr_to_long, _}, false, kBase},
    {106, "bpf_strtoul", bpf_strtoul_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::anything, A::ptr_to_long, _}, false, kBase},
    {113, "bpf_probe_read_kernel", bpf_probe_read_kernel_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true, kBase},
    {115, "bpf_probe_read_kernel_str", bpf_probe_read_kernel_str_helper, R::integer, {A::ptr_to_uninit_mem, A::const_size_or_zero, A::anything, _, _}, true, kBase},
    {125, "bpf_ktime_get_boot_ns", bpf_ktime_get_boot_ns_helper, R::integer, {_, _, _, _, _}, false, kBase},
    {130, "bpf_ringbuf_output", bpf_ringbuf_output_helper, R::integer, {A::const_map_ptr, A::ptr_to_mem_rdonly, A::const_size_or_zero, A::anything, _}, false, kBase},
    {131, "bpf_ringbuf_reserve", bpf_ringbuf_reserve_helper, R::ringbuf_mem_or_null, {A::const_map_ptr, A::const_alloc_size_or_zero, A::anything, _, _}, false, kBase},
    {132, "bpf_ringbuf_submit", bpf_ringbuf_submit_helper, R::void_, {A::ptr_to_ringbuf_mem, A::anything, _, _, _}, false, kBase},
    {133, "bpf_ringbuf_discard", bpf_ringbuf_discard_helper, R::void_, {A::ptr_to_ringbuf_mem, A::anything, _, _, _}, false, kBase},
    {134, "bpf_ringbuf_query", bpf_ringbuf_query_helper, R::integer, {A::const_map_ptr, A::anything, _, _, _}, false, kBase},
    {164, "bpf_for_each_map_elem", bpf_for_each_map_elem_helper, R::integer, {A::const_map_ptr, A::ptr_to_func, A::ptr_to_stack_or_null, A::anything, _}, false, kBase},
    {181, "bpf_loop", bpf_loop_helper, R::integer, {A::anything, A::ptr_to_func, A::ptr_to_stack_or_null, A::anything, _}, false, kBase},
    {182, "bpf_strncmp", bpf_strncmp_helper, R::integer, {A::ptr_to_mem_rdonly, A::const_size, A::ptr_to_const_str, _, _}, false, kBase},
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
