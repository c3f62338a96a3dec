/* SPDX-License-Identifier: MIT */
/* Accelerator, clock, seal and vCPUs of a guest (mode.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vm/guestargs.h"
#include "vm/mode.h"

/* Time dilation: a sealed guest's, of the range guestargs.h gives, its clocks left alone. */
static int check_dilation(const struct ts_vm_conf *c, struct ts_err *err)
{
	struct ts_err e;

	if (!c->dilation_milli)
		return 0;
	if (!c->seal) {
		ts_err_set(err, "--time-dilation: only a sealed guest's clock is dilated (--seal)");
		return -EINVAL;
	}
	if (!ts_vm_dilation_valid(c->dilation_milli)) {
		ts_err_set(err, "--time-dilation: expected " TS_VM_DILATION_RANGE);
		return -EINVAL;
	}
	if (ts_vm_append_keeps_clock(c->append, &e) < 0) {
		ts_err_set(err, "--append with --time-dilation: %s", e.msg);
		return -EINVAL;
	}
	return 0;
}

int ts_vm_mode_check(const struct ts_vm_conf *c, struct ts_err *err)
{
	if (c->seal && c->clock == TS_VM_CLOCK_REAL) {
		ts_err_set(err,
			   "--seal: a sealed guest runs in virtual time only (--clock virtual)");
		return -EINVAL;
	}
	if (c->seal && c->accel == TS_VM_ACCEL_KVM) {
		ts_err_set(err,
			   "--seal: a sealed guest runs in virtual time, which only TCG counts "
			   "(--accel tcg or auto)");
		return -EINVAL;
	}
	return check_dilation(c, err);
}

/* KVM or TCG: the probe only when KVM may be used, and a fallback only under auto. */
static int decide_accel(enum ts_vm_accel accel, ts_vm_kvm_usable_fn usable, void *ctx,
			struct ts_vm_mode *m, struct ts_err *err)
{
	struct ts_err why = {{0}};

	if (accel == TS_VM_ACCEL_TCG)
		return 0;
	m->probed = true;
	if (usable(ctx, &why) == 0) {
		m->kvm = true;
		return 0;
	}
	if (accel == TS_VM_ACCEL_KVM) {
		ts_err_set(err, "--accel kvm: KVM cannot run a guest here: %s", why.msg);
		return -ENODEV;
	}
	m->fallback = true;
	snprintf(m->accel_note, sizeof(m->accel_note), "%s", why.msg);
	return 0;
}

int ts_vm_mode_decide(const struct ts_vm_conf *c, ts_vm_kvm_usable_fn usable, void *ctx,
		      struct ts_vm_mode *m, struct ts_err *err)
{
	enum ts_vm_clock clock = c->clock;
	enum ts_vm_accel accel = c->accel;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = ts_vm_mode_check(c, err);
	if (ret < 0)
		return ret;
	/* Sealed implies virtual time; virtual time implies TCG, so no probe for it. */
	if (c->seal && clock == TS_VM_CLOCK_AUTO)
		clock = TS_VM_CLOCK_VIRTUAL;
	if (clock == TS_VM_CLOCK_VIRTUAL && accel == TS_VM_ACCEL_AUTO)
		accel = TS_VM_ACCEL_TCG;
	ret = decide_accel(accel, usable, ctx, m, err);
	if (ret < 0)
		return ret;
	m->vclock = clock == TS_VM_CLOCK_VIRTUAL || (clock == TS_VM_CLOCK_AUTO && !m->kvm);
	m->cpus = c->cpus ? c->cpus : m->vclock ? 1 : 2;
	m->sealed = c->seal;
	if (m->vclock && m->kvm) {
		ts_err_set(err, "--clock virtual needs TCG (QEMU counts instructions only in its "
				"software emulation): use --accel tcg, or --clock real");
		return -EINVAL;
	}
	return 0;
}
