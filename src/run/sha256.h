/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), for the trace hashes of a run manifest: a result
 * names the exact trace bytes it was produced with. Small and dependency
 * free; speed does not matter here (a trace is hashed once per run).
 */
#ifndef TS_RUN_SHA256_H
#define TS_RUN_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define TS_SHA256_LEN 32

struct ts_sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	uint8_t buf[64];
	size_t nbuf;
};

void ts_sha256_init(struct ts_sha256 *s);
void ts_sha256_update(struct ts_sha256 *s, const void *data, size_t len);
/* Writes the 32-byte digest to @out; @s must be initialised again before reuse. */
void ts_sha256_final(struct ts_sha256 *s, uint8_t out[TS_SHA256_LEN]);

/* Lower-case hex of a digest into @hex (65 bytes with the NUL). */
void ts_sha256_hex(const uint8_t digest[TS_SHA256_LEN], char hex[2 * TS_SHA256_LEN + 1]);

/*
 * ts_sha256_file - hash the file at @path into @hex. Returns 0 or a
 * negative errno from opening or reading it.
 */
int ts_sha256_file(const char *path, char hex[2 * TS_SHA256_LEN + 1]);

#endif
