/* SPDX-License-Identifier: MIT */
/*
 * The one way tasshape runs a program (as git's start_command and
 * finish_command over a struct child_process): argv, environment,
 * standard streams, namespace, process group, capture and a timeout in
 * one struct, never a shell unless the caller's argv names one.
 *
 * Usage: ts_proc_init(&p, argv), set the fields that differ from the
 * defaults, then either ts_proc_run (start, feed, capture, wait) or
 * ts_proc_start and later ts_proc_wait / ts_proc_stop for a program that
 * runs beside the caller. ts_proc_release frees what the capture kept.
 *
 * The child always starts with an empty signal mask and SIGPIPE at its
 * default (tasshape blocks signals for its signalfd and ignores SIGPIPE;
 * a program must not inherit either). A program that cannot be started
 * (not found, not executable, setns refused) is an error of ts_proc_start
 * (-ENOENT, -EACCES, ...), never a silent exit status 127: a status pipe
 * (fork) or posix_spawn's own report carries the child's errno back. Only
 * a shell run by the caller turns a missing program into 127.
 * A program named without a '/' is found by io/which.h before anything
 * starts (never by execvp, which searches the current directory for an
 * empty or relative $PATH entry), and run by that absolute name.
 *
 * posix_spawn is used when nothing needs code in the child; fork and
 * execve when the program enters a network namespace, gets a parent-death
 * signal or runs the caller's @child_fn (dropping privileges).
 * The real-time thread sets SCHED_RESET_ON_FORK, so nothing started
 * after it inherits SCHED_FIFO; a policy tasshape itself inherited (chrt,
 * systemd's CPUSchedulingPolicy=fifo: how a user without RLIMIT_RTPRIO
 * gets a real-time shaper) reaches what it starts unless @normal_sched.
 */
#ifndef TS_IO_PROC_H
#define TS_IO_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tasshape/err.h"

/* A growable byte buffer, always NUL-terminated when data is not NULL. */
struct ts_buf {
	char *data;
	size_t len;
	size_t cap;
};

/* ts_buf_free - release @b's memory, reset it to empty; safe on a zeroed or freed buffer. */
void ts_buf_free(struct ts_buf *b);

/* Where a standard stream of the program goes (or comes from). */
enum ts_proc_how {
	TS_PROC_NULL = 0, /* /dev/null (the default) */
	TS_PROC_INHERIT,  /* the caller's own descriptor */
	TS_PROC_FD,	  /* @fd, a descriptor the caller keeps and closes */
	TS_PROC_FILE,	  /* @path opened by the caller's side with @flags (mode 0644) */
	TS_PROC_CAPTURE, /* out, err: into @buf, at most @max bytes kept, the rest read and dropped */
	TS_PROC_DATA,	 /* in: the bytes @data, @len */
	TS_PROC_TO_OUT, /* err: the same descriptor as stdout (2>&1) */
};

struct ts_proc_stream {
	enum ts_proc_how how;
	int fd;		   /* TS_PROC_FD */
	const char *path;  /* TS_PROC_FILE; O_NOFOLLOW and O_CLOEXEC are always added */
	int flags;	   /* TS_PROC_FILE: e.g. O_WRONLY | O_CREAT | O_TRUNC */
	const char *data;  /* TS_PROC_DATA */
	size_t len;	   /* TS_PROC_DATA */
	size_t max;	   /* TS_PROC_CAPTURE: the bound */
	struct ts_buf buf; /* TS_PROC_CAPTURE: what was kept (released by ts_proc_release) */
	bool truncated;	   /* TS_PROC_CAPTURE: the program wrote more than @max */
	int pipe;	   /* private: the parent's end, -1 */
};

struct ts_proc {
	char *const *argv; /* argv[0] included, NULL-terminated */
	char *const *envp; /* NULL: the caller's environment (as @child_fn left it) */
	const char *file;  /* the program; NULL: argv[0] as io/which.h finds it */
	const char *cwd;   /* NULL: the caller's */
	int netns_fd;	   /* -1: the caller's network namespace; else setns before exec */
	bool new_pgroup; /* its own process group: a terminal's ^C is not its; kills reach it all */
	bool new_session; /* setsid (implies its own group) */
	bool close_fds;	  /* close every descriptor above 2, close-on-exec or not */
	int pdeathsig; /* 0, or the signal it gets when the caller's thread ends (kept after @child_fn) */
	/*
	 * SCHED_OTHER when the caller runs SCHED_FIFO or SCHED_RR: for CMD and
	 * helpers that carry the traffic (pasta), which at real-time priority
	 * would compete with the loop that shapes them. Lowering needs no
	 * privilege (sched(7)). Other policies are left as they are.
	 */
	bool normal_sched;
	/* In the child, after setns and the redirections, before exec: 0 or a negative errno. */
	int (*child_fn)(void *arg);
	void *child_arg;
	struct ts_proc_stream in, out, err;
	pid_t pid;     /* after ts_proc_start; 0 once reaped */
	char name[64]; /* after ts_proc_start: the program's name for messages (argv may go) */
};

/* ts_proc_init - defaults for running @argv: /dev/null streams, this namespace. */
void ts_proc_init(struct ts_proc *p, char *const argv[]);

/*
 * ts_proc_start - start the program. @argv, @envp, @file and @cwd are
 * not used after it returns. Returns 0 (@p->pid set) or a
 * negative errno with @err naming the program: -ENOENT "command not
 * found" (with the candidates ts_which refused, and why), the errno of
 * exec, setns or @child_fn as the child saw it, or of opening a
 * TS_PROC_FILE, pipe, fork. Nothing is left running or open
 * after an error.
 */
int ts_proc_start(struct ts_proc *p, struct ts_err *err);

/*
 * ts_proc_wait - feed TS_PROC_DATA, drain the captures and wait for the
 * program at most @timeout_ms (< 0: no limit). Returns its exit status
 * (0..255, or 128 + the signal number that ended it), or -ETIMEDOUT after
 * killing it (SIGKILL to its group when it has one of its own, else to
 * it) and reaping it, or another negative errno (-ENOMEM: a capture could
 * not grow). @err says why on a negative return. A program that quits
 * before reading its whole input is not an error here: its status says.
 */
int ts_proc_wait(struct ts_proc *p, int timeout_ms, struct ts_err *err);

/*
 * ts_proc_try_wait - has a started program ended? Its exit status as
 * ts_proc_wait returns it (reaped), -EAGAIN while it runs, or a negative
 * errno from waitpid. For programs without TS_PROC_CAPTURE or TS_PROC_DATA
 * streams, whose caller does other work between looks.
 */
int ts_proc_try_wait(struct ts_proc *p);

/* ts_proc_run - ts_proc_start then ts_proc_wait. */
int ts_proc_run(struct ts_proc *p, int timeout_ms, struct ts_err *err);

/*
 * ts_proc_stop - end a started program: SIGTERM (to its group when it has
 * one), SIGKILL after @grace_ms, reaped. Its exit status as ts_proc_wait
 * returns it; 0 when it was not running.
 */
int ts_proc_stop(struct ts_proc *p, int grace_ms);

/* ts_proc_release - close what is still open and free the captures. Safe to repeat. */
void ts_proc_release(struct ts_proc *p);

/* ts_proc_status - a wait status as shells report it: the code, or 128 + signal. */
int ts_proc_status(int wstatus);

#endif
