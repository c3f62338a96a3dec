/* SPDX-License-Identifier: MIT */
/* A kernel's modules directory, read safely (moddir.h). */
#include <errno.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/infile.h"
#include "vm/moddir.h"

/* Beneath the directory, and no /proc magic link (which would lead anywhere). */
#define MODDIR_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

int ts_vm_moddir_open(const char *path, struct ts_err *err)
{
	return ts_in_dir_open(path, err);
}

int ts_vm_moddir_read(int dirfd, const char *dir, const char *rel, size_t limit, char **out,
		      size_t *len, struct ts_err *err)
{
	return ts_in_read_at(dirfd, dir, rel, MODDIR_RESOLVE, limit, out, len, err);
}

int ts_vm_moddir_file(int dirfd, const char *dir, const char *rel, struct ts_err *err)
{
	return ts_in_open_at(dirfd, dir, rel, MODDIR_RESOLVE, err);
}

int ts_vm_modules_check(const char *path, struct ts_err *err)
{
	int fd = ts_vm_moddir_open(path, err), ret;
	char *dep = NULL;
	size_t len;

	if (fd < 0)
		return fd;
	ret = ts_vm_moddir_read(fd, path, "modules.dep", TS_VM_MODINDEX_MAX, &dep, &len, err);
	/* None yet is said where it is needed (the initramfs: "run depmod"). */
	if (ret == -ENOENT)
		ret = 0;
	free(dep);
	close(fd);
	return ret;
}
