// SPDX-License-Identifier: BSD-2-Clause
// Return-value rules (verifier stage): what R0 may hold at the exit of the program, of a global subprogram and of
// a callback, as the kernel's check_return_code() and prepare_func_exit() enforce them per program type and
// expected attach type, with their messages.
#include <fmt/format.h>
#include <initializer_list>
#include <limits>

#include "verifier/btf_target.hpp"
#include "verifier/env.hpp"
#include "verifier/ext_protos.hpp"
#include "verifier/timer.hpp"

namespace strbpf::verifier {
namespace {

// enum bpf_prog_type values beyond the ones loader::ProgType names (the kernel's UAPI numbers).
enum : uint32_t {
    kProgCgroupSkb = 8,
    kProgCgroupSock = 9,
    kProgSockOps = 13,
    kProgCgroupDevice = 15,
    kProgCgroupSockAddr = 18,
    kProgCgroupSysctl = 23,
    kProgCgroupSockopt = 25,
    kProgSkLookup = 30,
    kProgNetfilter = 32,
};

bool is_one_of(uint32_t v, std::initializer_list<uint32_t> set) {
    for (uint32_t x : set)
        if (x == v)
            return true;
    return false;
}

// check_return_code for tracing, lsm and struct_ops programs: fentry/fexit return 0; tp_btf, fmod_ret and struct_ops
// anything; lsm hooks that return int a value in bpf_lsm_get_retval_range (compared as 32 bits); void hooks and
// members are not checked at all.
bool check_btf_return_code(Env& env) {
    const BtfAttach& a = *env.facts.attach;
    const bool lsm = env.facts.prog.type == loader::ProgType::lsm;
    if ((lsm || a.struct_ops) && a.void_ret)
        return true;
    if (!check_reg_init(env, 0))
        return false;
    if (a.struct_ops) // any value: the member's caller takes it (and a privileged program may return a pointer)
        return true;
    const Reg& r0 = env.path.cur.frames[0].regs[0];
    const loader::AttachType at = env.facts.prog.expected_attach_type;
    RetvalRange range{0, 0};
    if (lsm) {
        if (!a.has_retval_range)
            return true;
        range = {a.ret_min, a.ret_max};
    } else if (at == loader::AttachType::trace_iter) {
        range = {0, 1};
    } else if (at != loader::AttachType::trace_fentry && at != loader::AttachType::trace_fexit) {
        return true;
    }
    if (r0.type != RegType::scalar)
        return env.fail(fmt::format("At program exit the register R0 is not a known value ({})", reg_type_str(r0)));
    mark_reg_precise(env, 0);
    if (lsm) { // retval_range_within on the 32-bit bounds
        if (r0.s32min >= range.lo && r0.s32max <= range.hi)
            return true;
        return env.fail(invalid_scalar_msg(r0, "At program exit", "R0", range.lo, range.hi)); // 64-bit bounds printed
    }
    if (r0.smin < range.lo || r0.smax > range.hi)
        return env.fail(invalid_scalar_msg(r0, "At program exit", "R0", range.lo, range.hi));
    return true;
}

} // namespace

uint32_t expected_attach_type(const loader::ProgramSpec& prog) { return uint32_t(prog.expected_attach_type); }

// The range the kernel enforces on R0 at the program's exit; false when it enforces none.
bool program_retval_range(uint32_t prog_type, uint32_t attach, RetvalRange* range) {
    *range = {0, 1};
    switch (prog_type) {
    case kProgCgroupSockAddr:
        if (is_one_of(attach,
                      {kAttachCgroupUdp4Recvmsg, kAttachCgroupUdp6Recvmsg, kAttachCgroupUnixRecvmsg,
                       kAttachCgroupInet4Getpeername, kAttachCgroupInet6Getpeername, kAttachCgroupUnixGetpeername,
                       kAttachCgroupInet4Getsockname, kAttachCgroupInet6Getsockname, kAttachCgroupUnixGetsockname}))
            *range = {1, 1};
        if (is_one_of(attach, {kAttachCgroupInet4Bind, kAttachCgroupInet6Bind}))
            *range = {0, 3};
        return true;
    case kProgCgroupSkb:
        if (attach == kAttachCgroupInetEgress)
            *range = {0, 3};
        return true;
    case kProgCgroupSock:
    case kProgSockOps:
    case kProgCgroupDevice:
    case kProgCgroupSysctl:
    case kProgCgroupSockopt:
        return true;
    case uint32_t(loader::ProgType::kprobe):
        return attach == kAttachTraceKprobeSession || attach == kAttachTraceUprobeSession;
    case kProgSkLookup:
        return true; // SK_DROP..SK_PASS
    case kProgNetfilter:
        return true; // NF_DROP..NF_ACCEPT
    default:
        return false; // socket, tc, xdp, tracepoint, perf_event, raw_tp (no BTF id), syscall: any R0
    }
}

// The kernel's verbose_invalid_scalar.
std::string invalid_scalar_msg(const Reg& r, const char* ctx, const char* reg, int64_t lo, int64_t hi) {
    std::string out = fmt::format("{} the register {} has", ctx, reg);
    if (r.smin > std::numeric_limits<int64_t>::min())
        out += fmt::format(" smin={}", r.smin);
    if (r.smax < std::numeric_limits<int64_t>::max())
        out += fmt::format(" smax={}", r.smax);
    if (r.smin == std::numeric_limits<int64_t>::min() && r.smax == std::numeric_limits<int64_t>::max())
        out += " unknown scalar value";
    return out + fmt::format(" should have been in [{}, {}]", lo, hi);
}

// The exit of frame 0: of the program, of its exception callback, or of a global subprogram verified on its own
// (check_return_code).
// We run privileged, so returning a pointer is no leak ("R0 leaks addr as return value" never applies).
bool check_return_code(Env& env) {
    // The exception callback's R0 is the program's return value: checked as the main program's exit is.
    const bool program_exit = env.path.cur.frames[0].subprog == 0 || env.path.cur.frames[0].in_exception_cb;
    if (env.facts.attach && program_exit)
        return check_btf_return_code(env);
    if (!check_reg_init(env, 0))
        return false;
    if (env.path.cur.frames[0].in_async_callback) // enforce return zero from async callbacks
        return check_async_callback_return(env);
    const Reg& r0 = env.path.cur.frames[0].regs[0];
    if (!program_exit) {
        if (r0.type != RegType::scalar)
            return env.fail(fmt::format("At subprogram exit the register R0 is not a scalar value ({})",
                                        reg_type_name(r0.type, r0.maybe_null)));
        return true;
    }
    RetvalRange range;
    if (!program_retval_range(uint32_t(env.facts.prog.type), expected_attach_type(env.facts.prog), &range) &&
        !ext_retval_range(env, &range))
        return true;
    return check_exit_reg_range(env, 0, range);
}

bool check_exit_reg_range(Env& env, int regno, const RetvalRange& range) {
    const Reg& r = env.path.cur.cur().regs[size_t(regno)];
    const std::string name = fmt::format("R{}", regno);
    if (r.type != RegType::scalar)
        return env.fail(fmt::format("At program exit the register {} is not a known value ({})", name,
                                    reg_type_name(r.type, r.maybe_null)));
    mark_reg_precise(env, regno);
    if (r.smin < range.lo || r.smax > range.hi)
        return env.fail(invalid_scalar_msg(r, "At program exit", name.c_str(), range.lo, range.hi));
    return true;
}

} // namespace strbpf::verifier
