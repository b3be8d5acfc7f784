// SPDX-License-Identifier: BSD-2-Clause
// Program-allocated objects (runtime stage): kernel/bpf/helpers.c's bpf_obj_new_impl and bpf_obj_drop_impl. The
// verifier (verifier/alloc_obj.cpp) proves every object a program holds is dropped, or handed on, exactly once
// and never touched afterwards, so an object is plain heap memory: allocated zeroed with a small header (its size
// and type) before it, freed by the drop. The kernel's verifier rewrites the first argument into the object's
// size; strbpf's engines run the call as written, so the size is read from the program's BTF by the type ID.
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime::kfuncs {

// (u64 local_type_id__k, void *meta__ign): a zeroed object of the struct the program's BTF gives that ID, or NULL
// (0) as bpf_mem_alloc answers: a struct of size 0 or of more than 4088 bytes (the allocator's 4096-byte largest
// unit less its list node), or no memory.
uint64_t bpf_obj_new_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (void *p__alloc, void *meta__ign): void. Frees the object.
uint64_t bpf_obj_drop_impl(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);

// Frees an object bpf_obj_new_impl made (a map dropping a kptr it held); nothing for 0.
void obj_drop(uint64_t obj);

} // namespace strbpf::runtime::kfuncs
