/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_cover.c -- a set of mode pairs as cubes over the mode variables
 * before (g) and after (g') a change (mc.h, mc_cover): what the all-changes
 * answer prints for each status and each erased equation.
 *
 * The pairs come from the enumeration (mc_all.c), so the set is explicit: a
 * sorted array of bit vectors, not a BDD. The cover is Minato and
 * Morreale's irredundant sum of products (ISOP), computed on those arrays:
 * split on the highest bit b, cover the vectors that need b = 0 (those
 * whose b = 1 twin is not in the set), those that need b = 1, then what is
 * left by cubes free in b over the vectors whose both twins are in. Each
 * step is a linear merge of sorted arrays and every array is a subset of
 * the input, so the work is about n x bits per level of a recursion whose
 * empty branches stop at once.
 *
 * Why not Quine-McCluskey and a greedy cover, as before (2026-11-23): all
 * the implicants of a set of 16,256 pairs over 14 bits (seven independent
 * two-mode parts) took 10 s to list and cover; this takes milliseconds. The
 * cover is exact, irredundant (no cube can go) and made of prime
 * implicants (no cared bit can go), not necessarily minimum.
 */
#include "mc.h"

#include <stdlib.h>
#include <string.h>

/* A sorted array of distinct vectors (owned). */
typedef struct vset {
    uint64_t *a;
    size_t n;
} vset;

typedef struct isop_out {
    mc_cube *c;
    size_t n, cap;
    int rc; /* sticky MDAE_E_NOMEM */
} isop_out;

static bool vset_new(vset *s, size_t cap, isop_out *o)
{
    s->n = 0;
    s->a = mdae_malloc((cap ? cap : 1) * sizeof *s->a);
    if (s->a == NULL)
        o->rc = MDAE_E_NOMEM;
    return s->a != NULL;
}

static void vset_free(vset *s)
{
    mdae_free(s->a);
    s->a = NULL;
    s->n = 0;
}

/* x \ y, x & y or x | y (op '-', '&', '|') of sorted arrays, into *out. */
static bool vset_op(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, char op,
                    vset *out, isop_out *o)
{
    if (!vset_new(out, op == '|' ? nx + ny : nx, o))
        return false;
    size_t i = 0, j = 0;
    while (i < nx || j < ny) {
        bool take_x = j == ny || (i < nx && x[i] < y[j]);
        bool take_y = i == nx || (j < ny && y[j] < x[i]);
        if (take_x) {
            if (op != '&')
                out->a[out->n++] = x[i];
            i++;
        } else if (take_y) {
            if (op == '|')
                out->a[out->n++] = y[j];
            j++;
        } else { /* equal */
            if (op != '-')
                out->a[out->n++] = x[i];
            i++, j++;
        }
    }
    return true;
}

static void add_cube(isop_out *o, uint64_t val, uint64_t care)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 16;
        mc_cube *c = mdae_realloc(o->c, cap * sizeof *c);
        if (c == NULL) {
            o->rc = MDAE_E_NOMEM;
            return;
        }
        o->c = c;
        o->cap = cap;
    }
    o->c[o->n++] = (mc_cube){val, care};
}

/* The first index of a (sorted, values below 2 * bit) with `bit` set. */
static size_t split_at(const uint64_t *a, size_t n, uint64_t bit)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] & bit)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The b = 1 half of a, with b cleared (still sorted), into *out. */
static bool upper_half(const uint64_t *a, size_t n, uint64_t bit, vset *out, isop_out *o)
{
    if (!vset_new(out, n, o))
        return false;
    for (size_t k = 0; k < n; k++)
        out->a[out->n++] = a[k] & ~bit;
    return true;
}

/* Cover the vectors of L by cubes within U (L within U; both over bits
 * 0..b, b = -1 for none), each cube also fixing the bits of (val, care)
 * above b; *r gets the vectors the cubes cover (L within r within U). */
static void isop(const vset *l, const vset *u, int b, uint64_t val, uint64_t care, vset *r,
                 isop_out *o)
{
    r->a = NULL;
    r->n = 0;
    if (l->n == 0 || o->rc < 0)
        return;
    if (b < 63 && u->n == ((size_t)1 << (b + 1))) { /* U holds every vector: one cube */
        add_cube(o, val, care);
        if (vset_new(r, u->n, o)) {
            memcpy(r->a, u->a, u->n * sizeof *u->a);
            r->n = u->n;
        }
        return;
    }
    uint64_t bit = (uint64_t)1 << b;
    size_t lk = split_at(l->a, l->n, bit), uk = split_at(u->a, u->n, bit);
    vset l1 = {NULL, 0}, u1 = l1, l0x = l1, l1x = l1, r0 = l1, r1 = l1, a0 = l1, a1 = l1;
    vset ld = l1, ud = l1;
    vset l0 = {l->a, lk}, u0 = {u->a, uk}; /* borrowed */
    if (upper_half(l->a + lk, l->n - lk, bit, &l1, o) &&
        upper_half(u->a + uk, u->n - uk, bit, &u1, o) &&
        vset_op(l0.a, l0.n, u1.a, u1.n, '-', &l0x, o) &&
        vset_op(l1.a, l1.n, u0.a, u0.n, '-', &l1x, o)) {
        isop(&l0x, &u0, b - 1, val, care | bit, &r0, o);       /* needs b = 0 */
        isop(&l1x, &u1, b - 1, val | bit, care | bit, &r1, o); /* needs b = 1 */
        if (o->rc == MDAE_OK && vset_op(l0.a, l0.n, r0.a, r0.n, '-', &a0, o) &&
            vset_op(l1.a, l1.n, r1.a, r1.n, '-', &a1, o) &&
            vset_op(a0.a, a0.n, a1.a, a1.n, '|', &ld, o) &&
            vset_op(u0.a, u0.n, u1.a, u1.n, '&', &ud, o)) {
            vset rd, lo = {NULL, 0}, hi = {NULL, 0};
            isop(&ld, &ud, b - 1, val, care, &rd, o); /* free in b */
            if (o->rc == MDAE_OK && vset_op(r0.a, r0.n, rd.a, rd.n, '|', &lo, o) &&
                vset_op(r1.a, r1.n, rd.a, rd.n, '|', &hi, o) && vset_new(r, lo.n + hi.n, o)) {
                memcpy(r->a, lo.a, lo.n * sizeof *lo.a);
                for (size_t k = 0; k < hi.n; k++)
                    r->a[lo.n + k] = hi.a[k] | bit;
                r->n = lo.n + hi.n;
            }
            vset_free(&lo), vset_free(&hi), vset_free(&rd);
        }
    }
    vset_free(&l1), vset_free(&u1), vset_free(&l0x), vset_free(&l1x);
    vset_free(&r0), vset_free(&r1), vset_free(&a0), vset_free(&a1);
    vset_free(&ld), vset_free(&ud);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
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
    isop_out o = {NULL, 0, 0, MDAE_OK};
    vset set;
    if (!vset_new(&set, n, &o))
        return o.rc;
    for (size_t k = 0; k < n; k++)
        set.a[k] = keys[k] & all;
    if (n > 1)
        qsort(set.a, n, sizeof *set.a, cmp_u64);
    for (size_t k = 0; k < n; k++) /* distinct */
        if (set.n == 0 || set.a[set.n - 1] != set.a[k])
            set.a[set.n++] = set.a[k];
    vset covered;
    isop(&set, &set, (int)bits - 1, 0, 0, &covered, &o);
    MDAE_ASSERT(o.rc < 0 || covered.n == set.n);
    vset_free(&covered);
    vset_free(&set);
    if (o.rc < 0) {
        mdae_free(o.c);
        return o.rc;
    }
    if (o.n > 1)
        qsort(o.c, o.n, sizeof *o.c, cmp_size);
    *out = o.c != NULL ? o.c : mdae_calloc(1, sizeof *o.c);
    if (*out == NULL)
        return MDAE_E_NOMEM;
    *n_out = o.n;
    return MDAE_OK;
}
