/* SPDX-License-Identifier: MIT */
/* The kernel image, read once and copied (kimage.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/infile.h"
#include "io/sha256.h"
#include "vm/kimage.h"
#include "vm/plan.h"
#include "vm/vm.h"

int ts_vm_kimage_load(const char *path, struct ts_vm_kimage *k, struct ts_err *err)
{
	uint8_t digest[TS_SHA256_LEN];
	struct ts_sha256 s;
	int ret;

	memset(k, 0, sizeof(*k));
	ret = ts_in_read(path, TS_VM_KERNEL_MAX, &k->data, &k->len, err);
	if (ret < 0)
		return ret;
	if (ts_vm_bzimage_version((const unsigned char *)k->data, k->len, k->version,
				  sizeof(k->version)) < 0) {
		ts_err_set(err,
			   "%s: not a bzImage (no boot-protocol header with a version string); "
			   "give an x86 bzImage such as arch/x86/boot/bzImage",
			   path);
		ts_vm_kimage_free(k);
		return -EINVAL;
	}
	ts_sha256_init(&s);
	ts_sha256_update(&s, k->data, k->len);
	ts_sha256_final(&s, digest);
	ts_sha256_hex(digest, k->sha256);
	return 0;
}

int ts_vm_kimage_write(const struct ts_vm_kimage *k, int dirfd, const char *name, const char *path,
		       struct ts_err *err)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t done = 0;
	ssize_t n;
	int ret = 0;

	if (fd < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
		return ret;
	}
	while (done < k->len) {
		n = write(fd, k->data + done, k->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (ret)
		ts_err_set(err, "%s: write error: %s", path, strerror(-ret));
	return ret;
}

void ts_vm_kimage_free(struct ts_vm_kimage *k)
{
	free(k->data);
	k->data = NULL;
	k->len = 0;
}

int ts_vm_kernel_identify(const char *kernel, char version[256], char sha256[65],
			  struct ts_err *err)
{
	struct ts_vm_kimage k;
	struct ts_err e;
	int ret = ts_vm_kimage_load(kernel, &k, &e);

	if (ret < 0) {
		ts_err_set(err, "--kernel %s", e.msg);
		return ret;
	}
	memcpy(version, k.version, sizeof(k.version));
	memcpy(sha256, k.sha256, sizeof(k.sha256));
	ts_vm_kimage_free(&k);
	return 0;
}
