/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_pairs.c -- the first restart instant of every mode change at
 * once, on BDDs over two copies of the mode variables (mc.h,
 * mc_first_instants; issue 13 item 3, its first part).
 *
 * The first instant of a change m- -> m+ between long modes (mc_change.c,
 * R1-R3) is a system whose rows, columns and edges are each present in a
 * set of pairs (g, g') that formulas over the mode variables before (g) and
 * after (g') describe exactly, because everything it reads is a function of
 * one mode or the other:
 *
 *   same_i(g, g')  = guard_i(g) & guard_i(g') & AND over the incidence
 *                    cases of i (case(g) <=> case(g'))              (R3)
 *   ctx(i, k)      = same_i & c_i(g) >= k + 1                       (R3)
 *   row(i, k)      = guard_i(g') & c_i(g') >= k & !ctx(i, k)
 *   known(j, l)    = guard_j(g) & d_j(g) >= l + 1                   (R2)
 *   edge(i,k; j,l) = row(i, k) & sigma_ij(g') >= l - k & !known(j, l),
 *                    k <= l <= k + max sigma_ij                     (R1)
 *   col(j, l)      = OR of the edges into (j, l): a value is a column
 *                    when some row mentions it and it is not known.
 *
 * with c and d the offsets of the all-modes analysis of m (sa_result_report:
 * one formula per value, exact on the valid modes). These are the rows,
 * columns and edges of a model over 2n mode variables (g0, g0', g1, g1',
 * ...: each variable beside its copy), whose "modes" are the pairs; its
 * invariants keep the pairs of different valid nonsingular long modes.
 * Its all-modes analysis on BDDs (sa_analyze, the engine's own method
 * choice) then says, for all pairs at once, which first instants are
 * square with a perfect matching -- exactly the continuous changes (R6:
 * nothing erased, nonsingular) --, which have an underdetermined value (the
 * change is rejected at its first instant: erasing rows never makes a
 * column matchable), and which are overdetermined only (a restart is
 * needed: some equation is erased at the first instant; whether the
 * restart settles or is rejected later, and which equations R4 erases, is
 * not computed here). Nothing enumerates pairs.
 *
 * Left out of the pairs: changes into transient modes (the event,
 * mc_transient.c), given beside them by enumeration (mc_first.events,
 * mc_events_enumerate), and models with a guard fixpoint (every change is
 * refused, mc_guard.c). The later instants' erasures and restart systems
 * are read within the pairs still restarting (sa_result_left_out_within)
 * and given as sets of pairs (mc_first.later).
 */
#include "mc_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mel_int.h"
#include "sa.h"

/* ---- A pointer map for remapping guard DAGs ---------------------------- */

typedef struct gmap {
    const mel_guard **key, **val;
    size_t cap, n;
} gmap;

static void gmap_close(gmap *t)
{
    mdae_free(t->key);
    mdae_free(t->val);
    memset(t, 0, sizeof *t);
}

static size_t gmap_slot(const gmap *t, const mel_guard *k)
{
    size_t h = ((uintptr_t)k >> 4) * 0x9E3779B97F4A7C15ull;
    h &= t->cap - 1;
    while (t->key[h] != NULL && t->key[h] != k)
        h = (h + 1) & (t->cap - 1);
    return h;
}

static int gmap_put(gmap *t, const mel_guard *k, const mel_guard *v)
{
    if (2 * (t->n + 1) > t->cap) {
        gmap old = *t;
        t->cap = old.cap ? 2 * old.cap : 64;
        t->key = mdae_calloc(t->cap, sizeof *t->key);
        t->val = mdae_calloc(t->cap, sizeof *t->val);
        t->n = 0;
        if (t->key == NULL || t->val == NULL) {
            mdae_free(t->key);
            mdae_free(t->val);
            *t = old;
            return MDAE_E_NOMEM;
        }
        for (size_t s = 0; s < old.cap; s++)
            if (old.key[s] != NULL)
                gmap_put(t, old.key[s], old.val[s]);
        gmap_close(&old);
    }
    size_t h = gmap_slot(t, k);
    t->n += t->key[h] == NULL;
    t->key[h] = k;
    t->val[h] = v;
    return MDAE_OK;
}

static const mel_guard *gmap_get(const gmap *t, const mel_guard *k)
{
    if (t->cap == 0)
        return NULL;
    size_t h = gmap_slot(t, k);
    return t->key[h] == k ? t->val[h] : NULL;
}

/* ---- The pair model --------------------------------------------------------- */

typedef struct edge {
    uint32_t row, j;
    int l;
    const mel_guard *g;
} edge;

/* What an instant knows, for every pair at once (mc_change.c's `known` and
 * `done`, as guards over the pairs): known(j, l), the value x_j.^l fixed by
 * the old mode or an earlier instant (R2); done(i, k), f_i.^k solved or in
 * the context at the previous instant (R3), so that f_i.^(k-1) is in this
 * instant's context. Shifts l < W and k < H (FALSE beyond). alive: the
 * pairs still restarting (NULL at the first instant: all). A later
 * instant's model is built and analysed over every pair (alive as one more
 * invariant, a disjunction over the whole model, made the brake's
 * perfect matchings blow up past N = 15), and read within alive. */
typedef struct pair_state {
    uint32_t W, H;
    const mel_guard **known; /* n_variables * W */
    const mel_guard **done;  /* n_equations * H */
    const mel_guard *alive;
    /* The offsets' thresholds (build.ge, max_off), made once from the
     * report by the first instant's build (its arena, which outlives every
     * later instant) and read by the later ones. */
    const mel_guard ***ge[2];
    const int *max_off;
} pair_state;

/* R4's order over the pair model's rows (greedy_steps), where its rows and
 * columns come from, and the state it was built from (all in its arena). */
typedef struct greedy_order {
    sa_greedy_step *steps;
    size_t n_steps;
    const uint32_t *row_eq; /* per row: its equation of m */
    const int *row_k;       /* and its shift */
    const uint32_t *col_j;  /* per column: its variable of m */
    const int *col_l;       /* and its shift */
    const pair_state *state;
} greedy_order;

/* The previous instant, from which the next state is built (next_state). */
typedef struct prev_instant {
    const mel_model *pm;        /* its pair model: rows' and columns' guards */
    const sa_result *res;       /* its analysis (over the same pairs) */
    const greedy_order *order;
    const sa_set *erased;       /* per row: the pairs where R4 erased it */
    const sa_set *restart;      /* the pairs that went on restarting */
} prev_instant;

typedef struct build {
    const mel_model *m;
    const sa_report *rep;
    mel_model *pm; /* the pair model being built */
    struct mel_model_priv *priv;
    mel__gfactory gf;
    gmap copy[2]; /* original guard -> its copy over g (0) or g' (1) */
    int rc;
    /* ge[copy][i][v]: c_i >= v over that copy (equations), then d_j
     * (variables at n_equations + j); v = 0 .. max + 1 */
    const mel_guard ***ge[2];
    const int *max_off; /* per item: its largest offset, -1: no valid nonsingular mode */
    edge *edges;
    size_t n_edges, cap_edges;
    /* per row: its equation, shift and same_i (R4's preference class) */
    uint32_t *row_eq;
    int *row_k;
    const mel_guard **row_same;
    pair_state *st; /* this instant's (in the arena) */
    uint32_t *col_j;
    int *col_l;
} build;

static const mel_guard *fail(build *b, int rc)
{
    if (b->rc == MDAE_OK)
        b->rc = rc;
    return mel__g_false();
}

/* Guard g of the original model over copy `copy` (mode variable k becomes
 * 2k + copy). */
static const mel_guard *remap(build *b, const mel_guard *g, int copy)
{
    switch (g->op) {
    case MEL_G_FALSE:
    case MEL_G_TRUE: return g;
    default: break;
    }
    const mel_guard *v = gmap_get(&b->copy[copy], g);
    if (v != NULL)
        return v;
    switch (g->op) {
    case MEL_G_VAR: v = mel__g_var(&b->gf, 2 * g->var + (uint32_t)copy); break;
    case MEL_G_NOT: v = mel__g_not(&b->gf, remap(b, g->lhs, copy)); break;
    case MEL_G_AND:
        v = mel__g_and(&b->gf, remap(b, g->lhs, copy), remap(b, g->rhs, copy));
        break;
    default: v = mel__g_or(&b->gf, remap(b, g->lhs, copy), remap(b, g->rhs, copy)); break;
    }
    if (gmap_put(&b->copy[copy], g, v) < 0)
        return fail(b, MDAE_E_NOMEM);
    return v;
}

/* The cubes of s (over n variables) as a guard, cube variable k read as
 * the pair model's variable step * k + at. */
static const mel_guard *cubes_guard(build *b, const sa_set *s, uint32_t n, uint32_t step,
                                    uint32_t at)
{
    mel__gfactory *f = &b->gf;
    const mel_guard *acc = mel__g_false();
    MDAE_ASSERT(s->n_cubes == 0 || s->first_mode + s->width <= n);
    (void)n;
    for (size_t q = 0; q < s->n_cubes; q++) {
        const signed char *cube = &s->rows[q * s->width];
        const mel_guard *t = mel__g_true();
        for (uint32_t j = 0; j < s->width; j++) {
            if (cube[j] < 0)
                continue;
            const mel_guard *x = mel__g_var(f, step * (s->first_mode + j) + at);
            t = mel__g_and(f, t, cube[j] ? x : mel__g_not(f, x));
        }
        acc = mel__g_or(f, acc, t);
    }
    return acc;
}

/* A set of the report (cubes over the original mode variables) as a guard
 * over copy `copy`. */
static const mel_guard *set_guard(build *b, const sa_set *s, int copy)
{
    return cubes_guard(b, s, b->m->n_modes, 2, (uint32_t)copy);
}

/* ge[copy][item][v] for v = 0 .. max + 1 (the last one FALSE): offset >= v
 * on the valid nonsingular modes where the item is active. */
static int thresholds(build *b, const sa_item *it, size_t item, int copy, int *max_off)
{
    int max = -1;
    for (size_t q = 0; q < it->n_offsets; q++)
        max = it->offsets[q].value > max ? it->offsets[q].value : max;
    max_off[item] = max;
    const mel_guard **ge = mel__arena_alloc(&b->priv->arena, (size_t)(max + 2) * sizeof *ge);
    if (ge == NULL)
        return MDAE_E_NOMEM;
    ge[max + 1] = mel__g_false();
    for (int v = max; v >= 0; v--) {
        const mel_guard *eq = mel__g_false();
        for (size_t q = 0; q < it->n_offsets; q++)
            if (it->offsets[q].value == v)
                eq = mel__g_or(&b->gf, eq, set_guard(b, &it->offsets[q].modes, copy));
        ge[v] = mel__g_or(&b->gf, ge[v + 1], eq);
    }
    b->ge[copy][item] = ge;
    return MDAE_OK;
}

/* offset(item) >= v over copy, v >= 0 (FALSE past the largest). */
static const mel_guard *at_least(const build *b, size_t item, int copy, int v)
{
    return v > b->max_off[item] + 1 ? mel__g_false() : b->ge[copy][item][v];
}

/* R3 over the pair: the same equation, its incidence cases alike. */
static const mel_guard *same_body(build *b, const mel_equation *q)
{
    mel__gfactory *f = &b->gf;
    const mel_guard *s = mel__g_and(f, remap(b, q->guard, 0), remap(b, q->guard, 1));
    for (uint32_t e = 0; e < q->n_incs; e++)
        for (uint32_t c = 0; c < q->incs[e].n_cases; c++) {
            const mel_guard *x = remap(b, q->incs[e].cases[c].guard, 0);
            const mel_guard *y = remap(b, q->incs[e].cases[c].guard, 1);
            const mel_guard *eqv = mel__g_or(f, mel__g_and(f, x, y),
                                             mel__g_and(f, mel__g_not(f, x), mel__g_not(f, y)));
            s = mel__g_and(f, s, eqv);
        }
    return s;
}

/* sigma of incidence inc over copy 1 is at least s. */
static const mel_guard *sigma_at_least(build *b, const mel_incidence *inc, int s)
{
    const mel_guard *g = mel__g_false();
    for (uint32_t c = 0; c < inc->n_cases; c++)
        if (inc->cases[c].order >= s)
            g = mel__g_or(&b->gf, g, remap(b, inc->cases[c].guard, 1));
    return g;
}

/* "name@k" in b's arena (k >= 0), or NULL: the name of a row (equation,
 * shift) or a column (variable, shift). Not snprintf: the brake's pair
 * models at N = 100 name 2,400 of them per instant, and snprintf was a
 * third of their construction's instructions (issue 41's row). */
static char *shifted_name(build *b, const char *name, int k)
{
    MDAE_ASSERT(k >= 0);
    char digits[16];
    size_t nd = 0;
    unsigned v = (unsigned)k;
    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    size_t len = strlen(name);
    char *nm = mel__arena_alloc(&b->priv->arena, len + nd + 2);
    if (nm == NULL)
        return NULL;
    memcpy(nm, name, len);
    nm[len] = '@';
    for (size_t d = 0; d < nd; d++)
        nm[len + 1 + d] = digits[nd - 1 - d];
    nm[len + 1 + nd] = '\0';
    return nm;
}

static int push_edge(build *b, uint32_t row, uint32_t j, int l, const mel_guard *g)
{
    int rc = mc__grow((void **)&b->edges, &b->cap_edges, b->n_edges + 1, sizeof *b->edges);
    if (rc < 0)
        return rc;
    b->edges[b->n_edges++] = (edge){row, j, l, g};
    return MDAE_OK;
}

/* The rows (i, k) of the first instant (rows[], *n_rows: each row's name
 * "e@k" and guard) and their edges (b->edges). */
static int rows_and_edges(build *b, mel_equation *rows, uint32_t *n_rows)
{
    const mel_model *m = b->m;
    mel__gfactory *f = &b->gf;
    uint32_t nr = 0;
    for (uint32_t i = 0; i < m->n_equations && b->rc == MDAE_OK; i++) {
        const mel_equation *q = &m->equations[i];
        const mel_guard *same = same_body(b, q);
        for (int k = 0; k <= b->max_off[i]; k++) {
            const mel_guard *ctx = (uint32_t)k + 1 < b->st->H
                                       ? b->st->done[(size_t)i * b->st->H + (size_t)k + 1]
                                       : mel__g_false();
            const mel_guard *row = mel__g_and(
                f, mel__g_and(f, remap(b, q->guard, 1), at_least(b, i, 1, k)),
                mel__g_not(f, ctx));
            if (row == mel__g_false())
                continue;
            char *nm = shifted_name(b, q->name, k);
            if (nm == NULL)
                return MDAE_E_NOMEM;
            rows[nr] = (mel_equation){.name = nm, .guard = row, .where = q->where};
            b->row_eq[nr] = i;
            b->row_k[nr] = k;
            b->row_same[nr] = same;
            for (uint32_t e = 0; e < q->n_incs; e++) {
                const mel_incidence *inc = &q->incs[e];
                uint32_t j = inc->var;
                int smax = inc->cases[0].order; /* cases by decreasing order */
                for (int l = k; l <= k + smax; l++) {
                    const mel_guard *known = (uint32_t)l < b->st->W
                                                 ? b->st->known[(size_t)j * b->st->W + (size_t)l]
                                                 : mel__g_false();
                    const mel_guard *g = mel__g_and(
                        f, mel__g_and(f, row, sigma_at_least(b, inc, l - k)), mel__g_not(f, known));
                    if (g != mel__g_false() && push_edge(b, nr, j, l, g) < 0)
                        return MDAE_E_NOMEM;
                }
            }
            nr++;
        }
    }
    *n_rows = nr;
    return b->rc != MDAE_OK ? b->rc : f->err;
}

/* b->edges by column (j, then l), each column's edges by row: a stable
 * counting sort, since rows_and_edges pushed them by increasing row (a
 * qsort by (j, l, row) was three quarters of pair_model's time, the brake
 * at N = 100: 16 M instructions of 21 M per run). */
static int sort_edges(build *b)
{
    size_t n = b->n_edges;
    int lmax = 0;
    uint32_t jmax = 0;
    for (size_t e = 0; e < n; e++) {
        MDAE_ASSERT(b->edges[e].l >= 0 && (e == 0 || b->edges[e - 1].row <= b->edges[e].row));
        lmax = b->edges[e].l > lmax ? b->edges[e].l : lmax;
        jmax = b->edges[e].j > jmax ? b->edges[e].j : jmax;
    }
    size_t keys = ((size_t)jmax + 1) * ((size_t)lmax + 1);
    size_t *start = mdae_calloc(keys + 1, sizeof *start);
    edge *out = mdae_malloc((n + 1) * sizeof *out);
    if (start == NULL || out == NULL) {
        mdae_free(start);
        mdae_free(out);
        return MDAE_E_NOMEM;
    }
    for (size_t e = 0; e < n; e++)
        start[(size_t)b->edges[e].j * ((size_t)lmax + 1) + (size_t)b->edges[e].l + 1]++;
    for (size_t k = 0; k < keys; k++)
        start[k + 1] += start[k];
    for (size_t e = 0; e < n; e++)
        out[start[(size_t)b->edges[e].j * ((size_t)lmax + 1) + (size_t)b->edges[e].l]++] =
            b->edges[e];
    mdae_free(start);
    mdae_free(b->edges);
    b->edges = out;
    b->cap_edges = n + 1;
    return MDAE_OK;
}

/* The columns (one per (j, l) some edge reaches), then each row's
 * incidences, sorted by column. */
static int columns(build *b, mel_equation *rows, uint32_t n_rows)
{
    mel__arena *a = &b->priv->arena;
    if (b->n_edges > 1 && sort_edges(b) != MDAE_OK)
        return MDAE_E_NOMEM;
    uint32_t n_cols = 0;
    for (size_t e = 0; e < b->n_edges; e++)
        n_cols += e == 0 || b->edges[e].j != b->edges[e - 1].j || b->edges[e].l != b->edges[e - 1].l;
    mel_variable *cols = mdae_calloc((size_t)n_cols + 1, sizeof *cols);
    uint32_t *per_row = mdae_calloc((size_t)n_rows + 1, sizeof *per_row);
    uint32_t *col_of = mdae_calloc(b->n_edges + 1, sizeof *col_of);
    if (cols == NULL || per_row == NULL || col_of == NULL) {
        mdae_free(cols);
        mdae_free(per_row);
        mdae_free(col_of);
        return MDAE_E_NOMEM;
    }
    b->priv->variables = cols;
    b->col_j = mel__arena_alloc(a, ((size_t)n_cols + 1) * sizeof *b->col_j);
    b->col_l = mel__arena_alloc(a, ((size_t)n_cols + 1) * sizeof *b->col_l);
    if (b->col_j == NULL || b->col_l == NULL) {
        mdae_free(per_row);
        mdae_free(col_of);
        return MDAE_E_NOMEM;
    }
    uint32_t c = 0;
    for (size_t e = 0; e < b->n_edges;) {
        size_t z = e;
        const mel_guard *g = mel__g_false();
        for (; z < b->n_edges && b->edges[z].j == b->edges[e].j && b->edges[z].l == b->edges[e].l;
             z++) {
            g = mel__g_or(&b->gf, g, b->edges[z].g);
            col_of[z] = c;
            per_row[b->edges[z].row]++;
        }
        char *nm = shifted_name(b, b->m->variables[b->edges[e].j].name, b->edges[e].l);
        if (nm == NULL)
            break;
        b->col_j[c] = b->edges[e].j;
        b->col_l[c] = b->edges[e].l;
        cols[c++] = (mel_variable){nm, g, b->m->variables[b->edges[e].j].where, NULL, false};
        e = z;
    }
    int rc = c == n_cols ? MDAE_OK : MDAE_E_NOMEM;
    for (uint32_t r = 0; r < n_rows && rc == MDAE_OK; r++) {
        rows[r].incs = mel__arena_alloc(a, ((size_t)per_row[r] + 1) * sizeof *rows[r].incs);
        rc = rows[r].incs != NULL ? MDAE_OK : MDAE_E_NOMEM;
    }
    for (size_t e = 0; e < b->n_edges && rc == MDAE_OK; e++) {
        mel_order_case *cs = mel__arena_alloc(a, sizeof *cs);
        if (cs == NULL) {
            rc = MDAE_E_NOMEM;
            break;
        }
        *cs = (mel_order_case){b->edges[e].g, 0, rows[b->edges[e].row].where, 0};
        mel_equation *q = &rows[b->edges[e].row];
        ((mel_incidence *)q->incs)[q->n_incs++] = (mel_incidence){col_of[e], 1, cs};
    }
    /* Each row's incidences arrive sorted by column: the edges are by
     * column, and col_of grows with them. */
    for (uint32_t r = 0; r < n_rows && rc == MDAE_OK; r++)
        for (uint32_t k = 1; k < rows[r].n_incs; k++)
            MDAE_ASSERT(rows[r].incs[k - 1].var <= rows[r].incs[k].var);
    b->pm->n_variables = n_cols;
    b->pm->variables = cols;
    b->pm->n_edges = b->n_edges;
    mdae_free(per_row);
    mdae_free(col_of);
    return rc;
}

/* Modes (g0, g0', g1, ...) and the invariants of a valid pair. */
static int modes_and_invariants(build *b)
{
    const mel_model *m = b->m;
    mel__gfactory *f = &b->gf;
    uint32_t n = m->n_modes;
    mel_mode *modes = mdae_calloc(2 * (size_t)n + 1, sizeof *modes);
    mel_invariant *inv = mdae_calloc(2 * (size_t)m->n_invariants + 4, sizeof *inv);
    b->priv->modes = modes;
    b->priv->invariants = inv;
    if (modes == NULL || inv == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t k = 0; k < 2 * n; k++) {
        const char *base = m->modes[k / 2].name;
        size_t len = strlen(base) + sizeof MC_AFTER;
        char *nm = mel__arena_alloc(&b->priv->arena, len);
        if (nm == NULL)
            return MDAE_E_NOMEM;
        snprintf(nm, len, "%s%s", base, k % 2 ? MC_AFTER : "");
        modes[k].name = nm;
        modes[k].where = m->modes[k / 2].where;
        modes[k].reads_var = -1;
    }
    uint32_t ni = 0;
    for (int copy = 0; copy < 2; copy++) {
        for (uint32_t q = 0; q < m->n_invariants; q++)
            inv[ni++] = (mel_invariant){remap(b, m->invariants[q].cond, copy),
                                        m->invariants[q].where, 0};
        const mel_guard *sing = set_guard(b, &b->rep->singular_modes, copy);
        inv[ni++] = (mel_invariant){mel__g_not(f, sing), m->modes[0].where, 0};
    }
    const mel_guard *differ = mel__g_false();
    for (uint32_t k = 0; k < n; k++) {
        const mel_guard *x = mel__g_var(f, 2 * k), *y = mel__g_var(f, 2 * k + 1);
        differ = mel__g_or(f, differ,
                           mel__g_or(f, mel__g_and(f, x, mel__g_not(f, y)),
                                     mel__g_and(f, mel__g_not(f, x), y)));
    }
    inv[ni++] = (mel_invariant){differ, m->modes[0].where, 0};

    b->pm->n_modes = 2 * n;
    b->pm->modes = modes;
    b->pm->n_invariants = ni;
    b->pm->invariants = inv;
    return b->rc != MDAE_OK ? b->rc : f->err;
}

static int offsets(build *b)
{
    const mel_model *m = b->m;
    size_t items = (size_t)m->n_equations + m->n_variables;
    int *max_off = mel__arena_alloc(&b->priv->arena, (items + 1) * sizeof *max_off);
    b->max_off = max_off;
    for (int copy = 0; copy < 2; copy++)
        b->ge[copy] = mel__arena_alloc(&b->priv->arena, (items + 1) * sizeof *b->ge[copy]);
    if (max_off == NULL || b->ge[0] == NULL || b->ge[1] == NULL)
        return MDAE_E_NOMEM;
    int rc = MDAE_OK;
    for (int copy = 0; copy < 2 && rc == MDAE_OK; copy++) {
        for (uint32_t i = 0; i < m->n_equations && rc == MDAE_OK; i++)
            rc = thresholds(b, &b->rep->equations[i], i, copy, max_off);
        for (uint32_t j = 0; j < m->n_variables && rc == MDAE_OK; j++)
            rc = thresholds(b, &b->rep->variables[j], (size_t)m->n_equations + j, copy,
                            max_off);
    }
    return rc != MDAE_OK ? rc : b->gf.err;
}

/* ---- The state of an instant ------------------------------------------------ */

/* A set over the pairs' variables (cubes over g0, g0', ...) as a guard. */
static const mel_guard *pair_set_guard(build *b, const sa_set *s)
{
    return cubes_guard(b, s, 2 * b->m->n_modes, 1, 0);
}

/* A state with room for every shift (its guards FALSE), in the arena. */
static pair_state *new_state(build *b)
{
    const mel_model *m = b->m;
    mel__arena *a = &b->priv->arena;
    int dmax = 0, cmax = 0;
    for (uint32_t i = 0; i < m->n_equations; i++)
        cmax = b->max_off[i] > cmax ? b->max_off[i] : cmax;
    for (uint32_t j = 0; j < m->n_variables; j++)
        dmax = b->max_off[m->n_equations + j] > dmax ? b->max_off[m->n_equations + j] : dmax;
    pair_state *st = mel__arena_alloc(a, sizeof *st);
    if (st == NULL)
        return NULL;
    st->W = (uint32_t)dmax + 2;
    st->H = (uint32_t)cmax + 2;
    size_t nk = (size_t)m->n_variables * st->W + 1, nd = (size_t)m->n_equations * st->H + 1;
    st->known = mel__arena_alloc(a, nk * sizeof *st->known);
    st->done = mel__arena_alloc(a, nd * sizeof *st->done);
    if (st->known == NULL || st->done == NULL)
        return NULL;
    for (size_t k = 0; k < nk; k++)
        st->known[k] = mel__g_false();
    for (size_t k = 0; k < nd; k++)
        st->done[k] = mel__g_false();
    st->alive = NULL;
    st->ge[0] = b->ge[0];
    st->ge[1] = b->ge[1];
    st->max_off = b->max_off;
    return st;
}

/* The first instant's: the steady old mode (R2: x_j.^l known for l <
 * d_j(g); R3: f_i.^k solved for k <= c_i(g), if the body is the same). */
static int initial_state(build *b)
{
    const mel_model *m = b->m;
    mel__gfactory *f = &b->gf;
    pair_state *st = new_state(b);
    if (st == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t j = 0; j < m->n_variables; j++) {
        const mel_guard *act = remap(b, m->variables[j].guard, 0);
        for (uint32_t l = 0; l < st->W; l++)
            st->known[(size_t)j * st->W + l] =
                mel__g_and(f, act, at_least(b, m->n_equations + j, 0, (int)l + 1));
    }
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_guard *same = same_body(b, &m->equations[i]);
        for (uint32_t k = 0; k < st->H; k++)
            st->done[(size_t)i * st->H + k] = mel__g_and(f, same, at_least(b, i, 0, (int)k));
    }
    b->st = st;
    return b->rc != MDAE_OK ? b->rc : f->err;
}

/* The next instant's, from the previous one (mc_change.c, advance): what
 * it computed becomes known, what it solved (its rows R4 kept) or had in
 * its context becomes the next context; alive: the pairs it left
 * restarting. */
/* Guards past this size as trees are rewritten as their covers
 * (compact): each instant's state is built from the previous one's, so
 * their trees grow with the instants (past MEL__MAX_GUARD_SIZE on 5 of 340
 * small random models, issue 41 item 4), while the sets they stand for
 * stay small. */
#define STATE_GUARD_COMPACT ((uint64_t)1 << 10)

/* *g, when large, as the cover of the pairs where it holds (exact on the
 * valid pairs of res, the previous instant's analysis: those the next
 * pair model reads). */
static int compact(build *b, const sa_result *res, const mel_guard **g)
{
    if (mel__g_size(*g) <= STATE_GUARD_COMPACT)
        return MDAE_OK;
    sa_set s;
    int rc = sa_result_guard_set(res, *g, MC_FIRST_MAX_CUBES, &s);
    if (rc != MDAE_OK)
        return rc;
    *g = pair_set_guard(b, &s);
    sa_set_close(&s);
    return b->gf.err;
}

static int next_state(build *b, const prev_instant *pv)
{
    const mel_model *m = b->m, *pm = pv->pm;
    const greedy_order *po = pv->order;
    const pair_state *ps = po->state;
    mel__gfactory *f = &b->gf;
    mel__arena *a = &b->priv->arena;
    pair_state *st = new_state(b);
    const mel_guard **col = mel__arena_alloc(a, ((size_t)m->n_variables * ps->W + 1) * sizeof *col);
    const mel_guard **kept = mel__arena_alloc(a, ((size_t)m->n_equations * ps->H + 1) * sizeof *kept);
    if (st == NULL || col == NULL || kept == NULL || st->W != ps->W || st->H != ps->H)
        return st == NULL || col == NULL || kept == NULL ? MDAE_E_NOMEM : MDAE_E_INVAL;
    for (size_t k = 0; k < (size_t)m->n_variables * ps->W; k++)
        col[k] = mel__g_false();
    for (size_t k = 0; k < (size_t)m->n_equations * ps->H; k++)
        kept[k] = mel__g_false();
    int rc = MDAE_OK;
    for (uint32_t c = 0; c < pm->n_variables && rc == MDAE_OK; c++)
        if ((uint32_t)po->col_l[c] < ps->W) {
            const mel_guard **at = &col[(size_t)po->col_j[c] * ps->W + (size_t)po->col_l[c]];
            *at = pm->variables[c].guard;
            rc = compact(b, pv->res, at);
        }
    for (uint32_t r = 0; r < pm->n_equations && rc == MDAE_OK; r++)
        if ((uint32_t)po->row_k[r] < ps->H) {
            const mel_guard **at = &kept[(size_t)po->row_eq[r] * ps->H + (size_t)po->row_k[r]];
            *at = mel__g_and(f, pm->equations[r].guard,
                             mel__g_not(f, pair_set_guard(b, &pv->erased[r])));
            rc = compact(b, pv->res, at);
        }
    if (rc != MDAE_OK)
        return rc;
    for (uint32_t j = 0; j < m->n_variables; j++)
        for (uint32_t l = 0; l + 1 < st->W; l++) {
            size_t at = (size_t)j * st->W + l;
            st->known[at] = mel__g_or(f, ps->known[at + 1], col[at + 1]);
            rc = rc == MDAE_OK ? compact(b, pv->res, &st->known[at]) : rc;
        }
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_guard *act = remap(b, m->equations[i].guard, 1);
        for (uint32_t k = 0; k < st->H; k++) {
            size_t at = (size_t)i * st->H + k;
            const mel_guard *ctx = k + 1 < st->H ? ps->done[at + 1] : mel__g_false();
            st->done[at] = mel__g_and(f, mel__g_and(f, act, at_least(b, i, 1, (int)k)),
                                      mel__g_or(f, ctx, kept[at]));
            rc = rc == MDAE_OK ? compact(b, pv->res, &st->done[at]) : rc;
        }
    }
    if (rc != MDAE_OK)
        return rc;
    /* The restart class was read within the previous alive pairs already
     * (sa_result_partition_within); the conjunction keeps it explicit. */
    const mel_guard *restart = pair_set_guard(b, pv->restart);
    st->alive = ps->alive != NULL ? mel__g_and(f, ps->alive, restart) : restart;
    b->st = st;
    return b->rc != MDAE_OK ? b->rc : f->err;
}

/* R4's order for every pair at once (mc_change.c, erase_class and
 * keep_before): the rows worth keeping first -- the equations active in
 * both modes with the same body (same_i), then the others; in each, the
 * highest shift first; ties by declaration. So, as steps of
 * sa_result_left_out: for each class (same_i, then !same_i) and each shift
 * k from the highest down, the rows of shift k in order, each in the pairs
 * of its class. Into *order (arena), with the rows' equations and shifts. */
static int greedy_steps(build *b, uint32_t n_rows, greedy_order *order)
{
    mel__gfactory *f = &b->gf;
    int top = 0;
    for (uint32_t r = 0; r < n_rows; r++)
        top = b->row_k[r] > top ? b->row_k[r] : top;
    order->steps = mel__arena_alloc(&b->priv->arena, (2 * (size_t)n_rows + 1) *
                                                         sizeof *order->steps);
    if (order->steps == NULL)
        return MDAE_E_NOMEM;
    size_t n = 0;
    for (int same = 1; same >= 0; same--)
        for (int k = top; k >= 0; k--)
            for (uint32_t r = 0; r < n_rows; r++)
                if (b->row_k[r] == k)
                    order->steps[n++] = (sa_greedy_step){
                        r, same ? b->row_same[r] : mel__g_not(f, b->row_same[r])};
    order->n_steps = n;
    order->row_eq = b->row_eq;
    order->row_k = b->row_k;
    order->col_j = b->col_j;
    order->col_l = b->col_l;
    order->state = b->st;
    return f->err;
}

/* The pair model of m (owned: mel_model_free) from m's report, and R4's
 * order over its rows (in its arena). */
static int pair_model(const mel_model *m, const sa_report *rep, const prev_instant *prev,
                      mel_model **out, greedy_order *order)
{
    build b;
    memset(&b, 0, sizeof b);
    b.m = m;
    b.rep = rep;
    b.pm = mdae_calloc(1, sizeof *b.pm);
    b.priv = mdae_calloc(1, sizeof *b.priv);
    if (b.pm == NULL || b.priv == NULL) {
        mdae_free(b.pm);
        mdae_free(b.priv);
        return MDAE_E_NOMEM;
    }
    b.pm->priv = b.priv;
    mel__arena_init(&b.priv->arena);
    mel__gf_init(&b.gf, &b.priv->arena);
    int rc = MDAE_OK;
    if (prev == NULL) {
        rc = offsets(&b);
    } else { /* the first instant's, made from the same report */
        const pair_state *ps = prev->order->state;
        b.ge[0] = ps->ge[0];
        b.ge[1] = ps->ge[1];
        b.max_off = ps->max_off;
    }
    if (rc == MDAE_OK)
        rc = prev == NULL ? initial_state(&b) : next_state(&b, prev);
    if (rc == MDAE_OK)
        rc = modes_and_invariants(&b);
    mel_equation *rows = NULL;
    uint32_t n_rows = 0;
    if (rc == MDAE_OK) {
        size_t cap = 1;
        for (uint32_t i = 0; i < m->n_equations; i++)
            cap += (size_t)(b.max_off[i] + 1);
        rows = mdae_calloc(cap, sizeof *rows);
        b.priv->equations = rows;
        b.row_eq = mel__arena_alloc(&b.priv->arena, cap * sizeof *b.row_eq);
        b.row_k = mel__arena_alloc(&b.priv->arena, cap * sizeof *b.row_k);
        b.row_same = mel__arena_alloc(&b.priv->arena, cap * sizeof *b.row_same);
        rc = rows != NULL && b.row_eq != NULL && b.row_k != NULL && b.row_same != NULL
                 ? rows_and_edges(&b, rows, &n_rows)
                 : MDAE_E_NOMEM;
    }
    if (rc == MDAE_OK) {
        b.pm->n_equations = n_rows;
        b.pm->equations = rows;
        rc = columns(&b, rows, n_rows);
    }
    if (rc == MDAE_OK)
        rc = greedy_steps(&b, n_rows, order);
    rc = rc != MDAE_OK ? rc : b.gf.err;
    mel__gf_close(&b.gf);
    gmap_close(&b.copy[0]);
    gmap_close(&b.copy[1]);
    mdae_free(b.edges);
    if (rc != MDAE_OK) {
        mel_model_free(b.pm);
        return rc;
    }
    *out = b.pm;
    return MDAE_OK;
}

/* ---- The API ------------------------------------------------------------------- */

/* An instant after the first (later_instants): its pair model and what was
 * found there; kept to the end, since the next instant's guards point into
 * this one's. */
typedef struct later_instant {
    mel_model *pm;
    greedy_order order;
    sa_result *result;
    sa_set classes[3];
    double counts[3];
    mdae_bn counts_exact[3];
    sa_set *erased; /* n_rows: per row, the pairs still restarting where R4
                       erased it */
    double *erased_counts;
    mdae_bn *erased_exact;
    sa_set *kept;   /* n_rows: per row, the pairs still restarting where it
                       is a row of the restart system (not erased) */
    double *kept_counts;
    mdae_bn *kept_exact;
    uint32_t n_rows;
} later_instant;

struct mc_first_priv {
    mel_model *pairs;   /* the pair model */
    sa_result *result;  /* its all-modes analysis */
    greedy_order order; /* R4's order over its rows (in its arena) */
    sa_set *row_erased; /* per row of the first instant, R4's erasures */
    uint32_t n_row_erased;
    later_instant *later;
    uint32_t n_later;
};

void mc_first_free(mc_first *f)
{
    if (f == NULL)
        return;
    for (int k = 0; k < 3; k++) {
        sa_set_close(&f->classes[k]);
        mdae_bn_free(&f->counts_exact[k]);
        mdae_bn_free(&f->status_counts_exact[k]);
    }
    mdae_bn_free(&f->pairs_exact);
    for (size_t k = 0; k < f->n_erasures; k++) {
        mdae_free(f->erasures[k].equation);
        sa_set_close(&f->erasures[k].set);
        mdae_bn_free(&f->erasures[k].pairs_exact);
    }
    mdae_free(f->erasures);
    for (size_t k = 0; k < f->n_outcomes; k++) {
        sa_set_close(&f->outcomes[k].set);
        mdae_bn_free(&f->outcomes[k].pairs_exact);
    }
    mdae_free(f->outcomes);
    mc_all_free(f->events);
    for (size_t k = 0; k < f->n_later; k++) {
        mc_first_instant *li = &f->later[k];
        for (int w = 0; w < 2; w++) {
            size_t n = w ? li->n_rows : li->n_erasures;
            mc_first_erasure *e = w ? li->rows : li->erasures;
            for (size_t q = 0; q < n; q++) {
                mdae_free(e[q].equation);
                sa_set_close(&e[q].set);
                mdae_bn_free(&e[q].pairs_exact);
            }
            mdae_free(e);
        }
        mdae_bn_free(&li->pairs_exact);
        for (int c = 0; c < 3; c++)
            mdae_bn_free(&li->counts_exact[c]);
        mc__first_impulses_free(li->impulses, li->n_impulses);
    }
    mdae_free(f->later);
    mc__first_impulses_free(f->impulses, f->n_impulses);
    struct mc_first_priv *p = f->priv;
    if (p != NULL) {
        for (uint32_t k = 0; k < p->n_later; k++) {
            later_instant *li = &p->later[k];
            for (int c = 0; c < 3; c++) {
                sa_set_close(&li->classes[c]);
                mdae_bn_free(&li->counts_exact[c]);
            }
            for (uint32_t r = 0; li->erased != NULL && r < li->n_rows; r++)
                sa_set_close(&li->erased[r]);
            for (uint32_t r = 0; li->kept != NULL && r < li->n_rows; r++)
                sa_set_close(&li->kept[r]);
            for (uint32_t r = 0; li->erased_exact != NULL && r < li->n_rows; r++)
                mdae_bn_free(&li->erased_exact[r]);
            for (uint32_t r = 0; li->kept_exact != NULL && r < li->n_rows; r++)
                mdae_bn_free(&li->kept_exact[r]);
            mdae_free(li->erased);
            mdae_free(li->erased_counts);
            mdae_free(li->erased_exact);
            mdae_free(li->kept);
            mdae_free(li->kept_counts);
            mdae_free(li->kept_exact);
            sa_result_free(li->result);
            mel_model_free(li->pm);
        }
        mdae_free(p->later);
        for (uint32_t r = 0; p->row_erased != NULL && r < p->n_row_erased; r++)
            sa_set_close(&p->row_erased[r]);
        mdae_free(p->row_erased);
        sa_result_free(p->result);
        mel_model_free(p->pairs);
        mdae_free(p);
    }
    mdae_free(f);
}

static int say(char *why, size_t why_len, int rc, const char *text)
{
    if (why != NULL && why_len > 0)
        snprintf(why, why_len, "%s", text);
    return rc;
}

/* The model's all-modes report (owned: sa_report_free; the result too). */
static int analyse(const mel_model *m, const sa_options *opt, sa_result **res,
                   sa_report **rep)
{
    int rc = sa_analyze(m, opt, res, NULL);
    if (rc == MDAE_OK) /* the offsets and the singular modes are all it reads */
        rc = sa_result_report_ex(*res, SA_REPORT_VALID_CARE | SA_REPORT_OFFSETS_ONLY, rep);
    return rc;
}

/* A class whose cover was too large (sa_result_partition): its formula as
 * the complement of the others', which together with it partition the
 * pairs. */
static int complement_classes(mc_first *f)
{
    for (int k = 0; k < 3; k++) {
        sa_set *s = &f->classes[k];
        if (s->formula != NULL || f->counts[k] == 0)
            continue;
        f->cubes_left_out[k] = true;
        const char *a = f->classes[(k + 1) % 3].formula, *b = f->classes[(k + 2) % 3].formula;
        if (a == NULL || b == NULL)
            continue;
        s->formula = mdae_asprintf("!(%s | %s)", a, b);
        if (s->formula == NULL)
            return MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

/* The pairs' analysis (f->priv->pairs built) and f's classes. */
/* A pair model's analysis: the caller's options, only which pairs are
 * singular (the classes need no more, sa.h). */
static int analyse_pairs(const mel_model *pm, const sa_options *opt, bool erasures_next,
                         sa_result **out)
{
    sa_options po = {0};
    if (opt != NULL)
        po = *opt;
    po.singular_only = true;
    po.singular_by_covering = erasures_next;
    return sa_analyze(pm, &po, out, NULL);
}

/* R4's erasures over a pair model's analysis r in its order: the caller's
 * progress callback, mopt's method and budget (sa_result_left_out_within:
 * within the order's alive pairs at a later instant, with the kept rows
 * when kept is not NULL). */
static int erase_rows(const sa_result *r, const greedy_order *order, const sa_options *opt,
                      const mc_options *mopt, sa_set *sets, double *counts, mdae_bn *exact,
                      sa_set *kept, double *kept_counts, mdae_bn *kept_exact)
{
    sa_options go = {0};
    if (opt != NULL) {
        go.progress = opt->progress;
        go.progress_ctx = opt->progress_ctx;
        go.self_check = opt->self_check;
    }
    go.method = mopt->erasures_method;
    go.implicit_budget = mopt->erasures_budget;
    return sa_result_left_out_within(r, order->steps, order->n_steps, order->state->alive, &go,
                                     MC_FIRST_MAX_CUBES, sets, counts, exact, kept, kept_counts,
                                     kept_exact);
}

/* The first instant's classes, from its pair model's analysis. */
static int classify(mc_first *f)
{
    struct mc_first_priv *p = f->priv;
    int rc = sa_result_partition_exact(p->result, NULL, MC_FIRST_MAX_CUBES, f->classes,
                                       f->counts, f->counts_exact);
    return rc == MDAE_OK ? complement_classes(f) : rc;
}

/* A deep copy of s (cubes over n variables) into *out. */
static int set_copy(const sa_set *s, uint32_t n, sa_set *out)
{
    (void)n;
    memset(out, 0, sizeof *out);
    if (s->formula != NULL && (out->formula = mdae_strdup(s->formula)) == NULL)
        return MDAE_E_NOMEM;
    if (s->n_cubes > 0) {
        out->rows = mdae_malloc(s->n_cubes * s->width + 1);
        if (out->rows == NULL) {
            sa_set_close(out);
            return MDAE_E_NOMEM;
        }
        if (s->width > 0)
            memcpy(out->rows, s->rows, s->n_cubes * s->width);
    }
    out->n_cubes = s->n_cubes;
    out->first_mode = s->first_mode;
    out->width = s->width;
    return MDAE_OK;
}

/* The rows R4 erases in some pair (sa_result_left_out over the pair
 * model, in R4's order), into f->erasures. */
static int erasures(mc_first *f, const mel_model *m, const sa_options *opt,
                    const mc_options *mopt)
{
    struct mc_first_priv *p = f->priv;
    uint32_t n_rows = p->pairs->n_equations;
    sa_set *sets = mdae_calloc((size_t)n_rows + 1, sizeof *sets);
    double *counts = mdae_calloc((size_t)n_rows + 1, sizeof *counts);
    mdae_bn *exact = mdae_calloc((size_t)n_rows + 1, sizeof *exact);
    int rc = sets != NULL && counts != NULL && exact != NULL ? MDAE_OK : MDAE_E_NOMEM;
    if (rc == MDAE_OK)
        rc = erase_rows(p->result, &p->order, opt, mopt, sets, counts, exact, NULL, NULL, NULL);
    size_t n = 0;
    for (uint32_t r = 0; rc == MDAE_OK && r < n_rows; r++)
        n += counts[r] > 0;
    if (rc == MDAE_OK && n > 0) {
        f->erasures = mdae_calloc(n, sizeof *f->erasures);
        rc = f->erasures != NULL ? MDAE_OK : MDAE_E_NOMEM;
    }
    for (uint32_t r = 0; rc == MDAE_OK && r < n_rows; r++) {
        if (counts[r] <= 0)
            continue;
        mc_first_erasure *e = &f->erasures[f->n_erasures];
        e->equation = mdae_strdup(m->equations[p->order.row_eq[r]].name);
        if (e->equation == NULL) {
            rc = MDAE_E_NOMEM;
            break;
        }
        e->shift = p->order.row_k[r];
        e->pairs = counts[r];
        e->pairs_exact = exact[r]; /* moved */
        exact[r] = (mdae_bn){0};
        e->cubes_left_out = sets[r].formula == NULL;
        rc = set_copy(&sets[r], f->n_names, &e->set);
        f->n_erasures += rc == MDAE_OK;
    }
    p->row_erased = sets; /* every row's, for the next instant (later_instants) */
    p->n_row_erased = n_rows;
    mdae_free(counts);
    for (uint32_t r = 0; exact != NULL && r < n_rows; r++)
        mdae_bn_free(&exact[r]);
    mdae_free(exact);
    return rc;
}

/* ---- Impulse orders (mc_pairs_imp.c) ------------------------------------------ */

/* The impulse orders of instant r, read from its pair model pm, its
 * analysis res, R4's order and erasures, over the pairs of restart, into
 * *out, *n (or *why). */
static int impulses_at(const mel_model *m, uint32_t r, mel_model *pm, const sa_result *res,
                       const greedy_order *order, const sa_set *erased, const sa_set *restart,
                       mc_first_impulses **out, size_t *n, bool *computed, const char **why)
{
    const pair_state *st = order->state;
    mc__pair_instant pi = {r,           m,          pm,           res,
                           order->row_eq, order->row_k, order->col_j, order->col_l,
                           erased,      st->done,   st->H,        st->ge[1],
                           st->max_off, restart};
    int rc = mc__pairs_impulses(&pi, out, n, why);
    *computed = rc == MDAE_OK && *why == NULL;
    return rc;
}

/* The first instant's (mc_options.first_impulses), over its restart class. */
static int first_impulses(mc_first *f, const mel_model *m)
{
    struct mc_first_priv *p = f->priv;
    if (!f->erasures_computed) {
        f->impulses_why = f->erasures_why;
        return MDAE_OK;
    }
    if (f->cubes_left_out[MC_FIRST_RESTART]) {
        f->impulses_why = "the pairs that need a restart have more than 4096 cubes";
        return MDAE_OK;
    }
    for (size_t k = 0; k < f->n_erasures; k++)
        if (f->erasures[k].cubes_left_out) { /* its guard would be missing */
            f->impulses_why = "the pairs where an equation is erased have more than 4096 "
                              "cubes";
            return MDAE_OK;
        }
    return impulses_at(m, 0, p->pairs, p->result, &p->order, p->row_erased,
                       &f->classes[MC_FIRST_RESTART], &f->impulses, &f->n_impulses,
                       &f->impulses_computed, &f->impulses_why);
}

/* ---- The changes through when events (by enumeration) ---------------------- */

/* f->events: every change from a long mode into a transient one, whole,
 * or f->events_why (in f) past the enumeration's limits. */
static int events(mc_first *f, const mel_model *m)
{
    int rc = mc_events_enumerate(m, MC_ALL_MAX_PAIRS, &f->events, f->events_why_buf,
                                 sizeof f->events_why_buf);
    if (rc == MDAE_E_LIMIT) {
        f->events_why = f->events_why_buf;
        return MDAE_OK;
    }
    return rc;
}

/* ---- The later instants ---------------------------------------------------------- */

/* f->outcomes gains the pairs of s (cubes over f's names). */
static int push_outcome(mc_first *f, mc_status status, uint32_t instants, double pairs,
                        const mdae_bn *exact, const sa_set *s, bool left_out)
{
    if (pairs <= 0)
        return MDAE_OK;
    mc_first_outcome *o = mdae_realloc(f->outcomes, (f->n_outcomes + 1) * sizeof *o);
    if (o == NULL)
        return MDAE_E_NOMEM;
    f->outcomes = o;
    o = &f->outcomes[f->n_outcomes];
    memset(o, 0, sizeof *o);
    o->status = status;
    o->instants = instants;
    o->pairs = pairs;
    o->cubes_left_out = left_out || (s->formula == NULL && s->n_cubes == 0);
    int rc = o->cubes_left_out ? MDAE_OK : set_copy(s, f->n_names, &o->set);
    if (rc == MDAE_OK)
        rc = mdae_bn_copy(&o->pairs_exact, exact);
    if (rc == MDAE_OK)
        rc = mdae_bn_add(&f->status_counts_exact[status], exact);
    if (rc != MDAE_OK) {
        sa_set_close(&o->set);
        mdae_bn_free(&o->pairs_exact);
        return rc;
    }
    f->n_outcomes++;
    f->status_counts[status] += pairs;
    return rc;
}

/* One later instant r (from pv) into li: its pair model, analysis,
 * classes and, if some pairs go on restarting, R4's erasures. */
static int one_later(const mel_model *m, const sa_report *rep,
                     const prev_instant *pv, const sa_options *opt, const mc_options *mopt,
                     later_instant *li)
{
    int rc = pair_model(m, rep, pv, &li->pm, &li->order);
    if (rc == MDAE_OK)
        rc = analyse_pairs(li->pm, opt, false, &li->result);
    if (rc == MDAE_OK)
        rc = sa_result_partition_exact(li->result, li->order.state->alive, MC_FIRST_MAX_CUBES,
                                       li->classes, li->counts, li->counts_exact);
    if (rc != MDAE_OK || li->counts[MC_FIRST_RESTART] <= 0)
        return rc;
    li->n_rows = li->pm->n_equations;
    size_t n = (size_t)li->n_rows + 1;
    li->erased = mdae_calloc(n, sizeof *li->erased);
    li->erased_counts = mdae_calloc(n, sizeof *li->erased_counts);
    li->erased_exact = mdae_calloc(n, sizeof *li->erased_exact);
    li->kept = mdae_calloc(n, sizeof *li->kept);
    li->kept_counts = mdae_calloc(n, sizeof *li->kept_counts);
    li->kept_exact = mdae_calloc(n, sizeof *li->kept_exact);
    rc = li->erased != NULL && li->erased_counts != NULL && li->erased_exact != NULL &&
                 li->kept != NULL && li->kept_counts != NULL && li->kept_exact != NULL
             ? MDAE_OK
             : MDAE_E_NOMEM;
    if (rc == MDAE_OK)
        rc = erase_rows(li->result, &li->order, opt, mopt, li->erased, li->erased_counts,
                        li->erased_exact, li->kept, li->kept_counts, li->kept_exact);
    return rc;
}

/* The rows of li with a nonzero count among sets (erased or kept), as
 * mc_first_erasure items (owned) into *out, *n. */
static int rows_of(mc_first *f, const mel_model *m, const later_instant *li, const sa_set *sets,
                   const double *counts, const mdae_bn *exact, mc_first_erasure **out,
                   size_t *n)
{
    *out = NULL;
    *n = 0;
    if (sets == NULL)
        return MDAE_OK;
    size_t k = 0;
    for (uint32_t r = 0; r < li->n_rows; r++)
        k += counts[r] > 0;
    if (k == 0)
        return MDAE_OK;
    *out = mdae_calloc(k, sizeof **out);
    if (*out == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t r = 0; r < li->n_rows; r++) {
        if (counts[r] <= 0)
            continue;
        mc_first_erasure *e = &(*out)[*n];
        e->equation = mdae_strdup(m->equations[li->order.row_eq[r]].name);
        if (e->equation == NULL)
            return MDAE_E_NOMEM;
        e->shift = li->order.row_k[r];
        e->pairs = counts[r];
        e->cubes_left_out = sets[r].formula == NULL;
        (*n)++;
        int rc = mdae_bn_copy(&e->pairs_exact, &exact[r]);
        if (rc == MDAE_OK)
            rc = set_copy(&sets[r], f->n_names, &e->set);
        if (rc < 0)
            return rc;
    }
    return MDAE_OK;
}

/* f->later gains instant r (li): its pairs, classes, erasures and
 * restart system, as sets of pairs. */
static int push_instant(mc_first *f, const mel_model *m, uint32_t r, double alive,
                        const mdae_bn *alive_exact, const later_instant *li)
{
    mc_first_instant *p = mdae_realloc(f->later, (f->n_later + 1) * sizeof *p);
    if (p == NULL)
        return MDAE_E_NOMEM;
    f->later = p;
    p = &f->later[f->n_later++];
    memset(p, 0, sizeof *p);
    p->r = r;
    p->pairs = alive;
    memcpy(p->counts, li->counts, sizeof p->counts);
    int rc = mdae_bn_copy(&p->pairs_exact, alive_exact);
    for (int c = 0; c < 3 && rc == MDAE_OK; c++)
        rc = mdae_bn_copy(&p->counts_exact[c], &li->counts_exact[c]);
    if (rc == MDAE_OK)
        rc = rows_of(f, m, li, li->erased, li->erased_counts, li->erased_exact, &p->erasures,
                     &p->n_erasures);
    if (rc == MDAE_OK)
        rc = rows_of(f, m, li, li->kept, li->kept_counts, li->kept_exact, &p->rows, &p->n_rows);
    return rc;
}

/* Whether some set li needs was left without cubes (past the limit). */
static bool left_out(const later_instant *li)
{
    for (int k = 0; k < 3; k++)
        if (li->counts[k] > 0 && li->classes[k].formula == NULL)
            return true;
    for (uint32_t r = 0; li->erased != NULL && r < li->n_rows; r++)
        if ((li->erased_counts[r] > 0 && li->erased[r].formula == NULL) ||
            (li->kept_counts[r] > 0 && li->kept[r].formula == NULL))
            return true;
    return false;
}

/* The whole of every change that needs a restart (mc_options.first_later):
 * instant after instant, the pair model of the pairs still restarting,
 * built from what the previous instant knew and kept (next_state), its
 * classes (nothing erased: a reset of r instants; a value undetermined:
 * rejected) and R4's erasures for the next. Up to mc_change.c's bound on
 * the instants, with every pair's largest offsets (the pairs still
 * restarting there are rejected: their restart does not settle). */
static int later_instants(mc_first *f, const mel_model *m, const sa_report *rep,
                          const sa_options *opt, const mc_options *mopt)
{
    struct mc_first_priv *p = f->priv;
    f->status_counts[MC_CONTINUOUS] = f->counts[MC_FIRST_CONTINUOUS];
    int rc = mdae_bn_copy(&f->status_counts_exact[MC_CONTINUOUS],
                          &f->counts_exact[MC_FIRST_CONTINUOUS]);
    if (rc == MDAE_OK)
        rc = push_outcome(f, MC_REJECTED, 1, f->counts[MC_FIRST_REJECTED],
                          &f->counts_exact[MC_FIRST_REJECTED], &f->classes[MC_FIRST_REJECTED],
                          f->cubes_left_out[MC_FIRST_REJECTED]);
    if (rc != MDAE_OK)
        return rc;
    if (!f->erasures_computed || f->cubes_left_out[MC_FIRST_RESTART]) {
        f->later_why = !f->erasures_computed ? f->erasures_why
                                             : "the pairs that need a restart have more than "
                                               "4096 cubes";
        return MDAE_OK;
    }
    const pair_state *st0 = p->order.state;
    uint32_t bound = 2 + (st0->H - 2) + 2 * (st0->W - 2);
    prev_instant pv = {p->pairs, p->result, &p->order, p->row_erased,
                       &f->classes[MC_FIRST_RESTART]};
    double alive = f->counts[MC_FIRST_RESTART];
    const mdae_bn *alive_exact = &f->counts_exact[MC_FIRST_RESTART];
    /* Every instant's record at once: pv points into the previous one. */
    p->later = mdae_calloc((size_t)bound + 1, sizeof *p->later);
    if (p->later == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t r = 1; alive > 0 && rc == MDAE_OK; r++) {
        if (r >= bound) /* mc_change.c: the restart does not settle */
            return push_outcome(f, MC_REJECTED, bound, alive, alive_exact, pv.restart, false) ==
                           MDAE_OK
                       ? (f->later_computed = true, MDAE_OK)
                       : MDAE_E_NOMEM;
        later_instant *li = &p->later[p->n_later++];
        rc = one_later(m, rep, &pv, opt, mopt, li);
        if (rc == MDAE_E_LIMIT || (rc == MDAE_OK && left_out(li))) {
            f->later_why = "a later instant exceeds a configured limit of the analysis";
            return MDAE_OK;
        }
        if (rc == MDAE_E_CANCELED && mopt->first_keep_on_cancel) {
            f->later_why = "cancelled before every instant was followed (a deadline)";
            return MDAE_OK;
        }
        if (rc == MDAE_OK)
            rc = push_instant(f, m, r, alive, alive_exact, li);
        if (rc == MDAE_OK && mopt->first_impulses) {
            mc_first_instant *fi = &f->later[f->n_later - 1];
            if (li->counts[MC_FIRST_RESTART] > 0)
                rc = impulses_at(m, r, li->pm, li->result, &li->order, li->erased,
                                 &li->classes[MC_FIRST_RESTART], &fi->impulses,
                                 &fi->n_impulses, &fi->impulses_computed, &fi->impulses_why);
            else
                fi->impulses_computed = true; /* no pair erases: no restart system */
        }
        if (rc == MDAE_OK)
            rc = push_outcome(f, MC_RESET, r, li->counts[MC_FIRST_CONTINUOUS],
                              &li->counts_exact[MC_FIRST_CONTINUOUS],
                              &li->classes[MC_FIRST_CONTINUOUS], false);
        if (rc == MDAE_OK)
            rc = push_outcome(f, MC_REJECTED, r + 1, li->counts[MC_FIRST_REJECTED],
                              &li->counts_exact[MC_FIRST_REJECTED],
                              &li->classes[MC_FIRST_REJECTED], false);
        alive = li->counts[MC_FIRST_RESTART];
        alive_exact = &li->counts_exact[MC_FIRST_RESTART];
        pv = (prev_instant){li->pm, li->result, &li->order, li->erased,
                            &li->classes[MC_FIRST_RESTART]};
    }
    f->later_computed = rc == MDAE_OK;
    return rc;
}

int mc_first_instants(const mel_model *m, const sa_options *opt, const mc_options *mopt,
                      mc_first **out, char *why, size_t why_len)
{
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (m->n_modes == 0)
        return say(why, why_len, MDAE_E_INVAL,
                   "the model has no mode variables: it has no mode changes");
    size_t fixpoints = 0;
    int rc = mopt != NULL && mopt->ignore_guard_fixpoints
                 ? MDAE_OK
                 : mc_guard_fixpoints(m, NULL, &fixpoints);
    if (rc < 0)
        return rc;
    if (fixpoints > 0)
        return say(why, why_len, MDAE_E_INVAL,
                   "the model has a guard fixpoint: every change is refused (mdae check)");
    sa_result *res = NULL;
    sa_report *rep = NULL;
    rc = analyse(m, opt, &res, &rep);
    mel_model *pm = NULL;
    greedy_order order = {NULL, 0, NULL, NULL, NULL, NULL, NULL};
    if (rc == MDAE_OK)
        rc = pair_model(m, rep, NULL, &pm, &order);
    mc_first *f = rc == MDAE_OK ? mdae_calloc(1, sizeof *f) : NULL;
    struct mc_first_priv *p = f != NULL ? mdae_calloc(1, sizeof *p) : NULL;
    if (rc == MDAE_OK && p == NULL)
        rc = MDAE_E_NOMEM;
    if (rc == MDAE_OK) {
        f->priv = p;
        f->transient_whens = m->n_whens;
        p->pairs = pm;
        p->order = order;
        pm = NULL;
        f->n_names = p->pairs->n_modes;
        /* Under a deadline (first_keep_on_cancel) the classes come first,
         * as fast as they can: the covering matchings wait for R4. */
        bool erasures_next = mopt != NULL && (mopt->first_erasures || mopt->first_later) &&
                             !mopt->first_keep_on_cancel;
        rc = analyse_pairs(p->pairs, opt, erasures_next, &p->result);
    }
    if (rc == MDAE_OK) {
        f->pairs = sa_result_valid_modes(p->result);
        rc = sa_result_valid_modes_exact(p->result, &f->pairs_exact);
    }
    /* R4 before the classes: it builds the matchings that cover every
     * value, and the classes then only quantify them (sa_result_partition;
     * alone, they find where such matchings exist without building them). */
    bool later = mopt != NULL && mopt->first_later;
    if (rc == MDAE_OK && mopt != NULL &&
        (mopt->first_erasures || later || mopt->first_impulses)) {
        rc = erasures(f, m, opt, mopt);
        f->erasures_computed = rc == MDAE_OK;
        if (rc == MDAE_E_LIMIT) { /* the classes stand */
            f->erasures_why = "which equations are erased exceeds a configured limit of the "
                              "analysis (its budget of BDD nodes)";
            rc = MDAE_OK;
        } else if (rc == MDAE_E_CANCELED && mopt->first_keep_on_cancel) {
            f->erasures_why = "cancelled before they were computed (a deadline)";
            rc = MDAE_OK;
        }
    } else if (rc == MDAE_OK) {
        f->erasures_why = "not asked";
    }
    if (rc == MDAE_OK)
        rc = classify(f);
    if (rc == MDAE_OK && f->erasures_computed) { /* sa_result_left_out's choice */
        int how = mopt->erasures_method;
        f->erasures_of_rejected =
            how == SA_METHOD_ENUMERATE ||
            (how == SA_METHOD_AUTO && f->counts[MC_FIRST_RESTART] + f->counts[MC_FIRST_REJECTED] <=
                                          SA_GREEDY_ENUMERATE);
    }
    if (rc == MDAE_OK && mopt != NULL && mopt->first_impulses)
        rc = first_impulses(f, m);
    else if (rc == MDAE_OK)
        f->impulses_why = "not asked";
    if (rc == MDAE_OK && later)
        rc = later_instants(f, m, rep, opt, mopt);
    else if (rc == MDAE_OK)
        f->later_why = "not asked";
    if (rc == MDAE_OK && m->n_whens > 0)
        rc = events(f, m);
    sa_report_free(rep);
    sa_result_free(res);
    mel_model_free(pm);
    if (rc != MDAE_OK) {
        if (f != NULL && p == NULL)
            mdae_free(f);
        else
            mc_first_free(f);
        if (rc == MDAE_E_LIMIT)
            return say(why, why_len, rc,
                       "the pairs' first instants exceed a configured limit of the analysis");
        return rc;
    }
    *out = f;
    return MDAE_OK;
}

const char *mc_first_name(const mc_first *f, uint32_t k)
{
    return f != NULL && k < f->n_names ? f->priv->pairs->modes[k].name : NULL;
}

/* Is the pair in the cubes of s (cubes over f's 2n variables)? */
static bool in_cubes(const mc_first *f, const sa_set *s, const bool *pair)
{
    for (size_t q = 0; q < s->n_cubes; q++) {
        const signed char *cube = &s->rows[q * s->width];
        bool in = true;
        for (uint32_t j = 0; j < s->width && in; j++)
            in = cube[j] < 0 || (cube[j] != 0) == pair[s->first_mode + j];
        if (in)
            return true;
    }
    return false;
}

/* The pair (from, to) over f's variables g0, g0', g1, ... (owned:
 * mdae_free), or NULL. */
static bool *pair_of(const mc_first *f, const bool *from, const bool *to)
{
    bool *pair = mdae_calloc((size_t)f->n_names + 1, sizeof *pair);
    for (uint32_t k = 0; pair != NULL && k < f->n_names / 2; k++) {
        pair[2 * k] = from[k];
        pair[2 * k + 1] = to[k];
    }
    return pair;
}

int mc_first_class(const mc_first *f, const bool *from, const bool *to, int *cls)
{
    if (f == NULL || cls == NULL || (f->n_names > 0 && (from == NULL || to == NULL)))
        return MDAE_E_INVAL;
    bool *pair = pair_of(f, from, to);
    if (pair == NULL)
        return MDAE_E_NOMEM;
    sa_mode_view v;
    memset(&v, 0, sizeof v);
    int rc = sa_result_mode(f->priv->result, pair, &v);
    *cls = MC_FIRST_NONE;
    /* the reported sets, exact on the valid pairs; a class without cubes
     * is the complement of the others (mc_first.cubes_left_out) */
    int left_out = -1;
    for (int k = 0; rc == MDAE_OK && v.valid && k < 3 && *cls == MC_FIRST_NONE; k++) {
        if (f->cubes_left_out[k])
            left_out = k;
        else if (in_cubes(f, &f->classes[k], pair))
            *cls = k;
    }
    if (rc == MDAE_OK && v.valid && *cls == MC_FIRST_NONE)
        *cls = left_out; /* MC_FIRST_NONE (-1) if no class holds it: a bug */
    sa_mode_view_close(&v);
    mdae_free(pair);
    return rc;
}

int mc_first_pair_in(const mc_first *f, const sa_set *s, bool left_out, const bool *from,
                     const bool *to, bool *in)
{
    if (f == NULL || s == NULL || in == NULL || (f->n_names > 0 && (from == NULL || to == NULL)))
        return MDAE_E_INVAL;
    if (left_out)
        return MDAE_E_LIMIT;
    bool *pair = pair_of(f, from, to);
    if (pair == NULL)
        return MDAE_E_NOMEM;
    *in = in_cubes(f, s, pair);
    mdae_free(pair);
    return MDAE_OK;
}

int mc_first_erased(const mc_first *f, size_t k, const bool *from, const bool *to, bool *erased)
{
    if (f == NULL || k >= f->n_erasures)
        return MDAE_E_INVAL;
    return mc_first_pair_in(f, &f->erasures[k].set, f->erasures[k].cubes_left_out, from, to,
                            erased);
}

int mc_first_change(const mc_first *f, const bool *from, const bool *to, int *status,
                    uint32_t *instants)
{
    if (f == NULL || status == NULL || instants == NULL || !f->later_computed)
        return MDAE_E_INVAL;
    int cls = MC_FIRST_NONE;
    int rc = mc_first_class(f, from, to, &cls);
    *status = -1;
    *instants = 0;
    if (rc != MDAE_OK || cls == MC_FIRST_NONE)
        return rc;
    if (cls == MC_FIRST_CONTINUOUS) {
        *status = MC_CONTINUOUS;
        return MDAE_OK;
    }
    bool *pair = pair_of(f, from, to);
    if (pair == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < f->n_outcomes && *status < 0 && rc == MDAE_OK; k++) {
        const mc_first_outcome *o = &f->outcomes[k];
        if (o->cubes_left_out)
            rc = MDAE_E_LIMIT;
        else if (in_cubes(f, &o->set, pair)) {
            *status = (int)o->status;
            *instants = o->instants;
        }
    }
    mdae_free(pair);
    return rc;
}

