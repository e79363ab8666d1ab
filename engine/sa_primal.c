/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_primal.c -- the primal problem for all modes (RR-9322 4.4): the
 * perfect matchings X, the maximum-weight ones S by bit-by-bit pruning, one
 * chosen MWPM T per mode, T_e per edge, and the singular modes.
 *
 * Weight shift. Instead of omega = sum of sigma over the matching, we
 * minimise the deficit D = sum over matched edges of
 * (max sigma of the edge's column in the mode) - sigma. In a perfect matching
 * every active variable is matched once, so D = (sum of column maxima) -
 * omega: the same matchings are optimal, but most edges have deficit 0 and
 * drop out of the sum, which keeps D's bits small (issue 3, item 6).
 */
#include "sa_int.h"

#include <string.h>

#define T(f) sa__tmp(c, (f))

static int level_of(const sa_result *r, size_t e) { return bdd_var2level(r->edge_var[e]); }

void sa__onehot(sa_ctx *c, const size_t *es, const BDD *act, size_t n, bool exactly,
                BDD *one, BDD *none)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    size_t *ix = sa__alloc(c, (n + 1) * sizeof *ix);
    for (size_t k = 0; k < n; k++) { /* by level, insertion sort: short lists */
        size_t b = k;
        while (b > 0 && level_of(r, es[ix[b - 1]]) > level_of(r, es[k])) {
            ix[b] = ix[b - 1];
            b--;
        }
        ix[b] = k;
    }
    BDD *z = sa__slots(c, 2);
    sa__put(&z[0], bddtrue);                       /* none of the rest */
    sa__put(&z[1], exactly ? bddfalse : bddtrue); /* one (at most one) */
    /* Bottom-up, deepest edge first, so each step adds one node on top. */
    for (size_t q = n; q-- > 0;) {
        size_t k = ix[q];
        size_t m2 = sa__mark(c);
        BDD v = bdd_ithvar(r->edge_var[es[k]]);
        BDD take = act ? T(bdd_and(z[0], act[k])) : z[0];
        sa__put(&z[1], bdd_ite(v, take, z[1]));
        sa__put(&z[0], bdd_ite(v, bddfalse, z[0]));
        sa__release(c, m2);
    }
    sa__put(one, z[1]);
    sa__put(none, z[0]);
    sa__release(c, mark);
}

/* Column lists: edges of each variable. */
static void columns(sa_ctx *c, size_t **first, size_t **edges)
{
    sa_result *r = c->r;
    size_t *f = sa__alloc(c, (r->n_var + 2) * sizeof *f);
    size_t *ed = sa__alloc(c, (r->n_edges + 1) * sizeof *ed);
    for (size_t e = 0; e < r->n_edges; e++)
        f[r->edge_v[e] + 2]++;
    for (uint32_t j = 0; j < r->n_var; j++)
        f[j + 2] += f[j + 1];
    for (size_t e = 0; e < r->n_edges; e++)
        ed[f[r->edge_v[e] + 1]++] = e;
    *first = f;
    *edges = ed;
}

void sa__mats_init(sa_ctx *c, sa__mats *mt)
{
    columns(c, &mt->cfirst, &mt->cedges);
    mt->rnone = sa__slots(c, c->r->n_eq + 1);
    mt->cnone = sa__slots(c, c->r->n_var + 1);
}

/* Conjoin the row and column constraints into *x, in the variable order
 * (rows by eq_order, each column right after its last row), so that only
 * the columns crossing the current row are open in the intermediate BDD. */
void sa__matchings(sa_ctx *c, BDD *x, bool perfect, sa__mats *mt, const char *phase)
{
    sa_result *r = c->r;
    uint32_t *pos = sa__alloc(c, (r->n_eq + 1) * sizeof *pos);
    for (uint32_t a = 0; a < r->n_eq; a++)
        pos[r->eq_order[a]] = a;
    /* Variables grouped by the position of their last row. */
    uint32_t *last = sa__alloc(c, (r->n_var + 1) * sizeof *last);
    size_t *gfirst = sa__alloc(c, (r->n_eq + 2) * sizeof *gfirst);
    uint32_t *gvars = sa__alloc(c, (r->n_var + 1) * sizeof *gvars);
    for (uint32_t j = 0; j < r->n_var; j++) {
        last[j] = 0;
        for (size_t k = mt->cfirst[j]; k < mt->cfirst[j + 1]; k++)
            if (pos[r->edge_eq[mt->cedges[k]]] > last[j])
                last[j] = pos[r->edge_eq[mt->cedges[k]]];
        gfirst[last[j] + 2]++;
    }
    for (uint32_t a = 0; a < r->n_eq; a++)
        gfirst[a + 2] += gfirst[a + 1];
    for (uint32_t j = 0; j < r->n_var; j++)
        gvars[gfirst[last[j] + 1]++] = j;

    size_t *es = sa__alloc(c, (r->n_edges + 1) * sizeof *es);
    BDD *one = sa__slots(c, 1);
    /* Variables in no equation: where they exist, nothing can match them. */
    for (uint32_t j = 0; j < r->n_var; j++)
        if (mt->cfirst[j] == mt->cfirst[j + 1] && perfect)
            sa__put(x, bdd_apply(*x, r->chi_j[j], bddop_diff));
    for (uint32_t a = 0; a < r->n_eq; a++) {
        uint32_t i = r->eq_order[a];
        size_t n = r->eq_first[i + 1] - r->eq_first[i];
        size_t m2 = sa__mark(c);
        for (size_t k = 0; k < n; k++)
            es[k] = r->eq_first[i] + k;
        sa__onehot(c, es, &r->chi_e[r->eq_first[i]], n, perfect, one, &mt->rnone[i]);
        /* Inactive equations take no edge: chi_E => chi_I already. */
        BDD row = T(bdd_ite(r->chi_i[i], *one, mt->rnone[i]));
        sa__put(x, bdd_and(*x, row));
        sa__release(c, m2);
        for (size_t g = gfirst[a]; g < gfirst[a + 1]; g++) {
            uint32_t j = gvars[g];
            size_t nc = mt->cfirst[j + 1] - mt->cfirst[j];
            if (nc == 0) {
                sa__put(&mt->cnone[j], bddtrue);
                continue;
            }
            m2 = sa__mark(c);
            sa__onehot(c, &mt->cedges[mt->cfirst[j]], NULL, nc, perfect, one, &mt->cnone[j]);
            BDD col = T(bdd_ite(r->chi_j[j], *one, mt->cnone[j]));
            sa__put(x, bdd_and(*x, col));
            sa__release(c, m2);
        }
        if ((a & 63) == 63)
            sa__progress(c, phase, a, r->n_eq);
    }
}

void sa__argmin(sa_ctx *c, BDD *s, const BDD *v, int w)
{
    sa_result *r = c->r;
    for (int k = w; k-- > 0;) {
        if (v[k] == bddfalse)
            continue;
        size_t mark = sa__mark(c);
        /* Modes where some remaining element has bit k clear: there, drop
         * the elements with bit k set (RR-9322 4.4, for a minimum). */
        BDD nv = T(bdd_not(v[k]));
        BDD can0 = T(bdd_appex(*s, nv, bddop_and, r->edgeset));
        BDD drop = T(bdd_and(v[k], can0));
        sa__put(s, bdd_apply(*s, drop, bddop_diff));
        sa__release(c, mark);
    }
}

/* ---- Choice of one element per mode ----------------------------------------
 * choose(f): for each mode, the element of f (an edge set) that is
 * lexicographically smallest in the variable order, false before true.
 * At an edge node: take the low branch where it has a solution
 * (sat = exists E), else the high branch. Memoised on nodes; linear in |f|
 * recursive calls. */

typedef struct memo {
    int *key;
    BDD *val; /* slots */
    size_t cap;
} memo;

static void memo_init(sa_ctx *c, memo *mm, BDD f)
{
    size_t n = (size_t)bdd_nodecount(f) + 2, cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    mm->cap = cap;
    mm->key = sa__alloc(c, cap * sizeof *mm->key);
    for (size_t k = 0; k < cap; k++)
        mm->key[k] = -1;
    mm->val = sa__slots(c, cap);
}

static BDD *memo_at(memo *mm, int f, bool *found)
{
    size_t h = ((size_t)f * 2654435761u) & (mm->cap - 1);
    while (mm->key[h] != -1 && mm->key[h] != f)
        h = (h + 1) & (mm->cap - 1);
    *found = mm->key[h] == f;
    mm->key[h] = f;
    return &mm->val[h];
}

static BDD sat_rec(sa_ctx *c, memo *mm, BDD f)
{
    if (f < 2)
        return f;
    bool found;
    BDD *slot = memo_at(mm, f, &found);
    if (found)
        return *slot;
    int v = bdd_var(f);
    BDD lo = sat_rec(c, mm, bdd_low(f));
    BDD hi = sat_rec(c, mm, bdd_high(f));
    if (c->r->var_mode[v] >= 0)
        sa__put(slot, bdd_ite(bdd_ithvar(v), hi, lo));
    else
        sa__put(slot, bdd_or(lo, hi));
    return *slot;
}

static BDD choose_rec(sa_ctx *c, memo *cm, memo *sm, BDD f)
{
    if (f < 2)
        return f;
    bool found;
    BDD *slot = memo_at(cm, f, &found);
    if (found)
        return *slot;
    int v = bdd_var(f);
    BDD lo = bdd_low(f), hi = bdd_high(f);
    BDD cl = choose_rec(c, cm, sm, lo);
    BDD ch = choose_rec(c, cm, sm, hi);
    size_t mark = sa__mark(c);
    if (c->r->var_mode[v] >= 0) {
        sa__put(slot, bdd_ite(bdd_ithvar(v), ch, cl));
    } else {
        BDD sl = sat_rec(c, sm, lo);
        BDD x = T(bdd_apply(ch, sl, bddop_diff));
        sa__put(slot, bdd_ite(bdd_ithvar(v), x, cl));
    }
    sa__release(c, mark);
    return *slot;
}

BDD sa__choose(sa_ctx *c, BDD s)
{
    BDD *out = sa__slots(c, 1);
    size_t mark = sa__mark(c);
    memo cm, sm;
    memo_init(c, &cm, s);
    memo_init(c, &sm, s);
    sa__put(out, choose_rec(c, &cm, &sm, s));
    sa__release(c, mark);
    return *out;
}

/* ---- The primal problem ------------------------------------------------------ */

static int bits_for(unsigned long long v)
{
    int b = 1;
    while (b < 62 && (v >> b) != 0)
        b++;
    return b;
}

void sa__primal(sa_ctx *c)
{
    sa_result *r = c->r;
    size_t mark = sa__mark(c);
    sa__mats mt;
    sa__mats_init(c, &mt);
    r->te = sa__alloc_keep(c, (r->n_edges + 1) * sizeof(BDD));

    /* X: perfect matchings, within the valid modes. */
    BDD *x = sa__slots(c, 1);
    sa__put(x, r->chi_m);
    sa__matchings(c, x, true, &mt, "matchings");
    BDD pm = T(bdd_exist(*x, r->edgeset));
    sa__put(&r->ok, pm);
    sa__put(&r->singular, bdd_apply(r->chi_m, pm, bddop_diff));
    sa__progress(c, "weights", 0, r->n_edges);

    /* Deficits: column maximum minus sigma, per edge, where it is active. */
    int ws = r->w_sigma;
    unsigned long long bound = 0;
    for (uint32_t i = 0; i < r->n_eq; i++)
        bound += (1ull << ws) - 1;
    int wd = bits_for(bound);
    BDD *dsum = sa__slots(c, (size_t)wd);
    BDD *colmax = sa__slots(c, (size_t)ws);
    BDD *term = sa__slots(c, (size_t)wd);
    BDD *def = sa__slots(c, (size_t)ws);
    BDD **deficit = sa__alloc(c, (r->n_edges + 1) * sizeof *deficit);
    for (uint32_t j = 0; j < r->n_var; j++) {
        sa__vconst(colmax, ws, 0);
        for (size_t k = mt.cfirst[j]; k < mt.cfirst[j + 1]; k++) {
            size_t e = mt.cedges[k];
            size_t m2 = sa__mark(c);
            BDD *sg = sa__slots(c, (size_t)ws);
            sa__vite(c, sg, r->chi_e[e], &r->sigma[e * ws], sg, ws);
            sa__vmax(c, colmax, colmax, sg, ws);
            sa__release(c, m2);
        }
        for (size_t k = mt.cfirst[j]; k < mt.cfirst[j + 1]; k++) {
            size_t e = mt.cedges[k];
            size_t m2 = sa__mark(c);
            sa__vsub(c, def, colmax, &r->sigma[e * ws], ws);
            bool zero = true;
            for (int b = 0; b < ws && zero; b++)
                zero = T(bdd_and(def[b], r->chi_e[e])) == bddfalse;
            sa__release(c, m2);
            if (!zero) {
                deficit[e] = sa__slots(c, (size_t)ws);
                for (int b = 0; b < ws; b++)
                    sa__put(&deficit[e][b], bdd_and(def[b], r->chi_e[e]));
            }
        }
    }
    /* D = sum of the deficits of the chosen edges, added in variable order. */
    for (uint32_t a = 0; a < r->n_eq; a++) {
        uint32_t i = r->eq_order[a];
        for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
            if (deficit[e] == NULL)
                continue;
            size_t m2 = sa__mark(c);
            BDD v = bdd_ithvar(r->edge_var[e]);
            for (int b = 0; b < wd; b++)
                sa__put(&term[b], b < ws ? bdd_and(v, deficit[e][b]) : bddfalse);
            sa__vadd(c, dsum, dsum, term, wd);
            sa__release(c, m2);
        }
        if ((a & 63) == 63)
            sa__progress(c, "weights", a, r->n_eq);
    }

    sa__progress(c, "argmax", 0, (size_t)wd);
    sa__argmin(c, x, dsum, wd);
    sa__progress(c, "choice", 0, r->n_edges);
    BDD t = sa__choose(c, *x);
    for (size_t e = 0; e < r->n_edges; e++) {
        sa__put(&r->te[e], bdd_appex(t, bdd_ithvar(r->edge_var[e]), bddop_and, r->edgeset));
        if ((e & 255) == 255)
            sa__progress(c, "choice", e, r->n_edges);
    }
    sa__release(c, mark);
}
