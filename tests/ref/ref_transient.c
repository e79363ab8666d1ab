/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/ref_transient.c -- the brute-force reference of the event of a
 * change into a transient mode (ref.h, ref_transient_compute): the readings
 * of engine/mc_transient.c, none of its code. Offsets come from ref_mode;
 * matchings are a plain recursive Kuhn that can leave out rows and one
 * column; the erasure is the best of all subsets; "determined" is the
 * definition (removing the value's column lowers the maximum matching).
 */
#include "ref.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SUBSETS 1000000L

typedef struct trow {
    uint32_t eq;
    int keep; /* keep priority at the event: 0 new, 1 old, 2 a when-body equation */
    size_t n;
    uint32_t *col;
} trow;

typedef struct tsys {
    trow *rows;
    size_t n_rows, n_cols;
    uint64_t *col_key; /* REF_KEY(var, shift) */
} tsys;

static void tsys_free(tsys *s)
{
    for (size_t r = 0; r < s->n_rows; r++)
        free(s->rows[r].col);
    free(s->rows);
    free(s->col_key);
    memset(s, 0, sizeof *s);
}

static uint32_t col_of(tsys *s, uint64_t key)
{
    for (size_t c = 0; c < s->n_cols; c++)
        if (s->col_key[c] == key)
            return (uint32_t)c;
    s->col_key = realloc(s->col_key, (s->n_cols + 1) * sizeof *s->col_key);
    s->col_key[s->n_cols] = key;
    return (uint32_t)s->n_cols++;
}

/* Row for equation i at shift k, orders sigma(i, j) from sig (-1: none),
 * known values left out. */
static void add_row(tsys *s, const mel_model *m, uint32_t i, int k, const bool *mode,
                    const bool *known, size_t L, int keep)
{
    s->rows = realloc(s->rows, (s->n_rows + 1) * sizeof *s->rows);
    trow *w = &s->rows[s->n_rows++];
    memset(w, 0, sizeof *w);
    w->eq = i;
    w->keep = keep;
    const mel_equation *q = &m->equations[i];
    for (uint32_t e = 0; e < q->n_incs; e++) {
        int sg = mel_incidence_order(&q->incs[e], mode);
        uint32_t j = q->incs[e].var;
        for (int l = k; sg >= 0 && l <= k + sg; l++) {
            if ((size_t)l < L && known[j * L + (size_t)l])
                continue;
            w->col = realloc(w->col, (w->n + 1) * sizeof *w->col);
            w->col[w->n++] = col_of(s, REF_KEY(j, l));
        }
    }
}

/* ---- Kuhn, recursive, with rows left out (use) and one banned column ---------- */

static bool kuhn(const tsys *s, size_t r, long banned, int *mate, bool *seen)
{
    for (size_t e = 0; e < s->rows[r].n; e++) {
        uint32_t c = s->rows[r].col[e];
        if ((long)c == banned || seen[c])
            continue;
        seen[c] = true;
        if (mate[c] < 0 || kuhn(s, (size_t)mate[c], banned, mate, seen)) {
            mate[c] = (int)r;
            return true;
        }
    }
    return false;
}

static size_t maxmatch(const tsys *s, const bool *use, long banned)
{
    int *mate = malloc((s->n_cols + 1) * sizeof *mate);
    bool *seen = malloc(s->n_cols + 1);
    for (size_t c = 0; c < s->n_cols; c++)
        mate[c] = -1;
    size_t n = 0;
    for (size_t r = 0; r < s->n_rows; r++) {
        if (use != NULL && !use[r])
            continue;
        memset(seen, 0, s->n_cols + 1);
        n += kuhn(s, r, banned, mate, seen);
    }
    free(mate);
    free(seen);
    return n;
}

/* ---- The erasure: every subset of the overdetermined rows ------------------------ */

typedef struct pick {
    bool *best;   /* the chosen erasure */
    long score;   /* when-body rows erased, then old rows erased (fewer is better) */
    bool found;
    long tried;
} pick;

/* Keep order: when-body rows, then old rows, then new ones, then by row
 * (ascending). Does a keep an earlier row than b where they first differ? */
static bool keeps_earlier(const tsys *s, const bool *a, const bool *b)
{
    for (int keep = 2; keep >= 0; keep--)
        for (size_t r = 0; r < s->n_rows; r++) {
            if (s->rows[r].keep != keep)
                continue;
            if (a[r] != b[r])
                return !a[r];
        }
    return false;
}

static void consider(const tsys *s, pick *p, bool *erase, size_t rank)
{
    bool *use = calloc(s->n_rows + 1, 1);
    for (size_t r = 0; r < s->n_rows; r++)
        use[r] = !erase[r];
    size_t mm = maxmatch(s, use, -1);
    free(use);
    if (mm != rank)
        return;
    long sc = 0;
    for (size_t r = 0; r < s->n_rows; r++)
        if (erase[r])
            sc += s->rows[r].keep == 2 ? (long)s->n_rows + 1 : s->rows[r].keep;
    if (!p->found || sc < p->score || (sc == p->score && keeps_earlier(s, erase, p->best))) {
        memcpy(p->best, erase, s->n_rows);
        p->score = sc;
        p->found = true;
    }
}

static void subsets(const tsys *s, pick *p, const size_t *over, size_t n_over, size_t at,
                    size_t left, bool *erase, size_t rank)
{
    if (p->tried > MAX_SUBSETS)
        return;
    if (left == 0) {
        p->tried++;
        consider(s, p, erase, rank);
        return;
    }
    if (n_over - at < left)
        return;
    erase[over[at]] = true;
    subsets(s, p, over, n_over, at + 1, left - 1, erase, rank);
    erase[over[at]] = false;
    subsets(s, p, over, n_over, at + 1, left, erase, rank);
}

/* ---- The change ---------------------------------------------------------------------- */

static void items_push(ref_items *it, uint64_t key)
{
    it->k = realloc(it->k, (it->n + 1) * sizeof *it->k);
    it->k[it->n++] = key;
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void items_sort(ref_items *it)
{
    if (it->n > 1)
        qsort(it->k, it->n, sizeof *it->k, cmp_key);
}

void ref_transient_close(ref_transient *t)
{
    free(t->back);
    free(t->events);
    for (uint32_t e = 0; t->ev != NULL && e < t->n_events; e++) {
        free(t->ev[e].equations.k);
        free(t->ev[e].unknowns.k);
        free(t->ev[e].erased.k);
        free(t->ev[e].undetermined.k);
    }
    free(t->ev);
    ref_change_close(&t->after);
    memset(t, 0, sizeof *t);
}

static void restore(const mel_guard *g, const bool *from, bool *back)
{
    if (g->op == MEL_G_VAR)
        back[g->var] = from[g->var];
    if (g->op == MEL_G_NOT || g->op == MEL_G_AND || g->op == MEL_G_OR)
        restore(g->lhs, from, back);
    if (g->op == MEL_G_AND || g->op == MEL_G_OR)
        restore(g->rhs, from, back);
}

static bool same_body(const mel_model *m, uint32_t i, const bool *a, const bool *b)
{
    const mel_equation *q = &m->equations[i];
    if (!mel_guard_eval(q->guard, a) || !mel_guard_eval(q->guard, b))
        return false;
    for (uint32_t e = 0; e < q->n_incs; e++)
        for (uint32_t c = 0; c < q->incs[e].n_cases; c++)
            if (mel_guard_eval(q->incs[e].cases[c].guard, a) !=
                mel_guard_eval(q->incs[e].cases[c].guard, b))
                return false;
    return true;
}

/* Is `to` transient: it violates invariants, all of them when-invariants? */
static bool is_transient(const mel_model *m, const bool *to)
{
    bool any = false;
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (!mel_guard_eval(m->invariants[k].cond, to)) {
            if (m->invariants[k].when == 0)
                return false;
            any = true;
        }
    return any;
}

/* The event's erasure (all subsets) on s; erase[] out. */
static int erase_rows(const tsys *s, bool *erase)
{
    size_t rank = maxmatch(s, NULL, -1);
    if (rank == s->n_rows)
        return MDAE_OK;
    bool *use = malloc(s->n_rows + 1);
    size_t *over = malloc((s->n_rows + 1) * sizeof *over), n_over = 0;
    memset(use, 1, s->n_rows + 1);
    for (size_t r = 0; r < s->n_rows; r++) {
        use[r] = false;
        if (maxmatch(s, use, -1) == rank)
            over[n_over++] = r;
        use[r] = true;
    }
    pick p = {calloc(s->n_rows + 1, 1), 0, false, 0};
    bool *work = calloc(s->n_rows + 1, 1);
    subsets(s, &p, over, n_over, 0, s->n_rows - rank, work, rank);
    int rc = p.found && p.tried <= MAX_SUBSETS ? MDAE_OK : MDAE_E_LIMIT;
    if (rc == MDAE_OK)
        memcpy(erase, p.best, s->n_rows);
    free(p.best);
    free(work);
    free(use);
    free(over);
    return rc;
}

/* The array A_n of one event (T6): its kept rows, the later events' rows at
 * shifts 1..n_later, then back's equations at the next n shifts. Which of
 * the event's values (dep) are determined? */
static bool array_determines(const mel_model *m, const tsys *ev, const bool *kept,
                             const ref_items *dep, const bool *later, uint32_t n_later,
                             const ref_mode *bk, const bool *back, const bool *known, size_t L,
                             int n, bool *under)
{
    tsys a;
    memset(&a, 0, sizeof a);
    for (size_t k = 0; k < dep->n; k++)
        col_of(&a, dep->k[k]);
    for (size_t r = 0; r < ev->n_rows; r++)
        if (kept[r]) {
            a.rows = realloc(a.rows, (a.n_rows + 1) * sizeof *a.rows);
            trow *w = &a.rows[a.n_rows++];
            memset(w, 0, sizeof *w);
            w->col = malloc((ev->rows[r].n + 1) * sizeof *w->col);
            for (size_t e = 0; e < ev->rows[r].n; e++)
                w->col[w->n++] = col_of(&a, ev->col_key[ev->rows[r].col[e]]);
        }
    for (uint32_t s = 1; s <= n_later; s++) {
        const bool *mode = &later[(size_t)(s - 1) * m->n_modes];
        for (uint32_t i = 0; i < m->n_equations; i++)
            if (mel_guard_eval(m->equations[i].guard, mode))
                add_row(&a, m, i, (int)s, mode, known, L, 1);
    }
    for (int k = 1; k <= n; k++)
        for (uint32_t i = 0; i < m->n_equations; i++)
            if (bk->eq_active[i])
                add_row(&a, m, i, (int)n_later + k, back, known, L, 1);
    size_t mm = maxmatch(&a, NULL, -1);
    bool all = true;
    for (size_t k = 0; k < dep->n; k++) {
        under[k] = maxmatch(&a, NULL, (long)k) == mm; /* some maximum matching avoids it */
        all &= !under[k];
    }
    tsys_free(&a);
    return all;
}

static int max_over(const int *a, uint32_t n)
{
    int mx = 0;
    for (uint32_t k = 0; k < n; k++)
        mx = a[k] > mx ? a[k] : mx;
    return mx;
}

/* The largest order of an equation active in some event of the cascade. */
static int events_order(const mel_model *m, const ref_transient *t)
{
    int mx = 0;
    for (uint32_t ev = 0; ev < t->n_events; ev++) {
        const bool *to = &t->events[(size_t)ev * m->n_modes];
        for (uint32_t i = 0; i < m->n_equations; i++)
            for (uint32_t e = 0; mel_guard_eval(m->equations[i].guard, to) &&
                                 e < m->equations[i].n_incs;
                 e++) {
                int s = mel_incidence_order(&m->equations[i].incs[e], to);
                mx = s > mx ? s : mx;
            }
    }
    return mx;
}

/* The instants after the last event (T): ref_change_unfold into back from
 * what the events computed (known, already moved past the last one) and the
 * context the last event's A_depth imposed. */
static int after_events(const mel_model *m, const bool *T, const ref_mode *o,
                        const ref_mode *bk, const bool *known, size_t L, int depth,
                        ref_transient *out)
{
    uint32_t ne = m->n_equations, nv = m->n_variables;
    bool *known2 = calloc(nv * L + 1, 1), *done2 = calloc(ne * L + 1, 1);
    bool *is_new = calloc(ne + 1, 1);
    memcpy(known2, known, nv * L);
    for (uint32_t i = 0; i < ne; i++) {
        for (int s = 1; bk->eq_active[i] && s <= depth && s <= bk->c[i] && (size_t)s < L; s++)
            done2[i * L + (size_t)s] = true;
        is_new[i] = !(mel_guard_eval(m->equations[i].guard, T) && bk->eq_active[i] &&
                      same_body(m, i, T, out->back));
    }
    int maxc = max_over(o->c, ne), maxd = max_over(o->d, nv);
    maxc = max_over(bk->c, ne) > maxc ? max_over(bk->c, ne) : maxc;
    maxd = max_over(bk->d, nv) > maxd ? max_over(bk->d, nv) : maxd;
    maxd = events_order(m, out) > maxd ? events_order(m, out) : maxd;
    /* the engine counts the events among the instants of its bound, and
     * lets each event after the first add one */
    uint32_t bound = 2 + (uint32_t)maxc + 2 * (uint32_t)maxd - 1;
    int rc = ref_change_unfold(m, bk, L, known2, done2, is_new, bound, &out->after);
    free(is_new);
    return rc;
}

/* One event e of the cascade, entered from prev (the long mode `from` for
 * e = 0, whose offsets o give the context): its system over what is not
 * known, the erasure, and the smallest array that determines it. known is
 * moved past the event when it is accepted. */
static int one_event(const mel_model *m, const bool *prev, uint32_t e, const ref_mode *o,
                     const ref_mode *bk, bool *known, size_t L, ref_transient *out)
{
    uint32_t ne = m->n_equations, nv = m->n_variables, nm = m->n_modes;
    const bool *T = &out->events[(size_t)e * nm];
    ref_event *x = &out->ev[e];
    tsys s;
    memset(&s, 0, sizeof s);
    for (uint32_t i = 0; i < ne; i++) {
        if (!mel_guard_eval(m->equations[i].guard, T))
            continue;
        bool same = (e > 0 || o->eq_active[i]) && same_body(m, i, prev, T);
        if (e == 0 && same && o->c[i] >= 1)
            continue; /* context: i. was solved (or context) one instant earlier */
        add_row(&s, m, i, 0, T, known, L, m->equations[i].when ? 2 : same ? 1 : 0);
    }
    bool *erase = calloc(s.n_rows + 1, 1), *kept = calloc(s.n_rows + 1, 1);
    int rc = erase_rows(&s, erase);
    for (size_t r = 0; r < s.n_rows; r++) {
        kept[r] = !erase[r];
        items_push(erase[r] ? &x->erased : &x->equations, REF_KEY(s.rows[r].eq, 0));
    }
    for (size_t c = 0; c < s.n_cols; c++)
        items_push(&x->unknowns, s.col_key[c]);
    items_sort(&x->equations);
    items_sort(&x->erased);
    items_sort(&x->unknowns);
    x->depth = -1;
    int N = 2 + max_over(bk->c, ne) + max_over(bk->d, nv);
    bool *under = calloc(x->unknowns.n + 1, 1);
    uint32_t n_later = out->n_events - 1 - e;
    for (int n = 0; rc == MDAE_OK && n <= N; n++)
        if (array_determines(m, &s, kept, &x->unknowns, T + nm, n_later, bk, out->back, known,
                             L, n, under)) {
            x->depth = n;
            break;
        }
    for (size_t k = 0; x->depth < 0 && k < x->unknowns.n; k++)
        if (under[k])
            items_push(&x->undetermined, x->unknowns.k[k]);
    for (uint32_t j = 0; x->depth >= 0 && j < nv; j++) /* what the event computed is known */
        for (size_t l = 0; l < L; l++) {
            bool computed = false;
            for (size_t c = 0; c < s.n_cols; c++)
                computed |= s.col_key[c] == REF_KEY(j, l + 1);
            known[j * L + l] = (l + 1 < L && known[j * L + l + 1]) || computed;
        }
    free(under);
    free(erase);
    free(kept);
    tsys_free(&s);
    return rc;
}

/* T2, T6: the cascade from `from` through `to`: out->events, n_events,
 * back; endless when a pair (previous mode, event) comes back, too_long
 * past REF_MAX_CASCADE events. */
#define REF_MAX_CASCADE 64
static void cascade(const mel_model *m, const bool *from, const bool *to, ref_transient *out)
{
    uint32_t nm = m->n_modes;
    out->events = malloc((size_t)nm * (REF_MAX_CASCADE + 1) + 1);
    memcpy(out->events, to, nm);
    out->n_events = 1;
    for (;;) {
        uint32_t e = out->n_events - 1;
        const bool *prev = e == 0 ? from : &out->events[(size_t)(e - 1) * nm];
        const bool *cur = &out->events[(size_t)e * nm];
        memcpy(out->back, cur, nm);
        for (uint32_t w = 0; w < m->n_whens; w++)
            if (mel_guard_eval(m->whens[w].cond, cur) && !mel_guard_eval(m->whens[w].cond, prev))
                restore(m->whens[w].cond, prev, out->back);
        if (!is_transient(m, out->back))
            return;
        if (out->n_events == REF_MAX_CASCADE) {
            out->too_long = true;
            return;
        }
        memcpy(&out->events[(size_t)out->n_events * nm], out->back, nm);
        out->n_events++;
        for (uint32_t q = 0; q < out->n_events - 1; q++) {
            const bool *qp = q == 0 ? from : &out->events[(size_t)(q - 1) * nm];
            if (memcmp(&out->events[(size_t)q * nm], out->back, nm) == 0 &&
                memcmp(qp, cur, nm) == 0) {
                out->endless = true;
                return;
            }
        }
    }
}

int ref_transient_compute(const mel_model *m, const bool *from, const bool *to,
                          ref_transient *out)
{
    memset(out, 0, sizeof *out);
    bool differ = false;
    for (uint32_t k = 0; k < m->n_modes; k++)
        differ |= from[k] != to[k];
    ref_mode o, bk;
    memset(&o, 0, sizeof o);
    memset(&bk, 0, sizeof bk);
    int rc = ref_mode_compute(m, from, &o);
    if (rc == MDAE_OK && (!differ || !o.valid))
        rc = MDAE_E_INVAL;
    if (rc < 0 || !is_transient(m, to))
        goto done;
    out->transient = true;
    out->back = malloc(m->n_modes + 1);
    cascade(m, from, to, out);
    out->ev = calloc(out->n_events, sizeof *out->ev);
    rc = ref_mode_compute(m, out->back, &bk);
    if (rc < 0)
        goto done;
    if (out->endless || out->too_long || !bk.valid || bk.singular || o.singular) {
        out->refused = true;
        goto done;
    }
    uint32_t ne = m->n_equations, nv = m->n_variables;
    int mc = max_over(o.c, ne) > max_over(bk.c, ne) ? max_over(o.c, ne) : max_over(bk.c, ne);
    int md = max_over(o.d, nv) > max_over(bk.d, nv) ? max_over(o.d, nv) : max_over(bk.d, nv);
    md = events_order(m, out) > md ? events_order(m, out) : md;
    size_t L = (size_t)(mc + md) + 4; /* shifts 0 .. L-1, as ref_change */
    bool *known = calloc(nv * L + 1, 1);
    for (uint32_t j = 0; j < nv; j++)
        for (int l = 0; o.var_active[j] && l < o.d[j]; l++)
            known[j * L + (size_t)l] = true;
    for (uint32_t e = 0; rc == MDAE_OK && e < out->n_events; e++) {
        const bool *prev = e == 0 ? from : &out->events[(size_t)(e - 1) * m->n_modes];
        rc = one_event(m, prev, e, &o, &bk, known, L, out);
        out->n_analysed = e + 1;
        if (out->ev[e].depth < 0)
            break;
    }
    if (rc == MDAE_OK && out->ev[out->n_analysed - 1].depth >= 0)
        rc = after_events(m, &out->events[(size_t)(out->n_events - 1) * m->n_modes], &o, &bk,
                          known, L, out->ev[out->n_events - 1].depth, out);
    free(known);
done:
    ref_mode_close(&o);
    ref_mode_close(&bk);
    if (rc < 0)
        ref_transient_close(out);
    return rc;
}
