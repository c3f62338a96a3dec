/* SPDX-License-Identifier: MIT */
/*
 * The guard: a small process forked before a run creates anything, that
 * removes what the run made if tasshape dies without doing so itself
 * (SIGKILL, the OOM killer, a crash). It holds the read end of a pipe
 * whose only write end is tasshape's; the kernel closes that end however
 * tasshape dies, so the guard's read returns end-of-file, and it does
 * what `tasshape cleanup --pid PID --force` does for tasshape's pid:
 * SIGKILL every process in the run's namespaces (CMD and all it started),
 * then remove the run's iptables rules (comment "tas:PID", in the
 * namespace tasshape ran in and in the namespaces given with
 * ts_guard_watch), its outer links and its namespaces, and put the
 * namespace's ip_forward back if no other run needs it (net/fwd.h). A normal end
 * writes one byte first: the guard then exits without touching anything.
 *
 * The guard is in a process group of its own, so that a signal to the
 * run's whole group (Ctrl-C, or a SIGKILL a supervisor sends the group)
 * does not reach it; it ignores the terminal's signals anyway. It is
 * exempt from the OOM killer (oom_score_adj -1000: it is a few hundred
 * kilobytes) and holds no fd of the run's own namespaces (it was forked
 * before any was made), so it keeps nothing of the run alive; it holds
 * those given with ts_guard_start, which the run holds too.
 */
#ifndef TS_RUN_GUARD_H
#define TS_RUN_GUARD_H

#include <sys/types.h>

#include "tasshape/err.h"

#define TS_GUARD_NETNS_MAX 2

struct ts_guard {
	pid_t pid; /* the guard, 0: none */
	int fd;	   /* write end of the pipe, -1: none */
};

void ts_guard_init(struct ts_guard *g);

/*
 * ts_guard_start - fork the guard of the calling process. @netns: names
 * under /run/netns, or "pid:PID" (net/netns.h; up to TS_GUARD_NETNS_MAX,
 * NULL-terminated, may be NULL) of namespaces the run does not own but
 * puts rules in (attach), opened by the guard at once and swept for
 * "tas:PID" rules too. Returns 0 or a negative errno with @err set.
 */
int ts_guard_start(struct ts_guard *g, const char *const *netns, struct ts_err *err);

/*
 * ts_guard_stop - the run removed everything itself: tell the guard, and
 * wait for it to exit. Idempotent.
 */
void ts_guard_stop(struct ts_guard *g);

#endif
