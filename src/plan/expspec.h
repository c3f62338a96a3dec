/* SPDX-License-Identifier: MIT */
/*
 * An experiment spec: the INI file of `tasshape exp` (docs/experiments.md),
 * read with libinih into plain data. Pure: no clock, no syscalls beyond
 * reading the file. Every error names the file, the line and what was
 * expected, and is found before anything runs.
 */
#ifndef TS_PLAN_EXPSPEC_H
#define TS_PLAN_EXPSPEC_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "tasshape/err.h"

#include "link/linkcfg.h"
#include "plan/run.h"

#define TS_EXP_MAX_VALUES  64 /* values of one axis */
#define TS_EXP_MAX_LINKS   32
#define TS_EXP_MAX_KERNELS 16

enum ts_exp_order {
	TS_EXP_ORDER_INTERLEAVE, /* every configuration once, then again */
	TS_EXP_ORDER_SHUFFLE,	 /* each round in a seeded random order */
};

struct ts_exp_axis {
	char *name;
	unsigned line;
	size_t nvalues;
	char *values[TS_EXP_MAX_VALUES];
};

/*
 * One [link NAME] section: its keys as the link grammar checked and stored
 * them, and the same as wrapper options ("--trace", "x.csv", ..., NULL),
 * which the executor passes to the wrapper that shapes the run's link.
 */
struct ts_exp_link {
	char *name;
	unsigned line;
	size_t argc;
	char **argv;	   /* NULL-terminated, owned */
	unsigned *keyline; /* keyline[i]: the line of the key that gave argv[i] (argc entries) */
	struct ts_linkcfg cfg; /* owned; ts_exp_spec_check_links loads and unloads it */
	uint32_t tests;	       /* tests = ...: bit k for ts_exp_tests[k]; 0: every test */
	unsigned tests_line;
	size_t nflow_stations; /* flow_stations = ... (plan/flowsta.h); 0: dealt round */
	unsigned flow_stations[TS_EXP_MAX_FLOW_STATIONS];
	unsigned flow_stations_line;
};

struct ts_exp_spec {
	char *path;
	char *name;
	unsigned repetitions;  /* default 1 */
	ts_ns_t length, delay; /* defaults 30s and 5s, Flent's */
	uint64_t seed;	       /* default 1 */
	enum ts_exp_order order;
	unsigned upload_streams, download_streams; /* tcp_nup/tcp_ndown, default 4 */
	ts_ns_t server_delay[TS_EXP_MAX_SERVERS];  /* rtt_fair: extra one-way delay per server */
	size_t naxes;
	struct ts_exp_axis axes[TS_EXP_MAX_AXES]; /* in the order written */
	size_t nlinks;
	struct ts_exp_link links[TS_EXP_MAX_LINKS];
	size_t nkernels;
	struct ts_exp_kernel kernels[TS_EXP_MAX_KERNELS];
	size_t nsysctl;
	struct ts_exp_sysctl sysctl[TS_EXP_MAX_SYSCTL]; /* strings owned */
	unsigned sysctl_line[TS_EXP_MAX_SYSCTL];
	const char *sha256; /* set by the caller (the CLI hashes the file); may stay NULL */
};

/*
 * ts_exp_spec_parse - parse the INI text @text as the spec file @path
 * (used in messages and as spec->path). A link section's keys are the
 * wrapper's link options (link/grammar.h), each checked by ts_linkcfg_set
 * as it is read; no file is opened (ts_exp_spec_check_links does that).
 * A trace path relative to the spec is made relative to where tasshape
 * runs. Returns 0, or -EINVAL with @err set to
 * "PATH:LINE: what was wrong (expected ...)" and @spec freed. The caller
 * frees a parsed spec with ts_exp_spec_free.
 */
int ts_exp_spec_parse(struct ts_exp_spec *spec, const char *path, const char *text,
		      struct ts_err *err);

/* Longest spec line, newline excluded (a cca axis of 64 long bpf: paths fits). */
#define TS_EXP_SPEC_LINE_MAX 4096

/* Largest spec file ts_exp_spec_load reads (examples are about 2 KB). */
#define TS_EXP_SPEC_MAX (1 << 20)

/*
 * ts_exp_spec_load - read @path and parse it as above; -errno with @err when it cannot be read
 * ("PATH: cannot read: Is a directory"), -EINVAL for a file larger than TS_EXP_SPEC_MAX.
 */
int ts_exp_spec_load(struct ts_exp_spec *spec, const char *path, struct ts_err *err);

/*
 * ts_exp_spec_check_links - build every link of @spec as the wrapper would
 * (traces read, queues, losses and the Wi-Fi MAC made) and throw the build
 * away: a missing trace file or a trace without an uplink column is found
 * before the first run, not in run 17. Returns 0, or a negative errno with
 * @err set to "PATH:LINE: [link NAME]: what was wrong", LINE being the key
 * the message is about (ts_exp_link_line). Warnings about a valid link go
 * to stderr, as the wrapper prints them.
 */
int ts_exp_spec_check_links(struct ts_exp_spec *spec, struct ts_err *err);

/*
 * ts_exp_spec_check_kernels - read every [kernel NAME] section's image (a
 * bzImage, read as a regular file of bounded size; "debian" is fetched at
 * its first run) and modules (a directory whose modules.dep is a regular
 * file of bounded size), as the runs will: a FIFO or a device named there
 * is refused at once. Returns 0, or a negative errno with @err set to
 * "PATH:LINE: [kernel NAME]: image: what was wrong", LINE the key's.
 */
int ts_exp_spec_check_kernels(const struct ts_exp_spec *spec, struct ts_err *err);

void ts_exp_spec_free(struct ts_exp_spec *spec);

/* The axis called @name, or NULL. */
const struct ts_exp_axis *ts_exp_spec_axis(const struct ts_exp_spec *spec, const char *name);

/* The [link @name] section, or NULL. */
const struct ts_exp_link *ts_exp_spec_link(const struct ts_exp_spec *spec, const char *name);

/*
 * ts_exp_link_line - the line of the key of @l that an error message @msg
 * about the whole link is about: the key whose option ("--queue: ...") or
 * whose value (a trace file's path, "x.csv: cannot open") starts @msg; the
 * section's first key's line when no key does.
 */
unsigned ts_exp_link_line(const struct ts_exp_link *l, const char *msg);

/* The [kernel @name] section, or NULL. */
const struct ts_exp_kernel *ts_exp_spec_kernel(const struct ts_exp_spec *spec, const char *name);

/* Tests by Flent name, with the streams they use; tcp_8up/tcp_8down are tcp_nup/tcp_ndown with 8. */
struct ts_exp_test_def {
	const char *name;
	const char *runs_as; /* the Flent test the executor runs */
	int up, down;	     /* streams; -1: the spec's upload_streams/download_streams */
	unsigned servers;
	const char *help;
};
extern const struct ts_exp_test_def ts_exp_tests[];
extern const size_t ts_exp_ntests;
const struct ts_exp_test_def *ts_exp_test_find(const char *name);

/* Does link @l run test @t (its tests = key, or every test without one)? */
bool ts_exp_link_runs(const struct ts_exp_link *l, const struct ts_exp_test_def *t);

#endif
