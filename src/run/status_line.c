/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run/status_line.h"

static const char *const short_name[2] = {"up", "down"};

int ts_progress_format(char *buf, size_t len, ts_ns_t elapsed, ts_ns_t total,
		       const struct ts_progress_dir d[2])
{
	size_t n = 0;
	int i, r;

	r = snprintf(buf, len, "tasshape %.1f", (double)elapsed / 1e9);
	n = r > 0 ? (size_t)r : 0;
	if (total > 0 && n < len) {
		r = snprintf(buf + n, len - n, "/%.1f", (double)total / 1e9);
		n += r > 0 ? (size_t)r : 0;
	}
	if (n < len) {
		r = snprintf(buf + n, len - n, "s");
		n += r > 0 ? (size_t)r : 0;
	}
	/* The downlink first: it carries most of what people watch. */
	for (i = 1; i >= 0; i--) {
		if (!d[i].present || n >= len)
			continue;
		r = snprintf(buf + n, len - n, "  %s %.1f/", short_name[i], d[i].tput_bps / 1e6);
		n += r > 0 ? (size_t)r : 0;
		if (n >= len)
			break;
		if (d[i].cap_bps < 0)
			r = snprintf(buf + n, len - n, "inf");
		else
			r = snprintf(buf + n, len - n, "%.1f", d[i].cap_bps / 1e6);
		n += r > 0 ? (size_t)r : 0;
		if (n >= len)
			break;
		r = snprintf(buf + n, len - n, " Mbit/s q %.0fms drop %" PRIu64, d[i].qdelay_ms,
			     d[i].drops);
		n += r > 0 ? (size_t)r : 0;
	}
	return (int)n;
}

void ts_dir_totals(const struct ts_dir *d, uint64_t *bytes_out, uint64_t *drops)
{
	int p, c;

	*bytes_out = *drops = 0;
	for (p = 0; p < 2; p++) {
		if (!d->pipe[p].nstages)
			continue;
		*bytes_out = d->pipe[p].stats.bytes_out; /* the last pipe a packet crosses */
		for (c = 0; c < TS_DROP__COUNT; c++)
			*drops += d->pipe[p].stats.drops[c];
	}
}

void ts_progress_init(struct ts_progress *p, int fd, ts_ns_t origin, ts_ns_t total, ts_ns_t period)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->origin = origin;
	p->total = total;
	p->period = period;
	p->last_t = origin;
	p->next = origin + period;
}

void ts_progress_tick(struct ts_progress *p, ts_ns_t now, const struct ts_dir *const dir[2])
{
	struct ts_progress_dir d[2];
	char line[512];
	ts_ns_t dt = now - p->last_t;
	int i, n;

	if (p->fd < 0 || now < p->next || dt <= 0)
		return;
	memset(d, 0, sizeof(d));
	for (i = 0; i < 2; i++) {
		uint64_t bytes, drops;

		if (!dir[i] || (!dir[i]->pipe[0].nstages && !dir[i]->pipe[1].nstages))
			continue;
		ts_dir_totals(dir[i], &bytes, &drops);
		d[i].present = true;
		d[i].tput_bps = (double)(bytes - p->last_bytes[i]) * 8e9 / (double)dt;
		d[i].cap_bps = -1;
		if (dir[i]->trace)
			d[i].cap_bps = (double)ts_trace_capacity_bytes(dir[i]->trace,
								       p->last_t - dir[i]->origin,
								       now - dir[i]->origin) *
				       8e9 / (double)dt;
		d[i].qdelay_ms = (double)p->max_delay[i] / 1e6;
		d[i].drops = drops - p->last_drops[i];
		p->last_bytes[i] = bytes;
		p->last_drops[i] = drops;
		p->max_delay[i] = 0;
	}
	line[0] = '\r';
	n = ts_progress_format(line + 1, sizeof(line) - 8, now - p->origin, p->total, d);
	if (n > (int)sizeof(line) - 9)
		n = (int)sizeof(line) - 9;
	memcpy(line + 1 + n, "\033[K", 3);
	/* A status line is best effort: a full or closed terminal is not an error. */
	if (write(p->fd, line, (size_t)n + 4) > 0)
		p->drawn = true;
	p->last_t = now;
	while (p->next <= now)
		p->next += p->period;
}

void ts_progress_end(struct ts_progress *p)
{
	if (p->fd >= 0 && p->drawn && write(p->fd, "\r\033[K", 4) < 0)
		p->drawn = false;
	p->drawn = false;
}
