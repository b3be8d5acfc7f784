// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Dynptrs over local memory (bpf_dynptr_from_mem on map values) and ring buffer records
 * (bpf_ringbuf_reserve_dynptr): the helpers' and kfuncs' answers (errno values, offsets, sizes, read-only views),
 * and the verifier's rules on the dynptr's stack slots, its slices and the reservation's reference. */
#include "dynptr_kfuncs.h"
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[64]);
} arr SEC(".maps");

char buf[32] = "0123456789abcdefghijklmnopqrstu";
char other[32];

/* Write, read back, and the errors of read and write past the end or with flags. */
SEC("syscall")
__success __retval(0)
int local_read_write(void *ctx)
{
	struct bpf_dynptr d;
	char out[4] = {};
	char in[2] = {'X', 'Y'};

	if (bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d))
		return 1;
	if (bpf_dynptr_read(out, 4, &d, 10, 0) || out[0] != 'a' || out[3] != 'd')
		return 2;
	if (bpf_dynptr_write(&d, 31, in, 2, 0) != -7) /* -E2BIG: 31 + 2 > 32 */
		return 3;
	if (bpf_dynptr_write(&d, 29, in, 2, 0) || buf[29] != 'X' || buf[30] != 'Y')
		return 4;
	if (bpf_dynptr_read(out, 4, &d, 29, 0) != -7)
		return 5;
	if (bpf_dynptr_read(out, 4, &d, 0, 1) != -22) /* -EINVAL: flags */
		return 6;
	if (bpf_dynptr_write(&d, 0, in, 2, 1) != -22)
		return 7;
	if (bpf_dynptr_read(out, 0, &d, 32, 0)) /* an empty read at the end */
		return 8;
	return 0;
}

/* flags make a NULL dynptr: every later call answers as for NULL. */
SEC("syscall")
__success __retval(0)
int local_null(void *ctx)
{
	struct bpf_dynptr d;
	char out[4];

	if (bpf_dynptr_from_mem(buf, sizeof(buf), 1, &d) != -22)
		return 1;
	if (!bpf_dynptr_is_null(&d) || bpf_dynptr_is_rdonly(&d))
		return 2;
	if (bpf_dynptr_size(&d) != (__u32)-22)
		return 3;
	if (bpf_dynptr_read(out, 4, &d, 0, 0) != -22)
		return 4;
	if (bpf_dynptr_data(&d, 0, 4))
		return 5;
	if (bpf_dynptr_adjust(&d, 0, 0) != -22)
		return 6;
	if (bpf_dynptr_slice(&d, 0, NULL, 4))
		return 7;
	return 0;
}

/* bpf_dynptr_data and the slices point into the memory itself; out of range they are NULL. */
SEC("syscall")
__success __retval(0)
int local_data_slice(void *ctx)
{
	struct bpf_dynptr d;
	char *p;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	p = bpf_dynptr_data(&d, 4, 2);
	if (!p || p[0] != '4')
		return 1;
	p[1] = '!';
	if (buf[5] != '!')
		return 2;
	if (bpf_dynptr_data(&d, 31, 2))
		return 3;
	p = bpf_dynptr_slice(&d, 8, NULL, 4);
	if (!p || p[0] != '8')
		return 4;
	if (bpf_dynptr_slice(&d, 30, NULL, 4))
		return 5;
	if (bpf_dynptr_is_null(&d) || bpf_dynptr_size(&d) != 32)
		return 6;
	return 0;
}

/* adjust narrows the view: the offset moves, the size shrinks; -EINVAL for start > end, -ERANGE past the size. */
SEC("syscall")
__success __retval(0)
int local_adjust_clone(void *ctx)
{
	struct bpf_dynptr d, c;
	char out[2] = {};

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	if (bpf_dynptr_adjust(&d, 5, 3) != -22)
		return 1;
	if (bpf_dynptr_adjust(&d, 0, 33) != -34)
		return 2;
	if (bpf_dynptr_clone(&d, &c))
		return 3;
	if (bpf_dynptr_adjust(&d, 10, 20) || bpf_dynptr_size(&d) != 10)
		return 4;
	if (bpf_dynptr_read(out, 2, &d, 0, 0) || out[0] != 'a')
		return 5;
	if (bpf_dynptr_read(out, 2, &d, 9, 0) != -7)
		return 6;
	if (bpf_dynptr_size(&c) != 32) /* the clone keeps the view it was made with */
		return 7;
	if (bpf_dynptr_read(out, 2, &c, 0, 0) || out[0] != '0')
		return 8;
	return 0;
}

/* bpf_dynptr_copy between two local dynptrs, and its -E2BIG. */
SEC("syscall")
__success __retval(0)
int local_copy(void *ctx)
{
	struct bpf_dynptr s, t;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &s);
	bpf_dynptr_from_mem(other, sizeof(other), 0, &t);
	if (bpf_dynptr_copy(&t, 2, &s, 10, 6))
		return 1;
	if (other[2] != 'a' || other[7] != 'f' || other[8])
		return 2;
	if (bpf_dynptr_copy(&t, 30, &s, 0, 4) != -7)
		return 3;
	if (bpf_dynptr_copy(&t, 0, &s, 30, 4) != -7)
		return 4;
	return 0;
}

/* bpf_dynptr_memset: -E2BIG past the end; a NULL dynptr takes only an empty fill. */
char mbuf[32];

SEC("syscall")
__success __retval(0)
int local_memset(void *ctx)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_mem(mbuf, sizeof(mbuf), 0, &d);
	if (bpf_dynptr_memset(&d, 4, 8, 0x5a))
		return 1;
	if (mbuf[3] || mbuf[4] != 0x5a || mbuf[11] != 0x5a || mbuf[12])
		return 2;
	if (bpf_dynptr_memset(&d, 30, 4, 1) != -7)
		return 3;
	bpf_dynptr_from_mem(mbuf, sizeof(mbuf), 1, &d);
	if (bpf_dynptr_memset(&d, 0, 0, 1))
		return 4;
	if (bpf_dynptr_memset(&d, 0, 1, 1) != -7)
		return 5;
	return 0;
}

/* A map value of a lookup is local memory too. */
SEC("syscall")
__success __retval(64)
int local_map_value(void *ctx)
{
	struct bpf_dynptr d;
	__u32 key = 0;
	char *v = bpf_map_lookup_elem(&arr, &key);

	if (!v)
		return -1;
	bpf_dynptr_from_mem(v, 64, 0, &d);
	return bpf_dynptr_size(&d);
}

/* A ring buffer record as a dynptr: written through the dynptr, submitted; flags and an oversized record fail
 * (-EINVAL, the dynptr NULL), and must still be discarded. */
SEC("syscall")
__success __retval(0)
int ringbuf_dynptr(void *ctx)
{
	struct bpf_dynptr d;
	__u64 v = 42;
	int err;

	if (bpf_ringbuf_reserve_dynptr(&rb, 16, 0, &d)) {
		bpf_ringbuf_discard_dynptr(&d, 0);
		return 1;
	}
	if (bpf_dynptr_size(&d) != 16 || bpf_dynptr_write(&d, 8, &v, 8, 0)) {
		bpf_ringbuf_discard_dynptr(&d, 0);
		return 2;
	}
	bpf_ringbuf_submit_dynptr(&d, 0);
	err = bpf_ringbuf_reserve_dynptr(&rb, 8, 1, &d);
	bpf_ringbuf_discard_dynptr(&d, 0);
	if (err != -22)
		return 3;
	err = bpf_ringbuf_reserve_dynptr(&rb, 8192, 0, &d);
	bpf_ringbuf_discard_dynptr(&d, 0);
	if (err != -22)
		return 4;
	return 0;
}

/* A global function takes a const struct bpf_dynptr * (the kernel treats it as a local dynptr). */
__noinline int read_first(const struct bpf_dynptr *p)
{
	char c = 0;

	if (bpf_dynptr_read(&c, 1, p, 0, 0))
		return -1;
	return c;
}

SEC("syscall")
__success __retval(48)
int global_dynptr_arg(void *ctx)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	return read_first(&d);
}

/* ---- the verifier's rules ---- */

/* A kfunc's dynptr argument that is neither on the stack nor a const dynptr pointer: process_dynptr_func's words
 * (6.18 no longer checks the register type in check_kfunc_args first, which said "... or dynptr_ptr"). */
SEC("syscall")
__failure __msg("arg#0 expected pointer to stack or const struct bpf_dynptr")
int kfunc_dynptr_in_map_value(void *ctx)
{
	return bpf_dynptr_size((struct bpf_dynptr *)buf);
}

SEC("syscall")
__failure __msg("Possibly NULL pointer passed to trusted arg0")
int kfunc_dynptr_null(void *ctx)
{
	return bpf_dynptr_size((struct bpf_dynptr *)0);
}

SEC("syscall")
__failure __msg("dereference of modified ctx ptr R1 off=8 disallowed")
int kfunc_dynptr_on_modified_ctx(void *ctx)
{
	return bpf_dynptr_size((struct bpf_dynptr *)((char *)ctx + 8));
}

SEC("syscall")
__failure __msg("Unreleased reference id=2")
int ringbuf_dynptr_leak(void *ctx)
{
	struct bpf_dynptr d;

	bpf_ringbuf_reserve_dynptr(&rb, 8, 0, &d);
	return 0;
}

SEC("syscall")
__failure __msg("cannot overwrite referenced dynptr")
int ringbuf_dynptr_overwrite(void *ctx)
{
	struct bpf_dynptr d;

	bpf_ringbuf_reserve_dynptr(&rb, 8, 0, &d);
	*(volatile __u64 *)&d = 0;
	bpf_ringbuf_discard_dynptr(&d, 0);
	return 0;
}

SEC("syscall")
__failure __msg("Expected an initialized dynptr as arg #0")
int ringbuf_dynptr_use_after_submit(void *ctx)
{
	struct bpf_dynptr d;

	bpf_ringbuf_reserve_dynptr(&rb, 8, 0, &d);
	bpf_ringbuf_submit_dynptr(&d, 0);
	return bpf_dynptr_size(&d);
}

SEC("syscall")
__failure __msg("arg 1 is an unacquired reference")
int local_dynptr_submitted(void *ctx)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	bpf_ringbuf_submit_dynptr(&d, 0);
	return 0;
}

SEC("syscall")
__failure __msg("invalid read from stack off -16+0 size 8")
int dynptr_bytes_read(void *ctx)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	return *(volatile __u64 *)&d;
}

SEC("syscall")
__failure __msg("Unsupported reg type fp for bpf_dynptr_from_mem data")
int from_mem_stack(void *ctx)
{
	struct bpf_dynptr d;
	char local[8] = {};

	bpf_dynptr_from_mem(local, sizeof(local), 0, &d);
	return 0;
}

/* Overwriting a local dynptr destroys it and bpf_dynptr_data's slices of it. */
SEC("syscall")
__failure __msg("invalid mem access 'scalar'")
int slice_after_overwrite(void *ctx)
{
	struct bpf_dynptr d;
	char *p;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	p = bpf_dynptr_data(&d, 0, 1);
	if (!p)
		return 0;
	*(volatile __u64 *)&d = 0;
	return *p;
}

/* Submitting a ring buffer dynptr invalidates its slices, the kfuncs' too, and those of its clones. */
SEC("syscall")
__failure __msg("invalid mem access 'scalar'")
int slice_after_submit(void *ctx)
{
	struct bpf_dynptr d, c;
	char *p;

	bpf_ringbuf_reserve_dynptr(&rb, 8, 0, &d);
	bpf_dynptr_clone(&d, &c);
	p = bpf_dynptr_slice(&c, 0, NULL, 1);
	if (!p) {
		bpf_ringbuf_discard_dynptr(&d, 0);
		return 0;
	}
	bpf_ringbuf_submit_dynptr(&d, 0);
	return *p;
}

SEC("syscall")
__failure __msg("cannot write into rdonly_mem")
int slice_rdonly_write(void *ctx)
{
	struct bpf_dynptr d;
	char *p;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	p = bpf_dynptr_slice(&d, 0, NULL, 1);
	if (!p)
		return 0;
	*p = 1;
	return 0;
}

SEC("syscall")
__failure __msg("the prog does not allow writes to packet data") __kernel_variant("!no_slice_rdwr")
int slice_rdwr_syscall(void *ctx)
{
	struct bpf_dynptr d;
	char *p;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	p = bpf_dynptr_slice_rdwr(&d, 0, NULL, 1);
	return p ? *p : 0;
}

/* A 6.18 build that refuses bpf_dynptr_slice_rdwr does so after checking its arguments, in every program type. */
SEC("syscall")
__failure __msg("bpf_dynptr_slice_rdwr() is not allowed") __kernel_variant("no_slice_rdwr")
int slice_rdwr_refused_syscall(void *ctx)
{
	struct bpf_dynptr d;
	char *p;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	p = bpf_dynptr_slice_rdwr(&d, 0, NULL, 1);
	return p ? *p : 0;
}

SEC("syscall")
__failure __msg("Caller passes invalid args into func#1 ('read_first')")
int global_dynptr_uninit(void *ctx)
{
	struct bpf_dynptr d;

	return read_first(&d);
}

/* bpf_user_ringbuf_drain's callback gets a const struct bpf_dynptr * (dynptr_ptr) to each sample. */
struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 4096);
} urb SEC(".maps");

static long drain_read(struct bpf_dynptr *p, void *ctx)
{
	__u64 v = 0;

	bpf_dynptr_read(&v, sizeof(v), p, 0, 0);
	*(__u64 *)ctx += v;
	return 0;
}

/* Drains the empty ring (maps_user_ringbuf.bpf.c drains samples). */
SEC("syscall")
__success __retval(0)
int user_ringbuf_drain_empty(void *ctx)
{
	__u64 sum = 0;

	return bpf_user_ringbuf_drain(&urb, drain_read, &sum, 0);
}

static long drain_submit(struct bpf_dynptr *p, void *ctx)
{
	bpf_ringbuf_submit_dynptr(p, 0);
	return 0;
}

SEC("syscall")
__failure __msg("cannot release unowned const bpf_dynptr")
int user_ringbuf_release_const(void *ctx)
{
	return bpf_user_ringbuf_drain(&urb, drain_submit, NULL, 0);
}

static long drain_load(struct bpf_dynptr *p, void *ctx)
{
	return *(volatile __u8 *)p;
}

SEC("syscall")
__failure __msg("invalid mem access 'dynptr_ptr'")
int user_ringbuf_load_dynptr(void *ctx)
{
	return bpf_user_ringbuf_drain(&urb, drain_load, NULL, 0);
}

static long drain_offset(struct bpf_dynptr *p, void *ctx)
{
	__u64 v;

	bpf_dynptr_read(&v, sizeof(v), (void *)p + 8, 0, 0);
	return 0;
}

SEC("syscall")
__failure __msg("dereference of modified dynptr_ptr ptr R3 off=8 disallowed")
int user_ringbuf_modified_dynptr(void *ctx)
{
	return bpf_user_ringbuf_drain(&urb, drain_offset, NULL, 0);
}
