// SPDX-License-Identifier: BSD-2-Clause
/* Embedding strbpf from C: open a BPF object, configure it before load, fill a map, run a program many times
 * with a runner, read its ring-buffer events. Build: cc embed_c.c $(pkg-config --cflags --libs strbpf) */
#include <stdio.h>
#include <stdint.h>
#include <strbpf/strbpf.h>

static int on_event(const void* data, size_t size, void* user) {
    const uint32_t* ev = data;
    (void)user;
    if (size != 8)
        return -1;
    printf("c event: words[%u] = %u\n", ev[0], ev[1]);
    return 0;
}

static int fail(const char* what) {
    fprintf(stderr, "%s: %s\n", what, strbpf_last_error());
    return 1;
}

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "counter.bpf.o";
    strbpf_object* obj;
    if (strbpf_object_open_file(path, NULL, &obj))
        return fail("open");
    const uint32_t max_words = 1; /* only words[0] counts */
    if (strbpf_object_set_global(obj, "max_words", &max_words, sizeof max_words) || strbpf_object_load(obj, NULL))
        return fail("load");
    strbpf_map* limits = strbpf_object_find_map(obj, "limits");
    strbpf_map* events = strbpf_object_find_map(obj, "events");
    strbpf_program* prog = strbpf_object_find_program(obj, "count_below");
    if (!limits || !events || !prog)
        return fail("find");
    const uint32_t key = 1;
    const uint64_t limit = 10;
    if (strbpf_map_update(limits, &key, sizeof key, &limit, sizeof limit, 0))
        return fail("update");
    strbpf_runner* runner;
    if (strbpf_runner_new(prog, 0, &runner))
        return fail("runner");
    uint32_t words[4] = {3, 42, 7, 10};
    uint64_t r0 = 0;
    for (int i = 0; i < 3; i++)
        if (strbpf_runner_run(runner, words, sizeof words, &r0))
            return fail("run");
    printf("c retval %llu\n", (unsigned long long)r0);
    /* libbpf's ring_buffer__new / __poll: the program's submits woke the ring; poll consumes what it holds. */
    strbpf_ring_buffer* rb = strbpf_ring_buffer_new(events, on_event, NULL);
    if (!rb)
        return fail("ring buffer");
    const int n = strbpf_ring_buffer_poll(rb, 1000);
    strbpf_ring_buffer_free(rb);
    strbpf_runner_free(runner);
    strbpf_object_close(obj);
    return n == 3 ? 0 : fail("events");
}
