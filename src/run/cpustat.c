/* SPDX-License-Identifier: MIT */
/* The CPUs' idle share over a run (cpustat.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/awake.h"
#include "run/cpustat.h"

int ts_cpustat_parse(const char *text, struct ts_cpustat *c)
{
	uint64_t v[8];
	const char *p = text;
	char *end;
	int i;

	if (strncmp(p, "cpu ", 4))
		return -EINVAL;
	p += 4;
	for (i = 0; i < 8; i++) {
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (errno)
			return -EINVAL;
		p = end;
	}
	c->idle = v[3] + v[4];
	c->steal = v[7];
	c->total = 0;
	for (i = 0; i < 8; i++)
		c->total += v[i];
	return 0;
}

int64_t ts_cpustat_steal_ms(const struct ts_cpustat *a, const struct ts_cpustat *b, long hz)
{
	if (hz <= 0 || b->steal < a->steal)
		return -1;
	return (int64_t)((b->steal - a->steal) * 1000 / (uint64_t)hz);
}

int ts_cpustat_pid_ticks(const char *text, uint64_t *ticks)
{
	const char *p = strrchr(text, ')');
	uint64_t v[2];
	char *end;
	int field, i = 0;

	if (!p)
		return -EINVAL;
	/* After the name: field 3 (the state) onwards, one space apart. */
	p++;
	for (field = 3; field <= 15; field++) {
		if (*p != ' ')
			return -EINVAL;
		p++;
		if (field < 14) {
			p += strcspn(p, " \n");
			continue;
		}
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v[i++] = strtoull(p, &end, 10);
		if (errno)
			return -EINVAL;
		p = end;
	}
	*ticks = v[0] + v[1];
	return 0;
}

/* The first @len - 1 bytes of @path, NUL-terminated; the bytes read, or a negative errno. */
static ssize_t read_head(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = 0;
	close(fd);
	return n;
}

/* The idler's ticks (cpustat.h); 0 where there is none. */
static uint64_t idler_ticks(void)
{
	char buf[1024], path[64];
	uint64_t ticks;
	long pid;
	char *end;

	if (read_head(TS_AWAKE_VCLOCK_IDLER, buf, sizeof(buf)) <= 0)
		return 0;
	errno = 0;
	pid = strtol(buf, &end, 10);
	if (errno || end == buf || pid <= 1 || pid > 1L << 22)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (read_head(path, buf, sizeof(buf)) <= 0 || ts_cpustat_pid_ticks(buf, &ticks) < 0)
		return 0;
	return ticks;
}

int ts_cpustat_read(struct ts_cpustat *c)
{
	/* The first line is about 100 bytes; a whole page holds it with room to spare. */
	char buf[4096];
	ssize_t n = read_head("/proc/stat", buf, sizeof(buf));
	int ret;

	if (n < 0)
		return (int)n;
	ret = ts_cpustat_parse(buf, c);
	if (!ret)
		c->idle += idler_ticks();
	return ret;
}

int ts_cpustat_idle_permille(const struct ts_cpustat *a, const struct ts_cpustat *b)
{
	uint64_t total, idle;

	if (b->total <= a->total || b->idle < a->idle)
		return -1;
	total = b->total - a->total;
	idle = b->idle - a->idle;
	/* The idler's precise ticks against sampled ones: a little over is all idle (cpustat.h). */
	if (idle > total && idle - total <= total / 50)
		idle = total;
	if (idle > total)
		return -1;
	return (int)(idle * 1000 / total);
}
