/* SPDX-License-Identifier: MIT */
/*
 * Model benchmark: how many packets per second one core pushes through a
 * full link direction (loss + CoDel + trace server + delay line) with
 * made-up times, and how fast traces load and how much memory a row takes.
 * The model must never be the shaper's bottleneck: the target is at least
 * 10 million packets/s. As a baseline measured in the same run, the same
 * packets go through a bare FIFO push/pop, the least any queue can cost,
 * and the report gives the ratio.
 *
 * Usage: model_bench [PACKETS]   (default 10000000)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tasshape/link.h"

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct sink {
	struct ts_pool *pool;
	uint64_t out, drops;
};

static void on_release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	struct sink *s = ctx;

	(void)t;
	s->out++;
	ts_pool_put(s->pool, p);
}

static void on_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause c, ts_ns_t t)
{
	struct sink *s = ctx;

	(void)c;
	(void)t;
	s->drops++;
	ts_pool_put(s->pool, p);
}

/* Packets/s through a direction built from @trace_spec with the given queue. */
static int bench_dir(const char *label, const char *trace_spec, const char *queue, uint64_t n,
		     double *pps)
{
	struct ts_trace *down = NULL, *up = NULL;
	struct ts_pool pool;
	struct sink s = {.pool = &pool};
	struct ts_dir d;
	struct ts_err err;
	struct ts_dir_conf c = {.name = "bench",
				.queue = queue,
				.delay = 10 * TS_NSEC_PER_MSEC,
				.loss = "bernoulli:p=0.1%",
				.seed = 1,
				.place = TS_PLACE_NETWORK};
	ts_ns_t t = 0;
	double t0, dt;
	uint64_t i;
	int ret;

	ret = ts_trace_open_spec(trace_spec, &down, &up, &err);
	if (ret < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return ret;
	}
	c.trace = down;
	if (ts_pool_init(&pool, 1 << 16) < 0)
		return -ENOMEM;
	ret = ts_dir_build(&d, &c, on_release, on_drop, &s, &err);
	if (ret < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return ret;
	}
	t0 = wall();
	for (i = 0; i < n; i++) {
		struct ts_pkt *p = ts_pool_get(&pool);

		/* 1500-byte packets every 1.1 us: about 10.9 Gbit/s offered. */
		t += 1100;
		ts_pipe_advance(&d.pipe[TS_PLACE_NETWORK], t);
		if (!p)
			continue;
		p->len = 1500;
		p->segs = 1;
		p->id = (uint32_t)i;
		ts_pipe_enqueue(&d.pipe[TS_PLACE_NETWORK], p, t);
	}
	dt = wall() - t0;
	*pps = (double)n / dt;
	printf("%-34s %8.2f Mpkt/s  (%" PRIu64 " out, %" PRIu64 " dropped)\n", label, *pps / 1e6,
	       s.out, s.drops);
	ts_dir_fini(&d, t);
	ts_pool_fini(&pool);
	ts_trace_free(down);
	if (up != down)
		ts_trace_free(up);
	return 0;
}

static double bench_fifo(uint64_t n)
{
	struct ts_pool pool;
	struct ts_fifo f;
	volatile uint64_t sum = 0;
	double t0, dt;
	uint64_t i;

	ts_pool_init(&pool, 1 << 16);
	ts_fifo_init(&f);
	t0 = wall();
	for (i = 0; i < n; i++) {
		struct ts_pkt *p = ts_pool_get(&pool);

		p->len = 1500;
		ts_fifo_push(&f, p);
		if (f.pkts > 1000) {
			p = ts_fifo_pop(&f);
			sum += p->len;
			ts_pool_put(&pool, p);
		}
	}
	dt = wall() - t0;
	(void)sum; /* volatile: the pops above are not optimised away */
	ts_pool_fini(&pool);
	printf("%-34s %8.2f Mpkt/s  (baseline)\n", "bare FIFO push/pop", (double)n / dt / 1e6);
	return (double)n / dt;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Write @lines of a mahimahi trace at @per_ms opportunities per ms and time the load. */
static int bench_load_mahimahi(uint64_t lines, unsigned int per_ms)
{
	char path[] = "/tmp/tasshape-bench-XXXXXX";
	struct ts_trace *down = NULL, *up = NULL;
	struct ts_err err;
	double t0, dt;
	long rss0, rss1;
	uint64_t i;
	FILE *f;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	for (i = 0; i < lines; i++)
		fprintf(f, "%" PRIu64 "\n", i / per_ms + 1);
	fclose(f);
	rss0 = rss_kb();
	t0 = wall();
	ret = ts_trace_load(path, TS_FMT_AUTO, &down, &up, &err);
	dt = wall() - t0;
	rss1 = rss_kb();
	unlink(path);
	if (ret < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return ret;
	}
	printf("mahimahi load, %" PRIu64 " lines (%u/ms): %.3f s, %.2f s per million lines, "
	       "%zu rows x %zu B = %.1f MB (RSS +%.1f MB)\n",
	       lines, per_ms, dt, dt / ((double)lines / 1e6), down->n, sizeof(*down->opps),
	       (double)(down->cap * sizeof(*down->opps)) / 1e6, (double)(rss1 - rss0) / 1e3);
	ts_trace_free(down);
	return 0;
}

static int bench_load_csv(uint64_t rows)
{
	char path[] = "/tmp/tasshape-bench-XXXXXX";
	struct ts_trace *down = NULL, *up = NULL;
	struct ts_err err;
	double t0, dt;
	uint64_t i;
	FILE *f;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	fprintf(f, "time_s,down_mbps,up_mbps,delay_ms\n");
	for (i = 0; i < rows; i++)
		fprintf(f, "%.3f,%" PRIu64 ".5,%" PRIu64 ",%" PRIu64 "\n", (double)i * 0.01,
			10 + i % 90, 1 + i % 20, 20 + i % 10);
	fclose(f);
	t0 = wall();
	ret = ts_trace_load(path, TS_FMT_AUTO, &down, &up, &err);
	dt = wall() - t0;
	unlink(path);
	if (ret < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return ret;
	}
	printf("CSV load, %" PRIu64 " rows: %.3f s, %.2f s per million rows, %zu B per row "
	       "per direction (rate + delay)\n",
	       rows, dt, dt / ((double)rows / 1e6), sizeof(*down->rows) + sizeof(*down->delay));
	ts_trace_free(down);
	ts_trace_free(up);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = 10000000;
	double base, pps_rate = 0, pps_droptail = 0;
	char *end;

	if (argc > 1) {
		errno = 0;
		n = strtoull(argv[1], &end, 10);
		if (errno || *end || !n) {
			fprintf(stderr, "usage: model_bench [PACKETS]\n");
			return 2;
		}
	}
	printf("== model: one direction, %" PRIu64 " packets, made-up times ==\n", n);
	base = bench_fifo(n);
	if (bench_dir("loss+codel+rate(10gbit)+delay", "const:10gbit", "codel", n, &pps_rate) < 0)
		return 1;
	if (bench_dir("loss+droptail+rate(10gbit)+delay", "const:10gbit", "droptail:packets=1000",
		      n, &pps_droptail) < 0)
		return 1;
	printf("ratio full direction / bare FIFO: %.2f; target >= 10 Mpkt/s: %s\n", pps_rate / base,
	       pps_rate >= 10e6 ? "met" : "NOT met");
	printf("== trace loading ==\n");
	if (bench_load_mahimahi(7000000, 1) < 0 || bench_load_mahimahi(7000000, 84) < 0 ||
	    bench_load_csv(1000000) < 0)
		return 1;
	return 0;
}
