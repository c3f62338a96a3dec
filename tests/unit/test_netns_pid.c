/* SPDX-License-Identifier: MIT */
/* Namespaces named by a process in them, "pid:PID" (net/netns.h): no root needed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/netns.h"
#include "tsu.h"

/* Anything but a decimal pid above 0 after "pid:" is refused, naming what was expected. */
static void test_bad(void)
{
	static const char *const bad[] = {"pid:",     "pid:0",		 "pid:-1",
					  "pid:+5",   "pid: 5",		 "pid:5x",
					  "pid:0x10", "pid:99999999999", "pid:2147483648"};
	struct ts_netns ns;
	struct ts_err e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.msg[0] = '\0';
		TSU_EQ(ts_netns_open(&ns, bad[i], &e), -EINVAL);
		TSU_EQ(ns.fd, -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "expected pid:PID"));
	}
}

/* This process's own namespace, by its pid: the same namespace as /proc/self/ns/net. */
static void test_self(void)
{
	struct ts_netns ns;
	struct ts_err e;
	struct stat a, b;
	char spec[32];

	snprintf(spec, sizeof(spec), "pid:%ld", (long)getpid());
	TSU_EQ(ts_netns_open(&ns, spec, &e), 0);
	CU_ASSERT_FATAL(ns.fd >= 0);
	CU_ASSERT(!ns.owned);
	CU_ASSERT_STRING_EQUAL(ns.name, spec);
	TSU_EQ(fstat(ns.fd, &a), 0);
	TSU_EQ(stat("/proc/self/ns/net", &b), 0);
	CU_ASSERT(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	TSU_EQ(ts_netns_destroy(&ns, NULL), 0);
	TSU_EQ(ns.fd, -1);
}

/* A pid no process has: refused (pidfd_open), not mistaken for a name under /run/netns. */
static void test_gone(void)
{
	struct ts_netns ns;
	struct ts_err e;

	CU_ASSERT(ts_netns_open(&ns, "pid:2147483647", &e) < 0);
	TSU_EQ(ns.fd, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no process 2147483647"));
}

static const struct tsu_test tests[] = {
	{"malformed pid", test_bad},
	{"own namespace by pid", test_self},
	{"no such process", test_gone},
};

TSU_MAIN("netns_pid", tests)
