/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/inc_split.c -- the connected components of a model's all-modes
 * incidence graph (union-find over equations and variables): what the
 * incremental session keys, caches and analyses one by one
 * (inc_session.c). Why they split every per-mode quantity exactly:
 * engine/inc.h.
 */
#include "inc_int.h"

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
    while (up[x] != x) {
        up[x] = up[up[x]];
        x = up[x];
    }
    return x;
}

/* Union-find over nodes 0..ne-1 (equations) and ne..ne+nv-1 (variables),
 * each root the smallest node of its component. Returns the number of
 * components. */
static size_t link_incidences(const mel_model *m, uint32_t *up)
{
    uint32_t ne = m->n_equations, nv = m->n_variables;
    size_t n = (size_t)ne + nv;
    for (uint32_t x = 0; x < ne + nv; x++)
        up[x] = x;
    for (uint32_t i = 0; i < ne; i++)
        for (uint32_t k = 0; k < m->equations[i].n_incs; k++) {
            uint32_t a = uf_find(up, i), b = uf_find(up, ne + m->equations[i].incs[k].var);
            if (a != b) {
                up[a < b ? b : a] = a < b ? a : b;
                n--;
            }
        }
    return n;
}

int inc_model_parts(const mel_model *m, size_t *out)
{
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    uint32_t *up = mdae_malloc(((size_t)m->n_equations + m->n_variables + 1) * sizeof *up);
    if (up == NULL)
        return MDAE_E_NOMEM;
    size_t n = link_incidences(m, up);
    mdae_free(up);
    *out = n ? n : 1;
    return MDAE_OK;
}

void inc__pieces_free(inc__piece *p, size_t n)
{
    if (p == NULL)
        return;
    for (size_t k = 0; k < n; k++) {
        mdae_free(p[k].eq_map);
        mdae_free(p[k].var_map);
    }
    mdae_free(p);
}

/* Sizes, then maps: every node goes to the piece of its root, in node
 * order, so the maps are in model order. */
static int fill_pieces(const mel_model *m, const uint32_t *comp, inc__piece *pc, size_t n,
                       uint32_t *local)
{
    uint32_t ne = m->n_equations, nv = m->n_variables;
    for (uint32_t x = 0; x < ne + nv; x++) {
        if (x < ne)
            pc[comp[x]].n_eq++;
        else
            pc[comp[x]].n_var++;
    }
    for (size_t k = 0; k < n; k++) {
        pc[k].eq_map = mdae_malloc(((size_t)pc[k].n_eq + 1) * sizeof *pc[k].eq_map);
        pc[k].var_map = mdae_malloc(((size_t)pc[k].n_var + 1) * sizeof *pc[k].var_map);
        if (pc[k].eq_map == NULL || pc[k].var_map == NULL)
            return MDAE_E_NOMEM;
        pc[k].n_eq = pc[k].n_var = 0;
    }
    for (uint32_t x = 0; x < ne + nv; x++) {
        inc__piece *p = &pc[comp[x]];
        if (x < ne) {
            p->eq_map[p->n_eq++] = x;
        } else {
            local[x - ne] = p->n_var;
            p->var_map[p->n_var++] = x - ne;
        }
    }
    return MDAE_OK;
}

int inc__split(const mel_model *m, uint32_t *local, inc__piece **out, size_t *n_out)
{
    size_t nodes = (size_t)m->n_equations + m->n_variables;
    uint32_t *up = mdae_malloc((nodes + 1) * sizeof *up);
    uint32_t *comp = mdae_malloc((nodes + 1) * sizeof *comp);
    inc__piece *pc = NULL;
    size_t n = 0;
    int rc = MDAE_E_NOMEM;
    if (up == NULL || comp == NULL)
        goto done;
    link_incidences(m, up);
    for (uint32_t x = 0; x < nodes; x++) /* roots numbered in node order */
        comp[x] = uf_find(up, x) == x ? (uint32_t)n++ : UINT32_MAX;
    for (uint32_t x = 0; x < nodes; x++)
        comp[x] = comp[uf_find(up, x)]; /* the root comes first: numbered */
    if (n == 0)
        n = 1; /* an empty model is one empty piece: it still has modes */
    pc = mdae_calloc(n + 1, sizeof *pc);
    if (pc == NULL)
        goto done;
    rc = fill_pieces(m, comp, pc, n, local);
    MDAE_ASSERT(rc < 0 || n == 1 || nodes > 0);
done:
    mdae_free(up);
    mdae_free(comp);
    if (rc < 0) {
        inc__pieces_free(pc, n);
        return rc;
    }
    *out = pc;
    *n_out = n;
    return MDAE_OK;
}
