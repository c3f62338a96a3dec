/* SPDX-License-Identifier: MIT */
/*
 * The link options' grammar, in one place: the keys (named as mahimahi,
 * netem and tc users know them), whether each takes a value, its help,
 * and ts_linkcfg_set, which checks one key's value and stores it. The
 * wrapper's argp options (cli/link_args.c) and an experiment spec's
 * [link NAME] keys (plan/expspec.c) are both read through it, so a value
 * is accepted or refused with the same message wherever it is written.
 */
#ifndef TS_LINK_GRAMMAR_H
#define TS_LINK_GRAMMAR_H

#include "link/linkcfg.h"
#include "tasshape/qdisc.h"

/*
 * X(ID, NAME, SHORT, ARG, HELP): the long name (the spec key), the short
 * option letter (0: none), the value's name in help (NULL: a flag) and the
 * help. One list: the argp options, the spec reader's list of keys and
 * ts_linkcfg_set are made from it. The --queue and --loss help ends in a
 * colon: the front end appends the queue disciplines' and loss models' own
 * help from their tables.
 */
#define TS_LINK_KEYS(X)                                                                            \
	X(TRACE, "trace", 't', "FILE",                                                             \
	  "Capacity trace for both directions: a CSV with down_*/up_* columns, a mahimahi file "   \
	  "(used for both directions), a bundled trace by name (e.g. starlink; 'tasshape trace "   \
	  "list' shows them), or const:RATE (e.g. const:50mbit)")                                  \
	X(UP_TRACE, "uplink-trace", 0, "FILE", "Capacity trace of the uplink only")                \
	X(DOWN_TRACE, "downlink-trace", 0, "FILE", "Capacity trace of the downlink only")          \
	X(DELAY, "delay", 'd', "TIME",                                                             \
	  "One-way propagation delay per direction (e.g. 20ms), added to the trace's delay "       \
	  "column")                                                                                \
	X(LOSS, "loss", 'l', "SPEC", "Random loss, both directions: P (e.g. 1%),")                 \
	X(UP_LOSS, "uplink-loss", 0, "SPEC", "Random loss of the uplink only")                     \
	X(DOWN_LOSS, "downlink-loss", 0, "SPEC", "Random loss of the downlink only")               \
	X(QUEUE, "queue", 'q', "SPEC", "Queue of both directions (default " TS_QDISC_DEFAULT "):") \
	X(UP_QUEUE, "uplink-queue", 0, "SPEC", "Queue of the uplink only")                         \
	X(DOWN_QUEUE, "downlink-queue", 0, "SPEC", "Queue of the downlink only")                   \
	X(UP_AT, "uplink-at", 0, "PLACE",                                                          \
	  "Where the uplink's queue is held: network (default: after the veth, charged to no "     \
	  "socket) or sender (at the sending host's egress, charged to the socket, so TCP Small "  \
	  "Queues sees it)")                                                                       \
	X(ONCE, "once", 0, NULL, "Play the trace once and end the run at its end (default: loop)") \
	X(GSO, "gso", 0, NULL,                                                                     \
	  "Speed mode: let the kernel queue GSO super-packets whole, so one verdict releases all " \
	  "its segments (drops and releases are per super-packet; a Wi-Fi MAC still aggregates "   \
	  "them segment by segment, docs/wifi6-model.md)")                                         \
	X(SEED, "seed", 0, "N", "Seed of every random choice (default 1)")                         \
	X(MAC, "mac", 0, "SPEC",                                                                   \
	  "A Wi-Fi 6 hop in front of the wired link, one medium for both directions: "             \
	  "wifi6[:KEY=VALUE,...] with phy=RATE (default 1201mbit: 80 MHz, 2 SS, MCS 11) or "       \
	  "bw/mcs/ss/gi, phy_trace=FILE (time_s,phy_mbps), mpdus=256, ampdu_bytes, "               \
	  "ppdu_max=5484us, aifsn=3, cwmin=15, cwmax=1023, ba=256, retry=7, collision=P, "         \
	  "mpdu_err=P, stations=N, backoff=SLOTS, pacing_shift=7|8|kernel|tas:STARTUP/STEADY "     \
	  "(the station's TSQ budget, default 7 as mac80211). The uplink is the station's queue "  \
	  "(held at its egress, so TCP Small Queues limits what it aggregates) then the "          \
	  "--uplink-* hop; the downlink is the --downlink-* hop then the access point's queue. "   \
	  "Example: --mac wifi6:phy=1201mbit --uplink-trace const:25mbit (docs/wifi6-model.md)")   \
	X(MAC_QUEUE, "mac-queue", 0, "SPEC",                                                       \
	  "Driver queue of the Wi-Fi station and access point (default " TS_QDISC_DEFAULT          \
	  ", like a txqueuelen of 1000); same syntax as --queue")                                  \
	X(RT_PRIO, "rt-priority", 0, "N|off",                                                      \
	  "Run the shaper's loop under SCHED_FIFO priority N (1-49, default 10), memory locked; "  \
	  "everything it starts keeps normal scheduling. off: normal scheduling. Where the "       \
	  "kernel refuses, the run goes on without and the summary says why (sim has no shaper "   \
	  "loop and ignores it)")                                                                  \
	X(SHAPER_CPU, "shaper-cpu", 0, "N|auto|off",                                               \
	  "The CPU the real-time shaper's loop is pinned to while the link's veths deliver its "   \
	  "packets on the others (RPS): auto (default: the highest CPU tasshape may use, when it " \
	  "may use two or more), a CPU number, or off (any CPU, deliveries in the loop). Give "    \
	  "runs side by side different CPUs. Only with real-time scheduling; attach never pins")

#define TS_LINKKEY_ENUM(id, name, letter, arg, help) TS_LINKKEY_##id,
enum ts_linkkey_id { TS_LINK_KEYS(TS_LINKKEY_ENUM) TS_LINKKEY_COUNT };
#undef TS_LINKKEY_ENUM

struct ts_linkkey {
	const char *name; /* the long option without "--", and the spec key */
	int letter;	  /* the short option, 0: none */
	const char *arg;  /* the value's name in help ("FILE", "TIME", ...), NULL: a flag */
	const char *help;
};

/* The keys, in the order of TS_LINK_KEYS (the order of the help). */
extern const struct ts_linkkey ts_link_keys[TS_LINKKEY_COUNT];

/* The key called @name (without "--"), or NULL. */
const struct ts_linkkey *ts_linkkey_find(const char *name);

/*
 * ts_linkcfg_set - check @value for the link option @key (its long name,
 * without "--") and store it in @cfg; @value is NULL for a flag (--once)
 * and must not be NULL for any other key. Paths, queue, loss and MAC specs
 * are copied into @cfg (ts_linkcfg_free frees them), so @value need not
 * outlive the call; a bundled trace name becomes its file's path here. A
 * key given again replaces its earlier value, as on a command line.
 * Nothing is read but the bundled traces' directory listing: files are
 * opened by ts_linkcfg_load.
 * Returns 0, or -EINVAL (a bad value, an unknown key, a flag with a value,
 * a value missing) or -ENOMEM, with @err saying "--KEY: what is wrong
 * (expected ...)"; @cfg is unchanged on error.
 */
int ts_linkcfg_set(struct ts_linkcfg *cfg, const char *key, const char *value, struct ts_err *err);

#endif
