/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/inc.h -- incremental re-analysis after edits (issue 6): a session
 * that keeps the analyses of the model's independent parts across versions
 * and re-analyses only the parts an edit touched.
 *
 * Why: an editor re-analyses after every keystroke; most edits leave most of
 * the model alone. Each session (one per worker process) keeps its cache.
 *
 * The decomposition, and why it is exact. Take the bipartite incidence graph
 * over ALL modes: equation i and variable j are linked iff the model has an
 * incidence (i, j), whatever its guards (an edge whose guards are never true
 * only makes a component larger, never wrong). Its connected components C_k
 * (an equation or variable with no incidence is a component of its own)
 * split every per-mode quantity of sa.h and cdg.h exactly:
 *   - in a mode m, the active graph is the disjoint union of its restrictions
 *     to the C_k, so a perfect matching of the whole is exactly a union of
 *     perfect matchings of the parts, and the weight is the sum: the mode is
 *     nonsingular iff every part is, and the MWPMs are the unions of the
 *     parts' MWPMs;
 *   - Pryce's dual (d_j >= c_i + sigma_ij, c_i = d_j - sigma on the matching)
 *     has no constraint across parts, so the smallest (canonical) offsets are
 *     the parts' smallest offsets;
 *   - the Dulmage-Mendelsohn coarse parts are defined by alternating paths
 *     from unmatched vertices of a maximum matching, which never leave a
 *     part: the overdetermined equations and underdetermined variables of a
 *     singular mode are the union of those of the singular parts (a part
 *     with a perfect matching has none);
 *   - the dependency graph (saturated edges) never crosses parts, so the
 *     blocks (its SCCs) and block edges of a mode are the union of the
 *     parts' blocks and edges.
 * Validity is global: every part gets ALL mode variables and ALL invariants
 * (and its own variables' guards), so the parts agree on which modes are
 * valid; a part's singular set is "valid modes where this part has no
 * perfect matching", the model's singular set is their union, and a mode's
 * offsets and blocks are reported only where no part is singular (each part
 * computed them where IT is nonsingular: the composition masks the rest).
 *
 * Cache. A part is keyed by a canonical serialisation of its structure: the
 * mode variable names and the invariants (shared by all parts), then its
 * equations (name, guard, incidences with local variable numbers, each case's
 * guard and order) and its variables (name, guard), in model order. Guards
 * are serialised as DAGs (each shared node once), so the key is linear in
 * the model. Keys are compared in full (a hash only speeds the search): two
 * parts with equal keys have identical sub-models, hence identical analyses.
 * A cached part owns a deep copy of its sub-model (names, guards, ranges),
 * so it never depends on the mel_model of the version that produced it.
 * Entries unused by the last INC_KEEP_GENERATIONS analyses are dropped
 * (results still referencing them keep them alive: reference counts). The
 * cached parts' BDD nodes count against the node limit (sa_set_node_limit):
 * when a part's analysis hits it, the entries the current analysis does not
 * use are dropped and the part is analysed once more, so keeping a cache
 * never makes an analysis fail that would succeed cold (unless the caller
 * itself keeps old results alive).
 *
 * Block ids. A block's identity is its equations, unknowns and reads as
 * (name, order) sets (cdg.h). The session maps identities to ids once and
 * for all, so a block that did not change keeps its id in every later
 * version (its guard may still change: a diff reports it as changed).
 *
 * Where this helps, and where it does not (tests/bench/bench_edit.c,
 * Release, the shared 2-core box with other jobs running, 2026-11-21; two
 * runs differed by up to 8x on the building, so only the shape is
 * meaningful): the compressible building and the brake are ONE component
 * each (the corridor / the brake line chains every room / car), so an edit
 * that changes the structure anywhere recomputes everything. Second run,
 * seconds and ratio to cold: building N=20 cold 1.59, (a) one equation
 * instance 1.87 (1.18), (b) one guard instance 1.94 (1.22), (c) N+1 2.19
 * (1.38); N=40 cold 12.6, (a) 0.73, (b) 0.72, (c) 1.13; brake N=50 cold
 * 0.31, (a) 0.62, (b) 0.85, (c) 1.08; N=100 cold 1.18, (a) 0.73, (b) 0.95,
 * (c) 1.15. Ratios below 1 come from a warm BuDDy table, above 1 from the
 * cached parts' nodes making collections dearer, not from reuse. An edit
 * that keeps the structure (a comment, a constant, a moved line, going back
 * to an earlier N) is a cache hit: 2-15 ms, ratio <= 0.013. The issue's
 * targets for (a)-(c) (<= 10 % / <= 30 % of cold) are NOT met.
 *
 * A finer exact decomposition (not built). What would fit the chains: (1)
 * per-equation encodings (chi_E, sigma of each edge, RR-9322 4.3) depend
 * only on that equation's incidences and guards and on the mode variables,
 * so they could be cached by the equation's key if the BDD variable layout
 * were kept stable across versions (the engine lays variables out anew per
 * analysis: sa_encode.c); the encoding is not where the time goes for these
 * models, though: the matching/offset fixpoints over the whole chain are. (2)
 * A decomposition of the matching itself: an equation or variable whose
 * matched partner is the same in every valid mode (e.g. `dt` and `t`, or
 * the plug equations) could be peeled off with its offsets computed
 * locally, splitting the chain at each such pair only when the pair's
 * offsets do not feed back (Pryce's dual couples the whole chain through
 * d_j >= c_i + sigma_ij); checking that exactly needs the all-modes dual of
 * the rest, so it was left as future work.
 *
 * Promises: no I/O, no logging. Uses the process-global BuDDy manager
 * through sa_analyze/cdg_build (sa_begin() first; single-threaded). Several
 * parts' sa_results are alive at once; each has its own BDD variable map
 * and their BDDs are never combined: composition is done per mode, on the
 * parts' mode views.
 *
 * Errors: those of sa_analyze and cdg_build (MDAE_E_MODEL with located
 * diagnostics from every part, deduplicated), MDAE_E_INVAL, MDAE_E_NOMEM.
 * On failure nothing is written to *out and the cache stays consistent.
 *
 * Ownership: an inc_session is owned by its creator (inc_session_free, before
 * sa_end). The model passed to inc_analyze is borrowed for the call only.
 * An inc_result is owned by the caller (inc_result_free, before the session
 * is freed); names in it are borrowed from the session's cache.
 */
#ifndef INC_H
#define INC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdg.h"
#include "mdae.h"
#include "mel.h"
#include "sa.h"

#define INC_KEEP_GENERATIONS 4

typedef struct inc_session inc_session;
typedef struct inc_result inc_result;

/* What an analysis reused: parts (components) in the model, found in the
 * cache, analysed anew (components == reused + recomputed); of the parts
 * analysed anew, the equations whose offsets were seeded from the previous
 * version (sa_options.hint: matched by name) and the parts that still needed
 * the full search for optimal matchings (sa_result_searched). */
typedef struct inc_stats {
    size_t components;
    size_t reused;
    size_t recomputed;
    size_t seeded;
    size_t searched;
} inc_stats;

/* New empty session (owned: inc_session_free). */
MDAE_API int inc_session_new(inc_session **out /* out */);
/* Free the session and its cache; every inc_result must be freed first.
 * NULL ok. */
MDAE_API void inc_session_free(inc_session *s /* takes ownership */);
/* Totals over the session's analyses, and the cache size. */
MDAE_API void inc_session_stats(const inc_session *s, inc_stats *total /* out */,
                                size_t *cached /* out; may be NULL */);

/* Analyse m (borrowed for the call), reusing the session's cache. opt may be
 * NULL. On MDAE_OK *out is new (owned: inc_result_free). */
MDAE_API int inc_analyze(inc_session *s, const mel_model *m, const sa_options *opt,
                         inc_result **out /* out */, mdae_diags *diags);
MDAE_API void inc_result_free(inc_result *r /* takes ownership; NULL ok */);
MDAE_API void inc_result_stats(const inc_result *r, inc_stats *out /* out */);

/* Number of parts (connected components) of m; no BDD work. */
MDAE_API int inc_model_parts(const mel_model *m, size_t *out /* out */);

/* The all-modes result and dependency graph of the whole model, exactly
 * those of a cold sa_analyze + cdg_build of m (same BDDs, hence the same
 * reports byte for byte). m must be the model given to inc_analyze (checked
 * by its counts only) and outlive r. With one part they are the part's own
 * (its numbering is the model's); with several, they are composed from the
 * parts' results by sa_compose (no solving: the model is encoded again and
 * the parts' functions carried over, engine/sa_compose.c) and cdg_build on
 * the composition, on the first call (opt: progress and cancellation, may
 * be NULL; diags as cdg_build's). *res and *graph are borrowed: valid while
 * r lives; never free them. */
MDAE_API int inc_result_whole(inc_result *r, const mel_model *m, const sa_options *opt,
                              sa_result **res /* out */, cdg_graph **graph /* out */,
                              mdae_diags *diags);

/* The blocks of the whole model (over all modes), as cdg_block identities
 * with indices into the analysed model's equations/variables and the
 * session-stable ids. k < inc_result_n_blocks(r); blocks are sorted by id.
 * *out borrows the result's arrays. */
MDAE_API size_t inc_result_n_blocks(const inc_result *r);
MDAE_API int inc_result_block(const inc_result *r, size_t k, cdg_block *out /* out */);
/* Same, by stable id; MDAE_E_INVAL if the result has no block with this id. */
MDAE_API int inc_result_block_by_id(const inc_result *r, uint32_t id,
                                    cdg_block *out /* out */);

/* One mode of the composed result (see the header comment): the sa view
 * with the analysed model's indexing, then the active blocks (stable ids) in
 * a valid solving order (the parts' orders concatenated: no edge crosses
 * parts) and the active edges as (from, to) pairs of stable ids. */
typedef struct inc_mode_view {
    sa_mode_view sa;
    size_t n_blocks;
    uint32_t *blocks;
    size_t n_edges;
    uint32_t *edges;
} inc_mode_view;

MDAE_API int inc_result_mode(const inc_result *r, const bool *mode,
                             inc_mode_view *out /* out; inc_mode_view_close */);
MDAE_API void inc_mode_view_close(inc_mode_view *v /* NULL ok; safe twice */);

#endif /* INC_H */
