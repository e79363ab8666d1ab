/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/oom_test.h -- the failing allocator shared by the OOM suites
 * (test_cdg_oom.c, test_inc_oom.c): set budget_left = N to let N more
 * allocations succeed and fail the next ones, -1 for unlimited. A suite
 * installs it with `TestSuite(x, .init = oom_begin, .fini = oom_end)`.
 *
 * The failing allocator wraps libc's, so blocks allocated before or after
 * the window are freed by the same functions. Header-only (static), so each
 * suite stays one executable.
 */
#ifndef OOM_TEST_H
#define OOM_TEST_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>

#include "sa.h"

static long budget_left = -1; /* allocations still allowed; -1: unlimited */

static inline bool oom_take(void)
{
    if (budget_left < 0)
        return true;
    if (budget_left == 0)
        return false;
    budget_left--;
    return true;
}

static inline void *oom_malloc(size_t n) { return oom_take() ? malloc(n) : NULL; }
static inline void *oom_realloc(void *p, size_t n) { return oom_take() ? realloc(p, n) : NULL; }
static inline void *oom_calloc(size_t c, size_t n) { return oom_take() ? calloc(c, n) : NULL; }

/* Suite init: the failing allocator (unlimited until a test sets a budget),
 * then the BDD manager on top of it. */
static inline void oom_begin(void)
{
    mdae_allocator a = {oom_malloc, oom_realloc, oom_calloc, free};
    cr_assert_eq(mdae_replace_allocator(&a), MDAE_OK);
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
}

static inline void oom_end(void)
{
    sa_end();
    mdae_replace_allocator(NULL);
}

#endif /* OOM_TEST_H */
