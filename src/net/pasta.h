/* SPDX-License-Identifier: MIT */
/*
 * The way out of a rootless run's private outer namespace (--outside
 * pasta, docs/rootless.md): pasta(1) attached to the run's user and
 * network namespaces puts a tap interface there with the host's addresses
 * and routes, and carries its traffic through the host's sockets. pasta
 * translates frames to sockets without a TCP stack of its own (it reflects
 * each peer's window and acknowledgements to the other), so the far side
 * sees the emulated link's TCP, not a user-space stack's.
 *
 * pasta forks to the background once the interface is up and stays until
 * it is stopped: it does not notice that the process it attached to has
 * gone. So a keeper process waits for the run to end (end-of-file on a
 * pipe whose only write end is the run's, closed however the run ends)
 * and then stops pasta through a pidfd (no pid reuse can misdirect it).
 */
#ifndef TS_NET_PASTA_H
#define TS_NET_PASTA_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tasshape/err.h"

/*
 * ts_pasta_start - from outside the run's namespaces (the run's helper
 * process, net/userns.c): run @prog (pasta's path) on the namespaces of
 * process @target and wait until its interface is up (its launcher's exit),
 * then fork the keeper, which holds @life (the read end of the run's life
 * pipe) and SIGTERMs pasta at its end-of-file. pasta forwards no port in
 * either direction and keeps mapping the host's gateway address to the
 * host itself (its default), so the host's own servers stay reachable.
 * Returns 0, or a negative errno with @err set (pasta's own message went
 * to stderr).
 */
int ts_pasta_start(const char *prog, pid_t target, int life, struct ts_err *err);

/*
 * The address pasta maps to the host's first name server (--dns-forward):
 * link-local, so it is no one's LAN and routes out through pasta's tap.
 */
#define TS_PASTA_DNS "169.254.1.1"

/*
 * ts_pasta_resolv - the resolv.conf text @text (@len bytes) for a CMD
 * behind pasta: each "nameserver" line naming a loopback address
 * (127.0.0.0/8, ::1: a resolver on the host's loopback, which is not
 * CMD's) is replaced, once, by "nameserver @dns"; every other line is kept.
 * Writes into @out (@size bytes, NUL-terminated). Returns the length
 * written, 0 when nothing named a loopback server (use the host's file as
 * it is), or -ENOSPC. Pure.
 */
int ts_pasta_resolv(const char *text, size_t len, const char *dns, char *out, size_t size);

/*
 * ts_pasta_resolv_mount - in the run's own mount namespace, after pasta
 * attached: when /etc/resolv.conf names a loopback server, bind-mount the
 * text ts_pasta_resolv makes of it over /etc/resolv.conf (the file it
 * leads to), so CMD's lookups go to TS_PASTA_DNS. The file is written in a
 * private directory that is removed once mounted. Returns 1 when mounted,
 * 0 when the host's file serves as it is, or a negative errno with @err.
 */
int ts_pasta_resolv_mount(struct ts_err *err);

#endif
