// SPDX-License-Identifier: BSD-2-Clause
// bpf_timer in map values (verifier stage): the value's struct bpf_timer found through the map's BTF (the
// kernel's btf_record BPF_TIMER field), the checks of a helper's ARG_PTR_TO_TIMER (process_timer_func), direct
// accesses to the field refused (check_map_access), and the async callback of bpf_timer_set_callback verified as
// a path of its own (push_async_cb with set_timer_callback_state).
#pragma once
#include <cstdint>

#include "runtime/helpers/helper_table.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {

// Where the values of map MAP_INDEX hold their struct bpf_timer: its offset; -1 when they hold none; -2 when the
// map has no BTF (a legacy definition).
int32_t timer_offset(const Env& env, uint32_t map_index);
// check_map_field_pointer for REGNO, a map value pointer: a constant offset, a map with BTF whose value holds the
// special field FIELD ("bpf_timer", "bpf_wq") at OFFSET_OF(map) (-2: no BTF, -1: none), that offset; checked in
// the kernel's order and words. Sets *MAP_INDEX to the field's map. Inner maps of a map-in-map (told apart by
// map_uid, which strbpf's registers do not carry) are refused in strbpf's words.
bool check_map_field_pointer(Env& env, int regno, const char* field, int32_t (*offset_of)(const Env&, uint32_t),
                             int* map_index);
// check_func_arg's ARG_PTR_TO_TIMER after the register type check (REGNO is a map value pointer): a constant
// offset that is the timer's. Sets *MAP_INDEX to the timer's map, which a later ARG_CONST_MAP_PTR must match.
bool process_timer_arg(Env& env, int regno, int* map_index);
// A helper whose callback column says async: the callback's frame (the timer's map, key and value) becomes a
// pending path of its own, with no caller frame, no parent state and no history (push_async_cb). The caller goes
// on after the call. MAP_INDEX: the timer's map (the call's meta).
bool push_async_callback(Env& env, const runtime::HelperProto& h, int map_index);
// set_timer_callback_state's frame for the callback FN (a func register) of a bpf_timer or a bpf_wq in the map
// MAP_INDEX's value, pushed as that pending path (push_async_callback, bpf_wq_set_callback_impl). SLEEPABLE: the
// path's in_sleepable (is_async_cb_sleepable: a bpf_wq callback's, never a bpf_timer callback's, whatever the
// program's).
void push_map_async_callback(Env& env, const Reg& fn, int map_index, bool sleepable);
// The exit of an async callback (frame 0 of its own path): R0 a scalar in [0, 0].
bool check_async_callback_return(Env& env);

} // namespace strbpf::verifier
