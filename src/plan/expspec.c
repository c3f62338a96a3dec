/* SPDX-License-Identifier: MIT */
/*
 * Reading an experiment spec. libinih does the INI syntax; this file
 * knows the sections and keys. inih reports only the line of the first
 * handler failure, so the reader below counts lines itself and every key
 * is stored with its line, which later checks (an axis naming a link
 * section that does not exist) can still cite.
 */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/expspec.h"
#include "plan/flowsta.h"
#include "link/grammar.h"
#include "tasshape/units.h"
#include "vm/guestargs.h"

const struct ts_exp_test_def ts_exp_tests[] = {
	{"tcp_upload", "tcp_upload", 1, 0, 1, "one TCP upload, ICMP ping"},
	{"tcp_download", "tcp_download", 0, 1, 1, "one TCP download, ICMP ping"},
	{"tcp_nup", "tcp_nup", -1, 0, 1, "upload_streams TCP uploads (default 4), ICMP ping"},
	{"tcp_ndown", "tcp_ndown", 0, -1, 1,
	 "download_streams TCP downloads (default 4), ICMP ping"},
	{"tcp_8up", "tcp_nup", 8, 0, 1, "tcp_nup with 8 streams"},
	{"tcp_8down", "tcp_ndown", 0, 8, 1, "tcp_ndown with 8 streams"},
	{"rrul", "rrul", 4, 4, 1,
	 "4 TCP up + 4 down marked BE, BK, CS5, EF; ICMP ping; UDP probes EF, BK, BE"},
	{"rrul_be", "rrul_be", 4, 4, 1, "rrul with every flow best effort"},
	{"rtt_fair", "rtt_fair", 4, 0, 4, "one TCP flow to each of 4 servers at different RTTs"},
};
const size_t ts_exp_ntests = sizeof(ts_exp_tests) / sizeof(ts_exp_tests[0]);
/* A link's tests = key is a bit mask over this table. */
_Static_assert(sizeof(ts_exp_tests) / sizeof(ts_exp_tests[0]) <= 32, "tests fit a uint32_t");

const struct ts_exp_test_def *ts_exp_test_find(const char *name)
{
	size_t i;

	for (i = 0; i < ts_exp_ntests; i++)
		if (!strcmp(ts_exp_tests[i].name, name))
			return &ts_exp_tests[i];
	return NULL;
}

bool ts_exp_link_runs(const struct ts_exp_link *l, const struct ts_exp_test_def *t)
{
	return !l->tests || (l->tests >> (t - ts_exp_tests) & 1u);
}

/* The names of every test, for messages. */
static void test_names(char *names, size_t len)
{
	size_t k, n = 0;

	names[0] = '\0';
	for (k = 0; k < ts_exp_ntests && n < len; k++)
		n += (size_t)snprintf(names + n, len - n, "%s%s", k ? ", " : "",
				      ts_exp_tests[k].name);
}

static const char *const axis_names[] = {"cca", "link", "test", "tas_shift", "kernel"};
#define NAXIS_NAMES (sizeof(axis_names) / sizeof(axis_names[0]))

struct parse_ctx {
	struct ts_exp_spec *spec;
	const char *text; /* the reader's position */
	unsigned line;	  /* line of the chunk inih is handling */
	unsigned done;	  /* lines read to their end */
	struct ts_err *err;
	int failed;
	unsigned experiment_seen;  /* bit i: experiment_keys[i] was given */
	unsigned bad_section_line; /* first line of a section inih never reports (no keys) */
	char bad_section[128];
};

static int fail(struct parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parse_ctx *c, const char *fmt, ...)
{
	char what[TS_ERR_MAX];
	va_list ap;

	if (c->failed)
		return 0;
	c->failed = 1;
	va_start(ap, fmt);
	ts_err_vformat(what, sizeof(what), fmt, ap);
	va_end(ap);
	ts_err_set(c->err, "%s:%u: %s", c->spec->path, c->line, what);
	return 0; /* inih: stop */
}

static int is_name_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == '-' || ch == '.';
}

static int check_section_name(const char *s)
{
	if (!strcmp(s, "experiment") || !strcmp(s, "matrix") || !strcmp(s, "sysctl"))
		return 0;
	if ((!strncmp(s, "link ", 5) || !strncmp(s, "kernel ", 7)) && s[s[0] == 'l' ? 5 : 7]) {
		for (s += s[0] == 'l' ? 5 : 7; *s; s++)
			if (!is_name_char((unsigned char)*s))
				return -1;
		return 0;
	}
	return -1;
}

/*
 * inih's line reader, counting lines. A header with no keys never reaches
 * the handler, so headers are checked here too: an unknown empty section
 * is still an error.
 */
static char *reader(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	size_t n = 0;
	const char *p;

	if (!*c->text)
		return NULL;
	while (n + 1 < (size_t)num && c->text[n])
		if (c->text[n++] == '\n')
			break;
	memcpy(str, c->text, n);
	str[n] = '\0';
	c->line = c->done + 1;
	if (n && str[n - 1] == '\n') {
		c->done++;
	} else if (c->text[n]) {
		/*
		 * inih would hand the rest to the handler as another line (a
		 * "value given twice" or an unknown key): say what is wrong and stop.
		 */
		fail(c, "line longer than %d characters (expected KEY = VALUE on one line)",
		     TS_EXP_SPEC_LINE_MAX);
		return NULL;
	}
	c->text += n;

	for (p = str; *p == ' ' || *p == '\t'; p++)
		;
	if (*p == '[' && !c->bad_section_line) {
		const char *end = strchr(p, ']');
		char name[128];
		size_t len = end ? (size_t)(end - p - 1) : 0;

		if (end && len < sizeof(name)) {
			memcpy(name, p + 1, len);
			name[len] = '\0';
			if (check_section_name(name) < 0) {
				c->bad_section_line = c->line;
				snprintf(c->bad_section, sizeof(c->bad_section), "%s", name);
			}
		}
	}
	return str;
}

/* Split "a, b , c" into trimmed, non-empty, distinct values. */
static int split_values(struct parse_ctx *c, const char *what, const char *value, char **out,
			size_t *nout, size_t max)
{
	const char *p = value;
	size_t i;

	*nout = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		while (p < end && isspace((unsigned char)*p))
			p++;
		while (end > p && isspace((unsigned char)end[-1]))
			end--;
		if (end == p)
			return fail(c, "%s: empty value in '%s' (expected a comma-separated list)",
				    what, value);
		if (*nout == max)
			return fail(c, "%s: more than %zu values", what, max);
		out[*nout] = strndup(p, (size_t)(end - p));
		if (!out[*nout])
			return fail(c, "out of memory");
		for (i = 0; i < *nout; i++)
			if (!strcmp(out[i], out[*nout])) {
				free(out[*nout]);
				return fail(c, "%s: value '%s' given twice", what, out[i]);
			}
		(*nout)++;
		if (!comma)
			return 1;
		p = comma + 1;
	}
}

static int parse_uint(struct parse_ctx *c, const char *key, const char *v, unsigned lo, unsigned hi,
		      unsigned *out)
{
	struct ts_err e;
	uint64_t x;

	if (ts_parse_u64(v, &x, &e) < 0 || x < lo || x > hi)
		return fail(c, "%s: expected a whole number from %u to %u, got '%s'", key, lo, hi,
			    v);
	*out = (unsigned)x;
	return 1;
}

static int parse_dur(struct parse_ctx *c, const char *key, const char *v, ts_ns_t lo, ts_ns_t *out)
{
	struct ts_err e;
	ts_ns_t t;

	if (ts_parse_time(v, &t, &e) < 0)
		return fail(c, "%s: %s", key, e.msg);
	if (t < lo || t > 24 * 3600 * TS_NSEC_PER_SEC)
		return fail(c, "%s: expected a time from %s to 24h, got '%s'", key,
			    lo ? "1ms" : "0s", v);
	*out = t;
	return 1;
}

static const char *const experiment_keys[] = {
	"name", "repetitions", "length",	"delay", "upload_streams", "download_streams",
	"seed", "order",       "server_delays",
};
#define NEXPERIMENT_KEYS (sizeof(experiment_keys) / sizeof(experiment_keys[0]))

/* As for axes and link keys, a second value of a key is a mistake, not an override. */
static int experiment_once(struct parse_ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < NEXPERIMENT_KEYS && strcmp(experiment_keys[i], name); i++)
		;
	if (i == NEXPERIMENT_KEYS)
		return 1; /* an unknown key: experiment_key says so */
	if (c->experiment_seen & (1u << i))
		return fail(c, "[experiment]: %s given twice", name);
	c->experiment_seen |= 1u << i;
	return 1;
}

static int experiment_key(struct parse_ctx *c, const char *name, const char *value)
{
	struct ts_exp_spec *s = c->spec;

	if (!experiment_once(c, name))
		return 0;
	if (!strcmp(name, "name")) {
		free(s->name);
		s->name = strdup(value);
		return s->name ? 1 : fail(c, "out of memory");
	}
	if (!strcmp(name, "repetitions"))
		return parse_uint(c, name, value, 1, 10000, &s->repetitions);
	if (!strcmp(name, "length"))
		return parse_dur(c, name, value, TS_NSEC_PER_MSEC, &s->length);
	if (!strcmp(name, "delay"))
		return parse_dur(c, name, value, 0, &s->delay);
	if (!strcmp(name, "upload_streams"))
		return parse_uint(c, name, value, 1, 64, &s->upload_streams);
	if (!strcmp(name, "download_streams"))
		return parse_uint(c, name, value, 1, 64, &s->download_streams);
	if (!strcmp(name, "seed")) {
		struct ts_err e;

		if (ts_parse_u64(value, &s->seed, &e) < 0)
			return fail(c, "seed: %s", e.msg);
		return 1;
	}
	if (!strcmp(name, "order")) {
		if (!strcmp(value, "interleave"))
			s->order = TS_EXP_ORDER_INTERLEAVE;
		else if (!strcmp(value, "shuffle"))
			s->order = TS_EXP_ORDER_SHUFFLE;
		else
			return fail(c, "order: '%s' (expected interleave or shuffle)", value);
		return 1;
	}
	if (!strcmp(name, "server_delays")) {
		char *v[TS_EXP_MAX_SERVERS + 1];
		size_t n = 0, i;
		int ok = split_values(c, name, value, v, &n, TS_EXP_MAX_SERVERS + 1);

		if (ok && n != TS_EXP_MAX_SERVERS)
			ok = fail(c, "server_delays: expected %d times (one per rtt_fair server)",
				  TS_EXP_MAX_SERVERS);
		for (i = 0; ok && i < n; i++)
			ok = parse_dur(c, name, v[i], 0, &s->server_delay[i]);
		for (i = 0; i < n; i++)
			free(v[i]);
		return ok;
	}
	return fail(
		c,
		"[experiment]: unknown key '%s' (expected name, repetitions, length, delay, seed, "
		"order, upload_streams, download_streams or server_delays)",
		name);
}

static int matrix_key(struct parse_ctx *c, const char *name, const char *value)
{
	struct ts_exp_spec *s = c->spec;
	struct ts_exp_axis *a;
	size_t i;

	for (i = 0; i < NAXIS_NAMES && strcmp(axis_names[i], name); i++)
		;
	if (i == NAXIS_NAMES)
		return fail(c,
			    "[matrix]: unknown axis '%s' (expected cca, link, test, tas_shift or "
			    "kernel)",
			    name);
	if (ts_exp_spec_axis(s, name))
		return fail(c, "[matrix]: axis '%s' given twice", name);
	a = &s->axes[s->naxes];
	a->name = strdup(name);
	if (!a->name)
		return fail(c, "out of memory");
	a->line = c->line;
	s->naxes++;
	return split_values(c, name, value, a->values, &a->nvalues, TS_EXP_MAX_VALUES);
}

static int sysctl_key(struct parse_ctx *c, const char *name, const char *value)
{
	struct ts_exp_spec *s = c->spec;
	const char *p;
	size_t i;

	/* Only per-namespace sysctls: the run must not change the host. */
	if (strncmp(name, "net.", 4))
		return fail(c, "[sysctl]: '%s': expected a per-namespace sysctl (net.*)", name);
	for (p = name; *p; p++)
		if (!is_name_char((unsigned char)*p) && *p != '/')
			return fail(c, "[sysctl]: '%s': not a sysctl name", name);
	if (!*value)
		return fail(c, "[sysctl]: %s: expected a value", name);
	for (i = 0; i < s->nsysctl; i++)
		if (!strcmp(s->sysctl[i].key, name))
			return fail(c, "[sysctl]: %s given twice", name);
	if (s->nsysctl == TS_EXP_MAX_SYSCTL)
		return fail(c, "[sysctl]: more than %d sysctls", TS_EXP_MAX_SYSCTL);
	s->sysctl[s->nsysctl].key = strdup(name);
	s->sysctl[s->nsysctl].value = strdup(value);
	s->sysctl_line[s->nsysctl] = c->line;
	s->nsysctl++;
	if (!s->sysctl[s->nsysctl - 1].key || !s->sysctl[s->nsysctl - 1].value)
		return fail(c, "out of memory");
	return 1;
}

/* The link keys, comma-separated, for the message about an unknown one. */
static void list_link_keys(char *buf, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < TS_LINKKEY_COUNT; i++) {
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? ", " : "",
				      ts_link_keys[i].name);
		if (n >= len)
			return;
	}
}

/*
 * A FILE option whose value is a path relative to the spec: not absolute,
 * not const:RATE, and either with a directory in it or a file beside the
 * spec; a bare name that is neither stays as written, for the wrapper to
 * find among the bundled traces ("trace = starlink").
 */
static int is_relative_file(const struct ts_exp_spec *s, const struct ts_linkkey *k,
			    const char *value)
{
	const char *slash = strrchr(s->path, '/');
	char path[4096];

	if (strcmp(k->arg, "FILE") || value[0] == '/' || strchr(value, ':'))
		return 0;
	if (strchr(value, '/'))
		return 1;
	snprintf(path, sizeof(path), "%.*s/%s", slash ? (int)(slash - s->path) : 1,
		 slash ? s->path : ".", value);
	return access(path, F_OK) == 0;
}

/* Append "--NAME" and, unless it is NULL, @value to the link's wrapper options. */
static int link_push(struct parse_ctx *c, struct ts_exp_link *l, const char *name, char *value)
{
	char **argv = realloc(l->argv, (l->argc + 3) * sizeof(char *));
	unsigned *keyline;

	if (!argv) {
		free(value);
		return fail(c, "out of memory");
	}
	l->argv = argv;
	keyline = realloc(l->keyline, (l->argc + 2) * sizeof(*keyline));
	if (!keyline) {
		free(value);
		return fail(c, "out of memory");
	}
	l->keyline = keyline;
	keyline[l->argc] = keyline[l->argc + 1] = c->line;
	if (asprintf(&argv[l->argc], "--%s", name) < 0) {
		argv[l->argc] = NULL;
		free(value);
		return fail(c, "out of memory");
	}
	argv[++l->argc] = NULL;
	if (value) {
		argv[l->argc] = value;
		argv[++l->argc] = NULL;
	}
	return 1;
}

static struct ts_exp_link *link_section(struct parse_ctx *c, const char *lname)
{
	struct ts_exp_spec *s = c->spec;
	struct ts_exp_link *l;
	size_t i;

	for (i = 0; i < s->nlinks; i++)
		if (!strcmp(s->links[i].name, lname))
			return &s->links[i];
	if (s->nlinks == TS_EXP_MAX_LINKS) {
		fail(c, "more than %d link sections", TS_EXP_MAX_LINKS);
		return NULL;
	}
	l = &s->links[s->nlinks++];
	ts_linkcfg_init(&l->cfg);
	l->name = strdup(lname);
	l->line = c->line;
	l->argv = calloc(1, sizeof(char *));
	l->keyline = calloc(1, sizeof(unsigned));
	if (!l->name || !l->argv || !l->keyline) {
		fail(c, "out of memory");
		return NULL;
	}
	return l;
}

/*
 * tests = NAME, ...: the tests this link takes part in (a testbed whose
 * tests run on different links, as the BBR-TAS paper's RTT-fair test ran
 * on its access link and the others on the Wi-Fi station); the planner
 * skips the other tests' configurations of this link.
 */
static int link_tests_key(struct parse_ctx *c, const char *section, struct ts_exp_link *l,
			  const char *value)
{
	char *v[TS_EXP_MAX_VALUES], what[300], names[512];
	size_t n = 0, i;
	int ret;

	if (l->tests)
		return fail(c, "[%s]: tests given twice", section);
	snprintf(what, sizeof(what), "[%s]: tests", section);
	ret = split_values(c, what, value, v, &n, TS_EXP_MAX_VALUES);
	for (i = 0; ret > 0 && i < n; i++) {
		const struct ts_exp_test_def *t = ts_exp_test_find(v[i]);

		if (!t) {
			test_names(names, sizeof(names));
			ret = fail(c, "%s: unknown test '%s' (expected %s)", what, v[i], names);
		} else {
			l->tests |= 1u << (t - ts_exp_tests);
		}
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	l->tests_line = c->line;
	return ret;
}

/* flow_stations = S, ...: the station behind which each flow runs (plan/flowsta.h). */
static int link_flow_stations_key(struct parse_ctx *c, const char *section, struct ts_exp_link *l,
				  const char *value)
{
	struct ts_err e;

	if (l->flow_stations_line)
		return fail(c, "[%s]: flow_stations given twice", section);
	l->flow_stations_line = c->line;
	if (ts_exp_flow_stations_parse(value, l->flow_stations, &l->nflow_stations, &e) < 0)
		return fail(c, "[%s]: %s", section, e.msg);
	return 1;
}

/*
 * A [link NAME] key: a link option of the wrapper, checked and stored by
 * the link grammar (ts_linkcfg_set) into the section's configuration, and
 * kept as wrapper options for the run that uses it.
 */
static int link_key(struct parse_ctx *c, const char *section, const char *name, const char *value)
{
	struct ts_exp_spec *s = c->spec;
	const struct ts_linkkey *k;
	struct ts_exp_link *l;
	struct ts_err e;
	char *v = NULL;
	size_t i;

	l = link_section(c, section + 5);
	if (!l)
		return 0;
	if (!strcmp(name, "tests"))
		return link_tests_key(c, section, l, value);
	if (!strcmp(name, "flow_stations"))
		return link_flow_stations_key(c, section, l, value);
	k = ts_linkkey_find(name);
	if (!k) {
		char keys[1024] = "";

		list_link_keys(keys, sizeof(keys));
		return fail(c,
			    "[%s]: unknown key '%s' (expected tests, flow_stations or a link "
			    "option of the wrapper: %s)",
			    section, name, keys);
	}
	if (!strcmp(name, "seed"))
		return fail(c,
			    "[%s]: seed: the emulator's seed comes from [experiment] seed + the "
			    "repetition",
			    section);
	/* argv is options, each followed by its value unless it is a flag (found by fuzz_exp_spec). */
	for (i = 0; i < l->argc; i++) {
		const struct ts_linkkey *prev = ts_linkkey_find(l->argv[i] + 2);

		if (!strcmp(l->argv[i] + 2, name))
			return fail(c, "[%s]: %s given twice", section, name);
		if (prev && prev->arg)
			i++;
	}
	if (!k->arg) {
		if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "0"))
			return 1; /* a flag off is no option at all */
		if (strcmp(value, "") && strcmp(value, "true") && strcmp(value, "yes") &&
		    strcmp(value, "1"))
			return fail(c, "[%s]: %s: expected true or false, got '%s'", section, name,
				    value);
	} else if (!*value) {
		return fail(c, "[%s]: %s: expected a value (%s)", section, name, k->arg);
	} else if (is_relative_file(s, k, value)) {
		/* A relative file is where the spec is, wherever tasshape runs from. */
		const char *slash = strrchr(s->path, '/');
		int dlen = slash ? (int)(slash - s->path) : 1;

		if (asprintf(&v, "%.*s/%s", dlen, slash ? s->path : ".", value) < 0)
			return fail(c, "out of memory");
	} else {
		v = strdup(value);
		if (!v)
			return fail(c, "out of memory");
	}
	if (ts_linkcfg_set(&l->cfg, name, v, &e) < 0) {
		free(v);
		return fail(c, "%s", e.msg);
	}
	return link_push(c, l, name, v);
}

/* append: kernel parameters of the guests' allow-list (vm/guestargs.h), never init or root. */
static int kernel_append(struct parse_ctx *c, const char *section, struct ts_exp_kernel *k,
			 const char *value)
{
	struct ts_err e;

	if (ts_vm_append_check(value, &e) < 0)
		return fail(c, "[%s]: append: %s", section, e.msg);
	k->append = strdup(value);
	return k->append ? 1 : fail(c, "out of memory");
}

/* time_dilation: the sealed guest's clock runs K times slower than QEMU's (vm/guestargs.h). */
static int kernel_dilation(struct parse_ctx *c, const char *section, struct ts_exp_kernel *k,
			   const char *value)
{
	struct ts_err e;

	if (k->dilation_line)
		return fail(c, "[%s]: time_dilation given twice", section);
	if (ts_vm_dilation_parse(value, &k->dilation_milli, &e) < 0)
		return fail(c, "[%s]: time_dilation: %s", section, e.msg);
	k->dilation_line = c->line;
	return 1;
}

/* The section [@section] ("kernel NAME"), added at its first key; NULL after fail(). */
static struct ts_exp_kernel *kernel_section(struct parse_ctx *c, const char *section)
{
	struct ts_exp_spec *s = c->spec;
	const char *kname = section + 7;
	struct ts_exp_kernel *k;
	size_t i;

	for (i = 0; i < s->nkernels; i++)
		if (!strcmp(s->kernels[i].name, kname))
			return &s->kernels[i];
	if (!strcmp(kname, "host")) {
		fail(c, "[%s]: 'host' is this machine's kernel (expected another name)", section);
		return NULL;
	}
	if (s->nkernels == TS_EXP_MAX_KERNELS) {
		fail(c, "more than %d kernel sections", TS_EXP_MAX_KERNELS);
		return NULL;
	}
	k = &s->kernels[s->nkernels++];
	k->name = strdup(kname);
	k->line = c->line;
	if (!k->name)
		fail(c, "out of memory");
	return k->name ? k : NULL;
}

/*
 * A [kernel NAME] key. Paths stay as written (relative to where tasshape
 * runs, like the wrapper's own options), since the kernel axis names the
 * section, not the file: configuration ids stay short and path-free.
 */
static int kernel_key(struct parse_ctx *c, const char *section, const char *name, const char *value)
{
	struct ts_exp_kernel *k = kernel_section(c, section);
	char **str = NULL;

	if (!k)
		return 0;
	if (!*value)
		return fail(c, "[%s]: %s: expected a value", section, name);
	if (!strcmp(name, "modprobe")) {
		struct ts_err e;

		if (k->nmodprobe == TS_EXP_MAX_MODPROBE)
			return fail(c, "[%s]: more than %d modprobe lines", section,
				    TS_EXP_MAX_MODPROBE);
		/* Words modprobe runs as root in the guest: a module and its parameters only. */
		if (ts_vm_modprobe_check(value, &e) < 0)
			return fail(c, "[%s]: modprobe: %s", section, e.msg);
		k->modprobe[k->nmodprobe] = strdup(value);
		if (!k->modprobe[k->nmodprobe])
			return fail(c, "out of memory");
		k->nmodprobe++;
		return 1;
	}
	if (!strcmp(name, "cpus")) {
		if (k->cpus)
			return fail(c, "[%s]: cpus given twice", section);
		return parse_uint(c, "cpus", value, 1, 64, &k->cpus);
	}
	if (!strcmp(name, "time_dilation"))
		return kernel_dilation(c, section, k, value);
	if (!strcmp(name, "memory")) {
		struct ts_err e;

		if (k->memory)
			return fail(c, "[%s]: memory given twice", section);
		if (ts_parse_size(value, &k->memory, &e) < 0)
			return fail(c, "[%s]: memory: %s", section, e.msg);
		if (k->memory < (128ULL << 20) || k->memory > (64ULL << 30))
			return fail(c, "[%s]: memory: expected 128m to 64g, got '%s'", section,
				    value);
		return 1;
	}
	if (!strcmp(name, "image"))
		str = &k->image;
	else if (!strcmp(name, "modules"))
		str = &k->modules;
	else if (!strcmp(name, "append"))
		str = &k->append;
	else if (!strcmp(name, "accel"))
		str = &k->accel;
	else if (!strcmp(name, "clock"))
		str = &k->clock;
	else
		return fail(c,
			    "[%s]: unknown key '%s' (expected image, modules, modprobe, accel, "
			    "clock, cpus, memory, time_dilation or append)",
			    section, name);
	if (*str)
		return fail(c, "[%s]: %s given twice", section, name);
	if (str == &k->append)
		return kernel_append(c, section, k, value);
	if (str == &k->image)
		k->image_line = c->line;
	if (str == &k->modules)
		k->modules_line = c->line;
	if (str == &k->accel && strcmp(value, "auto") && strcmp(value, "kvm") &&
	    strcmp(value, "tcg"))
		return fail(c, "[%s]: accel: '%s' (expected kvm, tcg or auto)", section, value);
	if (str == &k->clock && strcmp(value, "auto") && strcmp(value, "virtual") &&
	    strcmp(value, "real"))
		return fail(c, "[%s]: clock: '%s' (expected virtual, real or auto)", section,
			    value);
	*str = strdup(value);
	return *str ? 1 : fail(c, "out of memory");
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *c = user;

	if (c->failed)
		return 0;
	if (c->bad_section_line) {
		c->line = c->bad_section_line;
		return fail(c,
			    "unknown section [%s] (expected experiment, matrix, link NAME, kernel "
			    "NAME or sysctl)",
			    c->bad_section);
	}
	if (!value)
		return fail(c, "'%s': expected KEY = VALUE", name);
	if (!strcmp(section, "experiment"))
		return experiment_key(c, name, value);
	if (!strcmp(section, "matrix"))
		return matrix_key(c, name, value);
	if (!strcmp(section, "sysctl"))
		return sysctl_key(c, name, value);
	if (!strncmp(section, "link ", 5) && check_section_name(section) == 0)
		return link_key(c, section, name, value);
	if (!strncmp(section, "kernel ", 7) && check_section_name(section) == 0)
		return kernel_key(c, section, name, value);
	if (!*section)
		return fail(c,
			    "'%s' outside a section (expected [experiment], [matrix], [link NAME], "
			    "[kernel NAME] or [sysctl] first)",
			    name);
	return fail(c,
		    "unknown section [%s] (expected experiment, matrix, link NAME, kernel NAME or "
		    "sysctl)",
		    section);
}

/* A link's tests = names tests of the test axis, or the link would run nothing. */
static int check_link_tests(struct parse_ctx *c)
{
	const struct ts_exp_spec *s = c->spec;
	const struct ts_exp_axis *ta = ts_exp_spec_axis(s, "test");
	size_t i, j;

	for (i = 0; i < s->nlinks; i++) {
		const struct ts_exp_link *l = &s->links[i];
		uint32_t on_axis = 0;

		if (!l->tests)
			continue;
		for (j = 0; j < ta->nvalues; j++)
			on_axis |= 1u << (ts_exp_test_find(ta->values[j]) - ts_exp_tests);
		c->line = l->tests_line;
		for (j = 0; j < ts_exp_ntests; j++)
			if ((l->tests & ~on_axis) >> j & 1u)
				return fail(
					c, "[link %s]: tests: '%s' is not a value of [matrix] test",
					l->name, ts_exp_tests[j].name);
	}
	return 1;
}

/* A link's flow_stations = names stations its mac's real=N has (the mac may come after it). */
static int check_link_flow_stations(struct parse_ctx *c)
{
	const struct ts_exp_spec *s = c->spec;
	struct ts_err e;
	size_t i;

	for (i = 0; i < s->nlinks; i++) {
		const struct ts_exp_link *l = &s->links[i];

		c->line = l->flow_stations_line;
		if (ts_exp_flow_stations_check(l->flow_stations, l->nflow_stations,
					       ts_linkcfg_stations(&l->cfg), &e) < 0)
			return fail(c, "[link %s]: %s", l->name, e.msg);
	}
	return 1;
}

/* A cca value: a kernel name of [a-z0-9_], or bpf:FILE.bpf.o. */
static int check_cca(struct parse_ctx *c, const char *v)
{
	const char *p = v;

	if (!strncmp(v, "bpf:", 4)) {
		size_t n = strlen(v);

		if (n < 4 + 6 || strcmp(v + n - 6, ".bpf.o"))
			return fail(c, "cca: '%s': expected bpf:FILE.bpf.o", v);
		return 1;
	}
	for (; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			return fail(c,
				    "cca: '%s': expected a congestion control name (cubic, bbr, "
				    "bbr3, tas, ...) or bpf:FILE.bpf.o",
				    v);
	return 1;
}

/* Value @v of axis @a: a section that exists, a known test, a well-formed cca or shift. */
static int check_axis_value(struct parse_ctx *c, const struct ts_exp_axis *a, const char *v)
{
	const struct ts_exp_spec *s = c->spec;

	if (!strcmp(a->name, "link") && !ts_exp_spec_link(s, v))
		return fail(c,
			    "link: no section [link %s] (expected one of the [link NAME] sections)",
			    v);
	if (!strcmp(a->name, "test") && !ts_exp_test_find(v)) {
		char names[512];

		test_names(names, sizeof(names));
		return fail(c, "test: unknown test '%s' (expected %s)", v, names);
	}
	if (!strcmp(a->name, "cca"))
		return check_cca(c, v);
	if (!strcmp(a->name, "tas_shift")) {
		unsigned st, ss;
		char tail;

		if (sscanf(v, "%u/%u%c", &st, &ss, &tail) != 2 || st > 31 || ss > 31)
			return fail(c,
				    "tas_shift: '%s': expected STARTUP/STEADY pacing shifts from 0 "
				    "to 31, e.g. 9/10",
				    v);
	}
	if (!strcmp(a->name, "kernel") && strcmp(v, "host") && !ts_exp_spec_kernel(s, v))
		return fail(c,
			    "kernel: no section [kernel %s] (expected host or the name of a "
			    "[kernel NAME] section)",
			    v);
	return 1;
}

/* A tas_shift axis only with tas among the congestion controls. */
static int check_tas_shift(struct parse_ctx *c)
{
	const struct ts_exp_axis *a = ts_exp_spec_axis(c->spec, "tas_shift");
	const struct ts_exp_axis *cca = ts_exp_spec_axis(c->spec, "cca");
	size_t j;

	if (!a)
		return 1;
	for (j = 0; j < cca->nvalues && strcmp(cca->values[j], "tas"); j++)
		;
	if (j < cca->nvalues)
		return 1;
	c->line = a->line;
	return fail(c, "tas_shift: applies to cca=tas only, and the cca axis has no tas");
}

/*
 * A dilated kernel's guests are sealed, so in virtual time: clock = virtual, said or implied
 * (set here, so that every reader of the spec sees it), never real or under KVM; and its
 * append leaves the clocks the dilation sets alone. 1, or 0 after fail().
 */
static int check_kernel_dilation(struct parse_ctx *c, struct ts_exp_kernel *k)
{
	struct ts_err e;

	c->line = k->dilation_line;
	if (k->clock && !strcmp(k->clock, "real"))
		return fail(c,
			    "[kernel %s]: time_dilation needs clock = virtual (a sealed guest), "
			    "not real",
			    k->name);
	if (k->accel && !strcmp(k->accel, "kvm"))
		return fail(c,
			    "[kernel %s]: time_dilation needs clock = virtual, which accel = kvm "
			    "cannot give",
			    k->name);
	if (ts_vm_append_keeps_clock(k->append, &e) < 0)
		return fail(c, "[kernel %s]: append with time_dilation: %s", k->name, e.msg);
	if (!k->clock && !(k->clock = strdup("virtual")))
		return fail(c, "out of memory");
	return 1;
}

static int check_axis_values(struct parse_ctx *c)
{
	struct ts_exp_spec *s = c->spec;
	const struct ts_exp_axis *a;
	size_t i, j;

	for (i = 0; i < s->naxes; i++) {
		a = &s->axes[i];
		c->line = a->line;
		for (j = 0; j < a->nvalues; j++)
			if (!check_axis_value(c, a, a->values[j]))
				return 0;
	}
	for (i = 0; i < s->nkernels; i++) {
		struct ts_exp_kernel *k = &s->kernels[i];

		if (!k->image) {
			c->line = k->line;
			return fail(c, "[kernel %s]: no image (expected image = BZIMAGE or debian)",
				    k->name);
		}
		if (k->dilation_milli && !check_kernel_dilation(c, k))
			return 0;
	}
	for (i = 0; i < 3; i++)
		if (!ts_exp_spec_axis(s, axis_names[i])) {
			c->line = 0;
			ts_err_set(c->err,
				   "%s: [matrix] has no '%s' axis (expected cca, link and test)",
				   s->path, axis_names[i]);
			c->failed = 1;
			return 0;
		}
	if (!check_link_tests(c) || !check_link_flow_stations(c))
		return 0;
	return check_tas_shift(c);
}

int ts_exp_spec_parse(struct ts_exp_spec *spec, const char *path, const char *text,
		      struct ts_err *err)
{
	struct parse_ctx c;
	int line;

	memset(spec, 0, sizeof(*spec));
	spec->repetitions = 1;
	spec->length = 30 * TS_NSEC_PER_SEC;
	spec->delay = 5 * TS_NSEC_PER_SEC;
	spec->seed = 1;
	spec->upload_streams = spec->download_streams = 4;
	/* rtt_fair's default servers: 0, 10, 30 and 70 ms more one way than the link's delay. */
	spec->server_delay[1] = 10 * TS_NSEC_PER_MSEC;
	spec->server_delay[2] = 30 * TS_NSEC_PER_MSEC;
	spec->server_delay[3] = 70 * TS_NSEC_PER_MSEC;
	spec->path = strdup(path);
	spec->name = strdup("experiment");
	if (!spec->path || !spec->name) {
		ts_err_set(err, "%s: out of memory", path);
		ts_exp_spec_free(spec);
		return -ENOMEM;
	}
	memset(&c, 0, sizeof(c));
	c.spec = spec;
	c.text = text;
	c.err = err;
	/* A continuation line would reach the handler as the same key again: off. */
	ini_allow_multiline = false;
	/*
	 * Debian's libinih makes its build options variables: a heap line
	 * buffer of a fixed size (not inih's 200 bytes on the stack) holds a
	 * long cca or link line; the reader refuses longer ones. inih needs 2
	 * more bytes than the longest line for the newline and the NUL.
	 */
	ini_use_stack = false;
	ini_allow_realloc = false;
	ini_initial_alloc = ini_max_line = TS_EXP_SPEC_LINE_MAX + 2;
	line = ini_parse_stream(reader, &c, handler, &c);
	if (!c.failed && c.bad_section_line) {
		c.line = c.bad_section_line;
		fail(&c,
		     "unknown section [%s] (expected experiment, matrix, link NAME, kernel NAME or "
		     "sysctl)",
		     c.bad_section);
	}
	if (!c.failed && line > 0) {
		c.line = (unsigned)line;
		fail(&c, "not an INI line (expected [SECTION] or KEY = VALUE)");
	}
	if (!c.failed)
		check_axis_values(&c);
	if (c.failed) {
		ts_exp_spec_free(spec);
		return -EINVAL;
	}
	return 0;
}

int ts_exp_spec_load(struct ts_exp_spec *spec, const char *path, struct ts_err *err)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	int ret;

	memset(spec, 0, sizeof(*spec));
	if (!*path) {
		ts_err_set(err, "'': an empty file name (expected an experiment spec)");
		if (f)
			fclose(f);
		return -EINVAL;
	}
	if (!f) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
		return ret;
	}
	{
		FILE *m = open_memstream(&text, &len);
		char buf[4096];
		size_t n;

		if (!m) {
			fclose(f);
			ts_err_set(err, "%s: out of memory", path);
			return -ENOMEM;
		}
		size_t total = 0;

		ret = 0;
		errno = 0;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
			/* A spec is a page of text: /dev/zero or a wrong file must not fill memory. */
			total += n;
			if (total > TS_EXP_SPEC_MAX) {
				ret = -EFBIG;
				break;
			}
			fwrite(buf, 1, n, m);
		}
		if (!ret && ferror(f))
			ret = errno ? -errno : -EIO;
		fclose(m);
	}
	fclose(f);
	if (ret == -EFBIG) {
		ts_err_set(err, "%s: larger than %d bytes: not an experiment spec", path,
			   TS_EXP_SPEC_MAX);
		free(text);
		return -EINVAL;
	}
	if (ret < 0) {
		ts_err_set(err, "%s: cannot read: %s", path, strerror(-ret));
		free(text);
		return ret;
	}
	if (strlen(text) != len) {
		ts_err_set(err, "%s: a NUL byte (expected an INI text file)", path);
		free(text);
		return -EINVAL;
	}
	ret = ts_exp_spec_parse(spec, path, text, err);
	free(text);
	return ret;
}

void ts_exp_spec_free(struct ts_exp_spec *spec)
{
	size_t i, j;

	for (i = 0; i < spec->naxes; i++) {
		free(spec->axes[i].name);
		for (j = 0; j < spec->axes[i].nvalues; j++)
			free(spec->axes[i].values[j]);
	}
	for (i = 0; i < spec->nlinks; i++) {
		free(spec->links[i].name);
		for (j = 0; spec->links[i].argv && j < spec->links[i].argc; j++)
			free(spec->links[i].argv[j]);
		free(spec->links[i].argv);
		free(spec->links[i].keyline);
		ts_linkcfg_free(&spec->links[i].cfg);
	}
	for (i = 0; i < spec->nkernels; i++) {
		struct ts_exp_kernel *k = &spec->kernels[i];

		free(k->name);
		free(k->image);
		free(k->modules);
		free(k->accel);
		free(k->clock);
		free(k->append);
		for (j = 0; j < k->nmodprobe; j++)
			free(k->modprobe[j]);
	}
	for (i = 0; i < spec->nsysctl; i++) {
		free((char *)spec->sysctl[i].key);
		free((char *)spec->sysctl[i].value);
	}
	free(spec->path);
	free(spec->name);
	memset(spec, 0, sizeof(*spec));
}

const struct ts_exp_axis *ts_exp_spec_axis(const struct ts_exp_spec *spec, const char *name)
{
	size_t i;

	for (i = 0; i < spec->naxes; i++)
		if (!strcmp(spec->axes[i].name, name))
			return &spec->axes[i];
	return NULL;
}

const struct ts_exp_link *ts_exp_spec_link(const struct ts_exp_spec *spec, const char *name)
{
	size_t i;

	for (i = 0; i < spec->nlinks; i++)
		if (!strcmp(spec->links[i].name, name))
			return &spec->links[i];
	return NULL;
}

/* Does @msg start with @s followed by ':' or ' '? */
static int starts_with_word(const char *msg, const char *s)
{
	size_t n = strlen(s);

	return n && !strncmp(msg, s, n) && (msg[n] == ':' || msg[n] == ' ');
}

unsigned ts_exp_link_line(const struct ts_exp_link *l, const char *msg)
{
	size_t i;

	for (i = 0; i < l->argc; i++)
		if (starts_with_word(msg, l->argv[i]))
			return l->keyline[i];
	/* A trace found beside the spec is read as "./x.csv" when the spec has no directory. */
	for (i = 0; i < l->argc; i++)
		if (!strncmp(msg, "./", 2) && starts_with_word(msg + 2, l->argv[i]))
			return l->keyline[i];
	return l->line;
}

const struct ts_exp_kernel *ts_exp_spec_kernel(const struct ts_exp_spec *spec, const char *name)
{
	size_t i;

	for (i = 0; i < spec->nkernels; i++)
		if (!strcmp(spec->kernels[i].name, name))
			return &spec->kernels[i];
	return NULL;
}
