/* SPDX-License-Identifier: MIT */
/*
 * What a sealed guest holds, gathered from the host (sealed.h). Programs
 * are packed with their libraries from their ELF headers (elfdeps.h), not
 * through ldd: ldd runs the loader on each file, and a pure reading can be
 * unit-tested on a made-up tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/outfile.h"
#include "io/sha256.h"
#include "net/ipt.h"
#include "net/prog.h"
#include "vm/moddir.h"
#include "vm/plan.h"
#include "vm/seal.h"
#include "vm/sealed.h"

/*
 * Files the packed tools read besides their libraries: protocol and service names (iptables,
 * ping), the loader's cache. User and group names (iperf3, kmod) are the fixed ones below.
 */
static const char *const etc_files[] = {"/etc/nsswitch.conf", "/etc/protocols",	   "/etc/services",
					"/etc/ld.so.cache",   "/etc/hosts",	   "/etc/host.conf",
					"/etc/ethertypes",    "/etc/xtables.conf", NULL};

/*
 * The guest's users and groups: root, who runs in it, and nobody. Not the host's: a sealed
 * image holds the same bytes whatever accounts the host gains or loses (a user added between
 * two runs changed the image by one passwd line, and a sealed run must not depend on that).
 */
static const char etc_passwd[] = "root:x:0:0:root:/root:/bin/sh\n"
				 "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
static const char etc_group[] = "root:x:0:\nnogroup:x:65534:\n";

/* Where iptables's extensions (libxt_*.so, opened by name when a rule needs one) live. */
static const char *const xtables_dirs[] = {"/usr/lib/x86_64-linux-gnu/xtables", "/usr/lib/xtables",
					   "/usr/lib64/xtables", NULL};

/* The drivers of the shares, loaded by the guest's init after CMD (no serial port: vm/plan.c). */
static const char *const after_modules[] = {"virtio_pci", "9pnet_virtio", "9p", NULL};

/*
 * A program of the run: a name is looked up in PATH, a path (CMD's program given as one) is
 * packed as it is, a relative one under @cwd, where the guest's CMD starts too.
 */
static int add_tool(struct ts_seal *s, const char *name, bool required, const char *cwd,
		    struct ts_err *err)
{
	char path[PATH_MAX];

	if (strchr(name, '/')) {
		if (name[0] != '/' &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", cwd, name) >= sizeof(path)) {
			ts_err_set(err, "%s: path too long", name);
			return -ENAMETOOLONG;
		}
		if (access(name[0] == '/' ? name : path, X_OK) < 0) {
			int e = errno;

			ts_err_set(err, "%s: %s (a sealed guest executes it)", name, strerror(e));
			return -e;
		}
		return ts_seal_add_elf(s, name[0] == '/' ? name : path, err);
	}
	if (ts_prog_find(name, path, sizeof(path)) < 0) {
		if (!required)
			return 0;
		ts_err_set(err,
			   "%s: not found in PATH, /usr/sbin or /usr/bin, and a run in a sealed "
			   "guest executes it (apt-get install the package that has it)",
			   name);
		return -ENOENT;
	}
	return ts_seal_add_elf(s, path, err);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* Every "*.so" of @dir (iptables's extensions), with their libraries. */
static int add_so_dir(struct ts_seal *s, const char *dir, struct ts_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		char p[PATH_MAX];

		if (de->d_name[0] == '.' || !ends_with(de->d_name, ".so"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		ret = ts_seal_add_elf(s, p, err);
	}
	closedir(d);
	return ret;
}

/* A kernel's modules directory and depmod's files read from it. */
struct modctx {
	const char *moddir, *gdir; /* on the host, and in the image */
	int dirfd;		   /* moddir, which the files are read beneath (moddir.h) */
	char *dep, *builtin, *softdep, *alias;
};

/*
 * File @rel of the modules directory at @dst of the image: read now, beneath the directory
 * (moddir.h), and packed from memory, so no name is looked up again when the image is written.
 * A file packed already (a dependency of two modules) is left as it is.
 */
static int pack_modfile(struct ts_seal *s, const struct modctx *m, const char *rel, const char *dst,
			size_t limit, struct ts_err *err)
{
	char *img = NULL;
	size_t len;
	int ret;

	ret = ts_vm_moddir_read(m->dirfd, m->moddir, rel, limit, &img, &len, err);
	if (!ret)
		ret = ts_seal_add_data(s, dst, 0644, img, len, err);
	free(img);
	return ret == -EEXIST ? 0 : ret;
}

/*
 * Module @name with what it depends on (none when built in, or when the kernel lacks it), and
 * the soft dependencies modprobe loads with each (libcrc32c's crc32c implementation).
 */
static int add_module(struct ts_seal *s, const struct modctx *m, const char *name, int depth,
		      struct ts_err *err)
{
	struct ts_vm_modlist ml = {0};
	char soft[16][64];
	size_t i, k, nsoft = 0;
	struct ts_err e;
	int ret;

	ret = ts_vm_moddep_resolve(m->dep, m->builtin, &name, 1, &ml, &e);
	/* Not in this kernel: the run's modprobe says so in the guest, as on a host. */
	if (ret == -ENOENT)
		return 0;
	if (ret < 0) {
		ts_err_set(err, "%s/modules.dep: %s", m->moddir, e.msg);
		goto out;
	}
	for (i = 0; i < ml.n && !ret; i++) {
		char dst[PATH_MAX + 512], mod[64];

		snprintf(dst, sizeof(dst), "%s/%s", m->gdir, ml.path[i]);
		ret = pack_modfile(s, m, ml.path[i], dst, TS_VM_MODULE_MAX, err);
		ts_vm_modname(ml.path[i], mod, sizeof(mod));
		nsoft = ts_vm_softdeps(m->softdep, m->alias, mod, soft, nsoft, 16);
	}
	/* Soft dependencies of soft dependencies are rare: two levels are plenty. */
	for (k = 0; k < nsoft && !ret && depth < 2; k++)
		ret = add_module(s, m, soft[k], depth + 1, err);
out:
	ts_vm_modlist_free(&ml);
	return ret;
}

/*
 * depmod's file @name of @m->moddir into *@text: 0, or 0 with *@text NULL when it has none
 * (or, when not @needed, any file that cannot be read), else -errno with @err set.
 */
static int read_index(const struct modctx *m, const char *name, bool needed, char **text,
		      struct ts_err *err)
{
	struct ts_err e;
	size_t len;
	int ret;

	ret = ts_vm_moddir_read(m->dirfd, m->moddir, name, TS_VM_MODINDEX_MAX, text, &len, &e);
	if (ret == 0 || (!needed && ret == -ENOENT))
		return 0;
	if (ret == -ENOENT)
		ts_err_set(err,
			   "%s: cannot read it (run depmod -b on the tree that holds lib/modules)",
			   e.msg);
	else
		*err = e;
	return ret;
}

static int add_modules(struct ts_seal *s, const struct ts_vm_conf *c, const char *moddir,
		       struct ts_err *err)
{
	char gdir[PATH_MAX + 300], libdir[PATH_MAX];
	const char *rel = strrchr(moddir, '/');
	struct modctx m = {.moddir = moddir, .gdir = gdir};
	struct dirent *de;
	DIR *d = NULL;
	size_t i;
	int ret;

	rel = rel ? rel + 1 : moddir;
	/* At the path the guest's modprobe reads, /lib/modules/RELEASE, /lib being a link or not. */
	ret = ts_seal_add_path(s, "/lib", libdir, sizeof(libdir), err);
	if (ret < 0)
		return ret;
	snprintf(gdir, sizeof(gdir), "%s/modules/%s", libdir, rel);
	m.dirfd = ts_vm_moddir_open(moddir, err);
	if (m.dirfd < 0)
		return m.dirfd;
	ret = read_index(&m, "modules.dep", true, &m.dep, err);
	if (!ret)
		ret = read_index(&m, "modules.builtin", false, &m.builtin, err);
	if (!ret)
		ret = read_index(&m, "modules.softdep", false, &m.softdep, err);
	if (!ret)
		ret = read_index(&m, "modules.alias", false, &m.alias, err);
	for (i = 0; !ret && c->seal_modules && c->seal_modules[i]; i++)
		ret = add_module(s, &m, c->seal_modules[i], 0, err);
	for (i = 0; !ret && after_modules[i]; i++)
		ret = add_module(s, &m, after_modules[i], 0, err);
	for (i = 0; !ret && i < c->nmodprobe; i++) {
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(c->modprobe[i], " \t"),
			 c->modprobe[i]);
		ret = add_module(s, &m, name, 0, err);
	}
	/* depmod's indexes: modprobe reads them to find a module and what it needs. */
	if (!ret) {
		int fd = openat(m.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		d = fd < 0 ? NULL : fdopendir(fd);
		if (!d && fd >= 0)
			close(fd);
	}
	while (d && !ret && (de = readdir(d))) {
		char dst[2 * PATH_MAX];

		if (strncmp(de->d_name, "modules.", 8))
			continue;
		snprintf(dst, sizeof(dst), "%s/%s", gdir, de->d_name);
		ret = pack_modfile(s, &m, de->d_name, dst, TS_VM_MODINDEX_MAX, err);
	}
	if (d)
		closedir(d);
	close(m.dirfd);
	free(m.dep);
	free(m.builtin);
	free(m.softdep);
	free(m.alias);
	return ret;
}

static int add_all(struct ts_seal *s, const struct ts_vm_conf *c, const char *self,
		   const char *moddir, const char *cwd, const char *ctl, struct ts_err *err)
{
	static const char *const dirs[] = {"proc", "sys", "dev", "tmp", "run", NULL};
	static const char *const ctl_files[] = {"conf", "argv", "env", NULL};
	size_t i;
	int ret;

	/* This tasshape (the guest's init) and what its shaper runs. */
	ret = ts_seal_add_elf(s, self, err);
	for (i = 0; !ret && ts_ipt_progs[i]; i++)
		ret = add_tool(s, ts_ipt_progs[i], true, cwd, err);
	for (i = 0; !ret && c->seal_tools && c->seal_tools[i]; i++)
		ret = add_tool(s, c->seal_tools[i], true, cwd, err);
	for (i = 0; !ret && c->seal_tools_opt && c->seal_tools_opt[i]; i++)
		ret = add_tool(s, c->seal_tools_opt[i], false, cwd, err);
	for (i = 0; !ret && xtables_dirs[i]; i++)
		ret = add_so_dir(s, xtables_dirs[i], err);
	if (!ret)
		ret = ts_seal_add_data(s, "/etc/passwd", 0644, etc_passwd, sizeof(etc_passwd) - 1,
				       err);
	if (!ret)
		ret = ts_seal_add_data(s, "/etc/group", 0644, etc_group, sizeof(etc_group) - 1,
				       err);
	for (i = 0; !ret && etc_files[i]; i++) {
		struct stat st;

		if (stat(etc_files[i], &st) == 0)
			ret = ts_seal_add_path(s, etc_files[i], NULL, 0, err);
	}
	/* The guest's init loads the shares' drivers with it after CMD. */
	if (!ret && moddir)
		ret = add_tool(s, "modprobe", true, cwd, err);
	/* The kernel's own request_module() runs /sbin/modprobe, whatever PATH says. */
	if (!ret && moddir && access("/sbin/modprobe", X_OK) == 0)
		ret = ts_seal_add_path(s, "/sbin/modprobe", NULL, 0, err);
	if (!ret && moddir)
		ret = add_modules(s, c, moddir, err);
	for (i = 0; !ret && c->seal_files && c->seal_files[i]; i++)
		ret = ts_seal_add_path(s, c->seal_files[i], NULL, 0, err);
	if (!ret)
		ret = ts_seal_add_path(s, cwd, NULL, 0, err);
	for (i = 0; !ret && dirs[i]; i++) {
		struct stat st;
		char p[16];

		/* The host's mount points, at their paths (/tmp may be a link elsewhere). */
		snprintf(p, sizeof(p), "/%s", dirs[i]);
		if (lstat(p, &st) == 0)
			ret = ts_seal_add_path(s, p, NULL, 0, err);
	}
	/* The console, for the kernel to give init its first descriptors. */
	if (!ret)
		ret = ts_seal_add_chr(s, "dev/console", 5 << 8 | 1, err);
	for (i = 0; !ret && ctl_files[i]; i++) {
		char src[PATH_MAX + 16], dst[64];

		snprintf(src, sizeof(src), "%s/%s", ctl, ctl_files[i]);
		snprintf(dst, sizeof(dst), TS_VM_SEALED_DIR "/%s", ctl_files[i]);
		ret = ts_seal_add_file_as(s, dst, src, err);
	}
	return ret;
}

int ts_vm_seal_build(const struct ts_vm_conf *c, const char *self, const char *moddir,
		     const char *cwd, const char *ctl, const char *path, uint64_t *bytes,
		     char sha256[65], struct ts_err *err)
{
	struct ts_seal *s = malloc(sizeof(*s));
	struct stat st;
	FILE *f = NULL;
	int ret;

	if (!s) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	ts_seal_init(s, "");
	ret = add_all(s, c, self, moddir, cwd, ctl, err);
	if (ret < 0)
		goto out;
	f = ts_out_fopen(path, err);
	if (!f) {
		ret = -errno;
		goto out;
	}
	ret = ts_seal_write(s, f, err);
	if (fclose(f) && !ret) {
		ret = -EIO;
		ts_err_set(err, "%s: write error", path);
	}
	if (!ret && stat(path, &st) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
	}
	if (!ret) {
		*bytes = (uint64_t)st.st_size;
		ret = ts_sha256_file(path, sha256);
		if (ret < 0)
			ts_err_set(err, "%s: %s", path, strerror(-ret));
	}
out:
	ts_seal_free(s);
	free(s);
	return ret;
}
