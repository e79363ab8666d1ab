/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/bn.c -- exact counts as big integers (bn.h says what each function
 * promises). Schoolbook arithmetic on 32-bit limbs; the decimal conversion
 * divides by 10^9 repeatedly (quadratic, fine for counts of a few thousand
 * bits).
 */
#include "bn.h"

#include <math.h>
#include <string.h>

static void normalise(mdae_bn *x)
{
    while (x->n > 0 && x->d[x->n - 1] == 0)
        x->n--;
}

/* x->cap >= limbs, the new limbs zero. */
static int reserve(mdae_bn *x, uint32_t limbs)
{
    if (limbs <= x->cap)
        return MDAE_OK;
    uint32_t cap = x->cap < 4 ? 4 : x->cap;
    while (cap < limbs)
        cap = cap > UINT32_MAX / 2 ? limbs : cap * 2;
    uint32_t *d = mdae_realloc(x->d, (size_t)cap * sizeof *d);
    if (d == NULL)
        return MDAE_E_NOMEM;
    memset(d + x->cap, 0, (size_t)(cap - x->cap) * sizeof *d);
    x->d = d;
    x->cap = cap;
    return MDAE_OK;
}

void mdae_bn_free(mdae_bn *x)
{
    if (x == NULL)
        return;
    mdae_free(x->d);
    x->d = NULL;
    x->n = x->cap = 0;
}

int mdae_bn_set_u64(mdae_bn *x, uint64_t v)
{
    if (reserve(x, 2) != MDAE_OK)
        return MDAE_E_NOMEM;
    x->d[0] = (uint32_t)v;
    x->d[1] = (uint32_t)(v >> 32);
    x->n = 2;
    normalise(x);
    return MDAE_OK;
}

int mdae_bn_set_double(mdae_bn *x, double v)
{
    MDAE_ASSERT(v >= 0 && isfinite(v) && v == floor(v));
    if (v < 18446744073709551616.0) /* 2^64 */
        return mdae_bn_set_u64(x, (uint64_t)v);
    int e;
    double m = frexp(v, &e); /* v = m * 2^e, 0.5 <= m < 1 */
    mdae_bn t = {0};
    int rc = mdae_bn_set_u64(&t, (uint64_t)ldexp(m, 53));
    if (rc == MDAE_OK)
        rc = mdae_bn_shl(&t, (unsigned)(e - 53));
    if (rc != MDAE_OK) {
        mdae_bn_free(&t);
        return rc;
    }
    mdae_bn_free(x);
    *x = t;
    return MDAE_OK;
}

int mdae_bn_copy(mdae_bn *dst, const mdae_bn *src)
{
    MDAE_ASSERT(dst != src);
    if (reserve(dst, src->n) != MDAE_OK)
        return MDAE_E_NOMEM;
    if (src->n > 0)
        memcpy(dst->d, src->d, (size_t)src->n * sizeof *dst->d);
    if (dst->cap > src->n)
        memset(dst->d + src->n, 0, (size_t)(dst->cap - src->n) * sizeof *dst->d);
    dst->n = src->n;
    return MDAE_OK;
}

int mdae_bn_add(mdae_bn *acc, const mdae_bn *x)
{
    uint32_t n = acc->n > x->n ? acc->n : x->n;
    if (reserve(acc, n + 1) != MDAE_OK)
        return MDAE_E_NOMEM;
    uint64_t carry = 0;
    uint32_t xn = x->n; /* x may be acc */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t s = (uint64_t)acc->d[i] + (i < xn ? x->d[i] : 0) + carry;
        acc->d[i] = (uint32_t)s;
        carry = s >> 32;
    }
    acc->d[n] = (uint32_t)carry;
    acc->n = n + 1;
    normalise(acc);
    return MDAE_OK;
}

int mdae_bn_sub(mdae_bn *acc, const mdae_bn *x)
{
    if (mdae_bn_cmp(acc, x) < 0)
        return MDAE_E_INVAL;
    int64_t borrow = 0;
    for (uint32_t i = 0; i < acc->n; i++) {
        int64_t s = (int64_t)acc->d[i] - (i < x->n ? x->d[i] : 0) - borrow;
        borrow = s < 0;
        acc->d[i] = (uint32_t)(s + (borrow ? ((int64_t)1 << 32) : 0));
    }
    MDAE_ASSERT(borrow == 0);
    normalise(acc);
    return MDAE_OK;
}

int mdae_bn_shl(mdae_bn *x, unsigned k)
{
    if (x->n == 0 || k == 0)
        return MDAE_OK;
    uint32_t limbs = k / 32, bits = k % 32;
    if ((uint64_t)x->n + limbs + 1 > UINT32_MAX || reserve(x, x->n + limbs + 1) != MDAE_OK)
        return MDAE_E_NOMEM;
    x->d[x->n + limbs] = 0;
    for (uint32_t i = x->n; i-- > 0;) {
        uint64_t v = (uint64_t)x->d[i] << bits;
        x->d[i + limbs + 1] |= (uint32_t)(v >> 32);
        x->d[i + limbs] = (uint32_t)v;
    }
    for (uint32_t i = 0; i < limbs; i++)
        x->d[i] = 0;
    x->n += limbs + 1;
    normalise(x);
    return MDAE_OK;
}

int mdae_bn_mul_u32(mdae_bn *x, uint32_t f)
{
    if (reserve(x, x->n + 1) != MDAE_OK)
        return MDAE_E_NOMEM;
    uint64_t carry = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        uint64_t p = (uint64_t)x->d[i] * f + carry;
        x->d[i] = (uint32_t)p;
        carry = p >> 32;
    }
    x->d[x->n] = (uint32_t)carry;
    x->n++;
    normalise(x);
    return MDAE_OK;
}

int mdae_bn_cmp(const mdae_bn *a, const mdae_bn *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (uint32_t i = a->n; i-- > 0;)
        if (a->d[i] != b->d[i])
            return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

/* The top 64 bits of x as a double times 2^(*shift). */
static double top(const mdae_bn *x, long *shift)
{
    double v = 0;
    uint32_t lo = x->n > 3 ? x->n - 3 : 0; /* 96 bits: rounding is ours to ignore */
    for (uint32_t i = x->n; i-- > lo;)
        v = v * 4294967296.0 + x->d[i];
    *shift = 32L * lo;
    return v;
}

double mdae_bn_double(const mdae_bn *x)
{
    long shift;
    double v = top(x, &shift);
    return shift > 2000 ? HUGE_VAL : ldexp(v, (int)shift);
}

double mdae_bn_log2(const mdae_bn *x)
{
    if (x->n == 0)
        return -HUGE_VAL;
    long shift;
    double v = top(x, &shift);
    return log2(v) + (double)shift;
}

char *mdae_bn_dec(const mdae_bn *x)
{
    /* at most 10 digits per 32 bits, plus a terminator */
    size_t cap = (size_t)x->n * 10 + 2;
    char *out = mdae_malloc(cap);
    uint32_t *q = mdae_malloc(((size_t)x->n + 1) * sizeof *q);
    if (out == NULL || q == NULL) {
        mdae_free(out);
        mdae_free(q);
        return NULL;
    }
    if (x->n > 0)
        memcpy(q, x->d, (size_t)x->n * sizeof *q);
    uint32_t n = x->n;
    size_t len = 0;
    while (n > 0) { /* q := q / 10^9, the remainder's 9 digits, least first */
        uint64_t rem = 0;
        for (uint32_t i = n; i-- > 0;) {
            uint64_t cur = rem << 32 | q[i];
            q[i] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (n > 0 && q[n - 1] == 0)
            n--;
        for (int k = 0; k < 9 && (n > 0 || rem > 0); k++) {
            out[len++] = (char)('0' + rem % 10);
            rem /= 10;
        }
    }
    if (len == 0)
        out[len++] = '0';
    for (size_t i = 0; i < len / 2; i++) {
        char t = out[i];
        out[i] = out[len - 1 - i];
        out[len - 1 - i] = t;
    }
    out[len] = '\0';
    mdae_free(q);
    return out;
}

char *mdae_bn_dec_double(double v)
{
    mdae_bn t = {0};
    char *s = mdae_bn_set_double(&t, v) == MDAE_OK ? mdae_bn_dec(&t) : NULL;
    mdae_bn_free(&t);
    return s;
}
