/* SPDX-License-Identifier: MIT */
/*
 * A sealed guest's users and groups (src/vm/sealed.c): the image carries
 * fixed /etc/passwd and /etc/group, never the host's, so that an account
 * the host gains or loses between two runs does not change a sealed
 * image's bytes. Builds a real image (this host's iptables and libraries,
 * /bin/true standing in for tasshape) in a private directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/infile.h"
#include "tsu.h"
#include "tsu_tmp.h"
#include "vm/sealed.h"

static char dir[] = "/tmp/tasshape-test-sealed-etc.XXXXXX";

static int init(void)
{
	static const char *const ctl[] = {"conf", "argv", "env"};
	char p[128];
	size_t i;
	FILE *f;

	if (tsu_tmp_make(dir) < 0)
		return -1;
	for (i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, ctl[i]);
		f = fopen(p, "w");
		if (!f || fclose(f))
			return -1;
	}
	return 0;
}

static int cleanup(void)
{
	return tsu_tmp_remove(dir);
}

/* Is the text @needle in the @len bytes at @hay? */
static int has(const char *hay, size_t len, const char *needle)
{
	return memmem(hay, len, needle, strlen(needle)) != NULL;
}

static void test_fixed_accounts(void)
{
	struct ts_vm_conf c;
	struct ts_err err;
	char img[128], sha[65], *buf = NULL;
	uint64_t bytes = 0;
	size_t len = 0;

	memset(&c, 0, sizeof(c));
	snprintf(img, sizeof(img), "%s/image.cpio", dir);
	TSU_EQ(ts_vm_seal_build(&c, "/bin/true", NULL, dir, dir, img, &bytes, sha, &err), 0);
	TSU_EQ(ts_in_read(img, (size_t)256 << 20, &buf, &len, &err), 0);
	CU_ASSERT_FATAL(buf != NULL);
	CU_ASSERT_EQUAL(len, bytes);
	CU_ASSERT(has(buf, len,
		      "root:x:0:0:root:/root:/bin/sh\n"
		      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"));
	CU_ASSERT(has(buf, len, "root:x:0:\nnogroup:x:65534:\n"));
	/* Debian's passwd and group always have daemon (uid and gid 1): not packed. */
	CU_ASSERT(!has(buf, len, "daemon:x:1:1:"));
	CU_ASSERT(!has(buf, len, "daemon:x:1:\n"));
	free(buf);
}

static const struct tsu_test tests[] = {
	{"the image's passwd and group are fixed, not the host's", test_fixed_accounts},
};

TSU_MAIN_FIXTURE("sealed_etc", tests, init, cleanup)
