// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The kernel's strncmp_bench "no helper" program (tests): a byte loop over cmp_str_len + 1 bytes with the length a
 * .rodata constant the verifier reads (4095: every iteration is explored, ~57,000 processed insns in the kernel). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define STRNCMP_STR_SZ 4096

const volatile unsigned int cmp_str_len = 4095;
/* like the bench, which fills target before load: non-zero bytes, NUL at the end */
const char target[STRNCMP_STR_SZ] = { [0 ... STRNCMP_STR_SZ - 2] = 'b' };
char str[STRNCMP_STR_SZ];
long hits = 0;

static __always_inline int local_strncmp(const char *s1, unsigned int sz, const char *s2)
{
	int ret = 0;
	unsigned int i;

	for (i = 0; i < sz; i++) {
		/* E.g. 0xff > 0x31 */
		ret = (unsigned char)s1[i] - (unsigned char)s2[i];
		if (ret || !s1[i])
			break;
	}
	return ret;
}

SEC("syscall")
__success __retval(0)
int strncmp_no_helper(void *ctx)
{
	if (local_strncmp(str, cmp_str_len + 1, target) < 0)
		__sync_add_and_fetch(&hits, 1);
	return 0;
}

char _license[] SEC("license") = "GPL";
