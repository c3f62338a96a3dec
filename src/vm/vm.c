/* SPDX-License-Identifier: MIT */
/*
 * The host side of the micro-VM runner (see vm.h): choose the
 * accelerator, build the initramfs when the kernel needs one, write the
 * control files, start QEMU, relay CMD's stdout and stderr from their
 * virtio serial ports, enforce the timeout, and read back CMD's status.
 * QEMU is a child that dies with tasshape (PR_SET_PDEATHSIG); nothing is
 * mounted on the host, and the temporary directory is removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/proc.h"
#include "io/sha256.h"
#include "tasshape/units.h"
#include "vm/initramfs.h"
#include "vm/plan.h"
#include "vm/sealed.h"
#include "vm/capture.h"
#include "run/awake.h"
#include "run/clock.h"
#include "vm/vm.h"

#define CONSOLE_TAIL 8192

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

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* stdout closed: the guest's output is dropped, the run goes on */
		p += w;
		n -= (size_t)w;
	}
}

struct relay {
	int lfd[3], cfd[3]; /* listening and connected: stdout, stderr, console */
	bool verbose;
	char tail[CONSOLE_TAIL];
	size_t tail_len;
};

static void console_keep(struct relay *r, const char *p, size_t n)
{
	if (n >= CONSOLE_TAIL) {
		memcpy(r->tail, p + n - CONSOLE_TAIL, CONSOLE_TAIL);
		r->tail_len = CONSOLE_TAIL;
		return;
	}
	if (r->tail_len + n > CONSOLE_TAIL) {
		size_t drop = r->tail_len + n - CONSOLE_TAIL;

		memmove(r->tail, r->tail + drop, r->tail_len - drop);
		r->tail_len -= drop;
	}
	memcpy(r->tail + r->tail_len, p, n);
	r->tail_len += n;
}

/* One poll turn's work on relay slot @i. */
static void relay_io(struct relay *r, int i, short revents)
{
	char buf[65536];
	ssize_t n;

	if (r->cfd[i] < 0) {
		int fd = accept4(r->lfd[i], NULL, NULL, SOCK_CLOEXEC);

		if (fd >= 0) {
			r->cfd[i] = fd;
			close(r->lfd[i]);
			r->lfd[i] = -1;
		}
		return;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = read(r->cfd[i], buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(r->cfd[i]);
		r->cfd[i] = -2; /* done */
		return;
	}
	if (i < 2) {
		write_all(i + 1, buf, (size_t)n);
	} else {
		console_keep(r, buf, (size_t)n);
		if (r->verbose)
			write_all(2, buf, (size_t)n);
	}
}

/* Copies the guest's output until QEMU has exited and every stream is at its end. */
static int relay_run(struct relay *r, pid_t qemu, int sfd, ts_ns_t deadline, int *wstatus,
		     bool *timed_out, int *signo)
{
	int pidfd = (int)syscall(SYS_pidfd_open, qemu, 0);
	bool exited = false;

	if (pidfd < 0)
		return -errno;
	for (;;) {
		struct pollfd pf[5];
		int slot[5], np = 0, i, timeout = -1;

		for (i = 0; i < 3; i++) {
			int fd = r->cfd[i] >= 0 ? r->cfd[i] : r->cfd[i] == -1 ? r->lfd[i] : -1;

			if (fd >= 0) {
				pf[np] = (struct pollfd){.fd = fd, .events = POLLIN};
				slot[np++] = i;
			}
		}
		if (exited && !np)
			break;
		if (!exited) {
			pf[np] = (struct pollfd){.fd = pidfd, .events = POLLIN};
			slot[np++] = 3;
			pf[np] = (struct pollfd){.fd = sfd, .events = POLLIN};
			slot[np++] = 4;
			if (deadline) {
				ts_ns_t left = deadline - ts_clock_now();

				timeout = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
			}
		} else {
			/* QEMU is gone: a stream it never connected will not connect now. */
			for (i = 0; i < 3; i++)
				if (r->cfd[i] == -1) {
					close(r->lfd[i]);
					r->lfd[i] = -1;
					r->cfd[i] = -2;
				}
			timeout = 2000;
		}
		i = poll(pf, (nfds_t)np, timeout);
		if (i < 0 && errno == EINTR)
			continue;
		if (i < 0)
			break;
		if (i == 0 && exited)
			break; /* a stream still open 2 s after QEMU ended: a stray writer */
		if (i == 0 && deadline && ts_clock_now() >= deadline) {
			*timed_out = true;
			kill(qemu, SIGKILL);
			deadline = 0;
			continue;
		}
		for (i = 0; i < np; i++) {
			if (!pf[i].revents)
				continue;
			if (slot[i] < 3) {
				relay_io(r, slot[i], pf[i].revents);
			} else if (slot[i] == 3) {
				while (waitpid(qemu, wstatus, 0) < 0 && errno == EINTR)
					;
				exited = true;
			} else {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					*signo = (int)si.ssi_signo;
					kill(qemu, SIGKILL);
				}
			}
		}
	}
	if (!exited) {
		kill(qemu, SIGKILL);
		while (waitpid(qemu, wstatus, 0) < 0 && errno == EINTR)
			;
	}
	close(pidfd);
	return 0;
}

static pid_t spawn_qemu(char *const argv[], struct ts_err *err)
{
	struct ts_err why;
	struct ts_proc p;

	ts_proc_init(&p, argv);
	/* QEMU must not outlive tasshape, however tasshape ends. */
	p.pdeathsig = SIGKILL;
	p.new_pgroup = true; /* a terminal's ^C reaches tasshape, which ends QEMU itself */
	p.err.how = TS_PROC_INHERIT;
	if (ts_proc_start(&p, &why) < 0) {
		ts_err_set(err, "cannot run %s%s", why.msg,
			   strstr(why.msg, "command not found")
				   ? " (apt-get install qemu-system-x86)"
				   : "");
		return -1;
	}
	return p.pid;
}

int ts_vm_kernel_identify(const char *kernel, char version[256], char sha256[65],
			  struct ts_err *err)
{
	unsigned char head[65536];
	ssize_t n;
	int fd, ret;

	fd = open(kernel, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		ts_err_set(err, "--kernel %s: %s", kernel, strerror(errno));
		return ret;
	}
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n < 0 || ts_vm_bzimage_version(head, (size_t)n, version, 256) < 0) {
		ts_err_set(err,
			   "--kernel %s: not a bzImage (no boot-protocol header with a version "
			   "string); give an x86 bzImage such as arch/x86/boot/bzImage",
			   kernel);
		return -EINVAL;
	}
	ret = ts_sha256_file(kernel, sha256);
	if (ret < 0)
		ts_err_set(err, "--kernel %s: %s", kernel, strerror(-ret));
	return ret;
}

/*
 * KVM only where a guest really runs: first a vCPU of our own through the
 * KVM ioctls, then a test boot in QEMU itself (a KVM may pass the first
 * and still fail QEMU's vCPU set-up, as a paravirtual hypervisor's does).
 */
/*
 * Temporary directories of runs whose tasshape was killed (SIGKILL leaves
 * no chance to remove them; QEMU died with it): "tasshape-vm-PID.*" in
 * @tmpdir whose PID no longer exists and which belong to this user.
 */
static void remove_stale(const char *tmpdir)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;

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
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
			ts_vm_rm_rf(path);
	}
	if (d)
		closedir(d);
}

static int choose_accel(const struct ts_vm_conf *c, const char *qemu, struct ts_vm_result *res,
			struct ts_err *err)
{
	struct ts_err why = {{0}};

	if (c->accel == TS_VM_ACCEL_TCG) {
		res->kvm = false;
		return 0;
	}
	if (ts_vm_kvm_usable(qemu, &why) == 0) {
		res->kvm = true;
		return 0;
	}
	if (c->accel == TS_VM_ACCEL_KVM) {
		ts_err_set(err, "--accel kvm: KVM cannot run a guest here: %s", why.msg);
		return -ENODEV;
	}
	res->kvm = false;
	snprintf(res->accel_note, sizeof(res->accel_note), "%s", why.msg);
	fprintf(stderr,
		"tasshape vm: warning: KVM is not usable (%s); running under TCG, QEMU's software "
		"emulation: boots take seconds, and in real time (--clock real) timer precision "
		"is about 10-20 times coarser than the host's (docs/kernels.md)\n",
		why.msg);
	return 0;
}

/*
 * Virtual time or real, and the vCPU count that goes with it. Under icount QEMU 7.2
 * hangs bringing up a second vCPU: refused with the reason rather than left to hang.
 */
static int choose_clock(const struct ts_vm_conf *c, const char *qemu, struct ts_vm_result *res,
			struct ts_err *err)
{
	char *argv[] = {(char *)qemu, (char *)"-version", NULL}, *out = NULL;
	unsigned major = 0, minor = 0;
	struct ts_err e = {{0}};
	size_t len;
	int st;

	res->vclock =
		c->clock == TS_VM_CLOCK_VIRTUAL || (c->clock == TS_VM_CLOCK_AUTO && !res->kvm);
	res->cpus = c->cpus ? c->cpus : res->vclock ? 1 : 2;
	if (res->vclock && res->kvm) {
		ts_err_set(err, "--clock virtual needs TCG (QEMU counts instructions only in its "
				"software emulation): use --accel tcg, or --clock real");
		return -EINVAL;
	}
	if (!res->vclock || res->cpus == 1)
		return 0;
	st = ts_vm_capture(argv, NULL, 1, &out, &len, &e);
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
			   res->cpus, major, minor);
	else
		ts_err_set(
			err,
			"--cpus %u: cannot tell %s's version (%s -version), and QEMU 7.2 hangs "
			"bringing up a second vCPU in virtual time: use --cpus 1, or --clock real",
			res->cpus, qemu, qemu);
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

static void print_tail(const struct relay *r)
{
	const char *p = r->tail, *end = r->tail + r->tail_len;
	int lines = 0;

	for (p = end; p > r->tail; p--)
		if (p[-1] == '\n' && ++lines > 25)
			break;
	fprintf(stderr, "tasshape vm: the guest console's last lines:\n");
	write_all(2, p, (size_t)(end - p));
	if (r->tail_len && end[-1] != '\n')
		fputc('\n', stderr);
}

int ts_vm_run(const struct ts_vm_conf *c, char *const argv[], struct ts_vm_result *res,
	      struct ts_err *err)
{
	char tmpl[PATH_MAX], ctl[PATH_MAX + 8], initrd[PATH_MAX + 16], cwd[PATH_MAX],
		self[PATH_MAX], socks[3][PATH_MAX + 16], cmdline[4096], outdir[PATH_MAX],
		moddir[PATH_MAX];
	struct relay r = {.lfd = {-1, -1, -1}, .cfd = {-1, -1, -1}, .verbose = c->verbose};
	struct ts_vm_argv qa = {0};
	struct ts_vm_plan plan = {0};
	struct ts_vm_status vs;
	const char *tmpdir = getenv("TMPDIR");
	bool have_initrd = false, timed_out = false;
	sigset_t mask, old;
	int ret, i, sfd = -1, wstatus = 0, signo = 0;
	char *status_txt = NULL;
	size_t slen;
	pid_t qemu = -1;
	ts_ns_t start;
	ssize_t n;

	memset(res, 0, sizeof(*res));
	tmpl[0] = '\0';
	if (!argv || !argv[0]) {
		ts_err_set(err, "no command to run in the VM");
		return -EINVAL;
	}
	/* The writable shares, resolved (a link to / is /), are checked before anything runs. */
	if (!realpath(c->cwd ? c->cwd : ".", cwd)) {
		ret = -errno;
		ts_err_set(err, "the current directory %s: %s", c->cwd ? c->cwd : ".",
			   strerror(errno));
		return ret;
	}
	ret = ts_vm_share_check(c->cwd ? c->cwd : "the current directory", cwd, err);
	if (ret < 0)
		return ret;
	if (c->out && !realpath(c->out, outdir)) {
		ret = -errno;
		ts_err_set(err, "--out %s: %s", c->out, strerror(errno));
		return ret;
	}
	if (c->out) {
		ret = ts_vm_share_check("--out", outdir, err);
		if (ret < 0)
			return ret;
	}
	ret = ts_vm_kernel_identify(c->kernel, res->version, res->sha256, err);
	if (ret < 0)
		return ret;
	/* The guest bind-mounts the modules directory by its host path: make it absolute. */
	if (c->modules && !realpath(c->modules, moddir)) {
		ret = -errno;
		ts_err_set(err, "--modules %s: %s", c->modules, strerror(errno));
		return ret;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		ret = -errno;
		ts_err_set(err, "readlink /proc/self/exe: %s", strerror(errno));
		return ret;
	}
	self[n] = '\0';
	ret = check_visible(self, argv, cwd, c->out ? outdir : NULL, err);
	if (ret < 0)
		return ret;

	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	remove_stale(tmpdir);
	snprintf(tmpl, sizeof(tmpl), "%s/tasshape-vm-%d.XXXXXX", tmpdir, (int)getpid());
	if (!mkdtemp(tmpl)) {
		ret = -errno;
		ts_err_set(err, "mkdtemp %s: %s", tmpl, strerror(errno));
		tmpl[0] = '\0';
		goto out;
	}
	{
		struct ts_vm_conf cc = *c;

		/* A sealed guest runs in virtual time only: no clock named means that one. */
		if (cc.seal && cc.clock == TS_VM_CLOCK_AUTO)
			cc.clock = TS_VM_CLOCK_VIRTUAL;
		/* Virtual time asked for: TCG, without probing KVM (its icount needs TCG). */
		if (cc.clock == TS_VM_CLOCK_VIRTUAL && cc.accel == TS_VM_ACCEL_AUTO)
			cc.accel = TS_VM_ACCEL_TCG;
		ret = choose_accel(&cc, c->qemu ? c->qemu : "qemu-system-x86_64", res, err);
		if (!ret)
			ret = choose_clock(&cc, c->qemu ? c->qemu : "qemu-system-x86_64", res, err);
	}
	if (ret < 0)
		goto out;
	snprintf(ctl, sizeof(ctl), "%s/ctl", tmpl);
	if (mkdir(ctl, 0755) < 0) {
		ret = -errno;
		ts_err_set(err, "mkdir %s: %s", ctl, strerror(errno));
		goto out;
	}
	/* The caller writes CMD's --out as TS_VM_SEALED_OUT for a sealed guest: it must be one. */
	if (c->seal && !res->vclock) {
		ts_err_set(err, "a sealed guest runs in virtual time only (--clock virtual)");
		ret = -EINVAL;
		goto out;
	}
	res->sealed = c->seal;
	{
		struct ts_vm_conf cc = *c;

		/* Sealed: --out is the guest's RAM until CMD ends; modules are in the image. */
		cc.out = !c->out ? NULL : res->sealed ? TS_VM_SEALED_OUT : outdir;
		cc.modules = c->modules && !res->sealed ? moddir : NULL;
		ret = write_ctl(ctl, &cc, cwd, argv, err);
	}
	if (ret < 0)
		goto out;
	snprintf(initrd, sizeof(initrd), "%s/initrd.cpio", tmpl);
	if (res->sealed) {
		ret = ts_vm_seal_build(c, self, c->modules ? moddir : NULL, cwd, ctl, initrd,
				       &res->image_bytes, res->image_sha256, err);
		have_initrd = ret == 0;
	} else if (c->modules) {
		ret = ts_vm_initramfs_build(moddir, self, initrd, &have_initrd, err);
	}
	if (ret < 0)
		goto out;
	if (res->sealed)
		ret = ts_vm_cmdline_sealed(cmdline, sizeof(cmdline), self, c->append,
					   TS_AWAKE_VCLOCK_PARAM, err);
	else
		ret = ts_vm_cmdline(cmdline, sizeof(cmdline), res->kvm, have_initrd, self,
				    c->append, err);
	if (ret < 0)
		goto out;
	/*
	 * Tells a shaper in the guest that its clock counts instructions: keeping the
	 * CPU out of idle there (run/awake.c) would only stop the clock's jumps over idle time.
	 */
	if (res->vclock && !res->sealed &&
	    strlen(cmdline) + sizeof(" " TS_AWAKE_VCLOCK_PARAM) > sizeof(cmdline)) {
		ts_err_set(err, "kernel command line longer than %zu bytes", sizeof(cmdline) - 1);
		ret = -ENOSPC;
		goto out;
	}
	if (res->vclock && !res->sealed)
		strcat(cmdline, " " TS_AWAKE_VCLOCK_PARAM);
	for (i = 0; i < 3; i++) {
		static const char *const names[] = {"out.sock", "err.sock", "con.sock"};

		snprintf(socks[i], sizeof(socks[i]), "%s/%s", tmpl, names[i]);
		ret = listen_unix(socks[i], err);
		if (ret < 0)
			goto out;
		r.lfd[i] = ret;
	}
	plan = (struct ts_vm_plan){.qemu = c->qemu ? c->qemu : "qemu-system-x86_64",
				   .kernel = c->kernel,
				   .initrd = have_initrd ? initrd : NULL,
				   .kvm = res->kvm,
				   .icount = res->vclock,
				   .icount_shift = TS_VM_ICOUNT_SHIFT,
				   .cpus = res->cpus,
				   .memory_mib = c->memory ? c->memory >> 20 : 1024,
				   .cmdline = cmdline,
				   .ctl = ctl,
				   .cwd = cwd,
				   .out = c->out ? outdir : NULL,
				   .passthrough = geteuid() == 0,
				   .sealed = res->sealed,
				   .sock_out = socks[0],
				   .sock_err = socks[1],
				   .console = socks[2],
				   .console_is_socket = true};
	ret = ts_vm_qemu_argv(&plan, &qa);
	if (ret < 0) {
		ts_err_set(err, "out of memory");
		goto out;
	}
	if (c->verbose) {
		size_t k;

		fprintf(stderr, "tasshape vm:");
		for (k = 0; k < qa.n; k++)
			fprintf(stderr, " %s", qa.v[k]);
		fputc('\n', stderr);
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	start = ts_clock_now();
	qemu = spawn_qemu(qa.v, err);
	if (qemu < 0) {
		ret = -ECHILD;
		goto out_sig;
	}
	{
		void (*oldpipe)(int) = signal(SIGPIPE, SIG_IGN);

		ret = relay_run(&r, qemu, sfd, c->timeout ? start + c->timeout : 0, &wstatus,
				&timed_out, &signo);
		signal(SIGPIPE, oldpipe);
	}
	if (ret < 0) {
		ts_err_set(err, "pidfd_open: %s", strerror(-ret));
		goto out_sig;
	}
	if (signo) {
		res->signal = signo;
		ts_err_set(err, "interrupted by signal %d: the VM was stopped", signo);
		ret = -EINTR;
		goto out_sig;
	}
	if (timed_out) {
		char t[32];

		res->timed_out = true;
		res->status = 124;
		ts_fmt_time(t, sizeof(t), c->timeout);
		fprintf(stderr, "tasshape vm: the guest was killed after --timeout %s\n", t);
		ret = 0;
		goto out_sig;
	}
	snprintf(initrd, sizeof(initrd), "%s/status", ctl);
	if (ts_vm_read_file(initrd, &status_txt, &slen) < 0 ||
	    ts_vm_status_parse(status_txt, &vs, err) < 0 || !vs.have_exit) {
		if (status_txt && vs.error[0])
			ts_err_set(err, "the guest's init failed: %s", vs.error);
		else
			ts_err_set(err,
				   "the guest ended without reporting CMD's status (QEMU %s %d)",
				   WIFEXITED(wstatus) ? "exit status" : "killed by signal",
				   WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
		print_tail(&r);
		ret = -EIO;
		goto out_sig;
	}
	res->status = vs.exit_code;
	res->boot_s = vs.boot_s;
	snprintf(res->clocksource, sizeof(res->clocksource), "%s", vs.clocksource);
	snprintf(res->release, sizeof(res->release), "%s", vs.release);
	ret = 0;
out_sig:
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	for (i = 0; i < 3; i++) {
		if (r.lfd[i] >= 0)
			close(r.lfd[i]);
		if (r.cfd[i] >= 0)
			close(r.cfd[i]);
	}
	free(status_txt);
	ts_vm_argv_free(&qa);
	if (tmpl[0])
		ts_vm_rm_rf(tmpl);
	return ret;
}
