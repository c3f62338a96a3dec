/* SPDX-License-Identifier: MIT */
/*
 * Starting the wrapped command inside the emulated namespace.
 */
#ifndef TS_RUN_CHILD_H
#define TS_RUN_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

#include "tasshape/err.h"

struct ts_child_conf {
	int netns_fd;	   /* namespace to run in */
	char *const *argv; /* command; NULL or empty: $SHELL (or /bin/sh), interactive */
	bool as_root;	   /* keep root even when started through sudo */
	const char *base;  /* TASSHAPE_BASE / MAHIMAHI_BASE: the outside's address */
	const char *base6;
	const char *prompt; /* prefix for an interactive shell's PS1, e.g. "[tasshape] " */
	bool set_umask;	    /* give the command @umask (the user's, before tasshape tightened it) */
	/*
	 * A rootless run (net/userns.h): unless as_root, the command runs in a
	 * nested user namespace as @user_uid/@user_gid (the user's own ids,
	 * outside), not as the wrapper's root; SUDO_UID/SUDO_GID are not read.
	 * And it gets SIGKILL if tasshape dies (there is no guard).
	 */
	bool rootless;
	uid_t user_uid;
	gid_t user_gid;
	mode_t umask;
	/*
	 * With real Wi-Fi stations (wifi6 real=): which one this CMD runs in,
	 * given to it as TASSHAPE_STATION when @has_station.
	 */
	bool has_station;
	unsigned int station;
};

/*
 * ts_child_spawn - start the command through io/proc.h: enter the namespace, drop to the invoking user
 * (rootless: to the user's own ids in a nested user namespace, net/userns.h)
 * when started through sudo (SUDO_UID/SUDO_GID, unless as_root; when they
 * do not parse exactly, -EINVAL and nothing is started: never root by
 * default, see io/invoker.h), restore
 * the signal mask and exec the command. The command's environment gets
 * TASSHAPE_BASE and MAHIMAHI_BASE (kept from the environment when already
 * set, so a nested run still points at the outermost host), TASSHAPE_BASE6
 * and a PS1 prefix. Returns the child's pid, or a negative errno with @err
 * set when it could not be started (including the exec failing, so
 * "command not found" is reported here, not as a silent exit 127). The
 * caller reaps the pid.
 */
pid_t ts_child_spawn(const struct ts_child_conf *c, struct ts_err *err);

/* Exit status for a wait status: the code, or 128 + signal as shells report. */
int ts_child_exit_code(int wstatus);

#endif
