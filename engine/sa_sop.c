/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_sop.c -- a set of modes (a BDD over the mode variables) as an
 * irredundant sum of products: a list of cubes and a formula
 * ("g1 & !g2 | g3", "true", "false").
 *
 * Minato-Morreale ISOP on BuDDy nodes (Minato 1992): isop(L, U) returns a
 * cover C with L <= C <= U whose cubes are irredundant; here L = U = f. The
 * cubes are emitted during the recursion, following the current partial
 * assignment of the mode variables, to a sink (sa__cube_fn): here the set's
 * cube list, in cdg_view.c the text of a DOT label. Not memoised: the sets
 * we print are small, and cubes would have to be shared with their prefixes
 * otherwise.
 */
#include "sa_int.h"

#include <string.h>

#define T(f) sa__tmp(c, (f))

/* The recursion's state: the current partial assignment and the sink. */
typedef struct isop_walk {
    const sa_result *r;
    signed char *cur; /* n_modes: the current partial assignment */
    sa__cube_fn *emit;
    void *arg;
} isop_walk;

/* The cubes of a set, collected for sa__set_of_care. */
typedef struct isop_out {
    const sa_result *r;
    signed char *cubes;
    size_t n, cap;
} isop_out;

static void collect_cube(sa_ctx *c, void *arg, const signed char *cur)
{
    isop_out *o = arg;
    size_t nm = o->r->n_modes;
    if (o->n >= SA_MAX_CUBES)
        sa__fail(c, MDAE_E_LIMIT);
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        signed char *p = sa__alloc(c, cap * nm + 1);
        if (o->n)
            memcpy(p, o->cubes, o->n * nm);
        o->cubes = p; /* the old block is freed with the context */
        o->cap = cap;
    }
    if (nm)
        memcpy(o->cubes + o->n * nm, cur, nm);
    o->n++;
}

static int level(BDD f) { return f < 2 ? 0x7fffffff : bdd_var2level(bdd_var(f)); }

static void cofactors(BDD f, int lv, BDD *f0, BDD *f1)
{
    if (level(f) == lv) {
        *f0 = bdd_low(f);
        *f1 = bdd_high(f);
    } else {
        *f0 = *f1 = f;
    }
}

/* Result in *out (a caller slot). */
static void isop(sa_ctx *c, isop_walk *o, BDD l, BDD u, BDD *out)
{
    if (l == bddfalse) {
        sa__put(out, bddfalse);
        return;
    }
    if (u == bddtrue) {
        o->emit(c, o->arg, o->cur);
        sa__put(out, bddtrue);
        return;
    }
    size_t mark = sa__mark(c);
    int lv = level(l) < level(u) ? level(l) : level(u);
    int v = bdd_level2var(lv);
    int k = o->r->var_mode[v];
    BDD l0, l1, u0, u1;
    cofactors(l, lv, &l0, &l1);
    cofactors(u, lv, &u0, &u1);
    BDD *cv = sa__slots(c, 3);
    o->cur[k] = 0;
    isop(c, o, T(bdd_apply(l0, u1, bddop_diff)), u0, &cv[0]);
    o->cur[k] = 1;
    isop(c, o, T(bdd_apply(l1, u0, bddop_diff)), u1, &cv[1]);
    o->cur[k] = -1;
    BDD a = T(bdd_apply(l0, cv[0], bddop_diff));
    BDD b = T(bdd_apply(l1, cv[1], bddop_diff));
    isop(c, o, T(bdd_or(a, b)), T(bdd_and(u0, u1)), &cv[2]);
    BDD t = T(bdd_ite(bdd_ithvar(v), cv[1], cv[0]));
    sa__put(out, bdd_or(t, cv[2]));
    sa__release(c, mark);
}

void sa__isop(sa_ctx *c, const sa_result *r, BDD l, BDD u, sa__cube_fn *emit, void *arg,
              BDD *out)
{
    isop_walk w = {r, sa__alloc(c, r->n_modes + 1), emit, arg};
    memset(w.cur, -1, r->n_modes + 1);
    isop(c, &w, l, u, out);
}

void sa__set_close(sa_set *s)
{
    mdae_free(s->formula);
    mdae_free(s->cubes);
    memset(s, 0, sizeof *s);
}

static int cube_cmp(const signed char *a, const signed char *b, size_t nm)
{
    for (size_t k = 0; k < nm; k++) {
        int x = a[k] < 0 ? 2 : a[k], y = b[k] < 0 ? 2 : b[k];
        if (x != y)
            return x - y;
    }
    return 0;
}

void sa__set_of(sa_ctx *c, const sa_result *r, BDD f, sa_set *out)
{
    sa__set_of_care(c, r, f, bddtrue, out);
}

void sa__set_of_care(sa_ctx *c, const sa_result *r, BDD f, BDD care, sa_set *out)
{
    size_t nm = r->n_modes;
    size_t mark = sa__mark(c);
    sa__block *temps = sa__alloc_mark(c);
    isop_out o = {r, NULL, 0, 0};
    BDD *cover = sa__slots(c, 3);
    /* Outside the care set anything goes: L = f & care, U = f | !care. */
    sa__put(&cover[1], bdd_and(f, care));
    sa__put(&cover[2], bdd_imp(care, f));
    sa__isop(c, r, cover[1], cover[2], collect_cube, &o, cover);
    sa__release(c, mark);

    /* A stable, readable order: by the first mode variable that differs,
     * negative literal, then positive, then don't care. */
    signed char *tmp = sa__alloc(c, nm + 1);
    for (size_t a = 1; a < o.n; a++)
        for (size_t b = a; b > 0 && cube_cmp(o.cubes + (b - 1) * nm, o.cubes + b * nm, nm) > 0;
             b--) {
            memcpy(tmp, o.cubes + b * nm, nm);
            memcpy(o.cubes + b * nm, o.cubes + (b - 1) * nm, nm);
            memcpy(o.cubes + (b - 1) * nm, tmp, nm);
        }
    /* The formula: cubes joined by " | ", literals by " & ". */
    size_t len = 8;
    for (size_t q = 0; q < o.n; q++)
        for (size_t k = 0; k < nm; k++)
            if (o.cubes[q * nm + k] >= 0)
                len += strlen(r->m->modes[k].name) + 4;
    len += 3 * o.n;
    char *z = sa__alloc(c, len);
    char *p = z;
    if (o.n == 0)
        p = stpcpy(p, "false");
    for (size_t q = 0; q < o.n; q++) {
        if (q > 0)
            p = stpcpy(p, " | ");
        bool lit = false;
        for (size_t k = 0; k < nm; k++) {
            signed char b = o.cubes[q * nm + k];
            if (b < 0)
                continue;
            if (lit)
                p = stpcpy(p, " & ");
            if (b == 0)
                *p++ = '!';
            p = stpcpy(p, r->m->modes[k].name);
            lit = true;
        }
        if (!lit)
            p = stpcpy(p, "true");
    }
    *p = '\0';
    char *formula = mdae_strdup(z);
    if (formula == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    signed char *cubes = mdae_malloc(o.n * nm + 1);
    if (cubes == NULL) {
        mdae_free(formula);
        sa__fail(c, MDAE_E_NOMEM);
    }
    if (o.n > 0 && nm > 0)
        memcpy(cubes, o.cubes, o.n * nm);
    out->formula = formula;
    out->n_cubes = o.n;
    out->cubes = cubes;
    sa__alloc_release(c, temps);
}
