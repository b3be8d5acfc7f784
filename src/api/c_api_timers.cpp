// SPDX-License-Identifier: BSD-2-Clause
// The C API's timer entries (api stage): strbpf_object_run_timers, strbpf_object_armed_timers.
#include "api/c_handles.hpp"
#include "strbpf/strbpf.h"

using namespace strbpf::capi;

extern "C" {

int strbpf_object_run_timers(strbpf_object* obj, int all) {
    if (!obj)
        return fail("object is NULL");
    const auto r = obj->obj.run_timers(all != 0);
    if (!r)
        return fail(r.error());
    return int(*r);
}

long strbpf_object_armed_timers(const strbpf_object* obj) { return obj ? long(obj->obj.armed_timers()) : -EINVAL; }

} // extern "C"
