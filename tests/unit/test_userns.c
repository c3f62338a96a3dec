/* SPDX-License-Identifier: MIT */
/* The id maps of a rootless run (net/userns.h): built from subordinate-id files. */
#include <errno.h>
#include <string.h>

#include "net/userns.h"
#include "tsu.h"

static int build(const char *text, const char *name, uint32_t id, struct ts_idmap *m,
		 struct ts_err *e)
{
	return ts_idmap_build(text, strlen(text), "/etc/subuid", name, id, m, e);
}

/* No file content: the user alone, as root inside. */
static void test_single(void)
{
	struct ts_idmap m;
	struct ts_err e;
	char buf[64];

	TSU_EQ(build("", "alice", 1000, &m, &e), 1);
	TSU_EQ(m.r[0].inside, 0);
	TSU_EQ(m.r[0].outside, 1000);
	TSU_EQ(m.r[0].count, 1);
	TSU_EQ(ts_idmap_format(&m, buf, sizeof(buf)), 9);
	CU_ASSERT_STRING_EQUAL(buf, "0 1000 1\n");
}

/* Others' lines are skipped, this user's ranges follow the user from inside id 1 on. */
static void test_ranges(void)
{
	const char *text = "bob:100000:65536\n"
			   "alice:165536:65536\n"
			   "# comment\n"
			   "\n"
			   "1000:300000:10\n"
			   "carol:not a line";
	struct ts_idmap m;
	struct ts_err e;
	char buf[128];

	TSU_EQ(build(text, "alice", 1000, &m, &e), 3);
	TSU_EQ(m.r[1].inside, 1);
	TSU_EQ(m.r[1].outside, 165536);
	TSU_EQ(m.r[1].count, 65536);
	TSU_EQ(m.r[2].inside, 65537);
	TSU_EQ(m.r[2].outside, 300000);
	TSU_EQ(m.r[2].count, 10);
	TSU_EQ(ts_idmap_format(&m, buf, sizeof(buf)), (int)strlen(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0 1000 1\n1 165536 65536\n65537 300000 10\n");
	/* Too small a buffer is refused, not cut. */
	TSU_EQ(ts_idmap_format(&m, buf, 12), -ENOSPC);
	/* Without a passwd name, only the decimal uid matches. */
	TSU_EQ(build(text, NULL, 1000, &m, &e), 2);
	TSU_EQ(m.r[1].outside, 300000);
	/* A name that is a prefix of another's does not match it. */
	TSU_EQ(build("alice2:5000:5\n", "alice", 1000, &m, &e), 1);
}

/* This user's broken lines are errors that name the file and line. */
static void test_bad(void)
{
	struct ts_idmap m;
	struct ts_err e;

	TSU_EQ(build("alice:100000:0\n", "alice", 1000, &m, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "/etc/subuid:1:"));
	TSU_EQ(build("\nalice:-5:10\n", "alice", 1000, &m, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "/etc/subuid:2:"));
	TSU_EQ(build("alice:100000\n", "alice", 1000, &m, &e), -EINVAL);
	TSU_EQ(build("alice:100000:10x\n", "alice", 1000, &m, &e), -EINVAL);
	/* Past the last id the kernel maps (4294967294). */
	TSU_EQ(build("alice:4294967290:5\n", "alice", 1000, &m, &e), 2);
	TSU_EQ(build("alice:4294967290:6\n", "alice", 1000, &m, &e), -EINVAL);
	TSU_EQ(build("alice:99999999999:1\n", "alice", 1000, &m, &e), -EINVAL);
	/* The user's own id cannot be mapped twice. */
	TSU_EQ(build("alice:990:11\n", "alice", 1000, &m, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "own id 1000"));
	TSU_EQ(build("alice:990:10\n", "alice", 1000, &m, &e), 2);
	/* Nor two ranges share an id. */
	TSU_EQ(build("alice:100000:100\nalice:100099:5\n", "alice", 1000, &m, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "/etc/subuid:2:"));
	TSU_EQ(build("alice:100000:100\nalice:100100:5\n", "alice", 1000, &m, &e), 3);
}

/* More ranges than a map holds: refused with the limit, not truncated. */
static void test_limit(void)
{
	char text[4096];
	struct ts_idmap m;
	struct ts_err e;
	size_t off = 0;
	int i;

	for (i = 0; i < TS_IDMAP_MAX - 1; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "alice:%d:10\n",
					100000 + 100 * i);
	TSU_EQ(build(text, "alice", 1000, &m, &e), TS_IDMAP_MAX);
	TSU_EQ(m.r[TS_IDMAP_MAX - 1].inside, 1 + 10 * (TS_IDMAP_MAX - 2));
	snprintf(text + off, sizeof(text) - off, "alice:900000:10\n");
	TSU_EQ(build(text, "alice", 1000, &m, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "more than"));
}

/* TASSHAPE_ROOTLESS: exactly UID:GID, each a decimal id below 4294967295. */
static void test_env(void)
{
	struct ts_err e;
	uid_t u = 1;
	gid_t g = 1;

	TSU_EQ(ts_userns_env_parse("1000:1001", &u, &g, &e), 0);
	TSU_EQ(u, 1000);
	TSU_EQ(g, 1001);
	TSU_EQ(ts_userns_env_parse("0:4294967294", &u, &g, &e), 0);
	TSU_EQ(g, 4294967294u);
	TSU_EQ(ts_userns_env_parse("0:4294967295", &u, &g, &e), -EINVAL);
	TSU_EQ(ts_userns_env_parse("1000", &u, &g, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "TASSHAPE_ROOTLESS='1000'"));
	TSU_EQ(ts_userns_env_parse("1000:", &u, &g, &e), -EINVAL);
	TSU_EQ(ts_userns_env_parse(":5", &u, &g, &e), -EINVAL);
	TSU_EQ(ts_userns_env_parse("-1:5", &u, &g, &e), -EINVAL);
	TSU_EQ(ts_userns_env_parse("1:2:3", &u, &g, &e), -EINVAL);
	TSU_EQ(ts_userns_env_parse("1: 2", &u, &g, &e), -EINVAL);
	TSU_EQ(u, 0); /* untouched by the refusals */
}

static const struct tsu_test tests[] = {
	{"single id", test_single},	 {"subordinate ranges", test_ranges},
	{"broken lines", test_bad},	 {"range limit", test_limit},
	{"TASSHAPE_ROOTLESS", test_env},
};

TSU_MAIN("userns", tests)
