/* SPDX-License-Identifier: MIT */
/*
 * tasshape sim's run without the front end (run/simrun.h): a constant
 * 12 Mbit/s link, 1500-byte packets (1 ms each on the link), one second.
 */
#include <string.h>

#include "run/simrun.h"
#include "tsu.h"

#define SEC 1000000000LL

/* Simulate @up_bps upward only; the up direction's network pipe stats into @st. */
static void sim(uint64_t up_bps, struct ts_pipe_stats *st, uint64_t *down_in)
{
	struct ts_linkcfg link;
	struct ts_sim_req q = {.duration = SEC,
			       .offered_dir = {up_bps, 0},
			       .dir_given = {true, true},
			       .pkt_size = 1500};
	struct ts_sim_run r;
	struct ts_err err;

	ts_linkcfg_init(&link);
	link.trace = "const:12mbit";
	q.link = &link;
	TSU_EQ(ts_sim_init(&r), 0);
	TSU_EQ(ts_sim_setup(&r, &q, &err), 0);
	TSU_EQ(q.duration, SEC);
	ts_sim_loop(&r, q.duration, q.pkt_size);
	*st = r.dirs[TS_UP].pipe[TS_PLACE_NETWORK].stats;
	*down_in = r.dirs[TS_DOWN].pipe[TS_PLACE_NETWORK].stats.pkts_in;
	TSU_EQ(r.no_desc[TS_UP], 0);
	ts_sim_fini(&r, q.duration);
	ts_linkcfg_free(&link);
}

/* 6 Mbit/s: a packet every 2 ms, 500 in [0, 1 s), each through before the next comes. */
static void test_under(void)
{
	struct ts_pipe_stats st;
	uint64_t down, drops = 0;
	size_t i;

	sim(6000000, &st, &down);
	TSU_EQ(st.pkts_in, 500);
	for (i = 0; i < TS_DROP__COUNT; i++)
		drops += st.drops[i];
	TSU_EQ(drops, 0);
	CU_ASSERT(st.pkts_out >= 499 && st.pkts_out <= 500);
	TSU_EQ(down, 0); /* no source downward */
}

/* 48 Mbit/s: 4000 in; the link delivers its 12 Mbit/s (1000 packets), the rest waits or drops. */
static void test_over(void)
{
	struct ts_pipe_stats st;
	uint64_t down, drops = 0;
	size_t i;

	sim(48000000, &st, &down);
	TSU_EQ(st.pkts_in, 4000);
	CU_ASSERT(st.pkts_out >= 995 && st.pkts_out <= 1000);
	for (i = 0; i < TS_DROP__COUNT; i++)
		drops += st.drops[i];
	CU_ASSERT(drops > 1000);
}

static const struct tsu_test tests[] = {
	{"under capacity: every packet through", test_under},
	{"over capacity: the link's rate", test_over},
};

TSU_MAIN("simrun", tests)
