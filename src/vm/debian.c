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

#include "io/outfile.h"
#include "io/rmtree.h"
#include "vm/apt.h"
#include "vm/capture.h"
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
	/* Root's cache serves every user: what is made here stays root's. */
	ret = ts_out_mkdir_keep(buf, err);
	if (ret >= 0)
		close(ret);
	return ret < 0 ? ret : 0;
}

/*
 * "linux-image-6.1.0-28-amd64" from `apt-cache depends linux-image-amd64`, of
 * apt's candidate (@version NULL) or of linux-image-amd64=@version.
 */
static int image_package(const char *version, char *pkg, size_t len, struct ts_err *err)
{
	char what[32 + TS_VM_APT_VERSION_LEN];
	char *argv[] = {(char *)"apt-cache", (char *)"depends", what, NULL};
	char *out;
	size_t olen;
	int st;

	snprintf(what, sizeof(what), "linux-image-amd64%s%s", version ? "=" : "",
		 version ? version : "");
	st = ts_vm_capture(argv, NULL, -1, 1, NULL, &out, &olen, err);
	if (st < 0)
		return st;
	if (st == 0 && ts_vm_apt_image(out, pkg, len) == 0) {
		free(out);
		return 0;
	}
	free(out);
	ts_err_set(err,
		   "apt-cache depends %s names no kernel package (exit %d): run apt-get update, "
		   "or pass --kernel BZIMAGE",
		   what, st);
	return -ENOENT;
}

/* linux-image-amd64's versions in apt's version table, highest first; 0 when apt has none. */
static size_t version_table(char v[][TS_VM_APT_VERSION_LEN], size_t max)
{
	char *argv[] = {(char *)"apt-cache", (char *)"madison", (char *)"linux-image-amd64", NULL};
	struct ts_err e = {{0}};
	char *out;
	size_t olen, n = 0;

	/* On a failure to run apt-cache, out stays NULL. */
	if (ts_vm_capture(argv, NULL, -1, 1, NULL, &out, &olen, &e) == 0)
		n = ts_vm_apt_versions(out, v, max);
	free(out);
	return n;
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

	st = ts_vm_capture(argv, cwd, -1, 0, NULL, &out, &len, err);
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
	/*
	 * Bounded waits: an unreachable mirror fails in seconds, not after apt's retries, so
	 * the next version of the table is tried soon.
	 */
	char *dl[] = {(char *)"apt-get",
		      (char *)"download",
		      (char *)"-q",
		      (char *)"-o",
		      (char *)"Acquire::Retries=0",
		      (char *)"-o",
		      (char *)"Acquire::http::Timeout=30",
		      (char *)pkg,
		      NULL};
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

/* @pkg from the cache, else downloaded and unpacked into it. */
static int fetch(const char *cache, const char *pkg, char *kernel, char *modules, size_t len,
		 bool quiet, struct ts_err *err)
{
	char dir[4096], tmp[4200], root[4200];
	struct ts_err e;
	int ret;

	snprintf(dir, sizeof(dir), "%s/%s", cache, pkg);
	snprintf(root, sizeof(root), "%s/root", dir);
	if (find_kernel(root, kernel, modules, len) == 0)
		return 0;
	if (!quiet)
		fprintf(stderr, "tasshape vm: downloading %s into %s (once)\n", pkg, cache);
	/*
	 * A name of its own, not the PID's: two rootless runs are both PID 1 of their namespaces,
	 * and may fetch the same kernel at once.
	 */
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", cache, pkg);
	if (!mkdtemp(tmp) || chmod(tmp, 0755) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", tmp, strerror(errno));
		return ret;
	}
	ret = unpack(tmp, pkg, err);
	if (!ret && rename(tmp, dir) < 0 && errno != EEXIST && errno != ENOTEMPTY) {
		ret = -errno;
		ts_err_set(err, "rename %s: %s", dir, strerror(errno));
	}
	ts_rmtree(tmp, &e); /* left over when another run unpacked the same kernel first */
	if (!ret && find_kernel(root, kernel, modules, len) < 0) {
		ts_err_set(err, "%s: no kernel after unpacking", dir);
		ret = -ENOENT;
	}
	return ret;
}

/*
 * apt's candidate first; when it cannot be had (its mirror, often the security
 * archive, unreachable from a new machine, or the lists name a file the mirror no
 * longer has), each older version of apt's version table in turn, saying which was
 * used: a kernel from the main archive serves as well for running a command in a VM.
 */
int ts_vm_debian_kernel(char *kernel, char *modules, size_t len, bool quiet, struct ts_err *err)
{
	char cache[3000], vers[TS_VM_APT_MAX_VERSIONS][TS_VM_APT_VERSION_LEN];
	char tried[TS_VM_APT_MAX_VERSIONS + 1][256], first[TS_ERR_MAX];
	size_t nvers, ntried = 1, i, j;
	struct ts_err e = {{0}};
	int ret;

	ret = cache_dir(cache, sizeof(cache), err);
	if (ret < 0)
		return ret;
	/* The candidate (apt's pinning decides it): one apt-cache call when it is cached. */
	ret = image_package(NULL, tried[0], sizeof(tried[0]), err);
	if (ret < 0)
		return ret;
	ret = fetch(cache, tried[0], kernel, modules, len, quiet, &e);
	if (ret == 0)
		return 0;
	snprintf(first, sizeof(first), "%s", e.msg);
	/* Then apt's version table, highest first. */
	nvers = version_table(vers, TS_VM_APT_MAX_VERSIONS);
	for (i = 0; i < nvers; i++) {
		struct ts_err ie = {{0}};
		char pkg[256];
		bool dup = false;

		if (image_package(vers[i], pkg, sizeof(pkg), &ie) < 0)
			continue;
		for (j = 0; j < ntried; j++)
			dup |= !strcmp(tried[j], pkg);
		if (dup)
			continue;
		fprintf(stderr,
			"tasshape vm: %s: %s; trying %s (linux-image-amd64 %s) of apt's version "
			"table\n",
			tried[ntried - 1], e.msg, pkg, vers[i]);
		snprintf(tried[ntried++], sizeof(tried[0]), "%s", pkg);
		if (fetch(cache, pkg, kernel, modules, len, quiet, &e) == 0) {
			fprintf(stderr,
				"tasshape vm: warning: using %s (linux-image-amd64 %s from apt's "
				"version table) instead of apt's candidate %s: %s\n",
				pkg, vers[i], tried[0], first);
			return 0;
		}
	}
	ts_err_set(err,
		   "no version of linux-image-amd64 in apt's version table could be fetched "
		   "(%zu tried; the candidate %s: %s); check apt's sources or pass --kernel "
		   "BZIMAGE",
		   ntried, tried[0], first);
	return -ENOENT;
}
