/* SPDX-License-Identifier: MIT */
/*
 * What a spec or the command line may ask of a guest's kernel (vm/guestargs.h):
 * a modprobe line is a module name and PARAM=VALUE words, never an option of
 * modprobe; append is kernel parameters of an allow-list. The exact cases.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vm/guestargs.h"
#include "tsu.h"

static void ok_modprobe(const char *line)
{
	struct ts_err err = {{0}};
	int ret = ts_vm_modprobe_check(line, &err);

	if (ret)
		fprintf(stderr, "\n  modprobe '%s' refused: %s\n", line, err.msg);
	TSU_EQ(ret, 0);
}

/* Refused, with @phrase in the message (the word at fault, what was expected). */
static void bad_modprobe(const char *line, const char *phrase)
{
	struct ts_err err = {{0}};
	int ret = ts_vm_modprobe_check(line, &err);

	if (ret != -EINVAL || !strstr(err.msg, phrase))
		fprintf(stderr, "\n  modprobe '%s': %d, '%s' (expected '%s')\n", line, ret, err.msg,
			phrase);
	TSU_EQ(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, phrase));
}

static void test_modprobe_accepted(void)
{
	ok_modprobe("tcp_bbr");
	ok_modprobe("tcp_bbr_tas tas_pacing_shift_startup=7 tas_pacing_shift_steady=8");
	ok_modprobe("sch-fq");
	ok_modprobe("  9p\tdebug=0x0f  ");
	ok_modprobe("m arr=1,2,3");
	ok_modprobe("m path=/lib/firmware/x.bin"); /* a value may hold '/' (the name may not) */
	/* 55 characters: the kernel's MODULE_NAME_LEN less its NUL. */
	ok_modprobe("a234567890123456789012345678901234567890123456789012345");
}

static void test_modprobe_refused(void)
{
	char big[600];

	/* modprobe's options: -C FILE would read the author's config and run its install lines. */
	bad_modprobe("-C evil.conf x", "'-C': expected a module name");
	bad_modprobe("--config=evil.conf x", "'--config=evil.conf': expected a module name");
	bad_modprobe("x -C evil.conf", "'-C': expected PARAM=VALUE");
	bad_modprobe("x --dry-run", "'--dry-run': expected PARAM=VALUE");
	bad_modprobe("x -a=1", "'-a=1': expected PARAM=VALUE");
	/* A path is not a module name, nor a parameter's name. */
	bad_modprobe("/tmp/evil.ko", "'/tmp/evil.ko': expected a module name");
	bad_modprobe("../x", "expected a module name");
	bad_modprobe("x a/b=1", "'a/b=1': expected PARAM=VALUE");
	bad_modprobe("x.ko", "'x.ko': expected a module name");
	/* Words without a value, or with what modprobe or the kernel would parse. */
	bad_modprobe("x y", "'y': expected PARAM=VALUE");
	bad_modprobe("x y=", "'y=': expected PARAM=VALUE");
	bad_modprobe("x =1", "'=1': expected PARAM=VALUE");
	bad_modprobe("x y=\"a\"", "expected PARAM=VALUE");
	bad_modprobe("x y='a'", "expected PARAM=VALUE");
	bad_modprobe("x y=a\\b", "expected PARAM=VALUE");
	bad_modprobe("x\ny=1", "expected a module name");
	bad_modprobe("", "empty (expected NAME [PARAM=VALUE]...)");
	bad_modprobe("   ", "empty");
	bad_modprobe("a2345678901234567890123456789012345678901234567890123456",
		     "expected a module name (1 to 55");
	bad_modprobe("x a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 "
		     "a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1 a=1",
		     "more than 32 words");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	bad_modprobe(big, "longer than 511 bytes");
}

static void ok_append(const char *a)
{
	struct ts_err err = {{0}};
	int ret = ts_vm_append_check(a, &err);

	if (ret)
		fprintf(stderr, "\n  append '%s' refused: %s\n", a, err.msg);
	TSU_EQ(ret, 0);
}

static void bad_append(const char *a, const char *word)
{
	struct ts_err err = {{0}};
	char want[128];
	int ret = ts_vm_append_check(a, &err);

	snprintf(want, sizeof(want), "'%s': not a kernel parameter tasshape passes on", word);
	if (ret != -EINVAL || !strstr(err.msg, want))
		fprintf(stderr, "\n  append '%s': %d, '%s'\n", a, ret, err.msg);
	TSU_EQ(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
}

static void test_append_accepted(void)
{
	ok_append("");
	ok_append("quiet");
	ok_append("clocksource=tsc");
	ok_append("console=ttyS0,115200n8 loglevel=7 ignore_loglevel printk.time=1");
	ok_append("mitigations=off nopti nospectre_v2 spectre_v2=retpoline,generic tsx=off");
	ok_append("tsc=reliable nohz=off highres=off hpet=force idle=poll lpj=4000000");
	ok_append("maxcpus=1 nr_cpus=2 mem=512M preempt=full transparent_hugepage=never");
	ok_append("tasshape.clock=virtual ipv6.disable=1 nosmp threadirqs");
	ok_append(" quiet\tdebug ");
}

static void test_append_refused(void)
{
	/* What picks the guest's init, root, its module loader or its modules. */
	bad_append("init=/bin/sh", "init=/bin/sh");
	bad_append("quiet rdinit=/x", "rdinit=/x");
	bad_append("root=/dev/vda", "root=/dev/vda");
	bad_append("rootflags=rw", "rootflags=rw");
	bad_append("modprobe.blacklist=9p", "modprobe.blacklist=9p");
	bad_append("module_blacklist=virtio_pci", "module_blacklist=virtio_pci");
	bad_append("9p.debug=1", "9p.debug=1");
	bad_append("sysctl.kernel.core_pattern=|/x", "sysctl.kernel.core_pattern=|/x");
	/* "--" hands what follows to init; a bare word of this list needs its value and back. */
	bad_append("-- x", "--");
	bad_append("quiet=1", "quiet=1");
	bad_append("loglevel", "loglevel");
	bad_append("loglevel=", "loglevel=");
	/* Values: no quotes, slashes or pipes. */
	bad_append("console=\"ttyS0\"", "console=\"ttyS0\"");
	bad_append("clocksource=/x", "clocksource=/x");
	bad_append("tasshape.=1", "tasshape.=1");
	bad_append("tasshape.x/y=1", "tasshape.x/y=1");
	bad_append("tasshape.clock", "tasshape.clock");
	bad_append("Quiet", "Quiet");
}

/* --time-dilation and time_dilation: 1 is none, then 1.1 to 8 in thousandths. */
static void test_dilation_parse(void)
{
	static const struct {
		const char *s;
		int ret;
		unsigned milli;
	} t[] = {
		{"1", 0, 0},	       {"1.000", 0, 0},	       {"1.1", 0, 1100},
		{"2", 0, 2000},	       {"2.5", 0, 2500},       {"8", 0, 8000},
		{"1.099", -ERANGE, 7}, {"8.001", -ERANGE, 7},  {"16", -ERANGE, 7},
		{"0", -ERANGE, 7},     {"1.0005", -EINVAL, 7}, {"2x", -EINVAL, 7},
	};
	char buf[16];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ts_err err = {{0}};
		unsigned milli = 7;

		TSU_EQ(ts_vm_dilation_parse(t[i].s, &milli, &err), t[i].ret);
		TSU_EQ(milli, t[i].milli);
		if (t[i].ret == -ERANGE)
			CU_ASSERT_PTR_NOT_NULL(
				strstr(err.msg, "1 (none) or a factor from 1.1 to 8"));
	}
	TSU_EQ(ts_vm_dilation_valid(0), 1);
	TSU_EQ(ts_vm_dilation_valid(1000), 0);
	TSU_EQ(ts_vm_dilation_valid(1100), 1);
	TSU_EQ(ts_vm_dilation_valid(8000), 1);
	TSU_EQ(ts_vm_dilation_valid(8001), 0);
	CU_ASSERT_STRING_EQUAL(ts_vm_dilation_str(buf, sizeof(buf), 2500), "2.500");
	CU_ASSERT_STRING_EQUAL(ts_vm_dilation_str(buf, sizeof(buf), 0), "1.000");
}

/* A dilated guest's append may not choose or redefine its clocks. */
static void test_append_keeps_clock(void)
{
	static const char *const refused[] = {"clocksource=hpet", "quiet tsc=unstable", "notsc",
					      "hpet=disable loglevel=7"};
	struct ts_err err = {{0}};
	size_t i;

	TSU_EQ(ts_vm_append_keeps_clock(NULL, &err), 0);
	TSU_EQ(ts_vm_append_keeps_clock("", &err), 0);
	TSU_EQ(ts_vm_append_keeps_clock("quiet mitigations=off tscx=1 nohz=off", &err), 0);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		TSU_EQ(ts_vm_append_keeps_clock(refused[i], &err), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a dilated guest keeps time by its TSC"));
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'hpet=disable'"));
}

static const struct tsu_test tests[] = {
	{"modprobe: a module and its parameters", test_modprobe_accepted},
	{"modprobe: options, paths, bare words refused", test_modprobe_refused},
	{"append: the allow-list", test_append_accepted},
	{"append: init, root, modules' parameters refused", test_append_refused},
	{"time dilation: parse, range, text", test_dilation_parse},
	{"time dilation: append leaves the clocks alone", test_append_keeps_clock},
};

TSU_MAIN("guestargs", tests)
