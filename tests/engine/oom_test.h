/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/oom_test.h -- suite set-up of the engine's OOM suites
 * (test_cdg_oom.c, test_inc_oom.c): the failing allocator of
 * tests/support/fail_alloc.h (set budget_left = N to let N more allocations
 * succeed, -1 for unlimited) under a running BDD manager. A suite installs
 * it with `TestSuite(x, .init = oom_begin, .fini = oom_end)`.
 * Header-only (static), so each suite stays one executable.
 */
#ifndef OOM_TEST_H
#define OOM_TEST_H

#include <criterion/criterion.h>

#include "fail_alloc.h"
#include "sa.h"

/* Suite init: the failing allocator (unlimited until a test sets a budget),
 * then the BDD manager on top of it. */
static inline void oom_begin(void)
{
    cr_assert_eq(mdae_replace_allocator(&budget_allocator), MDAE_OK);
    cr_assert_eq(sa_begin(NULL), MDAE_OK);
}

static inline void oom_end(void)
{
    sa_end();
    mdae_replace_allocator(NULL);
}

#endif /* OOM_TEST_H */
