/* SPDX-License-Identifier: MIT */
/*
 * Fixed-point math for the trace generators: integer operations only, so
 * a generated trace is the same on every machine (see gen_priv.h).
 */
#include "gen_priv.h"

typedef unsigned __int128 u128;

/* log2(e) and log10(2) in Q32 (bc -l: 1/l(2) and l(2)/l(10), times 2^32). */
#define LOG2E_Q32   6196328019LL
#define LOG10_2_Q32 1292913986LL

/*
 * 2^(2^-k) for k = 1..32 in Q62 (bc -l: e(l(2)/2^k) * 2^62, rounded):
 * 2^f is the product of the entries for the bits set in f.
 */
static const uint64_t exp2_frac[32] = {
	6521908912666391106ull, 5484249825272419512ull, 5029079263719320435ull,
	4815862801830788490ull, 4712668792719003884ull, 4661903986662671290ull,
	4636727017470743990ull, 4624189567668517720ull, 4617933561212708776ull,
	4614808732577250068ull, 4613247111281068008ull, 4612466498810092975ull,
	4612076242109103707ull, 4611881126141011236ull, 4611783571252412754ull,
	4611734794581956353ull, 4611710406440186476ull, 4611698212417665819ull,
	4611692115418496524ull, 4611689066921934630ull, 4611687542674409371ull,
	4611686780550835664ull, 4611686399489096040ull, 4611686208958238036ull,
	4611686113692811986ull, 4611686066060099699ull, 4611686042243743740ull,
	4611686030335565807ull, 4611686024381476851ull, 4611686021404432377ull,
	4611686019915910140ull, 4611686019171649022ull,
};

q32_t gm_mul(q32_t a, q32_t b)
{
	return (q32_t)(((__int128)a * b) >> 32);
}

q32_t gm_div(q32_t a, q32_t b)
{
	return (q32_t)(((__int128)a * Q32_ONE) / b);
}

q32_t gm_exp2(q32_t x)
{
	int64_t n = x >> 32; /* floor: the shift is arithmetic in GCC and clang */
	uint32_t f = (uint32_t)(x & 0xffffffff);
	uint64_t r = (uint64_t)1 << 62;
	int k, s;

	for (k = 1; k <= 32; k++)
		if (f & (1u << (32 - k)))
			r = (uint64_t)(((u128)r * exp2_frac[k - 1]) >> 62);
	/* value = r / 2^62 * 2^n; in Q32 that is r * 2^(n - 30), r < 2^63 */
	if (n > 30)
		return INT64_MAX;
	if (n < -40)
		return 0;
	s = (int)(30 - n);
	if (s == 0)
		return (q32_t)r;
	if (s >= 63)
		return 0;
	return (q32_t)((r + ((uint64_t)1 << (s - 1))) >> s);
}

q32_t gm_exp(q32_t x)
{
	return gm_exp2(gm_mul(x, LOG2E_Q32));
}

q32_t gm_log2(q32_t x)
{
	uint64_t m = (uint64_t)x;
	int p = 63 - __builtin_clzll(m), i;
	int64_t frac = 0;

	/* Normalise to [1, 2) in Q62, then one fraction bit per squaring. */
	m <<= 62 - p; /* x > 0 in an int64_t: p <= 62 */
	for (i = 1; i <= 32; i++) {
		m = (uint64_t)(((u128)m * m) >> 62);
		if (m >= (uint64_t)1 << 63) {
			m >>= 1;
			frac |= (int64_t)1 << (32 - i);
		}
	}
	return (int64_t)(p - 32) * Q32_ONE + frac;
}

q32_t gm_log10(q32_t x)
{
	return gm_mul(gm_log2(x), LOG10_2_Q32);
}

q32_t gm_sqrt(q32_t x)
{
	u128 v = (u128)(uint64_t)x << 32, r = 0, bit = (u128)1 << 126;

	if (x <= 0)
		return 0;
	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (q32_t)r;
}

q32_t gm_uniform(struct ts_rng *r)
{
	return (q32_t)(ts_rng_next(r) >> 32);
}

q32_t gm_normal(struct ts_rng *r)
{
	q32_t sum = 0;
	int i;

	for (i = 0; i < 12; i++)
		sum += gm_uniform(r);
	return sum - 6 * Q32_ONE;
}

bool gm_chance(struct ts_rng *r, q32_t p)
{
	if (p <= 0)
		return false;
	if (p >= Q32_ONE)
		return true;
	return gm_uniform(r) < p;
}

uint64_t gm_scale(uint64_t v, q32_t f)
{
	u128 x;

	if (f <= 0)
		return 0;
	x = ((u128)v * (uint64_t)f + ((u128)1 << 31)) >> 32;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

void gm_ar1_init(struct gm_ar1 *p, int64_t step_ns, int64_t tau_ns, struct ts_rng *r)
{
	if (tau_ns <= 0) {
		p->a = 0;
	} else {
		q32_t ratio = (q32_t)(((__int128)step_ns << 32) / tau_ns);

		p->a = gm_exp(-ratio);
	}
	p->b = gm_sqrt(Q32_ONE - gm_mul(p->a, p->a));
	p->z = gm_normal(r);
}

q32_t gm_ar1_next(struct gm_ar1 *p, struct ts_rng *r)
{
	p->z = gm_mul(p->a, p->z) + gm_mul(p->b, gm_normal(r));
	return p->z;
}
