/* SPDX-License-Identifier: MIT */
/*
 * Drive the experiment executor (src/exec/) for one run without the
 * planner: exec_check TASSHAPE OUTDIR CCA TEST LENGTH DELAY [KEY=VALUE...]
 * -- LINK OPTIONS. KEY=VALUE: sysctl net.x.y=v, streams=N (upload and
 * download), servers=D1,D2,... (rtt_fair's extra one-way delays), seed=N,
 * tas=S/T. Prints the probe's verdict and result.json's path; exit 0 when
 * the run was carried out (result.json says whether it was ok), 77 when
 * not root, 3 when the congestion control is unavailable.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/exec.h"
#include "link/grammar.h"
#include "plan/run.h"
#include "tasshape/units.h"

static ts_ns_t parse_t(const char *s)
{
	struct ts_err err;
	ts_ns_t t;

	if (ts_parse_time(s, &t, &err) < 0) {
		fprintf(stderr, "exec_check: %s: %s\n", s, err.msg);
		exit(2);
	}
	return t;
}

/*
 * The link options after "--" ("--delay 20ms", "--once", ...) read by the
 * link grammar, as the spec reader reads a [link NAME] section: the
 * executor takes values (the delay) from the configuration.
 */
static int link_cfg(struct ts_linkcfg *cfg, char **argv)
{
	struct ts_err err;
	int i;

	for (i = 0; argv[i]; i++) {
		const struct ts_linkkey *k =
			strncmp(argv[i], "--", 2) ? NULL : ts_linkkey_find(argv[i] + 2);
		const char *value = k && k->arg ? argv[i + 1] : NULL;

		if (!k || (k->arg && !value)) {
			fprintf(stderr,
				"exec_check: '%s': expected a link option (--KEY [VALUE])\n",
				argv[i]);
			return -EINVAL;
		}
		if (ts_linkcfg_set(cfg, argv[i] + 2, value, &err) < 0) {
			fprintf(stderr, "exec_check: %s\n", err.msg);
			return -EINVAL;
		}
		if (value)
			i++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ts_exp_run run = {0};
	struct ts_linkcfg link;
	struct ts_err why = {""};
	struct ts_err err = {""};
	int i, ret;

	if (geteuid() != 0) {
		fprintf(stderr, "exec_check: needs root\n");
		return 77;
	}
	if (argc < 8) {
		fprintf(stderr,
			"usage: exec_check TASSHAPE OUTDIR CCA TEST LENGTH DELAY [K=V...] -- "
			"LINK OPTIONS\n");
		return 2;
	}
	ts_exp_exec_binary(argv[1]);
	run.config_id = "check";
	run.rep = 1;
	run.index = 1;
	run.seed = 1;
	run.cca = argv[3];
	run.tas_shift_startup = run.tas_shift_steady = -1;
	run.test = argv[4];
	run.length = parse_t(argv[5]);
	run.delay = parse_t(argv[6]);
	run.nservers = 1;
	run.axes[run.naxes++] = (struct ts_exp_axis_val){"cca", argv[3]};
	run.axes[run.naxes++] = (struct ts_exp_axis_val){"test", argv[4]};
	for (i = 7; i < argc && strcmp(argv[i], "--"); i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "exec_check: %s: expected KEY=VALUE\n", argv[i]);
			return 2;
		}
		*eq = 0;
		if (!strcmp(argv[i], "streams")) {
			run.upload_streams = run.download_streams = (unsigned)atoi(eq + 1);
		} else if (!strcmp(argv[i], "seed")) {
			run.seed = strtoull(eq + 1, NULL, 10);
		} else if (!strcmp(argv[i], "tas")) {
			sscanf(eq + 1, "%d/%d", &run.tas_shift_startup, &run.tas_shift_steady);
		} else if (!strcmp(argv[i], "servers")) {
			char *tok, *save = NULL;

			run.nservers = 0;
			for (tok = strtok_r(eq + 1, ",", &save);
			     tok && run.nservers < TS_EXP_MAX_SERVERS;
			     tok = strtok_r(NULL, ",", &save))
				run.server_delay[run.nservers++] = parse_t(tok);
		} else if (run.nsysctl < TS_EXP_MAX_SYSCTL) {
			run.sysctl[run.nsysctl++] = (struct ts_exp_sysctl){argv[i], eq + 1};
		}
	}
	if (i >= argc) {
		fprintf(stderr, "exec_check: no '--' before the link options\n");
		return 2;
	}
	run.link_argv = &argv[i + 1];
	ts_linkcfg_init(&link);
	if (link_cfg(&link, run.link_argv) < 0) {
		ts_linkcfg_free(&link);
		return 2;
	}
	run.link = &link;
	run.link_name = "check";
	ret = ts_exp_cca_probe(run.cca, &why);
	if (ret < 0) {
		printf("unavailable: %s\n", why.msg);
		return 3;
	}
	if (mkdir(argv[2], 0755) < 0 && errno != EEXIST) {
		perror(argv[2]);
		return 1;
	}
	ret = ts_exp_exec_run(&run, argv[2], &err);
	ts_linkcfg_free(&link);
	if (ret < 0) {
		fprintf(stderr, "exec_check: %s\n", err.msg);
		return 1;
	}
	printf("%s/result.json\n", argv[2]);
	return 0;
}
