/* SPDX-License-Identifier: MIT */
/* The client's real Wi-Fi stations in one run (contract in exec_stations.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_files.h"
#include "exec/exec_stations.h"
#include "io/json.h"

void ts_exp_station_report_name(unsigned k, char *buf, size_t len)
{
	if (k == 0)
		snprintf(buf, len, "%s", TS_EXP_F_CLIENT);
	else
		snprintf(buf, len, "client-report-s%u.json", k);
}

json_object *ts_exp_station_reports(const char *dir, unsigned stations)
{
	json_object *a = json_object_new_array();
	char name[64], path[4096];
	bool nomem = false;
	unsigned k;

	for (k = 0; k < stations; k++) {
		ts_exp_station_report_name(k, name, sizeof(name));
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		ts_json_append(a, json_object_new_string(path), &nomem);
	}
	return ts_json_built(a, nomem);
}

/* Station @k's report, parsed from @dir (the caller puts it); NULL when absent or unreadable. */
static json_object *station_report(const char *dir, unsigned k)
{
	char name[64], *text;
	json_object *rep;

	ts_exp_station_report_name(k, name, sizeof(name));
	text = ts_exp_slurp(dir, name);
	rep = text ? json_tokener_parse(text) : NULL;
	free(text);
	return rep;
}

int ts_exp_station_merge(const char *dir, json_object *report, struct ts_err *why)
{
	json_object *procs, *other[TS_EXP_MAX_STATIONS] = {NULL}, *v;
	size_t i, n;
	int ret = 0;

	if (!json_object_object_get_ex(report, "procs", &procs))
		return 0;
	n = json_object_array_length(procs);
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(procs, i), *theirs = NULL, *from;
		unsigned k;

		if (!json_object_object_get_ex(p, "station", &v))
			continue;
		k = (unsigned)json_object_get_int(v);
		if (k == 0 || k >= TS_EXP_MAX_STATIONS)
			continue;
		if (!other[k])
			other[k] = station_report(dir, k);
		if (other[k])
			json_object_object_get_ex(other[k], "procs", &theirs);
		from = theirs ? json_object_array_get_idx(theirs, i) : NULL;
		if (!from || json_object_object_get_ex(from, "station", &v)) {
			ts_err_set(why,
				   "station %u's client report is missing or lacks process %zu", k,
				   i + 1);
			ret = -1;
			continue;
		}
		json_object_array_put_idx(procs, i, json_object_get(from));
	}
	for (i = 0; i < TS_EXP_MAX_STATIONS; i++)
		json_object_put(other[i]);
	return ret;
}

/* @key of the uplink's wifi6 block of the summary, a new reference or a JSON null. */
static json_object *wifi_key(json_object *wifi, const char *key)
{
	json_object *v = NULL;

	return wifi && json_object_object_get_ex(wifi, key, &v) ? json_object_get(v) : NULL;
}

json_object *ts_exp_stations_json(const char *summary, const struct ts_exp_plan *p)
{
	static const char *const keys[] = {"stations_delivered_bps", "stations_airtime_ns",
					   "medium_delivered_bps", "jain_fairness",
					   "real_stations"};
	json_object *o = json_object_new_object(), *flows = json_object_new_array();
	json_object *sum = summary ? json_tokener_parse(summary) : NULL, *dirs, *wifi = NULL;
	bool nomem = false;
	size_t k;

	/* The uplink's block carries the medium's per-station figures (run/run_summary.c). */
	if (sum && json_object_object_get_ex(sum, "directions", &dirs))
		json_object_object_get_ex(json_object_array_get_idx(dirs, 0), "wifi6", &wifi);
	ts_json_put(o, "n", json_object_new_int((int)p->stations), &nomem);
	for (k = 0; k < p->nflows; k++)
		ts_json_append(flows, json_object_new_int((int)p->flow[k].station), &nomem);
	ts_json_put(o, "flows", flows, &nomem);
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		json_object *v = wifi_key(wifi, keys[k]);

		if (v)
			ts_json_put(o, keys[k], v, &nomem);
		else
			ts_json_put_null(o, keys[k], &nomem);
	}
	json_object_put(sum);
	return ts_json_built(o, nomem);
}
