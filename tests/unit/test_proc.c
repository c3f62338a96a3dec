/* SPDX-License-Identifier: MIT */
/*
 * ts_proc (io/proc.c) running /bin/sh snippets, no root: exit codes, a
 * signal as 128 + its number, stdout captured up to its bound while the
 * program writes more, stderr captured apart or into stdout, a timeout
 * that kills a program (and its group) and returns early, stdin from a
 * file and from bytes, output into a file, a missing program as -ENOENT
 * from the start (127 only when a shell the caller ran reports it), and
 * both ways of starting (posix_spawn, fork with code in the child).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/proc.h"
#include "tsu.h"

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run "sh -c @snippet" with stdout (and stderr) captured, bound @max; its status. */
static int sh(struct ts_proc *p, const char *snippet, size_t max, int timeout_ms)
{
	static char *argv[4];
	struct ts_err err;

	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = (char *)snippet;
	argv[3] = NULL;
	ts_proc_init(p, argv);
	p->out.how = TS_PROC_CAPTURE;
	p->out.max = max;
	p->err.how = TS_PROC_CAPTURE;
	p->err.max = max;
	return ts_proc_run(p, timeout_ms, &err);
}

static void test_exit_codes(void)
{
	struct ts_proc p;

	TSU_EQ(sh(&p, "exit 0", 64, 10000), 0);
	ts_proc_release(&p);
	TSU_EQ(sh(&p, "exit 3", 64, 10000), 3);
	ts_proc_release(&p);
	TSU_EQ(sh(&p, "exit 255", 64, 10000), 255);
	TSU_EQ(p.pid, 0);
	ts_proc_release(&p);
}

static void test_signal(void)
{
	struct ts_proc p;

	TSU_EQ(sh(&p, "kill -TERM $$", 64, 10000), 128 + SIGTERM);
	ts_proc_release(&p);
	/* SIGPIPE is at its default in the child even when the caller ignores it. */
	signal(SIGPIPE, SIG_IGN);
	TSU_EQ(sh(&p, "kill -PIPE $$", 64, 10000), 128 + SIGPIPE);
	signal(SIGPIPE, SIG_DFL);
	ts_proc_release(&p);
}

static void test_capture(void)
{
	struct ts_proc p;

	TSU_EQ(sh(&p, "printf 'out\\n'; printf 'err' >&2; exit 4", 64, 10000), 4);
	CU_ASSERT_STRING_EQUAL(p.out.buf.data, "out\n");
	TSU_EQ(p.out.buf.len, 4);
	CU_ASSERT_STRING_EQUAL(p.err.buf.data, "err");
	CU_ASSERT_FALSE(p.out.truncated);
	ts_proc_release(&p);
	/* Nothing written: an empty string, not NULL. */
	TSU_EQ(sh(&p, "true", 64, 10000), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p.out.buf.data);
	TSU_EQ(p.out.buf.len, 0);
	ts_proc_release(&p);
}

/* 200000 bytes on stdout and 100000 on stderr, bound 1000: the program is not blocked. */
static void test_capture_bound(void)
{
	struct ts_proc p;

	TSU_EQ(sh(&p, "head -c 200000 /dev/zero | tr '\\0' a; head -c 100000 /dev/zero >&2; exit 7",
		  1000, 10000),
	       7);
	TSU_EQ(p.out.buf.len, 1000);
	TSU_EQ(strlen(p.out.buf.data), 1000);
	TSU_EQ(p.out.buf.data[999], 'a');
	CU_ASSERT_TRUE(p.out.truncated);
	TSU_EQ(p.err.buf.len, 1000);
	CU_ASSERT_TRUE(p.err.truncated);
	ts_proc_release(&p);
}

static void test_err_to_out(void)
{
	char *argv[] = {"sh", "-c", "echo a; echo b >&2", NULL};
	struct ts_err err;
	struct ts_proc p;

	ts_proc_init(&p, argv);
	p.out.how = TS_PROC_CAPTURE;
	p.out.max = 64;
	p.err.how = TS_PROC_TO_OUT;
	TSU_EQ(ts_proc_run(&p, 10000, &err), 0);
	CU_ASSERT_STRING_EQUAL(p.out.buf.data, "a\nb\n");
	ts_proc_release(&p);
}

/* sleep 30 in a group of its own, limit 300 ms: killed, and back well before 30 s. */
static void test_timeout(void)
{
	struct ts_err err;
	struct ts_proc p;
	long long t0 = mono_ms();
	char *argv[] = {"sh", "-c", "sleep 30 & sleep 30", NULL};

	ts_proc_init(&p, argv);
	p.new_pgroup = true;
	p.out.how = TS_PROC_CAPTURE;
	p.out.max = 64;
	TSU_EQ(ts_proc_run(&p, 300, &err), -ETIMEDOUT);
	CU_ASSERT_STRING_EQUAL(err.msg, "sh: still running after its time limit: killed");
	CU_ASSERT_TRUE(mono_ms() - t0 < 10000);
	TSU_EQ(p.pid, 0);
	ts_proc_release(&p);
	/* The background sleep held the pipe open: the group kill ended it too. */
}

static void test_stdin_file(void)
{
	char path[] = "/tmp/test_proc.XXXXXX";
	char *argv[] = {"sh", "-c", "read a b; echo \"$b$a\"", NULL};
	struct ts_err err;
	struct ts_proc p;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, "x y\n", 4) == 4);
	close(fd);
	ts_proc_init(&p, argv);
	p.in.how = TS_PROC_FILE;
	p.in.path = path;
	p.in.flags = O_RDONLY;
	p.out.how = TS_PROC_CAPTURE;
	p.out.max = 64;
	TSU_EQ(ts_proc_run(&p, 10000, &err), 0);
	CU_ASSERT_STRING_EQUAL(p.out.buf.data, "yx\n");
	ts_proc_release(&p);
	unlink(path);
}

/* 300000 bytes of input, more than a pipe holds, counted by wc. */
static void test_stdin_data(void)
{
	char *argv[] = {"wc", "-c", NULL}, *data = malloc(300000);
	struct ts_err err;
	struct ts_proc p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	memset(data, 'z', 300000);
	ts_proc_init(&p, argv);
	p.in.how = TS_PROC_DATA;
	p.in.data = data;
	p.in.len = 300000;
	p.out.how = TS_PROC_CAPTURE;
	p.out.max = 64;
	TSU_EQ(ts_proc_run(&p, 10000, &err), 0);
	TSU_EQ(strtol(p.out.buf.data, NULL, 10), 300000);
	ts_proc_release(&p);
	free(data);
}

static void test_stdout_file(void)
{
	char path[] = "/tmp/test_proc.XXXXXX", buf[16] = "";
	char *argv[] = {"sh", "-c", "echo hi", NULL};
	struct ts_err err;
	struct ts_proc p;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	ts_proc_init(&p, argv);
	p.out.how = TS_PROC_FILE;
	p.out.path = path;
	p.out.flags = O_WRONLY | O_TRUNC;
	TSU_EQ(ts_proc_run(&p, 10000, &err), 0);
	TSU_EQ(read(fd, buf, sizeof(buf) - 1), 3);
	CU_ASSERT_STRING_EQUAL(buf, "hi\n");
	close(fd);
	unlink(path);
	/* A descriptor that is not one is refused before anything runs. */
	ts_proc_init(&p, argv);
	p.out.how = TS_PROC_FD;
	p.out.fd = -1;
	TSU_EQ(ts_proc_run(&p, 10000, &err), -EBADF);
	CU_ASSERT_STRING_EQUAL(err.msg, "sh: stdout: Bad file descriptor");
	p.out.how = TS_PROC_FILE;
	p.out.path = path;
	p.out.flags = O_WRONLY | O_TRUNC;
	/* An output that is a symbolic link is refused before anything runs. */
	CU_ASSERT_FATAL(symlink("/tmp/nonexistent-test-proc", path) == 0);
	TSU_EQ(ts_proc_run(&p, 10000, &err), -ELOOP);
	TSU_EQ(p.pid, 0);
	unlink(path);
}

/* Decided: a missing program is -ENOENT from the start; a shell the caller runs says 127. */
static void test_missing(void)
{
	char *argv[] = {"/nonexistent/tasshape-test-prog", NULL};
	char *bare[] = {"tasshape-test-no-such-prog", NULL};
	struct ts_err err;
	struct ts_proc p;

	ts_proc_init(&p, argv);
	TSU_EQ(ts_proc_run(&p, 10000, &err), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/tasshape-test-prog: command not found");
	TSU_EQ(p.pid, 0);
	ts_proc_init(&p, bare);
	p.pdeathsig = SIGTERM; /* the fork path reports it the same way */
	TSU_EQ(ts_proc_run(&p, 10000, &err), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err.msg, "tasshape-test-no-such-prog: command not found");
	TSU_EQ(sh(&p, "exec tasshape-test-no-such-prog", 64, 10000), 127);
	ts_proc_release(&p);
}

static int set_var(void *arg)
{
	return setenv("TS_PROC_TEST", (const char *)arg, 1) < 0 ? -errno : 0;
}

static int refuse(void *arg)
{
	(void)arg;
	return -EPERM;
}

/* The fork path: code in the child before exec, its failure reported as an error. */
static void test_child_fn(void)
{
	char *argv[] = {"sh", "-c", "printf %s \"$TS_PROC_TEST\"", NULL};
	struct ts_err err;
	struct ts_proc p;

	ts_proc_init(&p, argv);
	p.child_fn = set_var;
	p.child_arg = "seven";
	p.out.how = TS_PROC_CAPTURE;
	p.out.max = 64;
	TSU_EQ(ts_proc_run(&p, 10000, &err), 0);
	CU_ASSERT_STRING_EQUAL(p.out.buf.data, "seven");
	ts_proc_release(&p);
	ts_proc_init(&p, argv);
	p.child_fn = refuse;
	TSU_EQ(ts_proc_run(&p, 10000, &err), -EPERM);
	CU_ASSERT_STRING_EQUAL(err.msg, "sh: set-up: Operation not permitted");
}

static void test_env_cwd(void)
{
	char *argv[] = {"/bin/sh", "-c", "printf '%s %s' \"$A\" \"$PWD\"", NULL};
	char *envp[] = {"A=b", NULL};
	struct ts_err err;
	struct ts_proc p;

	ts_proc_init(&p, argv);
	p.envp = envp;
	p.cwd = "/";
	p.out.how = TS_PROC_CAPTURE;
	p.out.max = 64;
	TSU_EQ(ts_proc_run(&p, 10000, &err), 0);
	CU_ASSERT_STRING_EQUAL(p.out.buf.data, "b /");
	ts_proc_release(&p);
}

/* A program beside the caller: looked at, then stopped with SIGTERM. */
static void test_stop(void)
{
	char *argv[] = {"sleep", "30", NULL};
	struct ts_err err;
	struct ts_proc p;

	ts_proc_init(&p, argv);
	TSU_EQ(ts_proc_start(&p, &err), 0);
	CU_ASSERT_TRUE(p.pid > 0);
	TSU_EQ(ts_proc_try_wait(&p), -EAGAIN);
	TSU_EQ(ts_proc_stop(&p, 5000), 128 + SIGTERM);
	TSU_EQ(p.pid, 0);
	TSU_EQ(ts_proc_stop(&p, 5000), 0);
}

static const struct tsu_test tests[] = {
	{"exit codes", test_exit_codes},
	{"signal", test_signal},
	{"capture", test_capture},
	{"capture bound", test_capture_bound},
	{"stderr into stdout", test_err_to_out},
	{"timeout", test_timeout},
	{"stdin from a file", test_stdin_file},
	{"stdin from bytes", test_stdin_data},
	{"stdout into a file", test_stdout_file},
	{"missing program", test_missing},
	{"child function", test_child_fn},
	{"environment and cwd", test_env_cwd},
	{"stop", test_stop},
};

TSU_MAIN("proc", tests)
