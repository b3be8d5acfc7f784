// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Open-coded iterators: the numbers iterator (bpf_iter_num_*, through bpf_misc.h's bpf_for and bpf_repeat) and the
 * bits iterator (bpf_iter_bits_*, through bpf_for_each), their answers for bad arguments, and the verifier's rules:
 * an iterator is created once, used only when created, destroyed on every path. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));
struct bpf_iter_bits {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;
extern int bpf_iter_bits_new(struct bpf_iter_bits *it, const __u64 *unsafe_ptr__ign, __u32 nr_words) __ksym;
extern int *bpf_iter_bits_next(struct bpf_iter_bits *it) __ksym;
extern void bpf_iter_bits_destroy(struct bpf_iter_bits *it) __ksym;

/* bpf_misc.h's macros, as the kernel's selftests write them. */
#define bpf_for(i, start, end)                                                                                        \
	for (struct bpf_iter_num ___it __attribute__((aligned(8), cleanup(bpf_iter_num_destroy))),                   \
	     *___p __attribute__((unused)) =                                                                           \
		 (bpf_iter_num_new(&___it, (start), (end)), (void)bpf_iter_num_destroy, (void *)0);                     \
	     ({                                                                                                        \
		     int *___t = bpf_iter_num_next(&___it);                                                            \
		     (___t && ((i) = *___t, (i) >= (start) && (i) < (end)));                                           \
	     });)
#define bpf_repeat(N)                                                                                                 \
	for (struct bpf_iter_num ___it __attribute__((aligned(8), cleanup(bpf_iter_num_destroy))),                   \
	     *___p __attribute__((unused)) =                                                                           \
		 (bpf_iter_num_new(&___it, 0, (N)), (void)bpf_iter_num_destroy, (void *)0);                             \
	     bpf_iter_num_next(&___it);)
#define bpf_for_each(type, cur, args...)                                                                              \
	for (struct bpf_iter_##type ___it __attribute__((aligned(8), cleanup(bpf_iter_##type##_destroy))),           \
	     *___p __attribute__((unused)) =                                                                           \
		 (bpf_iter_##type##_new(&___it, ##args), (void)bpf_iter_##type##_destroy, (void *)0);                  \
	     (((cur) = bpf_iter_##type##_next(&___it)));)

__u64 words[3] = {0x11, 0, 1ull << 63};

SEC("syscall")
__success __retval(45)
int for_sum(void *ctx)
{
	int i, sum = 0;

	bpf_for(i, 0, 10)
		sum += i;
	return sum;
}

SEC("syscall")
__success __retval(5)
int repeat_count(void *ctx)
{
	int n = 0;

	bpf_repeat(5)
		n++;
	return n;
}

/* An array indexed by the iterator's value, bounds-checked by bpf_for itself. */
SEC("syscall")
__success __retval(120)
int for_indexes_array(void *ctx)
{
	int arr[16] = {}, i, sum = 0;

	bpf_for(i, 0, 16)
		arr[i] = i;
	bpf_for(i, 0, 16)
		sum += arr[i];
	return sum;
}

SEC("syscall")
__success __retval(0)
int for_empty_range(void *ctx)
{
	int i, n = 0;

	bpf_for(i, 7, 7)
		n++;
	return n;
}

/* bpf_iter_num_new's answers: -EINVAL for start > end, -E2BIG for more than BPF_MAX_LOOPS numbers; either way the
 * iterator is empty. */
SEC("syscall")
__success __retval(-22)
int num_new_einval(void *ctx)
{
	struct bpf_iter_num it;
	int err = bpf_iter_num_new(&it, 3, 2);

	if (bpf_iter_num_next(&it))
		err = 1;
	bpf_iter_num_destroy(&it);
	return err;
}

SEC("syscall")
__success __retval(-7)
int num_new_e2big(void *ctx)
{
	struct bpf_iter_num it;
	int err = bpf_iter_num_new(&it, 0, 8 * 1024 * 1024 + 1);

	if (bpf_iter_num_next(&it))
		err = 1;
	bpf_iter_num_destroy(&it);
	return err;
}

SEC("syscall")
__success __retval(8388608)
int num_new_max_loops(void *ctx)
{
	struct bpf_iter_num it;
	int err = bpf_iter_num_new(&it, -1, 8 * 1024 * 1024 - 1);

	bpf_iter_num_destroy(&it);
	return err ? err : 8 * 1024 * 1024;
}

/* Bits 0 and 4 of one word. */
SEC("syscall")
__success __retval(4)
int bits_one_word(void *ctx)
{
	int *bit, sum = 0;

	bpf_for_each(bits, bit, &words[0], 1)
		sum += *bit;
	return sum;
}

/* Three words: bits 0, 4 and 191 (copied when the iterator is created). */
SEC("syscall")
__success __retval(195)
int bits_three_words(void *ctx)
{
	int *bit, sum = 0;

	bpf_for_each(bits, bit, &words[0], 3)
		sum += *bit;
	return sum;
}

SEC("syscall")
__success __retval(-22)
int bits_new_einval(void *ctx)
{
	struct bpf_iter_bits it;
	int err = bpf_iter_bits_new(&it, &words[0], 0);

	if (bpf_iter_bits_next(&it))
		err = 1;
	bpf_iter_bits_destroy(&it);
	return err;
}

SEC("syscall")
__success __retval(-7)
int bits_new_e2big(void *ctx)
{
	struct bpf_iter_bits it;
	int err = bpf_iter_bits_new(&it, &words[0], 512);

	bpf_iter_bits_destroy(&it);
	return err;
}

/* An unreadable address: -EFAULT (one word). */
SEC("syscall")
__success __retval(-14)
int bits_new_efault(void *ctx)
{
	struct bpf_iter_bits it;
	int err = bpf_iter_bits_new(&it, (const __u64 *)8, 1);

	bpf_iter_bits_destroy(&it);
	return err;
}

SEC("syscall")
__failure __msg("Unreleased reference id=1 alloc_insn=")
__msg("BPF_EXIT instruction in main prog would lead to reference leak")
int num_leak(void *ctx)
{
	struct bpf_iter_num it;

	bpf_iter_num_new(&it, 0, 10);
	return 0;
}

/* A NULL iterator is refused before its register type is looked at. */
SEC("syscall")
__failure __msg("Possibly NULL pointer passed to trusted arg0")
int num_new_null(void *ctx)
{
	bpf_iter_num_new((struct bpf_iter_num *)0, 0, 10);
	return 0;
}

/* check_func_arg_reg_off comes first: a modified ctx pointer is refused in its words, not as a non-stack iterator. */
SEC("syscall")
__failure __msg("dereference of modified ctx ptr R1 off=8 disallowed")
int num_new_on_modified_ctx(void *ctx)
{
	bpf_iter_num_new((struct bpf_iter_num *)((char *)ctx + 8), 0, 10);
	return 0;
}

SEC("syscall")
__failure __msg("expected an initialized iter_num as arg #0")
int num_next_uninit(void *ctx)
{
	struct bpf_iter_num it;

	bpf_iter_num_next(&it);
	return 0;
}

SEC("syscall")
__failure __msg("expected uninitialized iter_num as arg #0")
int num_new_twice(void *ctx)
{
	struct bpf_iter_num it;

	bpf_iter_num_new(&it, 0, 10);
	bpf_iter_num_new(&it, 0, 10);
	bpf_iter_num_destroy(&it);
	return 0;
}

/* The element pointer is NULL once the iterator is drained. */
SEC("syscall")
__failure __msg("invalid mem access 'scalar'")
int num_next_null_deref(void *ctx)
{
	struct bpf_iter_num it;
	int *v, r;

	bpf_iter_num_new(&it, 0, 10);
	v = bpf_iter_num_next(&it);
	r = *v;
	bpf_iter_num_destroy(&it);
	return r;
}

/* Nested loops converge as the kernel's do (6.18: a loop closed at an iterator's next call takes the closing
 * checkpoint's precision marks later, through its backedges, so an imprecise counter is widened): iters.c's
 * iter_nested_deeply_iters, five levels deep, in 300 processed insns on both. */
SEC("tc") __success __retval(81)
int nested_deeply(struct __sk_buff *skb)
{
	int sum = 0;

	bpf_repeat(3) {
		bpf_repeat(3) {
			bpf_repeat(3) {
				bpf_repeat(3) {
					bpf_repeat(3) {
						sum += 1;
					}
				}
			}
		}
		break; /* out of the outermost loop after one round */
	}
	return sum;
}

SEC("tc") __success __retval(12)
int nested_two_counters(struct __sk_buff *skb)
{
	int a = 0, b = 0;

	bpf_repeat(3) {
		a += 1;
		bpf_repeat(3)
			b += 1;
	}
	return a + b;
}

SEC("tc") __success __retval(70)
int nested_for_sum(struct __sk_buff *skb)
{
	int i, j, sum = 0;

	bpf_for(i, 0, 4) {
		bpf_for(j, 0, 5)
			sum += i + j;
	}
	return sum;
}
