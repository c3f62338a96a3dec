/* SPDX-License-Identifier: MIT */
/*
 * A run whose kernel is a [kernel NAME] section: carried out inside that
 * kernel's micro-VM (src/vm/vm.h). The guest sees the host's files, so it
 * runs this same tasshape binary as `tasshape exp-guest`, which re-plans
 * the spec and carries out exactly this one run (config id, repetition,
 * index, seed, length and delay given on its command line) with the
 * guest's kernel counting as the host's, into the run directory shared
 * writable with the guest. Congestion controls are acquired there, on the
 * guest's kernel: a `tas` or `bbr3` missing in the guest gives a failed
 * run flagged cca_unavailable. The host then adds to the guest-written
 * result.json and manifest.json what only it knows: the kernel's version
 * string and SHA-256, the accelerator and the guest's clock source (also
 * in vm.json, the VM runner's own record), and the flag "tcg" when the
 * guest ran under software emulation, whose timing the summary counts
 * like an emulator that fell behind.
 */
#ifndef TS_EXEC_EXEC_VM_H
#define TS_EXEC_EXEC_VM_H

#include <stddef.h>

#include "tasshape/err.h"

#include "plan/run.h"

#define TS_EXP_F_VM "vm.json" /* the VM runner's record of the guest (ts_vm_info_json) */

/* The guest command: argv of `tasshape exp-guest` after the command name. */
#define TS_EXP_GUEST_CMD "exp-guest"

/* Carry out @run (run->vm set, run->in_guest 0) in its VM; as ts_exp_exec_run. */
int ts_exp_exec_vm(const struct ts_exp_run *run, const char *rundir, struct ts_err *err);

#endif
