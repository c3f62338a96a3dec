/* SPDX-License-Identifier: MIT */
/* The entries of an experiment directory, in the order the result tools read them (dirlist.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "results/dirlist.h"
#include "results/rundir.h"

#define PFX (sizeof(TS_RUNDIR_PREFIX) - 1)

/* rep-K by K, anything else by name: a run's repetitions in the order they ran. */
static int cmp_entry(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	if (!strncmp(x, TS_RUNDIR_PREFIX, PFX) && !strncmp(y, TS_RUNDIR_PREFIX, PFX)) {
		unsigned long kx = strtoul(x + PFX, NULL, 10), ky = strtoul(y + PFX, NULL, 10);

		if (kx != ky)
			return kx < ky ? -1 : 1;
	}
	return strcmp(x, y);
}

int ts_dirlist(const char *dir, const char *prefix, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t k = 0;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char **nv;

		if (e->d_name[0] == '.' || (prefix && strncmp(e->d_name, prefix, strlen(prefix))))
			continue;
		nv = realloc(v, (k + 1) * sizeof(*v));
		if (!nv) {
			ret = -ENOMEM;
			break;
		}
		v = nv;
		v[k] = strdup(e->d_name);
		if (!v[k]) {
			ret = -ENOMEM;
			break;
		}
		k++;
	}
	closedir(d);
	if (ret < 0) {
		ts_dirlist_free(v, k);
		return ret;
	}
	if (k)
		qsort(v, k, sizeof(*v), cmp_entry);
	*out = v;
	*n = k;
	return 0;
}

void ts_dirlist_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
