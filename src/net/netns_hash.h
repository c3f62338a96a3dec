/* SPDX-License-Identifier: MIT */
/*
 * A namespace with its own small TCP established hash. A sock_diag dump
 * (--sockstats, the drain's socket count, `ss`) walks the established
 * hash of its namespace, and a namespace created from the host's shares
 * the host's table (262,144 buckets per family on a 2-core machine with
 * a few GB: 2-4 ms of CPU per dump, however few sockets the namespace
 * has). Since Linux 5.19 a namespace created from one whose
 * net.ipv4.tcp_child_ehash_entries is set gets a table of that size:
 * a dump walks 8,192 buckets (docs/benchmarks.md, "Why exp run fell
 * behind"). Side effects, per such namespace (tcp_set_hashinfo):
 * tcp_max_tw_buckets 4,096 and tcp_max_syn_backlog 128, far above what
 * a run's few flows use.
 */
#ifndef TS_NET_NETNS_HASH_H
#define TS_NET_NETNS_HASH_H

#include <stdbool.h>

#include "net/netns.h"

/* Buckets of the namespace's own table (a power of two; the kernel rounds up). */
#define TS_NETNS_EHASH_ENTRIES 8192

/*
 * ts_netns_create_hashed - ts_netns_create() (@pinned) or
 * ts_netns_create_anon() (not @pinned), but the new namespace gets
 * its own TCP established hash of TS_NETNS_EHASH_ENTRIES buckets: it is
 * created from an anonymous namespace (gone when the calling thread
 * leaves it) whose children get one. Where the kernel has no such
 * setting (before 5.19) or refuses the anonymous namespace, the new
 * namespace shares its creator's table, as ts_netns_create() gives.
 * Returns what ts_netns_create() returns (-EEXIST when @name is taken);
 * -ENOTRECOVERABLE with @err set when the thread could not return to
 * its namespace (the caller must not go on).
 */
int ts_netns_create_hashed(struct ts_netns *ns, const char *name, bool pinned, struct ts_err *err);

#endif
