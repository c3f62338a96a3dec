/* SPDX-License-Identifier: MIT */
/*
 * Running a program (see proc.h). The parent opens every file and pipe
 * itself, so an unreadable input or an output path that is a link is
 * reported with its name before anything starts; the child only moves
 * descriptors into place. Captured streams are pipes drained together by
 * one poll loop, so a program writing a lot to both never blocks on a full
 * pipe; input bytes go through a memfd, so feeding them cannot block
 * either.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/clock.h"
#include "io/proc.h"
#include "io/which.h"

extern char **environ;

/* What the forked child reports through its close-on-exec status pipe. */
struct child_fail {
	int stage; /* index into stage_name */
	int err;   /* positive errno */
};

static const char *const stage_name[] = {"setns",  "redirect", "chdir",
					 "set-up", "exec",     "sched_setscheduler"};
static const char *const stream_name[] = {"stdin", "stdout", "stderr"};

void ts_buf_free(struct ts_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void ts_proc_init(struct ts_proc *p, char *const argv[])
{
	memset(p, 0, sizeof(*p));
	p->argv = argv;
	p->netns_fd = -1;
	p->in.pipe = p->out.pipe = p->err.pipe = -1;
}

int ts_proc_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

static long long now_ms(void)
{
	return ts_clock_now() / TS_NSEC_PER_MSEC;
}

static const char *prog_name(const struct ts_proc *p)
{
	return p->file ? p->file : p->argv[0];
}

/* The memfd holding @s's bytes, read from its start. A descriptor or -errno. */
static int data_fd(const struct ts_proc_stream *s)
{
	size_t done = 0;
	ssize_t n;
	int fd = memfd_create("ts-stdin", MFD_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	while (done < s->len) {
		n = write(fd, s->data + done, s->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			close(fd);
			return ret;
		}
		done += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * The descriptor the child gets as stream @which (0, 1, 2) into *@src
 * (-1: leave the inherited one; 1 for TS_PROC_TO_OUT), opened here;
 * *@own is what the parent closes once the child has it. 0 or -errno with @err.
 */
static int open_stream(struct ts_proc_stream *s, int which, int *src, int *own, struct ts_err *err)
{
	int fds[2], ret;

	*src = *own = -1;
	switch (s->how) {
	case TS_PROC_NULL:
		*src = *own = open("/dev/null", (which ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
		break;
	case TS_PROC_INHERIT:
		return 0;
	case TS_PROC_FD:
		*src = s->fd;
		if (*src >= 0)
			return 0;
		errno = EBADF;
		break;
	case TS_PROC_FILE:
		if (!s->path) {
			errno = EINVAL;
			break;
		}
		*src = *own = open(s->path, s->flags | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (*src < 0) {
			ret = -errno;
			ts_err_set(err, "%s: %s", s->path, strerror(errno));
			return ret;
		}
		return 0;
	case TS_PROC_CAPTURE:
		if (which == 0) {
			errno = EINVAL;
			break;
		}
		if (pipe2(fds, O_CLOEXEC) < 0)
			break;
		s->pipe = fds[0];
		s->truncated = false;
		fcntl(s->pipe, F_SETFL, O_NONBLOCK);
		*src = *own = fds[1];
		return 0;
	case TS_PROC_DATA:
		if (which != 0) {
			errno = EINVAL;
			break;
		}
		*src = *own = data_fd(s);
		if (*src < 0) {
			errno = -*src;
			*src = *own = -1;
		}
		break;
	case TS_PROC_TO_OUT:
		if (which != 2) {
			errno = EINVAL;
			break;
		}
		*src = 1;
		return 0;
	}
	if (*src >= 0)
		return 0;
	ret = -errno;
	ts_err_set(err, "%s: %s", stream_name[which], strerror(errno));
	return ret;
}

static void __attribute__((noreturn)) child_fail(int fd, int stage, int e)
{
	struct child_fail f = {stage, e};

	if (write(fd, &f, sizeof(f)) < 0) {
		/* the parent then sees exit 127 without a reason */
	}
	_exit(127);
}

/* True when this thread runs SCHED_FIFO or SCHED_RR (with SCHED_RESET_ON_FORK or not). */
static bool realtime_now(void)
{
	int pol = sched_getscheduler(0);

	if (pol < 0)
		return false;
	pol &= ~SCHED_RESET_ON_FORK;
	return pol == SCHED_FIFO || pol == SCHED_RR;
}

/* The forked child: only async-signal-safe calls before @child_fn. Never returns. */
static void __attribute__((noreturn))
child_main(const struct ts_proc *p, const char *file, const int src[3], int statfd, pid_t parent)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;
	int i, e;

	if (p->pdeathsig && (prctl(PR_SET_PDEATHSIG, p->pdeathsig) < 0 || getppid() != parent))
		_exit(127); /* the caller is already gone: nothing to run for */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sigaction(SIGPIPE, &dfl, NULL);
	if (p->new_session)
		setsid();
	else if (p->new_pgroup)
		setpgid(0, 0);
	if (p->netns_fd >= 0 && setns(p->netns_fd, CLONE_NEWNET) < 0)
		child_fail(statfd, 0, errno);
	for (i = 0; i < 3; i++)
		if (src[i] >= 0 && dup2(src[i], i) < 0)
			child_fail(statfd, 1, errno);
	if (p->close_fds) {
		/* Up to the status pipe, and after it: it must stay open until exec. */
		if (statfd > 3)
			syscall(SYS_close_range, 3U, (unsigned)statfd - 1, 0U);
		syscall(SYS_close_range, (unsigned)statfd + 1, ~0U, 0U);
	}
	if (p->cwd && chdir(p->cwd) < 0)
		child_fail(statfd, 2, errno);
	if (p->normal_sched && realtime_now() &&
	    sched_setscheduler(0, SCHED_OTHER, &(struct sched_param){.sched_priority = 0}) < 0)
		child_fail(statfd, 5, errno);
	if (p->child_fn && (e = p->child_fn(p->child_arg)) < 0)
		child_fail(statfd, 3, -e);
	/* A change of user in @child_fn clears the parent-death signal: set it once more. */
	if (p->child_fn && p->pdeathsig &&
	    (prctl(PR_SET_PDEATHSIG, p->pdeathsig) < 0 || getppid() != parent))
		_exit(127);
	execve(file, p->argv, p->envp ? p->envp : environ);
	child_fail(statfd, 4, errno);
}

static int start_fork(struct ts_proc *p, const char *file, const int src[3], struct ts_err *err)
{
	struct child_fail f;
	pid_t parent = getpid(), pid;
	int st[2], ret = 0;
	ssize_t n;

	if (pipe2(st, O_CLOEXEC) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: pipe: %s", prog_name(p), strerror(errno));
		return ret;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		ts_err_set(err, "%s: fork: %s", prog_name(p), strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(st[0]);
		child_main(p, file, src, st[1], parent);
	}
	close(st[1]);
	st[1] = -1;
	do
		n = read(st[0], &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(f)) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		ret = f.err > 0 ? -f.err : -EIO;
		if (f.stage == 4 && f.err == ENOENT)
			ts_err_set(err, "%s: command not found", prog_name(p));
		else
			ts_err_set(err, "%s: %s: %s", prog_name(p), stage_name[f.stage],
				   strerror(-ret));
		goto out;
	}
	p->pid = pid;
out:
	close(st[0]);
	if (st[1] >= 0)
		close(st[1]);
	return ret;
}

static int start_spawn(struct ts_proc *p, const char *file, const int src[3], struct ts_err *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, pipe_only;
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	int i, ret;

	sigemptyset(&none);
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	for (i = 0; i < 3; i++)
		if (src[i] >= 0)
			posix_spawn_file_actions_adddup2(&fa, src[i], i);
	if (p->close_fds)
		posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (p->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, p->cwd);
	if (p->new_session)
		flags |= POSIX_SPAWN_SETSID;
	else if (p->new_pgroup)
		flags |= POSIX_SPAWN_SETPGROUP; /* group 0: its own */
	if (p->normal_sched && realtime_now()) {
		posix_spawnattr_setschedpolicy(&at, SCHED_OTHER);
		posix_spawnattr_setschedparam(&at, &(struct sched_param){.sched_priority = 0});
		flags |= POSIX_SPAWN_SETSCHEDULER;
	}
	posix_spawnattr_setflags(&at, flags);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &pipe_only);
	ret = posix_spawn(&p->pid, file, &fa, &at, p->argv, p->envp ? p->envp : environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		p->pid = 0;
		if (ret == ENOENT)
			ts_err_set(err, "%s: command not found", prog_name(p));
		else
			ts_err_set(err, "%s: %s", prog_name(p), strerror(ret));
		return -ret;
	}
	return 0;
}

static void close_pipe(struct ts_proc_stream *s)
{
	if (s->pipe >= 0)
		close(s->pipe);
	s->pipe = -1;
}

int ts_proc_start(struct ts_proc *p, struct ts_err *err)
{
	struct ts_proc_stream *s[3] = {&p->in, &p->out, &p->err};
	int src[3] = {-1, -1, -1}, own[3] = {-1, -1, -1}, i, ret = 0;
	const char *file = p->file;
	struct ts_which w;
	struct ts_err why;

	p->pid = 0;
	if (!p->argv || !p->argv[0]) {
		ts_err_set(err, "no program to run");
		return -EINVAL;
	}
	snprintf(p->name, sizeof(p->name), "%s", prog_name(p));
	/*
	 * Looked up here, not by execvp in the child: execvp would search the
	 * current directory for an empty or relative $PATH entry.
	 */
	if (!file) {
		ret = ts_which(p->argv[0], &w);
		if (ret < 0) {
			ts_which_error(p->argv[0], &w, err);
			return ret;
		}
		file = w.path;
	}
	for (i = 0; i < 3 && !ret; i++)
		ret = open_stream(s[i], i, &src[i], &own[i], &why);
	if (ret < 0) {
		ts_err_set(err, "%s: %s", prog_name(p), why.msg);
		goto out;
	}
	if (p->netns_fd >= 0 || p->child_fn || p->pdeathsig)
		ret = start_fork(p, file, src, err);
	else
		ret = start_spawn(p, file, src, err);
out:
	for (i = 0; i < 3; i++) {
		if (own[i] >= 0)
			close(own[i]);
		if (ret < 0)
			close_pipe(s[i]);
	}
	return ret;
}

/* Room for @extra more bytes and the NUL in @b. 0 or -ENOMEM. */
static int buf_reserve(struct ts_buf *b, size_t extra)
{
	size_t want = b->len + extra + 1, cap = b->cap ? b->cap : 4096;
	char *d;

	if (want <= b->cap)
		return 0;
	while (cap < want)
		cap *= 2;
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

/*
 * Read what @s's pipe holds now: kept up to the bound, the rest dropped.
 * 1 at the end of the stream (pipe closed), 0 when it would block, or -errno.
 */
static int drain(struct ts_proc_stream *s)
{
	char scratch[16384];
	size_t room;
	ssize_t n;
	int ret;

	for (;;) {
		room = s->max > s->buf.len ? s->max - s->buf.len : 0;
		if (room > sizeof(scratch))
			room = sizeof(scratch);
		ret = buf_reserve(&s->buf, room);
		if (ret < 0)
			return ret;
		n = read(s->pipe, room ? s->buf.data + s->buf.len : scratch,
			 room ? room : sizeof(scratch));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0) {
			close_pipe(s);
			return 1;
		}
		if (room)
			s->buf.len += (size_t)n;
		else
			s->truncated = true;
		s->buf.data[s->buf.len] = '\0';
	}
}

static void kill_it(const struct ts_proc *p, int sig)
{
	kill(p->new_pgroup || p->new_session ? -p->pid : p->pid, sig);
}

static int reap(struct ts_proc *p, int flags)
{
	int st;
	pid_t w;

	do
		w = waitpid(p->pid, &st, flags);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -errno;
	if (w == 0)
		return -EAGAIN;
	p->pid = 0;
	return ts_proc_status(st);
}

int ts_proc_try_wait(struct ts_proc *p)
{
	return p->pid > 0 ? reap(p, WNOHANG) : -ECHILD;
}

/* Wait for the end of the program and of its captured streams, until @deadline (< 0: none). */
static int wait_until(struct ts_proc *p, long long deadline, struct ts_err *err)
{
	struct ts_proc_stream *s[2] = {&p->out, &p->err};
	int pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0), status = -EAGAIN, ret, i, n, ms;
	struct pollfd pf[3];

	for (;;) {
		if (status == -EAGAIN) {
			status = reap(p, WNOHANG);
			if (status < 0 && status != -EAGAIN)
				break;
		}
		for (i = 0; i < 2; i++) {
			if (s[i]->pipe < 0)
				continue;
			ret = drain(s[i]);
			if (ret < 0) {
				ts_err_set(err, "%s: reading its %s: %s", p->name,
					   stream_name[i + 1], strerror(-ret));
				status = ret;
				goto out;
			}
			/*
			 * Once it has ended, what it wrote is in the pipe: a
			 * descendant still holding the pipe open is not waited for.
			 */
			if (status >= 0)
				close_pipe(s[i]);
		}
		if (status >= 0)
			break;
		n = 0;
		for (i = 0; i < 2; i++)
			if (s[i]->pipe >= 0)
				pf[n++] = (struct pollfd){.fd = s[i]->pipe, .events = POLLIN};
		if (pidfd >= 0)
			pf[n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
		ms = deadline < 0 ? -1 : (int)(deadline - now_ms() < 0 ? 0 : deadline - now_ms());
		if (deadline >= 0 && ms == 0) {
			kill_it(p, SIGKILL);
			reap(p, 0);
			ts_err_set(err, "%s: still running after its time limit: killed", p->name);
			status = -ETIMEDOUT;
			break;
		}
		/* Without a pidfd (a kernel before 5.3) its end is seen by looking every 10 ms. */
		if (pidfd < 0 && (ms < 0 || ms > 10))
			ms = 10;
		if (poll(pf, (nfds_t)n, ms) < 0 && errno != EINTR) {
			status = -errno;
			ts_err_set(err, "%s: poll: %s", p->name, strerror(errno));
			break;
		}
	}
	if (status < 0 && status != -ETIMEDOUT && p->pid > 0) {
		kill_it(p, SIGKILL);
		reap(p, 0);
	}
out:
	if (status < 0 && err && status != -ETIMEDOUT && !err->msg[0])
		ts_err_set(err, "%s: waitpid: %s", p->name, strerror(-status));
	if (pidfd >= 0)
		close(pidfd);
	return status;
}

int ts_proc_wait(struct ts_proc *p, int timeout_ms, struct ts_err *err)
{
	int ret;

	if (p->pid <= 0) {
		ts_err_set(err, "%s: not running", p->name);
		return -ECHILD;
	}
	if (err)
		err->msg[0] = '\0';
	ret = wait_until(p, timeout_ms < 0 ? -1 : now_ms() + timeout_ms, err);
	close_pipe(&p->out);
	close_pipe(&p->err);
	if (ret >= 0) {
		if (p->out.how == TS_PROC_CAPTURE && buf_reserve(&p->out.buf, 0) == 0)
			p->out.buf.data[p->out.buf.len] = '\0';
		if (p->err.how == TS_PROC_CAPTURE && buf_reserve(&p->err.buf, 0) == 0)
			p->err.buf.data[p->err.buf.len] = '\0';
	}
	return ret;
}

int ts_proc_run(struct ts_proc *p, int timeout_ms, struct ts_err *err)
{
	int ret = ts_proc_start(p, err);

	return ret < 0 ? ret : ts_proc_wait(p, timeout_ms, err);
}

int ts_proc_stop(struct ts_proc *p, int grace_ms)
{
	int ret;

	if (p->pid <= 0)
		return 0;
	kill_it(p, SIGTERM);
	ret = ts_proc_wait(p, grace_ms, NULL);
	if (ret == -ETIMEDOUT)
		ret = 128 + SIGKILL;
	return ret;
}

void ts_proc_release(struct ts_proc *p)
{
	close_pipe(&p->in);
	close_pipe(&p->out);
	close_pipe(&p->err);
	ts_buf_free(&p->out.buf);
	ts_buf_free(&p->err.buf);
}
