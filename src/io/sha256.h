/* SPDX-License-Identifier: MIT */
/*
 * SHA-256, for the hashes of a run manifest and of experiment results: a
 * result names the exact trace, spec and program bytes it was produced
 * with. A thin layer over libmd (Debian's libmd, the BSD <sha2.h> API),
 * so the hashing itself is a well-kept library's, and callers keep one
 * small interface.
 */
#ifndef TS_IO_SHA256_H
#define TS_IO_SHA256_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <sha2.h>

#define TS_SHA256_LEN 32

struct ts_sha256 {
	SHA2_CTX ctx;
};

void ts_sha256_init(struct ts_sha256 *s);
void ts_sha256_update(struct ts_sha256 *s, const void *data, size_t len);
/* Writes the 32-byte digest to @out; @s must be initialised again before reuse. */
void ts_sha256_final(struct ts_sha256 *s, uint8_t out[TS_SHA256_LEN]);

/* Lower-case hex of a digest into @hex (65 bytes with the NUL). */
void ts_sha256_hex(const uint8_t digest[TS_SHA256_LEN], char hex[2 * TS_SHA256_LEN + 1]);

/*
 * ts_sha256_file - hash the regular file at @path into @hex (opened as
 * io/infile.h's ts_in_open does: a FIFO or device is refused at once with
 * -EINVAL). Returns 0 or a negative errno from opening or reading it.
 */
int ts_sha256_file(const char *path, char hex[2 * TS_SHA256_LEN + 1]);

/*
 * ts_sha256_fd - hash what is left to read of @fd into @hex (the caller
 * opened it, ts_in_open for a file anyone may have written, and closes
 * it). Returns 0 or a negative errno from reading.
 */
int ts_sha256_fd(int fd, char hex[2 * TS_SHA256_LEN + 1]);

#endif
