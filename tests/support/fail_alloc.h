/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/fail_alloc.h -- the failing allocators of the
 * allocation-failure tests (STYLE.md 16; libuv's test-loop-oom.c, SQLite's
 * *fault.test), in one place. Both wrap libc's allocator, so blocks allocated
 * before or after the failure window are freed by the same functions; install
 * one with mdae_replace_allocator().
 *
 *   budget_allocator    set budget_left = N to let N more allocations
 *                       succeed and fail every later one (-1: unlimited).
 *                       The engine's OOM suites (tests/engine/oom_test.h
 *                       runs it under a BDD manager) and test_sa_analyze.c.
 *   counting_allocator  counting_arm(n): allocation n (0-based, from now)
 *                       fails; `live` counts the blocks allocated and not
 *                       yet freed, so a failing call that leaks shows up as
 *                       live != 0 even without LeakSanitizer. The front-end
 *                       and the JSON encoders (test_mel_errors.c,
 *                       test_rpc_json.c): for n = 0, 1, ..., counting_arm(n),
 *                       call, check the result and live == 0.
 *
 * Header-only (static), so each suite stays one executable; tests/support/
 * is on every suite's include path. A suite includes this file once and
 * uses whichever allocator it needs (the unused one costs nothing).
 */
#ifndef FAIL_ALLOC_H
#define FAIL_ALLOC_H

#include <stdbool.h>
#include <stdlib.h>

#include "mdae.h"

/* ---- Budget: every allocation after the first N fails ---------------------- */

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

/* ---- Counting: allocation n fails, live blocks are counted ---------------- */

static long fail_at = -1; /* the allocation number that fails; -1: never */
static long n_allocs;     /* allocations attempted since counting_arm */
static long live;         /* blocks allocated and not freed since counting_arm */

static inline void *t_malloc(size_t n)
{
    if (fail_at >= 0 && n_allocs++ == fail_at)
        return NULL;
    void *p = malloc(n);
    if (p)
        live++;
    return p;
}

static inline void *t_calloc(size_t c, size_t n)
{
    if (fail_at >= 0 && n_allocs++ == fail_at)
        return NULL;
    void *p = calloc(c, n);
    if (p)
        live++;
    return p;
}

static inline void *t_realloc(void *q, size_t n)
{
    if (fail_at >= 0 && n_allocs++ == fail_at)
        return NULL;
    void *p = realloc(q, n);
    if (p && q == NULL)
        live++;
    return p;
}

static inline void t_free(void *p)
{
    if (p)
        live--;
    free(p);
}

static const mdae_allocator counting_allocator = {t_malloc, t_realloc, t_calloc, t_free};

/* Make allocation n (0-based, from now) fail, and restart the counts. */
static inline void counting_arm(long n)
{
    fail_at = n;
    n_allocs = 0;
    live = 0;
}

#endif /* FAIL_ALLOC_H */
