/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp-agent JOB.json: one side (client or servers) of a run of
 * `tasshape exp run`, started by the executor inside the run's
 * namespaces (src/exec/exec_agent.h). Not meant to be run by hand.
 */
#include <argp.h>

#include "cli/cli.h"
#include "exec/exec_agent.h"

static error_t agent_parse(int key, char *arg, struct argp_state *state)
{
	char **job = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (*job)
			argp_error(state, "one JOB.json only, got '%s' too", arg);
		*job = arg;
		return 0;
	case ARGP_KEY_END:
		if (!*job)
			argp_error(state, "expected JOB.json (tasshape exp run starts it)");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cmd_exp_agent(int argc, char **argv)
{
	static const struct argp argp = {
		NULL,	    agent_parse,
		"JOB.json", "One side of a run of tasshape exp run (internal: exp run starts it).",
		NULL,	    NULL,
		NULL};
	char *job = NULL;

	if (argp_parse(&argp, argc, argv, 0, NULL, &job))
		return TS_EXIT_USAGE;
	return ts_exp_agent_main(job);
}
