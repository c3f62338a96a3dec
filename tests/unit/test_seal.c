/* SPDX-License-Identifier: MIT */
/*
 * A sealed guest's image (src/vm/elfdeps.c, src/vm/seal.c): ELF headers
 * made here byte by byte, library resolution and symbolic links against a
 * made-up tree in a temporary directory, and the archive's reproducibility
 * (the same files in another order give the same bytes, every mtime, uid
 * and gid 0), its bounds, and the sealed kernel command line and QEMU
 * arguments.
 */
#include <elf.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsu.h"
#include "vm/elfdeps.h"
#include "vm/plan.h"
#include "vm/seal.h"

#define ELF_LEN	   1024
#define ELF_VADDR  0x400000u
#define STR_OFF	   256
#define INTERP_OFF 512
#define DYN_OFF	   768

/*
 * A 64-bit ELF of ELF_LEN bytes: one PT_LOAD mapping the whole file at ELF_VADDR, PT_INTERP
 * @interp (NULL: none), PT_DYNAMIC with DT_NEEDED @needed, DT_RUNPATH @runpath (NULL: none),
 * DT_STRTAB (an address, as the loader reads it) and DT_STRSZ. No section headers.
 */
static void make_elf(unsigned char *img, const char *interp, const char *const *needed,
		     const char *runpath)
{
	Elf64_Ehdr eh = {0};
	Elf64_Phdr ph[3] = {{0}};
	Elf64_Dyn dyn[12];
	size_t str = 1, nd = 0, i, np = 0;

	memset(img, 0, ELF_LEN);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	ph[np++] = (Elf64_Phdr){.p_type = PT_LOAD,
				.p_offset = 0,
				.p_vaddr = ELF_VADDR,
				.p_filesz = ELF_LEN,
				.p_memsz = ELF_LEN};
	if (interp) {
		strcpy((char *)img + INTERP_OFF, interp);
		ph[np++] = (Elf64_Phdr){.p_type = PT_INTERP,
					.p_offset = INTERP_OFF,
					.p_filesz = strlen(interp) + 1};
	}
	for (i = 0; needed && needed[i]; i++) {
		dyn[nd++] = (Elf64_Dyn){.d_tag = DT_NEEDED, .d_un.d_val = str};
		strcpy((char *)img + STR_OFF + str, needed[i]);
		str += strlen(needed[i]) + 1;
	}
	if (runpath) {
		dyn[nd++] = (Elf64_Dyn){.d_tag = DT_RUNPATH, .d_un.d_val = str};
		strcpy((char *)img + STR_OFF + str, runpath);
		str += strlen(runpath) + 1;
	}
	dyn[nd++] = (Elf64_Dyn){.d_tag = DT_STRTAB, .d_un.d_ptr = ELF_VADDR + STR_OFF};
	dyn[nd++] = (Elf64_Dyn){.d_tag = DT_STRSZ, .d_un.d_val = str};
	dyn[nd++] = (Elf64_Dyn){.d_tag = DT_NULL};
	memcpy(img + DYN_OFF, dyn, nd * sizeof(dyn[0]));
	ph[np++] = (Elf64_Phdr){
		.p_type = PT_DYNAMIC, .p_offset = DYN_OFF, .p_filesz = nd * sizeof(dyn[0])};
	eh.e_phnum = (Elf64_Half)np;
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + sizeof(eh), ph, np * sizeof(ph[0]));
}

static void test_elf_parse(void)
{
	static const char *const needed[] = {"liba.so.1", "libc.so.6", NULL};
	unsigned char img[ELF_LEN];
	struct ts_elf_deps d;
	struct ts_err err;

	make_elf(img, "/lib64/ld-test.so.2", needed, "$ORIGIN/../lib:/opt/x");
	TSU_EQ(ts_elf_deps_parse(img, sizeof(img), &d, &err), 0);
	CU_ASSERT(d.dynamic);
	CU_ASSERT_STRING_EQUAL(d.interp, "/lib64/ld-test.so.2");
	CU_ASSERT_STRING_EQUAL(d.runpath, "$ORIGIN/../lib:/opt/x");
	TSU_EQ(d.nneeded, 2);
	CU_ASSERT_STRING_EQUAL(d.needed[0], "liba.so.1");
	CU_ASSERT_STRING_EQUAL(d.needed[1], "libc.so.6");
	/* A library: no interpreter, no run path, one library. */
	make_elf(img, NULL, needed + 1, NULL);
	TSU_EQ(ts_elf_deps_parse(img, sizeof(img), &d, &err), 0);
	CU_ASSERT_STRING_EQUAL(d.interp, "");
	CU_ASSERT_STRING_EQUAL(d.runpath, "");
	TSU_EQ(d.nneeded, 1);
	/* Cut before the dynamic table: refused, not read past the end. */
	TSU_EQ(ts_elf_deps_parse(img, DYN_OFF + 8, &d, &err), -EINVAL);
	CU_ASSERT(strstr(err.msg, "PT_DYNAMIC") != NULL);
	/* DT_STRTAB at an address no PT_LOAD maps. */
	make_elf(img, NULL, needed, NULL);
	((Elf64_Dyn *)(img + DYN_OFF))[2].d_un.d_ptr = 0x10;
	TSU_EQ(ts_elf_deps_parse(img, sizeof(img), &d, &err), -EINVAL);
	CU_ASSERT(strstr(err.msg, "DT_STRTAB") != NULL);
	TSU_EQ(ts_elf_deps_parse((const unsigned char *)"#!/bin/sh\n", 10, &d, &err), -ENOEXEC);
}

static char root[] = "/tmp/tasshape-test-seal.XXXXXX";

static void put(const char *rel, const void *data, size_t len)
{
	char p[512], *slash;
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	for (slash = strchr(p + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	f = fopen(p, "w");
	CU_ASSERT_FATAL(f != NULL);
	fwrite(data, 1, len, f);
	fclose(f);
	chmod(p, 0755);
}

static void link_to(const char *rel, const char *target)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", root, rel);
	CU_ASSERT_FATAL(symlink(target, p) == 0);
}

/*
 * The tree: /opt/app/bin/prog (interpreter /lib64/ld-test.so.2, run path $ORIGIN/../lib,
 * needs liba.so.1 and libb.so.1), /opt/app/lib/liba.so.1 (needs libb.so.1), libb.so.1 in
 * both /usr/lib/x86_64-linux-gnu and /usr/lib (the first wins), /lib64 a link to usr/lib64,
 * /usr/bin a link to ../opt/app/bin, where tool is a link to prog, and broken needs
 * libnone.so.
 */
static void make_tree(void)
{
	static const char *const prog_needs[] = {"liba.so.1", "libb.so.1", NULL};
	static const char *const a_needs[] = {"libb.so.1", NULL};
	static const char *const broken_needs[] = {"libnone.so", NULL};
	unsigned char img[ELF_LEN];

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	make_elf(img, "/lib64/ld-test.so.2", prog_needs, "$ORIGIN/../lib");
	put("/opt/app/bin/prog", img, sizeof(img));
	make_elf(img, NULL, a_needs, NULL);
	put("/opt/app/lib/liba.so.1", img, sizeof(img));
	put("/usr/lib/x86_64-linux-gnu/libb.so.1", "B", 1);
	put("/usr/lib/libb.so.1", "wrong", 5);
	put("/usr/lib64/ld-test.so.2", "LD", 2);
	link_to("/lib64", "usr/lib64");
	link_to("/usr/bin", "../opt/app/bin");
	link_to("/opt/app/bin/tool", "prog");
	make_elf(img, "/lib64/ld-test.so.2", broken_needs, NULL);
	put("/opt/app/bin/broken", img, sizeof(img));
	put("/etc/services", "tcp 1\n", 6);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void remove_tree(void)
{
	/* Only the mkdtemp directory this test made. */
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const struct ts_seal_entry *entry(const struct ts_seal *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].path, path))
			return &s->e[i];
	return NULL;
}

static void test_lib_find(void)
{
	char out[512];

	TSU_EQ(ts_elf_lib_find(root, "liba.so.1", "$ORIGIN/../lib", "/opt/app/bin", out,
			       sizeof(out)),
	       0);
	CU_ASSERT_STRING_EQUAL(out, "/opt/app/bin/../lib/liba.so.1");
	/* The multiarch directory before /usr/lib, as Debian's ld.so.conf orders them. */
	TSU_EQ(ts_elf_lib_find(root, "libb.so.1", "", "/opt/app/bin", out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "/usr/lib/x86_64-linux-gnu/libb.so.1");
	/* Without the run path, liba is in none of the default directories. */
	TSU_EQ(ts_elf_lib_find(root, "liba.so.1", "", "/opt/app/bin", out, sizeof(out)), -ENOENT);
}

/* The closure of /usr/bin/tool: every file, directory and link, and nothing else. */
static void test_seal_closure(void)
{
	static const char *const dirs[] = {"opt",
					   "opt/app",
					   "opt/app/bin",
					   "opt/app/lib",
					   "usr",
					   "usr/lib",
					   "usr/lib/x86_64-linux-gnu",
					   "usr/lib64",
					   NULL};
	static const char *const files[] = {"opt/app/bin/prog", "opt/app/lib/liba.so.1",
					    "usr/lib/x86_64-linux-gnu/libb.so.1",
					    "usr/lib64/ld-test.so.2", NULL};
	struct ts_seal s;
	struct ts_err err;
	size_t i;

	ts_seal_init(&s, root);
	TSU_EQ(ts_seal_add_elf(&s, "/usr/bin/tool", &err), 0);
	for (i = 0; dirs[i]; i++)
		CU_ASSERT(entry(&s, dirs[i]) && entry(&s, dirs[i])->kind == TS_SEAL_DIR);
	for (i = 0; files[i]; i++)
		CU_ASSERT(entry(&s, files[i]) && entry(&s, files[i])->kind == TS_SEAL_FILE);
	CU_ASSERT(entry(&s, "usr/bin") && !strcmp(entry(&s, "usr/bin")->data, "../opt/app/bin"));
	CU_ASSERT(entry(&s, "lib64") && !strcmp(entry(&s, "lib64")->data, "usr/lib64"));
	CU_ASSERT(entry(&s, "opt/app/bin/tool") &&
		  !strcmp(entry(&s, "opt/app/bin/tool")->data, "prog"));
	/* 8 directories, 4 files, 3 links: /usr/lib/libb.so.1 and broken are not among them. */
	TSU_EQ(s.n, 15);
	TSU_EQ(s.bytes, 2 * ELF_LEN + 1 + 2);
	ts_seal_free(&s);

	ts_seal_init(&s, root);
	TSU_EQ(ts_seal_add_elf(&s, "/opt/app/bin/broken", &err), -ENOENT);
	CU_ASSERT(strstr(err.msg, "/opt/app/bin/broken needs libnone.so") != NULL);
	TSU_EQ(ts_seal_add_path(&s, "/opt/app/bin/none", NULL, 0, &err), -ENOENT);
	CU_ASSERT(strstr(err.msg, "/opt/app/bin/none") != NULL);
	ts_seal_free(&s);
}

/* Writes a set to memory: the program, /etc/services and a control file, in @order. */
static char *image(int order, size_t *len)
{
	struct ts_seal s;
	struct ts_err err;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	CU_ASSERT_FATAL(f != NULL);
	ts_seal_init(&s, root);
	if (order) {
		TSU_EQ(ts_seal_add_data(&s, "/.tasshape-vm/conf", 0644, "cwd=/\n", 6, &err), 0);
		TSU_EQ(ts_seal_add_path(&s, "/etc/services", NULL, 0, &err), 0);
		TSU_EQ(ts_seal_add_chr(&s, "dev/console", 5 << 8 | 1, &err), 0);
		TSU_EQ(ts_seal_add_elf(&s, "/usr/bin/tool", &err), 0);
	} else {
		TSU_EQ(ts_seal_add_elf(&s, "/usr/bin/tool", &err), 0);
		TSU_EQ(ts_seal_add_chr(&s, "dev/console", 5 << 8 | 1, &err), 0);
		TSU_EQ(ts_seal_add_path(&s, "/etc/services", NULL, 0, &err), 0);
		TSU_EQ(ts_seal_add_data(&s, "/.tasshape-vm/conf", 0644, "cwd=/\n", 6, &err), 0);
	}
	TSU_EQ(ts_seal_write(&s, f, &err), 0);
	fclose(f);
	ts_seal_free(&s);
	return buf;
}

static unsigned hexfield(const char *h, int i)
{
	char f[9];

	memcpy(f, h + 6 + 8 * i, 8);
	f[8] = '\0';
	return (unsigned)strtoul(f, NULL, 16);
}

static void test_seal_reproducible(void)
{
	static const char *const names[] = {".tasshape-vm",
					    ".tasshape-vm/conf",
					    "dev",
					    "dev/console",
					    "etc",
					    "etc/services",
					    "lib64",
					    "opt",
					    "opt/app",
					    "opt/app/bin",
					    "opt/app/bin/prog",
					    "opt/app/bin/tool",
					    "opt/app/lib",
					    "opt/app/lib/liba.so.1",
					    "usr",
					    "usr/bin",
					    "usr/lib",
					    "usr/lib/x86_64-linux-gnu",
					    "usr/lib/x86_64-linux-gnu/libb.so.1",
					    "usr/lib64",
					    "usr/lib64/ld-test.so.2",
					    "TRAILER!!!",
					    NULL};
	size_t la, lb, off = 0, i;
	char *a = image(0, &la), *b = image(1, &lb);

	TSU_EQ(la, lb);
	CU_ASSERT(la == lb && !memcmp(a, b, la));
	/* Entries in path order, inode numbers 1, 2, ... in that order, mtime, uid, gid 0. */
	for (i = 0; names[i] && off + 110 <= la; i++) {
		unsigned namesize = hexfield(a + off, 11), size = hexfield(a + off, 6);

		CU_ASSERT(!memcmp(a + off, "070701", 6));
		TSU_EQ(hexfield(a + off, 0), i + 1);
		TSU_EQ(hexfield(a + off, 2), 0); /* uid */
		TSU_EQ(hexfield(a + off, 3), 0); /* gid */
		TSU_EQ(hexfield(a + off, 5), 0); /* mtime */
		CU_ASSERT_STRING_EQUAL(a + off + 110, names[i]);
		off += (110 + namesize + 3) / 4 * 4;
		off += (size + 3) / 4 * 4;
	}
	TSU_EQ(names[i] == NULL, 1);
	TSU_EQ(off, la);
	free(b);
	/* One byte more in one file: another image. */
	put("/etc/services", "tcp 12\n", 7);
	b = image(0, &lb);
	CU_ASSERT(la != lb || memcmp(a, b, la));
	put("/etc/services", "tcp 1\n", 6);
	free(a);
	free(b);
}

static void test_seal_bounds(void)
{
	struct ts_seal s;
	struct ts_err err;

	ts_seal_init(&s, root);
	s.max = ELF_LEN + 1; /* the program fits, its library does not */
	TSU_EQ(ts_seal_add_elf(&s, "/usr/bin/tool", &err), -EFBIG);
	CU_ASSERT(strstr(err.msg, "would exceed") != NULL);
	ts_seal_free(&s);
	/* A data file cannot replace a packed one. */
	ts_seal_init(&s, root);
	TSU_EQ(ts_seal_add_path(&s, "/etc/services", NULL, 0, &err), 0);
	TSU_EQ(ts_seal_add_data(&s, "etc/services", 0644, "x", 1, &err), -EEXIST);
	/* A link is not a directory to put a file in. */
	TSU_EQ(ts_seal_add_path(&s, "/lib64", NULL, 0, &err), 0);
	TSU_EQ(ts_seal_add_data(&s, "lib64/x", 0644, "x", 1, &err), -EEXIST);
	ts_seal_free(&s);
}

static void test_seal_tree(void)
{
	make_tree();
	test_lib_find();
	test_seal_closure();
	test_seal_reproducible();
	test_seal_bounds();
	remove_tree();
}

static void test_cmdline_sealed(void)
{
	struct ts_err err;
	char buf[512];

	TSU_EQ(ts_vm_cmdline_sealed(buf, sizeof(buf), "/usr/local/bin/tasshape", "mitigations=off",
				    "tasshape.clock=virtual", &err),
	       0);
	CU_ASSERT_STRING_EQUAL(buf, "console=ttyS0 panic=-1 quiet loglevel=4 clocksource=tsc "
				    "tsc=reliable preempt=full rdinit=/usr/local/bin/tasshape "
				    "mitigations=off "
				    "tasshape.clock=virtual -- vm --guest-init");
	TSU_EQ(ts_vm_cmdline_sealed(buf, 40, "/usr/local/bin/tasshape", NULL, NULL, &err), -ENOSPC);
	TSU_EQ(ts_vm_cmdline_sealed(buf, sizeof(buf), "/a b/tasshape", NULL, NULL, &err), -EINVAL);
}

/* Time dilation's parameters: the TSC's and the APIC timer's rates, K x QEMU's 1e6 kHz. */
static void test_dilation_params(void)
{
	struct ts_err err;
	char buf[96];

	TSU_EQ(ts_vm_dilation_params(buf, sizeof(buf), 2000, &err), 0);
	CU_ASSERT_STRING_EQUAL(buf, "tsc_early_khz=2000000 lapic_bus_khz=2000000");
	TSU_EQ(ts_vm_dilation_params(buf, sizeof(buf), 1500, &err), 0);
	CU_ASSERT_STRING_EQUAL(buf, "tsc_early_khz=1500000 lapic_bus_khz=1500000");
	TSU_EQ(ts_vm_dilation_params(buf, sizeof(buf), 8000, &err), 0);
	CU_ASSERT_STRING_EQUAL(buf, "tsc_early_khz=8000000 lapic_bus_khz=8000000");
	TSU_EQ(ts_vm_dilation_params(buf, sizeof(buf), 1099, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "from 1.1 to 8"));
	TSU_EQ(ts_vm_dilation_params(buf, sizeof(buf), 8001, &err), -EINVAL);
	TSU_EQ(ts_vm_dilation_params(buf, sizeof(buf), 0, &err), -EINVAL);
	TSU_EQ(ts_vm_dilation_params(buf, 20, 2000, &err), -ENOSPC);
}

/* A sealed guest's QEMU: the control and output shares, no root and no cwd share. */
static void test_qemu_argv_sealed(void)
{
	struct ts_vm_plan p = {.qemu = "qemu",
			       .kernel = "/k",
			       .initrd = "/t/initrd.cpio",
			       .icount = true,
			       .cpus = 1,
			       .memory_mib = 1024,
			       .cmdline = "x",
			       .ctl = "/t/ctl",
			       .cwd = "/home/u",
			       .out = "/home/u/out",
			       .sock_out = "/t/o",
			       .sock_err = "/t/e",
			       .console = "/t/c",
			       .sealed = true};
	struct ts_vm_argv a = {0};
	size_t i, roots = 0, cwds = 0, ctls = 0, outs = 0;

	TSU_EQ(ts_vm_qemu_argv(&p, &a), 0);
	for (i = 0; i < a.n; i++) {
		roots += strstr(a.v[i], "mount_tag=" TS_VM_TAG_ROOT) != NULL;
		cwds += strstr(a.v[i], "mount_tag=" TS_VM_TAG_CWD) != NULL;
		ctls += strstr(a.v[i], "mount_tag=" TS_VM_TAG_CTL) != NULL;
		outs += strstr(a.v[i], "mount_tag=" TS_VM_TAG_OUT) != NULL;
	}
	TSU_EQ(roots, 0);
	TSU_EQ(cwds, 0);
	TSU_EQ(ctls, 1);
	TSU_EQ(outs, 1);
	ts_vm_argv_free(&a);
	p.sealed = false;
	TSU_EQ(ts_vm_qemu_argv(&p, &a), 0);
	for (i = roots = 0; i < a.n; i++)
		roots += strstr(a.v[i], "mount_tag=" TS_VM_TAG_ROOT) != NULL;
	TSU_EQ(roots, 1);
	ts_vm_argv_free(&a);
}

/* Soft dependencies, "pre:" and "post:" alike, each with the modules its exact alias names. */
static void test_softdeps(void)
{
	static const char softdep[] = "# Soft dependencies\n"
				      "softdep ext4 pre: crypto-crc32c\n"
				      "softdep libcrc32c pre: crc32c\n"
				      "softdep libcrc32cx pre: nope\n"
				      "softdep vfio post: vfio_iommu_type1 vfio_iommu_spapr_tce\n"
				      "softdep cifs gcm\n";
	static const char alias[] = "alias crypto-crc32c crc32c_intel\n"
				    "alias crc32c crc32c_intel\n"
				    "alias crc32c-x crc32c_x\n"
				    "alias crc32c crc32c_generic\n";
	char out[4][64];
	size_t n;

	n = ts_vm_softdeps(softdep, alias, "libcrc32c", out, 0, 4);
	TSU_EQ(n, 3);
	CU_ASSERT_STRING_EQUAL(out[0], "crc32c");
	CU_ASSERT_STRING_EQUAL(out[1], "crc32c_intel");
	CU_ASSERT_STRING_EQUAL(out[2], "crc32c_generic");
	/* Each once; appended; bounded by max. */
	n = ts_vm_softdeps(softdep, alias, "ext4", out, n, 4);
	TSU_EQ(n, 4);
	CU_ASSERT_STRING_EQUAL(out[3], "crypto-crc32c");
	TSU_EQ(ts_vm_softdeps(softdep, NULL, "vfio", out, 0, 4), 2);
	CU_ASSERT_STRING_EQUAL(out[0], "vfio_iommu_type1");
	CU_ASSERT_STRING_EQUAL(out[1], "vfio_iommu_spapr_tce");
	TSU_EQ(ts_vm_softdeps(softdep, alias, "cifs", out, 0, 4), 1);
	CU_ASSERT_STRING_EQUAL(out[0], "gcm");
	TSU_EQ(ts_vm_softdeps(softdep, alias, "veth", out, 0, 4), 0);
	TSU_EQ(ts_vm_softdeps(NULL, alias, "veth", out, 0, 4), 0);
}

static const struct tsu_test tests[] = {
	{"module soft dependencies and their aliases", test_softdeps},
	{"ELF headers: interpreter, needed libraries, run path, bounds", test_elf_parse},
	{"made-up tree: libraries, links, closure, reproducible archive, bounds", test_seal_tree},
	{"sealed kernel command line", test_cmdline_sealed},
	{"time dilation's kernel parameters", test_dilation_params},
	{"sealed QEMU arguments: no root or cwd share", test_qemu_argv_sealed},
};

TSU_MAIN("seal", tests)
