// SPDX-License-Identifier: BSD-2-Clause
// The C API of include/strbpf/strbpf.h (api stage): opaque handles over the C++ API, Result errors turned into a
// negative errno plus a per-thread message. Nothing C++ crosses it: no exceptions, no std types.
#include "strbpf/strbpf.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>

#include "api/c_handles.hpp"
#include "api/extensions_impl.hpp"
#include "strbpf/object.hpp"

namespace {

using strbpf::capi::fail;
using strbpf::capi::last_error;
using strbpf::capi::status;

using strbpf::capi::read_opts;

strbpf::OpenOptions open_options(const strbpf_open_opts& o) {
    strbpf::OpenOptions opts;
    if (o.object_name)
        opts.object_name = o.object_name;
    if (o.extensions)
        opts.extensions = o.extensions->ext;
    if (o.log) {
        strbpf_log_fn fn = o.log;
        void* user = o.log_user;
        opts.log = [fn, user](strbpf::LogLevel level, const std::string& msg) {
            fn(static_cast<strbpf_log_level>(level), msg.c_str(), user);
        };
    }
    return opts;
}

int adopt(strbpf::Result<strbpf::Object> r, strbpf_object** out) {
    if (!out)
        return fail("out is NULL");
    *out = nullptr;
    if (!r)
        return fail(r.error());
    *out = new strbpf_object{std::move(r).value(), {}, {}, nullptr, nullptr};
    return 0;
}

std::span<const uint8_t> cbytes(const void* p, size_t n) { return {static_cast<const uint8_t*>(p), p ? n : 0}; }
std::span<uint8_t> mbytes(void* p, size_t n) { return {static_cast<uint8_t*>(p), p ? n : 0}; }

// Copies a run's output into a caller buffer whose capacity is *size; *size becomes the bytes reported.
int copy_out(const std::vector<uint8_t>& got, void* buf, size_t* size) {
    if (!buf)
        return 0;
    const size_t cap = *size;
    *size = got.size();
    if (got.size() > cap)
        return fail("output buffer too small (the kernel answers -ENOSPC)", -ENOSPC);
    std::memcpy(buf, got.data(), got.size());
    return 0;
}

// The failures of strbpf_runner_run, out of line so that its own path saves nothing but the result's address.
[[gnu::noinline, gnu::cold]] int runner_failed(const strbpf_runner* runner) {
    return runner ? fail(runner->runner.last_error()) : fail("runner is NULL");
}

} // namespace

extern "C" {

const char* strbpf_last_error(void) { return last_error.c_str(); }

int strbpf_object_open_file(const char* path, const strbpf_open_opts* opts, strbpf_object** out) {
    if (!path)
        return fail("path is NULL");
    return adopt(strbpf::Object::open(path, open_options(read_opts(opts))), out);
}

int strbpf_object_open_mem(const void* image, size_t size, const strbpf_open_opts* opts, strbpf_object** out) {
    if (!image)
        return fail("image is NULL");
    return adopt(strbpf::Object::open_memory(cbytes(image, size), open_options(read_opts(opts))), out);
}

void strbpf_object_close(strbpf_object* obj) { delete obj; }
const char* strbpf_object_name(const strbpf_object* obj) { return obj ? obj->obj.name().c_str() : ""; }

int strbpf_object_set_global(strbpf_object* obj, const char* name, const void* value, size_t size) {
    if (!obj || !name || !value)
        return fail("object, name or value is NULL");
    return status(obj->obj.set_global(name, cbytes(value, size)));
}

int strbpf_object_get_global(const strbpf_object* obj, const char* name, void* value, size_t size) {
    if (!obj || !name || !value)
        return fail("object, name or value is NULL");
    auto v = obj->obj.global(name);
    if (!v)
        return fail(v.error());
    if (v->size() != size)
        return fail("size is not the variable's", -EINVAL);
    std::memcpy(value, v->data(), size);
    return 0;
}

int strbpf_object_load(strbpf_object* obj, const strbpf_load_opts* opts) {
    if (!obj)
        return fail("object is NULL");
    const strbpf_load_opts o = read_opts(opts);
    if (o.engine < STRBPF_ENGINE_JIT || o.engine > STRBPF_ENGINE_INTERP_CHECKED)
        return fail("unknown engine");
    strbpf::LoadOptions lo;
    lo.engine = static_cast<strbpf::Engine>(o.engine);
    lo.log_level = o.log_level;
    obj->maps.clear();
    return status(obj->obj.load(lo));
}

strbpf_program* strbpf_object_find_program(strbpf_object* obj, const char* name) {
    if (!obj || !name)
        return fail("object or name is NULL"), nullptr;
    auto it = obj->progs.find(name);
    if (it != obj->progs.end())
        return it->second.get();
    auto p = obj->obj.program(name);
    if (!p)
        return fail(p.error()), nullptr;
    auto& slot = obj->progs[name];
    slot.reset(new strbpf_program{*p});
    return slot.get();
}

strbpf_map* strbpf_object_find_map(strbpf_object* obj, const char* name) {
    if (!obj || !name)
        return fail("object or name is NULL"), nullptr;
    auto it = obj->maps.find(name);
    if (it != obj->maps.end())
        return it->second.get();
    auto m = obj->obj.map(name);
    if (!m)
        return fail(m.error()), nullptr;
    auto& slot = obj->maps[name];
    slot.reset(new strbpf_map{*m});
    return slot.get();
}

const char* strbpf_program_name(const strbpf_program* prog) { return prog ? prog->ref.name().c_str() : ""; }

int strbpf_program_set_autoload(strbpf_program* prog, int on) {
    if (!prog)
        return fail("program is NULL");
    return status(prog->ref.set_autoload(on != 0));
}

int strbpf_program_set_engine(strbpf_program* prog, strbpf_engine engine) {
    if (!prog)
        return fail("program is NULL");
    if (engine < STRBPF_ENGINE_JIT || engine > STRBPF_ENGINE_INTERP_CHECKED)
        return fail("unknown engine");
    return status(prog->ref.set_engine(static_cast<strbpf::Engine>(engine)));
}

int strbpf_program_accepted(const strbpf_program* prog) { return prog && prog->ref.loaded() && prog->ref.accepted(); }
const char* strbpf_program_reason(const strbpf_program* prog) { return prog ? prog->ref.reason().c_str() : ""; }
const char* strbpf_program_log(const strbpf_program* prog) { return prog ? prog->ref.log().c_str() : ""; }

int strbpf_program_run(const strbpf_program* prog, strbpf_run_opts* opts) {
    if (!prog || !opts)
        return fail("program or opts is NULL");
    if (opts->sz < offsetof(strbpf_run_opts, cookie)) // a caller built before `cookie` gives no cookie
        return fail("strbpf_run_opts.sz is not sizeof(struct strbpf_run_opts)");
    // The options and result of this thread's runs, reused so that a run allocates nothing once their buffers have
    // grown; a run started inside a run (from an embedder's helper) takes its own.
    struct Reused {
        strbpf::RunOptions ro;
        strbpf::RunResult res;
        bool busy = false;
    };
    thread_local Reused reused;
    std::unique_ptr<Reused> own;
    Reused& u = reused.busy ? *(own = std::make_unique<Reused>()) : reused;
    u.busy = true;
    const auto ctx = cbytes(opts->ctx_in, opts->ctx_size_in);
    const auto data = cbytes(opts->data_in, opts->data_size_in);
    u.ro.ctx.assign(ctx.begin(), ctx.end());
    u.ro.data.assign(data.begin(), data.end());
    u.ro.repeat = opts->repeat;
    u.ro.cpu = opts->cpu;
    u.ro.cookie = opts->sz >= sizeof(strbpf_run_opts) ? opts->cookie : 0;
    u.ro.timed = true; // strbpf_run_opts always reports duration_ns
    const strbpf::Status st = prog->ref.run(u.ro, u.res);
    u.busy = false;
    if (!st)
        return fail(st.error());
    opts->r0 = u.res.r0;
    opts->retval = u.res.retval;
    opts->duration_ns = u.res.duration_ns;
    if (int e = copy_out(u.res.ctx_out, opts->ctx_out, &opts->ctx_size_out))
        return e;
    return copy_out(u.res.data_out, opts->data_out, &opts->data_size_out);
}

int strbpf_runner_new(const strbpf_program* prog, uint32_t cpu, strbpf_runner** out) {
    if (!prog || !out)
        return fail("program or out is NULL");
    *out = nullptr;
    auto r = strbpf::Runner::create(prog->ref, cpu);
    if (!r)
        return fail(r.error());
    *out = new strbpf_runner{std::move(r).value()};
    return 0;
}

int strbpf_runner_run(strbpf_runner* runner, void* ctx, size_t ctx_size, uint64_t* r0) {
    if (!runner) [[unlikely]]
        return runner_failed(runner);
    if (runner->runner.call(mbytes(ctx, ctx_size), r0 ? r0 : &runner->discard) != 0) [[unlikely]]
        return runner_failed(runner);
    return 0;
}

void strbpf_runner_free(strbpf_runner* runner) { delete runner; }

uint32_t strbpf_map_key_size(const strbpf_map* map) { return map ? map->ref.key_size() : 0; }
uint32_t strbpf_map_value_size(const strbpf_map* map) { return map ? map->ref.value_bytes() : 0; }

int strbpf_map_lookup(const strbpf_map* map, const void* key, size_t key_size, void* value, size_t value_size) {
    if (!map || !key || !value)
        return fail("map, key or value is NULL");
    return status(map->ref.lookup(cbytes(key, key_size), mbytes(value, value_size)));
}

int strbpf_map_lookup_flags(const strbpf_map* map, const void* key, size_t key_size, void* value, size_t value_size,
                            uint64_t flags) {
    if (!map || !key || !value)
        return fail("map, key or value is NULL");
    return status(map->ref.lookup(cbytes(key, key_size), mbytes(value, value_size), flags));
}

int strbpf_map_update(strbpf_map* map, const void* key, size_t key_size, const void* value, size_t value_size,
                      uint64_t flags) {
    if (!map || !key || !value)
        return fail("map, key or value is NULL");
    return status(map->ref.update(cbytes(key, key_size), cbytes(value, value_size), flags));
}

int strbpf_map_delete(strbpf_map* map, const void* key, size_t key_size) {
    if (!map || !key)
        return fail("map or key is NULL");
    return status(map->ref.remove(cbytes(key, key_size)));
}

int strbpf_map_next_key(const strbpf_map* map, const void* key, void* next, size_t key_size) {
    if (!map || !next)
        return fail("map or next is NULL");
    auto r = map->ref.next_key(cbytes(key, key_size), mbytes(next, key_size));
    if (!r)
        return fail(r.error());
    return *r ? 0 : fail("no next key", -ENOENT);
}

long strbpf_map_ringbuf_consume(strbpf_map* map, strbpf_ringbuf_fn fn, void* user) {
    if (!map || !fn)
        return fail("map or fn is NULL");
    auto n = map->ref.consume([fn, user](std::span<const uint8_t> rec) { return fn(rec.data(), rec.size(), user); });
    if (!n)
        return fail(n.error());
    return long(*n);
}

} // extern "C"
