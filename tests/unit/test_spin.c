/* SPDX-License-Identifier: MIT */
/* The poll spin's CPU bound (run/spin.c): a quarter of one CPU, 1 ms of burst. */
#include "run/spin.h"
#include "tsu.h"

#define US 1000LL

/* A full bucket holds 1 ms of polling: 33 spins of 30 us (990 us), not 34. */
static void test_burst(void)
{
	struct ts_spin s;
	int i;

	ts_spin_init(&s, 0);
	for (i = 0; i < 33; i++)
		CU_ASSERT_TRUE(ts_spin_take(&s, 0, 30 * US));
	CU_ASSERT_FALSE(ts_spin_take(&s, 0, 30 * US)); /* 10 us left */
	CU_ASSERT_TRUE(ts_spin_may(&s, 0, 10 * US));
	CU_ASSERT_FALSE(ts_spin_may(&s, 0, 10 * US + 1));
	TSU_EQ(s.credit, 40 * US); /* asking took nothing */
	CU_ASSERT_TRUE(ts_spin_take(&s, 0, 10 * US));
	CU_ASSERT_FALSE(ts_spin_take(&s, 0, 1)); /* empty */
	CU_ASSERT_TRUE(ts_spin_may(&s, 4, 1));	 /* 4 ns accrue 1 ns of polling */
	TSU_EQ(s.credit, 0);
}

/*
 * Empty, a quarter of the time that passes comes back: 120 us buy 30 us,
 * and a spin of 30 us every 120 us is sustained forever; every 119.999 us
 * is not (the first one already fails).
 */
static void test_share(void)
{
	struct ts_spin s;
	ts_ns_t t = 0;
	int i, ok = 0;

	ts_spin_init(&s, 0);
	CU_ASSERT_TRUE(ts_spin_take(&s, 0, 1000 * US)); /* the whole burst */
	for (i = 0; i < 1000; i++) {
		t += 120 * US;
		ok += ts_spin_take(&s, t, 30 * US);
	}
	TSU_EQ(ok, 1000);
	TSU_EQ(s.credit, 0);
	t += 120 * US - 1;
	CU_ASSERT_FALSE(ts_spin_take(&s, t, 30 * US));
	TSU_EQ(s.credit, 120 * US - 1);
	/* Polling 10 s flat out: at most the burst plus a quarter, 1 ms + 2.5 s. */
	ts_spin_init(&s, 0);
	for (t = 0, ok = 0; t < 10000000 * US; t += US)
		ok += ts_spin_take(&s, t, US);
	TSU_EQ(ok, 1000 + 2500000 - 1); /* the last quarter-step's credit is still accruing */
}

/* A long idle gap fills the bucket to 1 ms, not more, and does not overflow. */
static void test_cap(void)
{
	struct ts_spin s;
	int i;

	ts_spin_init(&s, 0);
	CU_ASSERT_TRUE(ts_spin_take(&s, 0, 1000 * US));
	for (i = 0; i < 33; i++)
		CU_ASSERT_TRUE(ts_spin_take(&s, INT64_MAX / 2, 30 * US));
	CU_ASSERT_FALSE(ts_spin_take(&s, INT64_MAX / 2, 30 * US));
}

/* Time going backwards earns nothing; a wait beyond the burst or below zero. */
static void test_edges(void)
{
	struct ts_spin s;

	ts_spin_init(&s, 5000 * US);
	CU_ASSERT_TRUE(ts_spin_take(&s, 5000 * US, 1000 * US));
	CU_ASSERT_FALSE(ts_spin_take(&s, 0, 1));
	TSU_EQ(s.last, 5000 * US);
	CU_ASSERT_TRUE(ts_spin_take(&s, 5000 * US, -5)); /* a deadline already past: free */
	ts_spin_init(&s, 0);
	CU_ASSERT_FALSE(ts_spin_take(&s, 0, 1000 * US + 1));
	TSU_EQ(s.credit, 4000 * US);
}

/*
 * The lead: 30 us to start; a wake later than it raises it by 9 us, one no
 * later lowers it by 1 us; bounded to 10-200 us.
 */
static void test_lead_steps(void)
{
	struct ts_spin s;
	int i;

	ts_spin_init(&s, 0);
	TSU_EQ(s.lead, 30 * US);
	ts_spin_learn(&s, 1000 * US, 1031 * US); /* 31 us late: above the lead */
	TSU_EQ(s.lead, 39 * US);
	ts_spin_learn(&s, 1000 * US, 1039 * US); /* exactly the lead: not above */
	TSU_EQ(s.lead, 38 * US);
	for (i = 0; i < 18; i++)
		ts_spin_learn(&s, 0, 1000 * US);
	TSU_EQ(s.lead, 38 * US + 18 * 9 * US); /* 200 us: the bound, reached exactly */
	ts_spin_learn(&s, 0, 1000 * US);
	TSU_EQ(s.lead, 200 * US);
	for (i = 0; i < 190; i++)
		ts_spin_learn(&s, 5000 * US, 5000 * US);
	TSU_EQ(s.lead, 10 * US);
	ts_spin_learn(&s, 5000 * US, 5000 * US);
	TSU_EQ(s.lead, 10 * US);
}

/*
 * Latencies cycling 10, 20, ... 100 us settle the lead where one wake in ten
 * is later than it: each cycle starts at 100 us, the nine wakes of 10-90 us
 * bring it to 91 us, and the 100 us one back to 100.
 */
static void test_lead_p90(void)
{
	struct ts_spin s;
	int c, v;

	ts_spin_init(&s, 0);
	for (c = 0; c < 100; c++)
		for (v = 10; v <= 100; v += 10)
			ts_spin_learn(&s, 0, v * US);
	TSU_EQ(s.lead, 100 * US);
	for (v = 10; v <= 90; v += 10)
		ts_spin_learn(&s, 0, v * US);
	TSU_EQ(s.lead, 91 * US);
}

#define MS 1000000LL

/*
 * A window of 100 ms whose work (CPU less the polling paid for) is more
 * than half of it makes the next window's lead 30 us at most; exactly half
 * does not. The credit is not the window's business.
 */
static void test_window(void)
{
	struct ts_spin s;
	ts_ns_t cpu = 7 * MS;

	ts_spin_init(&s, 0);
	s.lead = 80 * US;
	CU_ASSERT_TRUE(ts_spin_window_due(&s, 0)); /* no CPU reading yet */
	ts_spin_window(&s, 0, cpu);
	CU_ASSERT_FALSE(s.busy);
	CU_ASSERT_FALSE(ts_spin_window_due(&s, 100 * MS - 1));
	CU_ASSERT_TRUE(ts_spin_window_due(&s, 100 * MS));
	CU_ASSERT_TRUE(ts_spin_take(&s, 10 * MS, 30 * US));
	TSU_EQ(s.win_polled, 30 * US);
	/* 50 ms of work and the 30 us polled: half, not busy. */
	cpu += 50 * MS + 30 * US;
	ts_spin_window(&s, 100 * MS, cpu);
	CU_ASSERT_FALSE(s.busy);
	TSU_EQ(s.win_polled, 0);
	TSU_EQ(ts_spin_lead(&s), 80 * US);
	CU_ASSERT_TRUE(ts_spin_take(&s, 150 * MS, 30 * US));
	/* 1 ns more than half: busy, the lead is held to 30 us; short spins go on. */
	cpu += 50 * MS + 30 * US + 1;
	ts_spin_window(&s, 200 * MS, cpu);
	CU_ASSERT_TRUE(s.busy);
	TSU_EQ(ts_spin_lead(&s), 30 * US);
	TSU_EQ(s.lead, 80 * US); /* what was learnt is kept */
	CU_ASSERT_TRUE(ts_spin_take(&s, 250 * MS, 30 * US));
	/* A lead learnt below 30 us stays as it is. */
	s.lead = 20 * US;
	TSU_EQ(ts_spin_lead(&s), 20 * US);
	s.lead = 80 * US;
	/* A quiet window (10 ms of work) gives the whole lead back. */
	cpu += 10 * MS + 30 * US;
	ts_spin_window(&s, 300 * MS, cpu);
	CU_ASSERT_FALSE(s.busy);
	TSU_EQ(ts_spin_lead(&s), 80 * US);
	TSU_EQ(s.polled, 90 * US); /* three spins of 30 us paid for */
}

/*
 * The windows' work summed over seconds, the busiest kept in permille: ten
 * windows of 60 ms work (30 us polled each, not counted) make 600; ten of
 * 90 ms make 900; a reading 1.5 s late with 300 ms of work makes 200 and
 * leaves 900; a second with more CPU than time (a late reading) counts as
 * 1000.
 */
static void test_work_second(void)
{
	struct ts_spin s;
	ts_ns_t cpu = 7 * MS, t;

	ts_spin_init(&s, 0);
	ts_spin_window(&s, 0, cpu);
	TSU_EQ(s.work_max, -1);
	for (t = 100 * MS; t <= 1000 * MS; t += 100 * MS) {
		CU_ASSERT_TRUE(ts_spin_take(&s, t - 50 * MS, 30 * US));
		cpu += 60 * MS + 30 * US;
		ts_spin_window(&s, t, cpu);
		TSU_EQ(s.work_max, t < 1000 * MS ? -1 : 600);
	}
	for (t = 1100 * MS; t <= 2000 * MS; t += 100 * MS) {
		cpu += 90 * MS;
		ts_spin_window(&s, t, cpu);
	}
	TSU_EQ(s.work_max, 900);
	cpu += 300 * MS;
	ts_spin_window(&s, 3500 * MS, cpu);
	TSU_EQ(s.work_max, 900);
	TSU_EQ(s.sec_work, 0);
	cpu += 1001 * MS;
	ts_spin_window(&s, 4500 * MS, cpu);
	TSU_EQ(s.work_max, 1000);
}

/*
 * The loop waits for deadline @d from *@now as loop_wait does, with a timer
 * that wakes @late after the time it was armed for (and learns from it);
 * a spin ends at @d. Returns the time it slept.
 */
static ts_ns_t wait_for(struct ts_spin *s, ts_ns_t *now, ts_ns_t d, ts_ns_t late)
{
	ts_ns_t arm, slept = 0;

	while (*now < d) {
		if (ts_spin_wait(s, *now, d, &arm)) {
			*now = d;
			break;
		}
		ts_spin_learn(s, arm, arm + late);
		slept += arm + late - *now;
		*now = arm + late;
	}
	return slept;
}

/*
 * A burst of @pkts releases due @gap apart from @t, @work of the loop's CPU
 * after each: how many of the gaps between them the loop slept at least
 * half of (the rest of the gap, after its work, is the CPU's other tasks').
 */
static int burst(struct ts_spin *s, ts_ns_t t, int pkts, ts_ns_t gap, ts_ns_t work, ts_ns_t late)
{
	ts_ns_t now = t, slept;
	int i, half = 0;

	for (i = 0; i < pkts; i++) {
		slept = wait_for(s, &now, t + i * gap, late);
		if (i > 0 && slept * 2 >= gap - work)
			half++;
		now += work;
	}
	return half;
}

/*
 * A guest in virtual time (docs/benchmarks.md, "Sealed guests on a quiet
 * host"): one CPU for the loop and the programs, a timer that wakes 5.5 us
 * after the time it was armed for (the summary's timer_late_ns p50 there),
 * 300 Mbit/s per packet: a release every 40 us, each followed by about
 * 12 us of the loop's work (verdict_call_ns p50 11.5 us). Polling the 28 us
 * left between them, as a lead of 30 us does, held the CPU for a whole
 * burst under SCHED_FIFO: the receiving iperf3 read each burst at once after
 * its end, Linux's receive-buffer tuning (6.12.35 on) then never grew the
 * window past 80 kB, and the flow stalled at 15 Mbit/s of 290 with the CPU
 * 88% idle. Exact wake-ups teach the lead down to its floor, and then the
 * loop sleeps more than half of every gap of a 56-packet burst (the window
 * the flow was held to); held at 30 us, it sleeps in none of them.
 */
static void test_guest_burst(void)
{
	const ts_ns_t late = 5500, gap = 40 * US, work = 12 * US;
	struct ts_spin s;
	ts_ns_t now = 0, t;
	int i;

	ts_spin_init(&s, 0);
	/* Deadlines far apart first, a connection's handshakes: each wake teaches the lead. */
	for (i = 1; i <= 20; i++)
		wait_for(&s, &now, i * MS, late);
	TSU_EQ(s.lead, TS_SPIN_LEAD_MIN);
	t = 40 * MS;
	TSU_EQ(burst(&s, t, 56, gap, work, late), 55);
	TSU_EQ(s.lead, TS_SPIN_LEAD_MIN);
	ts_spin_init(&s, 0);
	TSU_EQ(s.lead, 30 * US);
	TSU_EQ(burst(&s, t, 56, gap, work, late), 0);
}

static const struct tsu_test tests[] = {
	{"a full bucket holds 1 ms of polling", test_burst},
	{"a quarter of elapsed time comes back", test_share},
	{"idle fills the bucket to 1 ms at most", test_cap},
	{"time backwards, waits beyond the burst or past", test_edges},
	{"the lead's steps and bounds", test_lead_steps},
	{"the lead settles at the latency's 90th percentile", test_lead_p90},
	{"a window more than half busy shortens the lead", test_window},
	{"the busiest second's work, in permille", test_work_second},
	{"a guest's burst leaves most of each gap asleep", test_guest_burst},
};

TSU_MAIN("spin", tests)
