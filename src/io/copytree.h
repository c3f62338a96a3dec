/* SPDX-License-Identifier: MIT */
/*
 * Copying a directory tree, the one way tasshape does it:
 *  - a run in a guest writes its files on the guest's own tmpfs while it
 *    runs and copies them into the shared run directory at the end (a
 *    write to the 9p share stalls the writer on the host's I/O, and in
 *    virtual time the guest's clock runs on meanwhile: docs/kernels.md,
 *    "What breaks determinism");
 *  - exp merge copies each run of the shard directories into the merged
 *    one. Copied, never hard-linked: a link would leave each file its
 *    author's, who could change the merged result afterwards; a copy is
 *    the invoker's (TS_COPY_OWN). It costs one more read and write of
 *    bytes that merge reads and hashes twice anyway (the shard's done
 *    record, then the copy's).
 * Both read directories other users may have written: symbolic links and
 * other file types are skipped, never followed, a file is opened without
 * waiting and copied only if it is still a regular file, and the depth is
 * bounded.
 */
#ifndef TS_IO_COPYTREE_H
#define TS_IO_COPYTREE_H

#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"

#define TS_COPY_MAX_DEPTH 8

enum {
	TS_COPY_NEW = 1 << 0, /* @dst is created and every file in it is new (O_EXCL) */
	TS_COPY_OWN = 1 << 1, /* what is created is handed to the invoking user (io/outfile.h) */
};

/*
 * ts_copy_tree - copy the regular files and directories under @src into
 * @dst, at most TS_COPY_MAX_DEPTH levels deep. Without TS_COPY_NEW, @dst
 * exists and a file of the same name in it is replaced. Files keep their
 * permission bits (at most 0755, less the umask). Returns 0, or a negative
 * errno with @err naming the file (-EINVAL: TS_COPY_OWN and the invoking
 * user unknown, or a file that stopped being a regular file).
 */
int ts_copy_tree(const char *src, const char *dst, unsigned flags, struct ts_err *err);

/*
 * ts_copy_file - the same for one regular file @src (a link or anything else
 * is refused: -EINVAL) to @dst.
 */
int ts_copy_file(const char *src, const char *dst, unsigned flags, struct ts_err *err);

/*
 * ts_copy_fd - the bytes of @in, from where it stands to its end but at most
 * @max of them, written to @out (a short write retried). 0, -EIO when @out
 * took nothing, or -errno.
 */
int ts_copy_fd(int in, int out, uint64_t max);

#endif
