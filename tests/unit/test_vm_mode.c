/* SPDX-License-Identifier: MIT */
/*
 * The guest's accelerator, clock, seal and vCPUs (src/vm/mode.c): every combination of
 * --accel, --clock and --seal, with a KVM that passes the probe and one that fails it, against
 * the outcome written out by hand, and whether the probe was asked at all.
 */
#include <errno.h>
#include <string.h>

#include "tsu.h"
#include "vm/mode.h"

#define AUTO_A TS_VM_ACCEL_AUTO
#define KVM    TS_VM_ACCEL_KVM
#define TCG    TS_VM_ACCEL_TCG
#define AUTO_C TS_VM_CLOCK_AUTO
#define REAL   TS_VM_CLOCK_REAL
#define VIRT   TS_VM_CLOCK_VIRTUAL

/* The fake probe: its answer, and how often it was asked. */
struct probe {
	int ret;
	unsigned calls;
};

static int fake_usable(void *ctx, struct ts_err *why)
{
	struct probe *p = ctx;

	p->calls++;
	if (p->ret < 0)
		ts_err_set(why, "no /dev/kvm");
	return p->ret;
}

struct mode_case {
	enum ts_vm_accel accel;
	enum ts_vm_clock clock;
	bool seal;
	bool kvm_works;
	/* expected */
	int ret;
	unsigned probes;
	bool kvm, vclock, fallback;
	unsigned cpus;
	const char *err; /* the start of the message, when refused */
};

static const struct mode_case cases[] = {
	/* accel, clock, seal, KVM works | ret, probes, kvm, vclock, fallback, cpus, err */
	{AUTO_A, AUTO_C, false, true, 0, 1, true, false, false, 2, NULL},
	{AUTO_A, AUTO_C, false, false, 0, 1, false, true, true, 1, NULL},
	{AUTO_A, REAL, false, true, 0, 1, true, false, false, 2, NULL},
	{AUTO_A, REAL, false, false, 0, 1, false, false, true, 2, NULL},
	/* Virtual time implies TCG: no probe. */
	{AUTO_A, VIRT, false, true, 0, 0, false, true, false, 1, NULL},
	{AUTO_A, VIRT, false, false, 0, 0, false, true, false, 1, NULL},
	{TCG, AUTO_C, false, true, 0, 0, false, true, false, 1, NULL},
	{TCG, REAL, false, true, 0, 0, false, false, false, 2, NULL},
	{TCG, VIRT, false, true, 0, 0, false, true, false, 1, NULL},
	{KVM, AUTO_C, false, true, 0, 1, true, false, false, 2, NULL},
	{KVM, AUTO_C, false, false, -ENODEV, 1, false, false, false, 0,
	 "--accel kvm: KVM cannot run a guest here: no /dev/kvm"},
	{KVM, REAL, false, true, 0, 1, true, false, false, 2, NULL},
	{KVM, REAL, false, false, -ENODEV, 1, false, false, false, 0, "--accel kvm: KVM cannot"},
	/* --clock virtual --accel kvm: refused once KVM is there, by the probe otherwise. */
	{KVM, VIRT, false, true, -EINVAL, 1, true, true, false, 1, "--clock virtual needs TCG"},
	{KVM, VIRT, false, false, -ENODEV, 1, false, false, false, 0, "--accel kvm: KVM cannot"},
	/* Sealed implies virtual time, so TCG: no probe, whatever KVM does. */
	{AUTO_A, AUTO_C, true, true, 0, 0, false, true, false, 1, NULL},
	{AUTO_A, VIRT, true, true, 0, 0, false, true, false, 1, NULL},
	{TCG, AUTO_C, true, true, 0, 0, false, true, false, 1, NULL},
	{TCG, VIRT, true, false, 0, 0, false, true, false, 1, NULL},
	{AUTO_A, REAL, true, true, -EINVAL, 0, false, false, false, 0,
	 "--seal: a sealed guest runs in virtual time only (--clock virtual)"},
	{TCG, REAL, true, true, -EINVAL, 0, false, false, false, 0, "--seal: a sealed guest runs"},
	{KVM, AUTO_C, true, true, -EINVAL, 0, false, false, false, 0,
	 "--seal: a sealed guest runs in virtual time, which only TCG counts (--accel tcg or "
	 "auto)"},
	{KVM, VIRT, true, true, -EINVAL, 0, false, false, false, 0, "--seal: a sealed guest runs"},
	{KVM, REAL, true, true, -EINVAL, 0, false, false, false, 0,
	 "--seal: a sealed guest runs in virtual time only"},
};

static void test_mode_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mode_case *t = &cases[i];
		struct ts_vm_conf c = {.accel = t->accel, .clock = t->clock, .seal = t->seal};
		struct probe p = {t->kvm_works ? 0 : -ENODEV, 0};
		struct ts_err err = {{0}};
		struct ts_vm_mode m;
		int ret;

		ret = ts_vm_mode_decide(&c, fake_usable, &p, &m, &err);
		if (ret != t->ret || p.calls != t->probes)
			fprintf(stderr, "\n  case %zu: ret %d calls %u (%s)", i, ret, p.calls,
				err.msg);
		TSU_EQ(ret, t->ret);
		TSU_EQ(p.calls, t->probes);
		TSU_EQ(m.probed, t->probes > 0);
		TSU_EQ(m.kvm, t->kvm);
		TSU_EQ(m.fallback, t->fallback);
		if (ret < 0) {
			CU_ASSERT_EQUAL(strncmp(err.msg, t->err, strlen(t->err)), 0);
			continue;
		}
		TSU_EQ(m.vclock, t->vclock);
		TSU_EQ(m.sealed, t->seal);
		TSU_EQ(m.cpus, t->cpus);
		/* The note is the probe's answer when auto fell back, and only then. */
		CU_ASSERT_STRING_EQUAL(m.accel_note, t->fallback ? "no /dev/kvm" : "");
	}
}

/* --cpus is kept as asked, in either time (ts_vm_run refuses 2 under an old QEMU's icount). */
static void test_mode_cpus(void)
{
	struct ts_vm_conf c = {.accel = TCG, .clock = VIRT, .cpus = 3};
	struct probe p = {0, 0};
	struct ts_err err = {{0}};
	struct ts_vm_mode m;

	TSU_EQ(ts_vm_mode_decide(&c, fake_usable, &p, &m, &err), 0);
	TSU_EQ(m.cpus, 3);
	c.accel = KVM;
	c.clock = REAL;
	c.cpus = 4;
	TSU_EQ(ts_vm_mode_decide(&c, fake_usable, &p, &m, &err), 0);
	TSU_EQ(m.cpus, 4);
	TSU_EQ(m.kvm, 1);
}

/* The front end's check refuses exactly the seal combinations, without a probe. */
static void test_mode_check(void)
{
	static const struct {
		enum ts_vm_accel accel;
		enum ts_vm_clock clock;
		bool seal;
		int ret;
	} t[] = {
		{AUTO_A, AUTO_C, true, 0},    {TCG, VIRT, true, 0},  {AUTO_A, REAL, true, -EINVAL},
		{KVM, AUTO_C, true, -EINVAL}, {KVM, VIRT, false, 0}, {KVM, REAL, false, 0},
		{AUTO_A, REAL, false, 0},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ts_vm_conf c = {.accel = t[i].accel, .clock = t[i].clock, .seal = t[i].seal};
		struct ts_err err = {{0}};

		TSU_EQ(ts_vm_mode_check(&c, &err), t[i].ret);
	}
}

/* Time dilation: a sealed guest's only, 1.1 to 8, with its clocks left alone. */
static void test_mode_dilation(void)
{
	static const struct {
		bool seal;
		unsigned milli;
		const char *append;
		const char *why; /* NULL: accepted */
	} t[] = {
		{true, 2000, NULL, NULL},
		{true, 1100, "quiet", NULL},
		{true, 8000, NULL, NULL},
		{false, 0, "clocksource=hpet", NULL}, /* not dilated: its clock is the user's */
		{false, 2000, NULL, "only a sealed guest's clock is dilated"},
		{true, 1000, NULL, "expected 1 (none) or a factor from 1.1 to 8"},
		{true, 8001, NULL, "expected 1 (none) or a factor from 1.1 to 8"},
		{true, 2000, "quiet clocksource=hpet",
		 "--append with --time-dilation: 'clocksource=hpet'"},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ts_vm_conf c = {
			.seal = t[i].seal, .dilation_milli = t[i].milli, .append = t[i].append};
		struct ts_err err = {{0}};

		TSU_EQ(ts_vm_mode_check(&c, &err), t[i].why ? -EINVAL : 0);
		if (t[i].why)
			CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, t[i].why));
	}
}

static const struct tsu_test tests[] = {
	{"the decision for every accel, clock and seal", test_mode_table},
	{"--cpus kept as asked", test_mode_cpus},
	{"the front end's refusals", test_mode_check},
	{"time dilation: sealed, 1.1 to 8, its clocks left alone", test_mode_dilation},
};

TSU_MAIN("vm mode", tests)
