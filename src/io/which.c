/* SPDX-License-Identifier: MIT */
/* Finding a program by name (see which.h): absolute $PATH entries, then the system's sbin. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/which.h"

extern char **environ;

/* Append one refusal to @w->skipped, once: a directory listed twice says it once. */
static void note(struct ts_which *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct ts_which *w, const char *fmt, ...)
{
	size_t used = strlen(w->skipped), n;
	char line[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = strlen(line);
	/* What does not fit whole is left out: a cut reason would say something else. */
	if (strstr(w->skipped, line) || used + 2 + n >= sizeof(w->skipped))
		return;
	if (used) {
		memcpy(w->skipped + used, "; ", 2);
		used += 2;
	}
	memcpy(w->skipped + used, line, n + 1);
}

/*
 * Whether @st (a program, or with @dir the directory holding it) lets
 * someone other than root or @inv change what runs. 0, or -EPERM with the
 * reason ("is writable by everyone") in @why.
 */
static int unsafe(const struct stat *st, bool dir, const struct ts_invoker *inv, char *why,
		  size_t len)
{
	bool sticky = dir && (st->st_mode & S_ISVTX);

	if (!ts_invoker_trusts(inv, st->st_uid))
		snprintf(why, len, "is owned by uid %u (neither root nor the invoking user)",
			 (unsigned)st->st_uid);
	else if ((st->st_mode & S_IWOTH) && !sticky)
		snprintf(why, len, "is writable by everyone%s", dir ? " (no sticky bit)" : "");
	else if ((st->st_mode & S_IWGRP) && !sticky)
		snprintf(why, len, "is writable by group %u%s", (unsigned)st->st_gid,
			 dir ? " (no sticky bit)" : "");
	else
		return 0;
	return -EPERM;
}

static bool is_program(const char *path, struct stat *st)
{
	return stat(path, st) == 0 && S_ISREG(st->st_mode) && (st->st_mode & 0111) &&
	       access(path, X_OK) == 0;
}

/* The directory part of the absolute path @file into @dir ("/" for "/x"). */
static void parent_of(const char *file, char *dir, size_t len)
{
	const char *slash = strrchr(file, '/');
	size_t n = slash && slash > file ? (size_t)(slash - file) : 1;

	snprintf(dir, len, "%.*s", (int)n, file);
}

/*
 * The directory @dir (@what names it in the note) may not let others
 * replace @cand. 0 or -EPERM with a note.
 */
static int check_dir(struct ts_which *w, const char *cand, const char *what, const char *dir,
		     const struct ts_invoker *inv)
{
	char why[128];
	struct stat st;

	if (stat(dir, &st) < 0) {
		note(w, "found %s but cannot check %s %s: %s", cand, what, dir, strerror(errno));
		return -EPERM;
	}
	if (unsafe(&st, true, inv, why, sizeof(why)) == 0)
		return 0;
	note(w, "found %s but %s %s %s", cand, what, dir, why);
	return -EPERM;
}

/* Is @dir/@name (@dir absolute, no trailing '/') acceptable? 1 with @w->path set, else 0. */
static int try_dir(struct ts_which *w, const char *dir, const char *name,
		   const struct ts_invoker *inv)
{
	char cand[PATH_MAX], real[PATH_MAX], rdir[PATH_MAX], why[128];
	struct stat st, lst;
	int n = snprintf(cand, sizeof(cand), "%s/%s", strcmp(dir, "/") ? dir : "", name);

	if (n < 0 || (size_t)n >= sizeof(cand) || !is_program(cand, &st))
		return 0;
	if (unsafe(&st, false, inv, why, sizeof(why)) < 0) {
		note(w, "found %s but it %s", cand, why);
		return 0;
	}
	if (check_dir(w, cand, "its directory", dir, inv) < 0)
		return 0;
	/* A link leads elsewhere (/usr/sbin/iptables -> xtables-nft-multi): that directory too. */
	if (lstat(cand, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		if (!realpath(cand, real)) {
			note(w, "found %s but cannot resolve its link: %s", cand, strerror(errno));
			return 0;
		}
		parent_of(real, rdir, sizeof(rdir));
		if (check_dir(w, cand, "the directory of its target", rdir, inv) < 0)
			return 0;
	}
	snprintf(w->path, sizeof(w->path), "%s", cand);
	return 1;
}

/* A relative $PATH entry @dir (@len bytes): never searched, but a program there is noted. */
static void note_relative(struct ts_which *w, const char *dir, size_t len, const char *name)
{
	char cand[PATH_MAX];
	struct stat st;
	int n;

	if (len == 0 || (len == 1 && dir[0] == '.'))
		n = snprintf(cand, sizeof(cand), "./%s", name);
	else
		n = snprintf(cand, sizeof(cand), "%.*s/%s", (int)len, dir, name);
	if (n > 0 && (size_t)n < sizeof(cand) && is_program(cand, &st))
		note(w, "found %s but it is in a relative $PATH entry", cand);
}

/* Does the ':'-separated list @list hold the directory @dir (trailing '/' aside)? */
static bool list_has(const char *list, const char *dir)
{
	const char *p = list, *end;
	size_t n;

	for (; p; p = *end ? end + 1 : NULL) {
		end = strchrnul(p, ':');
		n = (size_t)(end - p);
		while (n > 1 && p[n - 1] == '/')
			n--;
		if (n == strlen(dir) && !strncmp(p, dir, n))
			return true;
	}
	return false;
}

/*
 * Search the ':'-separated list @list. With @skip (the $PATH already
 * searched), a directory it holds is not searched again. 1 when found, else 0.
 */
static int search_list(struct ts_which *w, const char *list, const char *skip, const char *name,
		       const struct ts_invoker *inv)
{
	const char *p = list, *end;
	char dir[PATH_MAX];
	size_t n;

	/* Every entry, a last empty one too ("/usr/bin:" ends with the current directory). */
	for (; p; p = *end ? end + 1 : NULL) {
		end = strchrnul(p, ':');
		n = (size_t)(end - p);
		if (n == 0 || p[0] != '/') {
			note_relative(w, p, n, name);
			continue;
		}
		while (n > 1 && p[n - 1] == '/')
			n--; /* "/usr/bin/" is "/usr/bin": the path found reads as usual */
		if (n >= sizeof(dir))
			continue;
		memcpy(dir, p, n);
		dir[n] = '\0';
		if (skip && list_has(skip, dir))
			continue;
		if (try_dir(w, dir, name, inv))
			return 1;
	}
	return 0;
}

int ts_which_in(const char *name, const char *path_env, const struct ts_invoker *inv,
		struct ts_which *w)
{
	w->path[0] = w->skipped[0] = '\0';
	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (strlen(name) >= sizeof(w->path))
			return -ENAMETOOLONG;
		snprintf(w->path, sizeof(w->path), "%s", name);
		return 0;
	}
	if (!path_env)
		return search_list(w, TS_WHICH_SYSTEM, NULL, name, inv) ? 0 : -ENOENT;
	if (search_list(w, path_env, NULL, name, inv) ||
	    search_list(w, TS_WHICH_SBIN, path_env, name, inv))
		return 0;
	return -ENOENT;
}

/* The value of @key ("PATH=") in @envp, or NULL. */
static const char *env_get(char *const envp[], const char *key)
{
	size_t n = strlen(key);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, key, n))
			return *envp + n;
	return NULL;
}

int ts_which_env(const char *name, char *const envp[], struct ts_which *w)
{
	struct ts_invoker inv;

	/*
	 * Not root: nothing run gains a right this user lacks, and the user's own programs
	 * are theirs to run, whoever SUDO_UID names (sudo -u). Root: fail closed, when the
	 * invoking user is not known exactly, only root's programs run.
	 */
	if (geteuid() != 0)
		inv = (struct ts_invoker){.uid = geteuid(), .gid = getegid()};
	else if (ts_invoker_parse(env_get(envp, "SUDO_UID="), env_get(envp, "SUDO_GID="), &inv,
				  NULL) < 0)
		inv = (struct ts_invoker){.uid = 0, .gid = 0};
	else if (!inv.sudo)
		inv = (struct ts_invoker){.uid = getuid(), .gid = getgid()};
	return ts_which_in(name, env_get(envp, "PATH="), &inv, w);
}

int ts_which(const char *name, struct ts_which *w)
{
	return ts_which_env(name, environ, w);
}

void ts_which_error(const char *name, const struct ts_which *w, struct ts_err *err)
{
	if (w->skipped[0])
		ts_err_set(err, "%s: command not found (%s)", name, w->skipped);
	else
		ts_err_set(err, "%s: command not found", name);
}
