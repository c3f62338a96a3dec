/* SPDX-License-Identifier: MIT */
/* Matrix expansion and run order (docs/experiments.md, "Matrix and order"). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan/matrix.h"
#include "plan/flowsta.h"
#include "tasshape/rng.h"
#include "tasshape/units.h"

static int plan_err(struct ts_err *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int plan_err(struct ts_err *err, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (err)
		ts_err_vformat(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return ret;
}

const char *ts_exp_run_axis(const struct ts_exp_run *run, const char *axis)
{
	size_t i;

	for (i = 0; i < run->naxes; i++)
		if (!strcmp(run->axes[i].axis, axis))
			return run->axes[i].value;
	return NULL;
}

const char *ts_exp_id_value(char *buf, size_t len, const char *value)
{
	const char *p = value;
	size_t n = 0;

	if (!strncmp(value, "bpf:", 4)) {
		/* bpf:dir/reno.bpf.o -> bpf:reno (the object's name, not where it lies) */
		const char *base = strrchr(value, '/');

		p = base ? base + 1 : value + 4;
		n = (size_t)snprintf(buf, len, "bpf:");
	}
	for (; *p && n + 1 < len; p++) {
		char ch = *p;

		if (!strncmp(value, "bpf:", 4) && !strcmp(p, ".bpf.o"))
			break;
		/* Keep [A-Za-z0-9._:+-]; '/' (tas_shift 9/10) becomes '-', the rest '_'. */
		if (ch == '/')
			ch = '-';
		else if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			   (ch >= '0' && ch <= '9') || strchr("._:+-", ch)))
			ch = '_';
		buf[n++] = ch;
	}
	buf[n < len ? n : len - 1] = '\0';
	return buf;
}

int ts_exp_value_matches(const char *raw, const char *given)
{
	char id[512];

	return !strcmp(raw, given) || !strcmp(ts_exp_id_value(id, sizeof(id), raw), given);
}

/* Append "axis=value" to @id, the value in its directory-safe form. */
static void id_append(char *id, size_t len, const char *axis, const char *value)
{
	size_t n = strlen(id);
	char v[512];

	snprintf(id + n, n < len ? len - n : 0, "%s%s=%s", n ? "," : "", axis,
		 ts_exp_id_value(v, sizeof(v), value));
}

static int only_keeps(const struct ts_exp_matrix_opts *opts, const struct ts_exp_run *run)
{
	size_t i, j;

	if (!opts)
		return 1;
	for (i = 0; i < opts->nonly; i++) {
		const char *eq = strchr(opts->only[i], '=');
		size_t alen = (size_t)(eq - opts->only[i]);
		int match = 0, same_axis = 0;
		const char *v;

		/* Values of one axis are alternatives; different axes must all match. */
		for (j = 0; j < opts->nonly; j++) {
			if (strncmp(opts->only[j], opts->only[i], alen + 1))
				continue;
			same_axis++;
			{
				char axis[64];

				snprintf(axis, sizeof(axis), "%.*s", (int)alen, opts->only[i]);
				v = ts_exp_run_axis(run, axis);
			}
			if (v && ts_exp_value_matches(v, opts->only[j] + alen + 1))
				match = 1;
		}
		if (same_axis && !match)
			return 0;
	}
	return 1;
}

static int check_only(const struct ts_exp_spec *spec, const struct ts_exp_matrix_opts *opts,
		      struct ts_err *err)
{
	size_t i, j;

	for (i = 0; opts && i < opts->nonly; i++) {
		const char *eq = strchr(opts->only[i], '=');
		const struct ts_exp_axis *a = NULL;
		char axis[64];

		if (!eq || eq == opts->only[i] || (size_t)(eq - opts->only[i]) >= sizeof(axis))
			return plan_err(err, -EINVAL, "--only '%s': expected AXIS=VALUE",
					opts->only[i]);
		snprintf(axis, sizeof(axis), "%.*s", (int)(eq - opts->only[i]), opts->only[i]);
		a = ts_exp_spec_axis(spec, axis);
		if (!a)
			return plan_err(err, -EINVAL,
					"--only '%s': %s has no axis '%s' in [matrix]",
					opts->only[i], spec->path, axis);
		for (j = 0; j < a->nvalues && !ts_exp_value_matches(a->values[j], eq + 1); j++)
			;
		if (j == a->nvalues)
			return plan_err(err, -EINVAL,
					"--only '%s': '%s' is not a value of axis %s (%s:%u)",
					opts->only[i], eq + 1, axis, spec->path, a->line);
	}
	return 0;
}

/* Fill the run of the matrix point @idx (one value index per axis). */
static int fill_run(const struct ts_exp_spec *spec, const struct ts_exp_matrix_opts *opts,
		    const size_t *idx, struct ts_exp_run *r, char *id, size_t idlen)
{
	const struct ts_exp_test_def *t = NULL;
	const struct ts_exp_link *l = NULL;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->tas_shift_startup = r->tas_shift_steady = -1;
	for (i = 0; i < spec->naxes; i++)
		if (!strcmp(spec->axes[i].name, "cca"))
			r->cca = spec->axes[i].values[idx[i]];
	id[0] = '\0';
	for (i = 0; i < spec->naxes; i++) {
		const struct ts_exp_axis *a = &spec->axes[i];
		const char *v = a->values[idx[i]];

		if (!strcmp(a->name, "tas_shift")) {
			/* Only BBR-TAS has pacing shifts: other ccas get one configuration. */
			if (strcmp(r->cca, "tas")) {
				if (idx[i])
					return 0;
				continue;
			}
			sscanf(v, "%d/%d", &r->tas_shift_startup, &r->tas_shift_steady);
		} else if (!strcmp(a->name, "link")) {
			l = ts_exp_spec_link(spec, v);
		} else if (!strcmp(a->name, "test")) {
			t = ts_exp_test_find(v);
		} else if (!strcmp(a->name, "kernel")) {
			r->kernel = v;
			r->vm = ts_exp_spec_kernel(spec, v);
		}
		r->axes[r->naxes].axis = a->name;
		r->axes[r->naxes].value = v;
		r->naxes++;
		id_append(id, idlen, a->name, v);
	}
	if (!ts_exp_link_runs(l, t))
		return 0; /* the link's tests = leaves this test out */
	r->link_name = l->name;
	r->link_argv = l->argv;
	r->link = &l->cfg;
	r->stations = ts_linkcfg_stations(&l->cfg);
	r->nflow_stations = l->nflow_stations;
	r->flow_stations = l->flow_stations;
	r->test = t->runs_as;
	r->upload_streams = t->up < 0 ? spec->upload_streams : (unsigned)t->up;
	r->download_streams = t->down < 0 ? spec->download_streams : (unsigned)t->down;
	r->nservers = t->servers;
	if (t->servers > 1)
		memcpy(r->server_delay, spec->server_delay, sizeof(r->server_delay));
	r->length = opts && opts->length ? opts->length : spec->length;
	r->delay = opts && opts->delay_set ? opts->delay : spec->delay;
	r->nsysctl = spec->nsysctl;
	memcpy(r->sysctl, spec->sysctl, sizeof(r->sysctl));
	r->spec_path = spec->path;
	r->spec_sha256 = spec->sha256;
	return only_keeps(opts, r);
}

/* Does --only in @opts keep value @v of axis @axis (every value when no --only names the axis)? */
static int only_keeps_value(const struct ts_exp_matrix_opts *opts, const char *axis, const char *v)
{
	size_t alen = strlen(axis), i;
	int named = 0;

	for (i = 0; opts && i < opts->nonly; i++) {
		if (strncmp(opts->only[i], axis, alen) || opts->only[i][alen] != '=')
			continue;
		named = 1;
		if (ts_exp_value_matches(v, opts->only[i] + alen + 1))
			return 1;
	}
	return !named;
}

static uint64_t kept_values(const struct ts_exp_matrix_opts *opts, const struct ts_exp_axis *a)
{
	uint64_t n = 0;
	size_t j;

	for (j = 0; j < a->nvalues; j++)
		n += (uint64_t)only_keeps_value(opts, a->name, a->values[j]);
	return n;
}

uint64_t ts_exp_matrix_count(const struct ts_exp_spec *spec, const struct ts_exp_matrix_opts *opts)
{
	const struct ts_exp_axis *cca = ts_exp_spec_axis(spec, "cca");
	const struct ts_exp_axis *shift = ts_exp_spec_axis(spec, "tas_shift");
	uint64_t n = 1, tas = 0, other = 0;
	size_t i, j;

	for (i = 0; i < spec->naxes; i++)
		if (&spec->axes[i] != cca && &spec->axes[i] != shift)
			n *= kept_values(opts, &spec->axes[i]);
	if (!cca)
		return n;
	for (j = 0; j < cca->nvalues; j++)
		if (only_keeps_value(opts, "cca", cca->values[j]))
			*(!strcmp(cca->values[j], "tas") ? &tas : &other) += 1;
	if (!shift)
		return n * (tas + other);
	/*
	 * Only cca=tas has pacing shifts: every other cca is one configuration
	 * without the axis, which an --only naming tas_shift therefore drops.
	 */
	if (!only_keeps_value(opts, "tas_shift", ""))
		other = 0;
	return n * (tas * kept_values(opts, shift) + other);
}

/* The sizes of the axes, "cca 64 x link 32 x test 9", for the limit's message. */
static void axis_sizes(const struct ts_exp_spec *spec, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < spec->naxes && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s %zu", i ? " x " : "",
				      spec->axes[i].name, spec->axes[i].nvalues);
}

/* Check the plan's size and seeds against their limits, before anything is allocated. */
static int check_limits(const struct ts_exp_spec *spec, const struct ts_exp_matrix_opts *opts,
			unsigned reps, size_t *nconfigs, struct ts_err *err)
{
	uint64_t all = ts_exp_matrix_count(spec, NULL), kept = ts_exp_matrix_count(spec, opts);
	char sizes[256];

	axis_sizes(spec, sizes, sizeof(sizes));
	if (all > TS_EXP_MAX_CONFIGS)
		return plan_err(err, -EINVAL,
				"%s: the matrix has %llu configurations (%s), more than the limit "
				"of %d configurations (expected fewer axis values; split the spec)",
				spec->path, (unsigned long long)all, sizes, TS_EXP_MAX_CONFIGS);
	if (!kept)
		return plan_err(err, -EINVAL, "%s: --only leaves no configuration to run",
				spec->path);
	if (kept * reps > TS_EXP_MAX_RUNS)
		return plan_err(err, -EINVAL,
				"%s: %llu configurations x %u repetitions = %llu runs, more than "
				"the limit of %d runs (expected fewer repetitions or "
				"configurations)",
				spec->path, (unsigned long long)kept, reps,
				(unsigned long long)(kept * reps), TS_EXP_MAX_RUNS);
	/* Run k's seed is seed + k: it must not wrap round to 0, 1, ... */
	if (spec->seed > UINT64_MAX - reps)
		return plan_err(err, -EINVAL,
				"%s: seed %llu: runs are seeded seed + repetition (1 to %u), which "
				"passes 2^64 - 1 (expected a seed of at most %llu)",
				spec->path, (unsigned long long)spec->seed, reps,
				(unsigned long long)(UINT64_MAX - reps));
	*nconfigs = (size_t)kept;
	return 0;
}

static int add_config(struct ts_exp_matrix *plan, size_t cap, const struct ts_exp_run *r,
		      const char *id, struct ts_err *err)
{
	struct ts_exp_config *c;

	/* The count said how many configurations --only keeps: more would be a bug here. */
	if (plan->nconfigs == cap)
		return plan_err(err, -EINVAL,
				"%s: the matrix has more configurations "
				"than counted",
				plan->spec->path);
	c = &plan->configs[plan->nconfigs];
	c->id = strdup(id);
	if (!c->id)
		return plan_err(err, -ENOMEM, "out of memory");
	c->tmpl = *r;
	c->tmpl.config_id = c->id;
	plan->nconfigs++;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Two configurations with one id would share a result directory: sort the ids, compare neighbours. */
static int check_ids(const struct ts_exp_matrix *plan, struct ts_err *err)
{
	const char **ids = calloc(plan->nconfigs, sizeof(*ids));
	size_t i;
	int ret = 0;

	if (!ids)
		return plan_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < plan->nconfigs; i++)
		ids[i] = plan->configs[i].id;
	qsort(ids, plan->nconfigs, sizeof(*ids), cmp_id);
	for (i = 1; i < plan->nconfigs && !ret; i++)
		if (!strcmp(ids[i - 1], ids[i]))
			ret = plan_err(err, -EINVAL,
				       "%s: two configurations have the id '%s' (two bpf objects "
				       "with the same file name?)",
				       plan->spec->path, ids[i]);
	free(ids);
	return ret;
}

int ts_exp_matrix_build(const struct ts_exp_spec *spec, const struct ts_exp_matrix_opts *opts,
			struct ts_exp_matrix *plan, struct ts_err *err)
{
	size_t idx[TS_EXP_MAX_AXES] = {0};
	size_t *perm = NULL;
	struct ts_rng rng;
	size_t i, k, cap = 0;
	unsigned rep;
	int ret;

	memset(plan, 0, sizeof(*plan));
	plan->spec = spec;
	plan->repetitions = opts && opts->repetitions ? opts->repetitions : spec->repetitions;
	ret = check_only(spec, opts, err);
	if (ret < 0)
		return ret;
	ret = check_limits(spec, opts, plan->repetitions, &cap, err);
	if (ret < 0)
		return ret;
	plan->configs = calloc(cap, sizeof(*plan->configs));
	if (!plan->configs)
		return plan_err(err, -ENOMEM, "out of memory");
	/* Odometer over the axes, the last axis turning fastest. */
	for (;;) {
		struct ts_exp_run r;
		char id[1024];

		if (fill_run(spec, opts, idx, &r, id, sizeof(id))) {
			ret = add_config(plan, cap, &r, id, err);
			if (ret < 0)
				goto out;
		}
		for (i = spec->naxes; i > 0; i--) {
			if (++idx[i - 1] < spec->axes[i - 1].nvalues)
				break;
			idx[i - 1] = 0;
		}
		if (i == 0)
			break;
	}
	ret = check_ids(plan, err);
	if (ret < 0)
		goto out;
	plan->runs = calloc(plan->nconfigs * plan->repetitions, sizeof(*plan->runs));
	perm = calloc(plan->nconfigs, sizeof(*perm));
	if (!plan->runs || !perm) {
		ret = plan_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	ts_rng_seed(&rng, spec->seed);
	for (rep = 1; rep <= plan->repetitions; rep++) {
		for (i = 0; i < plan->nconfigs; i++)
			perm[i] = i;
		if (spec->order == TS_EXP_ORDER_SHUFFLE)
			for (i = plan->nconfigs; i > 1; i--) { /* Fisher-Yates */
				size_t j = (size_t)ts_rng_below(&rng, i), tmp = perm[i - 1];

				perm[i - 1] = perm[j];
				perm[j] = tmp;
			}
		for (k = 0; k < plan->nconfigs; k++) {
			struct ts_exp_run *r = &plan->runs[plan->nruns];

			*r = plan->configs[perm[k]].tmpl;
			r->rep = rep;
			r->index = (unsigned)++plan->nruns;
			r->seed = spec->seed + rep;
		}
	}
	ret = 0;
out:
	free(perm);
	if (ret < 0)
		ts_exp_matrix_free(plan);
	return ret;
}

void ts_exp_matrix_free(struct ts_exp_matrix *plan)
{
	size_t i;

	for (i = 0; i < plan->nconfigs; i++)
		free(plan->configs[i].id);
	free(plan->configs);
	free(plan->runs);
	memset(plan, 0, sizeof(*plan));
}

int ts_exp_matrix_shard(struct ts_exp_matrix *plan, unsigned i, unsigned n)
{
	size_t k, kept = 0;

	if (n == 0 || i == 0 || i > n)
		return -EINVAL;
	for (k = 0; k < plan->nruns; k++)
		if (k % n == i - 1)
			plan->runs[kept++] = plan->runs[k];
	plan->nruns = kept;
	return 0;
}

const struct ts_exp_config *ts_exp_matrix_config(const struct ts_exp_matrix *plan,
						 const struct ts_exp_run *run)
{
	size_t i;

	for (i = 0; i < plan->nconfigs; i++)
		if (!strcmp(plan->configs[i].id, run->config_id))
			return &plan->configs[i];
	return NULL;
}

/* With real Wi-Fi stations: the stations the test's flows go behind, in turn. */
static void print_stations(const struct ts_exp_run *r, FILE *f)
{
	size_t k, n = r->nflow_stations ? r->nflow_stations : r->stations;

	if (r->stations <= 1)
		return;
	fprintf(f, " [stations %u, flows behind ", r->stations);
	for (k = 0; k < n; k++)
		fprintf(f, "%s%u", k ? "," : "", ts_exp_flow_station(r, k));
	fputs(" in turn]", f);
}

void ts_exp_matrix_print(const struct ts_exp_matrix *plan, FILE *f)
{
	const struct ts_exp_spec *s = plan->spec;
	char len[32], delay[32];
	size_t i, j;

	if (!plan->nruns)
		return;
	ts_fmt_time(len, sizeof(len), plan->runs[0].length);
	ts_fmt_time(delay, sizeof(delay), plan->runs[0].delay);
	fprintf(f,
		"# %s: %zu configurations x %u repetitions = %zu runs, order %s, seed %llu, "
		"length %s, delay %s\n",
		s->name, plan->nconfigs, plan->repetitions, plan->nruns,
		s->order == TS_EXP_ORDER_SHUFFLE ? "shuffle" : "interleave",
		(unsigned long long)s->seed, len, delay);
	fprintf(f, "# index rep seed config link-options\n");
	for (i = 0; i < plan->nruns; i++) {
		const struct ts_exp_run *r = &plan->runs[i];

		fprintf(f, "%u %u %llu %s", r->index, r->rep, (unsigned long long)r->seed,
			r->config_id);
		for (j = 0; r->link_argv[j]; j++)
			fprintf(f, " %s", r->link_argv[j]);
		print_stations(r, f);
		fputc('\n', f);
	}
}
