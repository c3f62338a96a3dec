/* SPDX-License-Identifier: MIT */
#include "run/preempt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "net/probe.h"

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

/*
 * Is @tok in @text as a whole token: at its start or after one of @seps, and
 * at its end or before one? Words of a version string (seps " \t\n"), lines
 * of a configuration ("\n").
 */
static bool has_token(const char *text, const char *tok, const char *seps)
{
	size_t n = strlen(tok);
	const char *p = text;

	while (text && (p = strstr(p, tok))) {
		if ((p == text || strchr(seps, p[-1])) && (p[n] == '\0' || strchr(seps, p[n])))
			return true;
		p += n;
	}
	return false;
}

static bool has_word(const char *text, const char *word)
{
	return has_token(text, word, " \t\n");
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

/* The configuration's lines that decide, in the order they are looked for (lazy over full). */
static const struct {
	const char *line;
	enum ts_preempt model;
} config_lines[] = {
	{"CONFIG_PREEMPT_RT=y", TS_PREEMPT_RT},
	{"CONFIG_PREEMPT_LAZY=y", TS_PREEMPT_LAZY},
	{"CONFIG_PREEMPT=y", TS_PREEMPT_FULL},
	{"CONFIG_PREEMPT_VOLUNTARY=y", TS_PREEMPT_VOLUNTARY},
	{"CONFIG_PREEMPT_NONE=y", TS_PREEMPT_NONE},
};

static enum ts_preempt from_config(const char *t)
{
	size_t i;

	for (i = 0; i < sizeof(config_lines) / sizeof(config_lines[0]); i++)
		if (has_token(t, config_lines[i].line, "\n"))
			return config_lines[i].model;
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
	/* Unreadable (debugfs locked down or not mounted): "", which names nothing. */
	cmdline[0] = debugfs[0] = '\0';
	ts_probe_read("/proc/cmdline", cmdline, sizeof(cmdline));
	ts_probe_read("/sys/kernel/debug/sched/preempt", debugfs, sizeof(debugfs));
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
