/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "tasshape/pkt.h"

int ts_pool_init(struct ts_pool *pool, size_t cap)
{
	size_t i;

	pool->mem = calloc(cap ? cap : 1, sizeof(*pool->mem));
	if (!pool->mem)
		return -ENOMEM;
	pool->cap = cap;
	pool->used = 0;
	pool->free = NULL;
	/* Build the free list back to front so ts_pool_get hands out mem[0] first. */
	for (i = cap; i > 0; i--) {
		pool->mem[i - 1].next = pool->free;
		pool->free = &pool->mem[i - 1];
	}
	return 0;
}

void ts_pool_fini(struct ts_pool *pool)
{
	free(pool->mem);
	pool->mem = NULL;
	pool->free = NULL;
	pool->cap = pool->used = 0;
}
