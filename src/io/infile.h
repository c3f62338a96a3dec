/* SPDX-License-Identifier: MIT */
/*
 * The one way tasshape opens a file it reads from a results directory or
 * another input that anyone may have written. As root, a name there may
 * be a FIFO (a read would wait forever), a device such as /dev/zero (it
 * never ends) or a file of any size: so only a regular file is read
 * (checked on the opened descriptor, opened without waiting), and a whole
 * read stops at a stated limit before memory is requested for more.
 *
 * Every function returns a negative errno with @err naming the path and
 * what was wrong.
 */
#ifndef TS_IO_INFILE_H
#define TS_IO_INFILE_H

#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"

/*
 * The largest JSON document read from a results directory (result.json,
 * experiment.json, flent-manifest.json): a run's record holds its samples,
 * a few MB for a 60 s run with every socket sampled; 64 MiB leaves room
 * and bounds what a planted file can make tasshape allocate (json-c needs
 * several times the text).
 */
#define TS_IN_JSON_MAX (64u << 20)

/*
 * ts_in_open - open @path for reading if it is a regular file: a
 * close-on-exec, blocking fd, or -ENOENT (absent), -EINVAL (not a regular
 * file) or another -errno.
 */
int ts_in_open(const char *path, struct ts_err *err);

/*
 * ts_in_open_at - ts_in_open of @rel, looked up from the directory @dirfd
 * (named @dir in messages) with openat2's @resolve flags:
 * RESOLVE_BENEATH keeps the lookup inside that directory (no "..", no
 * absolute path, no link that leads out: -EXDEV), RESOLVE_NO_SYMLINKS
 * follows no link at all (-ELOOP). For the files of a directory someone
 * else wrote (a kernel's modules directory), whose names come from its
 * own index files.
 */
int ts_in_open_at(int dirfd, const char *dir, const char *rel, uint64_t resolve,
		  struct ts_err *err);

/*
 * ts_in_dir_open - open the directory @path for reading without waiting:
 * a FIFO, a device or a file is refused (-ENOTDIR, "expected a
 * directory") before anything could block. A close-on-exec fd or -errno.
 */
int ts_in_dir_open(const char *path, struct ts_err *err);

/*
 * ts_in_read - the whole regular file @path into @out (NUL-terminated, of
 * @len bytes, the caller frees it) if it holds at most @limit bytes;
 * -EFBIG with a message naming the limit otherwise. Errors as ts_in_open.
 */
int ts_in_read(const char *path, size_t limit, char **out, size_t *len, struct ts_err *err);

/* ts_in_read_at - ts_in_read of what ts_in_open_at opens. */
int ts_in_read_at(int dirfd, const char *dir, const char *rel, uint64_t resolve, size_t limit,
		  char **out, size_t *len, struct ts_err *err);

#endif
