/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the kernel preemption model parser (run/preempt.c):
 * the input is up to four NUL-separated texts, the kernel's version, its
 * command line, debugfs's sched/preempt and its configuration. Besides
 * crashes and sanitizer reports it checks the contracts: the model is one
 * of the enum's, a reason is always given, and PREEMPT_RT in the version
 * always wins.
 *   ./fuzz_preempt -max_total_time=30
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "run/preempt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *field[4] = {NULL, NULL, NULL, NULL}, *p;
	struct ts_preempt_src s;
	enum ts_preempt m;
	const char *from = NULL;
	int i;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* Fields end at NULs; a missing field stays NULL (not readable). */
	for (i = 0, p = buf; i < 4 && p <= buf + size; i++) {
		field[i] = p;
		p += strlen(p) + 1;
	}
	s.version = field[0];
	s.cmdline = field[1];
	s.debugfs = field[2];
	s.config = field[3];
	m = ts_preempt_parse(&s, &from);
	CHECK((unsigned int)m <= TS_PREEMPT_RT);
	CHECK(from && from[0]);
	CHECK(strcmp(ts_preempt_name(m), "") != 0);
	if (s.version && ts_preempt_is_dynamic(s.version))
		CHECK(strstr(s.version, "PREEMPT_DYNAMIC") != NULL);
	if (s.version && !strcmp(s.version, "PREEMPT_RT"))
		CHECK(m == TS_PREEMPT_RT);
	free(buf);
	return 0;
}
