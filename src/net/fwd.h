/* SPDX-License-Identifier: MIT */
/*
 * net.ipv4.ip_forward of the namespace the wrapper runs in. The emulated
 * host's traffic leaves through that namespace, so a run needs forwarding
 * there; it is a namespace-wide setting that other runs from the same
 * namespace rely on while they last. So the first run that finds it off
 * records the value it found in a marker (TS_FWD_DIR/fwd-<netns inode>)
 * before turning it on, and whoever finds, at a run's end, no run of a
 * live owner left in the namespace (no outer link tas<pid>-<n>o whose pid
 * runs) puts the recorded value back and removes the marker: the run
 * itself at its end, its guard if it was killed, or the next start's and
 * `tasshape cleanup`'s sweep. One lock (TS_FWD_DIR/fwd.lock) orders a
 * start, which creates its outer link before it raises forwarding, and
 * an end, which looks for such links before it lowers it, so an end never
 * turns forwarding off under a run that has started.
 */
#ifndef TS_NET_FWD_H
#define TS_NET_FWD_H

#include "tasshape/err.h"

#define TS_FWD_DIR "/run/tasshape"

/*
 * ts_fwd_raise - turn net.ipv4.ip_forward on in the calling thread's
 * namespace, recording the value found first if it was off and no marker
 * holds one. Call after the run's outer link exists. 0 or -errno with @err.
 */
int ts_fwd_raise(struct ts_err *err);

/*
 * ts_fwd_restore - when a marker records this namespace's value and no
 * live owner's outer link is left in it, write the value back and remove
 * the marker. Returns 1 when restored, 0 when there was nothing to do or a
 * run still needs forwarding, or a negative errno.
 */
int ts_fwd_restore(void);

#endif
