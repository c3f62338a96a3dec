/* SPDX-License-Identifier: MIT */
/*
 * Which real Wi-Fi station a sender hook is (src/run/tsq_station_sta.c):
 * the station TSQ emulation tracks and releases early a flow's packets at
 * its own station's hook, so every station's hook maps back to its number
 * (the inverse of ts_hook_of_station) and no other hook maps to one.
 */
#include "run/shaper.h"
#include "run/tsq_station.h"
#include "tsu.h"

static void test_hooks(void)
{
	unsigned int k;

	for (k = 0; k < TS_WIFI6_REAL_MAX; k++)
		TSU_EQ(ts_tsqst_station_of_hook(ts_hook_of_station(k)), k);
	TSU_EQ(ts_tsqst_station_of_hook(TS_H_UP_SENDER), 0);
	TSU_EQ(ts_tsqst_station_of_hook(TS_H_UP_NETWORK), -1);
	TSU_EQ(ts_tsqst_station_of_hook(TS_H_DOWN_NETWORK), -1);
	TSU_EQ(ts_tsqst_station_of_hook(TS_H__COUNT), -1);
	TSU_EQ(ts_tsqst_station_of_hook(-1), -1);
}

static const struct tsu_test tests[] = {
	{"a sender hook's station", test_hooks},
};

TSU_MAIN("tsq_station_hooks", tests)
