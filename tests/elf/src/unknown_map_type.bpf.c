/* A BTF-defined map of a type Linux 6.18 does not have (enum bpf_map_type ends at 33, BPF_MAP_TYPE_ARENA). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
    __uint(type, 99);
    __uint(max_entries, 4);
    __uint(key_size, 4);
    __uint(value_size, 8);
} stacks SEC(".maps");

SEC("syscall")
int uses_stacks(void *ctx)
{
    return bpf_map_lookup_elem(&stacks, &(int){0}) != 0;
}

char LICENSE[] SEC("license") = "GPL";
