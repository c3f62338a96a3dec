/* SPDX-License-Identifier: MIT */
/*
 * The run manifest (manifest.json in --out DIR): what is needed to
 * reproduce a result or to tell two results apart. tasshape's version and
 * git revision (embedded at build time), the full command line, the
 * link options, the SHA-256 of every trace file, the seed, the kernel
 * release, the congestion controls available, allowed and in use (the
 * emulated host's namespace default and every one seen by --sockstats),
 * the TCP and queueing sysctls of that namespace, the offload settings of
 * the veths the link sits on, how the shaper was scheduled, the files
 * written, and when and why the run ended. Written when the run starts and again when it ends.
 */
#ifndef TS_RUN_MANIFEST_H
#define TS_RUN_MANIFEST_H

#include <stdint.h>

#include "tasshape/err.h"

struct ts_linkcfg;
struct ts_run_common;
struct ts_obs;
struct ts_rt;

struct ts_manifest_if {
	int netns_fd;	    /* namespace the interface is in (not owned) */
	const char *ifname; /* NULL: unused slot */
	const char *role;   /* "station", "link (station side)", ... */
};

struct ts_manifest {
	const char *path;
	const char *mode; /* "wrapper" or "attach" */
	const struct ts_linkcfg *link;
	const struct ts_run_common *common; /* command line, run options */
	const struct ts_obs *obs;	    /* files written, congestion controls seen */
	int cmd_netns_fd;		    /* the emulated host's namespace (sysctls) */
	struct ts_manifest_if ifs[4];
	int64_t start_wall_ns;
	int64_t end_wall_ns;	/* 0: still running */
	const char *stop;	/* why it ended; NULL while running */
	int exit_code;		/* of CMD, -1 when none */
	const struct ts_rt *rt; /* how the shaper is scheduled (run/rt.h), or NULL */
};

/*
 * ts_manifest_write - write @m as JSON to m->path (replacing it).
 * Missing facts (a sysctl the kernel lacks, an interface without ethtool
 * support) are written as null, never an error. Returns 0 or a negative
 * errno with @err set when the file cannot be written.
 */
int ts_manifest_write(const struct ts_manifest *m, struct ts_err *err);

/* The build's version and git revision ("unknown" outside a git work tree). */
const char *ts_build_version(void);
const char *ts_build_git_rev(void);

/*
 * ts_cmdline_join - the command line @argv (@argc words) as one line a
 * shell would read back (words with special characters single-quoted)
 * into @buf. Returns @buf; cut at @len.
 */
char *ts_cmdline_join(char *buf, size_t len, int argc, char *const *argv);

#endif
