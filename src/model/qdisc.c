/* SPDX-License-Identifier: MIT */
/*
 * Queue construction and the name table: the one place that knows which
 * queue disciplines exist.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/qdisc.h"
#include "tasshape/text.h"

static const struct ts_qdisc_ops *const qdisc_table[] = {
	&ts_q_droptail, &ts_q_drophead, &ts_q_codel, &ts_q_pie, &ts_q_infinite,
};

#define QDISC_COUNT (sizeof(qdisc_table) / sizeof(qdisc_table[0]))

const struct ts_qdisc_ops *ts_qdisc_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < QDISC_COUNT; i++)
		if (!strcmp(qdisc_table[i]->name, name))
			return qdisc_table[i];
	return NULL;
}

size_t ts_qdisc_count(void)
{
	return QDISC_COUNT;
}

const struct ts_qdisc_ops *ts_qdisc_at(size_t i)
{
	return i < QDISC_COUNT ? qdisc_table[i] : NULL;
}

static const char *qdisc_name(const void *ctx, size_t i)
{
	(void)ctx;
	return qdisc_table[i]->name;
}

char *ts_qdisc_names(char *buf, size_t len)
{
	return ts_join(buf, len, QDISC_COUNT, qdisc_name, NULL, ", ");
}

int ts_qdisc_create(struct ts_qdisc **out, const char *spec_str, uint64_t seed, ts_drop_fn drop,
		    void *drop_ctx, struct ts_err *err)
{
	const struct ts_qdisc_ops *ops;
	struct ts_qdisc *q = NULL;
	struct ts_spec spec;
	char names[128];
	int ret;

	if (!spec_str)
		spec_str = TS_QDISC_DEFAULT;
	ret = ts_spec_parse(&spec, spec_str, err);
	if (ret < 0)
		goto out;
	ret = -EINVAL;
	ops = ts_qdisc_lookup(spec.name);
	if (!ops) {
		ts_err_set(err, "unknown queue '%s' (expected one of: %s)", spec.name,
			   ts_qdisc_names(names, sizeof(names)));
		goto out;
	}
	ret = -ENOMEM;
	q = calloc(1, sizeof(*q));
	if (!q)
		goto out;
	q->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	q->desc = strdup(spec_str);
	if (!q->priv || !q->desc)
		goto out;
	q->ops = ops;
	q->drop = drop;
	q->drop_ctx = drop_ctx;
	ts_fifo_init(&q->fifo);
	ts_rng_seed(&q->rng, seed);
	ret = ops->init(q, &spec, err);
	if (ret < 0)
		goto out;
	ret = ts_spec_check_used(&spec, ops->keys, err);
	if (ret < 0)
		goto out;
	*out = q;
	q = NULL;
out:
	if (q) {
		free(q->priv);
		free(q->desc);
		free(q);
	}
	return ret;
}

void ts_qdisc_destroy(struct ts_qdisc *q, enum ts_drop_cause cause, ts_ns_t now)
{
	struct ts_pkt *p;

	if (!q)
		return;
	while ((p = ts_fifo_pop(&q->fifo)))
		ts_qdisc_drop(q, p, cause, now);
	free(q->priv);
	free(q->desc);
	free(q);
}
