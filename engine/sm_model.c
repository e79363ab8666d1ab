/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sm_model.c -- one mode of a model: the frame (a model's fixed
 * structure and the buffers to solve its modes one at a time) and
 * sm_model_mode, which evaluates the model's guards in a mode and solves
 * it. The graph algorithms are in engine/sm_solve.c.
 */
#include "sm.h"

#include <stdlib.h>
#include <string.h>

struct sm_frame {
    uint32_t n_eq, n_var;
    size_t n_edges;
    size_t *eq_first;   /* n_eq + 1 */
    uint32_t *edge_var; /* n_edges */
    uint32_t *by_rank;  /* n_edges: incidences in the order of the choice */
    sm_ws *ws;
    /* The active graph of the mode being solved (sm_graph's arrays). */
    size_t *row_first;
    uint32_t *col, *order, *row_eq, *col_var;
    int *sigma;
    long *var_col, *local_of; /* variable -> column, incidence -> local edge */
    size_t *global_of;        /* local edge -> incidence */
    sm_mode view;
};

static void view_free(sm_mode *v)
{
    mdae_free(v->eq_active);
    mdae_free(v->var_active);
    mdae_free(v->c);
    mdae_free(v->d);
    mdae_free(v->matched_var);
    mdae_free(v->matched_edge);
    mdae_free(v->overdetermined);
    mdae_free(v->underdetermined);
    memset(v, 0, sizeof *v);
}

void sm_mode_close(sm_mode *v)
{
    if (v != NULL)
        view_free(v);
}

static int view_alloc(sm_mode *v, uint32_t n_eq, uint32_t n_var)
{
    size_t ne = (size_t)n_eq + 1, nv = (size_t)n_var + 1;
    memset(v, 0, sizeof *v);
    v->eq_active = mdae_calloc(ne, sizeof *v->eq_active);
    v->var_active = mdae_calloc(nv, sizeof *v->var_active);
    v->c = mdae_calloc(ne, sizeof *v->c);
    v->d = mdae_calloc(nv, sizeof *v->d);
    v->matched_var = mdae_calloc(ne, sizeof *v->matched_var);
    v->matched_edge = mdae_calloc(ne, sizeof *v->matched_edge);
    v->overdetermined = mdae_calloc(ne, sizeof *v->overdetermined);
    v->underdetermined = mdae_calloc(nv, sizeof *v->underdetermined);
    if (!v->eq_active || !v->var_active || !v->c || !v->d || !v->matched_var ||
        !v->matched_edge || !v->overdetermined || !v->underdetermined) {
        view_free(v);
        return MDAE_E_NOMEM;
    }
    return MDAE_OK;
}

/* The frame's arrays and its view's live in the frame's own allocation
 * (frame_lay_out). */
void sm_frame_free(sm_frame *f)
{
    if (f == NULL)
        return;
    sm_ws_free(f->ws);
    mdae_free(f);
}

/* Sorting incidences by rank: qsort's comparator has no context, so the
 * pairs carry the rank. */
typedef struct ranked {
    uint32_t rank, edge;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->edge > y->edge) - (x->edge < y->edge);
}

/* by_rank: the edges by increasing (rank, edge). Ranks already in edge
 * order (the BDD levels of sa_encode.c's layout, until a sifting) need no
 * sort, which was most of a frame's cost. */
static int rank_edges(sm_frame *f, const uint32_t *edge_rank)
{
    for (size_t e = 0; e < f->n_edges; e++)
        f->by_rank[e] = (uint32_t)e;
    if (edge_rank == NULL)
        return MDAE_OK;
    size_t sorted = 1;
    while (sorted < f->n_edges && edge_rank[sorted - 1] <= edge_rank[sorted])
        sorted++;
    if (sorted >= f->n_edges)
        return MDAE_OK;
    ranked *tmp = mdae_malloc((f->n_edges + 1) * sizeof *tmp);
    if (tmp == NULL)
        return MDAE_E_NOMEM;
    for (size_t e = 0; e < f->n_edges; e++)
        tmp[e] = (ranked){edge_rank[e], (uint32_t)e};
    qsort(tmp, f->n_edges, sizeof *tmp, cmp_ranked);
    for (size_t e = 0; e < f->n_edges; e++)
        f->by_rank[e] = tmp[e].edge;
    mdae_free(tmp);
    return MDAE_OK;
}

/* p at *at in the block base (NULL: only counted), *at moved past n
 * elements of size bytes, 16-aligned (the block is malloc's: aligned). */
static void *frame_carve(char *base, size_t *at, size_t n, size_t size)
{
    void *p = base != NULL ? base + *at : NULL;
    *at += (n * size + 15) & ~(size_t)15;
    return p;
}

/* The bytes of a frame of n_eq equations, n_var variables and ne
 * incidences with its arrays and its view's in one allocation (a frame per
 * enumerated block: the brake's N = 10,000 made 90,025 of them, 21
 * allocations each); with f, sets f's sizes and array pointers, the view's
 * arrays zeroed (the others are written before they are read). One call
 * with NULL to size, one with the block. */
static size_t frame_lay_out(sm_frame *f, uint32_t n_eq, uint32_t n_var, size_t ne)
{
    char *b = (char *)f;
    size_t at = (sizeof *f + 15) & ~(size_t)15;
    size_t e1 = ne + 1, r1 = (size_t)n_eq + 1, c1 = (size_t)n_var + 1;
    sm_frame x = {0};
    x.n_eq = n_eq;
    x.n_var = n_var;
    x.n_edges = ne;
    x.eq_first = frame_carve(b, &at, r1, sizeof *x.eq_first);
    x.edge_var = frame_carve(b, &at, e1, sizeof *x.edge_var);
    x.by_rank = frame_carve(b, &at, e1, sizeof *x.by_rank);
    x.row_first = frame_carve(b, &at, r1 + 1, sizeof *x.row_first);
    x.col = frame_carve(b, &at, e1, sizeof *x.col);
    x.order = frame_carve(b, &at, e1, sizeof *x.order);
    x.row_eq = frame_carve(b, &at, r1, sizeof *x.row_eq);
    x.col_var = frame_carve(b, &at, c1, sizeof *x.col_var);
    x.sigma = frame_carve(b, &at, e1, sizeof *x.sigma);
    x.var_col = frame_carve(b, &at, c1, sizeof *x.var_col);
    x.local_of = frame_carve(b, &at, e1, sizeof *x.local_of);
    x.global_of = frame_carve(b, &at, e1, sizeof *x.global_of);
    size_t view_at = at;
    sm_mode *v = &x.view;
    v->eq_active = frame_carve(b, &at, r1, sizeof *v->eq_active);
    v->var_active = frame_carve(b, &at, c1, sizeof *v->var_active);
    v->c = frame_carve(b, &at, r1, sizeof *v->c);
    v->d = frame_carve(b, &at, c1, sizeof *v->d);
    v->matched_var = frame_carve(b, &at, r1, sizeof *v->matched_var);
    v->matched_edge = frame_carve(b, &at, r1, sizeof *v->matched_edge);
    v->overdetermined = frame_carve(b, &at, r1, sizeof *v->overdetermined);
    v->underdetermined = frame_carve(b, &at, c1, sizeof *v->underdetermined);
    if (f != NULL) {
        memset(b + view_at, 0, at - view_at);
        *f = x;
    }
    return at;
}

int sm_frame_new(uint32_t n_eq, uint32_t n_var, const size_t *eq_first,
                 const uint32_t *edge_var, const uint32_t *edge_rank, sm_frame **out)
{
    if (eq_first == NULL || out == NULL || eq_first[0] != 0)
        return MDAE_E_INVAL;
    size_t ne = eq_first[n_eq];
    if (ne > 0 && edge_var == NULL)
        return MDAE_E_INVAL;
    for (uint32_t i = 0; i < n_eq; i++)
        if (eq_first[i + 1] < eq_first[i])
            return MDAE_E_INVAL;
    for (size_t e = 0; e < ne; e++)
        if (edge_var[e] >= n_var)
            return MDAE_E_INVAL;
    if (ne > SIZE_MAX / 64)
        return MDAE_E_NOMEM;
    size_t bytes = frame_lay_out(NULL, n_eq, n_var, ne);
    sm_frame *f = mdae_malloc(bytes);
    if (f == NULL)
        return MDAE_E_NOMEM;
    frame_lay_out(f, n_eq, n_var, ne);
    f->ws = sm_ws_new();
    int rc = MDAE_E_NOMEM;
    if (f->ws == NULL)
        goto fail;
    memcpy(f->eq_first, eq_first, ((size_t)n_eq + 1) * sizeof *f->eq_first);
    if (ne > 0)
        memcpy(f->edge_var, edge_var, ne * sizeof *f->edge_var);
    rc = rank_edges(f, edge_rank);
    if (rc < 0)
        goto fail;
    *out = f;
    return MDAE_OK;
fail:
    sm_frame_free(f);
    return rc;
}

/* The active graph: rows are the active equations in model order, columns
 * the active variables, edges in each row in incidence order; the order of
 * the choice follows the frame's ranks. */
static void build_graph(sm_frame *f, const bool *eq_active, const bool *var_active,
                        const int *edge_sigma, sm_graph *g)
{
    uint32_t nc = 0, nr = 0;
    for (uint32_t j = 0; j < f->n_var; j++) {
        f->var_col[j] = var_active[j] ? (long)nc : -1;
        if (var_active[j])
            f->col_var[nc++] = j;
    }
    size_t ne = 0;
    for (uint32_t i = 0; i < f->n_eq; i++) {
        for (size_t e = f->eq_first[i]; e < f->eq_first[i + 1]; e++)
            f->local_of[e] = -1;
        if (!eq_active[i])
            continue;
        f->row_eq[nr] = i;
        f->row_first[nr] = ne;
        for (size_t e = f->eq_first[i]; e < f->eq_first[i + 1]; e++) {
            long col = f->var_col[f->edge_var[e]];
            if (edge_sigma[e] < 0 || col < 0)
                continue;
            f->local_of[e] = (long)ne;
            f->global_of[ne] = e;
            f->col[ne] = (uint32_t)col;
            f->sigma[ne] = edge_sigma[e];
            ne++;
        }
        nr++;
    }
    f->row_first[nr] = ne;
    size_t k = 0;
    for (size_t q = 0; q < f->n_edges; q++) {
        long l = f->local_of[f->by_rank[q]];
        if (l >= 0)
            f->order[k++] = (uint32_t)l;
    }
    *g = (sm_graph){nr, nc, f->row_first, f->col, f->sigma, f->order};
}

/* sm_frame_solve, and sm_frame_offsets when !choose. */
static int frame_solve(sm_frame *f, const bool *eq_active, const bool *var_active,
                       const int *edge_sigma, bool choose, const sm_mode **out)
{
    if (f == NULL || out == NULL || (f->n_eq && !eq_active) || (f->n_var && !var_active) ||
        (f->n_edges && !edge_sigma))
        return MDAE_E_INVAL;
    sm_graph g;
    build_graph(f, eq_active, var_active, edge_sigma, &g);
    const sm_solution *s;
    int rc = choose ? sm_solve(f->ws, &g, &s) : sm_offsets(f->ws, &g, &s);
    if (rc < 0)
        return rc;
    sm_mode *v = &f->view;
    v->valid = true;
    v->singular = !s->perfect;
    for (uint32_t i = 0; i < f->n_eq; i++) {
        v->eq_active[i] = eq_active[i];
        v->c[i] = -1;
        v->matched_var[i] = -1;
        v->matched_edge[i] = -1;
        v->overdetermined[i] = false;
    }
    for (uint32_t j = 0; j < f->n_var; j++) {
        v->var_active[j] = var_active[j];
        v->d[j] = -1;
        v->underdetermined[j] = !s->perfect && f->var_col[j] >= 0 &&
                                s->under[f->var_col[j]];
        if (s->perfect && f->var_col[j] >= 0)
            v->d[j] = s->d[f->var_col[j]];
    }
    for (uint32_t r = 0; r < g.n_rows; r++) {
        uint32_t i = f->row_eq[r];
        if (!s->perfect) {
            v->overdetermined[i] = s->over[r];
            if (s->row_edge[r] >= 0) /* a maximum matching's */
                v->matched_edge[i] = (long)f->global_of[s->row_edge[r]];
            continue;
        }
        size_t e = f->global_of[s->row_edge[r]];
        v->c[i] = s->c[r];
        v->matched_edge[i] = (long)e;
        v->matched_var[i] = (int)f->edge_var[e];
    }
    *out = v;
    return MDAE_OK;
}

int sm_frame_solve(sm_frame *f, const bool *eq_active, const bool *var_active,
                   const int *edge_sigma, const sm_mode **out)
{
    return frame_solve(f, eq_active, var_active, edge_sigma, true, out);
}

int sm_frame_offsets(sm_frame *f, const bool *eq_active, const bool *var_active,
                     const int *edge_sigma, const sm_mode **out)
{
    return frame_solve(f, eq_active, var_active, edge_sigma, false, out);
}

/* ---- A model in one mode ----------------------------------------------------------- */

static size_t *incidence_starts(const mel_model *m)
{
    size_t *first = mdae_malloc(((size_t)m->n_equations + 1) * sizeof *first);
    if (first == NULL)
        return NULL;
    first[0] = 0;
    for (uint32_t i = 0; i < m->n_equations; i++)
        first[i + 1] = first[i] + m->equations[i].n_incs;
    return first;
}

static int solve_model(const mel_model *m, const bool *mode, sm_frame *f, sm_mode *out)
{
    bool *eq_active = mdae_calloc((size_t)m->n_equations + 1, sizeof *eq_active);
    bool *var_active = mdae_calloc((size_t)m->n_variables + 1, sizeof *var_active);
    int *sigma = mdae_calloc(m->n_edges + 1, sizeof *sigma);
    int rc = MDAE_E_NOMEM;
    if (eq_active == NULL || var_active == NULL || sigma == NULL)
        goto done;
    for (uint32_t j = 0; j < m->n_variables; j++)
        var_active[j] = mel_guard_eval(m->variables[j].guard, mode);
    size_t e = 0;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *eq = &m->equations[i];
        eq_active[i] = mel_guard_eval(eq->guard, mode);
        for (uint32_t k = 0; k < eq->n_incs; k++, e++)
            sigma[e] = eq_active[i] ? mel_incidence_order(&eq->incs[k], mode) : -1;
    }
    bool valid = true;
    for (uint32_t k = 0; k < m->n_invariants && valid; k++)
        valid = mel_guard_eval(m->invariants[k].cond, mode);
    const sm_mode *v = NULL;
    if (valid) {
        rc = sm_frame_solve(f, eq_active, var_active, sigma, &v);
        if (rc < 0)
            goto done;
    }
    rc = view_alloc(out, m->n_equations, m->n_variables);
    if (rc < 0)
        goto done;
    out->valid = valid;
    out->singular = valid && v->singular;
    size_t ne = (size_t)m->n_equations, nv = (size_t)m->n_variables;
    memcpy(out->eq_active, eq_active, ne * sizeof *eq_active);
    memcpy(out->var_active, var_active, nv * sizeof *var_active);
    for (size_t i = 0; i < ne; i++) {
        out->c[i] = valid ? v->c[i] : -1;
        out->matched_var[i] = valid ? v->matched_var[i] : -1;
        out->matched_edge[i] = valid ? v->matched_edge[i] : -1;
        out->overdetermined[i] = valid && v->overdetermined[i];
    }
    for (size_t j = 0; j < nv; j++) {
        out->d[j] = valid ? v->d[j] : -1;
        out->underdetermined[j] = valid && v->underdetermined[j];
    }
done:
    mdae_free(eq_active);
    mdae_free(var_active);
    mdae_free(sigma);
    return rc;
}

int sm_model_mode(const mel_model *m, const bool *mode, sm_mode *out)
{
    static const bool none[1] = {false};
    if (m == NULL || out == NULL || (mode == NULL && m->n_modes > 0))
        return MDAE_E_INVAL;
    if (mode == NULL)
        mode = none;
    size_t *first = incidence_starts(m);
    uint32_t *vars = mdae_malloc((m->n_edges + 1) * sizeof *vars);
    sm_frame *f = NULL;
    int rc = MDAE_E_NOMEM;
    if (first == NULL || vars == NULL)
        goto done;
    size_t e = 0;
    for (uint32_t i = 0; i < m->n_equations; i++)
        for (uint32_t k = 0; k < m->equations[i].n_incs; k++)
            vars[e++] = m->equations[i].incs[k].var;
    rc = sm_frame_new(m->n_equations, m->n_variables, first, vars, NULL, &f);
    if (rc == MDAE_OK)
        rc = solve_model(m, mode, f, out);
done:
    sm_frame_free(f);
    mdae_free(first);
    mdae_free(vars);
    return rc;
}
