/* The good object the malformed files in tests/elf/ are cut from (see make_malformed.py). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int bpf_strlen(const char *s__ign) __ksym;

int counter = 1;

__attribute__((noinline)) int add_counter(int x)
{
    return x + counter;
}

SEC("syscall")
int small_prog(void *ctx)
{
    return add_counter(bpf_strlen("ab"));
}

char LICENSE[] SEC("license") = "GPL";
