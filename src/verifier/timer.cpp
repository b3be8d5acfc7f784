// SPDX-License-Identifier: BSD-2-Clause
// bpf_timer fields, timer helper arguments and async callbacks (verifier stage), in Linux 6.18's words.
#include "verifier/timer.hpp"

#include <fmt/format.h>

#include "runtime/instance.hpp"
#include "verifier/sock.hpp"

namespace strbpf::verifier {

int32_t timer_offset(const Env& env, uint32_t map_index) {
    if (env.facts.timer_offs.size() <= map_index)
        env.facts.timer_offs.resize(map_index + 1, -3);
    int32_t& off = env.facts.timer_offs[map_index];
    if (off == -3)
        off = record_field_offset(env, map_index, loader::kFieldTimer, "bpf_timer");
    return off;
}

bool check_map_field_pointer(Env& env, int regno, const char* field, int32_t (*offset_of)(const Env&, uint32_t),
                             int* map_index) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (!r.var.is_const())
        return env.fail(fmt::format("R{} doesn't have constant offset. {} has to be at the constant offset", regno,
                                    field));
    // The kernel tells inner maps of a map-in-map apart by the lookup that produced them (map_uid), which strbpf's
    // register state does not carry: refused rather than judged without it.
    if (r.aux >= env.facts.inst.map_count())
        return env.fail(fmt::format("strbpf does not model {} in an inner map of a map-in-map", field));
    const int32_t off = offset_of(env, r.aux);
    if (off == -2)
        return env.fail(fmt::format("map '{}' has to have BTF in order to use {}", kernel_map_name(env, r.aux), field));
    if (off < 0)
        return env.fail(fmt::format("map '{}' has no valid {}", kernel_map_name(env, r.aux), field));
    const int64_t at = int64_t(r.var.value) + r.off;
    if (at != off)
        return env.fail(fmt::format("off {} doesn't point to 'struct {}' that is at {}", at, field, off));
    *map_index = int(r.aux);
    return true;
}

bool process_timer_arg(Env& env, int regno, int* map_index) {
    return check_map_field_pointer(env, regno, "bpf_timer", timer_offset, map_index);
}

bool push_async_callback(Env& env, const runtime::HelperProto& h, int map_index) {
    if (h.callback.frame != runtime::CallbackFrame::timer || map_index < 0)
        return env.fail(fmt::format("strbpf does not model the callback's arguments of {}#{}", h.name, h.id));
    push_map_async_callback(env, env.path.cur.cur().regs[h.callback.arg], map_index, false);
    return true;
}

void push_map_async_callback(Env& env, const Reg& fn, int map_index, bool sleepable) {
    const int sp = env.facts.subprog_of(int32_t(fn.aux));
    if (env.aux.async_cb.size() <= size_t(sp))
        env.aux.async_cb.resize(size_t(sp) + 1, 0);
    env.aux.async_cb[size_t(sp)] = 1;
    env.aux.mark_cb(sp);
    // set_timer_callback_state: callback(struct bpf_map *map, void *key, void *value), R4 and R5 not readable.
    Frame f;
    f.regs[1] = reg_ptr(RegType::map_ptr, uint32_t(map_index));
    f.regs[2] = reg_ptr(RegType::map_key, uint32_t(map_index));
    f.regs[3] = reg_ptr(RegType::map_value, uint32_t(map_index));
    f.regs[3].id = env.path.new_id(); // the live kernel gives the value pointer an id of its own, as for for_each
    f.regs[10] = reg_ptr(RegType::stack);
    f.subprog = sp;
    f.in_async_callback = true;
    State st;
    st.frames.push_back(std::move(f));
    st.in_sleepable = sleepable;
    env.path.fork = Fork{Fork::Kind::async, std::move(st), int32_t(fn.aux)};
}

bool check_async_callback_return(Env& env) {
    const Reg& r0 = env.path.cur.frames[0].regs[0];
    if (r0.type != RegType::scalar)
        return env.fail(fmt::format("At async callback return the register R0 is not a known value ({})",
                                    reg_type_name(r0.type, r0.maybe_null)));
    mark_reg_precise(env, 0);
    if (r0.smin < 0 || r0.smax > 0)
        return env.fail(invalid_scalar_msg(r0, "At async callback return", "R0", 0, 0));
    return true;
}

} // namespace strbpf::verifier
