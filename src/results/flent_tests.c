/* SPDX-License-Identifier: MIT */
/*
 * The Flent tests tasshape writes files for, with their series exactly as
 * Flent 2.1's tests/NAME.conf defines them (rrul.conf, rrul_be.conf,
 * tcp_upload.conf via tcp_bidirectional.conf, tcp_nup.conf, tcp_ndown.conf,
 * rtt_fair.conf + rtt_fair.inc). Flent looks the names up when it loads a
 * file: a series it does not define is ignored by its plots, and a
 * computed one it does define but cannot find is recomputed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/flent.h"

static const char *const rrul_marks[] = {"BE", "BK", "CS5", "EF"};
static const char *const rrul_pings[] = {"UDP EF", "UDP BK", "UDP BE", "ICMP"};
static const char *const rrul_be_marks[] = {"BE", "BE2", "BE3", "BE4"};
static const char *const rrul_be_pings[] = {"UDP BE1", "UDP BE2", "UDP BE3", "ICMP"};
/* rtt_fair.conf: set_test_parameter("labels", "BE1,BE2,BK1,BK2"), ping_labels ICMP1..4. */
static const char *const fair_labels[] = {"BE1", "BE2", "BK1", "BK2"};

static const char *const flent_tests[] = {"tcp_upload", "tcp_download", "tcp_nup", "tcp_ndown",
					  "rrul",	"rrul_be",	"rtt_fair"};

int ts_flent_is_test(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(flent_tests) / sizeof(flent_tests[0]); i++)
		if (!strcmp(name, flent_tests[i]))
			return 1;
	return 0;
}

static struct ts_flent_series *add(struct ts_flent_test *def, enum ts_flent_kind kind,
				   const char *name)
{
	struct ts_flent_series *s;

	if (def->n >= TS_FLENT_MAX_SERIES)
		return NULL;
	s = &def->s[def->n++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

static int add_flow(struct ts_flent_test *def, const char *name, char dir, unsigned server)
{
	struct ts_flent_series *s = add(def, TS_FLENT_FLOW, name);

	if (!s)
		return -EINVAL;
	s->dir = dir;
	s->server = server;
	return 0;
}

static int add_ping(struct ts_flent_test *def, const char *name, unsigned server)
{
	struct ts_flent_series *s = add(def, TS_FLENT_PING, name);

	if (!s)
		return -EINVAL;
	s->server = server;
	return 0;
}

static int add_computed(struct ts_flent_test *def, const char *name, enum ts_flent_kind kind,
			enum ts_flent_group group)
{
	struct ts_flent_series *s = add(def, kind, name);

	if (!s)
		return -EINVAL;
	s->group = group;
	return 0;
}

/* rrul and rrul_be: four marked flows each way, four probes, and their aggregates. */
static int def_rrul(struct ts_flent_test *def, const char *const marks[4],
		    const char *const pings[4])
{
	char name[TS_FLENT_NAME_LEN];
	int ret = 0, i;

	for (i = 0; i < 4 && !ret; i++) {
		snprintf(name, sizeof(name), "TCP upload %s", marks[i]);
		ret = add_flow(def, name, 'u', 0);
	}
	for (i = 0; i < 4 && !ret; i++) {
		snprintf(name, sizeof(name), "TCP download %s", marks[i]);
		ret = add_flow(def, name, 'd', 0);
	}
	for (i = 0; i < 4 && !ret; i++) {
		snprintf(name, sizeof(name), "Ping (ms) %s", pings[i]);
		ret = add_ping(def, name, 0);
	}
	if (!ret)
		ret = add_computed(def, "TCP upload avg", TS_FLENT_AVG, TS_FLENT_G_UP);
	if (!ret)
		ret = add_computed(def, "TCP upload sum", TS_FLENT_SUM, TS_FLENT_G_UP);
	if (!ret)
		ret = add_computed(def, "TCP download avg", TS_FLENT_AVG, TS_FLENT_G_DOWN);
	if (!ret)
		ret = add_computed(def, "TCP download sum", TS_FLENT_SUM, TS_FLENT_G_DOWN);
	if (!ret)
		ret = add_computed(def, "TCP totals", TS_FLENT_SUM, TS_FLENT_G_TCP);
	if (!ret)
		ret = add_computed(def, "Ping (ms) avg", TS_FLENT_AVG, TS_FLENT_G_PING);
	return ret;
}

/* tcp_nup / tcp_ndown: "TCP upload::1" ... "TCP upload::N", avg, sum, one ICMP ping. */
static int def_nflows(struct ts_flent_test *def, char dir, unsigned n)
{
	const char *what = dir == 'u' ? "upload" : "download";
	char name[TS_FLENT_NAME_LEN];
	unsigned i;
	int ret = 0;

	if (n == 0 || n > 32)
		return -EINVAL;
	for (i = 1; i <= n && !ret; i++) {
		snprintf(name, sizeof(name), "TCP %s::%u", what, i);
		ret = add_flow(def, name, dir, 0);
	}
	if (!ret)
		ret = add_ping(def, "Ping (ms) ICMP", 0);
	snprintf(name, sizeof(name), "TCP %s avg", what);
	if (!ret)
		ret = add_computed(def, name, TS_FLENT_AVG,
				   dir == 'u' ? TS_FLENT_G_UP : TS_FLENT_G_DOWN);
	snprintf(name, sizeof(name), "TCP %s sum", what);
	if (!ret)
		ret = add_computed(def, name, TS_FLENT_SUM,
				   dir == 'u' ? TS_FLENT_G_UP : TS_FLENT_G_DOWN);
	return ret;
}

/* rtt_fair (rtt_fair.inc): per host "TCP upload LABEL HOST", download, "Ping (ms) ICMPk HOST". */
static int def_rtt_fair(struct ts_flent_test *def, const char *const *hosts, size_t nhosts)
{
	char name[TS_FLENT_NAME_LEN];
	size_t i;
	int ret = 0;

	if (nhosts != 4 || !hosts)
		return -EINVAL;
	for (i = 0; i < nhosts && !ret; i++) {
		snprintf(name, sizeof(name), "TCP upload %s %s", fair_labels[i], hosts[i]);
		ret = add_flow(def, name, 'u', (unsigned)i);
		snprintf(name, sizeof(name), "TCP download %s %s", fair_labels[i], hosts[i]);
		if (!ret)
			ret = add_flow(def, name, 'd', (unsigned)i);
		snprintf(name, sizeof(name), "Ping (ms) ICMP%zu %s", i + 1, hosts[i]);
		if (!ret)
			ret = add_ping(def, name, (unsigned)i);
	}
	if (!ret)
		ret = add_computed(def, "TCP upload avg", TS_FLENT_AVG, TS_FLENT_G_UP);
	if (!ret)
		ret = add_computed(def, "TCP upload sum", TS_FLENT_SUM, TS_FLENT_G_UP);
	if (!ret)
		ret = add_computed(def, "TCP upload fairness", TS_FLENT_FAIR, TS_FLENT_G_UP);
	if (!ret)
		ret = add_computed(def, "TCP download avg", TS_FLENT_AVG, TS_FLENT_G_DOWN);
	if (!ret)
		ret = add_computed(def, "TCP download sum", TS_FLENT_SUM, TS_FLENT_G_DOWN);
	if (!ret)
		ret = add_computed(def, "TCP download fairness", TS_FLENT_FAIR, TS_FLENT_G_DOWN);
	if (!ret)
		ret = add_computed(def, "Ping (ms) avg", TS_FLENT_AVG, TS_FLENT_G_PING);
	return ret;
}

int ts_flent_test_def(const char *name, unsigned up, unsigned down, const char *const *hosts,
		      size_t nhosts, struct ts_flent_test *def)
{
	def->n = 0;
	if (!strcmp(name, "tcp_upload") || !strcmp(name, "tcp_download")) {
		int up_test = name[4] == 'u';
		int ret = add_flow(def, up_test ? "TCP upload" : "TCP download",
				   up_test ? 'u' : 'd', 0);

		return ret ? ret : add_ping(def, "Ping (ms) ICMP", 0);
	}
	if (!strcmp(name, "tcp_nup"))
		return def_nflows(def, 'u', up);
	if (!strcmp(name, "tcp_ndown"))
		return def_nflows(def, 'd', down);
	if (!strcmp(name, "rrul"))
		return def_rrul(def, rrul_marks, rrul_pings);
	if (!strcmp(name, "rrul_be"))
		return def_rrul(def, rrul_be_marks, rrul_be_pings);
	if (!strcmp(name, "rtt_fair"))
		return def_rtt_fair(def, hosts, nhosts);
	return -ENOENT;
}

void ts_flent_grid(const double *t, const double *v, size_t n, double t0, double step,
		   size_t nsteps, double *out)
{
	double last = NAN; /* the value put at the previous grid point (Flent's last_datapoint) */
	size_t k, i = 0;

	for (k = 0; k < nsteps; k++) {
		double tk = t0 + step * (double)k, max_dist = step * 5.0;
		double y = NAN;

		if (n == 0) {
			out[k] = NAN;
			continue;
		}
		/* The first sample strictly after tk (t ascending, tk increasing: i only grows). */
		while (i < n && !(t[i] > tk))
			i++;
		if (i < n) {
			if (i == 0)
				max_dist = step * 0.5;
			if (fabs(tk - t[i]) <= max_dist) {
				if (i == 0)
					y = v[0];
				else
					y = v[i - 1] +
					    (v[i] - v[i - 1]) / (t[i] - t[i - 1]) * (tk - t[i - 1]);
			}
		} else if (fabs(tk - t[n - 1]) <= max_dist) {
			/* Past the last sample: Flent repeats it only once, after an interpolated point. */
			if (!isnan(last) && last != v[n - 1])
				y = v[n - 1];
		}
		out[k] = y;
		last = y;
	}
}

double ts_flent_jain(const double *v, size_t n)
{
	double sum = 0, sq = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		sum += v[i];
		sq += v[i] * v[i];
	}
	if (n == 0 || sq == 0)
		return NAN;
	return sum * sum / ((double)n * sq);
}
