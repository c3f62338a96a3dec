/* SPDX-License-Identifier: MIT */
/*
 * Stage and queue specifications as users write them on the command
 * line: "NAME[:KEY=VALUE[,KEY=VALUE...]]", for example
 * "codel:target=5ms,interval=100ms" or "droptail:packets=1000".
 * The spec owns a copy of the string; keys and values point into it.
 * Only the first ':' ends the name, so a value may contain ':' (and '%',
 * '.', or a further '='); white space and control characters are
 * rejected anywhere, as in the unit parsers.
 */
#ifndef TASSHAPE_SPEC_H
#define TASSHAPE_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "tasshape/err.h"
#include "tasshape/time.h"

#define TS_SPEC_MAX_ARGS 16
#define TS_SPEC_MAX_LEN	 512

struct ts_spec {
	char buf[TS_SPEC_MAX_LEN];
	const char *name;
	unsigned int nargs;
	struct {
		const char *key;
		const char *val;
		bool used; /* set by the getters, so unknown keys are caught */
	} arg[TS_SPEC_MAX_ARGS];
};

/*
 * ts_spec_parse - split @s into name and key=value pairs.
 * Rejects an empty spec, an empty name, a name followed by '=' or ','
 * without ':' ("codel,target=5ms"), an empty pair (including a ':' with
 * nothing after it), an empty key, a key without '=', an empty value,
 * duplicate keys, more than TS_SPEC_MAX_ARGS pairs, white space or
 * control characters, and a string of TS_SPEC_MAX_LEN characters or more.
 * Returns 0, or -EINVAL with @err set and *@spec untouched.
 */
int ts_spec_parse(struct ts_spec *spec, const char *s, struct ts_err *err);

/*
 * Getters: if @key is absent, leave *out unchanged (the caller's default)
 * and return 0; if present, mark it used and parse it with the matching
 * units parser (ts_spec_get_rate rejects a zero rate). On error *out is
 * unchanged and the message names the spec and the key: "codel: interval:
 * '10': missing time unit (...)". Returns 0, -EINVAL or -ERANGE.
 */
int ts_spec_get_time(struct ts_spec *spec, const char *key, ts_ns_t *out, struct ts_err *err);
int ts_spec_get_rate(struct ts_spec *spec, const char *key, uint64_t *out, struct ts_err *err);
int ts_spec_get_size(struct ts_spec *spec, const char *key, uint64_t *out, struct ts_err *err);
int ts_spec_get_ppm(struct ts_spec *spec, const char *key, uint32_t *out, struct ts_err *err);
int ts_spec_get_u64(struct ts_spec *spec, const char *key, uint64_t *out, struct ts_err *err);

/*
 * ts_spec_check_used - after all getters ran: -EINVAL naming the first
 * key no getter asked for ("codel: unknown key 'targt' (expected target,
 * interval)"); @known lists the accepted keys for the message (NULL or
 * "" when the spec takes none). Returns 0 when every key was used.
 */
int ts_spec_check_used(const struct ts_spec *spec, const char *known, struct ts_err *err);

#endif
