/* SPDX-License-Identifier: MIT */
/*
 * Stages: the pieces a link direction is built from (loss, a server with
 * its queue, a delay line, the Wi-Fi MAC). All have one small interface,
 * so a direction is just a chain of them, and each lives in its own file
 * exporting a const struct ts_stage_ops (s_loss.c, s_rate.c, s_delay.c,
 * s_wifi6.c). Users do not pick stages by name: a direction's chain has a
 * fixed order (loss, server with its queue, delay line; the MAC first or
 * last), wired in link.c, so there is no stage name table. What users do
 * pick by name has its table: queues (qdisc.c), loss models (below).
 *
 * Time and ordering. A stage is driven with non-decreasing times. enqueue
 * at time t first advances the stage to t, so events are processed in
 * time order even when an upstream stage hands a packet over with a time
 * earlier than the runtime's "now". A stage passes a packet on with
 * ts_stage_emit(st, p, t) where t is the model time it left; the next
 * stage (or the pipe's release callback) receives exactly that time.
 *
 * The wifi6 stage is the one exception: its medium is shared with the
 * other direction's wifi6 stage, so its enqueue only records the packet,
 * and its advance first advances the stages in front of both wifi6 stages
 * and then decides in time order for both (wifi6_mac.c).
 */
#ifndef TASSHAPE_STAGE_H
#define TASSHAPE_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/drop.h"
#include "tasshape/err.h"
#include "tasshape/hist.h"
#include "tasshape/pkt.h"
#include "tasshape/rng.h"
#include "tasshape/spec.h"
#include "tasshape/time.h"
#include "tasshape/trace.h"

struct ts_stage;
struct ts_pipe;
struct ts_wifi6;

/*
 * Where a stage's packets are held (docs/datapath.md):
 * SENDER stages hold packets at the sending host's egress, still charged
 * to their socket (TCP Small Queues sees them); NETWORK stages hold them
 * after the veth, charged to no socket (a router or base-station queue).
 */
enum ts_place {
	TS_PLACE_SENDER,
	TS_PLACE_NETWORK,
};

const char *ts_place_name(enum ts_place place);

/* What a stage is built from. Fields a stage does not use stay NULL/0. */
struct ts_stage_conf {
	struct ts_spec *spec;	      /* "NAME:k=v,..." of the stage itself */
	const struct ts_trace *trace; /* capacity, delay or loss source */
	const char *qdisc;	      /* servers: spec of their queue */
	uint64_t seed;		      /* for this stage's own random choices */
	bool once;		      /* servers: stop at the end of the trace */
	ts_ns_t origin;		      /* absolute time of trace time 0 */
	struct ts_wifi6 *wifi6;	      /* wifi6: the medium both directions share */
	int wifi6_side;		      /* wifi6: enum ts_wifi6_side */
};

struct ts_stage_ops {
	const char *name;
	const char *keys; /* accepted spec keys, for messages */
	size_t priv_size;
	int (*init)(struct ts_stage *st, const struct ts_stage_conf *conf, struct ts_err *err);
	/* Drop (never emit) every packet still held, cause TS_DROP_SHUTDOWN. */
	void (*fini)(struct ts_stage *st, ts_ns_t now);
	void (*enqueue)(struct ts_stage *st, struct ts_pkt *p, ts_ns_t now);
	ts_ns_t (*next_deadline)(const struct ts_stage *st); /* TS_NEVER if none */
	void (*advance)(struct ts_stage *st, ts_ns_t now);
};

/* Per-stage counters: every packet in is either out, dropped, or held. */
struct ts_stage_stats {
	uint64_t pkts_in, bytes_in;
	uint64_t pkts_out, bytes_out;
	uint64_t drops[TS_DROP__COUNT];
	uint64_t drop_bytes[TS_DROP__COUNT];
	uint32_t held_pkts; /* now */
	uint64_t held_bytes;
	uint32_t peak_pkts; /* since start */
	uint64_t peak_bytes;
	struct ts_hist qdelay; /* servers: time from enqueue to start of transmission */
};

struct ts_stage {
	const struct ts_stage_ops *ops;
	struct ts_stage *next; /* NULL: the pipe's release callback */
	struct ts_pipe *pipe;
	enum ts_place place;
	struct ts_stage_stats stats;
	void *priv;
};

/* Count @p into @st and call its enqueue (used by pipes and upstream stages). */
void ts_stage_enqueue(struct ts_stage *st, struct ts_pkt *p, ts_ns_t t);

/* Hand @p to the next stage (or release it) at model time @t. */
void ts_stage_emit(struct ts_stage *st, struct ts_pkt *p, ts_ns_t t);

/* Drop @p for @cause at time @t: counted here and in the pipe. */
void ts_stage_drop(struct ts_stage *st, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t);

/* Adapter so a stage can give its qdisc a ts_drop_fn with ctx = stage. */
void ts_stage_drop_cb(void *stage, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t);

/*
 * The loss stage's models, chosen by the spec's name (--loss ge:p=1%,r=30%):
 * the one table their names, keys and help come from.
 */
struct ts_loss_model {
	const char *name;
	const char *keys; /* accepted spec keys, for messages */
	const char *help; /* syntax, for --help */
};

size_t ts_loss_model_count(void);
const struct ts_loss_model *ts_loss_model_at(size_t i); /* NULL past the end */

/*
 * ts_loss_spec_check - would the loss stage accept @spec ("ge:p=1%,r=30%")?
 * For the command line, which names the option before anything is built.
 * Returns 0, or -EINVAL with @err saying what is wrong.
 */
int ts_loss_spec_check(const char *spec, struct ts_err *err);

/* True once a rate stage's --once trace has ended (the run should end too). */
bool ts_rate_ended(const struct ts_stage *st);

extern const struct ts_stage_ops ts_s_loss, ts_s_rate, ts_s_delay, ts_s_wifi6;

#endif
