/* SPDX-License-Identifier: MIT */
/* The initramfs of a sealed guest, from the host's files (seal.h has the rules). */
#ifndef TS_VM_SEALED_H
#define TS_VM_SEALED_H

#include <stdint.h>

#include "tasshape/err.h"
#include "vm/vm.h"

/*
 * ts_vm_seal_build - write to @path the sealed initramfs of a run as @c
 * describes it (vm.h, conf.seal): @self (this tasshape, the guest's init,
 * started by rdinit=), the tools, the modules of the kernel whose modules
 * directory is @moddir (NULL: none; its name is the release) with depmod's
 * index files, the /etc files the tools read, @c->seal_files, the
 * directory @cwd and the control files conf, argv and env of @ctl at
 * TS_VM_SEALED_DIR. Sets *@bytes and @sha256 (hex) of the archive. Returns
 * 0 or a negative errno with @err naming the file, the tool or the bound.
 */
int ts_vm_seal_build(const struct ts_vm_conf *c, const char *self, const char *moddir,
		     const char *cwd, const char *ctl, const char *path, uint64_t *bytes,
		     char sha256[65], struct ts_err *err);

#endif
