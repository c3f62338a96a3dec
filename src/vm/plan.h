/* SPDX-License-Identifier: MIT */
/*
 * The pure parts of the micro-VM runner: the kernel command line, QEMU's
 * argument vector, the initramfs init script, the control files passed
 * between host and guest, the module dependency closure and the bzImage
 * header. No syscalls: the unit tests drive them with made-up inputs.
 */
#ifndef TS_VM_PLAN_H
#define TS_VM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"

/* 9p mount tags of the four shares. */
#define TS_VM_TAG_ROOT "tasroot"
#define TS_VM_TAG_CTL  "tasctl"
#define TS_VM_TAG_CWD  "tascwd"
#define TS_VM_TAG_OUT  "tasout"
/* virtio-serial port names of CMD's stdout and stderr. */
#define TS_VM_PORT_STDOUT "tas.stdout"
#define TS_VM_PORT_STDERR "tas.stderr"
/* 9p options: 512 KB messages (virtio's largest); the read-only root may cache. */
#define TS_VM_9P_OPTS	   "trans=virtio,version=9p2000.L,msize=512000"
#define TS_VM_9P_ROOT_OPTS TS_VM_9P_OPTS ",cache=loose"

/*
 * A sealed guest: its control files (conf, argv, env) are packed in this directory of the
 * initramfs, and --out is a RAM directory at TS_VM_SEALED_OUT until CMD ends.
 */
#define TS_VM_SEALED_DIR "/.tasshape-vm"
#define TS_VM_SEALED_OUT TS_VM_SEALED_DIR "/out"
/* A sealed guest's CMD output, in the control share once CMD has ended (no serial port). */
#define TS_VM_SEALED_STDOUT "stdout"
#define TS_VM_SEALED_STDERR "stderr"

/* Modules the guest needs before its root filesystem exists. */
extern const char *const ts_vm_boot_modules[];
extern const size_t ts_vm_nboot_modules;

/* A growable NULL-terminated vector of owned strings. */
struct ts_vm_argv {
	char **v;
	size_t n, cap;
};

int ts_vm_argv_add(struct ts_vm_argv *a, const char *s);
int ts_vm_argv_addf(struct ts_vm_argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ts_vm_argv_free(struct ts_vm_argv *a);

/*
 * In virtual time the guest's real-time clock starts here (UTC) and counts guest time, and
 * QEMU's emulated RDRAND/RDSEED come from this seed: both are inputs of the guest kernel's
 * random pool, which would otherwise differ from boot to boot (docs/kernels.md).
 */
#define TS_VM_RTC_BASE	"2000-01-01T00:00:00"
#define TS_VM_QEMU_SEED 1u

/* What QEMU is asked to do. */
struct ts_vm_plan {
	const char *qemu, *kernel, *initrd; /* initrd NULL: none */
	bool kvm;
	bool icount; /* virtual time: -icount shift=@icount_shift,sleep=off,align=off */
	unsigned icount_shift;
	unsigned cpus;
	uint64_t memory_mib;
	const char *cmdline;
	const char *ctl, *cwd, *out; /* host directories; out may be NULL */
	bool passthrough; /* the read-only root share: passthrough (QEMU is root) or none */
	bool sealed;	  /* no root and no cwd share: the initramfs is the root */
	const char *sock_out, *sock_err; /* unix sockets for CMD's stdout and stderr (not sealed) */
	const char *console;		 /* file or unix socket for the kernel console */
	bool console_is_socket;
};

/*
 * ts_vm_qemu_argv - QEMU's argv for @p into @a (which must be empty).
 * Paths with a comma are escaped as QEMU's option syntax wants (",,").
 * Returns 0 or -ENOMEM.
 */
int ts_vm_qemu_argv(const struct ts_vm_plan *p, struct ts_vm_argv *a);

/*
 * ts_vm_qemu_version - major and minor of `qemu-system-x86_64 -version`
 * output @text ("QEMU emulator version 7.2.22 (Debian ...)"). Returns 0 or
 * -EINVAL.
 */
int ts_vm_qemu_version(const char *text, unsigned *major, unsigned *minor);

/*
 * ts_vm_icount_smp_ok - can this QEMU bring up more than one vCPU under
 * icount? QEMU 7.2 (Debian 12) hangs at SMP bring-up ("x86: Booting SMP
 * configuration:") with -icount; 8.0 reworked icount's vCPU scheduling.
 */
bool ts_vm_icount_smp_ok(unsigned major, unsigned minor);

/*
 * ts_vm_cmdline - the guest kernel's command line into @buf: console on
 * ttyS0, panic reboots (and so ends QEMU), the HPET clock source under
 * TCG, then either the 9p root and init=@init (no initramfs) or nothing
 * more (the initramfs mounts the root), then @append, then (no initramfs)
 * "-- vm --guest-init" for init. Returns 0, -EINVAL (a path with
 * white space) or -ENOSPC.
 */
int ts_vm_cmdline(char *buf, size_t len, bool kvm, bool initramfs, const char *init,
		  const char *append, struct ts_err *err);

/*
 * ts_vm_cmdline_sealed - the command line of a sealed guest: as
 * ts_vm_cmdline under TCG, then "rdinit=@init" (the initramfs is the root
 * and tasshape in it the first process), @append, @extra (NULL: none) and
 * "-- vm --guest-init", the words the kernel passes to init. Returns 0,
 * -EINVAL (a path with white space) or -ENOSPC.
 */
int ts_vm_cmdline_sealed(char *buf, size_t len, const char *init, const char *append,
			 const char *extra, struct ts_err *err);

/*
 * ts_vm_dilation_params - the kernel parameters that dilate a guest's time by
 * @milli / 1000 (guestargs.h, TS_VM_DILATION_*), into @buf: "tsc_early_khz=N
 * lapic_bus_khz=N". Under icount both the TSC and the local APIC timer count
 * QEMU's virtual nanoseconds, 1e6 kHz; telling the guest they run at 1e6 x K
 * kHz makes its clock, and every timer it arms, run K times slower than
 * QEMU's. lapic_bus_khz= is tasshape's kernel patch (tools/kernel/patches):
 * without it the kernel calibrates the APIC timer against the PM timer,
 * which counts QEMU's clock. Returns 0, -EINVAL (@milli 0 or out of
 * range) or -ENOSPC.
 */
int ts_vm_dilation_params(char *buf, size_t len, unsigned milli, struct ts_err *err);

/* The kernel parameter only a patched kernel knows; an unpatched one hands it to init. */
#define TS_VM_DILATION_PATCH_PARAM "lapic_bus_khz"

/*
 * ts_vm_init_script - the initramfs's /init (run by a static busybox):
 * insmod each of @mods (file names in /lib/modules of the initramfs, in
 * load order), mount the 9p root read-only on /newroot and switch_root
 * to "@init vm --guest-init". Returns a malloc'ed string or NULL.
 */
char *ts_vm_init_script(const char *const *mods, size_t nmods, const char *init);

/*
 * Module dependency closure from depmod's files: the modules of @want
 * that @builtin (modules.builtin) does not list, with everything they
 * depend on (modules.dep), dependencies first, each once. Names compare
 * as the kernel does ("-" and "_" alike, no ".ko"/".ko.xz" suffix). Fills
 * @out with paths relative to the modules directory. Returns 0, -ENOENT
 * with @err set for a module found in neither file, or -ENOMEM.
 */
struct ts_vm_modlist {
	size_t n;
	char *path[64];
};
int ts_vm_moddep_resolve(const char *dep, const char *builtin, const char *const *want,
			 size_t nwant, struct ts_vm_modlist *out, struct ts_err *err);
void ts_vm_modlist_free(struct ts_vm_modlist *l);

/*
 * ts_vm_softdeps - the modules that modprobe loads with module @name besides
 * its modules.dep closure: the words of its "softdep @name pre: ... post: ..."
 * lines in @softdep (modules.softdep), each followed by the modules that
 * @alias (modules.alias; NULL: none) lists for it as an exact alias
 * ("softdep libcrc32c pre: crc32c" needs crc32c_intel or crc32c_generic).
 * Appends to @out (@n names so far, at most @max, each once) and returns
 * the new count.
 */
size_t ts_vm_softdeps(const char *softdep, const char *alias, const char *name, char (*out)[64],
		      size_t n, size_t max);

/* Kernel-style module name of @path ("kernel/fs/9p/9p.ko.xz" -> "9p") into @name. */
void ts_vm_modname(const char *path, char *name, size_t len);

/*
 * ts_vm_bzimage_version - the version string a bzImage carries in its
 * setup header (kernel_version at 0x20e, offset from 0x200), e.g.
 * "6.1.0-28-amd64 (debian-kernel@...) #1 SMP ...". @img holds the file's
 * first @len bytes. Returns 0 or -EINVAL (not a bzImage, or no string).
 */
int ts_vm_bzimage_version(const unsigned char *img, size_t len, char *out, size_t outlen);

/*
 * ts_vm_share_check - may @path (absolute, symbolic links resolved) be
 * shared writable with the guest as @what ("the current directory",
 * "--out")? Not "/": mounted in the guest it would put the host's whole
 * file system, writable, where the guest has / read-only. Returns 0, or
 * -EINVAL with @err saying why and what to do.
 */
int ts_vm_share_check(const char *what, const char *path, struct ts_err *err);

/* What the host tells the guest's init (the control share's "conf" file). */
struct ts_vm_guest_conf {
	char cwd[4096], out[4096], modules[4096];
	char modprobe[8][512];
	unsigned nmodprobe;
};

/* Writes @g as "key=value" lines into a malloc'ed string; NULL on ENOMEM. */
char *ts_vm_conf_format(const struct ts_vm_guest_conf *g);
/* Parses what ts_vm_conf_format wrote. Returns 0 or -EINVAL with @err naming the line. */
int ts_vm_conf_parse(const char *text, struct ts_vm_guest_conf *g, struct ts_err *err);

/* What the guest's init reports (the control share's "status" file). */
struct ts_vm_status {
	bool have_exit;
	int exit_code; /* exit status, or 128+N after signal N */
	char error[256];
	char clocksource[32], preempt[16], release[128];
	double boot_s;
};
/*
 * Parses "exit=N", "signal=N", "error=...", "clocksource=...", "preempt=...", "release=...",
 * "boot=S" lines.
 */
int ts_vm_status_parse(const char *text, struct ts_vm_status *s, struct ts_err *err);

/*
 * ts_vm_probe_image - a 48-byte multiboot (v1, "a.out kludge" flag) kernel
 * that counts down TS_VM_PROBE_LOOPS in a register, then writes
 * TS_VM_PROBE_VALUE to isa-debug-exit's port TS_VM_PROBE_PORT: QEMU then
 * exits with status 2 * value + 1. Booting it with accel=kvm tells whether
 * QEMU can run a guest on this KVM (a KVM may run a 4-instruction vCPU and
 * still refuse the MSRs QEMU sets), and the count how fast: a KVM that
 * runs guest code slower than QEMU's own emulation passes every other test
 * and then takes minutes to decompress a kernel. A million iterations are
 * a few milliseconds on KVM and tens of milliseconds under TCG.
 * Fills @img (TS_VM_PROBE_LEN bytes).
 */
#define TS_VM_PROBE_LEN	  48
#define TS_VM_PROBE_PORT  0xf4
#define TS_VM_PROBE_VALUE 0x10
#define TS_VM_PROBE_LOOPS 1000000u
void ts_vm_probe_image(unsigned char img[TS_VM_PROBE_LEN]);

/*
 * ts_vm_kvm_needs_tcg_time - was KVM's test boot (@kvm_ns) slower than
 * TS_VM_KVM_QUICK_NS, so that TCG's time is needed to judge it?
 * ts_vm_kvm_too_slow - the speed clause of the KVM test: its test boot took
 * @kvm_ns of wall time and the same image under TCG @tcg_ns. A test boot
 * within TS_VM_KVM_QUICK_NS is fast enough without asking TCG (@tcg_ns is
 * then not read: pass 0); a slower one is too slow when it took more than
 * twice TCG's time. The factor keeps a working KVM on a loaded host, whose
 * test boot is mostly QEMU starting, as slow as TCG's, from being taken for
 * a broken one: a KVM that cannot run guest code is tens of times slower.
 */
#define TS_VM_KVM_QUICK_NS 1000000000ull
bool ts_vm_kvm_needs_tcg_time(uint64_t kvm_ns);
bool ts_vm_kvm_too_slow(uint64_t kvm_ns, uint64_t tcg_ns);

/*
 * ts_vm_hidden_path - does argument @arg name a host path the guest does not
 * see? The guest mounts its own /tmp and /run (tmpfs), so a path below
 * either is hidden unless it lies in one of the @nshares directories
 * @shares (the current directory and --out, shared at the same path). Looks
 * at @arg itself and, for "--opt=PATH" or "KEY=PATH", at what follows the
 * first '='. Returns the hidden path inside @arg, or NULL.
 */
const char *ts_vm_hidden_path(const char *arg, const char *const *shares, size_t nshares);

/* Packs a NULL-terminated vector as NUL-terminated strings; returns the byte count. */
size_t ts_vm_pack(char *const v[], char *buf, size_t len);

#endif
