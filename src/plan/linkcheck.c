/* SPDX-License-Identifier: MIT */
/*
 * The checks of an experiment's links that need their files: each [link
 * NAME] section's configuration, as the spec reader stored it, is loaded
 * and both directions are built, as the wrapper will for every run.
 */
#include <stdio.h>

#include "plan/expspec.h"

/* Build direction @d of @cfg (loaded) and throw it away. */
static int build_dir(const struct ts_linkcfg *cfg, int d, struct ts_err *err)
{
	struct ts_dir dir;
	int ret;

	ret = ts_linkcfg_build(cfg, d, &dir, 0, NULL, NULL, NULL, err);
	if (ret < 0)
		return ret;
	ts_dir_fini(&dir, 0);
	return 0;
}

int ts_exp_spec_check_links(struct ts_exp_spec *spec, struct ts_err *err)
{
	struct ts_err e;
	size_t i;
	int d, ret = 0;

	for (i = 0; i < spec->nlinks && !ret; i++) {
		struct ts_exp_link *l = &spec->links[i];

		e.msg[0] = '\0';
		ret = ts_linkcfg_load(&l->cfg, &e);
		for (d = 0; d < 2 && !ret; d++)
			ret = build_dir(&l->cfg, d, &e);
		if (ret < 0)
			ts_err_set(err, "%s:%u: [link %s]: %s", spec->path,
				   ts_exp_link_line(l, e.msg), l->name, e.msg);
		/* The traces are read again by the wrapper of each run: keep only the options. */
		ts_linkcfg_unload(&l->cfg);
	}
	return ret;
}
