// SPDX-License-Identifier: BSD-2-Clause
// Program-allocated objects (runtime stage): kernel/bpf/helpers.c's bpf_obj_new_impl, bpf_obj_drop_impl and
// bpf_refcount_acquire_impl. The verifier (verifier/alloc_obj.cpp) proves every object a program holds is dropped,
// or handed on, exactly once and never touched afterwards, so an object is plain heap memory: allocated zeroed with
// a small header (its size, its type and the record of its special fields) before it, freed by the drop. The
// kernel's verifier rewrites the first argument into the object's size and the meta argument into the struct's
// btf_record; strbpf's engines run the calls as written, so both are read from the program's BTF by the type ID
// (once per type and BTF: obj_meta).
//
// Every live object is in a process-wide registry (address -> size): the graph kfuncs (graph_kfuncs.hpp) find the
// object behind a bpf_list_node / bpf_rb_node from the node's address with it, since the program passes the node
// and the `off` argument the kernel's verifier patches in is 0 as written.
#pragma once
#include <cstdint>
#include <memory>

#include "runtime/context.hpp"
#include "runtime/maps/value_fields.hpp"

namespace strbpf::runtime {

// btf_record of a program-local struct, as bpf_obj_new/bpf_obj_drop need it: the special fields a drop frees
// (bpf_list_head / bpf_rb_root drained, referenced kptrs dropped) and where its bpf_refcount lies.
struct ObjMeta {
    ValueFieldSet fields;
    int32_t refcount_off = -1; // -1: not refcounted
};

// The ObjMeta of struct TYPE_ID of the object's BTF B (shared by every instance of that object), made at its first
// bpf_obj_new (any thread); nullptr for a struct with no special field (struct_meta's `has` false, or a record the
// kernel refuses). An object keeps its own shared_ptr to it, so the record lives as long as the last object of the
// type.
std::shared_ptr<const ObjMeta> obj_meta(const std::shared_ptr<struct btf>& b, uint32_t type_id);

namespace kfuncs {

// (u64 local_type_id__k, void *meta__ign): a zeroed object of the struct the program's BTF gives that ID (its
// bpf_refcount, if any, 1 as bpf_obj_init sets it), or NULL (0) as bpf_mem_alloc answers: a struct of size 0 or of
// more than 4088 bytes (the allocator's 4096-byte largest unit less its list node), or no memory.
uint64_t bpf_obj_new_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (void *p__alloc, void *meta__ign): void. __bpf_obj_drop_impl: a refcounted object's count decremented, and the
// object freed (its lists and trees drained, its kptrs dropped) when it reaches 0 or has no bpf_refcount.
uint64_t bpf_obj_drop_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (u64 local_type_id__k, void *meta__ign): bpf_percpu_obj_new_impl: one zeroed copy of the struct per possible
// CPU, or NULL (0): a struct of size 0 or of more than 512 bytes (the verifier refuses both), or no memory. The
// pointer is the first CPU's copy; the program cannot dereference it (MEM_PERCPU), only hand it to
// bpf_this_cpu_ptr / bpf_per_cpu_ptr (percpu_obj_copy), bpf_kptr_xchg and bpf_percpu_obj_drop_impl.
uint64_t bpf_percpu_obj_new_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (void *p__alloc, void *meta__ign): void. The per-CPU object freed, every CPU's copy.
uint64_t bpf_percpu_obj_drop_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// CPU's copy of the per-CPU object OBJ; 0 when OBJ is none (0, or not bpf_percpu_obj_new's) or CPU is not below
// the number of possible CPUs.
uint64_t percpu_obj_copy(uint64_t obj, uint64_t cpu);
// (void *p__refcounted_kptr, void *meta__ign): the object with one more reference, or NULL when its count had
// reached 0 (refcount_inc_not_zero). A pointer that is no live refcounted object ends the run.
uint64_t bpf_refcount_acquire_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);

// A bpf_cpumask (cpumask_kfuncs.hpp): WORDS zeroed 64-bit words of CPU bits and a reference count of 1, or 0 when
// memory runs out; the bits of OBJ when it is one (else nullptr, and *WORDS untouched); one reference dropped, the
// object freed at the last.
uint64_t cpumask_alloc(uint32_t words);
uint64_t* cpumask_bits(uint64_t obj, uint32_t* words);
uint32_t* cpumask_refcount(uint64_t obj);
// Drops a reference to an object bpf_obj_new_impl made, as bpf_obj_drop does (a map dropping a kptr it held, a
// list or tree drained), frees a bpf_percpu_obj_new object, or releases a bpf_cpumask; nothing for 0.
void obj_drop(uint64_t obj);

// The start of the live object that holds [addr, addr + size), or 0 when no live object does.
uint64_t obj_containing(uint64_t addr, uint64_t size);
// The number of live objects (tests: nothing leaked, nothing freed twice).
size_t live_objects();

} // namespace kfuncs
} // namespace strbpf::runtime
