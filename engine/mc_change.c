/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_change.c -- one mode change, instant after instant (mc.h).
 *
 * The papers (RR-9459 section 5, RR-8933 sections 2-3) give the principle;
 * the notes (../shared/papers/notes-mode-changes-impulses-rimis-modelica.md
 * section 1.5) an operational rule that reproduces every restart system the
 * papers print. Where they leave a choice open, this file takes the
 * readings of issue 13, each stated where it is used:
 *
 *  R1 Incidence of a shifted equation. With Euler derivatives,
 *     (f(X)). = f(X.), so f.^k with an incidence of order sigma on x
 *     involves x.^k .. x.^(k + sigma) and nothing below x.^k.
 *  R2 Previous instants are unfolded as what they computed: a value
 *     computed at an earlier instant is known, and only equations of the
 *     current instant can be erased (Principle 1: what was done cannot be
 *     undone). This is the DM of the unfolded system in which every
 *     equation of a previous instant keeps its own unknown, which is what a
 *     nonsingular previous instant means. Equations carried over from the
 *     old mode are NOT protected: only the previous instants are.
 *  R3 Context: f.^k is satisfied at t + r*dt when f.^(k + 1) was solved (or
 *     itself in the context) at the previous instant with the same body:
 *     the same equation, active in both modes, its if-expressions resolving
 *     to the same branches. mel_model keeps incidences, not expressions, so
 *     "the same branches" is read as: every incidence case's guard has the
 *     same value in m- and m+ (body_same below). Two branches with the same
 *     incidences (`if g then x else 2*x`) are therefore the same body: a
 *     structural analysis cannot tell them apart, and the papers' models do
 *     not need it (their branches differ in incidences).
 *  R4 Which equations to erase. The fewest: the complement of a maximum
 *     matching's rows (a basis of the rows' transversal matroid); rows
 *     outside the DM overdetermined part are in every basis, so only
 *     overdetermined rows are ever erased. Among the bases, the rule of the
 *     notes (section 1.5 step 4): erase first the equations new to m+ (not
 *     active in m- with the same body), then the lowest shift; the basis is
 *     built greedily in that order (optimal for a matroid: it maximises
 *     the kept rows class by class). This is what makes the Cup-and-Ball
 *     erase k1. (new) rather than e1 (old), as RR-9459 (24) does.
 *  R5 Ties: two bases that keep as many equations of every preference
 *     class are equally good. We keep the earlier-declared equation (the
 *     later one is erased; mc_options.tie_reverse flips it, for the tests)
 *     and list the other equally good erasure sets (alternatives). The
 *     status of each instant does not depend on the choice (the rank of
 *     the candidate system and its columns do not), and the tests check
 *     that neither the status nor the number of instants does, on random
 *     models, with both tie orders.
 *  R6 Stop when an instant erases nothing (the notes' K = r); the
 *     instants reported are the restart instants, those that erase. A bound
 *     (2 + max c(m+) + max d(m+) + max d(m-), or mc_options.max_instants)
 *     turns a restart that would not settle into a rejection.
 *  R7 A change from or to a structurally singular mode is rejected (the
 *     mode itself has no solution to restart to), as is any change of a
 *     model with a guard fixpoint (RR-9459 model (19); mc_guard.c).
 *  R8 A change into a transient mode (mc_transient.c, T1-T5): instant 0 is
 *     the event, its candidate system the equations active in the transient
 *     mode at shift 0 (u->event), always reported; its status comes from
 *     the difference array; the next instants are a change from the
 *     transient mode to the long mode after it (old = m-, cur = that mode).
 *     After the event, the context is what the difference array A_n
 *     imposed: its rows f.^s of the mode after (1 <= s <= n) hold, so at
 *     the next instant f.^(s - 1) is satisfied; of those, only the
 *     consistency equations (s - 1 < c_i, as in a steady instant) are
 *     context, the leading ones being solved there for values the event
 *     left to be eliminated. With n = 0 (the Cup-and-Ball with its impact
 *     law) nothing is in the context.
 *     When the event's system is overdetermined, the equations of the
 *     rising when-bodies are erased last (R4's classes gain a third, kept
 *     first): a when-body states what holds at the event, and a Modelica
 *     reinit(v, e) replaces v's value there (Modelica 3.6 section 8.3.6),
 *     so an equation of the long mode that fixes the same value yields.
 *     The bouncing ball (`when h <= 0 then reinit(v, -e*pre(v))` beside
 *     der(v) = -g) erases der(v) = -g at the event and keeps the reinit.
 *     The papers' events are not overdetermined, so they do not decide.
 *     A cascade (mc_transient.c T6) has one such instant per event
 *     (next_event: the previous event is the old mode of the erasure
 *     preference, nothing is in the context); the bound on the instants
 *     grows by one per event after the first. A change out of a transient
 *     mode (T7) is the cascade entered from a long mode
 *     (change_out_of_transient).
 */
#include "mc_int.h"
#include "fx.h"

#include <stdio.h> /* snprintf only */
#include <string.h>

#include "sm.h"

/* ---- Lists ------------------------------------------------------------------ */

int mc__grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return MDAE_OK;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *q = mdae_realloc(*p, nc * size);
    if (q == NULL)
        return MDAE_E_NOMEM;
    *p = q;
    *cap = nc;
    return MDAE_OK;
}

int mc__list_push(mc_list *l, size_t *cap, uint32_t index, int shift)
{
    if (l->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        mc_item *p = mdae_realloc(l->items, nc * sizeof *p);
        if (p == NULL)
            return MDAE_E_NOMEM;
        l->items = p;
        *cap = nc;
    }
    l->items[l->n].index = index;
    l->items[l->n].shift = shift;
    l->n++;
    return MDAE_OK;
}

static void instant_close(mc_instant *in)
{
    mdae_free(in->equations.items);
    mdae_free(in->unknowns.items);
    mdae_free(in->known.items);
    mdae_free(in->context.items);
    mdae_free(in->erased.items);
    mdae_free(in->overdetermined.items);
    mdae_free(in->underdetermined.items);
    for (size_t a = 0; a < in->n_alternatives; a++)
        mdae_free(in->alternatives[a].items);
    mdae_free(in->alternatives);
}

void mc_result_free(mc_result *r)
{
    if (r == NULL)
        return;
    for (uint32_t k = 0; k < r->n_instants; k++)
        instant_close(&r->instants[k]);
    mdae_free(r->instants);
    for (size_t k = 0; k < r->n_impulsive; k++)
        mdae_free(r->impulsive[k].equal.items);
    mdae_free(r->impulsive);
    mdae_free(r->finite);
    mdae_free(r->residuals);
    mdae_free(r->standard);
    for (size_t k = 0; k < r->n_std_equations; k++)
        mdae_free(r->std_equations[k].text);
    mdae_free(r->std_equations);
    for (size_t k = 0; k < r->n_restart_values; k++)
        mc__restart_values_close(&r->restart_values[k]);
    mdae_free(r->restart_values);
    fx_pool_free(r->pool);
    mc__transient_free(r->transient);
    for (size_t k = 0; k < r->n_resets; k++) {
        mdae_free(r->resets[k].eliminate.items);
        mdae_free(r->resets[k].from.items);
        mdae_free(r->resets[k].among.items);
        mc__reset_close(&r->resets[k]);
    }
    mdae_free(r->resets);
    mdae_free(r->entered_from);
    mdae_diags_close(&r->diags);
    mdae_free(r);
}

const char *mc_status_name(mc_status s)
{
    switch (s) {
    case MC_CONTINUOUS: return "continuous";
    case MC_RESET: return "reset";
    case MC_REJECTED: return "rejected";
    }
    return "?";
}

const char *mc_sys_status_name(mc_sys_status s)
{
    switch (s) {
    case MC_NONSINGULAR: return "nonsingular";
    case MC_OVERDETERMINED: return "overdetermined";
    case MC_UNDERDETERMINED: return "underdetermined";
    }
    return "?";
}

/* ---- The state of the unfolding ------------------------------------------------
 * Values (j, l) live in a table of n_var * W slots, equations (i, k) in
 * n_eq * H slots; W and H bound every shift that can occur (R1: in m+,
 * c_i + sigma_ij <= d_j, Pryce). */
typedef struct run {
    const mel_model *m;
    const bool *from, *to;
    sm_mode old, cur;  /* the two modes' single-mode analyses */
    bool tie_reverse;
    const mc_list *force_first; /* mc_options.force_first_erasure */
    uint32_t r;                 /* the instant being solved */
    uint32_t W, H;
    bool *body_same;   /* n_eq: active in both with the same body (R3) */
    bool *known;       /* n_var * W */
    bool *mention;     /* n_var * W: known values the candidate mentions */
    bool *done;        /* n_eq * H: solved or context at the previous instant */
    long *col_of;      /* n_var * W: column of a value, or -1 */
    /* the candidate system of the current instant */
    uint32_t n_rows, n_cols;
    uint32_t *row_eq;  /* rows: equation and shift */
    int *row_k;
    uint32_t *col_var; /* columns: variable and shift */
    int *col_l;
    size_t *row_first, *sub_first;
    uint32_t *col, *sub_col;
    int *sigma;        /* zeros: sm_solve needs weights, DM does not */
    size_t n_edges, edge_cap;
    size_t rows_cap, cols_cap;
    bool *keep;        /* n_rows */
    sm_ws *ws;
    /* R8: a change into a transient mode */
    bool event;        /* the instant being solved is an event */
    uint32_t ev;       /* which event of the cascade (T6) */
    const bool *tmode; /* its transient mode */
    bool *tact;        /* n_eq: active in it */
    int *td;           /* n_var: highest shift of a value of the event, -1 (W) */
    mc_transient *tr;  /* owned by the result */
} run;

static bool case_same(const mel_incidence *inc, const bool *a, const bool *b)
{
    for (uint32_t c = 0; c < inc->n_cases; c++)
        if (mel_guard_eval(inc->cases[c].guard, a) != mel_guard_eval(inc->cases[c].guard, b))
            return false;
    return true;
}

/* R3: the same body in both modes. */
static bool body_same(const mel_model *m, uint32_t i, const bool *a, const bool *b)
{
    const mel_equation *q = &m->equations[i];
    if (!mel_guard_eval(q->guard, a) || !mel_guard_eval(q->guard, b))
        return false;
    for (uint32_t e = 0; e < q->n_incs; e++)
        if (!case_same(&q->incs[e], a, b))
            return false;
    return true;
}

/* Room for n_rows rows and n_cols columns: the per-row and per-column
 * arrays share the capacities rows_cap / cols_cap. */
static int reserve_rows(run *u, size_t need)
{
    if (need <= u->rows_cap)
        return MDAE_OK;
    size_t nc = u->rows_cap ? 2 * u->rows_cap : 64;
    while (nc < need)
        nc *= 2;
    uint32_t *a = mdae_realloc(u->row_eq, nc * sizeof *a);
    if (a == NULL)
        return MDAE_E_NOMEM;
    u->row_eq = a;
    int *b = mdae_realloc(u->row_k, nc * sizeof *b);
    if (b == NULL)
        return MDAE_E_NOMEM;
    u->row_k = b;
    size_t *c = mdae_realloc(u->row_first, (nc + 1) * sizeof *c);
    if (c == NULL)
        return MDAE_E_NOMEM;
    u->row_first = c;
    size_t *d = mdae_realloc(u->sub_first, (nc + 1) * sizeof *d);
    if (d == NULL)
        return MDAE_E_NOMEM;
    u->sub_first = d;
    bool *k = mdae_realloc(u->keep, nc * sizeof *k);
    if (k == NULL)
        return MDAE_E_NOMEM;
    u->keep = k;
    u->rows_cap = nc;
    return MDAE_OK;
}

static int add_col(run *u, uint32_t j, int l, uint32_t *out)
{
    size_t slot = (size_t)j * u->W + (size_t)l;
    if (u->col_of[slot] >= 0) {
        *out = (uint32_t)u->col_of[slot];
        return MDAE_OK;
    }
    size_t cap = u->cols_cap;
    int rc = mc__grow((void **)&u->col_var, &cap, (size_t)u->n_cols + 1, sizeof *u->col_var);
    if (rc == MDAE_OK) {
        cap = u->cols_cap;
        rc = mc__grow((void **)&u->col_l, &cap, (size_t)u->n_cols + 1, sizeof *u->col_l);
    }
    if (rc < 0)
        return rc;
    u->cols_cap = cap;
    u->col_var[u->n_cols] = j;
    u->col_l[u->n_cols] = l;
    u->col_of[slot] = (long)u->n_cols;
    *out = u->n_cols++;
    return MDAE_OK;
}

/* Build the candidate system of the current instant from known and done
 * (R1, R3): rows f_i.^k, i active in m+, k <= c_i(m+), not in the context. */
static int build_candidate(run *u)
{
    const mel_model *m = u->m;
    for (uint32_t c = 0; c < u->n_cols; c++)
        u->col_of[(size_t)u->col_var[c] * u->W + (size_t)u->col_l[c]] = -1;
    memset(u->mention, 0, (size_t)m->n_variables * u->W * sizeof *u->mention);
    u->n_rows = u->n_cols = 0;
    u->n_edges = 0;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        if (!(u->event ? u->tact[i] : u->cur.eq_active[i]))
            continue;
        int ci = u->event ? 0 : u->cur.c[i]; /* R8: the event is unshifted */
        for (int k = 0; k <= ci; k++) {
            if ((uint32_t)k + 1 < u->H && u->done[(size_t)i * u->H + (size_t)k + 1])
                continue; /* context */
            int rc = reserve_rows(u, (size_t)u->n_rows + 1);
            if (rc < 0)
                return rc;
            uint32_t row = u->n_rows++;
            u->row_eq[row] = i;
            u->row_k[row] = k;
            u->row_first[row] = u->n_edges;
            const mel_equation *q = &m->equations[i];
            for (uint32_t e = 0; e < q->n_incs; e++) {
                int sig = mel_incidence_order(&q->incs[e], u->to);
                uint32_t j = q->incs[e].var;
                if (sig < 0)
                    continue;
                MDAE_ASSERT(k + sig < (int)u->W); /* Pryce: c_i + sigma_ij <= d_j */
                for (int l = k; l <= k + sig; l++) {
                    size_t slot = (size_t)j * u->W + (size_t)l;
                    if (u->known[slot]) {
                        u->mention[slot] = true;
                        continue;
                    }
                    uint32_t col;
                    rc = add_col(u, j, l, &col);
                    if (rc == MDAE_OK)
                        rc = mc__grow((void **)&u->col, &u->edge_cap, u->n_edges + 1, sizeof *u->col);
                    if (rc < 0)
                        return rc;
                    u->col[u->n_edges++] = col;
                }
            }
        }
    }
    int rc = reserve_rows(u, (size_t)u->n_rows + 1);
    if (rc < 0)
        return rc;
    u->row_first[u->n_rows] = u->n_edges;
    void *s = mdae_calloc(u->n_edges + 1, sizeof(int));
    if (s == NULL)
        return MDAE_E_NOMEM;
    mdae_free(u->sigma);
    u->sigma = s;
    void *sc = mdae_realloc(u->sub_col, (u->n_edges + 1) * sizeof *u->sub_col);
    if (sc == NULL)
        return MDAE_E_NOMEM;
    u->sub_col = sc;
    return MDAE_OK;
}

/* The rank of the candidate system restricted to the rows with keep[] set. */
static int rank_of(run *u, const bool *keep, uint32_t *rank)
{
    uint32_t nr = 0;
    size_t ne = 0;
    for (uint32_t r = 0; r < u->n_rows; r++) {
        if (!keep[r])
            continue;
        u->sub_first[nr++] = ne;
        for (size_t e = u->row_first[r]; e < u->row_first[r + 1]; e++)
            u->sub_col[ne++] = u->col[e];
    }
    u->sub_first[nr] = ne;
    sm_graph g = {nr, u->n_cols, u->sub_first, u->sub_col, u->sigma, NULL};
    const sm_solution *s;
    int rc = sm_solve(u->ws, &g, &s);
    if (rc < 0)
        return rc;
    *rank = s->max_matching;
    return MDAE_OK;
}

/* Erasure preference class of a row (R4): lower erases first. Equations new
 * to m+ before old ones; at an event (R8), the when-body equations last;
 * then the lower shift. */
static long erase_class(const run *u, uint32_t row)
{
    uint32_t i = u->row_eq[row];
    if (u->event && u->m->equations[i].when != 0)
        return (2L << 20) + u->row_k[row];
    return (u->body_same[i] ? 1L << 20 : 0) + u->row_k[row];
}

/* The order in which the greedy basis considers the overdetermined rows:
 * the most worth keeping first (the reverse of the erasure preference),
 * ties by declaration (R5). */
typedef struct cand {
    uint32_t row;
    long cls;
} cand;

static bool keep_before(const run *u, const cand *a, const cand *b)
{
    if (a->cls != b->cls)
        return a->cls > b->cls;
    return u->tie_reverse ? a->row > b->row : a->row < b->row;
}

static void sort_cands(const run *u, cand *c, size_t n)
{
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is the surplus part */
        cand x = c[i];
        size_t j = i;
        while (j > 0 && keep_before(u, &x, &c[j - 1])) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
}

/* ---- Alternatives (R5) ------------------------------------------------------------
 * Other erasure sets with as many erased rows in each preference class:
 * depth first over the overdetermined rows of the classes that erase, a
 * bounded number of rank tests. */
typedef struct alt_search {
    run *u;
    const cand *c;  /* candidates of the erasing classes, grouped by class */
    size_t n;
    const size_t *need; /* per candidate: rows still to erase in its class
                           (read at the class's first candidate) */
    bool *erase;    /* n_rows: the set being built */
    const bool *chosen; /* n_rows: the chosen erasure */
    uint32_t target_rank;
    size_t tests;
    mc_instant *in;
    int rc;
} alt_search;

#define MC_MAX_ALT_TESTS 512

static int record_alt(alt_search *s)
{
    mc_instant *in = s->in;
    if (in->n_alternatives == MC_MAX_ALTERNATIVES) {
        in->alternatives_truncated = true;
        return MDAE_OK;
    }
    if (in->alternatives == NULL) {
        in->alternatives = mdae_calloc(MC_MAX_ALTERNATIVES, sizeof *in->alternatives);
        if (in->alternatives == NULL)
            return MDAE_E_NOMEM;
    }
    mc_list *l = &in->alternatives[in->n_alternatives++];
    size_t cap = 0;
    for (uint32_t r = 0; r < s->u->n_rows; r++)
        if (s->erase[r]) {
            int rc = mc__list_push(l, &cap, s->u->row_eq[r], s->u->row_k[r]);
            if (rc < 0)
                return rc;
        }
    return MDAE_OK;
}

static void alt_dfs(alt_search *s, size_t at, size_t left_in_class)
{
    if (s->rc < 0 || s->tests >= MC_MAX_ALT_TESTS || s->in->alternatives_truncated)
        return;
    if (at == s->n || (at > 0 && s->c[at].cls != s->c[at - 1].cls)) {
        if (left_in_class > 0)
            return; /* the previous class did not erase enough */
        if (at == s->n) {
            bool same = true;
            for (size_t k = 0; k < s->n; k++)
                if (s->erase[s->c[k].row] != s->chosen[s->c[k].row])
                    same = false;
            if (same)
                return;
            bool *keep = s->u->keep;
            for (uint32_t r = 0; r < s->u->n_rows; r++)
                keep[r] = !s->erase[r];
            uint32_t rank;
            s->tests++;
            int rc = rank_of(s->u, keep, &rank);
            if (rc < 0) {
                s->rc = rc;
                return;
            }
            if (rank == s->target_rank) {
                rc = record_alt(s);
                if (rc < 0)
                    s->rc = rc;
            }
            return;
        }
        left_in_class = s->need[at];
    }
    size_t class_left = 0; /* candidates of this class from `at` on */
    for (size_t k = at; k < s->n && s->c[k].cls == s->c[at].cls; k++)
        class_left++;
    uint32_t row = s->c[at].row;
    if (left_in_class > 0) {
        s->erase[row] = true;
        alt_dfs(s, at + 1, left_in_class - 1);
        s->erase[row] = false;
    }
    if (class_left > left_in_class)
        alt_dfs(s, at + 1, left_in_class);
}

/* ---- One instant --------------------------------------------------------------- */

/* Fill the instant's lists; under (NULL: none) flags the underdetermined
 * columns of the candidate system. */
static int collect(run *u, mc_instant *in, const bool *erased, const bool *under)
{
    const mel_model *m = u->m;
    size_t cq = 0, cu = 0, ck = 0, cc = 0, ce = 0, cun = 0;
    int rc = MDAE_OK;
    for (uint32_t i = 0; i < m->n_equations && rc == MDAE_OK; i++) {
        if (!(u->event ? u->tact[i] : u->cur.eq_active[i]))
            continue;
        for (int k = 0; k <= (u->event ? 0 : u->cur.c[i]) && rc == MDAE_OK; k++)
            if ((uint32_t)k + 1 < u->H && u->done[(size_t)i * u->H + (size_t)k + 1])
                rc = mc__list_push(&in->context, &cc, i, k);
    }
    for (uint32_t r = 0; r < u->n_rows && rc == MDAE_OK; r++)
        rc = erased[r] ? mc__list_push(&in->erased, &ce, u->row_eq[r], u->row_k[r])
                       : mc__list_push(&in->equations, &cq, u->row_eq[r], u->row_k[r]);
    /* columns in (variable, shift) order */
    for (uint32_t j = 0; j < m->n_variables && rc == MDAE_OK; j++)
        for (uint32_t l = 0; l < u->W && rc == MDAE_OK; l++) {
            size_t slot = (size_t)j * u->W + l;
            if (u->mention[slot])
                rc = mc__list_push(&in->known, &ck, j, (int)l);
            long c = u->col_of[slot];
            if (c < 0)
                continue;
            rc = mc__list_push(&in->unknowns, &cu, j, (int)l);
            if (rc == MDAE_OK && under != NULL && under[c])
                rc = mc__list_push(&in->underdetermined, &cun, j, (int)l);
        }
    return rc;
}

/* mc_options.force_first_erasure: replace the greedy choice (keep[]) by the
 * given set, if it is one the rule allows (as many erased rows of each
 * preference class, and a matchable remainder); MDAE_E_INVAL if not. */
static int force_erasure(run *u, const cand *c, size_t n, uint32_t rank)
{
    bool *keep = mdae_malloc(((size_t)u->n_rows + 1) * sizeof *keep);
    if (keep == NULL)
        return MDAE_E_NOMEM;
    size_t erased = 0;
    for (uint32_t r = 0; r < u->n_rows; r++) {
        keep[r] = true;
        for (size_t k = 0; k < u->force_first->n; k++)
            if (u->force_first->items[k].index == u->row_eq[r] &&
                u->force_first->items[k].shift == u->row_k[r])
                keep[r] = false;
        erased += !keep[r];
    }
    bool ok = erased == u->force_first->n;
    for (size_t k = 0; k < n && ok; k++) { /* same count per class */
        long diff = 0;
        for (size_t q = 0; q < n; q++)
            if (c[q].cls == c[k].cls)
                diff += (long)!keep[c[q].row] - (long)!u->keep[c[q].row];
        ok = diff == 0;
    }
    for (uint32_t r = 0; r < u->n_rows && ok; r++) /* only overdetermined rows */
        if (!keep[r]) {
            bool over = false;
            for (size_t k = 0; k < n; k++)
                over |= c[k].row == r;
            ok = over;
        }
    uint32_t rk = 0;
    int rc = ok ? rank_of(u, keep, &rk) : MDAE_OK;
    if (rc == MDAE_OK && (!ok || rk != rank || rk != u->n_rows - erased))
        rc = MDAE_E_INVAL;
    if (rc == MDAE_OK)
        memcpy(u->keep, keep, u->n_rows * sizeof *keep);
    mdae_free(keep);
    return rc;
}

/* R4: keep every row outside the overdetermined part, then the
 * overdetermined ones greedily, most worth keeping first (u->keep). c
 * receives the overdetermined rows in that order (*n of them). */
static int greedy_keep(run *u, const bool *over, uint32_t rank, cand *c, size_t *n)
{
    size_t k = 0;
    for (uint32_t r = 0; r < u->n_rows; r++) {
        u->keep[r] = !over[r];
        if (over[r]) {
            c[k].row = r;
            c[k].cls = erase_class(u, r);
            k++;
        }
    }
    *n = k;
    sort_cands(u, c, k);
    uint32_t kept = u->n_rows - (uint32_t)k;
    for (size_t q = 0; q < k && kept < rank; q++) {
        u->keep[c[q].row] = true;
        uint32_t rk;
        int rc = rank_of(u, u->keep, &rk);
        if (rc < 0)
            return rc;
        if (rk == kept + 1)
            kept++;
        else
            u->keep[c[q].row] = false;
    }
    MDAE_ASSERT(kept == rank); /* a basis: as many rows as a maximum matching */
    return MDAE_OK;
}

/* R5: the other erasure sets with as many erased rows in each class, over
 * the classes that erase (c: the overdetermined rows, reordered here).
 * Uses u->keep as scratch. */
static int alternatives(run *u, mc_instant *in, cand *c, size_t n, const bool *erased,
                        uint32_t rank)
{
    size_t m2 = 0;
    for (size_t k = 0; k < n; k++) {
        bool erases = false;
        for (size_t q = 0; q < n; q++)
            erases |= c[q].cls == c[k].cls && erased[c[q].row];
        if (erases)
            c[m2++] = c[k];
    }
    for (size_t i = 1; i < m2; i++) { /* group by class, stably */
        cand x = c[i];
        size_t j = i;
        while (j > 0 && c[j - 1].cls > x.cls) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
    size_t *need = mdae_calloc(m2 + 1, sizeof *need);
    bool *work = mdae_calloc((size_t)u->n_rows + 1, sizeof *work);
    if (need == NULL || work == NULL) {
        mdae_free(need);
        mdae_free(work);
        return MDAE_E_NOMEM;
    }
    for (size_t k = 0; k < m2; k++) /* erased rows per class */
        for (size_t q = 0; q < m2; q++)
            need[k] += c[q].cls == c[k].cls && erased[c[q].row];
    for (uint32_t r = 0; r < u->n_rows; r++)
        work[r] = erased[r];
    for (size_t k = 0; k < m2; k++)
        work[c[k].row] = false;
    alt_search as = {u, c, m2, need, work, erased, rank, 0, in, MDAE_OK};
    if (m2 > 0)
        alt_dfs(&as, 0, need[0]);
    if (as.tests >= MC_MAX_ALT_TESTS && in->n_alternatives > 0)
        in->alternatives_truncated = true;
    mdae_free(need);
    mdae_free(work);
    return as.rc;
}

/* R8: the event's status from its difference array (mc_transient.c); the
 * values no array determines are the instant's underdetermined ones. */
static int event_status(run *u, mc_instant *in)
{
    bool *under = mdae_calloc(in->unknowns.n + 1, sizeof *under);
    if (under == NULL)
        return MDAE_E_NOMEM;
    const mc_transient *t = u->tr;
    uint32_t n_later = t->n_events - 1 - u->ev;
    int rc = mc__difference_array(u->m, u->tmode, &t->events[(size_t)(u->ev + 1) * u->m->n_modes],
                                  n_later, t->back, u->cur.eq_active, u->cur.c, u->cur.d,
                                  &in->equations, u->known, u->W, &in->unknowns, u->tr, under);
    u->tr->depths[u->ev] = u->tr->depth;
    size_t cap = 0;
    for (size_t k = 0; k < in->unknowns.n && rc == MDAE_OK; k++)
        if (under[k])
            rc = mc__list_push(&in->underdetermined, &cap, in->unknowns.items[k].index,
                               in->unknowns.items[k].shift);
    in->status = u->tr->depth >= 0 ? MC_NONSINGULAR : MC_UNDERDETERMINED;
    mdae_free(under);
    return rc;
}

/* Solve instant r: erase (R4), fill *in, and say whether anything was
 * erased. Leaves keep[] = the kept rows. */
static int solve_instant(run *u, mc_instant *in, bool *erased_any)
{
    int rc = build_candidate(u);
    if (rc < 0)
        return rc;
    sm_graph g = {u->n_rows, u->n_cols, u->row_first, u->col, u->sigma, NULL};
    const sm_solution *s;
    size_t nr = (size_t)u->n_rows + 1;
    bool *erased = mdae_calloc(nr, sizeof *erased);
    bool *over = mdae_calloc(nr, sizeof *over);
    bool *kept = mdae_calloc(nr, sizeof *kept);
    bool *under = mdae_calloc((size_t)u->n_cols + 1, sizeof *under);
    cand *c = mdae_calloc(nr, sizeof *c);
    if (erased == NULL || over == NULL || kept == NULL || under == NULL || c == NULL) {
        rc = MDAE_E_NOMEM;
        goto done;
    }
    rc = sm_solve(u->ws, &g, &s);
    if (rc < 0)
        goto done;
    uint32_t rank = s->max_matching;
    if (!s->perfect) { /* copied: rank_of reuses the workspace */
        memcpy(over, s->over, u->n_rows * sizeof *over);
        memcpy(under, s->under, u->n_cols * sizeof *under);
    }
    size_t n = 0;
    rc = greedy_keep(u, over, rank, c, &n);
    if (rc == MDAE_OK && u->r == 0 && u->force_first != NULL)
        rc = force_erasure(u, c, n, rank);
    if (rc < 0)
        goto done;
    *erased_any = false;
    for (uint32_t r = 0; r < u->n_rows; r++) {
        erased[r] = !u->keep[r];
        *erased_any |= erased[r];
    }
    memcpy(kept, u->keep, u->n_rows * sizeof *kept);
    if (u->event) {
        rc = collect(u, in, erased, NULL);
        if (rc == MDAE_OK)
            rc = event_status(u, in);
    } else {
        rc = collect(u, in, erased, u->n_cols > rank ? under : NULL);
        in->status = u->n_cols > rank ? MC_UNDERDETERMINED : MC_NONSINGULAR;
    }
    if (rc == MDAE_OK && *erased_any)
        rc = alternatives(u, in, c, n, erased, rank);
    memcpy(u->keep, kept, u->n_rows * sizeof *kept); /* for advance() */
done:
    mdae_free(erased);
    mdae_free(over);
    mdae_free(kept);
    mdae_free(under);
    mdae_free(c);
    return rc;
}

/* Move to the next instant: what this one computed becomes known (R2),
 * what it solved or had in its context becomes the next context (R3). */
static void advance(run *u)
{
    const mel_model *m = u->m;
    for (uint32_t j = 0; j < m->n_variables; j++) {
        bool *kn = &u->known[(size_t)j * u->W];
        for (uint32_t l = 0; l + 1 < u->W; l++)
            kn[l] = kn[l + 1] || u->col_of[(size_t)j * u->W + l + 1] >= 0;
        kn[u->W - 1] = false;
    }
    /* next done(i, k) = kept(i, k) or context(i, k); context(i, k) is the
     * current done(i, k + 1). Rows are in (i, k) order. */
    uint32_t row = 0;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        bool *dn = &u->done[(size_t)i * u->H];
        for (uint32_t k = 0; k < u->H; k++) {
            bool ctx = k + 1 < u->H && dn[k + 1];
            bool kept = false;
            if (row < u->n_rows && u->row_eq[row] == i && u->row_k[row] == (int)k) {
                kept = u->keep[row];
                row++;
            }
            dn[k] = u->cur.eq_active[i] && (int)k <= u->cur.c[i] && (ctx || kept);
        }
    }
    MDAE_ASSERT(row == u->n_rows);
}

/* ---- Driver ---------------------------------------------------------------------- */

static int max_of(const int *a, uint32_t n, const bool *active)
{
    int mx = 0;
    for (uint32_t k = 0; k < n; k++)
        if (active[k] && a[k] > mx)
            mx = a[k];
    return mx;
}

static int reject_singular(const mel_model *m, const sm_mode *v, const char *which,
                           mdae_diags *d)
{
    int rc = MDAE_OK;
    size_t shown = 0;
    for (uint32_t i = 0; i < m->n_equations && rc == MDAE_OK && shown < 10; i++)
        if (v->overdetermined[i]) {
            rc = mdae_diags_add(d, MDAE_SEV_ERROR, m->equations[i].where,
                                "the %s mode is structurally singular: equation '%s' is "
                                "overdetermined there; no restart can reach it",
                                which, m->equations[i].name);
            shown++;
        }
    for (uint32_t j = 0; j < m->n_variables && rc == MDAE_OK && shown < 10; j++)
        if (v->underdetermined[j]) {
            rc = mdae_diags_add(d, MDAE_SEV_ERROR, m->variables[j].where,
                                "the %s mode is structurally singular: variable '%s' is "
                                "underdetermined there; no restart can reach it",
                                which, m->variables[j].name);
            shown++;
        }
    return rc;
}

static int check_request(const mel_model *m, const bool *from, const bool *to, char *why,
                         size_t why_len, sm_mode *old, sm_mode *cur, mc_transient **tr)
{
    bool differ = false;
    for (uint32_t k = 0; k < m->n_modes; k++)
        differ |= from[k] != to[k];
    if (!differ) {
        if (why != NULL && why_len > 0)
            snprintf(why, why_len, "from and to are the same mode: a mode change needs "
                                   "two different modes");
        return MDAE_E_INVAL;
    }
    int rc = sm_model_mode(m, from, old);
    if (rc == MDAE_OK)
        rc = sm_model_mode(m, to, cur);
    if (rc == MDAE_OK && old->valid && !cur->valid)
        rc = mc__transient_of(m, from, to, tr);
    if (rc < 0)
        return rc;
    if (*tr != NULL) { /* R8: analysed up to the long mode after the event */
        sm_mode_close(cur);
        return sm_model_mode(m, (*tr)->back, cur);
    }
    const char *bad = !old->valid ? "from" : !cur->valid ? "to" : NULL;
    if (bad != NULL) {
        for (uint32_t k = 0; k < m->n_invariants; k++)
            if (!mel_guard_eval(m->invariants[k].cond, bad[0] == 'f' ? from : to)) {
                if (why != NULL && why_len > 0)
                    snprintf(why, why_len,
                             "'%s' is not a valid mode: it violates the invariant at line %u",
                             bad, (unsigned)m->invariants[k].where.start.line);
                return MDAE_E_INVAL;
            }
        if (why != NULL && why_len > 0)
            snprintf(why, why_len, "'%s' is not a valid mode", bad);
        return MDAE_E_INVAL;
    }
    return MDAE_OK;
}

/* R8: activity in the first transient mode and the highest shift of each
 * value the equations of the cascade's events mention (td, for the table's
 * width; T6). */
static int event_init(run *u, const mel_model *m)
{
    u->tact = mdae_calloc((size_t)m->n_equations + 1, sizeof *u->tact);
    u->td = mdae_malloc(((size_t)m->n_variables + 1) * sizeof *u->td);
    if (u->tact == NULL || u->td == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t j = 0; j < m->n_variables; j++)
        u->td[j] = -1;
    for (uint32_t i = 0; i < m->n_equations; i++)
        u->tact[i] = mel_guard_eval(m->equations[i].guard, u->tmode);
    for (uint32_t ev = 0; ev < u->tr->n_events; ev++) {
        const bool *mode = &u->tr->events[(size_t)ev * m->n_modes];
        for (uint32_t i = 0; i < m->n_equations; i++) {
            const mel_equation *q = &m->equations[i];
            for (uint32_t e = 0; mel_guard_eval(q->guard, mode) && e < q->n_incs; e++) {
                int s = mel_incidence_order(&q->incs[e], mode);
                if (s > u->td[q->incs[e].var])
                    u->td[q->incs[e].var] = s;
            }
        }
    }
    return MDAE_OK;
}

/* T6: from event ev to the next event of the cascade: the previous event
 * is the old mode of the erasure preference (body_same), and nothing is in
 * the context (an event is solved unshifted). */
static void next_event(run *u)
{
    const mel_model *m = u->m;
    const bool *prev = u->tmode;
    u->ev++;
    u->tmode = &u->tr->events[(size_t)u->ev * m->n_modes];
    for (uint32_t i = 0; i < m->n_equations; i++) {
        u->body_same[i] = body_same(m, i, prev, u->tmode);
        u->tact[i] = mel_guard_eval(m->equations[i].guard, u->tmode);
    }
    memset(u->done, 0, ((size_t)m->n_equations * u->H + 1) * sizeof *u->done);
    u->to = u->tmode;
}

/* R8: from the event to the instants after it, in the long mode after. */
static void leave_event(run *u)
{
    const mel_model *m = u->m;
    for (uint32_t i = 0; i < m->n_equations; i++)
        u->body_same[i] = u->tact[i] && u->cur.eq_active[i] &&
                          body_same(m, i, u->tmode, u->tr->back);
    memset(u->done, 0, ((size_t)m->n_equations * u->H + 1) * sizeof *u->done);
    for (uint32_t i = 0; i < m->n_equations; i++)
        for (int s = 1; u->cur.eq_active[i] && s <= u->tr->depth && s <= u->cur.c[i] &&
                        (uint32_t)s < u->H;
             s++)
            u->done[(size_t)i * u->H + (size_t)s] = true;
    u->to = u->tr->back;
    u->event = false;
}

/* T2, T6: the cascade must end in a long mode: an endless or too long
 * cascade, or a mode after the last event that violates invariants other
 * than the when-clauses', is rejected. */
static int after_event_invalid(const mel_model *m, const bool *from, const mc_transient *t,
                               mdae_diags *d)
{
    if (t->endless || t->too_long)
        return mc__cascade_diags(m, t, from, d);
    char *txt = mel_guard_format(m, m->whens[t->whens[0]].cond);
    int rc = mdae_diags_add(d, MDAE_SEV_ERROR, m->whens[t->whens[0]].where,
                            "after the event '%s'%s, the mode (its mode variables back "
                            "to their values before it) is not a valid long mode: "
                            "the cascade through this transient mode has nowhere to go",
                            txt != NULL ? txt : "?",
                            t->n_events > 1 ? " and the cascade it starts" : "");
    mdae_free(txt);
    return rc;
}

static int run_init(run *u, const mel_model *m, const bool *from, const bool *to)
{
    u->m = m;
    u->from = from;
    u->to = to;
    if (u->event) {
        int rc = event_init(u, m);
        if (rc < 0)
            return rc;
    }
    int dmax = max_of(u->cur.d, m->n_variables, u->cur.var_active);
    int dold = max_of(u->old.d, m->n_variables, u->old.var_active);
    int cmax = max_of(u->cur.c, m->n_equations, u->cur.eq_active);
    int cold = max_of(u->old.c, m->n_equations, u->old.eq_active);
    int dev = 0;
    for (uint32_t j = 0; u->event && j < m->n_variables; j++)
        dev = u->td[j] > dev ? u->td[j] : dev;
    dmax = dmax > dev ? dmax : dev;
    u->W = (uint32_t)(dmax > dold ? dmax : dold) + 2;
    u->H = (uint32_t)(cmax > cold ? cmax : cold) + 2;
    size_t nv = (size_t)m->n_variables * u->W + 1, ne = (size_t)m->n_equations * u->H + 1;
    u->body_same = mdae_calloc((size_t)m->n_equations + 1, sizeof *u->body_same);
    u->known = mdae_calloc(nv, sizeof *u->known);
    u->mention = mdae_calloc(nv, sizeof *u->mention);
    u->col_of = mdae_malloc(nv * sizeof *u->col_of);
    u->done = mdae_calloc(ne, sizeof *u->done);
    u->ws = sm_ws_new();
    if (u->body_same == NULL || u->known == NULL || u->mention == NULL || u->col_of == NULL ||
        u->done == NULL || u->ws == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < nv; k++)
        u->col_of[k] = -1;
    /* The steady old mode (R2, R3): x_j.^l known for l < d_j(m-); f_i.^k
     * solved or in the context for k <= c_i(m-), if the body is the same. */
    for (uint32_t j = 0; j < m->n_variables; j++)
        if (u->old.var_active[j])
            for (int l = 0; l < u->old.d[j]; l++)
                u->known[(size_t)j * u->W + (size_t)l] = true;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        bool now = u->event ? u->tact[i] : u->cur.eq_active[i];
        u->body_same[i] = u->old.eq_active[i] && now && body_same(m, i, from, to);
        if (u->body_same[i])
            for (int k = 0; k <= u->old.c[i] && (uint32_t)k < u->H; k++)
                u->done[(size_t)i * u->H + (size_t)k] = true;
    }
    return MDAE_OK;
}

static void run_close(run *u)
{
    sm_mode_close(&u->old);
    sm_mode_close(&u->cur);
    mdae_free(u->body_same);
    mdae_free(u->known);
    mdae_free(u->mention);
    mdae_free(u->col_of);
    mdae_free(u->done);
    mdae_free(u->row_eq);
    mdae_free(u->row_k);
    mdae_free(u->col_var);
    mdae_free(u->col_l);
    mdae_free(u->row_first);
    mdae_free(u->sub_first);
    mdae_free(u->col);
    mdae_free(u->sub_col);
    mdae_free(u->sigma);
    mdae_free(u->keep);
    sm_ws_free(u->ws);
    mdae_free(u->tact);
    mdae_free(u->td);
}

/* Located diagnostics of a finished instant. */
static int instant_diags(const mel_model *m, const mc_instant *in, mdae_diags *d)
{
    int rc = MDAE_OK;
    for (size_t k = 0; k < in->erased.n && rc == MDAE_OK; k++) {
        const mc_item *e = &in->erased.items[k];
        rc = mdae_diags_add(d, MDAE_SEV_NOTE, m->equations[e->index].where,
                            "restart instant %u: equation '%s' (shift %d) is erased: it "
                            "conflicts with what the previous instants fixed",
                            (unsigned)in->r, m->equations[e->index].name, e->shift);
    }
    if (rc == MDAE_OK && in->n_alternatives > 0 && in->erased.n > 0)
        rc = mdae_diags_add(d, MDAE_SEV_WARNING,
                            m->equations[in->erased.items[0].index].where,
                            "restart instant %u: the erasure is ambiguous: %zu other "
                            "equally preferred choice%s%s", (unsigned)in->r,
                            in->n_alternatives, in->n_alternatives > 1 ? "s" : "",
                            in->alternatives_truncated ? " (and more)" : "");
    for (size_t k = 0; k < in->underdetermined.n && rc == MDAE_OK; k++) {
        const mc_item *x = &in->underdetermined.items[k];
        rc = mdae_diags_add(d, MDAE_SEV_ERROR, m->variables[x->index].where,
                            "restart instant %u: '%s' (shift %d) is not determined: the "
                            "mode change is insufficiently specified (underdetermined "
                            "restart)", (unsigned)in->r, m->variables[x->index].name,
                            x->shift);
    }
    return rc;
}

static int unfold(run *u, const mc_options *opt, mc_result *res)
{
    const mel_model *m = u->m;
    uint32_t events = u->tr != NULL ? u->tr->n_events - 1 : 0; /* T6: one instant each */
    uint32_t bound = opt != NULL && opt->max_instants > 0
                         ? opt->max_instants
                         : 2 + (u->H - 2) + 2 * (u->W - 2) + events;
    uint32_t cap = 0;
    for (uint32_t r = 0;; r++) {
        if (r >= bound) {
            res->status = MC_REJECTED;
            return mdae_diags_add(&res->diags, MDAE_SEV_ERROR,
                                  m->n_modes ? m->modes[0].where : (mdae_range){{0, 0, 0}, {0, 0, 0}},
                                  "the restart does not settle: equations are still erased "
                                  "after %u instants", (unsigned)bound);
        }
        mc_instant in;
        memset(&in, 0, sizeof in);
        in.r = r;
        bool erased_any = false;
        u->r = r;
        bool event = u->event;
        int rc = solve_instant(u, &in, &erased_any);
        if (rc == MDAE_OK && !erased_any && in.status == MC_NONSINGULAR && !event) {
            instant_close(&in); /* R6: the steady new mode */
            res->status = r == 0 ? MC_CONTINUOUS : MC_RESET;
            return MDAE_OK;
        }
        if (rc == MDAE_OK && res->n_instants == cap) {
            uint32_t nc = cap ? 2 * cap : 4;
            mc_instant *p = mdae_realloc(res->instants, nc * sizeof *p);
            if (p == NULL)
                rc = MDAE_E_NOMEM;
            else {
                res->instants = p;
                cap = nc;
            }
        }
        if (rc < 0) {
            instant_close(&in);
            return rc;
        }
        res->instants[res->n_instants++] = in;
        res->ambiguous |= in.n_alternatives > 0;
        rc = instant_diags(m, &in, &res->diags);
        if (rc == MDAE_OK && event)
            rc = mc__transient_diags(m, u->tr, u->from, u->ev, &res->diags);
        if (rc < 0)
            return rc;
        if (in.status != MC_NONSINGULAR) {
            res->status = MC_REJECTED;
            return MDAE_OK;
        }
        /* The event too (R8): its next(x) terms read as x. itself
         * (mc_impulse.c I6, mel_order_case.next). */
        if (opt == NULL || !opt->skip_impulses) {
            rc = mc__impulse(m, u->to, u->cur.d, &res->instants[res->n_instants - 1], res);
            if (rc < 0)
                return rc;
        }
        advance(u);
        if (event && u->ev + 1 < u->tr->n_events)
            next_event(u);
        else if (event)
            leave_event(u);
    }
}

static int change_out_of_transient(const mel_model *m, const bool *from, const bool *to,
                                   const mc_options *opt, mc_result **out, char *why,
                                   size_t why_len);

int mc_change(const mel_model *m, const bool *from, const bool *to, const mc_options *opt,
              mc_result **out, char *why, size_t why_len)
{
    if (m == NULL || out == NULL || (m->n_modes > 0 && (from == NULL || to == NULL)))
        return MDAE_E_INVAL;
    if (m->n_modes == 0) {
        if (why != NULL && why_len > 0)
            snprintf(why, why_len, "the model has no mode variables: it has no mode changes");
        return MDAE_E_INVAL;
    }
    if (mc__is_transient(m, from) && memcmp(from, to, m->n_modes * sizeof *from) != 0) {
        for (uint32_t k = 0; k < m->n_invariants && !mc__is_transient(m, to); k++)
            if (!mel_guard_eval(m->invariants[k].cond, to)) {
                if (why != NULL && why_len > 0)
                    snprintf(why, why_len,
                             "'to' is not a valid mode: it violates the invariant at line %u",
                             (unsigned)m->invariants[k].where.start.line);
                return MDAE_E_INVAL;
            }
        return change_out_of_transient(m, from, to, opt, out, why, why_len);
    }
    run u;
    memset(&u, 0, sizeof u);
    u.tie_reverse = opt != NULL && opt->tie_reverse;
    u.force_first = opt != NULL ? opt->force_first_erasure : NULL;
    mc_result *res = mdae_calloc(1, sizeof *res);
    if (res == NULL)
        return MDAE_E_NOMEM;
    mdae_diags_init(&res->diags);
    int rc = check_request(m, from, to, why, why_len, &u.old, &u.cur, &res->transient);
    if (rc < 0)
        goto fail;
    if (res->transient != NULL) {
        u.event = true;
        u.tmode = to;
        u.tr = res->transient;
    }
    size_t fix = 0;
    if (opt == NULL || !opt->ignore_guard_fixpoints)
        rc = mc_guard_fixpoints(m, &res->diags, &fix);
    if (rc < 0)
        goto fail;
    if (fix > 0) { /* R7 */
        res->status = MC_REJECTED;
        goto ok;
    }
    if (u.event && !u.cur.valid) { /* T2 */
        res->status = MC_REJECTED;
        rc = after_event_invalid(m, from, res->transient, &res->diags);
        if (rc < 0)
            goto fail;
        goto ok;
    }
    if (u.old.singular || u.cur.singular) { /* R7 */
        res->status = MC_REJECTED;
        rc = u.old.singular ? reject_singular(m, &u.old, "old", &res->diags) : MDAE_OK;
        if (rc == MDAE_OK && u.cur.singular)
            rc = reject_singular(m, &u.cur, u.event ? "after-event" : "new", &res->diags);
        if (rc < 0)
            goto fail;
        goto ok;
    }
    rc = run_init(&u, m, from, to);
    if (rc == MDAE_OK)
        rc = unfold(&u, opt, res);
    if (rc == MDAE_OK && (opt == NULL || !opt->skip_impulses)) {
        rc = mc__standard(m, u.cur.d, res);
        if (rc == MDAE_OK)
            rc = mc__std_equations(m, to, u.cur.d, res);
    }
    if (rc < 0)
        goto fail;
ok:
    run_close(&u);
    *out = res;
    return MDAE_OK;
fail:
    run_close(&u);
    mc_result_free(res);
    return rc;
}

/* ---- A change out of a transient mode (mc_transient.c T7) ----------------------- */

/* The when-clause whose condition holds in the transient mode (its
 * location), or -1. */
static long holding_when(const mel_model *m, const bool *mode)
{
    for (uint32_t w = 0; w < m->n_whens; w++)
        if (mel_guard_eval(m->whens[w].cond, mode))
            return (long)w;
    return -1;
}

static int change_out_of_transient(const mel_model *m, const bool *from, const bool *to,
                                   const mc_options *opt, mc_result **out, char *why,
                                   size_t why_len)
{
    bool *before = mdae_calloc((size_t)m->n_modes + 1, sizeof *before);
    if (before == NULL)
        return MDAE_E_NOMEM;
    size_t count = 0;
    bool searched = false;
    int rc = mc__entering_mode(m, from, to, before, &count, &searched);
    long w = holding_when(m, from);
    MDAE_ASSERT(w >= 0); /* a transient mode violates a when-invariant */
    mdae_range where = m->whens[w].where;
    mc_result *res = NULL;
    if (rc == MDAE_OK && count > 0)
        rc = mc_change(m, before, from, opt, &res, why, why_len);
    else if (rc == MDAE_OK) {
        res = mdae_calloc(1, sizeof *res);
        rc = res != NULL ? MDAE_OK : MDAE_E_NOMEM;
        if (rc == MDAE_OK) {
            mdae_diags_init(&res->diags);
            res->status = MC_REJECTED;
            rc = mdae_diags_add(&res->diags, MDAE_SEV_ERROR, where,
                                searched ? "no long mode enters this transient mode and leaves "
                                           "it for the mode asked for: after the event the "
                                           "mode variables its when-conditions read go back "
                                           "to their values before it (RR-9459 section 5.2.3)"
                                         : "a change out of a transient mode is analysed from "
                                           "the long modes that enter it, found by "
                                           "enumeration: not past 20 mode variables");
        }
    }
    if (rc == MDAE_OK && count > 0) {
        char text[256];
        mc__mode_text(m, before, text, sizeof text);
        rc = mdae_diags_add(&res->diags, MDAE_SEV_NOTE, where,
                            "the change out of this transient mode is part of a cascade: "
                            "analysed as the one entered from the long mode %s (%zu long "
                            "mode%s enter%s it and reach%s the mode asked for; the instants "
                            "are the cascade's, its events first)",
                            text, count, count == 1 ? "" : "s", count == 1 ? "s" : "",
                            count == 1 ? "es" : "");
        res->entered_from = before;
        before = NULL;
    }
    mdae_free(before);
    if (rc != MDAE_OK) {
        mc_result_free(res);
        return rc;
    }
    *out = res;
    return MDAE_OK;
}
