/* SPDX-License-Identifier: MIT */
/* The host files of a run in a sealed guest (exec_seal.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exec/exec_seal.h"
#include "link/bundled.h"
#include "link/grammar.h"
#include "plan/expspec.h"

/*
 * Besides the shaper's own programs (net/ipt.c, which the image always holds): iperf3 for the
 * flows; irtt and ping for the probes, only when a spec's tests have them.
 */
const char *const ts_exp_seal_tools[] = {"iperf3", NULL};
const char *const ts_exp_seal_tools_opt[] = {"irtt", "ping", NULL};

static int push(struct ts_exp_seal_files *f, const char *path, struct ts_err *err)
{
	char real[PATH_MAX];
	struct stat st;
	size_t i;

	if (!realpath(path, real) || stat(real, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	for (i = 0; i < f->n; i++)
		if (!strcmp(f->path[i], path))
			return 0;
	if (f->n == TS_EXP_SEAL_MAX_FILES) {
		ts_err_set(err, "a sealed guest takes at most %d data files",
			   TS_EXP_SEAL_MAX_FILES);
		return -E2BIG;
	}
	/* The guest opens the path as written: packed there, its links resolved in the image. */
	f->path[f->n] = path[0] == '/' ? strdup(path) : strdup(real);
	if (!f->path[f->n])
		return -ENOMEM;
	f->n++;
	f->path[f->n] = NULL;
	return 0;
}

int ts_exp_seal_files(const struct ts_exp_run *run, const char *spec, struct ts_exp_seal_files *f,
		      struct ts_err *err)
{
	struct ts_exp_spec s;
	size_t i, k;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = ts_exp_spec_load(&s, spec, err);
	if (ret < 0)
		return ret;
	ret = push(f, spec, err);
	for (i = 0; !ret && i < s.nlinks; i++) {
		char **v = s.links[i].argv;

		for (k = 0; !ret && k + 1 < s.links[i].argc; k++) {
			const struct ts_linkkey *key =
				!strncmp(v[k], "--", 2) ? ts_linkkey_find(v[k] + 2) : NULL;
			char buf[PATH_MAX];

			if (!key || !key->arg || strcmp(key->arg, "FILE"))
				continue;
			ret = push(f, ts_trace_resolve(v[k + 1], buf, sizeof(buf)), err);
		}
	}
	if (!ret && run->cca && !strncmp(run->cca, "bpf:", 4))
		ret = push(f, run->cca + 4, err);
	ts_exp_spec_free(&s);
	if (ret == -ENOMEM)
		ts_err_set(err, "out of memory");
	if (ret < 0)
		ts_exp_seal_files_free(f);
	return ret;
}

void ts_exp_seal_files_free(struct ts_exp_seal_files *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->path[i]);
	f->n = 0;
	f->path[0] = NULL;
}
