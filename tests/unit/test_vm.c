/* SPDX-License-Identifier: MIT */
/*
 * The micro-VM runner's pure parts (src/vm/plan.c, src/vm/cpio.c): the cpio
 * bytes, the module closure, the bzImage header, the kernel command line,
 * QEMU's arguments, the control files, the guest's facts as JSON and the
 * KVM probe image, each against values written out by hand.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tsu.h"
#include "vm/apt.h"
#include "vm/cpio.h"
#include "vm/plan.h"
#include "vm/vm.h"

/* One 2-byte file: 110-byte header, "init\0" padded to 116, "ab" padded to 120. */
static void test_cpio_bytes(void)
{
	static const char hdr[] = "070701"
				  "00000001" /* ino */
				  "000081ED" /* mode: S_IFREG | 0755 */
				  "00000000"
				  "00000000" /* uid, gid */
				  "00000001" /* nlink */
				  "00000000" /* mtime */
				  "00000002" /* filesize */
				  "00000000"
				  "00000000" /* devmajor, devminor */
				  "00000000"
				  "00000000"  /* rdevmajor, rdevminor */
				  "00000005"  /* namesize, with the NUL */
				  "00000000"; /* check */
	struct ts_cpio c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	ts_cpio_init(&c, f);
	TSU_EQ(ts_cpio_add(&c, "init", S_IFREG | 0755, 0, "ab", 2), 0);
	fflush(f);
	TSU_EQ(len, 120);
	CU_ASSERT(!memcmp(buf, hdr, 110));
	CU_ASSERT(!memcmp(buf + 110, "init\0\0", 6));
	CU_ASSERT(!memcmp(buf + 116, "ab\0\0", 4));
	/* A device node: /dev/console is 5:1, in rdevmajor and rdevminor. */
	TSU_EQ(ts_cpio_add(&c, "dev/console", S_IFCHR | 0600, 5 << 8 | 1, NULL, 0), 0);
	fflush(f);
	CU_ASSERT(!memcmp(buf + 120 + 6 + 8, "00002180", 8));
	CU_ASSERT(!memcmp(buf + 120 + 6 + 9 * 8, "0000000500000001", 16));
	/* 110 + "dev/console\0" (12) = 122, padded to 124; no data. */
	TSU_EQ(len, 120 + 124);
	TSU_EQ(ts_cpio_finish(&c), 0);
	/* The trailer: header, "TRAILER!!!\0" (11) = 121, padded to 124. */
	TSU_EQ(len, 120 + 124 + 124);
	CU_ASSERT(!memcmp(buf + 244 + 110, "TRAILER!!!", 11));
	fclose(f);
	free(buf);
}

static const char dep[] =
	"kernel/fs/9p/9p.ko: kernel/fs/netfs/netfs.ko kernel/net/9p/9pnet.ko\n"
	"kernel/net/9p/9pnet_virtio.ko: kernel/net/9p/9pnet.ko "
	"kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/net/9p/9pnet.ko:\n"
	"kernel/fs/netfs/netfs.ko:\n"
	"kernel/drivers/virtio/virtio_ring.ko:\n"
	"kernel/fs/overlayfs/overlay.ko.xz:\n"
	"kernel/drivers/char/virtio_console.ko: kernel/drivers/virtio/virtio_ring.ko\n";

/* Dependencies first, each once; built-in modules left out. */
static void test_moddep_order(void)
{
	static const char *const expect[] = {"kernel/net/9p/9pnet.ko",
					     "kernel/drivers/virtio/virtio_ring.ko",
					     "kernel/net/9p/9pnet_virtio.ko",
					     "kernel/fs/netfs/netfs.ko",
					     "kernel/fs/9p/9p.ko",
					     "kernel/fs/overlayfs/overlay.ko.xz",
					     "kernel/drivers/char/virtio_console.ko"};
	struct ts_vm_modlist l = {0};
	struct ts_err err = {{0}};
	size_t i;

	TSU_EQ(ts_vm_moddep_resolve(dep, "kernel/drivers/virtio/virtio_pci.ko\n",
				    ts_vm_boot_modules, ts_vm_nboot_modules, &l, &err),
	       0);
	TSU_EQ(l.n, 7);
	for (i = 0; i < l.n && i < 7; i++)
		CU_ASSERT_STRING_EQUAL(l.path[i], expect[i]);
	ts_vm_modlist_free(&l);
}

/* Everything built in: nothing to load, so no initramfs. */
static void test_moddep_builtin(void)
{
	static const char builtin[] = "kernel/drivers/virtio/virtio_pci.ko\n"
				      "kernel/net/9p/9pnet_virtio.ko\nkernel/fs/9p/9p.ko\n"
				      "kernel/fs/overlayfs/overlay.ko\n"
				      "kernel/drivers/char/virtio_console.ko\n";
	struct ts_vm_modlist l = {0};
	struct ts_err err = {{0}};

	TSU_EQ(ts_vm_moddep_resolve("", builtin, ts_vm_boot_modules, ts_vm_nboot_modules, &l, &err),
	       0);
	TSU_EQ(l.n, 0);
}

static void test_moddep_missing(void)
{
	struct ts_vm_modlist l = {0};
	struct ts_err err = {{0}};

	/* No line for virtio_pci, and it is not built in. */
	TSU_EQ(ts_vm_moddep_resolve(dep, "", ts_vm_boot_modules, ts_vm_nboot_modules, &l, &err),
	       -ENOENT);
	CU_ASSERT(strstr(err.msg, "virtio_pci") != NULL);
	ts_vm_modlist_free(&l);
	/* A dependency named in modules.dep without a line of its own. */
	TSU_EQ(ts_vm_moddep_resolve("a/x.ko: a/y.ko\n", "", (const char *const[]){"x"}, 1, &l,
				    &err),
	       -ENOENT);
	CU_ASSERT(strstr(err.msg, "a/y.ko") != NULL);
	ts_vm_modlist_free(&l);
}

static void test_modname(void)
{
	char n[64];

	ts_vm_modname("kernel/fs/9p/9p.ko.xz", n, sizeof(n));
	CU_ASSERT_STRING_EQUAL(n, "9p");
	ts_vm_modname("kernel/sound/snd-hda-intel.ko", n, sizeof(n));
	CU_ASSERT_STRING_EQUAL(n, "snd_hda_intel");
	ts_vm_modname("overlay", n, sizeof(n));
	CU_ASSERT_STRING_EQUAL(n, "overlay");
}

static void test_bzimage_version(void)
{
	static unsigned char img[0x400];
	static const char v[] = "6.12.117 (root@build) #1 SMP";
	char out[128];

	memset(img, 0, sizeof(img));
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00; /* kernel_version = 0x100: the string is at 0x200 + 0x100 */
	img[0x20f] = 0x01;
	memcpy(img + 0x300, v, sizeof(v));
	TSU_EQ(ts_vm_bzimage_version(img, sizeof(img), out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, v);
	/* Cut before the string's NUL: not accepted. */
	TSU_EQ(ts_vm_bzimage_version(img, 0x300 + 10, out, sizeof(out)), -EINVAL);
	memcpy(img + 0x202, "HdrX", 4);
	TSU_EQ(ts_vm_bzimage_version(img, sizeof(img), out, sizeof(out)), -EINVAL);
}

static void test_cmdline(void)
{
	struct ts_err err = {{0}};
	char buf[1024];

	TSU_EQ(ts_vm_cmdline(buf, sizeof(buf), false, false, "/usr/bin/tasshape", "nokaslr", &err),
	       0);
	CU_ASSERT_STRING_EQUAL(buf,
			       "console=ttyS0 panic=-1 quiet loglevel=4 clocksource=hpet "
			       "root=tasroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,"
			       "msize=512000,cache=loose ro init=/usr/bin/tasshape nokaslr -- vm "
			       "--guest-init");
	/* KVM keeps kvm-clock; with an initramfs its /init mounts the root and starts tasshape. */
	TSU_EQ(ts_vm_cmdline(buf, sizeof(buf), true, true, "/usr/bin/tasshape", NULL, &err), 0);
	CU_ASSERT_STRING_EQUAL(buf, "console=ttyS0 panic=-1 quiet loglevel=4");
	TSU_EQ(ts_vm_cmdline(buf, sizeof(buf), false, false, "/my dir/tasshape", NULL, &err),
	       -EINVAL);
	TSU_EQ(ts_vm_cmdline(buf, 20, false, false, "/usr/bin/tasshape", NULL, &err), -ENOSPC);
}

static bool argv_has(const struct ts_vm_argv *a, const char *opt, const char *val)
{
	size_t i;

	for (i = 0; i + 1 < a->n; i++)
		if (!strcmp(a->v[i], opt) && !strcmp(a->v[i + 1], val))
			return true;
	return false;
}

static void test_qemu_argv(void)
{
	struct ts_vm_plan p = {.qemu = "qemu-system-x86_64",
			       .kernel = "/k/bzImage",
			       .initrd = "/t/initrd.cpio",
			       .cpus = 2,
			       .memory_mib = 1024,
			       .cmdline = "console=ttyS0",
			       .ctl = "/t/ctl",
			       .cwd = "/home/a,b",
			       .out = NULL,
			       .passthrough = true,
			       .sock_out = "/t/out.sock",
			       .sock_err = "/t/err.sock",
			       .console = "/t/con.sock",
			       .console_is_socket = true};
	struct ts_vm_argv a = {0};

	TSU_EQ(ts_vm_qemu_argv(&p, &a), 0);
	CU_ASSERT_STRING_EQUAL(a.v[0], "qemu-system-x86_64");
	CU_ASSERT(a.v[a.n] == NULL);
	CU_ASSERT(argv_has(&a, "-nic", "none"));
	CU_ASSERT(argv_has(&a, "-machine", "pc,accel=tcg"));
	CU_ASSERT(argv_has(&a, "-cpu", "max"));
	CU_ASSERT(argv_has(&a, "-smp", "2"));
	CU_ASSERT(argv_has(&a, "-m", "1024"));
	CU_ASSERT(argv_has(&a, "-initrd", "/t/initrd.cpio"));
	CU_ASSERT(argv_has(&a, "-fsdev",
			   "local,id=fsroot,path=/,security_model=passthrough,"
			   "readonly=on,multidevs=remap"));
	/*
	 * The comma of the path is doubled, as QEMU's option parser wants. A writable share keeps
	 * the guest's owners and modes in extended attributes, even when QEMU runs as root: a
	 * set-id file the guest makes is a plain 0600 file on the host.
	 */
	CU_ASSERT(argv_has(&a, "-fsdev",
			   "local,id=fscwd,path=/home/a,,b,security_model=mapped-xattr,"
			   "multidevs=remap"));
	CU_ASSERT(
		argv_has(&a, "-fsdev",
			 "local,id=fsctl,path=/t/ctl,security_model=mapped-xattr,multidevs=remap"));
	CU_ASSERT(argv_has(&a, "-device", "virtio-9p-pci,fsdev=fsctl,mount_tag=tasctl"));
	CU_ASSERT(!argv_has(&a, "-device", "virtio-9p-pci,fsdev=fsout,mount_tag=tasout"));
	CU_ASSERT(argv_has(&a, "-chardev", "socket,id=cout,path=/t/out.sock"));
	CU_ASSERT(argv_has(&a, "-device", "virtserialport,chardev=cerr,name=tas.stderr"));
	CU_ASSERT(argv_has(&a, "-serial", "chardev:con"));
	CU_ASSERT(!argv_has(&a, "-icount", "shift=0,sleep=off,align=off"));
	/* In real time the guest's clock is the host's and its RDRAND the host's randomness. */
	CU_ASSERT(!argv_has(&a, "-rtc", "base=2000-01-01T00:00:00,clock=vm"));
	CU_ASSERT(!argv_has(&a, "-seed", "1"));
	ts_vm_argv_free(&a);

	/* Virtual time. */
	p.icount = true;
	p.cpus = 1;
	TSU_EQ(ts_vm_qemu_argv(&p, &a), 0);
	CU_ASSERT(argv_has(&a, "-icount", "shift=0,sleep=off,align=off"));
	/* In virtual time the guest's CPU has no ERMS/FSRM: TCG counts rep movsb per byte. */
	CU_ASSERT(argv_has(&a, "-cpu", "max,erms=off,fsrm=off"));
	CU_ASSERT(argv_has(&a, "-smp", "1"));
	CU_ASSERT(argv_has(&a, "-rtc", "base=2000-01-01T00:00:00,clock=vm"));
	CU_ASSERT(argv_has(&a, "-seed", "1"));
	ts_vm_argv_free(&a);
	p.icount_shift = 3;
	TSU_EQ(ts_vm_qemu_argv(&p, &a), 0);
	CU_ASSERT(argv_has(&a, "-icount", "shift=3,sleep=off,align=off"));
	ts_vm_argv_free(&a);
	/*
	 * Sealed: no root or cwd share, and nothing whose timing the host decides before CMD
	 * ends: no virtio serial device (CMD's output comes in the control share), the console a
	 * file QEMU writes, not a socket the host may read late (vm.c).
	 */
	p.icount_shift = 0;
	p.sealed = true;
	p.console = "/t/console";
	p.console_is_socket = false;
	TSU_EQ(ts_vm_qemu_argv(&p, &a), 0);
	CU_ASSERT(argv_has(&a, "-chardev", "file,id=con,path=/t/console"));
	CU_ASSERT(argv_has(&a, "-serial", "chardev:con"));
	CU_ASSERT(!argv_has(&a, "-device", "virtio-serial-pci"));
	CU_ASSERT(!argv_has(&a, "-chardev", "socket,id=cout,path=/t/out.sock"));
	CU_ASSERT(!argv_has(&a, "-device", "virtserialport,chardev=cerr,name=tas.stderr"));
	CU_ASSERT(argv_has(&a, "-device", "virtio-9p-pci,fsdev=fsctl,mount_tag=tasctl"));
	CU_ASSERT(!argv_has(&a, "-device", "virtio-9p-pci,fsdev=fsroot,mount_tag=tasroot"));
	CU_ASSERT(!argv_has(&a, "-device", "virtio-9p-pci,fsdev=fscwd,mount_tag=tascwd"));
	ts_vm_argv_free(&a);
	p.sealed = false;
	p.console = "/t/con.sock";
	p.console_is_socket = true;
	p.icount = false;

	p.kvm = true;
	p.initrd = NULL;
	p.out = "/results";
	p.passthrough = false;
	TSU_EQ(ts_vm_qemu_argv(&p, &a), 0);
	CU_ASSERT(argv_has(&a, "-machine", "pc,accel=kvm"));
	CU_ASSERT(argv_has(&a, "-cpu", "host"));
	CU_ASSERT(argv_has(&a, "-fsdev",
			   "local,id=fsout,path=/results,security_model=mapped-xattr,"
			   "multidevs=remap"));
	/* QEMU as the invoking user: the read-only root share cannot pass owners through. */
	CU_ASSERT(
		argv_has(&a, "-fsdev",
			 "local,id=fsroot,path=/,security_model=none,readonly=on,multidevs=remap"));
	CU_ASSERT(!argv_has(&a, "-initrd", "/t/initrd.cpio"));
	ts_vm_argv_free(&a);
}

static void test_qemu_version(void)
{
	unsigned ma = 0, mi = 0;

	TSU_EQ(ts_vm_qemu_version("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\n"
				  "Copyright (c) 2003-2022 Fabrice Bellard\n",
				  &ma, &mi),
	       0);
	TSU_EQ(ma, 7);
	TSU_EQ(mi, 2);
	CU_ASSERT(!ts_vm_icount_smp_ok(ma, mi));
	TSU_EQ(ts_vm_qemu_version("QEMU emulator version 10.0.2\n", &ma, &mi), 0);
	TSU_EQ(ma, 10);
	TSU_EQ(mi, 0);
	CU_ASSERT(ts_vm_icount_smp_ok(ma, mi));
	CU_ASSERT(ts_vm_icount_smp_ok(8, 0));
	TSU_EQ(ts_vm_qemu_version("QEMU emulator version x.2\n", &ma, &mi), -EINVAL);
	TSU_EQ(ts_vm_qemu_version("QEMU emulator version 7\n", &ma, &mi), -EINVAL);
	TSU_EQ(ts_vm_qemu_version("qemu 7.2.0\n", &ma, &mi), -EINVAL);
}

static void test_hidden_path(void)
{
	const char *shares[2] = {"/tmp/tastest.x/work", NULL};
	const char *a;

	a = "/tmp/run.sh";
	CU_ASSERT_PTR_EQUAL(ts_vm_hidden_path(a, shares, 2), a);
	a = "/run/user/0/x";
	CU_ASSERT_PTR_EQUAL(ts_vm_hidden_path(a, shares, 2), a);
	a = "--trace=/tmp/t.csv";
	CU_ASSERT_PTR_EQUAL(ts_vm_hidden_path(a, shares, 2), a + 8);
	/* The directories themselves exist in the guest too (its own). */
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("/tmp", shares, 2));
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("/tmp/", shares, 2));
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("/run", shares, 2));
	/* Shared at the same path: visible. */
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("/tmp/tastest.x/work", shares, 2));
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("/tmp/tastest.x/work/a.csv", shares, 2));
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("out=/tmp/tastest.x/work/o", shares, 2));
	/* A sibling with the share's name as a prefix is not in it. */
	a = "/tmp/tastest.x/workshop";
	CU_ASSERT_PTR_EQUAL(ts_vm_hidden_path(a, shares, 2), a);
	/* Not /tmp: /tmpfoo, /var/tmp, relative paths, words. */
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("/tmpfoo/x", shares, 2));
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("/var/tmp/x", shares, 2));
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("tmp/x", shares, 2));
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("-c", shares, 2));
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("/running", shares, 2));
	shares[1] = "/tmp/out/";
	CU_ASSERT_PTR_NULL(ts_vm_hidden_path("/tmp/out/r.json", shares, 2));
}

static void test_conf_roundtrip(void)
{
	struct ts_vm_guest_conf g = {0}, h;
	struct ts_err err = {{0}};
	char *s;

	snprintf(g.cwd, sizeof(g.cwd), "/work/x y");
	snprintf(g.modules, sizeof(g.modules), "/k/lib/modules/6.12.117");
	snprintf(g.modprobe[0], sizeof(g.modprobe[0]), "tcp_bbr_tas tas_pacing_shift_startup=7");
	g.nmodprobe = 1;
	s = ts_vm_conf_format(&g);
	CU_ASSERT_STRING_EQUAL(s, "cwd=/work/x y\nmodules=/k/lib/modules/6.12.117\n"
				  "modprobe=tcp_bbr_tas tas_pacing_shift_startup=7\n");
	TSU_EQ(ts_vm_conf_parse(s, &h, &err), 0);
	CU_ASSERT_STRING_EQUAL(h.cwd, "/work/x y");
	CU_ASSERT_STRING_EQUAL(h.out, "");
	TSU_EQ(h.nmodprobe, 1);
	CU_ASSERT_STRING_EQUAL(h.modprobe[0], g.modprobe[0]);
	free(s);
	TSU_EQ(ts_vm_conf_parse("cwd=/\nbogus=1\n", &h, &err), -EINVAL);
	CU_ASSERT(strstr(err.msg, "line 2") != NULL);
	TSU_EQ(ts_vm_conf_parse("out=/x\n", &h, &err), -EINVAL);
	CU_ASSERT(strstr(err.msg, "no cwd") != NULL);
}

static void test_status(void)
{
	struct ts_vm_status s;
	struct ts_err err = {{0}};

	TSU_EQ(ts_vm_status_parse("clocksource=hpet\npreempt=full\nrelease=6.1.0-28-amd64\n"
				  "boot=4.700\nexit=3\n",
				  &s, &err),
	       0);
	CU_ASSERT(s.have_exit);
	TSU_EQ(s.exit_code, 3);
	CU_ASSERT_STRING_EQUAL(s.clocksource, "hpet");
	CU_ASSERT_STRING_EQUAL(s.preempt, "full");
	CU_ASSERT_STRING_EQUAL(s.release, "6.1.0-28-amd64");
	CU_ASSERT_DOUBLE_EQUAL(s.boot_s, 4.7, 1e-9);
	TSU_EQ(ts_vm_status_parse("signal=9\n", &s, &err), 0);
	TSU_EQ(s.exit_code, 137);
	CU_ASSERT_STRING_EQUAL(s.preempt, ""); /* a kernel without the switch, or an older init */
	TSU_EQ(ts_vm_status_parse("error=mount failed\n", &s, &err), 0);
	CU_ASSERT(!s.have_exit);
	CU_ASSERT_STRING_EQUAL(s.error, "mount failed");
	TSU_EQ(ts_vm_status_parse("exit=256\n", &s, &err), -EINVAL);
	TSU_EQ(ts_vm_status_parse("exit=\n", &s, &err), -EINVAL);
	TSU_EQ(ts_vm_status_parse("exit 3\n", &s, &err), -EINVAL);
}

/* The guest's facts, written alike by --info-json and an experiment's "vm" record. */
static void result_json_is(const struct ts_vm_result *r, const char *want)
{
	json_object *o = json_object_new_object();
	bool nomem = false;

	ts_vm_result_put(o, r, &nomem);
	CU_ASSERT(!nomem);
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(
				       o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
			       want);
	json_object_put(o);
}

static void test_result_json(void)
{
	struct ts_vm_result r = {.vclock = true,
				 .cpus = 1,
				 .pvh = true,
				 .boot_s = 1.77,
				 .sealed = true,
				 .image_bytes = 123456789012ULL};

	strcpy(r.clocksource, "tsc");
	strcpy(r.preempt, "full");
	strcpy(r.image_sha256, "ab");
	strcpy(r.boot_note, "ignored at PVH");
	/* Sealed in virtual time: the only reproducible kind; boot_s to the millisecond. */
	r.dilation_milli = 2500;
	result_json_is(&r, "{\"accel\":\"tcg\",\"accel_note\":null,\"fidelity\":\"virtual\","
			   "\"clock\":\"virtual\",\"icount_shift\":0,\"time_dilation\":2.500,"
			   "\"rtc_base\":\"2000-01-01T00:00:00\",\"qemu_seed\":1,"
			   "\"sealed\":true,\"reproducible\":true,\"image_bytes\":123456789012,"
			   "\"image_sha256\":\"ab\",\"clocksource\":\"tsc\",\"preempt\":\"full\","
			   "\"boot\":\"pvh\",\"boot_note\":null,\"cpus\":1,\"boot_s\":1.770}");
	/* Unsealed in virtual time: not reproducible; a bzImage boot says why; not dilated. */
	r.sealed = false;
	r.pvh = false;
	r.preempt[0] = '\0';
	r.dilation_milli = 0;
	result_json_is(&r, "{\"accel\":\"tcg\",\"accel_note\":null,\"fidelity\":\"virtual\","
			   "\"clock\":\"virtual\",\"icount_shift\":0,\"time_dilation\":1.000,"
			   "\"rtc_base\":\"2000-01-01T00:00:00\",\"qemu_seed\":1,"
			   "\"sealed\":false,\"reproducible\":false,\"clocksource\":\"tsc\","
			   "\"preempt\":null,\"boot\":\"bzimage\",\"boot_note\":\"ignored at PVH\","
			   "\"cpus\":1,\"boot_s\":1.770}");
	/* KVM in real time. */
	r = (struct ts_vm_result){.kvm = true, .cpus = 2, .boot_s = 0.0125};
	result_json_is(&r, "{\"accel\":\"kvm\",\"accel_note\":null,\"fidelity\":\"kvm\","
			   "\"clock\":\"real\",\"sealed\":false,\"reproducible\":false,"
			   "\"clocksource\":null,\"preempt\":null,\"boot\":\"bzimage\","
			   "\"boot_note\":null,\"cpus\":2,\"boot_s\":0.013}");
	/* TCG in real time: flagged by fidelity, with the reason KVM was not used. */
	r = (struct ts_vm_result){.cpus = 2, .boot_s = 4.7};
	strcpy(r.accel_note, "no /dev/kvm");
	result_json_is(&r, "{\"accel\":\"tcg\",\"accel_note\":\"no /dev/kvm\","
			   "\"fidelity\":\"tcg\",\"clock\":\"real\",\"sealed\":false,"
			   "\"reproducible\":false,\"clocksource\":null,\"preempt\":null,"
			   "\"boot\":\"bzimage\",\"boot_note\":null,\"cpus\":2,\"boot_s\":4.700}");
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_probe_image(void)
{
	unsigned char img[TS_VM_PROBE_LEN];

	ts_vm_probe_image(img);
	TSU_EQ(le32(img), 0x1BADB002);
	TSU_EQ(le32(img + 4), 0x00010000);
	/* Multiboot: magic + flags + checksum == 0 (mod 2^32). */
	TSU_EQ((uint32_t)(le32(img) + le32(img + 4) + le32(img + 8)), 0);
	TSU_EQ(le32(img + 12), 0x100000);
	TSU_EQ(le32(img + 28), 0x100020);
	/* mov ecx, 1000000 (0x000f4240); dec ecx; jnz -3 (back to the dec). */
	TSU_EQ(img[32], 0xb9);
	TSU_EQ(le32(img + 33), 1000000);
	TSU_EQ(img[37], 0x49);
	TSU_EQ(img[38], 0x75);
	TSU_EQ(img[39], 0xfd);
	/* mov al, 0x10; out 0xf4, al: QEMU's exit status is 2 * 0x10 + 1 = 33. */
	TSU_EQ(img[40], 0xb0);
	TSU_EQ(img[41], 0x10);
	TSU_EQ(img[42], 0xe6);
	TSU_EQ(img[43], 0xf4);
	/* hlt; jmp -3 (back to the hlt) */
	TSU_EQ(img[44], 0xf4);
	TSU_EQ(img[45], 0xeb);
	TSU_EQ(img[46], 0xfd);
	TSU_EQ(2 * TS_VM_PROBE_VALUE + 1, 33);
}

static void test_kvm_too_slow(void)
{
	/* Within 1 s: KVM without a TCG run, whatever TCG would take. */
	CU_ASSERT_FALSE(ts_vm_kvm_needs_tcg_time(1000000000ull));
	CU_ASSERT_TRUE(ts_vm_kvm_needs_tcg_time(1000000001ull));
	CU_ASSERT_FALSE(ts_vm_kvm_too_slow(1000000000ull, 1));
	/* Slower than 1 s: too slow only above twice TCG's time. */
	CU_ASSERT_FALSE(ts_vm_kvm_too_slow(2000000000ull, 1000000000ull));
	CU_ASSERT_TRUE(ts_vm_kvm_too_slow(2000000001ull, 1000000000ull));
	CU_ASSERT_FALSE(ts_vm_kvm_too_slow(2000000001ull, 1000000001ull));
	/* As measured on a nested KVM that could not run guest code: 5.72 s against 0.10 s. */
	CU_ASSERT_TRUE(ts_vm_kvm_too_slow(5720000000ull, 100000000ull));
	/* A TCG run that failed (no time): KVM stays. */
	CU_ASSERT_FALSE(ts_vm_kvm_too_slow(9000000000ull, UINT64_MAX));
}

static void test_init_script(void)
{
	const char *mods[] = {"00-9pnet.ko", "01-9p.ko"};
	char *s = ts_vm_init_script(mods, 2, "/opt/it's/tasshape");

	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT(!strncmp(s, "#!/bin/busybox sh\n", 18));
	CU_ASSERT(strstr(s, "$B insmod /lib/modules/'00-9pnet.ko' || fail") != NULL);
	CU_ASSERT(strstr(s, "$B insmod /lib/modules/'01-9p.ko' || fail") != NULL);
	CU_ASSERT(strstr(s,
			 "mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose "
			 "tasroot /newroot") != NULL);
	CU_ASSERT(
		strstr(s,
		       "exec $B switch_root /newroot '/opt/it'\\''s/tasshape' vm --guest-init\n") !=
		NULL);
	/* The modules load before the root is mounted. */
	CU_ASSERT(strstr(s, "01-9p.ko") < strstr(s, "tasroot /newroot"));
	free(s);
}

/* The writable shares: / would put the host's whole file system, writable, in the guest. */
static void test_share_check(void)
{
	struct ts_err err;

	err.msg[0] = '\0';
	TSU_EQ(ts_vm_share_check("the current directory", "/", &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "the current directory is /: it would be shared writable, giving "
			       "the guest write access to the host's whole file system (expected "
			       "a directory of your own: cd to one)");
	TSU_EQ(ts_vm_share_check("--out", "/", &err), -EINVAL);
	CU_ASSERT(!strncmp(err.msg, "--out is /: ", 12));
	TSU_EQ(ts_vm_share_check("the current directory", "/home/u/exp", &err), 0);
	TSU_EQ(ts_vm_share_check("--out", "/tmp", &err), 0);
}

/* apt-cache madison as bookworm with its security archive prints it: the candidate first. */
static void test_apt_versions(void)
{
	static const char madison[] =
		"linux-image-amd64 |  6.1.192-3 | http://deb.debian.org/debian-security "
		"bookworm-security/main amd64 Packages\n"
		"linux-image-amd64 |  6.1.176-1 | http://deb.debian.org/debian bookworm/main amd64 "
		"Packages\n"
		"linux-image-amd64 |  6.1.176-1 | http://mirror.example/debian bookworm/main amd64 "
		"Packages\n"
		"N: no pipes here\n"
		"linux-image-amd64 | two words | x\n"
		"linux-image-amd64 |  6.1.158-1 | http://deb.debian.org/debian bookworm/main";
	char v[TS_VM_APT_MAX_VERSIONS][TS_VM_APT_VERSION_LEN];

	CU_ASSERT_EQUAL(ts_vm_apt_versions(madison, v, TS_VM_APT_MAX_VERSIONS), 3);
	CU_ASSERT_STRING_EQUAL(v[0], "6.1.192-3");
	CU_ASSERT_STRING_EQUAL(v[1], "6.1.176-1");
	CU_ASSERT_STRING_EQUAL(v[2], "6.1.158-1"); /* the last line has no newline */
	CU_ASSERT_EQUAL(ts_vm_apt_versions(madison, v, 2), 2);
	CU_ASSERT_EQUAL(ts_vm_apt_versions("", v, 8), 0);
	CU_ASSERT_EQUAL(ts_vm_apt_versions("a |  | b\n", v, 8), 0);
}

static void test_apt_image(void)
{
	char pkg[64];

	CU_ASSERT_EQUAL(ts_vm_apt_image("linux-image-amd64\n  Depends: "
					"linux-image-6.1.0-50-amd64\n",
					pkg, sizeof(pkg)),
			0);
	CU_ASSERT_STRING_EQUAL(pkg, "linux-image-6.1.0-50-amd64");
	/* A virtual package line "<...>" ends the name. */
	CU_ASSERT_EQUAL(ts_vm_apt_image("  Depends: linux-image-6.1.0-9-amd64<x>\n", pkg, 64), 0);
	CU_ASSERT_STRING_EQUAL(pkg, "linux-image-6.1.0-9-amd64");
	CU_ASSERT_EQUAL(ts_vm_apt_image("  Depends: linux-image-\n", pkg, 64), -ENOENT);
	CU_ASSERT_EQUAL(ts_vm_apt_image("  Depends: linux-image-6.1.0-50-amd64\n", pkg, 12),
			-ENOENT);
	CU_ASSERT_EQUAL(ts_vm_apt_image("  Recommends: apparmor\n", pkg, 64), -ENOENT);
}

static const struct tsu_test tests[] = {
	{"apt version table", test_apt_versions},
	{"apt image package", test_apt_image},
	{"cpio newc bytes", test_cpio_bytes},
	{"module closure: dependencies first, once", test_moddep_order},
	{"module closure: all built in", test_moddep_builtin},
	{"module closure: missing modules", test_moddep_missing},
	{"module names", test_modname},
	{"bzImage version string", test_bzimage_version},
	{"kernel command line", test_cmdline},
	{"QEMU arguments", test_qemu_argv},
	{"QEMU version", test_qemu_version},
	{"paths the guest does not see", test_hidden_path},
	{"control file round trip", test_conf_roundtrip},
	{"guest status", test_status},
	{"guest facts as JSON", test_result_json},
	{"KVM probe image", test_probe_image},
	{"KVM slower than TCG", test_kvm_too_slow},
	{"initramfs init script", test_init_script},
	{"writable shares: never /", test_share_check},
};

TSU_MAIN("vm", tests)
