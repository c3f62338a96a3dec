/* SPDX-License-Identifier: MIT */
/*
 * The entries of an experiment directory, in the order the result tools
 * read them (summary, report): configurations by name, a configuration's
 * rep-K directories by K.
 */
#ifndef TS_RESULTS_DIRLIST_H
#define TS_RESULTS_DIRLIST_H

#include <stddef.h>

/*
 * ts_dirlist - the names of @dir's entries that start with @prefix (all
 * but dot entries when NULL), sorted: rep-K by K (rep-2 before rep-10), the
 * rest by strcmp. Free with ts_dirlist_free. Returns 0 or -errno
 * (-ENOENT: no such directory, -ENOTDIR: a file).
 */
int ts_dirlist(const char *dir, const char *prefix, char ***out, size_t *n);

void ts_dirlist_free(char **v, size_t n);

#endif
