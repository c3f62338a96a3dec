/* SPDX-License-Identifier: MIT */
/*
 * The micro-VM's plan, pure: QEMU's arguments, the kernel command line,
 * the initramfs script, the host/guest control files and the module
 * closure. See plan.h for each contract.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/guestargs.h"
#include "vm/plan.h"

/*
 * 9p, its virtio transport, the overlay, virtio PCI and the virtio serial
 * ports that carry CMD's output: what Debian's kernel has as modules and
 * tools/kernel/config.fragment builds in.
 */
const char *const ts_vm_boot_modules[] = {"virtio_pci", "9pnet_virtio", "9p", "overlay",
					  "virtio_console"};
const size_t ts_vm_nboot_modules = sizeof(ts_vm_boot_modules) / sizeof(ts_vm_boot_modules[0]);

int ts_vm_argv_add(struct ts_vm_argv *a, const char *s)
{
	char *d;

	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 32;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	d = strdup(s);
	if (!d)
		return -ENOMEM;
	a->v[a->n++] = d;
	a->v[a->n] = NULL;
	return 0;
}

int ts_vm_argv_addf(struct ts_vm_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;
	ret = ts_vm_argv_add(a, s);
	free(s);
	return ret;
}

void ts_vm_argv_free(struct ts_vm_argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* @s with every ',' doubled, as QEMU's -fsdev/-chardev option values need; malloc'ed. */
static char *qemu_escape(const char *s)
{
	size_t n = strlen(s), extra = 0, i, j;
	char *d;

	for (i = 0; i < n; i++)
		extra += s[i] == ',';
	d = malloc(n + extra + 1);
	if (!d)
		return NULL;
	for (i = j = 0; i < n; i++) {
		d[j++] = s[i];
		if (s[i] == ',')
			d[j++] = ',';
	}
	d[j] = '\0';
	return d;
}

/*
 * A 9p share. Read-only, the guest sees the host's owners and modes (@passthrough: QEMU runs as
 * root). Writable, QEMU keeps what the guest sets (owner, mode, device number, a link's target)
 * in user.virtfs.* extended attributes and creates the host's file as its own user with mode
 * 0600 (0700 for a directory): a set-id file or device node made in the guest is a plain
 * private file on the host (QEMU's security_model=mapped-xattr).
 */
static int add_share(struct ts_vm_argv *a, const char *id, const char *tag, const char *path,
		     bool ro, bool passthrough)
{
	char *p = qemu_escape(path);
	int ret;

	if (!p)
		return -ENOMEM;
	/* multidevs=remap: the host's / spans several file systems, whose inode numbers may clash. */
	ret = ts_vm_argv_add(a, "-fsdev");
	if (!ret)
		ret = ts_vm_argv_addf(a, "local,id=%s,path=%s,security_model=%s%s,multidevs=remap",
				      id, p,
				      !ro	    ? "mapped-xattr"
				      : passthrough ? "passthrough"
						    : "none",
				      ro ? ",readonly=on" : "");
	if (!ret)
		ret = ts_vm_argv_add(a, "-device");
	if (!ret)
		ret = ts_vm_argv_addf(a, "virtio-9p-pci,fsdev=%s,mount_tag=%s", id, tag);
	free(p);
	return ret;
}

static int add_port(struct ts_vm_argv *a, const char *id, const char *sock, const char *name)
{
	char *p = qemu_escape(sock);
	int ret;

	if (!p)
		return -ENOMEM;
	ret = ts_vm_argv_add(a, "-chardev");
	if (!ret)
		ret = ts_vm_argv_addf(a, "socket,id=%s,path=%s", id, p);
	if (!ret)
		ret = ts_vm_argv_add(a, "-device");
	if (!ret)
		ret = ts_vm_argv_addf(a, "virtserialport,chardev=%s,name=%s", id, name);
	free(p);
	return ret;
}

/* The machine: nothing QEMU would add by itself, the accelerator and the CPU model. */
static int qemu_machine(const struct ts_vm_plan *p, struct ts_vm_argv *a)
{
	int ret;

	ret = ts_vm_argv_add(a, p->qemu);
	/* Nothing QEMU would add by itself: no NIC, no VGA, no monitor, no default serial. */
	if (!ret)
		ret = ts_vm_argv_add(a, "-nodefaults");
	if (!ret)
		ret = ts_vm_argv_add(a, "-no-user-config");
	if (!ret)
		ret = ts_vm_argv_add(a, "-nic");
	if (!ret)
		ret = ts_vm_argv_add(a, "none");
	if (!ret)
		ret = ts_vm_argv_add(a, "-display");
	if (!ret)
		ret = ts_vm_argv_add(a, "none");
	/* A guest that reboots (panic=-1, or a failed power-off) ends QEMU instead. */
	if (!ret)
		ret = ts_vm_argv_add(a, "-no-reboot");
	if (!ret)
		ret = ts_vm_argv_add(a, "-machine");
	if (!ret)
		ret = ts_vm_argv_addf(a, "pc,accel=%s", p->kvm ? "kvm" : "tcg");
	if (!ret)
		ret = ts_vm_argv_add(a, "-cpu");
	/*
	 * In virtual time an instruction is a nanosecond of the guest's clock, and TCG counts
	 * each step of a `rep movsb`/`rep stosb` as one: with ERMS (and FSRM) the kernel copies
	 * and zeroes a byte per nanosecond. Without them it uses `rep movsq`/`rep stosq`, eight
	 * bytes a step: 19,000 guest instructions less per data packet through a 40 MHz Wi-Fi 6
	 * station (docs/kernels.md, "Where a guest's instructions go").
	 */
	if (!ret)
		ret = ts_vm_argv_add(a, p->kvm	    ? "host"
					: p->icount ? "max,erms=off,fsrm=off"
						    : "max");
	return ret;
}

/* Virtual time (@p->icount): the instruction counter, and what the guest takes from the host. */
static int qemu_icount(const struct ts_vm_plan *p, struct ts_vm_argv *a)
{
	int ret;

	if (!p->icount)
		return 0;
	/*
	 * Virtual time: the guest's clock advances by its executed instructions, 2^shift ns
	 * each; sleep=off jumps it ahead when every vCPU is idle instead of waiting on the
	 * host's clock, align=off never slows the guest down to the host's pace.
	 */
	ret = ts_vm_argv_add(a, "-icount");
	if (!ret)
		ret = ts_vm_argv_addf(a, "shift=%u,sleep=off,align=off", p->icount_shift);
	/*
	 * What the guest would otherwise take from the host at boot, fixed in virtual time: its
	 * real-time clock (the kernel mixes the time of day into its random pool at boot, and
	 * with clock=vm the RTC then counts guest time, not the host's), and the random numbers
	 * QEMU's TCG returns for RDRAND and RDSEED (host randomness unless -seed is given).
	 */
	if (!ret)
		ret = ts_vm_argv_add(a, "-rtc");
	if (!ret)
		ret = ts_vm_argv_add(a, "base=" TS_VM_RTC_BASE ",clock=vm");
	if (!ret)
		ret = ts_vm_argv_add(a, "-seed");
	if (!ret)
		ret = ts_vm_argv_addf(a, "%u", TS_VM_QEMU_SEED);
	return ret;
}

/* vCPUs, memory, and what the guest boots: kernel, initramfs, command line. */
static int qemu_boot(const struct ts_vm_plan *p, struct ts_vm_argv *a)
{
	int ret;

	ret = ts_vm_argv_add(a, "-smp");
	if (!ret)
		ret = ts_vm_argv_addf(a, "%u", p->cpus);
	if (!ret)
		ret = ts_vm_argv_add(a, "-m");
	if (!ret)
		ret = ts_vm_argv_addf(a, "%llu", (unsigned long long)p->memory_mib);
	if (!ret)
		ret = ts_vm_argv_add(a, "-kernel");
	if (!ret)
		ret = ts_vm_argv_add(a, p->kernel);
	if (!ret && p->initrd) {
		ret = ts_vm_argv_add(a, "-initrd");
		if (!ret)
			ret = ts_vm_argv_add(a, p->initrd);
	}
	if (!ret)
		ret = ts_vm_argv_add(a, "-append");
	if (!ret)
		ret = ts_vm_argv_add(a, p->cmdline);
	return ret;
}

/* The guest's console on its first serial port: a socket, or a file. */
static int qemu_console(const struct ts_vm_plan *p, struct ts_vm_argv *a)
{
	char *con = qemu_escape(p->console);
	int ret;

	if (!con)
		return -ENOMEM;
	ret = ts_vm_argv_add(a, "-chardev");
	if (!ret)
		ret = p->console_is_socket ? ts_vm_argv_addf(a, "socket,id=con,path=%s", con)
					   : ts_vm_argv_addf(a, "file,id=con,path=%s", con);
	if (!ret)
		ret = ts_vm_argv_add(a, "-serial");
	if (!ret)
		ret = ts_vm_argv_add(a, "chardev:con");
	free(con);
	return ret;
}

/* The 9p shares, and (unless sealed) the virtio serial ports of CMD's stdout and stderr. */
static int qemu_devices(const struct ts_vm_plan *p, struct ts_vm_argv *a)
{
	int ret = 0;

	/* A sealed guest's root is its initramfs, and its current directory a packed copy. */
	if (!p->sealed)
		ret = add_share(a, "fsroot", TS_VM_TAG_ROOT, "/", true, p->passthrough);
	if (!ret)
		ret = add_share(a, "fsctl", TS_VM_TAG_CTL, p->ctl, false, p->passthrough);
	if (!ret && !p->sealed)
		ret = add_share(a, "fscwd", TS_VM_TAG_CWD, p->cwd, false, p->passthrough);
	if (!ret && p->out)
		ret = add_share(a, "fsout", TS_VM_TAG_OUT, p->out, false, p->passthrough);
	/*
	 * A sealed guest writes CMD's output to the control share at the end (vm/guest.c): no
	 * serial ports, whose driver's exchange with QEMU at boot would end at a guest instruction
	 * that depends on the host's timing.
	 */
	if (ret || p->sealed)
		return ret;
	ret = ts_vm_argv_add(a, "-device");
	if (!ret)
		ret = ts_vm_argv_add(a, "virtio-serial-pci");
	if (!ret)
		ret = add_port(a, "cout", p->sock_out, TS_VM_PORT_STDOUT);
	if (!ret)
		ret = add_port(a, "cerr", p->sock_err, TS_VM_PORT_STDERR);
	return ret;
}

int ts_vm_qemu_argv(const struct ts_vm_plan *p, struct ts_vm_argv *a)
{
	int ret;

	ret = qemu_machine(p, a);
	if (!ret)
		ret = qemu_icount(p, a);
	if (!ret)
		ret = qemu_boot(p, a);
	if (!ret)
		ret = qemu_console(p, a);
	if (!ret)
		ret = qemu_devices(p, a);
	return ret;
}

int ts_vm_qemu_version(const char *text, unsigned *major, unsigned *minor)
{
	static const char key[] = "QEMU emulator version ";
	const char *p = strstr(text, key);
	unsigned long ma, mi;
	char *end;

	if (!p)
		return -EINVAL;
	p += strlen(key);
	if (*p < '0' || *p > '9')
		return -EINVAL;
	ma = strtoul(p, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -EINVAL;
	mi = strtoul(end + 1, &end, 10);
	if (ma > 1000 || mi > 1000)
		return -EINVAL;
	*major = (unsigned)ma;
	*minor = (unsigned)mi;
	return 0;
}

bool ts_vm_icount_smp_ok(unsigned major, unsigned minor)
{
	(void)minor;
	return major >= 8;
}

static bool has_space(const char *s)
{
	for (; *s; s++)
		if (*s == ' ' || *s == '\t' || *s == '\n')
			return true;
	return false;
}

/* The kernel command line splits at white space: the binary's path must have none. */
static int init_path_ok(const char *init, struct ts_err *err)
{
	if (!has_space(init))
		return 0;
	ts_err_set(
		err,
		"the tasshape binary's path '%s' has white space: the kernel command line cannot "
		"carry it",
		init);
	return -EINVAL;
}

/* snprintf's @n into @len bytes: 0, or -ENOSPC with the reason in @err. */
static int cmdline_fits(int n, size_t len, struct ts_err *err)
{
	if (n >= 0 && (size_t)n < len)
		return 0;
	ts_err_set(err, "kernel command line longer than %zu bytes", len - 1);
	return -ENOSPC;
}

int ts_vm_cmdline(char *buf, size_t len, bool kvm, bool initramfs, const char *init,
		  const char *append, struct ts_err *err)
{
	int n;

	if (init_path_ok(init, err) < 0)
		return -EINVAL;
	/*
	 * Under TCG the TSC is emulated from the host's clock at each read
	 * and jumps when the vCPU thread is descheduled: with it, TCP saw
	 * retransmissions without link drops. The HPET is read through the
	 * device model and stays consistent. KVM has kvm-clock.
	 */
	n = snprintf(buf, len, "console=ttyS0 panic=-1 quiet loglevel=4%s%s%s%s%s%s",
		     kvm ? "" : " clocksource=hpet",
		     initramfs ? ""
			       : " root=" TS_VM_TAG_ROOT
				 " rootfstype=9p rootflags=" TS_VM_9P_ROOT_OPTS " ro init=",
		     initramfs ? "" : init, append && *append ? " " : "", append ? append : "",
		     initramfs ? "" : " -- vm --guest-init");
	return cmdline_fits(n, len, err);
}

int ts_vm_cmdline_sealed(char *buf, size_t len, const char *init, const char *append,
			 const char *extra, struct ts_err *err)
{
	int n;

	if (init_path_ok(init, err) < 0)
		return -EINVAL;
	/*
	 * Virtual time: under icount the TSC counts QEMU's virtual clock, as the HPET does, so
	 * it does not jump (ts_vm_cmdline's reason for the HPET in real time). The TSC is read
	 * in user space (the vDSO) and by the kernel without a trip through a device model:
	 * 3,700-4,700 guest instructions less per packet (docs/kernels.md). tsc=reliable: no
	 * watchdog comparing it with the HPET every half second. preempt=full (a
	 * PREEMPT_DYNAMIC kernel's switch; another kernel only passes the word on to init's
	 * environment): the one vCPU is shared by the shaper's loop and every process of the
	 * run, and with the distributions' voluntary preemption the loop's timer waited for a
	 * sender's system call to finish, up to milliseconds (docs/kernels.md, "Who holds the
	 * CPU while the loop waits"). A user's append comes after, so its preempt= wins.
	 */
	n = snprintf(buf, len,
		     "console=ttyS0 panic=-1 quiet loglevel=4 clocksource=tsc tsc=reliable "
		     "preempt=full rdinit=%s%s%s%s%s "
		     "-- vm --guest-init",
		     init, append && *append ? " " : "", append ? append : "",
		     extra && *extra ? " " : "", extra ? extra : "");
	return cmdline_fits(n, len, err);
}

int ts_vm_dilation_params(char *buf, size_t len, unsigned milli, struct ts_err *err)
{
	/* QEMU's virtual clock in kHz: its TSC and APIC timer count nanoseconds under icount. */
	const uint64_t vkhz = 1000000;
	uint64_t khz = vkhz * milli / 1000;
	int n;

	if (!milli || !ts_vm_dilation_valid(milli)) {
		ts_err_set(err, "time dilation: expected a factor from 1.1 to 8");
		return -EINVAL;
	}
	n = snprintf(buf, len, "tsc_early_khz=%" PRIu64 " " TS_VM_DILATION_PATCH_PARAM "=%" PRIu64,
		     khz, khz);
	return cmdline_fits(n, len, err);
}

/* Appends @s single-quoted for sh to @out (which has room: 4 * strlen + 3). */
static void sh_quote(char *out, const char *s)
{
	char *o = out + strlen(out);

	*o++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *s;
		}
	}
	*o++ = '\'';
	*o = '\0';
}

char *ts_vm_init_script(const char *const *mods, size_t nmods, const char *init)
{
	static const char head[] =
		"#!/bin/busybox sh\n"
		"# tasshape vm: load the modules the root file system needs, mount the host's / "
		"over\n"
		"# virtio-9p read-only and hand over to tasshape's guest init.\n"
		"B=/bin/busybox\n"
		"fail() { echo \"tasshape vm initramfs: $*\" >/dev/console; $B poweroff -f; }\n"
		"$B mount -t proc proc /proc\n";
	static const char tail_fmt[] =
		"$B mount -t 9p -o ro," TS_VM_9P_ROOT_OPTS " " TS_VM_TAG_ROOT " /newroot || "
		"fail 'cannot mount the host root (9p tag " TS_VM_TAG_ROOT ")'\n"
		"$B umount /proc\n"
		"exec $B switch_root /newroot %s vm --guest-init\n";
	size_t len = sizeof(head) + sizeof(tail_fmt) + 4 * strlen(init) + 3, i;
	char *s, *q;

	for (i = 0; i < nmods; i++)
		len += 2 * (4 * strlen(mods[i]) + 3) + 64;
	s = malloc(len);
	q = malloc(4 * strlen(init) + 3);
	if (!s || !q) {
		free(s);
		free(q);
		return NULL;
	}
	strcpy(s, head);
	for (i = 0; i < nmods; i++) {
		strcat(s, "$B insmod /lib/modules/");
		sh_quote(s, mods[i]);
		strcat(s, " || fail 'insmod ");
		strcat(s, mods[i][0] && !strchr(mods[i], '\'') ? mods[i] : "?");
		strcat(s, "'\n");
	}
	q[0] = '\0';
	sh_quote(q, init);
	snprintf(s + strlen(s), len - strlen(s), tail_fmt, q);
	free(q);
	return s;
}

void ts_vm_modname(const char *path, char *name, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n, i;
	const char *ko;

	b = b ? b + 1 : path;
	ko = strstr(b, ".ko");
	n = ko ? (size_t)(ko - b) : strlen(b);
	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++)
		name[i] = b[i] == '-' ? '_' : b[i];
	name[n] = '\0';
}

/* Does one of @text's lines (its first field, up to ':' when @colon) name module @name? */
static const char *find_line(const char *text, const char *name, bool colon)
{
	const char *l = text;

	while (l && *l) {
		const char *end = strchr(l, '\n'), *fe;
		char field[512], mod[256];
		size_t n;

		if (!end)
			end = l + strlen(l);
		fe = colon ? memchr(l, ':', (size_t)(end - l)) : end;
		if (fe) {
			n = (size_t)(fe - l) < sizeof(field) - 1 ? (size_t)(fe - l)
								 : sizeof(field) - 1;
			memcpy(field, l, n);
			field[n] = '\0';
			ts_vm_modname(field, mod, sizeof(mod));
			if (!strcmp(mod, name))
				return l;
		}
		l = *end ? end + 1 : NULL;
	}
	return NULL;
}

static bool in_list(const struct ts_vm_modlist *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->path[i], path))
			return true;
	return false;
}

/* Adds the module of modules.dep line @line after its dependencies (depth-first). */
static int add_with_deps(const char *dep, const char *line, struct ts_vm_modlist *out, int depth,
			 struct ts_err *err)
{
	const char *end = strchr(line, '\n'), *colon = strchr(line, ':'), *p;
	char self[512];
	size_t n;
	int ret;

	if (!end)
		end = line + strlen(line);
	n = (size_t)(colon - line);
	if (n >= sizeof(self) || depth > 32) {
		ts_err_set(err, "modules.dep: line too long or dependencies nested too deep");
		return -EINVAL;
	}
	memcpy(self, line, n);
	self[n] = '\0';
	if (in_list(out, self))
		return 0;
	for (p = colon + 1; p < end;) {
		char d[512], name[256];
		const char *de, *dl;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		de = p;
		while (de < end && *de != ' ' && *de != '\t')
			de++;
		if (de == p)
			break;
		n = (size_t)(de - p) < sizeof(d) - 1 ? (size_t)(de - p) : sizeof(d) - 1;
		memcpy(d, p, n);
		d[n] = '\0';
		ts_vm_modname(d, name, sizeof(name));
		dl = find_line(dep, name, true);
		if (!dl) {
			ts_err_set(err,
				   "modules.dep: %s depends on %s, which has no line of its own",
				   self, d);
			return -ENOENT;
		}
		ret = add_with_deps(dep, dl, out, depth + 1, err);
		if (ret < 0)
			return ret;
		p = de;
	}
	if (out->n >= sizeof(out->path) / sizeof(out->path[0])) {
		ts_err_set(err, "more than %zu modules needed at boot",
			   sizeof(out->path) / sizeof(out->path[0]));
		return -E2BIG;
	}
	out->path[out->n] = strdup(self);
	if (!out->path[out->n])
		return -ENOMEM;
	out->n++;
	return 0;
}

int ts_vm_moddep_resolve(const char *dep, const char *builtin, const char *const *want,
			 size_t nwant, struct ts_vm_modlist *out, struct ts_err *err)
{
	size_t i;
	int ret;

	out->n = 0;
	for (i = 0; i < nwant; i++) {
		const char *line;

		if (builtin && find_line(builtin, want[i], false))
			continue;
		line = find_line(dep, want[i], true);
		if (!line) {
			ts_err_set(err,
				   "module %s is neither built in (modules.builtin) nor in "
				   "modules.dep",
				   want[i]);
			return -ENOENT;
		}
		ret = add_with_deps(dep, line, out, 0, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

void ts_vm_modlist_free(struct ts_vm_modlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->path[i]);
	l->n = 0;
}

static size_t add_name(char (*out)[64], size_t n, size_t max, const char *w, size_t len)
{
	char name[64];
	size_t i;

	if (!len || len >= sizeof(name))
		return n;
	memcpy(name, w, len);
	name[len] = '\0';
	for (i = 0; i < n; i++)
		if (!strcmp(out[i], name))
			return n;
	if (n == max)
		return n;
	memcpy(out[n], name, len + 1);
	return n + 1;
}

/* Adds @w and the modules of each "alias @w MODULE" line of @alias. */
static size_t add_aliased(const char *alias, char (*out)[64], size_t n, size_t max, const char *w,
			  size_t len)
{
	const char *l = alias;

	n = add_name(out, n, max, w, len);
	while (l && *l) {
		const char *end = strchr(l, '\n');

		if (!end)
			end = l + strlen(l);
		if (!strncmp(l, "alias ", 6) && (size_t)(end - l) > 6 + len &&
		    !strncmp(l + 6, w, len) && l[6 + len] == ' ') {
			const char *m = l + 7 + len;

			n = add_name(out, n, max, m, strcspn(m, " \t\n"));
		}
		l = *end ? end + 1 : NULL;
	}
	return n;
}

size_t ts_vm_softdeps(const char *softdep, const char *alias, const char *name, char (*out)[64],
		      size_t n, size_t max)
{
	const char *l = softdep;
	size_t nl = strlen(name);

	while (l && *l) {
		const char *end = strchr(l, '\n'), *p;

		if (!end)
			end = l + strlen(l);
		if (!strncmp(l, "softdep ", 8) && (size_t)(end - l) > 8 + nl &&
		    !strncmp(l + 8, name, nl) && l[8 + nl] == ' ') {
			for (p = l + 8 + nl; p < end;) {
				size_t wl;

				while (p < end && (*p == ' ' || *p == '\t'))
					p++;
				wl = strcspn(p, " \t\n");
				if (p + wl > end)
					wl = (size_t)(end - p);
				if (wl && p[wl - 1] != ':') /* not "pre:" or "post:" */
					n = add_aliased(alias, out, n, max, p, wl);
				p += wl;
			}
		}
		l = *end ? end + 1 : NULL;
	}
	return n;
}

int ts_vm_bzimage_version(const unsigned char *img, size_t len, char *out, size_t outlen)
{
	size_t off, i;

	/* Boot protocol: "HdrS" at 0x202; kernel_version (u16 LE) at 0x20e points past 0x200. */
	if (len < 0x210 || memcmp(img + 0x202, "HdrS", 4))
		return -EINVAL;
	off = 0x200 + (size_t)(img[0x20e] | img[0x20f] << 8);
	if (img[0x20e] == 0 && img[0x20f] == 0)
		return -EINVAL;
	for (i = 0; off + i < len && img[off + i] && i + 1 < outlen; i++) {
		if (img[off + i] < 0x20 || img[off + i] > 0x7e)
			return -EINVAL;
		out[i] = (char)img[off + i];
	}
	if (off + i >= len || i == 0)
		return -EINVAL;
	out[i] = '\0';
	return 0;
}

static int put_line(char **s, size_t *len, const char *key, const char *val)
{
	char *n;
	int ret;

	ret = asprintf(&n, "%s%s=%s\n", *s ? *s : "", key, val);
	if (ret < 0)
		return -ENOMEM;
	free(*s);
	*s = n;
	*len = (size_t)ret;
	return 0;
}

char *ts_vm_conf_format(const struct ts_vm_guest_conf *g)
{
	char *s = NULL;
	size_t len = 0;
	unsigned i;
	int ret;

	ret = put_line(&s, &len, "cwd", g->cwd);
	if (!ret && g->out[0])
		ret = put_line(&s, &len, "out", g->out);
	if (!ret && g->modules[0])
		ret = put_line(&s, &len, "modules", g->modules);
	for (i = 0; !ret && i < g->nmodprobe; i++)
		ret = put_line(&s, &len, "modprobe", g->modprobe[i]);
	if (ret) {
		free(s);
		return NULL;
	}
	return s;
}

static int copy_val(char *dst, size_t len, const char *v, size_t n, unsigned line, const char *key,
		    struct ts_err *err)
{
	if (n >= len) {
		ts_err_set(err, "vm conf line %u: %s is longer than %zu bytes", line, key, len - 1);
		return -EINVAL;
	}
	memcpy(dst, v, n);
	dst[n] = '\0';
	return 0;
}

int ts_vm_conf_parse(const char *text, struct ts_vm_guest_conf *g, struct ts_err *err)
{
	const char *l = text;
	unsigned line = 0;
	int ret = 0;

	memset(g, 0, sizeof(*g));
	while (!ret && *l) {
		const char *end = strchr(l, '\n'), *eq;
		size_t kn, vn;

		line++;
		if (!end)
			end = l + strlen(l);
		eq = memchr(l, '=', (size_t)(end - l));
		if (!eq) {
			ts_err_set(err, "vm conf line %u: expected key=value", line);
			return -EINVAL;
		}
		kn = (size_t)(eq - l);
		vn = (size_t)(end - eq - 1);
		if (kn == 3 && !memcmp(l, "cwd", 3)) {
			ret = copy_val(g->cwd, sizeof(g->cwd), eq + 1, vn, line, "cwd", err);
		} else if (kn == 3 && !memcmp(l, "out", 3)) {
			ret = copy_val(g->out, sizeof(g->out), eq + 1, vn, line, "out", err);
		} else if (kn == 7 && !memcmp(l, "modules", 7)) {
			ret = copy_val(g->modules, sizeof(g->modules), eq + 1, vn, line, "modules",
				       err);
		} else if (kn == 8 && !memcmp(l, "modprobe", 8)) {
			if (g->nmodprobe >= sizeof(g->modprobe) / sizeof(g->modprobe[0])) {
				ts_err_set(err, "vm conf line %u: too many modprobe lines", line);
				return -EINVAL;
			}
			ret = copy_val(g->modprobe[g->nmodprobe], sizeof(g->modprobe[0]), eq + 1,
				       vn, line, "modprobe", err);
			g->nmodprobe++;
		} else {
			ts_err_set(err, "vm conf line %u: unknown key '%.*s'", line, (int)kn, l);
			return -EINVAL;
		}
		l = *end ? end + 1 : end;
	}
	if (!ret && !g->cwd[0]) {
		ts_err_set(err, "vm conf: no cwd line");
		ret = -EINVAL;
	}
	return ret;
}

static int parse_int(const char *v, size_t n, int max, int *out)
{
	long x = 0;
	size_t i;

	if (!n || n > 9)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EINVAL;
		x = x * 10 + (v[i] - '0');
	}
	if (x > max)
		return -EINVAL;
	*out = (int)x;
	return 0;
}

int ts_vm_status_parse(const char *text, struct ts_vm_status *s, struct ts_err *err)
{
	const char *l = text;
	unsigned line = 0;

	memset(s, 0, sizeof(*s));
	while (*l) {
		const char *end = strchr(l, '\n'), *eq, *v;
		size_t kn, vn;
		int x;

		line++;
		if (!end)
			end = l + strlen(l);
		eq = memchr(l, '=', (size_t)(end - l));
		if (!eq) {
			ts_err_set(err, "guest status line %u: expected key=value", line);
			return -EINVAL;
		}
		kn = (size_t)(eq - l);
		v = eq + 1;
		vn = (size_t)(end - v);
		if (kn == 4 && !memcmp(l, "exit", 4)) {
			if (parse_int(v, vn, 255, &x) < 0)
				goto bad;
			s->have_exit = true;
			s->exit_code = x;
		} else if (kn == 6 && !memcmp(l, "signal", 6)) {
			if (parse_int(v, vn, 64, &x) < 0 || !x)
				goto bad;
			s->have_exit = true;
			s->exit_code = 128 + x;
		} else if (kn == 5 && !memcmp(l, "error", 5)) {
			snprintf(s->error, sizeof(s->error), "%.*s", (int)vn, v);
		} else if (kn == 11 && !memcmp(l, "clocksource", 11)) {
			snprintf(s->clocksource, sizeof(s->clocksource), "%.*s", (int)vn, v);
		} else if (kn == 7 && !memcmp(l, "preempt", 7)) {
			snprintf(s->preempt, sizeof(s->preempt), "%.*s", (int)vn, v);
		} else if (kn == 7 && !memcmp(l, "release", 7)) {
			snprintf(s->release, sizeof(s->release), "%.*s", (int)vn, v);
		} else if (kn == 4 && !memcmp(l, "boot", 4)) {
			char num[32], *e;

			snprintf(num, sizeof(num), "%.*s", (int)vn, v);
			s->boot_s = strtod(num, &e);
			if (e == num || *e)
				goto bad;
		}
		/* Unknown keys are skipped: a newer guest init may report more. */
		l = *end ? end + 1 : end;
		continue;
	bad:
		ts_err_set(err, "guest status line %u: bad value '%.*s'", line, (int)vn, v);
		return -EINVAL;
	}
	return 0;
}

/* Is @path @dir or below it (by name: "/tmp/ab" is not below "/tmp/a")? */
static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/' || n == 1);
}

const char *ts_vm_hidden_path(const char *arg, const char *const *shares, size_t nshares)
{
	static const char *const fresh[] = {"/tmp", "/run"};
	const char *cand[2] = {arg, strchr(arg, '=')};
	size_t i, j, k;

	if (cand[1])
		cand[1]++;
	for (i = 0; i < 2; i++) {
		bool shared = false;

		if (!cand[i] || cand[i][0] != '/')
			continue;
		for (k = 0; k < nshares; k++)
			shared |= shares[k] && below(cand[i], shares[k]);
		/* /tmp itself is there (the guest's own); what the host has in it is not. */
		for (j = 0; j < 2 && !shared; j++)
			if (below(cand[i], fresh[j]) && strcmp(cand[i], fresh[j]) &&
			    cand[i][strlen(fresh[j]) + 1])
				return cand[i];
	}
	return NULL;
}

size_t ts_vm_pack(char *const v[], char *buf, size_t len)
{
	size_t n = 0, i, l;

	for (i = 0; v[i]; i++) {
		l = strlen(v[i]) + 1;
		if (n + l > len)
			return 0;
		memcpy(buf + n, v[i], l);
		n += l;
	}
	return n;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

void ts_vm_probe_image(unsigned char img[TS_VM_PROBE_LEN])
{
	/* Multiboot header (magic, flags, checksum, then the address fields of flag 16), loaded
	 * at 1 MiB with its code right after it. */
	static const uint32_t magic = 0x1BADB002, flags = 0x00010000, base = 0x100000;
	/* clang-format off */
	static const unsigned char code[] = {
		0xb9, 0, 0, 0, 0,		/* mov ecx, loops (written below) */
		0x49,				/* 1: dec ecx */
		0x75, 0xfd,			/* jnz 1b */
		0xb0, TS_VM_PROBE_VALUE,	/* mov al, value */
		0xe6, TS_VM_PROBE_PORT,		/* out port, al */
		0xf4,				/* 2: hlt */
		0xeb, 0xfd,			/* jmp 2b */
		0x90};				/* nop */
	/* clang-format on */
	_Static_assert(32 + sizeof(code) == TS_VM_PROBE_LEN, "the header and the code fill it");

	memset(img, 0, TS_VM_PROBE_LEN);
	put32(img, magic);
	put32(img + 4, flags);
	put32(img + 8, (uint32_t) - (magic + flags));
	put32(img + 12, base);	    /* header_addr */
	put32(img + 16, base);	    /* load_addr */
	put32(img + 20, 0);	    /* load_end_addr: the whole file */
	put32(img + 24, 0);	    /* bss_end_addr: none */
	put32(img + 28, base + 32); /* entry_addr */
	memcpy(img + 32, code, sizeof(code));
	put32(img + 33, TS_VM_PROBE_LOOPS); /* mov ecx's immediate */
}

bool ts_vm_kvm_needs_tcg_time(uint64_t kvm_ns)
{
	return kvm_ns > TS_VM_KVM_QUICK_NS;
}

bool ts_vm_kvm_too_slow(uint64_t kvm_ns, uint64_t tcg_ns)
{
	/* kvm_ns > 2 * tcg_ns, without overflow for any tcg_ns. */
	return ts_vm_kvm_needs_tcg_time(kvm_ns) &&
	       (kvm_ns / 2 > tcg_ns || (kvm_ns / 2 == tcg_ns && kvm_ns % 2));
}

int ts_vm_share_check(const char *what, const char *path, struct ts_err *err)
{
	if (strcmp(path, "/"))
		return 0;
	ts_err_set(err,
		   "%s is /: it would be shared writable, giving the guest write access to "
		   "the host's whole file system (expected a directory of your own: cd to one)",
		   what);
	return -EINVAL;
}
