/* SPDX-License-Identifier: MIT */
/*
 * What a spec or a command line may ask of a guest's kernel: the words of a
 * modprobe line and the kernel command-line parameters added with append.
 * Both reach programs that run as root in the guest (modprobe, the kernel,
 * its init), so they are data of a fixed shape, checked before anything
 * boots: a modprobe line cannot carry modprobe's options (-C FILE would
 * run the author's install commands), and append cannot name another init,
 * root or module loader. Pure: no syscalls, unit-tested.
 */
#ifndef TS_VM_GUESTARGS_H
#define TS_VM_GUESTARGS_H

#include "tasshape/err.h"

/* Longest modprobe line (the guest's control file holds 511 bytes) and most words in one. */
#define TS_VM_MODPROBE_MAX   511
#define TS_VM_MODPROBE_WORDS 32
/* Longest module name, the kernel's MODULE_NAME_LEN less its NUL. */
#define TS_VM_MODNAME_MAX 55

/*
 * ts_vm_modprobe_check - is @line "NAME [PARAM=VALUE]..."? NAME is a module
 * name: 1 to 55 of [A-Za-z0-9_-], not starting with '-' (no path, no
 * option). Each further word is PARAM=VALUE: PARAM 1 or more of
 * [A-Za-z0-9_-], not starting with '-'; VALUE not empty, of printable ASCII
 * without quotes or backslash (modprobe and the kernel would read them).
 * Words are separated by spaces or tabs; at most TS_VM_MODPROBE_WORDS and
 * TS_VM_MODPROBE_MAX bytes. Returns 0, or -EINVAL with @err quoting the
 * word at fault and what was expected.
 */
int ts_vm_modprobe_check(const char *line, struct ts_err *err);

/*
 * ts_vm_append_check - is every word of @append (space- or tab-separated)
 * a kernel parameter of the allow-list (docs/kernels.md): a flag such as
 * quiet or nopti, KEY=VALUE for a key such as loglevel, console, tsc,
 * clocksource or mitigations, or tasshape.KEY=VALUE (tasshape's own)?
 * VALUE is 1 or more of [A-Za-z0-9_.,:+-]. Anything else (init=,
 * rdinit=, root=, modprobe.*, a module's parameters, "--" which would
 * hand words to init, quotes) is refused. Returns 0, or -EINVAL with @err
 * quoting the word and what was expected.
 */
int ts_vm_append_check(const char *append, struct ts_err *err);

/*
 * Time dilation (vm.h, conf.dilation_milli): K in thousandths. From 1.1: the kernel refines
 * the TSC's rate against the HPET and takes the result when within 1% of what it was told,
 * which would undo a K near 1 for the clock but not for the APIC timer. To 8: the APIC
 * timer's clockevent keeps its rate as K x 2^28 in a 32-bit mult (shift 32, divide 16, at
 * QEMU's 1 GHz), which K = 16 overflows.
 */
#define TS_VM_DILATION_MIN_MILLI 1100
#define TS_VM_DILATION_MAX_MILLI 8000
#define TS_VM_DILATION_RANGE	 "1 (none) or a factor from 1.1 to 8"

/*
 * ts_vm_dilation_parse - @s ("2", "1.5") as thousandths into *@milli: 0
 * for "1" (no dilation), else TS_VM_DILATION_MIN_MILLI to _MAX_MILLI.
 * Returns 0, or -EINVAL (-ERANGE) with @err saying what was expected.
 */
int ts_vm_dilation_parse(const char *s, unsigned *milli, struct ts_err *err);

/* Is @milli a dilation tasshape applies: 0 (none) or within the range above? */
int ts_vm_dilation_valid(unsigned milli);

/* "2.500" for 2500 (1.000 for 0, no dilation) into @buf of @len bytes; returns @buf. */
char *ts_vm_dilation_str(char *buf, unsigned len, unsigned milli);

/*
 * ts_vm_append_keeps_clock - does @append leave a dilated guest's clocks alone? Its TSC
 * and APIC timer are told their dilated rates (plan.h, ts_vm_dilation_params): notsc, tsc=,
 * clocksource= or hpet= could make the guest keep time by another clock, which counts
 * QEMU's time. Returns 0, or -EINVAL with @err naming the word.
 */
int ts_vm_append_keeps_clock(const char *append, struct ts_err *err);

#endif
