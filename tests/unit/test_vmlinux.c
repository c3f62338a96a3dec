/* SPDX-License-Identifier: MIT */
/*
 * The kernel inside a bzImage (src/vm/vmlinux.c), on made-up images: where
 * the setup header puts the payload (its offset counts from the end of the
 * setup sectors), which formats lose the 4-byte size the kernel's build
 * appends, what is refused; and an ELF's PVH note found, or not, with every
 * offset bounded.
 */
#include <errno.h>
#include <string.h>

#include "tsu.h"
#include "vm/vmlinux.h"

static unsigned char img[4096];

static void put32(unsigned char *p, unsigned v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8 & 0xff;
	p[2] = v >> 16 & 0xff;
	p[3] = v >> 24 & 0xff;
}

/* A bzImage header: @setup setup sectors, protocol @ver, payload at @off (@len bytes). */
static void make_bz(unsigned setup, unsigned ver, unsigned off, unsigned len)
{
	memset(img, 0, sizeof(img));
	img[0x1f1] = (unsigned char)setup;
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = ver & 0xff;
	img[0x207] = ver >> 8;
	put32(img + 0x248, off);
	put32(img + 0x24c, len);
}

static void test_payload_xz(void)
{
	struct ts_vm_payload p;

	/* 3 setup sectors: the protected-mode code starts at 4 x 512 = 2048; payload at +0x100. */
	make_bz(3, 0x20f, 0x100, 1000);
	memcpy(img + 2048 + 0x100,
	       "\xfd"
	       "7zXZ\0",
	       6);
	TSU_EQ(ts_vm_bzimage_payload(img, sizeof(img), &p), 0);
	TSU_EQ(p.off, 2304);
	TSU_EQ(p.len, 996); /* the appended size left out */
	CU_ASSERT_STRING_EQUAL(p.tool, "xz");
}

static void test_payload_gzip(void)
{
	struct ts_vm_payload p;

	/* setup_sects 0 means 4: code at 5 x 512 = 2560. gzip carries its own size. */
	make_bz(0, 0x208, 16, 100);
	img[2560 + 16] = 0x1f;
	img[2560 + 17] = 0x8b;
	TSU_EQ(ts_vm_bzimage_payload(img, sizeof(img), &p), 0);
	TSU_EQ(p.off, 2576);
	TSU_EQ(p.len, 100);
	CU_ASSERT_STRING_EQUAL(p.tool, "gzip");
}

static void test_payload_refused(void)
{
	struct ts_vm_payload p;

	/* Protocol 2.07 has no payload fields. */
	make_bz(3, 0x207, 0x100, 1000);
	TSU_EQ(ts_vm_bzimage_payload(img, sizeof(img), &p), -EINVAL);
	/* No "HdrS". */
	make_bz(3, 0x20f, 0x100, 1000);
	img[0x202] = 'X';
	TSU_EQ(ts_vm_bzimage_payload(img, sizeof(img), &p), -EINVAL);
	/* Past the image's end: 2304 + 1793 > 4096. */
	make_bz(3, 0x20f, 0x100, 1793);
	TSU_EQ(ts_vm_bzimage_payload(img, sizeof(img), &p), -EINVAL);
	/* An offset past the end, and a 32-bit length that would wrap a sum. */
	make_bz(3, 0x20f, 0xffffff00u, 16);
	TSU_EQ(ts_vm_bzimage_payload(img, sizeof(img), &p), -EINVAL);
	make_bz(3, 0x20f, 0x100, 0xffffffffu);
	TSU_EQ(ts_vm_bzimage_payload(img, sizeof(img), &p), -EINVAL);
	/* lzo (lzop) is not among the formats. */
	make_bz(3, 0x20f, 0x100, 1000);
	memcpy(img + 2304, "\x89LZO", 4);
	TSU_EQ(ts_vm_bzimage_payload(img, sizeof(img), &p), -ENOTSUP);
	/* Too short for a header. */
	TSU_EQ(ts_vm_bzimage_payload(img, 0x24f, &p), -EINVAL);
}

static unsigned char elf[512];

static void put64(unsigned char *p, unsigned long long v)
{
	put32(p, (unsigned)v);
	put32(p + 4, (unsigned)(v >> 32));
}

/*
 * A 64-bit x86-64 executable, one program header at 64 (PT_NOTE, at 200, @n bytes): a note
 * "GNU" of type 3 (4-byte desc), then "Xen" of type @type (4-byte desc).
 */
static void make_elf(unsigned type, unsigned n)
{
	unsigned char *no = elf + 200;

	memset(elf, 0, sizeof(elf));
	memcpy(elf, "\177ELF", 4);
	elf[4] = 2;	     /* 64-bit */
	elf[5] = 1;	     /* little-endian */
	elf[16] = 2;	     /* ET_EXEC */
	elf[18] = 62;	     /* EM_X86_64 */
	put64(elf + 32, 64); /* e_phoff */
	elf[54] = 56;	     /* e_phentsize */
	elf[56] = 1;	     /* e_phnum */
	put32(elf + 64, 4);  /* p_type: PT_NOTE */
	put64(elf + 64 + 8, 200);
	put64(elf + 64 + 32, n);
	put32(no, 4);
	put32(no + 4, 4);
	put32(no + 8, 3);
	memcpy(no + 12, "GNU", 4);
	put32(no + 20, 4);
	put32(no + 24, 4);
	put32(no + 28, type);
	memcpy(no + 32, "Xen", 4);
}

static void test_elf_pvh(void)
{
	/* Two notes of 20 bytes each. */
	make_elf(18, 40);
	CU_ASSERT_TRUE(ts_vm_elf_pvh(elf, sizeof(elf)));
	/* Xen's entry point of another kind (17: XEN_ELFNOTE_SUPPORTED_FEATURES): no. */
	make_elf(17, 40);
	CU_ASSERT_FALSE(ts_vm_elf_pvh(elf, sizeof(elf)));
	/* The segment ends before the Xen note's descriptor: not read past it. */
	make_elf(18, 36);
	CU_ASSERT_FALSE(ts_vm_elf_pvh(elf, sizeof(elf)));
	/* The segment runs past the file. */
	make_elf(18, 400);
	CU_ASSERT_FALSE(ts_vm_elf_pvh(elf, sizeof(elf)));
	/* A note whose name size would step past the segment. */
	make_elf(18, 40);
	put32(elf + 200, 0xfffffff0u);
	CU_ASSERT_FALSE(ts_vm_elf_pvh(elf, sizeof(elf)));
	/* A 32-bit ELF, and another machine. */
	make_elf(18, 40);
	elf[4] = 1;
	CU_ASSERT_FALSE(ts_vm_elf_pvh(elf, sizeof(elf)));
	make_elf(18, 40);
	elf[18] = 183; /* EM_AARCH64 */
	CU_ASSERT_FALSE(ts_vm_elf_pvh(elf, sizeof(elf)));
	/* Program headers that would run past the file. */
	make_elf(18, 40);
	elf[56] = 200;
	CU_ASSERT_FALSE(ts_vm_elf_pvh(elf, sizeof(elf)));
	/* A bzImage is not an ELF. */
	make_bz(3, 0x20f, 0x100, 1000);
	CU_ASSERT_FALSE(ts_vm_elf_pvh(img, sizeof(img)));
}

static const struct tsu_test tests[] = {
	{"an xz payload: its offset past the setup sectors, without the appended size",
	 test_payload_xz},
	{"a gzip payload: setup_sects 0 is 4, the whole length", test_payload_gzip},
	{"old protocols, bad offsets and lengths, unknown formats refused", test_payload_refused},
	{"the PVH note found; other notes and bad offsets not", test_elf_pvh},
};

TSU_MAIN("vmlinux", tests)
