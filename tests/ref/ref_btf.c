/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/ref_btf.c -- the block triangular form of one valid nonsingular
 * mode, by Tarjan's algorithm on the leading-level dependency graph
 * (RR-9322 section 3.3; the semantics of engine/cdg.h, restated in ref.h).
 *
 * Blocks are the strongly connected components of the graph on active
 * equations where i -> i' iff i' != i and the edge (i', j(i)) is saturated
 * (d_j = c_i' + sigma_i'j) for the MWPM's variable j(i) of i. They are the
 * fine Dulmage-Mendelsohn blocks of the leading-level system, so they do not
 * depend on which MWPM the reference chose.
 */
#include "ref.h"

#include <string.h>

typedef struct tarjan {
    const ref_mode *rm;
    ref_dep_fn *dep;
    uint32_t n;      /* equations of the model */
    int *index;      /* discovery index, -1 = unvisited */
    int *low;
    uint32_t *stack;
    bool *on_stack;
    uint32_t sp;
    int counter;
    int *comp;       /* equation -> component in order of completion */
    int n_comp;
} tarjan;

bool ref_mode_saturated(const ref_mode *rm, uint32_t eq, uint32_t var) {
    int s = ref_mode_sigma(rm, eq, var);
    return s >= 0 && rm->c[eq] >= 0 && rm->d[var] == rm->c[eq] + s;
}

/* Does equation b depend on equation a (a's unknown is read at leading level
 * by b)? */
static bool depends(const ref_mode *rm, uint32_t a, uint32_t b) {
    return a != b && rm->match[a] >= 0 && ref_mode_saturated(rm, b, (uint32_t)rm->match[a]);
}

/* Recursion depth is bounded by the number of equations. */
static void strongconnect(tarjan *t, uint32_t v) {
    t->index[v] = t->low[v] = t->counter++;
    t->stack[t->sp++] = v;
    t->on_stack[v] = true;
    for (uint32_t w = 0; w < t->n; w++) {
        if (!t->rm->eq_active[w] || !t->dep(t->rm, v, w)) continue;
        if (t->index[w] < 0) {
            strongconnect(t, w);
            if (t->low[w] < t->low[v]) t->low[v] = t->low[w];
        } else if (t->on_stack[w] && t->index[w] < t->low[v]) {
            t->low[v] = t->index[w];
        }
    }
    if (t->low[v] == t->index[v]) { /* v is the root of a component */
        uint32_t w;
        do {
            w = t->stack[--t->sp];
            t->on_stack[w] = false;
            t->comp[w] = t->n_comp;
        } while (w != v);
        t->n_comp++;
    }
}

void ref_blocks_close(ref_blocks *b) {
    mdae_free(b->block_of_eq);
    mdae_free(b->dep);
    memset(b, 0, sizeof *b);
}

int ref_mode_blocks(const ref_mode *rm, ref_blocks *out) {
    return ref_mode_blocks_by(rm, depends, out);
}

int ref_mode_blocks_by(const ref_mode *rm, ref_dep_fn *dep, ref_blocks *out) {
    if (!rm || !dep || !out || !rm->valid || rm->singular) return MDAE_E_INVAL;
    const uint32_t n = rm->model->n_equations;
    tarjan t;
    memset(&t, 0, sizeof t);
    t.rm = rm;
    t.dep = dep;
    t.n = n;
    t.index = mdae_malloc((n + 1) * sizeof *t.index);
    t.low = mdae_malloc((n + 1) * sizeof *t.low);
    t.stack = mdae_malloc((n + 1) * sizeof *t.stack);
    t.on_stack = mdae_calloc(n + 1, sizeof *t.on_stack);
    t.comp = mdae_malloc((n + 1) * sizeof *t.comp);
    ref_blocks b;
    memset(&b, 0, sizeof b);
    b.block_of_eq = mdae_malloc((n + 1) * sizeof *b.block_of_eq);
    int rc = MDAE_E_NOMEM;
    if (!t.index || !t.low || !t.stack || !t.on_stack || !t.comp || !b.block_of_eq) goto done;
    for (uint32_t i = 0; i < n; i++) t.index[i] = t.comp[i] = -1;
    for (uint32_t i = 0; i < n; i++)
        if (rm->eq_active[i] && t.index[i] < 0) strongconnect(&t, i);
    /* Tarjan completes a component after every component it reaches, i.e.
     * dependents first; reverse so that block 0 can be solved first. */
    b.n_blocks = (uint32_t)t.n_comp;
    for (uint32_t i = 0; i < n; i++)
        b.block_of_eq[i] = t.comp[i] < 0 ? -1 : t.n_comp - 1 - t.comp[i];
    b.dep = mdae_calloc((size_t)b.n_blocks * b.n_blocks + 1, sizeof *b.dep);
    if (!b.dep) goto done;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t c = 0; c < n; c++)
            if (rm->eq_active[a] && rm->eq_active[c] && b.block_of_eq[a] != b.block_of_eq[c] &&
                dep(rm, a, c))
                b.dep[(size_t)b.block_of_eq[a] * b.n_blocks + (size_t)b.block_of_eq[c]] = true;
    *out = b;
    memset(&b, 0, sizeof b);
    rc = MDAE_OK;
done:
    ref_blocks_close(&b);
    mdae_free(t.index);
    mdae_free(t.low);
    mdae_free(t.stack);
    mdae_free(t.on_stack);
    mdae_free(t.comp);
    return rc;
}
