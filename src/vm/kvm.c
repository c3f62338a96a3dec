/* SPDX-License-Identifier: MIT */
/*
 * Is /dev/kvm usable? Its presence says little: a paravirtual hypervisor
 * may expose a /dev/kvm that creates VMs but cannot enter an ordinary
 * guest, and QEMU then fails late or hangs. So the probe runs a real guest:
 * one vCPU in real mode executing "mov dx,0x3f8; mov al,42; out dx,al; hlt",
 * expecting an I/O exit with 42 on port 0x3f8 and then a HLT exit (the
 * sequence of the KVM API documentation's example). It runs in a child
 * with an alarm, so a KVM_RUN that never returns cannot hang tasshape.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/clock.h"
#include "vm/plan.h"
#include "io/proc.h"
#include "io/rmtree.h"
#include "vm/capture.h"
#include "vm/qemuuser.h"
#include "vm/vm.h"

#define PROBE_PORT 0x3f8
#define PROBE_BYTE 42
/* Each test boot's bound: QEMU hanging in KVM_RUN must not hang tasshape. */
#define PROBE_LIMIT_MS 10000

/*
 * A step of the probe: done; failed in the call *what names, errno saying why; or failed
 * with its reason written to the child's pipe already.
 */
enum probe_step { STEP_OK, STEP_ERRNO, STEP_SAID };

/* A VM with one page of guest memory at 0x1000 holding the test code. */
static enum probe_step probe_vm(int fd, int *kvm, int *vm, const char **what)
{
	static const unsigned char code[] = {0xba, 0xf8,       0x03, /* mov dx, 0x3f8 */
					     0xb0, PROBE_BYTE,	     /* mov al, 42 */
					     0xee,		     /* out dx, al */
					     0xf4};		     /* hlt */
	struct kvm_userspace_memory_region region;
	unsigned char *mem;
	int ver;

	*what = "open /dev/kvm";
	*kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (*kvm < 0)
		return STEP_ERRNO;
	*what = "KVM_GET_API_VERSION";
	ver = ioctl(*kvm, KVM_GET_API_VERSION, 0);
	if (ver != KVM_API_VERSION) {
		dprintf(fd, "KVM API version %d, expected %d", ver, KVM_API_VERSION);
		return STEP_SAID;
	}
	*what = "KVM_CREATE_VM";
	*vm = ioctl(*kvm, KVM_CREATE_VM, 0UL);
	if (*vm < 0)
		return STEP_ERRNO;
	*what = "guest memory";
	mem = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return STEP_ERRNO;
	memcpy(mem, code, sizeof(code));
	region = (struct kvm_userspace_memory_region){.slot = 0,
						      .guest_phys_addr = 0x1000,
						      .memory_size = 0x1000,
						      .userspace_addr = (unsigned long)mem};
	*what = "KVM_SET_USER_MEMORY_REGION";
	if (ioctl(*vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return STEP_ERRNO;
	return STEP_OK;
}

/* Its vCPU, in real mode at the code's first instruction, and the vCPU's shared run page. */
static enum probe_step probe_vcpu(int kvm, int vm, int *vcpu, struct kvm_run **run,
				  const char **what)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	long mmap_size;

	*what = "KVM_CREATE_VCPU";
	*vcpu = ioctl(vm, KVM_CREATE_VCPU, 0UL);
	if (*vcpu < 0)
		return STEP_ERRNO;
	*what = "KVM_GET_VCPU_MMAP_SIZE";
	mmap_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, NULL);
	if (mmap_size < (long)sizeof(**run))
		return STEP_ERRNO;
	*run = mmap(NULL, (size_t)mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, *vcpu, 0);
	if (*run == MAP_FAILED)
		return STEP_ERRNO;
	*what = "KVM_GET_SREGS";
	if (ioctl(*vcpu, KVM_GET_SREGS, &sregs) < 0)
		return STEP_ERRNO;
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	*what = "KVM_SET_SREGS";
	if (ioctl(*vcpu, KVM_SET_SREGS, &sregs) < 0)
		return STEP_ERRNO;
	memset(&regs, 0, sizeof(regs));
	regs.rip = 0x1000;
	regs.rflags = 0x2;
	*what = "KVM_SET_REGS";
	if (ioctl(*vcpu, KVM_SET_REGS, &regs) < 0)
		return STEP_ERRNO;
	return STEP_OK;
}

/* Run it: an I/O exit with PROBE_BYTE out to PROBE_PORT, then a HLT exit. */
static enum probe_step probe_run(int fd, int vcpu, const struct kvm_run *run, const char **what)
{
	*what = "KVM_RUN";
	if (ioctl(vcpu, KVM_RUN, NULL) < 0)
		return STEP_ERRNO;
	if (run->exit_reason != KVM_EXIT_IO || run->io.direction != KVM_EXIT_IO_OUT ||
	    run->io.port != PROBE_PORT ||
	    *((const unsigned char *)run + run->io.data_offset) != PROBE_BYTE) {
		dprintf(fd,
			"the test guest's first exit was reason %u, not the expected OUT to "
			"port 0x%x",
			run->exit_reason, PROBE_PORT);
		return STEP_SAID;
	}
	if (ioctl(vcpu, KVM_RUN, NULL) < 0)
		return STEP_ERRNO;
	if (run->exit_reason != KVM_EXIT_HLT) {
		dprintf(fd, "the test guest's second exit was reason %u, not HLT",
			run->exit_reason);
		return STEP_SAID;
	}
	return STEP_OK;
}

/* Runs in the child; writes one line to @fd on failure and returns its exit code. */
static int probe_child(int fd)
{
	struct kvm_run *run = NULL;
	const char *what = "";
	int kvm = -1, vm = -1, vcpu = -1;
	enum probe_step st;

	st = probe_vm(fd, &kvm, &vm, &what);
	if (st == STEP_OK)
		st = probe_vcpu(kvm, vm, &vcpu, &run, &what);
	if (st == STEP_OK)
		st = probe_run(fd, vcpu, run, &what);
	if (st == STEP_ERRNO)
		dprintf(fd, "%s: %s", what, strerror(errno));
	return st == STEP_OK ? 0 : 1;
}

int ts_vm_kvm_probe(const struct ts_vm_user *u, struct ts_err *why)
{
	char msg[256] = "";
	int pfd[2], st, ret;
	ssize_t n;
	pid_t pid;

	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		ret = -errno;
		ts_err_set(why, "/dev/kvm: %s", strerror(errno));
		return ret;
	}
	ret = ts_vm_user_kvm_check(u, why);
	if (ret < 0)
		return ret;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		ret = -errno;
		ts_err_set(why, "pipe: %s", strerror(errno));
		return ret;
	}
	/* Not io/proc.h: the child runs this process's code (KVM ioctls) as the user, no program. */
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(pfd[0]);
		close(pfd[1]);
		ts_err_set(why, "fork: %s", strerror(errno));
		return ret;
	}
	if (pid == 0) {
		close(pfd[0]);
		signal(SIGALRM, SIG_DFL);
		alarm(3);
		/* As QEMU will run: the invoking user, with /dev/kvm's group. */
		if (ts_invoker_become(&u->creds) < 0) {
			dprintf(pfd[1], "cannot become uid %u", (unsigned)u->creds.uid);
			_exit(1);
		}
		_exit(probe_child(pfd[1]));
	}
	close(pfd[1]);
	n = read(pfd[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		ts_err_set(why, "KVM_RUN of a 4-instruction test guest did not return within 3 s");
	else if (WIFSIGNALED(st))
		ts_err_set(why, "the KVM probe died of signal %d", WTERMSIG(st));
	else
		ts_err_set(why, "%s", msg[0] ? msg : "the KVM probe failed");
	return -ENODEV;
}

/*
 * One test boot of @path with accel=@accel; @ns its wall time (QEMU's start
 * included, as a real boot's is). 0 when the guest ran, else -ENODEV with @why.
 */
static int test_boot(const char *qemu, const char *path, const char *accel,
		     const struct ts_vm_user *u, uint64_t *ns, struct ts_err *why)
{
	char dev[64], machine[32], *out = NULL, *p;
	struct ts_proc qp;
	ts_ns_t t0;
	int st;

	snprintf(dev, sizeof(dev), "isa-debug-exit,iobase=0x%x,iosize=1", TS_VM_PROBE_PORT);
	snprintf(machine, sizeof(machine), "pc,accel=%s", accel);
	{
		/* A time limit bounds a QEMU that hangs in KVM_RUN; stderr is QEMU's reason. */
		char *argv[] = {(char *)qemu,
				(char *)"-nodefaults",
				(char *)"-no-user-config",
				(char *)"-display",
				(char *)"none",
				(char *)"-no-reboot",
				(char *)"-machine",
				machine,
				(char *)"-cpu",
				(char *)(strcmp(accel, "kvm") ? "max" : "host"),
				(char *)"-m",
				(char *)"64",
				(char *)"-device",
				dev,
				(char *)"-kernel",
				(char *)path,
				NULL};

		ts_proc_init(&qp, argv);
		qp.new_pgroup = true;
		qp.out.how = TS_PROC_CAPTURE;
		qp.out.max = 4096;
		qp.err.how = TS_PROC_TO_OUT;
		ts_vm_user_apply(u, &qp);
		t0 = ts_clock_now();
		st = ts_proc_run(&qp, PROBE_LIMIT_MS, why);
		*ns = (uint64_t)(ts_clock_now() - t0);
		out = qp.out.buf.data;
		qp.out.buf = (struct ts_buf){0};
		ts_proc_release(&qp);
	}
	if (st == 2 * TS_VM_PROBE_VALUE + 1) {
		st = 0;
	} else if (st >= 0) {
		for (p = out; p && *p; p++)
			if (*p == '\n')
				*p = *(p + 1) ? ';' : '\0';
		ts_err_set(why, "QEMU with accel=%s failed a test boot (exit %d): %.300s", accel,
			   st, out && *out ? out : "no message");
	} else if (st == -ETIMEDOUT) {
		ts_err_set(why, "QEMU with accel=%s did not finish a test boot in %d s", accel,
			   PROBE_LIMIT_MS / 1000);
	}
	free(out);
	return st == 0 ? 0 : -ENODEV;
}

int ts_vm_kvm_probe_qemu(const char *qemu, const char *dir, const struct ts_vm_user *u,
			 struct ts_err *why)
{
	unsigned char img[TS_VM_PROBE_LEN];
	uint64_t kvm_ns = 0, again_ns = 0, tcg_ns = UINT64_MAX;
	char path[4200];
	ssize_t n;
	int fd, ret;

	ts_vm_probe_image(img);
	snprintf(path, sizeof(path), "%s/kvm-probe.elf", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		ts_err_set(why, "%s: %s", path, strerror(errno));
		return ret;
	}
	n = write(fd, img, sizeof(img));
	ret = n == (ssize_t)sizeof(img) ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	if (ret < 0) {
		ts_err_set(why, "%s: %s", path, n < 0 ? strerror(-ret) : "short write");
		goto out;
	}
	ret = test_boot(qemu, path, "kvm", u, &kvm_ns, why);
	/* Slow but working: as slow as TCG is no reason to leave it; far slower is. */
	if (ret < 0 || !ts_vm_kvm_needs_tcg_time(kvm_ns) ||
	    test_boot(qemu, path, "tcg", u, &tcg_ns, NULL) < 0 ||
	    !ts_vm_kvm_too_slow(kvm_ns, tcg_ns))
		goto out;
	/*
	 * The first boot read QEMU, its libraries and firmware from disk, the TCG
	 * one found them cached: before leaving KVM, time it again as warm.
	 */
	if (test_boot(qemu, path, "kvm", u, &again_ns, NULL) == 0 && again_ns < kvm_ns)
		kvm_ns = again_ns;
	if (ts_vm_kvm_too_slow(kvm_ns, tcg_ns)) {
		ts_err_set(why,
			   "QEMU with accel=kvm took %.2f s for a test boot whose guest counts "
			   "to %u, software emulation (accel=tcg) %.2f s: this KVM runs guest code "
			   "slower than TCG",
			   kvm_ns / 1e9, TS_VM_PROBE_LOOPS, tcg_ns / 1e9);
		ret = -ENODEV;
	}
out:
	unlink(path);
	return ret;
}

int ts_vm_kvm_usable(const char *qemu, struct ts_err *why)
{
	const char *tmp = getenv("TMPDIR");
	struct ts_vm_user *u = malloc(sizeof(*u));
	struct ts_err rm;
	char dir[4096];
	int ret;

	if (!u) {
		ts_err_set(why, "out of memory");
		return -ENOMEM;
	}
	/* KVM as QEMU would use it: as the invoking user, with /dev/kvm's group (qemuuser.h). */
	ret = ts_vm_user_get(true, u, why);
	if (!ret)
		ret = ts_vm_kvm_probe(u, why);
	if (ret < 0)
		goto out;
	snprintf(dir, sizeof(dir), "%s/tasshape-kvm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		ret = -errno;
		ts_err_set(why, "mkdtemp %s: %s", dir, strerror(errno));
		goto out;
	}
	/* The test image is written by the probe before QEMU reads it: the directory is QEMU's. */
	ret = ts_vm_user_give(u, AT_FDCWD, dir, dir, why);
	if (!ret)
		ret = ts_vm_kvm_probe_qemu(qemu, dir, u, why);
	ts_rmtree(dir, &rm);
out:
	free(u);
	return ret;
}
