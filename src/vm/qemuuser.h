/* SPDX-License-Identifier: MIT */
/*
 * Who QEMU runs as. A guest runs whatever a spec or a kernel image puts in
 * it, as its root; QEMU carries out what that root asks of the host (a
 * file created in a writable share, a read through the root share). So QEMU
 * runs with the rights of the invoking user (io/invoker.h), as OpenSSH
 * separates privileges: under TCG it needs no root, and for KVM only the
 * group of /dev/kvm. When tasshape is not run through sudo (or sudo from
 * root), QEMU runs as tasshape does. Whatever the user, the writable shares
 * keep the guest's owners and modes in extended attributes (vm/plan.h), so
 * no set-id file or device node a guest makes works on the host.
 */
#ifndef TS_VM_QEMUUSER_H
#define TS_VM_QEMUUSER_H

#include <stdbool.h>

#include "io/invoker.h"
#include "io/proc.h"
#include "tasshape/err.h"

struct ts_vm_user {
	struct ts_invoker_creds creds; /* creds.drop false: QEMU runs as this process does */
};

/*
 * ts_vm_user_get - the user QEMU runs as: the invoking user, with /dev/kvm's
 * group added when @kvm and that group (not root's) may read and write it.
 * Fails closed: -EINVAL with @err when SUDO_UID/SUDO_GID do not parse
 * (QEMU is then not started at all).
 */
int ts_vm_user_get(bool kvm, struct ts_vm_user *u, struct ts_err *err);

/*
 * ts_vm_user_kvm_check - can QEMU's user open /dev/kvm for reading and
 * writing? 0, or -EACCES (or stat's -errno) with @why saying what to change.
 */
int ts_vm_user_kvm_check(const struct ts_vm_user *u, struct ts_err *why);

/*
 * ts_vm_user_give - hand @name in @dirfd, which tasshape created there, to
 * QEMU's user (fchownat without following a link; nothing when QEMU keeps
 * tasshape's user). Only for what tasshape made itself, in a directory no
 * one else can write while it does. 0 or -errno with @err naming @path.
 */
int ts_vm_user_give(const struct ts_vm_user *u, int dirfd, const char *name, const char *path,
		    struct ts_err *err);

/*
 * ts_vm_user_access - may QEMU's user reach @path (absolute) with
 * access(2)'s @mode (R_OK, W_OK, X_OK), and read each directory on the way
 * (QEMU's 9p server opens them for reading)? Asked by a child that becomes
 * that user. 0 (also when QEMU keeps tasshape's user), or -errno with @err
 * naming @what (@path), the user and the name that failed.
 */
int ts_vm_user_access(const struct ts_vm_user *u, const char *what, const char *path, int mode,
		      struct ts_err *err);

/*
 * ts_vm_share_xattrs - does the file system of @path (a writable share,
 * @what in messages) keep user extended attributes, where QEMU keeps the
 * guest's owners and modes? 0, or -EOPNOTSUPP with @err saying where a
 * share may be instead. Another error is left for QEMU to report.
 */
int ts_vm_share_xattrs(const char *what, const char *path, struct ts_err *err);

/* ts_vm_user_apply - run @p as @u (its child_fn; @u must outlive ts_proc_start). */
void ts_vm_user_apply(const struct ts_vm_user *u, struct ts_proc *p);

#endif
