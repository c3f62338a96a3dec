/* SPDX-License-Identifier: MIT */
/*
 * The kernel image a guest boots, read once: checked to be a bzImage, hashed,
 * and written as a copy into the run's private directory, which QEMU boots.
 * So the image is read with io/infile.h's rules (a FIFO or device named as
 * the image is refused at once, its size bounded), QEMU needs no right to
 * the original (it may run as the invoking user), and the SHA-256 a run
 * records is that of the bytes the guest ran.
 */
#ifndef TS_VM_KIMAGE_H
#define TS_VM_KIMAGE_H

#include <stddef.h>

#include "tasshape/err.h"

/* Largest image read: Debian's bzImage is 8 MiB; one with a built-in initramfs may be more. */
#define TS_VM_KERNEL_MAX (256u << 20)

struct ts_vm_kimage {
	char *data;
	size_t len;
	char version[256]; /* from the setup header (plan.h's ts_vm_bzimage_version) */
	char sha256[65];
};

/*
 * ts_vm_kimage_load - read @path (a regular file of at most TS_VM_KERNEL_MAX
 * bytes) into @k, its version string and SHA-256. Returns 0, or -EINVAL
 * (not a bzImage, or not a regular file) or another negative errno, with
 * @err starting with @path.
 */
int ts_vm_kimage_load(const char *path, struct ts_vm_kimage *k, struct ts_err *err);

/*
 * ts_vm_kimage_write - @k as the new file @name of directory @dirfd (named
 * @path in messages), mode 0644, never through an existing name. 0 or
 * -errno with @err set.
 */
int ts_vm_kimage_write(const struct ts_vm_kimage *k, int dirfd, const char *name, const char *path,
		       struct ts_err *err);

void ts_vm_kimage_free(struct ts_vm_kimage *k);

#endif
