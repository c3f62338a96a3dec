/* SPDX-License-Identifier: MIT */
/*
 * The congestion control of a run, as the spec names it, made real:
 *
 *   NAME        a built-in the kernel lists in tcp_available_congestion_control
 *   bbr3        bbr, and it must be BBRv3 (google/bbr v3 keeps the name "bbr")
 *   tas         BBR-TAS: module tcp_bbr_tas, name "tas"; the run's tas_shift is
 *               written to its module parameters and read back
 *   bpf:FILE    a BPF struct_ops congestion control (FILE.bpf.o), loaded with
 *               libbpf and registered through a BPF link, so the kernel removes
 *               it when the link's file descriptor closes: at ts_exp_cca_release,
 *               or when tasshape exits in any way
 *
 * BBR's version: /sys/module/tcp_bbr/version where the kernel has one (the
 * BBRv3 module sets 3); otherwise the size of the BBR socket info
 * (TCP_CC_INFO on a socket set to bbr): 20 bytes, five u32 fields, is
 * BBR v1's struct tcp_bbr_info; BBRv3's reports more.
 */
#ifndef TS_EXEC_EXEC_CCA_H
#define TS_EXEC_EXEC_CCA_H

#include <stdbool.h>

#include "plan/run.h"
#include "tasshape/err.h"

struct bpf_object;
struct bpf_link;

struct ts_exp_cca {
	char requested[256]; /* as in the spec */
	char name[32];	     /* the kernel's name: sockets, sysctl, iperf3 -C */
	char version[64];    /* "1", "3", "" when not a versioned control */
	bool tas;
	char tas_startup[16], tas_steady[16]; /* read back after writing; "" when not tas */
	char bpf_path[4096];
	char bpf_sha256[65]; /* "" when not bpf */
	struct bpf_object *obj;
	struct bpf_link *ops; /* libbpf's handle of the struct_ops map's value */
	int link_fd;	      /* the BPF link that keeps it registered; -1 */
};

/*
 * ts_exp_cca_acquire - make @cca usable for a run (@shift_startup and
 * @shift_steady: the run's tas_shift, -1 for none): check it, load and
 * register a BPF one, write and read back BBR-TAS's shifts. Returns 0,
 * or a negative errno with @why saying exactly why it cannot run
 * (nothing is left registered then).
 */
int ts_exp_cca_acquire(struct ts_exp_cca *c, const char *cca, int shift_startup, int shift_steady,
		       struct ts_err *why);

/* Unregister what acquire registered (closes the BPF link). Idempotent. */
void ts_exp_cca_release(struct ts_exp_cca *c);

/*
 * ts_exp_tas_shifts - write BBR-TAS's pacing shifts (@startup, @steady; -1:
 * leave it) into the module parameter directory @dir (normally
 * /sys/module/tcp_bbr_tas/parameters), read both back into @su and @st.
 * Returns 0, -ENOENT when @dir does not exist, -EIO when a value cannot be
 * written or reads back differently; @why says which file and values.
 */
int ts_exp_tas_shifts(const char *dir, int startup, int steady, char su[16], char st[16],
		      struct ts_err *why);

/* Is @name listed in this kernel's tcp_available_congestion_control? */
bool ts_exp_cca_available(const char *name);

#endif
