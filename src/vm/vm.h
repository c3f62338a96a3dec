/* SPDX-License-Identifier: MIT */
/*
 * The micro-VM runner: boot a kernel under test in QEMU with the host's
 * root filesystem shared read-only over virtio-9p (a tmpfs overlay on
 * top, so the guest may write anywhere and nothing reaches the host), the
 * current directory and an output directory shared writable, run one
 * command as root inside, stream its stdout and stderr back, and return
 * its exit status. The guest has no network device. This is the one
 * interface other layers (the front end, the experiment executor's kernel
 * axis) use: boot this kernel with these modules, run this argv, get its
 * status.
 */
#ifndef TS_VM_H
#define TS_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "tasshape/err.h"
#include "tasshape/time.h"

enum ts_vm_accel {
	TS_VM_ACCEL_AUTO, /* KVM when a probe shows it runs guests, else TCG with a warning */
	TS_VM_ACCEL_KVM,
	TS_VM_ACCEL_TCG,
};

/*
 * The guest's clock. Virtual: QEMU counts instructions (TCG's icount, 2^shift
 * ns each, idle time skipped), so what the guest sees no longer depends on the
 * host's speed or load; runs are identical run to run. Real: the host's clock.
 */
enum ts_vm_clock {
	TS_VM_CLOCK_AUTO, /* virtual under TCG or sealed, real under KVM */
	TS_VM_CLOCK_REAL,
	TS_VM_CLOCK_VIRTUAL,
};

/* 1 ns per instruction: a virtual CPU of 1e9 instructions per second. */
#define TS_VM_ICOUNT_SHIFT 0

#define TS_VM_MAX_MODPROBE 8

struct ts_vm_conf {
	const char *kernel;  /* bzImage path (required) */
	const char *modules; /* NULL or the kernel's modules directory (lib/modules/RELEASE) */
	enum ts_vm_accel accel;
	enum ts_vm_clock clock;
	unsigned cpus;	    /* 0: default (2; 1 in virtual time) */
	uint64_t memory;    /* bytes; 0: default (1 GiB) */
	const char *append; /* NULL or extra kernel command-line arguments */
	ts_ns_t timeout;    /* 0: none; else the guest is killed after this long */
	const char *out;    /* NULL or a host directory shared writable at the same path */
	const char *cwd;    /* NULL: the current directory; shared writable, CMD starts there */
	const char *qemu;   /* NULL: qemu-system-x86_64 from PATH */
	/* Modules loaded in the guest before CMD, each "NAME [PARAM=VALUE]..." as for modprobe. */
	const char *modprobe[TS_VM_MAX_MODPROBE];
	unsigned nmodprobe;
	/*
	 * Seal the guest, which must run in virtual time (else -EINVAL; docs/kernels.md,
	 * "Sealed guests"): CMD runs from an initramfs that holds this tasshape and the programs
	 * its shaper runs (net/ipt.h; a missing one is an error), @seal_tools
	 * (looked up in PATH; a missing one is an error) and @seal_tools_opt (packed when
	 * found), their libraries, the modules of @seal_modules, @modprobe and the shares'
	 * drivers with their dependencies, the /etc files they read, @seal_files (host paths,
	 * packed at the same path) and the current directory (empty but for those). Nothing
	 * is shared until CMD ends: --out is a directory of the guest's RAM at
	 * TS_VM_SEALED_OUT (CMD must write there), copied into @out by the guest's init after
	 * CMD; CMD's stdout and stderr reach the host only then. Lists NULL-terminated, or NULL.
	 */
	bool seal;
	/*
	 * Time dilation (sealed only): 0 none, else K x 1000 (guestargs.h). The guest's clock
	 * runs K times slower than QEMU's instruction count: its one vCPU executes K times as
	 * many instructions per second of its own time, a CPU K times as fast.
	 */
	unsigned dilation_milli;
	const char *const *seal_tools, *const *seal_tools_opt;
	const char *const *seal_modules;
	const char *const *seal_files;
	bool verbose; /* stream the guest kernel's console to stderr */
	bool quiet;   /* no notes on stderr (the TCG warning still goes there) */
};

struct ts_vm_result {
	int status;	/* CMD's exit status (128+N when killed by signal N) */
	bool timed_out; /* killed at --timeout; status is 124 */
	int signal;	/* SIGINT, SIGTERM or SIGHUP that stopped the VM (then -EINTR) */
	bool kvm;	/* ran under KVM (else TCG) */
	bool vclock;	/* virtual time (icount, TS_VM_ICOUNT_SHIFT) */
	unsigned cpus;	/* vCPUs the guest had */
	char accel_note[TS_ERR_MAX]; /* why TCG, when auto fell back */
	char clocksource[32];	     /* the guest's clock source, as it reported it */
	char preempt[16];	     /* its preemption model in force ("" if it has no switch) */
	char release[128];	     /* uname -r of the guest */
	char version[256];	     /* the kernel's version string (from the bzImage header) */
	char sha256[65];	     /* of the bzImage */
	bool pvh;		     /* booted its vmlinux at the PVH entry (vm/vmlinux.h) */
	char boot_note[128];	     /* else why not */
	double boot_s;		     /* the guest kernel's uptime when CMD started */
	bool sealed;		     /* booted from a sealed initramfs (conf.seal, virtual time) */
	unsigned dilation_milli;     /* its time dilation factor x 1000; 0: none */
	uint64_t image_bytes;	     /* that initramfs's size */
	char image_sha256[65];	     /* and its SHA-256: the same image, the same guest */
};

/*
 * ts_vm_run - boot @c->kernel and run @argv (NULL-terminated, argv[0]
 * looked up in the guest's PATH) inside. Returns 0 when CMD ran (its exit
 * status, or 124 after a timeout, is in @res->status) and a negative
 * errno with @err set when the VM could not be started or the guest did
 * not report a status (after a boot failure the guest console's last
 * lines are also printed on stderr), or -EINTR when SIGINT, SIGTERM or
 * SIGHUP stopped it (@res->signal). Leaves no process, mount or temporary
 * file behind (after a SIGKILL of tasshape QEMU still dies with it; its
 * temporary directory is removed by the next run).
 */
int ts_vm_run(const struct ts_vm_conf *c, char *const argv[], struct ts_vm_result *res,
	      struct ts_err *err);

/*
 * ts_vm_kernel_identify - the version string in @bzimage's setup header and
 * the file's SHA-256 (lower-case hex), without booting it: what a run
 * manifest records of the kernel under test. Returns 0, or -EINVAL (not a
 * bzImage) or another negative errno, with @err set.
 */
int ts_vm_kernel_identify(const char *bzimage, char version[256], char sha256[65],
			  struct ts_err *err);

struct json_object;

/*
 * ts_vm_result_put - what the guest of one VM run was, as fields of the JSON
 * object @o: accelerator (and why not KVM), "fidelity", clock (in virtual
 * time its icount shift, start date and QEMU seed), whether it booted
 * sealed (and the image), "reproducible", clock source, preemption model,
 * boot path, vCPUs and the kernel's uptime when CMD started. The one writer
 * of these fields, for `tasshape vm --info-json` and an experiment's "vm"
 * record. Sets *@nomem when a value could not be allocated.
 */
void ts_vm_result_put(struct json_object *o, const struct ts_vm_result *r, bool *nomem);

/*
 * ts_vm_info_json - the record of one VM run as JSON to @path: the kernel
 * (path, version string, release, SHA-256), accelerator (and why not
 * KVM), clock ("virtual" with its icount shift, or "real"), clock source,
 * vCPUs, memory, boot time, CMD's status and whether it timed out, and
 * "fidelity": "tcg" under software emulation in real time (timing is
 * coarser; docs/kernels.md), "virtual" in virtual time, else "kvm". Returns 0 or a negative errno with @err set.
 */
int ts_vm_info_json(const char *path, const struct ts_vm_conf *c, const struct ts_vm_result *r,
		    struct ts_err *err);

/*
 * ts_vm_kvm_usable - can tasshape vm use KVM here, for the user QEMU runs as
 * (vm/qemuuser.h)? ts_vm_kvm_probe, then ts_vm_kvm_probe_qemu with @qemu
 * (in a temporary directory it removes). Returns 0 or a negative errno
 * with @why saying which step failed and how.
 */
int ts_vm_kvm_usable(const char *qemu, struct ts_err *why);

struct ts_vm_user;

/*
 * ts_vm_kvm_probe - does /dev/kvm run a guest for @u? Creates a VM with one
 * vCPU and runs four real-mode instructions (an OUT and a HLT) in a child
 * process that becomes @u, with a 3 s limit. Returns 0 when both exits
 * came back as expected, else a negative errno with @why saying what
 * failed (-EACCES: @u may not open /dev/kvm).
 */
int ts_vm_kvm_probe(const struct ts_vm_user *u, struct ts_err *why);

/*
 * ts_vm_kvm_probe_qemu - can QEMU (@qemu, run as @u) boot a guest with accel=kvm, and
 * run it faster than its software emulation? Boots ts_vm_probe_image()
 * (written into directory @dir), each boot within 10 s; a KVM test boot
 * slower than TS_VM_KVM_QUICK_NS is timed under TCG, and when
 * ts_vm_kvm_too_slow (vm/plan.h) says so, under KVM once more (now that the
 * disk cache is warm) before it is judged: at most three boots. Returns 0
 * when KVM will do, else -ENODEV with @why quoting QEMU or giving both times.
 */
int ts_vm_kvm_probe_qemu(const char *qemu, const char *dir, const struct ts_vm_user *u,
			 struct ts_err *why);

/*
 * ts_vm_debian_kernel - Debian's stock kernel (the package linux-image-amd64
 * depends on), downloaded with apt-get download into the cache directory
 * and unpacked there with dpkg-deb (never installed). Fills @kernel and
 * @modules (paths of at least 4096 bytes). Returns 0 or a negative errno.
 */
int ts_vm_debian_kernel(char *kernel, char *modules, size_t len, bool quiet, struct ts_err *err);

/*
 * ts_vm_guest_main - the guest's init (PID 1 inside the VM): overlay,
 * shares, modules, runs CMD, reports its status, powers off. Never
 * returns when it is PID 1; returns 2 with a message otherwise.
 */
int ts_vm_guest_main(void);

#endif
