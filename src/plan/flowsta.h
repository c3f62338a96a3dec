/* SPDX-License-Identifier: MIT */
/*
 * Which real Wi-Fi station each flow of a test runs behind, on a link
 * whose hop has several (mac = wifi6:...,real=N; docs/experiments.md,
 * "Real Wi-Fi stations"). The planner's key of a [link NAME] section,
 *
 *   flow_stations = 0, 1, 1
 *
 * puts flow i of every test (in the test's own order: Flent's series order)
 * behind station list[i mod length]; without it, behind station i mod N
 * (the flows dealt round). Pure: no file, no process.
 */
#ifndef TS_PLAN_FLOWSTA_H
#define TS_PLAN_FLOWSTA_H

#include <stddef.h>

#include "plan/run.h"
#include "tasshape/err.h"

/*
 * ts_exp_flow_stations_parse - the value of flow_stations ("0, 1, 1"):
 * station numbers from 0 to TS_EXP_MAX_STATIONS - 1, at most
 * TS_EXP_MAX_FLOW_STATIONS of them, into @out and @n. Returns 0, or
 * -EINVAL with @err saying which word is wrong and what was expected.
 */
int ts_exp_flow_stations_parse(const char *value, unsigned *out, size_t *n, struct ts_err *err);

/*
 * ts_exp_flow_stations_check - the list @fs (@n entries, 0: no key) against
 * the link's @stations real stations: the key needs real=N with N > 1, and
 * each station must be one of them. Returns 0 or -EINVAL with @err.
 */
int ts_exp_flow_stations_check(const unsigned *fs, size_t n, unsigned stations, struct ts_err *err);

/* ts_exp_flow_station - the station flow @k of @run runs behind (0 with one station). */
unsigned ts_exp_flow_station(const struct ts_exp_run *run, size_t k);

#endif
