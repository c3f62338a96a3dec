/* SPDX-License-Identifier: MIT */
/*
 * A few lines shared by the CUnit programs: each tests/unit/test_X.c is
 * its own executable that lists its tests in a table and ends with
 * TSU_MAIN(suite name, table). The exit status is 0 when every test
 * passed and 1 otherwise (not the count: 256 failures would wrap to 0),
 * which is what CTest reads.
 */
#ifndef TSU_H
#define TSU_H

#include <CUnit/Basic.h>
#include <stdio.h>

struct tsu_test {
	const char *name;
	void (*fn)(void);
};

#define TSU_MAIN(suite_name, table)                                                                \
	int main(void)                                                                             \
	{                                                                                          \
		CU_pSuite s;                                                                       \
		unsigned int i, fails;                                                             \
		if (CU_initialize_registry() != CUE_SUCCESS)                                       \
			return 2;                                                                  \
		s = CU_add_suite(suite_name, NULL, NULL);                                          \
		for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)                             \
			CU_add_test(s, table[i].name, table[i].fn);                                \
		CU_basic_set_mode(CU_BRM_VERBOSE);                                                 \
		CU_basic_run_tests();                                                              \
		fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();             \
		CU_cleanup_registry();                                                             \
		return fails ? 1 : 0;                                                              \
	}

/* Exact integer comparison that prints both values when it fails. */
#define TSU_EQ(a, b)                                                                               \
	do {                                                                                       \
		long long tsu_a_ = (long long)(a), tsu_b_ = (long long)(b);                        \
		if (tsu_a_ != tsu_b_)                                                              \
			fprintf(stderr, "\n  %s:%d: %s = %lld, expected %s = %lld\n", __FILE__,    \
				__LINE__, #a, tsu_a_, #b, tsu_b_);                                 \
		CU_ASSERT_EQUAL(tsu_a_, tsu_b_);                                                   \
	} while (0)

#endif
