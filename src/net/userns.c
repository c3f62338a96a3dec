/* SPDX-License-Identifier: MIT */
/*
 * Entering a rootless run's user namespace (net/userns.h). The single map
 * is written by the process itself; subordinate ranges need the setuid
 * helpers newuidmap and newgidmap, which must run outside the new
 * namespace (a setuid program started inside it would not gain root, as
 * root is not mapped there): so a helper process is forked before the
 * unshare, waits until the namespace exists and then runs both on the
 * caller's pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/infile.h"
#include "net/pasta.h"
#include "net/prog.h"
#include "net/userns.h"

/* A subordinate-id file is a few lines; a larger one is not read. */
#define SUBID_FILE_MAX (1u << 20)
/* argv of a helper: name, pid, then three numbers a line. */
#define HELPER_ARGC (2 + 3 * TS_IDMAP_MAX)

bool ts_userns_wanted(void)
{
	return geteuid() != 0;
}

/* Write @text to /proc/self/@name (uid_map, gid_map, setgroups). System calls only. */
static int write_self(const char *name, const char *text)
{
	char path[64];
	size_t len = strlen(text);
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0 || (size_t)n != len)
		ret = n < 0 ? -errno : -EIO;
	close(fd);
	return ret;
}

/* The map for @id from @path; an absent file grants nothing. Returns lines or -errno. */
static int read_map(const char *path, const char *name, uint32_t id, struct ts_idmap *m,
		    struct ts_err *err)
{
	struct ts_err e;
	char *text = NULL;
	size_t len = 0;
	int ret;

	ret = ts_in_read(path, SUBID_FILE_MAX, &text, &len, &e);
	if (ret == -ENOENT)
		return ts_idmap_build("", 0, path, name, id, m, err);
	if (ret < 0) {
		*err = e;
		return ret;
	}
	ret = ts_idmap_build(text, len, path, name, id, m, err);
	free(text);
	return ret;
}

struct helper {
	bool maps;	    /* run newuidmap and newgidmap */
	bool pasta;	    /* then pasta (net/pasta.h) */
	pid_t target;	    /* the process whose namespaces they are for */
	char prog[3][4096]; /* newuidmap, newgidmap, pasta */
	char *argv[2][HELPER_ARGC + 1];
	char num[2][HELPER_ARGC][12];
};

/* @h's argv for map @m with program @which (0: uid, 1: gid), for pid @pid. */
static void helper_argv(struct helper *h, int which, pid_t pid, const struct ts_idmap *m)
{
	size_t i, k = 0;

	h->argv[which][k++] = h->prog[which];
	snprintf(h->num[which][0], sizeof(h->num[which][0]), "%ld", (long)pid);
	h->argv[which][k++] = h->num[which][0];
	for (i = 0; i < m->n; i++) {
		snprintf(h->num[which][k], sizeof(h->num[which][k]), "%u", m->r[i].inside);
		h->argv[which][k] = h->num[which][k];
		k++;
		snprintf(h->num[which][k], sizeof(h->num[which][k]), "%u", m->r[i].outside);
		h->argv[which][k] = h->num[which][k];
		k++;
		snprintf(h->num[which][k], sizeof(h->num[which][k]), "%u", m->r[i].count);
		h->argv[which][k] = h->num[which][k];
		k++;
	}
	h->argv[which][k] = NULL;
}

/*
 * The helper process: wait for 'g' on @fd, then map (exit status 1:
 * newuidmap failed, 2: newgidmap), then start pasta and its keeper, which
 * keeps @life (3). Never returns.
 */
static void helper_main(struct helper *h, int fd, int life)
{
	struct ts_err e;
	struct ts_proc p;
	char c = 0;
	int i, st;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	if (c != 'g')
		_exit(0); /* the unshare failed: nothing to map */
	for (i = 0; h->maps && i < 2; i++) {
		ts_proc_init(&p, h->argv[i]);
		p.file = h->prog[i];
		p.err.how = TS_PROC_INHERIT; /* their own message says what they refused */
		st = ts_proc_run(&p, 10000, &e);
		ts_proc_release(&p);
		if (st != 0) {
			if (st < 0)
				fprintf(stderr, "tasshape: %s\n", e.msg);
			_exit(i + 1);
		}
	}
	if (h->pasta && ts_pasta_start(h->prog[2], h->target, life, &e) < 0) {
		fprintf(stderr, "tasshape: %s\n", e.msg);
		_exit(3);
	}
	_exit(0);
}

/*
 * Decide the maps: subordinate ranges through the helpers (@h->maps) when
 * both files grant some and both helpers are installed; else one id each,
 * written by this process (@u->note says why). With @h->pasta, find pasta.
 */
static int plan_maps(struct ts_userns *u, struct ts_idmap *um, struct ts_idmap *gm,
		     struct helper *h, struct ts_err *err)
{
	const struct passwd *pw = getpwuid(u->uid);
	const char *name = pw ? pw->pw_name : NULL;
	int ret;

	ret = read_map(TS_SUBUID_FILE, name, u->uid, um, err);
	if (ret > 0)
		ret = read_map(TS_SUBGID_FILE, name, u->gid, gm, err);
	if (ret < 0)
		return ret;
	if (h->pasta && ts_prog_find("pasta", h->prog[2], sizeof(h->prog[2])) < 0) {
		ts_err_set(err, "--outside pasta: pasta not found (Debian: apt install passt)");
		return -ENOENT;
	}
	if (um->n == 1 || gm->n == 1) {
		snprintf(u->note, sizeof(u->note), "no range for %s in %s and %s",
			 name ? name : "this uid", TS_SUBUID_FILE, TS_SUBGID_FILE);
	} else if (ts_prog_find("newuidmap", h->prog[0], sizeof(h->prog[0])) < 0 ||
		   ts_prog_find("newgidmap", h->prog[1], sizeof(h->prog[1])) < 0) {
		snprintf(u->note, sizeof(u->note),
			 "newuidmap/newgidmap not found (Debian: apt install uidmap)");
	} else {
		u->helpers = h->maps = true;
		u->sub_uids = um->r[1].count;
		u->sub_gids = gm->r[1].count;
		for (size_t i = 2; i < um->n; i++)
			u->sub_uids += um->r[i].count;
		for (size_t i = 2; i < gm->n; i++)
			u->sub_gids += gm->r[i].count;
		return 0;
	}
	um->n = gm->n = 1;
	return 0;
}

/* The single map, written by the process itself (setgroups must be denied first). */
static int map_self(const struct ts_idmap *um, const struct ts_idmap *gm, struct ts_err *err)
{
	char text[64];
	int ret;

	ts_idmap_format(um, text, sizeof(text));
	ret = write_self("uid_map", text);
	if (ret == 0)
		ret = write_self("setgroups", "deny");
	if (ret == 0) {
		ts_idmap_format(gm, text, sizeof(text));
		ret = write_self("gid_map", text);
	}
	if (ret < 0)
		ts_err_set(err, "cannot write the new user namespace's id maps: %s",
			   strerror(-ret));
	return ret;
}

/*
 * Unshare; write the single map unless the helper maps (@maps); then tell
 * the helper (@go, -1: none) to go on, or to give up.
 */
static int unshare_all(int go, bool maps, const struct ts_idmap *um, const struct ts_idmap *gm,
		       struct ts_err *err)
{
	int ret = 0, e;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS) < 0) {
		e = errno;
		ts_err_set(err,
			   "cannot create a user namespace: %s (rootless runs need "
			   "user.max_user_namespaces > 0 and no policy that forbids "
			   "unprivileged user namespaces; or run it with sudo)",
			   strerror(e));
		ret = -e;
	}
	if (ret == 0 && !maps)
		ret = map_self(um, gm, err);
	if (go >= 0) {
		if (ret == 0 && write(go, "g", 1) != 1)
			ret = -EIO;
		close(go);
	}
	return ret;
}

/* Wait for the helper process @pid; 0 when both maps were written. */
static int helper_wait(pid_t pid, struct ts_err *err)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			ts_err_set(err, "waiting for newuidmap/newgidmap: %s", strerror(errno));
			return -errno;
		}
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
		ts_err_set(err, "--outside pasta: pasta could not attach to the run's namespace "
				"(its message is above)");
	else
		ts_err_set(err, "%s refused the ranges of %s (its message is above)",
			   WIFEXITED(st) && WEXITSTATUS(st) == 2 ? "newgidmap" : "newuidmap",
			   WIFEXITED(st) && WEXITSTATUS(st) == 2 ? TS_SUBGID_FILE : TS_SUBUID_FILE);
	return -EPERM;
}

/* Subordinate ranges or pasta: the helper maps and attaches from outside, after the unshare. */
static int enter_helped(struct ts_userns *u, struct helper *h, const struct ts_idmap *um,
			const struct ts_idmap *gm, struct ts_err *err)
{
	int fds[2], life[2] = {-1, -1}, ret;
	pid_t pid;

	h->target = getpid();
	helper_argv(h, 0, h->target, um);
	helper_argv(h, 1, h->target, gm);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		ts_err_set(err, "pipe: %s", strerror(errno));
		return -errno;
	}
	if (h->pasta && pipe2(life, O_CLOEXEC) < 0) {
		ret = -errno;
		ts_err_set(err, "pipe: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	/* Not io/proc.c: the helper stays outside as this process unshares; it maps via io/proc.c. */
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		ts_err_set(err, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		if (life[0] >= 0) {
			close(life[0]);
			close(life[1]);
		}
		return ret;
	}
	if (pid == 0) {
		close(fds[1]);
		if (life[1] >= 0)
			close(life[1]);
		helper_main(h, fds[0], life[0]);
	}
	close(fds[0]);
	if (life[0] >= 0)
		close(life[0]);
	/* Never closed but by ts_userns_leave or the process's end: either ends pasta's keeper. */
	u->life = life[1];
	ret = unshare_all(fds[1], h->maps, um, gm, err);
	if (helper_wait(pid, ret < 0 ? NULL : err) < 0 && ret == 0)
		ret = -EPERM;
	return ret;
}

int ts_userns_enter(struct ts_userns *u, bool pasta, struct ts_err *err)
{
	struct ts_idmap um, gm;
	struct helper *h;
	int ret;

	memset(u, 0, sizeof(*u));
	u->life = -1;
	u->uid = getuid();
	u->gid = getgid();
	h = calloc(1, sizeof(*h));
	if (!h) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	h->pasta = u->pasta = pasta;
	ret = plan_maps(u, &um, &gm, h, err);
	if (ret < 0)
		goto out;
	if (h->maps || h->pasta)
		ret = enter_helped(u, h, &um, &gm, err);
	else
		ret = unshare_all(-1, false, &um, &gm, err);
	if (ret == 0 && (getuid() != 0 || getgid() != 0)) {
		ts_err_set(err, "the new user namespace does not map this user to root");
		ret = -EPERM;
	}
	/* After pasta attached: a resolver on the host's loopback, through pasta's forwarder. */
	if (ret == 0 && pasta) {
		ret = ts_pasta_resolv_mount(err);
		ret = ret > 0 ? 0 : ret;
	}
	if (ret == 0) {
		char v[32];

		/* For what the run starts: a tasshape among it is rootless too. */
		snprintf(v, sizeof(v), "%u:%u", (unsigned int)u->uid, (unsigned int)u->gid);
		setenv(TS_ROOTLESS_ENV, v, 1);
		/* Last: what the run starts dies with it (userns_init.c). */
		ret = ts_userns_pidns(u, err);
	}
out:
	free(h);
	return ret;
}

/*
 * Whether this process is in a user namespace other than the initial one,
 * whose map is the one line "0 0 4294967295" (NS_GET_PARENT cannot tell:
 * it refuses a parent outside the caller's own namespace, as every
 * namespace's parent is to a process inside it).
 */
static bool in_child_userns(void)
{
	unsigned long long in, out, count;
	char buf[128] = "";
	ssize_t n;
	int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC), used = 0;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %llu %n", &in, &out, &count, &used) != 3)
		return true; /* not the initial map's one line */
	return in != 0 || out != 0 || count != 4294967295ull || buf[used] != '\0';
}

int ts_userns_inherited(struct ts_userns *u, struct ts_err *err)
{
	const char *v = getenv(TS_ROOTLESS_ENV);
	int ret;

	if (!v || !in_child_userns())
		return 0;
	ret = ts_userns_env_parse(v, &u->uid, &u->gid, err);
	return ret < 0 ? ret : 1;
}

bool ts_userns_rootless(void)
{
	struct ts_userns u;

	return ts_userns_inherited(&u, NULL) > 0;
}

void ts_userns_leave(struct ts_userns *u)
{
	if (u->life >= 0)
		close(u->life);
	u->life = -1;
}

int ts_userns_nest(uid_t uid, gid_t gid)
{
	char line[48];
	int ret;

	if (unshare(CLONE_NEWUSER) < 0)
		return -errno;
	/* One line mapping the writer's own id: allowed without privilege in the parent. */
	snprintf(line, sizeof(line), "%u 0 1\n", (unsigned int)uid);
	ret = write_self("uid_map", line);
	if (ret == 0)
		ret = write_self("setgroups", "deny");
	if (ret == 0) {
		snprintf(line, sizeof(line), "%u 0 1\n", (unsigned int)gid);
		ret = write_self("gid_map", line);
	}
	return ret;
}
