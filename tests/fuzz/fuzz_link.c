/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the link and stage option strings, as the link
 * options hand them to the model: --queue/--uplink-queue/--downlink-queue
 * (every queue discipline's keys), --loss (a bare probability is
 * rewritten to bernoulli:p=P, as the command line does; bernoulli: and
 * ge: keys), --delay, --mac wifi6:... with --mac-queue, --uplink-at, and
 * the rate of const:RATE; then both directions are built and packets
 * from the rest of the input are pushed through them.
 *
 * Input: six lines (up queue, down queue, loss, delay, mac, rate; an
 * empty line leaves the option out), then packets of 3 bytes each
 * (microseconds since the previous one, size, direction and flags).
 * Checks: a refused option has a message naming the direction or --mac;
 * built links conserve packets: every packet comes back exactly once,
 * released or dropped with a cause, never before it arrived.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "tasshape/link.h"
#include "tasshape/units.h"

#define NLINES	   6
#define MAX_PKTS   512
#define MAX_EVENTS 20000

struct fz {
	struct ts_pool pool;
	struct ts_dir dir[2];
	uint8_t seen[MAX_PKTS]; /* 1 in a pipe, 2 back */
	ts_ns_t arrival[MAX_PKTS];
	uint64_t in, out, dropped;
	ts_ns_t now; /* model time reached */
};

static struct ts_pkt *fz_check_back(struct fz *z, struct ts_pkt *p, ts_ns_t t)
{
	CHECK(p->id < MAX_PKTS && z->seen[p->id] == 1);
	CHECK(t >= z->arrival[p->id]);
	return p;
}

/* Released by the sender pipe: on to the network pipe, as the kernel does. */
static void fz_release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	struct fz *z = ctx;
	struct ts_pipe *net = &z->dir[p->user].pipe[TS_PLACE_NETWORK];

	fz_check_back(z, p, t);
	if (p->src == TS_PLACE_SENDER && net->nstages) {
		p->src = TS_PLACE_NETWORK;
		ts_pipe_enqueue(net, p, t);
		return;
	}
	z->seen[p->id] = 2;
	z->out++;
	ts_pool_put(&z->pool, p);
}

static void fz_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	struct fz *z = ctx;

	CHECK((unsigned int)cause < TS_DROP__COUNT);
	fz_check_back(z, p, t);
	z->seen[p->id] = 2;
	z->dropped++;
	ts_pool_put(&z->pool, p);
}

/* The --mac medium, as the link configuration builds it. */
static int fz_mac(const char *s, struct ts_wifi6 **out, struct ts_err *err)
{
	struct ts_wifi6_conf conf;
	struct ts_spec spec;
	int ret;

	ret = ts_spec_parse(&spec, s, err);
	if (ret < 0)
		return ret;
	if (strcmp(spec.name, "wifi6"))
		return -EINVAL;
	ts_wifi6_conf_init(&conf);
	ret = ts_wifi6_conf_parse(&conf, &spec, err);
	if (ret < 0 || conf.phy_trace[0]) /* files: fuzz_phy_trace */
		return ret < 0 ? ret : -EINVAL;
	return ts_wifi6_create(out, &conf, 3, err);
}

static void fz_run(struct fz *z, const uint8_t *p, size_t n)
{
	ts_ns_t now = 0, end;
	size_t k = 0, events = 0;
	int d;

	while (k + 3 <= n && z->in < MAX_PKTS) {
		ts_ns_t at = now + (ts_ns_t)p[k] * 37 * TS_NSEC_PER_USEC;
		struct ts_pkt *q;
		int first;

		d = p[k + 2] & 1;
		/* Model deadlines before the arrival, in time order. */
		while (events++ < MAX_EVENTS) {
			ts_ns_t t = ts_min(ts_dir_next_deadline(&z->dir[0]),
					   ts_dir_next_deadline(&z->dir[1]));

			if (t > at)
				break;
			CHECK(t >= now);
			now = t;
			ts_pipe_advance(&z->dir[0].pipe[TS_PLACE_SENDER], now);
			ts_pipe_advance(&z->dir[0].pipe[TS_PLACE_NETWORK], now);
			ts_pipe_advance(&z->dir[1].pipe[TS_PLACE_SENDER], now);
			ts_pipe_advance(&z->dir[1].pipe[TS_PLACE_NETWORK], now);
		}
		now = at;
		q = ts_pool_get(&z->pool);
		CHECK(q);
		memset(q, 0, sizeof(*q));
		q->id = (uint32_t)z->in;
		q->len = 40 + (uint32_t)p[k + 1] * 6;
		q->segs = 1;
		q->hash = p[k + 2] >> 1;
		first = z->dir[d].pipe[TS_PLACE_SENDER].nstages ? TS_PLACE_SENDER
								: TS_PLACE_NETWORK;
		q->src = (uint16_t)first;
		q->user = (uint64_t)d;
		z->seen[q->id] = 1;
		z->arrival[q->id] = now;
		z->in++;
		ts_pipe_advance(&z->dir[d].pipe[TS_PLACE_SENDER], now);
		ts_pipe_advance(&z->dir[d].pipe[TS_PLACE_NETWORK], now);
		ts_pipe_enqueue(&z->dir[d].pipe[first], q, now);
		k += 3;
	}
	/* A while longer, then the end: everything still held is dropped (shutdown). */
	end = now + 2 * TS_NSEC_PER_SEC;
	while (events++ < MAX_EVENTS) {
		ts_ns_t t =
			ts_min(ts_dir_next_deadline(&z->dir[0]), ts_dir_next_deadline(&z->dir[1]));

		if (t > end)
			break;
		CHECK(t >= now);
		now = t;
		for (d = 0; d < 2; d++) {
			ts_pipe_advance(&z->dir[d].pipe[TS_PLACE_SENDER], now);
			ts_pipe_advance(&z->dir[d].pipe[TS_PLACE_NETWORK], now);
		}
	}
	z->now = now;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz z;
	char line[NLINES][TS_SPEC_MAX_LEN + 16];
	char rate[TS_SPEC_MAX_LEN + 16];
	struct ts_trace *cap = NULL, *unused = NULL;
	struct ts_wifi6 *mac = NULL;
	struct ts_dir_conf c[2];
	struct ts_err err;
	size_t pos = 0, i;
	ts_ns_t delay = 0;
	int built = 0, d, ret;
	uint8_t flags;

	if (!size)
		return 0;
	flags = data[0];
	pos = 1;
	for (i = 0; i < NLINES; i++) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;

		if (len >= TS_SPEC_MAX_LEN)
			len = TS_SPEC_MAX_LEN - 1;
		memcpy(line[i], data + pos, len);
		line[i][len] = '\0';
		pos = nl ? (size_t)(nl - data) + 1 : size;
	}
	/* A bare probability, as the command line rewrites it. */
	if (line[2][0] && !strchr(line[2], ':')) {
		char tmp[TS_SPEC_MAX_LEN + 16];

		snprintf(tmp, sizeof(tmp), "bernoulli:p=%s", line[2]);
		memcpy(line[2], tmp, sizeof(line[2]));
	}
	err.msg[0] = '\0';
	if (line[3][0] &&
	    (ts_parse_time(line[3], &delay, &err) < 0 || delay > 3600 * TS_NSEC_PER_SEC)) {
		CHECK(delay > 3600 * TS_NSEC_PER_SEC || err.msg[0]);
		return 0;
	}
	snprintf(rate, sizeof(rate), "const:%s", line[5][0] ? line[5] : "10mbit");
	if (ts_trace_open_spec(rate, &cap, &unused, &err) < 0)
		return 0;
	CHECK(!unused);
	if (line[4][0] && fz_mac(line[4], &mac, &err) < 0)
		goto out;

	memset(&z, 0, sizeof(z));
	CHECK(ts_pool_init(&z.pool, MAX_PKTS) == 0);
	for (d = 0; d < 2; d++) {
		c[d] = (struct ts_dir_conf){
			.name = d == 0 ? "uplink" : "downlink",
			.trace = (flags & (4 << d)) ? NULL : cap,
			.queue = line[d][0] ? line[d] : NULL,
			.delay = delay,
			.loss = line[2][0] ? line[2] : NULL,
			.seed = 1 + (uint64_t)d,
			.once = flags & 1,
			.place = (d == 0 && (flags & 2)) ? TS_PLACE_SENDER : TS_PLACE_NETWORK,
			.origin = 0,
			.wifi6 = mac,
			.wifi6_side = d == 0 ? TS_WIFI6_UP : TS_WIFI6_DOWN,
			.mac_queue = (flags & 16) && line[0][0] ? line[0] : NULL,
		};
		err.msg[0] = '\0';
		ret = ts_dir_build(&z.dir[d], &c[d], fz_release, fz_drop, &z, &err);
		if (ret < 0) {
			CHECK(!strncmp(err.msg, c[d].name, strlen(c[d].name)));
			goto fini;
		}
		built++;
	}
	fz_run(&z, data + pos, size - pos);
fini:
	for (d = 0; d < built; d++)
		ts_dir_fini(&z.dir[d], z.now);
	/* Conservation: every packet came back exactly once. */
	CHECK(z.out + z.dropped == z.in);
	for (i = 0; i < z.in; i++)
		CHECK(z.seen[i] == 2);
	ts_pool_fini(&z.pool);
out:
	ts_wifi6_put(mac);
	ts_trace_free(cap);
	return 0;
}
