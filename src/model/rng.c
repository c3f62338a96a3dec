/* SPDX-License-Identifier: MIT */
#include "tasshape/rng.h"
#include "tasshape/units.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void ts_rng_seed(struct ts_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t ts_rng_derive(uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);

	return splitmix64(&x);
}

uint64_t ts_rng_next(struct ts_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double ts_rng_double(struct ts_rng *r)
{
	return (double)(ts_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t ts_rng_below(struct ts_rng *r, uint64_t n)
{
	/* Reject the top partial block so every residue is equally likely. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;

	do
		x = ts_rng_next(r);
	while (x >= limit);
	return x % n;
}

int ts_rng_chance_ppm(struct ts_rng *r, uint32_t ppm)
{
	if (ppm == 0)
		return 0;
	if (ppm >= TS_PPM_ONE)
		return 1;
	return ts_rng_below(r, TS_PPM_ONE) < ppm;
}
