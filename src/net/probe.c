/* SPDX-License-Identifier: MIT */
/* Host probes for `tasshape doctor` (probe.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/invoker.h"
#include "net/nfq.h"
#include "net/prog.h"
#include "net/topo.h"
#include "net/probe.h"
#include "net/userns.h"

int ts_probe_caps(uint64_t *eff)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, "CapEff:", 7))
			continue;
		errno = 0;
		*eff = strtoull(line + 7, &end, 16);
		ret = errno || end == line + 7 ? -EINVAL : 0;
		break;
	}
	fclose(f);
	return ret;
}

int ts_probe_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return (int)n;
}

int ts_probe_output(char *const argv[], char *buf, size_t len)
{
	struct ts_buf out = {0};
	char errtxt[256] = "";
	const char *src;
	int ret;

	buf[0] = '\0';
	ret = ts_prog_run(-1, NULL, argv, &out, errtxt, sizeof(errtxt));
	src = out.data && out.data[0] ? out.data : errtxt;
	snprintf(buf, len, "%.*s", (int)strcspn(src, "\n"), src);
	ts_buf_free(&out);
	return ret;
}

/* ---- namespaces, veth and NFQUEUE ----------------------------------------- */

#define PROBE_QNUM 1 /* queue numbers are per namespace: the inner one is new */
#define PROBE_PORT 9 /* discard: nothing listens but our own socket */
static const char probe_payload[] = "tasshape doctor probe";

struct probe_ctx {
	const struct ts_topo *t;
	struct ts_nfq *q;
	int sock;
	unsigned int seen; /* packets accepted from the queue */
	struct ts_err *err;
};

static int open_queue(void *arg)
{
	struct probe_ctx *c = arg;

	return ts_nfq_open(&c->q, PROBE_QNUM, 16, 0, c->err);
}

static int open_receiver(void *arg)
{
	struct probe_ctx *c = arg;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(PROBE_PORT)};

	sa.sin_addr = c->t->v4_ld;
	c->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->sock < 0 || bind(c->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ts_err_set(c->err, "receiver socket in the link namespace: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int send_probe(void *arg)
{
	struct probe_ctx *c = arg;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(PROBE_PORT)};
	int fd, ret = 0;

	sa.sin_addr = c->t->v4_ld;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, probe_payload, sizeof(probe_payload), 0, (struct sockaddr *)&sa,
			     sizeof(sa)) < 0) {
		ret = -errno;
		ts_err_set(c->err, "sending the probe from the inner namespace: %s",
			   strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static void accept_pkt(void *ctx, const struct ts_nfq_pkt *pkt)
{
	struct probe_ctx *c = ctx;

	if (!ts_nfq_verdict(c->q, pkt->id, 1))
		c->seen++;
}

/*
 * Accept whatever the queue holds (the new namespace may also send IPv6
 * control packets) until the probe arrives on the far side, for up to 2 s.
 */
static int pass_probe(struct probe_ctx *c, struct ts_probe_link *out, struct ts_err *err)
{
	struct pollfd p[2] = {{.fd = ts_nfq_fd(c->q), .events = POLLIN},
			      {.fd = c->sock, .events = POLLIN}};
	char buf[64];
	ssize_t n;
	int i, ret;

	for (i = 0; i < 20; i++) {
		if (poll(p, 2, 100) < 0 && errno != EINTR)
			break;
		if (p[0].revents) {
			ret = ts_nfq_receive(c->q, accept_pkt, c);
			if (ret > 0)
				out->nfq = true;
			ret = ts_nfq_flush(c->q);
			if (ret < 0) {
				ts_err_set(err, "NFQUEUE verdict: %s", strerror(-ret));
				return ret;
			}
		}
		if (!p[1].revents)
			continue;
		n = recv(c->sock, buf, sizeof(buf), 0);
		if (n == (ssize_t)sizeof(probe_payload) && !memcmp(buf, probe_payload, (size_t)n)) {
			out->pass = out->nfq;
			break;
		}
	}
	if (!out->nfq) {
		ts_err_set(err, "the NFQUEUE bound in the inner namespace saw no packet in 2 s");
		return -ETIMEDOUT;
	}
	if (!out->pass) {
		ts_err_set(err, "the accepted probe packet did not arrive in the link namespace");
		return -EIO;
	}
	return 0;
}

static int probe_steps(struct ts_topo *t, struct probe_ctx *c, struct ts_probe_link *out,
		       struct ts_err *err)
{
	int ret;

	ret = ts_topo_run_inner(t, open_queue, c, err);
	if (ret < 0)
		return ret;
	ret = ts_topo_queue(t, TS_HOOK_UP_SENDER, PROBE_QNUM, 0, err);
	if (ret < 0)
		return ret;
	ret = ts_netns_run(t->link.fd, open_receiver, c, err);
	if (ret < 0)
		return ret;
	ret = ts_topo_run_inner(t, send_probe, c, err);
	if (ret < 0)
		return ret;
	return pass_probe(c, out, err);
}

/* ts_probe_link, with the topology's flags (TS_TOPO_PRIVATE in a user namespace of its own). */
static int probe_link(struct ts_probe_link *out, unsigned int flags, struct ts_err *err)
{
	struct probe_ctx c = {.q = NULL, .sock = -1, .err = err};
	struct ts_topo t;
	struct ts_err derr;
	int ret, dret;

	memset(out, 0, sizeof(*out));
	ret = ts_topo_create(&t, flags, err);
	if (ret < 0)
		return ret;
	out->topo = true;
	c.t = &t;
	ret = probe_steps(&t, &c, out, err);
	if (c.sock >= 0)
		close(c.sock);
	if (c.q)
		ts_nfq_close(c.q);
	dret = ts_topo_destroy(&t, &derr);
	if (dret < 0 && ret == 0) {
		*err = derr;
		ret = dret;
	}
	return ret;
}

int ts_probe_link(struct ts_probe_link *out, struct ts_err *err)
{
	return probe_link(out, 0, err);
}

/* What the child sends back: the result, how far it got, and why it stopped. */
struct rootless_report {
	int ret;
	struct ts_probe_rootless out;
	struct ts_err err;
};

/* The child: enter, probe, report on @fd. Never returns. */
static void rootless_child(int fd)
{
	struct rootless_report r;
	struct ts_userns u;

	memset(&r, 0, sizeof(r));
	r.ret = ts_userns_enter(&u, false, &r.err);
	if (r.ret == 0) {
		r.out.userns = true;
		r.out.helpers = u.helpers;
		snprintf(r.out.note, sizeof(r.out.note), "%s", u.note);
		r.out.pidns = u.pidns;
		snprintf(r.out.pidns_note, sizeof(r.out.pidns_note), "%s", u.pidns_note);
		ts_invoker_set_rootless(); /* iptables shows as the overflow uid's now */
		r.ret = probe_link(&r.out.link, TS_TOPO_PRIVATE, &r.err);
	}
	_exit(write(fd, &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
}

int ts_probe_rootless(struct ts_probe_rootless *out, struct ts_err *err)
{
	struct rootless_report r;
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (pipe2(fds, O_CLOEXEC) < 0) {
		ts_err_set(err, "pipe: %s", strerror(errno));
		return -errno;
	}
	fflush(NULL); /* the child exits with _exit: nothing buffered is written twice */
	/* Not io/proc.c: the child runs no program; it unshares itself and reports in a struct. */
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		rootless_child(fds[1]);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		ts_err_set(err, "fork: %s", strerror(errno));
		return -EAGAIN;
	}
	do
		n = read(fds[0], &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(r)) {
		ts_err_set(err, "the probe's child process ended without a report");
		return -EPROTO;
	}
	*out = r.out;
	if (r.ret < 0)
		*err = r.err;
	return r.ret;
}
