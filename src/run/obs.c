/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "net/sockdiag.h"
#include "run/obs.h"
#include "run/sampler.h"
#include "record/sockstats_out.h"
#include "io/clock.h"
#include "io/outfile.h"

static const char *const dir_name[2] = {"uplink", "downlink"};
static const char *const mm_name[2] = {"Uplink", "Downlink"};

/* One socket of a taken sample: what the dump saw, and the station's state when it was taken. */
struct ts_obs_sockrow {
	struct ts_sockstat st;
	struct ts_sockstats_station stn;
	bool station;
};

void ts_obs_opts_init(struct ts_obs_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->snaplen = TS_NFQ_COPY_RANGE;
	o->interval = 100 * TS_NSEC_PER_MSEC;
	o->sock_interval = 50 * TS_NSEC_PER_MSEC;
}

const char *ts_obs_out_path(const struct ts_obs_opts *o, const char *name, char *buf, size_t len)
{
	int n;

	if (!o->out_dir)
		return NULL;
	n = snprintf(buf, len, "%s/%s", o->out_dir, name);
	return n > 0 && (size_t)n < len ? buf : NULL;
}

/* Remember a path we write; returns the stored copy (NULL if it does not fit). */
static const char *keep_path(struct ts_obs *ob, const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (!path || n >= TS_OBS_PATH || ob->npath >= sizeof(ob->path) / sizeof(ob->path[0]))
		return NULL;
	memcpy(ob->path[ob->npath], path, n + 1);
	return ob->path[ob->npath++];
}

/* An explicit option wins; else NAME in --out DIR when @in_out. */
static const char *pick(struct ts_obs *ob, const char *explicit_path, bool in_out, const char *name)
{
	char buf[TS_OBS_PATH];

	if (explicit_path)
		return keep_path(ob, explicit_path);
	if (!in_out || !ts_obs_out_path(ob->o, name, buf, sizeof(buf)))
		return NULL;
	return keep_path(ob, buf);
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, from two monotonic reads around a realtime one. */
static int64_t wall_offset(void)
{
	struct timespec r;
	int64_t ma, mb, rt;

	ma = ts_clock_now();
	clock_gettime(CLOCK_REALTIME, &r);
	mb = ts_clock_now();
	rt = (int64_t)r.tv_sec * TS_NSEC_PER_SEC + r.tv_nsec;
	return rt - (ma + (mb - ma) / 2);
}

/* The largest one-way delay a packet of direction @dir can spend in its delay line. */
static ts_ns_t max_delay(const struct ts_linkcfg *cfg, int dir)
{
	const struct ts_trace *t = cfg->cap[dir];
	ts_ns_t d = 0;
	size_t i;

	if (t && t->delay)
		for (i = 0; i < t->n; i++)
			if (t->delay[i] > d)
				d = t->delay[i];
	return cfg->delay + d;
}

static void find_places(struct ts_obs *ob, int i)
{
	const struct ts_dir *d = ob->env.dir[i];
	bool s = d->pipe[TS_PLACE_SENDER].nstages > 0, n = d->pipe[TS_PLACE_NETWORK].nstages > 0;
	const struct ts_pipe *lp;

	ob->present[i] = s || n;
	ob->first[i] = s ? TS_PLACE_SENDER : TS_PLACE_NETWORK;
	ob->last[i] = n ? TS_PLACE_NETWORK : TS_PLACE_SENDER;
	ob->link[i] = d->rate ? d->rate->place : ob->last[i];
	lp = &d->pipe[ob->link[i]];
	ob->link_has_delay[i] = lp->nstages && lp->stage[lp->nstages - 1]->ops == &ts_s_delay;
}

/* Length to show in the status line: --duration, else the trace's (not for a constant rate). */
static ts_ns_t run_length(const struct ts_obs_env *env)
{
	ts_ns_t total = 0;
	int i;

	if (env->duration > 0)
		return env->duration;
	for (i = 0; i < 2; i++) {
		const struct ts_trace *t = env->dir[i]->trace;

		if (t && !(t->kind == TS_TRACE_RATE && t->n == 1) && t->period > total)
			total = t->period;
	}
	return total;
}

static int open_pcaps(struct ts_obs *ob, struct ts_err *err)
{
	const struct ts_obs_opts *o = ob->o;
	const char *p;
	char csv[TS_OBS_PATH + 8];
	int i, ret;

	for (i = 0; i < 2; i++) {
		p = pick(ob, o->pcap[i], o->out_pcap, i ? "downlink.pcap" : "uplink.pcap");
		if (!p)
			continue;
		ret = ts_pcap_out_open(&ob->pcap[i], p, o->snaplen, err);
		if (ret < 0)
			return ret;
		ob->want_hdr = true;
	}
	p = pick(ob, o->pcap_ingress, o->out_pcap, "ingress.pcap");
	if (p) {
		ret = ts_pcap_out_open(&ob->ingress, p, o->snaplen, err);
		if (ret < 0)
			return ret;
	}
	p = pick(ob, o->pcap_drops, o->out_pcap, "drops.pcap");
	if (p) {
		ret = ts_pcap_out_open(&ob->drops, p, o->snaplen, err);
		if (ret < 0)
			return ret;
		snprintf(csv, sizeof(csv), "%s.csv", p);
		p = keep_path(ob, csv);
		if (!p) {
			ts_err_set(err, "%s: path too long", csv);
			return -ENAMETOOLONG;
		}
		ob->drops_csv = ts_out_fopen(p, err);
		if (!ob->drops_csv)
			return -errno;
		fputs("index,time,direction,place,cause\n", ob->drops_csv);
		ob->want_hdr = true;
	}
	if (ob->want_hdr) {
		ob->hdr = malloc(ob->pool_cap * TS_NFQ_COPY_RANGE);
		ob->hdrlen = calloc(ob->pool_cap, 1);
		if (!ob->hdr || !ob->hdrlen) {
			ts_err_set(err, "out of memory for the headers of %zu descriptors",
				   ob->pool_cap);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * A sock_diag handle in each namespace --sockstats samples: CMD's (station
 * 0) and each other real Wi-Fi station's, so that every station's flows
 * have rows, each tagged with its station.
 */
static int open_socks(struct ts_obs *ob, struct ts_err *err)
{
	unsigned int k;
	int ret;

	for (k = 0; k <= ob->env.nsta && k < sizeof(ob->sd) / sizeof(ob->sd[0]); k++) {
		ret = ts_sockdiag_open(&ob->sd[k],
				       k ? ob->env.sta_netns_fd[k - 1] : ob->env.cmd_netns_fd, err);
		if (ret < 0)
			return ret;
		ob->nsd = k + 1;
	}
	return 0;
}

static int open_logs(struct ts_obs *ob, struct ts_err *err)
{
	const struct ts_obs_opts *o = ob->o;
	const struct ts_dir *sd[2];
	const char *p;
	int i, ret;

	for (i = 0; i < 2; i++) {
		struct ts_mmlog_conf c = {
			.link_name = mm_name[i],
			.command_line = ob->env.cmdline,
			.queue = ob->env.link->queue[i],
			.trace = ob->env.dir[i]->trace,
			.origin = ob->env.origin,
			.init_epoch_ms = ts_obs_wall(ob, ob->env.origin) / TS_NSEC_PER_MSEC,
			.lag_ns = max_delay(ob->env.link, i),
			.drops = o->log_drops,
		};

		c.path = pick(ob, o->mmlog[i], true, i ? "downlink.log" : "uplink.log");
		if (!c.path)
			continue;
		ret = ts_mmlog_open(&ob->mm[i], &c, err);
		if (ret < 0)
			return ret;
		ob->mm_on[i] = true;
	}
	p = pick(ob, o->stats, true, TS_OUT_STATS);
	if (p) {
		sd[0] = ob->present[0] ? ob->env.dir[0] : NULL;
		sd[1] = ob->present[1] ? ob->env.dir[1] : NULL;
		ret = ts_stats_open(&ob->stats, p, sd, ob->env.origin, o->interval, err);
		if (ret < 0)
			return ret;
	}
	p = pick(ob, o->sockstats, true, TS_OUT_SOCKSTATS);
	if (p) {
		ob->sock_f = ts_out_fopen(p, err);
		if (!ob->sock_f)
			return -errno;
		setvbuf(ob->sock_f, NULL, _IOFBF, 1 << 16);
		ts_sockstats_header(ob->sock_f);
		ob->rows = calloc(TS_OBS_SOCK_MAX, sizeof(*ob->rows));
		if (!ob->rows) {
			ts_err_set(err, "--sockstats: out of memory");
			return -ENOMEM;
		}
		ret = open_socks(ob, err);
		if (ret < 0)
			return ret;
		/* The sampler dumps at origin + k * interval; the loop looks half an interval later. */
		ob->sock_next = ob->env.origin + o->sock_interval / 2;
	}
	return 0;
}

int ts_obs_start(struct ts_obs *ob, const struct ts_obs_opts *o, const struct ts_obs_env *env,
		 struct ts_err *err)
{
	int i, ret, fd = -1;

	memset(ob, 0, sizeof(*ob));
	ob->o = o;
	ob->env = *env;
	ob->wall_off = wall_offset();
	ob->pool_mem = env->pool->mem;
	ob->pool_cap = env->pool->cap;
	for (i = 0; i < 2; i++)
		find_places(ob, i);
	ob->out_fd = -1;
	if (o->out_dir) {
		/* Locked for the run: a second run given the same --out fails at once. */
		ret = ob->out_fd = ts_out_mkdir(o->out_dir, err);
		if (ret >= 0)
			ret = ts_out_lock(ob->out_fd, o->out_dir, err);
		if (ret < 0)
			return ret;
	}
	ret = open_pcaps(ob, err);
	if (ret < 0)
		return ret;
	ret = open_logs(ob, err);
	if (ret < 0)
		return ret;
	/* Only on a terminal; under an interactive shell it would draw over the prompt. */
	if (isatty(STDERR_FILENO) && !env->quiet &&
	    (o->progress > 0 || (o->progress == 0 && !env->interactive)))
		fd = STDERR_FILENO;
	ts_progress_init(&ob->progress, fd, env->origin, run_length(env), TS_NSEC_PER_SEC);
	return ob->npath > 0 || fd >= 0;
}

static void write_drop(struct ts_obs *ob, int dir, enum ts_place place, enum ts_drop_cause cause,
		       ts_ns_t t, const uint8_t *hdr, uint32_t caplen, uint32_t len)
{
	int64_t wall = ts_obs_wall(ob, t);

	ts_pcap_out_write(&ob->drops, wall, hdr, caplen, len);
	fprintf(ob->drops_csv, "%" PRIu64 ",%lld.%09lld,%s,%s,%s\n", ob->drops.records,
		(long long)(wall / TS_NSEC_PER_SEC), (long long)(wall % TS_NSEC_PER_SEC),
		dir_name[dir], ts_place_name(place), ts_drop_name(cause));
}

void ts_obs_arrival(struct ts_obs *ob, const struct ts_pkt *p, const struct ts_nfq_pkt *kp, int dir,
		    enum ts_place place, ts_ns_t now)
{
	if (ob->want_hdr) {
		size_t i = (size_t)(p - ob->pool_mem);
		uint32_t n = kp->hdrlen < ob->o->snaplen ? kp->hdrlen : ob->o->snaplen;

		memcpy(ob->hdr + i * TS_NFQ_COPY_RANGE, kp->hdr, n);
		ob->hdrlen[i] = (uint8_t)n;
	}
	if (place == ob->first[dir]) {
		ts_stats_arrival(&ob->stats, dir, kp->wire_len, now);
		if (ob->ingress.dumper)
			ts_pcap_out_write(&ob->ingress, ts_obs_wall(ob, now), kp->hdr, kp->hdrlen,
					  kp->len);
	}
	if (place == ob->link[dir] && ob->mm_on[dir])
		ts_mmlog_arrival(&ob->mm[dir], now, kp->wire_len);
}

void ts_obs_handover(struct ts_obs *ob, const struct ts_pkt *p, int dir, enum ts_place place,
		     ts_ns_t t)
{
	if (place == ob->link[dir] && ob->mm_on[dir])
		ts_mmlog_arrival(&ob->mm[dir], t, p->len);
}

void ts_obs_nodesc(struct ts_obs *ob, const struct ts_nfq_pkt *kp, int dir, enum ts_place place,
		   ts_ns_t now)
{
	if (place == ob->first[dir]) {
		ts_stats_arrival(&ob->stats, dir, kp->wire_len, now);
		if (ob->ingress.dumper)
			ts_pcap_out_write(&ob->ingress, ts_obs_wall(ob, now), kp->hdr, kp->hdrlen,
					  kp->len);
	}
	ts_stats_drop(&ob->stats, dir, TS_DROP_NO_DESC, now);
	if (place == ob->link[dir] && ob->mm_on[dir]) {
		ts_mmlog_arrival(&ob->mm[dir], now, kp->wire_len);
		ts_mmlog_drop(&ob->mm[dir], now, kp->gso_segs ? kp->gso_segs : 1, kp->wire_len);
	}
	if (ob->drops.dumper)
		write_drop(ob, dir, place, TS_DROP_NO_DESC, now, kp->hdr, kp->hdrlen, kp->len);
}

void ts_obs_release(struct ts_obs *ob, const struct ts_pkt *p, int dir, enum ts_place place,
		    ts_ns_t t)
{
	if (place == ob->link[dir]) {
		ts_ns_t dep = ob->link_has_delay[dir] ? p->t_enq : t;

		if (ob->mm_on[dir])
			ts_mmlog_departure(&ob->mm[dir], p->t_arrival, dep, p->len);
		ts_stats_link_delay(&ob->stats, dir, dep - p->t_arrival, t);
		ts_progress_link_delay(&ob->progress, dir, dep - p->t_arrival);
	}
	if (place == ob->last[dir]) {
		ts_stats_delivered(&ob->stats, dir, p->len, t);
		if (ob->pcap[dir].dumper) {
			size_t i = (size_t)(p - ob->pool_mem);

			ts_pcap_out_write(&ob->pcap[dir], ts_obs_wall(ob, t),
					  ob->hdr + i * TS_NFQ_COPY_RANGE, ob->hdrlen[i], p->len);
		}
	}
}

void ts_obs_drop(struct ts_obs *ob, const struct ts_pkt *p, int dir, enum ts_place place,
		 enum ts_drop_cause cause, ts_ns_t t)
{
	ts_stats_drop(&ob->stats, dir, cause, t);
	if (place == ob->link[dir] && ob->mm_on[dir])
		ts_mmlog_drop(&ob->mm[dir], t, p->segs, p->len);
	if (ob->drops.dumper) {
		size_t i = (size_t)(p - ob->pool_mem);

		write_drop(ob, dir, place, cause, t, ob->hdr + i * TS_NFQ_COPY_RANGE, ob->hdrlen[i],
			   p->len);
	}
}

static void write_row(struct ts_obs *ob, const struct ts_obs_sockrow *r)
{
	unsigned int i;

	ts_sockstats_row(ob->sock_f, ob->rows_t_s, &r->st, r->station ? &r->stn : NULL);
	ob->sock_rows++;
	if (!r->st.cca[0])
		return;
	for (i = 0; i < ob->nccas; i++)
		if (!strcmp(ob->ccas[i], r->st.cca))
			return;
	if (ob->nccas < sizeof(ob->ccas) / sizeof(ob->ccas[0]))
		snprintf(ob->ccas[ob->nccas++], sizeof(ob->ccas[0]), "%s", r->st.cca);
}

/* Up to @max rows of the taken sample, in order. */
static void write_rows(struct ts_obs *ob, size_t max)
{
	while (ob->irows < ob->nrows && max--)
		write_row(ob, &ob->rows[ob->irows++]);
}

/*
 * A finished sample, in the loop's thread, which owns the station's TSQ state: its rows are
 * copied with that state as it is now, and written a few per turn (write_rows).
 */
static void take_batch(void *ctx, const struct ts_sampler_batch *b)
{
	struct ts_obs *ob = ctx;
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct ts_obs_sockrow *r = &ob->rows[i];

		r->st = b->st[i];
		r->station = ob->env.station.get &&
			     ob->env.station.get(ob->env.station.ctx, &r->st, &r->stn);
	}
	ob->nrows = b->n;
	ob->irows = 0;
	ob->rows_t_s = (double)(b->t - ob->env.origin) / 1e9;
	ob->sock_samples++;
}

/* One station's sockets, each tagged with the station before it is passed on. */
struct dump_tag {
	ts_sockdiag_fn cb;
	void *ctx;
	unsigned int station;
};

static void tag_one(void *arg, const struct ts_sockstat *st)
{
	const struct dump_tag *t = arg;
	struct ts_sockstat tagged = *st;

	tagged.station = t->station;
	t->cb(t->ctx, &tagged);
}

/*
 * One sample: every station's namespace in turn (in the sampler's thread;
 * ob->sd and ob->nsd do not change while it runs). Returns the sockets
 * seen, or the first negative errno once every namespace was tried.
 */
static int dump_socks(void *arg, ts_sockdiag_fn cb, void *cb_ctx)
{
	const struct ts_obs *ob = arg;
	struct dump_tag t = {cb, cb_ctx, 0};
	int n = 0, err = 0, ret;

	for (t.station = 0; t.station < ob->nsd; t.station++) {
		ret = ts_sockdiag_dump(ob->sd[t.station], tag_one, &t);
		if (ret < 0 && !err)
			err = ret;
		else if (ret > 0)
			n += ret;
	}
	return err ? err : n;
}

/*
 * Socket samples: the dump is a thread's (run/sampler.h says why); the
 * loop only writes what it finished. The thread starts at the first turn,
 * after CMD was started: no fork happens while it holds a lock.
 */
static void sample_sockets(struct ts_obs *ob, ts_ns_t now)
{
	struct ts_err err;
	int ret;

	if (!ob->sampler && !ob->sock_err) {
		ret = ts_sampler_start(&ob->sampler, dump_socks, ob, ob->env.origin,
				       ob->o->sock_interval, TS_OBS_SOCK_MAX, ob->env.helper_cpus,
				       &err);
		if (ret < 0)
			ob->sock_err = ret;
	}
	if (ob->irows == ob->nrows)
		ts_sampler_take(ob->sampler, take_batch, ob);
	write_rows(ob, TS_OBS_SOCK_ROWS_PER_TURN);
	ob->rows_next = now + TS_OBS_SOCK_ROW_GAP;
	while (ob->sock_next <= now)
		ob->sock_next += ob->o->sock_interval;
}

/* The run is over: the last sample written, and what went wrong said once. */
static void sampler_end(struct ts_obs *ob)
{
	struct ts_sampler_counts c;

	if (!ob->sampler)
		return;
	ts_sampler_stop(ob->sampler);
	write_rows(ob, SIZE_MAX);
	if (ts_sampler_take(ob->sampler, take_batch, ob))
		write_rows(ob, SIZE_MAX);
	c = ts_sampler_counts(ob->sampler);
	if (c.err && !ob->sock_err)
		ob->sock_err = c.err;
	if (c.truncated)
		fprintf(stderr,
			"tasshape: warning: --sockstats: %llu samples had more than %d sockets; "
			"only the first %d of each were written\n",
			(unsigned long long)c.truncated, TS_OBS_SOCK_MAX, TS_OBS_SOCK_MAX);
	if (c.skipped)
		fprintf(stderr,
			"tasshape: warning: --sockstats: %llu of %llu samples skipped (the loop "
			"had not yet written the one before)\n",
			(unsigned long long)c.skipped, (unsigned long long)(c.skipped + c.samples));
	ts_sampler_free(ob->sampler);
	ob->sampler = NULL;
}

void ts_obs_tick(struct ts_obs *ob, ts_ns_t now)
{
	int i;

	ts_stats_advance(&ob->stats, now);
	for (i = 0; i < 2; i++)
		if (ob->mm_on[i])
			ts_mmlog_flush(&ob->mm[i], now);
	if (ob->nsd)
		sample_sockets(ob, now);
	ts_progress_tick(&ob->progress, now, ob->env.dir);
}

ts_ns_t ts_obs_next_deadline(const struct ts_obs *ob)
{
	ts_ns_t d = ts_min(ts_stats_next_deadline(&ob->stats),
			   ts_progress_next_deadline(&ob->progress));

	if (ob->nsd)
		d = ts_min(d, ob->sock_next);
	if (ob->irows < ob->nrows)
		d = ts_min(d, ob->rows_next);
	return d;
}

static void keep_err(int *ret, int r, struct ts_err *err, const char *what)
{
	if (r < 0 && !*ret) {
		*ret = r;
		ts_err_set(err, "%s: %s", what, strerror(-r));
	}
}

int ts_obs_finish(struct ts_obs *ob, ts_ns_t now, struct ts_err *err)
{
	int i, ret = 0;

	if (!ob->o)
		return 0;
	ts_progress_end(&ob->progress);
	keep_err(&ret, ts_stats_close(&ob->stats, now), err, "--stats");
	for (i = 0; i < 2; i++) {
		if (ob->mm_on[i])
			keep_err(&ret, ts_mmlog_close(&ob->mm[i], now), err, "mahimahi log");
		ob->mm_on[i] = false;
		keep_err(&ret, ts_pcap_out_close(&ob->pcap[i]), err, "pcap");
	}
	keep_err(&ret, ts_pcap_out_close(&ob->ingress), err, "pcap");
	keep_err(&ret, ts_pcap_out_close(&ob->drops), err, "pcap");
	if (ob->drops_csv && fclose(ob->drops_csv) != 0)
		keep_err(&ret, -EIO, err, "--pcap-drops CSV");
	ob->drops_csv = NULL;
	sampler_end(ob);
	if (ob->sock_f && fclose(ob->sock_f) != 0)
		keep_err(&ret, -EIO, err, "--sockstats");
	ob->sock_f = NULL;
	free(ob->rows);
	ob->rows = NULL;
	ob->nrows = ob->irows = 0;
	if (ob->sock_err)
		fprintf(stderr, "tasshape: warning: --sockstats: sampling failed: %s\n",
			strerror(-ob->sock_err));
	for (i = 0; i < (int)ob->nsd; i++) {
		ts_sockdiag_close(ob->sd[i]);
		ob->sd[i] = NULL;
	}
	ob->nsd = 0;
	free(ob->hdr);
	free(ob->hdrlen);
	ob->hdr = ob->hdrlen = NULL;
	ob->want_hdr = false;
	if (ob->out_fd >= 0)
		close(ob->out_fd);
	ob->out_fd = -1;
	ob->o = NULL;
	return ret;
}
