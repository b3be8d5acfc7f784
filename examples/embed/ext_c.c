// SPDX-License-Identifier: BSD-2-Clause
/* Extending strbpf from C: the embedder's own helper (host_checksum), kfunc (host_note) and program type ("filter",
 * whose ctx is a struct event), declared as data the verifier reads; then ext_filter.bpf.o's program run on the JIT and on the
 * interpreter, calling the helper and the kfunc directly. Build: cc ext_c.c $(pkg-config --cflags --libs strbpf) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strbpf/strbpf.h>

struct event {
    uint32_t len;
    uint32_t verdict;
    uint8_t payload[56];
};

struct host {
    unsigned calls;
    unsigned notes, noted_bytes;
};

/* r1: the program's buffer, r2: its size (the verifier proved r1 has r2 readable bytes). */
static uint64_t host_checksum(uint64_t buf, uint64_t size, uint64_t r3, uint64_t r4, uint64_t r5, strbpf_call* call) {
    const uint8_t* p = (const uint8_t*)(uintptr_t)buf;
    struct host* h = strbpf_call_user(call);
    uint32_t sum = 0;
    (void)r3, (void)r4, (void)r5;
    h->calls++;
    for (uint64_t i = 0; i < size; i++)
        sum = (sum + p[i]) & 0xffff;
    return sum;
}

/* A kfunc (void host_note(const void *buf, __u32 buf__sz)): r1 has r2 bytes the verifier proved readable. */
static uint64_t host_note(uint64_t buf, uint64_t size, uint64_t r3, uint64_t r4, uint64_t r5, strbpf_call* call) {
    struct host* h = strbpf_call_user(call);
    (void)buf, (void)r3, (void)r4, (void)r5;
    h->notes++;
    h->noted_bytes += (unsigned)size;
    return 0;
}

static int fail(const char* what) {
    fprintf(stderr, "%s: %s\n", what, strbpf_last_error());
    return 1;
}

static int run_on(const char* path, strbpf_extensions* ext, enum strbpf_engine engine, const char* name) {
    struct strbpf_open_opts oo = {sizeof oo};
    struct strbpf_load_opts lo = {sizeof lo};
    strbpf_object* obj;
    strbpf_runner* runner;
    oo.extensions = ext;
    lo.engine = engine;
    if (strbpf_object_open_file(path, &oo, &obj) || strbpf_object_load(obj, &lo))
        return fail("load");
    if (strbpf_runner_new(strbpf_object_find_program(obj, "keep_even"), 0, &runner))
        return fail("runner");
    printf("%s:", name);
    for (uint32_t k = 0; k < 3; k++) {
        struct event ev;
        uint64_t r0;
        memset(&ev, 0, sizeof ev);
        ev.len = 32;
        ev.payload[0] = (uint8_t)(10 + k);
        if (strbpf_runner_run(runner, &ev, sizeof ev, &r0))
            return fail("run");
        printf(" checksum %u keep %llu;", ev.verdict, (unsigned long long)r0);
    }
    printf("\n");
    strbpf_runner_free(runner);
    strbpf_object_close(obj);
    return 0;
}

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "ext_filter.bpf.o";
    struct host h = {0};
    strbpf_extensions* ext = strbpf_extensions_new(&h);
    struct strbpf_helper_def helper = {sizeof helper};
    helper.name = "host_checksum";
    helper.id = STRBPF_HELPER_ID_MIN;
    helper.fn = host_checksum;
    helper.ret = STRBPF_RET_INTEGER;
    helper.has_ret_range = 1;
    helper.ret_min = 0;
    helper.ret_max = 0xffff;
    helper.args[0] = STRBPF_ARG_PTR_TO_MEM_RDONLY;
    helper.args[1] = STRBPF_ARG_CONST_SIZE;
    const struct strbpf_ctx_field fields[] = {
        {offsetof(struct event, len), 4, 0},
        {offsetof(struct event, verdict), 4, 1},
        {offsetof(struct event, payload), sizeof(((struct event*)0)->payload), 0},
    };
    const struct strbpf_kfunc_arg note_args[] = {{STRBPF_KFUNC_ARG_MEM_SIZED, 0, 0}, {STRBPF_KFUNC_ARG_SIZE, 0, 0}};
    struct strbpf_kfunc_def note = {sizeof note};
    note.name = "host_note";
    note.fn = host_note;
    note.args = note_args;
    note.n_args = 2;
    note.ret = STRBPF_KFUNC_RET_VOID;
    const char* const kfuncs[] = {"host_note"};
    const int32_t helpers[] = {STRBPF_HELPER_ID_MIN};
    struct strbpf_prog_type_def type = {sizeof type};
    type.name = "filter";
    type.section = "filter";
    type.ctx_size = sizeof(struct event);
    type.fields = fields;
    type.n_fields = 3;
    type.has_ret_range = 1;
    type.ret_min = 0;
    type.ret_max = 1;
    type.helpers = helpers;
    type.n_helpers = 1;
    type.kfuncs = kfuncs;
    type.n_kfuncs = 1;
    if (strbpf_extensions_add_helper(ext, &helper) || strbpf_extensions_add_kfunc(ext, &note) ||
        strbpf_extensions_add_prog_type(ext, &type))
        return fail("extensions");
    if (run_on(path, ext, STRBPF_ENGINE_JIT, "jit") || run_on(path, ext, STRBPF_ENGINE_INTERP, "interp"))
        return 1;
    strbpf_extensions_free(ext);
    printf("host_checksum calls: %u\n", h.calls);
    printf("host_note calls: %u (%u bytes)\n", h.notes, h.noted_bytes);
    return h.calls == 6 && h.notes == 6 ? 0 : 1;
}
