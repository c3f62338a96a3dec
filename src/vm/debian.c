/* SPDX-License-Identifier: MIT */
/*
 * --kernel debian: Debian's stock kernel, so that a machine with no kernel
 * of its own to test can try the VM path. The package linux-image-amd64
 * only depends on the current linux-image-VERSION-amd64; that package is
 * fetched with `apt-get download` (no installation, nothing in /boot) and
 * unpacked with `dpkg-deb -x` into the cache directory, and depmod writes
 * the module indexes the initramfs and the guest's modprobe read. A kernel
 * already unpacked there is used as it is.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/proc.h"
#include "vm/vm.h"

/* The cache: $TASSHAPE_CACHE, else /var/cache/tasshape for root, else ~/.cache/tasshape. */
static int cache_dir(char *buf, size_t len, struct ts_err *err)
{
	const char *env = getenv("TASSHAPE_CACHE"), *home = getenv("HOME"),
		   *xdg = getenv("XDG_CACHE_HOME");
	int ret;

	if (env && *env)
		snprintf(buf, len, "%s/kernels", env);
	else if (geteuid() == 0)
		snprintf(buf, len, "/var/cache/tasshape/kernels");
	else if (xdg && *xdg)
		snprintf(buf, len, "%s/tasshape/kernels", xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.cache/tasshape/kernels", home);
	else {
		ts_err_set(err, "no cache directory: set TASSHAPE_CACHE or HOME");
		return -ENOENT;
	}
	ret = ts_vm_mkdir_p(buf, 0755);
	if (ret < 0)
		ts_err_set(err, "%s: %s", buf, strerror(-ret));
	return ret;
}

/* "linux-image-6.1.0-28-amd64" from `apt-cache depends linux-image-amd64`. */
static int image_package(char *pkg, size_t len, struct ts_err *err)
{
	char *argv[] = {(char *)"apt-cache", (char *)"depends", (char *)"linux-image-amd64", NULL};
	char *out, *p;
	size_t olen;
	int st;

	st = ts_vm_capture(argv, NULL, 1, &out, &olen, err);
	if (st < 0)
		return st;
	for (p = out; st == 0 && (p = strstr(p, "Depends: linux-image-")); p++) {
		const char *name = p + strlen("Depends: ");
		size_t n = strcspn(name, " \n<>");

		if (n < len && n > strlen("linux-image-")) {
			memcpy(pkg, name, n);
			pkg[n] = '\0';
			free(out);
			return 0;
		}
	}
	free(out);
	ts_err_set(err,
		   "apt-cache depends linux-image-amd64 names no kernel package (exit %d): "
		   "run apt-get update, or pass --kernel BZIMAGE",
		   st);
	return -ENOENT;
}

/* Finds boot/vmlinuz-RELEASE and lib/modules/RELEASE (or usr/lib/modules) under @root. */
static int find_kernel(const char *root, char *kernel, char *modules, size_t len)
{
	static const char *const moddirs[] = {"lib/modules", "usr/lib/modules"};
	char boot[4096];
	struct dirent *de;
	size_t i;
	DIR *d;

	snprintf(boot, sizeof(boot), "%s/boot", root);
	d = opendir(boot);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		struct stat st;

		if (strncmp(de->d_name, "vmlinuz-", 8))
			continue;
		for (i = 0; i < 2; i++) {
			snprintf(modules, len, "%s/%s/%s", root, moddirs[i], de->d_name + 8);
			if (stat(modules, &st) == 0 && S_ISDIR(st.st_mode)) {
				snprintf(kernel, len, "%s/%s", boot, de->d_name);
				closedir(d);
				return 0;
			}
		}
	}
	closedir(d);
	return -ENOENT;
}

static int run_tool(char *const argv[], const char *cwd, struct ts_err *err)
{
	char *out;
	size_t len;
	int st;

	st = ts_vm_capture(argv, cwd, 0, &out, &len, err);
	if (st < 0)
		return st;
	free(out);
	if (st) {
		ts_err_set(err, "%s %s failed (exit %d)", argv[0], argv[1], st);
		return -EIO;
	}
	return 0;
}

static int unpack(const char *tmp, const char *pkg, struct ts_err *err)
{
	char *dl[] = {(char *)"apt-get", (char *)"download", (char *)"-q", (char *)pkg, NULL};
	char deb[4600] = "", root[4300], release[256];
	struct dirent *de;
	DIR *d;
	int ret;

	ret = run_tool(dl, tmp, err);
	if (ret < 0)
		return ret;
	d = opendir(tmp);
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".deb"))
			snprintf(deb, sizeof(deb), "%s/%s", tmp, de->d_name);
	if (d)
		closedir(d);
	if (!deb[0]) {
		ts_err_set(err, "apt-get download %s left no .deb in %s", pkg, tmp);
		return -ENOENT;
	}
	snprintf(root, sizeof(root), "%s/root", tmp);
	{
		char *x[] = {(char *)"dpkg-deb", (char *)"-x", deb, root, NULL};

		ret = run_tool(x, NULL, err);
	}
	if (ret < 0)
		return ret;
	unlink(deb);
	{
		char k[4096], m[4096];
		const char *rel;

		if (find_kernel(root, k, m, sizeof(k)) < 0) {
			ts_err_set(err, "%s has no boot/vmlinuz-* with its modules directory", pkg);
			return -ENOENT;
		}
		rel = strrchr(m, '/') + 1;
		snprintf(release, sizeof(release), "%s", rel);
	}
	{
		char *dm[] = {(char *)"depmod", (char *)"-b", root, release, NULL};

		ret = run_tool(dm, NULL, err);
		if (ret < 0)
			ts_err_set(err, "depmod -b %s %s failed: apt-get install kmod", root,
				   release);
	}
	return ret;
}

int ts_vm_debian_kernel(char *kernel, char *modules, size_t len, bool quiet, struct ts_err *err)
{
	char cache[3000], pkg[256], dir[4096], tmp[4200], root[4200];
	int ret;

	ret = cache_dir(cache, sizeof(cache), err);
	if (ret < 0)
		return ret;
	ret = image_package(pkg, sizeof(pkg), err);
	if (ret < 0)
		return ret;
	snprintf(dir, sizeof(dir), "%s/%s", cache, pkg);
	snprintf(root, sizeof(root), "%s/root", dir);
	if (find_kernel(root, kernel, modules, len) == 0)
		return 0;
	if (!quiet)
		fprintf(stderr, "tasshape vm: downloading %s into %s (once)\n", pkg, cache);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", cache, pkg, (int)getpid());
	ts_vm_rm_rf(tmp);
	if (mkdir(tmp, 0755) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", tmp, strerror(errno));
		return ret;
	}
	ret = unpack(tmp, pkg, err);
	if (!ret && rename(tmp, dir) < 0 && errno != EEXIST && errno != ENOTEMPTY) {
		ret = -errno;
		ts_err_set(err, "rename %s: %s", dir, strerror(errno));
	}
	ts_vm_rm_rf(tmp); /* left over when another run unpacked the same kernel first */
	if (!ret && find_kernel(root, kernel, modules, len) < 0) {
		ts_err_set(err, "%s: no kernel after unpacking", dir);
		ret = -ENOENT;
	}
	return ret;
}
