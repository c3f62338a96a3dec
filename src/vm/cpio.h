/* SPDX-License-Identifier: MIT */
/*
 * A writer of the cpio "newc" format the kernel unpacks as an initramfs
 * (Documentation/driver-api/early-userspace/buffer-format.rst): a 110-byte
 * ASCII header per entry, the name, the data, each padded to 4 bytes, and
 * a "TRAILER!!!" entry at the end.
 */
#ifndef TS_VM_CPIO_H
#define TS_VM_CPIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ts_cpio {
	FILE *f;
	uint32_t ino; /* next inode number */
	int error;    /* first write error (negative errno), sticky */
};

void ts_cpio_init(struct ts_cpio *c, FILE *f);
/* One entry: @mode with its file type bits (S_IFREG, S_IFDIR, S_IFCHR, S_IFLNK). For a
 * character device @rdev is (major << 8 | minor); for a symbolic link @data is the target. */
int ts_cpio_add(struct ts_cpio *c, const char *name, uint32_t mode, uint32_t rdev, const void *data,
		size_t len);
/* The trailer; returns 0 or the first error of the archive. */
int ts_cpio_finish(struct ts_cpio *c);

#endif
