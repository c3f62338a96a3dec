/* SPDX-License-Identifier: MIT */
/* How the CPUs are kept out of idle (run/awake.c): the choice by cpuidle driver, and the names. */
#include <string.h>

#include "run/awake.h"
#include "tsu.h"

/*
 * No cpuidle driver ("none", an empty file, no file: default_idle, HLT) can
 * only be kept awake by something runnable; any driver honours PM QoS.
 */
static void test_choose(void)
{
	TSU_EQ(ts_awake_choose(NULL), TS_AWAKE_POLL);
	TSU_EQ(ts_awake_choose(""), TS_AWAKE_POLL);
	TSU_EQ(ts_awake_choose("none"), TS_AWAKE_POLL);
	TSU_EQ(ts_awake_choose("intel_idle"), TS_AWAKE_PM_QOS);
	TSU_EQ(ts_awake_choose("acpi_idle"), TS_AWAKE_PM_QOS);
	TSU_EQ(ts_awake_choose("haltpoll"), TS_AWAKE_PM_QOS);
	TSU_EQ(ts_awake_choose("nonexistent"), TS_AWAKE_PM_QOS); /* a name, not "none" */
}

/* The marker of a guest in virtual time is a whole word of the command line. */
static void test_vclock(void)
{
	CU_ASSERT_TRUE(ts_awake_vclock("tasshape.clock=virtual"));
	CU_ASSERT_TRUE(ts_awake_vclock("console=ttyS0 quiet tasshape.clock=virtual\n"));
	CU_ASSERT_TRUE(ts_awake_vclock("tasshape.clock=virtual quiet"));
	CU_ASSERT_FALSE(ts_awake_vclock(""));
	CU_ASSERT_FALSE(ts_awake_vclock("console=ttyS0 quiet"));
	CU_ASSERT_FALSE(ts_awake_vclock("tasshape.clock=virtualx"));
	CU_ASSERT_FALSE(ts_awake_vclock("xtasshape.clock=virtual"));
	CU_ASSERT_FALSE(ts_awake_vclock("tasshape.clock=real"));
	CU_ASSERT_TRUE(ts_awake_vclock("xtasshape.clock=virtual tasshape.clock=virtual"));
}

/* The names the summary and manifest carry ("cpu_awake"). */
static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(ts_awake_mode_name(TS_AWAKE_OFF), "off");
	CU_ASSERT_STRING_EQUAL(ts_awake_mode_name(TS_AWAKE_PM_QOS), "pm_qos");
	CU_ASSERT_STRING_EQUAL(ts_awake_mode_name(TS_AWAKE_POLL), "poll");
}

/* Stopping what never started is harmless, and leaves the mode as it was. */
static void test_stop_idle(void)
{
	struct ts_awake a;

	ts_awake_init(&a);
	TSU_EQ(a.qos_fd, -1);
	ts_awake_stop(&a);
	ts_awake_stop(&a);
	TSU_EQ(a.mode, TS_AWAKE_OFF);
	TSU_EQ(a.nthreads, 0);
}

static const struct tsu_test tests[] = {
	{"no cpuidle driver: poll; a driver: PM QoS", test_choose},
	{"the virtual-time marker", test_vclock},
	{"mode names", test_names},
	{"stop without start", test_stop_idle},
};

TSU_MAIN("awake", tests)
