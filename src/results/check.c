/* SPDX-License-Identifier: MIT */
/* The --check grammar: a hand-written recursive-descent parser of a one-line language. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "results/check.h"

enum metric_kind { MK_RUNS, MK_LAT, MK_NUM, MK_JAIN, MK_COUNT };

/* Metrics of summary.json a check can name, and the fields each has. */
static const struct metric {
	const char *name;
	enum metric_kind kind;
	const char *fields[6];
} metrics[] = {
	{"throughput_up_mbps", MK_RUNS, {"mean", "min", "max", "ci95_low", "ci95_high", NULL}},
	{"throughput_down_mbps", MK_RUNS, {"mean", "min", "max", "ci95_low", "ci95_high", NULL}},
	{"ping_icmp_ms", MK_LAT, {"p50", "p95", "p99", "mean", NULL}},
	{"ping_udp_ms", MK_LAT, {"p50", "p95", "p99", "mean", NULL}},
	{"retransmits", MK_NUM, {NULL}},
	{"jain_fairness", MK_JAIN, {"up", "down", NULL}},
	{"n", MK_COUNT, {NULL}},
	{"failed", MK_COUNT, {NULL}},
	{"fell_behind", MK_COUNT, {NULL}},
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!="};

struct lexer {
	const char *s, *p;
	struct ts_err *err;
};

static int lex_err(struct lexer *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int lex_err(struct lexer *l, const char *fmt, ...)
{
	char what[TS_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	ts_err_vformat(what, sizeof(what), fmt, ap);
	va_end(ap);
	ts_err_set(l->err, "check '%s': at column %d: %s", l->s, (int)(l->p - l->s) + 1, what);
	return -EINVAL;
}

static void skip_ws(struct lexer *l)
{
	while (isspace((unsigned char)*l->p))
		l->p++;
}

static size_t ident(struct lexer *l, char *out, size_t len)
{
	size_t n = 0;

	skip_ws(l);
	if (!isalpha((unsigned char)*l->p) && *l->p != '_')
		return 0;
	while ((isalnum((unsigned char)*l->p) || *l->p == '_') && n + 1 < len)
		out[n++] = *l->p++;
	out[n] = '\0';
	return n;
}

static int number(struct lexer *l, double *out)
{
	char *end;

	skip_ws(l);
	if (!isdigit((unsigned char)*l->p) && *l->p != '-' && *l->p != '+' && *l->p != '.')
		return 0;
	*out = strtod(l->p, &end);
	if (end == l->p || !isfinite(*out))
		return 0;
	l->p = end;
	return 1;
}

static int selector(struct lexer *l, struct ts_exp_check_side *sd)
{
	l->p++; /* '[' */
	for (;;) {
		size_t n = 0;

		if (sd->nsel == TS_EXP_CHECK_SELS)
			return lex_err(l, "at most %d AXIS=VALUE in a selector", TS_EXP_CHECK_SELS);
		if (!ident(l, sd->sel[sd->nsel].axis, sizeof(sd->sel[0].axis)))
			return lex_err(l, "expected AXIS=VALUE");
		skip_ws(l);
		if (*l->p != '=')
			return lex_err(l, "expected '=' after axis '%s'", sd->sel[sd->nsel].axis);
		l->p++;
		skip_ws(l);
		while (*l->p && *l->p != ',' && *l->p != ']' && !isspace((unsigned char)*l->p) &&
		       n + 1 < sizeof(sd->sel[0].value))
			sd->sel[sd->nsel].value[n++] = *l->p++;
		sd->sel[sd->nsel].value[n] = '\0';
		if (!n)
			return lex_err(l, "expected a value for axis '%s'", sd->sel[sd->nsel].axis);
		sd->nsel++;
		skip_ws(l);
		if (*l->p == ']') {
			l->p++;
			return 0;
		}
		if (*l->p != ',')
			return lex_err(l, "expected ',' or ']' in the selector");
		l->p++;
	}
}

static int metric_ref(struct lexer *l, struct ts_exp_check_side *sd)
{
	char name[64], field[32];
	const struct metric *m;
	size_t i;
	int ret;

	if (!ident(l, sd->test, sizeof(sd->test)))
		return lex_err(l, "expected a number or TEST[AXIS=VALUE,...].METRIC");
	skip_ws(l);
	if (*l->p == '[') {
		ret = selector(l, sd);
		if (ret < 0)
			return ret;
	}
	skip_ws(l);
	if (*l->p != '.')
		return lex_err(l, "expected '.METRIC' after the selector");
	l->p++;
	if (!ident(l, name, sizeof(name)))
		return lex_err(l, "expected a metric name");
	for (i = 0; i < NMETRICS && strcmp(metrics[i].name, name); i++)
		;
	if (i == NMETRICS)
		return lex_err(l,
			       "unknown metric '%s' (expected throughput_up_mbps, "
			       "throughput_down_mbps, ping_icmp_ms, ping_udp_ms, retransmits, "
			       "jain_fairness, n, failed or fell_behind)",
			       name);
	m = &metrics[i];
	sd->metric = (int)i;
	sd->field = -1;
	if (!m->fields[0])
		return 0;
	skip_ws(l);
	if (*l->p != '.' || (l->p++, !ident(l, field, sizeof(field)))) {
		char list[128] = "";
		size_t n = 0;

		for (i = 0; m->fields[i]; i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
					      m->fields[i]);
		return lex_err(l, "%s needs a field (%s)", m->name, list);
	}
	for (i = 0; m->fields[i] && strcmp(m->fields[i], field); i++)
		;
	if (!m->fields[i])
		return lex_err(l, "%s has no field '%s'", m->name, field);
	sd->field = (int)i;
	return 0;
}

static int side(struct lexer *l, struct ts_exp_check_side *sd)
{
	const char *start;
	double x;
	int ret;

	memset(sd, 0, sizeof(*sd));
	sd->factor = 1;
	skip_ws(l);
	start = l->p;
	if (number(l, &x)) {
		skip_ws(l);
		if (*l->p != '*') {
			sd->is_num = 1;
			sd->num = x;
			goto out;
		}
		l->p++;
		sd->factor = x;
	}
	ret = metric_ref(l, sd);
	if (ret < 0)
		return ret;
	skip_ws(l);
	if (*l->p == '*' && sd->factor == 1) {
		l->p++;
		if (!number(l, &sd->factor))
			return lex_err(l, "expected a number after '*'");
	}
out:
	snprintf(sd->text, sizeof(sd->text), "%.*s", (int)(l->p - start), start);
	while (*sd->text && isspace((unsigned char)sd->text[strlen(sd->text) - 1]))
		sd->text[strlen(sd->text) - 1] = '\0';
	return 0;
}

int ts_exp_check_parse(struct ts_exp_check *c, const char *expr, struct ts_err *err)
{
	struct lexer l = {expr, expr, err};
	int ret, i;

	memset(c, 0, sizeof(*c));
	snprintf(c->expr, sizeof(c->expr), "%s", expr);
	ret = side(&l, &c->side[0]);
	if (ret < 0)
		return ret;
	skip_ws(&l);
	for (i = 5; i >= 0; i--) /* two-character operators first */
		if (!strncmp(l.p, ops[i], strlen(ops[i])) && (strlen(ops[i]) == 2 || l.p[1] != '='))
			break;
	if (i < 0)
		return lex_err(&l, "expected a comparison (<, <=, >, >=, ==, !=)");
	c->op = (enum ts_exp_cmp)i;
	l.p += strlen(ops[i]);
	ret = side(&l, &c->side[1]);
	if (ret < 0)
		return ret;
	skip_ws(&l);
	if (*l.p)
		return lex_err(&l, "unexpected '%s' after the check", l.p);
	if (c->side[0].is_num && c->side[1].is_num)
		return lex_err(&l, "compares two numbers: name a metric on one side");
	return 0;
}

static int point_matches(const struct ts_exp_check_side *sd, const struct ts_exp_point *p)
{
	size_t i, j;
	int test = 0;

	for (j = 0; j < p->naxes; j++)
		if (!strcmp(p->axes[j].axis, "test") && !strcmp(p->axes[j].value, sd->test))
			test = 1;
	if (!test)
		return 0;
	for (i = 0; i < sd->nsel; i++) {
		for (j = 0; j < p->naxes; j++)
			if (!strcmp(p->axes[j].axis, sd->sel[i].axis) &&
			    ts_exp_value_matches(p->axes[j].value, sd->sel[i].value))
				break;
		if (j == p->naxes)
			return 0;
	}
	return 1;
}

int ts_exp_check_resolve(struct ts_exp_check *c, const struct ts_exp_point *pts, size_t n,
			 struct ts_err *err)
{
	int s;

	for (s = 0; s < 2; s++) {
		struct ts_exp_check_side *sd = &c->side[s];
		char ids[768] = "";
		size_t i, hits = 0, len = 0;

		if (sd->is_num)
			continue;
		for (i = 0; i < n; i++)
			if (point_matches(sd, &pts[i])) {
				if (!hits)
					snprintf(sd->id, sizeof(sd->id), "%s", pts[i].id);
				if (len < sizeof(ids))
					len += (size_t)snprintf(ids + len, sizeof(ids) - len,
								"%s%s", hits ? "; " : "",
								pts[i].id);
				hits++;
			}
		if (hits == 0) {
			ts_err_set(err, "check '%s': %s matches no configuration", c->expr,
				   sd->text);
			return -EINVAL;
		}
		if (hits > 1) {
			ts_err_set(err,
				   "check '%s': %s matches %zu configurations (%s): name more axes",
				   c->expr, sd->text, hits, ids);
			return -EINVAL;
		}
	}
	return 0;
}

/* The value of one side; 0, or -1 when it has none (no run, no sample, one repetition). */
static int side_value(const struct ts_exp_check_side *sd, const struct ts_exp_summary *s,
		      double *out)
{
	const struct metric *m;
	const struct ts_exp_sum_config *c;
	const struct ts_exp_mstat *ms;
	const struct ts_exp_lstat *ls;
	double v;

	if (sd->is_num) {
		*out = sd->num;
		return 0;
	}
	c = ts_exp_summary_find(s, sd->id);
	if (!c)
		return -1;
	m = &metrics[sd->metric];
	switch (m->kind) {
	case MK_RUNS:
		ms = !strcmp(m->name, "throughput_up_mbps") ? &c->thr_up : &c->thr_down;
		if (!ms->n || (sd->field >= 3 && ms->n < 2))
			return -1;
		v = (double[]){ms->mean, ms->min, ms->max, ms->lo, ms->hi}[sd->field];
		break;
	case MK_LAT:
		ls = !strcmp(m->name, "ping_icmp_ms") ? &c->icmp : &c->udp;
		if (!ls->n)
			return -1;
		v = (double[]){ls->p50, ls->p95, ls->p99, ls->mean}[sd->field];
		break;
	case MK_NUM:
		if (!c->retransmits.n)
			return -1;
		v = c->retransmits.mean;
		break;
	case MK_JAIN:
		ms = sd->field ? &c->jain_down : &c->jain_up;
		if (!ms->n)
			return -1;
		v = ms->mean;
		break;
	default:
		v = !strcmp(m->name, "n")	 ? c->n
		    : !strcmp(m->name, "failed") ? c->failed
						 : c->fell_behind;
		break;
	}
	*out = v * sd->factor;
	return 0;
}

int ts_exp_check_eval(const struct ts_exp_check *c, const struct ts_exp_summary *s, FILE *out)
{
	double v[2];
	int have[2], ok = 0, i;
	char num[2][64];

	for (i = 0; i < 2; i++) {
		have[i] = side_value(&c->side[i], s, &v[i]) == 0;
		if (have[i])
			snprintf(num[i], sizeof(num[i]), "%.6g", v[i]);
		else
			snprintf(num[i], sizeof(num[i]), "no value");
	}
	if (have[0] && have[1]) {
		switch (c->op) {
		case TS_CMP_LT:
			ok = v[0] < v[1];
			break;
		case TS_CMP_LE:
			ok = v[0] <= v[1];
			break;
		case TS_CMP_GT:
			ok = v[0] > v[1];
			break;
		case TS_CMP_GE:
			ok = v[0] >= v[1];
			break;
		case TS_CMP_EQ:
			ok = v[0] == v[1];
			break;
		case TS_CMP_NE:
			ok = v[0] != v[1];
			break;
		}
	}
	fprintf(out, "check %s: %s\n  %s = %s\n  %s = %s\n", ok ? "PASS" : "FAIL", c->expr,
		c->side[0].text, num[0], c->side[1].text, num[1]);
	return ok;
}

struct ts_exp_point *ts_exp_summary_points(const struct ts_exp_summary *s)
{
	struct ts_exp_point *p = calloc(s->nconfigs ? s->nconfigs : 1, sizeof(*p));
	size_t i;

	for (i = 0; p && i < s->nconfigs; i++) {
		p[i].id = s->configs[i].id;
		p[i].naxes = s->configs[i].naxes;
		p[i].axes = s->configs[i].axes;
	}
	return p;
}

struct ts_exp_point *ts_exp_matrix_points(const struct ts_exp_matrix *plan)
{
	struct ts_exp_point *p = calloc(plan->nconfigs ? plan->nconfigs : 1, sizeof(*p));
	size_t i;

	for (i = 0; p && i < plan->nconfigs; i++) {
		p[i].id = plan->configs[i].id;
		p[i].naxes = plan->configs[i].tmpl.naxes;
		p[i].axes = plan->configs[i].tmpl.axes;
	}
	return p;
}
