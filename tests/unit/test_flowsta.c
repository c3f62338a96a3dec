/* SPDX-License-Identifier: MIT */
/*
 * A link's flow_stations key (src/plan/flowsta.c): the list as parsed,
 * its check against the link's real stations, and each flow's station.
 */
#include <errno.h>
#include <string.h>

#include "plan/flowsta.h"
#include "tsu.h"

static void test_parse(void)
{
	unsigned fs[TS_EXP_MAX_FLOW_STATIONS];
	struct ts_err e;
	size_t n;

	TSU_EQ(ts_exp_flow_stations_parse("0, 1 ,1", fs, &n, &e), 0);
	TSU_EQ(n, 3);
	TSU_EQ(fs[0], 0);
	TSU_EQ(fs[1], 1);
	TSU_EQ(fs[2], 1);
	TSU_EQ(ts_exp_flow_stations_parse("7", fs, &n, &e), 0);
	TSU_EQ(fs[0], 7);
	TSU_EQ(ts_exp_flow_stations_parse("8", fs, &n, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'8' is no station (expected numbers from 0 to 7"));
	TSU_EQ(ts_exp_flow_stations_parse("0,,1", fs, &n, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'' is no station"));
	TSU_EQ(ts_exp_flow_stations_parse("-1", fs, &n, &e), -EINVAL);
	TSU_EQ(ts_exp_flow_stations_parse("1x", fs, &n, &e), -EINVAL);
	TSU_EQ(ts_exp_flow_stations_parse("00000000001", fs, &n, &e), 0);
	TSU_EQ(fs[0], 1);
	TSU_EQ(ts_exp_flow_stations_parse("99999999999999999999", fs, &n, &e), -EINVAL);
	TSU_EQ(ts_exp_flow_stations_parse("0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1", fs, &n, &e), 0);
	TSU_EQ(n, 16);
	TSU_EQ(ts_exp_flow_stations_parse("0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0", fs, &n, &e),
	       -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "more than 16 values"));
}

static void test_check_and_station(void)
{
	static const unsigned fs[3] = {1, 1, 0};
	struct ts_exp_run r = {0};
	struct ts_err e;

	TSU_EQ(ts_exp_flow_stations_check(fs, 0, 1, &e), 0);
	TSU_EQ(ts_exp_flow_stations_check(fs, 3, 1, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "real=N with N of 2 or more"));
	TSU_EQ(ts_exp_flow_stations_check(fs, 3, 2, &e), 0);
	TSU_EQ(ts_exp_flow_stations_check(fs, 1, 1, &e), -EINVAL);
	TSU_EQ(ts_exp_flow_station(&r, 5), 0); /* no stations: station 0 */
	r.stations = 2;
	TSU_EQ(ts_exp_flow_station(&r, 0), 0);
	TSU_EQ(ts_exp_flow_station(&r, 5), 1);
	r.nflow_stations = 3;
	r.flow_stations = fs;
	TSU_EQ(ts_exp_flow_station(&r, 0), 1);
	TSU_EQ(ts_exp_flow_station(&r, 2), 0);
	TSU_EQ(ts_exp_flow_station(&r, 4), 1);
}

static const struct tsu_test tests[] = {
	{"parse", test_parse},
	{"check and each flow's station", test_check_and_station},
};

TSU_MAIN("flowsta", tests)
