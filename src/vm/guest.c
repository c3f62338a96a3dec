/* SPDX-License-Identifier: MIT */
/*
 * The guest's init (PID 1 in the VM), started as "tasshape vm --guest-init"
 * on the host's root, which the kernel (or the initramfs) mounted read-only
 * over 9p. It builds the guest's view: a tmpfs overlay on the host's /, so
 * that CMD may write anywhere and nothing reaches the host; fresh /proc,
 * /sys, /dev, /tmp and /run; the current directory and --out mounted
 * writable from their shares at their host paths; the kernel's modules
 * directory at /lib/modules/RELEASE. Then it loads the modules asked for,
 * runs CMD as root with stdout and stderr on two virtio serial ports,
 * reaps everything, writes CMD's status to the control share and powers
 * the VM off. Any failure is reported in the status file as error=...
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vm/plan.h"
#include "io/copytree.h"
#include "io/infile.h"
#include "io/proc.h"
#include "io/which.h"
#include "vm/guestargs.h"
#include "vm/idler.h"
#include "vm/vm.h"

#define BASE "/tmp/.tasshape-vm"

static int ctl_fd = -1;
static const char *ctl_dir = ""; /* ctl_fd's path, for messages */

static void console(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void console(const char *fmt, ...)
{
	va_list ap;
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return;
	dprintf(fd, "tasshape vm guest: ");
	va_start(ap, fmt);
	vdprintf(fd, fmt, ap);
	va_end(ap);
	dprintf(fd, "\n");
	close(fd);
}

/* Writes the status file (and fsyncs it: 9p passes it to the host at once). */
static void report(const char *text)
{
	int fd;

	if (ctl_fd < 0)
		return;
	fd = openat(ctl_fd, "status", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		console("cannot write the status file: %s", strerror(errno));
	fsync(fd);
	close(fd);
}

static __attribute__((noreturn)) void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	/* No ACPI power-off: a reboot ends QEMU too (-no-reboot). */
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

/* A sealed guest (its conf in the initramfs): the control share is mounted after CMD only. */
static bool sealed;
static int sealed_shares(bool quiet);

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	char msg[300], line[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	console("%s", msg);
	/* A sealed guest that fails before its shares are up still reports why. */
	if (sealed && ctl_fd < 0)
		sealed_shares(true);
	snprintf(line, sizeof(line), "error=%s\n", msg);
	report(line);
	power_off();
}

static void must_mount(const char *src, const char *dst, const char *type, unsigned long flags,
		       const char *opts)
{
	if (mount(src, dst, type, flags, opts) < 0)
		die("mount %s on %s (%s): %s", src, dst, type ? type : "bind", strerror(errno));
}

static void try_mount(const char *src, const char *dst, const char *type, const char *opts)
{
	if (mkdir(dst, 0755) < 0 && errno != EEXIST)
		return;
	mount(src, dst, type, 0, opts);
}

/*
 * The control files hold a configuration, an argv and an environment for
 * execve, which the kernel caps at a quarter of the stack limit (2 MiB by
 * default): a larger one is not what the host wrote.
 */
#define CTL_MAX (4u << 20)

/* Control file @name, whole, NUL-terminated; tasshape put it there, beside itself: no link. */
static char *read_ctl(const char *name, size_t *len)
{
	struct ts_err err;
	char *buf = NULL;

	if (ts_in_read_at(ctl_fd, ctl_dir, name, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, CTL_MAX,
			  &buf, len, &err) < 0)
		die("control file: %s", err.msg);
	return buf;
}

/* Splits NUL-terminated strings into a NULL-terminated vector. */
static char **unpack_vec(char *buf, size_t len)
{
	size_t n = 0, i, k = 0;
	char **v;

	for (i = 0; i < len; i++)
		n += buf[i] == '\0';
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		die("out of memory");
	for (i = 0; i < len; i += strlen(buf + i) + 1)
		v[k++] = buf + i;
	v[k] = NULL;
	return v;
}

/* /dev/vportNpM of the virtio serial port named @name. */
static int open_port(const char *name)
{
	DIR *d = opendir("/sys/class/virtio-ports");
	struct dirent *de;
	int fd = -1;

	while (d && (de = readdir(d))) {
		char p[512], n[64] = "";
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/sys/class/virtio-ports/%s/name", de->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (fgets(n, sizeof(n), f))
			n[strcspn(n, "\n")] = '\0';
		fclose(f);
		if (!strcmp(n, name)) {
			snprintf(p, sizeof(p), "/dev/%s", de->d_name);
			fd = open(p, O_WRONLY | O_NOCTTY);
			break;
		}
	}
	if (d)
		closedir(d);
	return fd;
}

static void lo_up(void)
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
}

/*
 * mkdir -p by path, not io/outfile.h's ts_out_mkdir: this is PID 1 of the
 * VM, before anything else runs in it, in its private overlay, so no other
 * user can plant a link; and it must follow the image's own links (merged
 * /usr: /lib -> usr/lib) and accept the user's directories (cwd, --out),
 * which are not root's, the only user the guest knows. 0 or -errno.
 */
static int mkdir_p(const char *path, unsigned mode)
{
	char p[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		p[i] = i < n ? '/' : '\0';
	}
	return 0;
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * The kernel's preemption model as it runs: a PREEMPT_DYNAMIC kernel says it at boot
 * ("Dynamic Preempt: full", kernel/sched/core.c), in the log whatever the console's
 * loglevel, once per preempt= word (the last one in force); the debugfs file that also shows
 * it needs CONFIG_SCHED_DEBUG. A word it refuses is logged as "Dynamic Preempt: unsupported
 * mode: X" and changes nothing, so only a model's name counts. "" when the log has none (a
 * kernel without the switch).
 */
static void read_preempt(char *buf, size_t len)
{
	static char log[1 << 18]; /* the log's newest 256 KiB: a boot writes far less */
	static const char key[] = "Dynamic Preempt: ";
	static const char *const models[] = {"none", "voluntary", "full", "lazy"};
	const char *p, *v;
	size_t i, vn;
	int n;

	buf[0] = '\0';
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, (int)sizeof(log) - 1);
	if (n <= 0)
		return;
	log[n] = '\0';
	for (p = log; (p = strstr(p, key)); p = v) {
		v = p + sizeof(key) - 1;
		vn = strcspn(v, "\n");
		for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
			if (vn == strlen(models[i]) && !memcmp(v, models[i], vn))
				snprintf(buf, len, "%s", models[i]);
	}
}

/*
 * Runs modprobe with the words of @line, its output on the console; dies when it fails, or
 * returns -EIO when @quiet.
 */
static int modprobe_run(const char *line, bool quiet)
{
	char copy[512], *words[34], *save = NULL, *w;
	struct ts_err err;
	struct ts_proc p;
	size_t n = 0;
	int fd, st;

	snprintf(copy, sizeof(copy), "%s", line);
	words[n++] = (char *)"modprobe";
	for (w = strtok_r(copy, " \t", &save); w && n < 33; w = strtok_r(NULL, " \t", &save))
		words[n++] = w;
	words[n] = NULL;
	fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	ts_proc_init(&p, words);
	p.in.how = TS_PROC_INHERIT;
	p.out.how = p.err.how = fd >= 0 ? TS_PROC_FD : TS_PROC_INHERIT;
	p.out.fd = p.err.fd = fd;
	st = ts_proc_run(&p, -1, &err);
	if (fd >= 0)
		close(fd);
	if (st && quiet)
		return -EIO;
	if (st < 0)
		die("modprobe %s: %s", line, err.msg);
	if (st)
		die("modprobe %s failed (see the console above)", line);
	return 0;
}

/* A line of the conf: checked once more here, in the guest's root, before modprobe sees it. */
static void modprobe(const char *line)
{
	struct ts_err err;

	if (ts_vm_modprobe_check(line, &err) < 0)
		die("modprobe %s", err.msg);
	modprobe_run(line, false);
}

static double uptime_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void setup_root(const struct ts_vm_guest_conf *g, const char *release)
{
	char p[4200];

	/* The overlay: the host's / (the 9p root) under a tmpfs upper layer. */
	must_mount("tmpfs", "/tmp", "tmpfs", 0, "mode=0755");
	if (mkdir(BASE, 0755) < 0 || mkdir(BASE "/upper", 0755) < 0 ||
	    mkdir(BASE "/work", 0755) < 0 || mkdir(BASE "/root", 0755) < 0)
		die("mkdir in /tmp: %s", strerror(errno));
	must_mount("overlay", BASE "/root", "overlay", 0,
		   "lowerdir=/,upperdir=" BASE "/upper,workdir=" BASE "/work");
	if (chdir(BASE "/root") < 0 || chroot(".") < 0 || chdir("/") < 0)
		die("chroot into the overlay: %s", strerror(errno));
	must_mount("proc", "/proc", "proc", 0, NULL);
	must_mount("sysfs", "/sys", "sysfs", 0, NULL);
	must_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	try_mount("devpts", "/dev/pts", "devpts", "newinstance,ptmxmode=0666");
	try_mount("tmpfs", "/dev/shm", "tmpfs", NULL);
	try_mount("cgroup2", "/sys/fs/cgroup", "cgroup2", NULL);
	try_mount("bpf", "/sys/fs/bpf", "bpf", NULL);
	/* Before the guest's own /tmp and /run cover a modules directory the host has there. */
	if (g->modules[0]) {
		snprintf(p, sizeof(p), "/lib/modules/%s", release);
		if (mkdir_p(p, 0755) < 0)
			die("mkdir %s: %s", p, strerror(errno));
		must_mount(g->modules, p, NULL, MS_BIND, NULL);
	}
	must_mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
	must_mount("tmpfs", "/run", "tmpfs", 0, "mode=0755");
	/* The writable shares last, so that they cover what the overlay shows at their paths. */
	if (mkdir_p(g->cwd, 0755) < 0)
		die("mkdir %s: %s", g->cwd, strerror(errno));
	must_mount(TS_VM_TAG_CWD, g->cwd, "9p", 0, TS_VM_9P_OPTS);
	if (g->out[0]) {
		if (mkdir_p(g->out, 0755) < 0)
			die("mkdir %s: %s", g->out, strerror(errno));
		must_mount(TS_VM_TAG_OUT, g->out, "9p", 0, TS_VM_9P_OPTS);
	}
}

/*
 * CMD in its own session, in g->cwd, with stdin on /dev/null and stdout and stderr on @out and
 * @err (closed here once the child has them). Exit 127: CMD not found, 126: not started.
 */
static pid_t start_cmd_on(const struct ts_vm_guest_conf *g, char **argv, char **envp, int out,
			  int err)
{
	/* Not io/proc.h: CMD is found in its own environment's $PATH, and a miss is its exit 127. */
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		struct ts_which w;
		struct ts_err why;
		sigset_t all;

		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		setsid();
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		if (chdir(g->cwd) < 0) {
			dprintf(2, "tasshape vm: cd %s: %s\n", g->cwd, strerror(errno));
			_exit(126);
		}
		/* CMD's $PATH, as the resolver reads it: never the current (shared) directory. */
		if (ts_which_env(argv[0], envp, &w) < 0) {
			ts_which_error(argv[0], &w, &why);
			dprintf(2, "tasshape vm: %s\n", why.msg);
			_exit(127);
		}
		environ = envp;
		execve(w.path, argv, envp);
		dprintf(2, "tasshape vm: %s: %s\n", w.path, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(out);
	close(err);
	return pid;
}

/* Starts CMD with its stdout and stderr on the virtio serial ports the host reads. */
static pid_t start_cmd(const struct ts_vm_guest_conf *g, char **argv, char **envp)
{
	int out = open_port(TS_VM_PORT_STDOUT), err = open_port(TS_VM_PORT_STDERR);

	if (out < 0 || err < 0)
		die("virtio serial ports %s/%s not found", TS_VM_PORT_STDOUT, TS_VM_PORT_STDERR);
	return start_cmd_on(g, argv, envp, out, err);
}

/*
 * After CMD in a sealed guest: the drivers of the shares and ports (modules of the image, when
 * the kernel has any), then the control share. Returns 0, or -EIO when @quiet.
 */
static int sealed_shares(bool quiet)
{
	static const char *const mods[] = {"virtio_pci", "9pnet_virtio", "9p"};
	const char *dir = TS_VM_SEALED_DIR "/ctl";
	char p[200];
	struct utsname u;
	struct stat st;
	size_t i;

	uname(&u);
	snprintf(p, sizeof(p), "/lib/modules/%s", u.release);
	for (i = 0; stat(p, &st) == 0 && i < sizeof(mods) / sizeof(mods[0]); i++)
		if (modprobe_run(mods[i], quiet) < 0)
			return -EIO;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		if (quiet)
			return -EIO;
		die("mkdir %s: %s", dir, strerror(errno));
	}
	if (mount(TS_VM_TAG_CTL, dir, "9p", 0, TS_VM_9P_OPTS) < 0) {
		if (quiet)
			return -EIO;
		die("mount %s on %s (9p): %s", TS_VM_TAG_CTL, dir, strerror(errno));
	}
	ctl_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return ctl_fd < 0 ? -EIO : 0;
}

/*
 * CMD's output, kept in the guest's RAM while it ran, to the control share as @name: the
 * host copies it to its own stdout or stderr once QEMU has ended (vm.c). A sealed guest has no
 * virtio serial port: its driver's exchange with QEMU at boot takes a number of guest
 * instructions that depends on when QEMU's main loop answers, and two boots then differ.
 */
static void sealed_output(const char *file, const char *name)
{
	int in = open(file, O_RDONLY | O_CLOEXEC), out = -1;

	if (ctl_fd >= 0)
		out = openat(ctl_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (in >= 0 && out < 0)
		console("%s: cannot write it to the host: CMD's output is lost", name);
	if (in >= 0 && out >= 0 && ts_copy_fd(in, out, UINT64_MAX) < 0)
		console("%s: a short write to the host: CMD's output is cut", name);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

/* Starts CMD in a sealed guest: its stdout and stderr to files of the guest's RAM. */
static pid_t sealed_start(const struct ts_vm_guest_conf *g, char **argv, char **envp)
{
	int out = open(TS_VM_SEALED_DIR "/stdout", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600),
	    err = open(TS_VM_SEALED_DIR "/stderr", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (out < 0 || err < 0)
		die("%s: cannot open CMD's output files: %s", TS_VM_SEALED_DIR, strerror(errno));
	return start_cmd_on(g, argv, envp, out, err);
}

/* The share of --out, mounted after CMD; the RAM copy of TS_VM_SEALED_OUT copied into it. */
static void sealed_copy_out(const struct ts_vm_guest_conf *g)
{
	const char *dir = TS_VM_SEALED_DIR "/share";
	struct ts_err msg;

	if (!g->out[0])
		return;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die("mkdir %s: %s", dir, strerror(errno));
	must_mount(TS_VM_TAG_OUT, dir, "9p", 0, TS_VM_9P_OPTS);
	if (ts_copy_tree(g->out, dir, 0, &msg) < 0)
		die("copying the output to the host: %s", msg.msg);
	if (umount(dir) < 0)
		console("umount %s: %s", dir, strerror(errno));
}

/* The run's configuration, command and environment, from the control files at ctl_fd. */
static void read_run(struct ts_vm_guest_conf *g, char ***argv, char ***envp)
{
	size_t len, alen, elen;
	char *conf_txt = read_ctl("conf", &len), *argv_buf = read_ctl("argv", &alen),
	     *env_buf = read_ctl("env", &elen);
	struct ts_err err = {{0}};

	if (ts_vm_conf_parse(conf_txt, g, &err) < 0)
		die("%s", err.msg);
	*argv = unpack_vec(argv_buf, alen);
	*envp = unpack_vec(env_buf, elen);
	if (!(*argv)[0])
		die("no command");
}

/* What the status file says of the guest: its clock source, preemption model and kernel. */
static void read_facts(char *cs, size_t cs_len, char *preempt, size_t preempt_len,
		       struct utsname *u)
{
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", cs, cs_len);
	read_preempt(preempt, preempt_len);
	uname(u);
}

/* The host's name, loopback, the modules the run asked for. */
static void bring_up(const struct ts_vm_guest_conf *g)
{
	unsigned i;

	/* Only the guest shell's prompt shows the name: a failure changes nothing else. */
	if (sethostname("tasshape-vm", strlen("tasshape-vm")) < 0)
		console("sethostname: %s", strerror(errno));
	lo_up();
	for (i = 0; i < g->nmodprobe; i++)
		modprobe(g->modprobe[i]);
}

static int wait_cmd(pid_t pid);

/*
 * CMD starts no earlier than one second after boot. iputils' ping (20221126, Debian 12) paces
 * its echo requests by CLOCK_MONOTONIC_RAW and takes a reading whose tv_sec is 0 for "not
 * started yet": started in the first second of uptime, it sends each request as soon as the
 * last reply came, ignoring -i. A sealed guest boots in 0.8 s, and in 0.4 s or less with its
 * time dilated (vm.h).
 */
static void wait_first_second(void)
{
	struct timespec now, gap;

	for (;;) {
		if (clock_gettime(CLOCK_MONOTONIC_RAW, &now) < 0 || now.tv_sec >= 1)
			return;
		gap.tv_sec = 0;
		gap.tv_nsec = 1000000000L - now.tv_nsec + 1000000L;
		if (gap.tv_nsec >= 1000000000L)
			gap.tv_nsec = 999999999L;
		nanosleep(&gap, NULL);
	}
}

/* The status file's first lines: what the guest booted, and when CMD started. */
static void boot_facts(char *status, size_t size, const char *cs, const char *preempt,
		       const char *release)
{
	snprintf(status, size, "clocksource=%s\npreempt=%s\nrelease=%s\nboot=%.3f\n%s", cs, preempt,
		 release, uptime_s(), sealed ? "sealed=1\n" : "");
}

/* Adds how CMD ended (@st, its wait status) to @status, reports it and powers off. */
static __attribute__((noreturn)) void finish(char *status, size_t size, int st)
{
	size_t n = strlen(status);

	if (WIFEXITED(st))
		snprintf(status + n, size - n, "exit=%d\n", WEXITSTATUS(st));
	else
		snprintf(status + n, size - n, "signal=%d\n", WTERMSIG(st));
	report(status);
	power_off();
}

/*
 * The init of a sealed guest: its root is the initramfs, which holds every file CMD runs
 * (docs/kernels.md, "Sealed guests"). Nothing reaches the host, and nothing comes from it,
 * until CMD has ended: no 9p before, and CMD's output goes to the guest's RAM.
 */
static __attribute__((noreturn)) void sealed_main(void)
{
	char **argv, **envp, status[512], cs[32], preempt[16];
	struct ts_vm_guest_conf g;
	struct utsname u;
	int st;

	sealed = true;
	umask(022);
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL); /* may exist already */
	must_mount("proc", "/proc", "proc", 0, NULL);
	/* First: from here on the vCPU never halts until CMD has ended (vm/idler.h). */
	if (ts_vm_idler_start() < 0)
		console("the idler did not start: this run's bytes may differ from another boot's");
	must_mount("sysfs", "/sys", "sysfs", 0, NULL);
	/*
	 * A kernel hands init the parameters it does not know: one without tasshape's patch
	 * would calibrate its APIC timer against QEMU's clock, and arm every timer early.
	 */
	if (getenv(TS_VM_DILATION_PATCH_PARAM))
		die("this kernel does not know " TS_VM_DILATION_PATCH_PARAM "=, so it cannot run "
		    "with its time dilated: build it with tools/kernel/patches/lapic-bus-khz.patch "
		    "(docs/kernels.md, \"Time dilation\")");
	try_mount("devpts", "/dev/pts", "devpts", "newinstance,ptmxmode=0666");
	try_mount("tmpfs", "/dev/shm", "tmpfs", NULL);
	try_mount("cgroup2", "/sys/fs/cgroup", "cgroup2", NULL);
	try_mount("bpf", "/sys/fs/bpf", "bpf", NULL);
	/*
	 * No tmpfs on /tmp and /run: the root is the guest's RAM already, and a spec or trace
	 * packed at its host path under /tmp (a test's) would be covered.
	 */
	if (chmod("/tmp", 01777) < 0)
		console("chmod /tmp: %s", strerror(errno));
	/* The control files were packed beside tasshape: read them from the image. */
	ctl_fd = open(TS_VM_SEALED_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ctl_dir = TS_VM_SEALED_DIR;
	if (ctl_fd < 0)
		die("open %s: %s", TS_VM_SEALED_DIR, strerror(errno));
	read_run(&g, &argv, &envp);
	close(ctl_fd);
	ctl_fd = -1;
	read_facts(cs, sizeof(cs), preempt, sizeof(preempt), &u);
	bring_up(&g);
	if (g.out[0] && mkdir_p(g.out, 0755) < 0)
		die("mkdir %s: %s", g.out, strerror(errno));
	wait_first_second();
	boot_facts(status, sizeof(status), cs, preempt, u.release);
	st = wait_cmd(sealed_start(&g, argv, envp));
	sync();
	sealed_shares(false);
	sealed_output(TS_VM_SEALED_DIR "/stdout", TS_VM_SEALED_STDOUT);
	sealed_output(TS_VM_SEALED_DIR "/stderr", TS_VM_SEALED_STDERR);
	sealed_copy_out(&g);
	finish(status, sizeof(status), st);
}

/* Reaps every process until CMD (@pid) ends, then ends what it left; CMD's wait status. */
static int wait_cmd(pid_t pid)
{
	int st = 0;
	pid_t w;

	/* PID 1 reaps every orphan; CMD's own status is the one that counts. */
	for (;;) {
		int s;

		w = waitpid(-1, &s, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			die("waitpid: %s", strerror(errno));
		if (w == pid) {
			st = s;
			break;
		}
	}
	/* Nothing CMD left behind survives it. */
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	return st;
}

int ts_vm_guest_main(void)
{
	char **argv, **envp, status[512], cs[32], preempt[16];
	struct ts_vm_guest_conf g;
	struct utsname u;
	int st = 0;
	pid_t pid;

	if (getpid() != 1) {
		fprintf(stderr,
			"tasshape vm --guest-init: this is the init of tasshape's VM guest; "
			"it runs as PID 1 only\n");
		return 2;
	}
	if (access(TS_VM_SEALED_DIR "/conf", F_OK) == 0)
		sealed_main();
	umask(022);
	/* The kernel starts init with HOME and TERM only; modprobe lives in sbin. */
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL); /* may exist already */
	must_mount("proc", "/proc", "proc", 0, NULL);
	must_mount("sysfs", "/sys", "sysfs", 0, NULL);
	/* The control share sits outside the overlay; the descriptor outlives the chroot. */
	must_mount("tmpfs", "/tmp", "tmpfs", 0, "mode=0755");
	if (mkdir("/tmp/ctl", 0700) < 0)
		die("mkdir /tmp/ctl: %s", strerror(errno));
	must_mount(TS_VM_TAG_CTL, "/tmp/ctl", "9p", 0, TS_VM_9P_OPTS);
	ctl_fd = open("/tmp/ctl", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ctl_dir = "/tmp/ctl";
	if (ctl_fd < 0)
		die("open /tmp/ctl: %s", strerror(errno));
	read_run(&g, &argv, &envp);
	read_facts(cs, sizeof(cs), preempt, sizeof(preempt), &u);
	/* The first /tmp stays mounted under the overlay's; only its descriptors are used. */
	setup_root(&g, u.release);
	bring_up(&g);

	wait_first_second();
	boot_facts(status, sizeof(status), cs, preempt, u.release);
	pid = start_cmd(&g, argv, envp);
	st = wait_cmd(pid);
	sync();
	finish(status, sizeof(status), st);
}
