/* SPDX-License-Identifier: MIT */
/* The summary across the matrix, from result.json files only (docs/experiments.md, "Summary"). */
#include <errno.h>
#include <limits.h>
#include <json-c/json.h>
#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/dirlist.h"
#include "results/rjson.h"
#include "results/rundir.h"
#include "results/stats.h"
#include "results/summary.h"

/* A growing array of doubles. */
struct dvec {
	double *v;
	size_t n, cap;
};

static int dvec_push(struct dvec *d, double x)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		double *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = x;
	return 0;
}

enum { V_UP, V_DOWN, V_RETR, V_JAIN_UP, V_JAIN_DOWN, V_ICMP, V_UDP, V__N };

struct ts_exp_acc {
	struct dvec v[V__N];
};

void ts_exp_summary_init(struct ts_exp_summary *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->name = strdup(name ? name : "experiment");
}

static void config_free(struct ts_exp_sum_config *c)
{
	size_t i;

	free(c->id);
	for (i = 0; i < c->naxes; i++) {
		free((char *)c->axes[i].axis);
		free((char *)c->axes[i].value);
	}
	for (i = 0; i < c->nflags; i++)
		free(c->flags[i]);
	if (c->acc)
		for (i = 0; i < V__N; i++)
			free(c->acc->v[i].v);
	free(c->acc);
}

/* An entry of the tree of ids: the id (the configuration's own string) and its position. */
struct id_ent {
	const char *id;
	size_t i;
};

static int id_cmp(const void *a, const void *b)
{
	return strcmp(((const struct id_ent *)a)->id, ((const struct id_ent *)b)->id);
}

void ts_exp_summary_free(struct ts_exp_summary *s)
{
	size_t i;

	tdestroy(s->ids, free);
	for (i = 0; i < s->nconfigs; i++)
		config_free(&s->configs[i]);
	for (i = 0; i < s->nskipped; i++) {
		free(s->skipped[i].cca);
		free(s->skipped[i].why);
	}
	free(s->configs);
	free(s->skipped);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

/*
 * A tree, not a list: a results directory may declare up to
 * TS_EXP_SUM_MAX_CONFIGS configurations, and a linear search per id made
 * reading 40,000 of them take half a minute. glibc's tsearch is a
 * red-black tree, so no order of ids makes it slower than log n.
 */
const struct ts_exp_sum_config *ts_exp_summary_find(const struct ts_exp_summary *s, const char *id)
{
	struct id_ent key = {id, 0};
	void *p = tfind(&key, (void *const *)&s->ids, id_cmp);

	return p ? &s->configs[(*(struct id_ent **)p)->i] : NULL;
}

/* Room for one more configuration, and @id in the tree at position nconfigs. 0 or -errno. */
static int config_slot(struct ts_exp_summary *s, const char *id)
{
	struct ts_exp_sum_config *c;
	struct id_ent *e;

	if (s->nconfigs == TS_EXP_SUM_MAX_CONFIGS)
		return -E2BIG;
	if (s->nconfigs == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;

		c = realloc(s->configs, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		s->configs = c;
		s->cap = cap;
	}
	c = &s->configs[s->nconfigs];
	memset(c, 0, sizeof(*c));
	c->id = strdup(id);
	e = malloc(sizeof(*e));
	if (!c->id || !e) {
		free(c->id);
		free(e);
		return -ENOMEM;
	}
	e->id = c->id;
	e->i = s->nconfigs;
	if (!tsearch(e, &s->ids, id_cmp)) {
		free(c->id);
		free(e);
		return -ENOMEM;
	}
	s->nconfigs++;
	return 0;
}

const char *ts_exp_sum_axis(const struct ts_exp_sum_config *c, const char *axis)
{
	size_t i;

	for (i = 0; i < c->naxes; i++)
		if (!strcmp(c->axes[i].axis, axis))
			return c->axes[i].value;
	return NULL;
}

static int config_flag(struct ts_exp_sum_config *c, const char *flag)
{
	size_t i;

	for (i = 0; i < c->nflags; i++)
		if (!strcmp(c->flags[i], flag))
			return 0;
	if (c->nflags == TS_EXP_MAX_FLAGS)
		return 0;
	c->flags[c->nflags] = strdup(flag);
	if (!c->flags[c->nflags])
		return -ENOMEM;
	c->nflags++;
	return 0;
}

bool ts_exp_id_is_dirname(const char *id)
{
	return id && *id && strlen(id) <= NAME_MAX && !strchr(id, '/') && strcmp(id, ".") &&
	       strcmp(id, "..");
}

int ts_exp_summary_declare(struct ts_exp_summary *s, const char *id,
			   const struct ts_exp_axis_val *axes, size_t naxes)
{
	struct ts_exp_sum_config *c;
	size_t i;
	int ret;

	if (!ts_exp_id_is_dirname(id))
		return -EINVAL;
	if (ts_exp_summary_find(s, id))
		return 0;
	ret = config_slot(s, id);
	if (ret)
		return ret;
	c = &s->configs[s->nconfigs - 1];
	c->acc = calloc(1, sizeof(*c->acc));
	if (!c->acc)
		return -ENOMEM;
	for (i = 0; i < naxes && i < TS_EXP_MAX_AXES; i++) {
		c->axes[i].axis = strdup(axes[i].axis);
		c->axes[i].value = strdup(axes[i].value);
		c->naxes++;
		if (!c->axes[i].axis || !c->axes[i].value)
			return -ENOMEM;
	}
	for (i = 0; i < s->nskipped; i++) {
		const char *cca = ts_exp_sum_axis(c, "cca");

		if (cca && !strcmp(cca, s->skipped[i].cca)) {
			c->skipped = true;
			if (config_flag(c, "cca_skipped") < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int ts_exp_summary_skip(struct ts_exp_summary *s, const char *cca, const char *why)
{
	struct ts_exp_skip *k;
	size_t i;

	/* Each one is compared with every configuration: their number is bounded. */
	if (s->nskipped == TS_EXP_SUM_MAX_SKIPPED)
		return -E2BIG;
	k = realloc(s->skipped, (s->nskipped + 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	s->skipped = k;
	k = &s->skipped[s->nskipped++];
	k->cca = strdup(cca);
	k->why = strdup(why);
	if (!k->cca || !k->why)
		return -ENOMEM;
	for (i = 0; i < s->nconfigs; i++) {
		const char *c = ts_exp_sum_axis(&s->configs[i], "cca");

		if (c && !strcmp(c, cca)) {
			s->configs[i].skipped = true;
			if (config_flag(&s->configs[i], "cca_skipped") < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static void mstat(struct ts_exp_mstat *m, const struct dvec *d)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->n = d->n;
	if (!d->n)
		return;
	m->mean = ts_stats_mean(d->v, d->n);
	m->min = m->max = d->v[0];
	for (i = 1; i < d->n; i++) {
		m->min = fmin(m->min, d->v[i]);
		m->max = fmax(m->max, d->v[i]);
	}
	if (ts_stats_ci95(d->v, d->n, &m->lo, &m->hi) < 0)
		m->lo = m->hi = NAN;
}

static void lstat(struct ts_exp_lstat *l, struct dvec *d)
{
	memset(l, 0, sizeof(*l));
	l->n = d->n;
	if (!d->n)
		return;
	ts_stats_sort(d->v, d->n);
	l->p50 = ts_stats_quantile(d->v, d->n, 0.50);
	l->p95 = ts_stats_quantile(d->v, d->n, 0.95);
	l->p99 = ts_stats_quantile(d->v, d->n, 0.99);
	l->mean = ts_stats_mean(d->v, d->n);
}

/* One run's contribution to its configuration. */
static int add_run(struct ts_exp_sum_config *c, const struct ts_exp_result *r)
{
	struct ts_exp_acc *a = c->acc;
	double sum[2] = {0, 0}, retr = 0;
	size_t nd[2] = {0, 0}, i;
	int d, ret = 0;

	for (i = 0; i < r->nflags && !ret; i++)
		ret = config_flag(c, r->flags[i]);
	if (ts_exp_result_fell_behind(r)) {
		c->fell_behind++;
		for (d = 0; d < 2; d++)
			if (r->fidelity[d].present)
				c->worst_release_p99_us = fmax(c->worst_release_p99_us,
							       r->fidelity[d].release_err_p99_us);
	}
	if (!r->ok) {
		c->failed++;
		return ret ? ret : config_flag(c, "run_failed");
	}
	c->n++;
	for (i = 0; i < r->nflows; i++) {
		d = r->flows[i].up ? 0 : 1;
		sum[d] += r->flows[i].throughput_mbps;
		nd[d]++;
		retr += r->flows[i].retransmits;
	}
	/* A direction the test has no flow in has no throughput, not 0 Mbit/s. */
	if (nd[0])
		ret |= dvec_push(&a->v[V_UP], sum[0]);
	if (nd[1])
		ret |= dvec_push(&a->v[V_DOWN], sum[1]);
	if (r->nflows)
		ret |= dvec_push(&a->v[V_RETR], retr);
	for (d = 0; d < 2; d++) {
		double x[64];
		size_t k = 0;

		for (i = 0; i < r->nflows && k < 64; i++)
			if ((r->flows[i].up ? 0 : 1) == d)
				x[k++] = r->flows[i].throughput_mbps;
		if (k >= 2 && ts_stats_jain(x, k) >= 0)
			ret |= dvec_push(&a->v[d ? V_JAIN_DOWN : V_JAIN_UP], ts_stats_jain(x, k));
	}
	for (i = 0; i < r->nicmp; i++)
		ret |= dvec_push(&a->v[V_ICMP], r->icmp_ms[i]);
	for (i = 0; i < r->nudp; i++)
		ret |= dvec_push(&a->v[V_UDP], r->udp_ms[i]);
	return ret ? -ENOMEM : 0;
}

int ts_exp_summary_add(struct ts_exp_summary *s, struct ts_exp_result *res, size_t n)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		struct ts_exp_result *r = &res[i];
		struct ts_exp_sum_config *c;

		ret = ts_exp_summary_declare(s, r->id, r->axes, r->naxes);
		if (ret < 0)
			return ret;
		c = (struct ts_exp_sum_config *)ts_exp_summary_find(s, r->id);
		ret = add_run(c, r);
		if (ret < 0)
			return ret;
		s->runs++;
		s->failed += !r->ok;
		s->fell_behind += ts_exp_result_fell_behind(r);
	}
	for (i = 0; i < s->nconfigs; i++) {
		struct ts_exp_sum_config *c = &s->configs[i];

		mstat(&c->thr_up, &c->acc->v[V_UP]);
		mstat(&c->thr_down, &c->acc->v[V_DOWN]);
		mstat(&c->retransmits, &c->acc->v[V_RETR]);
		mstat(&c->jain_up, &c->acc->v[V_JAIN_UP]);
		mstat(&c->jain_down, &c->acc->v[V_JAIN_DOWN]);
		lstat(&c->icmp, &c->acc->v[V_ICMP]);
		lstat(&c->udp, &c->acc->v[V_UDP]);
	}
	return 0;
}

/* ---- reading a directory ------------------------------------------------------------------ */

/*
 * The lists of experiment.json against the limits, before anything is declared from them
 * (a 38 MB file of 10^6 configurations is no matrix exp run plans). 0 or -E2BIG with @err.
 */
static int check_counts(const char *path, json_object *root, struct ts_err *err)
{
	size_t nconfigs, nskipped;

	ts_rj_arr(root, "configs", &nconfigs);
	ts_rj_arr(root, "skipped", &nskipped);
	if (nconfigs > TS_EXP_SUM_MAX_CONFIGS) {
		ts_err_set(err,
			   "%s: %zu configurations, more than the %d of the largest matrix exp run "
			   "plans (the most a summary or report reads)",
			   path, nconfigs, TS_EXP_SUM_MAX_CONFIGS);
		return -E2BIG;
	}
	if (nskipped > TS_EXP_SUM_MAX_SKIPPED) {
		ts_err_set(err,
			   "%s: %zu skipped congestion controls, more than the %d values a spec's "
			   "cca axis may have",
			   path, nskipped, TS_EXP_SUM_MAX_SKIPPED);
		return -E2BIG;
	}
	return 0;
}

static int read_skipped(struct ts_exp_summary *s, json_object *root)
{
	json_object *skipped = ts_rj_arr(root, "skipped", NULL);
	size_t i;
	int ret = 0;

	for (i = 0; skipped && i < json_object_array_length(skipped) && !ret; i++) {
		json_object *k = json_object_array_get_idx(skipped, i);
		const char *cca = ts_rj_str(k, "cca", NULL), *why = ts_rj_str(k, "why", NULL);

		if (cca && why)
			ret = ts_exp_summary_skip(s, cca, why);
	}
	return ret;
}

static int read_configs(struct ts_exp_summary *s, const char *path, json_object *root,
			struct ts_err *err)
{
	json_object *configs = ts_rj_arr(root, "configs", NULL);
	size_t i;
	int ret = 0;

	for (i = 0; configs && i < json_object_array_length(configs) && !ret; i++) {
		json_object *c = json_object_array_get_idx(configs, i),
			    *axes = ts_rj_obj(c, "axes");
		const char *id = ts_rj_str(c, "id", NULL);
		struct ts_exp_axis_val av[TS_EXP_MAX_AXES];
		size_t na = 0;

		if (!ts_exp_id_is_dirname(id) || !axes) {
			ts_err_set(err,
				   "%s: configs[%zu]: expected \"id\" (a directory name: not "
				   "empty, no '/', not '.' or '..') and \"axes\" (an object)",
				   path, i);
			return -EINVAL;
		}
		json_object_object_foreach(axes, key, val)
		{
			/* json-c reads null as NULL: a value that is no string is "?". */
			if (na < TS_EXP_MAX_AXES) {
				av[na].axis = key;
				av[na++].value = json_object_is_type(val, json_type_string)
							 ? json_object_get_string(val)
							 : "?";
			}
		}
		ret = ts_exp_summary_declare(s, id, av, na);
	}
	return ret;
}

static int read_experiment(struct ts_exp_summary *s, const char *dir, struct ts_err *err)
{
	json_object *root = NULL;
	const char *name;
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/experiment.json", dir);
	/* A results directory is anyone's: one reader, bounded in bytes and in objects. */
	ret = ts_rj_load(path, &root, err);
	if (ret == -ENOENT)
		return 0; /* results without a plan: summarise what is there */
	if (ret)
		return ret;
	ret = check_counts(path, root, err);
	name = ts_rj_str(root, "name", NULL);
	if (!ret && name) {
		free(s->name);
		s->name = strdup(name);
	}
	if (!ret)
		ret = read_skipped(s, root);
	if (!ret)
		ret = read_configs(s, path, root, err);
	json_object_put(root);
	if (ret == -ENOMEM)
		ts_err_set(err, "%s: out of memory", path);
	return ret;
}

int ts_exp_summary_from_dir(struct ts_exp_summary *s, const char *dir, struct ts_err *err)
{
	struct ts_exp_result *res = NULL;
	char **ids = NULL, **reps = NULL;
	size_t nids = 0, nreps = 0, nres = 0, cap = 0, i, j;
	char path[4096];
	int ret;

	ret = read_experiment(s, dir, err);
	if (ret < 0)
		return ret;
	ret = ts_dirlist(dir, NULL, &ids, &nids);
	if (ret < 0) {
		ts_err_set(err, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	for (i = 0; i < nids && !ret; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ids[i]);
		if (ts_dirlist(path, TS_RUNDIR_PREFIX, &reps, &nreps) < 0)
			continue; /* a file, not a configuration */
		for (j = 0; j < nreps && !ret; j++) {
			struct ts_exp_result *nr;

			snprintf(path, sizeof(path), "%s/%s/%s/result.json", dir, ids[i], reps[j]);
			if (access(path, F_OK) < 0)
				continue; /* a run that never finished: not a result */
			if (nres == TS_EXP_MAX_RUNS) {
				/* Refused before more is read: no matrix exp run plans has more. */
				ts_err_set(
					err,
					"%s: more than %d runs with a result.json, the most of the "
					"largest matrix exp run plans",
					dir, TS_EXP_MAX_RUNS);
				ret = -E2BIG;
				break;
			}
			if (nres == cap) {
				cap = cap ? 2 * cap : 16;
				nr = realloc(res, cap * sizeof(*res));
				if (!nr) {
					ret = -ENOMEM;
					break;
				}
				res = nr;
			}
			ret = ts_exp_result_load(&res[nres], path, err);
			if (ret == 0)
				nres++;
		}
		ts_dirlist_free(reps, nreps);
	}
	ts_dirlist_free(ids, nids);
	if (!ret) {
		ret = ts_exp_summary_add(s, res, nres);
		if (ret == -EINVAL)
			ts_err_set(
				err,
				"%s: a result.json's \"id\" is not a directory name (empty, '/', "
				"'.' or '..')",
				dir);
		else if (ret == -E2BIG)
			ts_err_set(
				err,
				"%s: results of more than %d configurations, the most a summary or "
				"report reads (the largest matrix exp run plans)",
				dir, TS_EXP_SUM_MAX_CONFIGS);
		else if (ret < 0)
			ts_err_set(err, "%s: out of memory", dir);
	}
	for (i = 0; i < nres; i++)
		ts_exp_result_free(&res[i]);
	free(res);
	return ret;
}
