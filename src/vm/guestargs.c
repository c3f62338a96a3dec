/* SPDX-License-Identifier: MIT */
/* The shapes of a modprobe line and of append's kernel parameters (guestargs.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vm/guestargs.h"
#include "tasshape/units.h"

/* A kernel parameter the guest may be given: a flag (no value) or KEY=VALUE. */
struct kparam {
	const char *name;
	bool value;
};

/*
 * The guests tasshape boots need the console, the log level, the clock source and the CPU
 * mitigations set for an experiment, nothing that picks the root, init or what modprobe runs.
 */
static const struct kparam kparams[] = {
	{"quiet", false},
	{"debug", false},
	{"ignore_loglevel", false},
	{"nosmp", false},
	{"nopti", false},
	{"nospectre_v1", false},
	{"nospectre_v2", false},
	{"nokaslr", false},
	{"notsc", false},
	{"nowatchdog", false},
	{"nosoftlockup", false},
	{"threadirqs", false},
	{"console", true},
	{"loglevel", true},
	{"printk.time", true},
	{"mitigations", true},
	{"pti", true},
	{"spectre_v2", true},
	{"retbleed", true},
	{"spec_store_bypass_disable", true},
	{"tsx", true},
	{"tsc", true},
	{"clocksource", true},
	{"nohz", true},
	{"highres", true},
	{"hpet", true},
	{"idle", true},
	{"lpj", true},
	{"maxcpus", true},
	{"nr_cpus", true},
	{"mem", true},
	{"preempt", true},
	{"transparent_hugepage", true},
	{"ipv6.disable", true},
};

/* tasshape's own parameters (run/awake.h's tasshape.clock): any key under this prefix. */
#define OWN_PREFIX "tasshape."

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* The next word of *@p (its length, 0 at the end); *@p moves past it. */
static size_t next_word(const char **p, const char **word)
{
	const char *s = *p;
	size_t n = 0;

	while (is_blank(*s))
		s++;
	while (s[n] && !is_blank(s[n]))
		n++;
	*word = s;
	*p = s + n;
	return n;
}

/* Are the @n bytes of @s 1 or more name characters, the first not '-'? */
static bool is_name(const char *s, size_t n)
{
	size_t i;

	if (!n || s[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!is_name_char(s[i]))
			return false;
	return true;
}

/* A module parameter's value: printable ASCII, no quote or backslash (they would be parsed). */
static bool is_param_value(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~' || s[i] == '"' || s[i] == '\'' || s[i] == '\\')
			return false;
	return true;
}

/* PARAM=VALUE of a modprobe line. */
static bool is_module_param(const char *w, size_t n)
{
	const char *eq = memchr(w, '=', n);

	return eq && is_name(w, (size_t)(eq - w)) &&
	       is_param_value(eq + 1, n - (size_t)(eq - w) - 1);
}

int ts_vm_modprobe_check(const char *line, struct ts_err *err)
{
	const char *p = line, *w;
	size_t n, words = 0;

	if (strlen(line) > TS_VM_MODPROBE_MAX) {
		ts_err_set(err, "'%.40s...': longer than %d bytes (expected NAME [PARAM=VALUE]...)",
			   line, TS_VM_MODPROBE_MAX);
		return -EINVAL;
	}
	while ((n = next_word(&p, &w)) != 0) {
		if (++words > TS_VM_MODPROBE_WORDS) {
			ts_err_set(err, "'%s': more than %d words", line, TS_VM_MODPROBE_WORDS);
			return -EINVAL;
		}
		if (words == 1 && (n > TS_VM_MODNAME_MAX || !is_name(w, n))) {
			ts_err_set(
				err,
				"'%.*s': expected a module name (1 to %d letters, digits, '_' or "
				"'-', not starting with '-'; no path, no modprobe option)",
				(int)n, w, TS_VM_MODNAME_MAX);
			return -EINVAL;
		}
		if (words > 1 && !is_module_param(w, n)) {
			ts_err_set(err,
				   "'%.*s': expected PARAM=VALUE after the module name (PARAM of "
				   "letters, digits, '_' or '-', not starting with '-'; VALUE "
				   "printable, without quotes, backslash or blanks)",
				   (int)n, w);
			return -EINVAL;
		}
	}
	if (!words) {
		ts_err_set(err, "empty (expected NAME [PARAM=VALUE]...)");
		return -EINVAL;
	}
	return 0;
}

/* A kernel parameter's value: letters, digits and _.,:+- (ttyS0,115200n8; 512M; reliable). */
static bool is_kvalue(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!is_name_char(s[i]) && !strchr(".,:+", s[i]))
			return false;
	return true;
}

/* Is the word @w (@n bytes) an allowed kernel parameter? */
static bool kparam_allowed(const char *w, size_t n)
{
	const char *eq = memchr(w, '=', n);
	size_t kn = eq ? (size_t)(eq - w) : n, i;

	if (eq && !is_kvalue(eq + 1, n - kn - 1))
		return false;
	if (eq && kn > strlen(OWN_PREFIX) && !strncmp(w, OWN_PREFIX, strlen(OWN_PREFIX)))
		return is_name(w + strlen(OWN_PREFIX), kn - strlen(OWN_PREFIX));
	for (i = 0; i < sizeof(kparams) / sizeof(kparams[0]); i++)
		if (strlen(kparams[i].name) == kn && !strncmp(w, kparams[i].name, kn))
			return kparams[i].value == (eq != NULL);
	return false;
}

int ts_vm_append_check(const char *append, struct ts_err *err)
{
	const char *p = append, *w;
	size_t n;

	while ((n = next_word(&p, &w)) != 0) {
		if (kparam_allowed(w, n))
			continue;
		ts_err_set(err,
			   "'%.*s': not a kernel parameter tasshape passes on (expected flags "
			   "such as quiet or nopti, KEY=VALUE for loglevel, console, "
			   "clocksource, tsc, mitigations and the others docs/kernels.md lists, "
			   "or tasshape.KEY=VALUE; never init, root or a module's parameters)",
			   (int)n, w);
		return -EINVAL;
	}
	return 0;
}

int ts_vm_dilation_parse(const char *s, unsigned *milli, struct ts_err *err)
{
	uint64_t v;
	int ret;

	ret = ts_parse_milli(s, &v, err);
	if (ret < 0)
		return ret;
	if (v != 1000 && (v < TS_VM_DILATION_MIN_MILLI || v > TS_VM_DILATION_MAX_MILLI)) {
		ts_err_set(err, "expected " TS_VM_DILATION_RANGE ", got '%s'", s);
		return -ERANGE;
	}
	*milli = v == 1000 ? 0 : (unsigned)v;
	return 0;
}

int ts_vm_dilation_valid(unsigned milli)
{
	return !milli || (milli >= TS_VM_DILATION_MIN_MILLI && milli <= TS_VM_DILATION_MAX_MILLI);
}

char *ts_vm_dilation_str(char *buf, unsigned len, unsigned milli)
{
	if (!milli)
		milli = 1000;
	snprintf(buf, len, "%u.%03u", milli / 1000, milli % 1000);
	return buf;
}

/* The keys and flags that choose or redefine the guest's clock (ts_vm_append_keeps_clock). */
static const char *const clock_words[] = {"notsc", "tsc", "clocksource", "hpet"};

int ts_vm_append_keeps_clock(const char *append, struct ts_err *err)
{
	const char *p = append, *w;
	size_t n, i, kn;

	while (append && (n = next_word(&p, &w)) != 0) {
		const char *eq = memchr(w, '=', n);

		kn = eq ? (size_t)(eq - w) : n;
		for (i = 0; i < sizeof(clock_words) / sizeof(clock_words[0]); i++) {
			if (strlen(clock_words[i]) != kn || strncmp(w, clock_words[i], kn))
				continue;
			ts_err_set(
				err,
				"'%.*s': a dilated guest keeps time by its TSC and APIC timer, "
				"which are told their dilated rates (no notsc, tsc=, clocksource= "
				"or hpet= with time dilation)",
				(int)n, w);
			return -EINVAL;
		}
	}
	return 0;
}
