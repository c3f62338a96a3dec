/* SPDX-License-Identifier: MIT */
/* The CPUs' idle share over a run (cpustat.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	c->total = 0;
	for (i = 0; i < 8; i++)
		c->total += v[i];
	return 0;
}

int ts_cpustat_read(struct ts_cpustat *c)
{
	/* The first line is about 100 bytes; a whole page holds it with room to spare. */
	char buf[4096];
	ssize_t n;
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret < 0)
		return ret;
	buf[n] = 0;
	return ts_cpustat_parse(buf, c);
}

int ts_cpustat_idle_permille(const struct ts_cpustat *a, const struct ts_cpustat *b)
{
	uint64_t total, idle;

	if (b->total <= a->total || b->idle < a->idle)
		return -1;
	total = b->total - a->total;
	idle = b->idle - a->idle;
	if (idle > total)
		return -1;
	return (int)(idle * 1000 / total);
}
