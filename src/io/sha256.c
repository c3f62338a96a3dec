/* SPDX-License-Identifier: MIT */
/* SHA-256 through libmd; reading files and hex here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "io/infile.h"
#include "io/sha256.h"

void ts_sha256_init(struct ts_sha256 *s)
{
	SHA256Init(&s->ctx);
}

void ts_sha256_update(struct ts_sha256 *s, const void *data, size_t len)
{
	SHA256Update(&s->ctx, data, len);
}

void ts_sha256_final(struct ts_sha256 *s, uint8_t out[TS_SHA256_LEN])
{
	SHA256Final(out, &s->ctx);
}

void ts_sha256_hex(const uint8_t digest[TS_SHA256_LEN], char hex[2 * TS_SHA256_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned int i;

	for (i = 0; i < TS_SHA256_LEN; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[2 * TS_SHA256_LEN] = '\0';
}

int ts_sha256_fd(int fd, char hex[2 * TS_SHA256_LEN + 1])
{
	uint8_t buf[65536], digest[TS_SHA256_LEN];
	struct ts_sha256 s;
	ssize_t n;

	ts_sha256_init(&s);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		ts_sha256_update(&s, buf, (size_t)n);
	}
	ts_sha256_final(&s, digest);
	ts_sha256_hex(digest, hex);
	return 0;
}

int ts_sha256_file(const char *path, char hex[2 * TS_SHA256_LEN + 1])
{
	struct ts_err err;
	/* A regular file only: a FIFO would never end the wait, /dev/zero the hash (io/infile.h). */
	int fd = ts_in_open(path, &err), ret;

	if (fd < 0)
		return fd;
	ret = ts_sha256_fd(fd, hex);
	close(fd);
	return ret;
}
