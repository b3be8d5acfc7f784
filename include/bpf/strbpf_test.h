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

/* strbpf's own tags (the kernel's test_loader ignores them): the packet or ctx bytes a test run gets, as hex. */
#define __data_hex(hex) __attribute__((btf_decl_tag("comment:strbpf_data_hex=" hex)))
#define __ctx_hex(hex) __attribute__((btf_decl_tag("comment:strbpf_ctx_hex=" hex)))
/* The expected rejection depends on facts only a verifier knows (register bounds): engines that run without
 * strbpf's verifier report the test as skipped, with that reason. */
#define __needs_verifier __attribute__((btf_decl_tag("comment:strbpf_needs_verifier=1")))

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
