/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/budget_alloc.h -- the failing allocator of the allocation-failure
 * tests (STYLE.md 16; libuv's test-loop-oom.c): set budget_left = N to let
 * N more allocations succeed and fail every later one, -1 for unlimited.
 * Install it with mdae_replace_allocator(&budget_allocator).
 *
 * It wraps libc's allocator, so blocks allocated before or after the window
 * are freed by the same functions. Header-only (static), so each suite stays
 * one executable; tests/ is on every suite's include path.
 * (tests/counting_alloc.h is the variant that also counts live blocks.)
 */
#ifndef BUDGET_ALLOC_H
#define BUDGET_ALLOC_H

#include <stdbool.h>
#include <stdlib.h>

#include "mdae.h"

static long budget_left = -1; /* allocations still allowed; -1: unlimited */

static inline bool budget_take(void)
{
    if (budget_left < 0)
        return true;
    if (budget_left == 0)
        return false;
    budget_left--;
    return true;
}

static inline void *budget_malloc(size_t n) { return budget_take() ? malloc(n) : NULL; }
static inline void *budget_realloc(void *p, size_t n)
{
    return budget_take() ? realloc(p, n) : NULL;
}
static inline void *budget_calloc(size_t c, size_t n)
{
    return budget_take() ? calloc(c, n) : NULL;
}

static const mdae_allocator budget_allocator = {budget_malloc, budget_realloc, budget_calloc,
                                                free};

#endif /* BUDGET_ALLOC_H */
