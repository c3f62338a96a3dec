/* SPDX-License-Identifier: MIT */
/*
 * The files a spec or tasshape vm names for a guest, read by root before a boot
 * (vm/kimage.h, vm/moddir.h, plan's ts_exp_spec_check_kernels): a FIFO or a
 * device named as the image or as an index of the modules directory is
 * refused at once (an alarm ends a test that would wait), a name in the
 * modules index never leads out of its directory, and the errors name the
 * spec's line. Each test in a private temporary directory of its own, removed
 * by the next test's setup and, for the last, by the suite's cleanup.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/sha256.h"
#include "plan/expspec.h"
#include "vm/kimage.h"
#include "vm/moddir.h"
#include "vm/vm.h"
#include "tsu.h"
#include "tsu_tmp.h"

static char dir[64];

static const char *at(const char *name)
{
	static char p[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static void put(const char *name, const void *data, size_t len)
{
	FILE *f = fopen(at(name), "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* A made-up bzImage: "HdrS" at 0x202, its version string at 0x200 + 0x100. */
static void put_bzimage(const char *name)
{
	static unsigned char img[1024];

	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00;
	img[0x20f] = 0x01;
	strcpy((char *)img + 0x300, "6.1.0-test (t@t) #1 SMP");
	put(name, img, sizeof(img));
}

static void setup(void)
{
	if (dir[0]) /* the previous test's */
		CU_ASSERT_EQUAL(tsu_tmp_remove(dir), 0);
	snprintf(dir, sizeof(dir), "%s/tsu-guestfiles-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	CU_ASSERT_EQUAL(mkdir(at("mods"), 0755), 0);
	CU_ASSERT_EQUAL(mkfifo(at("fifo"), 0600), 0);
	/* A test that would wait on the FIFO ends here, failed, instead of at ctest's timeout. */
	alarm(10);
}

/* The image is a regular file, read once: its version and SHA-256 are of those bytes. */
static void test_image(void)
{
	char version[256], sha[65], want[65];
	struct ts_vm_kimage k;
	struct ts_err err;

	setup();
	put_bzimage("bzImage");
	TSU_EQ(ts_vm_kimage_load(at("bzImage"), &k, &err), 0);
	CU_ASSERT_STRING_EQUAL(k.version, "6.1.0-test (t@t) #1 SMP");
	TSU_EQ(k.len, 1024);
	TSU_EQ(ts_sha256_file(at("bzImage"), want), 0);
	CU_ASSERT_STRING_EQUAL(k.sha256, want);
	ts_vm_kimage_free(&k);
	/* A FIFO with no writer: refused at once, not waited on. */
	TSU_EQ(ts_vm_kernel_identify(at("fifo"), version, sha, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "fifo: expected a regular file"));
	/* /dev/zero, through a link: a device, refused before a byte is read. */
	CU_ASSERT_EQUAL(symlink("/dev/zero", at("zero")), 0);
	TSU_EQ(ts_vm_kernel_identify(at("zero"), version, sha, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "zero: expected a regular file"));
	put("text", "not a kernel\n", 13);
	TSU_EQ(ts_vm_kernel_identify(at("text"), version, sha, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "text: not a bzImage"));
	alarm(0);
}

/* A modules directory: a directory, and its modules.dep a regular file. */
static void test_modules_dir(void)
{
	struct ts_err err;

	setup();
	TSU_EQ(ts_vm_modules_check(at("mods"), &err), 0); /* no modules.dep yet: said later */
	TSU_EQ(ts_vm_modules_check(at("fifo"), &err), -ENOTDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "fifo: expected a directory"));
	/* A link to /dev/zero leads out of the directory: refused before it is opened. */
	CU_ASSERT_EQUAL(symlink("/dev/zero", at("mods/modules.dep")), 0);
	TSU_EQ(ts_vm_modules_check(at("mods"), &err), -EXDEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mods/modules.dep: cannot open: it leads out"));
	unlink(at("mods/modules.dep"));
	CU_ASSERT_EQUAL(mkfifo(at("mods/modules.dep"), 0600), 0);
	TSU_EQ(ts_vm_modules_check(at("mods"), &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mods/modules.dep: expected a regular file"));
	alarm(0);
}

/* Names from the index are looked up beneath the directory: no "..", no link out of it. */
static void test_modules_beneath(void)
{
	struct ts_err err;
	char *text = NULL;
	size_t len;
	int fd;

	setup();
	put("secret", "s3cret", 6);
	CU_ASSERT_EQUAL(mkdir(at("mods/kernel"), 0755), 0);
	put("mods/kernel/a.ko", "A", 1);
	CU_ASSERT_EQUAL(symlink("a.ko", at("mods/kernel/in.ko")), 0);
	CU_ASSERT_EQUAL(symlink(at("secret"), at("mods/kernel/out.ko")), 0);
	CU_ASSERT_EQUAL(symlink("../../secret", at("mods/kernel/up.ko")), 0);
	fd = ts_vm_moddir_open(at("mods"), &err);
	CU_ASSERT_FATAL(fd >= 0);
	TSU_EQ(ts_vm_moddir_read(fd, at("mods"), "kernel/in.ko", 16, &text, &len, &err), 0);
	CU_ASSERT_STRING_EQUAL(text, "A");
	free(text);
	TSU_EQ(ts_vm_moddir_read(fd, at("mods"), "../secret", 16, &text, &len, &err), -EXDEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "it leads out of its directory"));
	TSU_EQ(ts_vm_moddir_read(fd, at("mods"), "kernel/out.ko", 16, &text, &len, &err), -EXDEV);
	TSU_EQ(ts_vm_moddir_read(fd, at("mods"), "kernel/up.ko", 16, &text, &len, &err), -EXDEV);
	TSU_EQ(ts_vm_moddir_read(fd, at("mods"), at("secret"), 16, &text, &len, &err), -EXDEV);
	CU_ASSERT_PTR_NULL(text);
	/* Bounded: one byte over the limit is refused before it is read. */
	TSU_EQ(ts_vm_moddir_read(fd, at("mods"), "kernel/a.ko", 0, &text, &len, &err), -EFBIG);
	close(fd);
	alarm(0);
}

/* exp's check of a spec's kernels: each refusal names the file and the key's line. */
static void test_spec_kernels(void)
{
	struct ts_exp_spec s;
	char text[1024];
	struct ts_err err = {""};

	setup();
	put_bzimage("bzImage");
	snprintf(text, sizeof(text),
		 "[matrix]\ncca = cubic\nlink = a\ntest = tcp_upload\nkernel = k\n" /* 1-5 */
		 "[link a]\ndelay = 1ms\n[kernel k]\n"				    /* 6-8 */
		 "image = %s\nmodules = %s\n",					    /* 9, 10 */
		 at("fifo"), at("mods"));
	TSU_EQ(ts_exp_spec_parse(&s, "t.ini", text, &err), 0);
	TSU_EQ(ts_exp_spec_check_kernels(&s, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t.ini:9: [kernel k]: image: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "fifo: expected a regular file"));
	ts_exp_spec_free(&s);
	snprintf(text, sizeof(text),
		 "[matrix]\ncca = cubic\nlink = a\ntest = tcp_upload\nkernel = k\n"
		 "[link a]\ndelay = 1ms\n[kernel k]\nimage = %s\nmodules = %s\n",
		 at("bzImage"), at("mods"));
	CU_ASSERT_EQUAL(symlink("/dev/zero", at("mods/modules.dep")), 0);
	TSU_EQ(ts_exp_spec_parse(&s, "t.ini", text, &err), 0);
	TSU_EQ(ts_exp_spec_check_kernels(&s, &err), -EXDEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t.ini:10: [kernel k]: modules: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "modules.dep: cannot open: it leads out"));
	unlink(at("mods/modules.dep"));
	TSU_EQ(ts_exp_spec_check_kernels(&s, &err), 0);
	ts_exp_spec_free(&s);
	alarm(0);
}

static int cleanup(void)
{
	return dir[0] ? tsu_tmp_remove(dir) : 0;
}

static const struct tsu_test tests[] = {
	{"the image: a regular file, read once, a FIFO refused at once", test_image},
	{"the modules directory: modules.dep a regular file", test_modules_dir},
	{"modules index names stay beneath the directory", test_modules_beneath},
	{"a spec's kernel files: refused at the key's line", test_spec_kernels},
};

TSU_MAIN_FIXTURE("guestfiles", tests, NULL, cleanup)
