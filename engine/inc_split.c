/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/inc_split.c -- the connected components of a model's all-modes
 * incidence graph (union-find over equations and variables): what the
 * incremental session keys, caches and analyses one by one
 * (inc_session.c). Why they split every per-mode quantity exactly:
 * engine/inc.h.
 */
#include "inc_int.h"

#include <string.h>

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
    while (up[x] != x) {
        up[x] = up[up[x]];
        x = up[x];
    }
    return x;
}

/* Union-find over nodes 0..ne-1 (equations) and ne..ne+nv-1 (variables),
 * each root the smallest node of its component, so that up[x] <= x for
 * every node. Returns the number of components. */
static size_t link_incidences(const mel_model *m, uint32_t *up)
{
    uint32_t ne = m->n_equations, nv = m->n_variables;
    size_t n = (size_t)ne + nv;
    for (uint32_t x = 0; x < ne + nv; x++)
        up[x] = x;
    for (uint32_t i = 0; i < ne; i++) {
        const mel_equation *e = &m->equations[i];
        uint32_t a = uf_find(up, i); /* stays the root of i's component */
        for (uint32_t k = 0; k < e->n_incs; k++) {
            uint32_t b = uf_find(up, ne + e->incs[k].var);
            if (a < b) {
                up[b] = a;
                n--;
            } else if (b < a) {
                up[a] = b;
                a = b;
                n--;
            }
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

/* Number the components in the order of their roots (their smallest
 * nodes): comp[x] is x's component. Since up[x] <= x, one pass in node
 * order finds every root (up[up[x]] is already a root). Returns the
 * number of components. */
static size_t number_components(uint32_t *up, uint32_t *comp, size_t nodes)
{
    size_t n = 0;
    for (uint32_t x = 0; x < nodes; x++) {
        uint32_t r = up[up[x]];
        up[x] = r;
        comp[x] = r == x ? (uint32_t)n++ : comp[r];
    }
    return n;
}

int inc__split(const mel_model *m, uint32_t *local, inc__piece **out, size_t *n_out)
{
    size_t nodes = (size_t)m->n_equations + m->n_variables;
    uint32_t *up = mdae_malloc((2 * nodes + 1) * sizeof *up); /* up, then comp */
    inc__piece *pc = NULL;
    size_t n = 0;
    int rc = MDAE_E_NOMEM;
    if (up == NULL)
        goto done;
    link_incidences(m, up);
    n = number_components(up, up + nodes, nodes);
    if (n == 0)
        n = 1; /* an empty model is one empty piece: it still has modes */
    pc = mdae_calloc(n + 1, sizeof *pc);
    if (pc == NULL)
        goto done;
    rc = fill_pieces(m, up + nodes, pc, n, local);
    MDAE_ASSERT(rc < 0 || n == 1 || nodes > 0);
done:
    mdae_free(up);
    if (rc < 0) {
        inc__pieces_free(pc, n);
        return rc;
    }
    *out = pc;
    *n_out = n;
    return MDAE_OK;
}

int inc__split_kept(const inc__kept_part *kept, size_t n, inc__piece **out)
{
    inc__piece *pc = mdae_calloc(n + 1, sizeof *pc);
    if (pc == NULL)
        return MDAE_E_NOMEM;
    for (size_t k = 0; k < n; k++) {
        inc__piece *p = &pc[k];
        p->n_eq = kept[k].n_eq;
        p->n_var = kept[k].n_var;
        p->eq_map = mdae_malloc(((size_t)p->n_eq + 1) * sizeof *p->eq_map);
        p->var_map = mdae_malloc(((size_t)p->n_var + 1) * sizeof *p->var_map);
        if (p->eq_map == NULL || p->var_map == NULL) {
            inc__pieces_free(pc, n);
            return MDAE_E_NOMEM;
        }
        memcpy(p->eq_map, kept[k].eq_map, p->n_eq * sizeof *p->eq_map);
        memcpy(p->var_map, kept[k].var_map, p->n_var * sizeof *p->var_map);
    }
    *out = pc;
    return MDAE_OK;
}
