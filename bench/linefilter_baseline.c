// SPDX-License-Identifier: BSD-2-Clause
/* The line filter benchmark's helpers (bench/linefilter_bench.sh):
 *   linefilter_baseline gen BYTES    writes a deterministic web-service log of about BYTES bytes to stdout
 *                                    (about 1 line in 100 holds "ERROR");
 *   linefilter_baseline grep NEEDLE [FILE]
 *                                    the hand-written C filter: prints the lines holding NEEDLE (strstr), read as
 *                                    strbpf-grep reads them (1 MiB blocks, lines split in place). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int gen(unsigned long long bytes)
{
	static const char *levels[] = {"INFO", "INFO", "INFO", "DEBUG", "WARN"};
	static const char *paths[] = {"/api/v1/items", "/api/v1/users", "/static/app.js", "/healthz", "/api/v2/orders"};
	static char out[1 << 16];
	uint64_t s = 88172645463325252ull;
	unsigned long long written = 0;
	setvbuf(stdout, out, _IOFBF, sizeof out);
	for (unsigned long i = 0; written < bytes; i++) {
		const uint64_t r = next(&s);
		const char *level = r % 100 == 0 ? "ERROR" : levels[(r >> 8) % 5];
		const int n = printf("2026-12-01T%02u:%02u:%02u.%03uZ host-%02u svc[%u]: %s %s/%u status=%u latency_ms=%u "
				     "req=%016llx\n", (unsigned)(i / 3600000) % 24, (unsigned)(i / 60000) % 60,
				     (unsigned)(i / 1000) % 60, (unsigned)i % 1000, (unsigned)(r >> 16) % 32,
				     1000 + (unsigned)(r >> 24) % 9000, level, paths[(r >> 32) % 5],
				     (unsigned)(r >> 40) % 100000, level[0] == 'E' ? 500u : 200u,
				     (unsigned)(r >> 48) % 900, (unsigned long long)next(&s));
		if (n < 0)
			return 1;
		written += (unsigned long long)n;
	}
	return fflush(stdout) != 0;
}

static int grep(const char *needle, int fd)
{
	static char out[1 << 16];
	size_t cap = 1 << 20, have = 0;
	char *buf = malloc(cap);
	setvbuf(stdout, out, _IOFBF, sizeof out);
	for (;;) {
		if (have == cap - 1)
			buf = realloc(buf, cap *= 2);
		const ssize_t n = read(fd, buf + have, cap - have - 1);
		if (n < 0)
			return 2;
		if (n == 0 && have && buf[have - 1] != '\n')
			buf[have++] = '\n';
		have += (size_t)(n > 0 ? n : 0);
		size_t start = 0;
		for (char *nl; (nl = memchr(buf + start, '\n', have - start));) {
			*nl = 0;
			if (strstr(buf + start, needle)) {
				fwrite(buf + start, 1, (size_t)(nl - (buf + start)), stdout);
				fputc('\n', stdout);
			}
			start = (size_t)(nl - buf) + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (n == 0)
			break;
	}
	free(buf);
	return fflush(stdout) != 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "gen") == 0)
		return gen(strtoull(argv[2], NULL, 0));
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "grep") == 0) {
		const int fd = argc == 4 ? open(argv[3], O_RDONLY) : 0;
		if (fd < 0) {
			perror(argv[3]);
			return 2;
		}
		return grep(argv[2], fd);
	}
	fprintf(stderr, "usage: linefilter_baseline gen BYTES | grep NEEDLE [FILE]\n");
	return 2;
}
