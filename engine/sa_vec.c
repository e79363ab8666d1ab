/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_vec.c -- integers as functions of the mode: little-endian vectors
 * of w BDDs (RR-9322 4.3), with modular arithmetic on w bits.
 *
 * Why our own and not BuDDy's bvec: bvec allocates its arrays with malloc and
 * references every bit, so an operation aborted by the error hook (sa_int.h)
 * would leak both. Here every result goes to caller-owned slots. Callers
 * choose w large enough that no value of interest wraps around.
 */
#include "sa_int.h"

#define T(f) sa__tmp(c, (f))

int sa__vbits(unsigned long long v)
{
    int b = 1;
    while (b < 62 && (v >> b) != 0)
        b++;
    return b;
}

static bool all_false(const BDD *a, int w)
{
    for (int k = 0; k < w; k++)
        if (a[k] != bddfalse)
            return false;
    return true;
}

/* Whether every bit of a is a constant, and then its value in *v: the
 * operations below compute such operands as integers (the brake's offsets
 * and weights are mostly constants: a third of an edit's vector work went
 * into slots for them). */
bool sa__vconst_value(const BDD *a, int w, unsigned long long *v)
{
    unsigned long long x = 0;
    for (int k = 0; k < w; k++) {
        if (a[k] == bddtrue)
            x |= 1ull << k;
        else if (a[k] != bddfalse)
            return false;
    }
    *v = x;
    return true;
}

static unsigned long long low_bits(int w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }

/* dst := the w low bits of v, as constants. */
void sa__vconst_put(BDD *dst, int w, unsigned long long v)
{
    for (int k = 0; k < w; k++)
        sa__put(&dst[k], ((v >> k) & 1ull) ? bddtrue : bddfalse);
}

void sa__vconst(BDD *dst, int w, unsigned v) { sa__vconst_put(dst, w, v); }

long long sa__vvalue(const BDD *a, int w)
{
    unsigned long long x;
    return w < 63 && sa__vconst_value(a, w, &x) ? (long long)x : -1;
}

void sa__vcopy(BDD *dst, const BDD *a, int w)
{
    for (int k = 0; k < w; k++)
        sa__put(&dst[k], a[k]);
}

void sa__vite(sa_ctx *c, BDD *dst, BDD f, const BDD *a, const BDD *b, int w)
{
    if (f == bddtrue || sa__vsame(a, b, w)) {
        sa__vcopy(dst, a, w);
        return;
    }
    if (f == bddfalse) {
        sa__vcopy(dst, b, w);
        return;
    }
    size_t mark = sa__mark(c);
    BDD *t = sa__slots(c, (size_t)w);
    for (int k = 0; k < w; k++)
        sa__put(&t[k], sa__ite(f, a[k], b[k]));
    sa__vcopy(dst, t, w);
    sa__release(c, mark);
}

void sa__vadd(sa_ctx *c, BDD *dst, const BDD *a, const BDD *b, int w)
{
    if (all_false(b, w)) {
        sa__vcopy(dst, a, w);
        return;
    }
    if (all_false(a, w)) {
        sa__vcopy(dst, b, w);
        return;
    }
    unsigned long long va, vb;
    if (sa__vconst_value(a, w, &va) && sa__vconst_value(b, w, &vb)) {
        sa__vconst_put(dst, w, (va + vb) & low_bits(w));
        return;
    }
    size_t mark = sa__mark(c);
    BDD *t = sa__slots(c, (size_t)w + 1);
    BDD *carry = &t[w];
    for (int k = 0; k < w; k++) {
        size_t m2 = sa__mark(c);
        BDD x = T(sa__xor(a[k], b[k]));
        sa__put(&t[k], sa__xor(x, *carry));
        if (k + 1 < w) {
            BDD g = T(sa__and(a[k], b[k]));
            BDD p = T(sa__and(x, *carry));
            sa__put(carry, sa__or(g, p));
        }
        sa__release(c, m2);
    }
    sa__vcopy(dst, t, w);
    sa__release(c, mark);
}

void sa__vsub(sa_ctx *c, BDD *dst, const BDD *a, const BDD *b, int w)
{
    unsigned long long va, vb;
    if (sa__vconst_value(a, w, &va) && sa__vconst_value(b, w, &vb)) {
        sa__vconst_put(dst, w, (va - vb) & low_bits(w));
        return;
    }
    size_t mark = sa__mark(c);
    BDD *t = sa__slots(c, (size_t)w + 1);
    BDD *borrow = &t[w];
    for (int k = 0; k < w; k++) {
        size_t m2 = sa__mark(c);
        BDD x = T(sa__xor(a[k], b[k]));
        sa__put(&t[k], sa__xor(x, *borrow));
        if (k + 1 < w) {
            /* borrow' = (!a & b) | (borrow & !(a ^ b)) = ite(a^b, b, borrow) */
            sa__put(borrow, sa__ite(x, b[k], *borrow));
        }
        sa__release(c, m2);
    }
    sa__vcopy(dst, t, w);
    sa__release(c, mark);
}

BDD sa__vequal(sa_ctx *c, BDD within, const BDD *a, const BDD *b, int w)
{
    BDD *g = sa__slots(c, 1);
    unsigned long long va, vb;
    if (sa__vconst_value(a, w, &va) && sa__vconst_value(b, w, &vb)) {
        sa__put(g, va == vb ? within : bddfalse);
        return *g;
    }
    sa__put(g, within);
    size_t mark = sa__mark(c);
    for (int k = 0; k < w && *g != bddfalse; k++)
        sa__put(g, sa__and(*g, T(sa__biimp(a[k], b[k]))));
    sa__release(c, mark);
    return *g;
}

BDD sa__vgte(sa_ctx *c, const BDD *a, const BDD *b, int w)
{
    BDD *g = sa__slots(c, 1);
    unsigned long long va, vb;
    if (sa__vconst_value(a, w, &va) && sa__vconst_value(b, w, &vb)) {
        sa__put(g, va >= vb ? bddtrue : bddfalse);
        return *g;
    }
    sa__put(g, bddtrue);
    size_t mark = sa__mark(c);
    for (int k = 0; k < w; k++) {
        /* From the low bit up: the highest differing bit decides. */
        BDD x = T(sa__xor(a[k], b[k]));
        sa__put(g, sa__ite(x, a[k], *g));
    }
    sa__release(c, mark);
    return *g;
}

void sa__vmax(sa_ctx *c, BDD *dst, const BDD *a, const BDD *b, int w)
{
    if (all_false(a, w) || sa__vsame(a, b, w)) { /* max(0, b) = max(b, b) = b */
        sa__vcopy(dst, b, w);
        return;
    }
    if (all_false(b, w)) {
        sa__vcopy(dst, a, w);
        return;
    }
    unsigned long long va, vb;
    if (sa__vconst_value(a, w, &va) && sa__vconst_value(b, w, &vb)) {
        sa__vconst_put(dst, w, va >= vb ? va : vb);
        return;
    }
    size_t mark = sa__mark(c);
    BDD g = sa__vgte(c, a, b, w);
    sa__vite(c, dst, g, a, b, w);
    sa__release(c, mark);
}

bool sa__vsame(const BDD *a, const BDD *b, int w)
{
    for (int k = 0; k < w; k++)
        if (a[k] != b[k])
            return false;
    return true;
}

bool sa__eval(const sa_result *r, BDD f, const bool *mode)
{
    while (f > 1) {
        int v = bdd_var(f);
        int k = (v >= 0 && v < r->n_bddvars) ? r->var_mode[v] : -1;
        /* Mode functions never mention edges; treat one as false. */
        f = (k >= 0 && mode[k]) ? bdd_high(f) : bdd_low(f);
    }
    return f == bddtrue;
}

unsigned sa__veval(const sa_result *r, const BDD *a, int w, const bool *mode)
{
    unsigned v = 0;
    for (int k = 0; k < w; k++)
        if (sa__eval(r, a[k], mode))
            v |= 1u << k;
    return v;
}
