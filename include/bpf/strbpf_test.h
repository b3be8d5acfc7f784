// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Test annotations for BPF C programs run by `strbpf test`: the same BTF decl tags the kernel's
 * selftests (bpf_misc.h) emit, so kernel selftest files and ours run through one runner.
 * Include after <bpf/bpf_helpers.h>. */
#ifndef STRBPF_TEST_H
#define STRBPF_TEST_H

#define STRBPF_XSTR(s) STRBPF_STR(s)
#define STRBPF_STR(s) #s

#ifndef __success
#define __success __attribute__((btf_decl_tag("comment:test_expect_success")))
#define __failure __attribute__((btf_decl_tag("comment:test_expect_failure")))
#define __msg(msg) __attribute__((btf_decl_tag("comment:test_expect_msg=" STRBPF_XSTR(__COUNTER__) "=" msg)))
#define __regex(re) __attribute__((btf_decl_tag("comment:test_expect_regex=" STRBPF_XSTR(__COUNTER__) "=" re)))
#define __retval(val) __attribute__((btf_decl_tag("comment:test_retval=" STRBPF_XSTR(val))))
#define __description(desc) __attribute__((btf_decl_tag("comment:test_description=" desc)))
#endif

/* The rest of test_loader's tags (Linux 6.18's bpf_misc.h), each only where bpf_misc.h did not define it.
 * `strbpf test` judges every one of them or skips the test with the reason (docs/testing.md). */
#ifndef __success_unpriv
#define __success_unpriv __attribute__((btf_decl_tag("comment:test_expect_success_unpriv")))
#define __failure_unpriv __attribute__((btf_decl_tag("comment:test_expect_failure_unpriv")))
#define __msg_unpriv(msg) \
    __attribute__((btf_decl_tag("comment:test_expect_msg_unpriv=" STRBPF_XSTR(__COUNTER__) "=" msg)))
#define __retval_unpriv(val) __attribute__((btf_decl_tag("comment:test_retval_unpriv=" STRBPF_XSTR(val))))
#endif
#ifndef __not_msg
#define __not_msg(msg) __attribute__((btf_decl_tag("comment:test_expect_not_msg=" STRBPF_XSTR(__COUNTER__) "=" msg)))
#define __not_msg_unpriv(msg) \
    __attribute__((btf_decl_tag("comment:test_expect_not_msg_unpriv=" STRBPF_XSTR(__COUNTER__) "=" msg)))
#endif
#ifndef __xlated
#define __xlated(msg) __attribute__((btf_decl_tag("comment:test_expect_xlated=" STRBPF_XSTR(__COUNTER__) "=" msg)))
#define __xlated_unpriv(msg) \
    __attribute__((btf_decl_tag("comment:test_expect_xlated_unpriv=" STRBPF_XSTR(__COUNTER__) "=" msg)))
#define __jited(msg) __attribute__((btf_decl_tag("comment:test_jited=" STRBPF_XSTR(__COUNTER__) "=" msg)))
#define __jited_unpriv(msg) __attribute__((btf_decl_tag("comment:test_jited_unpriv=" STRBPF_XSTR(__COUNTER__) "=" msg)))
#endif
#ifndef __log_level
#define __log_level(lvl) __attribute__((btf_decl_tag("comment:test_log_level=" #lvl)))
#define __flag(flag) __attribute__((btf_decl_tag("comment:test_prog_flags=" #flag)))
#define __auxiliary __attribute__((btf_decl_tag("comment:test_auxiliary")))
#define __auxiliary_unpriv __attribute__((btf_decl_tag("comment:test_auxiliary_unpriv")))
#define __btf_path(path) __attribute__((btf_decl_tag("comment:test_btf_path=" path)))
#define __arch(arch) __attribute__((btf_decl_tag("comment:test_arch=" arch)))
#define __arch_x86_64 __arch("X86_64")
#define __arch_arm64 __arch("ARM64")
#define __arch_riscv64 __arch("RISCV64")
#define __arch_s390x __arch("s390x")
#endif
#ifndef __caps_unpriv
#define __caps_unpriv(caps) __attribute__((btf_decl_tag("comment:test_caps_unpriv=" STRBPF_XSTR(caps))))
#define __load_if_JITed() __attribute__((btf_decl_tag("comment:load_mode=jited")))
#define __load_if_no_JITed() __attribute__((btf_decl_tag("comment:load_mode=no_jited")))
#endif

/* __retval's magic values (6.18): POINTER_VALUE is not compared; TEST_DATA_LEN is the test run's packet size. */
#ifndef POINTER_VALUE
#define POINTER_VALUE 0xbadcafe
#define TEST_DATA_LEN 64
#endif
/* Capability numbers for __caps_unpriv (include/uapi/linux/capability.h). */
#ifndef CAP_NET_ADMIN
#define CAP_NET_ADMIN 12
#define CAP_SYS_ADMIN 21
#define CAP_PERFMON 38
#define CAP_BPF 39
#endif

/* strbpf's own tags (the kernel's test_loader ignores them): the packet or ctx bytes a test run gets, as hex. */
#define __data_hex(hex) __attribute__((btf_decl_tag("comment:strbpf_data_hex=" hex)))
#define __ctx_hex(hex) __attribute__((btf_decl_tag("comment:strbpf_ctx_hex=" hex)))
/* The expected rejection depends on facts only a verifier knows (register bounds): engines that run without
 * strbpf's verifier report the test as skipped, with that reason. */
#define __needs_verifier __attribute__((btf_decl_tag("comment:strbpf_needs_verifier=1")))
/* The expectation holds on Linux 6.18 builds with (or, "!fact", without) each named fact of strbpf's
 * verifier/kernel_variant.hpp, e.g. __kernel_variant("!no_slice_rdwr"); an engine modelling another build reports
 * the test as skipped, naming the fact. */
#define __kernel_variant(facts) __attribute__((btf_decl_tag("comment:strbpf_kernel_variant=" facts)))

/* errno values as the kernel returns them (include/uapi/asm-generic/errno-base.h). */
#ifndef ENOENT
#define ENOENT 2
#define E2BIG 7
#define EACCES 13
#define EFAULT 14
#define EEXIST 17
#define EINVAL 22
#define ERANGE 34
#endif

#endif /* STRBPF_TEST_H */
