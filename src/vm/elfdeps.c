/* SPDX-License-Identifier: MIT */
/* Dynamic dependencies of an ELF file, as the loader finds them (elfdeps.h). */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/elfdeps.h"

const char *const ts_elf_lib_dirs[] = {"/usr/local/lib/x86_64-linux-gnu",
				       "/lib/x86_64-linux-gnu",
				       "/usr/lib/x86_64-linux-gnu",
				       "/usr/local/lib",
				       "/lib64",
				       "/usr/lib64",
				       "/lib",
				       "/usr/lib",
				       NULL};

/* Is [off, off + n) inside a file of @len bytes? */
static bool in_file(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

/* The file offset of virtual address @va through the PT_LOAD headers, or UINT64_MAX. */
static uint64_t va_to_off(const unsigned char *img, const Elf64_Ehdr *eh, uint64_t va)
{
	size_t i;

	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && va >= ph.p_vaddr && va - ph.p_vaddr < ph.p_filesz)
			return ph.p_offset + (va - ph.p_vaddr);
	}
	return UINT64_MAX;
}

/* Copies the NUL-terminated string at @off (bounded by @end) into @out. */
static int get_str(const unsigned char *img, uint64_t off, uint64_t end, char *out, size_t outlen)
{
	size_t n;

	if (off >= end)
		return -EINVAL;
	n = strnlen((const char *)img + off, (size_t)(end - off));
	if (n == end - off || n >= outlen)
		return -EINVAL;
	memcpy(out, img + off, n + 1);
	return 0;
}

static int parse_dynamic(const unsigned char *img, size_t len, const Elf64_Ehdr *eh,
			 const Elf64_Phdr *dyn, struct ts_elf_deps *d, struct ts_err *err)
{
	uint64_t strtab = UINT64_MAX, strsz = 0, n = dyn->p_filesz / sizeof(Elf64_Dyn), i;
	uint64_t runpath = UINT64_MAX, rpath = UINT64_MAX, soff;
	int ret = 0;

	if (!in_file(dyn->p_offset, dyn->p_filesz, len)) {
		ts_err_set(err, "PT_DYNAMIC lies outside the file");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		Elf64_Dyn e;

		memcpy(&e, img + dyn->p_offset + i * sizeof(e), sizeof(e));
		if (e.d_tag == DT_NULL)
			break;
		if (e.d_tag == DT_STRTAB)
			strtab = e.d_un.d_ptr;
		else if (e.d_tag == DT_STRSZ)
			strsz = e.d_un.d_val;
		else if (e.d_tag == DT_RUNPATH)
			runpath = e.d_un.d_val;
		else if (e.d_tag == DT_RPATH)
			rpath = e.d_un.d_val;
	}
	soff = strtab == UINT64_MAX ? UINT64_MAX : va_to_off(img, eh, strtab);
	if (soff == UINT64_MAX || !in_file(soff, strsz, len)) {
		ts_err_set(err, "DT_STRTAB is not mapped by a PT_LOAD segment inside the file");
		return -EINVAL;
	}
	if (runpath == UINT64_MAX)
		runpath = rpath;
	if (runpath != UINT64_MAX &&
	    get_str(img, soff + runpath, soff + strsz, d->runpath, sizeof(d->runpath)) < 0) {
		ts_err_set(err, "DT_RUNPATH: not a string of at most %zu bytes in DT_STRTAB",
			   sizeof(d->runpath) - 1);
		return -EINVAL;
	}
	for (i = 0; i < n && !ret; i++) {
		Elf64_Dyn e;

		memcpy(&e, img + dyn->p_offset + i * sizeof(e), sizeof(e));
		if (e.d_tag == DT_NULL)
			break;
		if (e.d_tag != DT_NEEDED)
			continue;
		if (d->nneeded == TS_ELF_MAX_NEEDED) {
			ts_err_set(err, "more than %d DT_NEEDED libraries", TS_ELF_MAX_NEEDED);
			return -EINVAL;
		}
		if (get_str(img, soff + e.d_un.d_val, soff + strsz, d->needed[d->nneeded],
			    sizeof(d->needed[0])) < 0) {
			ts_err_set(err, "DT_NEEDED: not a string of at most %zu bytes in DT_STRTAB",
				   sizeof(d->needed[0]) - 1);
			return -EINVAL;
		}
		d->nneeded++;
	}
	return ret;
}

int ts_elf_deps_parse(const unsigned char *img, size_t len, struct ts_elf_deps *d,
		      struct ts_err *err)
{
	Elf64_Ehdr eh;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (len < sizeof(eh) || memcmp(img, ELFMAG, SELFMAG) || img[EI_CLASS] != ELFCLASS64 ||
	    img[EI_DATA] != ELFDATA2LSB) {
		ts_err_set(err, "not a 64-bit little-endian ELF file");
		return -ENOEXEC;
	}
	memcpy(&eh, img, sizeof(eh));
	if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_file(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), len)) {
		ts_err_set(err, "program headers outside the file");
		return -EINVAL;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		int ret;

		memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_INTERP) {
			if (!in_file(ph.p_offset, ph.p_filesz, len) ||
			    get_str(img, ph.p_offset, ph.p_offset + ph.p_filesz, d->interp,
				    sizeof(d->interp)) < 0) {
				ts_err_set(err, "PT_INTERP: not a string inside the file");
				return -EINVAL;
			}
		} else if (ph.p_type == PT_DYNAMIC) {
			d->dynamic = true;
			ret = parse_dynamic(img, len, &eh, &ph, d, err);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* Is @root@dir/@name a readable regular file? Writes @dir/@name to @out. */
static int try_dir(const char *root, const char *dir, size_t dlen, const char *name, char *out,
		   size_t len)
{
	char host[8192];
	struct stat st;
	int n;

	n = snprintf(out, len, "%.*s/%s", (int)dlen, dir, name);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	n = snprintf(host, sizeof(host), "%s%s", root, out);
	if (n < 0 || (size_t)n >= sizeof(host))
		return -ENAMETOOLONG;
	if (stat(host, &st) == 0 && S_ISREG(st.st_mode) && access(host, R_OK) == 0)
		return 0;
	return -ENOENT;
}

int ts_elf_lib_find(const char *root, const char *name, const char *runpath, const char *origin,
		    char *out, size_t len)
{
	const char *p = runpath;
	size_t i;

	if (strchr(name, '/')) {
		if ((size_t)snprintf(out, len, "%s", name) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char dir[4096];

		/* $ORIGIN (or ${ORIGIN}) at the start: the directory of the object itself. */
		if (!strncmp(p, "$ORIGIN", 7) || !strncmp(p, "${ORIGIN}", 9)) {
			size_t skip = p[1] == '{' ? 9 : 7;
			int k = snprintf(dir, sizeof(dir), "%s%.*s", origin, (int)(n - skip),
					 p + skip);

			if (k > 0 && (size_t)k < sizeof(dir) &&
			    try_dir(root, dir, (size_t)k, name, out, len) == 0)
				return 0;
		} else if (n && try_dir(root, p, n, name, out, len) == 0) {
			return 0;
		}
		p = end ? end + 1 : NULL;
	}
	for (i = 0; ts_elf_lib_dirs[i]; i++)
		if (try_dir(root, ts_elf_lib_dirs[i], strlen(ts_elf_lib_dirs[i]), name, out, len) ==
		    0)
			return 0;
	return -ENOENT;
}
