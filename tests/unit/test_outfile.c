/* SPDX-License-Identifier: MIT */
/*
 * The invoking user's identity (io/invoker.c) and the one way to create
 * output files and directories (io/outfile.c), in a private temporary
 * directory. What needs another user (a link planted by them) is tested
 * as root in tests/integration/t_sec_paths.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/invoker.h"
#include "io/outfile.h"
#include "tsu.h"
#include "tsu_tmp.h"

static char dir[64];

/* DIR/NAME into a static buffer (one at a time). */
static const char *at(const char *name)
{
	static char p[2][256];
	static int k;

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* The first line of @path, "" when it cannot be read. */
static const char *get(const char *path)
{
	static char buf[64];
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	return buf;
}

static void write_fd(int fd, const char *text)
{
	TSU_EQ(write(fd, text, strlen(text)), (long long)strlen(text));
	TSU_EQ(close(fd), 0);
}

/* Names in the test directory starting with @prefix ("" for all), the dot entries not counted. */
static int entries_with(const char *prefix)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static int entries(void)
{
	return entries_with("");
}

static void test_parse(void)
{
	struct ts_invoker inv;
	struct ts_err err;

	TSU_EQ(ts_invoker_parse(NULL, NULL, &inv, &err), 0);
	TSU_EQ(inv.sudo, false);
	TSU_EQ(ts_invoker_parse("1000", "100", &inv, &err), 0);
	TSU_EQ(inv.sudo, true);
	TSU_EQ(inv.uid, 1000);
	TSU_EQ(inv.gid, 100);
	TSU_EQ(ts_invoker_parse("007", "0", &inv, &err), 0);
	TSU_EQ(inv.uid, 7);
	TSU_EQ(inv.gid, 0);
	/* The largest id; 4294967295 is (uid_t)-1, "no id" to the kernel. */
	TSU_EQ(ts_invoker_parse("4294967294", "1", &inv, &err), 0);
	TSU_EQ(inv.uid, 4294967294LL);
}

static void test_parse_refuses(void)
{
	static const struct {
		const char *uid, *gid, *says;
	} bad[] = {
		{"1000", NULL, "SUDO_UID is set but SUDO_GID is not"},
		{NULL, "1000", "SUDO_GID is set but SUDO_UID is not"},
		{"1000", "", "SUDO_GID is empty"},
		{"", "1000", "SUDO_UID is empty"},
		{"1000", "abc", "SUDO_GID='abc'"},
		{"1000x", "1000", "SUDO_UID='1000x'"},
		{"+1000", "1000", "SUDO_UID='+1000'"},
		{" 1000", "1000", "SUDO_UID=' 1000'"},
		{"-1", "1000", "SUDO_UID='-1'"},
		{"4294967295", "1000", "below 4294967295"},
		{"1000", "99999999999999999999", "SUDO_GID"},
	};
	struct ts_invoker inv;
	struct ts_err err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		TSU_EQ(ts_invoker_parse(bad[i].uid, bad[i].gid, &inv, &err), -EINVAL);
		TSU_EQ(inv.sudo, false);
		if (!strstr(err.msg, bad[i].says))
			fprintf(stderr, "\n  case %zu: '%s' does not say '%s'\n", i, err.msg,
				bad[i].says);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].says));
	}
}

static void test_trusts(void)
{
	struct ts_invoker inv = {.uid = 1000, .gid = 1000, .sudo = true};

	CU_ASSERT(ts_invoker_trusts(&inv, 0));
	CU_ASSERT(ts_invoker_trusts(&inv, 1000));
	CU_ASSERT(!ts_invoker_trusts(&inv, 1001));
	CU_ASSERT(!ts_invoker_trusts(&inv, 65534));
}

/* Whom a program run for the invoking user becomes: resolved before the fork. */
static void test_creds(void)
{
	struct ts_invoker inv = {.uid = 0, .gid = 0, .sudo = false};
	static struct ts_invoker_creds c;
	struct ts_err err;

	/* Not through sudo, or sudo from root: nobody to become. */
	TSU_EQ(ts_invoker_creds(&inv, 1234, &c, &err), 0);
	CU_ASSERT(!c.drop);
	inv.sudo = true;
	TSU_EQ(ts_invoker_creds(&inv, 1234, &c, &err), 0);
	CU_ASSERT(!c.drop);
	/* A user with no passwd entry: its SUDO_GID, no supplementary group but the device's. */
	inv.uid = 4000000001u;
	inv.gid = 4000000002u;
	TSU_EQ(ts_invoker_creds(&inv, (gid_t)-1, &c, &err), 0);
	CU_ASSERT(c.drop);
	CU_ASSERT(!c.named);
	TSU_EQ(c.uid, 4000000001u);
	TSU_EQ(c.gid, 4000000002u);
	TSU_EQ(c.ngroups, 0);
	TSU_EQ(ts_invoker_creds(&inv, 1234, &c, &err), 0);
	TSU_EQ(c.ngroups, 1);
	TSU_EQ(c.groups[0], 1234);
	/* Root's group is never added, whatever /dev/kvm's group is. */
	TSU_EQ(ts_invoker_creds(&inv, 0, &c, &err), 0);
	TSU_EQ(c.ngroups, 0);
}

static void test_new_file(void)
{
	struct ts_err err;
	struct stat st;
	int fd = ts_out_fd(at("new.txt"), &err);

	CU_ASSERT_FATAL(fd >= 0);
	write_fd(fd, "one\n");
	CU_ASSERT_STRING_EQUAL(get(at("new.txt")), "one\n");
	TSU_EQ(stat(at("new.txt"), &st), 0);
	TSU_EQ(st.st_mode & 0777, 0644); /* umask 022 here */
	fd = ts_out_fd(at("fd.txt"), &err);
	TSU_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
}

/* The last component is never followed: the link's target stays as it was. */
static void test_link_refused(void)
{
	struct ts_err err;

	put(at("target.txt"), "keep\n");
	TSU_EQ(symlink(at("target.txt"), at("link.txt")), 0);
	TSU_EQ(ts_out_fd(at("link.txt"), &err), -ELOOP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is a symbolic link: not followed"));
	CU_ASSERT_STRING_EQUAL(get(at("target.txt")), "keep\n");
	/* A dangling link: nothing is created where it points. */
	TSU_EQ(symlink(at("nowhere.txt"), at("dangling.txt")), 0);
	TSU_EQ(ts_out_fd(at("dangling.txt"), &err), -ELOOP);
	TSU_EQ(access(at("nowhere.txt"), F_OK), -1);
}

/* An existing file is replaced by a new one: a hard link to the old keeps the old bytes. */
static void test_replace(void)
{
	struct ts_err err;
	struct stat before, after;
	int fd;

	put(at("old.txt"), "old\n");
	TSU_EQ(chmod(at("old.txt"), 0640), 0);
	TSU_EQ(link(at("old.txt"), at("hard.txt")), 0);
	TSU_EQ(stat(at("old.txt"), &before), 0);
	fd = ts_out_fd(at("old.txt"), &err);
	CU_ASSERT_FATAL(fd >= 0);
	write_fd(fd, "new\n");
	TSU_EQ(stat(at("old.txt"), &after), 0);
	CU_ASSERT_STRING_EQUAL(get(at("old.txt")), "new\n");
	CU_ASSERT_STRING_EQUAL(get(at("hard.txt")), "old\n");
	CU_ASSERT(after.st_ino != before.st_ino);
	TSU_EQ(after.st_mode & 0777, 0640); /* the old mode kept */
	TSU_EQ(after.st_uid, before.st_uid);
	TSU_EQ(entries_with(".tasshape-"), 0); /* no temporary name left behind */
}

static void test_not_a_file(void)
{
	struct ts_err err;
	int fd;

	TSU_EQ(mkdir(at("sub"), 0755), 0);
	TSU_EQ(ts_out_fd(at("sub"), &err), -EEXIST);
	TSU_EQ(ts_out_fd(at("sub/"), &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected a file name"));
	TSU_EQ(ts_out_fd("", &err), -EINVAL);
	TSU_EQ(ts_out_fd(at("sub/.."), &err), -EINVAL);
	TSU_EQ(ts_out_fd(at("missing/x.txt"), &err), -ENOENT);
	/* A character device of root's is written as is. */
	fd = ts_out_fd("/dev/null", &err);
	CU_ASSERT(fd >= 0);
	close(fd);
}

/* Links in the parent path that root or this user owns are followed; a loop ends. */
static void test_parent_links(void)
{
	struct ts_err err;
	int fd;

	TSU_EQ(mkdir(at("real"), 0755), 0);
	TSU_EQ(symlink("real", at("rel")), 0);
	TSU_EQ(symlink(at("rel"), at("abs")), 0);
	fd = ts_out_fd(at("abs/x.txt"), &err);
	CU_ASSERT_FATAL(fd >= 0);
	write_fd(fd, "via links\n");
	CU_ASSERT_STRING_EQUAL(get(at("real/x.txt")), "via links\n");
	TSU_EQ(symlink("loop", at("loop")), 0);
	TSU_EQ(ts_out_fd(at("loop/x.txt"), &err), -ELOOP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "more than 40 symbolic links"));
	put(at("plain"), "x\n");
	TSU_EQ(ts_out_fd(at("plain/x.txt"), &err), -ENOTDIR);
}

/* Whole or nothing: the name appears at commit, and cancel leaves nothing. */
static void test_atomic(void)
{
	struct ts_err err;
	struct ts_out o;
	int n = entries();

	TSU_EQ(ts_out_begin(&o, at("whole.json"), &err), 0);
	write_fd(o.fd, "{}\n");
	TSU_EQ(access(at("whole.json"), F_OK), -1);
	TSU_EQ(entries(), n + 1); /* the temporary name */
	TSU_EQ(ts_out_commit(&o, &err), 0);
	CU_ASSERT_STRING_EQUAL(get(at("whole.json")), "{}\n");
	TSU_EQ(entries(), n + 1);
	TSU_EQ(ts_out_begin(&o, at("never.json"), &err), 0);
	TSU_EQ(close(o.fd), 0);
	ts_out_cancel(&o);
	TSU_EQ(entries(), n + 1);
	TSU_EQ(ts_out_write_whole(at("whole.json"), "[1]\n", 4, &err), 0);
	CU_ASSERT_STRING_EQUAL(get(at("whole.json")), "[1]\n");
	TSU_EQ(entries(), n + 1);
}

static void test_mkdir_lock(void)
{
	struct ts_err err;
	struct stat st;
	int a, b;

	a = ts_out_mkdir(at("x/y/z"), &err);
	CU_ASSERT_FATAL(a >= 0);
	TSU_EQ(stat(at("x/y/z"), &st), 0);
	CU_ASSERT(S_ISDIR(st.st_mode));
	TSU_EQ(st.st_mode & 0777, 0755);
	TSU_EQ(ts_out_lock(a, at("x/y/z"), &err), 0);
	b = ts_out_mkdir(at("x/y/z"), &err); /* exists: checked, not created */
	CU_ASSERT_FATAL(b >= 0);
	TSU_EQ(ts_out_lock(b, at("x/y/z"), &err), -EBUSY);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "another tasshape run is writing this directory"));
	close(a);
	TSU_EQ(ts_out_lock(b, at("x/y/z"), &err), 0); /* released with its descriptor */
	close(b);
	put(at("afile"), "x\n");
	TSU_EQ(ts_out_mkdir(at("afile"), &err), -ENOTDIR);
	TSU_EQ(ts_out_mkdir("", &err), -EINVAL);
}

/*
 * ts_out_mkdir_keep makes what ts_out_mkdir makes, but keeps it this
 * process's: as root for a sudo user, ts_out_mkdir hands the new
 * directories to that user and ts_out_mkdir_keep does not.
 */
static void test_mkdir_keep(void)
{
	struct ts_err err;
	struct stat st;
	int fd;

	fd = ts_out_mkdir_keep(at("k/a/b"), &err);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	TSU_EQ(stat(at("k/a/b"), &st), 0);
	CU_ASSERT(S_ISDIR(st.st_mode));
	TSU_EQ(st.st_mode & 0777, 0755);
	put(at("kfile"), "x\n");
	TSU_EQ(ts_out_mkdir_keep(at("kfile"), &err), -ENOTDIR);
	if (geteuid() != 0)
		return; /* no one to hand a directory to */
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	fd = ts_out_mkdir(at("h/c"), &err);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	fd = ts_out_mkdir_keep(at("r/c"), &err);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	TSU_EQ(stat(at("h/c"), &st), 0);
	TSU_EQ(st.st_uid, 65534);
	TSU_EQ(stat(at("h"), &st), 0);
	TSU_EQ(st.st_uid, 65534);
	TSU_EQ(stat(at("r/c"), &st), 0);
	TSU_EQ(st.st_uid, 0);
	TSU_EQ(stat(at("r"), &st), 0);
	TSU_EQ(st.st_uid, 0);
}

static void test_dir_private(void)
{
	struct ts_err err;

	TSU_EQ(mkdir(at("open"), 0755), 0);
	TSU_EQ(ts_out_dir_private(at("open"), &err), 0);
	TSU_EQ(chmod(at("open"), 01777), 0);
	TSU_EQ(ts_out_dir_private(at("open"), &err), -EPERM);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mode 1777"));
	/* Below a sticky directory, a private one is safe: no one else can rename it. */
	TSU_EQ(mkdir(at("open/mine"), 0755), 0);
	TSU_EQ(ts_out_dir_private(at("open/mine"), &err), 0);
	/* Below a directory anyone may write (not sticky), it is not: it could be swapped. */
	TSU_EQ(chmod(at("open"), 0777), 0);
	TSU_EQ(ts_out_dir_private(at("open/mine"), &err), -EPERM);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(err.msg, "other users may rename what is in open (mode 0777)"));
}

/*
 * The suite's fixture: no invoking user, a known umask (the modes tested
 * follow from it), and a private directory the file tests share, each
 * under names of its own.
 */
static int setup(void)
{
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	umask(022);
	snprintf(dir, sizeof(dir), "/tmp/ts-outfile-XXXXXX");
	return tsu_tmp_make(dir);
}

static int teardown(void)
{
	return tsu_tmp_remove(dir);
}

static const struct tsu_test tests[] = {
	{"invoker: SUDO_UID/SUDO_GID parsed exactly", test_parse},
	{"invoker: malformed ids refused, naming the variable", test_parse_refuses},
	{"invoker: root and the invoker are trusted, no one else", test_trusts},
	{"invoker: the credentials a program is dropped to", test_creds},
	{"a new file: created 0644, close-on-exec", test_new_file},
	{"a link as the last component is refused", test_link_refused},
	{"an existing file is replaced, not written through", test_replace},
	{"a directory, an empty name, a missing parent", test_not_a_file},
	{"the user's own links in the parent path; a loop", test_parent_links},
	{"whole-or-nothing outputs", test_atomic},
	{"directories and their lock", test_mkdir_lock},
	{"directories kept this process's", test_mkdir_keep},
	{"a directory others may write is not private", test_dir_private},
};

TSU_MAIN_FIXTURE("outfile", tests, setup, teardown)
