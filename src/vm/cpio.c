/* SPDX-License-Identifier: MIT */
/* cpio newc writer for initramfs images (see cpio.h). */
#include <errno.h>
#include <string.h>

#include "vm/cpio.h"

void ts_cpio_init(struct ts_cpio *c, FILE *f)
{
	c->f = f;
	c->ino = 1;
	c->error = 0;
}

static void pad4(struct ts_cpio *c, size_t n)
{
	static const char zero[4];

	if (n % 4 && fwrite(zero, 1, 4 - n % 4, c->f) != 4 - n % 4 && !c->error)
		c->error = -EIO;
}

int ts_cpio_add(struct ts_cpio *c, const char *name, uint32_t mode, uint32_t rdev, const void *data,
		size_t len)
{
	size_t nlen = strlen(name) + 1;
	char hdr[111];

	if (c->error)
		return c->error;
	if (len > UINT32_MAX || nlen > UINT32_MAX) {
		c->error = -EFBIG;
		return c->error;
	}
	/* magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor,
	 * rdevminor, namesize, check: mtime 0 keeps the image reproducible. */
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 c->ino++, mode, 0u, 0u, (mode & 0170000) == 0040000 ? 2u : 1u, 0u, (unsigned)len,
		 0u, 0u, (unsigned)(rdev >> 8), (unsigned)(rdev & 0xff), (unsigned)nlen, 0u);
	if (fwrite(hdr, 1, 110, c->f) != 110 || fwrite(name, 1, nlen, c->f) != nlen) {
		c->error = -EIO;
		return c->error;
	}
	pad4(c, 110 + nlen);
	if (len && fwrite(data, 1, len, c->f) != len && !c->error)
		c->error = -EIO;
	pad4(c, len);
	return c->error;
}

int ts_cpio_finish(struct ts_cpio *c)
{
	ts_cpio_add(c, "TRAILER!!!", 0, 0, NULL, 0);
	if (fflush(c->f) && !c->error)
		c->error = -EIO;
	return c->error;
}
