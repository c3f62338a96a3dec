/* SPDX-License-Identifier: MIT */
/*
 * What exp run shows on its console while a campaign runs: the report
 * callbacks (campaign.h) that keep the live status line (live.h), print
 * the line of each finished run read back from its result (progress.h)
 * and catch the stop signals while runs go on (stops.h); and the lines
 * the verdict adds to the exit status. The front end keeps what is only
 * printing: the notices and the summary's table.
 */
#ifndef TS_CAMPAIGN_CONSOLE_H
#define TS_CAMPAIGN_CONSOLE_H

#include <stdbool.h>
#include <stdio.h>

#include "campaign/campaign.h"
#include "campaign/live.h"

struct ts_campaign_console {
	struct ts_exp_live live;
	bool every_line; /* --jobs: runs overlap, so every finished run gets its line */
};

/*
 * ts_campaign_console_init - a console on @out (stderr) for @plan carried
 * out @jobs at a time. @progress 1: a live status line, 0: a line per
 * finished run (what CI logs get), -1: a live line when @out is a
 * terminal. Fills @rep's begin, run_start, run_end and end with @c as
 * their context; @rep's notice and summary are the caller's.
 */
void ts_campaign_console_init(struct ts_campaign_console *c, FILE *out, int progress, unsigned jobs,
			      const struct ts_exp_matrix *plan, struct ts_campaign_report *rep);

/*
 * ts_campaign_verdict_print - what @v says beyond the exit status
 * (ts_campaign_status), a line each into @f: failed runs, runs whose
 * emulator fell behind, configurations that ran in a VM under TCG.
 * Nothing when there is none of them.
 */
void ts_campaign_verdict_print(const struct ts_campaign_verdict *v, FILE *f);

#endif
