/* SPDX-License-Identifier: MIT */
/* The JSON record of one VM run (ts_vm_info_json and ts_vm_result_put in vm.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "io/json.h"
#include "vm/guestargs.h"
#include "vm/plan.h"
#include "vm/vm.h"
#include "io/outfile.h"

void ts_vm_result_put(struct json_object *o, const struct ts_vm_result *r, bool *nomem)
{
	char b[32];

	ts_json_put_str(o, "accel", r->kvm ? "kvm" : "tcg", nomem);
	ts_json_put_str(o, "accel_note", r->accel_note[0] ? r->accel_note : NULL, nomem);
	/*
	 * Under TCG in real time the guest's timers are emulated: results carry that flag.
	 * In virtual time the guest's clock is its instruction count: exact in guest time.
	 */
	ts_json_put_str(o, "fidelity", r->kvm ? "kvm" : r->vclock ? "virtual" : "tcg", nomem);
	ts_json_put_str(o, "clock", r->vclock ? "virtual" : "real", nomem);
	if (r->vclock) {
		ts_json_put(o, "icount_shift", json_object_new_int(TS_VM_ICOUNT_SHIFT), nomem);
		/* The guest's seconds per second of QEMU's clock (vm.h, TS_VM_DILATION_*). */
		ts_vm_dilation_str(b, sizeof(b), r->dilation_milli);
		ts_json_put(o, "time_dilation",
			    json_object_new_double_s(
				    r->dilation_milli ? r->dilation_milli / 1000.0 : 1.0, b),
			    nomem);
		/* The guest's time of day and QEMU's RDRAND are fixed in virtual time (plan.h). */
		ts_json_put_str(o, "rtc_base", TS_VM_RTC_BASE, nomem);
		ts_json_put(o, "qemu_seed", json_object_new_int((int)TS_VM_QEMU_SEED), nomem);
	}
	/* Booted from a sealed image (which one), or on the host's files over 9p. */
	ts_json_put(o, "sealed", json_object_new_boolean(r->sealed), nomem);
	/* Only a sealed guest in virtual time gives the same bytes on any host under any load. */
	ts_json_put(o, "reproducible", json_object_new_boolean(r->vclock && r->sealed), nomem);
	if (r->sealed) {
		ts_json_put(o, "image_bytes", ts_json_count(r->image_bytes), nomem);
		ts_json_put_str(o, "image_sha256", r->image_sha256, nomem);
	}
	ts_json_put_str(o, "clocksource", r->clocksource[0] ? r->clocksource : NULL, nomem);
	/* A PREEMPT_DYNAMIC kernel's model in force (a sealed guest asks for full); else null. */
	ts_json_put_str(o, "preempt", r->preempt[0] ? r->preempt : NULL, nomem);
	/* The bzImage's own kernel entered at PVH, or the bzImage through SeaBIOS (and why). */
	ts_json_put_str(o, "boot", r->pvh ? "pvh" : "bzimage", nomem);
	ts_json_put_str(o, "boot_note", r->pvh || !r->boot_note[0] ? NULL : r->boot_note, nomem);
	ts_json_put(o, "cpus", json_object_new_int((int)r->cpus), nomem);
	snprintf(b, sizeof(b), "%.3f", r->boot_s); /* the guest reports milliseconds */
	ts_json_put(o, "boot_s", json_object_new_double_s(r->boot_s, b), nomem);
}

int ts_vm_info_json(const char *path, const struct ts_vm_conf *c, const struct ts_vm_result *r,
		    struct ts_err *err)
{
	struct json_object *o = json_object_new_object(), *k = json_object_new_object();
	bool nomem = false;
	FILE *f = NULL;
	int ret = 0;

	ts_json_put_str(k, "path", c->kernel, &nomem);
	ts_json_put_str(k, "version", r->version, &nomem);
	ts_json_put_str(k, "release", r->release[0] ? r->release : NULL, &nomem);
	ts_json_put_str(k, "sha256", r->sha256, &nomem);
	ts_json_put_str(k, "modules", c->modules, &nomem);
	ts_json_put(o, "kernel", k, &nomem);
	ts_vm_result_put(o, r, &nomem);
	ts_json_put(o, "memory_bytes", ts_json_count(c->memory ? c->memory : 1ULL << 30), &nomem);
	ts_json_put(o, "status", json_object_new_int(r->status), &nomem);
	ts_json_put(o, "timed_out", json_object_new_boolean(r->timed_out), &nomem);
	if (nomem) {
		ts_err_set(err, "out of memory for %s", path);
		ret = -ENOMEM;
		goto out;
	}
	f = ts_out_fopen(path, err);
	if (!f) {
		ret = -errno;
		goto out;
	}
	ret = ts_json_write(f, o, TS_JSON_PRETTY);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		ts_err_set(err, "--info-json %s: write error", path);
out:
	json_object_put(o);
	return ret;
}
