/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/cdg.h -- mode-dependent equation blocks and the conditional
 * dependency graph (CDG) of a multimode DAE, for all modes at once (RR-9322
 * sections 3.3 and 4.6; the Water Tank's CDG in RR-9459 section 4.1, Fig. 10).
 *
 * Why: the offsets of sa_analyze() say *what* to solve; the blocks and their
 * dependencies say *how*: which equations, differentiated how many times,
 * are solved together for which unknowns, in which order, in which modes.
 * This is what a code generator consumes and what a modeler reads.
 *
 * Semantics, in one valid nonsingular mode m (RR-9322 3.3). After the
 * Sigma-method (offsets c_i, d_j, chosen MWPM i -> j(i)), the system F^(C)
 * has the equations f_i^(c_i) and the unknowns x_j^(d_j). An active edge
 * (i, j) is *saturated* iff d_j = c_i + sigma_ij. Equation i' depends on i
 * (i -> i') iff i' != i and (i', j(i)) is saturated. A *block* is a strongly
 * connected component of this graph, identified by
 *   - equations: {(i, c_i)} for i in the component,
 *   - unknowns:  {(j(i), d_j(i))} for i in the component,
 *   - reads:     {(j, c_i + sigma_ij) : i in the component, (i, j) active,
 *                 (j, c_i + sigma_ij) not an unknown of the block}
 *     (the highest derivative of each variable in f_i^(c_i): an unknown
 *     written by another block when the edge is saturated, else a state).
 * Block A -> block B (A != B) iff an equation of B has a saturated edge to an
 * unknown of A; equivalently iff reads(B) and unknowns(A) share a pair
 * (variable, order). These blocks are those of the fine Dulmage-Mendelsohn
 * (block triangular) decomposition of the leading-level system, so they do
 * not depend on which MWPM was chosen: a brute-force reference may compare
 * them with its own, mode by mode.
 *
 * All modes at once (RR-9322 4.6). A cdg block is one such identity (the
 * three sets above) with a *guard*: the set of valid nonsingular modes in
 * which it is a block of the mode (the union of all modes giving the same
 * block). Two blocks that share equations but differ in orders, unknowns or
 * reads are distinct. An edge A -> B has a guard too: the modes where both
 * are blocks and B depends on A. In every valid nonsingular mode, the blocks
 * whose guard holds partition the active equations and the active
 * variables' leading derivatives. Invalid and singular modes have no
 * blocks. Modes are never enumerated: see engine/cdg_build.c.
 *
 * Promises: no I/O, no logging. Like sa_*, uses the process-global BuDDy
 * manager (sa_begin() first; single-threaded). Deterministic: block ids are
 * 0..n_blocks-1 in a canonical order (by smallest equation index, then by
 * content), independent of the BDD variable order; edges are sorted by
 * (from, to).
 *
 * A graph built with sa_options.families has its blocks but no edges
 * (engine/cdg_family.h finds the families' edges from their items): its
 * report, mode view and DOT answer MDAE_E_STATE.
 *
 * Errors: MDAE_OK, MDAE_E_INVAL, MDAE_E_STATE (no sa_begin), MDAE_E_NOMEM,
 * MDAE_E_BDD_LIMIT (node limit, see sa_set_node_limit), MDAE_E_BDD,
 * MDAE_E_CANCELED (progress callback; phases "dependencies", "blocks",
 * "edges"). On failure nothing is written to *out.
 *
 * Ownership: a cdg_graph borrows the sa_result (and through it the model);
 * both must outlive it. It holds referenced BDDs: free it with
 * cdg_graph_free() before sa_end(). Reports, views and DOT text are plain C
 * data owned by the caller (free functions below, which accept NULL); they
 * borrow names from the model.
 */
#ifndef CDG_H
#define CDG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"
#include "mel.h"
#include "sa.h"

typedef struct cdg_graph cdg_graph;

/* An equation or a variable with a differentiation order: f_index^(order)
 * or x_index^(order). */
typedef struct cdg_item {
    uint32_t index;   /* into mel_model.equations or .variables */
    int order;
    const char *name; /* borrowed from the model */
} cdg_item;

/* A block's identity. Arrays sorted by (index, order); an index appears once
 * in equations and unknowns, possibly several times (different orders) in
 * reads. */
typedef struct cdg_block {
    uint32_t id;
    size_t n_equations;
    const cdg_item *equations;
    size_t n_unknowns;      /* == n_equations */
    const cdg_item *unknowns;
    size_t n_reads;
    const cdg_item *reads;
} cdg_block;

/* Build the blocks and edges of an analysed model (sa_analyze() result, which
 * must outlive the graph). opt may be NULL. On MDAE_OK *out is new (owned:
 * cdg_graph_free). diags (may be NULL) receives a located-nowhere error on
 * MDAE_E_BDD_LIMIT, like sa_analyze. */
MDAE_API int cdg_build(const sa_result *r /* borrowed */, const sa_options *opt,
                       cdg_graph **out, mdae_diags *diags);
/* The same graph as cdg_build's, built from seed, the graph of a previous
 * version of the model (borrowed; NULL: none): when r is an edit of
 * seed's result that keeps the equations and variables by index and the
 * valid modes, only the union-SCCs the edit reaches are split again and
 * only the edges of their blocks found again; every other block (identity,
 * guard) and edge is the seed's. Otherwise, or when the seeded build meets
 * a limit or an error, a build from scratch (whose diagnostics diags
 * receives). seed and its result must be alive during the call only.
 * Why the kept blocks are the same: engine/cdg_build.c. */
MDAE_API int cdg_build_seeded(const sa_result *r /* borrowed */, const sa_options *opt,
                              const cdg_graph *seed /* borrowed; NULL ok */, cdg_graph **out,
                              mdae_diags *diags);
MDAE_API void cdg_graph_free(cdg_graph *g /* takes ownership; NULL ok */);

MDAE_API size_t cdg_graph_n_blocks(const cdg_graph *g);
/* Tests and benchmarks: the number of edges, the largest number of
 * equations in a block. */
MDAE_TEST_API size_t cdg_graph_n_edges(const cdg_graph *g);
/* The size limits of later builds: past max_edges edges, or past
 * max_key_ints items in all the blocks' identities together, cdg_build
 * fails with MDAE_E_LIMIT and a diagnostic naming the limit (0: the
 * defaults, 1,000,000 edges and 16,000,000 items; one mode's graph is
 * linear in the model, but the forms of a large block can multiply across
 * modes: engine/cdg_build.c). Process-global, like the node limit; tests
 * lower them because the defaults take gigabytes to reach. */
MDAE_TEST_API void cdg_set_limits(size_t max_edges, size_t max_key_ints);
MDAE_TEST_API size_t cdg_graph_max_block(const cdg_graph *g);
/* Tests and benchmarks: the union-SCCs of the dependency graph (the units
 * its blocks are split in: engine/cdg_build.c), and of those, the ones an
 * analysis seeded by a hint (sa_options.hint, whose graph was built) found
 * in the hint's memo instead of splitting them again. */
MDAE_TEST_API size_t cdg_graph_n_sccs(const cdg_graph *g);
MDAE_TEST_API size_t cdg_graph_sccs_reused(const cdg_graph *g);
/* Tests and benchmarks: the blocks a seeded build (cdg_build_seeded)
 * kept from its seed as they were. */
MDAE_TEST_API size_t cdg_graph_blocks_kept(const cdg_graph *g);
/* The identity of block `id` (no BDD work). *out borrows the graph's arrays:
 * valid while g lives. MDAE_E_INVAL if id >= n_blocks. */
MDAE_API int cdg_graph_block(const cdg_graph *g, uint32_t id, cdg_block *out /* out */);
/* Every block's identity at once: n_blocks of them, [k].id == k (no BDD
 * work; borrowed like cdg_graph_block's: valid while g lives). NULL when
 * g is NULL or has no blocks. */
MDAE_API const cdg_block *cdg_graph_blocks(const cdg_graph *g);
/* Edge k (sorted by (from, to)); MDAE_E_INVAL if k >= n_edges. Tests. */
MDAE_TEST_API int cdg_graph_edge(const cdg_graph *g, size_t k, uint32_t *from, uint32_t *to);

/* ---- Report: guards as formulas and cubes (sa_set, see sa.h) ------------ */
typedef struct cdg_report_block {
    cdg_block block;  /* arrays borrowed from the graph */
    sa_set guard;     /* owned by the report */
} cdg_report_block;

typedef struct cdg_report_edge {
    uint32_t from, to; /* block ids */
    sa_set guard;      /* owned by the report */
} cdg_report_edge;

typedef struct cdg_report {
    uint32_t n_modes;
    const char *const *mode_names; /* owned array, names borrowed from the model */
    size_t n_blocks;
    cdg_report_block *blocks; /* blocks[k].block.id == k */
    size_t n_edges;
    cdg_report_edge *edges;   /* sorted by (from, to) */
} cdg_report;

/* Guards in the report are exact on the valid modes, invalid modes being
 * don't-cares (as in sa_result_report: see sa.h for why). */
/* The graph with guards as formulas/cubes (owned: cdg_report_free). The
 * graph must outlive the report (the item arrays are borrowed from it). */
MDAE_API int cdg_graph_report(const cdg_graph *g, cdg_report **out);
MDAE_API void cdg_report_free(cdg_report *rep /* NULL ok */);

/* ---- One mode --------------------------------------------------------------
 * Obtained by evaluating the block and edge guards at the mode (no new
 * analysis, no new BDD nodes). */
typedef struct cdg_mode_view {
    bool valid;        /* the mode satisfies every invariant */
    bool singular;     /* valid and structurally singular: no blocks */
    size_t n_blocks;
    uint32_t *blocks;  /* owned: the active block ids in a valid solving order
                          (a topological order of the active edges; among
                          ready blocks, the smallest id first) */
    size_t n_edges;
    uint32_t *edges;   /* owned: 2 * n_edges ids, pairs (from, to), sorted */
} cdg_mode_view;

/* Fill *out (caller-allocated; arrays owned: cdg_mode_view_close) for
 * mode[k] = value of mode variable k (mode may be NULL when there are no
 * mode variables). MDAE_E_BDD if the active edges had a cycle (a bug). */
MDAE_API int cdg_graph_mode(const cdg_graph *g, const bool *mode, cdg_mode_view *out);
MDAE_API void cdg_mode_view_close(cdg_mode_view *v /* NULL ok; safe twice */);

/* ---- Graphviz ---------------------------------------------------------------
 * The CDG in DOT (RR-9322 Fig. 11, RR-9459 Fig. 10): one vertex per block,
 * labelled `p : R → B → W` where p is the guard's formula, minimised with
 * the invalid modes as don't-cares (so it may differ from the report's exact
 * formula: `bl` for `!bh & bl` under `invariant !(bh & bl)`; omitted with
 * its colon when true), R the reads (omitted with its arrow when empty), B
 * the equations, W the unknowns; one edge per block edge, labelled by its
 * guard's formula (minimised likewise; no label when true). Orders are
 * written with primes (x, x', x'', x''') and from 4 on as x^(4). Vertices
 * are named b<id>. UTF-8. *out is owned (mdae_free). */
MDAE_API int cdg_graph_dot(const cdg_graph *g, char **out);

#endif /* CDG_H */
