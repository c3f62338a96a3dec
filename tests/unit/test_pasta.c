/* SPDX-License-Identifier: MIT */
/* The resolv.conf a CMD behind pasta sees (net/pasta.h, ts_pasta_resolv). */
#include <errno.h>
#include <string.h>

#include "net/pasta.h"
#include "tsu.h"

static int rewrite(const char *in, char *out, size_t size)
{
	return ts_pasta_resolv(in, strlen(in), TS_PASTA_DNS, out, size);
}

/* systemd-resolved's stub: the loopback server is replaced, the rest kept. */
static void test_stub(void)
{
	char out[256];
	const char *want = "# stub\nnameserver 169.254.1.1\noptions edns0 trust-ad\nsearch lan\n";

	TSU_EQ(rewrite("# stub\nnameserver 127.0.0.53\noptions edns0 trust-ad\nsearch lan\n", out,
		       sizeof(out)),
	       (int)strlen(want));
	CU_ASSERT_STRING_EQUAL(out, want);
}

/* Several loopback servers (IPv4 and ::1, tabs): one forwarder line; others kept in order. */
static void test_many(void)
{
	char out[256];

	TSU_EQ(rewrite("nameserver\t127.0.0.1\nnameserver 192.0.2.53\nnameserver ::1\n", out,
		       sizeof(out)),
	       (int)strlen(out));
	CU_ASSERT_STRING_EQUAL(out, "nameserver 169.254.1.1\nnameserver 192.0.2.53\n");
	/* The last line without a newline gets one. */
	TSU_EQ(rewrite("nameserver 127.0.0.53", out, sizeof(out)), 23);
	CU_ASSERT_STRING_EQUAL(out, "nameserver 169.254.1.1\n");
}

/* No loopback server: 0, the host's file serves as it is. */
static void test_none(void)
{
	char out[256];

	TSU_EQ(rewrite("nameserver 10.255.255.53\n", out, sizeof(out)), 0);
	TSU_EQ(rewrite("", out, sizeof(out)), 0);
	/* Not a nameserver line: a word that starts the same, a comment. */
	TSU_EQ(rewrite("nameservers 127.0.0.1\n#nameserver 127.0.0.1\n", out, sizeof(out)), 0);
	/* An address that only looks like loopback in part. */
	TSU_EQ(rewrite("nameserver 1127.0.0.1\nnameserver ::10\n", out, sizeof(out)), 0);
}

/* Too small a buffer: refused, not cut. */
static void test_space(void)
{
	char out[16];

	TSU_EQ(rewrite("nameserver 127.0.0.53\n", out, sizeof(out)), -ENOSPC);
}

static const struct tsu_test tests[] = {
	{"resolved stub", test_stub},
	{"several servers", test_many},
	{"nothing to replace", test_none},
	{"buffer too small", test_space},
};

TSU_MAIN("pasta", tests)
