/* SPDX-License-Identifier: MIT */
/* Process and file helpers of the VM runner (see proc.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm/proc.h"

extern char **environ;

static int append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 4096;
		char *b;

		while (*len + n + 1 > c)
			c *= 2;
		b = realloc(*buf, c);
		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

int ts_vm_capture(char *const argv[], const char *cwd, int quiet_stderr, char **out, size_t *len,
		  struct ts_err *err)
{
	posix_spawn_file_actions_t fa;
	char *buf = NULL, chunk[65536];
	size_t n = 0, cap = 0;
	int pfd[2] = {-1, -1}, ret, st;
	pid_t pid;
	ssize_t r;

	*out = NULL;
	*len = 0;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		ret = -errno;
		ts_err_set(err, "pipe: %s", strerror(errno));
		return ret;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	if (quiet_stderr)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (ret) {
		close(pfd[0]);
		ts_err_set(err, "cannot run %s: %s", argv[0], strerror(ret));
		return -ret;
	}
	ret = 0;
	while ((r = read(pfd[0], chunk, sizeof(chunk))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!ret)
			ret = append(&buf, &n, &cap, chunk, (size_t)r);
	}
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (ret < 0) {
		free(buf);
		ts_err_set(err, "%s: out of memory for its output", argv[0]);
		return ret;
	}
	if (!buf && append(&buf, &n, &cap, "", 0) < 0)
		return -ENOMEM;
	*out = buf;
	*len = n;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int ts_vm_read_file(const char *path, char **out, size_t *len)
{
	char *buf = NULL, chunk[65536];
	size_t n = 0, cap = 0;
	int fd, ret = 0;
	ssize_t r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((r = read(fd, chunk, sizeof(chunk))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		ret = append(&buf, &n, &cap, chunk, (size_t)r);
		if (ret)
			break;
	}
	close(fd);
	if (!ret && !buf)
		ret = append(&buf, &n, &cap, "", 0);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*len = n;
	return 0;
}

int ts_vm_mkdir_p(const char *path, unsigned mode)
{
	char p[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		p[i] = i < n ? '/' : '\0';
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void ts_vm_rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
