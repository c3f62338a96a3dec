/* SPDX-License-Identifier: MIT */
/*
 * Units, parsed once into integers (iproute2's get_time64/get_rate64 do
 * the same): durations in nanoseconds, rates in bit/s, sizes in bytes,
 * probabilities in parts per million. Decimal fractions are parsed
 * exactly ("1.5s" is 1500000000 ns, not a rounded double); a value finer
 * than the resolution ("1.5bit", "1.1KB", "0.00001%") is rejected rather
 * than rounded.
 *
 * A number is DIGITS or DIGITS.DIGITS written directly before its unit:
 * "0.5s" is accepted, ".5s" and "5.s" are not (one spelling, and a stray
 * '.' is more often a typo than shorthand). Every parser takes the whole
 * string: empty input, a sign, white space, exponents ("1e6"), "nan",
 * "inf", an unknown or missing suffix and trailing junk are -EINVAL;
 * values too large for the result type are -ERANGE. On error @err says
 * what was wrong and what was expected, quoting the input, and *out is
 * not written. @err may be NULL. Returns 0 or -EINVAL / -ERANGE.
 */
#ifndef TASSHAPE_UNITS_H
#define TASSHAPE_UNITS_H

#include <stdint.h>

#include "tasshape/err.h"
#include "tasshape/time.h"

#define TS_PPM_ONE 1000000u

/*
 * Durations: ns, us, ms, s, also nsec, usec, msec, sec (any case, as tc).
 * A unit is required, even for 0. "20ms", "1.5s", "250us".
 * Result in [0, INT64_MAX] nanoseconds.
 */
int ts_parse_time(const char *s, ts_ns_t *out, struct ts_err *err);

/*
 * Rates in bit/s:
 * - bit, kbit, mbit, gbit, tbit in any case (SI multiples of 1000), also
 *   followed by "/s" ("12Mbit/s", as ts_fmt_rate prints without the space);
 * - Kbps, Mbps, Gbps, Tbps with a capital prefix and lower-case "bps" are
 *   kilo/mega/giga/terabits per second as in common usage;
 * - Bps, KBps (or kBps), MBps, GBps, TBps with a capital B are bytes per
 *   second (multiplied by 8).
 * Other spellings of [kmgt]bps, e.g. all-lower-case "mbps", and a bare
 * "bps" are rejected as ambiguous: tc reads them as bytes per second and
 * most papers as bits; the message suggests the unambiguous forms.
 * "100mbit", "12Mbps", "1.2gbit". Result > 0 unless @allow_zero.
 */
int ts_parse_rate(const char *s, uint64_t *out_bps, int allow_zero, struct ts_err *err);

/*
 * Sizes in bytes, following tc, any case: b or no suffix (bytes),
 * k/kb/kib (1024), m/mb/mib (1024^2), g/gb/gib (1024^3).
 * "64kb" is 65536, "1500B" is 1500, "1.5KB" is 1536; "1.1KB" (1126.4
 * bytes) is rejected. Bit units (tc's "kbit" sizes) are not accepted.
 */
int ts_parse_size(const char *s, uint64_t *out_bytes, struct ts_err *err);

/*
 * Probabilities: "0.1%" or a plain fraction "0.001", in [0, 1];
 * resolution 1 ppm (finer digits are rejected, not rounded away).
 * Above 100% (or 1) is -ERANGE.
 */
int ts_parse_ppm(const char *s, uint32_t *out_ppm, struct ts_err *err);

/* Plain unsigned integer (counts such as packets=1000): digits only. */
int ts_parse_u64(const char *s, uint64_t *out, struct ts_err *err);

/*
 * A plain unsigned decimal in thousandths: "2" is 2000, "1.5" 1500, "1.125"
 * 1125; a finer digit (1.0005) is -EINVAL, not rounded away; no unit.
 */
int ts_parse_milli(const char *s, uint64_t *out_milli, struct ts_err *err);

/*
 * Format helpers for summaries: "12 Mbit/s", "1.2 Gbit/s", "500 kbit/s",
 * "20 ms", "1.5 s", "250 us", "730 ns"; at most 3 significant digits
 * (rounded half up), more only for the integer part of the largest unit.
 * Write at most @len bytes (NUL included, truncating) into @buf and
 * return @buf; nothing is written when @len is 0.
 */
const char *ts_fmt_rate(char *buf, unsigned int len, uint64_t bps);
const char *ts_fmt_time(char *buf, unsigned int len, ts_ns_t ns);

#endif
