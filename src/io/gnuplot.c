/* SPDX-License-Identifier: MIT */
/* Running gnuplot (see gnuplot.h): no shell, a fixed environment, the image on a given descriptor. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/gnuplot.h"
#include "io/outfile.h"

/*
 * The gnuplot program into @buf: the first executable gnuplot in an
 * absolute directory of $PATH. A relative entry ("", ".", "bin") names a
 * directory under the current one, which may be a results directory that
 * another user wrote: a gnuplot planted there would run as root, so such
 * entries are skipped, and the program is run by this absolute name.
 */
static bool find_gnuplot(char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (path[0] == '/' && snprintf(buf, len, "%.*s/gnuplot", (int)n, path) < (int)len &&
		    access(buf, X_OK) == 0)
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

bool ts_gnuplot_available(void)
{
	char buf[4096];

	return find_gnuplot(buf, sizeof(buf));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int left_ms(long long deadline)
{
	long long d = deadline - now_ms();

	return d < 0 ? 0 : d > 60000 ? 60000 : (int)d;
}

/* The child: program @prog, stdin from @in, stdout to @out; nothing else open. Never returns. */
static void child(const char *prog, int in, int out)
{
	/*
	 * Nothing of the caller's environment: HOME would make gnuplot load
	 * ~/.gnuplot, GNUPLOT_DRIVER_DIR names programs it runs, GNUPLOT_LIB
	 * and GDFONTPATH where it reads files. $PATH only finds the program.
	 */
	static char *const env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent",
				    "LC_ALL=C.UTF-8", NULL};
	static char *const argv[] = {"gnuplot", NULL};
	int null = -1;

	if (out < 0)
		out = null = open("/dev/null", O_WRONLY);
	if (dup2(in, STDIN_FILENO) < 0 || out < 0 || dup2(out, STDOUT_FILENO) < 0)
		_exit(126);
	syscall(SYS_close_range, 3U, ~0U, 0U);
	signal(SIGPIPE, SIG_DFL);
	execve(prog, argv, env);
	_exit(127);
}

/* Write @len bytes of @p to non-blocking @fd before @deadline; -EPIPE when gnuplot quit. */
static int feed(int fd, const char *p, size_t len, long long deadline)
{
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (!left_ms(deadline))
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left_ms(deadline)) < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

/* Wait for @pid until @deadline; kill it then. Its wait status into @status. */
static int reap(pid_t pid, long long deadline, int *status)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), ret = 0;
	pid_t w;

	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (!left_ms(deadline)) {
			kill(pid, SIGKILL);
			ret = -ETIMEDOUT;
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		if (pfd >= 0) {
			struct pollfd p = {.fd = pfd, .events = POLLIN};

			poll(&p, 1, left_ms(deadline));
		} else {
			/* No pidfd (a kernel before 5.3): look again in 10 ms. */
			poll(NULL, 0, 10);
		}
	}
	if (pfd >= 0)
		close(pfd);
	if (!ret && w < 0)
		ret = -errno;
	return ret;
}

int ts_gnuplot_run(const char *script, size_t len, int out_fd, unsigned int timeout_ms,
		   struct ts_err *err)
{
	long long deadline = now_ms() + timeout_ms;
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	int fd[2], status = 0, ret, wret;
	char prog[4096];
	pid_t pid;

	if (!find_gnuplot(prog, sizeof(prog))) {
		ts_err_set(err,
			   "gnuplot is not installed in an absolute directory of $PATH (Debian: "
			   "apt-get install gnuplot-nox)");
		return -ENOENT;
	}
	if (pipe2(fd, O_CLOEXEC) < 0) {
		ret = -errno;
		ts_err_set(err, "gnuplot: pipe: %s", strerror(errno));
		return ret;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		ts_err_set(err, "gnuplot: fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return ret;
	}
	if (pid == 0)
		child(prog, fd[0], out_fd);
	close(fd[0]);
	/* gnuplot may quit before reading all: a write error, not a signal that kills us. */
	sigaction(SIGPIPE, &ign, &old);
	fcntl(fd[1], F_SETFL, O_NONBLOCK);
	ret = feed(fd[1], script, len, deadline);
	close(fd[1]);
	sigaction(SIGPIPE, &old, NULL);
	wret = reap(pid, ret == -ETIMEDOUT ? now_ms() : deadline, &status);
	if (wret == -ETIMEDOUT || ret == -ETIMEDOUT) {
		ts_err_set(err, "gnuplot: no image after %u ms: stopped", timeout_ms);
		return -ETIMEDOUT;
	}
	if (wret) {
		ts_err_set(err, "gnuplot: waitpid: %s", strerror(-wret));
		return wret;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		ts_err_set(err, "gnuplot is not installed (Debian: apt-get install gnuplot-nox)");
		return -ENOENT;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ts_err_set(err, "gnuplot failed (%s %d)",
			   WIFEXITED(status) ? "exit status" : "signal",
			   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -EIO;
	}
	if (ret)
		ts_err_set(err, "gnuplot stopped reading its script: %s", strerror(-ret));
	return ret;
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
