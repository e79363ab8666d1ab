/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sm.h -- structural analysis of ONE mode: the ordinary single-mode
 * algorithms (maximum matching, maximum-weight perfect matching, Pryce's
 * canonical offsets, Dulmage-Mendelsohn coarse parts) on the bipartite
 * graph of a mode.
 *
 * Why (issue 10): the implicit engine (sa_*) represents every mode at once
 * on BDDs; on a component whose perfect matchings have no locality that can
 * blow up even with two modes, where analysing each valid mode by itself
 * costs microseconds. sa_analyze then enumerates the component's valid
 * modes, solves each here, and builds the same all-modes result as BDDs
 * (engine/sa_enum.c). The benchmarks also use sm_model_mode as the floor
 * an all-modes analysis is judged against.
 *
 * What one mode gives, on a graph of rows (equations) and columns
 * (unknowns) with edge weights sigma >= 0 (highest derivative orders):
 *   - perfect: the graph is square and has a perfect matching;
 *   - if perfect: the maximum-weight perfect matching that is
 *     lexicographically smallest in a given edge order (edges false before
 *     true, first edge of the order first): the one sa__choose picks in the
 *     BDD variable order, so both paths choose the same matching; and
 *     Pryce's canonical (smallest) offsets c_i, d_j (d_j - c_i >= sigma_ij,
 *     equality on the matching), which do not depend on the matching;
 *   - if not: the coarse Dulmage-Mendelsohn parts, rows that some maximum
 *     matching leaves unmatched (overdetermined) and columns likewise
 *     (underdetermined).
 * Algorithms: successive shortest paths with potentials (Dijkstra on
 * reduced costs, sparse) for the maximum-weight perfect matching, which
 * also finds out whether there is one; where there is none, Kuhn's
 * augmenting paths (iterative) for a maximum matching and the DM parts by
 * alternating reachability from unmatched vertices; Pryce's fixpoint from
 * c = 0 as a worklist; the lexicographic choice greedily on the tight edges
 * of the canonical dual (by complementary slackness, the maximum-weight
 * perfect matchings are exactly the perfect matchings of the tight edges),
 * one alternating-cycle search per matched edge, inside its fine block of
 * the tight graph (a row alone in its block needs none). Cost: O(rows *
 * edges) per mode at worst, near-linear on the papers' chains and on the
 * MSL's models, whose blocks are small.
 *
 * Promises: no I/O, no logging, no global state, no BuDDy; reentrant (one
 * workspace per thread). Never recursive on the graph (no stack depth
 * limit). Errors: MDAE_OK, MDAE_E_NOMEM, MDAE_E_INVAL (bad arguments),
 * MDAE_E_LIMIT (the offsets did not converge within their bound: only a
 * broken invariant can cause it).
 *
 * Ownership: a workspace (sm_ws_new / sm_ws_free) owns the arrays of the
 * last solution; they are valid until the next sm_solve on it. The graph is
 * borrowed for the call.
 */
#ifndef SM_H
#define SM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"
#include "mel.h"

/* A bipartite graph in compressed rows: the edges of row i are
 * row_first[i] .. row_first[i + 1] - 1, edge e goes to column col[e] with
 * weight sigma[e] (0 <= sigma <= MEL_MAX_ORDER). At most one edge per
 * (row, column). order lists the n_edges edge indices in the order of the
 * lexicographic choice (a permutation); NULL means index order. */
typedef struct sm_graph {
    uint32_t n_rows, n_cols;
    const size_t *row_first; /* borrowed; n_rows + 1 */
    const uint32_t *col;     /* borrowed; n_edges */
    const int *sigma;        /* borrowed; n_edges */
    const uint32_t *order;   /* borrowed; n_edges or NULL */
} sm_graph;

/* The analysis of one graph. Arrays belong to the workspace (see above). */
typedef struct sm_solution {
    bool perfect;
    long weight;          /* perfect: the weight of the matching; else -1 */
    uint32_t max_matching; /* cardinality of a maximum matching */
    int *row_edge;        /* n_rows: edge of the chosen matching (perfect),
                             else the edge of a maximum matching or -1 */
    int *c;               /* n_rows: canonical offsets (perfect), else 0 */
    int *d;               /* n_cols: likewise */
    bool *over;           /* n_rows: overdetermined (not perfect), else false */
    bool *under;          /* n_cols: underdetermined (not perfect), else false */
    uint32_t iterations;  /* rows updated by the offsets' worklist */
} sm_solution;

typedef struct sm_ws sm_ws;

/* New workspace (owned: sm_ws_free), NULL on OOM. It grows to the largest
 * graph solved on it. */
MDAE_API sm_ws *sm_ws_new(void);
MDAE_API void sm_ws_free(sm_ws *ws /* NULL ok */);

/* Analyse g. On MDAE_OK *out points into the workspace (valid until the next
 * call on ws). */
MDAE_API int sm_solve(sm_ws *ws, const sm_graph *g /* borrowed */,
                      const sm_solution **out /* out */);

/* sm_solve without the lexicographic choice: the same perfect, c, d (the
 * canonical offsets do not depend on the matching) and DM parts; row_edge
 * is a maximum-weight perfect matching on tight edges, not the chosen one.
 * For callers that read the offsets only (a sampled mode's shift,
 * engine/sa_tight.c), where the choice was a third of the solve. */
MDAE_API int sm_offsets(sm_ws *ws, const sm_graph *g /* borrowed */,
                        const sm_solution **out /* out */);

/* A maximum matching of g only, weights ignored (g->sigma may be NULL):
 * *out's perfect, max_matching and row_edge; its other fields are not
 * computed. For callers that need the structure alone (the union graph's
 * blocks, sa_blocks.c), where sm_solve's offsets and choice are waste. */
MDAE_API int sm_max_matching(sm_ws *ws, const sm_graph *g /* borrowed */,
                             const sm_solution **out);

/* Tests: sm_max_matching by Kuhn's depth-first search (sm_solve's, the
 * path before the breadth-first one) when set. Process-global. */
extern bool sm__max_matching_kuhn;

/* ---- One mode of a model ------------------------------------------------
 * The same analysis on the active graph of a model in one mode, as plain
 * arrays indexed like the model's equations and variables, with the
 * conventions of sa_mode_view (engine/sa.h): -1 / false where a quantity
 * does not apply. Active: an equation or variable whose guard holds; an
 * edge whose incidence has a case that holds, between active ends. */
typedef struct sm_mode {
    bool valid;            /* every invariant holds */
    bool singular;         /* valid and no perfect matching */
    bool *eq_active;       /* n_equations */
    bool *var_active;      /* n_variables */
    int *c;                /* n_equations: -1 unless valid, nonsingular, active */
    int *d;                /* n_variables: likewise */
    int *matched_var;      /* n_equations: the chosen matching's variable */
    long *matched_edge;    /* n_equations: its incidence (numbered in model
                              order, equation by equation), or -1; in a
                              singular mode, the edge of a maximum
                              matching, or -1 (sa_blocks.c needs one) */
    bool *overdetermined;  /* n_equations; only in singular modes */
    bool *underdetermined; /* n_variables; only in singular modes */
} sm_mode;

/* A frame: the fixed structure the modes of one model share (equations,
 * variables, incidences numbered equation by equation, and the incidences'
 * ranks in the lexicographic choice), with the buffers to solve one mode at
 * a time without allocating. Used by sm_model_mode and by the implicit
 * engine's enumeration path (engine/sa_enum.c), which evaluates activity
 * on its own encoding. */
typedef struct sm_frame sm_frame;

/* New frame (owned: sm_frame_free) for n_eq equations and n_var variables;
 * the incidences of equation i are eq_first[i] .. eq_first[i + 1] - 1, on
 * variables edge_var[e] (one incidence per (equation, variable)); edge_rank
 * (may be NULL: index order) ranks them for the choice (distinct values).
 * Arrays are copied. */
MDAE_API int sm_frame_new(uint32_t n_eq, uint32_t n_var, const size_t *eq_first,
                          const uint32_t *edge_var, const uint32_t *edge_rank,
                          sm_frame **out /* out */);
MDAE_API void sm_frame_free(sm_frame *f /* NULL ok */);

/* Solve the mode given by what is active in it: eq_active[i], var_active[j],
 * edge_sigma[e] (-1: the incidence is not active; else its order). The mode
 * is taken as valid. On MDAE_OK *out points into the frame (valid until the
 * next call): `singular` says whether the active graph has no perfect
 * matching; c, d, matched_* where it has one; the DM parts where not. */
MDAE_API int sm_frame_solve(sm_frame *f, const bool *eq_active, const bool *var_active,
                            const int *edge_sigma, const sm_mode **out /* out */);
/* sm_frame_solve by sm_offsets: c, d and singular as sm_frame_solve's;
 * matched_* of a maximum-weight perfect matching, not the chosen one. */
MDAE_API int sm_frame_offsets(sm_frame *f, const bool *eq_active, const bool *var_active,
                              const int *edge_sigma, const sm_mode **out /* out */);

/* The analysis of m in mode (mode[k] = value of mode variable k; NULL if m
 * has no mode variable), with the lexicographic choice in model order. On
 * MDAE_OK *out is filled (arrays owned by it: sm_mode_close). */
MDAE_API int sm_model_mode(const mel_model *m /* borrowed */, const bool *mode,
                           sm_mode *out /* out */);
MDAE_API void sm_mode_close(sm_mode *v /* safe twice, and on a zeroed struct */);

/* ---- Strongly connected components ---------------------------------------
 * Tarjan's, iterative (chains can be long), on the digraph of n nodes whose
 * successors of node x are to[first[x] .. first[x + 1]). comp[x] := its
 * component, numbered in reverse topological order (a component's
 * successors have smaller numbers); returns their number. The work arrays
 * are the caller's, n + 1 elements each (they need not be cleared); no
 * allocation. Used by the choice (sm_solve.c), the union-graph blocks
 * (sa_blocks.c) and the dependency graph (cdg_build.c). */
typedef struct sm_scc_work {
    uint32_t *index, *low, *stack, *call;
    size_t *pos;
    bool *on;
} sm_scc_work;

MDAE_API uint32_t sm_sccs(uint32_t n, const size_t *first, const uint32_t *to,
                          uint32_t *comp /* out: n */, const sm_scc_work *work);

#endif /* SM_H */
