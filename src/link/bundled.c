/* SPDX-License-Identifier: MIT */
/*
 * Where the bundled traces are. Three places, in order: the source tree's
 * traces/ for a binary in its own build directory (so a fresh build needs
 * no install), the share directory beside the running binary (any prefix,
 * a relocated or staged install, the .deb's /usr), and the install
 * directory configured at build time.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "link/bundled.h"

#ifndef TS_BUILD_DIR
#define TS_BUILD_DIR ""
#endif
#ifndef TS_SOURCE_DIR
#define TS_SOURCE_DIR ""
#endif
#ifndef TS_TRACE_INSTALL_DIR
#define TS_TRACE_INSTALL_DIR "/usr/local/share/tasshape/traces"
#endif

const char *const ts_bundled_exts[] = {"", ".csv", ".mahi", NULL};

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* @buf (a directory that exists) without "..", for messages and manifests. */
static const char *tidy(char *buf, size_t len)
{
	char real[PATH_MAX];

	if (realpath(buf, real) && strlen(real) < len)
		memcpy(buf, real, strlen(real) + 1);
	return buf;
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory of the running binary into @dir, or -1. */
static int exe_dir(char *dir, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", dir, len - 1);
	char *slash;

	if (n <= 0 || (size_t)n >= len - 1)
		return -1;
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return 0;
}

const char *ts_bundled_dir(char *buf, size_t len)
{
	char dir[PATH_MAX];
	int n;

	if (exe_dir(dir, sizeof(dir)) == 0) {
		if (TS_BUILD_DIR[0] && !strcmp(dir, TS_BUILD_DIR)) {
			n = snprintf(buf, len, "%s/traces", TS_SOURCE_DIR);
			if (n > 0 && (size_t)n < len && is_dir(buf))
				return buf;
		}
		n = snprintf(buf, len, "%s/../share/tasshape/traces", dir);
		if (n > 0 && (size_t)n < len && is_dir(buf))
			return tidy(buf, len);
	}
	n = snprintf(buf, len, "%s", TS_TRACE_INSTALL_DIR);
	if (n > 0 && (size_t)n < len && is_dir(buf))
		return buf;
	return NULL;
}

const char *ts_trace_resolve(const char *arg, char *buf, size_t len)
{
	char dir[PATH_MAX];
	size_t i;
	int n;

	if (!arg[0] || strchr(arg, '/') || strchr(arg, ':') || !access(arg, F_OK))
		return arg;
	if (!ts_bundled_dir(dir, sizeof(dir)))
		return arg;
	for (i = 0; ts_bundled_exts[i]; i++) {
		n = snprintf(buf, len, "%s/%s%s", dir, arg, ts_bundled_exts[i]);
		if (n > 0 && (size_t)n < len && is_file(buf))
			return buf;
	}
	return arg;
}
