/* SPDX-License-Identifier: MIT */
/* The initramfs of a kernel that has 9p, virtio or the overlay as modules. */
#ifndef TS_VM_INITRAMFS_H
#define TS_VM_INITRAMFS_H

#include <stdbool.h>

#include "tasshape/err.h"

struct ts_vm_user;

/*
 * ts_vm_initramfs_build - if the kernel whose modules directory is
 * @modules (with depmod's modules.dep, and modules.builtin) needs modules
 * to mount the VM's root, write to @path a cpio with a static busybox, those
 * modules (decompressed) in dependency order and an /init that loads them,
 * mounts the 9p root and switch_roots to "@init vm --guest-init".
 * Modules are decompressed by xz, zstd or gzip run as @as (the user QEMU
 * runs as: a module's bytes may be anyone's). Sets *@needed. Returns 0 or
 * a negative errno with @err set.
 */
int ts_vm_initramfs_build(const char *modules, const char *init, const char *path,
			  const struct ts_vm_user *as, bool *needed, struct ts_err *err);

#endif
