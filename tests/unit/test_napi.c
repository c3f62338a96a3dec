/* SPDX-License-Identifier: MIT */
/*
 * Which task is a link's NAPI thread (run/napi.c), and packets a NAPI ring dropped count in the
 * fell-behind rule (run/run_summary.c): made-up names and counters.
 */
#include <string.h>

#include "link/linkcfg.h"
#include "run/napi.h"
#include "run/run_summary.h"
#include "tsu.h"

#define KTHREAD 0x00200000ul

/* "napi/LINK-ID" of a kernel thread; 15 bytes of it when the kernel cut the name. */
static void test_thread_of(void)
{
	TSU_EQ(ts_napi_thread_of("napi/tas86-0i-8", KTHREAD, "tas86-0i"), 1);
	TSU_EQ(ts_napi_thread_of("napi/tas86-0i-8193", KTHREAD | 0x40, "tas86-0i"), 1);
	/* A pid of seven digits: the name is cut inside the link's, which is all there is. */
	TSU_EQ(ts_napi_thread_of("napi/tas1234567", KTHREAD, "tas1234567-0i"), 1);
	/* Another link, a longer name with the same start, another pid with the same start. */
	TSU_EQ(ts_napi_thread_of("napi/tas86-0d-9", KTHREAD, "tas86-0i"), 0);
	TSU_EQ(ts_napi_thread_of("napi/tas86-0in-9", KTHREAD, "tas86-0i"), 0);
	TSU_EQ(ts_napi_thread_of("napi/tas861-0i-9", KTHREAD, "tas86-0i"), 0);
	/* A process may call itself anything: only a kernel thread is one. */
	TSU_EQ(ts_napi_thread_of("napi/tas86-0i-8", 0x00400000ul, "tas86-0i"), 0);
	TSU_EQ(ts_napi_thread_of("napi/tas86", KTHREAD, "tas86-0i"), 0);
	TSU_EQ(ts_napi_thread_of("", KTHREAD, "tas86-0i"), 0);
}

/*
 * The downlink with --gso or a Wi-Fi MAC (and a downlink hook to release it); the uplink
 * behind a Wi-Fi MAC, per packet or --gso.
 */
static void test_dirs(void)
{
	TSU_EQ(ts_napi_dirs(false, false, true), 0);
	TSU_EQ(ts_napi_dirs(true, false, true), TS_NAPI_DOWN);
	TSU_EQ(ts_napi_dirs(true, true, true), TS_NAPI_UP | TS_NAPI_DOWN);
	TSU_EQ(ts_napi_dirs(false, true, true), TS_NAPI_UP | TS_NAPI_DOWN);
	TSU_EQ(ts_napi_dirs(false, true, false), TS_NAPI_UP);
	TSU_EQ(ts_napi_dirs(true, true, false), TS_NAPI_UP);
	TSU_EQ(ts_napi_dirs(true, false, false), 0);
	CU_ASSERT_STRING_EQUAL(ts_napi_label(0), "");
	CU_ASSERT_STRING_EQUAL(ts_napi_label(TS_NAPI_UP), "up");
	CU_ASSERT_STRING_EQUAL(ts_napi_label(TS_NAPI_DOWN), "down");
	CU_ASSERT_STRING_EQUAL(ts_napi_label(TS_NAPI_UP | TS_NAPI_DOWN), "both");
}

/* A packet lost at a full NAPI ring is lost outside the model: the direction fell behind. */
static void test_ring_drops_count(void)
{
	struct ts_summary s;
	struct ts_fidelity f;

	memset(&s, 0, sizeof(s));
	s.extra[TS_DOWN].ring_dropped = 3;
	f = ts_summary_fidelity(&s, TS_DOWN);
	TSU_EQ(f.kernel_drops, 3);
	f = ts_summary_fidelity(&s, TS_UP);
	TSU_EQ(f.kernel_drops, 0);
	s.extra[TS_UP].kernel_dropped = 1;
	s.extra[TS_UP].user_dropped = 2;
	s.extra[TS_UP].ring_dropped = 4;
	TSU_EQ(ts_summary_fidelity(&s, TS_UP).kernel_drops, 7);
}

static const struct tsu_test tests[] = {
	{"a link's NAPI thread by name and flags", test_thread_of},
	{"NAPI ring drops count in the fell-behind rule", test_ring_drops_count},
	{"which directions' deliveries go to NAPI threads", test_dirs},
};

TSU_MAIN("napi", tests)
