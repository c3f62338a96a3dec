/* SPDX-License-Identifier: MIT */
/*
 * "NAME[:KEY=VALUE,...]" specs: the split, each rejection with the phrase
 * its message must contain, the getters (default kept when a key is
 * absent, errors naming spec and key) and the unused-key check.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tsu.h"
#include "tasshape/spec.h"

/* Whether @p points into @spec's own buffer (so the spec owns its text). */
static int in_buf(const struct ts_spec *spec, const char *p)
{
	return p >= spec->buf && p < spec->buf + sizeof(spec->buf);
}

static void test_parse_ok(void)
{
	struct ts_spec spec;
	struct ts_err err;
	char src[64];

	/* the spec copies the string: changing the source afterwards is harmless */
	strcpy(src, "codel:target=5ms,interval=100ms");
	TSU_EQ(ts_spec_parse(&spec, src, &err), 0);
	memset(src, 0, sizeof(src));
	CU_ASSERT_STRING_EQUAL(spec.name, "codel");
	TSU_EQ(spec.nargs, 2);
	CU_ASSERT_STRING_EQUAL(spec.arg[0].key, "target");
	CU_ASSERT_STRING_EQUAL(spec.arg[0].val, "5ms");
	CU_ASSERT_STRING_EQUAL(spec.arg[1].key, "interval");
	CU_ASSERT_STRING_EQUAL(spec.arg[1].val, "100ms");
	CU_ASSERT(!spec.arg[0].used && !spec.arg[1].used);
	CU_ASSERT(in_buf(&spec, spec.name) && in_buf(&spec, spec.arg[1].val));

	TSU_EQ(ts_spec_parse(&spec, "infinite", &err), 0);
	CU_ASSERT_STRING_EQUAL(spec.name, "infinite");
	TSU_EQ(spec.nargs, 0);

	/* only the first ':' ends the name; '%', '.', ':' and '=' may be in values */
	TSU_EQ(ts_spec_parse(&spec, "loss:p=0.1%,at=a:b,x=y=z", &err), 0);
	CU_ASSERT_STRING_EQUAL(spec.name, "loss");
	TSU_EQ(spec.nargs, 3);
	CU_ASSERT_STRING_EQUAL(spec.arg[0].val, "0.1%");
	CU_ASSERT_STRING_EQUAL(spec.arg[1].key, "at");
	CU_ASSERT_STRING_EQUAL(spec.arg[1].val, "a:b");
	CU_ASSERT_STRING_EQUAL(spec.arg[2].key, "x");
	CU_ASSERT_STRING_EQUAL(spec.arg[2].val, "y=z");
}

/* TS_SPEC_MAX_ARGS pairs and TS_SPEC_MAX_LEN - 1 characters are the limits. */
static void test_limits(void)
{
	char s[TS_SPEC_MAX_LEN + 8];
	struct ts_spec spec;
	struct ts_err err;
	int i, n;

	n = snprintf(s, sizeof(s), "q:");
	for (i = 0; i < TS_SPEC_MAX_ARGS; i++)
		n += snprintf(s + n, sizeof(s) - (size_t)n, "%sk%d=%d", i ? "," : "", i, i);
	TSU_EQ(ts_spec_parse(&spec, s, &err), 0);
	TSU_EQ(spec.nargs, TS_SPEC_MAX_ARGS);
	CU_ASSERT_STRING_EQUAL(spec.arg[15].key, "k15");
	CU_ASSERT_STRING_EQUAL(spec.arg[15].val, "15");
	snprintf(s + n, sizeof(s) - (size_t)n, ",k16=16");
	TSU_EQ(ts_spec_parse(&spec, s, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "q: too many KEY=VALUE pairs (at most 16)"));

	/* "q:v=" plus 507 'x' is 511 characters: fits with its NUL */
	memset(s, 'x', sizeof(s));
	memcpy(s, "q:v=", 4);
	s[TS_SPEC_MAX_LEN - 1] = '\0';
	TSU_EQ(ts_spec_parse(&spec, s, &err), 0);
	TSU_EQ(strlen(spec.arg[0].val), TS_SPEC_MAX_LEN - 1 - 4);
	s[TS_SPEC_MAX_LEN - 1] = 'x';
	s[TS_SPEC_MAX_LEN] = '\0'; /* 512 characters */
	TSU_EQ(ts_spec_parse(&spec, s, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is too long (at most 511 characters)"));
}

static void test_parse_bad(void)
{
	static const struct {
		const char *s;
		const char *phrase;
	} bad[] = {
		{"", "empty spec (expected NAME[:KEY=VALUE[,KEY=VALUE...]]"},
		{":a=1", "':a=1': empty name before ':'"},
		{"codel:", "'codel:': nothing after ':'"},
		{"codel:target", "codel: 'target' has no value (expected target=VALUE)"},
		{"codel:=5ms", "codel: empty key before '=5ms'"},
		{"codel:target=", "codel: key 'target' has an empty value"},
		{"codel:a=1,a=2", "codel: key 'a' is given twice"},
		{"codel:a=1,,b=2", "codel: empty KEY=VALUE pair"},
		{"codel:a=1,", "codel: empty KEY=VALUE pair"},
		{"codel:,a=1", "codel: empty KEY=VALUE pair"},
		{"codel,target=5ms", "a ':' must separate the name from KEY=VALUE pairs"},
		{"target=5ms", "a ':' must separate the name"},
		{"codel: target=5ms",
		 "spec 'codel:' is followed by a space (byte 0x20 at offset 6)"},
		{"codel:target=5ms\n", "a control or non-ASCII character (byte 0x0a at offset 16)"},
		{"pie\t", "byte 0x09 at offset 3"},
		{"q\xc3\xa9", "a control or non-ASCII character (byte 0xc3 at offset 1)"},
	};
	struct ts_spec spec, copy;
	struct ts_err err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* a failed parse leaves the spec exactly as it was */
		memset(&spec, 0x5a, sizeof(spec));
		memcpy(&copy, &spec, sizeof(spec));
		err.msg[0] = '\0';
		TSU_EQ(ts_spec_parse(&spec, bad[i].s, &err), -EINVAL);
		if (!strstr(err.msg, bad[i].phrase))
			fprintf(stderr, "\n  '%s': \"%s\", expected \"%s\"\n", bad[i].s, err.msg,
				bad[i].phrase);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].phrase));
		CU_ASSERT(!memcmp(&spec, &copy, sizeof(spec)));
	}
	TSU_EQ(ts_spec_parse(&spec, NULL, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "empty spec"));
	TSU_EQ(ts_spec_parse(&spec, "a:b", NULL), -EINVAL);
}

static void test_getters(void)
{
	struct ts_spec spec;
	struct ts_err err;
	ts_ns_t target = 5000000, interval = 100000000, never = 42;
	uint64_t rate = 1, bytes = 1, pkts = 1;
	uint32_t ppm = 1;

	TSU_EQ(ts_spec_parse(&spec, "x:target=2.5ms,rate=12Mbps,bytes=64KB,loss=0.1%,packets=1000",
			     &err),
	       0);
	TSU_EQ(ts_spec_get_time(&spec, "target", &target, &err), 0);
	TSU_EQ(target, 2500000); /* 2.5 * 10^6 ns */
	TSU_EQ(ts_spec_get_rate(&spec, "rate", &rate, &err), 0);
	TSU_EQ(rate, 12000000); /* 12 * 10^6 bit/s */
	TSU_EQ(ts_spec_get_size(&spec, "bytes", &bytes, &err), 0);
	TSU_EQ(bytes, 65536); /* 64 * 1024 */
	TSU_EQ(ts_spec_get_ppm(&spec, "loss", &ppm, &err), 0);
	TSU_EQ(ppm, 1000); /* 0.1 * 10^4 */
	TSU_EQ(ts_spec_get_u64(&spec, "packets", &pkts, &err), 0);
	TSU_EQ(pkts, 1000);
	CU_ASSERT(spec.arg[0].used && spec.arg[2].used && spec.arg[4].used);

	/* absent keys keep the caller's default and stay absent */
	TSU_EQ(ts_spec_get_time(&spec, "interval", &interval, &err), 0);
	TSU_EQ(interval, 100000000);
	TSU_EQ(ts_spec_get_time(&spec, "targ", &never, &err), 0); /* no prefix match */
	TSU_EQ(never, 42);
	TSU_EQ(ts_spec_check_used(&spec, "target, rate, bytes, loss, packets", &err), 0);
}

/* A bad value: the message names spec and key, the output keeps its default. */
static void test_getter_errors(void)
{
	struct ts_spec spec;
	struct ts_err err;
	ts_ns_t interval = 100000000;
	uint64_t rate = 7, bytes = 7, pkts = 7;
	uint32_t ppm = 7;

	TSU_EQ(ts_spec_parse(&spec, "codel:interval=10", &err), 0);
	TSU_EQ(ts_spec_get_time(&spec, "interval", &interval, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "codel: interval: '10': missing time unit (expected ns, "
					"us, ms or s, e.g. 10ms)");
	TSU_EQ(interval, 100000000);
	CU_ASSERT(spec.arg[0].used); /* asked for, so not also reported as unknown */

	TSU_EQ(ts_spec_parse(&spec, "link:rate=0mbit,bytes=1.1KB,loss=2,packets=1k", &err), 0);
	TSU_EQ(ts_spec_get_rate(&spec, "rate", &rate, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "link: rate: '0mbit': the rate must be greater"));
	TSU_EQ(rate, 7);
	TSU_EQ(ts_spec_get_size(&spec, "bytes", &bytes, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "link: bytes: '1.1KB': not a whole number"));
	TSU_EQ(bytes, 7);
	TSU_EQ(ts_spec_get_ppm(&spec, "loss", &ppm, &err), -ERANGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "link: loss: '2': above 1"));
	TSU_EQ(ppm, 7);
	TSU_EQ(ts_spec_get_u64(&spec, "packets", &pkts, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "link: packets: '1k': unexpected 'k'"));
	TSU_EQ(pkts, 7);
	TSU_EQ(ts_spec_get_rate(&spec, "rate", &rate, NULL), -EINVAL); /* err may be NULL */
}

static void test_check_used(void)
{
	struct ts_spec spec;
	struct ts_err err;
	ts_ns_t target = 0, interval = 0;

	TSU_EQ(ts_spec_parse(&spec, "codel:targt=5ms,interval=100ms,x=1", &err), 0);
	TSU_EQ(ts_spec_get_time(&spec, "target", &target, &err), 0);
	TSU_EQ(ts_spec_get_time(&spec, "interval", &interval, &err), 0);
	TSU_EQ(target, 0);
	TSU_EQ(interval, 100000000);
	/* the first unused key is the one reported */
	TSU_EQ(ts_spec_check_used(&spec, "target, interval", &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "codel: unknown key 'targt' (expected target, interval)");

	TSU_EQ(ts_spec_parse(&spec, "infinite:packets=5", &err), 0);
	TSU_EQ(ts_spec_check_used(&spec, NULL, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "infinite: unknown key 'packets' (infinite takes no keys)");
	TSU_EQ(ts_spec_check_used(&spec, "", &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "infinite: unknown key 'packets' (infinite takes no keys)");

	TSU_EQ(ts_spec_parse(&spec, "infinite", &err), 0);
	TSU_EQ(ts_spec_check_used(&spec, NULL, &err), 0);
}

static const struct tsu_test tests[] = {
	{"parse splits name and pairs", test_parse_ok},
	{"pair and length limits", test_limits},
	{"parse rejections leave the spec alone", test_parse_bad},
	{"getters parse values and keep defaults", test_getters},
	{"getter errors name spec and key", test_getter_errors},
	{"unused keys are reported", test_check_used},
};

TSU_MAIN("spec", tests)
