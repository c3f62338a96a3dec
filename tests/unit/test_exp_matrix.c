/* SPDX-License-Identifier: MIT */
/*
 * Experiment specs and the planner: what a spec's keys become, the line
 * and expectation every kind of mistake is reported with, the matrix
 * (tas_shift multiplies only cca=tas), ids, run order, seeds, --only and
 * shards. Counts are worked out in the comments.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/matrix.h"
#include "tsu.h"

static const char spec_text[] = "[experiment]\n"		 /* 1 */
				"name = t\n"			 /* 2 */
				"repetitions = 3\n"		 /* 3 */
				"length = 8s\n"			 /* 4 */
				"delay = 2s\n"			 /* 5 */
				"seed = 10\n"			 /* 6 */
				"[matrix]\n"			 /* 7 */
				"cca = cubic, bbr, tas\n"	 /* 8 */
				"link = a, w\n"			 /* 9 */
				"test = tcp_upload, rrul\n"	 /* 10 */
				"tas_shift = 9/10, 8/8 ; note\n" /* 11 */
				"[link a]\n"			 /* 12 */
				"trace = t/x.csv\n"		 /* 13 */
				"delay = 20ms\n"		 /* 14 */
				"queue = droptail:packets=200\n" /* 15 */
				"[link w]\n"			 /* 16 */
				"mac = wifi6:phy=1201mbit\n"	 /* 17 */
				"uplink-trace = const:25mbit\n"	 /* 18 */
				"once = true\n"			 /* 19 */
				"[sysctl]\n"			 /* 20 */
				"net.ipv4.tcp_ecn = 0\n";	 /* 21 */

static void parse_ok(struct ts_exp_spec *s, const char *text)
{
	struct ts_err err = {""};
	int ret = ts_exp_spec_parse(s, "dir/t.ini", text, &err);

	if (ret)
		fprintf(stderr, "\n  unexpected error: %s\n", err.msg);
	TSU_EQ(ret, 0);
}

/* "rt-priority = off" reaches the wrapper as --rt-priority off; a priority as given. */
static void test_spec_rt_priority(void)
{
	struct ts_exp_spec s;
	const struct ts_exp_link *l;

	parse_ok(&s, "[matrix]\ncca = cubic\nlink = a, b\ntest = tcp_upload\n"
		     "[link a]\ntrace = const:10mbit\nrt-priority = off\n"
		     "[link b]\ntrace = const:10mbit\nrt-priority = 49\n");
	l = ts_exp_spec_link(&s, "a");
	CU_ASSERT_FATAL(l != NULL);
	TSU_EQ(l->argc, 4);
	CU_ASSERT_STRING_EQUAL(l->argv[2], "--rt-priority");
	CU_ASSERT_STRING_EQUAL(l->argv[3], "off");
	l = ts_exp_spec_link(&s, "b");
	CU_ASSERT_FATAL(l != NULL);
	CU_ASSERT_STRING_EQUAL(l->argv[3], "49");
	ts_exp_spec_free(&s);
}

static void test_spec_values(void)
{
	struct ts_exp_spec s;
	const struct ts_exp_link *a, *w;

	parse_ok(&s, spec_text);
	CU_ASSERT_STRING_EQUAL(s.name, "t");
	TSU_EQ(s.repetitions, 3);
	TSU_EQ(s.length, 8 * TS_NSEC_PER_SEC);
	TSU_EQ(s.delay, 2 * TS_NSEC_PER_SEC);
	TSU_EQ(s.seed, 10);
	TSU_EQ(s.naxes, 4);
	TSU_EQ(s.axes[0].line, 8);
	TSU_EQ(s.axes[3].nvalues, 2);
	CU_ASSERT_STRING_EQUAL(s.axes[3].values[1], "8/8"); /* inline comment stripped */
	a = ts_exp_spec_link(&s, "a");
	w = ts_exp_spec_link(&s, "w");
	CU_ASSERT_FATAL(a && w);
	/* Keys become the wrapper's options; a relative FILE is where the spec is. */
	TSU_EQ(a->argc, 6);
	CU_ASSERT_STRING_EQUAL(a->argv[0], "--trace");
	CU_ASSERT_STRING_EQUAL(a->argv[1], "dir/t/x.csv");
	CU_ASSERT_STRING_EQUAL(a->argv[2], "--delay");
	CU_ASSERT_STRING_EQUAL(a->argv[3], "20ms");
	CU_ASSERT_PTR_NULL(a->argv[6]);
	/* const:RATE is not a file; a flag set to true is the bare option. */
	TSU_EQ(w->argc, 5);
	CU_ASSERT_STRING_EQUAL(w->argv[3], "const:25mbit");
	CU_ASSERT_STRING_EQUAL(w->argv[4], "--once");
	TSU_EQ(s.nsysctl, 1);
	CU_ASSERT_STRING_EQUAL(s.sysctl[0].key, "net.ipv4.tcp_ecn");
	CU_ASSERT_STRING_EQUAL(s.sysctl[0].value, "0");
	ts_exp_spec_free(&s);
}

static void test_spec_defaults(void)
{
	struct ts_exp_spec s;

	parse_ok(&s, "[matrix]\ncca=cubic\nlink=l\ntest=rtt_fair\n[link l]\ndelay=5ms\n");
	TSU_EQ(s.repetitions, 1);
	TSU_EQ(s.length, 30 * TS_NSEC_PER_SEC); /* Flent's defaults */
	TSU_EQ(s.delay, 5 * TS_NSEC_PER_SEC);
	TSU_EQ(s.seed, 1);
	TSU_EQ(s.upload_streams, 4);
	TSU_EQ(s.server_delay[3], 70 * TS_NSEC_PER_MSEC);
	ts_exp_spec_free(&s);
}

/* @text must be rejected with a message starting "t.ini:LINE:" and containing @phrase. */
static void reject(const char *text, unsigned line, const char *phrase)
{
	struct ts_exp_spec s;
	char want[32];
	struct ts_err err = {""};
	int ret = ts_exp_spec_parse(&s, "t.ini", text, &err);

	if (line)
		snprintf(want, sizeof(want), "t.ini:%u: ", line);
	else
		snprintf(want, sizeof(want), "t.ini: ");
	if (ret != -EINVAL || strncmp(err.msg, want, strlen(want)) || !strstr(err.msg, phrase))
		fprintf(stderr, "\n  for %u/%s got %d: %s\n", line, phrase, ret, err.msg);
	TSU_EQ(ret, -EINVAL);
	CU_ASSERT(strncmp(err.msg, want, strlen(want)) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, phrase));
}

#define BASE "[matrix]\ncca = cubic\nlink = a\ntest = tcp_upload\n[link a]\ntrace = const:10mbit\n"

static void test_spec_errors(void)
{
	reject(BASE "dealy = 20ms\n", 7,
	       "unknown key 'dealy' (expected tests, flow_stations or a link option of the "
	       "wrapper: "
	       "trace, uplink-trace");
	reject(BASE "delay = -5ms\n", 7, "--delay: '-5ms': negative");
	reject(BASE "delay = 7200s\n", 7, "expected at most 1 hour");
	reject(BASE "uplink-at = middle\n", 7, "expected sender or network");
	reject(BASE "once = maybe\n", 7, "expected true or false");
	reject(BASE "delay = 1ms\ndelay = 2ms\n", 8, "delay given twice");
	reject(BASE "seed = 3\n", 7, "[experiment] seed");
	/* The shaper's scheduling rides in a link section; off or 1-49 only. */
	reject(BASE "rt-priority = 50\n", 7,
	       "--rt-priority: '50' (expected off or a priority 1-49)");
	reject(BASE "rt-priority = 0\n", 7, "--rt-priority: '0'");
	reject(BASE "rt-priority = 10x\n", 7, "--rt-priority: '10x'");
	reject(BASE "rt-priority = -3\n", 7, "--rt-priority: '-3'");
	reject(BASE "rt-priority = +3\n", 7, "--rt-priority: '+3'");
	/*
	 * Found by fuzz_exp_spec: a --mac spec that does not split, or names
	 * another MAC, read on (argp_error returns here) and used the unparsed
	 * spec.
	 */
	reject(BASE "mac = wifi6:phy\n", 7, "--mac: ");
	reject(BASE "mac = ethernet\n", 7, "--mac: unknown MAC 'ethernet'");
	/* a flag has no value: the twice check read a value as an option name past its end */
	reject(BASE "once = 1\ndelay = 2ms\nonce = 1\n", 9, "once given twice");
	reject(BASE "once = 1\nqueue = droptail:packets=9\nqueue = infinite\n", 9,
	       "queue given twice");
	reject(BASE "[links]\n", 7, "unknown section [links]");
	reject(BASE "[foo]\nx = 1\n", 7, "unknown section [foo]");
	reject(BASE "junk\n", 7, "not an INI line");
	reject("[experiment]\nrepetitons = 3\n", 2, "unknown key 'repetitons'");
	reject("[experiment]\nrepetitions = 0\n", 2, "from 1 to 10000");
	reject("[experiment]\norder = random\n", 2, "expected interleave or shuffle");
	reject("[experiment]\nlength = 10 parsecs\n", 2, "length:");
	reject("[experiment]\nserver_delays = 1ms, 2ms\n", 2, "expected 4 times");
	reject("[matrix]\ncc = cubic\n", 2, "unknown axis 'cc'");
	reject("[matrix]\ncca = cubic,, bbr\n", 2, "empty value");
	reject("[matrix]\ncca = cubic, cubic\n", 2, "'cubic' given twice");
	reject("[matrix]\ncca = CUBIC\n", 2, "expected a congestion control name");
	reject("[matrix]\ncca = bpf:reno.o\n", 2, "expected bpf:FILE.bpf.o");
	reject("[matrix]\ncca = cubic\nlink = b\ntest = rrul\n", 3, "no section [link b]");
	reject("[matrix]\ncca = cubic\nlink = a\ntest = rrul_bk\n[link a]\ndelay=1ms\n", 4,
	       "unknown test 'rrul_bk' (expected tcp_upload");
	reject(BASE "[matrix]\ncca = bbr\n", 8, "axis 'cca' given twice");
	reject("[matrix]\ncca = cubic\nlink = a\n[link a]\ndelay=1ms\n", 0, "no 'test' axis");
	reject("[matrix]\ncca = cubic\nlink = a\ntest = rrul\ntas_shift = 9/10\n[link "
	       "a]\ndelay=1ms\n",
	       5, "applies to cca=tas only");
	reject("[matrix]\ncca = tas\ntas_shift = 9-10\n", 3, "expected STARTUP/STEADY");
	reject("[matrix]\nkernel = host, bbr3=k/bzImage\n", 2,
	       "kernel: no section [kernel bbr3=k/bzImage] (expected host or the name");
	reject(BASE "[sysctl]\nkernel.panic = 1\n", 8, "per-namespace sysctl (net.*)");
	reject("x = 1\n", 1, "outside a section");
	/* [experiment] keys are given once, like axes and link keys (not last-wins). */
	reject("[experiment]\nseed = 1\nname = x\nseed = 2\n", 4, "[experiment]: seed given twice");
	reject("[experiment]\nrepetitions = 2\nrepetitions = 2\n", 3, "repetitions given twice");
}

/* A spec whose line 2 is "cca = " and @n values "cN" (@pad: the last one padded to that length). */
static char *long_cca_spec(size_t n, size_t pad)
{
	static const char head[] = "[matrix]\ncca = ";
	static const char tail[] = "\nlink = a\ntest = rrul\n[link a]\ndelay = 1ms\n";
	char *t = malloc(sizeof(head) + n * 8 + pad + sizeof(tail));
	size_t i, len = sizeof(head) - 1;

	CU_ASSERT_FATAL(t != NULL);
	memcpy(t, head, len);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(t + len, "%sc%zu", i ? "," : "", i);
	for (i = 0; pad && i + 2 < pad; i++) /* the last value was "cN": pad it with 'x' */
		t[len++] = 'x';
	memcpy(t + len, tail, sizeof(tail));
	return t;
}

/*
 * Long lines: inih's own buffer is 200 bytes; it split longer lines and
 * handed the rest over as keys of their own ("value 'c4' given twice").
 * Lines of 4096 characters are read whole; one more is refused as too
 * long, on its line, before any of it is taken for a key.
 */
static void test_spec_long_lines(void)
{
	struct ts_exp_spec s;
	char *t;

	/* "cca = c0,c1,...,c59": 6 + 10 x 2 + 50 x 3 + 59 commas = 235 characters */
	t = long_cca_spec(60, 0);
	parse_ok(&s, t);
	TSU_EQ(s.axes[0].nvalues, 60);
	CU_ASSERT_STRING_EQUAL(s.axes[0].values[59], "c59");
	ts_exp_spec_free(&s);
	free(t);
	/* one value of 4090 characters: "cca = " + 4090 = 4096, the longest line read */
	t = long_cca_spec(1, 4090);
	TSU_EQ(strchr(t + 9, '\n') - (t + 9), 4096);
	parse_ok(&s, t);
	TSU_EQ(strlen(s.axes[0].values[0]), 4090);
	ts_exp_spec_free(&s);
	free(t);
	/* 4097 characters: too long, said on line 2 */
	t = long_cca_spec(1, 4091);
	TSU_EQ(strchr(t + 9, '\n') - (t + 9), 4097);
	reject(t, 2, "line longer than 4096 characters");
	free(t);
}

/* A link's error found when the whole link is built names the key's line, not the section's. */
static void test_spec_link_line(void)
{
	struct ts_exp_spec s;
	const struct ts_exp_link *l;

	parse_ok(&s, spec_text);
	l = ts_exp_spec_link(&s, "a");
	CU_ASSERT_FATAL(l != NULL);
	TSU_EQ(l->line, 13);
	TSU_EQ(ts_exp_link_line(l, "dir/t/x.csv: cannot open: No such file or directory"), 13);
	TSU_EQ(ts_exp_link_line(l, "dir/t/x.csv:7: expected a number"), 13);
	TSU_EQ(ts_exp_link_line(l, "--queue: limit too large"), 15);
	TSU_EQ(ts_exp_link_line(l, "--delay: too long"), 14);
	/* neither an option nor a value of this link: the section's first key */
	TSU_EQ(ts_exp_link_line(l, "--mac-queue: there is no Wi-Fi hop"), 13);
	l = ts_exp_spec_link(&s, "w");
	CU_ASSERT_FATAL(l != NULL);
	TSU_EQ(ts_exp_link_line(l, "--once with const:25mbit: a constant rate has no end"), 19);
	TSU_EQ(ts_exp_link_line(l, "const:25mbit: no capacity for the downlink"), 18);
	ts_exp_spec_free(&s);
}

/*
 * A link section's keys are stored as the link grammar read them (a path
 * relative to the spec made relative to here), and the file checks load
 * and build that configuration, naming the key's line when it fails.
 */
static void test_spec_check_links(void)
{
	struct ts_exp_spec s;
	const struct ts_exp_link *l;
	struct ts_err err = {""};

	parse_ok(&s, spec_text);
	l = ts_exp_spec_link(&s, "a");
	CU_ASSERT_FATAL(l != NULL);
	CU_ASSERT_STRING_EQUAL(l->cfg.trace, "dir/t/x.csv");
	TSU_EQ(l->cfg.delay, 20 * TS_NSEC_PER_MSEC);
	CU_ASSERT_STRING_EQUAL(l->cfg.queue[0], "droptail:packets=200");
	CU_ASSERT_PTR_EQUAL(l->cfg.queue[0], l->cfg.queue[1]);
	l = ts_exp_spec_link(&s, "w");
	CU_ASSERT_FATAL(l != NULL);
	CU_ASSERT_STRING_EQUAL(l->cfg.mac, "wifi6:phy=1201mbit");
	CU_ASSERT_TRUE(l->cfg.once);
	TSU_EQ(ts_exp_spec_check_links(&s, &err), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "dir/t.ini:13: [link a]: dir/t/x.csv: cannot open: No such file or "
			       "directory");
	ts_exp_spec_free(&s);

	parse_ok(&s, "[matrix]\ncca = cubic\nlink = ok, w\ntest = tcp_upload\n"
		     "[link ok]\ntrace = " TS_TEST_DATA "/trace-small.csv\ndelay = 5ms\n"
		     "[link w]\nmac = wifi6\nuplink-trace = const:25mbit\nonce = true\n");
	TSU_EQ(ts_exp_spec_check_links(&s, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "dir/t.ini:11: [link w]: --once with const:25mbit: a constant "
			       "rate has no end (use --duration)");
	/* Checked and unloaded: the options stay for the runs, the traces are read again there. */
	l = ts_exp_spec_link(&s, "ok");
	CU_ASSERT_PTR_NULL(l->cfg.cap[0]);
	TSU_EQ(l->cfg.delay, 5 * TS_NSEC_PER_MSEC);
	ts_exp_spec_free(&s);

	parse_ok(&s, "[matrix]\ncca = cubic\nlink = ok\ntest = tcp_upload\n"
		     "[link ok]\ntrace = " TS_TEST_DATA "/trace-small.csv\nonce = false\n");
	TSU_EQ(ts_exp_spec_check_links(&s, &err), 0);
	l = ts_exp_spec_link(&s, "ok");
	CU_ASSERT_FALSE(l->cfg.once);
	TSU_EQ(l->argc, 2); /* once = false is no option at all */
	ts_exp_spec_free(&s);
}

static void plan_ok(struct ts_exp_matrix *p, const struct ts_exp_spec *s,
		    const struct ts_exp_matrix_opts *o)
{
	struct ts_err err = {""};
	int ret = ts_exp_matrix_build(s, o, p, &err);

	if (ret)
		fprintf(stderr, "\n  plan: %s\n", err.msg);
	TSU_EQ(ret, 0);
}

static void test_plan_matrix(void)
{
	struct ts_exp_spec s;
	struct ts_exp_matrix p;
	size_t i;

	parse_ok(&s, spec_text);
	plan_ok(&p, &s, NULL);
	/* cubic, bbr: 2 links x 2 tests = 4 each; tas: 4 x 2 shifts = 8; 16 in all, x 3 reps. */
	TSU_EQ(p.nconfigs, 16);
	TSU_EQ(p.nruns, 48);
	CU_ASSERT_STRING_EQUAL(p.configs[0].id, "cca=cubic,link=a,test=tcp_upload");
	CU_ASSERT_STRING_EQUAL(p.configs[1].id, "cca=cubic,link=a,test=rrul");
	CU_ASSERT_STRING_EQUAL(p.configs[8].id, "cca=tas,link=a,test=tcp_upload,tas_shift=9-10");
	CU_ASSERT_STRING_EQUAL(p.configs[9].id, "cca=tas,link=a,test=tcp_upload,tas_shift=8-8");
	TSU_EQ(p.configs[9].tmpl.tas_shift_startup, 8);
	TSU_EQ(p.configs[8].tmpl.tas_shift_steady, 10);
	TSU_EQ(p.configs[0].tmpl.tas_shift_startup, -1);
	TSU_EQ(p.configs[0].tmpl.naxes, 3);
	TSU_EQ(p.configs[8].tmpl.naxes, 4);
	/* rrul: 4 + 4 streams; tcp_upload: 1 + 0. */
	TSU_EQ(p.configs[1].tmpl.upload_streams, 4);
	TSU_EQ(p.configs[1].tmpl.download_streams, 4);
	TSU_EQ(p.configs[0].tmpl.download_streams, 0);
	CU_ASSERT_STRING_EQUAL(p.configs[2].tmpl.link_name, "w");
	CU_ASSERT_STRING_EQUAL(p.configs[2].tmpl.link_argv[0], "--mac");
	/* The executor reads values from the checked configuration: link a has 20ms, w none. */
	CU_ASSERT_PTR_EQUAL(p.configs[2].tmpl.link, &ts_exp_spec_link(&s, "w")->cfg);
	TSU_EQ(p.configs[2].tmpl.link->delay, 0);
	TSU_EQ(p.configs[0].tmpl.link->delay, 20 * TS_NSEC_PER_MSEC);
	TSU_EQ(p.configs[0].tmpl.length, 8 * TS_NSEC_PER_SEC);
	TSU_EQ(p.configs[0].tmpl.nsysctl, 1);
	/* Interleaved: round 1 is the 16 configurations in matrix order, then round 2. */
	for (i = 0; i < p.nruns; i++) {
		TSU_EQ(p.runs[i].index, i + 1);
		TSU_EQ(p.runs[i].rep, i / 16 + 1);
		TSU_EQ(p.runs[i].seed, 10 + i / 16 + 1); /* seed + k */
		CU_ASSERT_PTR_EQUAL(p.runs[i].config_id, p.configs[i % 16].id);
	}
	ts_exp_matrix_free(&p);
	ts_exp_spec_free(&s);
}

/* The config index order of @p's runs, as a string of letters. */
static void order_of(const struct ts_exp_matrix *p, char *out)
{
	size_t i;

	for (i = 0; i < p->nruns; i++)
		out[i] = (char)('a' + (ts_exp_matrix_config(p, &p->runs[i]) - p->configs));
	out[p->nruns] = '\0';
}

static void shuffled(const char *seed, char *out)
{
	char text[sizeof(spec_text) + 64];
	struct ts_exp_spec s;
	struct ts_exp_matrix p;
	size_t i, k;

	snprintf(text, sizeof(text),
		 "[experiment]\norder = shuffle\nseed = %s\nrepetitions = 3\n%s", seed,
		 strstr(spec_text, "[matrix]"));
	parse_ok(&s, text);
	plan_ok(&p, &s, NULL);
	order_of(&p, out);
	/* Each round still holds every configuration exactly once. */
	for (k = 0; k < 3; k++)
		for (i = 0; i < 16; i++)
			CU_ASSERT_PTR_NOT_NULL(memchr(out + 16 * k, 'a' + (int)i, 16));
	ts_exp_matrix_free(&p);
	ts_exp_spec_free(&s);
}

static void test_plan_shuffle(void)
{
	char a[64], b[64], c[64];

	shuffled("7", a);
	shuffled("7", b);
	shuffled("8", c);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT(strcmp(a, c) != 0);
	CU_ASSERT(strncmp(a, "abcdefghijklmnop", 16) != 0);
	CU_ASSERT(strncmp(a, a + 16, 16) != 0); /* each round is drawn afresh */
}

static void test_plan_only_and_overrides(void)
{
	struct ts_exp_matrix_opts o = {.length = 3 * TS_NSEC_PER_SEC,
				       .delay = 0,
				       .delay_set = 1,
				       .repetitions = 2,
				       .nonly = 3,
				       .only = {"cca=cubic", "test=rrul", "cca=tas"}};
	struct ts_exp_spec s;
	struct ts_exp_matrix p;
	struct ts_err err;

	parse_ok(&s, spec_text);
	plan_ok(&p, &s, &o);
	/* (cubic or tas) and rrul: cubic 2 links, tas 2 links x 2 shifts = 6, x 2 reps. */
	TSU_EQ(p.nconfigs, 6);
	TSU_EQ(p.nruns, 12);
	TSU_EQ(p.runs[0].length, 3 * TS_NSEC_PER_SEC);
	TSU_EQ(p.runs[0].delay, 0);
	CU_ASSERT_STRING_EQUAL(p.runs[0].config_id, "cca=cubic,link=a,test=rrul");
	/* Shard 2 of 5: positions 2, 7, 12, keeping their indexes. */
	TSU_EQ(ts_exp_matrix_shard(&p, 2, 5), 0);
	TSU_EQ(p.nruns, 3);
	TSU_EQ(p.runs[0].index, 2);
	TSU_EQ(p.runs[2].index, 12);
	TSU_EQ(ts_exp_matrix_shard(&p, 0, 5), -EINVAL);
	ts_exp_matrix_free(&p);

	/* A value may be given as the spec writes it or as the id does: 8/8 or 8-8. */
	o.nonly = 2;
	o.only[0] = "tas_shift=8-8";
	o.only[1] = "link=w";
	o.repetitions = 1;
	plan_ok(&p, &s, &o);
	TSU_EQ(p.nconfigs, 2); /* tas on w with 8/8: tcp_upload and rrul */
	CU_ASSERT_STRING_EQUAL(p.configs[0].id, "cca=tas,link=w,test=tcp_upload,tas_shift=8-8");
	ts_exp_matrix_free(&p);

	o.nonly = 1;
	o.only[0] = "cca=reno";
	TSU_EQ(ts_exp_matrix_build(&s, &o, &p, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'reno' is not a value of axis cca (dir/t.ini:8)"));
	o.only[0] = "queue=x";
	TSU_EQ(ts_exp_matrix_build(&s, &o, &p, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no axis 'queue'"));
	ts_exp_spec_free(&s);
}

static void test_plan_streams_servers(void)
{
	struct ts_exp_spec s;
	struct ts_exp_matrix p;

	parse_ok(&s, "[experiment]\nupload_streams = 2\ndownload_streams = 6\n"
		     "server_delays = 0ms, 5ms, 10ms, 20ms\n[matrix]\ncca = cubic\nlink = a\n"
		     "test = tcp_nup, tcp_ndown, rtt_fair\n[link a]\ndelay = 1ms\n");
	plan_ok(&p, &s, NULL);
	TSU_EQ(p.nconfigs, 3);
	TSU_EQ(p.configs[0].tmpl.upload_streams, 2); /* tcp_nup takes upload_streams */
	TSU_EQ(p.configs[0].tmpl.download_streams, 0);
	TSU_EQ(p.configs[1].tmpl.download_streams, 6);
	TSU_EQ(p.configs[2].tmpl.nservers, 4);
	TSU_EQ(p.configs[2].tmpl.server_delay[1], 5 * TS_NSEC_PER_MSEC);
	TSU_EQ(p.configs[2].tmpl.server_delay[3], 20 * TS_NSEC_PER_MSEC);
	TSU_EQ(p.configs[0].tmpl.server_delay[3], 0); /* one server: no extra delays */
	ts_exp_matrix_free(&p);
	ts_exp_spec_free(&s);
	reject("[experiment]\nupload_streams = 65\n", 2, "from 1 to 64");
	reject("[sysctl]\nnet.ipv4.tcp_ecn = 0\nnet.ipv4.tcp_ecn = 1\n", 3, "given twice");
	reject("[sysctl]\nnet.ipv4.tcp_ecn =\n", 2, "expected a value");
}

/*
 * tests = on a link: the BBR-TAS paper's layout, three tests on the station
 * and rtt_fair on the access link. cca 3 (tas x 2 shifts = 4 ccas' worth) x
 * (wifi: 3 tests + access: 1 test) = 4 x 4 = 16 configurations, not 4 x 8.
 */
static void test_plan_link_tests(void)
{
	struct ts_exp_spec s;
	struct ts_exp_matrix p;
	size_t i;

	parse_ok(&s, "[matrix]\ncca = cubic, bbr3, tas\ntas_shift = 7/8, 9/10\n"
		     "link = wifi, access\ntest = tcp_upload, tcp_8up, rrul, rtt_fair\n"
		     "[link wifi]\ntests = tcp_upload, tcp_8up, rrul\ntrace = const:1gbit\n"
		     "[link access]\ntrace = const:25mbit\ntests = rtt_fair\n");
	plan_ok(&p, &s, NULL);
	TSU_EQ(p.nconfigs, 16);
	for (i = 0; i < p.nconfigs; i++) {
		int rtt = !strcmp(p.configs[i].tmpl.test, "rtt_fair");

		TSU_EQ(rtt, !strcmp(p.configs[i].tmpl.link_name, "access"));
	}
	CU_ASSERT_STRING_EQUAL(p.configs[0].id, "cca=cubic,link=wifi,test=tcp_upload");
	CU_ASSERT_STRING_EQUAL(p.configs[3].id, "cca=cubic,link=access,test=rtt_fair");
	/* tests = is the planner's: the wrapper's options of the link do not carry it. */
	TSU_EQ(ts_exp_spec_link(&s, "wifi")->argc, 2);
	ts_exp_matrix_free(&p);
	ts_exp_spec_free(&s);
	reject(BASE "tests = tcp_upload, bogus\n", 7, "[link a]: tests: unknown test 'bogus'");
	reject(BASE "tests = rrul\n", 7, "[link a]: tests: 'rrul' is not a value of [matrix] test");
	reject(BASE "tests = tcp_upload\ntests = tcp_upload\n", 8, "tests given twice");
	reject(BASE "tests =\n", 7, "empty value");
}

/* flow_stations = (plan/flowsta.h): each run carries the link's stations and the list. */
static void test_plan_flow_stations(void)
{
	struct ts_exp_spec s;
	struct ts_exp_matrix p;

	parse_ok(&s, "[matrix]\ncca = cubic\nlink = w, c\ntest = tcp_8down\n"
		     "[link w]\nflow_stations = 2, 0\nmac = wifi6:real=3\n"
		     "[link c]\ntrace = const:10mbit\n");
	plan_ok(&p, &s, NULL);
	TSU_EQ(p.nruns, 2);
	TSU_EQ(p.runs[0].stations, 3);
	TSU_EQ(p.runs[0].nflow_stations, 2);
	TSU_EQ(p.runs[0].flow_stations[0], 2);
	TSU_EQ(p.runs[0].flow_stations[1], 0);
	TSU_EQ(p.runs[1].stations, 1);
	TSU_EQ(p.runs[1].nflow_stations, 0);
	/* The planner's key: not an option of the wrapper. */
	TSU_EQ(ts_exp_spec_link(&s, "w")->argc, 2);
	ts_exp_matrix_free(&p);
	ts_exp_spec_free(&s);
	reject(BASE "flow_stations = 0, 1\n", 7,
	       "[link a]: flow_stations: the link has one station (expected mac = "
	       "wifi6:...,real=N");
	reject(BASE "mac = wifi6:real=2\nflow_stations = 0, 2\n", 8,
	       "[link a]: flow_stations: station 2, but the link has 2 (expected 0 to 1)");
	reject(BASE "flow_stations = 0, one\n", 7, "flow_stations: 'one' is no station");
	reject(BASE "mac = wifi6:real=2\nflow_stations = 1\nflow_stations = 1\n", 9,
	       "flow_stations given twice");
}

#define KBASE                                                                                      \
	"[matrix]\ncca = cubic\nlink = a\ntest = tcp_upload\nkernel = host, k\n[link a]\ndelay = " \
	"1ms\n"

/* [kernel NAME]: what the keys become, their errors' lines, and the ids of the kernel axis. */
static void test_kernel_sections(void)
{
	static const char text[] = "[matrix]\n"						 /* 1 */
				   "cca = cubic\n"					 /* 2 */
				   "link = a\n"						 /* 3 */
				   "test = tcp_upload\n"				 /* 4 */
				   "kernel = host, bbr3, deb\n"				 /* 5 */
				   "[link a]\n"						 /* 6 */
				   "delay = 1ms\n"					 /* 7 */
				   "[kernel bbr3]\n"					 /* 8 */
				   "image = k/bzImage\n"				 /* 9 */
				   "modules = k/lib/modules/6.12.0\n"			 /* 10 */
				   "modprobe = tcp_bbr_tas tas_pacing_shift_startup=9\n" /* 11 */
				   "modprobe = sch_fq\n"				 /* 12 */
				   "accel = tcg\n"					 /* 13 */
				   "cpus = 2\n"						 /* 14 */
				   "memory = 512m\n"					 /* 15 */
				   "[kernel deb]\n"					 /* 16 */
				   "image = debian\n"					 /* 17 */
				   "clock = virtual\n"					 /* 18 */
				   "time_dilation = 2.5\n";				 /* 19 */
	struct ts_exp_spec s;
	struct ts_exp_matrix p;
	const struct ts_exp_kernel *k;

	parse_ok(&s, text);
	TSU_EQ(s.nkernels, 2);
	k = ts_exp_spec_kernel(&s, "bbr3");
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	TSU_EQ(k->line, 9); /* the section's first key, as for [link NAME] */
	CU_ASSERT_STRING_EQUAL(k->image, "k/bzImage");
	CU_ASSERT_STRING_EQUAL(k->modules, "k/lib/modules/6.12.0");
	TSU_EQ(k->nmodprobe, 2);
	CU_ASSERT_STRING_EQUAL(k->modprobe[0], "tcp_bbr_tas tas_pacing_shift_startup=9");
	CU_ASSERT_STRING_EQUAL(k->modprobe[1], "sch_fq");
	CU_ASSERT_STRING_EQUAL(k->accel, "tcg");
	CU_ASSERT_PTR_NULL(k->clock); /* auto: virtual under TCG */
	TSU_EQ(k->cpus, 2);
	TSU_EQ(k->memory, 512ULL << 20);
	k = ts_exp_spec_kernel(&s, "deb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	CU_ASSERT_STRING_EQUAL(k->image, "debian");
	CU_ASSERT_PTR_NULL(k->accel);
	CU_ASSERT_STRING_EQUAL(k->clock, "virtual");
	TSU_EQ(k->cpus, 0);
	TSU_EQ(k->dilation_milli, 2500);
	TSU_EQ(ts_exp_spec_kernel(&s, "bbr3")->dilation_milli, 0);
	CU_ASSERT_PTR_NULL(ts_exp_spec_kernel(&s, "bbr3")->clock); /* not dilated: stays auto */
	CU_ASSERT_PTR_NULL(ts_exp_spec_kernel(&s, "host"));
	plan_ok(&p, &s, NULL);
	/* 1 cca x 1 link x 1 test x 3 kernels. */
	TSU_EQ(p.nconfigs, 3);
	CU_ASSERT_STRING_EQUAL(p.configs[0].id, "cca=cubic,link=a,test=tcp_upload,kernel=host");
	CU_ASSERT_STRING_EQUAL(p.configs[1].id, "cca=cubic,link=a,test=tcp_upload,kernel=bbr3");
	CU_ASSERT_STRING_EQUAL(p.configs[2].id, "cca=cubic,link=a,test=tcp_upload,kernel=deb");
	CU_ASSERT_PTR_NULL(p.configs[0].tmpl.vm);
	CU_ASSERT_PTR_EQUAL(p.configs[1].tmpl.vm, ts_exp_spec_kernel(&s, "bbr3"));
	CU_ASSERT_PTR_EQUAL(p.configs[2].tmpl.vm, ts_exp_spec_kernel(&s, "deb"));
	TSU_EQ(p.configs[2].tmpl.in_guest, 0);
	ts_exp_matrix_free(&p);
	ts_exp_spec_free(&s);

	reject("[matrix]\ncca = cubic\nlink = a\ntest = tcp_upload\nkernel = host, k2\n[link "
	       "a]\ndelay = 1ms\n[kernel k]\nimage = debian\n",
	       5, "kernel: no section [kernel k2] (expected host or the name of a [kernel NAME]");
	reject(KBASE "[kernel k]\nmodules = m\n", 9, "[kernel k]: no image (expected image");
	reject(KBASE "[kernel k]\nimage = debian\naccel = hvf\n", 10,
	       "[kernel k]: accel: 'hvf' (expected kvm, tcg or auto)");
	reject(KBASE "[kernel k]\nimage = debian\nclock = icount\n", 10,
	       "[kernel k]: clock: 'icount' (expected virtual, real or auto)");
	reject(KBASE "[kernel k]\nimage = debian\nclock = real\nclock = virtual\n", 11,
	       "[kernel k]: clock given twice");
	reject(KBASE "[kernel k]\nimage = debian\ncpus = 0\n", 10,
	       "cpus: expected a whole number from 1 to 64, got '0'");
	reject(KBASE "[kernel k]\nimage = debian\nmemory = 1m\n", 10,
	       "[kernel k]: memory: expected 128m to 64g, got '1m'");
	reject(KBASE "[kernel k]\nimage = debian\nimage = x\n", 10,
	       "[kernel k]: image given twice");
	/* A dilated guest is sealed: clock = virtual implied; 1 is no dilation, clock left auto. */
	parse_ok(&s, KBASE "[kernel k]\nimage = debian\ntime_dilation = 2\n");
	k = ts_exp_spec_kernel(&s, "k");
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	TSU_EQ(k->dilation_milli, 2000);
	CU_ASSERT_STRING_EQUAL(k->clock, "virtual");
	ts_exp_spec_free(&s);
	parse_ok(&s, KBASE "[kernel k]\nimage = debian\ntime_dilation = 1\n");
	k = ts_exp_spec_kernel(&s, "k");
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	TSU_EQ(k->dilation_milli, 0);
	CU_ASSERT_PTR_NULL(k->clock);
	ts_exp_spec_free(&s);
	reject(KBASE "[kernel k]\nimage = debian\ntime_dilation = 0.5\n", 10,
	       "[kernel k]: time_dilation: expected 1 (none) or a factor from 1.1 to 8, got '0.5'");
	reject(KBASE "[kernel k]\nimage = debian\nappend = quiet notsc\ntime_dilation = 2\n", 11,
	       "[kernel k]: append with time_dilation: 'notsc': a dilated guest keeps time");
	reject(KBASE "[kernel k]\nimage = debian\ntime_dilation = 2x\n", 10,
	       "[kernel k]: time_dilation: '2x': unexpected 'x'");
	reject(KBASE "[kernel k]\nimage = debian\ntime_dilation = 2\ntime_dilation = 3\n", 11,
	       "[kernel k]: time_dilation given twice");
	reject(KBASE "[kernel k]\nimage = debian\ntime_dilation = 1\ntime_dilation = 1\n", 11,
	       "[kernel k]: time_dilation given twice");
	reject(KBASE "[kernel k]\nimage = debian\nclock = real\ntime_dilation = 2\n", 11,
	       "[kernel k]: time_dilation needs clock = virtual (a sealed guest), not real");
	reject(KBASE "[kernel k]\ntime_dilation = 2\naccel = kvm\nimage = debian\n", 9,
	       "[kernel k]: time_dilation needs clock = virtual, which accel = kvm");
	reject(KBASE "[kernel k]\nimage = debian\nkernel = x\n", 10,
	       "[kernel k]: unknown key 'kernel' (expected image, modules, modprobe");
	reject(KBASE "[kernel host]\nimage = debian\n", 9, "'host' is this machine's kernel");
	reject(KBASE "[kernel a/b]\nimage = debian\n", 8, "unknown section [kernel a/b]");
}

/*
 * A [kernel NAME] section is data: modprobe is a module and its parameters (no modprobe
 * option, which would run the spec author's install commands as root in the guest), append
 * only allowed kernel parameters (no init= or root=), each refused at its line.
 */
static void test_kernel_keys_are_data(void)
{
	struct ts_exp_spec s;

	reject(KBASE "[kernel k]\nimage = debian\nmodprobe = -C evil.conf x\n", 10,
	       "[kernel k]: modprobe: '-C': expected a module name");
	reject(KBASE "[kernel k]\nimage = debian\nmodprobe = tcp_bbr -C evil.conf\n", 10,
	       "[kernel k]: modprobe: '-C': expected PARAM=VALUE");
	reject(KBASE "[kernel k]\nimage = debian\nmodprobe = ../../tmp/x.ko\n", 10,
	       "modprobe: '../../tmp/x.ko': expected a module name");
	reject(KBASE "[kernel k]\nimage = debian\nappend = quiet init=/bin/sh\n", 10,
	       "[kernel k]: append: 'init=/bin/sh': not a kernel parameter tasshape passes on");
	reject(KBASE "[kernel k]\nimage = debian\nappend = -- x\n", 10, "append: '--': not");
	reject(KBASE "[kernel k]\nimage = debian\nappend = modprobe.blacklist=9p\n", 10,
	       "append: 'modprobe.blacklist=9p'");
	/* What the guests need stays: module parameters, the console, the clock source. */
	parse_ok(&s, KBASE "[kernel k]\nimage = debian\nmodprobe = tcp_bbr_tas "
			   "tas_pacing_shift_startup=7\nappend = clocksource=tsc loglevel=7 "
			   "tasshape.clock=virtual\n");
	CU_ASSERT_STRING_EQUAL(s.kernels[0].append,
			       "clocksource=tsc loglevel=7 tasshape.clock=virtual");
	TSU_EQ(s.kernels[0].image_line, 9);
	ts_exp_spec_free(&s);
}

static void test_plan_ids(void)
{
	struct ts_exp_spec s;
	struct ts_exp_matrix p;
	struct ts_err err;

	parse_ok(&s, "[matrix]\ncca = bpf:progs/reno.bpf.o, bbr3\nlink = a\ntest = tcp_8up, "
		     "rtt_fair\nkernel = host\n[link a]\ndelay = 1ms\n");
	plan_ok(&p, &s, NULL);
	TSU_EQ(p.nconfigs, 4);
	CU_ASSERT_STRING_EQUAL(p.configs[0].id, "cca=bpf:reno,link=a,test=tcp_8up,kernel=host");
	CU_ASSERT_STRING_EQUAL(p.configs[0].tmpl.cca, "bpf:progs/reno.bpf.o");
	CU_ASSERT(ts_exp_value_matches("bpf:progs/reno.bpf.o", "bpf:reno"));
	CU_ASSERT(ts_exp_value_matches("bpf:progs/reno.bpf.o", "bpf:progs/reno.bpf.o"));
	CU_ASSERT(!ts_exp_value_matches("bpf:progs/reno.bpf.o", "reno"));
	CU_ASSERT_STRING_EQUAL(p.configs[0].tmpl.test, "tcp_nup"); /* tcp_8up is tcp_nup, 8 */
	TSU_EQ(p.configs[0].tmpl.upload_streams, 8);
	CU_ASSERT_STRING_EQUAL(p.configs[0].tmpl.kernel, "host");
	TSU_EQ(p.configs[1].tmpl.nservers, 4);
	TSU_EQ(p.configs[1].tmpl.server_delay[2], 30 * TS_NSEC_PER_MSEC);
	TSU_EQ(p.configs[0].tmpl.nservers, 1);
	ts_exp_matrix_free(&p);
	ts_exp_spec_free(&s);
	/* Two objects with one file name would share a directory: refused. */
	parse_ok(&s, "[matrix]\ncca = bpf:a/reno.bpf.o, bpf:b/reno.bpf.o\nlink = a\ntest = rrul\n"
		     "[link a]\ndelay = 1ms\n");
	TSU_EQ(ts_exp_matrix_build(&s, NULL, &p, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "two configurations have the id"));
	ts_exp_spec_free(&s);
}

/*
 * A generated spec: @ncca ccas (c0, c1, ...; "tas" first when @tas), @nlinks
 * links, the first @ntests tests, @nkern kernel values (host and k0, k1, ...),
 * two tas_shift values when @tas, and @experiment as the [experiment] section.
 */
static char *gen_spec(size_t ncca, int tas, size_t nlinks, size_t ntests, size_t nkern,
		      const char *experiment)
{
	char *t = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&t, &len);

	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "[experiment]\n%s[matrix]\ncca = %s", experiment, tas ? "tas" : "c0");
	for (i = 1; i < ncca; i++)
		fprintf(f, ",c%zu", i);
	fprintf(f, "\nlink = l0");
	for (i = 1; i < nlinks; i++)
		fprintf(f, ",l%zu", i);
	fprintf(f, "\ntest = %s", ts_exp_tests[0].name);
	for (i = 1; i < ntests; i++)
		fprintf(f, ",%s", ts_exp_tests[i].name);
	fprintf(f, "\nkernel = host");
	for (i = 1; i < nkern; i++)
		fprintf(f, ",k%zu", i);
	fprintf(f, "\n%s", tas ? "tas_shift = 9/10, 8/8\n" : "");
	for (i = 0; i < nlinks; i++)
		fprintf(f, "[link l%zu]\ndelay = 1ms\n", i);
	for (i = 1; i < nkern; i++)
		fprintf(f, "[kernel k%zu]\nimage = debian\n", i);
	fclose(f);
	return t;
}

static void plan_refused(const struct ts_exp_spec *s, const struct ts_exp_matrix_opts *o,
			 const char *want)
{
	struct ts_exp_matrix p;
	struct ts_err err = {""};

	TSU_EQ(ts_exp_matrix_build(s, o, &p, &err), -EINVAL);
	if (!strstr(err.msg, want))
		fprintf(stderr, "\n  got: %s\n  expected: %s\n", err.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	/* refused before anything was allocated: nothing to free, nothing kept */
	CU_ASSERT_PTR_NULL(p.configs);
	CU_ASSERT_PTR_NULL(p.runs);
}

/*
 * The plan's limits, found from the axes alone before anything is
 * allocated: TS_EXP_MAX_CONFIGS (100,000) configurations in the spec,
 * TS_EXP_MAX_RUNS (100,000) runs kept, and seeds that do not wrap.
 */
static void test_plan_limits(void)
{
	struct ts_exp_matrix_opts o = {0};
	struct ts_exp_spec s;
	struct ts_exp_matrix p;
	char *t;

	/* Every parser limit at once: 64 x 32 x 9 x 17 = 313,344 configurations. */
	t = gen_spec(64, 0, 32, 9, 17, "");
	parse_ok(&s, t);
	TSU_EQ(ts_exp_matrix_count(&s, NULL), 313344);
	plan_refused(&s, NULL,
		     "t.ini: the matrix has 313344 configurations (cca 64 x link 32 x test 9 x "
		     "kernel 17), more than the limit of 100000 configurations");
	ts_exp_spec_free(&s);
	free(t);

	/* 50 x 25 x 8 x 10 = 100,000: at the limit, accepted (--only keeps 8 of them). */
	t = gen_spec(50, 0, 25, 8, 10, "");
	parse_ok(&s, t);
	TSU_EQ(ts_exp_matrix_count(&s, NULL), 100000);
	o.nonly = 2;
	o.only[0] = "cca=c7";
	o.only[1] = "link=l24";
	TSU_EQ(ts_exp_matrix_count(&s, &o), 80); /* 1 x 1 x 8 x 10 */
	plan_ok(&p, &s, &o);
	TSU_EQ(p.nconfigs, 80);
	TSU_EQ(p.nruns, 80);
	ts_exp_matrix_free(&p);
	ts_exp_spec_free(&s);
	free(t);

	/* tas and 49 others, tas_shift 2: (49 + 1 x 2) x 25 x 8 x 10 = 102,000, one too many. */
	t = gen_spec(50, 1, 25, 8, 10, "");
	parse_ok(&s, t);
	TSU_EQ(ts_exp_matrix_count(&s, NULL), 102000);
	o.nonly = 1;
	o.only[0] = "tas_shift=9/10"; /* only tas has the axis: 1 x 2,000 */
	TSU_EQ(ts_exp_matrix_count(&s, &o), 2000);
	o.only[0] = "cca=c3"; /* one cca without the axis */
	TSU_EQ(ts_exp_matrix_count(&s, &o), 2000);
	o.nonly = 2;
	o.only[1] = "cca=tas"; /* (1 + 2) x 2,000 */
	TSU_EQ(ts_exp_matrix_count(&s, &o), 6000);
	o.only[1] = "link=l0"; /* 1 x 1 x 8 x 10 */
	TSU_EQ(ts_exp_matrix_count(&s, &o), 80);
	/* the spec's matrix is over the limit whatever --only keeps */
	plan_refused(&s, &o,
		     "the matrix has 102000 configurations (cca 50 x link 25 x test 8 x "
		     "kernel 10 x tas_shift 2), more than the limit of 100000");
	ts_exp_spec_free(&s);
	free(t);

	/* Runs: 2 configurations x 50,000 repetitions = 100,000, the limit; 50,001 is over. */
	t = gen_spec(2, 0, 1, 1, 1, "");
	parse_ok(&s, t);
	memset(&o, 0, sizeof(o));
	o.repetitions = 50001;
	plan_refused(&s, &o,
		     "t.ini: 2 configurations x 50001 repetitions = 100002 runs, more than the "
		     "limit of 100000 runs");
	o.repetitions = 50000;
	plan_ok(&p, &s, &o);
	TSU_EQ(p.nruns, 100000);
	TSU_EQ(p.runs[99999].index, 100000);
	TSU_EQ(p.runs[99999].rep, 50000);
	TSU_EQ(p.runs[99999].seed, 1 + 50000);
	ts_exp_matrix_free(&p);
	ts_exp_spec_free(&s);
	free(t);
	/* The spec's own limit on repetitions (10,000) with 18,432 configurations: 184,320,000 runs. */
	t = gen_spec(64, 0, 32, 9, 1, "repetitions = 10000\n");
	parse_ok(&s, t);
	plan_refused(&s, NULL,
		     "18432 configurations x 10000 repetitions = 184320000 runs, more than the "
		     "limit of 100000 runs");
	ts_exp_spec_free(&s);
	free(t);

	/* Seeds: run k is seeded seed + k, which must stay below 2^64. */
	t = gen_spec(1, 0, 1, 1, 1, "seed = 18446744073709551614\n");
	parse_ok(&s, t);
	plan_ok(&p, &s, NULL);
	TSU_EQ(p.runs[0].seed == UINT64_MAX, 1);
	ts_exp_matrix_free(&p);
	o.repetitions = 2;
	plan_refused(&s, &o,
		     "seed 18446744073709551614: runs are seeded seed + repetition (1 to 2), "
		     "which passes 2^64 - 1 (expected a seed of at most 18446744073709551613)");
	ts_exp_spec_free(&s);
	free(t);
	t = gen_spec(1, 0, 1, 1, 1, "seed = 18446744073709551615\n");
	parse_ok(&s, t);
	plan_refused(&s, NULL, "(expected a seed of at most 18446744073709551614)");
	ts_exp_spec_free(&s);
	free(t);
}

/* Duplicate ids are found wherever they are in the matrix, not only next to each other. */
static void test_plan_dup_ids(void)
{
	struct ts_exp_spec s;
	struct ts_exp_matrix p;
	struct ts_err err;

	parse_ok(&s, "[matrix]\ncca = bpf:a/reno.bpf.o, cubic, bbr, reno, bpf:b/reno.bpf.o\n"
		     "link = a, b\ntest = rrul, tcp_upload\n[link a]\ndelay = 1ms\n[link b]\n"
		     "delay = 2ms\n");
	TSU_EQ(ts_exp_matrix_build(&s, NULL, &p, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "dir/t.ini: two configurations have the id "
					"'cca=bpf:reno,link=a,test=rrul' (two bpf objects with the "
					"same file name?)");
	ts_exp_spec_free(&s);
}

/* Reading a spec: a directory and an endless file get their own message (bad-input cases). */
static void test_spec_load(void)
{
	struct ts_exp_spec s;
	struct ts_err err = {""};

	TSU_EQ(ts_exp_spec_load(&s, TS_TEST_DATA, &err), -EISDIR);
	CU_ASSERT_STRING_EQUAL(err.msg, TS_TEST_DATA ": cannot read: Is a directory");
	TSU_EQ(ts_exp_spec_load(&s, "/dev/zero", &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "/dev/zero: larger than 1048576 bytes: not an experiment spec");
}

static const struct tsu_test tests[] = {
	{"reading a spec file: directory, endless file", test_spec_load},
	{"spec values", test_spec_values},
	{"spec defaults", test_spec_defaults},
	{"spec errors name file, line, expectation", test_spec_errors},
	{"rt-priority in a link section", test_spec_rt_priority},
	{"spec lines up to 4096 characters, longer refused", test_spec_long_lines},
	{"a link's error names its key's line", test_spec_link_line},
	{"link sections stored by the grammar, loaded by the link check", test_spec_check_links},
	{"matrix limits: configurations, runs, seeds", test_plan_limits},
	{"duplicate ids found by sorting", test_plan_dup_ids},
	{"matrix, ids, interleaved order, seeds", test_plan_matrix},
	{"shuffle: seeded, per round", test_plan_shuffle},
	{"--only, overrides, shards", test_plan_only_and_overrides},
	{"streams and rtt_fair servers", test_plan_streams_servers},
	{"a link's tests = keeps its tests only", test_plan_link_tests},
	{"a link's flow_stations = and its real stations", test_plan_flow_stations},
	{"ids of bpf, streams, servers", test_plan_ids},
	{"kernel sections and the kernel axis", test_kernel_sections},
	{"a kernel section's keys are data", test_kernel_keys_are_data},
};

TSU_MAIN("exp plan", tests)
