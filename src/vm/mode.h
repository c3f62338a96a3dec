/* SPDX-License-Identifier: MIT */
/*
 * How a guest runs: KVM or TCG, virtual time or real, sealed or not, and
 * its vCPUs, decided in one place for `tasshape vm` and for an experiment's
 * [kernel NAME] runs (docs/kernels.md, "Virtual time" and "Sealed guests").
 * The rules, in the order they are applied:
 *
 *   - sealed implies virtual time: --seal with --clock real, or with
 *     --accel kvm (virtual time needs TCG), is refused; with no clock
 *     named, a sealed guest gets virtual time;
 *   - virtual time implies TCG (QEMU counts instructions only in its
 *     software emulation): --clock virtual with --accel auto is TCG without
 *     the KVM probe;
 *   - --accel tcg: TCG, no probe; --accel kvm: the probe must pass, else
 *     refused; --accel auto: KVM when the probe passes, else TCG with the
 *     probe's answer as the note;
 *   - no clock named: virtual under TCG, real under KVM; --clock virtual
 *     under KVM (--accel kvm and a passing probe) is refused;
 *   - vCPUs: as asked, else 1 in virtual time and 2 in real time.
 *
 * Pure: the KVM probe (it boots a test guest) is the caller's, passed in.
 */
#ifndef TS_VM_MODE_H
#define TS_VM_MODE_H

#include <stdbool.h>

#include "tasshape/err.h"
#include "vm/vm.h"

struct ts_vm_mode {
	bool kvm;		     /* KVM, else TCG */
	bool vclock;		     /* virtual time (icount) */
	bool sealed;		     /* booted sealed (conf.seal; virtual time) */
	unsigned cpus;		     /* vCPUs */
	bool probed;		     /* the KVM probe was asked */
	bool fallback;		     /* --accel auto fell back to TCG: the probe failed */
	char accel_note[TS_ERR_MAX]; /* then the probe's answer, why not KVM */
};

/*
 * Is KVM usable (for @ctx, the caller's: the QEMU to run)? 0 when it is, else a negative
 * errno with @why saying why not.
 */
typedef int (*ts_vm_kvm_usable_fn)(void *ctx, struct ts_err *why);

/*
 * ts_vm_mode_check - the refusals that need no probe: @c->seal with --clock real, or with
 * --accel kvm. Returns 0, or -EINVAL with @err saying which (a front end refuses them while
 * it parses; ts_vm_mode_decide applies them first).
 */
int ts_vm_mode_check(const struct ts_vm_conf *c, struct ts_err *err);

/*
 * ts_vm_mode_decide - @m from @c's accel, clock, seal and cpus by the rules above, calling
 * @usable(@ctx, ...) only when the accelerator is not TCG already. Returns 0, or a negative
 * errno with @err set (-EINVAL: a refused combination; -ENODEV: --accel kvm and the probe
 * failed). @m is filled as far as the decision went, also on error.
 */
int ts_vm_mode_decide(const struct ts_vm_conf *c, ts_vm_kvm_usable_fn usable, void *ctx,
		      struct ts_vm_mode *m, struct ts_err *err);

#endif
