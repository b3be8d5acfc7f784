// SPDX-License-Identifier: BSD-2-Clause
// struct_ops programs (verifier stage): the member of a kernel struct_ops type a program implements, resolved in
// kernel BTF as libbpf (find_struct_ops_kern_types, bpf_map__init_kern_struct_ops) and the kernel
// (check_struct_ops_btf_id, the struct's check_member) resolve it. The member's prototype types the ctx; the
// struct_ops types strbpf models and their per-type rules are a table.
#include <bpf/btf.h>
#include <fmt/format.h>

#include <cstring>

#include "loader/btf_view.hpp"
#include "loader/struct_ops.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

// What a registered struct_ops type's bpf_struct_ops and verifier_ops say beyond its BTF.
struct StructOpsRules {
    const char* name;
    // check_member: the members a sleepable program may implement (nullptr: the type has no check_member).
    std::initializer_list<const char*> sleepable_members;
    bool any_sleepable;
    // Members without a cfi stub (bpf_struct_ops_supported refuses them).
    std::initializer_list<const char*> unsupported;
    bool no_helpers; // verifier_ops without get_func_proto: every helper call is refused
    // is_valid_access retypes a ctx argument pointing to struct promote_from as promote_to (nullptr: none).
    const char* promote_from;
    const char* promote_to;
    // Helpers get_func_proto adds to the struct_ops type's base set whose arguments strbpf models.
    std::initializer_list<int32_t> extra_helpers;
};

// bpf_dummy_ops (net/bpf/bpf_dummy_struct_ops.c: no get_func_proto, only test_sleepable may sleep) and
// tcp_congestion_ops (net/ipv4/bpf_tcp_ca.c: no check_member, get_info has no stub, a struct sock argument is the
// tcp_sock it always is, bpf_ktime_get_coarse_ns#160 beside the base helpers; its socket and storage helpers,
// whose arguments are kernel sockets, are not modelled and stay refused).
const StructOpsRules kRules[] = {
    {"bpf_dummy_ops", {"test_sleepable"}, false, {}, true, nullptr, nullptr, {}},
    {"tcp_congestion_ops", {}, true, {"get_info"}, false, "sock", "tcp_sock", {160}},
};

const StructOpsRules* rules_of(const std::string& name) {
    for (const StructOpsRules& r : kRules)
        if (name == r.name)
            return &r;
    return nullptr;
}

bool listed(std::initializer_list<const char*> names, const std::string& name) {
    for (const char* n : names)
        if (name == n)
            return true;
    return false;
}

// libbpf's bpf_core_essential_name_len: the name without a ___flavour suffix.
std::string essential_name(const std::string& name) {
    const size_t pos = name.find("___");
    return pos == std::string::npos ? name : name.substr(0, pos);
}

const btf_type* resolved(BtfRef b, uint32_t id) {
    const int32_t r = btfv::resolve_type(b, id);
    return r > 0 ? btfv::type_by_id(b, uint32_t(r)) : nullptr;
}

// The member of struct T named NAME (libbpf's find_member_by_name); -1 when none.
int member_index(BtfRef b, const btf_type* t, const std::string& name) {
    const btf_member* m = btf_members(t);
    for (uint32_t i = 0; i < btf_vlen(t); i++)
        if (name == btfv::name_by_offset(b, m[i].name_off))
            return int(i);
    return -1;
}

// The kernel's cfi stub "<struct>__<member>" (bpf_struct_ops_desc_init's find_stub_func_proto): its parameters'
// __nullable suffixes give the ctx_arg_info (bits of BtfAttach::iter_args); a __ref one is refused as unmodelled.
bool stub_arg_info(Env& env, BtfRef b, const std::string& st, const std::string& member, uint64_t* info) {
    const int id = btfv::find_by_name_kind(b, (st + "__" + member).c_str(), BTF_KIND_FUNC);
    const btf_type* proto = id > 0 ? btfv::type_by_id(b, btfv::type_by_id(b, uint32_t(id))->type) : nullptr;
    if (!proto || !btf_is_func_proto(proto))
        return true;
    const btf_param* p = btf_params(proto);
    auto ends_with = [](const char* s, const char* suffix) {
        const size_t n = std::strlen(s), k = std::strlen(suffix);
        return n > k && std::strcmp(s + n - k, suffix) == 0;
    };
    for (uint32_t i = 0; i < btf_vlen(proto) && i < 16; i++) {
        const char* pname = btfv::name_by_offset(b, p[i].name_off);
        if (!pname)
            continue;
        if (ends_with(pname, "__nullable"))
            *info |= uint64_t(3) << (4 * i); // PTR_TRUSTED | PTR_TO_BTF_ID | PTR_MAYBE_NULL
        else if (ends_with(pname, "__ref"))
            return env.fail(fmt::format("program '{}': strbpf's verifier does not model referenced struct_ops "
                                        "arguments yet ({}.{} argument {} '{}')",
                                        env.facts.prog.name, st, member, i, pname));
    }
    return true;
}

// libbpf's side: the kernel's struct and its value type, the member by name, its kind.
bool libbpf_kern_member(Env& env, const loader::StructOpsUse& use, BtfAttach& a, const std::string& tname,
                        uint32_t* type_id) {
    BtfRef b = a.btf;
    const std::string value = "bpf_struct_ops_" + tname;
    if (btfv::find_by_name_kind(b, value.c_str(), BTF_KIND_STRUCT) <= 0)
        return env.fail(fmt::format("struct_ops init_kern: struct {} is not found in kernel BTF", value));
    const int id = btfv::find_by_name_kind(b, tname.c_str(), BTF_KIND_STRUCT);
    if (id <= 0)
        return env.fail(fmt::format("struct_ops init_kern: struct {} is not found in kernel BTF", tname));
    const btf_type* kt = btfv::type_by_id(b, uint32_t(id));
    const int i = member_index(b, kt, use.member);
    if (i < 0)
        return env.fail(fmt::format("struct_ops init_kern {}: Cannot find member {} in kernel BTF", use.map,
                                    use.member));
    const btf_type* km = resolved(b, btf_members(kt)[i].type);
    if (!km || !btf_is_ptr(km))
        return env.fail(fmt::format("struct_ops init_kern {}: Unmatched member type {} {} != {}(kernel)", use.map,
                                    use.member, BTF_KIND_PTR, km ? btf_kind(km) : 0));
    const btf_type* proto = resolved(b, km->type);
    if (!proto || !btf_is_func_proto(proto))
        return env.fail(fmt::format("struct_ops init_kern {}: kernel member {} is not a func ptr", use.map,
                                    use.member));
    a.proto = proto;
    *type_id = uint32_t(id);
    return true;
}

} // namespace

bool struct_ops_bound(Env& env) {
    const loader::StructOpsUse* use = loader::struct_ops_use(env.facts.inst.spec(), env.facts.prog.name);
    if (!use) // libbpf's check before it loads a struct_ops program
        return env.fail(fmt::format("prog '{}': SEC(\"struct_ops\") program isn't referenced anywhere, did you "
                                    "forget to use it?",
                                    env.facts.prog.name));
    return use->error.empty() || env.fail(use->error);
}

bool resolve_struct_ops(Env& env, BtfAttach& a) {
    const loader::StructOpsUse* found = loader::struct_ops_use(env.facts.inst.spec(), env.facts.prog.name);
    if (!found || !found->error.empty())
        return struct_ops_bound(env);
    const loader::StructOpsUse& use = *found;
    const std::string tname = essential_name(use.type);
    uint32_t type_id = 0;
    if (!libbpf_kern_member(env, use, a, tname, &type_id))
        return false;
    // check_struct_ops_btf_id: the value type exists, so the kernel registered the struct.
    if (!env.facts.gpl_compatible)
        return env.fail("struct ops programs must have a GPL compatible license");
    const StructOpsRules* rules = rules_of(tname);
    if (!rules)
        return env.fail(fmt::format("program '{}': strbpf's verifier does not model struct_ops type '{}' yet (its "
                                    "verifier_ops and member rules are not in strbpf's table)",
                                    env.facts.prog.name, tname));
    if (listed(rules->unsupported, use.member) ||
        (env.facts.prog.sleepable && !rules->any_sleepable && !listed(rules->sleepable_members, use.member)))
        return env.fail(fmt::format("attach to unsupported member {} of struct {}", use.member, tname));
    if (!stub_arg_info(env, a.btf, tname, use.member, &a.iter_args))
        return false;
    a.btf_id = type_id;
    a.name = use.member; // attach_func_name
    a.struct_ops = true;
    a.struct_ops_no_helpers = rules->no_helpers;
    a.struct_ops_helpers.assign(rules->extra_helpers.begin(), rules->extra_helpers.end());
    a.args_trusted = true; // prog_args_trusted: every struct_ops program
    if (rules->promote_from) {
        const int from = btfv::find_by_name_kind(a.btf, rules->promote_from, BTF_KIND_STRUCT);
        const int to = btfv::find_by_name_kind(a.btf, rules->promote_to, BTF_KIND_STRUCT);
        if (from > 0 && to > 0)
            a.promote_from = uint32_t(from), a.promote_to = uint32_t(to);
    }
    a.void_ret = a.proto->type == 0;
    return true;
}

} // namespace strbpf::verifier
