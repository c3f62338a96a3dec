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
#include "exec/exec_files.h"
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
	bool nomem = false;

	ts_json_put(o, "name", json_object_new_string(k->name), &nomem);
	ts_json_put(o, "image", json_object_new_string(image), &nomem);
	ts_json_put(o, "version", json_object_new_string(r->version), &nomem);
	ts_json_put(o, "release", json_object_new_string(r->release), &nomem);
	ts_json_put(o, "sha256", json_object_new_string(r->sha256), &nomem);
	ts_vm_result_put(o, r, &nomem);
	return ts_json_built(o, nomem);
}

/* Add @vm (and the tcg flag, and the run's @index in its matrix) to the guest-written @name. */
static int annotate(const char *dir, const char *name, json_object *vm, bool tcg, unsigned index,
		    struct ts_err *err)
{
	char path[4200];
	json_object *root, *flags;
	bool nomem = !vm; /* vm_json could not build it */
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	root = json_object_from_file(path);
	if (!root || !json_object_is_type(root, json_type_object)) {
		ts_err_set(err, "%s: the guest wrote no readable JSON", path);
		json_object_put(root);
		return -EIO;
	}
	if (!strcmp(name, TS_EXP_F_MANIFEST)) {
		json_object *k;

		if (!json_object_object_get_ex(root, "kernel", &k) ||
		    !json_object_is_type(k, json_type_object)) {
			k = json_object_new_object();
			ts_json_put(root, "kernel", k, &nomem);
		}
		if (!nomem)
			ts_json_put(k, "vm", json_object_get(vm), &nomem);
	} else {
		ts_json_put(root, "index", json_object_new_int((int)index), &nomem);
		ts_json_put(root, "vm", json_object_get(vm), &nomem);
		if (tcg) {
			if (!json_object_object_get_ex(root, "flags", &flags) ||
			    !json_object_is_type(flags, json_type_array)) {
				flags = json_object_new_array();
				ts_json_put(root, "flags", flags, &nomem);
			}
			if (!nomem)
				ts_json_append(flags, json_object_new_string("tcg"), &nomem);
		}
	}
	if (nomem) {
		ts_err_set(err, "%s: out of memory", path);
		ret = -ENOMEM;
	} else {
		ret = ts_json_write_file(
			path, root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
	}
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

/* One run in its VM: what it is given, what it ran with, and what came back. */
struct vm_job {
	const struct ts_exp_run *run;
	const struct ts_exp_kernel *k;
	struct ts_vm_conf conf;
	struct ts_vm_mode mode;
	struct ts_vm_result res;
	struct ts_exp_seal_files files;
	char kernel[4096], modules[4096]; /* image = debian: where the cache has it */
	char self[PATH_MAX], dir[PATH_MAX], spec[PATH_MAX], specdir[PATH_MAX];
	char rep[16], seed[24], len[24], delay[24]; /* exp-guest's arguments */
	char *argv[10];
};

/* This tasshape, the run directory and the spec, resolved: the guest sees them there. */
static int job_paths(struct vm_job *j, const char *rundir, struct ts_err *err)
{
	ssize_t n = readlink("/proc/self/exe", j->self, sizeof(j->self) - 1);
	char *slash;

	if (n <= 0 || !realpath(rundir, j->dir) || !j->run->spec_path ||
	    !realpath(j->run->spec_path, j->spec)) {
		ts_err_set(err, "kernel %s: cannot find this tasshape, %s or the spec", j->k->name,
			   rundir);
		return -ENOENT;
	}
	j->self[n] = '\0';
	/*
	 * The guest has its own /tmp and /run: the spec's directory is shared (as the guest's
	 * current directory), so the spec and the files beside it are where the host has them.
	 */
	snprintf(j->specdir, sizeof(j->specdir), "%s", j->spec);
	slash = strrchr(j->specdir, '/');
	if (slash == j->specdir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	return 0;
}

/* The section's image and modules, or Debian's stock kernel from the cache. */
static int job_kernel(struct vm_job *j, struct ts_err *err)
{
	const struct ts_exp_kernel *k = j->k;
	struct ts_err terr;
	int ret;

	if (strcmp(k->image, "debian")) {
		j->conf.kernel = k->image;
		j->conf.modules = k->modules;
		return 0;
	}
	ret = ts_vm_debian_kernel(j->kernel, j->modules, sizeof(j->kernel), true, &terr);
	if (ret < 0) {
		ts_err_set(err, "kernel %s: image = debian: %s", k->name, terr.msg);
		return ret;
	}
	j->conf.kernel = j->kernel;
	j->conf.modules = k->modules ? k->modules : j->modules;
	return 0;
}

/* The guest's mode (vm/mode.h), its resources, shares and time bound. */
static int job_conf(struct vm_job *j, struct ts_err *err)
{
	const struct ts_exp_kernel *k = j->k;
	const struct ts_exp_run *run = j->run;
	struct ts_vm_conf *conf = &j->conf;
	struct ts_err terr;
	size_t i;
	int ret;

	conf->accel = accel_of(k->accel);
	conf->clock = clock_of(k->clock);
	conf->cpus = k->cpus;
	ret = ts_vm_mode_decide(conf, kvm_usable, (void *)k, &j->mode, &terr);
	if (ret < 0) {
		ts_err_set(err, "kernel %s: %s", k->name, terr.msg);
		return ret;
	}
	/* The accelerator decided here (auto: by the probe of this process), for ts_vm_run. */
	conf->accel = j->mode.kvm ? TS_VM_ACCEL_KVM : TS_VM_ACCEL_TCG;
	conf->memory = k->memory;
	conf->append = k->append;
	for (i = 0; i < k->nmodprobe && i < TS_VM_MAX_MODPROBE; i++)
		conf->modprobe[i] = k->modprobe[i];
	conf->nmodprobe = (unsigned)i;
	conf->out = j->dir;
	conf->cwd = j->specdir;
	conf->quiet = true;
	/* The run's own bound (the wrapper's) plus a boot under TCG with room to spare. */
	conf->timeout = run->length + 2 * run->delay + 300 * TS_NSEC_PER_SEC;
	/*
	 * In virtual time a guest second costs wall seconds, the more the busier the host
	 * (10-40 measured here, docs/kernels.md): the bound is wall time, so it grows with it.
	 */
	if (j->mode.vclock)
		conf->timeout = 100 * (run->length + 2 * run->delay) + 600 * TS_NSEC_PER_SEC;
	/*
	 * A dilated guest's second is K seconds of QEMU's clock, which a sealed guest executes
	 * even when idle (vm/idler.h).
	 */
	if (j->mode.vclock && k->dilation_milli)
		conf->timeout = conf->timeout / 1000 * k->dilation_milli;
	return 0;
}

/*
 * In virtual time the guest is sealed (vm.h): it runs from an image of every file it
 * needs and writes the run directory in its RAM at a path of its own, the same for
 * every run, so that two runs of one configuration boot the same image.
 */
static int job_seal(struct vm_job *j, struct ts_err *err)
{
	struct ts_vm_conf *conf = &j->conf;
	int ret;

	conf->seal = j->mode.vclock;
	if (!conf->seal)
		return 0;
	conf->dilation_milli = j->k->dilation_milli;
	ret = ts_exp_seal_files(j->run, j->spec, &j->files, err);
	if (ret < 0)
		return ret;
	conf->seal_tools = ts_exp_seal_tools;
	conf->seal_tools_opt = ts_exp_seal_tools_opt;
	conf->seal_modules = ts_exp_warm_modules;
	conf->seal_files = (const char *const *)j->files.path;
	return 0;
}

/*
 * `tasshape exp-guest SPEC CONFIG REP SEED LENGTH DELAY OUT`: this one run, re-planned. Nothing
 * of the matrix it is part of (its index is the host's to record, job_record): the image, which
 * holds these arguments, is then the same for the run in any matrix, and so are its bytes.
 */
static void job_argv(struct vm_job *j)
{
	const struct ts_exp_run *run = j->run;

	snprintf(j->rep, sizeof(j->rep), "%u", run->rep);
	snprintf(j->seed, sizeof(j->seed), "%" PRIu64, run->seed);
	snprintf(j->len, sizeof(j->len), "%" PRId64, (int64_t)run->length);
	snprintf(j->delay, sizeof(j->delay), "%" PRId64, (int64_t)run->delay);
	j->argv[0] = j->self;
	j->argv[1] = (char *)TS_EXP_GUEST_CMD;
	j->argv[2] = j->spec;
	j->argv[3] = (char *)run->config_id;
	j->argv[4] = j->rep;
	j->argv[5] = j->seed;
	j->argv[6] = j->len;
	j->argv[7] = j->delay;
	j->argv[8] = j->conf.seal ? (char *)TS_VM_SEALED_OUT : j->dir;
	j->argv[9] = NULL;
}

/* Boot the guest and run exp-guest in it; then the VM runner's record, vm.json. */
static int job_boot(struct vm_job *j, struct ts_err *err)
{
	const struct ts_exp_kernel *k = j->k;
	char path[PATH_MAX + 16];
	struct ts_err terr;
	int ret;

	job_argv(j);
	ret = ts_vm_run(&j->conf, j->argv, &j->res, &terr);
	if (ret < 0) {
		ts_err_set(err, "kernel %s: %s", k->name, terr.msg);
		/*
		 * ts_vm_run took the stop signal from its signalfd (blocked while QEMU ran) and
		 * ended the guest; the campaign's own handler never saw it and would start the
		 * next run. Now that the signal is unblocked again, deliver it once more.
		 */
		if (j->res.signal)
			raise(j->res.signal);
		return ret;
	}
	if (accel_of(k->accel) == TS_VM_ACCEL_AUTO && !kvm_ok && !j->res.kvm &&
	    !j->res.accel_note[0])
		snprintf(j->res.accel_note, sizeof(j->res.accel_note), "%s", kvm_why.msg);
	snprintf(path, sizeof(path), "%s/%s", j->dir, TS_EXP_F_VM);
	if (ts_vm_info_json(path, &j->conf, &j->res, &terr) < 0) {
		ts_err_set(err, "kernel %s: %s", k->name, terr.msg);
		return -EIO;
	}
	return 0;
}

/* Did exp-guest carry the run out? A result.json it wrote, and its exit status 0. */
static int job_check(const struct vm_job *j, struct ts_err *err)
{
	const char *name = j->k->name;
	char path[PATH_MAX + 16];
	json_object *r, *e = NULL;

	snprintf(path, sizeof(path), "%s/%s", j->dir, TS_EXP_F_RESULT);
	if (access(path, F_OK) < 0) {
		ts_err_set(err,
			   "kernel %s: the run in the guest wrote no result (its exit status %d%s)",
			   name, j->res.status, j->res.timed_out ? ", timed out" : "");
		return -EIO;
	}
	if (j->res.status == 0)
		return 0;
	/* exp-guest could not carry the run out: not done, so resume tries it again. */
	r = json_object_from_file(path);
	json_object_object_get_ex(r, "error", &e);
	ts_err_set(err, "kernel %s: in the guest: %s", name,
		   e && json_object_get_string(e) ? json_object_get_string(e) : "exp-guest failed");
	json_object_put(r);
	return -EIO;
}

/* What only the host knows, added to the guest-written result.json and manifest.json. */
static int job_record(const struct vm_job *j, struct ts_err *err)
{
	/* In virtual time the timing is exact in guest time: the release-timing rule judges it. */
	bool tcg = !j->res.kvm && !j->res.vclock;
	json_object *vm = vm_json(j->k, j->conf.kernel, &j->res);
	char path[PATH_MAX + 16];
	int ret;

	ret = annotate(j->dir, TS_EXP_F_RESULT, vm, tcg, j->run->index, err);
	snprintf(path, sizeof(path), "%s/%s", j->dir, TS_EXP_F_MANIFEST);
	if (!ret && access(path, F_OK) == 0)
		ret = annotate(j->dir, TS_EXP_F_MANIFEST, vm, tcg, j->run->index, err);
	json_object_put(vm);
	return ret;
}

int ts_exp_exec_vm(const struct ts_exp_run *run, const char *rundir, struct ts_err *err)
{
	struct vm_job *j = calloc(1, sizeof(*j));
	int ret;

	if (!j) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	j->run = run;
	j->k = run->vm;
	ret = job_paths(j, rundir, err);
	if (!ret)
		ret = job_kernel(j, err);
	if (!ret)
		ret = job_conf(j, err);
	if (!ret)
		ret = job_seal(j, err);
	if (!ret)
		ret = job_boot(j, err);
	if (!ret)
		ret = job_check(j, err);
	if (!ret)
		ret = job_record(j, err);
	ts_exp_seal_files_free(&j->files);
	free(j);
	return ret;
}
