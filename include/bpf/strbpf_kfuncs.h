// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Declarations of the kernel's string kfuncs for BPF C programs (what bpftool's vmlinux.h emits), with their
 * kernel-doc contracts. Every pointer parameter carries __ign: the verifier checks nothing, the kfunc checks at
 * run time. -ERANGE: a pointer's first byte is in the user half, the vsyscall page or non-canonical (x86-64);
 * -EFAULT: a byte read faulted; -E2BIG: 65536 bytes examined without reaching the terminator. */
#ifndef STRBPF_KFUNCS_H
#define STRBPF_KFUNCS_H

#ifndef __ksym
#define __ksym __attribute__((section(".ksyms")))
#endif
#ifndef __weak
#define __weak __attribute__((weak))
#endif

typedef __SIZE_TYPE__ strbpf_size_t;

/**
 * bpf_strcmp - Compare two strings
 * Return: 0 equal, -1 s1 smaller, 1 s2 smaller (unsigned bytes); -EFAULT; -E2BIG; -ERANGE.  Since 6.17.
 */
extern int bpf_strcmp(const char *s1__ign, const char *s2__ign) __weak __ksym;
/**
 * bpf_strcasecmp - Compare two strings, ignoring case (kernel tolower(): ASCII and Latin-1)
 * Return: 0, -1, 1; -EFAULT; -E2BIG; -ERANGE.  Since 6.18.
 */
extern int bpf_strcasecmp(const char *s1__ign, const char *s2__ign) __weak __ksym;
/**
 * bpf_strncasecmp - Compare at most @len bytes of two strings, ignoring case
 * Return: 0, -1, 1; -EFAULT; -E2BIG (len >= 65536 and 65536 equal bytes); -ERANGE.  Since 7.0.
 */
extern int bpf_strncasecmp(const char *s1__ign, const char *s2__ign, strbpf_size_t len) __weak __ksym;
/**
 * bpf_strchr - Find the first occurrence of @c (low 8 bits; 0 finds the terminator)
 * Return: index; -ENOENT; -EFAULT; -E2BIG; -ERANGE.  Since 6.17.
 */
extern int bpf_strchr(const char *s__ign, char c) __weak __ksym;
/**
 * bpf_strchrnul - Find the first occurrence of @c or the terminator
 * Return: index of @c or of the NUL; -EFAULT; -E2BIG; -ERANGE.  Since 6.17.
 */
extern int bpf_strchrnul(const char *s__ign, char c) __weak __ksym;
/**
 * bpf_strnchr - Find @c within the first @count bytes
 * Return: index; -ENOENT (also for @count == 0); -EFAULT; -E2BIG (@count >= 65536); -ERANGE.  Since 6.17.
 */
extern int bpf_strnchr(const char *s__ign, strbpf_size_t count, char c) __weak __ksym;
/**
 * bpf_strrchr - Find the last occurrence of @c (an int: values outside 0..255 never match)
 * Return: index; -ENOENT; -EFAULT; -E2BIG (even after a match); -ERANGE.  Since 6.17.
 */
extern int bpf_strrchr(const char *s__ign, int c) __weak __ksym;
/**
 * bpf_strlen - Length of a string
 * Return: length; -EFAULT; -E2BIG; -ERANGE.  Since 6.17.
 */
extern int bpf_strlen(const char *s__ign) __weak __ksym;
/**
 * bpf_strnlen - Length of a string, at most @count
 * Return: length (@count when no NUL in the first @count bytes); -EFAULT; -E2BIG (@count >= 65536); -ERANGE.
 * Since 6.17.
 */
extern int bpf_strnlen(const char *s__ign, strbpf_size_t count) __weak __ksym;
/**
 * bpf_strspn - Length of the initial segment of @s made of bytes in @accept
 * Return: length; -EFAULT; -E2BIG (@s or @accept unterminated within 65536 bytes); -ERANGE.  Since 6.17.
 */
extern int bpf_strspn(const char *s__ign, const char *accept__ign) __weak __ksym;
/**
 * bpf_strcspn - Length of the initial segment of @s made of bytes not in @reject
 * Return: length; -EFAULT; -E2BIG; -ERANGE.  Since 6.17.
 */
extern int bpf_strcspn(const char *s__ign, const char *reject__ign) __weak __ksym;
/**
 * bpf_strstr - Find the first occurrence of @s2 in @s1 (empty @s2: 0 without reading @s1)
 * Return: index; -ENOENT; -EFAULT; -E2BIG; -ERANGE.  Since 6.17.
 */
extern int bpf_strstr(const char *s1__ign, const char *s2__ign) __weak __ksym;
/**
 * bpf_strcasestr - As bpf_strstr, ignoring case
 * Return: index; -ENOENT; -EFAULT; -E2BIG; -ERANGE.  Since 6.19.
 */
extern int bpf_strcasestr(const char *s1__ign, const char *s2__ign) __weak __ksym;
/**
 * bpf_strnstr - Find @s2 lying entirely within the first @len bytes of @s1
 * Return: index; -ENOENT; -EFAULT; -E2BIG; -ERANGE.  Since 6.17.
 */
extern int bpf_strnstr(const char *s1__ign, const char *s2__ign, strbpf_size_t len) __weak __ksym;
/**
 * bpf_strncasestr - As bpf_strnstr, ignoring case
 * Return: index; -ENOENT; -EFAULT; -E2BIG; -ERANGE.  Since 6.19.
 */
extern int bpf_strncasestr(const char *s1__ign, const char *s2__ign, strbpf_size_t len) __weak __ksym;

#endif /* STRBPF_KFUNCS_H */
