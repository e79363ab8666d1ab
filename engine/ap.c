/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/ap.c -- the approximate (single-mode tool) analysis and its
 * comparison with the exact result; engine/ap.h says what it is.
 *
 * Two halves: the approximate structure and its analysis are plain graph
 * work on the single-mode path (sm.h: one graph, no BDD); the comparison
 * reads the exact result's mode functions (sa_int.h) inside an entry
 * point's frame over it (sa__run_on), and writes each finding's set of
 * modes with the report's machinery (sa__set_of_care: exact on the valid
 * modes).
 */
#include "ap.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sa_int.h"
#include "sm.h"

#define NONE UINT32_MAX

/* ---- The approximate structure ---------------------------------------------- */

typedef struct approx {
    uint32_t n_eq;       /* approximate equations */
    uint32_t *eq_of;     /* model equation -> approximate one, NONE (when-body) */
    size_t *row_first;   /* n_eq + 1 */
    uint32_t *col;       /* the union's incidences, by variable in each row */
    int *sigma;
    size_t n_edges;
} approx;

static void approx_close(approx *a)
{
    mdae_free(a->eq_of);
    mdae_free(a->row_first);
    mdae_free(a->col);
    mdae_free(a->sigma);
    memset(a, 0, sizeof *a);
}

typedef struct cond_key {
    uint32_t cond, pos, eq;
} cond_key;

static int cmp_cond_key(const void *pa, const void *pb)
{
    const cond_key *a = pa, *b = pb;
    if (a->cond != b->cond)
        return a->cond < b->cond ? -1 : 1;
    if (a->pos != b->pos)
        return a->pos < b->pos ? -1 : 1;
    return (a->eq > b->eq) - (a->eq < b->eq);
}

/* leader[i] := the first equation of i's approximate equation (i itself
 * unless i is in a conditional statement with an earlier equation at the
 * same position). */
static int leaders(const mel_model *m, uint32_t *leader)
{
    size_t n = 0;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        leader[i] = i;
        n += m->equations[i].cond != 0 && m->equations[i].when == 0;
    }
    if (n == 0)
        return MDAE_OK;
    cond_key *k = mdae_malloc(n * sizeof *k);
    if (k == NULL)
        return MDAE_E_NOMEM;
    n = 0;
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (m->equations[i].cond != 0 && m->equations[i].when == 0)
            k[n++] = (cond_key){m->equations[i].cond, m->equations[i].cond_pos, i};
    qsort(k, n, sizeof *k, cmp_cond_key);
    for (size_t q = 1; q < n; q++)
        if (k[q].cond == k[q - 1].cond && k[q].pos == k[q - 1].pos)
            leader[k[q].eq] = leader[k[q - 1].eq];
    mdae_free(k);
    return MDAE_OK;
}

static int cmp_u32(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

/* The union of the incidences of the members of each approximate equation
 * (rep's members): rows in order, each row's columns sorted. best
 * (n_variables, all -1 on entry and on return) and touched (n_variables)
 * are scratch. */
static int union_rows(const mel_model *m, const ap_report *rep, approx *a, int *best,
                      uint32_t *touched)
{
    size_t cap = m->n_edges + 1;
    a->row_first = mdae_calloc((size_t)a->n_eq + 1, sizeof *a->row_first);
    a->col = mdae_malloc(cap * sizeof *a->col);
    a->sigma = mdae_malloc(cap * sizeof *a->sigma);
    if (a->row_first == NULL || a->col == NULL || a->sigma == NULL)
        return MDAE_E_NOMEM;
    size_t e = 0;
    for (uint32_t row = 0; row < a->n_eq; row++) {
        uint32_t nt = 0;
        const ap_equation *q = &rep->equations[row];
        for (uint32_t t = 0; t < q->n_members; t++) {
            const mel_equation *eq = &m->equations[q->members[t]];
            for (uint32_t k = 0; k < eq->n_incs; k++) {
                const mel_incidence *inc = &eq->incs[k];
                int o = -1;
                for (uint32_t u = 0; u < inc->n_cases; u++)
                    if (inc->cases[u].order > o)
                        o = inc->cases[u].order;
                if (o < 0)
                    continue;
                if (best[inc->var] < 0)
                    touched[nt++] = inc->var;
                if (o > best[inc->var])
                    best[inc->var] = o;
            }
        }
        qsort(touched, nt, sizeof *touched, cmp_u32);
        for (uint32_t t = 0; t < nt; t++) {
            MDAE_ASSERT(e < cap);
            a->col[e] = touched[t];
            a->sigma[e] = best[touched[t]];
            best[touched[t]] = -1;
            e++;
        }
        a->row_first[row + 1] = e;
    }
    a->n_edges = e;
    return MDAE_OK;
}

/* a->eq_of and a->n_eq: which approximate equation each model equation is
 * part of. */
static int approx_group(const mel_model *m, approx *a)
{
    memset(a, 0, sizeof *a);
    a->eq_of = mdae_malloc(((size_t)m->n_equations + 1) * sizeof *a->eq_of);
    uint32_t *leader = mdae_malloc(((size_t)m->n_equations + 1) * sizeof *leader);
    int rc = a->eq_of && leader ? leaders(m, leader) : MDAE_E_NOMEM;
    for (uint32_t i = 0; rc == MDAE_OK && i < m->n_equations; i++) {
        if (m->equations[i].when != 0)
            a->eq_of[i] = NONE;
        else if (leader[i] == i)
            a->eq_of[i] = a->n_eq++;
        else
            a->eq_of[i] = a->eq_of[leader[i]];
    }
    mdae_free(leader);
    return rc;
}

/* The union's rows, once rep's members are known. */
static int approx_rows(const mel_model *m, const ap_report *rep, approx *a)
{
    uint32_t nv = m->n_variables;
    int *best = mdae_malloc(((size_t)nv + 1) * sizeof *best);
    uint32_t *touched = mdae_malloc(((size_t)nv + 1) * sizeof *touched);
    int rc = best && touched ? MDAE_OK : MDAE_E_NOMEM;
    for (uint32_t j = 0; rc == MDAE_OK && j < nv; j++)
        best[j] = -1;
    if (rc == MDAE_OK)
        rc = union_rows(m, rep, a, best, touched);
    mdae_free(best);
    mdae_free(touched);
    return rc;
}

/* ---- Its analysis: matching, offsets, blocks --------------------------------- */

static char *joined_name(const mel_model *m, const ap_equation *q)
{
    mdae_buf b = {0};
    for (uint32_t k = 0; k < q->n_members; k++) {
        if (k > 0)
            mdae_buf_puts(&b, "|");
        mdae_buf_puts(&b, m->equations[q->members[k]].name);
    }
    if (b.oom || b.p == NULL) {
        mdae_free(b.p);
        return NULL;
    }
    return b.p;
}

/* The report's equations: members, names, spans. The members are in the
 * equations' allocation (after the n_eq + 1 records); an equation of one
 * member names it with eq_names' copy (fill_names before). */
static int fill_equations(const mel_model *m, const approx *a, ap_report *rep)
{
    size_t n_members = 0;
    for (uint32_t i = 0; i < m->n_equations; i++)
        n_members += a->eq_of[i] != NONE;
    size_t head = ((size_t)a->n_eq + 1) * sizeof *rep->equations;
    rep->equations = mdae_calloc(1, head + n_members * sizeof(uint32_t));
    if (rep->equations == NULL)
        return MDAE_E_NOMEM;
    rep->n_equations = a->n_eq;
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (a->eq_of[i] != NONE)
            rep->equations[a->eq_of[i]].n_members++;
    uint32_t *next = (uint32_t *)((char *)rep->equations + head);
    for (uint32_t q = 0; q < a->n_eq; q++) {
        ap_equation *e = &rep->equations[q];
        e->members = next;
        next += e->n_members;
        e->n_members = 0;
        e->matched = -1;
        e->sigma = -1;
        e->c = -1;
        e->block = -1;
    }
    for (uint32_t i = 0; i < m->n_equations; i++) {
        if (a->eq_of[i] == NONE)
            continue;
        ap_equation *e = &rep->equations[a->eq_of[i]];
        mdae_range w = m->equations[i].where;
        if (e->n_members == 0)
            e->where = w;
        if (w.start.line != 0 && w.start.offset < e->where.start.offset)
            e->where.start = w.start;
        if (w.end.offset > e->where.end.offset)
            e->where.end = w.end;
        e->members[e->n_members++] = i;
    }
    for (uint32_t q = 0; q < a->n_eq; q++) {
        ap_equation *e = &rep->equations[q];
        MDAE_ASSERT(e->n_members > 0);
        e->name = e->n_members == 1 ? rep->eq_names[e->members[0]] : joined_name(m, e);
        if (e->name == NULL)
            return MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

/* The blocks of an accepted structure (ap.h): Tarjan on "E' reads E's
 * unknown at its leading order", dependencies first. */
static int fill_blocks(const approx *a, ap_report *rep)
{
    uint32_t n = a->n_eq;
    size_t *first = mdae_calloc((size_t)n + 2, sizeof *first);
    uint32_t *to = mdae_malloc((a->n_edges + 1) * sizeof *to);
    uint32_t *owner = mdae_malloc(((size_t)rep->n_variables + 1) * sizeof *owner);
    uint32_t *comp = mdae_malloc(((size_t)n + 1) * sizeof *comp);
    uint32_t *w32 = mdae_malloc(4 * ((size_t)n + 1) * sizeof *w32);
    size_t *pos = mdae_malloc(((size_t)n + 1) * sizeof *pos);
    bool *on = mdae_malloc((size_t)n + 1);
    int rc = MDAE_E_NOMEM;
    if (!first || !to || !owner || !comp || !w32 || !pos || !on)
        goto done;
    for (uint32_t q = 0; q < n; q++)
        owner[rep->equations[q].matched] = q;
    size_t k = 0;
    for (uint32_t q = 0; q < n; q++) {
        const ap_equation *e = &rep->equations[q];
        for (size_t t = a->row_first[q]; t < a->row_first[q + 1]; t++)
            if ((long)a->col[t] != e->matched && rep->d[a->col[t]] == e->c + a->sigma[t])
                to[k++] = owner[a->col[t]];
        first[q + 1] = k;
    }
    sm_scc_work wk = {w32, w32 + n + 1, w32 + 2 * ((size_t)n + 1), w32 + 3 * ((size_t)n + 1),
                      pos, on};
    uint32_t nb = sm_sccs(n, first, to, comp, &wk);
    /* the blocks' equations in the blocks' allocation, after the records */
    size_t head = ((size_t)nb + 1) * sizeof *rep->blocks;
    rep->blocks = mdae_calloc(1, head + (size_t)n * sizeof(uint32_t));
    if (rep->blocks == NULL)
        goto done;
    rep->n_blocks = nb;
    for (uint32_t q = 0; q < n; q++)
        rep->blocks[comp[q]].n++;
    uint32_t *next = (uint32_t *)((char *)rep->blocks + head);
    for (uint32_t b = 0; b < nb; b++) {
        rep->blocks[b].equations = next;
        next += rep->blocks[b].n;
        rep->blocks[b].n = 0;
    }
    for (uint32_t q = 0; q < n; q++) {
        ap_block *b = &rep->blocks[comp[q]];
        b->equations[b->n++] = q;
        rep->equations[q].block = comp[q];
    }
    rc = MDAE_OK;
done:
    mdae_free(first);
    mdae_free(to);
    mdae_free(owner);
    mdae_free(comp);
    mdae_free(w32);
    mdae_free(pos);
    mdae_free(on);
    return rc;
}

/* Matching, offsets or DM parts, and blocks of the approximate structure. */
static int solve_approx(const mel_model *m, const approx *a, ap_report *rep)
{
    sm_ws *ws = sm_ws_new();
    if (ws == NULL)
        return MDAE_E_NOMEM;
    sm_graph g = {a->n_eq, m->n_variables, a->row_first, a->col, a->sigma, NULL};
    const sm_solution *s = NULL;
    int rc = sm_solve(ws, &g, &s);
    if (rc == MDAE_OK) {
        rep->accepted = s->perfect;
        for (uint32_t j = 0; j < m->n_variables; j++) {
            rep->d[j] = s->perfect ? s->d[j] : -1;
            rep->underdetermined[j] = !s->perfect && s->under[j];
        }
        for (uint32_t q = 0; q < a->n_eq; q++) {
            ap_equation *e = &rep->equations[q];
            e->overdetermined = !s->perfect && s->over[q];
            if (!s->perfect)
                continue;
            int t = s->row_edge[q];
            MDAE_ASSERT(t >= 0);
            e->matched = a->col[t];
            e->sigma = a->sigma[t];
            e->c = s->c[q];
        }
    }
    sm_ws_free(ws);
    if (rc == MDAE_OK && rep->accepted)
        rc = fill_blocks(a, rep);
    return rc;
}

/* ---- Pivots' texts ------------------------------------------------------------ */

/* A guard as a condition of the expression layer, or NULL past *budget
 * nodes (guards are DAGs: written out as a tree, a shared one could grow
 * without bound) or on OOM. */
static const fx_node *guard_fx(fx_pool *p, const mel_guard *g, size_t *budget)
{
    const mdae_range z = {{0, 0, 0}, {0, 0, 0}};
    if (*budget == 0)
        return NULL;
    --*budget;
    switch (g->op) {
    case MEL_G_FALSE:
    case MEL_G_TRUE:
        return fx_bool(p, g->op == MEL_G_TRUE, z);
    case MEL_G_VAR:
        return fx_mode(p, g->var, z);
    case MEL_G_NOT:
        return fx_un(p, FX_NOT, guard_fx(p, g->lhs, budget), z);
    case MEL_G_AND:
    case MEL_G_OR: {
        const fx_node *a = guard_fx(p, g->lhs, budget);
        const fx_node *b = a ? guard_fx(p, g->rhs, budget) : NULL;
        return fx_bin(p, g->op == MEL_G_AND ? FX_AND : FX_OR, a, b, z);
    }
    }
    return NULL;
}

#define AP_GUARD_NODES 4096

/* Structural equality of guards (the same tree, shared or not), to a
 * bounded depth: false past it. */
static bool guard_same(const mel_guard *a, const mel_guard *b, int depth)
{
    if (a == b)
        return true;
    if (a == NULL || b == NULL || a->op != b->op || depth == 0)
        return false;
    switch (a->op) {
    case MEL_G_FALSE:
    case MEL_G_TRUE:
        return true;
    case MEL_G_VAR:
        return a->var == b->var;
    case MEL_G_NOT:
        return guard_same(a->lhs, b->lhs, depth - 1);
    case MEL_G_AND:
    case MEL_G_OR:
        return guard_same(a->lhs, b->lhs, depth - 1) && guard_same(a->rhs, b->rhs, depth - 1);
    }
    return false;
}

/* Whether `last` is visibly the complement of `prev`: !P, or X & !C
 * beside X & C (an else branch inside an outer conditional). */
static bool guard_complements(const mel_guard *last, const mel_guard *prev)
{
    if (last->op == MEL_G_NOT && guard_same(last->lhs, prev, 64))
        return true;
    return last->op == MEL_G_AND && prev->op == MEL_G_AND &&
           guard_same(last->lhs, prev->lhs, 64) && guard_complements(last->rhs, prev->rhs);
}

/* The residual of approximate equation q as a single-mode tool reads it
 * (ap.h): its member's lhs - rhs, or for several members `if G1 then r1
 * else if G2 then r2 ... else 0`. NULL when a member kept no expression,
 * a guard is too large, or on OOM (fx_pool_failed tells). */
static const fx_node *approx_residual(fx_pool *p, const mel_model *m, const ap_equation *q)
{
    const mdae_range z = {{0, 0, 0}, {0, 0, 0}};
    for (uint32_t k = 0; k < q->n_members; k++) {
        const mel_equation *e = &m->equations[q->members[k]];
        if (e->lhs == NULL || e->rhs == NULL)
            return NULL;
    }
    const mel_equation *first = &m->equations[q->members[0]];
    if (q->n_members == 1)
        return fx_residual(p, first->lhs, first->rhs);
    size_t budget = AP_GUARD_NODES;
    const fx_node *acc = fx_num(p, 0, true, z);
    uint32_t k = q->n_members;
    if (k == 2 && guard_complements(m->equations[q->members[1]].guard, first->guard)) {
        /* if c then r1 else r2: the else branch needs no test */
        const mel_equation *e = &m->equations[q->members[--k]];
        acc = fx_residual(p, e->lhs, e->rhs);
    }
    while (k-- > 0 && acc != NULL) {
        const mel_equation *e = &m->equations[q->members[k]];
        const fx_node *g = guard_fx(p, e->guard, &budget);
        acc = fx_if(p, g, fx_residual(p, e->lhs, e->rhs), acc, z);
    }
    return acc;
}

/* The text of the pivot of approximate equation q for der^sigma(x)
 * (ap.h), into *out (owned), or NULL where it cannot be printed (no
 * expressions kept, an expression the derivative does not cover: next(),
 * last()). MDAE_OK or MDAE_E_NOMEM. */
static int pivot_text(const mel_model *m, const ap_equation *q, fx_syntax syntax, char **out)
{
    *out = NULL;
    if (q->matched < 0)
        return MDAE_OK;
    fx_pool *p = fx_pool_new();
    if (p == NULL)
        return MDAE_E_NOMEM;
    int rc = MDAE_OK, err = MDAE_OK;
    const fx_node *res = approx_residual(p, m, q);
    const fx_node *piv =
        res ? fx_partial(p, res, (uint32_t)q->matched, (uint32_t)q->sigma, &err) : NULL;
    if (fx_pool_failed(p))
        rc = MDAE_E_NOMEM;
    else if (piv != NULL && (*out = fx_format(m, piv, syntax)) == NULL)
        rc = MDAE_E_NOMEM;
    fx_pool_free(p);
    return rc;
}

/* ---- The comparison with the exact result, on its BDDs ---------------------- */

typedef struct cmp_job {
    const mel_model *m;
    const approx *a;
    ap_report *rep;
    fx_syntax syntax; /* the pivots' */
    size_t cap;    /* findings allocated (never moved: the memo points there) */
    bool no_wrong_modes; /* ap_options' */
    size_t detail_max;   /* ap_options' */
    /* Set by compare(), in its context: */
    sa__care care;     /* the valid modes, the sets' care set */
    sa__set_memo memo; /* the sets written, by function */
    BDD *wrong;        /* cap slots: the findings' modes, in order, joined
                          into wrong[0] at the end (join_wrong) */
} cmp_job;

/* "x", "der(x)", "der(der(x))"... (der^k(x) past 3). */
static void put_der(mdae_buf *b, const char *name, int k)
{
    char num[MDAE_INT_CHARS + 1];
    if (k > 3) {
        mdae_buf_puts(b, "der^");
        mdae_buf_put(b, num, mdae_put_int(num, k));
        mdae_buf_puts(b, "(");
        mdae_buf_puts(b, name);
        mdae_buf_puts(b, ")");
        return;
    }
    for (int t = 0; t < k; t++)
        mdae_buf_puts(b, "der(");
    mdae_buf_puts(b, name);
    for (int t = 0; t < k; t++)
        mdae_buf_puts(b, ")");
}

static char *when_text(const sa_set *s)
{
    if (s->formula != NULL && strcmp(s->formula, "true") == 0)
        return mdae_strdup("in every valid mode");
    return mdae_asprintf("when %s", s->formula ? s->formula : "false");
}

#define TOOL "a single-mode analysis, as Modelica tools do, "

static char *pivot_message(const ap_report *rep, const ap_finding *f, const char *xs,
                           const char *when)
{
    const ap_equation *e = &rep->equations[f->approx_eq];
    bool alone = e->block >= 0 && rep->blocks[e->block].n == 1;
    return mdae_asprintf(TOOL "%s here %s: it solves %s for %s, which is not in it "
                         "there%s%s%s",
                         alone ? "divides by zero" : "pivots on zero", when, e->name, xs,
                         f->pivot ? " (pivot: " : "", f->pivot ? f->pivot : "",
                         f->pivot ? ")" : "");
}

static char *offsets_message(const mel_model *m, const ap_finding *f, const char *xs,
                             const char *when)
{
    if (f->variable >= 0 && f->approx == 0)
        return mdae_asprintf(TOOL "treats %s as algebraic (d = 0); the exact analysis differs "
                             "%s (wrong index or states there)",
                             m->variables[f->variable].name, when);
    if (f->variable >= 0)
        return mdae_asprintf(TOOL "takes %s as the highest derivative of %s (d = %d); the "
                             "exact analysis differs %s (wrong index or states there)",
                             xs, m->variables[f->variable].name, f->approx, when);
    if (f->approx == 0)
        return mdae_asprintf(TOOL "does not differentiate %s (c = 0); the exact analysis "
                             "differs %s (wrong index there)",
                             m->equations[f->equation].name, when);
    return mdae_asprintf(TOOL "differentiates %s %d time%s (c = %d); the exact analysis "
                         "differs %s (wrong index there)",
                         m->equations[f->equation].name, f->approx, f->approx == 1 ? "" : "s",
                         f->approx, when);
}

/* The finding's sentence (owned), or NULL on OOM. */
static char *finding_message(const cmp_job *j, const ap_finding *f)
{
    char *when = when_text(&f->modes);
    if (when == NULL)
        return NULL;
    char *msg = NULL;
    mdae_buf x = {0};
    if (f->variable >= 0)
        put_der(&x, j->m->variables[f->variable].name, f->order);
    const char *xs = x.p ? x.p : "";
    switch (f->kind) {
    case AP_PIVOT:
        msg = pivot_message(j->rep, f, xs, when);
        break;
    case AP_OFFSETS:
        msg = offsets_message(j->m, f, xs, when);
        break;
    case AP_SINGULAR:
        msg = mdae_asprintf(TOOL "accepts this model, but it is structurally singular %s", when);
        break;
    case AP_REFUSED:
        msg = mdae_asprintf(TOOL "refuses this model (all its modes united, it has no "
                            "perfect matching), though the exact analysis solves it %s",
                            when);
        break;
    }
    mdae_free(x.p);
    mdae_free(when);
    if (x.oom) {
        mdae_free(msg);
        return NULL;
    }
    return msg;
}

/* Record the finding of kind k over the modes f (within the valid ones),
 * unless f is empty; f kept for the union (join_wrong). */
/* Whether finding fd (of j's report) gets its set, pivot and message
 * (ap_options.detail_max). */
static bool detailed(const cmp_job *j, const ap_finding *fd)
{
    return j->detail_max == 0 || (size_t)(fd - j->rep->findings) < j->detail_max;
}

static ap_finding *add_finding(sa_ctx *c, cmp_job *j, ap_kind k, BDD f, mdae_range where)
{
    const sa_result *r = c->r;
    if (f == bddfalse)
        return NULL;
    ap_report *rep = j->rep;
    MDAE_ASSERT(rep->n_findings < j->cap);
    ap_finding *fd = &rep->findings[rep->n_findings++];
    *fd = (ap_finding){.kind = k, .equation = -1, .approx_eq = -1, .variable = -1,
                       .approx = -1, .where = where};
    fd->count = sa__count_modes(c, r, f);
    if (detailed(j, fd))
        sa__set_of_memo(c, r, &j->care, &j->memo, f, &fd->modes);
    else
        rep->details_left = true;
    sa__put(&j->wrong[rep->n_findings - 1], f);
    return fd;
}

static void finish_message(sa_ctx *c, cmp_job *j, ap_finding *fd)
{
    if (fd == NULL || !detailed(j, fd))
        return;
    fd->message = finding_message(j, fd);
    if (fd->message == NULL)
        sa__fail(c, MDAE_E_NOMEM);
}

/* within & (the w-bit vector v is not the constant value). */
static BDD differs(sa_ctx *c, BDD within, const BDD *v, int w, long value)
{
    if (within == bddfalse)
        return bddfalse;
    if (value < 0 || (w < 62 && value >= (1L << w)))
        return within;
    BDD *k = sa__slots(c, (size_t)w);
    sa__vconst_put(k, w, (unsigned long long)value);
    BDD same = sa__vequal(c, within, v, k, w);
    return sa__tmp(c, sa__diff(within, same));
}

/* Where a singular-mode finding points: the first exact overdetermined
 * equation (else underdetermined variable, else first equation) in f. */
static mdae_range singular_where(sa_ctx *c, const mel_model *m, BDD f)
{
    const sa_result *r = c->r;
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (r->over != NULL && sa__and(r->over[i], f) != bddfalse)
            return m->equations[i].where;
    for (uint32_t v = 0; v < m->n_variables; v++)
        if (r->under != NULL && sa__and(r->under[v], f) != bddfalse)
            return m->variables[v].where;
    return m->n_equations > 0 ? m->equations[0].where : (mdae_range){{0, 0, 0}, {0, 0, 0}};
}

/* Where the approximate DM parts point: the first overdetermined
 * approximate equation, else the first underdetermined unknown. */
static mdae_range refused_where(const mel_model *m, const ap_report *rep)
{
    for (uint32_t q = 0; q < rep->n_equations; q++)
        if (rep->equations[q].overdetermined)
            return rep->equations[q].where;
    for (uint32_t v = 0; v < m->n_variables; v++)
        if (rep->underdetermined[v])
            return m->variables[v].where;
    return m->n_equations > 0 ? m->equations[0].where : (mdae_range){{0, 0, 0}, {0, 0, 0}};
}

/* The modes where no active member of approximate equation q has x at
 * order sigma: valid & !OR_members(chi_e & sigma_e == sigma). */
static BDD pivot_zero(sa_ctx *c, const ap_equation *e)
{
    const sa_result *r = c->r;
    uint32_t x = (uint32_t)e->matched;
    BDD *has = sa__slots(c, 1);
    BDD *k = sa__slots(c, (size_t)r->w_sigma);
    bool fits = r->w_sigma >= 62 || e->sigma < (1L << r->w_sigma);
    if (fits)
        sa__vconst_put(k, r->w_sigma, (unsigned long long)e->sigma);
    for (uint32_t t = 0; fits && t < e->n_members; t++) {
        uint32_t i = e->members[t];
        for (size_t ed = r->eq_first[i]; ed < r->eq_first[i + 1]; ed++) {
            if (r->edge_v[ed] != x)
                continue;
            BDD at = sa__vequal(c, r->chi_e[ed], &r->sigma[ed * (size_t)r->w_sigma], k,
                                r->w_sigma);
            sa__put(has, sa__or(*has, at));
        }
    }
    return sa__tmp(c, sa__diff(r->chi_m, *has));
}

/* The caller's cancel (ap_options.progress), every AP_POLL_ITEMS items. */
static void poll_items(sa_ctx *c, size_t done, size_t total)
{
    if (done % AP_POLL_ITEMS != 0)
        return;
    c->phase = "approx";
    c->done = done;
    c->total = total;
    sa__poll_cancel(c); /* no budget: the comparison's nodes are the report's */
}

/* AP_PIVOT: each approximate equation's zero-pivot modes. */
static void compare_pivots(sa_ctx *c, cmp_job *j)
{
    const ap_report *rep = j->rep;
    for (uint32_t q = 0; q < rep->n_equations; q++) {
        poll_items(c, q, rep->n_equations);
        size_t mark = sa__mark(c);
        const ap_equation *e = &rep->equations[q];
        ap_finding *fd = add_finding(c, j, AP_PIVOT, pivot_zero(c, e), e->where);
        if (fd != NULL) {
            fd->approx_eq = q;
            fd->variable = e->matched;
            fd->order = e->sigma;
            /* Only where a finding needs it: printing every pivot was a
             * third of the brake's comparison at N = 100. */
            if (detailed(j, fd) && pivot_text(j->m, e, j->syntax, &fd->pivot) < 0)
                sa__fail(c, MDAE_E_NOMEM);
            finish_message(c, j, fd);
        }
        sa__release(c, mark);
    }
}

/* AP_OFFSETS of the unknowns (d), then of the equations (c). */
static void compare_offsets(sa_ctx *c, cmp_job *j)
{
    const sa_result *r = c->r;
    const mel_model *m = j->m;
    const ap_report *rep = j->rep;
    size_t total = (size_t)m->n_variables + m->n_equations;
    for (uint32_t v = 0; v < m->n_variables; v++) {
        poll_items(c, v, total);
        size_t mark = sa__mark(c);
        BDD within = sa__tmp(c, sa__and(r->ok, r->chi_j[v]));
        /* the stored row: differs reads it within ok, where both forms agree */
        BDD f = differs(c, within, sa__d_row(r, v), r->w_off, rep->d[v]);
        ap_finding *fd = add_finding(c, j, AP_OFFSETS, f, m->variables[v].where);
        if (fd != NULL) {
            fd->variable = v;
            fd->order = fd->approx = rep->d[v];
            finish_message(c, j, fd);
        }
        sa__release(c, mark);
    }
    for (uint32_t i = 0; i < m->n_equations; i++) {
        uint32_t q = j->a->eq_of[i];
        poll_items(c, (size_t)m->n_variables + i, total);
        if (q == NONE)
            continue;
        size_t mark = sa__mark(c);
        BDD within = sa__tmp(c, sa__and(r->ok, r->chi_i[i]));
        BDD f = differs(c, within, sa__c_row(r, i), r->w_off, rep->equations[q].c);
        ap_finding *fd = add_finding(c, j, AP_OFFSETS, f, m->equations[i].where);
        if (fd != NULL) {
            fd->equation = i;
            fd->approx_eq = q;
            fd->order = fd->approx = rep->equations[q].c;
            finish_message(c, j, fd);
        }
        sa__release(c, mark);
    }
}

/* The union of the n findings' modes into wrong[0], joined pairwise (a
 * balanced tree of unions): folding them one by one into one set walked
 * that set once per finding, quadratic in the editor's diagnostics of the
 * brake at N = 10,000 (thousands of findings over disjoint mode variables).
 * The same function (BDDs are canonical). */
static void join_wrong(BDD *wrong, size_t n)
{
    for (size_t step = 1; step < n; step *= 2)
        for (size_t k = 0; k + step < n; k += 2 * step)
            sa__put(&wrong[k], sa__or(wrong[k], wrong[k + step]));
}

/* Every finding (ap.h), in the report's order, then wrong_modes. */
static void compare(sa_ctx *c, void *arg)
{
    cmp_job *j = arg;
    const sa_result *r = c->r;
    ap_report *rep = j->rep;
    sa__care_init(c, r, r->chi_m, &j->care);
    /* only detailed findings write sets (a full memo stops memoising) */
    sa__set_memo_init(c, &j->memo,
                      j->detail_max != 0 && j->detail_max < j->cap ? j->detail_max : j->cap);
    j->wrong = sa__slots(c, j->cap);
    rep->valid_modes = r->valid_count;
    if (!rep->accepted) {
        finish_message(c, j, add_finding(c, j, AP_REFUSED, r->ok, refused_where(j->m, rep)));
    } else {
        finish_message(c, j, add_finding(c, j, AP_SINGULAR, r->singular,
                                         singular_where(c, j->m, r->singular)));
        compare_pivots(c, j);
        compare_offsets(c, j);
    }
    join_wrong(j->wrong, rep->n_findings);
    rep->wrong_count = *j->wrong == bddfalse ? 0 : sa__count_modes(c, r, *j->wrong);
    if (!j->no_wrong_modes)
        sa__set_of_care(c, r, *j->wrong, &j->care, &rep->wrong_modes);
    rep->wrong_modes_left = j->no_wrong_modes;
}

/* ---- Entry points ------------------------------------------------------------- */

static const char *mode_name(const mel_model *m, uint32_t k) { return m->modes[k].name; }
static const char *variable_name(const mel_model *m, uint32_t v) { return m->variables[v].name; }
static const char *equation_name(const mel_model *m, uint32_t i) { return m->equations[i].name; }

/* Copies of the n names name_of(m, 0 .. n) as one allocation: n + 1
 * pointers (the last NULL), then the strings; NULL on OOM. */
static char **name_table(const mel_model *m, uint32_t n,
                         const char *(*name_of)(const mel_model *, uint32_t))
{
    size_t head = ((size_t)n + 1) * sizeof(char *), bytes = 0;
    for (uint32_t k = 0; k < n; k++)
        bytes += strlen(name_of(m, k)) + 1;
    char **t = mdae_malloc(head + bytes);
    if (t == NULL)
        return NULL;
    char *p = (char *)t + head;
    for (uint32_t k = 0; k < n; k++) {
        size_t len = strlen(name_of(m, k)) + 1;
        memcpy(p, name_of(m, k), len);
        t[k] = p;
        p += len;
    }
    t[n] = NULL;
    return t;
}

static int fill_names(const mel_model *m, ap_report *rep)
{
    rep->n_modes = m->n_modes;
    rep->mode_names = name_table(m, m->n_modes, mode_name);
    rep->n_variables = m->n_variables;
    rep->var_names = name_table(m, m->n_variables, variable_name);
    rep->d = mdae_calloc((size_t)m->n_variables + 1, sizeof *rep->d);
    rep->underdetermined = mdae_calloc((size_t)m->n_variables + 1, 1);
    rep->n_model_equations = m->n_equations;
    rep->eq_names = name_table(m, m->n_equations, equation_name);
    if (!rep->mode_names || !rep->var_names || !rep->d || !rep->underdetermined ||
        !rep->eq_names)
        return MDAE_E_NOMEM;
    return MDAE_OK;
}

/* rc, or MDAE_E_CANCELED when it is MDAE_OK and the caller's cancel
 * (ap_options.progress) says so: asked between the steps before the
 * comparison, which polls by itself (they are 60 ms of the brake at
 * N = 10,000, 30 ms the longest, that an editor's newer text waited out). */
static int poll_step(const ap_options *opt, int rc, size_t step)
{
    if (rc == MDAE_OK && opt != NULL && opt->progress != NULL &&
        opt->progress(opt->progress_ctx, "approx", step, 4) != 0)
        return MDAE_E_CANCELED;
    return rc;
}

static int analyze(const mel_model *m, const sa_result *exact, const ap_options *opt,
                   ap_report *rep)
{
    approx a;
    int rc = approx_group(m, &a);
    if ((rc = poll_step(opt, rc, 0)) == MDAE_OK)
        rc = fill_names(m, rep);
    if ((rc = poll_step(opt, rc, 1)) == MDAE_OK)
        rc = fill_equations(m, &a, rep);
    if ((rc = poll_step(opt, rc, 2)) == MDAE_OK)
        rc = approx_rows(m, rep, &a);
    if ((rc = poll_step(opt, rc, 3)) == MDAE_OK)
        rc = solve_approx(m, &a, rep);
    cmp_job j = {.m = m, .a = &a, .rep = rep, .syntax = opt ? opt->syntax : FX_SYNTAX_MEL,
                 .no_wrong_modes = opt != NULL && opt->no_wrong_modes,
                 .detail_max = opt != NULL ? opt->detail_max : 0,
                 .cap = 2 + (size_t)a.n_eq + m->n_variables + m->n_equations};
    if (rc == MDAE_OK) {
        /* not zeroed: add_finding writes each one it takes; the bound is
         * every item, the brake at N = 10,000 takes 20,000 of its 340,000
         * (48 MB that calloc's zeroing touched, a tenth of an edit's
         * diagnostics) */
        rep->findings = mdae_malloc(j.cap * sizeof *rep->findings);
        rc = rep->findings ? MDAE_OK : MDAE_E_NOMEM;
    }
    sa_options run = {.progress = opt != NULL ? opt->progress : NULL,
                      .progress_ctx = opt != NULL ? opt->progress_ctx : NULL};
    if (rc == MDAE_OK)
        rc = sa__run_on(exact, &run, 0, compare, &j);
    approx_close(&a);
    return rc;
}

/* Whether r is a result of m: its model is m, or a copy with the same
 * equations, variables and mode variables in the same order (a session's
 * one part, engine/inc.h). */
static bool result_of(const sa_result *r, const mel_model *m)
{
    const mel_model *rm = r->m;
    if (rm == m)
        return true;
    if (rm == NULL || r->eq_whole != NULL || rm->n_equations != m->n_equations ||
        rm->n_variables != m->n_variables || rm->n_modes != m->n_modes ||
        r->n_eq != m->n_equations || r->n_var != m->n_variables || r->n_modes != m->n_modes)
        return false;
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (strcmp(rm->equations[i].name, m->equations[i].name) != 0)
            return false;
    for (uint32_t j = 0; j < m->n_variables; j++)
        if (strcmp(rm->variables[j].name, m->variables[j].name) != 0)
            return false;
    for (uint32_t k = 0; k < m->n_modes; k++)
        if (strcmp(rm->modes[k].name, m->modes[k].name) != 0)
            return false;
    return true;
}

int ap_analyze_ex(const mel_model *m, const sa_result *exact, const ap_options *opt,
                  ap_report **out)
{
    if (m == NULL || exact == NULL || out == NULL || !result_of(exact, m))
        return MDAE_E_INVAL;
    if (!sa__running())
        return MDAE_E_STATE;
    ap_report *rep = mdae_calloc(1, sizeof *rep);
    if (rep == NULL)
        return MDAE_E_NOMEM;
    int rc = analyze(m, exact, opt, rep);
    if (rc < 0) {
        ap_report_free(rep);
        return rc;
    }
    *out = rep;
    return MDAE_OK;
}

int ap_analyze(const mel_model *m, const sa_result *exact, ap_report **out)
{
    return ap_analyze_ex(m, exact, NULL, out);
}

void ap_report_free(ap_report *rep)
{
    if (rep == NULL)
        return;
    /* the name tables and the members are packed (fill_names,
     * fill_equations, fill_blocks); an equation of one member borrows its
     * name from eq_names */
    mdae_free(rep->mode_names);
    mdae_free(rep->var_names);
    for (uint32_t q = 0; rep->equations && q < rep->n_equations; q++)
        if (rep->equations[q].n_members > 1)
            mdae_free(rep->equations[q].name);
    mdae_free(rep->equations);
    mdae_free(rep->eq_names);
    mdae_free(rep->d);
    mdae_free(rep->underdetermined);
    mdae_free(rep->blocks);
    for (size_t k = 0; rep->findings && k < rep->n_findings; k++) {
        ap_finding *f = &rep->findings[k];
        mdae_free(f->pivot);
        mdae_free(f->message);
        sa__set_close(&f->modes);
    }
    mdae_free(rep->findings);
    sa__set_close(&rep->wrong_modes);
    mdae_free(rep);
}

const char *ap_kind_name(ap_kind k)
{
    switch (k) {
    case AP_OFFSETS:
        return "offsets";
    case AP_PIVOT:
        return "pivot";
    case AP_SINGULAR:
        return "singular";
    case AP_REFUSED:
        return "refused";
    }
    return "?";
}
