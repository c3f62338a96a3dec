/* SPDX-License-Identifier: MIT */
/*
 * Seeded pseudo-random numbers for every random choice the model makes
 * (loss, PIE drops, Wi-Fi backoff). xoshiro256** (Blackman and Vigna,
 * 2018) seeded through splitmix64: fast, good quality, and the same seed
 * gives the same sequence on every machine. Each stage derives its own
 * stream from the run seed and its position, so adding a stage does not
 * shift the choices of another.
 */
#ifndef TASSHAPE_RNG_H
#define TASSHAPE_RNG_H

#include <stdint.h>

struct ts_rng {
	uint64_t s[4];
};

/* Seed the generator; any seed (including 0) is valid. */
void ts_rng_seed(struct ts_rng *r, uint64_t seed);

/* A seed for sub-stream @stream derived from @seed (splitmix64 mixing). */
uint64_t ts_rng_derive(uint64_t seed, uint64_t stream);

uint64_t ts_rng_next(struct ts_rng *r);

/* Uniform in [0, 1). 53 random bits. */
double ts_rng_double(struct ts_rng *r);

/* Uniform integer in [0, n) without modulo bias; n > 0. */
uint64_t ts_rng_below(struct ts_rng *r, uint64_t n);

/* True with probability ppm / 1e6, exactly (an integer comparison). */
int ts_rng_chance_ppm(struct ts_rng *r, uint32_t ppm);

#endif
