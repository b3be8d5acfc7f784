// SPDX-License-Identifier: BSD-2-Clause
// The C API's extensions (api stage): strbpf.h's plain structs turned into the C++ API's HelperDef, KfuncDef and
// ProgramTypeDef, read up to their declared size.
#include <cerrno>

#include "api/c_handles.hpp"
#include "strbpf/extensions.hpp"
#include "strbpf/strbpf.h"

namespace {

using strbpf::capi::fail;
using strbpf::capi::read_opts;
using strbpf::capi::status;

constexpr int kArgKinds = STRBPF_ARG_PTR_TO_LONG + 1;

} // namespace

extern "C" {

strbpf_extensions* strbpf_extensions_new(void* user) { return new strbpf_extensions{strbpf::Extensions(user)}; }
void strbpf_extensions_free(strbpf_extensions* ext) { delete ext; }

void* strbpf_call_user(const strbpf_call* call) {
    return strbpf::call_user(reinterpret_cast<const strbpf::CallContext*>(call));
}

int strbpf_extensions_add_helper(strbpf_extensions* ext, const strbpf_helper_def* in) {
    if (!ext || !in)
        return fail("extensions or def is NULL");
    const strbpf_helper_def d = read_opts(in);
    strbpf::HelperDef def;
    def.name = d.name ? d.name : "";
    def.id = d.id;
    def.fn = reinterpret_cast<strbpf::HelperFn>(d.fn); // strbpf_call* and CallContext* are the same pointer
    if (int(d.ret) < STRBPF_RET_INTEGER || int(d.ret) > STRBPF_RET_MAP_VALUE_OR_NULL)
        return fail("helper '" + def.name + "': unknown return kind");
    def.ret = static_cast<strbpf::RetKind>(d.ret);
    if (d.has_ret_range)
        def.ret_range = strbpf::ReturnRange{d.ret_min, d.ret_max};
    for (int i = 0; i < 5; i++) {
        if (int(d.args[i]) < 0 || int(d.args[i]) >= kArgKinds)
            return fail("helper '" + def.name + "': unknown argument kind");
        def.args[size_t(i)] = static_cast<strbpf::ArgKind>(d.args[i]);
    }
    def.gpl_only = d.gpl_only != 0;
    if (d.n_kernel_prog_types && !d.kernel_prog_types)
        return fail("helper '" + def.name + "': kernel_prog_types is NULL");
    def.kernel_prog_types.assign(d.kernel_prog_types, d.kernel_prog_types + d.n_kernel_prog_types);
    return status(ext->ext.add_helper(def));
}

int strbpf_extensions_add_prog_type(strbpf_extensions* ext, const strbpf_prog_type_def* in) {
    if (!ext || !in)
        return fail("extensions or def is NULL");
    const strbpf_prog_type_def d = read_opts(in);
    strbpf::ProgramTypeDef def;
    def.name = d.name ? d.name : "";
    def.section = d.section ? d.section : "";
    def.ctx_size = d.ctx_size;
    if ((d.n_fields && !d.fields) || (d.n_helpers && !d.helpers))
        return fail("program type '" + def.name + "': fields or helpers is NULL");
    for (size_t i = 0; i < d.n_fields; i++)
        def.fields.push_back({d.fields[i].offset, d.fields[i].size, d.fields[i].writable != 0});
    if (d.has_ret_range)
        def.ret_range = strbpf::ReturnRange{d.ret_min, d.ret_max};
    def.helpers.assign(d.helpers, d.helpers + d.n_helpers);
    if (d.n_kfuncs && !d.kfuncs)
        return fail("program type '" + def.name + "': kfuncs is NULL");
    for (size_t i = 0; i < d.n_kfuncs; i++)
        def.kfuncs.emplace_back(d.kfuncs[i] ? d.kfuncs[i] : "");
    return status(ext->ext.add_program_type(def));
}

int strbpf_extensions_add_kfunc(strbpf_extensions* ext, const strbpf_kfunc_def* in) {
    if (!ext || !in)
        return fail("extensions or def is NULL");
    const strbpf_kfunc_def d = read_opts(in);
    strbpf::KfuncDef def;
    def.name = d.name ? d.name : "";
    def.fn = reinterpret_cast<strbpf::HelperFn>(d.fn);
    if ((d.n_args && !d.args) || (d.n_kernel_prog_types && !d.kernel_prog_types))
        return fail("kfunc '" + def.name + "': args or kernel_prog_types is NULL");
    if (d.n_args > 5)
        return fail("kfunc '" + def.name + "': at most 5 arguments");
    for (size_t i = 0; i < d.n_args; i++) {
        if (int(d.args[i].kind) < STRBPF_KFUNC_ARG_SCALAR || int(d.args[i].kind) > STRBPF_KFUNC_ARG_CTX)
            return fail("kfunc '" + def.name + "': unknown argument kind");
        def.args.push_back({static_cast<strbpf::KfuncArgKind>(d.args[i].kind), d.args[i].mem_size,
                            d.args[i].nullable != 0});
    }
    if (int(d.ret) < STRBPF_KFUNC_RET_INTEGER || int(d.ret) > STRBPF_KFUNC_RET_MEM)
        return fail("kfunc '" + def.name + "': unknown return kind");
    def.ret = static_cast<strbpf::KfuncRet>(d.ret);
    def.ret_size = d.ret_size;
    def.flags = d.flags;
    def.kernel_prog_types.assign(d.kernel_prog_types, d.kernel_prog_types + d.n_kernel_prog_types);
    return status(ext->ext.add_kfunc(def));
}

} // extern "C"
