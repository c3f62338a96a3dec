/* SPDX-License-Identifier: MIT */
/*
 * The kernel inside a bzImage, booted without its decompressor (PVH).
 *
 * A bzImage under TCG spends most of its boot before the kernel runs:
 * SeaBIOS, then the image's own decompressor, which in virtual time
 * executes billions of instructions (Debian's xz-compressed 6.1: 8.9 of
 * the 21 wall seconds to its first console line, docs/kernels.md). QEMU
 * boots an uncompressed vmlinux directly at its PVH entry
 * (XEN_ELFNOTE_PHYS32_ENTRY) when the kernel was built with CONFIG_PVH, as
 * Debian's are. So the host takes the payload out of the bzImage (its
 * setup header says where), decompresses it with the tool its magic
 * names, as the user QEMU runs as (it parses bytes anyone may have
 * written), and boots that when it carries the PVH note.
 */
#ifndef TS_VM_VMLINUX_H
#define TS_VM_VMLINUX_H

#include <stdbool.h>
#include <stddef.h>

#include "tasshape/err.h"

struct ts_vm_user;

/* Where a bzImage's compressed kernel lies, and the program that decompresses it. */
struct ts_vm_payload {
	size_t off, len;  /* within the image; len without the size the kernel's build appends */
	const char *tool; /* "gzip", "xz", "zstd", "lz4", "lzma" or "bzip2" */
};

/*
 * ts_vm_bzimage_payload - the compressed kernel of bzImage @img (@len
 * bytes): the setup header's payload_offset and payload_length (boot
 * protocol 2.08 or later), its format from its first bytes. The kernel's
 * build appends the uncompressed size (4 bytes) to every format but gzip:
 * left out of @p->len. Pure. Returns 0, or -EINVAL (no such header, out of
 * the image) or -ENOTSUP (a format not listed).
 */
int ts_vm_bzimage_payload(const unsigned char *img, size_t len, struct ts_vm_payload *p);

/*
 * ts_vm_elf_pvh - true when @elf (@len bytes) is a 64-bit little-endian
 * x86-64 ELF executable whose PT_NOTE segments hold a "Xen" note of type
 * XEN_ELFNOTE_PHYS32_ENTRY (18), QEMU's sign that it can enter it at PVH.
 * Every offset is checked against @len. Pure.
 */
bool ts_vm_elf_pvh(const unsigned char *elf, size_t len);

/*
 * ts_vm_vmlinux - the kernel of bzImage @img (@len bytes) decompressed
 * into a malloc'ed *@out (*@outlen bytes), by its format's tool run as
 * @as (NULL: this process) with the payload as its stdin. Returns 1 when
 * it is an ELF with a PVH entry, 0 when it is not or cannot be had (why in
 * @why, and *@out NULL: the bzImage is booted as before), or -ENOMEM.
 */
int ts_vm_vmlinux(const unsigned char *img, size_t len, const struct ts_vm_user *as, char **out,
		  size_t *outlen, char *why, size_t whylen);

#endif
