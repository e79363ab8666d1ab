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

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

/* The recursion's state: the current partial assignment, as the path of
 * literals from the root (a mode variable at most once), and the sink. Its
 * cost follows the path, not the model's mode variables (issue 40). */
typedef struct isop_walk {
    const sa_result *r;
    sa__lit *path;   /* depth literals, grown by doubling */
    sa__lit *sorted; /* a cube's literals by mode variable, for emit */
    size_t depth, cap;
    sa__cube_fn *emit;
    void *arg;
} isop_walk;

static void path_push(sa_ctx *c, isop_walk *w, uint32_t mode)
{
    if (w->depth == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        sa__lit *p = sa__alloc_raw(c, cap * sizeof *p);
        sa__lit *q = sa__alloc_raw(c, cap * sizeof *q);
        if (w->depth)
            memcpy(p, w->path, w->depth * sizeof *p);
        w->path = p; /* the old blocks are freed with the context */
        w->sorted = q;
        w->cap = cap;
    }
    w->path[w->depth].mode = mode;
    w->path[w->depth].value = 0;
    w->depth++;
}

static int lit_cmp(const void *a, const void *b)
{
    uint32_t x = ((const sa__lit *)a)->mode, y = ((const sa__lit *)b)->mode;
    return (x > y) - (x < y);
}

static void path_emit(sa_ctx *c, isop_walk *w)
{
    bool in_order = true;
    for (size_t i = 0; i < w->depth; i++) {
        w->sorted[i] = w->path[i];
        in_order = in_order && (i == 0 || w->path[i - 1].mode < w->path[i].mode);
    }
    if (!in_order) /* the variable order is not the mode order (reordering) */
        qsort(w->sorted, w->depth, sizeof *w->sorted, lit_cmp);
    w->emit(c, w->arg, w->sorted, w->depth);
}

/* The cubes of a set, collected for sa__set_of_care: cube q's literals are
 * lits[start[q] .. start[q + 1]). */
typedef struct isop_out {
    sa__lit *lits;
    size_t *start; /* n + 1 */
    size_t n, cap, n_lits, cap_lits;
} isop_out;

static void collect_cube(sa_ctx *c, void *arg, const sa__lit *lits, size_t n_lits)
{
    isop_out *o = arg;
    if (o->n >= (c->max_cubes ? c->max_cubes : SA_MAX_CUBES))
        sa__fail(c, MDAE_E_LIMIT);
    if (o->n + 1 >= o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        size_t *p = sa__alloc_raw(c, cap * sizeof *p);
        if (o->n)
            memcpy(p, o->start, (o->n + 1) * sizeof *p);
        else
            p[0] = 0;
        o->start = p; /* the old block is freed with the context */
        o->cap = cap;
    }
    if (o->n_lits + n_lits > o->cap_lits) {
        size_t cap = o->cap_lits ? 2 * o->cap_lits : 16;
        while (cap < o->n_lits + n_lits)
            cap *= 2;
        sa__lit *p = sa__alloc_raw(c, cap * sizeof *p);
        if (o->n_lits)
            memcpy(p, o->lits, o->n_lits * sizeof *p);
        o->lits = p;
        o->cap_lits = cap;
    }
    if (n_lits)
        memcpy(o->lits + o->n_lits, lits, n_lits * sizeof *lits);
    o->n_lits += n_lits;
    o->start[++o->n] = o->n_lits;
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

/* Where U's top variable v lies above L's (above_l): L <= U and L does not
 * read v, so L lies within both cofactors of U, the first two calls start
 * from L & !U1 = L & !U0 = false and emit nothing, and the result is the
 * third call's, isop(L, U0 & U1), its cubes emitted with v free. So that
 * call alone, one conjunction where the general step makes six
 * operations, three of them walking U (issue 41's row: the brake's
 * erasure sets at N = 100 are two literals within "the two modes differ",
 * a function of all 200 mode variables, and each walked U down to its own
 * pair of levels). The same cubes in the same order, the same cover. */

/* Result in *out (a caller slot). */
static void isop(sa_ctx *c, isop_walk *o, BDD l, BDD u, BDD *out)
{
    if (l == bddfalse) {
        sa__put(out, bddfalse);
        return;
    }
    if (u == bddtrue) {
        path_emit(c, o);
        sa__put(out, bddtrue);
        return;
    }
    size_t mark = sa__mark(c);
    int lv = level(l) < level(u) ? level(l) : level(u);
    int v = bdd_level2var(lv);
    int k = o->r->var_mode[v];
    assert(k >= 0);
    BDD l0, l1, u0, u1;
    cofactors(l, lv, &l0, &l1);
    cofactors(u, lv, &u0, &u1);
    BDD *cv = sa__slots(c, 3);
    if (level(u) < level(l)) { /* above_l: the third call alone */
        isop(c, o, l, T(bdd_and(u0, u1)), &cv[2]);
        sa__put(out, cv[2]);
        sa__release(c, mark);
        return;
    }
    size_t at = o->depth;
    path_push(c, o, (uint32_t)k);
    isop(c, o, T(bdd_apply(l0, u1, bddop_diff)), u0, &cv[0]);
    o->path[at].value = 1;
    isop(c, o, T(bdd_apply(l1, u0, bddop_diff)), u1, &cv[1]);
    o->depth = at;
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
    isop_walk w = {r, NULL, NULL, 0, 0, emit, arg};
    isop(c, &w, l, u, out);
}

/* ---- How many cubes, before emitting them ------------------------------------
 * A set whose cover exceeds the limit fails (collect_cube), but only after
 * the limit's worth of cubes: the brake's continuous first instants (an AND
 * over the cars of "this valve does not open", 2^N cubes) spent 5 ms of
 * 70 at N = 100 emitting 4,096 of them. The recursion's cover and count
 * depend only on (l, u), so memoised on that pair they take one visit per
 * distinct pair; the walk stops once the count passes the limit. */

typedef struct count_memo {
    BDD *key;       /* slots, 2 per entry: l, u (kept: a node freed by a
                       collection could come back as another function) */
    unsigned char *used;
    BDD *cover;     /* slots */
    double *count;
    size_t cap, n;
    double limit;
    bool over; /* the count passed the limit: the walk stops */
} count_memo;

static size_t count_slot(const count_memo *m, BDD l, BDD u)
{
    size_t h = ((size_t)l * 0x9E3779B97F4A7C15ull ^ (size_t)u * 0xC2B2AE3D27D4EB4Full) >> 20;
    h &= m->cap - 1;
    while (m->used[h] && (m->key[2 * h] != l || m->key[2 * h + 1] != u))
        h = (h + 1) & (m->cap - 1);
    return h;
}

/* isop(l, u)'s cover into *out and its number of cubes (unspecified once
 * m->over). Past cap / 2 entries the memo stops growing: the walk goes on
 * without it, as isop does. */
static double count_rec(sa_ctx *c, count_memo *m, BDD l, BDD u, BDD *out)
{
    if (l == bddfalse) {
        sa__put(out, bddfalse);
        return 0;
    }
    if (u == bddtrue) {
        sa__put(out, bddtrue);
        return 1;
    }
    size_t h = count_slot(m, l, u);
    if (m->used[h]) {
        sa__put(out, m->cover[h]);
        return m->count[h];
    }
    size_t mark = sa__mark(c);
    int lv = level(l) < level(u) ? level(l) : level(u);
    int v = bdd_level2var(lv);
    BDD l0, l1, u0, u1;
    cofactors(l, lv, &l0, &l1);
    cofactors(u, lv, &u0, &u1);
    BDD *cv = sa__slots(c, 3);
    double n;
    if (level(u) < level(l)) { /* above_l: the third call alone */
        n = count_rec(c, m, l, T(bdd_and(u0, u1)), &cv[2]);
        m->over = m->over || n > m->limit;
        sa__put(out, cv[2]);
    } else {
        n = count_rec(c, m, T(bdd_apply(l0, u1, bddop_diff)), u0, &cv[0]);
        if (!m->over)
            n += count_rec(c, m, T(bdd_apply(l1, u0, bddop_diff)), u1, &cv[1]);
        if (!m->over) {
            BDD a = T(bdd_apply(l0, cv[0], bddop_diff));
            BDD b = T(bdd_apply(l1, cv[1], bddop_diff));
            n += count_rec(c, m, T(bdd_or(a, b)), T(bdd_and(u0, u1)), &cv[2]);
        }
        m->over = m->over || n > m->limit;
        BDD t = T(bdd_ite(bdd_ithvar(v), cv[1], cv[0]));
        sa__put(out, bdd_or(t, cv[2]));
    }
    sa__release(c, mark);
    if (!m->over && 2 * (m->n + 1) <= m->cap) {
        h = count_slot(m, l, u); /* the recursion may have filled h */
        m->used[h] = 1;
        sa__put(&m->key[2 * h], l);
        sa__put(&m->key[2 * h + 1], u);
        sa__put(&m->cover[h], *out);
        m->count[h] = n;
        m->n++;
    }
    return n;
}

/* The number of cubes of isop(l, u); -1 if more than limit; -2 if not
 * counted because it cannot be: the cover is irredundant, so each cube
 * covers a minterm of l that no other does, and l has at most 2^s minterms
 * over the s variables of l and u, fewer than their nodes (most sets of a
 * report have a node or two). */
static double count_cubes(sa_ctx *c, BDD l, BDD u, size_t limit)
{
    size_t nodes = (size_t)bdd_nodecount(l) + (size_t)bdd_nodecount(u);
    if (nodes < 8 * sizeof(size_t) && ((size_t)1 << nodes) <= limit)
        return -2;
    size_t mark = sa__mark(c);
    count_memo m = {NULL, NULL, NULL, NULL, 64, 0, (double)limit, false};
    size_t want = 2 * nodes + 32;
    while (m.cap < want && m.cap < ((size_t)1 << 20))
        m.cap *= 2;
    m.key = sa__slots(c, 2 * m.cap);
    m.used = sa__alloc(c, m.cap);
    memset(m.used, 0, m.cap);
    m.cover = sa__slots(c, m.cap);
    m.count = sa__alloc(c, m.cap * sizeof *m.count);
    BDD *out = sa__slots(c, 1);
    double n = count_rec(c, &m, l, u, out);
    sa__release(c, mark);
    return m.over ? -1 : n;
}

void sa__set_close(sa_set *s)
{
    mdae_free(s->formula);
    mdae_free(s->rows);
    memset(s, 0, sizeof *s);
}

signed char sa_set_literal(const sa_set *s, size_t q, uint32_t k)
{
    assert(s != NULL && q < s->n_cubes);
    if (k < s->first_mode || k - s->first_mode >= s->width)
        return -1;
    return s->rows[q * s->width + (k - s->first_mode)];
}

int sa__set_empty(sa_set *out)
{
    memset(out, 0, sizeof *out);
    out->formula = mdae_strdup("false");
    out->rows = mdae_malloc(1);
    if (out->formula != NULL && out->rows != NULL)
        return MDAE_OK;
    sa__set_close(out);
    return MDAE_E_NOMEM;
}

/* Cubes q and p of o compared by the first mode variable where they
 * differ: a negative literal first, then a positive one, then none. */
static int cube_cmp(const isop_out *o, size_t q, size_t p)
{
    const sa__lit *a = o->lits + o->start[q], *ae = o->lits + o->start[q + 1];
    const sa__lit *b = o->lits + o->start[p], *be = o->lits + o->start[p + 1];
    for (; a < ae || b < be; a++, b++) {
        if (b == be || (a < ae && a->mode < b->mode))
            return a->value - 2; /* b free there */
        if (a == ae || b->mode < a->mode)
            return 2 - b->value; /* a free there */
        if (a->value != b->value)
            return a->value - b->value;
    }
    return 0;
}

void sa__set_of(sa_ctx *c, const sa_result *r, BDD f, sa_set *out)
{
    sa__set_of_care(c, r, f, NULL, out);
}

/* ---- Care sets by factors ----------------------------------------------------
 * A report covers thousands of sets within the valid modes, chi_M, which is
 * a function of every mode variable constrained by an invariant: on the
 * building, every set's interval [f & chi_M, f | !chi_M] spanned all the
 * mode variables, and each ISOP walked them all (a fifth of the analysis at
 * N = 50, growing like N^2). But the cover only depends on the factors of
 * chi_M that f touches:
 *
 * Claim. Let K be satisfiable and depend only on variables Y, and h <= h'
 * be independent of Y. Then isop(h & K, h' | !K) emits the same cubes in
 * the same order, and returns the same cover, as isop(h, h').
 *
 * By induction on the variables. Base: h & K is false iff h is, and
 * h' | !K is true iff h' is (K is satisfiable and shares no variable).
 * Top variable v in Y: l0 = h & K0 <= h' | !K1 = u1 (as h <= h'), and so
 * l1 <= u0: the first two calls return false at once, and the third is
 * isop(h & (K0 | K1), h' | !(K0 | K1)), emitted with v free, of the same
 * form with K0 | K1 over Y - {v}; the result is that call's. Top variable
 * v not in Y: K is untouched by the cofactors, the first call is
 * isop((h0 & !h'1) & K, h'0 | !K), the same form (h0 & !h'1 <= h'0), so by
 * induction it emits and returns what isop(h0 & !h'1, h'0) does, C0,
 * independent of Y; likewise C1; the third is ((h0 & !C0) | (h1 & !C1)) & K
 * against (h'0 & h'1) | !K, the same form since C0 covers h0 & !h'1 (so
 * h0 & !C0 <= h0 & h'1 <= h'0 & h'1), and so is C1's.
 *
 * With care = K_A & K_B, factors over disjoint variables, and f' agreeing
 * with f on care (Coudert-Madre's restrict, bdd_simplify), independent of
 * K_B's variables: the interval [f & care, f | !care] is [h & K_B,
 * h' | !K_B] with h = f' & K_A <= h' = f' | !K_A, so the cover of f within
 * care is the cover of f' within K_A, the factors f' touches. */

/* Union-find over mode variables: the root of k. */
static uint32_t uf_root(uint32_t *parent, uint32_t k)
{
    while (parent[k] != k) {
        parent[k] = parent[parent[k]];
        k = parent[k];
    }
    return k;
}

/* Join the mode variables of guard g with `first` (the first met, or
 * UINT32_MAX). False when the walk exceeds *budget nodes (guards are DAGs
 * that can share subterms: no split then). */
static bool join_modes(const mel_guard *g, uint32_t *parent, uint32_t *first, long *budget)
{
    if (--*budget < 0)
        return false;
    switch (g->op) {
    case MEL_G_VAR:
        if (*first == UINT32_MAX)
            *first = g->var;
        else
            parent[uf_root(parent, g->var)] = uf_root(parent, *first);
        return true;
    case MEL_G_NOT:
        return join_modes(g->lhs, parent, first, budget);
    case MEL_G_AND:
    case MEL_G_OR:
        return join_modes(g->lhs, parent, first, budget) &&
               join_modes(g->rhs, parent, first, budget);
    default:
        return true;
    }
}

/* The mode variables grouped by the invariants that share them; false if
 * the invariants are too large to walk. */
static bool invariant_groups(sa_ctx *c, const sa_result *r, uint32_t **parent_out)
{
    const mel_model *m = r->m;
    uint32_t *parent = sa__alloc(c, (r->n_modes + 1) * sizeof *parent);
    for (uint32_t k = 0; k < r->n_modes; k++)
        parent[k] = k;
    long budget = 1L << 20;
    for (uint32_t q = 0; q < m->n_invariants; q++) {
        uint32_t first = UINT32_MAX;
        if (!join_modes(m->invariants[q].cond, parent, &first, &budget))
            return false;
    }
    *parent_out = parent;
    return true;
}

/* The cube of the variables f depends on. Not bdd_support: BuDDy 2.4 keeps
 * that function's buffer in a static that bdd_done neither frees nor
 * resizes (LeakSanitizer reports it; sa_enum.c saw it overrun under
 * valgrind after a bdd_done / bdd_init with more variables). A walk over
 * f's nodes, each once (an open-addressing set sized from bdd_nodecount),
 * then the conjunction of the variables met, which is canonical whatever
 * their order. */
static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static BDD support_cube(sa_ctx *c, BDD f)
{
    if (f < 2)
        return bddtrue;
    size_t cap = 16;
    while (cap < 2 * (size_t)bdd_nodecount(f) + 2)
        cap *= 2;
    size_t mark = sa__mark(c);
    BDD *seen = sa__alloc(c, cap * sizeof *seen);
    BDD *stack = sa__alloc(c, cap * sizeof *stack);
    int *vars = sa__alloc(c, cap * sizeof *vars); /* a variable per node */
    for (size_t k = 0; k < cap; k++)
        seen[k] = -1;
    size_t top = 0, nv = 0;
    stack[top++] = f;
    while (top > 0) {
        BDD g = stack[--top];
        if (g < 2)
            continue;
        size_t h = ((size_t)g * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (seen[h] != -1 && seen[h] != g)
            h = (h + 1) & (cap - 1);
        if (seen[h] == g)
            continue;
        seen[h] = g; /* each node once: at most cap / 2 of them */
        vars[nv++] = bdd_var(g);
        stack[top++] = bdd_low(g);
        stack[top++] = bdd_high(g);
    }
    /* Each variable once, without an array of all the variables (one per
     * set of a report made the report quadratic, issue 40). */
    qsort(vars, nv, sizeof *vars, int_cmp);
    size_t nu = 0;
    for (size_t i = 0; i < nv; i++)
        if (nu == 0 || vars[nu - 1] != vars[i])
            vars[nu++] = vars[i];
    nv = nu;
    BDD cube = bdd_addref(sa__cube(c, vars, nv));
    sa__release(c, mark);
    BDD out = T(cube);
    bdd_delref(cube);
    return out;
}

/* Whether f reads only variables of group g. */
static bool of_group(sa_ctx *c, const sa_result *r, BDD f, const int *of_mode, size_t g)
{
    for (BDD s = support_cube(c, f); s >= 2; s = bdd_high(s)) {
        int k = r->var_mode[bdd_var(s)];
        if (k < 0 || of_mode[k] != (int)g)
            return false;
    }
    return true;
}

/* The factors of care (sa__care_init) without a quantification over the
 * whole support per group (each walked care: N^2 on the building, whose
 * care set is a chain of one invariant per room). Where each group's
 * variables are consecutive levels (groups numbered top down, as
 * sa__care_init numbers them), care's single frontier p at a group's top
 * level is C & q, q the frontier below the group, C the group's factor,
 * and bdd_simplify(C & q, q) = C (the restrict follows C's nodes down to
 * q: S(q, q) = 1). Candidates are checked: each reads its group only, is
 * not false, and their product is care; factors over disjoint variables
 * whose product is care are EXISTS (the others) care, each (the others'
 * factors are satisfiable), so they are the same nodes as the quantified
 * ones. False (factor partly written) when a check fails. */
static bool factors_by_frontier(sa_ctx *c, const sa_result *r, BDD care, BDD sup,
                                const int *of_mode, size_t n, BDD *factor)
{
    sa__within w;
    sa__within_init(c, care, &w);
    if (w.start == NULL)
        return false;
    int *lo = sa__alloc_raw(c, n * sizeof *lo), *hi = sa__alloc_raw(c, n * sizeof *hi);
    int at = -1; /* the group of the levels read so far */
    for (BDD s = sup; s >= 2; s = bdd_high(s)) {
        int g = of_mode[r->var_mode[bdd_var(s)]], l = bdd_var2level(bdd_var(s));
        if (g == at + 1)
            lo[g] = l;
        else if (g != at)
            return false; /* an earlier group again: not consecutive */
        at = g;
        hi[g] = l;
    }
    for (size_t g = 0; g < n; g++) {
        sa__put(&factor[g], bdd_simplify(w.start[lo[g]], w.start[hi[g] + 1]));
        if (factor[g] == bddfalse || !of_group(c, r, factor[g], of_mode, g))
            return false;
    }
    BDD all = bddtrue;
    for (size_t g = n; g-- > 0;) /* bottom up: each conjunction walks its factor */
        all = T(bdd_and(factor[g], all));
    return all == care;
}

void sa__care_init(sa_ctx *c, const sa_result *r, BDD care, sa__care *out)
{
    memset(out, 0, sizeof *out);
    out->whole = care;
    if (care >= 2) {
        out->above = sa__slots(c, 1);
        sa__put(out->above, care);
        out->above_level = sa__alloc(c, sizeof *out->above_level); /* 0: nothing above */
    }
    uint32_t *parent;
    if (care == bddtrue || care == bddfalse || r->n_modes < 2 || r->m == NULL ||
        !invariant_groups(c, r, &parent))
        return;
    size_t mark = sa__mark(c);
    int *of_mode = sa__alloc(c, (r->n_modes + 1) * sizeof *of_mode);
    int *of_root = sa__alloc(c, (r->n_modes + 1) * sizeof *of_root); /* group of a root */
    size_t n = 0;
    BDD sup = support_cube(c, care);
    for (uint32_t k = 0; k < r->n_modes; k++)
        of_mode[k] = of_root[k] = -1;
    for (BDD s = sup; s >= 2; s = bdd_high(s)) {
        int k = r->var_mode[bdd_var(s)];
        assert(k >= 0); /* care is a set of modes */
        uint32_t root = uf_root(parent, (uint32_t)k);
        if (of_root[root] < 0)
            of_root[root] = (int)n++;
        of_mode[k] = of_root[root];
    }
    if (n < 2) {
        sa__release(c, mark);
        return;
    }
    /* Factor g: care with every other group's variables quantified (the
     * support's cube less group g's own variables). */
    BDD *factor = sa__slots(c, n);
    BDD *own = sa__slots(c, n);
    for (size_t g = 0; g < n; g++)
        sa__put(&own[g], bddtrue);
    for (BDD s = sup; s >= 2; s = bdd_high(s)) {
        BDD *cube = &own[of_mode[r->var_mode[bdd_var(s)]]];
        sa__put(cube, bdd_and(*cube, bdd_ithvar(bdd_var(s))));
    }
    BDD all = care;
    if (!factors_by_frontier(c, r, care, sup, of_mode, n, factor)) {
        all = bddtrue;
        for (size_t g = 0; g < n; g++) {
            sa__put(&factor[g], bdd_exist(care, T(bdd_exist(sup, own[g]))));
            all = T(bdd_and(all, factor[g]));
        }
    }
    if (all != care) { /* not a product of the groups: do not split */
        sa__release(c, mark);
        return;
    }
    out->n = n;
    out->factor = factor;
    out->of_mode = of_mode;
    out->touched = sa__alloc(c, n);
}

/* The factors of care that f touches (all of care if it is not split), in
 * a slot of the caller's; *f replaced by a function that agrees with it on
 * care and touches no more factors than it needs. */
static BDD care_for(sa_ctx *c, const sa_result *r, const sa__care *care, BDD *f,
                    bool simplified)
{
    if (care == NULL)
        return bddtrue;
    if (care->n == 0)
        return care->whole;
    if (!simplified) /* else *f is that already (sa__set_of_memo_within) */
        *f = T(bdd_simplify(*f, care->whole));
    /* The factors touched, each once (touched is all zero between calls):
     * the cost follows f's support, not the number of factors (issue 40).
     * The product is canonical whatever the order of its terms. */
    BDD product = bddtrue;
    BDD sup = support_cube(c, *f);
    for (BDD s = sup; s >= 2; s = bdd_high(s)) {
        int k = r->var_mode[bdd_var(s)];
        if (k >= 0 && care->of_mode[k] >= 0 && !care->touched[care->of_mode[k]]) {
            care->touched[care->of_mode[k]] = 1;
            product = T(bdd_and(product, care->factor[care->of_mode[k]]));
        }
    }
    for (BDD s = sup; s >= 2; s = bdd_high(s)) {
        int k = r->var_mode[bdd_var(s)];
        if (k >= 0 && care->of_mode[k] >= 0)
            care->touched[care->of_mode[k]] = 0;
    }
    return product;
}

/* The upper bound of the cover of L = f & whole within care (unsplit):
 * !whole | f, or, where f reads no variable above L's top level lv, the
 * bound the recursion reaches at lv anyway (isop and count_rec: while U's
 * top lies above L's, U := U0 & U1, i.e. U's variables above lv are
 * quantified universally, one at a time), FORALL above . (!whole | f) =
 * !(EXISTS above . whole) | f, the existential part kept in care and
 * quantified further as the sets go down (a temporary). The same cover
 * and count: the brake's erasure sets at N = 100, two literals each within
 * "the two modes differ", walked that function of 200 variables four
 * times each; EXISTS above of it is true. */
static BDD upper_bound(sa_ctx *c, const sa_result *r, const sa__care *care, BDD f, BDD l)
{
    int lv = level(l);
    if (care == NULL || care->n != 0 || care->above == NULL || l < 2 || level(f) < lv ||
        lv < *care->above_level)
        return T(bdd_imp(care->whole, f));
    if (lv > *care->above_level && *care->above >= 2) {
        size_t mark = sa__mark(c);
        sa__amark temps = sa__alloc_mark(c);
        int from = *care->above_level, top = level(*care->above);
        from = from > top ? from : top; /* nothing read above the top */
        int *vars = sa__alloc_raw(c, (size_t)(lv > from ? lv - from : 0) * sizeof *vars + 1);
        size_t nv = 0;
        for (int at = from; at < lv; at++) {
            int v = bdd_level2var(at);
            if (v < r->n_bddvars && r->var_mode[v] >= 0)
                vars[nv++] = v;
        }
        if (nv > 0)
            sa__put(care->above, bdd_exist(*care->above, sa__cube(c, vars, nv)));
        sa__alloc_release(c, temps);
        sa__release(c, mark);
    }
    *care->above_level = lv;
    return T(bdd_imp(*care->above, f));
}

void sa__set_of_care(sa_ctx *c, const sa_result *r, BDD f, const sa__care *care, sa_set *out)
{
    if (!sa__set_of_care_if_few(c, r, f, care, out))
        sa__fail(c, MDAE_E_LIMIT);
}

/* The formula of o's cubes in the order ord: cubes joined by " | ",
 * literals by " & "; an mdae_malloc'd string. */
static char *cubes_formula(sa_ctx *c, const sa_result *r, const isop_out *o, const size_t *ord)
{
    size_t len = 8 + 3 * o->n;
    for (size_t i = 0; i < o->n_lits; i++)
        len += strlen(r->m->modes[o->lits[i].mode].name) + 6; /* " & !(" ")" */
    char *z = sa__alloc_raw(c, len);
    char *p = z;
    if (o->n == 0)
        p = stpcpy(p, "false");
    for (size_t i = 0; i < o->n; i++) {
        if (i > 0)
            p = stpcpy(p, " | ");
        size_t q = ord[i];
        for (size_t j = o->start[q]; j < o->start[q + 1]; j++) {
            if (j > o->start[q])
                p = stpcpy(p, " & ");
            /* a negated relation atom in parentheses: "!(h > 0)", not
             * "!h > 0" (issue 42); mel_mode_name_put's rule */
            const char *name = r->m->modes[o->lits[j].mode].name;
            bool paren = o->lits[j].value == 0 && strchr(name, ' ') != NULL;
            if (o->lits[j].value == 0)
                *p++ = '!';
            if (paren)
                *p++ = '(';
            p = stpcpy(p, name);
            if (paren)
                *p++ = ')';
        }
        if (o->start[q] == o->start[q + 1])
            p = stpcpy(p, "true");
    }
    *p = '\0';
    return mdae_strdup(z);
}

/* o's cubes in the order ord as out's window of rows (mdae_malloc'd);
 * false when out of memory. */
static bool cubes_rows(const isop_out *o, const size_t *ord, sa_set *out)
{
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < o->n_lits; i++) {
        lo = o->lits[i].mode < lo ? o->lits[i].mode : lo;
        hi = o->lits[i].mode > hi ? o->lits[i].mode : hi;
    }
    uint32_t width = o->n_lits ? hi - lo + 1 : 0;
    out->first_mode = o->n_lits ? lo : 0;
    out->width = width;
    out->n_cubes = o->n;
    out->rows = mdae_malloc(o->n * width + 1);
    if (out->rows == NULL)
        return false;
    if (o->n * width > 0)
        memset(out->rows, -1, o->n * width);
    for (size_t i = 0; i < o->n; i++)
        for (size_t j = o->start[ord[i]]; j < o->start[ord[i] + 1]; j++)
            out->rows[i * width + (o->lits[j].mode - lo)] = o->lits[j].value;
    return true;
}

/* sa__set_of_care_if_few; simplified: f is bdd_simplify(f, care->whole)
 * already, and care is split. */
static bool set_of_care(sa_ctx *c, const sa_result *r, BDD f, const sa__care *care,
                        bool simplified, sa_set *out)
{
    size_t mark = sa__mark(c);
    sa__amark temps = sa__alloc_mark(c);
    isop_out o = {NULL, NULL, 0, 0, 0, 0};
    BDD *cover = sa__slots(c, 3);
    BDD within = care_for(c, r, care, &f, simplified);
    /* Outside the care set anything goes: L = f & care, U = f | !care
     * (or what the recursion makes of it at L's top: upper_bound). */
    sa__put(&cover[1], bdd_and(f, within));
    sa__put(&cover[2], care != NULL && care->n == 0 ? upper_bound(c, r, care, f, cover[1])
                                                    : bdd_imp(within, f));
    size_t limit = c->max_cubes ? c->max_cubes : SA_MAX_CUBES;
    double n = count_cubes(c, cover[1], cover[2], limit);
    if (n == -1) {
        sa__release(c, mark);
        sa__alloc_release(c, temps);
        return false;
    }
    sa__isop(c, r, cover[1], cover[2], collect_cube, &o, cover);
    MDAE_ASSERT((double)o.n == n || (n == -2 && o.n <= limit));
    sa__release(c, mark);

    /* A stable, readable order: by the first mode variable that differs,
     * negative literal, then positive, then don't care. */
    size_t *ord = sa__alloc_raw(c, (o.n + 1) * sizeof *ord);
    for (size_t a = 0; a < o.n; a++) {
        size_t b = a;
        for (; b > 0 && cube_cmp(&o, ord[b - 1], a) > 0; b--)
            ord[b] = ord[b - 1];
        ord[b] = a;
    }
    memset(out, 0, sizeof *out);
    out->formula = cubes_formula(c, r, &o, ord);
    if (out->formula == NULL || !cubes_rows(&o, ord, out)) {
        sa__set_close(out);
        sa__fail(c, MDAE_E_NOMEM);
    }
    sa__alloc_release(c, temps);
    return true;
}

bool sa__set_of_care_if_few(sa_ctx *c, const sa_result *r, BDD f, const sa__care *care,
                            sa_set *out)
{
    return set_of_care(c, r, f, care, false, out);
}

/* ---- Sets already written, by function (sa__set_memo) ------------------- */

static size_t memo_slot(const sa__set_memo *m, BDD f)
{
    size_t at = (size_t)(((uint64_t)(unsigned)f * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
    while (m->key[at] != bddfalse && m->key[at] != f)
        at = (at + 1) & (m->cap - 1);
    return at;
}

void sa__set_memo_init(sa_ctx *c, sa__set_memo *m, size_t expected)
{
    m->cap = 64;
    while (m->cap < 2 * expected)
        m->cap *= 2;
    m->key = sa__slots(c, m->cap);
    m->set = sa__alloc(c, m->cap * sizeof *m->set);
    m->n = 0;
}

void sa__set_of_memo(sa_ctx *c, const sa_result *r, const sa__care *care, sa__set_memo *m, BDD f,
                     sa_set *out)
{
    size_t at = f == bddfalse ? 0 : memo_slot(m, f);
    if (f != bddfalse && m->key[at] == f) {
        const sa_set *was = m->set[at];
        size_t nc = was->n_cubes * was->width;
        *out = *was;
        out->formula = mdae_strdup(was->formula);
        out->rows = mdae_malloc(nc + 1);
        if (out->formula == NULL || out->rows == NULL) {
            sa__set_close(out);
            sa__fail(c, MDAE_E_NOMEM);
        }
        if (nc > 0)
            memcpy(out->rows, was->rows, nc);
        return;
    }
    sa__set_of_care(c, r, f, care, out);
    if (f != bddfalse && 2 * (m->n + 1) <= m->cap) {
        sa__put(&m->key[at], f);
        m->set[at] = out;
        m->n++;
    }
}

/* The set of x & w->d. Where care is split and is w->d, care_for's first
 * step, bdd_simplify(x & d, d), is made from x (sa_within.c: without the
 * chain x & d, which on the building walks every room above x's); m is
 * then keyed by x (two keys with the same x & d give the same set, since
 * the simplified function is one of x & d). */
void sa__set_of_memo_within(sa_ctx *c, const sa_result *r, const sa__care *care,
                            const sa__within *w, sa__set_memo *m, BDD x, sa_set *out)
{
    size_t mark = sa__mark(c);
    if (care == NULL || care->n == 0 || care->whole != w->d) {
        sa__set_of_memo(c, r, care, m, T(bdd_and(x, w->d)), out);
        sa__release(c, mark);
        return;
    }
    size_t at = x == bddfalse ? 0 : memo_slot(m, x);
    if (x != bddfalse && m->key[at] == x) {
        sa__release(c, mark);
        sa__set_of_memo(c, r, care, m, x, out); /* the copy */
        return;
    }
    BDD h = sa__within_simplify(c, w, x);
    if (!set_of_care(c, r, h, care, true, out))
        sa__fail(c, MDAE_E_LIMIT);
    sa__release(c, mark);
    if (x != bddfalse && 2 * (m->n + 1) <= m->cap) {
        sa__put(&m->key[at], x);
        m->set[at] = out;
        m->n++;
    }
}
