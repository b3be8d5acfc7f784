// SPDX-License-Identifier: BSD-2-Clause
// Program-allocated objects (runtime stage): obj_kfuncs.hpp.
#include "runtime/kfuncs/obj_kfuncs.hpp"

#include <bpf/btf.h>
#include <cstdlib>

#include "loader/btf_view.hpp"
#include "runtime/instance.hpp"

namespace strbpf::runtime::kfuncs {
namespace {

// What precedes each object: 16 bytes, so the object keeps malloc's 16-byte alignment.
struct alignas(16) ObjHeader {
    uint32_t size;
    uint32_t type_id;
    uint64_t magic;
};
constexpr uint64_t kObjMagic = 0x6f626a5f6e657721ull; // "obj_new!"

// bpf_mem_alloc's limits for the non-percpu allocator: no unit for size 0, the largest unit 4096 bytes, each
// object preceded by its 8-byte list node.
constexpr uint64_t kMaxObjSize = 4096 - 8;

} // namespace

uint64_t bpf_obj_new_impl(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    BtfRef b = ctx && ctx->instance ? ctx->instance->spec().btf.get() : nullptr;
    const btf_type* t = b && r1 <= UINT32_MAX ? btfv::type_by_id(b, uint32_t(r1)) : nullptr;
    if (!t || !btf_is_struct(t) || t->size == 0 || t->size > kMaxObjSize)
        return 0;
    auto* h = static_cast<ObjHeader*>(std::calloc(1, sizeof(ObjHeader) + t->size));
    if (!h)
        return 0;
    *h = ObjHeader{t->size, uint32_t(r1), kObjMagic};
    return reinterpret_cast<uint64_t>(h + 1);
}

void obj_drop(uint64_t obj) {
    if (!obj)
        return;
    ObjHeader* h = reinterpret_cast<ObjHeader*>(obj) - 1;
    h->magic = 0;
    std::free(h);
}

uint64_t bpf_obj_drop_impl(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    obj_drop(r1);
    return 0;
}

} // namespace strbpf::runtime::kfuncs
