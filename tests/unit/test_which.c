/* SPDX-License-Identifier: MIT */
/*
 * The one resolver of programs (io/which.c), in a private temporary
 * directory: relative $PATH entries are never searched (but what they hold
 * is named), a directory others may write and a file of another user are
 * refused with the reason, and the path found is exactly the first
 * acceptable DIR/NAME. Run as root, the file of "another user" is chowned
 * to 65534; run as a user, the resolver is told the invoking user is
 * someone else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/which.h"
#include "tsu.h"
#include "tsu_tmp.h"

#define PROG "tasshape-test-which-prog"

static char top[] = "/tmp/test_which.XXXXXX";
static char cwd0[4096];
static struct ts_invoker me;

/* TOP/@rel into a static buffer (four at a time). */
static const char *at(const char *rel)
{
	static char p[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", top, rel);
	return p[k];
}

/* The directory TOP/@rel with @mode (chmod: the umask does not apply). */
static void mkdir_mode(const char *rel, mode_t mode)
{
	CU_ASSERT_FATAL(mkdir(at(rel), 0700) == 0);
	CU_ASSERT_FATAL(chmod(at(rel), mode) == 0);
}

/* The executable TOP/@rel with @mode. */
static void program(const char *rel, mode_t mode)
{
	FILE *f = fopen(at(rel), "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	CU_ASSERT_FATAL(chmod(at(rel), mode) == 0);
}

/*
 * Never searched: "", ".", "sub", "./sub"; each is named once in the
 * refusals, in $PATH's order; the absolute entry after them is taken.
 */
static void test_relative(void)
{
	char env[600];
	struct ts_which w;
	struct ts_err err;

	mkdir_mode("cwd", 0755);
	mkdir_mode("cwd/sub", 0755);
	program("cwd/" PROG, 0755);
	program("cwd/sub/" PROG, 0755);
	CU_ASSERT_FATAL(chdir(at("cwd")) == 0);
	snprintf(env, sizeof(env), ":.:sub:./sub::%s", at("abs"));
	TSU_EQ(ts_which_in(PROG, env, &me, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, at("abs/" PROG));
	CU_ASSERT_STRING_EQUAL(w.skipped,
			       "found ./" PROG " but it is in a relative $PATH entry; "
			       "found sub/" PROG " but it is in a relative $PATH entry; "
			       "found ./sub/" PROG " but it is in a relative $PATH entry");
	TSU_EQ(ts_which_in(PROG, ".", &me, &w), -ENOENT);
	CU_ASSERT_STRING_EQUAL(w.path, "");
	ts_which_error(PROG, &w, &err);
	CU_ASSERT_STRING_EQUAL(err.msg, PROG ": command not found (found ./" PROG
					     " but it is in a relative $PATH entry)");
	/* Only a relative entry that holds the program is named ("bin" does not). */
	TSU_EQ(ts_which_in(PROG, "bin:", &me, &w), -ENOENT);
	CU_ASSERT_STRING_EQUAL(w.skipped, "found ./" PROG " but it is in a relative $PATH entry");
	/* Nothing refused: the plain message. */
	TSU_EQ(ts_which_in("tasshape-test-which-none", ":.", &me, &w), -ENOENT);
	ts_which_error("tasshape-test-which-none", &w, &err);
	CU_ASSERT_STRING_EQUAL(err.msg, "tasshape-test-which-none: command not found");
	CU_ASSERT_FATAL(chdir(cwd0) == 0);
}

/* A directory others may write lets them replace the program: refused, unless it is sticky. */
static void test_writable_dir(void)
{
	char env[600], want[700];
	struct ts_which w;
	struct stat st;

	mkdir_mode("ww", 0777);
	program("ww/" PROG, 0755);
	snprintf(env, sizeof(env), "%s:%s", at("ww"), at("abs"));
	TSU_EQ(ts_which_in(PROG, env, &me, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, at("abs/" PROG));
	snprintf(want, sizeof(want),
		 "found %s but its directory %s is writable by everyone (no sticky bit)",
		 at("ww/" PROG), at("ww"));
	CU_ASSERT_STRING_EQUAL(w.skipped, want);
	CU_ASSERT_FATAL(chmod(at("ww"), 0770) == 0 && stat(at("ww"), &st) == 0);
	TSU_EQ(ts_which_in(PROG, at("ww"), &me, &w), -ENOENT);
	snprintf(want, sizeof(want),
		 "found %s but its directory %s is writable by group %u (no sticky bit)",
		 at("ww/" PROG), at("ww"), (unsigned)st.st_gid);
	CU_ASSERT_STRING_EQUAL(w.skipped, want);
	/* Sticky (as /tmp): others cannot replace a file they do not own. */
	CU_ASSERT_FATAL(chmod(at("ww"), 01777) == 0);
	TSU_EQ(ts_which_in(PROG, env, &me, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, at("ww/" PROG));
	CU_ASSERT_STRING_EQUAL(w.skipped, "");
	/* A file others may write is refused, sticky directory or not. */
	CU_ASSERT_FATAL(chmod(at("ww/" PROG), 0757) == 0);
	TSU_EQ(ts_which_in(PROG, env, &me, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, at("abs/" PROG));
	snprintf(want, sizeof(want), "found %s but it is writable by everyone", at("ww/" PROG));
	CU_ASSERT_STRING_EQUAL(w.skipped, want);
}

/*
 * TOP/@dir/PROG owned by someone other than the invoking user @other: as
 * root, chowned to 65534; as a user, @other is told it is someone else.
 */
static void other_owned(const char *dir, struct ts_invoker *other, struct stat *st)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%s/" PROG, dir);
	mkdir_mode(dir, 0755);
	program(rel, 0755);
	*other = me;
	if (geteuid() == 0) {
		CU_ASSERT_FATAL(chown(at(rel), 65534, 65534) == 0);
	} else {
		other->uid = getuid() + 1; /* the file's owner is then not the invoking user */
	}
	CU_ASSERT_FATAL(stat(at(rel), st) == 0);
}

/*
 * A program owned by neither root nor the invoking user is refused; the
 * same file is the invoking user's own program when they are its owner.
 */
static void test_other_owner(void)
{
	struct ts_invoker other;
	char want[700];
	struct ts_which w;
	struct stat st;

	other_owned("own", &other, &st);
	TSU_EQ(ts_which_in(PROG, at("own"), &other, &w), -ENOENT);
	snprintf(want, sizeof(want),
		 "found %s but it is owned by uid %u (neither root nor the invoking user)",
		 at("own/" PROG), (unsigned)st.st_uid);
	CU_ASSERT_STRING_EQUAL(w.skipped, want);
	other.uid = st.st_uid;
	TSU_EQ(ts_which_in(PROG, at("own"), &other, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, at("own/" PROG));
}

/*
 * As root, the invoking user is SUDO_UID of the environment given; a
 * malformed one trusts root alone (fail closed). Not root, the process's
 * own user is trusted whatever SUDO_UID says (it gains nothing).
 */
static void test_env_invoker(void)
{
	char path[600], uid[32], want[700];
	char *good[] = {path, uid, "SUDO_GID=0", NULL};
	char *bad[] = {path, "SUDO_UID=12x", "SUDO_GID=0", NULL};
	struct ts_invoker other;
	struct ts_which w;
	struct stat st;

	other_owned("env", &other, &st);
	snprintf(path, sizeof(path), "PATH=%s", at("env"));
	snprintf(uid, sizeof(uid), "SUDO_UID=%u", (unsigned)st.st_uid);
	TSU_EQ(ts_which_env(PROG, good, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, at("env/" PROG));
	if (geteuid() != 0) {
		TSU_EQ(ts_which_env(PROG, bad, &w), 0);
		return;
	}
	TSU_EQ(ts_which_env(PROG, bad, &w), -ENOENT);
	snprintf(want, sizeof(want),
		 "found %s but it is owned by uid %u (neither root nor the invoking user)",
		 at("env/" PROG), (unsigned)st.st_uid);
	CU_ASSERT_STRING_EQUAL(w.skipped, want);
}

/*
 * The path is exactly the first acceptable DIR/NAME: a trailing '/' of
 * the entry dropped; a file that is not executable and a directory of
 * the name are passed over without a word.
 */
static void test_exact(void)
{
	char env[900];
	struct ts_which w;

	mkdir_mode("first", 0755);
	mkdir_mode("second", 0755);
	mkdir_mode("second/" PROG, 0755);
	program("first/" PROG, 0644);
	snprintf(env, sizeof(env), "/nonexistent:%s/:%s:%s//", at("first"), at("second"),
		 at("abs"));
	TSU_EQ(ts_which_in(PROG, env, &me, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, at("abs/" PROG));
	CU_ASSERT_STRING_EQUAL(w.skipped, "");
	CU_ASSERT_FATAL(chmod(at("first/" PROG), 0755) == 0);
	TSU_EQ(ts_which_in(PROG, env, &me, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, at("first/" PROG));
	/* Not in $PATH at all: the system's directories (sh is in /usr/bin or /bin). */
	TSU_EQ(ts_which_in("sh", NULL, &me, &w), 0);
	CU_ASSERT(!strcmp(w.path, "/usr/bin/sh") || !strcmp(w.path, "/bin/sh"));
	/* A $PATH that leaves bin out: sh is not found, a root tool of sbin (ldconfig) is. */
	TSU_EQ(ts_which_in("sh", "/nonexistent", &me, &w), -ENOENT);
	TSU_EQ(ts_which_in("ldconfig", "/nonexistent", &me, &w), 0);
	CU_ASSERT(!strcmp(w.path, "/usr/sbin/ldconfig") || !strcmp(w.path, "/sbin/ldconfig"));
}

/* A link leads to a file in a directory others may write: refused as that directory. */
static void test_link(void)
{
	char want[900];
	struct ts_which w;

	mkdir_mode("links", 0755);
	mkdir_mode("open", 0777);
	program("open/target", 0755);
	CU_ASSERT_FATAL(symlink(at("open/target"), at("links/" PROG)) == 0);
	TSU_EQ(ts_which_in(PROG, at("links"), &me, &w), -ENOENT);
	snprintf(want, sizeof(want),
		 "found %s but the directory of its target %s is writable by everyone (no sticky "
		 "bit)",
		 at("links/" PROG), at("open"));
	CU_ASSERT_STRING_EQUAL(w.skipped, want);
	CU_ASSERT_FATAL(chmod(at("open"), 0755) == 0);
	TSU_EQ(ts_which_in(PROG, at("links"), &me, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, at("links/" PROG)); /* the name found, not its target */
}

/* A name with a '/' is what its writer asked for: taken as given, unchecked. */
static void test_slash(void)
{
	struct ts_which w;

	TSU_EQ(ts_which_in("./run.sh", ":.", &me, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, "./run.sh");
	TSU_EQ(ts_which_in("/nonexistent/x", NULL, &me, &w), 0);
	CU_ASSERT_STRING_EQUAL(w.path, "/nonexistent/x");
	TSU_EQ(ts_which_in("", "/usr/bin", &me, &w), -ENOENT);
}

/*
 * The suite's fixture: a private directory (each test under names of its
 * own) holding abs/PROG, an acceptable program the tests find after the
 * ones refused; the directory to come back to after a test changed it;
 * this process's user as the invoking user.
 */
static int setup(void)
{
	FILE *f;

	if (!getcwd(cwd0, sizeof(cwd0))) {
		perror("getcwd");
		return -1;
	}
	me = (struct ts_invoker){.uid = geteuid(), .gid = getegid()};
	if (tsu_tmp_make(top) || mkdir(at("abs"), 0755))
		return -1;
	f = fopen(at("abs/" PROG), "w");
	if (f) {
		fputs("#!/bin/sh\nexit 0\n", f);
		if (!fclose(f) && !chmod(at("abs/" PROG), 0755))
			return 0;
	}
	perror(at("abs/" PROG));
	return -1;
}

static int teardown(void)
{
	return tsu_tmp_remove(top);
}

static const struct tsu_test tests[] = {
	{"relative $PATH entries are never searched, and named", test_relative},
	{"a directory others may write is refused unless sticky", test_writable_dir},
	{"a program of another user is refused", test_other_owner},
	{"the invoking user from SUDO_UID, failing closed", test_env_invoker},
	{"the path found is exact", test_exact},
	{"a link's target directory is checked too", test_link},
	{"a name with a slash is taken as given", test_slash},
};

TSU_MAIN_FIXTURE("which", tests, setup, teardown)
