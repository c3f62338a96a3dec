/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp flent DIR...: write <test>.flent.gz for every run of a
 * Flent-named test under each DIR (an experiment's --out directory, or one
 * run directory <config-id>/rep-<k>). exp run does the same after each
 * run; this command regenerates them, for example after an upgrade.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_exp_results.h"
#include "results/done.h"
#include "results/flent.h"
#include "results/rundir.h"
#include "run/manifest.h"

static int is_file(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Every directory holding a result.json at most two levels below @dir (or @dir itself). */
static int for_each_run(const char *dir, int depth, int (*fn)(const char *, void *), void *arg)
{
	struct dirent *e;
	DIR *d;
	int ret = 0;

	if (is_file(dir, "result.json"))
		return fn(dir, arg);
	if (depth == 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && ret >= 0) {
		char p[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			ret = for_each_run(p, depth - 1, fn, arg);
	}
	closedir(d);
	return ret;
}

struct flent_count {
	unsigned written, skipped, failed;
};

static int export_one(const char *rundir, void *arg)
{
	struct flent_count *c = arg;
	char err[1024];
	/* A done run stays done: its record is written again to list the new file. */
	int was_done = ts_done_check(rundir, err, sizeof(err)) == TS_DONE_OK;
	int ret = ts_flent_export_run(rundir, ts_build_version(), err, sizeof(err));

	if (ret == 0 && was_done) {
		const char *rep = strrchr(rundir, '/');
		char id[PATH_MAX];
		unsigned k = 0;

		snprintf(id, sizeof(id), "%.*s", rep ? (int)(rep - rundir) : 0, rundir);
		if (rep)
			sscanf(rep, "/" TS_RUNDIR_PREFIX "%u", &k);
		if (ts_done_write(rundir, strrchr(id, '/') ? strrchr(id, '/') + 1 : id, k, err,
				  sizeof(err)) < 0)
			ret = -EIO;
	}

	if (ret < 0) {
		ts_cli_error("exp flent: %s", err);
		c->failed++;
	} else if (ret == 1) {
		c->skipped++;
	} else {
		c->written++;
	}
	return 0;
}

struct flent_args {
	char **dirs;
	size_t ndirs;
};

static error_t flent_parse(int key, char *arg, struct argp_state *state)
{
	struct flent_args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		/* All of them at once: argp has already taken the options from among them. */
		(void)arg;
		a->dirs = state->argv + state->next - 1;
		a->ndirs = (size_t)(state->argc - state->next + 1);
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!a->ndirs)
			argp_error(state, "expected at least one DIR");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_exp_flent(int argc, char **argv)
{
	static const struct argp argp = {
		NULL,
		flent_parse,
		"DIR...",
		"Write <test>.flent.gz (Flent 2.1's data file format) for every run of a Flent "
		"test (tcp_upload, tcp_download, tcp_nup, tcp_ndown, rrul, rrul_be, rtt_fair) "
		"under each DIR: an experiment's --out directory, or one run directory "
		"<config-id>/rep-<k>. Exit 1 when a run's file could not be written.",
		NULL,
		NULL,
		NULL};
	struct flent_count c = {0, 0, 0};
	struct flent_args a = {0};
	size_t i;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return TS_EXIT_USAGE;
	for (i = 0; i < a.ndirs; i++) {
		int ret = for_each_run(a.dirs[i], 2, export_one, &c);

		if (ret < 0)
			return ts_cli_error("exp flent: %s: %s", a.dirs[i], strerror(-ret));
	}
	printf("exp flent: %u written, %u without a Flent test or failed runs, %u errors\n",
	       c.written, c.skipped, c.failed);
	return c.failed ? 1 : 0;
}
