/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_udm.c -- the blocks of a union graph without a perfect
 * matching (issue 36): its unmatched rows and columns alone, the matched
 * rest cut into strongly connected blocks as sa_blocks.c cuts a union
 * graph that has one.
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
 * What. Given a maximum matching of the union graph U: each unmatched row
 * is a block alone (no column), each unmatched column likewise (no row),
 * and the matched rows with their columns fall into the strongly connected
 * blocks of the digraph a -> the row matched to a column of a, as in
 * sa_blocks.c. Their order (a row of block a has an edge of U to a column
 * of block b) is acyclic: nothing enters a block without columns, nothing
 * leaves one without rows, and the rest is the condensation of a digraph.
 * That is all sa_blocks.c's argument needs: a mode's graph lies in U, and
 * the blocks' own maximum matchings are a maximum matching of it unless an
 * augmenting path runs from one block to another it reaches (sa_blocks.c
 * checks which). Finer than the coarse Dulmage-Mendelsohn parts of U,
 * which a chain makes as long as the chain: one equation added at the
 * start of the brake makes every equation of it overdetermined in U, yet
 * with the added equation left unmatched, the rest is the sound brake's
 * blocks.
 *
 * Pure graph work on C arrays: no BDD is built here.
 */
#include "sa_int.h"

#include <string.h>

/* A bipartite graph seen from one side ("rows"), with the matching both
 * ways; the other side is its transpose. */
typedef struct side {
    uint32_t n, n_other;
    const size_t *first;
    const uint32_t *adj;
    uint32_t *mine, *theirs; /* matched item of the other side, or UINT32_MAX */
} side;

/* Which item an unmatched one gives its place to (below): the fewest
 * neighbours first (an equation of one unknown, x = 0, is the typical one
 * too many), then the latest. */
static bool better(const side *s, uint32_t a, uint32_t b)
{
    size_t da = s->first[a + 1] - s->first[a], db = s->first[b + 1] - s->first[b];
    return da < db || (da == db && a > b);
}

/* t := the transpose of s (adjacency only; t's matching is set by the
 * caller). */
static void transpose(sa_ctx *c, const side *s, side *t)
{
    size_t ne = s->first[s->n];
    size_t *first = sa__alloc(c, ((size_t)s->n_other + 2) * sizeof *first);
    uint32_t *adj = sa__alloc(c, (ne + 1) * sizeof *adj);
    for (size_t k = 0; k < ne; k++)
        first[s->adj[k] + 2]++;
    for (uint32_t j = 0; j < s->n_other; j++)
        first[j + 2] += first[j + 1];
    for (uint32_t a = 0; a < s->n; a++)
        for (size_t k = s->first[a]; k < s->first[a + 1]; k++)
            adj[first[s->adj[k] + 1]++] = a;
    t->first = first;
    t->adj = adj;
}

/* For each unmatched item u: the items an alternating path reaches from u
 * (u -> a neighbour -> the item matched to it) could each be the
 * unmatched one instead, by flipping the path; choose the best and flip.
 * Why: the blocks depend on which items are left unmatched. With the
 * brake's one equation too many in its middle (x[K] = 0), a maximum
 * matching that matched it to x[K] and left another equation unmatched
 * shifted the chain's matching and made one strongly connected block of
 * nearly every railcar; the diagnostics then cost 4 s at N = 40. Leaving
 * the added equation unmatched gives the sound brake's blocks. */
static void choose_unmatched(sa_ctx *c, side *s)
{
    size_t mark = sa__mark(c);
    uint32_t *queue = sa__alloc(c, ((size_t)s->n + 1) * sizeof *queue);
    uint32_t *via = sa__alloc(c, ((size_t)s->n + 1) * sizeof *via); /* predecessor */
    uint32_t *seen = sa__alloc(c, ((size_t)s->n + 1) * sizeof *seen); /* u + 1 */
    for (uint32_t u = 0; u < s->n; u++) {
        if (s->mine[u] != UINT32_MAX)
            continue;
        uint32_t tail = 0, best = u;
        queue[tail++] = u;
        seen[u] = u + 1;
        for (uint32_t head = 0; head < tail; head++) {
            uint32_t a = queue[head];
            for (size_t k = s->first[a]; k < s->first[a + 1]; k++) {
                uint32_t a2 = s->theirs[s->adj[k]];
                if (a2 == UINT32_MAX || seen[a2] == u + 1)
                    continue; /* (an unmatched neighbour: the matching is maximum) */
                seen[a2] = u + 1;
                via[a2] = a;
                queue[tail++] = a2;
                if (better(s, a2, best))
                    best = a2;
            }
        }
        /* Flip u .. best: each item on the path takes its successor's
         * partner, best none. */
        uint32_t x = best, give = UINT32_MAX;
        while (x != u) {
            uint32_t j = s->mine[x], a = via[x];
            s->mine[x] = give;
            if (give != UINT32_MAX)
                s->theirs[give] = x;
            give = j;
            x = a;
        }
        if (best != u) {
            s->mine[u] = give;
            s->theirs[give] = u;
        }
    }
    sa__release(c, mark);
}

/* The strongly connected blocks of the digraph on matched rows: a -> the
 * row matched to each column of a (unmatched rows have no successors). */
static uint32_t matched_sccs(sa_ctx *c, uint32_t n_rows, const size_t *first,
                             const uint32_t *col, const uint32_t *mcol, const uint32_t *mrow,
                             uint32_t *comp)
{
    size_t ne = first[n_rows];
    size_t *sfirst = sa__alloc(c, ((size_t)n_rows + 1) * sizeof *sfirst);
    uint32_t *to = sa__alloc(c, (ne + 1) * sizeof *to);
    size_t n = 0;
    for (uint32_t a = 0; a < n_rows; a++) {
        sfirst[a] = n;
        if (mcol[a] == UINT32_MAX)
            continue;
        for (size_t k = first[a]; k < first[a + 1]; k++)
            if (mrow[col[k]] != UINT32_MAX)
                to[n++] = mrow[col[k]];
    }
    sfirst[n_rows] = n;
    return sa__sccs(c, n_rows, sfirst, to, comp);
}

uint32_t sa__union_dm(sa_ctx *c, uint32_t n_rows, uint32_t n_cols, const size_t *first,
                      const uint32_t *col, const int *row_edge, uint32_t *block_of_row,
                      uint32_t *block_of_col, uint8_t *kind)
{
    uint32_t *mcol = sa__alloc_raw(c, ((size_t)n_rows + 1) * sizeof *mcol);
    uint32_t *mrow = sa__alloc_raw(c, ((size_t)n_cols + 1) * sizeof *mrow);
    memset(mrow, 0xff, ((size_t)n_cols + 1) * sizeof *mrow);
    for (uint32_t a = 0; a < n_rows; a++) {
        mcol[a] = row_edge[a] < 0 ? UINT32_MAX : col[row_edge[a]];
        if (row_edge[a] >= 0)
            mrow[mcol[a]] = a;
    }
    side rows = {n_rows, n_cols, first, col, mcol, mrow};
    choose_unmatched(c, &rows);
    side cols = {n_cols, n_rows, NULL, NULL, mrow, mcol};
    transpose(c, &rows, &cols);
    choose_unmatched(c, &cols);
    uint32_t *comp = sa__alloc(c, ((size_t)n_rows + 1) * sizeof *comp);
    uint32_t n_scc = matched_sccs(c, n_rows, first, col, mcol, mrow, comp);
    /* Block ids in order of first appearance: a matched row by its
     * component, an unmatched row alone, then the unmatched columns. */
    uint32_t *id = sa__alloc_raw(c, ((size_t)n_scc + 1) * sizeof *id);
    memset(id, 0xff, ((size_t)n_scc + 1) * sizeof *id);
    uint32_t nb = 0;
    for (uint32_t a = 0; a < n_rows; a++) {
        if (mcol[a] == UINT32_MAX) {
            kind[nb] = SA_UBLOCK_OVER;
            block_of_row[a] = nb++;
            continue;
        }
        if (id[comp[a]] == UINT32_MAX) {
            id[comp[a]] = nb;
            kind[nb++] = SA_UBLOCK_SQUARE;
        }
        block_of_row[a] = id[comp[a]];
    }
    for (uint32_t j = 0; j < n_cols; j++) {
        if (mrow[j] != UINT32_MAX) {
            block_of_col[j] = block_of_row[mrow[j]];
        } else {
            kind[nb] = SA_UBLOCK_UNDER;
            block_of_col[j] = nb++;
        }
    }
    return nb;
}
