/* SPDX-License-Identifier: MIT */
/*
 * tasshape vm: run CMD under another kernel in a micro-VM (src/vm/). The
 * guest sees the host's files read-only with a tmpfs overlay, the current
 * directory and --out writable, and no network device; CMD runs as root,
 * its output streams back and tasshape exits with its status.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "exec/exec_warm.h"
#include "tasshape/units.h"
#include "vm/guestargs.h"
#include "vm/mode.h"
#include "vm/vm.h"

/* Exit statuses of tasshape vm itself, as timeout(1) and container runners use them. */
#define VM_EXIT_TIMEOUT 124
#define VM_EXIT_FAILED	125

/* Bounds of --seal-tool and --seal-file: an image is for one run's programs and data. */
#define VM_MAX_SEAL_TOOLS 16
#define VM_MAX_SEAL_FILES 64

struct vm_args {
	struct ts_vm_conf conf;
	bool guest_init;
	const char *info_json;
	bool fetch_only;
	char **cmd;
	/* CMD's program first, then --seal-tool's; NULL-terminated. */
	const char *seal_tools[VM_MAX_SEAL_TOOLS + 2];
	unsigned nseal_tools;
	const char *seal_files[VM_MAX_SEAL_FILES + 1];
	unsigned nseal_files;
};

enum {
	OPT_KERNEL = 'k',
	OPT_MODULES = 'M',
	OPT_ACCEL = 0x400,
	OPT_CPUS,
	OPT_MEMORY,
	OPT_APPEND,
	OPT_TIMEOUT,
	OPT_OUT,
	OPT_MODPROBE,
	OPT_QEMU,
	OPT_VERBOSE,
	OPT_QUIET,
	OPT_GUEST_INIT,
	OPT_INFO_JSON,
	OPT_FETCH_ONLY,
	OPT_CLOCK,
	OPT_SEAL,
	OPT_SEAL_TOOL,
	OPT_SEAL_FILE,
	OPT_TIME_DILATION,
};

static const struct argp_option vm_options[] = {
	{"kernel", OPT_KERNEL, "BZIMAGE|debian", 0,
	 "Kernel to boot: an x86 bzImage, or 'debian' for Debian's stock kernel (downloaded with "
	 "apt-get download into the cache, never installed)",
	 0},
	{"modules", OPT_MODULES, "DIR", 0,
	 "The kernel's modules directory (lib/modules/RELEASE, with depmod's files): modules the "
	 "root file system needs go into an initramfs, the rest are modprobe'd from it",
	 0},
	{"accel", OPT_ACCEL, "kvm|tcg|auto", 0,
	 "Accelerator (default auto: KVM if a test guest runs on /dev/kvm faster than under "
	 "TCG, else TCG with a warning)",
	 0},
	{"clock", OPT_CLOCK, "virtual|real", 0,
	 "The guest's clock: virtual (QEMU's instruction counter, 1 ns per instruction, idle "
	 "time skipped; TCG only; the default under TCG: with --seal, runs identical whatever "
	 "the host's load, idle time then executed rather than skipped; without, the guest's "
	 "reads over 9p finish at host-timed instants and runs differ, which the note and "
	 "--info-json's reproducible say) or real (the host's clock; the default under KVM)",
	 0},
	{"cpus", OPT_CPUS, "N", 0, "Virtual CPUs (default 2; 1 in virtual time)", 0},
	{"memory", OPT_MEMORY, "SIZE", 0, "Guest memory, e.g. 1g, 512m (default 1g)", 0},
	{"append", OPT_APPEND, "ARGS", 0,
	 "Extra kernel parameters, of an allow-list (quiet, loglevel=N, console=, clocksource=, "
	 "tsc=, mitigations=, tasshape.KEY=V, ...; docs/kernels.md): never init=, root= or a "
	 "module's",
	 0},
	{"timeout", OPT_TIMEOUT, "TIME", 0,
	 "Kill the guest after TIME (e.g. 60s, 5min), boot included; exit status 124", 0},
	{"out", OPT_OUT, "DIR", 0,
	 "A second directory shared writable, at the same path; CMD finds it in $TASSHAPE_VM_OUT",
	 0},
	{"seal", OPT_SEAL, NULL, 0,
	 "Seal the guest (virtual time only: implies --clock virtual, so TCG; refused with "
	 "--accel kvm): CMD runs from an initramfs that holds everything it reads (tasshape, CMD's "
	 "program, the shaper's iptables and modules, --seal-tool "
	 "programs with their libraries, --seal-file files, an empty current directory) and "
	 "nothing is shared with the host until CMD ends, so two runs get the same bytes. "
	 "$TASSHAPE_VM_OUT is then a directory of the guest's RAM, copied into --out after CMD; "
	 "CMD's output arrives after it ends",
	 0},
	{"time-dilation", OPT_TIME_DILATION, "K", 0,
	 "With --seal: dilate the guest's time by K (" TS_VM_DILATION_RANGE
	 ", e.g. 2 or 1.5): its clock runs K "
	 "times slower than QEMU's instruction count, so its one vCPU executes K x 1e9 "
	 "instructions per second of its own time, a CPU K times as fast. The run stays "
	 "deterministic. Needs a kernel with tools/kernel/patches/lapic-bus-khz.patch "
	 "(docs/kernels.md, \"Time dilation\")",
	 0},
	{"seal-tool", OPT_SEAL_TOOL, "PROG", 0,
	 "With --seal: also pack PROG (looked up in PATH) and its libraries (repeatable, up to 16)",
	 0},
	{"seal-file", OPT_SEAL_FILE, "PATH", 0,
	 "With --seal: also pack the file PATH at the same path (repeatable, up to 64; a "
	 "directory is packed empty)",
	 0},
	{"modprobe", OPT_MODPROBE, "'NAME [PARAM=V]...'", 0,
	 "Load a module in the guest before CMD (repeatable): its name, then PARAM=VALUE words, "
	 "no modprobe option; e.g. 'tcp_bbr_tas tas_pacing_shift_startup=7'",
	 0},
	{"info-json", OPT_INFO_JSON, "FILE", 0,
	 "Write the run's record as JSON: kernel version string, release and SHA-256, "
	 "accelerator, clock source, boot time, CMD's status",
	 0},
	{"fetch-only", OPT_FETCH_ONLY, NULL, 0,
	 "With --kernel debian: fetch the kernel into the cache (where the network is), print "
	 "its bzImage and modules directory, and boot nothing",
	 0},
	{"qemu", OPT_QEMU, "PATH", 0, "QEMU binary (default qemu-system-x86_64)", 0},
	{"verbose", OPT_VERBOSE, NULL, 0, "Show QEMU's command line and the guest's console", 0},
	{"quiet", OPT_QUIET, NULL, 0, "No notes on stderr (warnings still)", 0},
	{"guest-init", OPT_GUEST_INIT, NULL, OPTION_HIDDEN, "The guest's PID 1", 0},
	{0}};

/*
 * --append and --modprobe: words that programs run as root in the guest (its kernel, modprobe)
 * read, so data of a fixed shape (vm/guestargs.h): kernel parameters of an allow-list, a module
 * and its parameters, never an option of modprobe.
 */
static void guest_arg(struct vm_args *a, int key, char *arg, struct argp_state *state)
{
	struct ts_err err = {{0}};

	if (key == OPT_APPEND) {
		if (ts_vm_append_check(arg, &err) < 0)
			argp_error(state, "--append %s", err.msg);
		a->conf.append = arg;
		return;
	}
	if (a->conf.nmodprobe >= TS_VM_MAX_MODPROBE)
		argp_error(state, "--modprobe: at most %d", TS_VM_MAX_MODPROBE);
	if (ts_vm_modprobe_check(arg, &err) < 0)
		argp_error(state, "--modprobe %s", err.msg);
	a->conf.modprobe[a->conf.nmodprobe++] = arg;
}

/* --accel and --clock: the guest's mode, decided at the run (vm/mode.h). */
static void mode_arg(struct vm_args *a, int key, const char *arg, struct argp_state *state)
{
	if (key == OPT_ACCEL) {
		if (!strcmp(arg, "kvm"))
			a->conf.accel = TS_VM_ACCEL_KVM;
		else if (!strcmp(arg, "tcg"))
			a->conf.accel = TS_VM_ACCEL_TCG;
		else if (!strcmp(arg, "auto"))
			a->conf.accel = TS_VM_ACCEL_AUTO;
		else
			argp_error(state, "--accel: expected kvm, tcg or auto, got '%s'", arg);
		return;
	}
	if (!strcmp(arg, "virtual"))
		a->conf.clock = TS_VM_CLOCK_VIRTUAL;
	else if (!strcmp(arg, "real"))
		a->conf.clock = TS_VM_CLOCK_REAL;
	else
		argp_error(state, "--clock: expected virtual or real, got '%s'", arg);
}

/* --time-dilation, --cpus, --memory and --timeout: numbers with units, each within its bounds. */
static void bound_arg(struct vm_args *a, int key, const char *arg, struct argp_state *state)
{
	struct ts_err err = {{0}};
	uint64_t v;
	ts_ns_t t;

	if (key == OPT_TIME_DILATION) {
		if (ts_vm_dilation_parse(arg, &a->conf.dilation_milli, &err) < 0)
			argp_error(state, "--time-dilation: %s", err.msg);
	} else if (key == OPT_CPUS) {
		if (ts_parse_u64(arg, &v, &err) < 0 || v < 1 || v > 64)
			argp_error(state, "--cpus: expected 1 to 64, got '%s'", arg);
		a->conf.cpus = (unsigned)v;
	} else if (key == OPT_MEMORY) {
		if (ts_parse_size(arg, &v, &err) < 0)
			argp_error(state, "--memory: %s", err.msg);
		if (v < (128ULL << 20) || v > (64ULL << 30))
			argp_error(state, "--memory: expected 128m to 64g, got '%s'", arg);
		a->conf.memory = v;
	} else {
		if (ts_parse_time(arg, &t, &err) < 0)
			argp_error(state, "--timeout: %s", err.msg);
		if (t <= 0)
			argp_error(state, "--timeout: expected a positive time, got '%s'", arg);
		a->conf.timeout = t;
	}
}

/* --seal-tool and --seal-file: what a sealed image packs besides CMD's program. */
static void seal_arg(struct vm_args *a, int key, char *arg, struct argp_state *state)
{
	if (key == OPT_SEAL_TOOL) {
		if (a->nseal_tools >= VM_MAX_SEAL_TOOLS)
			argp_error(state, "--seal-tool: at most %d", VM_MAX_SEAL_TOOLS);
		/* Slot 0 is CMD's program, set at the end. */
		a->seal_tools[1 + a->nseal_tools++] = arg;
		return;
	}
	if (a->nseal_files >= VM_MAX_SEAL_FILES)
		argp_error(state, "--seal-file: at most %d", VM_MAX_SEAL_FILES);
	a->seal_files[a->nseal_files++] = arg;
}

/* The options together: what is required, what needs what, and the seal's lists. */
static void vm_end(struct vm_args *a, struct argp_state *state)
{
	struct ts_err err = {{0}};

	if (!a->guest_init && !a->conf.kernel)
		argp_error(state, "--kernel BZIMAGE|debian is required");
	if (a->fetch_only && strcmp(a->conf.kernel, "debian"))
		argp_error(state, "--fetch-only: only --kernel debian is fetched");
	if (!a->guest_init && !a->fetch_only && (!a->cmd || !a->cmd[0]))
		argp_error(state, "no command: tasshape vm --kernel K -- CMD [ARGS...]");
	if (!a->conf.seal && (a->nseal_tools || a->nseal_files))
		argp_error(state, "--seal-tool and --seal-file need --seal");
	if (ts_vm_mode_check(&a->conf, &err) < 0)
		argp_error(state, "%s", err.msg);
	if (a->conf.seal && a->cmd) {
		a->seal_tools[0] = a->cmd[0];
		a->conf.seal_tools = a->seal_tools;
		a->conf.seal_modules = ts_exp_warm_modules;
		a->conf.seal_files = a->seal_files;
	}
}

static error_t vm_parse(int key, char *arg, struct argp_state *state)
{
	struct vm_args *a = state->input;

	ts_cli_check_path(state, vm_options, key, arg);
	switch (key) {
	case OPT_KERNEL:
		a->conf.kernel = arg;
		break;
	case OPT_MODULES:
		a->conf.modules = arg;
		break;
	case OPT_ACCEL:
	case OPT_CLOCK:
		mode_arg(a, key, arg, state);
		break;
	case OPT_CPUS:
	case OPT_MEMORY:
	case OPT_TIMEOUT:
	case OPT_TIME_DILATION:
		bound_arg(a, key, arg, state);
		break;
	case OPT_APPEND:
	case OPT_MODPROBE:
		guest_arg(a, key, arg, state);
		break;
	case OPT_OUT:
		if (access(arg, W_OK) < 0)
			argp_error(state,
				   "--out %s: %s (it must be an existing writable directory)", arg,
				   strerror(errno));
		a->conf.out = arg;
		break;
	case OPT_INFO_JSON:
		a->info_json = arg;
		break;
	case OPT_QEMU:
		a->conf.qemu = arg;
		break;
	case OPT_VERBOSE:
		a->conf.verbose = true;
		break;
	case OPT_QUIET:
		a->conf.quiet = true;
		break;
	case OPT_GUEST_INIT:
		a->guest_init = true;
		break;
	case OPT_FETCH_ONLY:
		a->fetch_only = true;
		break;
	case OPT_SEAL:
		a->conf.seal = true;
		break;
	case OPT_SEAL_TOOL:
	case OPT_SEAL_FILE:
		seal_arg(a, key, arg, state);
		break;
	case ARGP_KEY_ARG:
		a->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		vm_end(a, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp vm_argp = {
	vm_options,
	vm_parse,
	"-- CMD [ARGS...]",
	"Boot a kernel in a QEMU micro-VM and run CMD in it as root: the guest sees the host's / "
	"read-only (with a tmpfs overlay: writes stay in the guest), the current directory and "
	"--out writable, and has no network device. CMD's output streams back; tasshape exits "
	"with its status (124 after --timeout, 125 when the VM could not run it).\v"
	"Examples:\n"
	"  tasshape vm --kernel debian -- cat /proc/version\n"
	"  tasshape vm --kernel debian -- tasshape --trace const:10mbit -- sh -c 'iperf3 ...'\n"
	"  tasshape vm --kernel debian --seal --seal-tool iperf3 --out res -- \\\n"
	"      sh -c 'iperf3 -s -D; tasshape --trace const:20mbit -- \\\n"
	"      sh -c \"iperf3 -c $TASSHAPE_BASE -J >$TASSHAPE_VM_OUT/a.json\"'\n"
	"  tasshape vm --kernel out/bzImage --modules out/lib/modules/6.12.117 \\\n"
	"      --modprobe 'tcp_bbr_tas tas_pacing_shift_startup=7 tas_pacing_shift_steady=8' \\\n"
	"      -- tasshape exp run bbr3.ini\n"
	"Build kernels with tools/kernel/build.sh; docs/kernels.md has the details.",
	NULL,
	NULL,
	NULL};

int cmd_vm(int argc, char **argv)
{
	char kernel[4096], modules[4096], dilation[16] = "";
	struct vm_args a = {0};
	struct ts_vm_result res;
	struct ts_err err = {{0}};

	argp_parse(&vm_argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (a.guest_init)
		return ts_vm_guest_main();
	if (!strcmp(a.conf.kernel, "debian")) {
		if (ts_vm_debian_kernel(kernel, modules, sizeof(kernel), a.conf.quiet, &err) < 0) {
			ts_cli_error("vm: --kernel debian: %s", err.msg);
			return VM_EXIT_FAILED;
		}
		if (a.fetch_only) {
			printf("%s\n%s\n", kernel, modules);
			return 0;
		}
		a.conf.kernel = kernel;
		if (!a.conf.modules)
			a.conf.modules = modules;
	}
	if (ts_vm_run(&a.conf, a.cmd, &res, &err) < 0) {
		ts_cli_error("vm: %s", err.msg);
		/* Stopped by a signal: the shell's convention, as if CMD had been killed by it. */
		return res.signal ? 128 + res.signal : VM_EXIT_FAILED;
	}
	if (a.info_json && ts_vm_info_json(a.info_json, &a.conf, &res, &err) < 0) {
		ts_cli_error("vm: %s", err.msg);
		return VM_EXIT_FAILED;
	}
	if (res.dilation_milli)
		ts_vm_dilation_str(dilation, sizeof(dilation), res.dilation_milli);
	if (!a.conf.quiet && !res.timed_out)
		fprintf(stderr,
			"tasshape vm: %s under %s in %s time%s%s, clock source %s, CMD started "
			"%.1f s after boot, exit status %d\n",
			res.release, res.kvm ? "KVM" : "TCG", res.vclock ? "virtual" : "real",
			res.dilation_milli ? " dilated by " : "", dilation, res.clocksource,
			res.boot_s, res.status);
	return res.timed_out ? VM_EXIT_TIMEOUT : res.status;
}
