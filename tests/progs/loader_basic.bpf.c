// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Loader test object (tests/unit/loader_test.cpp): every ELF shape the loader must handle — several programs per
 * section, static and global subprograms called across sections, global data in .data/.bss/.rodata/.rodata.str1.1/
 * .data.foo, BTF-defined hash and array maps, a kfunc extern, a SEC("?...") program and a bpf_loop callback. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int bpf_strlen(const char *s__ign) __ksym;
extern int bpf_strcmp(const char *s1__ign, const char *s2__ign) __ksym;

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 16);
    __type(key, __u32);
    __type(value, __u64);
} counts SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 4);
    __uint(map_flags, 0);
    __uint(key_size, 4);
    __uint(value_size, 24);
} slots SEC(".maps");

int data_word = 7;                                  /* .data */
long bss_word;                                      /* .bss */
const volatile int ro_word = 42;                    /* .rodata */
int foo_word SEC(".data.foo") = 0x1234;             /* custom .data.foo */
char greeting[] = "hello";                          /* .data (after data_word) */

/* A global subprogram in .text: called from two sections through R_BPF_64_32 relocations. */
__attribute__((noinline)) int global_add(int a, int b)
{
    return a + b + data_word;
}

/* A static subprogram in .text, reached from global_add's callers only through twice_static. */
static __attribute__((noinline)) int leaf_static(int x)
{
    return x * 3;
}

__attribute__((noinline)) int twice_static(int x)
{
    return leaf_static(x) + leaf_static(x + 1);
}

/* A static subprogram inside a program section: called without a relocation. */
static __attribute__((noinline)) int local_helper(int x)
{
    return x ^ (int)bss_word;
}

/* A static subprogram placed in the program section "xdp": its callers there need no relocation. */
static __attribute__((noinline, section("xdp"))) int xdp_local(int x)
{
    return x + 100;
}

static long loop_cb(__u32 index, void *ctx)
{
    *(long *)ctx += index;
    return 0;
}

SEC("syscall")
int prog_strings(void *ctx)
{
    const char *s = "literal string"; /* .rodata.str1.1 */
    int n = bpf_strlen(s);
    n += bpf_strcmp(s, greeting);
    n += bpf_strlen(greeting);
    return n + ro_word;
}

SEC("syscall")
int prog_calls(void *ctx)
{
    return global_add(1, 2) + twice_static(3) + local_helper(4) + foo_word;
}

SEC("tp/syscalls/sys_enter_getpid")
int prog_maps(void *ctx)
{
    __u32 key = 1;
    __u64 *v = bpf_map_lookup_elem(&counts, &key);
    if (v)
        return (int)*v;
    return bpf_map_lookup_elem(&slots, &key) != 0;
}

SEC("?tp/syscalls/sys_enter_getppid")
int prog_optional(void *ctx)
{
    return global_add(5, 6);
}

SEC("xdp")
int prog_loop(void *ctx)
{
    long sum = 0;
    bpf_loop(10, loop_cb, &sum, 0);
    return xdp_local((int)sum);
}

char LICENSE[] SEC("license") = "GPL";
