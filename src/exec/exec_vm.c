/* SPDX-License-Identifier: MIT */
/* A run inside its kernel's micro-VM (exec_vm.h). */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/json.h"
#include "exec/exec_result.h"
#include "exec/exec_seal.h"
#include "exec/exec_warm.h"
#include "exec/exec_vm.h"
#include "vm/mode.h"
#include "vm/plan.h"
#include "vm/vm.h"

/* What a VM adds to a run's record, in result.json and in manifest.json's "kernel". */
static json_object *vm_json(const struct ts_exp_kernel *k, const char *image,
			    const struct ts_vm_result *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(k->name));
	json_object_object_add(o, "image", json_object_new_string(image));
	json_object_object_add(o, "version", json_object_new_string(r->version));
	json_object_object_add(o, "release", json_object_new_string(r->release));
	json_object_object_add(o, "sha256", json_object_new_string(r->sha256));
	json_object_object_add(o, "accel", json_object_new_string(r->kvm ? "kvm" : "tcg"));
	if (r->accel_note[0])
		json_object_object_add(o, "accel_note", json_object_new_string(r->accel_note));
	json_object_object_add(o, "clock", json_object_new_string(r->vclock ? "virtual" : "real"));
	if (r->vclock) {
		json_object_object_add(o, "icount_shift", json_object_new_int(TS_VM_ICOUNT_SHIFT));
		json_object_object_add(o, "rtc_base", json_object_new_string(TS_VM_RTC_BASE));
		json_object_object_add(o, "qemu_seed", json_object_new_int((int)TS_VM_QEMU_SEED));
	}
	/* How the guest was booted: from a sealed image (which one), or on the host's files. */
	json_object_object_add(o, "sealed", json_object_new_boolean(r->sealed));
	if (r->sealed) {
		json_object_object_add(o, "image_bytes",
				       json_object_new_int64((int64_t)r->image_bytes));
		json_object_object_add(o, "image_sha256", json_object_new_string(r->image_sha256));
	}
	json_object_object_add(o, "cpus", json_object_new_int((int)r->cpus));
	json_object_object_add(o, "clocksource", json_object_new_string(r->clocksource));
	json_object_object_add(o, "boot_s", json_object_new_double(r->boot_s));
	return o;
}

/* Add @vm (and the tcg flag) to the guest-written @name in @dir. */
static int annotate(const char *dir, const char *name, json_object *vm, bool tcg, char *err,
		    size_t errlen)
{
	char path[4200];
	json_object *root, *flags;
	struct ts_err terr;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	root = json_object_from_file(path);
	if (!root || !json_object_is_type(root, json_type_object)) {
		snprintf(err, errlen, "%s: the guest wrote no readable JSON", path);
		json_object_put(root);
		return -EIO;
	}
	if (!strcmp(name, TS_EXP_F_MANIFEST)) {
		json_object *k;

		if (!json_object_object_get_ex(root, "kernel", &k) ||
		    !json_object_is_type(k, json_type_object)) {
			k = json_object_new_object();
			json_object_object_add(root, "kernel", k);
		}
		json_object_object_add(k, "vm", json_object_get(vm));
	} else {
		json_object_object_add(root, "vm", json_object_get(vm));
		if (tcg) {
			if (!json_object_object_get_ex(root, "flags", &flags) ||
			    !json_object_is_type(flags, json_type_array)) {
				flags = json_object_new_array();
				json_object_object_add(root, "flags", flags);
			}
			json_object_array_add(flags, json_object_new_string("tcg"));
		}
	}
	ret = ts_json_write_file(path, root,
				 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, &terr);
	if (ret < 0)
		snprintf(err, errlen, "%s", terr.msg);
	json_object_put(root);
	return ret;
}

static enum ts_vm_clock clock_of(const char *s)
{
	if (s && !strcmp(s, "virtual"))
		return TS_VM_CLOCK_VIRTUAL;
	if (s && !strcmp(s, "real"))
		return TS_VM_CLOCK_REAL;
	return TS_VM_CLOCK_AUTO;
}

static enum ts_vm_accel accel_of(const char *s)
{
	if (s && !strcmp(s, "kvm"))
		return TS_VM_ACCEL_KVM;
	if (s && !strcmp(s, "tcg"))
		return TS_VM_ACCEL_TCG;
	return TS_VM_ACCEL_AUTO;
}

/*
 * accel = auto: whether KVM runs guests is asked once per tasshape exp run (a probe boots a
 * guest, seconds under a broken KVM), not once per run; the answer is the same for all.
 */
static pthread_once_t kvm_once = PTHREAD_ONCE_INIT;
static bool kvm_ok;
static struct ts_err kvm_why;

static void kvm_probe(void)
{
	kvm_ok = ts_vm_kvm_usable("qemu-system-x86_64", &kvm_why) == 0;
	if (!kvm_ok)
		fprintf(stderr,
			"tasshape: exp: warning: KVM is not usable (%s): [kernel NAME] runs with "
			"accel = auto run under TCG, QEMU's software emulation, whose timing is "
			"coarser (flag tcg; docs/kernels.md)\n",
			kvm_why.msg);
}

/*
 * ts_vm_mode_decide's probe for the [kernel] section @ctx: accel = auto asks kvm_probe, once
 * per process; accel = kvm is taken as usable, since ts_vm_run probes it for the run itself
 * and refuses the run there when it fails.
 */
static int kvm_usable(void *ctx, struct ts_err *why)
{
	const struct ts_exp_kernel *k = ctx;

	if (accel_of(k->accel) == TS_VM_ACCEL_KVM)
		return 0;
	pthread_once(&kvm_once, kvm_probe);
	if (kvm_ok)
		return 0;
	*why = kvm_why;
	return -ENODEV;
}

int ts_exp_exec_vm(const struct ts_exp_run *run, const char *rundir, char *err, size_t errlen)
{
	const struct ts_exp_kernel *k = run->vm;
	struct ts_vm_conf conf;
	struct ts_vm_result res;
	struct ts_vm_mode mode;
	struct ts_err terr;
	char kernel[4096], modules[4096], self[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 16];
	char spec[PATH_MAX], specdir[PATH_MAX], *slash;
	char rep[16], idx[16], seed[24], len[24], delay[24];
	char *argv[12];
	struct ts_exp_seal_files files = {0};
	json_object *vm = NULL;
	ssize_t n;
	size_t i;
	int ret;

	memset(&conf, 0, sizeof(conf));
	memset(&res, 0, sizeof(res));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || !realpath(rundir, dir) || !run->spec_path ||
	    !realpath(run->spec_path, spec)) {
		snprintf(err, errlen, "kernel %s: cannot find this tasshape, %s or the spec",
			 k->name, rundir);
		return -ENOENT;
	}
	self[n] = '\0';
	/*
	 * The guest has its own /tmp and /run: the spec's directory is shared (as the guest's
	 * current directory), so the spec and the files beside it are where the host has them.
	 */
	snprintf(specdir, sizeof(specdir), "%s", spec);
	slash = strrchr(specdir, '/');
	if (slash == specdir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	if (!strcmp(k->image, "debian")) {
		ret = ts_vm_debian_kernel(kernel, modules, sizeof(kernel), true, &terr);
		if (ret < 0) {
			snprintf(err, errlen, "kernel %s: image = debian: %s", k->name, terr.msg);
			return ret;
		}
		conf.kernel = kernel;
		conf.modules = k->modules ? k->modules : modules;
	} else {
		conf.kernel = k->image;
		conf.modules = k->modules;
	}
	conf.accel = accel_of(k->accel);
	conf.clock = clock_of(k->clock);
	conf.cpus = k->cpus;
	ret = ts_vm_mode_decide(&conf, kvm_usable, (void *)k, &mode, &terr);
	if (ret < 0) {
		snprintf(err, errlen, "kernel %s: %s", k->name, terr.msg);
		return ret;
	}
	/* The accelerator decided here (auto: by the probe of this process), for ts_vm_run. */
	conf.accel = mode.kvm ? TS_VM_ACCEL_KVM : TS_VM_ACCEL_TCG;
	conf.memory = k->memory;
	conf.append = k->append;
	for (i = 0; i < k->nmodprobe && i < TS_VM_MAX_MODPROBE; i++)
		conf.modprobe[i] = k->modprobe[i];
	conf.nmodprobe = (unsigned)i;
	conf.out = dir;
	conf.cwd = specdir;
	conf.quiet = true;
	/* The run's own bound (the wrapper's) plus a boot under TCG with room to spare. */
	conf.timeout = run->length + 2 * run->delay + 300 * TS_NSEC_PER_SEC;
	/*
	 * In virtual time a guest second costs wall seconds, the more the busier the host
	 * (10-40 measured here, docs/kernels.md): the bound is wall time, so it grows with it.
	 */
	if (mode.vclock)
		conf.timeout = 100 * (run->length + 2 * run->delay) + 600 * TS_NSEC_PER_SEC;

	/*
	 * In virtual time the guest is sealed (vm.h): it runs from an image of every file it
	 * needs and writes the run directory in its RAM at a path of its own, the same for
	 * every run, so that two runs of one configuration boot the same image.
	 */
	conf.seal = mode.vclock;
	if (conf.seal) {
		ret = ts_exp_seal_files(run, spec, &files, err, errlen);
		if (ret < 0)
			return ret;
		conf.seal_tools = ts_exp_seal_tools;
		conf.seal_tools_opt = ts_exp_seal_tools_opt;
		conf.seal_modules = ts_exp_warm_modules;
		conf.seal_files = (const char *const *)files.path;
	}
	snprintf(rep, sizeof(rep), "%u", run->rep);
	snprintf(idx, sizeof(idx), "%u", run->index);
	snprintf(seed, sizeof(seed), "%" PRIu64, run->seed);
	snprintf(len, sizeof(len), "%" PRId64, (int64_t)run->length);
	snprintf(delay, sizeof(delay), "%" PRId64, (int64_t)run->delay);
	argv[0] = self;
	argv[1] = (char *)TS_EXP_GUEST_CMD;
	argv[2] = spec;
	argv[3] = (char *)run->config_id;
	argv[4] = rep;
	argv[5] = idx;
	argv[6] = seed;
	argv[7] = len;
	argv[8] = delay;
	argv[9] = conf.seal ? (char *)TS_VM_SEALED_OUT : dir;
	argv[10] = NULL;
	ret = ts_vm_run(&conf, argv, &res, &terr);
	ts_exp_seal_files_free(&files);
	if (ret < 0) {
		snprintf(err, errlen, "kernel %s: %s", k->name, terr.msg);
		/*
		 * ts_vm_run took the stop signal from its signalfd (blocked while QEMU ran) and
		 * ended the guest; the campaign's own handler never saw it and would start the
		 * next run. Now that the signal is unblocked again, deliver it once more.
		 */
		if (res.signal)
			raise(res.signal);
		return ret;
	}
	if (accel_of(k->accel) == TS_VM_ACCEL_AUTO && !kvm_ok && !res.kvm && !res.accel_note[0])
		snprintf(res.accel_note, sizeof(res.accel_note), "%s", kvm_why.msg);
	snprintf(path, sizeof(path), "%s/%s", dir, TS_EXP_F_VM);
	if (ts_vm_info_json(path, &conf, &res, &terr) < 0) {
		snprintf(err, errlen, "kernel %s: %s", k->name, terr.msg);
		return -EIO;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, TS_EXP_F_RESULT);
	if (access(path, F_OK) < 0) {
		snprintf(err, errlen,
			 "kernel %s: the run in the guest wrote no result (its exit status %d%s)",
			 k->name, res.status, res.timed_out ? ", timed out" : "");
		return -EIO;
	}
	if (res.status != 0) {
		/* exp-guest could not carry the run out: not done, so resume tries it again. */
		json_object *r = json_object_from_file(path), *e = NULL;

		json_object_object_get_ex(r, "error", &e);
		snprintf(err, errlen, "kernel %s: in the guest: %s", k->name,
			 e && json_object_get_string(e) ? json_object_get_string(e)
							: "exp-guest failed");
		json_object_put(r);
		return -EIO;
	}
	vm = vm_json(k, conf.kernel, &res);
	/* In virtual time the timing is exact in guest time: the release-timing rule judges it. */
	ret = annotate(dir, TS_EXP_F_RESULT, vm, !res.kvm && !res.vclock, err, errlen);
	snprintf(path, sizeof(path), "%s/%s", dir, TS_EXP_F_MANIFEST);
	if (!ret && access(path, F_OK) == 0)
		ret = annotate(dir, TS_EXP_F_MANIFEST, vm, !res.kvm && !res.vclock, err, errlen);
	json_object_put(vm);
	return ret;
}
