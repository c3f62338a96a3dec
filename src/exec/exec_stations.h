/* SPDX-License-Identifier: MIT */
/*
 * A run on a link with real Wi-Fi stations (mac = wifi6:...,real=N;
 * docs/experiments.md, "Real Wi-Fi stations"): the wrapper runs the client
 * agent once per station, each runs the flows planned behind it
 * (plan/flowsta.h) and writes its own report; the result joins them and
 * copies the medium's per-station figures from the wrapper's summary.
 */
#ifndef TS_EXEC_EXEC_STATIONS_H
#define TS_EXEC_EXEC_STATIONS_H

#include <json-c/json.h>
#include <stddef.h>

#include "exec/exec_plan.h"
#include "tasshape/err.h"

/* Station k's client report in the run directory: TS_EXP_F_CLIENT for 0, "client-report-sK.json". */
void ts_exp_station_report_name(unsigned k, char *buf, size_t len);

/* The client job's "reports": every station's report path in @dir; NULL when out of memory. */
json_object *ts_exp_station_reports(const char *dir, unsigned stations);

/*
 * ts_exp_station_merge - in @report (station 0's agent's), replace each
 * entry of "procs" that another station ran ({"station": k}) by station
 * k's report's entry of the same index, read from @dir. Returns 0, or -1
 * with @why naming the report that is missing or does not list it (the
 * entry then stays without "started": the flow's time is the run's t0).
 */
int ts_exp_station_merge(const char *dir, json_object *report, struct ts_err *why);

/*
 * ts_exp_stations_json - result.json's "stations" for plan @p: the number
 * of stations, each flow's station, and from the wrapper's summary JSON
 * @summary (NULL or unreadable: nulls) the uplink's Wi-Fi figures per
 * station: stations_delivered_bps, stations_airtime_ns,
 * medium_delivered_bps, jain_fairness and real_stations[] (each station's
 * uplink and downlink bits per second, airtime and TXOPs). NULL when out
 * of memory.
 */
json_object *ts_exp_stations_json(const char *summary, const struct ts_exp_plan *p);

#endif
