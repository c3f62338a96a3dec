/* SPDX-License-Identifier: MIT */
/* SHA-256 (io/sha256.c) against the FIPS 180-4 example vectors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/sha256.h"
#include "tsu.h"

static void hash_str(const char *s, char hex[65])
{
	uint8_t d[TS_SHA256_LEN];
	struct ts_sha256 c;

	ts_sha256_init(&c);
	ts_sha256_update(&c, s, strlen(s));
	ts_sha256_final(&c, d);
	ts_sha256_hex(d, hex);
}

/* FIPS 180-4 examples: "", "abc" and the 448-bit two-block message. */
static void test_vectors(void)
{
	char hex[65];

	hash_str("", hex);
	CU_ASSERT_STRING_EQUAL(hex,
			       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	hash_str("abc", hex);
	CU_ASSERT_STRING_EQUAL(hex,
			       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* 56 bytes: the padding needs a second block (56 > 55). */
	hash_str("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", hex);
	CU_ASSERT_STRING_EQUAL(hex,
			       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* One million 'a', fed in uneven pieces (1, 63, 64, 1000, ...): same digest as in one go. */
static void test_million_a(void)
{
	static char buf[1000000];
	size_t pieces[] = {1, 63, 64, 1000, 65, 7}, off = 0, k = 0;
	uint8_t d[TS_SHA256_LEN];
	struct ts_sha256 c;
	char hex[65];

	memset(buf, 'a', sizeof(buf));
	ts_sha256_init(&c);
	while (off < sizeof(buf)) {
		size_t n = pieces[k++ % 6];

		if (n > sizeof(buf) - off)
			n = sizeof(buf) - off;
		ts_sha256_update(&c, buf + off, n);
		off += n;
	}
	ts_sha256_final(&c, d);
	ts_sha256_hex(d, hex);
	CU_ASSERT_STRING_EQUAL(hex,
			       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* A file hashes to the digest of its bytes; a missing one is -ENOENT. */
static void test_file(void)
{
	char path[] = "/tmp/tsu-sha256-XXXXXX", hex[65];
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "abc", 3), 3);
	close(fd);
	TSU_EQ(ts_sha256_file(path, hex), 0);
	CU_ASSERT_STRING_EQUAL(hex,
			       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	unlink(path);
	TSU_EQ(ts_sha256_file(path, hex), -ENOENT);
}

static const struct tsu_test tests[] = {
	{"FIPS 180-4 vectors", test_vectors},
	{"one million a, in pieces", test_million_a},
	{"file", test_file},
};

TSU_MAIN("sha256", tests)
