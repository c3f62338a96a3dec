/* SPDX-License-Identifier: MIT */
/*
 * Unit parsers and formatters: every accepted spelling with its exact
 * integer (the arithmetic is in the comment next to it), every class of
 * rejection with the phrase its message must contain, and the rule that
 * a failed parse leaves the output alone.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tsu.h"
#include "tasshape/units.h"

enum kind { K_TIME, K_RATE, K_RATE0, K_SIZE, K_PPM, K_U64, K_MILLI };

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

/*
 * parse - run the parser for @k on @s, returning its result in *out.
 * On failure it also checks that the parser did not write its output
 * (which starts as a sentinel) and left a message.
 */
static int parse(enum kind k, const char *s, uint64_t *out, struct ts_err *err)
{
	ts_ns_t t = (ts_ns_t)SENTINEL;
	uint64_t v = SENTINEL;
	uint32_t p = (uint32_t)SENTINEL;
	int ret = -1;

	memset(err->msg, 0, sizeof(err->msg));
	switch (k) {
	case K_TIME:
		ret = ts_parse_time(s, &t, err);
		v = (uint64_t)t;
		break;
	case K_RATE:
		ret = ts_parse_rate(s, &v, 0, err);
		break;
	case K_RATE0:
		ret = ts_parse_rate(s, &v, 1, err);
		break;
	case K_SIZE:
		ret = ts_parse_size(s, &v, err);
		break;
	case K_PPM:
		ret = ts_parse_ppm(s, &p, err);
		v = p == (uint32_t)SENTINEL ? SENTINEL : p;
		break;
	case K_U64:
		ret = ts_parse_u64(s, &v, err);
		break;
	case K_MILLI:
		ret = ts_parse_milli(s, &v, err);
		break;
	}
	if (ret < 0) {
		CU_ASSERT(v == SENTINEL);
		CU_ASSERT(err->msg[0] != '\0');
	}
	*out = v;
	return ret;
}

struct good {
	enum kind k;
	const char *s;
	uint64_t want;
};

struct bad {
	enum kind k;
	const char *s;
	int ret;
	const char *phrase; /* must appear in the message */
};

static void check_good(const struct good *g, size_t n)
{
	struct ts_err err;
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = parse(g[i].k, g[i].s, &v, &err);
		if (ret != 0 || v != g[i].want)
			fprintf(stderr, "\n  '%s': ret %d value %llu, expected %llu (%s)\n", g[i].s,
				ret, (unsigned long long)v, (unsigned long long)g[i].want, err.msg);
		CU_ASSERT_EQUAL(ret, 0);
		CU_ASSERT(v == g[i].want);
	}
}

static void check_bad(const struct bad *b, size_t n)
{
	struct ts_err err;
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = parse(b[i].k, b[i].s, &v, &err);
		if (ret != b[i].ret || !strstr(err.msg, b[i].phrase))
			fprintf(stderr, "\n  '%s': ret %d msg \"%s\", expected %d and \"%s\"\n",
				b[i].s, ret, err.msg, b[i].ret, b[i].phrase);
		CU_ASSERT_EQUAL(ret, b[i].ret);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, b[i].phrase));
	}
}

#define CHECK_GOOD(tab) check_good(tab, sizeof(tab) / sizeof(tab[0]))
#define CHECK_BAD(tab)	check_bad(tab, sizeof(tab) / sizeof(tab[0]))

static void test_time_ok(void)
{
	static const struct good g[] = {
		{K_TIME, "20ms", 20000000},   /* 20 * 10^6 */
		{K_TIME, "1.5s", 1500000000}, /* 1.5 * 10^9 */
		{K_TIME, "250us", 250000},    /* 250 * 10^3 */
		{K_TIME, "730ns", 730},	      /* 730 * 1 */
		{K_TIME, "0ns", 0},
		{K_TIME, "0s", 0},
		{K_TIME, "0.5s", 500000000},  /* 0.5 * 10^9 */
		{K_TIME, "4nsec", 4},	      /* 4 * 1 */
		{K_TIME, "3usec", 3000},      /* 3 * 10^3 */
		{K_TIME, "2msec", 2000000},   /* 2 * 10^6 */
		{K_TIME, "1sec", 1000000000}, /* 1 * 10^9 */
		{K_TIME, "20MS", 20000000},   /* any case, as tc */
		{K_TIME, "1.5S", 1500000000},
		{K_TIME, "007ms", 7000000},	      /* leading zeros: 7 * 10^6 */
		{K_TIME, "1.000000001s", 1000000001}, /* 10^9 + 1 */
		{K_TIME, "0.001us", 1},		      /* 10^-3 * 10^3 */
		{K_TIME, "2.5ms", 2500000},	      /* 2.5 * 10^6 */
		{K_TIME, "0.125ms", 125000},	      /* 0.125 * 10^6 */
		/* trailing zeros do not count as precision: 1.5 * 10^9 */
		{K_TIME, "1.50000000000000000000000000s", 1500000000},
		/* the largest ts_ns_t, 2^63 - 1, in two units */
		{K_TIME, "9223372036854775807ns", 9223372036854775807ULL},
		{K_TIME, "9223372036.854775807s", 9223372036854775807ULL},
	};

	CHECK_GOOD(g);
}

static void test_time_bad(void)
{
	static const struct bad b[] = {
		{K_TIME, "", -EINVAL, "empty value"},
		{K_TIME, "20", -EINVAL,
		 "'20': missing time unit (expected ns, us, ms or s, e.g. 20ms)"},
		{K_TIME, "0", -EINVAL, "missing time unit"},
		{K_TIME, "20xs", -EINVAL,
		 "'20xs': unknown time unit 'xs' (expected ns, us, ms or s, e.g. 20ms)"},
		{K_TIME, "5msx", -EINVAL, "unknown time unit 'msx'"},
		{K_TIME, "1.2.3s", -EINVAL, "unknown time unit '.3s'"},
		{K_TIME, "1,5s", -EINVAL, "unknown time unit ',5s'"},
		{K_TIME, "0x10ms", -EINVAL, "unknown time unit 'x10ms'"},
		{K_TIME, "5m", -EINVAL, "unknown time unit 'm'"},
		{K_TIME, "-5ms", -EINVAL, "negative values are not allowed"},
		{K_TIME, "+5ms", -EINVAL, "'+' sign is not allowed"},
		{K_TIME, " 5ms", -EINVAL, "white space is not allowed"},
		{K_TIME, "5 ms", -EINVAL, "white space is not allowed"},
		{K_TIME, "5ms\n", -EINVAL, "white space is not allowed"},
		{K_TIME, "5\tms", -EINVAL, "white space is not allowed"},
		{K_TIME, ".5s", -EINVAL, "a digit is needed before the '.'"},
		{K_TIME, "5.s", -EINVAL, "a digit is needed after the '.'"},
		{K_TIME, "1e3ms", -EINVAL, "exponent notation is not accepted"},
		{K_TIME, "1.5e-3s", -EINVAL, "exponent notation is not accepted"},
		{K_TIME, "1E+3ms", -EINVAL, "exponent notation is not accepted"},
		{K_TIME, "nan", -EINVAL, "'nan': not a number"},
		{K_TIME, "inf", -EINVAL, "'inf': not a number"},
		{K_TIME, "ms", -EINVAL, "not a number (expected a duration such as 20ms)"},
		/* 10^-10 s and 10^-4 ns are below 1 ns */
		{K_TIME, "1.0000000001s", -EINVAL, "finer than the 1 ns resolution"},
		{K_TIME, "0.0001ns", -EINVAL, "finer than the 1 ns resolution"},
		{K_TIME, "1.5ns", -EINVAL, "finer than the 1 ns resolution"},
		/* 2^63 ns does not fit a ts_ns_t */
		{K_TIME, "9223372036854775808ns", -ERANGE, "too large"},
		/* 9223372037 * 10^9 > 2^63 - 1 */
		{K_TIME, "9223372037s", -ERANGE, "about 292 years"},
		/* 2^64 does not even fit the integer part */
		{K_TIME, "18446744073709551616ns", -ERANGE, "too large"},
		{K_TIME, "99999999999999999999999s", -ERANGE, "too large"},
		/* more than 2^64 - 1 after scaling, below it before */
		{K_TIME, "18446744073709551615s", -ERANGE, "too large"},
	};

	CHECK_BAD(b);
}

static void test_rate_ok(void)
{
	static const struct good g[] = {
		{K_RATE, "100mbit", 100000000},	 /* 100 * 10^6 */
		{K_RATE, "12Mbps", 12000000},	 /* 12 * 10^6 bits */
		{K_RATE, "1.2gbit", 1200000000}, /* 1.2 * 10^9 */
		{K_RATE, "500kbit", 500000},	 /* 500 * 10^3 */
		{K_RATE, "1bit", 1},
		{K_RATE, "2tbit", 2000000000000ULL}, /* 2 * 10^12 */
		{K_RATE, "100MBIT", 100000000},	     /* bit units in any case */
		{K_RATE, "100Mbit", 100000000},
		{K_RATE, "3KBIT", 3000},
		{K_RATE, "1.5Kbps", 1500},	      /* 1.5 * 10^3 bits */
		{K_RATE, "10Gbps", 10000000000ULL},   /* 10 * 10^9 bits */
		{K_RATE, "1Tbps", 1000000000000ULL},  /* 10^12 bits */
		{K_RATE, "1Bps", 8},		      /* 1 byte = 8 bits */
		{K_RATE, "1.5KBps", 12000},	      /* 1.5 * 10^3 * 8 */
		{K_RATE, "1kBps", 8000},	      /* 10^3 * 8 */
		{K_RATE, "12MBps", 96000000},	      /* 12 * 10^6 * 8 */
		{K_RATE, "1GBps", 8000000000ULL},     /* 10^9 * 8 */
		{K_RATE, "2TBps", 16000000000000ULL}, /* 2 * 10^12 * 8 */
		{K_RATE, "0.125Bps", 1},	      /* 0.125 * 8 */
		{K_RATE, "12Mbit/s", 12000000},	      /* the "/s" form */
		{K_RATE, "10kbit/s", 10000},
		{K_RATE, "5bit/s", 5},
		{K_RATE, "0.001kbit", 1},     /* 10^-3 * 10^3 */
		{K_RATE, "2.5mbit", 2500000}, /* 2.5 * 10^6 */
		/* the largest uint64_t, 2^64 - 1, in two units */
		{K_RATE, "18446744073709551615bit", UINT64_MAX},
		{K_RATE, "18446744073.709551615gbit", UINT64_MAX},
		{K_RATE0, "0mbit", 0}, /* zero only when allowed */
		{K_RATE0, "0bit", 0},
		{K_RATE0, "7mbit", 7000000},
	};

	CHECK_GOOD(g);
}

static void test_rate_bad(void)
{
	static const struct bad b[] = {
		{K_RATE, "12mbps", -EINVAL,
		 "write 12mbit or 12Mbps (megabits/s), 12MBps (megabytes/s)"},
		{K_RATE, "12mbps", -EINVAL, "ambiguous unit 'mbps' (tc reads it as megabytes/s"},
		{K_RATE, "64kbps", -EINVAL,
		 "write 64kbit or 64Kbps (kilobits/s), 64KBps (kilobytes/s)"},
		{K_RATE, "1gbps", -EINVAL,
		 "write 1gbit or 1Gbps (gigabits/s), 1GBps (gigabytes/s)"},
		{K_RATE, "1tbps", -EINVAL,
		 "write 1tbit or 1Tbps (terabits/s), 1TBps (terabytes/s)"},
		{K_RATE, "1MBPS", -EINVAL, "ambiguous unit 'MBPS'"},
		{K_RATE, "1mBps", -EINVAL, "ambiguous unit 'mBps'"},
		{K_RATE, "12bps", -EINVAL, "write 12bit (bits/s) or 12Bps (bytes/s)"},
		{K_RATE, "12BPS", -EINVAL, "ambiguous unit 'BPS'"},
		{K_RATE, "12", -EINVAL, "'12': missing rate unit (expected e.g. 12mbit or 12Mbps"},
		{K_RATE, "12mb", -EINVAL, "unknown rate unit 'mb'"},
		{K_RATE, "12Mb/s", -EINVAL, "unknown rate unit 'Mb/s'"},
		{K_RATE, "12mbit/", -EINVAL, "unknown rate unit 'mbit/'"},
		{K_RATE, "0mbit", -EINVAL, "the rate must be greater than 0"},
		{K_RATE, "0bit", -EINVAL, "the rate must be greater than 0"},
		{K_RATE, "0.000Gbps", -EINVAL, "the rate must be greater than 0"},
		{K_RATE, "1.5bit", -EINVAL, "not a whole number of bit/s"},
		{K_RATE, "0.1Bps", -EINVAL, "not a whole number of bit/s"},	/* 0.8 bit/s */
		{K_RATE, "1.0001kbit", -EINVAL, "not a whole number of bit/s"}, /* 1000.1 */
		{K_RATE, "18446744073709551616bit", -ERANGE, "too large"},	/* 2^64 */
		/* 18446744073709552 * 10^3 > 2^64 - 1 */
		{K_RATE, "18446744073709552kbit", -ERANGE, "too large"},
		/* (2^64 - 1) * 8 */
		{K_RATE, "18446744073709551615Bps", -ERANGE, "too large"},
		{K_RATE, "", -EINVAL, "empty value (expected a rate such as 12mbit)"},
		{K_RATE, "-1mbit", -EINVAL, "negative"},
		{K_RATE, "1e6bit", -EINVAL, "exponent"},
		{K_RATE, "inf", -EINVAL, "not a number"},
		{K_RATE, "1 mbit", -EINVAL, "white space"},
		{K_RATE0, "1.5bit", -EINVAL, "not a whole number"},
	};

	CHECK_BAD(b);
}

static void test_size_ok(void)
{
	static const struct good g[] = {
		{K_SIZE, "1500", 1500}, /* no suffix: bytes */
		{K_SIZE, "1500B", 1500},
		{K_SIZE, "1500b", 1500},
		{K_SIZE, "0", 0},
		{K_SIZE, "64k", 65536}, /* 64 * 1024 */
		{K_SIZE, "64kb", 65536},
		{K_SIZE, "64K", 65536},
		{K_SIZE, "64KB", 65536},
		{K_SIZE, "64KiB", 65536},
		{K_SIZE, "64kib", 65536},
		{K_SIZE, "1.5KB", 1536},       /* 1.5 * 1024 */
		{K_SIZE, "0.5k", 512},	       /* 0.5 * 1024 */
		{K_SIZE, "0.0009765625KB", 1}, /* 1024^-1 * 1024 */
		{K_SIZE, "2m", 2097152},       /* 2 * 1024^2 */
		{K_SIZE, "2mb", 2097152},
		{K_SIZE, "2M", 2097152},
		{K_SIZE, "2MB", 2097152},
		{K_SIZE, "2MiB", 2097152},
		{K_SIZE, "1.5MB", 1572864}, /* 1.5 * 1048576 */
		{K_SIZE, "1g", 1073741824}, /* 1024^3 */
		{K_SIZE, "1gb", 1073741824},
		{K_SIZE, "1G", 1073741824},
		{K_SIZE, "1GB", 1073741824},
		{K_SIZE, "1GiB", 1073741824},
		{K_SIZE, "0.25GB", 268435456},		     /* 1024^3 / 4 */
		{K_SIZE, "16777216g", 18014398509481984ULL}, /* 2^24 * 2^30 = 2^54 */
		{K_SIZE, "18446744073709551615", UINT64_MAX},
	};

	CHECK_GOOD(g);
}

static void test_size_bad(void)
{
	static const struct bad b[] = {
		{K_SIZE, "1.1KB", -EINVAL, "not a whole number of bytes"}, /* 1126.4 */
		{K_SIZE, "1.5B", -EINVAL, "not a whole number of bytes"},
		{K_SIZE, "0.5", -EINVAL, "not a whole number of bytes"},
		{K_SIZE, "0.001k", -EINVAL, "not a whole number of bytes"}, /* 1.024 */
		{K_SIZE, "64kbit", -EINVAL, "sizes are not given in bits"},
		{K_SIZE, "64xb", -EINVAL,
		 "'64xb': unknown size unit 'xb' (expected bytes: B, k or KB, m or MB, g or GB, "
		 "multiples of 1024 as in tc, e.g. 64m or 64MB)"},
		/* the spellings vm --memory's examples use (1g, 512m) are among those listed */
		{K_SIZE, "1t", -EINVAL,
		 "'1t': unknown size unit 't' (expected bytes: B, k or KB, m or MB, g or GB"},
		{K_SIZE, "64KiBs", -EINVAL, "unknown size unit 'KiBs'"},
		{K_SIZE, "16T", -EINVAL, "unknown size unit 'T'"},
		{K_SIZE, "18446744073709551616", -ERANGE, "too large"}, /* 2^64 */
		{K_SIZE, "17179869184G", -ERANGE, "too large"},		/* 2^34 * 2^30 = 2^64 */
		{K_SIZE, "", -EINVAL, "empty value (expected a size such as 64KB)"},
		{K_SIZE, "-1", -EINVAL, "negative"},
		{K_SIZE, "1 KB", -EINVAL, "white space"},
		{K_SIZE, "1e3", -EINVAL, "exponent"},
	};

	CHECK_BAD(b);
}

static void test_ppm_ok(void)
{
	static const struct good g[] = {
		{K_PPM, "0.1%", 1000},				    /* 0.1 * 10^4 ppm per percent */
		{K_PPM, "1%", 10000},	  {K_PPM, "12.5%", 125000}, /* 12.5 * 10^4 */
		{K_PPM, "100%", 1000000}, {K_PPM, "100.000%", 1000000},
		{K_PPM, "0%", 0},	  {K_PPM, "0.0001%", 1},  /* 10^-4 * 10^4 */
		{K_PPM, "0", 0},	  {K_PPM, "0.001", 1000}, /* 10^-3 * 10^6 */
		{K_PPM, "0.5", 500000},	  {K_PPM, "0.000001", 1}, /* 10^-6 * 10^6 */
		{K_PPM, "1", 1000000},	  {K_PPM, "1.0", 1000000},
	};

	CHECK_GOOD(g);
}

static void test_ppm_bad(void)
{
	static const struct bad b[] = {
		{K_PPM, "0.00001%", -EINVAL, "finer than the 1 ppm resolution"}, /* 0.1 ppm */
		{K_PPM, "0.0000001", -EINVAL, "finer than the 1 ppm resolution"},
		{K_PPM, "101%", -ERANGE, "above 100%"},
		{K_PPM, "100.0001%", -ERANGE, "above 100%"},
		{K_PPM, "1.000001", -ERANGE, "above 1 "},
		{K_PPM, "2", -ERANGE, "above 1 "},
		{K_PPM, "99999999999999999999%", -ERANGE, "too large"},
		{K_PPM, "1e-4", -EINVAL, "exponent notation is not accepted"},
		{K_PPM, "0.1 %", -EINVAL, "white space"},
		{K_PPM, "5x", -EINVAL, "unexpected 'x' (expected a percentage such as 0.1%"},
		{K_PPM, "5%%", -EINVAL, "unexpected '%%'"},
		{K_PPM, "-0.1%", -EINVAL, "negative"},
		{K_PPM, "", -EINVAL, "empty value"},
		{K_PPM, "%", -EINVAL, "not a number"},
	};

	CHECK_BAD(b);
}

static void test_u64(void)
{
	static const struct good g[] = {
		{K_U64, "0", 0},
		{K_U64, "1000", 1000},
		{K_U64, "007", 7},
		{K_U64, "18446744073709551615", UINT64_MAX},
	};
	static const struct bad b[] = {
		{K_U64, "18446744073709551616", -ERANGE,
		 "too large (at most 18446744073709551615)"},
		{K_U64, "1.5", -EINVAL, "expected a whole number"},
		{K_U64, "1.0", -EINVAL, "expected a whole number"},
		{K_U64, "1k", -EINVAL, "unexpected 'k' after the number"},
		{K_U64, "0x10", -EINVAL, "unexpected 'x10'"},
		{K_U64, "1e3", -EINVAL, "exponent"},
		{K_U64, "", -EINVAL, "empty value"},
		{K_U64, "-1", -EINVAL, "negative"},
		{K_U64, "+1", -EINVAL, "'+' sign"},
		{K_U64, " 1", -EINVAL, "white space"},
		{K_U64, "abc", -EINVAL, "not a number"},
	};

	CHECK_GOOD(g);
	CHECK_BAD(b);
}

/* Thousandths: a factor such as --time-dilation's, exact or refused. */
static void test_milli(void)
{
	static const struct good g[] = {
		{K_MILLI, "2", 2000},	    {K_MILLI, "1.5", 1500}, {K_MILLI, "1.125", 1125},
		{K_MILLI, "16.000", 16000}, {K_MILLI, "0", 0},	    {K_MILLI, "0.001", 1},
	};
	static const struct bad b[] = {
		{K_MILLI, "1.0005", -EINVAL, "finer than a thousandth"},
		{K_MILLI, "2x", -EINVAL, "unexpected 'x' after the number"},
		{K_MILLI, "18446744073709552", -ERANGE, "too large"},
		{K_MILLI, "", -EINVAL, "empty value"},
		{K_MILLI, "-2", -EINVAL, "negative"},
	};

	CHECK_GOOD(g);
	CHECK_BAD(b);
}

/* A NULL string is an empty value, and NULL @err is allowed. */
static void test_null(void)
{
	struct ts_err err;
	ts_ns_t t = 7;
	uint64_t v = 7;

	TSU_EQ(ts_parse_time(NULL, &t, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "empty value"));
	TSU_EQ(t, 7);
	TSU_EQ(ts_parse_size("1x", &v, NULL), -EINVAL);
	TSU_EQ(ts_parse_size("2k", &v, NULL), 0);
	TSU_EQ(v, 2048); /* 2 * 1024 */
}

/* Messages quote the input, escaping bytes a terminal would not show. */
static void test_quoting(void)
{
	char longs[200];
	struct ts_err err;
	uint64_t v;

	TSU_EQ(parse(K_TIME, "5\001ms", &v, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'5\\x01ms': unknown time unit '\\x01ms'"));
	TSU_EQ(parse(K_TIME, "5\xc2\xb5s", &v, &err), -EINVAL); /* UTF-8 micro sign */
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown time unit '\\xc2\\xb5s'"));

	/* 199 characters: the quote stops after 40, marked "..." */
	memset(longs, 'x', sizeof(longs) - 1);
	longs[0] = '1';
	longs[sizeof(longs) - 1] = '\0';
	TSU_EQ(parse(K_RATE, longs, &v, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'1xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"));
	/* and never the whole 199 characters, nor even the last 100 of them */
	CU_ASSERT_PTR_NULL(strstr(err.msg, longs + 99));
}

static void check_fmt_rate(uint64_t bps, const char *want)
{
	char buf[32];

	ts_fmt_rate(buf, sizeof(buf), bps);
	if (strcmp(buf, want))
		fprintf(stderr, "\n  rate %llu: \"%s\", expected \"%s\"\n", (unsigned long long)bps,
			buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void check_fmt_time(ts_ns_t ns, const char *want)
{
	char buf[32];

	ts_fmt_time(buf, sizeof(buf), ns);
	if (strcmp(buf, want))
		fprintf(stderr, "\n  time %lld: \"%s\", expected \"%s\"\n", (long long)ns, buf,
			want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_fmt_rate(void)
{
	char buf[8];

	check_fmt_rate(12000000, "12 Mbit/s");
	check_fmt_rate(1200000000, "1.2 Gbit/s");
	check_fmt_rate(500000, "500 kbit/s");
	check_fmt_rate(0, "0 bit/s");
	check_fmt_rate(999, "999 bit/s");
	check_fmt_rate(1000, "1 kbit/s");
	check_fmt_rate(1500, "1.5 kbit/s");
	check_fmt_rate(100000000, "100 Mbit/s");
	check_fmt_rate(10500000, "10.5 Mbit/s");
	check_fmt_rate(1234567, "1.23 Mbit/s"); /* 1.234567: 123 r 4567 < 5000 */
	check_fmt_rate(1235000, "1.24 Mbit/s"); /* 123 r 5000: half rounds up */
	check_fmt_rate(1001, "1 kbit/s");	/* 1.001 -> 1.00 */
	check_fmt_rate(999400, "999 kbit/s");	/* 999.4 -> 999 */
	check_fmt_rate(999600, "1 Mbit/s");	/* 999.6 -> 1000 kbit/s carries */
	check_fmt_rate(9996000, "10 Mbit/s");	/* 9.996 -> 10.00 */
	check_fmt_rate(2000000000000ULL, "2 Tbit/s");
	/* (2^64 - 1) / 10^12 = 18446744.07...: integer part kept whole */
	check_fmt_rate(UINT64_MAX, "18446744 Tbit/s");

	/* truncation to @len, and nothing written for len 0 */
	CU_ASSERT_STRING_EQUAL(ts_fmt_rate(buf, 5, 12000000), "12 M");
	buf[0] = 'z';
	CU_ASSERT_PTR_EQUAL(ts_fmt_rate(buf, 0, 12000000), buf);
	CU_ASSERT_EQUAL(buf[0], 'z');
}

static void test_fmt_time(void)
{
	check_fmt_time(20000000, "20 ms");
	check_fmt_time(1500000000, "1.5 s");
	check_fmt_time(250000, "250 us");
	check_fmt_time(730, "730 ns");
	check_fmt_time(0, "0 ns");
	check_fmt_time(1234, "1.23 us");
	check_fmt_time(-20000000, "-20 ms");
	check_fmt_time(3600LL * 1000000000, "3600 s");
	check_fmt_time(999999999, "1 s"); /* 999.999999 ms -> 1000 ms carries */
	/* 2^63 - 1 ns = 9223372036.854775807 s, .85 rounds up */
	check_fmt_time(INT64_MAX, "9223372037 s");
	check_fmt_time(INT64_MIN, "-9223372037 s");
}

/*
 * A message longer than TS_ERR_MAX - 1 = 511 characters keeps its start and
 * its end: 511 - 5 (" ... ") = 506, 253 from each side. A 600-character
 * value quoted in the middle no longer cuts off the reason after it.
 */
static void test_err_long(void)
{
	char value[601], want[TS_ERR_MAX];
	struct ts_err err;
	const char *tail = "': cannot open: No such file or directory";

	memset(value, 'v', 600);
	value[600] = '\0';
	ts_err_set(&err, "--trace: '%s%s", value, tail);
	TSU_EQ(strlen(err.msg), 511);
	/* 10 + 600 + 41 = 651 characters: the first 253, " ... ", the last 253 */
	snprintf(want, sizeof(want), "--trace: '%.243s ... %.212s%s", value, value, tail);
	TSU_EQ(strlen(want), 511);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	/* a message that fits is left alone */
	ts_err_set(&err, "%s", "short");
	CU_ASSERT_STRING_EQUAL(err.msg, "short");
	ts_err_set(&err, "%.511s", value);
	TSU_EQ(strlen(err.msg), 511);
	CU_ASSERT_PTR_NULL(strstr(err.msg, " ... "));
}

static const struct tsu_test tests[] = {
	{"time accepted forms", test_time_ok},
	{"time rejections", test_time_bad},
	{"rate accepted forms", test_rate_ok},
	{"rate rejections", test_rate_bad},
	{"size accepted forms", test_size_ok},
	{"size rejections", test_size_bad},
	{"ppm accepted forms", test_ppm_ok},
	{"ppm rejections", test_ppm_bad},
	{"plain integers", test_u64},
	{"thousandths", test_milli},
	{"NULL input and NULL err", test_null},
	{"messages quote the input safely", test_quoting},
	{"ts_fmt_rate", test_fmt_rate},
	{"ts_fmt_time", test_fmt_time},
	{"long messages keep their end", test_err_long},
};

TSU_MAIN("units", tests)
