/* SPDX-License-Identifier: MIT */
/*
 * Builds the small initramfs a modular kernel (Debian's, for one) needs
 * before it can mount the host's root over 9p: the modules come from the
 * kernel's own modules directory, the shell from Debian's busybox-static.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/cpio.h"
#include "vm/initramfs.h"
#include "vm/plan.h"
#include "vm/capture.h"
#include "vm/moddir.h"
#include "io/infile.h"
#include "io/outfile.h"

static const char *const busybox_paths[] = {"/bin/busybox", "/usr/bin/busybox",
					    "/usr/lib/initramfs-tools/bin/busybox"};

/* A static ELF has no PT_INTERP program header. */
static bool elf_is_static(const char *img, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	size_t i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return false;
	for (i = 0; i < eh->e_phnum; i++) {
		size_t off = eh->e_phoff + i * eh->e_phentsize;
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + off);

		if (off + sizeof(*ph) > len)
			return false;
		if (ph->p_type == PT_INTERP)
			return false;
	}
	return true;
}

static int load_busybox(char **img, size_t *len, struct ts_err *err)
{
	size_t i;

	for (i = 0; i < sizeof(busybox_paths) / sizeof(busybox_paths[0]); i++) {
		struct ts_err e;

		if (ts_in_read(busybox_paths[i], TS_VM_MODULE_MAX, img, len, &e) < 0)
			continue;
		if (elf_is_static(*img, *len))
			return 0;
		free(*img);
	}
	ts_err_set(err, "this kernel needs an initramfs (9p, virtio or overlay are modules) and "
			"that needs a static busybox: apt-get install busybox-static");
	return -ENOENT;
}

/*
 * A module's bytes, file @rel of the modules directory @dirfd (@dir), decompressed with xz,
 * zstd or gzip when its name says so: the file is opened here (beneath the directory, a regular
 * file) and given as stdin to the decompressor, which never opens a name itself and runs as
 * @as, the user QEMU runs as (it parses bytes anyone may have written).
 */
static int load_module(int dirfd, const char *dir, const char *rel, const struct ts_vm_user *as,
		       char **img, size_t *len, struct ts_err *err)
{
	const char *tool = NULL;
	int fd, ret;

	if (strstr(rel, ".ko.xz"))
		tool = "xz";
	else if (strstr(rel, ".ko.zst"))
		tool = "zstd";
	else if (strstr(rel, ".ko.gz"))
		tool = "gzip";
	if (!tool)
		return ts_vm_moddir_read(dirfd, dir, rel, TS_VM_MODULE_MAX, img, len, err);
	fd = ts_vm_moddir_file(dirfd, dir, rel, err);
	if (fd < 0)
		return fd;
	{
		char *argv[] = {(char *)tool, (char *)"-dc", NULL};

		ret = ts_vm_capture(argv, NULL, fd, 0, as, img, len, err);
		if (ret > 0) {
			free(*img);
			ts_err_set(err, "%s -dc <%s/%s failed (exit %d)", tool, dir, rel, ret);
			ret = -EIO;
		}
	}
	close(fd);
	return ret;
}

/* modules.dep (required) and modules.builtin (NULL when absent) of @dirfd (@dir). */
static int read_indexes(int dirfd, const char *dir, char **dep, char **builtin, struct ts_err *err)
{
	struct ts_err e;
	size_t len;
	int ret;

	ret = ts_vm_moddir_read(dirfd, dir, "modules.dep", TS_VM_MODINDEX_MAX, dep, &len, err);
	if (ret == -ENOENT)
		ts_err_set(err,
			   "%s/modules.dep: %s (run depmod -b on the tree that holds lib/modules)",
			   dir, strerror(-ret));
	if (ret < 0)
		return ret;
	ret = ts_vm_moddir_read(dirfd, dir, "modules.builtin", TS_VM_MODINDEX_MAX, builtin, &len,
				&e);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		*err = e;
	return ret;
}

/* The initramfs's directories, console, busybox and /init. */
static void add_skeleton(struct ts_cpio *c, const char *bb, size_t bblen, const char *script)
{
	static const char *const dirs[] = {"bin", "dev", "proc", "newroot", "lib", "lib/modules"};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		ts_cpio_add(c, dirs[i], S_IFDIR | 0755, 0, NULL, 0);
	ts_cpio_add(c, "dev/console", S_IFCHR | 0600, 5 << 8 | 1, NULL, 0);
	ts_cpio_add(c, "bin/busybox", S_IFREG | 0755, 0, bb, bblen);
	ts_cpio_add(c, "init", S_IFREG | 0755, 0, script, strlen(script));
}

int ts_vm_initramfs_build(const char *modules, const char *init, const char *path,
			  const struct ts_vm_user *as, bool *needed, struct ts_err *err)
{
	struct ts_vm_modlist mods = {0};
	char *dep = NULL, *builtin = NULL, *bb = NULL, *script = NULL;
	const char *names[64];
	char files[64][300];
	size_t bblen, i;
	struct ts_cpio c;
	FILE *f = NULL;
	int ret, dirfd;

	*needed = false;
	dirfd = ts_vm_moddir_open(modules, err);
	if (dirfd < 0)
		return dirfd;
	ret = read_indexes(dirfd, modules, &dep, &builtin, err);
	if (ret < 0)
		goto out;
	ret = ts_vm_moddep_resolve(dep, builtin, ts_vm_boot_modules, ts_vm_nboot_modules, &mods,
				   err);
	if (ret < 0 || !mods.n)
		goto out;
	*needed = true;
	ret = load_busybox(&bb, &bblen, err);
	if (ret < 0)
		goto out;
	for (i = 0; i < mods.n; i++) {
		char name[256];

		ts_vm_modname(mods.path[i], name, sizeof(name));
		snprintf(files[i], sizeof(files[i]), "%02zu-%s.ko", i, name);
		names[i] = files[i];
	}
	script = ts_vm_init_script(names, mods.n, init);
	if (!script) {
		ret = -ENOMEM;
		ts_err_set(err, "%s: %s", path, strerror(-ret));
		goto out;
	}
	f = ts_out_fopen(path, err);
	if (!f) {
		ret = -errno;
		goto out;
	}
	ts_cpio_init(&c, f);
	add_skeleton(&c, bb, bblen, script);
	for (i = 0; i < mods.n; i++) {
		char *img, dst[400];
		size_t ilen;

		ret = load_module(dirfd, modules, mods.path[i], as, &img, &ilen, err);
		if (ret < 0)
			goto out;
		snprintf(dst, sizeof(dst), "lib/modules/%.299s", files[i]);
		ts_cpio_add(&c, dst, S_IFREG | 0644, 0, img, ilen);
		free(img);
	}
	ret = ts_cpio_finish(&c);
	if (ret < 0)
		ts_err_set(err, "%s: write error", path);
out:
	if (f && fclose(f) && !ret) {
		ret = -EIO;
		ts_err_set(err, "%s: write error", path);
	}
	ts_vm_modlist_free(&mods);
	close(dirfd);
	free(dep);
	free(builtin);
	free(bb);
	free(script);
	return ret;
}
