/* SPDX-License-Identifier: MIT */
/*
 * iptables/ip6tables rules, installed by running the tools with an argv
 * (never a shell), optionally inside a network namespace. Every rule
 * carries `-m comment --comment "tas:<pid>"` so a later `tasshape cleanup`
 * recognises rules whose owner died. A struct ts_ipt remembers what it
 * added and removes it in reverse order.
 *
 * iptables is used rather than nftables because the NFQUEUE verdict
 * target is reachable here only through the xt compat layer.
 */
#ifndef TS_NET_IPT_H
#define TS_NET_IPT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "net/prog.h"
#include "tasshape/err.h"

#define TS_IPT_TAG_PREFIX "tas:"
#define TS_IPT_MAX_ARGS	  32 /* per rule spec, not counting table/chain/comment */

/* Which interface match an NFQUEUE rule uses. */
enum ts_ipt_dir {
	TS_IPT_IN,  /* -i IFACE: packets received on IFACE (PREROUTING, INPUT, FORWARD) */
	TS_IPT_OUT, /* -o IFACE: packets sent out of IFACE (OUTPUT, FORWARD, POSTROUTING) */
};

/* ts_ipt_add_nfqueue flags */
#define TS_IPT_BYPASS 1u /* --queue-bypass: accept instead of drop while nobody listens */

struct ts_ipt_rule; /* private to ipt.c */

struct ts_ipt {
	struct ts_ipt_rule *rules; /* in installation order */
	size_t n, cap;
	char tag[24]; /* "tas:<pid>" */
};

/*
 * ts_ipt_init - start an empty rule set whose rules are tagged with
 * @owner's pid. No allocation; pair with ts_ipt_clear.
 */
void ts_ipt_init(struct ts_ipt *s, pid_t owner);

/*
 * ts_ipt_check - check that the tool for @family (AF_INET: iptables,
 * AF_INET6: ip6tables) is installed. Returns 0, or -ENOENT with @err
 * saying how to install it.
 */
int ts_ipt_check(int family, struct ts_err *err);

/* The programs this file runs, NULL-terminated: what a guest that holds tasshape must hold too. */
extern const char *const ts_ipt_progs[];

/*
 * ts_ipt_exec - run `iptables -w ARGS...` (ip6tables for AF_INET6) in
 * namespace @netns_fd (-1: the caller's). @args is NULL-terminated and
 * excludes the program name. Returns 0 on exit status 0; otherwise a
 * negative errno (-ENOENT: tool missing, -EIO: it failed) with @err
 * holding the command and the tool's own error text.
 */
int ts_ipt_exec(int netns_fd, int family, const char *const *args, struct ts_err *err);

/*
 * ts_ipt_add - append a rule `-t @table -A @chain -m comment --comment
 * TAG @spec...` in namespace @netns_fd (-1: the caller's) and remember it.
 * @spec is NULL-terminated, at most TS_IPT_MAX_ARGS entries, e.g.
 * {"-o", "veth0", "-j", "NFQUEUE", "--queue-num", "3", NULL}.
 * The set keeps its own duplicate of @netns_fd (closed by ts_ipt_clear),
 * which keeps that namespace alive until then: clear before expecting a
 * namespace to vanish. Returns 0, or a negative errno with @err set
 * (nothing is remembered then).
 */
int ts_ipt_add(struct ts_ipt *s, int netns_fd, int family, const char *table, const char *chain,
	       const char *const *spec, struct ts_err *err);

/*
 * ts_ipt_add_nfqueue - ts_ipt_add of `-i|-o @ifname -j NFQUEUE
 * --queue-num @qnum [--queue-bypass]` in @table/@chain.
 * Returns as ts_ipt_add.
 */
int ts_ipt_add_nfqueue(struct ts_ipt *s, int netns_fd, int family, const char *table,
		       const char *chain, enum ts_ipt_dir dir, const char *ifname,
		       unsigned int qnum, unsigned int flags, struct ts_err *err);

/*
 * ts_ipt_clear - delete every remembered rule, newest first (-D with the
 * same spec), close the namespace fds and free the memory. Keeps going
 * after a failure. Returns 0, or the first negative errno with @err set.
 * @s is empty afterwards and may be reused or dropped.
 */
int ts_ipt_clear(struct ts_ipt *s, struct ts_err *err);

/*
 * ts_ipt_save - run iptables-save (ip6tables-save for AF_INET6) in
 * @netns_fd (-1: the caller's), with packet counters (`-c`) when
 * @counters, appending its output to @out (caller frees with ts_buf_free).
 * Returns 0 or a negative errno with @err set.
 */
int ts_ipt_save(int netns_fd, int family, bool counters, struct ts_buf *out, struct ts_err *err);

/*
 * ts_ipt_split - split one iptables-save rule line into words in place,
 * as iptables-save quotes them: words separated by blanks, a word in
 * double quotes may contain blanks and \" or \\ escapes. Writes up to
 * @max pointers into @argv followed by NULL (so @argv holds @max + 1).
 * Returns the number of words, -E2BIG when more than @max, -EINVAL on an
 * unterminated quote.
 */
int ts_ipt_split(char *line, char **argv, size_t max);

/*
 * ts_ipt_tag_pid - if @comment is a tag "tas:<pid>" (decimal, > 0, no
 * trailing characters), store the pid in *@pid and return 0; otherwise
 * return -EINVAL.
 */
int ts_ipt_tag_pid(const char *comment, pid_t *pid);

#endif
