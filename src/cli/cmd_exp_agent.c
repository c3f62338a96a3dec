/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp-agent JOB.json: one side (client or servers) of a run of
 * `tasshape exp run`, started by the executor inside the run's
 * namespaces (src/exec/exec_agent.h). Not meant to be run by hand.
 */
#include "cli/cli.h"
#include "exec/exec_agent.h"

int cmd_exp_agent(int argc, char **argv)
{
	/* Checked here too, so that a wrong call exits with the usage status of every command. */
	if (argc != 2)
		return ts_cli_usage("exp-agent: expected JOB.json (tasshape exp run starts it)");
	return ts_exp_agent_main(argc, argv);
}
