/* SPDX-License-Identifier: MIT */
#include "run/preempt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

static const char *const names[] = {
	[TS_PREEMPT_UNKNOWN] = "unknown",     [TS_PREEMPT_NONE] = "none",
	[TS_PREEMPT_VOLUNTARY] = "voluntary", [TS_PREEMPT_FULL] = "full",
	[TS_PREEMPT_LAZY] = "lazy",	      [TS_PREEMPT_RT] = "rt",
};

const char *ts_preempt_name(enum ts_preempt m)
{
	return (unsigned int)m < sizeof(names) / sizeof(names[0]) ? names[m] : names[0];
}

bool ts_preempt_is_full(enum ts_preempt m)
{
	return m == TS_PREEMPT_FULL || m == TS_PREEMPT_LAZY || m == TS_PREEMPT_RT;
}

/* The model a boot parameter or debugfs names: @w of @n characters. */
static enum ts_preempt by_name(const char *w, size_t n)
{
	enum ts_preempt m;

	for (m = TS_PREEMPT_NONE; m <= TS_PREEMPT_LAZY; m++)
		if (strlen(names[m]) == n && !strncmp(w, names[m], n))
			return m;
	return TS_PREEMPT_UNKNOWN;
}

/* Is @word one of @text's whitespace-separated words? */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p = text;

	while (text && (p = strstr(p, word))) {
		if ((p == text || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n'))
			return true;
		p += n;
	}
	return false;
}

bool ts_preempt_is_dynamic(const char *version)
{
	return has_word(version, "PREEMPT_DYNAMIC");
}

/* debugfs: "none voluntary (full) lazy", the model in force in parentheses. */
static enum ts_preempt from_debugfs(const char *t)
{
	const char *open = t ? strchr(t, '(') : NULL, *close = open ? strchr(open, ')') : NULL;

	return close ? by_name(open + 1, (size_t)(close - open - 1)) : TS_PREEMPT_UNKNOWN;
}

/* The last preempt= among the kernel's words (those before a "--"). */
static enum ts_preempt from_cmdline(const char *t)
{
	enum ts_preempt m = TS_PREEMPT_UNKNOWN, v;
	size_t n;

	while (t && *t) {
		t += strspn(t, " \t\n");
		n = strcspn(t, " \t\n");
		if (n == 2 && !strncmp(t, "--", 2))
			break;
		if (n > 8 && !strncmp(t, "preempt=", 8)) {
			v = by_name(t + 8, n - 8);
			if (v != TS_PREEMPT_UNKNOWN)
				m = v;
		}
		t += n;
	}
	return m;
}

/* Is "@line=y" a whole line of @t? */
static bool has_line(const char *t, const char *line)
{
	size_t n = strlen(line);
	const char *p = t;

	while (t && (p = strstr(p, line))) {
		if ((p == t || p[-1] == '\n') && !strncmp(p + n, "=y", 2) &&
		    (p[n + 2] == '\0' || p[n + 2] == '\n'))
			return true;
		p += n;
	}
	return false;
}

static enum ts_preempt from_config(const char *t)
{
	if (has_line(t, "CONFIG_PREEMPT_RT"))
		return TS_PREEMPT_RT;
	if (has_line(t, "CONFIG_PREEMPT_LAZY"))
		return TS_PREEMPT_LAZY;
	if (has_line(t, "CONFIG_PREEMPT"))
		return TS_PREEMPT_FULL;
	if (has_line(t, "CONFIG_PREEMPT_VOLUNTARY"))
		return TS_PREEMPT_VOLUNTARY;
	if (has_line(t, "CONFIG_PREEMPT_NONE"))
		return TS_PREEMPT_NONE;
	return TS_PREEMPT_UNKNOWN;
}

enum ts_preempt ts_preempt_parse(const struct ts_preempt_src *s, const char **from)
{
	enum ts_preempt m = TS_PREEMPT_UNKNOWN;
	const char *why = "nothing recognised";

	if (has_word(s->version, "PREEMPT_RT")) {
		m = TS_PREEMPT_RT;
		why = "the kernel's version";
	} else if ((m = from_debugfs(s->debugfs)) != TS_PREEMPT_UNKNOWN) {
		why = "debugfs";
	} else if (ts_preempt_is_dynamic(s->version) &&
		   (m = from_cmdline(s->cmdline)) != TS_PREEMPT_UNKNOWN) {
		why = "preempt= on the kernel's command line";
	} else if ((m = from_config(s->config)) != TS_PREEMPT_UNKNOWN) {
		why = ts_preempt_is_dynamic(s->version) ? "the kernel's configuration, its default"
							: "the kernel's configuration";
	} else if (has_word(s->version, "PREEMPT")) {
		m = TS_PREEMPT_FULL;
		why = "the kernel's version";
	}
	if (from)
		*from = why;
	return m;
}

/* The first line of @path into @buf ("" when unreadable). */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
}

/*
 * A kernel configuration is some 10,000 lines of at most a few hundred
 * characters (gzip'd in /proc/config.gz); a file far beyond that is not one.
 */
#define CONFIG_CHUNKS_MAX 100000 /* gzgets calls of sizeof(line) - 1 characters at most */
#define PREFIX		  "CONFIG_PREEMPT"

/*
 * The CONFIG_PREEMPT* lines of the configuration at @path (gzip or plain) into @buf (what does
 * not fit in @len is left out: the lines that decide are few and short). 0, or a negative errno:
 * it cannot be opened or read, or it is too long to be a configuration (-EFBIG).
 */
static int preempt_lines(const char *path, char *buf, size_t len)
{
	char line[256];
	size_t used = 0, n;
	long chunks = 0;
	int ret = 0, gzerr;
	gzFile gz = gzopen(path, "rbe");

	buf[0] = '\0';
	if (!gz)
		return errno ? -errno : -ENOMEM;
	while (gzgets(gz, line, sizeof(line))) {
		if (++chunks > CONFIG_CHUNKS_MAX) {
			ret = -EFBIG;
			goto out;
		}
		n = strlen(line);
		if (strncmp(line, PREFIX, strlen(PREFIX)) || used + n + 1 > len)
			continue;
		memcpy(buf + used, line, n + 1);
		used += n;
	}
	gzerror(gz, &gzerr);
	if (gzerr != Z_OK && gzerr != Z_STREAM_END)
		ret = -EIO;
out:
	gzclose(gz);
	if (ret < 0)
		buf[0] = '\0';
	return ret;
}

enum ts_preempt ts_preempt_host(const char **from, bool *dynamic)
{
	char cmdline[4096], debugfs[128], config[1024], boot[320];
	struct utsname u;
	struct ts_preempt_src s = {0};

	if (uname(&u) == 0)
		s.version = u.version;
	first_line("/proc/cmdline", cmdline, sizeof(cmdline));
	first_line("/sys/kernel/debug/sched/preempt", debugfs, sizeof(debugfs));
	s.cmdline = cmdline;
	s.debugfs = debugfs;
	if (preempt_lines("/proc/config.gz", config, sizeof(config)) == 0) {
		s.config = config;
	} else if (s.version) {
		snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
		if (preempt_lines(boot, config, sizeof(config)) == 0)
			s.config = config;
	}
	if (dynamic)
		*dynamic = ts_preempt_is_dynamic(s.version);
	return ts_preempt_parse(&s, from);
}
