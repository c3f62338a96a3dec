/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <unistd.h>

#include "exec/exec_files.h"
#include "io/infile.h"

char *ts_exp_slurp(const char *dir, const char *name)
{
	struct ts_err e;
	char *text = NULL;
	size_t len;
	int dfd = ts_in_dir_open(dir, &e), ret = dfd;

	/* The programs of the run wrote these names: a link there is not followed. */
	if (dfd >= 0) {
		ret = ts_in_read_at(dfd, dir, name, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
				    TS_EXP_FILE_MAX, &text, &len, &e);
		close(dfd);
	}
	if (ret < 0)
		errno = -ret;
	return ret < 0 ? NULL : text;
}
