// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The dynptr kfuncs as Linux 6.18's vmlinux BTF declares them. */
#pragma once
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym __weak;
extern int bpf_dynptr_from_xdp(struct xdp_md *x, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym __weak;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym __weak;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
				   __u32 buffer__szk) __ksym __weak;
extern int bpf_dynptr_adjust(const struct bpf_dynptr *p, __u32 start, __u32 end) __ksym __weak;
extern int bpf_dynptr_clone(const struct bpf_dynptr *p, struct bpf_dynptr *clone__uninit) __ksym __weak;
extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym __weak;
extern _Bool bpf_dynptr_is_null(const struct bpf_dynptr *p) __ksym __weak;
extern _Bool bpf_dynptr_is_rdonly(const struct bpf_dynptr *p) __ksym __weak;
extern int bpf_dynptr_memset(struct bpf_dynptr *p, __u32 offset, __u32 size, __u8 val) __ksym __weak;
extern int bpf_dynptr_copy(struct bpf_dynptr *dst_ptr, __u32 dst_off, struct bpf_dynptr *src_ptr, __u32 src_off,
			   __u32 size) __ksym __weak;
