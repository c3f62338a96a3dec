/* SPDX-License-Identifier: MIT */
/*
 * A few lines shared by the CUnit programs: each tests/unit/test_X.c is
 * its own executable that lists its tests in a table and ends with
 * TSU_MAIN(suite name, table), or TSU_MAIN_FIXTURE(suite name, table,
 * init, cleanup) when its tests share a fixture (a private directory, an
 * environment).
 *
 * The exit status is what CTest reads: 0 when every test passed, 1
 * otherwise (not the number of failures: a status is 8 bits, so 256
 * failures would read as 0), 2 when the tests could not be registered.
 * A failure is a failed assertion, a fixture whose init or cleanup
 * failed (init failing, no test of the suite runs), or a test that made
 * no assertion at all: such a test cannot fail, so it is counted as one
 * that did.
 */
#ifndef TSU_H
#define TSU_H

#include <CUnit/Basic.h>
#include <stddef.h>
#include <stdio.h>

struct tsu_test {
	const char *name;
	void (*fn)(void);
};

/* Assertions made before the current test started (CUnit counts them per run). */
static unsigned int tsu_asserts_before;

static inline void tsu_test_start(void)
{
	tsu_asserts_before = CU_get_number_of_asserts();
}

/* Runs after each test, still counted as part of it: an assertion here fails that test. */
static inline void tsu_test_end(void)
{
	if (CU_get_number_of_asserts() == tsu_asserts_before)
		CU_FAIL("the test made no assertion: it cannot fail");
}

/*
 * Run @n tests of @table as the suite @name, @init before the first and
 * @cleanup after the last (either NULL; each returns 0 on success and
 * prints why it failed otherwise). Returns the exit status described
 * above.
 */
static inline int tsu_main(const char *name, const struct tsu_test *table, size_t n,
			   CU_InitializeFunc init, CU_CleanupFunc cleanup)
{
	unsigned int fails;
	CU_pSuite s;
	size_t i;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite_with_setup_and_teardown(name, init, cleanup, tsu_test_start, tsu_test_end);
	for (i = 0; s && i < n; i++)
		if (!CU_add_test(s, table[i].name, table[i].fn))
			s = NULL;
	if (!s) {
		fprintf(stderr, "%s: cannot register the tests: %s\n", name, CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed() +
		CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}

#define TSU_MAIN_FIXTURE(suite_name, table, init, cleanup)                                         \
	int main(void)                                                                             \
	{                                                                                          \
		return tsu_main(suite_name, table, sizeof(table) / sizeof(table[0]), init,         \
				cleanup);                                                          \
	}

#define TSU_MAIN(suite_name, table) TSU_MAIN_FIXTURE(suite_name, table, NULL, NULL)

/* Exact integer comparison that prints both values when it fails. */
#define TSU_EQ(a, b)                                                                               \
	do {                                                                                       \
		long long tsu_a_ = (long long)(a), tsu_b_ = (long long)(b);                        \
		if (tsu_a_ != tsu_b_)                                                              \
			fprintf(stderr, "\n  %s:%d: %s = %lld, expected %s = %lld\n", __FILE__,    \
				__LINE__, #a, tsu_a_, #b, tsu_b_);                                 \
		CU_ASSERT_EQUAL(tsu_a_, tsu_b_);                                                   \
	} while (0)

/*
 * What @print writes to a stream, given @arg, as a malloc'ed string (the
 * caller frees it); NULL, with a failed assertion, when no memory stream opens.
 */
static inline char *tsu_capture(void (*print)(FILE *f, const void *arg), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL(f);
	if (!f)
		return NULL;
	print(f, arg);
	fclose(f);
	return text;
}

#endif
