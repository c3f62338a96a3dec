/* SPDX-License-Identifier: MIT */
/*
 * Before a run in a guest in virtual time: the programs a run starts are
 * loaded once, so that their first exec's reads over 9p (the host's files)
 * happen before the run, not during it. While the guest waits for the
 * host's I/O its vCPU idles and its clock jumps ahead to the next timer, so
 * how long a read takes in guest time depends on the host: a first exec of
 * iptables between the link's start and the flows' would shift the flows
 * against the link from one boot to the next (docs/kernels.md, "What
 * breaks determinism").
 */
#ifndef TS_EXEC_EXEC_WARM_H
#define TS_EXEC_EXEC_WARM_H

/*
 * ts_exp_exec_warm - load the kernel modules a run loads on demand
 * (modprobe -q), run each tool a run may start (iptables, ip6tables, their
 * -save, iperf3, irtt, ping, flent) once with its version option, then, when
 * @self (this tasshape) is given, one emulated link around `true`, so that
 * iptables' extensions are read too. Output is discarded; a module, tool or
 * step that is missing or fails is skipped: the run itself says what it lacks.
 */
void ts_exp_exec_warm(const char *self);

/* The modules of ts_exp_exec_warm, NULL-terminated (also what a sealed guest packs). */
extern const char *const ts_exp_warm_modules[];

#endif
