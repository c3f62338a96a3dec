/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the unit parsers, the formatters and the spec
 * parser (built with -DTS_FUZZ=ON and clang). Besides crashes and
 * sanitizer reports it checks the contracts: only 0, -EINVAL or -ERANGE
 * come back, an error always has a message and never writes the output,
 * accepted values are within their ranges, and a plain integer parses
 * as strtoull reads it. Run with tests/fuzz/units.dict:
 *   ./fuzz_units -dict=tests/fuzz/units.dict -max_total_time=30
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/spec.h"
#include "tasshape/units.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_ret(int ret, const struct ts_err *err)
{
	if (ret != 0 && ret != -EINVAL && ret != -ERANGE)
		abort();
	if (ret < 0 && !err->msg[0])
		abort();
}

static void fuzz_units(const char *s)
{
	char buf[40];
	struct ts_err err;
	ts_ns_t t = (ts_ns_t)SENTINEL;
	uint64_t v = SENTINEL;
	uint32_t p = (uint32_t)SENTINEL;
	int ret, zero;

	err.msg[0] = '\0';
	ret = ts_parse_time(s, &t, &err);
	check_ret(ret, &err);
	if (ret < 0 ? t != (ts_ns_t)SENTINEL : t < 0)
		abort();
	if (!ret)
		ts_fmt_time(buf, sizeof(buf), t);

	for (zero = 0; zero <= 1; zero++) {
		v = SENTINEL;
		err.msg[0] = '\0';
		ret = ts_parse_rate(s, &v, zero, &err);
		check_ret(ret, &err);
		if (ret < 0 ? v != SENTINEL : (!zero && v == 0))
			abort();
		if (!ret)
			ts_fmt_rate(buf, sizeof(buf), v);
	}

	v = SENTINEL;
	err.msg[0] = '\0';
	ret = ts_parse_size(s, &v, &err);
	check_ret(ret, &err);
	if (ret < 0 && v != SENTINEL)
		abort();

	err.msg[0] = '\0';
	ret = ts_parse_ppm(s, &p, &err);
	check_ret(ret, &err);
	if (ret < 0 ? p != (uint32_t)SENTINEL : p > TS_PPM_ONE)
		abort();

	v = SENTINEL;
	err.msg[0] = '\0';
	ret = ts_parse_u64(s, &v, &err);
	check_ret(ret, &err);
	if (ret < 0 && v != SENTINEL)
		abort();
	if (!ret && v != strtoull(s, NULL, 10))
		abort();
}

/* Parse @s as a spec, ask for every key with a getter chosen by its first byte. */
static void fuzz_spec(const char *s)
{
	struct ts_spec spec;
	struct ts_err err;
	unsigned int i, n;
	ts_ns_t t;
	uint64_t v;
	uint32_t p;
	int ret;

	err.msg[0] = '\0';
	ret = ts_spec_parse(&spec, s, &err);
	check_ret(ret, &err);
	if (ret < 0)
		return;
	if (strlen(spec.name) == 0 || spec.nargs > TS_SPEC_MAX_ARGS)
		abort();
	n = spec.nargs;
	/* leave the last key unasked, so check_used has one to report */
	for (i = 0; i + 1 < n; i++) {
		const char *key = spec.arg[i].key;

		if (!*key || !*spec.arg[i].val)
			abort();
		err.msg[0] = '\0';
		switch ((unsigned char)key[0] % 5) {
		case 0:
			ret = ts_spec_get_time(&spec, key, &t, &err);
			break;
		case 1:
			ret = ts_spec_get_rate(&spec, key, &v, &err);
			break;
		case 2:
			ret = ts_spec_get_size(&spec, key, &v, &err);
			break;
		case 3:
			ret = ts_spec_get_ppm(&spec, key, &p, &err);
			break;
		default:
			ret = ts_spec_get_u64(&spec, key, &v, &err);
			break;
		}
		check_ret(ret, &err);
		if (!spec.arg[i].used)
			abort();
	}
	err.msg[0] = '\0';
	ret = ts_spec_check_used(&spec, "a, b", &err);
	check_ret(ret, &err);
	if ((ret < 0) != (n > 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	fuzz_units(s);
	fuzz_spec(s);
	free(s);
	return 0;
}
