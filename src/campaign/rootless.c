/* SPDX-License-Identifier: MIT */
/* A campaign without root (campaign.h, ts_campaign_rootless). */
#include "campaign/campaign.h"
#include "io/invoker.h"
#include "net/userns.h"

int ts_campaign_rootless(struct ts_err *err)
{
	struct ts_userns uns;
	int ret;

	if (!ts_userns_wanted())
		return 0;
	ret = ts_userns_enter(&uns, false, err);
	if (ret < 0)
		return ret;
	ts_invoker_set_rootless();
	return 0;
}
