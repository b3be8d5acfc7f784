// SPDX-License-Identifier: BSD-2-Clause
// Program-allocated objects (verifier stage): alloc_obj.hpp. The rules are Linux 6.18's check_kfunc_call and
// check_kfunc_args for bpf_obj_new_impl and bpf_obj_drop_impl (KF_ARG_PTR_TO_ALLOC_BTF_ID, is_trusted_reg,
// check_func_arg_reg_off), the special-field test of btf_struct_access, in their order and words.
#include "verifier/alloc_obj.hpp"

#include <bpf/btf.h>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/graph.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {
namespace {

constexpr std::string_view kObjNew = "bpf_obj_new_impl", kObjDrop = "bpf_obj_drop_impl";
constexpr std::string_view kPercpuNew = "bpf_percpu_obj_new_impl", kPercpuDrop = "bpf_percpu_obj_drop_impl";
// bpf_mem_alloc's largest unit (4096 bytes) less the list node before each object.
constexpr uint32_t kMaxObjSize = 4096 - 8;
// BPF_GLOBAL_PERCPU_MA_MAX_SIZE: the largest struct bpf_percpu_obj_new makes.
constexpr uint32_t kMaxPercpuObjSize = 512;

// btf_type_skip_modifiers: typedefs, qualifiers and type tags.
const btf_type* skip_modifiers(BtfRef b, uint32_t id) {
    const btf_type* t = btfv::type_by_id(b, id);
    while (t && (btf_is_mod(t) || btf_is_typedef(t) || btf_kind(t) == BTF_KIND_TYPE_TAG))
        t = btfv::type_by_id(b, t->type);
    return t;
}

// __btf_type_is_scalar_struct: a struct or union whose members are integers, enums, non-empty arrays of them, or
// structs of the same kind nested at most three deep.
bool scalar_struct(Env& env, BtfRef b, const btf_type* t, int depth) {
    if (!t || !btf_is_composite(t))
        return false;
    const btf_member* m = btf_members(t);
    for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
        const btf_type* mt = skip_modifiers(b, m->type);
        if (mt && btf_is_composite(mt)) {
            if (depth >= 3) {
                env.note("max struct nesting depth exceeded");
                return false;
            }
            if (!scalar_struct(env, b, mt, depth + 1))
                return false;
            continue;
        }
        if (mt && btf_is_array(mt)) {
            if (!btf_array(mt)->nelems)
                return false;
            mt = skip_modifiers(b, btf_array(mt)->type);
        }
        if (!mt || !(btf_is_int(mt) || btf_kind(mt) == BTF_KIND_ENUM))
            return false;
    }
    return true;
}

BtfRef kernel_btf_of(const Env& env) {
    std::string error;
    bool running = false;
    return env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
}

// The kernel's is_trusted_reg for a kfunc argument: a held reference, a socket, an object (MEM_ALLOC) or a
// PTR_TRUSTED pointer with no unsafe flag.
bool trusted_arg(const Reg& r) {
    if (r.ref_obj_id)
        return true;
    if (r.type == RegType::sock || r.type == RegType::sock_common || r.type == RegType::tcp_sock ||
        r.type == RegType::xdp_sock)
        return !r.maybe_null;
    return r.type == RegType::btf_id && (r.btf_flags & (kBtfTrusted | kBtfAlloc)) &&
           !(r.btf_flags & (kBtfRcu | kBtfUntrusted)) && !r.maybe_null;
}

bool obj_new(Env& env, bool percpu) {
    const Reg& r1 = env.path.cur.cur().regs[1];
    if (r1.type != RegType::scalar)
        return env.fail("R1 is not a scalar");
    if (!r1.var.is_const())
        return env.fail("R1 must be a known constant");
    mark_reg_precise(env, 1);
    const uint64_t value = r1.var.value;
    clear_caller_saved(env);
    if (uint64_t(uint32_t(value)) != value)
        return env.fail("local type ID argument must be in range [0, U32_MAX]");
    BtfRef b = env.facts.inst.spec().btf.get();
    if (!b)
        return env.fail("bpf_obj_new/bpf_percpu_obj_new requires prog BTF");
    const uint32_t id = uint32_t(value);
    const btf_type* t = btfv::type_by_id(b, id);
    if (!t || !btf_is_struct(t))
        return env.fail("bpf_obj_new/bpf_percpu_obj_new type ID argument must be of a struct");
    if (percpu && t->size > kMaxPercpuObjSize)
        return env.fail(fmt::format("bpf_percpu_obj_new type size ({}) is greater than {}", t->size,
                                    kMaxPercpuObjSize));
    if (!percpu && t->size > kMaxObjSize) // the running 6.18 build's check: bpf_mem_alloc has no larger unit
        return env.fail(fmt::format("bpf_obj_new type size ({}) is more than the allocator serves", t->size));
    const loader::StructMeta& meta = local_struct_meta(env, id);
    if (percpu && !scalar_struct(env, b, t, 0))
        return env.fail("bpf_percpu_obj_new type ID argument must be of a struct of scalars");
    if (percpu && meta.has)
        return env.fail("bpf_percpu_obj_new type ID argument must not contain special fields");
    if (!meta.error.empty())
        return env.fail(fmt::format("strbpf does not model struct {}: it holds {} (the kernel refuses the object's "
                                    "BTF)",
                                    btfv::name_by_offset(b, t->name_off), meta.error));
    if (!save_kfunc_struct_meta(env, id)) // graph.cpp
        return false;
    Reg& r0 = env.path.cur.cur().regs[0];
    r0 = reg_ptr(RegType::btf_id, id);
    r0.btf = b;
    r0.btf_flags = percpu ? kBtfAlloc | kBtfPercpu : kBtfAlloc;
    r0.maybe_null = true;
    env.path.new_id(); // the maybe-NULL result's id, then the acquired reference's, which it takes
    r0.id = r0.ref_obj_id = acquire_reference(env, env.path.pc);
    return true;
}

bool obj_drop(Env& env, bool percpu) {
    const Reg r = env.path.cur.cur().regs[1];
    if (is_null_const(r) || r.maybe_null)
        return env.fail("Possibly NULL pointer passed to trusted arg0");
    if (!trusted_arg(r))
        return env.fail("R1 must be referenced or trusted");
    if (!check_arg_reg_off(env, r, 1, r.ref_obj_id != 0))
        return false;
    // KF_ARG_PTR_TO_ALLOC_BTF_ID: exactly PTR_TO_BTF_ID | MEM_ALLOC (not a non-owning one) for bpf_obj_drop, with
    // MEM_PERCPU for bpf_percpu_obj_drop; each refuses the other's object naming itself.
    const bool obj = r.type == RegType::btf_id && r.btf_flags == kBtfAlloc;
    const bool percpu_obj = r.type == RegType::btf_id && r.btf_flags == (kBtfAlloc | kBtfPercpu);
    if (!obj && !percpu_obj)
        return env.fail("arg#0 expected pointer to allocated object");
    if (obj && percpu)
        return env.fail(fmt::format("arg#0 expected for {}()", kObjDrop));
    if (percpu_obj && !percpu)
        return env.fail(fmt::format("arg#0 expected for {}()", kPercpuDrop));
    if (!r.ref_obj_id)
        return env.fail("allocated object must be referenced");
    if (!save_kfunc_struct_meta(env, r.aux)) // graph.cpp
        return false;
    if (!release_reference(env, r.ref_obj_id))
        return env.fail(fmt::format("kfunc {} reference has not been acquired before", percpu ? kPercpuDrop : kObjDrop));
    clear_caller_saved(env);
    return true;
}

// btf_field_type_name of a kptr field.
const char* kptr_field_name(const loader::KptrField& k) {
    return k.kind == loader::KptrKind::percpu ? "percpu_kptr" : "kptr";
}

} // namespace

bool is_alloc_obj_kfunc(std::string_view name) {
    return name == kObjNew || name == kObjDrop || name == kPercpuNew || name == kPercpuDrop;
}

bool do_alloc_obj_kfunc(Env& env, const runtime::KfuncProto& proto, const isa::Insn&) {
    if (!kfunc_set_allows(KfuncSet::generic, env.facts.prog.type))
        return env.fail(fmt::format("calling kernel function {} is not allowed", proto.name));
    if (!check_reg_init(env, 1))
        return false;
    const bool percpu = proto.name == kPercpuNew || proto.name == kPercpuDrop;
    return proto.name == kObjNew || proto.name == kPercpuNew ? obj_new(env, percpu) : obj_drop(env, percpu);
}

const loader::StructMeta& local_struct_meta(const Env& env, uint32_t id) {
    auto& slot = env.facts.struct_metas[id];
    if (!slot)
        slot = std::make_shared<const loader::StructMeta>(
            loader::struct_meta(env.facts.inst.spec().btf.get(), kernel_btf_of(env), id));
    return *slot;
}

bool alloc_obj_has_spin_lock(const Env& env, const Reg& r) {
    if (!is_alloc_obj(r))
        return false;
    for (const loader::SpecialStruct& s : local_struct_meta(env, r.aux).fields.structs)
        if (s.kind == loader::kFieldSpinLock)
            return true;
    return false;
}

bool check_alloc_special_fields(Env& env, const Reg& r, int32_t off, int size) {
    const loader::StructMeta& meta = local_struct_meta(env, r.aux);
    const char* name = nullptr;
    uint32_t first = UINT32_MAX;
    auto overlap = [&](uint32_t foff, uint32_t fsize, const char* fname) {
        if (int64_t(off) < int64_t(foff) + fsize && int64_t(foff) < int64_t(off) + size && foff < first)
            first = foff, name = fname;
    };
    for (const loader::SpecialStruct& s : meta.fields.structs)
        overlap(s.off, s.size, s.name);
    for (const loader::KptrField& k : meta.fields.kptrs)
        overlap(k.off, 8, kptr_field_name(k));
    if (name)
        return env.fail(fmt::format("direct access to {} is disallowed", name));
    return true;
}

} // namespace strbpf::verifier
