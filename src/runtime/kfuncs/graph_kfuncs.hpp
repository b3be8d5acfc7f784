// SPDX-License-Identifier: BSD-2-Clause
// The graph kfuncs (runtime stage): kernel/bpf/helpers.c's linked lists and red-black trees of program-allocated
// objects (bpf_obj_new), as Linux 6.18 runs them. The kernel's opaque structs keep their sizes and hold strbpf's
// own links:
// - struct bpf_list_head (16 bytes): next, prev of a circular doubly linked list (the kernel's list_head); all zero
//   reads as empty (the kernel initialises a zeroed head at its first use);
// - struct bpf_list_node (24 bytes): next, prev, owner (the head it is on, NULL when on none);
// - struct bpf_rb_root (16 bytes): the tree's root node and its leftmost (rb_root_cached); zero is empty;
// - struct bpf_rb_node (32 bytes): parent and colour, right, left, owner.
// The red-black tree is lib/rbtree.c's algorithm (insertion and erasure rebalance with the same rotations and
// colours), so bpf_rbtree_root / _left / _right see the kernel's shape. Owners are compared as the kernel compares
// them: pushing a node that has one is -EINVAL and drops the reference passed in; removing a node another root
// owns answers NULL.
// The object behind a node is found from the node's address in the registry of live objects (obj_kfuncs.hpp): the
// `off` argument the kernel's verifier patches in is 0 as the program is written. A node in no live object ends
// the run (only a program the verifier did not check can pass one).
// bpf_rbtree_add's `less` is a BPF callback, run through RunContext::invoke_callback as bpf_loop runs its own.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime {
// Whether the kfunc table's row INDEX calls back into the program (bpf_rbtree_add_impl's `less`): the JIT then
// gives the call the trampoline's state, as for bpf_loop (kfunc_table.cpp).
bool kfunc_takes_callback(size_t index);
} // namespace strbpf::runtime

namespace strbpf::runtime::kfuncs {

// (head, node, meta__ign, off): 0; -EINVAL when the node already has an owner (its object's reference dropped).
uint64_t bpf_list_push_front_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
uint64_t bpf_list_push_back_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (head): the node taken off the front / back, its owner cleared; NULL when the list is empty.
uint64_t bpf_list_pop_front(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
uint64_t bpf_list_pop_back(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (head): the first / last node, left on the list; NULL when empty (6.16+).
uint64_t bpf_list_front(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
uint64_t bpf_list_back(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (root, node, less, meta__ign, off): 0, the node inserted after every node it is not less than; -EINVAL when the
// node already has an owner (its object's reference dropped).
uint64_t bpf_rbtree_add_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (root, node): the node, taken out of the tree; NULL when ROOT does not own it.
uint64_t bpf_rbtree_remove(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (root): the leftmost node, NULL when empty.
uint64_t bpf_rbtree_first(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (root): the root node, NULL when empty (6.16+).
uint64_t bpf_rbtree_root(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (root, node): the node's left / right child; NULL when it has none or ROOT does not own the node (6.16+).
uint64_t bpf_rbtree_left(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
uint64_t bpf_rbtree_right(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);

// bpf_list_head_free / bpf_rb_root_free: the head or root at P emptied (detached under the bpf_spin_lock at LOCK
// when not null, as the kernel takes the value's lock) and the object behind each node it held dropped
// (obj_drop). A tree's nodes lose their owner before the drop; a list's keep a non-NULL one, as the kernel's do,
// so an object that survives (refcounted) still cannot be pushed.
void list_head_free(void* p, uint32_t* lock);
void rb_root_free(void* p, uint32_t* lock);

} // namespace strbpf::runtime::kfuncs
