/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/invoker.h"
#include "io/outfile.h"

/* As many links as the kernel follows in one lookup before ELOOP. */
#define TS_OUT_MAX_LINKS 40

/* One resolution of a path: whose links are trusted, what to say, how many links so far. */
struct walk {
	const struct ts_invoker *inv;
	const char *path; /* as the user gave it, for messages */
	bool mkdirs;	  /* create missing components */
	bool keep;	  /* ... and keep them this process's (not handed over) */
	bool strict; /* every directory on the way safe from other users (ts_out_dir_private) */
	int links;
	struct ts_err *err;
};

/* Give what tasshape created to the invoking user, when root works for them through sudo. */
static int hand_over(int fd, const struct ts_invoker *inv)
{
	if (!inv->sudo || geteuid() != 0)
		return 0;
	return fchown(fd, inv->uid, inv->gid) < 0 ? -errno : 0;
}

/* Create directory @name in @at and hand it over; 0 or -errno (EEXIST: made meanwhile, fine). */
static int make_dir(const struct walk *w, int at, const char *name)
{
	struct stat st;
	int fd, ret = 0;

	if (mkdirat(at, name, 0755) < 0)
		return errno == EEXIST ? 0 : -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Hand over only the directory made here: one swapped in since is not ours to give. */
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (st.st_uid == geteuid() && !w->keep)
		ret = hand_over(fd, w->inv);
	close(fd);
	return ret;
}

static int walk(struct walk *w, int at, const char *path);

/* Whether a group other than root's or the invoker's may write a directory of @st. */
static bool group_writable(const struct walk *w, const struct stat *st)
{
	return (st->st_mode & 020) && st->st_gid != 0 && st->st_gid != w->inv->gid;
}

/*
 * For a strict walk: directory @fd (component @name) belongs to root or
 * the invoker, and others may not rename what is in it: not writable by
 * them, or sticky (/tmp: what the invoker or root made there stays).
 */
static int check_safe(const struct walk *w, int fd, const char *name)
{
	struct stat st;

	if (!w->strict)
		return 0;
	if (fstat(fd, &st) < 0) {
		ts_err_set(w->err, "%s: cannot write: %s: %s", w->path, name, strerror(errno));
		return -errno;
	}
	if (!ts_invoker_trusts(w->inv, st.st_uid)) {
		ts_err_set(w->err,
			   "%s: %s belongs to uid %u, neither root nor the invoking user (uid %u)",
			   w->path, name, (unsigned)st.st_uid, (unsigned)w->inv->uid);
		return -EPERM;
	}
	if (((st.st_mode & 002) || group_writable(w, &st)) && !(st.st_mode & S_ISVTX)) {
		ts_err_set(w->err, "%s: other users may rename what is in %s (mode %04o)", w->path,
			   name, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/*
 * Resolve component @name in directory @at: an O_PATH fd of the directory
 * it names, or -errno. The component is opened without following it, so
 * the link checked is the link read (no window to swap it).
 */
static int step(struct walk *w, int at, const char *name)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd, ret;

	fd = openat(at, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && w->mkdirs) {
		ret = make_dir(w, at, name);
		if (ret < 0) {
			ts_err_set(w->err, "%s: cannot create %s: %s", w->path, name,
				   strerror(-ret));
			return ret;
		}
		fd = openat(at, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		ret = -errno;
		ts_err_set(w->err, "%s: cannot write: %s: %s", w->path, name, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		ts_err_set(w->err, "%s: cannot write: %s: %s", w->path, name, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		return fd;
	} else if (!S_ISLNK(st.st_mode)) {
		ret = -ENOTDIR;
		ts_err_set(w->err, "%s: %s is not a directory", w->path, name);
	} else if (!ts_invoker_trusts(w->inv, st.st_uid)) {
		ret = -EPERM;
		ts_err_set(
			w->err,
			"%s: %s is a symbolic link owned by uid %u, neither root nor the invoking "
			"user (uid %u): not followed",
			w->path, name, (unsigned)st.st_uid, (unsigned)w->inv->uid);
	} else if (++w->links > TS_OUT_MAX_LINKS) {
		ret = -ELOOP;
		ts_err_set(w->err, "%s: more than %d symbolic links", w->path, TS_OUT_MAX_LINKS);
	} else if ((n = readlinkat(fd, "", target, sizeof(target) - 1)) < 0) {
		ret = -errno;
		ts_err_set(w->err, "%s: cannot write: %s: %s", w->path, name, strerror(errno));
	} else {
		target[n] = '\0';
		close(fd);
		/* A relative target is relative to the link's directory, as the kernel reads it. */
		return walk(w, at, target);
	}
	close(fd);
	return ret;
}

/* Resolve directory @path from @at (absolute: from /): an O_PATH fd or -errno. */
static int walk(struct walk *w, int at, const char *path)
{
	char buf[PATH_MAX], *comp, *save = NULL;
	int cur, next;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		ts_err_set(w->err, "%s: path too long", w->path);
		return -ENAMETOOLONG;
	}
	cur = openat(path[0] == '/' ? AT_FDCWD : at, path[0] == '/' ? "/" : ".",
		     O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0) {
		next = -errno;
		ts_err_set(w->err, "%s: %s", w->path, strerror(errno));
		return next;
	}
	next = check_safe(w, cur, path[0] == '/' ? "/" : ".");
	for (comp = strtok_r(buf, "/", &save); comp && !next; comp = strtok_r(NULL, "/", &save)) {
		if (!strcmp(comp, "."))
			continue;
		next = step(w, cur, comp);
		close(cur);
		if (next < 0)
			return next;
		cur = next;
		next = check_safe(w, cur, comp);
	}
	if (next < 0) {
		close(cur);
		return next;
	}
	return cur;
}

/* The invoking user, or -EINVAL with a message that says what it was needed for. */
static int invoker(const char *path, struct ts_invoker *inv, struct ts_err *err)
{
	struct ts_err e;
	int ret = ts_invoker_get(inv, &e);

	if (ret < 0)
		ts_err_set(err, "%s: not written, the invoking user is unknown: %s", path, e.msg);
	return ret;
}

/* Split @path into its directory (@dir) and last component (@name). -EINVAL: no file name. */
static int split(const char *path, char *dir, size_t len, const char **name, struct ts_err *err)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	*name = slash ? slash + 1 : path;
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, "..")) {
		ts_err_set(err, "'%s': expected a file name", path);
		return -EINVAL;
	}
	n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
	if (n + 2 > len || strlen(*name) > NAME_MAX) {
		ts_err_set(err, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	memcpy(dir, n ? path : ".", n ? n : 1);
	dir[n ? n : 1] = '\0';
	return 0;
}

/* What is at @name: 0 nothing, 1 a regular file to replace, 2 a device to write; or -errno. */
static int existing(int dirfd, const char *name, const char *path, const struct ts_invoker *inv,
		    struct stat *st, struct ts_err *err)
{
	int ret;

	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = errno == ENOENT ? 0 : -errno;
		if (ret)
			ts_err_set(err, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (S_ISLNK(st->st_mode)) {
		ts_err_set(err,
			   "%s: is a symbolic link: not followed (remove it or give another path)",
			   path);
		return -ELOOP;
	}
	if (!ts_invoker_trusts(inv, st->st_uid)) {
		ts_err_set(
			err,
			"%s: exists and belongs to uid %u, neither root nor the invoking user (uid "
			"%u): not replaced",
			path, (unsigned)st->st_uid, (unsigned)inv->uid);
		return -EPERM;
	}
	if (S_ISREG(st->st_mode))
		return 1;
	if (S_ISCHR(st->st_mode))
		return 2;
	ts_err_set(err, "%s: exists and is not a regular file: not replaced", path);
	return -EEXIST;
}

/* A new file with a random name in @dirfd (into @tmp): an fd or -errno. */
static int make_temp(int dirfd, char *tmp, size_t len)
{
	uint32_t r;
	int i, fd;

	for (i = 0; i < 100; i++) {
		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -EIO;
		snprintf(tmp, len, ".tasshape-%08x.tmp", (unsigned)r);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* The replacement of @st keeps its owner and mode, less group and world write. */
static int keep_owner(int fd, const struct stat *st)
{
	if (geteuid() == 0 && fchown(fd, st->st_uid, st->st_gid) < 0)
		return -errno;
	return fchmod(fd, st->st_mode & 0755) < 0 ? -errno : 0;
}

/*
 * Open @path for writing into @o: @atomic writes a temporary name for
 * ts_out_commit; otherwise a replacement is renamed in at once (so
 * long-running writers such as logs and captures stream into their name).
 */
static int out_open(struct ts_out *o, const char *path, bool atomic, struct ts_err *err)
{
	struct ts_invoker inv;
	struct walk w = {.inv = &inv, .path = path, .err = err};
	char dir[PATH_MAX];
	const char *name;
	struct stat st;
	int ret, kind;
	bool temp;

	o->fd = o->dirfd = -1;
	o->tmp[0] = '\0';
	ret = invoker(path, &inv, err);
	if (!ret)
		ret = split(path, dir, sizeof(dir), &name, err);
	if (ret)
		return ret;
	snprintf(o->name, sizeof(o->name), "%s", name);
	ret = o->dirfd = walk(&w, AT_FDCWD, dir);
	if (ret < 0)
		goto fail;
	ret = kind = existing(o->dirfd, name, path, &inv, &st, err);
	if (ret < 0)
		goto fail;
	if (kind == 2 && atomic) {
		ts_err_set(err, "%s: exists and is not a regular file: not replaced", path);
		ret = -EEXIST;
		goto fail;
	}
	/* A replacement, or a whole-or-nothing output, is written under a temporary name. */
	temp = kind == 1 || atomic;
	if (temp)
		o->fd = make_temp(o->dirfd, o->tmp, sizeof(o->tmp));
	else if (kind == 2)
		o->fd = openat(o->dirfd, name, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	else
		o->fd = openat(o->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0644);
	if (o->fd < 0) {
		ret = temp ? o->fd : -errno;
		ts_err_set(err, "%s: cannot create: %s", path, strerror(-ret));
		o->tmp[0] = '\0';
		goto fail;
	}
	if (kind != 2)
		ret = kind == 1 ? keep_owner(o->fd, &st) : hand_over(o->fd, &inv);
	if (!ret && o->tmp[0] && !atomic && renameat(o->dirfd, o->tmp, o->dirfd, name) < 0)
		ret = -errno;
	if (ret < 0) {
		ts_err_set(err, "%s: cannot create: %s", path, strerror(-ret));
		goto fail;
	}
	if (!atomic)
		o->tmp[0] = '\0';
	return 0;
fail:
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->fd = o->dirfd = -1;
	return ret;
}

int ts_out_fd(const char *path, struct ts_err *err)
{
	struct ts_out o;
	int ret = out_open(&o, path, false, err);

	if (ret < 0)
		return ret;
	close(o.dirfd);
	return o.fd;
}

FILE *ts_out_fopen(const char *path, struct ts_err *err)
{
	int fd = ts_out_fd(path, err), e;
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		e = errno;
		ts_err_set(err, "%s: %s", path, strerror(e));
		close(fd);
		errno = e;
	}
	return f;
}

int ts_out_begin(struct ts_out *o, const char *path, struct ts_err *err)
{
	return out_open(o, path, true, err);
}

int ts_out_commit(struct ts_out *o, struct ts_err *err)
{
	int ret = 0;

	if (renameat(o->dirfd, o->tmp, o->dirfd, o->name) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: cannot rename into place: %s", o->name, strerror(errno));
		unlinkat(o->dirfd, o->tmp, 0);
	}
	close(o->dirfd);
	o->dirfd = -1;
	return ret;
}

void ts_out_cancel(struct ts_out *o)
{
	unlinkat(o->dirfd, o->tmp, 0);
	close(o->dirfd);
	o->dirfd = -1;
}

int ts_out_write_whole(const char *path, const void *buf, size_t len, struct ts_err *err)
{
	const char *p = buf;
	struct ts_out o;
	ssize_t n;
	int ret = ts_out_begin(&o, path, err);

	if (ret < 0)
		return ret;
	while (len > 0 && !ret) {
		n = write(o.fd, p, len);
		if (n < 0 && errno != EINTR)
			ret = -errno;
		else if (n > 0)
			p += n, len -= (size_t)n;
	}
	if (close(o.fd) != 0 && !ret)
		ret = -errno;
	if (ret) {
		ts_err_set(err, "%s: write error: %s", path, strerror(-ret));
		ts_out_cancel(&o);
		return ret;
	}
	return ts_out_commit(&o, err);
}

/* ts_out_mkdir, or ts_out_mkdir_keep when @keep. */
static int out_mkdir(const char *path, bool keep, struct ts_err *err)
{
	struct ts_invoker inv;
	struct walk w = {.inv = &inv, .path = path, .mkdirs = true, .keep = keep, .err = err};
	struct stat st;
	int ret, pfd, fd = -1;

	if (!*path) {
		ts_err_set(err, "'': expected a directory");
		return -EINVAL;
	}
	ret = invoker(path, &inv, err);
	if (ret < 0)
		return ret;
	ret = pfd = walk(&w, AT_FDCWD, path);
	if (pfd < 0)
		return ret;
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pfd);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
	} else if (!ts_invoker_trusts(&inv, st.st_uid)) {
		ret = -EPERM;
		ts_err_set(
			err,
			"%s: belongs to uid %u, neither root nor the invoking user (uid %u): not "
			"written",
			path, (unsigned)st.st_uid, (unsigned)inv.uid);
	} else {
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

int ts_out_mkdir(const char *path, struct ts_err *err)
{
	return out_mkdir(path, false, err);
}

int ts_out_mkdir_keep(const char *path, struct ts_err *err)
{
	return out_mkdir(path, true, err);
}

int ts_out_lock(int dirfd, const char *path, struct ts_err *err)
{
	int e;

	if (flock(dirfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	e = errno;
	if (e == EWOULDBLOCK) {
		ts_err_set(err,
			   "%s: another tasshape run is writing this directory; wait for it or "
			   "give another one",
			   path);
		return -EBUSY;
	}
	ts_err_set(err, "%s: cannot lock: %s", path, strerror(e));
	return -e;
}

int ts_out_dir_private(const char *path, struct ts_err *err)
{
	struct ts_invoker inv;
	struct walk w = {.inv = &inv, .path = path, .strict = true, .err = err};
	struct stat st;
	int ret, fd;

	ret = invoker(path, &inv, err);
	if (ret < 0)
		return ret;
	fd = walk(&w, AT_FDCWD, path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
	} else if (!ts_invoker_trusts(&inv, st.st_uid)) {
		ret = -EPERM;
		ts_err_set(err,
			   "%s: belongs to uid %u, neither root nor the invoking user (uid %u)",
			   path, (unsigned)st.st_uid, (unsigned)inv.uid);
	} else if ((st.st_mode & 002) || group_writable(&w, &st)) {
		ret = -EPERM;
		ts_err_set(err,
			   "%s: other users may create files in it (mode %04o): give a directory "
			   "of your own",
			   path, (unsigned)(st.st_mode & 07777));
	}
	close(fd);
	return ret;
}

int ts_out_hand_over(int fd, const struct ts_invoker *inv)
{
	return hand_over(fd, inv);
}

/*
 * What @name is in @dirfd: 0 nothing, 1 an empty directory of root or the
 * invoker (not a link to one); anything else -errno with @err.
 */
static int stage_target(int dirfd, const char *name, const char *path, const struct ts_invoker *inv,
			struct ts_err *err)
{
	struct dirent *e;
	struct stat st;
	int fd, ret = 1;
	DIR *d;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		ret = errno == ENOTDIR || errno == ELOOP ? -EEXIST : -errno;
		ts_err_set(err, "%s: exists and is not a directory (%s): give a new or empty one",
			   path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
	} else if (!ts_invoker_trusts(inv, st.st_uid)) {
		ret = -EPERM;
		ts_err_set(err,
			   "%s: belongs to uid %u, neither root nor the invoking user (uid %u)",
			   path, (unsigned)st.st_uid, (unsigned)inv->uid);
	}
	if (ret < 0) {
		close(fd);
		return ret;
	}
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	while (ret == 1 && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			ret = -EEXIST;
			ts_err_set(err,
				   "%s: exists and is not empty: give a new or empty directory",
				   path);
		}
	closedir(d);
	return ret;
}

/* A new directory of a random name, mode 0700, in @dirfd (its name into @tmp). 0 or -errno. */
static int make_temp_dir(int dirfd, char *tmp, size_t len)
{
	uint32_t r;
	int i;

	for (i = 0; i < 100; i++) {
		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -EIO;
		snprintf(tmp, len, ".tasshape-stage-%08x", (unsigned)r);
		if (mkdirat(dirfd, tmp, 0700) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int ts_out_stage_begin(struct ts_out_stage *st, const char *path, struct ts_err *err)
{
	struct ts_invoker inv;
	struct walk w = {.inv = &inv, .path = path, .mkdirs = true, .err = err};
	char buf[PATH_MAX], dir[PATH_MAX];
	const char *name;
	size_t n = strlen(path);
	int ret;

	memset(st, 0, sizeof(*st));
	st->dirfd = -1;
	if (n >= sizeof(buf)) {
		ts_err_set(err, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0'; /* "OUT/" names OUT */
	ret = invoker(path, &inv, err);
	if (!ret)
		ret = split(buf, dir, sizeof(dir), &name, err);
	if (ret)
		return ret;
	snprintf(st->name, sizeof(st->name), "%s", name);
	ret = st->dirfd = walk(&w, AT_FDCWD, dir);
	if (ret < 0)
		return ret;
	ret = stage_target(st->dirfd, name, path, &inv, err);
	if (ret >= 0) {
		st->existed = ret == 1;
		ret = make_temp_dir(st->dirfd, st->tmp, sizeof(st->tmp));
		if (ret < 0)
			ts_err_set(err, "%s: cannot create a directory beside it: %s", path,
				   strerror(-ret));
	}
	if (!ret &&
	    snprintf(st->path, sizeof(st->path), "%s/%s", dir, st->tmp) >= (int)sizeof(st->path)) {
		unlinkat(st->dirfd, st->tmp, AT_REMOVEDIR);
		ts_err_set(err, "%s: path too long", path);
		ret = -ENAMETOOLONG;
	}
	if (ret < 0) {
		close(st->dirfd);
		st->dirfd = -1;
	}
	return ret;
}

/* Rename the staging directory to its name: never over anything but the empty directory. */
static int stage_rename(const struct ts_out_stage *st)
{
	if (renameat2(st->dirfd, st->tmp, st->dirfd, st->name,
		      st->existed ? 0 : RENAME_NOREPLACE) == 0)
		return 0;
	/* A file system without RENAME_NOREPLACE: rename replaces at most an empty directory. */
	if (errno == EINVAL && !st->existed &&
	    renameat(st->dirfd, st->tmp, st->dirfd, st->name) == 0)
		return 0;
	return -errno;
}

int ts_out_stage_commit(struct ts_out_stage *st, struct ts_err *err)
{
	struct ts_invoker inv;
	mode_t mask = umask(0);
	int fd, ret;

	umask(mask);
	ret = invoker(st->name, &inv, err);
	if (ret < 0)
		return ret;
	fd = openat(st->dirfd, st->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		ret = -errno;
	else if (fchmod(fd, 0755 & ~mask) < 0)
		ret = -errno;
	else
		ret = hand_over(fd, &inv);
	if (fd >= 0)
		close(fd);
	if (!ret)
		ret = stage_rename(st);
	if (ret < 0) {
		ts_err_set(err, "%s: cannot move %s into place: %s", st->name, st->path,
			   strerror(-ret));
		return ret;
	}
	st->committed = true;
	return 0;
}

void ts_out_stage_end(struct ts_out_stage *st)
{
	if (st->dirfd < 0)
		return;
	if (!st->committed)
		unlinkat(st->dirfd, st->tmp, AT_REMOVEDIR);
	close(st->dirfd);
	st->dirfd = -1;
}
