/* SPDX-License-Identifier: MIT */
/*
 * Bundled traces by name: `--trace starlink` means traces/starlink.csv of
 * the installed package (share/tasshape/traces) or, for a binary that runs
 * from its build tree, of the source tree it was built from.
 */
#ifndef TS_LINK_BUNDLED_H
#define TS_LINK_BUNDLED_H

#include <stddef.h>

/*
 * ts_bundled_dir - the directory of the bundled traces into @buf: the
 * source tree's traces/ when this binary lives in its build directory,
 * else PREFIX/share/tasshape/traces beside the running binary (PREFIX/bin),
 * else the configured install directory. Returns @buf, or NULL when none
 * of them exists.
 */
const char *ts_bundled_dir(char *buf, size_t len);

/*
 * ts_trace_resolve - the file a trace argument names. An argument with a
 * '/' or a ':' (const:RATE), or a file that exists as given, is returned
 * unchanged; otherwise NAME, NAME.csv and NAME.mahi are looked for in the
 * bundled directory and the first that exists is written to @buf and
 * returned. Returns @arg when nothing matches (the loader then reports the
 * missing file).
 */
const char *ts_trace_resolve(const char *arg, char *buf, size_t len);

/* The extensions a bundled trace may have, "" first, NULL-terminated. */
extern const char *const ts_bundled_exts[];

#endif
