// SPDX-License-Identifier: BSD-2-Clause
// bpf_get_stackid and bpf_get_stack (runtime stage; stack_helpers.hpp) on the modelled stacks.
#include "runtime/helpers/stack_helpers.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/helpers/task_helpers.hpp"
#include "runtime/maps/stack_trace_map.hpp"

namespace strbpf::runtime {

namespace {

constexpr uint64_t kDefaultKernel[] = {
    0xffffffffc0001a4cull, // the program (bpf_prog_<tag>_<name>, BPF JIT area)
    0xffffffff813a2f1eull, // bpf_test_run's caller chain in kernel text
    0xffffffff813a3c85ull, 0xffffffff8128e7d2ull, 0xffffffff812905abull,
    0xffffffff81291b60ull, 0xffffffff81f4a3c2ull, // the bpf syscall
    0xffffffff820000b0ull,                        // entry_SYSCALL_64
};
constexpr uint64_t kDefaultUser[] = {
    0x00007ffff7e9a88dull,                        // syscall() in libc
    0x00007ffff7f6c3a1ull,                        // bpf_prog_test_run_opts in libbpf
    0x0000555555559d12ull, 0x0000555555558e47ull, // the caller's frames in a PIE executable
    0x00007ffff7dd2d90ull,                        // __libc_start_call_main
    0x0000555555557ae5ull,                        // _start
};

std::span<const uint64_t> frames(const RunContext* rc, bool user) {
    const StackModel& m = rc->stacks ? *rc->stacks : default_stack_model();
    return user ? m.user : m.kernel;
}

} // namespace

const StackModel& default_stack_model() {
    static const StackModel m{kDefaultKernel, kDefaultUser};
    return m;
}

uint64_t bpf_get_stackid_helper(uint64_t, uint64_t map, uint64_t flags, uint64_t, uint64_t, RunContext* rc) {
    Map* m = checked_map(map, rc, "bpf_get_stackid#27");
    if (!m)
        return 0;
    StackTraceMap* s = as_stack_trace(m);
    if (!s) { // the verifier's check_map_func_compatibility refuses it
        rc->abort(fmt::format("cannot pass map_type {} into func bpf_get_stackid#27", m->spec().type));
        return 0;
    }
    if (flags & ~(kStackSkipMask | kStackUser | kStackFastCmp | kStackReuseId))
        return uint64_t(-EINVAL);
    const std::span<const uint64_t> f = frames(rc, flags & kStackUser);
    const uint32_t depth = stack_max_depth(m->spec().value_size, stack_trace_elem_size(*s), flags);
    const uint32_t nr = uint32_t(std::min<size_t>(f.size(), depth));
    return uint64_t(stack_trace_get_id(*s, f.data(), nr, flags));
}

namespace {

// __bpf_get_stack: the checks, then the frames up to the depth, the copy after the skip and the zeroed tail. For
// the current task (bpf_get_task_stack) the kernel takes the same frames: its kernel stack, or the user stack from
// its user-mode registers.
uint64_t get_stack(uint64_t buf, uint64_t size, uint64_t flags, RunContext* rc, const char* helper) {
    // The raw_tp form takes read-only memory (ARG_PTR_TO_MEM | MEM_RDONLY) and writes it all the same; strbpf
    // writes only memory the program may write, whatever the engine.
    if (size && !checked_mem(buf, size, kPermWrite, rc, "buf", helper))
        return 0;
    uint8_t* out = reinterpret_cast<uint8_t*>(buf);
    const uint32_t n = uint32_t(size);
    const bool user = flags & kStackUser, build_id = flags & kStackUserBuildId;
    const uint32_t elem = build_id ? kStackBuildIdSize : 8;
    long err = -EINVAL;
    if (!(flags & ~(kStackSkipMask | kStackUser | kStackUserBuildId)) && (user || !build_id) && n % elem == 0) {
        const uint32_t skip = uint32_t(flags & kStackSkipMask);
        const std::span<const uint64_t> f = frames(rc, user);
        const uint32_t nr = uint32_t(std::min<size_t>(f.size(), stack_max_depth(n, elem, flags)));
        err = -EFAULT;
        if (nr >= skip) {
            const uint32_t copied = nr - skip;
            if (build_id) {
                for (uint32_t i = 0; i < copied; i++)
                    std::memcpy(out + i * elem + 24, &f[skip + i], 8);
                stack_build_id_fallback(out, copied);
            } else {
                std::memcpy(out, f.data() + skip, copied * 8);
            }
            std::memset(out + copied * elem, 0, n - copied * elem);
            return copied * elem;
        }
    }
    std::memset(out, 0, n);
    return uint64_t(err);
}

} // namespace

uint64_t bpf_get_stack_helper(uint64_t, uint64_t buf, uint64_t size, uint64_t flags, uint64_t, RunContext* rc) {
    return get_stack(buf, size, flags, rc, "bpf_get_stack#67");
}

uint64_t bpf_get_task_stack_helper(uint64_t task, uint64_t buf, uint64_t size, uint64_t flags, uint64_t,
                                   RunContext* rc) {
    if (!current_task_owner(task, rc)) {
        rc->abort("bpf_get_task_stack#141 of a task other than the current one is not modelled by strbpf");
        return 0;
    }
    return get_stack(buf, size, flags, rc, "bpf_get_task_stack#141");
}

} // namespace strbpf::runtime
