/* SPDX-License-Identifier: MIT */
/*
 * The link grammar (link/grammar.c): every key with a good value and a
 * bad one, the exact message of each refusal (the same the wrapper's
 * options and an experiment spec's [link NAME] keys print), flags, unknown
 * keys, keys given in sequence and again, and who owns the strings.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "link/bundled.h"
#include "link/grammar.h"
#include "tsu.h"

#define MS TS_NSEC_PER_MSEC

/* @key = @value must be refused with -EINVAL and exactly @msg, leaving the defaults alone. */
static void refuse(const char *key, const char *value, const char *msg)
{
	struct ts_linkcfg cfg, dflt;
	struct ts_err err;
	int ret;

	ts_linkcfg_init(&cfg);
	ts_linkcfg_init(&dflt);
	err.msg[0] = '\0';
	ret = ts_linkcfg_set(&cfg, key, value, &err);
	if (ret != -EINVAL || strcmp(err.msg, msg))
		fprintf(stderr, "\n  %s=%s: %d '%s'\n  expected '%s'\n", key,
			value ? value : "(flag)", ret, err.msg, msg);
	TSU_EQ(ret, -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	CU_ASSERT(memcmp(&cfg, &dflt, sizeof(cfg)) == 0);
	ts_linkcfg_free(&cfg);
}

/* Set @key = @value, which must be accepted. */
static void set_ok(struct ts_linkcfg *cfg, const char *key, const char *value)
{
	struct ts_err err;
	int ret;

	err.msg[0] = '\0';
	ret = ts_linkcfg_set(cfg, key, value, &err);
	if (ret)
		fprintf(stderr, "\n  %s=%s: %d '%s'\n", key, value ? value : "(flag)", ret,
			err.msg);
	TSU_EQ(ret, 0);
}

static void test_table(void)
{
	static const char *const names[] = {"trace",
					    "uplink-trace",
					    "downlink-trace",
					    "delay",
					    "loss",
					    "uplink-loss",
					    "downlink-loss",
					    "queue",
					    "uplink-queue",
					    "downlink-queue",
					    "uplink-at",
					    "once",
					    "gso",
					    "seed",
					    "mac",
					    "mac-queue",
					    "rt-priority",
					    "shaper-cpu"};
	size_t i;

	/* The order is the help's and the spec reader's list of keys. */
	TSU_EQ(TS_LINKKEY_COUNT, sizeof(names) / sizeof(names[0]));
	for (i = 0; i < TS_LINKKEY_COUNT; i++) {
		CU_ASSERT_STRING_EQUAL(ts_link_keys[i].name, names[i]);
		CU_ASSERT_PTR_EQUAL(ts_linkkey_find(names[i]), &ts_link_keys[i]);
		CU_ASSERT(ts_link_keys[i].help && *ts_link_keys[i].help);
	}
	CU_ASSERT_PTR_NULL(ts_linkkey_find("delya"));
	CU_ASSERT_PTR_NULL(ts_linkkey_find("--delay"));
	CU_ASSERT_PTR_NULL(ts_linkkey_find(""));
	/* The short options, as mahimahi-like tools spell them; once and gso are the flags. */
	TSU_EQ(ts_link_keys[TS_LINKKEY_TRACE].letter, 't');
	TSU_EQ(ts_link_keys[TS_LINKKEY_DELAY].letter, 'd');
	TSU_EQ(ts_link_keys[TS_LINKKEY_LOSS].letter, 'l');
	TSU_EQ(ts_link_keys[TS_LINKKEY_QUEUE].letter, 'q');
	TSU_EQ(ts_link_keys[TS_LINKKEY_MAC].letter, 0);
	for (i = 0; i < TS_LINKKEY_COUNT; i++)
		TSU_EQ(ts_link_keys[i].arg == NULL, i == TS_LINKKEY_ONCE || i == TS_LINKKEY_GSO);
	CU_ASSERT_STRING_EQUAL(ts_link_keys[TS_LINKKEY_TRACE].arg, "FILE");
	CU_ASSERT_STRING_EQUAL(ts_link_keys[TS_LINKKEY_RT_PRIO].arg, "N|off");
	CU_ASSERT_STRING_EQUAL(ts_link_keys[TS_LINKKEY_SHAPER_CPU].arg, "N|auto|off");
}

static void test_good(void)
{
	struct ts_linkcfg cfg;
	/* The integer keys, in the order given: each value as it is stored. */
	const struct {
		const char *key, *value;
		const int *field;
		int want;
	} ints[] = {
		{"rt-priority", "49", &cfg.rt_priority, 49},
		{"rt-priority", "off", &cfg.rt_priority, 0},
		{"rt-priority", "1", &cfg.rt_priority, 1},
		{"shaper-cpu", "off", &cfg.shaper_cpu, TS_SHAPER_CPU_OFF},
		{"shaper-cpu", "0", &cfg.shaper_cpu, 0},
		{"shaper-cpu", "1023", &cfg.shaper_cpu, 1023},
		{"shaper-cpu", "auto", &cfg.shaper_cpu, TS_SHAPER_CPU_AUTO},
	};
	char buf[64];
	size_t i;

	ts_linkcfg_init(&cfg);
	/* The caller's buffer is reused at once: the configuration keeps its own copy. */
	snprintf(buf, sizeof(buf), "const:50mbit");
	set_ok(&cfg, "trace", buf);
	snprintf(buf, sizeof(buf), "up.csv/");
	CU_ASSERT_STRING_EQUAL(cfg.trace, "const:50mbit");
	set_ok(&cfg, "uplink-trace", "dir/up.csv");
	set_ok(&cfg, "downlink-trace", "/abs/down.csv");
	CU_ASSERT_STRING_EQUAL(cfg.dir_trace[TS_UP], "dir/up.csv");
	CU_ASSERT_STRING_EQUAL(cfg.dir_trace[TS_DOWN], "/abs/down.csv");
	set_ok(&cfg, "delay", "20ms");
	TSU_EQ(cfg.delay, 20 * MS);
	set_ok(&cfg, "delay", "3600s");
	TSU_EQ(cfg.delay, 3600 * TS_NSEC_PER_SEC);
	/* A bare probability is Bernoulli loss; both directions share the one string. */
	set_ok(&cfg, "loss", "1%");
	CU_ASSERT_STRING_EQUAL(cfg.loss[TS_UP], "bernoulli:p=1%");
	CU_ASSERT_PTR_EQUAL(cfg.loss[TS_UP], cfg.loss[TS_DOWN]);
	set_ok(&cfg, "uplink-loss", "ge:p=1%,r=30%");
	CU_ASSERT_STRING_EQUAL(cfg.loss[TS_UP], "ge:p=1%,r=30%");
	CU_ASSERT_STRING_EQUAL(cfg.loss[TS_DOWN], "bernoulli:p=1%");
	set_ok(&cfg, "downlink-loss", "0.002");
	CU_ASSERT_STRING_EQUAL(cfg.loss[TS_DOWN], "bernoulli:p=0.002");
	/* One string for both queues: the warning about an infinite queue says "uplink and downlink". */
	set_ok(&cfg, "queue", "droptail:packets=9");
	CU_ASSERT_STRING_EQUAL(cfg.queue[TS_UP], "droptail:packets=9");
	CU_ASSERT_PTR_EQUAL(cfg.queue[TS_UP], cfg.queue[TS_DOWN]);
	set_ok(&cfg, "uplink-queue", "codel:target=5ms,packets=100");
	set_ok(&cfg, "downlink-queue", "infinite");
	CU_ASSERT_STRING_EQUAL(cfg.queue[TS_UP], "codel:target=5ms,packets=100");
	CU_ASSERT_STRING_EQUAL(cfg.queue[TS_DOWN], "infinite");
	TSU_EQ(cfg.place[TS_UP], TS_PLACE_NETWORK);
	set_ok(&cfg, "uplink-at", "sender");
	TSU_EQ(cfg.place[TS_UP], TS_PLACE_SENDER);
	TSU_EQ(cfg.place[TS_DOWN], TS_PLACE_NETWORK);
	set_ok(&cfg, "uplink-at", "network");
	TSU_EQ(cfg.place[TS_UP], TS_PLACE_NETWORK);
	CU_ASSERT_FALSE(cfg.once);
	set_ok(&cfg, "once", NULL);
	CU_ASSERT(!cfg.gso);
	set_ok(&cfg, "gso", NULL);
	CU_ASSERT(cfg.gso);
	CU_ASSERT_TRUE(cfg.once);
	TSU_EQ(cfg.seed, 1);
	set_ok(&cfg, "seed", "18446744073709551615");
	CU_ASSERT(cfg.seed == UINT64_MAX);
	set_ok(&cfg, "mac", "wifi6:phy=1201mbit,mpdus=64");
	CU_ASSERT_STRING_EQUAL(cfg.mac, "wifi6:phy=1201mbit,mpdus=64");
	set_ok(&cfg, "mac-queue", "droptail:packets=5");
	CU_ASSERT_STRING_EQUAL(cfg.mac_queue, "droptail:packets=5");
	TSU_EQ(cfg.rt_priority, TS_RT_PRIO_DEFAULT);
	TSU_EQ(cfg.shaper_cpu, TS_SHAPER_CPU_AUTO);
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		set_ok(&cfg, ints[i].key, ints[i].value);
		TSU_EQ(*ints[i].field, ints[i].want);
	}
	ts_linkcfg_free(&cfg);
	/* Freed means freed: every string, and nothing left pointing at one. */
	CU_ASSERT_PTR_NULL(cfg.str[TS_LINKKEY_TRACE]);
	CU_ASSERT_PTR_NULL(cfg.str[TS_LINKKEY_MAC]);
}

/* A bundled trace's name becomes its file's path; a name that is none stays as written. */
static void test_bundled(void)
{
	struct ts_linkcfg cfg;
	char dir[PATH_MAX], want[PATH_MAX + 32];

	ts_linkcfg_init(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ts_bundled_dir(dir, sizeof(dir)));
	snprintf(want, sizeof(want), "%s/starlink.csv", dir);
	set_ok(&cfg, "trace", "starlink");
	CU_ASSERT_STRING_EQUAL(cfg.trace, want);
	set_ok(&cfg, "downlink-trace", "no-such-bundled-trace");
	CU_ASSERT_STRING_EQUAL(cfg.dir_trace[TS_DOWN], "no-such-bundled-trace");
	ts_linkcfg_free(&cfg);
}

static void test_bad(void)
{
	refuse("trace", "", "--trace: an empty file name (expected a path)");
	refuse("uplink-trace", "", "--uplink-trace: an empty file name (expected a path)");
	refuse("downlink-trace", "", "--downlink-trace: an empty file name (expected a path)");
	refuse("delay", "-5ms",
	       "--delay: '-5ms': negative values are not allowed (expected a duration such as "
	       "20ms)");
	refuse("delay", "3601s", "--delay: '3601s': expected at most 1 hour");
	refuse("loss", "200%",
	       "--loss: bernoulli: p: '200%': above 100% (expected a percentage in [0%, 100%] or "
	       "a fraction in [0, 1])");
	refuse("uplink-loss", "x",
	       "--uplink-loss: bernoulli: p: 'x': not a number (expected a probability such as "
	       "0.1% or 0.001)");
	refuse("downlink-loss", "x",
	       "--downlink-loss: bernoulli: p: 'x': not a number (expected a probability such as "
	       "0.1% or 0.001)");
	refuse("queue", "foo",
	       "--queue: unknown queue 'foo' (expected one of: droptail, drophead, codel, pie, "
	       "infinite)");
	refuse("uplink-queue", "foo",
	       "--uplink-queue: unknown queue 'foo' (expected one of: droptail, drophead, codel, "
	       "pie, infinite)");
	refuse("downlink-queue", "codel:target=x",
	       "--downlink-queue: codel: target: 'x': not a number (expected a duration such as "
	       "20ms)");
	refuse("mac-queue", "droptail",
	       "--mac-queue: droptail: needs a limit, packets=N and/or bytes=SIZE (use 'infinite' "
	       "for none)");
	refuse("uplink-at", "sky", "--uplink-at: 'sky' (expected sender or network)");
	refuse("seed", "-1",
	       "--seed: '-1': negative values are not allowed (expected a whole number such as "
	       "1000)");
	refuse("mac", "ethernet", "--mac: unknown MAC 'ethernet' (expected wifi6:KEY=VALUE,...)");
	refuse("mac", "wifi6:phy", "--mac: wifi6: 'phy' has no value (expected phy=VALUE)");
	refuse("rt-priority", "50", "--rt-priority: '50' (expected off or a priority 1-49)");
	refuse("rt-priority", "0", "--rt-priority: '0' (expected off or a priority 1-49)");
	refuse("rt-priority", "+3", "--rt-priority: '+3' (expected off or a priority 1-49)");
	refuse("rt-priority", "10x", "--rt-priority: '10x' (expected off or a priority 1-49)");
	refuse("shaper-cpu", "1024", "--shaper-cpu: '1024' (expected auto, off or a CPU 0-1023)");
	refuse("shaper-cpu", "-1", "--shaper-cpu: '-1' (expected auto, off or a CPU 0-1023)");
	refuse("shaper-cpu", "1,2", "--shaper-cpu: '1,2' (expected auto, off or a CPU 0-1023)");
	refuse("shaper-cpu", "Auto", "--shaper-cpu: 'Auto' (expected auto, off or a CPU 0-1023)");
	/* The grammar's own refusals: a flag given a value, a value missing, an unknown key. */
	refuse("once", "yes", "--once: takes no value (got 'yes')");
	refuse("gso", "1", "--gso: takes no value (got '1')");
	refuse("once", "", "--once: takes no value (got '')");
	refuse("delay", NULL, "--delay: expected a value (TIME)");
	refuse("trace", NULL, "--trace: expected a value (FILE)");
	refuse("delya", "20ms", "--delya: not a link option");
	refuse("--delay", "20ms", "----delay: not a link option");
}

/* Keys in sequence, and a key again: the last value wins, earlier keys stay. */
static void test_sequence(void)
{
	struct ts_linkcfg cfg;
	struct ts_err err;

	ts_linkcfg_init(&cfg);
	set_ok(&cfg, "queue", "droptail:packets=9");
	set_ok(&cfg, "uplink-queue", "drophead:packets=3");
	CU_ASSERT_STRING_EQUAL(cfg.queue[TS_UP], "drophead:packets=3");
	CU_ASSERT_STRING_EQUAL(cfg.queue[TS_DOWN], "droptail:packets=9");
	/* --queue again sets both, and frees only its own earlier string (ASan checks). */
	set_ok(&cfg, "queue", "infinite");
	CU_ASSERT_PTR_EQUAL(cfg.queue[TS_UP], cfg.queue[TS_DOWN]);
	CU_ASSERT_STRING_EQUAL(cfg.queue[TS_DOWN], "infinite");
	set_ok(&cfg, "delay", "10ms");
	set_ok(&cfg, "delay", "30ms");
	TSU_EQ(cfg.delay, 30 * MS);
	/* A refused value leaves the earlier one in place. */
	TSU_EQ(ts_linkcfg_set(&cfg, "delay", "7200s", &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "--delay: '7200s': expected at most 1 hour");
	TSU_EQ(cfg.delay, 30 * MS);
	TSU_EQ(ts_linkcfg_set(&cfg, "queue", "bogus", &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(cfg.queue[TS_UP], "infinite");
	/* What the set keys add up to is checked as a whole by ts_linkcfg_check. */
	set_ok(&cfg, "trace", "const:10mbit");
	set_ok(&cfg, "once", NULL);
	TSU_EQ(ts_linkcfg_check(&cfg, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err.msg, "--once with const:10mbit: a constant rate has no end (use --duration)");
	ts_linkcfg_free(&cfg);

	ts_linkcfg_init(&cfg);
	set_ok(&cfg, "mac-queue", "droptail:packets=5");
	TSU_EQ(ts_linkcfg_check(&cfg, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "--mac-queue: there is no Wi-Fi hop (add --mac wifi6:...)");
	set_ok(&cfg, "mac", "wifi6");
	TSU_EQ(ts_linkcfg_check(&cfg, &err), 0);
	ts_linkcfg_free(&cfg);
}

/* Loaded, unloaded and loaded again: the options survive an unload (the spec's link check). */
static void test_unload(void)
{
	struct ts_linkcfg cfg;
	struct ts_err err;

	ts_linkcfg_init(&cfg);
	set_ok(&cfg, "trace", "const:12mbit");
	set_ok(&cfg, "delay", "5ms");
	TSU_EQ(ts_linkcfg_load(&cfg, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(cfg.cap[TS_UP]);
	CU_ASSERT_PTR_EQUAL(cfg.cap[TS_UP], cfg.cap[TS_DOWN]);
	ts_linkcfg_unload(&cfg);
	CU_ASSERT_PTR_NULL(cfg.cap[TS_UP]);
	CU_ASSERT_STRING_EQUAL(cfg.trace, "const:12mbit");
	TSU_EQ(cfg.delay, 5 * MS);
	TSU_EQ(ts_linkcfg_load(&cfg, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(cfg.cap[TS_DOWN]);
	ts_linkcfg_free(&cfg);
}

static const struct tsu_test tests[] = {
	{"key table", test_table},
	{"every key, good values", test_good},
	{"bundled trace names", test_bundled},
	{"every key, bad values", test_bad},
	{"keys in sequence", test_sequence},
	{"unload keeps the options", test_unload},
};

TSU_MAIN("linkcfg_set", tests)
