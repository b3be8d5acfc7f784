// SPDX-License-Identifier: BSD-2-Clause
// Run-context set-up shared by every user-space engine (runtime stage).
#include "runtime/context.hpp"

#include "runtime/instance.hpp"

namespace strbpf::runtime {

void prepare_run_context(RunContext& ctx, const ObjectInstance* instance, StackArea* stack) {
    ctx.instance = instance;
    ctx.mem.set_shared(instance ? &instance->registry() : nullptr);
    ctx.mem.clear_local();
    ctx.sock = 0;
    ctx.stacks = nullptr;
    ctx.aborted = false;
    ctx.abort_message.clear();
    ctx.thrown = false;
    if (stack)
        ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(stack->bytes), sizeof(stack->bytes), kPermRW,
                                 RegionKind::stack, "stack"});
}

} // namespace strbpf::runtime
