/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_udm.c -- the blocks of a union graph without a perfect
 * matching (issue 36): its coarse Dulmage-Mendelsohn decomposition, the
 * square part cut into its strongly connected blocks as sa_blocks.c cuts a
 * union graph that has one.
 *
 * Why. A model with one equation too many or too few (an editor's model,
 * most of the time) is singular in every mode, and its union graph is not
 * square: sa_blocks.c's decomposition did not apply, and the whole
 * component went to the implicit primal and to sa_dm.c's maximum matchings
 * of every mode as one BDD, exponential in a chain (the brake with one
 * extra equation: 30 s at N = 100 against 0.06 s sound). Yet the extra
 * equation is a local fact: the union graph's overdetermined part is the
 * few equations that compete for the same unknowns, and the rest keeps the
 * sound model's small blocks.
 *
 * What. Given a maximum matching of the union graph U: the overdetermined
 * part (rows reached from an unmatched row by alternating paths, and their
 * columns), the underdetermined part (columns reached from an unmatched
 * column, and their rows), the square rest. Blocks: each connected
 * component of the overdetermined part, each of the underdetermined part,
 * and the strongly connected blocks of the square part. Their order (a row
 * of block a has an edge of U to a column of block b) is acyclic: rows of
 * the overdetermined part reach only its columns, columns of the
 * underdetermined part are reached only from its rows, and the square
 * blocks are the condensation of a digraph. That is all sa_blocks.c's
 * argument needs: a mode's graph lies in U, and the blocks' own maximum
 * matchings are a maximum matching of it unless an augmenting path runs
 * from one block to another it reaches (sa_blocks.c checks which).
 *
 * Pure graph work on C arrays: no BDD is built here.
 */
#include "sa_int.h"

#include <string.h>

enum { SIDE_SQUARE = SA_UBLOCK_SQUARE, SIDE_OVER = SA_UBLOCK_OVER, SIDE_UNDER = SA_UBLOCK_UNDER };

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void uf_union(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a != b)
        parent[a < b ? b : a] = a < b ? a : b;
}

/* The graph and its matching, both ways. */
typedef struct ug {
    uint32_t n_rows, n_cols;
    const size_t *first; /* rows: compressed */
    const uint32_t *col;
    size_t *cfirst; /* columns: compressed, rows in crow */
    uint32_t *crow;
    uint32_t *mcol, *mrow; /* matched column of a row, row of a column, or UINT32_MAX */
    uint8_t *rside, *cside;
} ug;

static void transpose(sa_ctx *c, ug *g)
{
    size_t ne = g->first[g->n_rows];
    g->cfirst = sa__alloc(c, ((size_t)g->n_cols + 2) * sizeof *g->cfirst);
    g->crow = sa__alloc(c, (ne + 1) * sizeof *g->crow);
    for (size_t k = 0; k < ne; k++)
        g->cfirst[g->col[k] + 2]++;
    for (uint32_t j = 0; j < g->n_cols; j++)
        g->cfirst[j + 2] += g->cfirst[j + 1];
    for (uint32_t a = 0; a < g->n_rows; a++)
        for (size_t k = g->first[a]; k < g->first[a + 1]; k++)
            g->crow[g->cfirst[g->col[k] + 1]++] = a;
}

/* The overdetermined part: rows reached from the unmatched rows by
 * row -> any column -> its matched row (matched: the matching is
 * maximum, else an augmenting path). */
static void mark_over(sa_ctx *c, ug *g)
{
    uint32_t *queue = sa__alloc(c, ((size_t)g->n_rows + 1) * sizeof *queue), tail = 0;
    for (uint32_t a = 0; a < g->n_rows; a++)
        if (g->mcol[a] == UINT32_MAX) {
            g->rside[a] = SIDE_OVER;
            queue[tail++] = a;
        }
    for (uint32_t head = 0; head < tail; head++) {
        uint32_t a = queue[head];
        for (size_t k = g->first[a]; k < g->first[a + 1]; k++) {
            uint32_t j = g->col[k], a2 = g->mrow[j];
            g->cside[j] = SIDE_OVER;
            MDAE_ASSERT(a2 != UINT32_MAX);
            if (g->rside[a2] != SIDE_OVER) {
                g->rside[a2] = SIDE_OVER;
                queue[tail++] = a2;
            }
        }
    }
}

/* The underdetermined part, likewise from the unmatched columns. */
static void mark_under(sa_ctx *c, ug *g)
{
    uint32_t *queue = sa__alloc(c, ((size_t)g->n_cols + 1) * sizeof *queue), tail = 0;
    for (uint32_t j = 0; j < g->n_cols; j++)
        if (g->mrow[j] == UINT32_MAX) {
            g->cside[j] = SIDE_UNDER;
            queue[tail++] = j;
        }
    for (uint32_t head = 0; head < tail; head++) {
        uint32_t j = queue[head];
        for (size_t k = g->cfirst[j]; k < g->cfirst[j + 1]; k++) {
            uint32_t a = g->crow[k], j2 = g->mcol[a];
            MDAE_ASSERT(g->rside[a] != SIDE_OVER && j2 != UINT32_MAX);
            g->rside[a] = SIDE_UNDER;
            if (g->cside[j2] != SIDE_UNDER) {
                g->cside[j2] = SIDE_UNDER;
                queue[tail++] = j2;
            }
        }
    }
}

/* The strongly connected blocks of the square part: comp[a] for its rows
 * (the others are left alone, each a component of its own). */
static uint32_t square_sccs(sa_ctx *c, const ug *g, uint32_t *comp)
{
    size_t ne = g->first[g->n_rows];
    size_t *first = sa__alloc(c, ((size_t)g->n_rows + 1) * sizeof *first);
    uint32_t *to = sa__alloc(c, (ne + 1) * sizeof *to);
    size_t n = 0;
    for (uint32_t a = 0; a < g->n_rows; a++) {
        first[a] = n;
        if (g->rside[a] != SIDE_SQUARE)
            continue;
        for (size_t k = g->first[a]; k < g->first[a + 1]; k++)
            if (g->cside[g->col[k]] == SIDE_SQUARE)
                to[n++] = g->mrow[g->col[k]];
    }
    first[g->n_rows] = n;
    return sa__sccs(c, g->n_rows, first, to, comp);
}

/* Rows of a part in one union-find class per connected component. */
static void join_parts(const ug *g, uint32_t *parent)
{
    for (uint32_t a = 0; a < g->n_rows; a++)
        parent[a] = a;
    for (uint32_t a = 0; a < g->n_rows; a++)
        if (g->rside[a] == SIDE_OVER)
            for (size_t k = g->first[a]; k < g->first[a + 1]; k++)
                uf_union(parent, a, g->mrow[g->col[k]]);
    for (uint32_t j = 0; j < g->n_cols; j++)
        if (g->cside[j] == SIDE_UNDER)
            for (size_t k = g->cfirst[j]; k < g->cfirst[j + 1]; k++)
                uf_union(parent, g->crow[g->cfirst[j]], g->crow[k]);
}

uint32_t sa__union_dm(sa_ctx *c, uint32_t n_rows, uint32_t n_cols, const size_t *first,
                      const uint32_t *col, const int *row_edge, uint32_t *block_of_row,
                      uint32_t *block_of_col, uint8_t *kind)
{
    ug g = {n_rows, n_cols, first, col, NULL, NULL, NULL, NULL, NULL, NULL};
    g.mcol = sa__alloc_raw(c, ((size_t)n_rows + 1) * sizeof *g.mcol);
    g.mrow = sa__alloc_raw(c, ((size_t)n_cols + 1) * sizeof *g.mrow);
    memset(g.mrow, 0xff, ((size_t)n_cols + 1) * sizeof *g.mrow);
    for (uint32_t a = 0; a < n_rows; a++) {
        g.mcol[a] = row_edge[a] < 0 ? UINT32_MAX : col[row_edge[a]];
        if (row_edge[a] >= 0)
            g.mrow[g.mcol[a]] = a;
    }
    g.rside = sa__alloc(c, (size_t)n_rows + 1); /* SIDE_SQUARE is 0 */
    g.cside = sa__alloc(c, (size_t)n_cols + 1);
    transpose(c, &g);
    mark_over(c, &g);
    mark_under(c, &g);
    uint32_t *comp = sa__alloc(c, ((size_t)n_rows + 1) * sizeof *comp);
    uint32_t n_scc = square_sccs(c, &g, comp);
    uint32_t *parent = sa__alloc(c, ((size_t)n_rows + 1) * sizeof *parent);
    join_parts(&g, parent);
    /* Block ids in order of first appearance: a square row by its
     * component, another row by its class, a column without rows alone. */
    size_t n_keys = (size_t)n_scc + n_rows + n_cols;
    uint32_t *id = sa__alloc_raw(c, (n_keys + 1) * sizeof *id);
    memset(id, 0xff, (n_keys + 1) * sizeof *id);
    uint32_t nb = 0;
    for (uint32_t a = 0; a < n_rows; a++) {
        size_t key = g.rside[a] == SIDE_SQUARE ? comp[a] : n_scc + uf_find(parent, a);
        if (id[key] == UINT32_MAX) {
            id[key] = nb;
            kind[nb++] = g.rside[a];
        }
        block_of_row[a] = id[key];
    }
    for (uint32_t j = 0; j < n_cols; j++) {
        if (g.mrow[j] != UINT32_MAX) {
            block_of_col[j] = block_of_row[g.mrow[j]];
        } else if (g.cfirst[j] < g.cfirst[j + 1]) {
            block_of_col[j] = block_of_row[g.crow[g.cfirst[j]]];
        } else { /* in no equation: a block without rows */
            kind[nb] = SIDE_UNDER;
            block_of_col[j] = nb++;
        }
    }
    return nb;
}
