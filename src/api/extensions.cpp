// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's extensions (api stage): the public rows of include/strbpf/extensions.hpp (helpers, kfuncs,
// program types) turned into the runtime's (runtime/extensions.hpp), which the linker, the verifier and the engines read.
#include "strbpf/extensions.hpp"

#include "api/extensions_impl.hpp"
#include "runtime/context.hpp"
#include "runtime/instance.hpp"
#include "strbpf/strbpf.h"

namespace strbpf {
namespace {

runtime::ArgKind arg_kind(ArgKind k) {
    using R = runtime::ArgKind;
    switch (k) {
    case ArgKind::none: return R::none;
    case ArgKind::anything: return R::anything;
    case ArgKind::scalar: return R::scalar;
    case ArgKind::ptr_to_mem: return R::ptr_to_mem;
    case ArgKind::ptr_to_mem_rdonly: return R::ptr_to_mem_rdonly;
    case ArgKind::ptr_to_mem_rdonly_or_null: return R::ptr_to_mem_rdonly_or_null;
    case ArgKind::ptr_to_uninit_mem: return R::ptr_to_uninit_mem;
    case ArgKind::const_size: return R::const_size;
    case ArgKind::const_size_or_zero: return R::const_size_or_zero;
    case ArgKind::ptr_to_const_str: return R::ptr_to_const_str;
    case ArgKind::ptr_to_ctx: return R::ptr_to_ctx;
    case ArgKind::const_map_ptr: return R::const_map_ptr;
    case ArgKind::ptr_to_map_key: return R::ptr_to_map_key;
    case ArgKind::ptr_to_map_value: return R::ptr_to_map_value;
    case ArgKind::ptr_to_stack_or_null: return R::ptr_to_stack_or_null;
    case ArgKind::ptr_to_long: return R::ptr_to_long;
    }
    return R::ptr_to_btf_id; // not a value of ArgKind: refused as a kind embedders may not use
}

runtime::RetKind ret_kind(RetKind k) {
    switch (k) {
    case RetKind::integer: return runtime::RetKind::integer;
    case RetKind::void_: return runtime::RetKind::void_;
    case RetKind::map_value_or_null: return runtime::RetKind::map_value_or_null;
    }
    return runtime::RetKind::ptr_to_btf_id; // refused likewise
}

std::optional<runtime::ExtRange> range(const std::optional<ReturnRange>& r) {
    if (!r)
        return std::nullopt;
    return runtime::ExtRange{r->min, r->max};
}

} // namespace

void* call_user(const CallContext* call) {
    const auto* ctx = reinterpret_cast<const runtime::RunContext*>(call);
    const runtime::Extensions* ext = ctx && ctx->instance ? ctx->instance->extensions() : nullptr;
    return ext ? ext->user() : nullptr;
}

Extensions::Extensions(void* user) : impl_(std::make_shared<Impl>(user)) {}
Extensions::Extensions(const Extensions&) = default;
Extensions& Extensions::operator=(const Extensions&) = default;
Extensions::~Extensions() = default;

Status Extensions::add_helper(const HelperDef& def) {
    std::array<runtime::ArgKind, 5> args{};
    for (size_t i = 0; i < args.size(); i++)
        args[i] = arg_kind(def.args[i]);
    runtime::ProgTypeSet kernel = 0;
    for (uint32_t t : def.kernel_prog_types) {
        if (t == 0 || t > 32)
            return make_error("helper '" + def.name + "': kernel program types are enum bpf_prog_type values 1..32");
        kernel |= runtime::ProgTypeSet(1) << t;
    }
    // The embedder's function has the built-ins' native signature: its CallContext* is the run's RunContext*.
    return impl_->ext->add_helper(def.name, def.id, reinterpret_cast<runtime::HelperFn>(def.fn), ret_kind(def.ret),
                                  args, range(def.ret_range), def.gpl_only, kernel);
}

Status Extensions::add_program_type(const ProgramTypeDef& def) {
    std::vector<runtime::ExtCtxField> fields;
    for (const CtxField& f : def.fields)
        fields.push_back({f.offset, f.size, f.writable});
    return impl_->ext->add_prog_type(def.name, def.section, def.ctx_size, std::move(fields), range(def.ret_range),
                                    def.helpers, def.kfuncs);
}

Status Extensions::add_kfunc(const KfuncDef& def) {
    runtime::ExtKfunc k;
    k.name = def.name;
    k.fn = reinterpret_cast<runtime::HelperFn>(def.fn); // CallContext* is the run's RunContext*, as for helpers
    for (const KfuncArg& a : def.args)
        k.params.push_back({static_cast<runtime::ExtKfuncArg>(a.kind), a.mem_size, a.nullable});
    k.ret = static_cast<runtime::ExtKfuncRet>(def.ret);
    k.ret_size = def.ret_size;
    k.flags = def.flags;
    for (uint32_t t : def.kernel_prog_types) {
        if (t == 0 || t > 32)
            return make_error("kfunc '" + def.name + "': kernel program types are enum bpf_prog_type values 1..32");
        k.kernel_types |= runtime::ProgTypeSet(1) << t;
    }
    return impl_->ext->add_kfunc(std::move(k));
}

} // namespace strbpf

// The public kinds are the runtime's, in the same order.
static_assert(int(strbpf::KfuncArgKind::ctx) == int(strbpf::runtime::ExtKfuncArg::ctx) &&
              int(strbpf::KfuncArgKind::const_size) == int(strbpf::runtime::ExtKfuncArg::const_size) &&
              int(strbpf::KfuncRet::mem) == int(strbpf::runtime::ExtKfuncRet::mem) &&
              strbpf::kKfRetNull == strbpf::runtime::kExtKfRetNull &&
              strbpf::kKfTrustedArgs == strbpf::runtime::kExtKfTrustedArgs && strbpf::kKfRcu == strbpf::runtime::kExtKfRcu &&
              STRBPF_KF_TRUSTED_ARGS == strbpf::kKfTrustedArgs && STRBPF_KF_RCU == strbpf::kKfRcu);
