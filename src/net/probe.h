/* SPDX-License-Identifier: MIT */
/*
 * Probes of what this host can do, for `tasshape doctor`: each one tries
 * the real thing (the kernel call, the program) rather than guessing from
 * version numbers, and leaves nothing behind.
 */
#ifndef TS_NET_PROBE_H
#define TS_NET_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"

/* Capability numbers of <linux/capability.h>, without that header's types. */
#define TS_CAP_NET_ADMIN 12
#define TS_CAP_SYS_ADMIN 21

/*
 * ts_probe_caps - the effective capability set of this process (CapEff of
 * /proc/self/status) into *@eff. Returns 0 or a negative errno.
 */
int ts_probe_caps(uint64_t *eff);

/*
 * ts_probe_read - the first line of the small file @path into @buf (no
 * trailing newline; truncated to @len). Returns its length or a negative
 * errno (-ENOENT when it does not exist).
 */
int ts_probe_read(const char *path, char *buf, size_t len);

/*
 * ts_probe_output - run @argv (argv[0] found by ts_which, io/which.h) and
 * put the first line of its stdout (or, if empty, of its stderr) into
 * @buf. Returns the exit status or a negative errno (-ENOENT: not found).
 */
int ts_probe_output(char *const argv[], char *buf, size_t len);

/* What ts_probe_link established, each step needing the one before. */
struct ts_probe_link {
	bool topo; /* namespaces, veth pairs, addresses and routes were made */
	bool nfq;  /* an NFQUEUE bound in one of them saw the probe packet ... */
	bool pass; /* ... and, accepted, it arrived on the far side */
};

/*
 * ts_probe_link - build a throw-away copy of a run's topology (the same
 * ts_topo_create a run uses), bind an NFQUEUE at the inner namespace's
 * egress, send one UDP datagram from the inner to the link namespace,
 * accept it from the queue and check it arrives. All traffic stays in the
 * two new namespaces; the rule, the veths and the namespaces are removed
 * before the return. Returns 0 when every step worked, else a negative
 * errno with @err naming the step; @out says how far it got.
 */
int ts_probe_link(struct ts_probe_link *out, struct ts_err *err);

/* What ts_probe_rootless established. */
struct ts_probe_rootless {
	bool userns;		   /* the user namespace was made and mapped */
	struct ts_probe_link link; /* then, inside it, as ts_probe_link */
	bool helpers;		   /* the map was /etc/subuid ranges through newuidmap/newgidmap */
	char note[256];		   /* why the map is a single id ("" when it is not) */
	bool pidns;		   /* a PID namespace: CMD's leftovers die with a killed run */
	char pidns_note[160];	   /* why not ("" when it is) */
};

/*
 * ts_probe_rootless - what a rootless run (net/userns.h) would get: a
 * child process enters a user namespace as a run does, then makes
 * ts_probe_link's throw-away topology there (a private outer namespace);
 * it reports back through a pipe and exits, so the caller's credentials
 * and namespaces never change, and everything made goes with the child.
 * Returns 0 when every step worked, else a negative errno with @err
 * naming the step; @out says how far it got.
 */
int ts_probe_rootless(struct ts_probe_rootless *out, struct ts_err *err);

#endif
