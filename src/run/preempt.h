/* SPDX-License-Identifier: MIT */
/*
 * The kernel's preemption model, for `tasshape doctor`. A real-time wake-up
 * preempts a task running in user space at once, but one running in the
 * kernel only where the kernel lets it: with full preemption (PREEMPT,
 * PREEMPT_LAZY, PREEMPT_RT) almost anywhere, with PREEMPT_NONE or
 * PREEMPT_VOLUNTARY only when that task sleeps, returns to user space or
 * reaches a voluntary preemption point. On such a kernel other processes'
 * system calls, page faults and process starts on the shaper's CPU delay
 * its releases (docs/datapath.md, "What real time cannot fix"). A
 * PREEMPT_DYNAMIC kernel picks its model at boot (`preempt=none|voluntary|
 * full|lazy`, its configuration's default otherwise) and shows the one in
 * force in debugfs (/sys/kernel/debug/sched/preempt, "none voluntary
 * (full) lazy").
 *
 * The parser is pure (tests/unit/test_preempt.c gives it made-up texts);
 * ts_preempt_host reads this host's.
 */
#ifndef TS_RUN_PREEMPT_H
#define TS_RUN_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>

enum ts_preempt {
	TS_PREEMPT_UNKNOWN = 0,
	TS_PREEMPT_NONE,
	TS_PREEMPT_VOLUNTARY,
	TS_PREEMPT_FULL,
	TS_PREEMPT_LAZY,
	TS_PREEMPT_RT,
};

/* What the model is read from; any may be NULL (not readable). */
struct ts_preempt_src {
	const char *version; /* uname -v: "#1 SMP PREEMPT_DYNAMIC ..." */
	const char *cmdline; /* /proc/cmdline */
	const char *debugfs; /* /sys/kernel/debug/sched/preempt */
	const char *config;  /* the kernel's configuration, or just its CONFIG_PREEMPT* lines */
};

/*
 * ts_preempt_parse - the model in force, and in *@from (when not NULL) what
 * told it: PREEMPT_RT in the version; else debugfs's parenthesised word;
 * else, on a PREEMPT_DYNAMIC kernel, preempt= on the command line (before
 * a "--", after which the words are init's); else the configuration's
 * CONFIG_PREEMPT_{NONE,VOLUNTARY,LAZY}=y or CONFIG_PREEMPT=y (a dynamic
 * kernel's default); else PREEMPT in the version (full); else unknown
 * ("nothing recognised").
 */
enum ts_preempt ts_preempt_parse(const struct ts_preempt_src *s, const char **from);

/* Does @version name a PREEMPT_DYNAMIC kernel (one whose model a boot parameter sets)? */
bool ts_preempt_is_dynamic(const char *version);

/* "none", "voluntary", "full", "lazy", "rt" or "unknown". */
const char *ts_preempt_name(enum ts_preempt m);

/* Does a real-time wake-up preempt other tasks' kernel work (full, lazy, rt)? */
bool ts_preempt_is_full(enum ts_preempt m);

/*
 * ts_preempt_host - this host's model: reads uname(2), /proc/cmdline,
 * debugfs and /proc/config.gz or /boot/config-RELEASE (bounded reads; a
 * file that cannot be read, or is far too long for a configuration, counts
 * as absent).
 * *@from as for ts_preempt_parse (static text); *@dynamic (when not NULL):
 * a PREEMPT_DYNAMIC kernel.
 */
enum ts_preempt ts_preempt_host(const char **from, bool *dynamic);

#endif
