// SPDX-License-Identifier: BSD-2-Clause
// Tracing test runs (exec stage), as 6.18's bpf_prog_test_run_tracing (net/bpf/test_run.c) runs them: the kernel
// does not run the program itself but calls its test functions, and the program runs when it is attached to one
// of them (a trampoline around it). fentry and fexit programs: bpf_fentry_test1..10 in order, each with the
// arguments the test run passes; fexit also sees the return value; the retval is 0. fmod_ret programs:
// bpf_modify_return_test(1, &b) and bpf_modify_return_test2(1, &b, 3, 4, 5, 6, 7) with b = 2; a program returning
// non-zero replaces the function (which then leaves b alone), and the retval is side_effect << 16 | ret: the u16
// sum of both returns, and how many calls changed b. Other tracing programs (tp_btf, iter) are -EFAULT; a test
// run with flags or cpu set is -EINVAL. data_in, ctx_in and repeat are ignored; no duration is reported. (6.12's
// run is the same but for bpf_fentry_test10, which 6.18 added.)
// While the program runs, RunContext::trace holds the trampoline's frame (argument count, return slot, the
// function's address: modelled_func_ip) for bpf_get_func_arg/_ret/_arg_cnt/_ip, and attach_cookie the link's cookie
// (RunRequest::cookie) for bpf_get_attach_cookie.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "exec/contexts.hpp"
#include "loader/btf_view.hpp"
#include "verifier/btf_target.hpp"

#include <bpf/btf.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace strbpf::exec {
namespace {

using loader::AttachType;
using runtime::Region;
using runtime::RegionKind;

constexpr size_t kSlots = 13; // MAX_BPF_FUNC_ARGS arguments and the return value's slot

// One call the test run makes: the function and its arguments as the caller passes them in 64-bit registers (small
// constants zero-extended; the trampoline saves whole registers) and, past six, stack slots (the trampoline copies
// 8 bytes; strbpf models the upper bytes as zero), and what the function returns.
struct TestCall {
    const char* func;
    uint8_t nargs;
    uint64_t args[7];
    uint64_t ret;
};

// What one tracing run owns: the program's ctx (the arguments, then for fexit and fmod_ret the return value, in
// read-only u64 slots; every slot exists, so a prototype with more arguments than strbpf's model reads zeros,
// never past the buffer) and the memory the pointer arguments point at: bpf_fentry_test8's struct
// bpf_fentry_test_t (its one pointer NULL), bpf_fentry_test9's u32 (the test run's retval, 0), the modify_return
// tests' int b.
struct TraceState {
    alignas(8) uint64_t slot[kSlots] = {};
    uint64_t fentry_arg = 0;
    uint32_t retval = 0;
    int32_t b = 2;
    std::string target; // the traced function (SEC("fentry/F"): F)
    const TracingRun* run = nullptr;
    runtime::RunContext* ctx = nullptr;
    runtime::TraceFrame frame;  // what the trampoline keeps beside the ctx, for the func-arg/ip helpers
    std::vector<uint64_t> task; // the modelled task_structs (build_task): the current task first
};

// The modelled tasks of a run, what bpf_get_current_task_btf returns and the pointers it leads to, each a struct
// task_struct of the target BTF's size, all zero (its other pointers NULL) but pid, tgid, comm, real_parent and
// group_leader at the target BTF's offsets, back to back in one buffer (one region: a load through one task stays
// inside its task_struct, the verifier bounds its offset by the struct's size):
//   [0] the current task: the calling thread (pid its thread id, tgid the process id, comm the thread's name), as
//       bpf_get_current_pid_tgid and _comm model it; real_parent [1], group_leader itself or [2];
//   [1] its real parent, modelled as the parent process's leader: pid = tgid = getppid(), comm from
//       /proc/PPID/comm; its real_parent NULL (not modelled: loads through it read 0), its group_leader itself;
//   [2] when the calling thread is not its process's leader, the leader: pid = tgid = getpid(), comm from
//       /proc/self/comm (the leader's name); real_parent [1], group_leader itself.
// Empty when the target BTF has no task_struct (then no program could have been verified to read one).
struct TaskFields {
    int32_t pid, tgid;
    std::string comm;
    int real_parent; // index of the modelled task, -1: NULL
    int group_leader;
};

std::string proc_comm(const std::string& path) {
    char buf[64] = {};
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    std::string s(buf, n > 0 ? size_t(n) : 0);
    if (!s.empty() && s.back() == '\n')
        s.pop_back();
    return s.substr(0, 15); // TASK_COMM_LEN with its NUL
}

std::vector<TaskFields> modelled_tasks() {
    char comm[17] = {};
    prctl(PR_GET_NAME, comm);
    const bool leader = gettid() == getpid();
    std::vector<TaskFields> t;
    t.push_back({int32_t(gettid()), int32_t(getpid()), comm, 1, leader ? 0 : 2});
    t.push_back({int32_t(getppid()), int32_t(getppid()), proc_comm(fmt::format("/proc/{}/comm", getppid())), -1, 1});
    if (!leader)
        t.push_back({int32_t(getpid()), int32_t(getpid()), proc_comm("/proc/self/comm"), 1, 2});
    return t;
}

void build_task(std::vector<uint64_t>* task) {
    std::string error;
    bool running = false;
    BtfRef b = verifier::target_btf(&error, &running);
    const int id = b ? btfv::find_by_name_kind(b, "task_struct", BTF_KIND_STRUCT) : -1;
    const btf_type* t = id > 0 ? btfv::type_by_id(b, uint32_t(id)) : nullptr;
    if (!t)
        return;
    const std::vector<TaskFields> tasks = modelled_tasks();
    const size_t words = (t->size + 7) / 8;
    task->assign(words * tasks.size(), 0);
    auto* base = reinterpret_cast<uint8_t*>(task->data());
    const btf_member* m = btf_members(t);
    for (size_t k = 0; k < tasks.size(); k++) {
        uint8_t* bytes = base + k * words * 8;
        const TaskFields& f = tasks[k];
        for (uint16_t i = 0; i < btf_vlen(t); i++) {
            const std::string_view name = btfv::name_by_offset(b, m[i].name_off);
            const uint32_t off = btf_member_bit_offset(t, i) / 8;
            if ((name == "pid" || name == "tgid") && off + 4 <= t->size) {
                const int32_t v = name == "pid" ? f.pid : f.tgid;
                std::memcpy(bytes + off, &v, 4);
            } else if (name == "comm" && off + 16 <= t->size) {
                std::memcpy(bytes + off, f.comm.data(), std::min<size_t>(f.comm.size(), 15));
            } else if ((name == "real_parent" || name == "group_leader") && off + 8 <= t->size) {
                const int to = name == "real_parent" ? f.real_parent : f.group_leader;
                const uint64_t p = to < 0 ? 0 : reinterpret_cast<uint64_t>(base + size_t(to) * words * 8);
                std::memcpy(bytes + off, &p, 8);
            }
        }
    }
}

// Runs the program on CALL's ctx when it is attached to CALL's function (*ran); the run's error otherwise.
Status call_attached(TraceState& s, const TestCall& call, bool with_ret, uint64_t* r0, bool* ran) {
    *ran = false;
    if (s.target != call.func)
        return ok_status();
    std::memset(s.slot, 0, sizeof s.slot);
    std::memcpy(s.slot, call.args, call.nargs * sizeof(uint64_t));
    if (with_ret)
        s.slot[call.nargs] = call.ret;
    *ran = true;
    s.frame = runtime::TraceFrame{s.slot, call.nargs, with_ret, modelled_func_ip(call.func)};
    s.ctx->trace = &s.frame;
    Status st = (*s.run)(reinterpret_cast<uint64_t>(s.slot), r0);
    s.ctx->trace = nullptr;
    return st;
}

// fentry and fexit: bpf_fentry_test1..10 with the test run's arguments; the program runs before (fentry) or after
// (fexit, with the return value) the call of its target. It cannot change what the functions return, so every
// check bpf_prog_test_run_tracing makes on the returns holds and the retval is 0.
Status run_fentry_calls(TraceState& s, bool fexit) {
    const uint64_t arg8 = reinterpret_cast<uint64_t>(&s.fentry_arg);
    const uint64_t arg9 = reinterpret_cast<uint64_t>(&s.retval);
    const TestCall calls[] = {
        {"bpf_fentry_test1", 1, {1}, 2},
        {"bpf_fentry_test2", 2, {2, 3}, 5},
        {"bpf_fentry_test3", 3, {4, 5, 6}, 15},
        {"bpf_fentry_test4", 4, {7, 8, 9, 10}, 34},
        {"bpf_fentry_test5", 5, {11, 12, 13, 14, 15}, 65},
        {"bpf_fentry_test6", 6, {16, 17, 18, 19, 20, 21}, 111},
        {"bpf_fentry_test7", 1, {0}, 0},    // (struct bpf_fentry_test_t *)0, returned as a long
        {"bpf_fentry_test8", 1, {arg8}, 0}, // &arg: returns arg->a, NULL
        {"bpf_fentry_test9", 1, {arg9}, 0}, // &retval: returns *a, 0
        {"bpf_fentry_test10", 1, {0}, 0},   // (void *)0
    };
    for (const TestCall& c : calls) {
        uint64_t r0 = 0;
        bool ran = false;
        STRBPF_TRY(call_attached(s, c, fexit, &r0, &ran));
    }
    return ok_status();
}

// One modify_return test function: the fmod_ret program runs first (its return slot 0, as the trampoline clears
// it); a non-zero R0 replaces the call, whose int return is then R0's low half, and the body (*b += 1, then the
// sum of the arguments with *b) does not run.
Status modify_return_call(TraceState& s, const TestCall& c, int32_t* ret) {
    uint64_t r0 = 0;
    bool ran = false;
    STRBPF_TRY(call_attached(s, c, true, &r0, &ran));
    if (ran && r0 != 0) {
        *ret = int32_t(uint32_t(r0));
        return ok_status();
    }
    s.b += 1;
    int64_t sum = int64_t(c.args[0]) + s.b;
    for (uint8_t i = 2; i < c.nargs; i++)
        sum += int64_t(c.args[i]);
    *ret = int32_t(sum);
    return ok_status();
}

// fmod_ret: bpf_modify_return_test(1, &b), then bpf_modify_return_test2(1, &b, 3, 4, (void *)5, 6, 7), b = 2 before
// each; retval = side_effect << 16 | ret, ret the u16 sum of both returns, side_effect the calls that changed b.
Status run_modify_return_calls(TraceState& s, uint32_t* retval) {
    const uint64_t pb = reinterpret_cast<uint64_t>(&s.b);
    uint16_t side_effect = 0;
    int32_t r1 = 0, r2 = 0;
    s.b = 2;
    STRBPF_TRY(modify_return_call(s, {"bpf_modify_return_test", 2, {1, pb}, 0}, &r1));
    side_effect = uint16_t(side_effect + (s.b != 2));
    s.b = 2;
    STRBPF_TRY(modify_return_call(s, {"bpf_modify_return_test2", 7, {1, pb, 3, 4, 5, 6, 7}, 0}, &r2));
    side_effect = uint16_t(side_effect + (s.b != 2));
    const uint16_t ret = uint16_t(uint16_t(r1) + uint16_t(r2));
    *retval = uint32_t(side_effect) << 16 | ret;
    return ok_status();
}

} // namespace

uint64_t modelled_func_ip(std::string_view func) {
    static constexpr const char* kFuncs[] = {"bpf_fentry_test1",  "bpf_fentry_test2",       "bpf_fentry_test3",
                                             "bpf_fentry_test4",  "bpf_fentry_test5",       "bpf_fentry_test6",
                                             "bpf_fentry_test7",  "bpf_fentry_test8",       "bpf_fentry_test9",
                                             "bpf_fentry_test10", "bpf_modify_return_test", "bpf_modify_return_test2"};
    for (size_t i = 0; i < std::size(kFuncs); i++)
        if (func == kFuncs[i])
            return kModelledTextBase + 0x100 * (i + 1);
    return 0;
}

Status tracing_test_run(const loader::ProgramSpec& prog, const RunRequest& req, runtime::RunContext& ctx,
                        const TracingRun& run, uint32_t* retval) {
    *retval = 0;
    if (req.flags || req.cpu)
        return make_error("tracing test runs take no flags and no cpu (the kernel answers -EINVAL)", -22);
    const AttachType at = prog.expected_attach_type;
    if (at != AttachType::trace_fentry && at != AttachType::trace_fexit && at != AttachType::modify_return)
        return make_error(fmt::format("the kernel's tracing test run calls no function for a {} program (it "
                                      "answers -EFAULT)",
                                      prog.section.substr(0, prog.section.find('/'))),
                          -14);
    auto s = std::make_unique<TraceState>();
    const size_t slash = prog.section.find('/');
    s->target = slash == std::string::npos ? std::string() : prog.section.substr(slash + 1);
    s->run = &run;
    s->ctx = &ctx;
    ctx.attach_cookie = req.cookie;
    build_task(&s->task);
    const RegionsUntilReturn regions(ctx.mem); // they point into *s, which dies with this call
    if (!s->task.empty() &&
        !ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(s->task.data()), s->task.size() * 8, runtime::kPermRead,
                                  RegionKind::other, "struct task_struct (modelled)"}))
        return make_error("too many memory regions for a tracing test run");
    if (!ctx.mem.add_local(
            Region{reinterpret_cast<uint64_t>(s->slot), sizeof s->slot, runtime::kPermRead, RegionKind::ctx, "ctx"}) ||
        !ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(&s->fentry_arg), sizeof s->fentry_arg, runtime::kPermRead,
                                  RegionKind::other, "struct bpf_fentry_test_t"}) ||
        !ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(&s->retval), sizeof s->retval, runtime::kPermRead,
                                  RegionKind::other, "bpf_fentry_test9's u32"}) ||
        !ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(&s->b), sizeof s->b, runtime::kPermRead, RegionKind::other,
                                  "bpf_modify_return_test's int"}))
        return make_error("too many memory regions for a tracing test run");
    ctx.current_task = s->task.empty() ? 0 : reinterpret_cast<uint64_t>(s->task.data());
    Status st = at == AttachType::modify_return ? run_modify_return_calls(*s, retval)
                                                : run_fentry_calls(*s, at == AttachType::trace_fexit);
    ctx.current_task = 0; // the task dies with the run's state
    return st;
}

} // namespace strbpf::exec
