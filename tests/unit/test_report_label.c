/* SPDX-License-Identifier: MIT */
/*
 * The labels of exp report's figures (results/report_fig.c, ts_rep_label):
 * a configuration named by the axis=value items that set it apart from the
 * test's other configurations.
 */
#include <string.h>

#include "results/report.h"
#include "results/report_fig.h"
#include "tsu.h"

static struct ts_rep_config confs[4];

static void test_shared_axes_dropped(void)
{
	struct ts_rep_test t = {.test = "rrul", .n = 4, .cap = 4, .c = confs};
	char buf[128];

	memset(confs, 0, sizeof(confs));
	confs[0].id = "cca=cubic,test=rrul,link=station7,kernel=bbr3";
	confs[1].id = "cca=bbr3,test=rrul,link=stationk,kernel=bbr3";
	confs[2].id = "cca=tas,tas_shift=8-8,test=rrul,link=station7,kernel=bbr3";
	confs[3].id = "cca=tas,tas_shift=9-10,test=rrul,link=station7,kernel=bbr3";
	ts_rep_label(&t, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "cca=cubic,link=station7");
	ts_rep_label(&t, 1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "cca=bbr3,link=stationk");
	ts_rep_label(&t, 3, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "cca=tas,tas_shift=9-10,link=station7");
	/* An item is shared only whole: "link=station7" is not in "link=station70". */
	confs[1].id = "cca=bbr3,test=rrul,link=station70,kernel=bbr3";
	ts_rep_label(&t, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "cca=cubic,link=station7");
	/* Cut at the buffer: whole items only, always terminated. */
	ts_rep_label(&t, 2, buf, 20);
	CU_ASSERT_STRING_EQUAL(buf, "cca=tas");
}

static void test_whole_id_when_nothing_differs(void)
{
	struct ts_rep_test t = {.test = "rrul", .n = 1, .cap = 1, .c = confs};
	char buf[128];

	memset(confs, 0, sizeof(confs));
	confs[0].id = "cca=cubic,test=rrul";
	ts_rep_label(&t, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "cca=cubic,test=rrul");
	/* Two identical ids (a merged directory never has them, a hostile one may). */
	confs[1].id = "cca=cubic,test=rrul";
	t.n = 2;
	ts_rep_label(&t, 1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "cca=cubic,test=rrul");
}

static const struct tsu_test tests[] = {
	{"axes every configuration shares are left out", test_shared_axes_dropped},
	{"the whole id when nothing sets it apart", test_whole_id_when_nothing_differs},
};

TSU_MAIN("report label", tests)
