/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/counting_alloc.h -- an allocator for the allocation-failure tests of
 * the front-end and the JSON encoders (test_mel_errors.c, test_rpc_json.c):
 * allocation number fail_at fails (counted from counting_arm), and `live`
 * counts the blocks allocated and not yet freed, so a failing call that
 * leaks shows up as live != 0 even without LeakSanitizer.
 *
 * Use: mdae_replace_allocator(&counting_allocator); then, for n = 0, 1, ...,
 * counting_arm(n), call, check the result and live == 0. Header-only
 * (static), so each suite stays one executable; tests/ is on every suite's
 * include path. (tests/engine/oom_test.h is the budget variant, for suites
 * that do not count blocks.)
 */
#ifndef COUNTING_ALLOC_H
#define COUNTING_ALLOC_H

#include <stdlib.h>

#include "mdae.h"

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

#endif /* COUNTING_ALLOC_H */
