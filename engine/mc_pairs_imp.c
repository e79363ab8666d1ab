/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_pairs_imp.c -- the impulse orders of a restart instant of
 * every change at once, as classes of pairs (mc_int.h, mc__pairs_impulses;
 * issue 41 item 7): the pairs that erase at instant r are split into
 * blocks on which the impulse analysis (mc_impulse.c) has the same input,
 * it is run once per block on one pair of it, and blocks with equal
 * answers are merged (sa_result_classify).
 *
 * Why one pair speaks for its block. mc__impulse reads, for a change
 * (g, g') at instant r, only:
 *   (a) the instant's lists: its kept rows (equations), erased rows,
 *       context, unknowns and known values (mc_instant), and r;
 *   (b) in the new mode g': the order sigma_ij and the next() count of
 *       each incidence of those rows' equations (mel_incidence_order,
 *       the incidence cases that hold), whether their bodies have a
 *       constant term (the if-conditions on mode variables in the body,
 *       which read only mode variables of g'), and the offsets d_j(g')
 *       of the variables (the priors I2).
 * Each of these is a function of the pair that a guard over the pair
 * model's variables gives exactly on the valid pairs: a row kept =
 * its candidate guard & !(R4 erases it); erased = R4's set; a value
 * unknown = its column's guard (the values a candidate row mentions that
 * are not known: every value a row mentions is an unknown or known, so
 * the known list follows from the rows, sigma and the unknowns); the
 * context f_i.^k = done(i, k + 1) & c_i(g') >= k (only equations with an
 * erased row read it, I4); sigma and next() = which incidence cases hold
 * over g'; the constant terms = the values in g' of the mode variables
 * the bodies read; d_j(g') >= v = the report's thresholds over g'. Two
 * pairs of the restart class on which all these guards agree give
 * mc__impulse the same lists in the same order (every list is sorted by
 * equation or variable, then shift) and the same mode-dependent values,
 * so the same answer: the same instant, the same deterministic
 * computation. The blocks are exactly those on which every guard is
 * constant, so the answer of any pair of a block is the answer of all.
 *
 * One shortcut keeps large models finite (the brake: a block per subset
 * of the changed valves): a pair erasing at instant r has a nonsingular
 * restart system, its kept rows matched one to one to its unknowns, each
 * of which mc__impulse makes a quantity; so in a block where more than
 * MC_IMP_MAX_VARS rows are kept in every pair, every pair's analysis gives
 * up as too large, and the block is final (not split further; its
 * representative is still analysed, and must say so). Past
 * MC_FIRST_MAX_IMPULSE_CLASSES blocks, or a BDD limit, the instant's
 * impulse orders are not given, and why says so.
 */
#include "mc_int.h"

#include <stdio.h> /* snprintf only */
#include <string.h>

#include "fx.h"
#include "mel_int.h"
#include "sm.h"

/* ---- The guards that split the pairs --------------------------------------- */

typedef struct attrs {
    const mel_guard **g;
    bool *heavy;
    size_t n, cap;
    mel__gfactory gf;
    bool too_big; /* a guard too large to copy over g' */
} attrs;

static int push_attr(attrs *a, const mel_guard *g, bool heavy)
{
    if (g == mel__g_false() || (g == mel__g_true() && !heavy))
        return MDAE_OK; /* constant: splits nothing (a heavy one still counts) */
    if (a->n == a->cap) {
        size_t nc = a->cap ? 2 * a->cap : 64;
        const mel_guard **x = mdae_realloc(a->g, nc * sizeof *x);
        if (x == NULL)
            return MDAE_E_NOMEM;
        a->g = x;
        bool *h = mdae_realloc(a->heavy, nc * sizeof *h);
        if (h == NULL)
            return MDAE_E_NOMEM;
        a->heavy = h;
        a->cap = nc;
    }
    a->g[a->n] = g;
    a->heavy[a->n++] = heavy;
    return MDAE_OK;
}

/* Guard g of the model over the new mode's copy (variable k is 2k + 1). */
static const mel_guard *after(attrs *a, const mel_guard *g)
{
    switch (g->op) {
    case MEL_G_FALSE:
    case MEL_G_TRUE: return g;
    case MEL_G_VAR: return mel__g_var(&a->gf, 2 * g->var + 1);
    case MEL_G_NOT: return mel__g_not(&a->gf, after(a, g->lhs));
    case MEL_G_AND: return mel__g_and(&a->gf, after(a, g->lhs), after(a, g->rhs));
    default: return mel__g_or(&a->gf, after(a, g->lhs), after(a, g->rhs));
    }
}

#define MAX_COPIED_GUARD 4096u /* nodes as a tree: after() has no memo */

static const mel_guard *after_checked(attrs *a, const mel_guard *g)
{
    if (mel__g_size(g) > MAX_COPIED_GUARD) {
        a->too_big = true;
        return mel__g_false();
    }
    return after(a, g);
}

/* A cover (cubes over the pairs' variables) as a guard. */
static const mel_guard *cover_guard(attrs *a, const sa_set *s)
{
    const mel_guard *acc = mel__g_false();
    for (size_t q = 0; q < s->n_cubes; q++) {
        const mel_guard *t = mel__g_true();
        for (uint32_t j = 0; j < s->width; j++) {
            signed char v = s->rows[q * s->width + j];
            if (v < 0)
                continue;
            const mel_guard *x = mel__g_var(&a->gf, s->first_mode + j);
            t = mel__g_and(&a->gf, t, v ? x : mel__g_not(&a->gf, x));
        }
        acc = mel__g_or(&a->gf, acc, t);
    }
    return acc;
}

/* The mode variables a body reads (any FX_MODE: a superset of those of
 * its if-conditions, which is all I7 needs), as guards over g'. */
static int body_modes(attrs *a, const fx_node *e)
{
    if (e == NULL)
        return MDAE_OK;
    int rc = e->op == FX_MODE ? push_attr(a, mel__g_var(&a->gf, 2 * e->index + 1), false)
                              : MDAE_OK;
    for (uint32_t k = 0; k < e->n && rc == MDAE_OK; k++)
        rc = body_modes(a, e->kids[k]);
    return rc;
}

/* Which equations have rows at this instant (rows) and erased rows
 * (erasing), into two arrays of n_equations. */
static void equations_of(const mc__pair_instant *pi, bool *rows, bool *erasing)
{
    for (uint32_t r = 0; r < pi->pm->n_equations; r++) {
        rows[pi->row_eq[r]] = true;
        erasing[pi->row_eq[r]] |= pi->erased[r].n_cubes > 0;
    }
}

/* (b) of the header: the new mode's incidence cases, body modes, offsets. */
static int mode_attrs(const mc__pair_instant *pi, attrs *a, const bool *rows,
                      const bool *erasing)
{
    const mel_model *m = pi->m;
    int rc = MDAE_OK;
    for (uint32_t i = 0; i < m->n_equations && rc == MDAE_OK; i++) {
        if (!rows[i])
            continue;
        const mel_equation *q = &m->equations[i];
        for (uint32_t e = 0; e < q->n_incs && rc == MDAE_OK; e++)
            for (uint32_t c = 0; c < q->incs[e].n_cases && rc == MDAE_OK; c++)
                rc = push_attr(a, after_checked(a, q->incs[e].cases[c].guard), false);
        if (rc == MDAE_OK)
            rc = body_modes(a, q->lhs);
        if (rc == MDAE_OK)
            rc = body_modes(a, q->rhs);
        for (int k = 0; erasing[i] && k <= pi->max_off[i] + 1 && rc == MDAE_OK; k++)
            rc = push_attr(a, pi->ge_after[i][k], false); /* c_i(g') >= k */
        for (uint32_t k = 0; erasing[i] && k + 1 < pi->H && rc == MDAE_OK; k++)
            rc = push_attr(a, pi->done[(size_t)i * pi->H + k + 1], false);
    }
    for (uint32_t j = 0; j < m->n_variables && rc == MDAE_OK; j++) {
        size_t item = (size_t)m->n_equations + j;
        for (int v = 0; v <= pi->max_off[item] + 1 && rc == MDAE_OK; v++)
            rc = push_attr(a, pi->ge_after[item][v], false); /* d_j(g') >= v */
    }
    return rc;
}

/* Every guard of the header, the kept rows first (heavy). */
static int build_attrs(const mc__pair_instant *pi, attrs *a)
{
    const mel_model *pm = pi->pm;
    bool *rows = mdae_calloc((size_t)pi->m->n_equations + 1, sizeof *rows);
    bool *erasing = mdae_calloc((size_t)pi->m->n_equations + 1, sizeof *erasing);
    int rc = rows != NULL && erasing != NULL ? MDAE_OK : MDAE_E_NOMEM;
    if (rc == MDAE_OK)
        equations_of(pi, rows, erasing);
    for (uint32_t r = 0; r < pm->n_equations && rc == MDAE_OK; r++)
        rc = push_attr(a, mel__g_and(&a->gf, pm->equations[r].guard,
                                     mel__g_not(&a->gf, cover_guard(a, &pi->erased[r]))),
                       true);
    for (uint32_t r = 0; r < pm->n_equations && rc == MDAE_OK; r++)
        rc = push_attr(a, cover_guard(a, &pi->erased[r]), false);
    for (uint32_t c = 0; c < pm->n_variables && rc == MDAE_OK; c++)
        rc = push_attr(a, pm->variables[c].guard, false);
    if (rc == MDAE_OK)
        rc = mode_attrs(pi, a, rows, erasing);
    mdae_free(rows);
    mdae_free(erasing);
    return rc != MDAE_OK ? rc : a->gf.err;
}

/* ---- One pair's restart instant ---------------------------------------------- */

static bool in_cover(const sa_set *s, const bool *pair)
{
    for (size_t q = 0; q < s->n_cubes; q++) {
        bool in = true;
        for (uint32_t j = 0; j < s->width && in; j++) {
            signed char v = s->rows[q * s->width + j];
            in = v < 0 || (v != 0) == pair[s->first_mode + j];
        }
        if (in)
            return true;
    }
    return false;
}

/* The instant r of the change `pair` (over the pairs' variables), as
 * mc_change's collect() fills it: rows, context, unknowns, known values. */
static int instant_of(const mc__pair_instant *pi, const bool *pair, const bool *to,
                      const sm_mode *cur, mc_instant *in)
{
    const mel_model *m = pi->m, *pm = pi->pm;
    size_t cq = 0, ce = 0, cc = 0, cu = 0, ck = 0;
    int rc = MDAE_OK;
    in->r = pi->r;
    for (uint32_t i = 0; i < m->n_equations && rc == MDAE_OK; i++)
        for (int k = 0; cur->eq_active[i] && k <= cur->c[i] && rc == MDAE_OK; k++)
            if ((uint32_t)k + 1 < pi->H &&
                mel_guard_eval(pi->done[(size_t)i * pi->H + (size_t)k + 1], pair))
                rc = mc__list_push(&in->context, &cc, i, k);
    uint32_t W = 1;
    for (uint32_t c = 0; c < pm->n_variables; c++)
        W = (uint32_t)pi->col_l[c] + 1 > W ? (uint32_t)pi->col_l[c] + 1 : W;
    for (uint32_t r = 0; r < pm->n_equations; r++)
        for (uint32_t e = 0; e < m->equations[pi->row_eq[r]].n_incs; e++) {
            int s = mel_incidence_order(&m->equations[pi->row_eq[r]].incs[e], to);
            W = (uint32_t)(pi->row_k[r] + s + 1) > W ? (uint32_t)(pi->row_k[r] + s + 1) : W;
        }
    signed char *val = mdae_calloc((size_t)m->n_variables * W + 1, 1); /* 1 known, 2 unknown */
    if (val == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t c = 0; c < pm->n_variables; c++)
        if (mel_guard_eval(pm->variables[c].guard, pair))
            val[(size_t)pi->col_j[c] * W + (size_t)pi->col_l[c]] = 2;
    for (uint32_t r = 0; r < pm->n_equations && rc == MDAE_OK; r++) {
        if (!mel_guard_eval(pm->equations[r].guard, pair))
            continue;
        uint32_t i = pi->row_eq[r];
        int k = pi->row_k[r];
        rc = in_cover(&pi->erased[r], pair) ? mc__list_push(&in->erased, &ce, i, k)
                                            : mc__list_push(&in->equations, &cq, i, k);
        const mel_equation *q = &m->equations[i];
        for (uint32_t e = 0; e < q->n_incs; e++) {
            int s = mel_incidence_order(&q->incs[e], to);
            for (int l = k; s >= 0 && l <= k + s; l++) {
                signed char *v = &val[(size_t)q->incs[e].var * W + (size_t)l];
                *v = *v == 2 ? 2 : 1;
            }
        }
    }
    for (uint32_t j = 0; j < m->n_variables && rc == MDAE_OK; j++)
        for (uint32_t l = 0; l < W && rc == MDAE_OK; l++) {
            signed char v = val[(size_t)j * W + l];
            if (v == 1)
                rc = mc__list_push(&in->known, &ck, j, (int)l);
            else if (v == 2)
                rc = mc__list_push(&in->unknowns, &cu, j, (int)l);
        }
    mdae_free(val);
    return rc;
}

static void instant_free(mc_instant *in)
{
    mdae_free(in->equations.items);
    mdae_free(in->unknowns.items);
    mdae_free(in->known.items);
    mdae_free(in->context.items);
    mdae_free(in->erased.items);
}

/* ---- Answers, and the labels of the blocks ------------------------------------- */

typedef struct answer {
    char *key;          /* every field below as text: equal keys, equal answers */
    mc_impulse_status status;
    bool priors_forced;
    mc_result *res;     /* its impulsive and finite values */
} answer;

typedef struct labeller {
    const mc__pair_instant *pi;
    answer *ans;
    size_t n_ans, cap_ans;
} labeller;

static void put_orders(mdae_buf *b, const mc_impulse *v, size_t n)
{
    char tmp[96];
    for (size_t k = 0; k < n; k++) {
        snprintf(tmp, sizeof tmp, "%u.%d:%d..%d=", v[k].var, v[k].shift, v[k].lo, v[k].hi);
        mdae_buf_puts(b, tmp);
        for (size_t q = 0; q < v[k].equal.n; q++) {
            snprintf(tmp, sizeof tmp, "%u.%d,", v[k].equal.items[q].index,
                     v[k].equal.items[q].shift);
            mdae_buf_puts(b, tmp);
        }
        mdae_buf_puts(b, ";");
    }
}

static char *answer_key(mc_impulse_status st, bool forced, const mc_result *res)
{
    mdae_buf b = {0};
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%d%d|", (int)st, (int)forced);
    mdae_buf_puts(&b, tmp);
    put_orders(&b, res->impulsive, res->n_impulsive);
    mdae_buf_puts(&b, "|");
    put_orders(&b, res->finite, res->n_finite);
    if (b.oom) {
        mdae_free(b.p);
        return NULL;
    }
    return b.p != NULL ? b.p : mdae_strdup("");
}

/* The answer of the change `pair` at instant r into *ans (res new). */
static int analyse_pair(const mc__pair_instant *pi, const bool *pair, answer *ans)
{
    const mel_model *m = pi->m;
    bool *to = mdae_calloc((size_t)m->n_modes + 1, sizeof *to);
    if (to == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t k = 0; k < m->n_modes; k++)
        to[k] = pair[2 * k + 1];
    sm_mode cur;
    memset(&cur, 0, sizeof cur);
    mc_instant in;
    memset(&in, 0, sizeof in);
    int rc = sm_model_mode(m, to, &cur);
    if (rc == MDAE_OK && (!cur.valid || cur.singular))
        rc = MDAE_E_STATE; /* the pairs are of valid nonsingular modes */
    if (rc == MDAE_OK)
        rc = instant_of(pi, pair, to, &cur, &in);
    ans->res = rc == MDAE_OK ? mdae_calloc(1, sizeof *ans->res) : NULL;
    if (rc == MDAE_OK && ans->res == NULL)
        rc = MDAE_E_NOMEM;
    if (rc == MDAE_OK) {
        mdae_diags_init(&ans->res->diags);
        rc = mc__impulse_run(m, to, cur.d, &in, ans->res, &ans->status, &ans->priors_forced);
    }
    if (rc == MDAE_OK) {
        ans->key = answer_key(ans->status, ans->priors_forced, ans->res);
        rc = ans->key != NULL ? MDAE_OK : MDAE_E_NOMEM;
    }
    instant_free(&in);
    sm_mode_close(&cur);
    mdae_free(to);
    return rc;
}

static void answer_close(answer *a)
{
    mdae_free(a->key);
    mc_result_free(a->res);
    memset(a, 0, sizeof *a);
}

/* sa_label_fn: the index of the block's answer among those seen. */
static int label_block(void *ctx, const bool *pair, bool final, int *label)
{
    labeller *lb = ctx;
    answer a;
    memset(&a, 0, sizeof a);
    int rc = analyse_pair(lb->pi, pair, &a);
    if (rc != MDAE_OK) {
        answer_close(&a);
        return rc;
    }
    /* a final block (the header's shortcut) must be too large everywhere */
    MDAE_ASSERT(!final || a.status == MC_IMPULSES_TOO_LARGE);
    for (size_t k = 0; k < lb->n_ans; k++)
        if (strcmp(lb->ans[k].key, a.key) == 0) {
            answer_close(&a);
            *label = (int)k;
            return MDAE_OK;
        }
    rc = mc__grow((void **)&lb->ans, &lb->cap_ans, lb->n_ans + 1, sizeof *lb->ans);
    if (rc != MDAE_OK) {
        answer_close(&a);
        return rc;
    }
    lb->ans[lb->n_ans] = a;
    *label = (int)lb->n_ans++;
    return MDAE_OK;
}

/* ---- The classes ------------------------------------------------------------------ */

static int copy_orders(const mel_model *m, const mc_impulse *v, size_t n, mc_first_order **out,
                       size_t *n_out)
{
    *out = n > 0 ? mdae_calloc(n, sizeof **out) : NULL;
    if (n > 0 && *out == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < n; k++) {
        mc_first_order *o = &(*out)[k];
        (*n_out)++;
        o->value.name = mdae_strdup(m->variables[v[k].var].name);
        o->value.shift = v[k].shift;
        o->lo = v[k].lo;
        o->hi = v[k].hi;
        o->equal = v[k].equal.n > 0 ? mdae_calloc(v[k].equal.n, sizeof *o->equal) : NULL;
        if (o->value.name == NULL || (v[k].equal.n > 0 && o->equal == NULL))
            return MDAE_E_NOMEM;
        for (size_t q = 0; q < v[k].equal.n; q++) {
            o->equal[q].name = mdae_strdup(m->variables[v[k].equal.items[q].index].name);
            o->equal[q].shift = v[k].equal.items[q].shift;
            if (o->equal[q].name == NULL)
                return MDAE_E_NOMEM;
            o->n_equal++;
        }
    }
    return MDAE_OK;
}

/* Class cl (its set moved out) with its answer into *out. */
static int make_class(const mel_model *m, sa_class *cl, const answer *a, mc_first_impulses *out)
{
    out->status = a->status;
    out->priors_forced = a->priors_forced;
    out->pairs = cl->count;
    out->pairs_exact = cl->exact;
    cl->exact = (mdae_bn){0};
    out->set = cl->set;
    memset(&cl->set, 0, sizeof cl->set);
    out->cubes_left_out = out->set.formula == NULL;
    int rc = copy_orders(m, a->res->impulsive, a->res->n_impulsive, &out->impulsive,
                         &out->n_impulsive);
    if (rc == MDAE_OK)
        rc = copy_orders(m, a->res->finite, a->res->n_finite, &out->finite, &out->n_finite);
    return rc;
}

static void orders_free(mc_first_order *o, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        mdae_free(o[k].value.name);
        for (size_t q = 0; q < o[k].n_equal; q++)
            mdae_free(o[k].equal[q].name);
        mdae_free(o[k].equal);
    }
    mdae_free(o);
}

void mc__first_impulses_free(mc_first_impulses *c, size_t n)
{
    for (size_t k = 0; c != NULL && k < n; k++) {
        orders_free(c[k].impulsive, c[k].n_impulsive);
        orders_free(c[k].finite, c[k].n_finite);
        mdae_bn_free(&c[k].pairs_exact);
        sa_set_close(&c[k].set);
    }
    mdae_free(c);
}

const char *mc_impulse_status_name(mc_impulse_status s)
{
    switch (s) {
    case MC_IMPULSES_DONE: return "done";
    case MC_IMPULSES_BOUNDS: return "bounds";
    case MC_IMPULSES_NONE: return "no assignment";
    case MC_IMPULSES_TOO_LARGE: return "too large";
    }
    return "?";
}

int mc__pairs_impulses(const mc__pair_instant *pi, mc_first_impulses **out, size_t *n_out,
                       const char **why)
{
    *out = NULL;
    *n_out = 0;
    *why = NULL;
    attrs a;
    memset(&a, 0, sizeof a);
    mel__gf_init(&a.gf, &pi->pm->priv->arena);
    int rc = build_attrs(pi, &a);
    const mel_guard *within = rc == MDAE_OK ? cover_guard(&a, pi->restart) : NULL;
    rc = rc != MDAE_OK ? rc : a.gf.err;
    labeller lb = {pi, NULL, 0, 0};
    sa_class *cl = NULL;
    size_t ncl = 0;
    if (rc == MDAE_OK && a.too_big)
        *why = "a guard of an incidence is too large to be read in the new mode";
    else if (rc == MDAE_OK)
        rc = sa_result_classify(pi->res, within, a.g, a.n, a.heavy, MC_IMP_MAX_VARS + 1,
                                MC_FIRST_MAX_IMPULSE_CLASSES, label_block, &lb,
                                MC_FIRST_MAX_CUBES, &cl, &ncl);
    if (rc == MDAE_E_LIMIT || rc == MDAE_E_BDD_LIMIT) {
        *why = "more than 256 distinct restart systems at this instant (or the BDD node "
               "limit reached while splitting the pairs by them)";
        rc = MDAE_OK;
    }
    if (rc == MDAE_OK && ncl > 0) {
        *out = mdae_calloc(ncl, sizeof **out);
        rc = *out != NULL ? MDAE_OK : MDAE_E_NOMEM;
    }
    for (size_t k = 0; k < ncl && rc == MDAE_OK; k++) {
        (*n_out)++;
        rc = make_class(pi->m, &cl[k], &lb.ans[cl[k].label], &(*out)[k]);
    }
    if (rc != MDAE_OK) {
        mc__first_impulses_free(*out, *n_out);
        *out = NULL;
        *n_out = 0;
    }
    sa_classes_free(cl, ncl);
    for (size_t k = 0; k < lb.n_ans; k++)
        answer_close(&lb.ans[k]);
    mdae_free(lb.ans);
    mel__gf_close(&a.gf);
    mdae_free(a.g);
    mdae_free(a.heavy);
    return rc;
}
