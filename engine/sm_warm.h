/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sm_warm.h -- the canonical offsets of one mode of an edited graph,
 * from those of the same mode before the edit (issue 40: the seeded rounds'
 * sample, engine/sa_tight.c, solved one mode of the whole component, 124 M
 * instructions of an edit of the brake at N = 10,000, to learn the shift of
 * the few rows the edit touched).
 *
 * The question is sm_offsets' (sm.h): whether the mode's active graph has a
 * perfect matching and, if so, its canonical offsets c (Pryce's least
 * solution). The answer is the same, computed from the previous version's
 * answer in the same mode: its canonical offsets c0 and a maximum-weight
 * perfect matching T0 (both versions' graphs share rows, columns and edges
 * by index; only the listed rows, columns and edges may differ, in activity
 * or weight). Everything is read on demand through callbacks, so that the
 * work follows the edit: what is never reached is never evaluated.
 *
 * Why it is exact (proof sketch; the lemmas are the classical ones).
 *  1. Matching. (u, v) = (c0, d0), d0_j = c0_i + sigma_ij on T0, is a
 *     feasible dual of the old graph (d_j - c_i >= sigma_ij, equality on
 *     T0). It stays feasible on every unchanged edge between rows and
 *     columns that keep their potentials. The rows whose matched edge the
 *     edit broke (an edge changed, a row or column gone), new rows, and the
 *     rows of a changed edge that violates feasibility are freed; a new
 *     column takes d_j = max over its edges from the kept rows of c_k +
 *     sigma_kj, and each free row c_i = min over its edges of d_j - sigma_ij:
 *     the dual is feasible and every kept matched edge tight. Successive
 *     shortest augmenting paths (Dijkstra on the reduced costs, as
 *     sm_solve.c) from each free row then keep it so and end with a perfect
 *     matching T of tight edges: of maximum weight (duality). A search that
 *     reaches no free column proves there is no perfect matching (Berge: some
 *     maximum matching leaves that row out), and so does a mode where the
 *     active rows and columns are not as many.
 *  2. Offsets. With T fixed, let F(c)_i = max over the edges (k, T(i)) of
 *     c_k + sigma_k,T(i) - sigma_i,T(i) (k = i included, so F(c) >= c): the
 *     canonical offsets are the least fixed point of F over c >= 0, i.e. the
 *     longest paths ending at i in the digraph D_T with an arc k -> i of that
 *     weight per edge (k, T(i)) (no positive cycle: T is of maximum weight),
 *     and they do not depend on which maximum-weight T (Pryce). From any
 *     start 0 <= x <= lfp, the worklist (raise x_i to F(x)_i, then recheck
 *     the rows that read the columns of i's edges) ends at a pre-fixed point
 *     below lfp, hence at lfp (Knaster-Tarski: lfp is the least pre-fixed
 *     point), provided every row with F(x)_i > x_i starts in the worklist.
 *  3. The start. Let Z be the rows whose incoming arcs differ between D_T0
 *     (old) and D_T (new): T(i) != T0(i), or T(i)'s column has a changed
 *     edge, a changed row or is itself changed (CC). Let Del be the closure
 *     of (Z's old rows with c0 > 0) under old tight arcs k -> i (c0_k +
 *     sigma_k,T0(i) = d0_T0(i)) into rows with c0_i > 0. Start from x = 0 on
 *     Del and Z, c0 elsewhere. (a) x <= lfp: a row i outside Del with c0_i >
 *     0 has a longest path in D_T0 whose arcs are all tight; walking it back
 *     from i, every row with c0 > 0 met is outside Del (else i would be in
 *     Del), hence outside Z: its incoming arcs, including the path's, are in
 *     D_T with the same weights, down to a row with c0 = 0 <= its new
 *     offset; so lfp_i >= c0_i. (b) A row i outside Z and Del has the same
 *     incoming arcs, from rows whose x is at most their c0, so F(x)_i <=
 *     F0(c0)_i = c0_i = x_i: only Z and Del need to start in the worklist.
 *     Rows outside both that the worklist never raises keep c0: their new
 *     offsets are their old ones. Over-approximating Z (a row re-matched
 *     to its old edge counted as moved) only enlarges Del and the start.
 *
 * Cost: the rows and columns within reach of the edit (the freed rows'
 * searches, Del's closure, the worklist's raises) and their edges, each
 * evaluated once per mode. A solve that reaches more rows than the budget
 * given gives up (the caller then solves the mode whole): near-linear
 * searches on a connected tight graph could otherwise cost more than the
 * cold solve they replace.
 *
 * Promises: no I/O, no BuDDy, no global state; reentrant (one object per
 * caller). The graph's arrays are borrowed for the object's life.
 */
#ifndef SM_WARM_H
#define SM_WARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"

/* Both versions of a graph in one mode, read on demand. Rows, columns and
 * edges are shared by index: edge e is row edge_row[e] to column col[e];
 * the edges of row i are row_first[i] .. row_first[i + 1] - 1, those of
 * column j col_edges[col_first[j] .. col_first[j + 1]). Only the edges,
 * rows and columns flagged changed may differ between the versions (old:
 * before the edit); everything else is read once (old = false) for both.
 * An edge counts where the callback says it is active and both its ends
 * are active (the callback need not check them). */
typedef struct sm_warm_graph {
    uint32_t n_rows, n_cols;
    size_t n_edges;
    const size_t *row_first;  /* n_rows + 1 */
    const uint32_t *col;      /* n_edges */
    const uint32_t *edge_row; /* n_edges */
    const size_t *col_first;  /* n_cols + 1 */
    const size_t *col_edges;  /* n_edges */
    void *ctx;
    /* The order of edge e in the version, -1 if inactive there. */
    int (*sigma)(void *ctx, size_t e, bool old);
    bool (*row_active)(void *ctx, uint32_t i, bool old);
    bool (*col_active)(void *ctx, uint32_t j, bool old);
    /* The old version's canonical offset of row i (0 if inactive there). */
    int (*offset)(void *ctx, uint32_t i);
    /* Whether edge e is in the old version's maximum-weight perfect
     * matching (false where inactive). */
    bool (*matched)(void *ctx, size_t e);
} sm_warm_graph;

typedef struct sm_warm sm_warm;

/* A new object (owned: sm_warm_free) for g (borrowed, with its arrays) and
 * the changed items: the listed edges, rows and columns (copied; repeats
 * allowed). NULL on OOM or a bad graph. */
MDAE_API sm_warm *sm_warm_new(const sm_warm_graph *g, const size_t *edges, size_t n_edges,
                              const uint32_t *rows, size_t n_rows, const uint32_t *cols,
                              size_t n_cols);
MDAE_API void sm_warm_free(sm_warm *w /* NULL ok */);
/* The same in the caller's memory (an analysis's temporaries, freed with
 * them however it ends): the bytes it needs (0: a bad graph), then the
 * object in mem (any content, max_align_t-aligned; NULL if too small). Only
 * the stamps and flags are written before a solve reads them: the rest of
 * the block is touched only where a solve reaches. */
MDAE_API size_t sm_warm_size(const sm_warm_graph *g, const size_t *edges, size_t n_edges,
                             const uint32_t *rows, size_t n_rows, const uint32_t *cols,
                             size_t n_cols);
MDAE_API sm_warm *sm_warm_init(void *mem, size_t size, const sm_warm_graph *g,
                               const size_t *edges, size_t n_edges, const uint32_t *rows,
                               size_t n_rows, const uint32_t *cols, size_t n_cols);

#define SM_WARM_GAVE_UP (-1)  /* past the budget: solve the mode whole */
#define SM_WARM_SINGULAR 0    /* the new graph has no perfect matching */
#define SM_WARM_PERFECT 1     /* it has one: sm_warm_rows says its offsets */

/* Solve the current mode (the callbacks' ctx says which; the old version
 * must have a perfect matching there, with offset and matched its
 * canonical offsets and a maximum-weight perfect matching), reaching at
 * most budget rows. Every call forgets the previous one's answers. */
MDAE_API int sm_warm_solve(sm_warm *w, uint32_t budget);

/* After SM_WARM_PERFECT: the rows (*rows, n of them; the object's, valid
 * until the next solve) whose new offset may differ from the old one, each
 * active in the new version, and their new offsets (*c, in the same order).
 * Every other row active in the new version was active in the old one,
 * with the same offset. */
MDAE_API size_t sm_warm_rows(const sm_warm *w, const uint32_t **rows, const int **c);

/* After SM_WARM_PERFECT: whether row i is among sm_warm_rows' (O(1)). */
MDAE_API bool sm_warm_listed(const sm_warm *w, uint32_t i);

#endif /* SM_WARM_H */
