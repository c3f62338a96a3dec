/* SPDX-License-Identifier: MIT */
/*
 * The real executor of a campaign: the host's kernel and tools (src/exec/).
 * Apart from campaign.c so that a program driving a campaign with another
 * executor (the unit test's fake) links none of it.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "exec/exec.h"

static int exec_check(void *ctx, struct ts_err *err)
{
	(void)ctx;
	if (geteuid() == 0)
		return 0;
	ts_err_set(err,
		   "exp run needs root (namespaces, iptables, NFQUEUE); 'exp list' shows the plan "
		   "without it");
	return -EPERM;
}

static int exec_probe(void *ctx, const char *cca, struct ts_err *why)
{
	(void)ctx;
	return ts_exp_cca_probe(cca, why);
}

static int exec_run(void *ctx, const struct ts_exp_run *run, const char *rundir, struct ts_err *err)
{
	(void)ctx;
	return ts_exp_exec_run(run, rundir, err);
}

const struct ts_campaign_executor ts_campaign_exec = {NULL, exec_check, exec_probe, exec_run, NULL};
