/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "run/cpupin.h"

int ts_cpupin_choose(const cpu_set_t *allowed, int want, cpu_set_t *others)
{
	int cpu = -1, i;

	CPU_ZERO(others);
	if (CPU_COUNT(allowed) < 2)
		return -ERANGE;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, allowed))
			cpu = i;
	if (want >= 0) {
		if (want >= CPU_SETSIZE || !CPU_ISSET(want, allowed))
			return -ENOENT;
		cpu = want;
	}
	for (i = 0; i < CPU_SETSIZE; i++)
		if (i != cpu && CPU_ISSET(i, allowed))
			CPU_SET(i, others);
	return cpu;
}

int ts_cpumask_hex(const cpu_set_t *set, char *buf, size_t len)
{
	size_t at = 0;
	int g, i, w;
	uint32_t word;

	if (!len)
		return -ENOSPC;
	buf[0] = 0;
	for (g = CPU_SETSIZE / 32 - 1; g >= 0; g--) {
		word = 0;
		for (i = 0; i < 32; i++)
			if (CPU_ISSET(g * 32 + i, set))
				word |= (uint32_t)1 << i;
		if (!word && !at && g > 0)
			continue; /* a leading zero group */
		w = snprintf(buf + at, len - at, at ? ",%08x" : "%x", (unsigned int)word);
		if (w < 0 || (size_t)w >= len - at) {
			buf[0] = 0;
			return -ENOSPC;
		}
		at += (size_t)w;
	}
	return (int)at;
}

int ts_cpulist(const cpu_set_t *set, char *buf, size_t len)
{
	size_t at = 0;
	int i = 0, j, w;

	if (!len)
		return -ENOSPC;
	buf[0] = 0;
	while (i < CPU_SETSIZE) {
		if (!CPU_ISSET(i, set)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set); j++)
			;
		if (j == i)
			w = snprintf(buf + at, len - at, "%s%d", at ? "," : "", i);
		else
			w = snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", i, j);
		if (w < 0 || (size_t)w >= len - at) {
			buf[0] = 0;
			return -ENOSPC;
		}
		at += (size_t)w;
		i = j + 1;
	}
	return (int)at;
}
