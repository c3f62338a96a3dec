/* SPDX-License-Identifier: MIT */
/*
 * Reading a kernel's modules directory (--modules, a [kernel] section's
 * modules). It may be anyone's, a spec author's: its index files
 * (modules.dep, modules.alias, ...) and the module files they name are read
 * by root to build the guest's initramfs or sealed image, so each is read
 * with io/infile.h's rules (a regular file only, never waiting on a FIFO,
 * bounded before memory is asked for) and looked up beneath the directory:
 * a name with "..", an absolute name or a link that leads out of it is
 * refused, so that its index cannot make root pack /etc/shadow for a guest.
 */
#ifndef TS_VM_MODDIR_H
#define TS_VM_MODDIR_H

#include <stddef.h>

#include "tasshape/err.h"

/* Largest index file read (modules.alias of Debian's kernel: under 2 MiB). */
#define TS_VM_MODINDEX_MAX (64u << 20)
/* Largest module file read (the largest of Debian's kernel, decompressed: under 30 MiB). */
#define TS_VM_MODULE_MAX (256u << 20)

/* ts_vm_moddir_open - the modules directory @path, as ts_in_dir_open: an fd or -errno. */
int ts_vm_moddir_open(const char *path, struct ts_err *err);

/*
 * ts_vm_moddir_read - the file @rel of the modules directory @dirfd (named
 * @dir in messages), looked up beneath it, whole if at most @limit bytes:
 * as ts_in_read_at with RESOLVE_BENEATH. 0 or -errno with @err naming it.
 */
int ts_vm_moddir_read(int dirfd, const char *dir, const char *rel, size_t limit, char **out,
		      size_t *len, struct ts_err *err);

/* ts_vm_moddir_file - the same file opened (a regular file, blocking, close-on-exec), or -errno. */
int ts_vm_moddir_file(int dirfd, const char *dir, const char *rel, struct ts_err *err);

/*
 * ts_vm_modules_check - is @path a modules directory tasshape can use: a
 * directory whose modules.dep, when it has one, is a regular file of at
 * most TS_VM_MODINDEX_MAX bytes? What a spec's or the command line's
 * modules is checked with before anything boots. 0 or -errno with @err.
 */
int ts_vm_modules_check(const char *path, struct ts_err *err);

#endif
