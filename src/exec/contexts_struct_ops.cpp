// SPDX-License-Identifier: BSD-2-Clause
// struct_ops test runs (exec stage), as 6.18's bpf_struct_ops_test_run (net/bpf/bpf_dummy_struct_ops.c) runs them:
// only programs implementing a member of bpf_dummy_ops (test_1, test_2, test_sleepable) are test-run (-EOPNOTSUPP
// for any other struct). ctx_in is the member's arguments as u64s, exactly one per parameter of its prototype
// (-EINVAL otherwise); args[0] is a pointer into the caller's memory to a struct bpf_dummy_ops_state, which the
// run copies in (-EFAULT when it cannot be read; 0: the state argument is NULL) and the program gets a pointer to
// that copy; a 0 given for a pointer parameter the member's stub does not mark __nullable is -EINVAL. The program
// runs once (the member called through its trampoline), the state is copied back to the caller (-EFAULT), and the
// retval is the program's return as the member's int. No duration, data_out or ctx_out; data_in, flags, cpu and
// repeat are not looked at.
// The caller's memory is read and written with process_vm_readv/writev on this process, which fail (EFAULT) for
// memory that is not mapped as asked: a bad pointer is the kernel's -EFAULT, never a fault of strbpf.
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include <bpf/btf.h>
#include <fmt/format.h>

#include "exec/contexts.hpp"
#include "loader/btf_view.hpp"
#include "loader/struct_ops.hpp"
#include "verifier/btf_target.hpp"

namespace strbpf::exec {
namespace {

using runtime::Region;
using runtime::RegionKind;

constexpr size_t kMaxArgs = 12; // MAX_BPF_FUNC_ARGS
constexpr size_t kMaxState = 64;

const btf_type* skip_mods(BtfRef b, uint32_t id) {
    const btf_type* t = btfv::type_by_id(b, id);
    while (t && (btf_is_mod(t) || btf_is_typedef(t)))
        t = btfv::type_by_id(b, t->type);
    return t;
}

// The member's prototype in the target BTF, and which of its parameters are pointers and which of those the
// kernel's cfi stub (<struct>__<member>) names __nullable.
struct MemberProto {
    uint32_t nargs = 0;
    bool ptr[kMaxArgs] = {};
    bool nullable[kMaxArgs] = {};
    uint32_t state_size = 0; // the struct parameter 0 points at
};

Status member_proto(const std::string& tname, const std::string& member, MemberProto* out) {
    std::string error;
    bool running = false;
    BtfRef b = verifier::target_btf(&error, &running);
    if (!b)
        return make_error("struct_ops test run: " + error);
    const int sid = btfv::find_by_name_kind(b, tname.c_str(), BTF_KIND_STRUCT);
    const btf_type* st = sid > 0 ? btfv::type_by_id(b, uint32_t(sid)) : nullptr;
    const btf_type* proto = nullptr;
    for (uint16_t i = 0; st && i < btf_vlen(st); i++)
        if (member == btfv::name_by_offset(b, btf_members(st)[i].name_off))
            if (const btf_type* p = skip_mods(b, btf_members(st)[i].type); p && btf_is_ptr(p))
                proto = skip_mods(b, p->type);
    if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) > kMaxArgs)
        return make_error(
            fmt::format("struct_ops test run: no member {} of struct {} in the target BTF", member, tname));
    out->nargs = btf_vlen(proto);
    for (uint32_t i = 0; i < out->nargs; i++) {
        const btf_type* t = skip_mods(b, btf_params(proto)[i].type);
        out->ptr[i] = t && btf_is_ptr(t);
        if (i == 0 && out->ptr[0])
            if (const btf_type* s = skip_mods(b, t->type); s && btf_is_struct(s))
                out->state_size = std::min<uint32_t>(s->size, kMaxState);
    }
    const int stub = btfv::find_by_name_kind(b, (tname + "__" + member).c_str(), BTF_KIND_FUNC);
    const btf_type* sp = stub > 0 ? btfv::type_by_id(b, btfv::type_by_id(b, uint32_t(stub))->type) : nullptr;
    for (uint32_t i = 0; sp && btf_is_func_proto(sp) && i < btf_vlen(sp) && i < kMaxArgs; i++) {
        const std::string_view name = btfv::name_by_offset(b, btf_params(sp)[i].name_off);
        out->nullable[i] = name.ends_with("__nullable");
    }
    return ok_status();
}

bool copy_self(void* local, uint64_t remote, size_t n, bool write) {
    iovec l{local, n}, r{reinterpret_cast<void*>(remote), n};
    const ssize_t got =
        write ? process_vm_writev(getpid(), &l, 1, &r, 1, 0) : process_vm_readv(getpid(), &l, 1, &r, 1, 0);
    return got == ssize_t(n);
}

// What one run owns: the ctx (the member's arguments) and the kernel's copy of the caller's state.
struct StructOpsState {
    alignas(8) uint64_t slot[kMaxArgs] = {};
    alignas(8) uint8_t state[kMaxState] = {};
};

} // namespace

Status struct_ops_test_run(const loader::ObjectSpec& obj, const loader::ProgramSpec& prog, const RunRequest& req,
                           runtime::RunContext& ctx, const TracingRun& run, uint32_t* retval) {
    *retval = 0;
    const loader::StructOpsUse* use = loader::struct_ops_use(obj, prog.name);
    const std::string tname = use ? use->type.substr(0, use->type.find("___")) : std::string();
    if (tname != "bpf_dummy_ops")
        return make_error(fmt::format("the kernel test-runs struct_ops programs of bpf_dummy_ops only, not of {} "
                                      "(it answers -EOPNOTSUPP)",
                                      tname.empty() ? "an unnamed struct" : tname),
                          -95);
    MemberProto mp;
    STRBPF_TRY(member_proto(tname, use->member, &mp));
    if (req.ctx_in.size() != size_t(mp.nargs) * 8)
        return make_error(fmt::format("bpf_dummy_ops.{} takes {} u64 arguments in ctx_in ({} bytes), not {} bytes "
                                      "(the kernel answers -EINVAL)",
                                      use->member, mp.nargs, mp.nargs * 8, req.ctx_in.size()),
                          -22);
    auto s = std::make_unique<StructOpsState>();
    uint64_t args[kMaxArgs] = {};
    std::memcpy(args, req.ctx_in.data(), req.ctx_in.size());
    if (args[0] && !copy_self(s->state, args[0], mp.state_size, false))
        return make_error(
            fmt::format("cannot read the {}-byte state at {:#x} (the kernel answers -EFAULT)", mp.state_size, args[0]),
            -14);
    for (uint32_t i = 0; i < mp.nargs; i++)
        if (!args[i] && mp.ptr[i] && !mp.nullable[i])
            return make_error(fmt::format("argument {} of bpf_dummy_ops.{} is a pointer its stub does not mark "
                                          "__nullable, and ctx_in gives 0 (the kernel answers -EINVAL)",
                                          i, use->member),
                              -22);
    std::memcpy(s->slot, args, sizeof args);
    if (args[0])
        s->slot[0] = reinterpret_cast<uint64_t>(s->state);
    const RegionsUntilReturn regions(ctx.mem); // they point into *s, which dies with this call
    if (!ctx.mem.add_local(
            Region{reinterpret_cast<uint64_t>(s->slot), mp.nargs * 8u, runtime::kPermRead, RegionKind::ctx, "ctx"}) ||
        !ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(s->state), mp.state_size, runtime::kPermRW,
                                  RegionKind::other, "struct bpf_dummy_ops_state"}))
        return make_error("too many memory regions for a struct_ops test run");
    uint64_t r0 = 0;
    STRBPF_TRY(run(reinterpret_cast<uint64_t>(s->slot), &r0));
    if (args[0] && !copy_self(s->state, args[0], mp.state_size, true))
        return make_error(fmt::format("cannot write the state back to {:#x} (the kernel answers -EFAULT)", args[0]),
                          -14);
    *retval = uint32_t(r0); // the member's int return
    return ok_status();
}

Status called_test_run(const loader::ObjectSpec& obj, const loader::ProgramSpec& prog, const RunRequest& req,
                       runtime::RunContext& ctx, const TracingRun& run, uint32_t* retval) {
    return prog.type == loader::ProgType::tracing ? tracing_test_run(prog, req, ctx, run, retval)
                                                  : struct_ops_test_run(obj, prog, req, ctx, run, retval);
}

} // namespace strbpf::exec
