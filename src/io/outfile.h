/* SPDX-License-Identifier: MIT */
/*
 * The one way tasshape creates an output file or directory. It runs as
 * root and writes where a user asked, often in a shared directory such as
 * /tmp, where other local users can plant names; so (as systemd's chase()
 * and openat helpers do):
 *
 * - The parent directory is reached one component at a time with openat.
 *   A symbolic link on the way is followed only when it belongs to root or
 *   to the invoking user (io/invoker.h): the user may reach their files
 *   through their own links, but a link another user planted (in /tmp, or
 *   in a directory they own) is refused, as the kernel's
 *   fs.protected_symlinks would refuse it in a sticky directory. At most
 *   40 links are followed (the kernel's ELOOP limit).
 * - The last component is never followed. A new file is created with
 *   O_CREAT|O_EXCL|O_NOFOLLOW. An existing regular file is replaced only
 *   when root or the invoking user owns it: a temporary name is created in
 *   the same directory and renamed over it, so the old file is never
 *   opened, truncated or written through (a hard link to another file
 *   stays that other file), and the replacement keeps the old owner and
 *   mode (without group and world write). An existing character device of
 *   theirs (/dev/null) is written as is. Anything else (a symbolic link, a
 *   directory, a FIFO, another user's file) is refused with a message.
 * - Only what tasshape creates is handed to the invoking user (fchown
 *   through the descriptor, when tasshape runs as root through sudo); an
 *   existing file or directory keeps its owner.
 *
 * Every function returns a negative errno with @err naming the path and
 * what was wrong.
 */
#ifndef TS_IO_OUTFILE_H
#define TS_IO_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "tasshape/err.h"

struct ts_invoker;

/* ts_out_fd - create or replace the file @path (rules above); a write-only, close-on-exec fd. */
int ts_out_fd(const char *path, struct ts_err *err);

/* ts_out_fopen - ts_out_fd as a FILE ("w"); NULL with errno and @err set. */
FILE *ts_out_fopen(const char *path, struct ts_err *err);

/*
 * An output written whole or not at all (a JSON record, a done marker):
 * ts_out_begin opens a temporary file next to @path (checking @path as
 * ts_out_fd does) into @o->fd; the caller writes and closes @o->fd, then
 * ts_out_commit renames it over @path (or ts_out_cancel removes it).
 * Both release @o; after a failed begin there is nothing to release.
 */
struct ts_out {
	int fd;
	int dirfd;
	char name[256];
	char tmp[32];
};
int ts_out_begin(struct ts_out *o, const char *path, struct ts_err *err);
int ts_out_commit(struct ts_out *o, struct ts_err *err);
void ts_out_cancel(struct ts_out *o);

/* ts_out_write_whole - @len bytes of @buf as the file @path, whole or not at all. 0 or -errno. */
int ts_out_write_whole(const char *path, const void *buf, size_t len, struct ts_err *err);

/*
 * ts_out_mkdir - create the directory @path and its missing parents (0755,
 * each handed to the invoking user), or check an existing one: it must
 * belong to root or the invoking user (it is never chowned). Returns an
 * O_RDONLY directory fd (close-on-exec) for ts_out_lock, or -errno.
 */
int ts_out_mkdir(const char *path, struct ts_err *err);

/*
 * ts_out_mkdir_keep - ts_out_mkdir, but the directories it creates stay
 * this process's (root's, under sudo): for one that serves every user's
 * runs and must not become one user's to fill (root's cache of kernels,
 * /var/cache/tasshape). The same checks on the way and on @path.
 */
int ts_out_mkdir_keep(const char *path, struct ts_err *err);

/*
 * ts_out_lock - take @dirfd's exclusive lock (flock) without waiting: one
 * run at a time writes a directory. Held until @dirfd is closed (or the
 * process ends). -EBUSY with @err naming @path when another run holds it.
 */
int ts_out_lock(int dirfd, const char *path, struct ts_err *err);

/*
 * ts_out_dir_private - check that the existing directory @path belongs to
 * root or the invoking user and that no one else may create names in it
 * (no world write; group write only for root's group or the invoking
 * user's, as with a user-private group and umask 002), nor in a directory
 * on the way to it unless that one is sticky (/tmp): no one else can then
 * swap a name on the path. For outputs that another program (gnuplot)
 * opens by name, which only such a directory makes safe. 0 or -errno.
 */
int ts_out_dir_private(const char *path, struct ts_err *err);

/*
 * ts_out_hand_over - give @fd, a file or directory this process has just
 * created, to the invoking user @inv (when root works for them through
 * sudo; otherwise nothing to do). 0 or -errno.
 */
int ts_out_hand_over(int fd, const struct ts_invoker *inv);

/*
 * A directory written whole or not at all (exp merge's OUT). ts_out_stage_begin
 * checks that @path does not exist or is an empty directory of root or the
 * invoking user, reaches its parent as ts_out_mkdir does (missing parents
 * created), and makes there a new directory of a random name
 * (".tasshape-stage-XXXXXXXX", mode 0700: no other user can reach into
 * it), whose path it puts in @st->path for the caller to fill.
 * ts_out_stage_commit gives it the mode of a new directory (0755 less the
 * umask), hands it to the invoking user and renames it to @path: where
 * nothing is (RENAME_NOREPLACE), or over the empty directory (which the
 * kernel refuses if anything was put in it meanwhile). On failure the
 * caller empties the staging directory; ts_out_stage_end then removes it
 * (when still there) and releases @st. After a failed begin there is
 * nothing to end. Both return 0 or -errno with @err set.
 */
struct ts_out_stage {
	int dirfd;		 /* @path's parent */
	bool existed;		 /* @path was an empty directory */
	bool committed;		 /* renamed to @path */
	char name[NAME_MAX + 1]; /* @path's last component */
	char tmp[32];		 /* the staging directory's name in the parent */
	char path[PATH_MAX];	 /* the staging directory's path, for path-based writers */
};
int ts_out_stage_begin(struct ts_out_stage *st, const char *path, struct ts_err *err);
int ts_out_stage_commit(struct ts_out_stage *st, struct ts_err *err);
void ts_out_stage_end(struct ts_out_stage *st);

#endif
