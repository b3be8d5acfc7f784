/* A program in a section no program type matches. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("no_such_type/foo")
int lost(void *ctx)
{
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
