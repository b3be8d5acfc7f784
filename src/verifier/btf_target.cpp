// SPDX-License-Identifier: BSD-2-Clause
// Kernel BTF as the verifier's target (verifier stage): loading it once per process, and resolving a BTF-typed
// program's attach target as libbpf (the BTF id of the name its section gives) and the kernel
// (bpf_check_attach_target, check_attach_btf_id, bpf_lsm_verify_prog) do. Tables of the kernel's hook sets are data.
#include <algorithm>
#include <bpf/btf.h>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "loader/btf_view.hpp"
#include "verifier/btf_lists.hpp"
#include "verifier/btf_probe.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

constexpr const char* kRunningKernelBtf = "/sys/kernel/btf/vmlinux";

struct BtfCache {
    std::mutex mu;
    std::string default_path;
    bool kallsyms_read = false;
    std::unordered_set<std::string> kallsyms;
};

BtfCache& cache() {
    static BtfCache c;
    return c;
}

using loader::AttachType;

// kallsyms_lookup_name: whether the running kernel has the symbol (read once; only asked of its own BTF).
bool kernel_has_symbol(const std::string& name) {
    BtfCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    if (!c.kallsyms_read) {
        c.kallsyms_read = true;
        std::ifstream in("/proc/kallsyms");
        std::string addr, kind, sym;
        while (in >> addr >> kind >> sym) {
            std::string rest;
            std::getline(in, rest); // "[module]"
            c.kallsyms.insert(sym);
        }
    }
    return c.kallsyms.empty() || c.kallsyms.count(name) > 0;
}

// The size btf_distill_func_proto's __get_type_size gives a parameter or return type; -1 when unsupported.
int64_t model_size(BtfRef b, uint32_t id, const btf_type** out) {
    if (id == 0) {
        *out = nullptr;
        return 0;
    }
    const btf_type* t = btfv::type_by_id(b, id);
    while (t && (btf_is_mod(t) || btf_is_typedef(t)))
        t = btfv::type_by_id(b, t->type);
    *out = t;
    if (!t)
        return -1;
    if (btf_is_ptr(t))
        return 8;
    if (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t) || btf_is_struct(t) || btf_is_union(t))
        return t->size;
    return -1;
}


// btf_distill_func_proto's complaints about a target function.
bool distill_func_proto(Env& env, const BtfAttach& a) {
    BtfRef b = a.btf;
    const uint32_t n = btf_vlen(a.proto);
    if (n > 12)
        return env.fail(fmt::format("The function {} has {} arguments. Too many.", a.name, n));
    const btf_type* t = nullptr;
    const int64_t ret = model_size(b, a.proto->type, &t);
    if (ret < 0 || (t && (btf_is_struct(t) || btf_is_union(t))))
        return env.fail(fmt::format("The function {} return type {} is unsupported.", a.name, btf_kind_str(t)));
    const btf_param* p = btf_params(a.proto);
    for (uint32_t i = 0; i < n; i++) {
        if (i == n - 1 && p[i].type == 0)
            return env.fail(fmt::format("The function {} with variable args is unsupported.", a.name));
        const int64_t sz = model_size(b, p[i].type, &t);
        if (sz < 0 || sz > 16)
            return env.fail(fmt::format("The function {} arg{} type {} is unsupported.", a.name, i, btf_kind_str(t)));
        if (sz == 0)
            return env.fail(fmt::format("The function {} has malformed void argument.", a.name));
    }
    return true;
}

std::string attach_name(const loader::ProgramSpec& prog) {
    const size_t slash = prog.section.find('/');
    return slash == std::string::npos ? std::string() : prog.section.substr(slash + 1);
}

bool libbpf_not_found(Env& env, const std::string& name) {
    return env.fail(
        fmt::format("prog '{}': failed to find kernel BTF type ID of '{}': -ESRCH", env.facts.prog.name, name));
}

bool resolve_tp_btf(Env& env, BtfAttach& a) {
    const int id = btfv::find_by_name_kind(a.btf, ("btf_trace_" + a.name).c_str(), BTF_KIND_TYPEDEF);
    if (id <= 0)
        return libbpf_not_found(env, a.name);
    a.btf_id = uint32_t(id);
    const btf_type* ptr = btfv::type_by_id(a.btf, btfv::type_by_id(a.btf, a.btf_id)->type);
    a.proto = ptr && btf_is_ptr(ptr) ? btfv::type_by_id(a.btf, ptr->type) : nullptr;
    if (!a.proto || !btf_is_func_proto(a.proto) || btf_vlen(a.proto) == 0)
        return env.fail(fmt::format("attach_btf_id {} is not a typedef", a.btf_id));
    a.trace = true;
    a.args_trusted = true;
    a.null_mask = raw_tp_null_mask(a.name);
    return true;
}

bool resolve_func(Env& env, BtfAttach& a, const std::string& btf_name) {
    const int id = btfv::find_by_name_kind(a.btf, btf_name.c_str(), BTF_KIND_FUNC);
    if (id <= 0)
        return libbpf_not_found(env, btf_name);
    a.btf_id = uint32_t(id);
    a.name = btf_name;
    a.proto = btfv::type_by_id(a.btf, btfv::type_by_id(a.btf, a.btf_id)->type);
    if (!a.proto || !btf_is_func_proto(a.proto))
        return env.fail(fmt::format("attach_btf_id {} is not a function", a.btf_id));
    a.void_ret = a.proto->type == 0;
    if (!distill_func_proto(env, a))
        return false;
    const btf_type* ret = nullptr;
    if (model_size(a.btf, a.proto->type, &ret) > 8)
        return env.fail(fmt::format("Attach to function {} with a >8 byte return value is not supported for this "
                                    "attach type",
                                    a.name));
    if (env.facts.attach_on_running_kernel && !kernel_has_symbol(a.name))
        return env.fail(fmt::format("The address of function {} cannot be found", a.name));
    return true;
}

// An iterator program (bpf_check_attach_target's BPF_TRACE_ITER, bpf_iter_prog_supported): the FUNC
// bpf_iter_<target>, whose prototype types the ctx, and the target's ctx_arg_info.
bool resolve_iter(Env& env, BtfAttach& a) {
    const std::string target = a.name;
    const int id = btfv::find_by_name_kind(a.btf, ("bpf_iter_" + target).c_str(), BTF_KIND_FUNC);
    if (id <= 0)
        return libbpf_not_found(env, "bpf_iter_" + target);
    a.btf_id = uint32_t(id);
    a.name = "bpf_iter_" + target;
    a.proto = btfv::type_by_id(a.btf, btfv::type_by_id(a.btf, a.btf_id)->type);
    if (!a.proto || !btf_is_func_proto(a.proto))
        return env.fail(fmt::format("attach_btf_id {} is not a function", a.btf_id));
    if (!distill_func_proto(env, a))
        return false;
    if (!iter_target(target, &a.iter_args))
        return env.fail(fmt::format("program '{}': strbpf does not model the ctx of iterator target '{}' (its fields "
                                    "are not all kernel objects, or Linux 6.18 registers no such target)",
                                    env.facts.prog.name, target));
    a.iter = true;
    a.args_trusted = true; // prog_args_trusted: BPF_TRACE_ITER
    return true;
}

bool check_lsm(Env& env, BtfAttach& a) {
    if (env.facts.prog.sleepable && !lsm_hook_sleepable(a.name))
        return env.fail(fmt::format("{} is not sleepable", a.name));
    if (!env.facts.gpl_compatible)
        return env.fail("LSM programs must have a GPL compatible license");
    if (lsm_hook_disabled(a.name))
        return env.fail(fmt::format("attach_btf_id {} points to disabled hook {}", a.btf_id, a.name));
    if (!lsm_is_hook(a.name))
        return env.fail(fmt::format("attach_btf_id {} points to wrong type name {}", a.btf_id, a.name));
    a.args_trusted = !lsm_hook_untrusted(a.name);
    if (a.proto->type != 0) { // bpf_lsm_get_retval_range: void hooks have none
        a.has_retval_range = true;
        a.ret_min = lsm_hook_bool(a.name) ? 0 : -4095; // -MAX_ERRNO
        a.ret_max = lsm_hook_bool(a.name) ? 1 : 0;
    }
    return true;
}

// Sleepable fentry/fexit/fmod_ret programs and fmod_ret outside the security_ functions and the fmodret kfunc set
// (bpf_check_attach_target: btf_kfunc_is_modify_return, else check_attach_modify_return) need their target on the
// kernel's error-injection list, which strbpf cannot read: refused naming that (after the running kernel's own
// refusal of every trampoline program, when it has one).
std::string error_injection_unmodelled(const loader::ProgramSpec& prog) {
    if (prog.type != loader::ProgType::tracing || prog.expected_attach_type == AttachType::trace_raw_tp ||
        prog.expected_attach_type == AttachType::trace_iter)
        return {};
    const char* what = nullptr;
    if (prog.sleepable)
        what = "sleepable fentry/fexit/fmod_ret programs";
    else if (prog.expected_attach_type == AttachType::modify_return && attach_name(prog).rfind("security_", 0) != 0 &&
             !fmodret_kfunc(attach_name(prog)))
        what = "fmod_ret programs outside security_ functions and the fmodret kfunc set";
    if (!what)
        return {};
    return fmt::format("program '{}': strbpf's verifier does not model {} yet (their targets must be on the "
                       "kernel's error-injection list)",
                       prog.name, what);
}

bool check_tracing_func(Env& env, const BtfAttach& a) {
    if (tracing_denied(a.name))
        return env.fail(fmt::format("Attaching tracing programs to function '{}' is rejected.", a.name));
    const AttachType at = env.facts.prog.expected_attach_type;
    if ((at == AttachType::trace_fexit || at == AttachType::modify_return) && noreturn_denied(a.name))
        return env.fail("Attaching fexit/fmod_ret to __noreturn functions is rejected.");
    return true;
}

} // namespace

void set_target_btf_path(std::string path) {
    BtfCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    c.default_path = std::move(path);
}

BtfRef target_btf(std::string* error, bool* running) {
    std::string path;
    {
        BtfCache& c = cache();
        std::lock_guard<std::mutex> lock(c.mu);
        path = !c.default_path.empty() ? c.default_path : kRunningKernelBtf;
    }
    *running = path == kRunningKernelBtf;
    auto b = kernel_btf(path);
    if (b)
        return *b;
    if (error)
        *error = fmt::format("cannot read kernel BTF {}: {}", path, b.error().message);
    return nullptr;
}

bool btf_typed(const loader::ProgramSpec& prog) { return btf_unmodelled_reason(prog).empty(); }

// The BTF-typed programs strbpf does not model yet: extensions, lsm_cgroup, fsession (and,
// found when the target is resolved, sleepable tracing programs and fmod_ret outside the security_ functions).
std::string btf_unmodelled_reason(const loader::ProgramSpec& prog) {
    using loader::ProgType;
    const AttachType at = prog.expected_attach_type;
    const char* what = nullptr;
    if (prog.type == ProgType::tracing) {
        if (at != AttachType::trace_iter && at != AttachType::trace_raw_tp && at != AttachType::trace_fentry && at != AttachType::trace_fexit &&
                 at != AttachType::modify_return)
            what = "programs of this attach type";
    } else if (prog.type == ProgType::lsm) {
        if (at != AttachType::lsm_mac)
            what = "lsm_cgroup programs";
    } else if (prog.type == ProgType::ext) {
        what = "programs of this type";
    } else if (prog.type == ProgType::struct_ops) {
        return {};
    } else {
        return "not typed by kernel BTF";
    }
    if (!what)
        return {};
    return fmt::format("program '{}': {} programs (section '{}') are typed by kernel BTF; strbpf's verifier does not "
                       "model {} yet",
                       prog.name, loader::prog_type_name(prog.type), prog.section, what);
}

bool resolve_attach_target(Env& env) {
    if (env.facts.prog.type == loader::ProgType::struct_ops && !struct_ops_bound(env))
        return false;
    std::string error;
    BtfAttach a;
    a.btf = target_btf(&error, &env.setup_facts().attach_on_running_kernel);
    if (!a.btf)
        return env.fail(fmt::format("program '{}': {} programs are verified against kernel BTF: {} (pass --btf "
                                    "FILE with a vmlinux BTF)",
                                    env.facts.prog.name, loader::prog_type_name(env.facts.prog.type), error));
    if (env.facts.prog.type == loader::ProgType::struct_ops) {
        if (!resolve_struct_ops(env, a))
            return false;
        env.setup_facts().attach = std::make_shared<BtfAttach>(std::move(a));
        return true;
    }
    a.name = attach_name(env.facts.prog);
    if (a.name.empty())
        return env.fail(fmt::format("prog '{}': section '{}' names no attach target", env.facts.prog.name,
                                    env.facts.prog.section));
    const AttachType at = env.facts.prog.expected_attach_type;
    if (env.facts.attach_on_running_kernel && at != AttachType::trace_raw_tp && at != AttachType::trace_iter) {
        if (const int err = trampoline_load_errno(a.btf, env.facts.prog.type == loader::ProgType::lsm); err != 0)
            return env.fail(fmt::format("the running kernel loads no {} programs that attach through a BPF "
                                        "trampoline (fentry/fexit/fmod_ret/lsm): BPF_PROG_LOAD fails with {}",
                                        loader::prog_type_name(env.facts.prog.type), std::strerror(err)));
    }
    if (const std::string why = error_injection_unmodelled(env.facts.prog); !why.empty())
        return env.fail(why);
    bool ok = false;
    if (at == AttachType::trace_raw_tp) {
        ok = resolve_tp_btf(env, a);
    } else if (at == AttachType::trace_iter) {
        ok = resolve_iter(env, a);
    } else if (env.facts.prog.type == loader::ProgType::lsm) {
        ok = resolve_func(env, a, "bpf_lsm_" + a.name) && check_lsm(env, a);
    } else {
        ok = resolve_func(env, a, a.name) && check_tracing_func(env, a);
    }
    if (ok)
        env.setup_facts().attach = std::make_shared<BtfAttach>(std::move(a));
    return ok;
}

} // namespace strbpf::verifier
