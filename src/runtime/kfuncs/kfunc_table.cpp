// SPDX-License-Identifier: BSD-2-Clause
// The kfunc table (runtime stage): one row per kfunc with its exact kernel BTF parameter names, so the verifier's
// __ign/__sz/__k/__str suffix rules apply to our rows as they do to vmlinux BTF.
#include "runtime/kfuncs/kfunc_table.hpp"

#include "runtime/kfuncs/arena_kfuncs.hpp"
#include "runtime/kfuncs/dynptr_kfuncs.hpp"
#include "runtime/kfuncs/graph_kfuncs.hpp"
#include "runtime/kfuncs/iter_kfuncs.hpp"
#include "runtime/kfuncs/obj_kfuncs.hpp"
#include "runtime/kfuncs/cpumask_kfuncs.hpp"
#include "runtime/kfuncs/preempt_kfuncs.hpp"
#include "runtime/kfuncs/throw_kfunc.hpp"
#include "runtime/kfuncs/wq_kfuncs.hpp"
#include "runtime/kfuncs/string_kfuncs.hpp"

namespace strbpf::runtime {

namespace {
using K = KfuncParamKind;
constexpr KfuncParam kNone{nullptr, K::scalar, 0, false};
constexpr KfuncParam ptr(const char* name) { return {name, K::ptr, 8, false}; }
constexpr KfuncParam sz(const char* name) { return {name, K::scalar, 8, false}; }  // size_t
constexpr KfuncParam chr(const char* name) { return {name, K::scalar, 1, false}; } // char (unsigned in the kernel)
constexpr KfuncParam i32(const char* name) { return {name, K::scalar, 4, true}; }  // int
constexpr KfuncParam u32arg(const char* name) { return {name, K::scalar, 4, false}; } // u32
constexpr KfuncParam u64arg(const char* name) { return {name, K::scalar, 8, false}; } // u64

// clang-format off
const KfuncProto kKfuncs[] = {
    {"bpf_strcmp",      kfuncs::bpf_strcmp,      2, {ptr("s1__ign"), ptr("s2__ign"), kNone, kNone, kNone}, 4, "6.17", &kfuncs::bpf_strcmp_site},
    {"bpf_strcasecmp",  kfuncs::bpf_strcasecmp,  2, {ptr("s1__ign"), ptr("s2__ign"), kNone, kNone, kNone}, 4, "6.18", &kfuncs::bpf_strcasecmp_site},
    {"bpf_strncasecmp", kfuncs::bpf_strncasecmp, 3, {ptr("s1__ign"), ptr("s2__ign"), sz("len"), kNone, kNone}, 4, "7.0", &kfuncs::bpf_strncasecmp_site},
    {"bpf_strchr",      kfuncs::bpf_strchr,      2, {ptr("s__ign"), chr("c"), kNone, kNone, kNone}, 4, "6.17", &kfuncs::bpf_strchr_site},
    {"bpf_strchrnul",   kfuncs::bpf_strchrnul,   2, {ptr("s__ign"), chr("c"), kNone, kNone, kNone}, 4, "6.17", &kfuncs::bpf_strchrnul_site},
    {"bpf_strnchr",     kfuncs::bpf_strnchr,     3, {ptr("s__ign"), sz("count"), chr("c"), kNone, kNone}, 4, "6.17", &kfuncs::bpf_strnchr_site},
    {"bpf_strrchr",     kfuncs::bpf_strrchr,     2, {ptr("s__ign"), i32("c"), kNone, kNone, kNone}, 4, "6.17", &kfuncs::bpf_strrchr_site},
    {"bpf_strlen",      kfuncs::bpf_strlen,      1, {ptr("s__ign"), kNone, kNone, kNone, kNone}, 4, "6.17", &kfuncs::bpf_strlen_site},
    {"bpf_strnlen",     kfuncs::bpf_strnlen,     2, {ptr("s__ign"), sz("count"), kNone, kNone, kNone}, 4, "6.17", &kfuncs::bpf_strnlen_site},
    {"bpf_strspn",      kfuncs::bpf_strspn,      2, {ptr("s__ign"), ptr("accept__ign"), kNone, kNone, kNone}, 4, "6.17", &kfuncs::bpf_strspn_site},
    {"bpf_strcspn",     kfuncs::bpf_strcspn,     2, {ptr("s__ign"), ptr("reject__ign"), kNone, kNone, kNone}, 4, "6.17", &kfuncs::bpf_strcspn_site},
    {"bpf_strstr",      kfuncs::bpf_strstr,      2, {ptr("s1__ign"), ptr("s2__ign"), kNone, kNone, kNone}, 4, "6.17", &kfuncs::bpf_strstr_site},
    {"bpf_strcasestr",  kfuncs::bpf_strcasestr,  2, {ptr("s1__ign"), ptr("s2__ign"), kNone, kNone, kNone}, 4, "6.19", &kfuncs::bpf_strcasestr_site},
    {"bpf_strnstr",     kfuncs::bpf_strnstr,     3, {ptr("s1__ign"), ptr("s2__ign"), sz("len"), kNone, kNone}, 4, "6.17", &kfuncs::bpf_strnstr_site},
    {"bpf_strncasestr", kfuncs::bpf_strncasestr, 3, {ptr("s1__ign"), ptr("s2__ign"), sz("len"), kNone, kNone}, 4, "6.19", &kfuncs::bpf_strncasestr_site},
    // Open-coded iterators (KF_ITER_NEW / KF_ITER_NEXT | KF_RET_NULL / KF_ITER_DESTROY; the verifier's iter.cpp
    // knows each family): next returns an int pointer, destroy nothing.
    {"bpf_iter_num_new",      kfuncs::bpf_iter_num_new,      3, {ptr("it"), i32("start"), i32("end"), kNone, kNone}, 4, "6.4", nullptr},
    {"bpf_iter_num_next",     kfuncs::bpf_iter_num_next,     1, {ptr("it"), kNone, kNone, kNone, kNone}, 8, "6.4", nullptr},
    {"bpf_iter_num_destroy",  kfuncs::bpf_iter_num_destroy,  1, {ptr("it"), kNone, kNone, kNone, kNone}, 0, "6.4", nullptr},
    {"bpf_iter_bits_new",     kfuncs::bpf_iter_bits_new,     3, {ptr("it"), ptr("unsafe_ptr__ign"), u32arg("nr_words"), kNone, kNone}, 4, "6.11", nullptr},
    {"bpf_iter_bits_next",    kfuncs::bpf_iter_bits_next,    1, {ptr("it"), kNone, kNone, kNone, kNone}, 8, "6.11", nullptr},
    {"bpf_iter_bits_destroy", kfuncs::bpf_iter_bits_destroy, 1, {ptr("it"), kNone, kNone, kNone, kNone}, 0, "6.11", nullptr},
    // Dynptrs (the verifier's dynptr.cpp knows each one's arguments, program types and result).
    {"bpf_dynptr_from_skb",   kfuncs::bpf_dynptr_from_skb,   3, {ptr("s"), sz("flags"), ptr("ptr__uninit"), kNone, kNone}, 4, "6.4", nullptr},
    {"bpf_dynptr_from_xdp",   kfuncs::bpf_dynptr_from_xdp,   3, {ptr("x"), sz("flags"), ptr("ptr__uninit"), kNone, kNone}, 4, "6.4", nullptr},
    {"bpf_dynptr_slice",      kfuncs::bpf_dynptr_slice,      4, {ptr("p"), u32arg("offset"), ptr("buffer__opt"), u32arg("buffer__szk"), kNone}, 8, "6.4", nullptr},
    {"bpf_dynptr_slice_rdwr", kfuncs::bpf_dynptr_slice_rdwr, 4, {ptr("p"), u32arg("offset"), ptr("buffer__opt"), u32arg("buffer__szk"), kNone}, 8, "6.4", nullptr},
    {"bpf_dynptr_adjust",     kfuncs::bpf_dynptr_adjust,     3, {ptr("p"), u32arg("start"), u32arg("end"), kNone, kNone}, 4, "6.5", nullptr},
    {"bpf_dynptr_clone",      kfuncs::bpf_dynptr_clone,      2, {ptr("p"), ptr("clone__uninit"), kNone, kNone, kNone}, 4, "6.5", nullptr},
    {"bpf_dynptr_size",       kfuncs::bpf_dynptr_size,       1, {ptr("p"), kNone, kNone, kNone, kNone}, 4, "6.5", nullptr},
    {"bpf_dynptr_is_null",    kfuncs::bpf_dynptr_is_null,    1, {ptr("p"), kNone, kNone, kNone, kNone}, 1, "6.5", nullptr},
    {"bpf_dynptr_is_rdonly",  kfuncs::bpf_dynptr_is_rdonly,  1, {ptr("p"), kNone, kNone, kNone, kNone}, 1, "6.5", nullptr},
    {"bpf_dynptr_memset",     kfuncs::bpf_dynptr_memset,     4, {ptr("p"), u32arg("offset"), u32arg("size"), {"val", K::scalar, 1, false}, kNone}, 4, "6.17", nullptr},
    {"bpf_dynptr_copy",       kfuncs::bpf_dynptr_copy,       5, {ptr("dst_ptr"), u32arg("dst_off"), ptr("src_ptr"), u32arg("src_off"), u32arg("size")}, 4, "6.15", nullptr},
    // Arenas (KF_TRUSTED_ARGS | KF_SLEEPABLE; the verifier's arena.cpp): the map of any type, the address ignored.
    {"bpf_arena_alloc_pages", kfuncs::bpf_arena_alloc_pages, 5, {ptr("p__map"), ptr("addr__ign"), u32arg("page_cnt"), i32("node_id"), u64arg("flags")}, 8, "6.9", nullptr},
    {"bpf_arena_free_pages",  kfuncs::bpf_arena_free_pages,  3, {ptr("p__map"), ptr("ptr__ign"), u32arg("page_cnt"), kNone, kNone}, 0, "6.9", nullptr},
    {"bpf_arena_reserve_pages", kfuncs::bpf_arena_reserve_pages, 3, {ptr("p__map"), ptr("ptr__ign"), u32arg("page_cnt"), kNone, kNone}, 4, "6.17", nullptr},
    // Program-allocated objects (KF_ACQUIRE | KF_RET_NULL, KF_RELEASE; the verifier's alloc_obj.cpp).
    {"bpf_obj_new_impl",      kfuncs::bpf_obj_new_impl,      2, {u64arg("local_type_id__k"), ptr("meta__ign"), kNone, kNone, kNone}, 8, "6.2", nullptr},
    {"bpf_obj_drop_impl",     kfuncs::bpf_obj_drop_impl,     2, {ptr("p__alloc"), ptr("meta__ign"), kNone, kNone, kNone}, 0, "6.2", nullptr},
    {"bpf_percpu_obj_new_impl",  kfuncs::bpf_percpu_obj_new_impl,  2, {u64arg("local_type_id__k"), ptr("meta__ign"), kNone, kNone, kNone}, 8, "6.7", nullptr},
    {"bpf_percpu_obj_drop_impl", kfuncs::bpf_percpu_obj_drop_impl, 2, {ptr("p__alloc"), ptr("meta__ign"), kNone, kNone, kNone}, 0, "6.7", nullptr},
    // Refcounted objects and the graph kfuncs (graph_kfuncs.hpp; graph_row below).
    {"bpf_refcount_acquire_impl", kfuncs::bpf_refcount_acquire_impl, 2, {ptr("p__refcounted_kptr"), ptr("meta__ign"), kNone, kNone, kNone}, 8, "6.4", nullptr},
    {"bpf_list_push_front_impl", kfuncs::bpf_list_push_front_impl, 4, {ptr("head"), ptr("node"), ptr("meta__ign"), u64arg("off"), kNone}, 4, "6.4", nullptr},
    {"bpf_list_push_back_impl",  kfuncs::bpf_list_push_back_impl,  4, {ptr("head"), ptr("node"), ptr("meta__ign"), u64arg("off"), kNone}, 4, "6.4", nullptr},
    {"bpf_list_pop_front",    kfuncs::bpf_list_pop_front,    1, {ptr("head"), kNone, kNone, kNone, kNone}, 8, "6.2", nullptr},
    {"bpf_list_pop_back",     kfuncs::bpf_list_pop_back,     1, {ptr("head"), kNone, kNone, kNone, kNone}, 8, "6.2", nullptr},
    {"bpf_list_front",        kfuncs::bpf_list_front,        1, {ptr("head"), kNone, kNone, kNone, kNone}, 8, "6.16", nullptr},
    {"bpf_list_back",         kfuncs::bpf_list_back,         1, {ptr("head"), kNone, kNone, kNone, kNone}, 8, "6.16", nullptr},
    {"bpf_rbtree_remove",     kfuncs::bpf_rbtree_remove,     2, {ptr("root"), ptr("node"), kNone, kNone, kNone}, 8, "6.3", nullptr},
    {"bpf_rbtree_add_impl",   kfuncs::bpf_rbtree_add_impl,   5, {ptr("root"), ptr("node"), ptr("less"), ptr("meta__ign"), u64arg("off")}, 4, "6.4", nullptr},
    {"bpf_rbtree_first",      kfuncs::bpf_rbtree_first,      1, {ptr("root"), kNone, kNone, kNone, kNone}, 8, "6.3", nullptr},
    {"bpf_rbtree_root",       kfuncs::bpf_rbtree_root,       1, {ptr("root"), kNone, kNone, kNone, kNone}, 8, "6.16", nullptr},
    {"bpf_rbtree_left",       kfuncs::bpf_rbtree_left,       2, {ptr("root"), ptr("node"), kNone, kNone, kNone}, 8, "6.16", nullptr},
    {"bpf_rbtree_right",      kfuncs::bpf_rbtree_right,      2, {ptr("root"), ptr("node"), kNone, kNone, kNone}, 8, "6.16", nullptr},
    // Preemption (helpers.c common_kfunc_set; the verifier's preempt.cpp counts the regions): no-ops that count.
    {"bpf_preempt_disable",   kfuncs::bpf_preempt_disable,   0, {kNone, kNone, kNone, kNone, kNone}, 0, "6.10", nullptr},
    {"bpf_preempt_enable",    kfuncs::bpf_preempt_enable,    0, {kNone, kNone, kNone, kNone, kNone}, 0, "6.10", nullptr},
    // The cpumask kfuncs (cpumask.c; verified by their kernel-BTF rows, kfunc_btf_table.cpp): cpumask_kfuncs.hpp.
    {"bpf_cpumask_create",    kfuncs::bpf_cpumask_create,    0, {kNone, kNone, kNone, kNone, kNone}, 8, "6.3", nullptr},
    {"bpf_cpumask_acquire",   kfuncs::bpf_cpumask_acquire,   1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 8, "6.3", nullptr},
    {"bpf_cpumask_release",   kfuncs::bpf_cpumask_release,   1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 0, "6.3", nullptr},
    {"bpf_cpumask_first",     kfuncs::bpf_cpumask_first,     1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 4, "6.3", nullptr},
    {"bpf_cpumask_first_zero", kfuncs::bpf_cpumask_first_zero, 1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 4, "6.3", nullptr},
    {"bpf_cpumask_first_and", kfuncs::bpf_cpumask_first_and, 2, {ptr("src1"), ptr("src2"), kNone, kNone, kNone}, 4, "6.5", nullptr},
    {"bpf_cpumask_set_cpu",   kfuncs::bpf_cpumask_set_cpu,   2, {u32arg("cpu"), ptr("cpumask"), kNone, kNone, kNone}, 0, "6.3", nullptr},
    {"bpf_cpumask_clear_cpu", kfuncs::bpf_cpumask_clear_cpu, 2, {u32arg("cpu"), ptr("cpumask"), kNone, kNone, kNone}, 0, "6.3", nullptr},
    {"bpf_cpumask_test_cpu",  kfuncs::bpf_cpumask_test_cpu,  2, {u32arg("cpu"), ptr("cpumask"), kNone, kNone, kNone}, 1, "6.3", nullptr},
    {"bpf_cpumask_test_and_set_cpu", kfuncs::bpf_cpumask_test_and_set_cpu, 2, {u32arg("cpu"), ptr("cpumask"), kNone, kNone, kNone}, 1, "6.3", nullptr},
    {"bpf_cpumask_test_and_clear_cpu", kfuncs::bpf_cpumask_test_and_clear_cpu, 2, {u32arg("cpu"), ptr("cpumask"), kNone, kNone, kNone}, 1, "6.3", nullptr},
    {"bpf_cpumask_setall",    kfuncs::bpf_cpumask_setall,    1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 0, "6.3", nullptr},
    {"bpf_cpumask_clear",     kfuncs::bpf_cpumask_clear,     1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 0, "6.3", nullptr},
    {"bpf_cpumask_and",       kfuncs::bpf_cpumask_and,       3, {ptr("dst"), ptr("src1"), ptr("src2"), kNone, kNone}, 1, "6.3", nullptr},
    {"bpf_cpumask_or",        kfuncs::bpf_cpumask_or,        3, {ptr("dst"), ptr("src1"), ptr("src2"), kNone, kNone}, 0, "6.3", nullptr},
    {"bpf_cpumask_xor",       kfuncs::bpf_cpumask_xor,       3, {ptr("dst"), ptr("src1"), ptr("src2"), kNone, kNone}, 0, "6.3", nullptr},
    {"bpf_cpumask_equal",     kfuncs::bpf_cpumask_equal,     2, {ptr("src1"), ptr("src2"), kNone, kNone, kNone}, 1, "6.3", nullptr},
    {"bpf_cpumask_intersects", kfuncs::bpf_cpumask_intersects, 2, {ptr("src1"), ptr("src2"), kNone, kNone, kNone}, 1, "6.3", nullptr},
    {"bpf_cpumask_subset",    kfuncs::bpf_cpumask_subset,    2, {ptr("src1"), ptr("src2"), kNone, kNone, kNone}, 1, "6.3", nullptr},
    {"bpf_cpumask_empty",     kfuncs::bpf_cpumask_empty,     1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 1, "6.3", nullptr},
    {"bpf_cpumask_full",      kfuncs::bpf_cpumask_full,      1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 1, "6.3", nullptr},
    {"bpf_cpumask_copy",      kfuncs::bpf_cpumask_copy,      2, {ptr("dst"), ptr("src"), kNone, kNone, kNone}, 0, "6.3", nullptr},
    {"bpf_cpumask_any_distribute", kfuncs::bpf_cpumask_any_distribute, 1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 4, "6.5", nullptr},
    {"bpf_cpumask_any_and_distribute", kfuncs::bpf_cpumask_any_and_distribute, 2, {ptr("src1"), ptr("src2"), kNone, kNone, kNone}, 4, "6.5", nullptr},
    {"bpf_cpumask_weight",    kfuncs::bpf_cpumask_weight,    1, {ptr("cpumask"), kNone, kNone, kNone, kNone}, 4, "6.8", nullptr},
    // RCU read-side sections (helpers.c common_kfunc_set; verified by their kernel-BTF rows, kfunc_btf_table.cpp).
    {"bpf_rcu_read_lock",     kfuncs::bpf_rcu_read_lock,     0, {kNone, kNone, kNone, kNone, kNone}, 0, "6.2", nullptr},
    {"bpf_rcu_read_unlock",   kfuncs::bpf_rcu_read_unlock,   0, {kNone, kNone, kNone, kNone, kNone}, 0, "6.2", nullptr},
    // Exceptions (helpers.c generic_btf_ids; the verifier checks it from kernel BTF, kfunc_btf.cpp): the engines
    // unwind to the main frame and run the exception callback (throw_kfunc.hpp).
    {"bpf_throw",             kfuncs::bpf_throw,             1, {u64arg("cookie"), kNone, kNone, kNone, kNone}, 0, "6.7", nullptr},
    // Workqueues (helpers.c common_btf_ids; the verifier checks them from kernel BTF, kfunc_btf.cpp): the started
    // bpf_wq's callback runs when the embedder runs the instance's queue (wq_kfuncs.hpp). The callback is called
    // later, never during the call, so the JIT's call needs no callback-capable frame (kfunc_takes_callback).
    {"bpf_wq_init",           kfuncs::bpf_wq_init,           3, {ptr("wq"), ptr("p__map"), u32arg("flags"), kNone, kNone}, 4, "6.10", nullptr},
    {"bpf_wq_set_callback_impl", kfuncs::bpf_wq_set_callback_impl, 4, {ptr("wq"), ptr("callback_fn"), u32arg("flags"), ptr("aux__prog"), kNone}, 4, "6.10", nullptr},
    {"bpf_wq_start",          kfuncs::bpf_wq_start,          2, {ptr("wq"), u32arg("flags"), kNone, kNone, kNone}, 4, "6.10", nullptr},
};
// clang-format on

} // namespace

std::span<const KfuncProto> kfunc_table() { return kKfuncs; }

int kfunc_index(std::string_view name) {
    for (size_t i = 0; i < std::size(kKfuncs); i++)
        if (name == kKfuncs[i].name)
            return static_cast<int>(i);
    return -1;
}

const KfuncProto* find_kfunc(std::string_view name) {
    const int i = kfunc_index(name);
    return i < 0 ? nullptr : &kKfuncs[i];
}

bool kfunc_takes_callback(size_t index) {
    return index < std::size(kKfuncs) && kKfuncs[index].fn == kfuncs::bpf_rbtree_add_impl;
}

} // namespace strbpf::runtime
