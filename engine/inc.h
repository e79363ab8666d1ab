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
 * Cache. A part is identified by its structure: the mode variable names
 * and the invariants (shared by all parts, a serialised prefix), then its
 * equations (name, guard, incidences with local variable numbers, each
 * case's guard and order) and its variables (name, guard), in model order.
 * A cached part is found by a hash of that structure and then compared in
 * full with the part's private model (guards as formulas): two parts found
 * equal have identical sub-models, hence identical analyses. The hash is
 * combined from one hash per equation and per variable, kept with the
 * part; after an edit, an equation equal to the one at the same place in
 * the part that seeds the new one (the previous version's, as a rule)
 * takes that hash instead of being hashed again (issue 40 item 3).
 * A cached part owns a copy of its sub-model (names, guards, ranges), so it
 * never depends on the mel_model of the version that produced it; the
 * equations, variables, modes and invariants an edit left alone (the same
 * structure at the same place) are shared with the previous version's copy
 * (its memory held by reference count, at most 8 versions deep).
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
 * A part analysed anew takes the ids of the blocks it shares with the
 * cached part that seeded it (the same indices, orders and names) and
 * keys only the others.
 *
 * The whole result. With several parts, inc_result_whole composes the
 * all-modes result from the parts' results (sa_compose: the model is
 * encoded again and each part's mode functions are carried into its
 * layout; engine/sa_compose.c says why this equals a cold analysis, BDD for
 * BDD) and builds the dependency graph on it, so reports, DOT and
 * differences are those of a cold analysis while only the edited parts were
 * solved again. (The graph is built again on the composition rather than
 * composed from the parts' graphs.)
 *
 * No finer exact decomposition of a chain (measured, tests/bench/README.md,
 * "Why the chains do not split further"). Before the offsets are known, an
 * exact decomposition can only use the incidence pattern, and the finest
 * one, in one mode, is the fine Dulmage-Mendelsohn form of that pattern.
 * bench_blocks measures it with the reference on 50 valid modes: at N = 40
 * the brake keeps at least 415 of its 443 equations in one block in every
 * sampled mode, the building at least 461 of 645; the Sigma method's own
 * blocks (at most 8 / 10 equations) exist only once the offsets say which
 * edges are saturated. So the parts below a connected component depend on
 * the offsets, a global optimum (Pryce's dual couples the chain through
 * d_j >= c_i + sigma_ij), and cannot be cut before solving.
 *
 * What is reused inside a component instead: the previous version's
 * offsets. A part analysed anew is seeded (sa_options.hint) with a cached
 * part holding some of its equations, equations and mode variables matched
 * by name: its offsets are a dual for the new primal problem (exact by LP
 * duality for any seed: a seed only changes the speed; the session seeds a
 * part only from a cached part holding its first, middle or last
 * equation). Where the seed's reduced costs are 0 on a perfect matching
 * of a mode, those matchings are the mode's optimal ones: the primal of
 * the component, or of each block of its union graph (sa_blocks.c), first
 * repairs the previous version's chosen matching near the edit
 * (engine/sa_repair.c), builds the perfect matchings of the cost-0 edges
 * only where the repair leaves modes, does the same for the offsets of a
 * mode sampled among those still left, and builds the set of all perfect
 * matchings and its dynamic programme only if some mode is left after
 * that (engine/sa_primal.c). Where the seed's tight graph splits into
 * small blocks in every mode (the brake's, whose cold analysis learns its
 * offsets), they are tried first on the whole (engine/sa_tight.c).
 *
 * And the previous version's solved blocks. A result keeps, in a memo
 * (engine/sa_memo.c), every block its primal solved (sa_blocks.c) and every
 * union-SCC its dependency graph split, with its edges' guards
 * (cdg_build.c), keyed by the BDD nodes and integers they were computed
 * from. The layout of BDD variables is row by row in declaration order, so
 * an edit that keeps the equations and edges keeps every index, and the
 * blocks it did not touch have the same nodes: the seeded analysis finds
 * them there instead of solving them again (the brake's edits: every
 * railcar's blocks and SCCs but the edited one's). A part's memo shares
 * the entries it found with its seed's (reference counts).
 *
 * Where the time goes (tests/bench/bench_edit.c, Release, 2-core VM,
 * 2026-11-27, BuDDy's caches emptied before each run; ratio to cold):
 * building N = 40 cold 0.16-0.19 s, (a) one equation's incidence 8.0-8.7 %,
 * (b) one guard 6.2-7.1 %, (c) N + 1 7.6-8.1 %; brake N = 100 cold
 * 0.0045-0.0048 s, (a) 24 %, (b) 25-27 %, (c) 25-28 %; an edit that keeps
 * the structure is a cache hit: under 1 ms. The brake's edit (a) is 13.9 M
 * instructions against 65.1 M cold, each phase a pass over the whole
 * component: the front-end 2.6 M, this session's split, keys, private
 * model and block ids 2.3 M, the encoding 0.7 M, the seeded round 3.1 M,
 * the offsets 1.4 M, the dependency graph 3.6 M. Its 10 % target needs
 * every one of them driven by what the edit changed (tests/bench/README.md,
 * "twelfth stop").
 *
 * Promises: no I/O, no logging. Uses the process-global BuDDy manager
 * through sa_analyze/cdg_build (sa_begin() first; single-threaded). Several
 * parts' sa_results are alive at once; each has its own BDD variable map;
 * their BDDs are combined only by sa_compose, which carries them into the
 * whole model's map first; per-mode views are composed on the parts'
 * mode views.
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
 * version (sa_options.hint: matched by name, or a new array instance by its
 * neighbour, sa_hint.c) and the parts that still needed
 * the full search for optimal matchings (sa_result_searched). */
typedef struct inc_stats {
    size_t components;
    size_t reused;
    size_t recomputed;
    size_t seeded;
    size_t searched;
    /* Of the parts analysed anew, how (issue 10, sa_options.method): on
     * BDDs, by enumerating their valid modes, and how many of those
     * enumerated after the implicit path exceeded its budget. */
    size_t implicit;
    size_t enumerated;
    size_t fell_back;
    /* Analyses whose split into parts was the previous analysis's, found
     * by comparing the incidences instead of a union-find (issue 40 item
     * 3: an edit that leaves every equation's variables alone). */
    size_t split_kept;
    /* Equations and variables found the same as the previous model's by
     * pointer (inc_session_since) instead of by contents. */
    size_t by_pointer;
    /* Of those, the equations whose locations moved (the text before
     * them changed length). */
    size_t moved_by_pointer;
} inc_stats;

/* New empty session (owned: inc_session_free). */
MDAE_API int inc_session_new(inc_session **out /* out */);
/* Free the session and its cache; every inc_result must be freed first.
 * NULL ok. */
MDAE_API void inc_session_free(inc_session *s /* takes ownership */);
/* Totals over the session's analyses, and the cache size. */
MDAE_TEST_API void inc_session_stats(const inc_session *s, inc_stats *total /* out */,
                                size_t *cached /* out; may be NULL */);

/* since is the model of s's last analysis that succeeded, alive
 * (borrowed) until the next inc_analyze or inc_analyze_offsets call on s
 * returns (NULL: nothing known); typically the model that call's was
 * parsed from (mel_options.since). That call then compares what since
 * shares with its model (the same names, guards, incidences at the same
 * index: engine/inc_session.c, "Since") by pointer instead of by contents
 * (issue 40 item 3: the brake's edit at N = 10,000 compared 120,003
 * equations and 110,003 unknowns); answers,
 * ids and cache are the same as without. For that call only; ignored when
 * since is not the model the session kept its split from (by pointer) or
 * its counts differ. */
MDAE_API void inc_session_since(inc_session *s, const mel_model *since /* borrowed */);

/* Analyse m (borrowed for the call), reusing the session's cache. opt may be
 * NULL. On MDAE_OK *out is new (owned: inc_result_free). */
MDAE_API int inc_analyze(inc_session *s, const mel_model *m, const sa_options *opt,
                         inc_result **out /* out */, mdae_diags *diags);
MDAE_API void inc_result_free(inc_result *r /* takes ownership; NULL ok */);

/* inc_analyze in two stages (issue 40 item 5: an editor's first
 * diagnostics need the offsets and the singular modes, not the dependency
 * graph). inc_analyze_offsets does everything inc_analyze does but the
 * parts' dependency graphs and the blocks' ids: the parts analysed anew
 * keep the cached part that seeded their offsets, and inc_result_graphs
 * (or inc_result_whole) makes their graphs later from that seed's memo,
 * exactly as inc_analyze would have made them right after the offsets
 * (the graph is a function of the offsets, the seed only changes the
 * speed). Until then inc_result_n_blocks is 0, inc_result_mode refuses and
 * inc_result_part gives 0 union-SCCs. A seed whose own graph is not made
 * yet gets it first (a chain of versions edited without a question: at
 * most INC_KEEP_GENERATIONS parts wait in one chain; the part that would
 * lengthen it is seeded by the chain's first part with a graph instead,
 * and the versions in between get graphs only if asked). The ids a
 * session hands out to new blocks follow the order in which graphs are
 * made, so a block keeps its id from version to version either way, but a
 * new block may get another number than with inc_analyze. The cache keeps
 * the parts with or without graphs; a later inc_analyze of a part found
 * there makes its graph then. Errors of the graphs (a limit) come from
 * inc_result_graphs. The entries inc_analyze drops from the cache at its
 * end (unused for INC_KEEP_GENERATIONS analyses) are left to
 * inc_session_trim, for the caller to call once it has answered (freeing
 * an old version's BDDs was an eighth of the brake's diagnose at
 * N = 10,000); without it they go after twice as many analyses. */
MDAE_API int inc_analyze_offsets(inc_session *s, const mel_model *m, const sa_options *opt,
                                 inc_result **out /* out */, mdae_diags *diags);
/* Every part's graph and block ids (nothing if made): opt for progress and
 * cancellation (may be NULL), diags as cdg_build's. On failure the result
 * stays usable for its offsets and a later call tries again. */
MDAE_API int inc_result_graphs(inc_result *r, const sa_options *opt, mdae_diags *diags);
/* Drop the cache entries unused for INC_KEEP_GENERATIONS analyses (what
 * inc_analyze does at its end), and let the cached parts that are not the
 * last analysis's go of the seeds kept for their graphs (the chains
 * above: only the newest version's is kept, so an editor's session keeps
 * the cache and at most one more version per part; an older version's
 * graph, if asked for later, is made without its seed's memo: the same
 * graph, slower, a new block's id maybe another number). NULL ok. */
MDAE_API void inc_session_trim(inc_session *s);

/* What the incremental sessions of the process keep alive, all sessions
 * and results together (for tests of memory bounds: an editor's session
 * keeps a bounded number of versions): the parts (cached, held by results
 * or as another part's seed), the private models' memories (a part's own
 * and the earlier ones it shares), and the bytes of their arenas' chunks
 * (those memories and the parts' own tables). */
typedef struct inc_live_info {
    size_t parts, mems, arena_bytes;
} inc_live_info;
MDAE_API void inc_live(inc_live_info *out /* out */);
MDAE_API void inc_result_stats(const inc_result *r, inc_stats *out /* out */);

/* The parts of an analysis, in the order of their first equation: their
 * size, whether the cache had them, and how each was analysed (for a
 * reused part: how it was analysed when it was cached). */
typedef struct inc_part_info {
    uint32_t equations, variables;
    bool reused;
    sa_method_info method;
    /* Its dependency graph's union-SCCs, and of those the ones found in
     * its seed's memo instead of being split again (cdg.h). */
    size_t sccs, sccs_reused;
} inc_part_info;
MDAE_API size_t inc_result_n_parts(const inc_result *r);
/* k < inc_result_n_parts(r); MDAE_E_INVAL otherwise (and for a part whose
 * analysis failed on a model error). */
MDAE_API int inc_result_part(const inc_result *r, size_t k, inc_part_info *out /* out */);

/* Tests: part k's private model (the copy the session analysed, sharing
 * what the edit left alone with earlier parts') and its equations' and
 * variables' indices in the analysed model (local -> model index), all
 * borrowed from r. MDAE_E_INVAL as inc_result_part. */
MDAE_TEST_API int inc_result_part_model(const inc_result *r, size_t k,
                                        const mel_model **model /* out */,
                                        const uint32_t **eq_map /* out */,
                                        const uint32_t **var_map /* out */);

/* Tests: how many earlier parts' memories part k's private model holds
 * (at most 8) and how many parts its chain of private models (each built
 * from the one before) counts since a full copy (0: a full copy).
 * MDAE_E_INVAL as inc_result_part; MDAE_E_STATE when some name, guard,
 * incidence or case of the model is not in the memories the part says. */
MDAE_TEST_API int inc_result_part_chain(const inc_result *r, size_t k,
                                        size_t *n_held /* out */, unsigned *chain /* out */);

/* Number of parts (connected components) of m; no BDD work. */
MDAE_TEST_API int inc_model_parts(const mel_model *m, size_t *out /* out */);

/* The all-modes result and dependency graph of the whole model, exactly
 * those of a cold sa_analyze + cdg_build of m (same BDDs, hence the same
 * reports byte for byte); the parts' graphs made first if they wait
 * (inc_result_graphs). m must be the model given to inc_analyze (checked
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
/* The all-modes result alone (inc_result_whole's *res, the same object),
 * without making any graph: for an inc_analyze_offsets result. */
MDAE_API int inc_result_whole_offsets(inc_result *r, const mel_model *m, sa_result **res /* out */,
                                      mdae_diags *diags);

/* The blocks of the whole model (over all modes), as cdg_block identities
 * with indices into the analysed model's equations/variables and the
 * session-stable ids. k < inc_result_n_blocks(r); blocks are sorted by id.
 * *out borrows the result's arrays. */
MDAE_TEST_API size_t inc_result_n_blocks(const inc_result *r);
MDAE_TEST_API int inc_result_block(const inc_result *r, size_t k, cdg_block *out /* out */);
/* Same, by stable id; MDAE_E_INVAL if the result has no block with this id. */
MDAE_TEST_API int inc_result_block_by_id(const inc_result *r, uint32_t id,
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

MDAE_TEST_API int inc_result_mode(const inc_result *r, const bool *mode,
                             inc_mode_view *out /* out; inc_mode_view_close */);
MDAE_TEST_API void inc_mode_view_close(inc_mode_view *v /* NULL ok; safe twice */);

/* The stable id of each block of the whole graph (the graph inc_result_whole
 * gave for r): (*out)[k] is the id of cdg block k. On MDAE_OK *out is new
 * (owned: mdae_free). MDAE_E_INVAL if whole is not r's graph
 * (engine/inc_ids.c). */
MDAE_API int inc_result_whole_ids(const inc_result *r, const cdg_graph *whole,
                                  uint32_t **out /* out */);

#endif /* INC_H */
