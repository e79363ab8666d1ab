/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_transient.c -- transient modes (mc.h; issue 13 item 5; RR-9459
 * sections 5.2.3-5.2.4): which changes enter a transient mode, the long
 * mode after the event, and the difference array of the event.
 *
 * The paper works one example (the elastic Cup-and-Ball) and leaves the
 * general rule open; the readings taken here, each used below:
 *
 *  T1 Declaration. A mode is transient when the condition of a when-clause
 *     holds in it (RR-9459 section 5.2.4: `when` declares the events, `if`
 *     the long modes; the compiler cannot infer it). The elaborator adds
 *     the invariant !c (mel_invariant.when), so the all-modes analyses see
 *     the long modes only; here a mode that violates only such invariants
 *     is transient.
 *  T2 The cascade. The paper's cascade is gamma: F -> T -> F, "left
 *     immediately after being reached": the guard trajectory T, F, F, ...
 *     of (36). Generalised: after the event, the mode variables that the
 *     rising when-conditions read are back to their values before it; the
 *     other mode variables keep their new values (a change of other modes
 *     at the same instant is not undone). That mode must be a long mode,
 *     else the change is rejected with a located error at the when.
 *  T3 The event's system S(T): the equations active in T (if-branches
 *     resolved in T, and the bodies of the when-clauses whose condition
 *     holds), unshifted: a transient mode has no latent equations of its
 *     own, "we cannot add latent equations by simply shifting (k1), since
 *     these shifted versions are not active in the mode gamma = F". What
 *     conflicts with the values the previous instants fixed is erased by
 *     Principle 1, with the rule of mc_change.c (R4: new-to-T equations
 *     first). The Cup-and-Ball's k1 (0 = L^2 - (x^2 + y^2)) only mentions
 *     x, y, which the previous instant computed: it is erased, its residual
 *     being what the event leaves unsatisfied, as at an inelastic change.
 *  T4 The dependent values are the unknowns of S(T) after erasure (the
 *     values the event computes: the paper's x.^2, y.^2, lambda, and s when
 *     k2 is present); every other value of the array (shifts of the mode
 *     after) "must be eliminated". A_n determines them when none is in the
 *     Dulmage-Mendelsohn underdetermined part of A_n (no maximum matching
 *     leaves it out: the structural form of Campbell-Gear's 1-fullness).
 *     An overdetermined part of A_n among the shifted rows of the mode after
 *     is not a reason to reject: it is the conflict of the next change
 *     (T -> F), which the following instants resolve by Principle 1.
 *  T5 The bound. n is tried from 0 to max_depth = 2 + max c + max d of the
 *     mode after: past its index and its state orders, one more shift of
 *     that nonsingular mode brings as many new values as equations (its
 *     leading values), so it cannot determine more of the event's values.
 *     This is a bound we chose, not one the paper gives; the reference
 *     (tests/ref/ref_transient.c) tries the same n, by definition. Checked
 *     2026-11-25: with 6 more shifts, no event of the random models of 12
 *     seeds (test_mc_vs_ref.c) that the bound leaves undetermined became
 *     determined.
 *  T6 Cascades (RR-9459 section 5.3: long modes alternate with finite
 *     cascades of transient modes). The mode after an event (T2, from the
 *     mode before it) may be transient too: it is the next event, and T2
 *     applied to it (the mode variables of the when-conditions rising
 *     there back to their values in the previous event) gives the one
 *     after, until a long mode. Each event lasts one instant; its system
 *     is T3's, erasing against every earlier instant (the previous events
 *     included: the new-to-T class is "not active with the same body in
 *     the previous event"); its array follows the guard trajectory, as
 *     (36) does: A_n = [S(Te) S.(Te+1) ... S.^(k-e)(Tk) S.^(k-e+1)(F) ...
 *     S.^(k-e+n)(F)], n (its depth) counting the shifts of the long mode
 *     F only, bounded as T5. Only the last event's array leaves context to
 *     the instants in F (mc_change.c R8): an earlier event's is followed
 *     by the next event, which is solved unshifted, with no context.
 *     The step from (previous mode, event) to the next mode is a function
 *     of the pair, so a pair met twice makes the cascade go round for ever:
 *     it is reported as endless (the change rejected, located at the
 *     when-clauses); past MC_MAX_CASCADE events without a repeat, as too
 *     long. A mode after an event that violates other invariants is
 *     nowhere to go (rejected, as for one event).
 *  T7 A change out of a transient mode T (asked for directly: --from T) is
 *     part of a cascade, and what it does depends on the long mode before
 *     T (its values, and T2's mode after). It is analysed as the cascade
 *     entered from the first long mode, by index, whose change into T
 *     reaches the mode asked for (as the long mode after, or a later
 *     event), named in the result (mc_result.entered_from); when none does,
 *     the change cannot happen, and is rejected at T's when-clause. The
 *     search enumerates the modes: up to 20 mode variables.
 */
#include "mc_int.h"

#include <stdio.h>
#include <string.h>

#include "sm.h"

void mc__transient_free(mc_transient *t)
{
    if (t == NULL)
        return;
    mdae_free(t->back);
    mdae_free(t->whens);
    mdae_free(t->events);
    mdae_free(t->depths);
    mdae_free(t->undetermined.items);
    mdae_free(t);
}

/* Set back[v] = from[v] for the mode variables v that g reads (T2). The
 * depth of a when-condition is bounded by the parser's nesting limit. */
static void restore_vars(const mel_guard *g, const bool *from, bool *back)
{
    switch (g->op) {
    case MEL_G_FALSE:
    case MEL_G_TRUE: return;
    case MEL_G_VAR: back[g->var] = from[g->var]; return;
    case MEL_G_NOT: restore_vars(g->lhs, from, back); return;
    case MEL_G_AND:
    case MEL_G_OR:
        restore_vars(g->lhs, from, back);
        restore_vars(g->rhs, from, back);
        return;
    }
}

bool mc__is_transient(const mel_model *m, const bool *mode)
{
    bool any = false;
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode)) {
            if (m->invariants[k].when == 0)
                return false; /* invalid, not transient (T1) */
            any = true;
        }
    return any;
}

/* T2 applied to the event `cur` entered from `prev`: into next. */
static void after_event(const mel_model *m, const bool *prev, const bool *cur, bool *next)
{
    memcpy(next, cur, m->n_modes * sizeof *cur);
    for (uint32_t w = 0; w < m->n_whens; w++)
        if (mel_guard_eval(m->whens[w].cond, cur) && !mel_guard_eval(m->whens[w].cond, prev))
            restore_vars(m->whens[w].cond, prev, next);
}

static bool same_mode(const bool *a, const bool *b, uint32_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* T6: has the pair (events[e - 1] or from, events[e]) been met before? */
static bool pair_repeats(const mc_transient *t, const bool *from, uint32_t n)
{
    uint32_t e = t->n_events - 1;
    const bool *prev = e == 0 ? from : &t->events[(size_t)(e - 1) * n];
    for (uint32_t q = 0; q < e; q++) {
        const bool *qp = q == 0 ? from : &t->events[(size_t)(q - 1) * n];
        if (same_mode(&t->events[(size_t)q * n], &t->events[(size_t)e * n], n) &&
            same_mode(qp, prev, n))
            return true;
    }
    return false;
}

/* T6: follow the cascade from event 0 (t->events, n_events 1) to a mode
 * that is not transient (t->back), or say it is endless or too long. */
static int follow_cascade(const mel_model *m, const bool *from, mc_transient *t)
{
    uint32_t n = m->n_modes;
    size_t cap = 1;
    for (;;) {
        uint32_t e = t->n_events - 1;
        const bool *prev = e == 0 ? from : &t->events[(size_t)(e - 1) * n];
        after_event(m, prev, &t->events[(size_t)e * n], t->back);
        if (!mc__is_transient(m, t->back))
            return MDAE_OK;
        if (t->n_events == MC_MAX_CASCADE) {
            t->too_long = true;
            return MDAE_OK;
        }
        int rc = mc__grow((void **)&t->events, &cap, ((size_t)t->n_events + 1) * n + 1,
                          sizeof *t->events);
        if (rc < 0)
            return rc;
        memcpy(&t->events[(size_t)t->n_events * n], t->back, n * sizeof *t->back);
        t->n_events++;
        if (pair_repeats(t, from, n)) {
            t->endless = true;
            return MDAE_OK;
        }
    }
}

int mc__transient_of(const mel_model *m, const bool *from, const bool *to,
                     mc_transient **out)
{
    *out = NULL;
    if (!mc__is_transient(m, to))
        return MDAE_OK;
    mc_transient *t = mdae_calloc(1, sizeof *t);
    if (t == NULL)
        return MDAE_E_NOMEM;
    t->depth = -1;
    t->max_depth = -1; /* not analysed yet */
    size_t n = (size_t)m->n_modes;
    t->back = mdae_malloc((n + 1) * sizeof *t->back);
    t->whens = mdae_malloc(((size_t)m->n_whens + 1) * sizeof *t->whens);
    t->events = mdae_malloc((n + 1) * sizeof *t->events);
    if (t->back == NULL || t->whens == NULL || t->events == NULL) {
        mc__transient_free(t);
        return MDAE_E_NOMEM;
    }
    memcpy(t->events, to, n * sizeof *to);
    t->n_events = 1;
    for (uint32_t w = 0; w < m->n_whens; w++)
        if (mel_guard_eval(m->whens[w].cond, to) && !mel_guard_eval(m->whens[w].cond, from))
            t->whens[t->n_whens++] = w;
    MDAE_ASSERT(t->n_whens > 0); /* some when-invariant is violated in to */
    int rc = follow_cascade(m, from, t);
    if (rc == MDAE_OK) {
        t->depths = mdae_malloc(((size_t)t->n_events + 1) * sizeof *t->depths);
        rc = t->depths != NULL ? MDAE_OK : MDAE_E_NOMEM;
    }
    for (uint32_t e = 0; rc == MDAE_OK && e < t->n_events; e++)
        t->depths[e] = -1;
    if (rc < 0) {
        mc__transient_free(t);
        return rc;
    }
    *out = t;
    return MDAE_OK;
}

/* ---- The difference array (T4, T5) ------------------------------------------------ */

typedef struct array {
    uint32_t W, Wn;      /* known: n_var * W; columns: n_var * Wn slots */
    const bool *known;
    long *col_of;        /* n_var * Wn */
    uint32_t n_rows, n_cols;
    size_t n_edges;
    size_t *row_first;   /* capacity rows_cap + 1 */
    uint32_t *col;       /* capacity edge_cap */
    uint32_t *slot_of;   /* per column: its slot, to clear col_of */
    size_t rows_cap, edge_cap, cols_cap;
} array;

/* The column of value (j, l), a new one if needed; -1 if it is known. */
static int column(array *a, uint32_t j, int l, long *out)
{
    if ((uint32_t)l < a->W && a->known[(size_t)j * a->W + (size_t)l]) {
        *out = -1;
        return MDAE_OK;
    }
    MDAE_ASSERT((uint32_t)l < a->Wn);
    size_t slot = (size_t)j * a->Wn + (size_t)l;
    if (a->col_of[slot] < 0) {
        int rc = mc__grow((void **)&a->slot_of, &a->cols_cap, (size_t)a->n_cols + 1,
                      sizeof *a->slot_of);
        if (rc < 0)
            return rc;
        a->slot_of[a->n_cols] = (uint32_t)slot;
        a->col_of[slot] = (long)a->n_cols++;
    }
    *out = a->col_of[slot];
    return MDAE_OK;
}

/* Append row f_i.^k, its incidences evaluated in `mode`. */
static int add_row(array *a, const mel_model *m, uint32_t i, int k, const bool *mode)
{
    int rc = mc__grow((void **)&a->row_first, &a->rows_cap, (size_t)a->n_rows + 2,
                  sizeof *a->row_first);
    if (rc < 0)
        return rc;
    a->row_first[a->n_rows] = a->n_edges;
    const mel_equation *q = &m->equations[i];
    for (uint32_t e = 0; e < q->n_incs; e++) {
        int sig = mel_incidence_order(&q->incs[e], mode);
        for (int l = k; sig >= 0 && l <= k + sig; l++) {
            long c;
            rc = column(a, q->incs[e].var, l, &c);
            if (rc == MDAE_OK && c >= 0)
                rc = mc__grow((void **)&a->col, &a->edge_cap, a->n_edges + 1, sizeof *a->col);
            if (rc < 0)
                return rc;
            if (c >= 0)
                a->col[a->n_edges++] = (uint32_t)c;
        }
    }
    a->n_rows++;
    a->row_first[a->n_rows] = a->n_edges;
    return MDAE_OK;
}

static int max_sigma(const mel_model *m, uint32_t i, const bool *mode)
{
    int mx = 0;
    for (uint32_t e = 0; e < m->equations[i].n_incs; e++) {
        int s = mel_incidence_order(&m->equations[i].incs[e], mode);
        mx = s > mx ? s : mx;
    }
    return mx;
}

/* The events after the one analysed (T6), n_later of them, each a mode. */
typedef struct trajectory {
    const bool *later; /* n_later * n_modes */
    uint32_t n_later;
} trajectory;

/* Build A_n: the event's rows, the later events' rows at shifts 1..n_later
 * (T6), then the long mode after's rows at the next n shifts. The
 * dependent values take columns 0 .. |dep| - 1. */
static int build(array *a, const mel_model *m, const bool *to, const trajectory *tj,
                 const bool *back, const bool *back_active, const mc_list *rows,
                 const mc_list *dep, int n)
{
    for (uint32_t c = 0; c < a->n_cols; c++)
        a->col_of[a->slot_of[c]] = -1;
    a->n_rows = a->n_cols = 0;
    a->n_edges = 0;
    int rc = mc__grow((void **)&a->row_first, &a->rows_cap, 1, sizeof *a->row_first);
    if (rc < 0)
        return rc;
    a->row_first[0] = 0; /* an empty array is a graph too (sm_solve) */
    for (size_t k = 0; k < dep->n && rc == MDAE_OK; k++) {
        long c;
        rc = column(a, dep->items[k].index, dep->items[k].shift, &c);
        MDAE_ASSERT(rc < 0 || c == (long)k);
    }
    for (size_t r = 0; r < rows->n && rc == MDAE_OK; r++)
        rc = add_row(a, m, rows->items[r].index, rows->items[r].shift, to);
    for (uint32_t e = 0; e < tj->n_later && rc == MDAE_OK; e++) {
        const bool *mode = &tj->later[(size_t)e * m->n_modes];
        for (uint32_t i = 0; i < m->n_equations && rc == MDAE_OK; i++)
            if (mel_guard_eval(m->equations[i].guard, mode))
                rc = add_row(a, m, i, (int)e + 1, mode);
    }
    for (int k = 1; k <= n && rc == MDAE_OK; k++)
        for (uint32_t i = 0; i < m->n_equations && rc == MDAE_OK; i++)
            if (back_active[i])
                rc = add_row(a, m, i, (int)tj->n_later + k, back);
    return rc;
}

/* Which dependent values A_n leaves in its underdetermined part (T4):
 * under[k] for dep item k; *all_determined. */
static int test_array(array *a, sm_ws *ws, size_t n_dep, bool *under, bool *all_determined)
{
    int *sigma = mdae_calloc(a->n_edges + 1, sizeof *sigma);
    if (sigma == NULL)
        return MDAE_E_NOMEM;
    sm_graph g = {a->n_rows, a->n_cols, a->row_first, a->col, sigma, NULL};
    const sm_solution *s;
    int rc = sm_solve(ws, &g, &s);
    if (rc == MDAE_OK) {
        *all_determined = true;
        for (size_t k = 0; k < n_dep; k++) {
            under[k] = !s->perfect && s->under[k];
            *all_determined &= !under[k];
        }
    }
    mdae_free(sigma);
    return rc;
}

static int record_undetermined(mc_transient *t, const mc_list *dep, const bool *under)
{
    size_t cap = 0;
    t->undetermined.n = 0;
    for (size_t k = 0; k < dep->n; k++)
        if (under[k]) {
            int rc = mc__list_push(&t->undetermined, &cap, dep->items[k].index,
                                   dep->items[k].shift);
            if (rc < 0)
                return rc;
        }
    return MDAE_OK;
}

/* T5's bound, and the largest order of the array's rows (its width). */
static void bounds(const mel_model *m, const bool *to, const trajectory *tj, const bool *back,
                   const bool *back_active, const int *back_c, const int *back_d,
                   const mc_list *rows, int *max_depth, int *max_sig)
{
    int mc = 0, md = 0, ms = 0;
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (back_active[i]) {
            mc = back_c[i] > mc ? back_c[i] : mc;
            int s = max_sigma(m, i, back);
            ms = s > ms ? s : ms;
        }
    for (uint32_t j = 0; j < m->n_variables; j++)
        md = back_d[j] > md ? back_d[j] : md;
    for (size_t r = 0; r < rows->n; r++) {
        int s = max_sigma(m, rows->items[r].index, to);
        ms = s > ms ? s : ms;
    }
    for (uint32_t e = 0; e < tj->n_later; e++) {
        const bool *mode = &tj->later[(size_t)e * m->n_modes];
        for (uint32_t i = 0; i < m->n_equations; i++)
            if (mel_guard_eval(m->equations[i].guard, mode)) {
                int s = max_sigma(m, i, mode);
                ms = s > ms ? s : ms;
            }
    }
    *max_depth = 2 + mc + md; /* T5 */
    *max_sig = ms;
}

int mc__difference_array(const mel_model *m, const bool *to, const bool *later,
                         uint32_t n_later, const bool *back, const bool *back_active,
                         const int *back_c, const int *back_d, const mc_list *rows,
                         const bool *known, uint32_t W, const mc_list *dep, mc_transient *t,
                         bool *under)
{
    int max_depth, max_sig, rc = MDAE_OK;
    trajectory tj = {later, n_later};
    bounds(m, to, &tj, back, back_active, back_c, back_d, rows, &max_depth, &max_sig);
    t->max_depth = max_depth;
    t->depth = -1;
    t->undetermined.n = 0;
    array a;
    memset(&a, 0, sizeof a);
    a.W = W;
    a.Wn = W + n_later + (uint32_t)max_depth + (uint32_t)max_sig + 2;
    a.known = known;
    size_t slots = (size_t)m->n_variables * a.Wn + 1;
    a.col_of = mdae_malloc(slots * sizeof *a.col_of);
    sm_ws *ws = sm_ws_new();
    if (a.col_of == NULL || ws == NULL) {
        rc = MDAE_E_NOMEM;
        goto done;
    }
    for (size_t k = 0; k < slots; k++)
        a.col_of[k] = -1;
    for (int n = 0; n <= max_depth; n++) {
        bool ok = false;
        rc = build(&a, m, to, &tj, back, back_active, rows, dep, n);
        if (rc == MDAE_OK)
            rc = test_array(&a, ws, dep->n, under, &ok);
        if (rc < 0)
            goto done;
        t->array_rows = a.n_rows;
        t->array_cols = a.n_cols;
        if (ok) {
            t->depth = n;
            goto done;
        }
    }
    rc = record_undetermined(t, dep, under);
done:
    sm_ws_free(ws);
    mdae_free(a.col_of);
    mdae_free(a.row_first);
    mdae_free(a.col);
    mdae_free(a.slot_of);
    return rc;
}

/* ---- Diagnostics ---------------------------------------------------------------------- */

/* "u (shift 1), v (shift 1), lambda" and "and N more" past 6. */
static void value_names(const mel_model *m, const mc_list *l, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < l->n && at + 1 < len; k++) {
        int w;
        if (k == 6) {
            w = snprintf(buf + at, len - at, " and %zu more", l->n - k);
            break;
        }
        const mc_item *x = &l->items[k];
        if (x->shift == 0)
            w = snprintf(buf + at, len - at, "%s'%s'", k ? ", " : "", m->variables[x->index].name);
        else
            w = snprintf(buf + at, len - at, "%s'%s' (shift %d)", k ? ", " : "",
                         m->variables[x->index].name, x->shift);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

/* The mode of event e; for e = -1, the long mode before the cascade. */
static const bool *event_mode(const mel_model *m, const mc_transient *t, const bool *from,
                              long e)
{
    return e < 0 ? from : &t->events[(size_t)e * m->n_modes];
}

int mc__transient_diags(const mel_model *m, const mc_transient *t, const bool *from,
                        uint32_t e, mdae_diags *d)
{
    char names[512];
    value_names(m, &t->undetermined, names, sizeof names);
    const bool *prev = event_mode(m, t, from, (long)e - 1), *ev = event_mode(m, t, from, e);
    char which[48] = "";
    if (t->n_events > 1)
        snprintf(which, sizeof which, " (event %u of a cascade of %u)", (unsigned)e + 1,
                 (unsigned)t->n_events);
    const char *later = e + 1 < t->n_events ? " S.(T') ..." : "";
    int rc = MDAE_OK;
    for (uint32_t w = 0; w < m->n_whens && rc == MDAE_OK; w++) {
        if (!mel_guard_eval(m->whens[w].cond, ev) || mel_guard_eval(m->whens[w].cond, prev))
            continue;
        mdae_range where = m->whens[w].where;
        if (t->depth >= 0)
            rc = mdae_diags_add(d, MDAE_SEV_NOTE, where,
                                "transient mode%s: the event is determined by the difference "
                                "array A_%d = [S(T)%s%s] (%zu equations, %zu values; RR-9459 "
                                "(36))", which, t->depth, later,
                                t->depth == 0 ? "" : t->depth == 1 ? " S.(F)" : " S.(F) ... S.^n(F)",
                                t->array_rows, t->array_cols);
        else
            rc = mdae_diags_add(d, MDAE_SEV_ERROR, where,
                                "the transient mode entered here%s is underdetermined: no "
                                "difference array [S(T)%s S.(F) ... S.^n(F)], n <= %d, "
                                "determines %s (RR-9459 section 5.2.3); the event needs more "
                                "equations in the when-body, e.g. an impact law "
                                "next(v) = -e * v",
                                which, later, t->max_depth, names);
    }
    return rc;
}

/* T6: an endless (or too long) cascade, located at the when-clauses of its
 * events. */
int mc__cascade_diags(const mel_model *m, const mc_transient *t, const bool *from,
                      mdae_diags *d)
{
    int rc = MDAE_OK;
    bool *seen = mdae_calloc((size_t)m->n_whens + 1, sizeof *seen);
    if (seen == NULL)
        return MDAE_E_NOMEM;
    for (uint32_t e = 0; e < t->n_events; e++) {
        const bool *prev = event_mode(m, t, from, (long)e - 1), *ev = event_mode(m, t, from, e);
        for (uint32_t w = 0; w < m->n_whens; w++)
            seen[w] |= mel_guard_eval(m->whens[w].cond, ev) &&
                       !mel_guard_eval(m->whens[w].cond, prev);
    }
    for (uint32_t w = 0; w < m->n_whens && rc == MDAE_OK; w++) {
        if (!seen[w])
            continue;
        char *txt = mel_guard_format(m, m->whens[w].cond);
        rc = mdae_diags_add(d, MDAE_SEV_ERROR, m->whens[w].where,
                            t->endless
                                ? "endless cascade: the event '%s' is part of a cascade of "
                                  "transient modes that never reaches a long mode (after %u "
                                  "events it repeats an event entered from the same mode); "
                                  "the mode variables the when-conditions read must settle"
                                : "the event '%s' is part of a cascade of more than %u "
                                  "transient modes, which is not followed further",
                            txt != NULL ? txt : "?", (unsigned)t->n_events - (t->endless ? 1 : 0));
        mdae_free(txt);
    }
    mdae_free(seen);
    return rc;
}

/* ---- Changes out of a transient mode (T7) ------------------------------------------- */

void mc__mode_text(const mel_model *m, const bool *mode, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < m->n_modes && at + 1 < len; k++) {
        int w = snprintf(buf + at, len - at, "%s%s=%d", k ? "," : "", m->modes[k].name,
                         mode[k] ? 1 : 0);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

static bool long_valid(const mel_model *m, const bool *mode)
{
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, mode))
            return false;
    return true;
}

/* Does the cascade of t reach `to`: its long mode after, or a later event? */
static bool reaches(const mel_model *m, const mc_transient *t, const bool *to)
{
    if (same_mode(t->back, to, m->n_modes) && !t->endless && !t->too_long)
        return true;
    for (uint32_t e = 1; e < t->n_events; e++)
        if (same_mode(&t->events[(size_t)e * m->n_modes], to, m->n_modes))
            return true;
    return false;
}

int mc__entering_mode(const mel_model *m, const bool *T, const bool *to, bool *before,
                      size_t *count, bool *searched)
{
    *count = 0;
    *searched = m->n_modes <= 20;
    if (!*searched)
        return MDAE_OK;
    bool *mode = mdae_calloc((size_t)m->n_modes + 1, sizeof *mode);
    if (mode == NULL)
        return MDAE_E_NOMEM;
    int rc = MDAE_OK;
    for (uint32_t idx = 0; idx < (1u << m->n_modes) && rc == MDAE_OK; idx++) {
        for (uint32_t k = 0; k < m->n_modes; k++)
            mode[k] = (idx >> k) & 1u;
        if (!long_valid(m, mode))
            continue;
        mc_transient *t = NULL;
        rc = mc__transient_of(m, mode, T, &t);
        if (rc == MDAE_OK && t != NULL && reaches(m, t, to)) {
            if (*count == 0)
                memcpy(before, mode, m->n_modes * sizeof *mode);
            (*count)++;
        }
        mc__transient_free(t);
    }
    mdae_free(mode);
    return rc;
}
