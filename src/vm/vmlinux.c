/* SPDX-License-Identifier: MIT */
/* The kernel inside a bzImage, for a PVH boot (vmlinux.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/capture.h"
#include "vm/vmlinux.h"

/* The formats a kernel's build compresses with (arch/x86/boot/compressed/Makefile). */
static const struct format {
	const char *name;
	unsigned char magic[6];
	size_t mlen;
	bool sized; /* the build appends the uncompressed size: scripts/Makefile.lib's *_with_size */
	const char *argv[4];
} formats[] = {
	{"gzip", {0x1f, 0x8b}, 2, false, {"gzip", "-dc", NULL, NULL}},
	{"xz", {0xfd, '7', 'z', 'X', 'Z', 0}, 6, true, {"xz", "-dc", NULL, NULL}},
	{"zstd", {0x28, 0xb5, 0x2f, 0xfd}, 4, true, {"zstd", "-dc", NULL, NULL}},
	{"lz4", {0x02, 0x21, 0x4c, 0x18}, 4, true, {"lz4", "-dc", NULL, NULL}},
	{"lzma", {0x5d, 0, 0}, 3, true, {"xz", "-dc", "--format=lzma", NULL}},
	{"bzip2", {'B', 'Z', 'h'}, 3, true, {"bzip2", "-dc", NULL, NULL}},
};

#define NFORMATS		 (sizeof(formats) / sizeof(formats[0]))
#define PT_NOTE_		 4
#define XEN_ELFNOTE_PHYS32_ENTRY 18

static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

int ts_vm_bzimage_payload(const unsigned char *img, size_t len, struct ts_vm_payload *p)
{
	size_t setup, off, plen, i;

	/* Boot protocol 2.08 (payload_offset, payload_length) or later: "HdrS" at 0x202. */
	if (len < 0x250 || memcmp(img + 0x202, "HdrS", 4) || le(img + 0x206, 2) < 0x208)
		return -EINVAL;
	setup = img[0x1f1] ? img[0x1f1] : 4;
	off = (setup + 1) * 512 + le(img + 0x248, 4);
	plen = le(img + 0x24c, 4);
	if (off >= len || plen > len - off || plen < 8)
		return -EINVAL;
	for (i = 0; i < NFORMATS; i++) {
		if (memcmp(img + off, formats[i].magic, formats[i].mlen))
			continue;
		p->off = off;
		p->len = formats[i].sized ? plen - 4 : plen;
		p->tool = formats[i].name;
		return 0;
	}
	return -ENOTSUP;
}

/* The note segment at @off (@n bytes) of @elf holds Xen's PVH entry. */
static bool note_pvh(const unsigned char *elf, size_t off, size_t n)
{
	size_t at = 0;

	while (n - at >= 12) {
		uint64_t namesz = le(elf + off + at, 4), descsz = le(elf + off + at + 4, 4);
		uint64_t type = le(elf + off + at + 8, 4);
		uint64_t step = 12 + ((namesz + 3) & ~3ull) + ((descsz + 3) & ~3ull);

		if (step > n - at)
			return false;
		if (namesz == 4 && !memcmp(elf + off + at + 12, "Xen", 4) &&
		    type == XEN_ELFNOTE_PHYS32_ENTRY)
			return true;
		at += step;
	}
	return false;
}

bool ts_vm_elf_pvh(const unsigned char *elf, size_t len)
{
	uint64_t phoff, i;
	unsigned phentsize, phnum;

	/* 64-bit, little-endian, an executable, x86-64. */
	if (len < 64 || memcmp(elf, "\177ELF", 4) || elf[4] != 2 || elf[5] != 1 ||
	    le(elf + 16, 2) != 2 || le(elf + 18, 2) != 62)
		return false;
	phoff = le(elf + 32, 8);
	phentsize = (unsigned)le(elf + 54, 2);
	phnum = (unsigned)le(elf + 56, 2);
	if (phentsize < 56 || phoff > len || (uint64_t)phnum * phentsize > len - phoff)
		return false;
	for (i = 0; i < phnum; i++) {
		const unsigned char *ph = elf + phoff + i * phentsize;
		uint64_t off = le(ph + 8, 8), n = le(ph + 32, 8);

		if (le(ph, 4) == PT_NOTE_ && off <= len && n <= len - off &&
		    note_pvh(elf, (size_t)off, (size_t)n))
			return true;
	}
	return false;
}

static const struct format *format_of(const char *name)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

int ts_vm_vmlinux(const unsigned char *img, size_t len, const struct ts_vm_user *as, char **out,
		  size_t *outlen, char *why, size_t whylen)
{
	struct ts_vm_payload p;
	const struct format *f;
	struct ts_err e;
	int ret;

	*out = NULL;
	*outlen = 0;
	ret = ts_vm_bzimage_payload(img, len, &p);
	if (ret < 0) {
		snprintf(why, whylen, "%s",
			 ret == -ENOTSUP ? "its kernel's compression is not one known"
					 : "no payload in its setup header");
		return 0;
	}
	f = format_of(p.tool);
	ret = ts_vm_capture_data((char *const *)f->argv, img + p.off, p.len, as, out, outlen, &e);
	if (ret != 0) {
		free(*out);
		*out = NULL;
		if (ret == -ENOMEM)
			return ret;
		if (ret > 0)
			snprintf(why, whylen, "%s -dc failed (exit %d)", f->argv[0], ret);
		else
			snprintf(why, whylen, "%s", e.msg);
		return 0;
	}
	if (!ts_vm_elf_pvh((const unsigned char *)*out, *outlen)) {
		free(*out);
		*out = NULL;
		snprintf(why, whylen, "its kernel has no PVH entry (CONFIG_PVH)");
		return 0;
	}
	return 1;
}
