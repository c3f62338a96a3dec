/* SPDX-License-Identifier: MIT */
/*
 * One planned run of an experiment: the contract between the planner
 * (spec + matrix expansion, pure) and the executor (namespaces, servers,
 * iperf3/ping/irtt, congestion-control checks). The planner fills it; the
 * executor carries it out and leaves in @rundir its raw outputs and one
 * normalised result.json (schema in docs/experiments.md, "Per-run
 * result"), from which statistics, summaries, checks, Flent files,
 * reports, resume and merge are all computed. Nothing else crosses.
 */
#ifndef TS_PLAN_RUN_H
#define TS_PLAN_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "tasshape/time.h"

struct ts_linkcfg; /* link/linkcfg.h */

#define TS_EXP_MAX_AXES	   8
#define TS_EXP_MAX_SYSCTL  32
#define TS_EXP_MAX_SERVERS 4

#define TS_EXP_MAX_STATIONS	 8  /* real Wi-Fi stations of a link (wifi6 real=) */
#define TS_EXP_MAX_FLOW_STATIONS 16 /* values of a link's flow_stations = */

/* One axis value of this run, by axis name ("cca", "link", "test", "tas_shift", "kernel", ...). */
struct ts_exp_axis_val {
	const char *axis;
	const char *value;
};

struct ts_exp_sysctl {
	const char *key; /* "net.ipv4.tcp_ecn" */
	const char *value;
};

/*
 * One [kernel NAME] section of the spec: a kernel under test, booted in a
 * micro-VM (src/vm/vm.h) for every run of a configuration with kernel=NAME.
 */
#define TS_EXP_MAX_MODPROBE 8
struct ts_exp_kernel {
	char *name;
	unsigned line;
	char *image;			   /* bzImage path, or "debian" (Debian's stock kernel) */
	char *modules;			   /* NULL or the kernel's modules directory */
	unsigned image_line, modules_line; /* where the spec gave them */
	char *accel;			   /* "auto" (default), "kvm" or "tcg" */
	char *clock;			   /* "auto" (default), "virtual" or "real" */
	unsigned cpus;			   /* 0: the VM runner's default */
	uint64_t memory;		   /* bytes; 0: the VM runner's default */
	unsigned dilation_milli;	   /* time_dilation x 1000; 0: none (vm/vm.h) */
	unsigned dilation_line;		   /* where the spec gave it */
	char *append;	  /* NULL or kernel parameters of vm/guestargs.h's allow-list */
	size_t nmodprobe; /* modules loaded in the guest before the run */
	char *modprobe[TS_EXP_MAX_MODPROBE]; /* "NAME [PARAM=VALUE]...", as vm/guestargs.h checks */
};

struct ts_exp_run {
	const char *config_id; /* directory-safe id of the configuration, same for every rep */
	unsigned rep;	       /* 1-based repetition */
	unsigned index;	       /* 1-based position in the run order */
	uint64_t seed;	       /* emulator seed for this run: spec seed + rep */
	size_t naxes;
	struct ts_exp_axis_val axes[TS_EXP_MAX_AXES];

	/* Congestion control as written in the spec: "cubic", "bbr", "bbr3" (bbr, must be v3),
	 * "tas", "bpf:PATH.bpf.o", or any name the kernel offers. */
	const char *cca;
	int tas_shift_startup, tas_shift_steady; /* -1 when the run has no tas_shift */

	/* The link: wrapper link options, exactly as on the command line
	 * ("--trace", "traces/x.csv", "--delay", "20ms", ...); NULL-terminated. */
	const char *link_name;
	char **link_argv;
	/*
	 * The same options as the link grammar checked and stored them (the
	 * spec's [link NAME] section, not loaded); NULL when the caller has
	 * none. The executor reads values from it rather than parsing the argv.
	 */
	const struct ts_linkcfg *link;
	/*
	 * The link's real Wi-Fi stations (mac = wifi6:...,real=N; 1 without),
	 * and which one each flow runs behind (plan/flowsta.h): flow k behind
	 * flow_stations[k mod nflow_stations], or station k mod stations when
	 * the link has no flow_stations key (nflow_stations 0).
	 */
	unsigned stations;
	size_t nflow_stations;
	const unsigned *flow_stations;

	/* The test, by Flent name: tcp_upload, tcp_download, tcp_nup, tcp_ndown, rrul,
	 * rrul_be, rtt_fair. */
	const char *test;
	unsigned upload_streams, download_streams;
	ts_ns_t length; /* measured part */
	ts_ns_t delay;	/* before and after the flows (Flent's DELAY) */

	size_t nservers;			  /* rtt_fair: 4; else 1 */
	ts_ns_t server_delay[TS_EXP_MAX_SERVERS]; /* extra one-way delay per server */

	size_t nsysctl;
	struct ts_exp_sysctl sysctl[TS_EXP_MAX_SYSCTL];

	const char *kernel; /* NULL or "host": this kernel; else a kernel of the kernel axis */
	const struct ts_exp_kernel *vm; /* the [kernel NAME] section, NULL for host */
	int in_guest; /* carried out inside vm's guest: its kernel is the running one */
	const char *spec_path, *spec_sha256;
};

#endif
