/* SPDX-License-Identifier: MIT */
/*
 * fork/exec with captured output. stdout goes through a pipe that the
 * parent drains while the child runs; stderr goes to a memfd read after
 * the child exits, so a child writing a lot to both never blocks on a
 * full pipe. A CLOEXEC status pipe carries the child's errno when setns
 * or exec fails, so "could not start" is told apart from "exited 127".
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/prog.h"

void ts_buf_free(struct ts_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

static int buf_reserve(struct ts_buf *b, size_t extra)
{
	size_t want = b->len + extra + 1, cap = b->cap ? b->cap : 4096;
	char *p;

	if (want < b->len)
		return -ENOMEM;
	if (want <= b->cap)
		return 0;
	while (cap < want) {
		if (cap > ((size_t)-1) / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

static int is_exec(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int try_dir(const char *dir, size_t dlen, const char *name, char *path, size_t len)
{
	int n;

	if (dlen == 0)
		return -ENOENT; /* an empty PATH element means ".": not for root tools */
	n = snprintf(path, len, "%.*s/%s", (int)dlen, dir, name);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return is_exec(path) ? 0 : -ENOENT;
}

int ts_prog_find(const char *name, char *path, size_t len)
{
	static const char *const fallback[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin"};
	const char *env = getenv("PATH"), *p, *end;
	size_t i;
	int ret = -ENOENT, r;

	if (strchr(name, '/'))
		return -ENOENT;
	for (p = env; p && *p; p = end + (*end ? 1 : 0)) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		r = try_dir(p, (size_t)(end - p), name, path, len);
		if (r == 0)
			return 0;
		if (r == -ENAMETOOLONG)
			ret = r;
	}
	for (i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++) {
		r = try_dir(fallback[i], strlen(fallback[i]), name, path, len);
		if (r == 0)
			return 0;
		if (r == -ENAMETOOLONG)
			ret = r;
	}
	return ret;
}

/* Runs in the forked child: only async-signal-safe calls until exec. */
static void __attribute__((noreturn))
child_exec(int netns_fd, int outfd, int errfd, int statfd, const char *path, char *const argv[])
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;
	int null, e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sigaction(SIGPIPE, &dfl, NULL);
	/*
	 * Out of the terminal's process group: a Ctrl-C meant for tasshape must
	 * not kill an `iptables -D` half-way through the teardown.
	 */
	setpgid(0, 0);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		goto fail;
	if (dup2(null, 0) < 0 || dup2(outfd >= 0 ? outfd : null, 1) < 0 || dup2(errfd, 2) < 0)
		goto fail;
	if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) < 0)
		goto fail;
	execv(path, argv);
fail:
	e = errno;
	if (write(statfd, &e, sizeof(e)) < 0) {
		/* nothing more to report */
	}
	_exit(127);
}

static int drain(int fd, struct ts_buf *out)
{
	ssize_t n;
	int ret;

	for (;;) {
		ret = buf_reserve(out, 4096);
		if (ret < 0)
			return ret;
		n = read(fd, out->data + out->len, out->cap - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		out->data[out->len + (size_t)n] = '\0';
		if (n == 0)
			return 0;
		out->len += (size_t)n;
	}
}

static void read_errtxt(int fd, char *errtxt, size_t errlen)
{
	ssize_t n;
	size_t i;

	if (errlen == 0)
		return;
	n = pread(fd, errtxt, errlen - 1, 0);
	if (n < 0)
		n = 0;
	while (n > 0 && (errtxt[n - 1] == '\n' || errtxt[n - 1] == ' '))
		n--;
	errtxt[n] = '\0';
	for (i = 0; i < (size_t)n; i++)
		if (errtxt[i] == '\n')
			errtxt[i] = ';';
}

int ts_prog_run(int netns_fd, const char *path, char *const argv[], struct ts_buf *out,
		char *errtxt, size_t errlen)
{
	int outp[2] = {-1, -1}, statp[2] = {-1, -1}, efd = -1, status = 0, cerr = 0, ret;
	int drained = 0;
	ssize_t n;
	pid_t pid = -1;

	if (errlen)
		errtxt[0] = '\0';
	efd = memfd_create("ts-stderr", MFD_CLOEXEC);
	if (efd < 0) {
		ret = -errno;
		goto out;
	}
	if ((out && pipe2(outp, O_CLOEXEC) < 0) || pipe2(statp, O_CLOEXEC) < 0) {
		ret = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (pid == 0)
		child_exec(netns_fd, outp[1], efd, statp[1], path, argv);
	close(statp[1]);
	statp[1] = -1;
	if (out) {
		close(outp[1]);
		outp[1] = -1;
		/* Keep reaping the child even if the buffer cannot grow. */
		drained = drain(outp[0], out);
		close(outp[0]);
		outp[0] = -1;
	}
	do {
		n = read(statp[0], &cerr, sizeof(cerr));
	} while (n < 0 && errno == EINTR);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ret = -errno;
			goto out;
		}
	}
	if (n == (ssize_t)sizeof(cerr)) {
		ret = cerr > 0 ? -cerr : -EIO;
		goto out;
	}
	if (drained < 0) {
		ret = drained;
		goto out;
	}
	read_errtxt(efd, errtxt, errlen);
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	if (outp[0] >= 0)
		close(outp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	if (statp[0] >= 0)
		close(statp[0]);
	if (statp[1] >= 0)
		close(statp[1]);
	if (efd >= 0)
		close(efd);
	return ret;
}
