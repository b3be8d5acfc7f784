// SPDX-License-Identifier: BSD-2-Clause
// Object::run_timers and Object::armed_timers (api stage): the loaded instance's timers (exec/timers.hpp).
#include <cerrno>

#include <fmt/format.h>

#include "api/object_impl.hpp"
#include "exec/timers.hpp"
#include "runtime/timers/timer_queue.hpp"
#include "strbpf/object.hpp"

namespace strbpf {

Result<size_t> Object::run_timers(bool all) const {
    if (!impl_->inst)
        return make_error(fmt::format("{}: run_timers before load()", impl_->name), -EINVAL);
    const exec::TimerRunReport rep =
        exec::run_timers(*impl_->inst, all ? runtime::TimerRun::all : runtime::TimerRun::due);
    if (!rep.errors.empty())
        return make_error(fmt::format("{}: {} of {} timer callbacks stopped; first: {}", impl_->name,
                                      rep.errors.size(), rep.errors.size() + rep.ran, rep.errors.front()),
                          -EFAULT);
    return rep.ran;
}

size_t Object::armed_timers() const { return impl_->inst ? impl_->inst->timers().armed() : 0; }

} // namespace strbpf
