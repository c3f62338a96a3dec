/* SPDX-License-Identifier: MIT */
/*
 * ts_gnuplot_run (io/gnuplot.c) against stand-ins for gnuplot: small
 * shell scripts named gnuplot in a private directory, the only one on $PATH.
 * The script reaches the program's standard input and its standard output
 * reaches the caller's descriptor byte for byte; the program sees only the
 * fixed environment; a program that does not finish is killed at the
 * timeout; an exit status is an error that says so; the program is
 * found by the one resolver (test_which.c: relative $PATH entries never
 * searched; a missing gnuplot cannot be simulated here, since the
 * resolver also looks in /usr/bin); the private data directory is created
 * and removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/gnuplot.h"
#include "tsu.h"

static char bindir[] = "/tmp/test_gnuplot_run.XXXXXX";

/* Make the stand-in gnuplot run @body (a shell script). */
static void fake(const char *body)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/gnuplot", bindir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

/* Run @script through the stand-in; its standard output into @out (@len bytes at most). */
static int run(const char *script, char *out, size_t len, unsigned timeout_ms, struct ts_err *err)
{
	FILE *f = tmpfile();
	size_t n;
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	ret = ts_gnuplot_run(script, strlen(script), fileno(f), timeout_ms, err);
	rewind(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
	return ret;
}

static void test_stdin_to_stdout(void)
{
	char out[256], script[] = "set terminal png\nplot 'x''y'\n";
	struct ts_err err;

	fake("exec cat");
	TSU_EQ(run(script, out, sizeof(out), 10000, &err), 0);
	CU_ASSERT_STRING_EQUAL(out, script);
}

/* A script larger than a pipe's buffer (64 KiB): fed while the program reads. */
static void test_large_script(void)
{
	size_t len = 300000, i;
	char *script = malloc(len + 1), out[64];
	struct ts_err err;

	for (i = 0; i < len; i++)
		script[i] = i % 64 == 63 ? '\n' : 'a';
	script[len] = '\0';
	fake("wc -c");
	TSU_EQ(run(script, out, sizeof(out), 10000, &err), 0);
	TSU_EQ(strtol(out, NULL, 10), 300000);
	free(script);
}

static void test_environment(void)
{
	char out[4096];
	struct ts_err err;

	setenv("GNUPLOT_DRIVER_DIR", "/tmp/evil", 1);
	fake("env | LC_ALL=C sort");
	TSU_EQ(run("", out, sizeof(out), 10000, &err), 0);
	/* sh adds PWD (and SHLVL, _ in some shells): only what the child was given is checked. */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "HOME=/nonexistent\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "LC_ALL=C.UTF-8\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "PATH=/usr/local/bin:/usr/bin:/bin\n"));
	CU_ASSERT_PTR_NULL(strstr(out, "GNUPLOT_DRIVER_DIR"));
	unsetenv("GNUPLOT_DRIVER_DIR");
}

static void test_timeout(void)
{
	struct timespec a, b;
	struct ts_err err;
	char out[16];
	long ms;

	fake("exec sleep 30");
	clock_gettime(CLOCK_MONOTONIC, &a);
	TSU_EQ(run("", out, sizeof(out), 300, &err), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	CU_ASSERT(ms >= 300 && ms < 5000);
	CU_ASSERT_STRING_EQUAL(err.msg, "gnuplot: no image after 300 ms: stopped");
}

/*
 * gnuplot is found by the one resolver (io/which.h, its rules tested in
 * test_which.c): a gnuplot in the current directory, which may be a
 * results directory someone else wrote, is passed over for the absolute
 * entry after it.
 */
static void test_relative_path(void)
{
	char cwd[4096], sub[160], path[192], out[64], env[256];
	struct ts_err err;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof(cwd)));
	snprintf(sub, sizeof(sub), "%s/planted", bindir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
	snprintf(path, sizeof(path), "%s/gnuplot", sub);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("#!/bin/sh\necho planted\n", f);
	fclose(f);
	chmod(path, 0755);
	fake("echo absolute");
	CU_ASSERT_EQUAL_FATAL(chdir(sub), 0);
	snprintf(env, sizeof(env), ":.:planted:%s", bindir);
	setenv("PATH", env, 1);
	TSU_EQ(run("", out, sizeof(out), 10000, &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "absolute\n");
	setenv("PATH", bindir, 1);
	CU_ASSERT_EQUAL(chdir(cwd), 0);
	unlink(path);
	rmdir(sub);
}

static void test_failures(void)
{
	struct ts_err err;
	char out[16];

	fake("cat >/dev/null; exit 3");
	TSU_EQ(run("plot x\n", out, sizeof(out), 10000, &err), -EIO);
	CU_ASSERT_STRING_EQUAL(err.msg, "gnuplot failed (exit status 3)");
}

static void test_tmp(void)
{
	struct ts_gnuplot_tmp t;
	struct ts_err err;
	char path[512], dir[256];
	struct stat st;
	FILE *f;

	TSU_EQ(ts_gnuplot_tmp_open(&t, &err), 0);
	CU_ASSERT_FATAL(stat(t.dir, &st) == 0);
	TSU_EQ(st.st_mode & 0777, 0700);
	f = ts_gnuplot_tmp_file(&t, "a.dat", path, sizeof(path));
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("1 2\n", f);
	fclose(f);
	CU_ASSERT(strncmp(path, t.dir, strlen(t.dir)) == 0 &&
		  !strcmp(path + strlen(t.dir), "/a.dat"));
	/* The same name again (O_EXCL) and a path are refused. */
	CU_ASSERT_PTR_NULL(ts_gnuplot_tmp_file(&t, "a.dat", path, sizeof(path)));
	TSU_EQ(errno, EEXIST);
	CU_ASSERT_PTR_NULL(ts_gnuplot_tmp_file(&t, "../b.dat", path, sizeof(path)));
	snprintf(dir, sizeof(dir), "%s", t.dir);
	ts_gnuplot_tmp_close(&t);
	TSU_EQ(stat(dir, &st), -1);
	TSU_EQ(errno, ENOENT);
}

/* The suite's fixture: a private directory holding the stand-in, the only one on $PATH. */
static int setup(void)
{
	if (!mkdtemp(bindir)) {
		perror("test_gnuplot_run: mkdtemp");
		return -1;
	}
	/* Only the stand-in is found (the scripts run with the helper's own PATH). */
	setenv("PATH", bindir, 1);
	return 0;
}

/* The directory held the stand-in alone: rmdir fails if a test left anything else. */
static int teardown(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/gnuplot", bindir);
	unlink(path);
	if (rmdir(bindir)) {
		perror(bindir);
		return -1;
	}
	return 0;
}

static const struct tsu_test tests[] = {
	{"script in, image out", test_stdin_to_stdout},
	{"a script larger than a pipe", test_large_script},
	{"a fixed environment", test_environment},
	{"timeout", test_timeout},
	{"found by the resolver, never in the current directory", test_relative_path},
	{"an exit status is an error", test_failures},
	{"private data directory", test_tmp},
};

TSU_MAIN_FIXTURE("gnuplot_run", tests, setup, teardown)
