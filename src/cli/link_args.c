/* SPDX-License-Identifier: MIT */
/*
 * The link options on the command line: a thin argp adapter over the link
 * grammar (link/grammar.h), which holds the keys, their help and checks.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "link/grammar.h"
#include "tasshape/qdisc.h"
#include "tasshape/stage.h"
#include "tasshape/text.h"

/* argp's key of a link option: its short letter, or one past the letters by its place. */
#define LINK_OPT_KEY(idx, letter) ((letter) ? (letter) : 0x100 + (int)(idx))

/* The options, their value names and help from the grammar's one table. */
#define LINK_OPT_ROW(id, name, letter, arg, help)                                                  \
	{name, LINK_OPT_KEY(TS_LINKKEY_##id, letter), arg, 0, help, 1},
static const struct argp_option link_options[] = {{NULL, 0, NULL, 0, "Link options:", 1},
						  TS_LINK_KEYS(LINK_OPT_ROW){0}};
#undef LINK_OPT_ROW

/*
 * Every subcommand's path options are checked with it. FILE, DIR,
 * REPORT_DIR, SPEC_FILE: the argument names of paths.
 */
static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

const char *ts_cli_check_path(struct argp_state *state, const struct argp_option *opts, int key,
			      const char *arg)
{
	const struct argp_option *o;

	if (!arg || *arg)
		return arg;
	for (o = opts; o->name || o->key || o->doc; o++)
		if (o->key == key && o->arg &&
		    (ends_with(o->arg, "FILE") || ends_with(o->arg, "DIR")))
			argp_error(state, "--%s: an empty %s name (expected a path)", o->name,
				   ends_with(o->arg, "FILE") ? "file" : "directory");
	return arg;
}

/* Each link option is one call of the grammar (link/grammar.c); argp adds where --help is. */
static error_t link_parse(int key, char *arg, struct argp_state *state)
{
	struct ts_linkcfg *cfg = state->input;
	struct ts_err err;
	size_t i;

	for (i = 0; i < TS_LINKKEY_COUNT; i++) {
		if (LINK_OPT_KEY(i, ts_link_keys[i].letter) != key)
			continue;
		if (ts_linkcfg_set(cfg, ts_link_keys[i].name, arg, &err) < 0)
			argp_error(state, "%s", err.msg);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/*
 * --queue's help lists every queue discipline with its own one-line help,
 * --loss's every loss model, both from their tables.
 */
static char *link_help(int key, const char *text, void *input)
{
	struct ts_text b;
	size_t i;
	int queue = ts_link_keys[TS_LINKKEY_QUEUE].letter,
	    loss = ts_link_keys[TS_LINKKEY_LOSS].letter;

	(void)input;
	if ((key != queue && key != loss) || !text)
		return (char *)text;
	ts_text_init(&b);
	ts_text_printf(&b, "%s", text);
	if (key == queue) {
		for (i = 0; i < ts_qdisc_count(); i++)
			ts_text_printf(&b, "%s %s: %s", i ? ";" : "", ts_qdisc_at(i)->name,
				       ts_qdisc_at(i)->help);
	} else {
		for (i = 0; i < ts_loss_model_count(); i++)
			ts_text_printf(&b, "%s %s", i ? " or" : "", ts_loss_model_at(i)->help);
	}
	return b.p ? b.p : (char *)text; /* argp frees a text it did not pass in */
}

const struct argp ts_link_argp = {link_options, link_parse, NULL, NULL, NULL, link_help, NULL};
