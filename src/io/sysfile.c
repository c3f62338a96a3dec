/* SPDX-License-Identifier: MIT */
/* Writing a kernel setting (sysfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "io/sysfile.h"

/* @name of @dirfd opened for writing, no link followed and nothing created: an fd or -errno. */
static int open_setting(int dirfd, const char *name)
{
	/* O_TRUNC: a regular file (a test's stand-in) is replaced, as the kernel's files are. */
	struct open_how how = {
		.flags = O_WRONLY | O_TRUNC | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

int ts_sysfile_write(const char *dir, const char *name, const char *value, struct ts_err *err)
{
	size_t len = strlen(value);
	int dfd, fd = -1, ret = 0;
	ssize_t n;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		ret = -errno;
	else
		ret = fd = open_setting(dfd, name);
	if (ret >= 0) {
		n = write(fd, value, len);
		ret = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	}
	if (ret < 0)
		ts_err_set(err, "cannot write '%.*s' to %s/%s: %s", (int)strcspn(value, "\n"),
			   value, dir, name,
			   ret == -ELOOP   ? "a symbolic link on the way"
			   : ret == -EXDEV ? "it leads out of its directory"
					   : strerror(-ret));
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return ret;
}
