/* SPDX-License-Identifier: MIT */
/*
 * The one way tasshape writes a kernel setting: a file of /proc/sys (a
 * sysctl) or of /sys (a module's parameter). Such a file exists already
 * and is never created. The directory is opened as given; the file is
 * reached from it without following a symbolic link or leaving it
 * (openat2's RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so a name in a tree
 * that is not the kernel's (a test's, or one a mount put there) cannot
 * send the value elsewhere; and the value goes in one write, as the kernel
 * takes a setting.
 */
#ifndef TS_IO_SYSFILE_H
#define TS_IO_SYSFILE_H

#include "tasshape/err.h"

/*
 * ts_sysfile_write - write @value to the file @name (relative, maybe of
 * several components: "net/ipv4/ip_forward") of the directory @dir.
 * Returns 0, or a negative errno with @err naming @dir/@name, the value
 * and why ("cannot write '8' to /sys/module/x/parameters/y: ...").
 */
int ts_sysfile_write(const char *dir, const char *name, const char *value, struct ts_err *err);

#endif
