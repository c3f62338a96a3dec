/* SPDX-License-Identifier: MIT */
/*
 * An experiment directory summarised from its files: what exp run does
 * after its runs. exp merge summarises its staging directory with the same
 * two calls (results/merge.c), before the directory takes its name.
 */
#include "campaign/campaign.h"

int ts_campaign_summarise(const char *dir, struct ts_exp_summary *s, struct ts_err *err)
{
	int ret;

	ts_exp_summary_init(s, NULL);
	ret = ts_exp_summary_from_dir(s, dir, err);
	if (!ret)
		ret = ts_exp_summary_write_all(s, dir, err);
	if (ret)
		ts_exp_summary_free(s);
	return ret;
}
