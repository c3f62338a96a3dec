/* SPDX-License-Identifier: MIT */
/* Stop signals while a campaign runs (stops.h). */
#include "campaign/stops.h"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

volatile sig_atomic_t *ts_campaign_stop_flag(void)
{
	return &stop_signal;
}

void ts_campaign_stops_catch(void)
{
	struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void ts_campaign_stops_release(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}
