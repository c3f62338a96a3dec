/* SPDX-License-Identifier: MIT */
/*
 * Line reading for the trace tools, and the trace loader they use. The
 * only file access of the model besides the trace loader (read only).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tasshape/trace_file.h"
#include "tasshape/wifi6.h"
#include "trace_read_priv.h"

#define FILE_BLOCK (1u << 20)

int ts_file_lines(const char *path, ts_line_fn fn, void *ctx, struct ts_err *err)
{
	unsigned long lineno = 0;
	size_t fill = 0, pos, got;
	char *buf = NULL;
	FILE *f;
	int ret;

	if (!*path) {
		/* fopen("") would say "No such file": name what is wrong instead. */
		ts_err_set(err, "'': an empty file name (expected the path of a file)");
		return -EINVAL;
	}
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		ts_err_set(err, "%s: cannot open: %s", path, strerror(errno));
		return ret;
	}
	ret = -ENOMEM;
	buf = malloc(FILE_BLOCK);
	if (!buf) {
		ts_err_set(err, "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		got = fread(buf + fill, 1, FILE_BLOCK - fill, f);
		fill += got;
		if (got == 0 && ferror(f)) {
			ret = errno ? -errno : -EIO;
			ts_err_set(err, "%s: cannot read: %s", path, strerror(-ret));
			goto out;
		}
		pos = 0;
		while (pos < fill) {
			char *nl = memchr(buf + pos, '\n', fill - pos);
			size_t len = nl ? (size_t)(nl - (buf + pos)) : fill - pos;

			if (!nl && got != 0 && len <= TR_LINE_MAX)
				break; /* wait for the rest of the line */
			lineno++;
			if (len > TR_LINE_MAX) {
				ts_err_set(err,
					   "%s:%lu: line longer than %d bytes: not a text file",
					   path, lineno, TR_LINE_MAX);
				ret = -EINVAL;
				goto out;
			}
			ret = fn(ctx, buf + pos, len, lineno, err);
			if (ret)
				goto out;
			pos += len + (nl ? 1 : 0);
		}
		memmove(buf, buf + pos, fill - pos);
		fill -= pos;
		if (got == 0)
			break;
	}
	ret = 0;
out:
	free(buf);
	fclose(f);
	return ret;
}

struct tool_load {
	const char *path;
	struct ts_trace_reader *r;
	bool content; /* the first content line has been seen */
	bool phy;
};

/* Does the header have a field @name (any case, blanks and quotes around)? */
static bool has_field(const char *s, size_t len, const char *prefix, bool whole)
{
	size_t plen = strlen(prefix), i = 0;

	while (i < len) {
		size_t e = i;

		while (e < len && s[e] != ',')
			e++;
		{
			size_t a = i, b = e;

			while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '"'))
				a++;
			while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '"' ||
					 s[b - 1] == '\r'))
				b--;
			if (b - a >= plen && !strncasecmp(s + a, prefix, plen) &&
			    (!whole || b - a == plen))
				return true;
		}
		i = e + 1;
	}
	return false;
}

static int tool_line(void *ctx, const char *line, size_t len, unsigned long lineno,
		     struct ts_err *err)
{
	struct tool_load *l = ctx;
	size_t i = 0;

	/*
	 * Bytes no text trace holds (control characters; a file starting
	 * with a byte above 0x7f other than a UTF-8 byte order mark) mean
	 * binary data: say so rather than "missing time column". NUL bytes
	 * are the reader's to report.
	 */
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c && c != '\t' && c != '\r') || c == 0x7f ||
		    (lineno == 1 && i == 0 && c >= 0x80 && c != 0xef)) {
			ts_err_set(err,
				   "%s:%lu: control character 0x%02x: binary data, not a text "
				   "trace file",
				   l->path, lineno, c);
			return -EINVAL;
		}
	}
	i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (!l->content && i < len && line[i] != '#' && !(line[i] >= '0' && line[i] <= '9') &&
	    memchr(line, '\0', len) == NULL) {
		l->content = true;
		/* A PHY-rate trace: read its phy_mbps column as the down direction. */
		if (has_field(line, len, "phy_mbps", true) &&
		    !has_field(line, len, "down_", false) && !has_field(line, len, "up_", false)) {
			char *copy = malloc(len + 2), *p;
			int ret;

			if (!copy)
				return -ENOMEM;
			memcpy(copy, line, len);
			copy[len] = '\0';
			p = strcasestr(copy, "phy_mbps");
			memmove(p + 9, p + 8, strlen(p + 8) + 1);
			memcpy(p, "down_mbps", 9);
			l->phy = true;
			ret = ts_trace_read_line(l->r, copy, len + 1, err);
			free(copy);
			return ret;
		}
	}
	if (i < len)
		l->content = l->content || line[i] != '#';
	return ts_trace_read_line(l->r, line, len, err);
}

/*
 * The tools accept a PHY-rate file exactly when the Wi-Fi MAC does (it
 * refuses a rate of 0, for one), and report its own message, which names
 * the phy_* column. @ret is the tools' own verdict, kept if the MAC's
 * reader has nothing to add.
 */
static int phy_verdict(const char *path, int ret, struct ts_err *err)
{
	struct ts_trace *t = NULL;
	struct ts_err e;
	int r = ts_wifi6_phy_trace_load(path, &t, &e);

	ts_trace_free(t);
	if (r < 0) {
		*err = e;
		return r;
	}
	return ret;
}

int ts_trace_load_tool(const char *path, struct ts_trace **down, struct ts_trace **up,
		       struct ts_trace_file_info *info, struct ts_err *err)
{
	struct tool_load l = {0};
	int ret;

	*down = NULL;
	*up = NULL;
	memset(info, 0, sizeof(*info));
	l.path = path;
	l.r = ts_trace_read_init(path, TS_FMT_AUTO);
	if (!l.r) {
		ts_err_set(err, "%s: out of memory", path);
		return -ENOMEM;
	}
	ret = ts_file_lines(path, tool_line, &l, err);
	if (ret == -ENOMEM && !err->msg[0])
		ts_err_set(err, "%s: out of memory", path);
	if (ret) {
		ts_trace_read_free(l.r);
		/* A PHY-rate file's errors come from the reader the Wi-Fi MAC uses. */
		return l.phy ? phy_verdict(path, ret, err) : ret;
	}
	ret = ts_trace_read_finish(l.r, down, up, err);
	if (!ret && l.phy)
		ret = phy_verdict(path, 0, err);
	if (ret) {
		ts_trace_free(*down);
		ts_trace_free(*up);
		*down = *up = NULL;
		return ret;
	}
	info->phy = l.phy;
	info->fmt = (*down ? *down : *up)->kind == TS_TRACE_OPPS ? TS_FMT_MAHIMAHI : TS_FMT_CSV;
	return 0;
}
