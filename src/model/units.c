/* SPDX-License-Identifier: MIT */
/*
 * Unit parsers and formatters. A number (DIGITS[.DIGITS]) is split into
 * its integer part and its decimal fraction and scaled by the unit with
 * integer arithmetic only, so "1.2gbit" is exactly 1200000000 and a value
 * the resolution cannot hold is reported instead of rounded. strtod is
 * not used: it accepts "1e6", "nan", "inf", hex floats and leading space,
 * and its binary result is not exact.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tasshape/units.h"

/* Input characters quoted in a message; each may print as "\xNN". */
#define QUOTE_MAX 40
#define QUOTE_BUF (QUOTE_MAX * 4 + sizeof("..."))

/* Digits of a number repeated in an example ("e.g. 20ms"). */
#define EXAMPLE_MAX 20

static const uint64_t pow10_tab[20] = {
	1ULL,
	10ULL,
	100ULL,
	1000ULL,
	10000ULL,
	100000ULL,
	1000000ULL,
	10000000ULL,
	100000000ULL,
	1000000000ULL,
	10000000000ULL,
	100000000000ULL,
	1000000000000ULL,
	10000000000000ULL,
	100000000000000ULL,
	1000000000000000ULL,
	10000000000000000ULL,
	100000000000000000ULL,
	1000000000000000000ULL,
	10000000000000000000ULL,
};

/* What a parser expects, for messages. */
struct kind {
	const char *what;    /* "a duration" */
	const char *example; /* "20ms" */
	const char *max;     /* the largest value, for -ERANGE messages */
};

static const struct kind kind_time = {"a duration", "20ms",
				      "9223372036854775807ns, about 292 years"};
static const struct kind kind_rate = {"a rate", "12mbit", "18446744073709551615bit"};
static const struct kind kind_size = {"a size", "64KB", "18446744073709551615B"};
static const struct kind kind_ppm = {"a probability", "0.1% or 0.001", "100% or 1"};
static const struct kind kind_u64 = {"a whole number", "1000", "18446744073709551615"};
static const struct kind kind_milli = {"a number", "2 or 1.5", "18446744073709551.615"};

/* A scanned number: value = ipart + frac / 10^fdigits. */
struct num {
	uint64_t ipart;
	uint64_t frac;	      /* fraction digits without trailing zeros */
	unsigned int fdigits; /* digits in frac, at most 19 */
	bool has_dot;
	bool too_fine;	  /* more than 19 significant fraction digits */
	const char *unit; /* first character after the number */
	int len;	  /* characters of the number, for examples */
};

struct unit_def {
	const char *name;
	uint64_t mult;
};

/*
 * quote - copy at most QUOTE_MAX characters of @s into @q (QUOTE_BUF
 * bytes) with non-printable bytes as \xNN, so that a message stays one
 * readable line whatever the input. Returns @q.
 */
static const char *quote(char *q, const char *s)
{
	size_t i, o = 0;

	for (i = 0; s[i] && i < QUOTE_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f)
			q[o++] = (char)c;
		else
			o += (size_t)snprintf(q + o, 5, "\\x%02x", c);
	}
	if (s[i]) {
		memcpy(q + o, "...", 3);
		o += 3;
	}
	q[o] = '\0';
	return q;
}

static int example_len(const struct num *n)
{
	return n->len < EXAMPLE_MAX ? n->len : EXAMPLE_MAX;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * num_scan - read DIGITS[.DIGITS] at the start of @s into @n.
 * Rejects what can never be a number whatever the unit. Returns 0,
 * -EINVAL or -ERANGE (integer part above 2^64 - 1) with @err set.
 */
static int num_scan(const char *s, const struct kind *k, struct num *n, struct ts_err *err)
{
	char q[QUOTE_BUF];
	const char *p, *fstart, *fend;

	memset(n, 0, sizeof(*n));
	if (!s || !*s) {
		ts_err_set(err, "empty value (expected %s such as %s)", k->what, k->example);
		return -EINVAL;
	}
	for (p = s; *p; p++) {
		if (*p == ' ' || (*p >= '\t' && *p <= '\r')) {
			ts_err_set(err, "'%s': white space is not allowed (expected %s such as %s)",
				   quote(q, s), k->what, k->example);
			return -EINVAL;
		}
	}
	if (*s == '-' || *s == '+') {
		ts_err_set(err, "'%s': %s (expected %s such as %s)", quote(q, s),
			   *s == '-' ? "negative values are not allowed"
				     : "a '+' sign is not allowed",
			   k->what, k->example);
		return -EINVAL;
	}
	if (*s == '.') {
		ts_err_set(err, "'%s': a digit is needed before the '.' (write 0.5, not .5)",
			   quote(q, s));
		return -EINVAL;
	}
	if (!is_digit(*s)) {
		ts_err_set(err, "'%s': not a number (expected %s such as %s)", quote(q, s), k->what,
			   k->example);
		return -EINVAL;
	}
	for (p = s; is_digit(*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (n->ipart > (UINT64_MAX - d) / 10) {
			ts_err_set(err, "'%s': too large (at most %s)", quote(q, s), k->max);
			return -ERANGE;
		}
		n->ipart = n->ipart * 10 + d;
	}
	if (*p == '.') {
		n->has_dot = true;
		fstart = ++p;
		while (is_digit(*p))
			p++;
		if (p == fstart) {
			ts_err_set(err,
				   "'%s': a digit is needed after the '.' (write 5 or 5.0, not 5.)",
				   quote(q, s));
			return -EINVAL;
		}
		/* Trailing zeros do not change the value: "1.50000000000s" is fine. */
		fend = p;
		while (fend > fstart && fend[-1] == '0')
			fend--;
		if (fend - fstart > 19) {
			n->too_fine = true;
		} else {
			n->fdigits = (unsigned int)(fend - fstart);
			for (; fstart < fend; fstart++)
				n->frac = n->frac * 10 + (uint64_t)(*fstart - '0');
		}
	}
	if ((*p == 'e' || *p == 'E') &&
	    (is_digit(p[1]) || ((p[1] == '-' || p[1] == '+') && is_digit(p[2])))) {
		ts_err_set(err,
			   "'%s': exponent notation is not accepted (write the digits out, "
			   "expected %s such as %s)",
			   quote(q, s), k->what, k->example);
		return -EINVAL;
	}
	n->unit = p;
	n->len = (int)(p - s);
	return 0;
}

/*
 * num_scale - *out = @n * @mult exactly (@mult > 0). Returns 0, -ERANGE
 * when the result exceeds 2^64 - 1, or -EDOM when it is not a whole
 * number; *out is written only on success.
 */
static int num_scale(const struct num *n, uint64_t mult, uint64_t *out)
{
	uint64_t hi, lo = 0;

	if (n->ipart > UINT64_MAX / mult)
		return -ERANGE;
	hi = n->ipart * mult;
	if (n->too_fine)
		return -EDOM;
	if (n->fdigits) {
		/*
		 * frac * mult / 10^f is whole iff (10^f / g) divides frac,
		 * g = gcd(mult, 10^f); dividing first keeps it below mult.
		 */
		uint64_t p = pow10_tab[n->fdigits];
		uint64_t g = gcd(mult, p);

		if (n->frac % (p / g))
			return -EDOM;
		lo = n->frac / (p / g) * (mult / g);
	}
	if (lo > UINT64_MAX - hi)
		return -ERANGE;
	*out = hi + lo;
	return 0;
}

/* Case-insensitive lookup of @u in @defs; returns true and sets *mult. */
static bool unit_find(const struct unit_def *defs, size_t ndefs, const char *u, uint64_t *mult)
{
	size_t i;

	for (i = 0; i < ndefs; i++) {
		if (!strcasecmp(defs[i].name, u)) {
			*mult = defs[i].mult;
			return true;
		}
	}
	return false;
}

int ts_parse_time(const char *s, ts_ns_t *out, struct ts_err *err)
{
	static const struct unit_def units[] = {
		{"ns", 1},
		{"nsec", 1},
		{"us", TS_NSEC_PER_USEC},
		{"usec", TS_NSEC_PER_USEC},
		{"ms", TS_NSEC_PER_MSEC},
		{"msec", TS_NSEC_PER_MSEC},
		{"s", TS_NSEC_PER_SEC},
		{"sec", TS_NSEC_PER_SEC},
	};
	char q[QUOTE_BUF], qu[QUOTE_BUF];
	struct num n;
	uint64_t mult, v;
	int ret;

	ret = num_scan(s, &kind_time, &n, err);
	if (ret < 0)
		return ret;
	if (!*n.unit) {
		ts_err_set(err, "'%s': missing time unit (expected ns, us, ms or s, e.g. %.*sms)",
			   quote(q, s), example_len(&n), s);
		return -EINVAL;
	}
	if (!unit_find(units, sizeof(units) / sizeof(units[0]), n.unit, &mult)) {
		ts_err_set(err,
			   "'%s': unknown time unit '%s' (expected ns, us, ms or s, e.g. %.*sms)",
			   quote(q, s), quote(qu, n.unit), example_len(&n), s);
		return -EINVAL;
	}
	ret = num_scale(&n, mult, &v);
	if (ret == -ERANGE || (!ret && v > INT64_MAX)) {
		ts_err_set(err, "'%s': too large (at most %s)", quote(q, s), kind_time.max);
		return -ERANGE;
	}
	if (ret < 0) {
		ts_err_set(err, "'%s': finer than the 1 ns resolution", quote(q, s));
		return -EINVAL;
	}
	*out = (ts_ns_t)v;
	return 0;
}

/* SI prefixes as a rate unit's first letter, for the ambiguity message. */
static const char *const rate_prefix[][3] = {
	/* lower, upper, name */
	{"k", "K", "kilo"},
	{"m", "M", "mega"},
	{"g", "G", "giga"},
	{"t", "T", "tera"},
};

/*
 * rate_ambiguous - the message for "12mbps" style units: @u matched
 * [kmgt]?bps in some case but none of the exact spellings.
 */
static void rate_ambiguous(const char *s, const struct num *n, struct ts_err *err)
{
	char q[QUOTE_BUF], qu[QUOTE_BUF];
	int el = example_len(n);
	size_t i;

	quote(q, s);
	quote(qu, n->unit);
	if (strlen(n->unit) == 3) {
		ts_err_set(err,
			   "'%s': ambiguous unit '%s' (tc reads it as bytes/s, many papers as "
			   "bits/s): write %.*sbit (bits/s) or %.*sBps (bytes/s)",
			   q, qu, el, s, el, s);
		return;
	}
	for (i = 0; i < sizeof(rate_prefix) / sizeof(rate_prefix[0]); i++) {
		const char *const *pf = rate_prefix[i];

		if ((n->unit[0] | 0x20) != pf[0][0])
			continue;
		ts_err_set(
			err,
			"'%s': ambiguous unit '%s' (tc reads it as %sbytes/s, many papers as "
			"%sbits/s): write %.*s%sbit or %.*s%sbps (%sbits/s), %.*s%sBps (%sbytes/s)",
			q, qu, pf[2], pf[2], el, s, pf[0], el, s, pf[1], pf[2], el, s, pf[1],
			pf[2]);
		return;
	}
}

int ts_parse_rate(const char *s, uint64_t *out_bps, int allow_zero, struct ts_err *err)
{
	/* Any case: tc's spelling. */
	static const struct unit_def bit_units[] = {
		{"bit", 1},
		{"kbit", 1000ULL},
		{"mbit", 1000000ULL},
		{"gbit", 1000000000ULL},
		{"tbit", 1000000000000ULL},
		{"bit/s", 1},
		{"kbit/s", 1000ULL},
		{"mbit/s", 1000000ULL},
		{"gbit/s", 1000000000ULL},
		{"tbit/s", 1000000000000ULL},
	};
	/* Exact case: the capital letters carry the meaning. */
	static const struct unit_def exact_units[] = {
		{"Kbps", 1000ULL},	    {"Mbps", 1000000ULL}, {"Gbps", 1000000000ULL},
		{"Tbps", 1000000000000ULL}, {"Bps", 8},		  {"KBps", 8000ULL},
		{"kBps", 8000ULL},	    {"MBps", 8000000ULL}, {"GBps", 8000000000ULL},
		{"TBps", 8000000000000ULL},
	};
	static const struct unit_def ambiguous[] = {
		{"bps", 0}, {"kbps", 0}, {"mbps", 0}, {"gbps", 0}, {"tbps", 0},
	};
	char q[QUOTE_BUF], qu[QUOTE_BUF];
	struct num n;
	uint64_t mult = 0, v;
	size_t i;
	int ret;

	ret = num_scan(s, &kind_rate, &n, err);
	if (ret < 0)
		return ret;
	if (!*n.unit) {
		ts_err_set(err,
			   "'%s': missing rate unit (expected e.g. %.*smbit or %.*sMbps for "
			   "megabits/s, %.*sMBps for megabytes/s)",
			   quote(q, s), example_len(&n), s, example_len(&n), s, example_len(&n), s);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(exact_units) / sizeof(exact_units[0]); i++) {
		if (!strcmp(exact_units[i].name, n.unit)) {
			mult = exact_units[i].mult;
			break;
		}
	}
	if (!mult &&
	    !unit_find(bit_units, sizeof(bit_units) / sizeof(bit_units[0]), n.unit, &mult)) {
		if (unit_find(ambiguous, sizeof(ambiguous) / sizeof(ambiguous[0]), n.unit, &mult)) {
			rate_ambiguous(s, &n, err);
			return -EINVAL;
		}
		ts_err_set(err,
			   "'%s': unknown rate unit '%s' (expected bit, kbit, mbit, gbit, tbit or "
			   "Kbps, Mbps, Gbps, Tbps for bits/s, KBps, MBps, GBps, TBps for bytes/s, "
			   "e.g. %.*smbit)",
			   quote(q, s), quote(qu, n.unit), example_len(&n), s);
		return -EINVAL;
	}
	ret = num_scale(&n, mult, &v);
	if (ret == -ERANGE) {
		ts_err_set(err, "'%s': too large (at most %s)", quote(q, s), kind_rate.max);
		return -ERANGE;
	}
	if (ret < 0) {
		ts_err_set(err, "'%s': not a whole number of bit/s (the resolution is 1 bit/s)",
			   quote(q, s));
		return -EINVAL;
	}
	if (!v && !allow_zero) {
		ts_err_set(err, "'%s': the rate must be greater than 0 (expected %s such as %s)",
			   quote(q, s), kind_rate.what, kind_rate.example);
		return -EINVAL;
	}
	*out_bps = v;
	return 0;
}

int ts_parse_size(const char *s, uint64_t *out_bytes, struct ts_err *err)
{
	static const struct unit_def units[] = {
		{"", 1},
		{"b", 1},
		{"k", 1ULL << 10},
		{"kb", 1ULL << 10},
		{"kib", 1ULL << 10},
		{"m", 1ULL << 20},
		{"mb", 1ULL << 20},
		{"mib", 1ULL << 20},
		{"g", 1ULL << 30},
		{"gb", 1ULL << 30},
		{"gib", 1ULL << 30},
	};
	char q[QUOTE_BUF], qu[QUOTE_BUF];
	struct num n;
	uint64_t mult, v;
	int ret;

	ret = num_scan(s, &kind_size, &n, err);
	if (ret < 0)
		return ret;
	if (!unit_find(units, sizeof(units) / sizeof(units[0]), n.unit, &mult)) {
		ts_err_set(err,
			   "'%s': unknown size unit '%s' (expected bytes: B, k or KB, m or MB, g "
			   "or GB, multiples of 1024 as in tc, e.g. %.*sm or %.*sMB%s)",
			   quote(q, s), quote(qu, n.unit), example_len(&n), s, example_len(&n), s,
			   strcasestr(n.unit, "bit") ? "; sizes are not given in bits" : "");
		return -EINVAL;
	}
	ret = num_scale(&n, mult, &v);
	if (ret == -ERANGE) {
		ts_err_set(err, "'%s': too large (at most %s)", quote(q, s), kind_size.max);
		return -ERANGE;
	}
	if (ret < 0) {
		ts_err_set(err,
			   "'%s': not a whole number of bytes (K, M and G are 1024, 1024^2 and "
			   "1024^3 bytes)",
			   quote(q, s));
		return -EINVAL;
	}
	*out_bytes = v;
	return 0;
}

int ts_parse_ppm(const char *s, uint32_t *out_ppm, struct ts_err *err)
{
	char q[QUOTE_BUF], qu[QUOTE_BUF];
	struct num n;
	uint64_t mult, v;
	int ret;

	ret = num_scan(s, &kind_ppm, &n, err);
	if (ret < 0)
		return ret;
	if (!strcmp(n.unit, "%")) {
		mult = TS_PPM_ONE / 100;
	} else if (!*n.unit) {
		mult = TS_PPM_ONE;
	} else {
		ts_err_set(err,
			   "'%s': unexpected '%s' (expected a percentage such as 0.1%% or a "
			   "fraction in [0, 1] such as 0.001)",
			   quote(q, s), quote(qu, n.unit));
		return -EINVAL;
	}
	ret = num_scale(&n, mult, &v);
	if (ret == -ERANGE || (!ret && v > TS_PPM_ONE)) {
		ts_err_set(err,
			   "'%s': above %s (expected a percentage in [0%%, 100%%] or a fraction "
			   "in [0, 1])",
			   quote(q, s), *n.unit ? "100%" : "1");
		return -ERANGE;
	}
	if (ret < 0) {
		ts_err_set(err,
			   "'%s': finer than the 1 ppm resolution (the smallest step is "
			   "0.0001%% or 0.000001)",
			   quote(q, s));
		return -EINVAL;
	}
	*out_ppm = (uint32_t)v;
	return 0;
}

int ts_parse_u64(const char *s, uint64_t *out, struct ts_err *err)
{
	char q[QUOTE_BUF], qu[QUOTE_BUF];
	struct num n;
	int ret;

	ret = num_scan(s, &kind_u64, &n, err);
	if (ret < 0)
		return ret;
	if (n.has_dot) {
		ts_err_set(err, "'%s': expected a whole number (digits only, e.g. 1000)",
			   quote(q, s));
		return -EINVAL;
	}
	if (*n.unit) {
		ts_err_set(err,
			   "'%s': unexpected '%s' after the number (expected digits only, e.g. "
			   "1000)",
			   quote(q, s), quote(qu, n.unit));
		return -EINVAL;
	}
	*out = n.ipart;
	return 0;
}

int ts_parse_milli(const char *s, uint64_t *out_milli, struct ts_err *err)
{
	char q[QUOTE_BUF], qu[QUOTE_BUF];
	struct num n;
	int ret;

	ret = num_scan(s, &kind_milli, &n, err);
	if (ret < 0)
		return ret;
	if (*n.unit) {
		ts_err_set(err,
			   "'%s': unexpected '%s' after the number (expected a plain number such "
			   "as 2 or 1.5)",
			   quote(q, s), quote(qu, n.unit));
		return -EINVAL;
	}
	ret = num_scale(&n, 1000, out_milli);
	if (ret == -ERANGE) {
		ts_err_set(err, "'%s': too large", quote(q, s));
		return -ERANGE;
	}
	if (ret < 0) {
		ts_err_set(err, "'%s': finer than a thousandth (e.g. 1.125, not 1.1255)",
			   quote(q, s));
		return -EINVAL;
	}
	return 0;
}

struct fmt_unit {
	uint64_t mult;
	const char *name;
};

static unsigned int ndigits(uint64_t v)
{
	unsigned int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/*
 * fmt_scaled - print @v in the largest unit of @u (ascending, first
 * mult 1) not above it, with 3 significant digits, rounded half up and
 * trailing zeros dropped. Rounding can carry into the next unit
 * (999.6 kbit/s is printed 1 Mbit/s), hence the loop.
 */
static const char *fmt_scaled(char *buf, unsigned int len, const char *sign, uint64_t v,
			      const struct fmt_unit *u, unsigned int nu)
{
	char frac[24] = ""; /* "." and up to 20 digits, though d <= 2 */
	unsigned int i = 0, d;
	uint64_t q, r, scaled;

	if (!len)
		return buf;
	while (i + 1 < nu && v >= u[i + 1].mult)
		i++;
	for (;;) {
		unsigned int id = ndigits(v / u[i].mult);

		d = (u[i].mult == 1 || id >= 3) ? 0 : 3 - id;
		q = u[i].mult / pow10_tab[d];
		r = v % q;
		scaled = v / q + (r >= q - r ? 1 : 0);
		if (i + 1 < nu && scaled / pow10_tab[d] >= u[i + 1].mult / u[i].mult) {
			i++;
			continue;
		}
		break;
	}
	if (d && scaled % pow10_tab[d]) {
		unsigned int k = d;

		snprintf(frac, sizeof(frac), ".%0*" PRIu64, (int)d, scaled % pow10_tab[d]);
		while (frac[k] == '0')
			frac[k--] = '\0';
	}
	snprintf(buf, len, "%s%" PRIu64 "%s %s", sign, scaled / pow10_tab[d], frac, u[i].name);
	return buf;
}

const char *ts_fmt_rate(char *buf, unsigned int len, uint64_t bps)
{
	static const struct fmt_unit units[] = {
		{1, "bit/s"},
		{1000ULL, "kbit/s"},
		{1000000ULL, "Mbit/s"},
		{1000000000ULL, "Gbit/s"},
		{1000000000000ULL, "Tbit/s"},
	};

	return fmt_scaled(buf, len, "", bps, units, sizeof(units) / sizeof(units[0]));
}

const char *ts_fmt_time(char *buf, unsigned int len, ts_ns_t ns)
{
	static const struct fmt_unit units[] = {
		{1, "ns"},
		{TS_NSEC_PER_USEC, "us"},
		{TS_NSEC_PER_MSEC, "ms"},
		{TS_NSEC_PER_SEC, "s"},
	};
	/* Unsigned negation: INT64_MIN has no positive int64_t. */
	uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;

	return fmt_scaled(buf, len, ns < 0 ? "-" : "", mag, units,
			  sizeof(units) / sizeof(units[0]));
}
