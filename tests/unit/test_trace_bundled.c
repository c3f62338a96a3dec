/* SPDX-License-Identifier: MIT */
/*
 * The bundled traces are what they say they are: each generated file in
 * traces/ is byte for byte what its line in traces/regen.list generates
 * (so a model change that forgets tools/regen-traces.sh fails here), each
 * is under 1 MB, and the statistics table of traces/README.md matches
 * ts_trace_stats of every file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsu.h"
#include "tasshape/trace_file.h"
#include "tasshape/trace_gen.h"
#include "tasshape/trace_stats.h"
#include "tasshape/units.h"

#define TRACES TS_SOURCE_DIR "/traces/"

/* The whole file, NUL-terminated (caller frees), or NULL. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		p = malloc((size_t)n + 1);
		if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
			free(p);
			p = NULL;
		}
		if (p) {
			p[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(f);
	return p;
}

/* The README rows of @file's directions must be in @readme. */
static void check_stats(const char *file, const char *readme)
{
	char path[512];
	struct ts_trace *tr[2] = {NULL, NULL};
	struct ts_trace_file_info info;
	struct ts_err err;
	int d;

	snprintf(path, sizeof(path), TRACES "%s", file);
	if (ts_trace_load_tool(path, &tr[TS_DIR_DOWN], &tr[TS_DIR_UP], &info, &err)) {
		fprintf(stderr, "\n  %s\n", err.msg);
		CU_FAIL("cannot load a bundled trace");
		return;
	}
	for (d = 1; d >= 0; d--) {
		struct ts_trace_stats st;
		struct ts_text row;

		if (!tr[d])
			continue;
		ts_text_init(&row);
		TSU_EQ(ts_trace_stats(tr[d], TS_NSEC_PER_SEC, 20 * TS_NSEC_PER_MSEC, &st), 0);
		TSU_EQ(ts_trace_stats_md(&row, file, info.phy ? "phy" : d ? "down" : "up", &st), 0);
		if (!strstr(readme, row.p))
			fprintf(stderr,
				"\n  traces/README.md lacks the row\n  %s\n  (run "
				"tools/regen-traces.sh)\n",
				row.p);
		CU_ASSERT_PTR_NOT_NULL(strstr(readme, row.p));
		ts_text_fini(&row);
		ts_trace_free(tr[d]);
	}
}

static void test_bundled(void)
{
	size_t rlen, nfiles = 0;
	char *readme = slurp(TRACES "README.md", &rlen);
	char line[1024];
	FILE *list = fopen(TRACES "regen.list", "r");

	CU_ASSERT_PTR_NOT_NULL_FATAL(readme);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	while (fgets(line, sizeof(line), list)) {
		char *tok[16], *save = NULL, *p, *file;
		const char *const *kv;
		size_t n = 0, flen;
		struct ts_text b;
		struct ts_err err;
		uint64_t seed;
		ts_ns_t dur;
		char path[512];

		for (p = strtok_r(line, " \t\n", &save); p && n < 16;
		     p = strtok_r(NULL, " \t\n", &save))
			tok[n++] = p;
		if (!n || tok[0][0] == '#')
			continue;
		CU_ASSERT_FATAL(n >= 4);
		TSU_EQ(ts_parse_u64(tok[2], &seed, &err), 0);
		TSU_EQ(ts_parse_time(tok[3], &dur, &err), 0);
		kv = (const char *const *)&tok[4];
		ts_text_init(&b);
		TSU_EQ(ts_gen_csv(tok[1], seed, dur, kv, n - 4, &b, &err), 0);
		snprintf(path, sizeof(path), TRACES "%s", tok[0]);
		file = slurp(path, &flen);
		if (!file || !b.p || strcmp(file, b.p))
			fprintf(stderr,
				"\n  traces/%s differs from what regen.list generates (run "
				"tools/regen-traces.sh)\n",
				tok[0]);
		CU_ASSERT_TRUE(file && b.p && !strcmp(file, b.p));
		CU_ASSERT_TRUE(flen < 1000000);
		check_stats(tok[0], readme);
		free(file);
		ts_text_fini(&b);
		nfiles++;
	}
	fclose(list);
	/* the 9 generated traces, and the two written by hand */
	TSU_EQ(nfiles, 9);
	check_stats("step-10-40mbit.csv", readme);
	check_stats("const-12mbit.mahi", readme);
	free(readme);
}

static const struct tsu_test tests[] = {
	{"traces/ is what regen.list generates; README stats match", test_bundled},
};

TSU_MAIN("trace_bundled", tests)
