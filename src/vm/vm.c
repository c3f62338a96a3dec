/* SPDX-License-Identifier: MIT */
/*
 * The host side of the micro-VM runner (see vm.h): check what the guest is
 * given (shares, kernel, modules, modprobe and append), choose the
 * accelerator, build the initramfs when the kernel needs one, write the
 * control files, start QEMU as the invoking user (qemuuser.h), relay CMD's
 * stdout and stderr from their virtio serial ports (relay.h), enforce the
 * timeout, and read back CMD's status. QEMU is a child that dies with
 * tasshape (PR_SET_PDEATHSIG); nothing is mounted on the host, and the
 * temporary directory is removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/copytree.h"
#include "io/infile.h"
#include "io/invoker.h"
#include "io/proc.h"
#include "io/rmtree.h"
#include "tasshape/units.h"
#include "vm/capture.h"
#include "vm/guestargs.h"
#include "vm/initramfs.h"
#include "vm/kimage.h"
#include "vm/vmlinux.h"
#include "vm/mode.h"
#include "vm/moddir.h"
#include "vm/plan.h"
#include "vm/qemuuser.h"
#include "vm/relay.h"
#include "vm/sealed.h"
#include "run/awake.h"
#include "io/clock.h"
#include "vm/vm.h"

/* Environment variables CMD sees inside the guest, besides HOME, USER and LOGNAME. */
static bool env_passes(const char *kv)
{
	static const char *const keep[] = {
		"PATH=", "TERM=", "LANG=", "TZ=", "LC_", "TASSHAPE_", "TS_", "CI="};
	size_t i;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (!strncmp(kv, keep[i], strlen(keep[i])))
			return true;
	return false;
}

static int write_file(const char *dir, const char *name, const char *data, size_t len,
		      struct ts_err *err)
{
	char p[4200];
	int fd, ret = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		ret = -errno;
	if (fd >= 0 && close(fd) < 0 && !ret)
		ret = -errno;
	if (ret)
		ts_err_set(err, "%s: %s", p, strerror(-ret));
	return ret;
}

static int write_vec(const char *dir, const char *name, char *const v[], struct ts_err *err)
{
	size_t len = 0, i;
	char *buf;
	int ret;

	for (i = 0; v[i]; i++)
		len += strlen(v[i]) + 1;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	len = ts_vm_pack(v, buf, len + 1);
	ret = write_file(dir, name, buf, len, err);
	free(buf);
	return ret;
}

static int write_ctl(const char *ctl, const struct ts_vm_conf *c, const char *cwd,
		     char *const argv[], struct ts_err *err)
{
	extern char **environ;
	struct ts_vm_guest_conf g = {0};
	char *env[256], *text, outvar[PATH_MAX + 32];
	size_t n = 0, i;
	int ret;

	if (strchr(cwd, '\n') || (c->out && strchr(c->out, '\n')) ||
	    (c->modules && strchr(c->modules, '\n'))) {
		ts_err_set(err, "a directory name with a newline cannot be shared with the VM");
		return -EINVAL;
	}
	snprintf(g.cwd, sizeof(g.cwd), "%s", cwd);
	if (c->out)
		snprintf(g.out, sizeof(g.out), "%s", c->out);
	if (c->modules)
		snprintf(g.modules, sizeof(g.modules), "%s", c->modules);
	for (i = 0; i < c->nmodprobe && i < 8; i++) {
		if (strchr(c->modprobe[i], '\n')) {
			ts_err_set(err, "--modprobe '%s': one line only", c->modprobe[i]);
			return -EINVAL;
		}
		snprintf(g.modprobe[i], sizeof(g.modprobe[i]), "%s", c->modprobe[i]);
	}
	g.nmodprobe = (unsigned)i;
	text = ts_vm_conf_format(&g);
	if (!text)
		return -ENOMEM;
	ret = write_file(ctl, "conf", text, strlen(text), err);
	free(text);
	if (!ret)
		ret = write_vec(ctl, "argv", argv, err);
	env[n++] = (char *)"HOME=/root";
	env[n++] = (char *)"USER=root";
	env[n++] = (char *)"LOGNAME=root";
	/* Where --out is in the guest: its host path, or a RAM directory in a sealed guest. */
	if (c->out) {
		snprintf(outvar, sizeof(outvar), "TASSHAPE_VM_OUT=%s", c->out);
		env[n++] = outvar;
	}
	for (i = 0; environ[i] && n < 255; i++)
		if (env_passes(environ[i]) && strncmp(environ[i], "TASSHAPE_VM_OUT=", 16))
			env[n++] = environ[i];
	env[n] = NULL;
	if (!ret)
		ret = write_vec(ctl, "env", env, err);
	return ret;
}

static int listen_unix(const char *path, struct ts_err *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		ts_err_set(err, "socket path %s too long (set TMPDIR to a shorter directory)",
			   path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
		ret = -errno;
		ts_err_set(err, "unix socket %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	return fd;
}

/*
 * QEMU as @u (qemuuser.h): the invoking user when tasshape works for one, which is all a
 * guest can then reach on the host.
 */
static pid_t spawn_qemu(char *const argv[], const struct ts_vm_user *u, struct ts_err *err)
{
	struct ts_err why;
	struct ts_proc p;

	ts_proc_init(&p, argv);
	/* QEMU must not outlive tasshape, however tasshape ends (kept across the drop). */
	p.pdeathsig = SIGKILL;
	p.new_pgroup = true; /* a terminal's ^C reaches tasshape, which ends QEMU itself */
	p.err.how = TS_PROC_INHERIT;
	ts_vm_user_apply(u, &p);
	if (ts_proc_start(&p, &why) < 0) {
		ts_err_set(err, "cannot run %s%s", why.msg,
			   strstr(why.msg, "command not found")
				   ? " (apt-get install qemu-system-x86)"
				   : "");
		return -1;
	}
	return p.pid;
}

/*
 * Temporary directories of runs whose tasshape was killed (SIGKILL leaves
 * no chance to remove them; QEMU died with it): "tasshape-vm-PID.*" in
 * @tmpdir whose PID no longer exists and which belong to root or the invoking
 * user (to whom a run hands its directory, for QEMU).
 */
static void remove_stale(const char *tmpdir)
{
	DIR *d = opendir(tmpdir);
	struct ts_invoker inv;
	struct ts_err e;
	struct dirent *de;

	if (ts_invoker_get(&inv, &e) < 0)
		inv.uid = geteuid();

	while (d && (de = readdir(d))) {
		char path[PATH_MAX], *end;
		struct stat st;
		long pid;

		if (strncmp(de->d_name, "tasshape-vm-", 12))
			continue;
		pid = strtol(de->d_name + 12, &end, 10);
		if (pid <= 0 || *end != '.' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode) && (st.st_uid == geteuid() || st.st_uid == inv.uid))
			ts_rmtree_at(dirfd(d), de->d_name, path, &e);
	}
	if (d)
		closedir(d);
}

/* ts_vm_mode_decide's probe: can QEMU (@ctx) run a guest on /dev/kvm? */
static int kvm_usable(void *ctx, struct ts_err *why)
{
	return ts_vm_kvm_usable(ctx, why);
}

/*
 * Under icount QEMU 7.2 hangs bringing up a second vCPU: refused with the reason rather
 * than left to hang.
 */
static int check_icount_cpus(const char *qemu, const struct ts_vm_user *u, unsigned cpus,
			     struct ts_err *err)
{
	char *argv[] = {(char *)qemu, (char *)"-version", NULL}, *out = NULL;
	unsigned major = 0, minor = 0;
	struct ts_err e = {{0}};
	size_t len;
	int st;

	/* QEMU, or what --qemu names, runs as QEMU's user even to say its version. */
	st = ts_vm_capture(argv, NULL, -1, 1, u, &out, &len, &e);
	if (st == 0 && ts_vm_qemu_version(out, &major, &minor) == 0 &&
	    ts_vm_icount_smp_ok(major, minor)) {
		free(out);
		return 0;
	}
	free(out);
	if (major)
		ts_err_set(err,
			   "--cpus %u: QEMU %u.%u cannot bring up a second vCPU in virtual time "
			   "(under -icount the guest hangs at \"x86: Booting SMP configuration\"): "
			   "use --cpus 1, or --clock real",
			   cpus, major, minor);
	else
		ts_err_set(
			err,
			"--cpus %u: cannot tell %s's version (%s -version), and QEMU 7.2 hangs "
			"bringing up a second vCPU in virtual time: use --cpus 1, or --clock real",
			cpus, qemu, qemu);
	return -EINVAL;
}

/*
 * The guest mounts its own /tmp and /run: a file CMD names there, or this tasshape (the
 * guest's init) living there, would be "No such file" in the guest. Said before booting,
 * with what to do instead. An argument naming nothing on the host may be the guest's own.
 */
static int check_visible(const char *self, char *const argv[], const char *cwd, const char *out,
			 struct ts_err *err)
{
	const char *shares[2] = {cwd, out}, *h;
	struct stat st;
	size_t i;

	if (ts_vm_hidden_path(self, shares, 2)) {
		ts_err_set(
			err,
			"this tasshape is %s, under a directory the guest does not see (it mounts "
			"its own /tmp and /run): run a tasshape installed or built elsewhere",
			self);
		return -ENOENT;
	}
	for (i = 0; argv[i]; i++) {
		h = ts_vm_hidden_path(argv[i], shares, 2);
		if (h && stat(h, &st) == 0) {
			ts_err_set(
				err,
				"CMD argument '%s': %s is in the host's %s, which the guest does "
				"not see (it mounts its own, a tmpfs): put it in the current "
				"directory or in --out DIR (both shared at the same path), or "
				"outside /tmp and /run",
				argv[i], h, !strncmp(h, "/tmp", 4) ? "/tmp" : "/run");
			return -ENOENT;
		}
	}
	return 0;
}

/* One run: its private directory's paths and what QEMU is started with. */
struct vm_run {
	const struct ts_vm_conf *c;
	struct ts_vm_result *res;
	struct ts_vm_user user; /* who QEMU runs as */
	struct ts_vm_kimage kimg;
	int tmpfd; /* the private directory, opened when made: read back and handed over by it */
	bool have_initrd;
	char tmpl[PATH_MAX], ctl[PATH_MAX + 8], initrd[PATH_MAX + 16], kernel[PATH_MAX + 16];
	char cwd[PATH_MAX], outdir[PATH_MAX], moddir[PATH_MAX], self[PATH_MAX];
	char socks[3][PATH_MAX + 16], cmdline[4096];
	struct ts_vm_relay r;
};

/* The names of the run's sockets and files in its private directory. */
static const char *const sock_names[] = {"out.sock", "err.sock", "con.sock"};
#define CTL_NAME     "ctl"
#define CONSOLE_NAME "console"
#define KERNEL_NAME  "kernel"
#define INITRD_NAME  "initrd.cpio"
/* Largest status file the guest's init writes: a few short lines. */
#define STATUS_MAX 65536

/*
 * A writable share @path (@what, or @name once resolved, in messages): resolved (a link to / is /), never /, and on a
 * file system that keeps the guest's owners and modes in extended attributes when @xattrs.
 */
static int resolve_share(const char *path, const char *what, const char *name, bool xattrs,
			 char *out, struct ts_err *err)
{
	int ret;

	if (!realpath(path, out)) {
		ret = -errno;
		ts_err_set(err, "%s %s: %s", what, path, strerror(errno));
		return ret;
	}
	ret = ts_vm_share_check(name, out, err);
	return ret < 0 || !xattrs ? ret : ts_vm_share_xattrs(what, out, err);
}

/* What the guest is asked to load and boot with: data of a fixed shape (guestargs.h). */
static int check_guest_args(const struct ts_vm_conf *c, struct ts_err *err)
{
	struct ts_err e;
	unsigned i;

	if (c->nmodprobe > TS_VM_MAX_MODPROBE) {
		ts_err_set(err, "--modprobe: at most %d", TS_VM_MAX_MODPROBE);
		return -EINVAL;
	}
	for (i = 0; i < c->nmodprobe; i++)
		if (ts_vm_modprobe_check(c->modprobe[i], &e) < 0) {
			ts_err_set(err, "--modprobe %s", e.msg);
			return -EINVAL;
		}
	if (c->append && ts_vm_append_check(c->append, &e) < 0) {
		ts_err_set(err, "--append %s", e.msg);
		return -EINVAL;
	}
	return 0;
}

/* The kernel (read whole, a bzImage) and its modules directory (a directory, its index sane). */
static int check_kernel(struct vm_run *v, struct ts_err *err)
{
	const struct ts_vm_conf *c = v->c;
	struct ts_err e;
	int ret;

	ret = ts_vm_kimage_load(c->kernel, &v->kimg, &e);
	if (ret < 0) {
		ts_err_set(err, "--kernel %s", e.msg);
		return ret;
	}
	memcpy(v->res->version, v->kimg.version, sizeof(v->res->version));
	memcpy(v->res->sha256, v->kimg.sha256, sizeof(v->res->sha256));
	if (!c->modules)
		return 0;
	/* The guest bind-mounts the modules directory by its host path: made absolute. */
	if (!realpath(c->modules, v->moddir)) {
		ret = -errno;
		ts_err_set(err, "--modules %s: %s", c->modules, strerror(errno));
		return ret;
	}
	ret = ts_vm_modules_check(v->moddir, &e);
	if (ret < 0)
		ts_err_set(err, "--modules %s", e.msg);
	return ret;
}

/*
 * What QEMU opens by name as its user (qemuuser.h): this tasshape, which an unsealed guest boots
 * from through the host's /, the current directory (where CMD starts; written only where that
 * user may write, as exp run's spec directory may not be) and --out. Said before booting, not
 * as a guest that never reports.
 */
static int check_user_reach(const struct vm_run *v, struct ts_err *err)
{
	size_t i;
	int ret = 0;

	if (!v->c->seal)
		ret = ts_vm_user_access(&v->user, "this tasshape", v->self, R_OK | X_OK, err);
	if (!ret && !v->c->seal)
		ret = ts_vm_user_access(&v->user, "the current directory", v->cwd, R_OK | X_OK,
					err);
	if (!ret && v->c->out)
		ret = ts_vm_user_access(&v->user, "--out", v->outdir, R_OK | W_OK | X_OK, err);
	/*
	 * A sealed guest's files are packed by root: only those the user could give the guest
	 * (a spec's traces, its kernel's modules), or a spec could put a root-only file there.
	 */
	for (i = 0; !ret && v->c->seal && v->c->seal_files && v->c->seal_files[i]; i++)
		ret = ts_vm_user_access(&v->user, "packed file", v->c->seal_files[i], R_OK, err);
	if (!ret && v->c->modules)
		ret = ts_vm_user_access(&v->user, "--modules", v->moddir, R_OK | X_OK, err);
	return ret;
}

/* Everything checked before anything is made: the shares first, then the guest's inputs. */
static int run_check(struct vm_run *v, char *const argv[], struct ts_err *err)
{
	const struct ts_vm_conf *c = v->c;
	ssize_t n;
	int ret;

	if (!argv || !argv[0]) {
		ts_err_set(err, "no command to run in the VM");
		return -EINVAL;
	}
	/* A sealed guest gets no current-directory share (it is packed). */
	ret = resolve_share(c->cwd ? c->cwd : ".", "the current directory",
			    c->cwd ? c->cwd : "the current directory", !c->seal, v->cwd, err);
	if (!ret && c->out)
		ret = resolve_share(c->out, "--out", "--out", true, v->outdir, err);
	/* Fail closed before anything runs: QEMU is not started for an unknown user. */
	if (!ret)
		ret = ts_vm_user_get(false, &v->user, err);
	if (!ret)
		ret = check_guest_args(c, err);
	if (!ret)
		ret = check_kernel(v, err);
	if (ret < 0)
		return ret;
	n = readlink("/proc/self/exe", v->self, sizeof(v->self) - 1);
	if (n <= 0) {
		ret = -errno;
		ts_err_set(err, "readlink /proc/self/exe: %s", strerror(errno));
		return ret;
	}
	v->self[n] = '\0';
	ret = check_visible(v->self, argv, v->cwd, c->out ? v->outdir : NULL, err);
	if (!ret)
		ret = check_user_reach(v, err);
	return ret;
}

/* The run's private directory (0700, root's until it is handed over) and its control share. */
static int run_tmpdir(struct vm_run *v, struct ts_err *err)
{
	const char *tmpdir = getenv("TMPDIR");
	int ret;

	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	remove_stale(tmpdir);
	snprintf(v->tmpl, sizeof(v->tmpl), "%s/tasshape-vm-%d.XXXXXX", tmpdir, (int)getpid());
	if (!mkdtemp(v->tmpl)) {
		ret = -errno;
		ts_err_set(err, "mkdtemp %s: %s", v->tmpl, strerror(errno));
		v->tmpl[0] = '\0';
		return ret;
	}
	v->tmpfd = open(v->tmpl, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (v->tmpfd < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", v->tmpl, strerror(errno));
		return ret;
	}
	/* The guest writes its status into the control share: extended attributes there too. */
	ret = ts_vm_share_xattrs("TMPDIR", v->tmpl, err);
	if (ret < 0)
		return ret;
	snprintf(v->ctl, sizeof(v->ctl), "%s/" CTL_NAME, v->tmpl);
	if (mkdirat(v->tmpfd, CTL_NAME, 0755) < 0) {
		ret = -errno;
		ts_err_set(err, "mkdir %s: %s", v->ctl, strerror(errno));
	}
	return ret;
}

/*
 * KVM or TCG, virtual time or real, sealed, vCPUs (vm/mode.h); then QEMU's user, with
 * /dev/kvm's group under KVM. The caller writes CMD's --out as TS_VM_SEALED_OUT for a sealed
 * guest, so a seal must hold: the mode refuses one outside virtual time.
 */
static int run_accel(struct vm_run *v, struct ts_err *err)
{
	const char *qemu = v->c->qemu ? v->c->qemu : "qemu-system-x86_64";
	struct ts_vm_result *res = v->res;
	struct ts_vm_mode m;
	int ret;

	ret = ts_vm_mode_decide(v->c, kvm_usable, (void *)qemu, &m, err);
	if (m.fallback) {
		snprintf(res->accel_note, sizeof(res->accel_note), "%s", m.accel_note);
		fprintf(stderr,
			"tasshape vm: warning: KVM is not usable (%s); running under TCG, QEMU's "
			"software emulation: boots take seconds, and in real time (--clock real) "
			"timer precision is about 10-20 times coarser than the host's "
			"(docs/kernels.md)\n",
			m.accel_note);
	}
	if (ret < 0)
		return ret;
	res->kvm = m.kvm;
	res->vclock = m.vclock;
	res->cpus = m.cpus;
	res->sealed = m.sealed;
	res->dilation_milli = v->c->dilation_milli;
	if (res->vclock && res->cpus > 1) {
		ret = check_icount_cpus(qemu, &v->user, res->cpus, err);
		if (ret < 0)
			return ret;
	}
	/*
	 * Virtual time promises the same bytes only sealed: an unsealed guest's reads over
	 * 9p complete when the host gets to them, at instants the host's load decides.
	 */
	if (res->vclock && !res->sealed && !v->c->quiet)
		fprintf(stderr, "tasshape vm: note: virtual time without --seal is not "
				"reproducible: the guest reads the host's files over 9p, and when "
				"those reads complete depends on the host's load (--seal for runs "
				"identical to the byte; docs/kernels.md)\n");
	return res->kvm ? ts_vm_user_get(true, &v->user, err) : 0;
}

/*
 * Under TCG, the kernel QEMU boots is the bzImage's own vmlinux at its PVH entry when it has
 * one (vm/vmlinux.h): SeaBIOS and the image's decompressor no longer run in the guest. The
 * bytes replace the bzImage's in @v->kimg; its version and SHA-256, the run's record of the
 * kernel, stay the bzImage's. Not under KVM, where the decompressor costs little and PVH is
 * untested here. 0, or -ENOMEM.
 */
static int pvh_kernel(struct vm_run *v)
{
	struct ts_vm_result *res = v->res;
	char *vml;
	size_t n;
	int ret;

	if (res->kvm) {
		snprintf(res->boot_note, sizeof(res->boot_note), "not tried under KVM");
		return 0;
	}
	ret = ts_vm_vmlinux((const unsigned char *)v->kimg.data, v->kimg.len, &v->user, &vml, &n,
			    res->boot_note, sizeof(res->boot_note));
	if (ret <= 0)
		return ret;
	free(v->kimg.data);
	v->kimg.data = vml;
	v->kimg.len = n;
	res->pvh = true;
	return 0;
}

/* The control files, the initramfs (or sealed image) and the copy of the kernel QEMU boots. */
static int run_files(struct vm_run *v, char *const argv[], struct ts_err *err)
{
	const struct ts_vm_conf *c = v->c;
	struct ts_vm_conf cc = *c;
	int ret;

	/* Sealed: --out is the guest's RAM until CMD ends; modules are in the image. */
	cc.out = !c->out ? NULL : v->res->sealed ? TS_VM_SEALED_OUT : v->outdir;
	cc.modules = c->modules && !v->res->sealed ? v->moddir : NULL;
	ret = write_ctl(v->ctl, &cc, v->cwd, argv, err);
	if (ret < 0)
		return ret;
	snprintf(v->initrd, sizeof(v->initrd), "%s/" INITRD_NAME, v->tmpl);
	if (v->res->sealed) {
		ret = ts_vm_seal_build(c, v->self, c->modules ? v->moddir : NULL, v->cwd, v->ctl,
				       v->initrd, &v->res->image_bytes, v->res->image_sha256, err);
		v->have_initrd = ret == 0;
	} else if (c->modules) {
		ret = ts_vm_initramfs_build(v->moddir, v->self, v->initrd, &v->user,
					    &v->have_initrd, err);
	}
	if (ret < 0)
		return ret;
	snprintf(v->kernel, sizeof(v->kernel), "%s/" KERNEL_NAME, v->tmpl);
	ret = pvh_kernel(v);
	if (ret == 0)
		ret = ts_vm_kimage_write(&v->kimg, v->tmpfd, KERNEL_NAME, v->kernel, err);
	ts_vm_kimage_free(&v->kimg);
	return ret;
}

/* The kernel's command line: the shares or the sealed root, append, the virtual clock's mark. */
static int run_cmdline(struct vm_run *v, struct ts_err *err)
{
	const struct ts_vm_conf *c = v->c;
	size_t size = sizeof(v->cmdline);
	char extra[160], rates[96] = "";
	int ret;

	if (v->res->sealed) {
		/* The clock's mark, then (dilated) the rates of its clocks, before init's "--". */
		if (c->dilation_milli) {
			ret = ts_vm_dilation_params(rates, sizeof(rates), c->dilation_milli, err);
			if (ret < 0)
				return ret;
		}
		ret = snprintf(extra, sizeof(extra), "%s%s%s", TS_AWAKE_VCLOCK_PARAM,
			       *rates ? " " : "", rates);
		if (ret < 0 || (size_t)ret >= sizeof(extra)) {
			ts_err_set(err, "the clock's kernel parameters: longer than %zu bytes",
				   sizeof(extra) - 1);
			return -ENOSPC;
		}
		return ts_vm_cmdline_sealed(v->cmdline, size, v->self, c->append, extra, err);
	}
	ret = ts_vm_cmdline(v->cmdline, size, v->res->kvm, v->have_initrd, v->self, c->append, err);
	/*
	 * Tells a shaper in the guest that its clock counts instructions: keeping the
	 * CPU out of idle there (run/awake.c) would only stop the clock's jumps over idle time.
	 */
	if (ret < 0 || !v->res->vclock)
		return ret;
	if (strlen(v->cmdline) + sizeof(" " TS_AWAKE_VCLOCK_PARAM) > size) {
		ts_err_set(err, "kernel command line longer than %zu bytes", size - 1);
		return -ENOSPC;
	}
	strcat(v->cmdline, " " TS_AWAKE_VCLOCK_PARAM);
	return 0;
}

/*
 * In virtual time the console is a file QEMU writes, not a socket. QEMU writes a serial
 * port's bytes without blocking: when the host has not read a socket's earlier bytes, the
 * byte waits for a later turn of QEMU's main loop while the guest's clock runs on, and the
 * guest's boot takes as many virtual microseconds longer as the host was late (0.004-0.27
 * ms measured at the console's start, enough to change every later decision). A file's
 * write always completes.
 */
static int console_file(struct vm_run *v, struct ts_err *err)
{
	int fd;

	snprintf(v->socks[2], sizeof(v->socks[2]), "%s/%s", v->tmpl, CONSOLE_NAME);
	fd = openat(v->tmpfd, CONSOLE_NAME, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		int ret = -errno;

		ts_err_set(err, "%s: %s", v->socks[2], strerror(errno));
		return ret;
	}
	v->r.cfd[2] = fd;
	v->r.con_file = true;
	return ts_vm_user_give(&v->user, v->tmpfd, CONSOLE_NAME, v->socks[2], err);
}

/*
 * The sockets QEMU connects to, then everything QEMU opens by name handed to its user: what
 * this run made in its private directory, and last the directory itself (until then no one
 * else could have put a name there).
 */
static int run_sockets(struct vm_run *v, struct ts_err *err)
{
	static const char *const mine[] = {CTL_NAME, KERNEL_NAME, INITRD_NAME};
	char path[PATH_MAX + 32];
	int i, ret;

	for (i = 0; i < 3; i++) {
		if (i < 2 && v->res->sealed)
			continue; /* no serial port: CMD's output comes in the control share */
		if (i == 2 && v->res->vclock) {
			ret = console_file(v, err);
			if (ret < 0)
				return ret;
			continue;
		}
		snprintf(v->socks[i], sizeof(v->socks[i]), "%s/%s", v->tmpl, sock_names[i]);
		ret = listen_unix(v->socks[i], err);
		if (ret < 0)
			return ret;
		v->r.lfd[i] = ret;
		ret = ts_vm_user_give(&v->user, v->tmpfd, sock_names[i], v->socks[i], err);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < 3; i++) {
		if (i == 2 && !v->have_initrd)
			continue;
		snprintf(path, sizeof(path), "%s/%s", v->tmpl, mine[i]);
		ret = ts_vm_user_give(&v->user, v->tmpfd, mine[i], path, err);
		if (ret < 0)
			return ret;
	}
	return ts_vm_user_give(&v->user, v->tmpfd, ".", v->tmpl, err);
}

static void print_argv(char *const *v)
{
	fprintf(stderr, "tasshape vm:");
	for (; *v; v++)
		fprintf(stderr, " %s", *v);
	fputc('\n', stderr);
}

/* QEMU's command for the run. 0 or -ENOMEM. */
static int run_qemu_argv(const struct vm_run *v, struct ts_vm_argv *qa)
{
	const struct ts_vm_conf *c = v->c;
	struct ts_vm_plan plan = {
		.qemu = c->qemu ? c->qemu : "qemu-system-x86_64",
		.kernel = v->kernel,
		.initrd = v->have_initrd ? v->initrd : NULL,
		.kvm = v->res->kvm,
		.icount = v->res->vclock,
		.icount_shift = TS_VM_ICOUNT_SHIFT,
		.cpus = v->res->cpus,
		.memory_mib = c->memory ? c->memory >> 20 : 1024,
		.cmdline = v->cmdline,
		.ctl = v->ctl,
		.cwd = v->cwd,
		.out = c->out ? v->outdir : NULL,
		/* The read-only root share shows the host's owners as they are when QEMU is root. */
		.passthrough = !v->user.creds.drop && geteuid() == 0,
		.sealed = v->res->sealed,
		.sock_out = v->socks[0],
		.sock_err = v->socks[1],
		.console = v->socks[2],
		.console_is_socket = !v->r.con_file};

	return ts_vm_qemu_argv(&plan, qa);
}

/* CMD's status as the guest's init wrote it; read beneath the private directory, no link. */
static int run_status(struct vm_run *v, int wstatus, struct ts_err *err)
{
	struct ts_vm_status vs = {0};
	char *text = NULL;
	struct ts_err e;
	size_t len;
	int ret;

	ret = ts_in_read_at(v->tmpfd, v->tmpl, CTL_NAME "/status",
			    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, STATUS_MAX, &text, &len, &e);
	if (ret == 0)
		ret = ts_vm_status_parse(text, &vs, err);
	if (ret < 0 || !vs.have_exit) {
		if (text && vs.error[0])
			ts_err_set(err, "the guest's init failed: %s", vs.error);
		else
			ts_err_set(err,
				   "the guest ended without reporting CMD's status (QEMU %s %d%s)",
				   WIFEXITED(wstatus) ? "exit status" : "killed by signal",
				   WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus),
				   v->user.creds.drop
					   ? "; QEMU runs as the invoking user, who must be able "
					     "to read tasshape and write the current directory and "
					     "--out"
					   : "");
		ts_vm_relay_print_tail(&v->r);
		free(text);
		return -EIO;
	}
	v->res->status = vs.exit_code;
	v->res->boot_s = vs.boot_s;
	snprintf(v->res->clocksource, sizeof(v->res->clocksource), "%s", vs.clocksource);
	snprintf(v->res->preempt, sizeof(v->res->preempt), "%s", vs.preempt);
	snprintf(v->res->release, sizeof(v->res->release), "%s", vs.release);
	free(text);
	return 0;
}

/*
 * A sealed guest's CMD output, which its init left in the control share as @name, to this
 * process's @fd. The share is QEMU's user's to write: the file is opened beneath the private
 * directory, never through a link, only if it is a regular file, and copied without holding it.
 */
static void run_sealed_output(const struct vm_run *v, const char *name, int fd)
{
	char rel[64];
	struct ts_err e;
	struct stat st;
	int in;

	snprintf(rel, sizeof(rel), CTL_NAME "/%s", name);
	in = ts_in_open_at(v->tmpfd, v->tmpl, rel, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, &e);
	if (in < 0) {
		if (in != -ENOENT)
			fprintf(stderr, "tasshape vm: CMD's %s: %s\n", name, e.msg);
		return;
	}
	/*
	 * As long as it was when opened: QEMU's user, whose directory it is, could make it grow
	 * while we copy. Our stdout closed: the output is dropped, as a live relay's would be.
	 */
	if (fstat(in, &st) == 0)
		ts_copy_fd(in, fd, (uint64_t)st.st_size);
	close(in);
}

/* QEMU started, its output relayed until it ends, the timeout and the stop signals kept. */
static int run_boot(struct vm_run *v, const struct ts_vm_argv *qa, struct ts_err *err)
{
	const struct ts_vm_conf *c = v->c;
	int ret, sfd, wstatus = 0, signo = 0;
	bool timed_out = false;
	void (*oldpipe)(int);
	sigset_t mask, old;
	ts_ns_t start;
	pid_t qemu;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	start = ts_clock_now();
	qemu = spawn_qemu(qa->v, &v->user, err);
	if (qemu < 0) {
		ret = -ECHILD;
		goto out;
	}
	oldpipe = signal(SIGPIPE, SIG_IGN);
	ret = ts_vm_relay_run(&v->r, qemu, sfd, c->timeout ? start + c->timeout : 0, &wstatus,
			      &timed_out, &signo);
	if (v->res->sealed) {
		run_sealed_output(v, TS_VM_SEALED_STDOUT, 1);
		run_sealed_output(v, TS_VM_SEALED_STDERR, 2);
	}
	signal(SIGPIPE, oldpipe);
	if (ret < 0) {
		ts_err_set(err, "pidfd_open: %s", strerror(-ret));
	} else if (signo) {
		v->res->signal = signo;
		ts_err_set(err, "interrupted by signal %d: the VM was stopped", signo);
		ret = -EINTR;
	} else if (timed_out) {
		char t[32];

		v->res->timed_out = true;
		v->res->status = 124;
		ts_fmt_time(t, sizeof(t), c->timeout);
		fprintf(stderr, "tasshape vm: the guest was killed after --timeout %s\n", t);
	} else {
		ret = run_status(v, wstatus, err);
	}
out:
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int ts_vm_run(const struct ts_vm_conf *c, char *const argv[], struct ts_vm_result *res,
	      struct ts_err *err)
{
	struct vm_run *v = calloc(1, sizeof(*v));
	struct ts_vm_argv qa = {0};
	struct ts_err rm;
	int ret, i;

	memset(res, 0, sizeof(*res));
	if (!v) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	v->c = c;
	v->res = res;
	v->tmpfd = -1;
	for (i = 0; i < 3; i++)
		v->r.lfd[i] = v->r.cfd[i] = -1;
	v->r.verbose = c->verbose;
	ret = run_check(v, argv, err);
	if (!ret)
		ret = run_tmpdir(v, err);
	if (!ret)
		ret = run_accel(v, err);
	if (!ret)
		ret = run_files(v, argv, err);
	if (!ret)
		ret = run_cmdline(v, err);
	if (!ret)
		ret = run_sockets(v, err);
	if (!ret && run_qemu_argv(v, &qa) < 0) {
		ts_err_set(err, "out of memory");
		ret = -ENOMEM;
	}
	if (!ret && c->verbose)
		print_argv(qa.v);
	if (!ret)
		ret = run_boot(v, &qa, err);
	for (i = 0; i < 3; i++) {
		if (v->r.lfd[i] >= 0)
			close(v->r.lfd[i]);
		if (v->r.cfd[i] >= 0)
			close(v->r.cfd[i]);
	}
	ts_vm_argv_free(&qa);
	ts_vm_kimage_free(&v->kimg);
	if (v->tmpfd >= 0)
		close(v->tmpfd);
	if (v->tmpl[0])
		ts_rmtree(v->tmpl, &rm);
	free(v);
	return ret;
}
