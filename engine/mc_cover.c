/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_cover.c -- a set of mode pairs as cubes over the mode variables
 * before (g) and after (g') a change (mc.h, mc_cover): what the all-changes
 * answer prints for each status and each erased equation.
 *
 * The pairs come from the enumeration (mc_all.c), so this is plain
 * two-level minimisation on bit vectors, not BDDs: minterms are merged
 * into prime implicants (Quine-McCluskey, with a hash set instead of
 * pairwise comparison), then a greedy cover keeps the largest primes that
 * still cover a pair. The cover is exact (its union is the set), small, not
 * necessarily minimum.
 */
#include "mc.h"

#include <stdlib.h>
#include <string.h>

typedef struct cset {
    mc_cube *a;
    size_t n, cap;
    size_t *slot; /* open addressing over a: index + 1, 0 empty */
    size_t n_slots;
} cset;

static uint64_t cube_hash(uint64_t v, uint64_t c)
{
    uint64_t k[2] = {v, c};
    return mdae_hash(k, sizeof k);
}

static void cset_free(cset *s)
{
    mdae_free(s->a);
    mdae_free(s->slot);
    memset(s, 0, sizeof *s);
}

static int cset_grow_slots(cset *s)
{
    size_t ns = s->n_slots ? 2 * s->n_slots : 64;
    size_t *t = mdae_calloc(ns, sizeof *t);
    if (t == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < s->n; k++) {
        size_t h = (size_t)cube_hash(s->a[k].val, s->a[k].care) & (ns - 1);
        while (t[h] != 0)
            h = (h + 1) & (ns - 1);
        t[h] = k + 1;
    }
    mdae_free(s->slot);
    s->slot = t;
    s->n_slots = ns;
    return MDAE_OK;
}

static bool cset_has(const cset *s, uint64_t v, uint64_t c)
{
    if (s->n_slots == 0)
        return false;
    size_t h = (size_t)cube_hash(v, c) & (s->n_slots - 1);
    while (s->slot[h] != 0) {
        const mc_cube *x = &s->a[s->slot[h] - 1];
        if (x->val == v && x->care == c)
            return true;
        h = (h + 1) & (s->n_slots - 1);
    }
    return false;
}

/* Add (v, c) unless present. */
static int cset_add(cset *s, uint64_t v, uint64_t c)
{
    if (cset_has(s, v, c))
        return MDAE_OK;
    if (2 * (s->n + 1) > s->n_slots) {
        int rc = cset_grow_slots(s);
        if (rc < 0)
            return rc;
    }
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 64;
        mc_cube *a = mdae_realloc(s->a, nc * sizeof *a);
        if (a == NULL)
            return MDAE_E_NOMEM;
        s->a = a;
        s->cap = nc;
    }
    s->a[s->n].val = v;
    s->a[s->n].care = c;
    size_t h = (size_t)cube_hash(v, c) & (s->n_slots - 1);
    while (s->slot[h] != 0)
        h = (h + 1) & (s->n_slots - 1);
    s->slot[h] = ++s->n;
    return MDAE_OK;
}

/* Prime implicants of the minterms in cur (consumed). */
static int primes(cset *cur, cset *out)
{
    int rc = MDAE_OK;
    while (cur->n > 0 && rc == MDAE_OK) {
        cset next;
        memset(&next, 0, sizeof next);
        bool *merged = mdae_calloc(cur->n + 1, sizeof *merged);
        if (merged == NULL)
            rc = MDAE_E_NOMEM;
        for (size_t k = 0; k < cur->n && rc == MDAE_OK; k++) {
            const mc_cube *x = &cur->a[k];
            for (uint64_t care = x->care; care != 0 && rc == MDAE_OK; care &= care - 1) {
                uint64_t bit = care & (~care + 1);
                if (!cset_has(cur, x->val ^ bit, x->care))
                    continue;
                merged[k] = true;
                rc = cset_add(&next, x->val & ~bit, x->care & ~bit);
            }
        }
        for (size_t k = 0; k < cur->n && rc == MDAE_OK; k++)
            if (!merged[k])
                rc = cset_add(out, cur->a[k].val, cur->a[k].care);
        mdae_free(merged);
        cset_free(cur);
        *cur = next;
    }
    cset_free(cur);
    return rc;
}

static int cmp_size(const void *a, const void *b)
{
    /* fewer cared bits = larger cube first; then by value, for determinism */
    const mc_cube *x = a, *y = b;
    int cx = __builtin_popcountll(x->care), cy = __builtin_popcountll(y->care);
    if (cx != cy)
        return cx < cy ? -1 : 1;
    if (x->care != y->care)
        return x->care < y->care ? -1 : 1;
    return x->val < y->val ? -1 : x->val > y->val;
}

int mc_cover(const uint64_t *keys, size_t n, unsigned bits, mc_cube **out, size_t *n_out)
{
    if (bits > 64 || (n > 0 && keys == NULL) || out == NULL || n_out == NULL)
        return MDAE_E_INVAL;
    uint64_t all = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    cset cur, pr, minterms;
    memset(&cur, 0, sizeof cur);
    memset(&pr, 0, sizeof pr);
    memset(&minterms, 0, sizeof minterms);
    int rc = MDAE_OK;
    for (size_t k = 0; k < n && rc == MDAE_OK; k++)
        rc = cset_add(&cur, keys[k] & all, all);
    for (size_t k = 0; k < cur.n && rc == MDAE_OK; k++)
        rc = cset_add(&minterms, cur.a[k].val, all);
    if (rc == MDAE_OK)
        rc = primes(&cur, &pr);
    /* greedy cover: largest primes first, kept if they cover a new pair */
    mc_cube *res = NULL;
    size_t nr = 0;
    bool *covered = rc == MDAE_OK ? mdae_calloc(minterms.n + 1, sizeof *covered) : NULL;
    if (rc == MDAE_OK && covered == NULL)
        rc = MDAE_E_NOMEM;
    if (rc == MDAE_OK && pr.n > 1)
        qsort(pr.a, pr.n, sizeof *pr.a, cmp_size);
    if (rc == MDAE_OK)
        res = mdae_calloc(pr.n + 1, sizeof *res);
    if (rc == MDAE_OK && res == NULL)
        rc = MDAE_E_NOMEM;
    for (size_t p = 0; p < pr.n && rc == MDAE_OK; p++) {
        bool useful = false;
        for (size_t k = 0; k < minterms.n; k++)
            if (!covered[k] && (minterms.a[k].val & pr.a[p].care) == pr.a[p].val) {
                covered[k] = true;
                useful = true;
            }
        if (useful)
            res[nr++] = pr.a[p];
    }
    mdae_free(covered);
    cset_free(&cur);
    cset_free(&pr);
    cset_free(&minterms);
    if (rc < 0) {
        mdae_free(res);
        return rc;
    }
    *out = res;
    *n_out = nr;
    return MDAE_OK;
}
