/* SPDX-License-Identifier: MIT */
/*
 * What the dynamic loader needs to start a program, read from its ELF file
 * the way ld.so reads it: the program interpreter (PT_INTERP), the
 * libraries named by DT_NEEDED and the directories of DT_RUNPATH (or the
 * older DT_RPATH), found through PT_DYNAMIC and the PT_LOAD segments that
 * map DT_STRTAB's address, not through section headers (a stripped file
 * may have none). Used to pack a sealed guest's shared libraries without
 * running ldd, which would execute the loader on each file (docs/kernels.md).
 */
#ifndef TS_VM_ELFDEPS_H
#define TS_VM_ELFDEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "tasshape/err.h"

#define TS_ELF_MAX_NEEDED 64

struct ts_elf_deps {
	bool dynamic;	    /* has PT_DYNAMIC (else: static, nothing to resolve) */
	char interp[256];   /* PT_INTERP, "" when none */
	char runpath[1024]; /* DT_RUNPATH, else DT_RPATH, "" when none */
	size_t nneeded;
	char needed[TS_ELF_MAX_NEEDED][128];
};

/*
 * ts_elf_deps_parse - read @img (@len bytes of a 64-bit little-endian ELF
 * file) into @d. Every offset and size is checked against @len. Returns 0,
 * or -ENOEXEC (not a 64-bit ELF) or -EINVAL (a header or table out of the
 * file, a string too long, more than TS_ELF_MAX_NEEDED libraries) with
 * @err saying which.
 */
int ts_elf_deps_parse(const unsigned char *img, size_t len, struct ts_elf_deps *d,
		      struct ts_err *err);

/*
 * ts_elf_lib_find - where the loader finds library @name needed by an object
 * in directory @origin with run path @runpath: a name with a '/' is itself;
 * else each directory of @runpath ($ORIGIN replaced by @origin), then the
 * directories of ts_elf_lib_dirs in order, the first holding a readable
 * file of that name. Files are looked up under @root ("" for the host's
 * /, a made-up tree in tests); the path written to @out is the guest's
 * (without @root). Returns 0, -ENOENT or -ENAMETOOLONG.
 */
int ts_elf_lib_find(const char *root, const char *name, const char *runpath, const char *origin,
		    char *out, size_t len);

/*
 * The loader's default directories as Debian's ld.so.conf lists them
 * (multiarch first) followed by its built-in ones. ld.so.cache is not read:
 * it is built from these same directories here.
 */
extern const char *const ts_elf_lib_dirs[];

#endif
