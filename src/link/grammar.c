/* SPDX-License-Identifier: MIT */
/*
 * One link option at a time: check the value, then store it. Each check
 * builds what it checks (a queue discipline, a loss stage's spec, the
 * Wi-Fi MAC's keys) and throws it away, so a wrong value is refused where
 * it was written; files are read later, by ts_linkcfg_load.
 */
#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link/bundled.h"
#include "link/grammar.h"
#include "tasshape/spec.h"
#include "tasshape/stage.h"
#include "tasshape/units.h"
#include "tasshape/wifi6.h"

#define TS_LINKKEY_ROW(id, name, letter, arg, help) {name, letter, arg, help},
const struct ts_linkkey ts_link_keys[TS_LINKKEY_COUNT] = {TS_LINK_KEYS(TS_LINKKEY_ROW)};
#undef TS_LINKKEY_ROW

_Static_assert(TS_LINKKEY_COUNT <= TS_LINKCFG_NSTR, "struct ts_linkcfg owns one string per key");

/* An hour is beyond any path; the bound keeps now + delay from overflowing. */
#define DELAY_MAX (3600 * TS_NSEC_PER_SEC)

const struct ts_linkkey *ts_linkkey_find(const char *name)
{
	size_t i;

	for (i = 0; i < TS_LINKKEY_COUNT; i++)
		if (!strcmp(ts_link_keys[i].name, name))
			return &ts_link_keys[i];
	return NULL;
}

/* A value checked and ready to store: the string to own (or none) and the scalars. */
struct value {
	char *str; /* malloc'd, or NULL */
	ts_ns_t delay;
	uint64_t seed;
	enum ts_place place;
	int rt_priority;
	int shaper_cpu;
};

/* A whole number lo..hi, digits only (no sign, no space, no trailing junk). */
static int parse_int_in(const char *arg, long lo, long hi, int *out)
{
	char *end;
	long v;

	if (arg[0] < '0' || arg[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* "auto", "off" or a CPU number 0..CPU_SETSIZE-1. */
static int parse_shaper_cpu(const char *arg, int *out)
{
	if (!strcmp(arg, "auto") || !strcmp(arg, "off")) {
		*out = arg[0] == 'a' ? TS_SHAPER_CPU_AUTO : TS_SHAPER_CPU_OFF;
		return 0;
	}
	return parse_int_in(arg, 0, CPU_SETSIZE - 1, out);
}

static void no_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t now)
{
	(void)ctx;
	(void)p;
	(void)cause;
	(void)now;
}

/* A queue spec is checked by building the queue discipline it names. */
static int check_queue(const char *opt, const char *arg, struct ts_err *err)
{
	struct ts_qdisc *q = NULL;
	struct ts_err e;
	int ret;

	ret = ts_qdisc_create(&q, arg, 1, no_drop, NULL, &e);
	if (ret < 0)
		ts_err_set(err, "--%s: %s", opt, e.msg);
	ts_qdisc_destroy(q, TS_DROP_SHUTDOWN, 0);
	return ret < 0 ? -EINVAL : 0;
}

/* "1%" or "0.01" means Bernoulli; a value with a model name ("ge:...") is the spec itself. */
static int check_loss(const char *opt, const char *arg, struct value *v, struct ts_err *err)
{
	struct ts_err e;
	int ret;

	if (strchr(arg, ':'))
		ret = asprintf(&v->str, "%s", arg);
	else
		ret = asprintf(&v->str, "bernoulli:p=%s", arg);
	if (ret < 0) {
		v->str = NULL;
		ts_err_set(err, "--%s: out of memory", opt);
		return -ENOMEM;
	}
	if (ts_loss_spec_check(v->str, &e) < 0) {
		ts_err_set(err, "--%s: %s", opt, e.msg);
		return -EINVAL;
	}
	return 0;
}

/* A MAC spec: its name and keys (a phy_trace file is read when the link is loaded). */
static int check_mac(const char *arg, struct ts_err *err)
{
	struct ts_wifi6_conf conf;
	struct ts_spec spec;
	struct ts_err e;

	if (ts_spec_parse(&spec, arg, &e) < 0) {
		ts_err_set(err, "--mac: %s", e.msg);
		return -EINVAL;
	}
	if (strcmp(spec.name, ts_s_wifi6.name)) {
		ts_err_set(err, "--mac: unknown MAC '%s' (expected %s:KEY=VALUE,...)", spec.name,
			   ts_s_wifi6.name);
		return -EINVAL;
	}
	ts_wifi6_conf_init(&conf);
	if (ts_wifi6_conf_parse(&conf, &spec, &e) < 0) {
		ts_err_set(err, "--mac: %s", e.msg);
		return -EINVAL;
	}
	return 0;
}

/* "off" or 1..TS_RT_PRIO_MAX, digits only (no sign, no trailing junk). */
static int parse_rt_priority(const char *arg, int *out)
{
	if (!strcmp(arg, "off")) {
		*out = 0;
		return 0;
	}
	return parse_int_in(arg, 1, TS_RT_PRIO_MAX, out);
}

/* The keys whose value is a number or a place: parsed into @v. */
static int check_scalar(enum ts_linkkey_id id, const char *arg, struct value *v, struct ts_err *err)
{
	struct ts_err e;

	switch (id) {
	case TS_LINKKEY_DELAY:
		if (ts_parse_time(arg, &v->delay, &e) < 0) {
			ts_err_set(err, "--delay: %s", e.msg);
			return -EINVAL;
		}
		if (v->delay > DELAY_MAX) {
			ts_err_set(err, "--delay: '%s': expected at most 1 hour", arg);
			return -EINVAL;
		}
		return 0;
	case TS_LINKKEY_UP_AT:
		/* Only the uplink has a sending host inside the emulated namespace. */
		if (!strcmp(arg, "sender")) {
			v->place = TS_PLACE_SENDER;
		} else if (!strcmp(arg, "network")) {
			v->place = TS_PLACE_NETWORK;
		} else {
			ts_err_set(err, "--uplink-at: '%s' (expected sender or network)", arg);
			return -EINVAL;
		}
		return 0;
	case TS_LINKKEY_SEED:
		if (ts_parse_u64(arg, &v->seed, &e) < 0) {
			ts_err_set(err, "--seed: %s", e.msg);
			return -EINVAL;
		}
		return 0;
	case TS_LINKKEY_RT_PRIO:
		if (parse_rt_priority(arg, &v->rt_priority) < 0) {
			ts_err_set(err, "--rt-priority: '%s' (expected off or a priority 1-%d)",
				   arg, TS_RT_PRIO_MAX);
			return -EINVAL;
		}
		return 0;
	case TS_LINKKEY_SHAPER_CPU:
		if (parse_shaper_cpu(arg, &v->shaper_cpu) < 0) {
			ts_err_set(err, "--shaper-cpu: '%s' (expected auto, off or a CPU 0-%d)",
				   arg, CPU_SETSIZE - 1);
			return -EINVAL;
		}
		return 0;
	default: /* --once, --gso: flags */
		return 0;
	}
}

/* The keys whose value is kept as a string: checked, then copied into @v->str. */
static int check_string(enum ts_linkkey_id id, const char *arg, struct value *v, struct ts_err *err)
{
	const char *opt = ts_link_keys[id].name;
	char path[PATH_MAX];

	switch (id) {
	case TS_LINKKEY_TRACE:
	case TS_LINKKEY_UP_TRACE:
	case TS_LINKKEY_DOWN_TRACE:
		/* A bundled trace's name becomes its path now; the file is opened by load. */
		v->str = strdup(ts_trace_resolve(arg, path, sizeof(path)));
		break;
	case TS_LINKKEY_QUEUE:
	case TS_LINKKEY_UP_QUEUE:
	case TS_LINKKEY_DOWN_QUEUE:
	case TS_LINKKEY_MAC_QUEUE:
		if (check_queue(opt, arg, err) < 0)
			return -EINVAL;
		v->str = strdup(arg);
		break;
	case TS_LINKKEY_MAC:
		if (check_mac(arg, err) < 0)
			return -EINVAL;
		v->str = strdup(arg);
		break;
	default:
		break;
	}
	if (!v->str) {
		ts_err_set(err, "--%s: out of memory", opt);
		return -ENOMEM;
	}
	return 0;
}

/* Check @arg for key @id into @v; the message names the option as the user wrote it. */
static int check_value(enum ts_linkkey_id id, const char *arg, struct value *v, struct ts_err *err)
{
	switch (id) {
	case TS_LINKKEY_LOSS:
	case TS_LINKKEY_UP_LOSS:
	case TS_LINKKEY_DOWN_LOSS:
		return check_loss(ts_link_keys[id].name, arg, v, err);
	case TS_LINKKEY_DELAY:
	case TS_LINKKEY_UP_AT:
	case TS_LINKKEY_ONCE:
	case TS_LINKKEY_GSO:
	case TS_LINKKEY_SEED:
	case TS_LINKKEY_RT_PRIO:
	case TS_LINKKEY_SHAPER_CPU:
		return check_scalar(id, arg, v, err);
	default: /* traces, queues, the MAC */
		return check_string(id, arg, v, err);
	}
}

/* Store a checked value; the key's string (if any) replaces its earlier one. */
static void store(struct ts_linkcfg *cfg, enum ts_linkkey_id id, struct value *v)
{
	const char *s = v->str;

	if (s) {
		free(cfg->str[id]);
		cfg->str[id] = v->str;
		v->str = NULL;
	}
	switch (id) {
	case TS_LINKKEY_TRACE:
		cfg->trace = s;
		break;
	case TS_LINKKEY_UP_TRACE:
		cfg->dir_trace[TS_UP] = s;
		break;
	case TS_LINKKEY_DOWN_TRACE:
		cfg->dir_trace[TS_DOWN] = s;
		break;
	case TS_LINKKEY_DELAY:
		cfg->delay = v->delay;
		break;
	case TS_LINKKEY_LOSS:
		cfg->loss[TS_UP] = cfg->loss[TS_DOWN] = s;
		break;
	case TS_LINKKEY_UP_LOSS:
		cfg->loss[TS_UP] = s;
		break;
	case TS_LINKKEY_DOWN_LOSS:
		cfg->loss[TS_DOWN] = s;
		break;
	case TS_LINKKEY_QUEUE:
		/* One string for both: ts_linkcfg_warn tells "uplink and downlink" by it. */
		cfg->queue[TS_UP] = cfg->queue[TS_DOWN] = s;
		break;
	case TS_LINKKEY_UP_QUEUE:
		cfg->queue[TS_UP] = s;
		break;
	case TS_LINKKEY_DOWN_QUEUE:
		cfg->queue[TS_DOWN] = s;
		break;
	case TS_LINKKEY_UP_AT:
		cfg->place[TS_UP] = v->place;
		break;
	case TS_LINKKEY_ONCE:
		cfg->once = true;
		break;
	case TS_LINKKEY_GSO:
		cfg->gso = true;
		break;
	case TS_LINKKEY_SEED:
		cfg->seed = v->seed;
		break;
	case TS_LINKKEY_MAC:
		cfg->mac = s;
		break;
	case TS_LINKKEY_MAC_QUEUE:
		cfg->mac_queue = s;
		break;
	case TS_LINKKEY_RT_PRIO:
		cfg->rt_priority = v->rt_priority;
		break;
	case TS_LINKKEY_SHAPER_CPU:
		cfg->shaper_cpu = v->shaper_cpu;
		break;
	case TS_LINKKEY_COUNT:
		break;
	}
}

int ts_linkcfg_set(struct ts_linkcfg *cfg, const char *key, const char *value, struct ts_err *err)
{
	const struct ts_linkkey *k = ts_linkkey_find(key);
	struct value v = {0};
	enum ts_linkkey_id id;
	int ret = -EINVAL;

	if (!k) {
		ts_err_set(err, "--%s: not a link option", key);
		goto out;
	}
	id = (enum ts_linkkey_id)(k - ts_link_keys);
	if (!k->arg && value) {
		ts_err_set(err, "--%s: takes no value (got '%s')", key, value);
		goto out;
	}
	if (k->arg && !value) {
		ts_err_set(err, "--%s: expected a value (%s)", key, k->arg);
		goto out;
	}
	if (k->arg && !*value && !strcmp(k->arg, "FILE")) {
		ts_err_set(err, "--%s: an empty file name (expected a path)", key);
		goto out;
	}
	ret = check_value(id, value, &v, err);
	if (!ret)
		store(cfg, id, &v);
out:
	free(v.str);
	return ret;
}
