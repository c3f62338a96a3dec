/* SPDX-License-Identifier: MIT */
/*
 * What one socket sample costs, with the host's shared TCP established
 * hash and with a namespace's own (net/netns_hash.h). In a fresh
 * namespace of each kind, with one loopback TCP connection (two
 * established sockets), it times ts_sockdiag_dump (what --sockstats and
 * the drain's socket count do) and ts_sockdiag_get (the Wi-Fi TSQ
 * layer's per-flow lookup, src/run/tsq_station_sock.c), and prints per call the
 * thread's CPU time (user + system: the kernel's walk is charged to the
 * caller, so a busy host lengthens the wall time but hardly this) and
 * the wall time, next to the namespace's net.ipv4.tcp_ehash_entries
 * (negative: the host's shared table).
 *
 * Usage (root): sockdiag_bench [DUMPS [GETS]]   (default 200 dumps, 5000 lookups)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/netns.h"
#include "net/netns_hash.h"
#include "net/rtnl.h"
#include "net/sockdiag.h"

#define PORT 5999

struct conn {
	int fd[3]; /* listener, client, accepted */
	uint16_t cport;
	long buckets;
};

static int read_buckets(struct conn *c)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_ehash_entries", "re");

	c->buckets = 0;
	if (f) {
		if (fscanf(f, "%ld", &c->buckets) != 1)
			c->buckets = 0;
		fclose(f);
	}
	return 0;
}

/* Inside the namespace: lo is up; a listener, a client and the accepted end. */
static int connect_lo(void *arg)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	struct conn *c = arg;
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	read_buckets(c);
	c->fd[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	c->fd[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd[0] < 0 || c->fd[1] < 0 || bind(c->fd[0], (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(c->fd[0], 1) < 0 || connect(c->fd[1], (struct sockaddr *)&a, sizeof(a)) < 0)
		return -errno;
	c->fd[2] = accept(c->fd[0], NULL, NULL);
	if (c->fd[2] < 0 || getsockname(c->fd[1], (struct sockaddr *)&a, &len) < 0)
		return -errno;
	c->cport = ntohs(a.sin_port);
	return 0;
}

static double now_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void count(void *ctx, const struct ts_sockstat *st)
{
	(void)st;
	(*(int *)ctx)++;
}

static int measure(const char *label, bool own, int dumps, int gets)
{
	struct ts_netns ns;
	struct ts_sockdiag *sd = NULL;
	struct conn c = {.fd = {-1, -1, -1}};
	struct ts_rtnl r = {0};
	struct ts_err err;
	char name[TS_NETNS_NAME_MAX];
	uint32_t lo = htonl(INADDR_LOOPBACK);
	double cpu, wall;
	int ret, i, n = 0, found = 0, idx;

	snprintf(name, sizeof(name), "tasbench-%d-%s", (int)getpid(), own ? "own" : "shared");
	ret = own ? ts_netns_create_hashed(&ns, name, true, &err)
		  : ts_netns_create(&ns, name, &err);
	if (ret < 0) {
		fprintf(stderr, "sockdiag_bench: %s\n", err.msg);
		return ret;
	}
	ret = ts_rtnl_open(&r, ns.fd, &err);
	idx = ret < 0 ? ret : ts_rtnl_link_index(&r, "lo", &err);
	ret = idx < 0 ? idx : ts_rtnl_link_up(&r, idx, &err);
	ts_rtnl_close(&r);
	if (ret == 0)
		ret = ts_netns_run(ns.fd, connect_lo, &c, &err);
	if (ret == 0)
		ret = ts_sockdiag_open(&sd, ns.fd, &err);
	if (ret < 0) {
		fprintf(stderr, "sockdiag_bench: %s: %s\n", label, strerror(-ret));
		goto out;
	}
	cpu = now_us(CLOCK_THREAD_CPUTIME_ID);
	wall = now_us(CLOCK_MONOTONIC);
	for (i = 0; i < dumps && ret >= 0; i++)
		ret = ts_sockdiag_dump(sd, count, &n);
	printf("%-7s buckets %7ld  dump: %8.1f us CPU %8.1f us wall per call, %d sockets each\n",
	       label, c.buckets, (now_us(CLOCK_THREAD_CPUTIME_ID) - cpu) / dumps,
	       (now_us(CLOCK_MONOTONIC) - wall) / dumps, dumps ? n / dumps : 0);
	cpu = now_us(CLOCK_THREAD_CPUTIME_ID);
	wall = now_us(CLOCK_MONOTONIC);
	for (i = 0; i < gets && ret >= 0; i++) {
		ret = ts_sockdiag_get(sd, AF_INET, &lo, c.cport, &lo, PORT, count, &n);
		found += ret > 0;
	}
	printf("%-7s buckets %7ld  get:  %8.1f us CPU %8.1f us wall per call, %d of %d found\n",
	       label, c.buckets, (now_us(CLOCK_THREAD_CPUTIME_ID) - cpu) / gets,
	       (now_us(CLOCK_MONOTONIC) - wall) / gets, found, gets);
	if (ret > 0)
		ret = 0;
out:
	ts_sockdiag_close(sd);
	for (i = 0; i < 3; i++)
		if (c.fd[i] >= 0)
			close(c.fd[i]);
	ts_netns_destroy(&ns, NULL);
	return ret;
}

static int parse_count(const char *s, int dflt)
{
	char *end;
	long v;

	if (!s)
		return dflt;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > 1000000)
		return -1;
	return (int)v;
}

int main(int argc, char **argv)
{
	int dumps = parse_count(argc > 1 ? argv[1] : NULL, 200);
	int gets = parse_count(argc > 2 ? argv[2] : NULL, 5000);

	if (dumps < 0 || gets < 0) {
		fprintf(stderr, "usage: sockdiag_bench [DUMPS [GETS]] (each 1-1000000)\n");
		return 2;
	}
	if (measure("shared", false, dumps, gets) < 0 || measure("own", true, dumps, gets) < 0)
		return 1;
	return 0;
}
