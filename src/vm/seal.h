/* SPDX-License-Identifier: MIT */
/*
 * The file set of a sealed guest: every file a run executes or reads,
 * gathered from the host at its own path (symbolic links packed as links,
 * component by component, so /bin -> usr/bin and /etc/alternatives chains
 * work in the guest as on the host), with the shared libraries of each
 * program, and written as one initramfs. The archive is reproducible:
 * entries sorted by path, inode numbers in that order, mtime 0, uid and
 * gid 0, so the same files give the same bytes (a different image would
 * be a different guest: docs/kernels.md, "What breaks determinism").
 * Files are read under a root directory prefix: "" on the host, a made-up
 * tree in the unit tests. Every file and the whole set are bounded.
 */
#ifndef TS_VM_SEAL_H
#define TS_VM_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tasshape/err.h"

#define TS_SEAL_FILE_MAX    (128u << 20) /* one file: libcrypto is 4.5 MiB, a module < 10 */
#define TS_SEAL_MAX	    (384u << 20) /* the archive; the guest holds it twice in 1 GiB */
#define TS_SEAL_ENTRIES_MAX 8192u

enum ts_seal_kind { TS_SEAL_DIR, TS_SEAL_LINK, TS_SEAL_FILE, TS_SEAL_DATA, TS_SEAL_CHR };

struct ts_seal_entry {
	char *path; /* in the image, without the leading '/' */
	enum ts_seal_kind kind;
	uint32_t mode; /* permission bits */
	char *src;     /* TS_SEAL_FILE: the host file (under the root prefix) */
	char *data;    /* TS_SEAL_LINK: the target; TS_SEAL_DATA: the contents */
	uint64_t len;  /* TS_SEAL_FILE and TS_SEAL_DATA: size in bytes */
	uint32_t rdev; /* TS_SEAL_CHR: major << 8 | minor */
	bool elf_done; /* TS_SEAL_FILE: its libraries were added */
};

struct ts_seal {
	char root[4096];
	struct ts_seal_entry *e;
	size_t n, cap;
	uint64_t bytes; /* of file contents so far */
	uint64_t max;	/* TS_SEAL_MAX unless a test sets less */
};

/* An empty set reading host files under @root ("" for /). */
void ts_seal_init(struct ts_seal *s, const char *root);
void ts_seal_free(struct ts_seal *s);

/*
 * ts_seal_add_path - the host's absolute @path at the same path: each
 * directory on the way, each symbolic link met (as a link, then its
 * target), and the file or directory it ends in (a directory alone,
 * without its contents). The resolved path is written to @real (may be
 * NULL). Returns 0, or -ENOENT (missing), -ELOOP, -EINVAL (not absolute,
 * or a device, socket or FIFO), -EFBIG (a file over TS_SEAL_FILE_MAX or
 * the set over its bound), -E2BIG (more than TS_SEAL_ENTRIES_MAX entries)
 * or -ENOMEM, with @err naming the path and the bound.
 */
int ts_seal_add_path(struct ts_seal *s, const char *path, char *real, size_t reallen,
		     struct ts_err *err);

/*
 * ts_seal_add_elf - ts_seal_add_path, then, when @path is a dynamic ELF
 * file, its interpreter and every library it needs, recursively, found as
 * the loader finds them (elfdeps.h). A file that is not ELF (a script) is
 * packed alone. Returns as ts_seal_add_path, or -ENOENT with @err naming
 * the program and the library no directory holds.
 */
int ts_seal_add_elf(struct ts_seal *s, const char *path, struct ts_err *err);

/*
 * ts_seal_add_file_as - host file @src at path @dst of the image (its
 * missing parents as directories, mode 0755). Returns as ts_seal_add_path,
 * or -EEXIST when @dst or a parent is already something else.
 */
int ts_seal_add_file_as(struct ts_seal *s, const char *dst, const char *src, struct ts_err *err);

/* ts_seal_add_data - @len bytes of @data as the file @dst (mode @mode). As above. */
int ts_seal_add_data(struct ts_seal *s, const char *dst, uint32_t mode, const void *data,
		     size_t len, struct ts_err *err);

/* ts_seal_add_chr - a character device node @dst (@rdev: major << 8 | minor), mode 0600. */
int ts_seal_add_chr(struct ts_seal *s, const char *dst, uint32_t rdev, struct ts_err *err);

/*
 * ts_seal_write - the set as a cpio newc archive to @f, entries in path
 * order (a directory before what it holds). A file whose size changed
 * since it was added is an error (-EIO). Returns 0 or a negative errno
 * with @err set.
 */
int ts_seal_write(struct ts_seal *s, FILE *f, struct ts_err *err);

#endif
