/* SPDX-License-Identifier: MIT */
/*
 * The executor's own knobs, beside the contract in run.h.
 */
#ifndef TS_EXEC_EXEC_H
#define TS_EXEC_EXEC_H

/*
 * ts_exp_exec_binary - the tasshape binary the executor runs as the
 * wrapper and as its agents (default, NULL: /proc/self/exe, this very
 * binary). For test programs that link the executor but are not tasshape.
 */
void ts_exp_exec_binary(const char *path);

#endif
