/* SPDX-License-Identifier: MIT */
/*
 * A suite's private directory, for TSU_MAIN_FIXTURE: its init makes it
 * from a mkdtemp(3) template, its cleanup removes it with everything the
 * tests left in it (io/rmtree.c, the one remover, unit-tested in
 * test_rmtree.c). Each returns 0, or -1 after printing why: a fixture
 * that fails fails the suite.
 */
#ifndef TSU_TMP_H
#define TSU_TMP_H

#include <stdio.h>
#include <stdlib.h>

#include "io/rmtree.h"

static inline int tsu_tmp_make(char *tmpl)
{
	if (!mkdtemp(tmpl)) {
		perror(tmpl);
		return -1;
	}
	return 0;
}

static inline int tsu_tmp_remove(const char *dir)
{
	struct ts_err err;

	if (ts_rmtree(dir, &err) < 0) {
		fprintf(stderr, "cannot remove %s: %s\n", dir, err.msg);
		return -1;
	}
	return 0;
}

#endif
