/* SPDX-License-Identifier: MIT */
/*
 * The one way tasshape removes a directory tree. It runs as root and
 * removes trees inside directories other users may have written (a
 * partial run of a results directory that came from a colleague): a name
 * in such a tree may be a symbolic link, or be swapped for one while the
 * tree is removed. So, as systemd's rm_rf_children and coreutils' fts do:
 *
 * - Every entry is reached from the descriptor of the directory that
 *   holds it (unlinkat; a directory is opened with openat and
 *   O_NOFOLLOW|O_DIRECTORY and read with fdopendir), never by a path
 *   resolved again: renaming or swapping a name meanwhile cannot lead
 *   out of the tree that was given.
 * - A symbolic link is removed as a link; its target is never touched.
 * - A directory on another file system (a mount point) is not entered.
 * - The walk is iterative over an explicit stack of at most
 *   TS_RMTREE_MAX_DEPTH open directories: a deep tree gives an error,
 *   not a stack overflow.
 *
 * Every function returns a negative errno with @err naming the entry at
 * fault and what was wrong.
 */
#ifndef TS_IO_RMTREE_H
#define TS_IO_RMTREE_H

#include "tasshape/err.h"

/*
 * How deep a tree is removed, counting the directory given: a run
 * directory of tasshape is a few levels deep, and each level holds one
 * open descriptor while it is read.
 */
#define TS_RMTREE_MAX_DEPTH 32

/*
 * ts_rmtree_at - remove the entry @name of the directory @dirfd (one
 * component: no '/', not "." or "..") and, when it is a directory,
 * everything in it. @what names @name in messages (a path, for the
 * user). Returns 0 (also when @name does not exist), -ELOOP when the tree
 * is deeper than TS_RMTREE_MAX_DEPTH, -EXDEV when it holds a mount point,
 * or another -errno; what was removed before an error stays removed.
 */
int ts_rmtree_at(int dirfd, const char *name, const char *what, struct ts_err *err);

/*
 * ts_rmtree - ts_rmtree_at for @path: the directory holding its last
 * component is opened once (links on the way followed, as the caller
 * gave the path); the last component itself is never followed.
 */
int ts_rmtree(const char *path, struct ts_err *err);

#endif
