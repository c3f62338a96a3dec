/* SPDX-License-Identifier: MIT */
/* tasshape exp COMMAND: experiment matrices and their results, dispatched from a table. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_exp_results.h"

static const struct ts_cmd exp_commands[] = {
	{"flent", cmd_exp_flent, "Write Flent data files (<test>.flent.gz) for finished runs"},
};

int cmd_exp(int argc, char **argv)
{
	size_t i;

	if (argc >= 2) {
		for (i = 0; i < sizeof(exp_commands) / sizeof(exp_commands[0]); i++)
			if (!strcmp(argv[1], exp_commands[i].name))
				return exp_commands[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "Usage: tasshape exp COMMAND [OPTIONS]\n\nCommands:\n");
	for (i = 0; i < sizeof(exp_commands) / sizeof(exp_commands[0]); i++)
		fprintf(stderr, "  %-8s %s\n", exp_commands[i].name, exp_commands[i].description);
	return 2;
}
