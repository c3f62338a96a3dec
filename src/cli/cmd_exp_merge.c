/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp merge OUT DIR...: the shard directories of one matrix
 * (written by exp run --shard i/N anywhere) into one experiment directory
 * OUT holding every run once, summarised by the same code as an unsharded
 * exp run (summary.json, summary.csv, summary.md). Refuses, writing
 * nothing, when the directories ran different specs or when runs overlap
 * or are missing, listing each.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_exp_results.h"
#include "exp/merge.h"
#include "exp/summary.h"

int ts_exp_summarise_dir(const char *dir, char *err, size_t errlen)
{
	struct ts_exp_summary s;
	int ret;

	ts_exp_summary_init(&s, NULL);
	ret = ts_exp_summary_from_dir(&s, dir, err, errlen);
	if (!ret)
		ret = ts_exp_summary_write_all(&s, dir, err, errlen);
	ts_exp_summary_free(&s);
	return ret;
}

int cmd_exp_merge(int argc, char **argv)
{
	char err[2048];
	int ret;

	if (argc < 3 || !strcmp(argv[1], "--help")) {
		fprintf(argc < 3 && (argc < 2 || strcmp(argv[1], "--help")) ? stderr : stdout,
			"Usage: tasshape exp merge OUT DIR...\n"
			"Combine the shard directories DIR... of one matrix (exp run --shard i/N) "
			"into OUT,\nwhich must be new or empty, and write its summary.json, "
			"summary.csv and summary.md.\nEvery run must be done in exactly one DIR; "
			"overlapping and missing runs are listed\nand nothing is written.\n");
		return argc < 3 && (argc < 2 || strcmp(argv[1], "--help")) ? 2 : 0;
	}
	ret = ts_exp_merge(argv[1], (const char *const *)argv + 2, (size_t)argc - 2, stderr, err,
			   sizeof(err));
	if (ret)
		return ts_cli_error("exp merge: %s", err);
	ret = ts_exp_summarise_dir(argv[1], err, sizeof(err));
	if (ret)
		return ts_cli_error("exp merge: %s", err);
	printf("exp merge: %d directories into %s: summary.json, summary.csv, summary.md written\n",
	       argc - 2, argv[1]);
	return 0;
}
