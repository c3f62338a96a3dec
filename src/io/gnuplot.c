/* SPDX-License-Identifier: MIT */
/* Running gnuplot (see gnuplot.h): no shell, a fixed environment, the image on a given descriptor. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/gnuplot.h"
#include "io/outfile.h"
#include "io/proc.h"
#include "io/which.h"

/*
 * gnuplot is found as every program is (io/which.h): never in a relative
 * $PATH entry ("", ".", "bin"), which names a directory under the current
 * one, maybe a results directory that another user wrote.
 */
bool ts_gnuplot_available(void)
{
	struct ts_which w;

	return ts_which("gnuplot", &w) == 0;
}

int ts_gnuplot_run(const char *script, size_t len, int out_fd, unsigned int timeout_ms,
		   struct ts_err *err)
{
	/*
	 * Nothing of the caller's environment: HOME would make gnuplot load
	 * ~/.gnuplot, GNUPLOT_DRIVER_DIR names programs it runs, GNUPLOT_LIB
	 * and GDFONTPATH where it reads files. $PATH only finds the program.
	 */
	static char *const env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent",
				    "LC_ALL=C.UTF-8", NULL};
	static char *const argv[] = {"gnuplot", NULL};
	struct ts_err why;
	struct ts_proc p;
	int st;

	ts_proc_init(&p, argv); /* argv[0] found by ts_which, run by its absolute name */
	p.envp = env;
	p.close_fds = true;
	p.in.how = TS_PROC_DATA;
	p.in.data = script;
	p.in.len = len;
	p.out.how = out_fd < 0 ? TS_PROC_NULL : TS_PROC_FD;
	p.out.fd = out_fd;
	p.err.how = TS_PROC_INHERIT; /* its messages go to our standard error */
	st = ts_proc_run(&p, timeout_ms > INT_MAX ? INT_MAX : (int)timeout_ms, &why);
	ts_proc_release(&p);
	if (st == -ETIMEDOUT) {
		ts_err_set(err, "gnuplot: no image after %u ms: stopped", timeout_ms);
		return -ETIMEDOUT;
	}
	if (st == -ENOENT) {
		ts_err_set(err, "%s (Debian: apt-get install gnuplot-nox)", why.msg);
		return -ENOENT;
	}
	if (st < 0) {
		ts_err_set(err, "%s", why.msg);
		return st;
	}
	if (st) {
		ts_err_set(err, "gnuplot failed (%s %d)", st > 128 ? "signal" : "exit status",
			   st > 128 ? st - 128 : st);
		return -EIO;
	}
	return 0;
}

int ts_gnuplot_tmp_open(struct ts_gnuplot_tmp *t, struct ts_err *err)
{
	const char *base = getenv("TMPDIR");
	int ret;

	t->dfd = -1;
	if (!base || base[0] != '/' || strlen(base) > 200)
		base = "/tmp";
	snprintf(t->dir, sizeof(t->dir), "%s/tasshape-gnuplot-XXXXXX", base);
	if (!mkdtemp(t->dir)) {
		ret = -errno;
		ts_err_set(err, "%s: cannot create a private directory: %s", t->dir,
			   strerror(errno));
		return ret;
	}
	t->dfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dfd < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", t->dir, strerror(errno));
		rmdir(t->dir);
		return ret;
	}
	return 0;
}

FILE *ts_gnuplot_tmp_file(struct ts_gnuplot_tmp *t, const char *name, char *path, size_t len)
{
	FILE *f;
	int fd;

	if (strchr(name, '/') || snprintf(path, len, "%s/%s", t->dir, name) >= (int)len) {
		errno = EINVAL;
		return NULL;
	}
	fd = openat(t->dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

void ts_gnuplot_tmp_close(struct ts_gnuplot_tmp *t)
{
	struct dirent *e;
	DIR *d;
	int fd;

	if (t->dfd < 0)
		return;
	/* Every file in it is ours: the directory was made 0700 by mkdtemp. */
	fd = dup(t->dfd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(t->dfd, e->d_name, 0);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	close(t->dfd);
	t->dfd = -1;
	rmdir(t->dir);
}

int ts_gnuplot_draw(const char *script, size_t len, const char *path, unsigned int timeout_ms,
		    struct ts_err *err)
{
	struct ts_err why;
	struct ts_out o;
	int ret;

	ret = ts_out_begin(&o, path, err);
	if (ret < 0)
		return ret;
	ret = ts_gnuplot_run(script, len, o.fd, timeout_ms, &why);
	if (ret)
		ts_err_set(err, "%s: %s", path, why.msg);
	if (close(o.fd) && !ret) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(-ret));
	}
	o.fd = -1;
	if (ret) {
		ts_out_cancel(&o);
		return ret;
	}
	return ts_out_commit(&o, err);
}
