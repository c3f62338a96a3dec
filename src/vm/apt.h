/* SPDX-License-Identifier: MIT */
/*
 * Reading apt's answers for --kernel debian, pure: the version table of
 * `apt-cache madison linux-image-amd64` and the image package that
 * `apt-cache depends linux-image-amd64=VERSION` names. The unit tests feed
 * them apt's text.
 */
#ifndef TS_VM_APT_H
#define TS_VM_APT_H

#include <stddef.h>

/* At most this many versions of the version table are tried. */
#define TS_VM_APT_MAX_VERSIONS 8
#define TS_VM_APT_VERSION_LEN  64

/*
 * ts_vm_apt_versions - the versions of `apt-cache madison` output @text
 * ("PKG | VERSION | SOURCE" lines), in apt's order (highest first), each
 * once (a version two archives carry has two lines). Fills @out with at
 * most @max versions and returns how many; lines that are not of that
 * form, and versions longer than TS_VM_APT_VERSION_LEN - 1 bytes, are
 * skipped.
 */
size_t ts_vm_apt_versions(const char *text, char out[][TS_VM_APT_VERSION_LEN], size_t max);

/*
 * ts_vm_apt_image - the first "Depends: linux-image-..." package of
 * `apt-cache depends` output @text into @pkg. Returns 0, or -ENOENT when
 * there is none (or it does not fit in @len bytes).
 */
int ts_vm_apt_image(const char *text, char *pkg, size_t len);

#endif
