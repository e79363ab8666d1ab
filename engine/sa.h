/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa.h -- structural analysis of a multimode DAE for all modes at once,
 * on BDDs (RR-9322 section 4): encoding, primal problem (maximum-weight
 * perfect matchings), singular-mode diagnostics (Dulmage-Mendelsohn coarse
 * decomposition per mode), dual problem (Pryce's canonical offsets).
 *
 * Why: this is the product. It never enumerates modes: every quantity is a
 * function of the mode held as a BDD (or a vector of BDDs for integers).
 *
 * Promises: no I/O, no logging. BuDDy's state is global to the process, so
 * everything here is single-threaded and the whole process holds one BDD
 * manager: sa_begin() before anything else, sa_end() after the last result is
 * freed. BuDDy errors (node table exhausted, node limit reached) never exit
 * the process: they become MDAE_E_BDD_LIMIT / MDAE_E_BDD results and leave the
 * manager usable.
 *
 * Errors: MDAE_OK, MDAE_E_MODEL (model errors found by the encoding, e.g. a
 * variable used where it does not exist: located diagnostics are appended),
 * MDAE_E_BDD_LIMIT, MDAE_E_BDD, MDAE_E_CANCELED, MDAE_E_NOMEM, MDAE_E_STATE
 * (no sa_begin). A stated limit (the node limit, a fixed limit of the
 * encoding or of a forced enumeration: MDAE_E_BDD_LIMIT, MDAE_E_LIMIT) adds
 * one error naming it (mdae.h, mdae_diag.limit), located at the first of
 * the analysed model's equations and naming them (issue 36,
 * engine/sa_limit.c).
 *
 * Ownership: the model passed to sa_analyze is borrowed and must outlive the
 * result. Results and reports are owned by the caller (free functions below,
 * which accept NULL).
 */
#ifndef SA_H
#define SA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bn.h"
#include "mdae.h"
#include "mel.h"

/* ---- The BDD manager --------------------------------------------------- */
typedef struct sa_config {
    size_t node_limit;    /* max BDD nodes; 0: 50,000,000 */
    size_t initial_nodes; /* initial node table; 0: 4,096 (the table then
                             grows by up to 4M nodes at a time, as needed;
                             sa_config_size_for sizes it from a model) */
    size_t cache_size;    /* operation cache entries; 0: initial_nodes / 4 */
    bool dynamic_reorder; /* BuDDy's sifting with variable blocks */
    int order;            /* SA_ORDER_*: how rows are ordered (added by the
                             engine, see engine/sa_encode.c) */
} sa_config;

#define SA_ORDER_AUTO 0          /* model order, unless Cuthill-McKee's
                                    profile is much smaller (default;
                                    engine/sa_encode.c) */
#define SA_ORDER_CUTHILL_MCKEE 1 /* bandwidth-reducing traversal */
#define SA_ORDER_DECLARATION 2   /* equations in model order */

MDAE_API void sa_config_default(sa_config *cfg);
/* Raise cfg->initial_nodes to what an analysis of m is likely to need
 * (engine/sa_enc.c says how it is estimated); a table that starts too
 * small costs a garbage collection per doubling, one too large costs the
 * memory it clears. */
MDAE_API void sa_config_size_for(sa_config *cfg, const mel_model *m /* borrowed */);

/* Start BuDDy for this process. MDAE_E_STATE if already started;
 * MDAE_E_NOMEM once BuDDy ran out of memory growing its tables in this
 * process (an analysis then failed with MDAE_E_NOMEM, and sa_end left the
 * damaged tables alone). */
MDAE_API int sa_begin(const sa_config *cfg /* borrowed; NULL: defaults */);
/* Stop BuDDy. Every sa_result must have been freed. Safe without sa_begin. */
MDAE_API void sa_end(void);
/* About how many bytes BuDDy's node table and operation caches take now
 * (0 when it is not running): its allocations bypass mdae_allocator, and a
 * process that cannot cap its address space (a sanitizer build's worker)
 * counts them with this. */
MDAE_API size_t sa_bdd_table_bytes(void);
/* Change the node limit of later analyses (0: 50,000,000): the live nodes
 * after a garbage collection may not exceed it. MDAE_E_STATE without
 * sa_begin. (Added by the engine: tests and time budgets need it.) */
MDAE_TEST_API int sa_set_node_limit(size_t limit);
/* Collect BuDDy's garbage and empty its operation caches (benchmarks: a
 * timed run must not find its work in the caches an identical run, or the
 * same run repeated, left behind). Not during an analysis. Does nothing
 * without sa_begin. */
MDAE_TEST_API void sa_forget_caches(void);

/* ---- Analysis ------------------------------------------------------------ */
typedef struct sa_result sa_result;

/* Called between the steps of an analysis; return non-zero to cancel (the
 * analysis then returns MDAE_E_CANCELED). `phase` is a static string
 * ("encode", "matchings", "argmax", "diagnostics", "offsets", ...). Also
 * called inside one long BDD operation, after each of its garbage
 * collections, with the last step's phase, done and total again: so a
 * cancel is seen there too. It must not call the engine. */
typedef int (*sa_progress_fn)(void *ctx, const char *phase, size_t done, size_t total);

typedef struct sa_options {
    sa_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    /* An earlier result (borrowed for the call; may be NULL; its model must
     * still be alive) whose offsets seed the primal problem: equations and
     * mode variables are matched by name. It only changes how fast the
     * maximum-weight matchings are found, never the result (issue 6: an
     * edited model is re-analysed with the previous version's offsets). */
    const sa_result *hint;
    /* How to analyse (issue 10): SA_METHOD_AUTO (0, the default) chooses
     * between the implicit analysis on BDDs and the enumeration of the
     * model's valid modes by an estimate, with a fallback (sa_analyze.c
     * says how); the others force one path. Both give the same result. */
    int method;
    /* With SA_METHOD_AUTO, if not 0: try the implicit path first whatever
     * the estimate, with this many BDD nodes produced at most (its work,
     * collected or not), and enumerate if they are exceeded (when the
     * valid modes are few enough to be enumerated; else the budget is
     * ignored). So does each block of the primal by blocks (AUTO's or
     * SA_METHOD_BLOCKS), enumerating only that block. 0: the estimate's
     * choice. */
    size_t implicit_budget;
    /* Leave out the diagnostics of the singular modes (their
     * overdetermined equations and underdetermined variables stay empty):
     * for callers that only need which modes are singular, or
     * sa_result_partition's classes (mc_pairs.c), since they cost most of
     * an analysis whose modes are mostly singular. */
    bool skip_diagnostics;
    /* Only which valid modes are singular (and skip_diagnostics): no
     * optimal matching is chosen and the offsets are not computed (the
     * result's offsets read 0). For sa_result_partition's classes. */
    bool singular_only;
    /* With singular_only: find the singular modes through the matchings
     * that cover every active variable (sa_result_left_out's), kept in the
     * result, so that sa_result_left_out and sa_result_partition over it
     * do not build them again; the perfect matchings' existence is then
     * read off them (engine/sa_primal.c, sa__perfect_from_covering). The
     * same result; for a caller that asks sa_result_left_out next
     * (mc_pairs.c: `--first --erasures`, `--instants`), whose matchings
     * cost about twice the existence alone. Within the greedy's budget of
     * nodes (SA_GREEDY_BUDGET): past it, the existence alone. */
    bool singular_by_covering;
    /* With a hint: whether its offsets are tried first as they are, by the
     * tight graph of every mode at once (engine/sa_tight.c, issue 16: an
     * edit that does not move the optimum far then builds no perfect
     * matchings of the whole). SA_SEEDED_AUTO (0): when the method is
     * SA_METHOD_AUTO, the hint given and the model not enumerated;
     * SA_SEEDED_OFF: never (benchmarks' before and after);
     * SA_SEEDED_ALWAYS: whatever the method's estimate (tests: small
     * models are otherwise enumerated). Never changes the result. */
    int seeded;
    /* Tests: sa_result_left_out checks every answer of its one-pass
     * shortcut (engine/sa_greedy.c, all_rows) against the relational
     * products it replaces, and aborts on a difference (slow). */
    bool self_check;
    /* The caller reports block families (engine/cdg_family.h), which find
     * their edges from their items: cdg_build builds the blocks but no
     * block edges (cdg_graph_n_edges 0; its report, mode view and DOT then
     * answer MDAE_E_STATE), so the edge limit does not apply. The blocks
     * do not change. */
    bool families;
    /* With a hint, the caller's promise (speed only; issue 40 item 5, the
     * editor's first stage follows the edit): the equations of the model
     * that may differ from the hint model's (the model the hint was
     * analysed on) at their index beyond their locations, increasing,
     * n_hint_rows of them. Every other equation is the hint model's
     * equation, or has its name and guard, and incidences with its
     * variables, case counts, orders and case guards (the same name and
     * guard pointers; names not NULL): as
     * inc_session.c's private models share the previous part's, or take
     * its names and guards when only the text moved. The same for the
     * variables (hint_vars): every other variable's guard is the hint
     * model's variable's. NULL: not known, every row (variable) is
     * compared. A wrong promise gives a wrong result. */
    const uint32_t *hint_rows;
    uint32_t n_hint_rows;
    const uint32_t *hint_vars;
    uint32_t n_hint_vars;
} sa_options;

#define SA_SEEDED_AUTO 0
#define SA_SEEDED_OFF 1
#define SA_SEEDED_ALWAYS 2

#define SA_METHOD_AUTO 0
#define SA_METHOD_IMPLICIT 1  /* RR-9322: every mode at once on BDDs */
#define SA_METHOD_ENUMERATE 2 /* each valid mode by the single-mode path
                                 (engine/sm.h), written back as BDDs */
#define SA_METHOD_BLOCKS 3    /* the implicit path with its primal problem
                                 (and, when the singular blocks of a mode
                                 are apart, its diagnostics) solved block
                                 by block over the union graph's fine
                                 Dulmage-Mendelsohn blocks
                                 (engine/sa_blocks.c), where that applies;
                                 AUTO tries it whenever it goes implicit.
                                 Reported as SA_METHOD_IMPLICIT, with
                                 sa_method_info.blocks */
#define SA_METHOD_TIGHT 4     /* SA_METHOD_BLOCKS with every block solved
                                 by the tight graphs of sampled modes'
                                 offsets (engine/sa_tight.c), the modes
                                 they leave implicitly; AUTO does so for
                                 the blocks whose modes are too many to
                                 enumerate. For tests; reported as
                                 SA_METHOD_IMPLICIT */

/* How a result was computed. */
typedef struct sa_method_info {
    int method;        /* SA_METHOD_IMPLICIT or SA_METHOD_ENUMERATE */
    bool fell_back;    /* AUTO tried the implicit path first and it exceeded
                          its budget */
    double modes;      /* assignments of the mode variables the model's
                          functions depend on that extend to a valid mode
                          (0 when SA_METHOD_IMPLICIT was forced: not
                          counted) */
    size_t enumerated; /* enumeration: assignments solved */
    size_t graphs;     /* enumeration: distinct active graphs among them */
    uint32_t blocks;   /* implicit: the primal ran block by block over this
                          many blocks (0: as one) */
    uint32_t blocks_fell_back; /* of those, enumerated after their implicit
                                  attempt exceeded its budget */
    bool dm_by_blocks; /* and the singular modes' diagnostics too */
    uint32_t max_by_cofactors; /* blocks whose singular modes' maximum
                                  matchings came one per cofactor (all or
                                  some of them; engine/sa_maxmatch.c) */
    bool reordered;    /* analysed again with the rows in Cuthill-McKee's
                          order (SA_ORDER_AUTO; engine/sa_encode.c) */
    uint32_t blocks_tight; /* of the blocks, those solved by the tight graphs
                              of sampled modes (engine/sa_tight.c) */
    bool seeded_tight; /* the primal was the tight graphs of the hint's
                          offsets alone (sa_options.seeded) */
    uint32_t seeded_rounds; /* where seeded_tight: the rounds they took,
                               each solving the tight graphs once over the
                               modes left (1 when the hint's offsets,
                               shifted where an equation had no tight edge,
                               covered every mode; engine/sa_tight.c) */
    uint32_t blocks_learned; /* of the blocks solved by tight graphs, those
                                whose offsets were learned from sampled
                                modes, mode by mode (engine/sa_tight.c) */
    uint32_t seeded_zero; /* primal problems (the whole, or blocks) whose
                             optimal matchings were the perfect matchings
                             of the hint's edges of reduced cost 0 in every
                             valid mode: the set of all perfect matchings
                             was never built (engine/sa_primal.c) */
    uint32_t seeded_sampled; /* of those, the ones that also needed the
                                offsets of sampled modes (the hint's left
                                some modes) */
    uint32_t seeded_repaired; /* of those, the ones whose chosen matching
                                 was the hint's, repaired near the edit
                                 (engine/sa_repair.c): not even those
                                 matchings were built */
    uint32_t blocks_reused; /* blocks (of the union graph, or of the tight
                               graphs' rounds, engine/sa_tight.c) whose
                               solution the hint had, found by content in
                               its memo: not solved again
                               (engine/sa_memo.c) */
    uint32_t encoded_from_hint; /* equations whose Boolean functions were
                                   the hint's, taken with its BDD variable
                                   layout: not encoded again
                                   (engine/sa_encode.c) */
    uint32_t offsets_from_hint; /* equations and variables whose offsets
                                   the dual's fixpoint started from the
                                   hint's, which the edit cannot have
                                   lowered: not computed again unless
                                   raised (0: all from 0; engine/sa_dual.c) */
    uint32_t seeded_vector_columns; /* where seeded_tight: the columns whose
                                       tight edges the rounds found by
                                       vector arithmetic, their sums
                                       c_i + sigma_e not integers where
                                       active (the others' by integers, or
                                       the hint's tight_memo;
                                       engine/sa_tight.c) */
    uint32_t seeded_columns_made; /* where seeded_tight: the columns whose
                                     tight edges the first round found from
                                     the hint's offsets, not read from the
                                     hint (its graph's tight_memo, or its
                                     own round 0's where the offsets are
                                     the same; engine/sa_tight.c) */
} sa_method_info;

/* Analyse the model in all modes. opt may be NULL. On MDAE_OK *out is a new
 * result (owned: sa_result_free). */
MDAE_API int sa_analyze(const mel_model *m, const sa_options *opt, sa_result **out,
                        mdae_diags *diags);
MDAE_API void sa_result_free(sa_result *r);

/* One independent part of a model (issue 6, engine/inc.h): the result of
 * analysing a sub-model made of some of m's equations and variables, with
 * ALL of m's mode variables (same order) and invariants, its equations and
 * variables in m's order and each equation's incidences as in m. */
typedef struct sa_part {
    const sa_result *res;  /* borrowed */
    const uint32_t *eq_of;  /* res's equation q is m's equation eq_of[q] */
    const uint32_t *var_of; /* res's variable q is m's variable var_of[q] */
} sa_part;

/* The result sa_analyze(m) would return, built from the results of the parts
 * of m (the connected components of its all-modes incidence graph: every
 * equation and variable in exactly one part, no incidence across parts)
 * without solving anything again: m is encoded, and the parts' mode
 * functions are carried over (engine/sa_compose.c says why this equals a
 * cold analysis). MDAE_E_INVAL if the parts do not cover m as said. m is
 * borrowed and must outlive the result; parts only for the call. */
MDAE_API int sa_compose(const mel_model *m, const sa_part *parts, size_t n_parts,
                        sa_result **out /* out */, mdae_diags *diags /* the node limit's */);

/* Encode the model and check its consistency only (cheap; used by
 * `mdae check`): every edge is active only where its equation and its
 * variable exist (chi_E => chi_I & chi_J, RR-9322 section 4.3), and the
 * invariants leave at least one valid mode (a warning otherwise). Violations
 * are appended to diags, located at the use of the variable; returns
 * MDAE_E_MODEL if there are any. Needs sa_begin(). */
MDAE_API int sa_check(const mel_model *m, mdae_diags *diags);

/* Peak number of BDD nodes the analysis took from the node table (live, plus
 * its garbage not yet collected; for benchmarks). */
MDAE_TEST_API size_t sa_result_peak_nodes(const sa_result *r);
/* Whether some valid mode is singular, without building a report (which can
 * be large: see sa_result_report). (Added by the engine, for benchmarks.) */
MDAE_TEST_API bool sa_result_singular(const sa_result *r);
/* The number of valid modes (as in the report). (Added by the engine.) */
MDAE_API double sa_result_valid_modes(const sa_result *r);
/* The same, exactly (issue 41 item 2): *out := the count (out owned by the
 * caller: mdae_bn_free). MDAE_OK, MDAE_E_INVAL, MDAE_E_NOMEM. */
MDAE_API int sa_result_valid_modes_exact(const sa_result *r, mdae_bn *out);
/* The number of valid modes where mode variable k has `value` (issue 15: an
 * editor's hover on a mode variable). MDAE_OK with *out set; MDAE_E_INVAL
 * for a k out of range; MDAE_E_STATE outside sa_begin/sa_end; MDAE_E_NOMEM,
 * MDAE_E_BDD. */
MDAE_API int sa_result_count_mode(const sa_result *r, uint32_t k, bool value,
                                  double *out /* out */);
/* The same, exactly (issue 41 item 2): *out := the count (owned by the
 * caller: mdae_bn_free, also on an error). */
MDAE_API int sa_result_count_mode_exact(const sa_result *r, uint32_t k, bool value,
                                        mdae_bn *out /* out */);
/* A valid mode drawn at random (not uniformly: each mode variable takes a
 * random value wherever both values still extend to a valid mode), from the
 * xorshift state *state (not 0): for tests that sample the modes of a model
 * whose invariants make random assignments almost never valid. mode has
 * n_modes entries. MDAE_OK; MDAE_E_INVAL if no mode is valid (or NULL
 * arguments); MDAE_E_STATE outside sa_begin/sa_end. */
MDAE_TEST_API int sa_result_sample_mode(const sa_result *r, uint64_t *state,
                                        bool *mode /* out */);
/* Test support (like SQLite's SQLITE_TEST API): whether two results of the
 * same model hold the same mode functions, field by field (validity,
 * singular modes, chosen matching, offsets, DM parts): BDDs are canonical,
 * so equal functions are equal handles. On false, *why (may be NULL) names
 * the first field that differs (a static string). */
MDAE_TEST_API bool sa_result_same(const sa_result *a, const sa_result *b, const char **why);

/* How r was computed (sa_options.method). */
MDAE_API void sa_result_method(const sa_result *r, sa_method_info *out /* out */);
/* "implicit" or "enumeration" (a static string); "auto" for SA_METHOD_AUTO. */
MDAE_API const char *sa_method_name(int method);
/* The method named name ("auto", "implicit", "enumeration": the inverse of
 * sa_method_name) in *out; MDAE_E_INVAL for any other name. */
MDAE_API int sa_method_from_name(const char *name, int *out /* out */);
/* What the hint did (sa_options.hint; issue 6, for reuse statistics): the
 * number of equations whose offsets it gave, and whether the primal problem
 * still needed its dynamic programme over all perfect matchings (false when
 * the seeded passes settled every mode: sa_primal.c). */
MDAE_API uint32_t sa_result_seeded(const sa_result *r);
MDAE_API bool sa_result_searched(const sa_result *r);

/* ---- What the result says about one mode ---------------------------------
 * Obtained by restricting the all-modes functions to the mode (no new
 * analysis). Arrays are indexed like the model's equations/variables. */
typedef struct sa_mode_view {
    bool valid;       /* satisfies every invariant */
    bool singular;    /* valid and no perfect matching (structurally singular) */
    bool *eq_active;  /* n_equations */
    bool *var_active; /* n_variables */
    int *c;           /* equation offsets; -1 when inactive, invalid or singular */
    int *d;           /* variable offsets; -1 likewise */
    bool *overdetermined;  /* n_equations; only in singular modes */
    bool *underdetermined; /* n_variables; only in singular modes */
    int *matched_var; /* n_equations: the variable the chosen MWPM gives the
                         equation, -1 if none (inactive/invalid/singular) */
} sa_mode_view;

/* Fill *out (caller-allocated; arrays owned by it: sa_mode_view_close) for
 * mode[k] = value of mode variable k. */
MDAE_API int sa_result_mode(const sa_result *r, const bool *mode, sa_mode_view *out);
MDAE_API void sa_mode_view_close(sa_mode_view *v);

/* ---- Report: the result as plain data, for JSON and text output ----------- */

/* A set of modes, as a short formula over mode-variable names ("g1 & !g2 | g3",
 * "true", "false") and as a list of cubes whose union is the set. A cube
 * gives each mode variable 1 (true), 0 (false) or -1 (don't care). Only
 * the window of mode variables first_mode .. first_mode + width - 1, the
 * ones some cube constrains, is stored (issue 40: a row of all n_modes
 * values made the brake's report grow like N^2); every variable outside it
 * is -1 in every cube. Read a value with sa_set_literal. */
typedef struct sa_set {
    char *formula;       /* owned */
    size_t n_cubes;
    uint32_t first_mode; /* the window's first mode variable (0 if width 0) */
    uint32_t width;      /* the window's length; 0 when no cube has a literal */
    signed char *rows;   /* owned; n_cubes * width: rows[q * width + j] is
                            mode variable first_mode + j in cube q */
} sa_set;

/* The value of mode variable k in cube q of s: 1, 0 or -1 (don't care,
 * also for any k outside the window). q < s->n_cubes. */
MDAE_API signed char sa_set_literal(const sa_set *s /* borrowed */, size_t q, uint32_t k);

typedef struct sa_offset_case {
    int value;
    sa_set modes;
} sa_offset_case;

/* An equation or a variable: where it is active (valid modes), and its offset
 * in each part of the valid nonsingular modes where it is active. */
typedef struct sa_item {
    const char *name; /* borrowed from the model */
    sa_set active;
    size_t n_offsets;
    sa_offset_case *offsets; /* sorted by value */
} sa_item;

typedef enum sa_diag_kind {
    SA_DIAG_OVERDETERMINED, /* `index` is an equation */
    SA_DIAG_UNDERDETERMINED /* `index` is a variable */
} sa_diag_kind;

typedef struct sa_diagnostic {
    sa_diag_kind kind;
    uint32_t index;
    sa_set modes; /* the singular modes where it holds; never empty */
} sa_diagnostic;

typedef struct sa_report {
    uint32_t n_modes;
    const char *const *mode_names; /* borrowed from the model */
    double valid_modes;            /* number of valid modes */
    char *valid_modes_exact;       /* the same, its decimal digits (owned;
                                      issue 41 item 2) */
    double valid_modes_log2;       /* its log2 (-HUGE_VAL for none) */
    bool singular;                 /* some valid mode is singular */
    sa_set singular_modes;
    uint32_t n_equations;
    sa_item *equations;
    uint32_t n_variables;
    sa_item *variables;
    size_t n_diagnostics;
    sa_diagnostic *diagnostics; /* equations first, then variables, model order */
} sa_report;

/* Build the report (owned: sa_report_free). The result must stay alive while
 * the report is used (names are borrowed from the model).
 *
 * Every set of the report is exact ON THE VALID MODES: invalid modes are
 * don't-cares when the formula and cubes are minimised, so a set S is
 * reported as some S' with S' & valid == S & valid. Why: exact sets must
 * exclude the invalid modes, and the building model's invariants alone need
 * 2^N cubes (N = 12 printed 383 MB of JSON); relative to the valid modes,
 * an always-active equation is simply `true` and `dop[2]` is `open[2]`.
 * Readers intersect with validity (the invariants, or sa_result_mode()).
 * A set of more than SA_MAX_CUBES cubes fails with MDAE_E_LIMIT. */
#define SA_MAX_CUBES 65536
MDAE_API int sa_result_report(const sa_result *r, sa_report **out);
/* Same with flags: SA_REPORT_VALID_CARE (what sa_result_report uses), or 0
 * for sets exact on all modes (invalid modes excluded; can be exponential). */
#define SA_REPORT_VALID_CARE 1u
/* Only what the mode changes' pair models read (engine/mc_pairs.c): the
 * offsets and the singular modes; every item's `active` set is left empty
 * (formula NULL, no cubes) and there are no diagnostics. */
#define SA_REPORT_OFFSETS_ONLY 2u
MDAE_TEST_API int sa_result_report_ex(const sa_result *r, unsigned flags, sa_report **out);
MDAE_API void sa_report_free(sa_report *rep);

/* The valid modes of r in three classes, each as a set exact on the valid
 * modes (sa_result_report's convention) with its size: out[0] the
 * nonsingular modes; out[2] the singular modes with some underdetermined
 * variable; out[1] the other singular modes (some equation is
 * overdetermined, no variable underdetermined). A class whose cover would
 * exceed max_cubes cubes (0: SA_MAX_CUBES) is left empty (formula NULL, no
 * cubes; its size is still given). The sets are new (close each with
 * sa_set_close); on an error all three are closed. */
MDAE_API int sa_result_partition(const sa_result *r, size_t max_cubes, sa_set out[3] /* out */,
                                 double count[3] /* out */);
/* The same, each class intersected with within (a guard over the model's
 * mode variables, borrowed), the covers still exact on the valid modes:
 * mc_pairs.c's later instants, analysed over every pair and read over the
 * pairs still restarting. */
MDAE_API int sa_result_partition_within(const sa_result *r, const mel_guard *within,
                                        size_t max_cubes, sa_set out[3] /* out */,
                                        double count[3] /* out */);
/* The same with each class's size also exact (issue 41 item 2): exact
 * (may be NULL) receives the three sizes, into values the caller owns
 * (mdae_bn_free, also on an error). */
MDAE_API int sa_result_partition_exact(const sa_result *r, const mel_guard *within,
                                       size_t max_cubes, sa_set out[3] /* out */,
                                       double count[3] /* out */, mdae_bn exact[3] /* out */);
/* The valid modes of r where the guard g (over r's model's mode variables,
 * borrowed) holds, as a set exact on the valid modes (sa_result_report's
 * convention): for mc_pairs.c, which rewrites the guards its later
 * instants build (their size as trees grows with each instant) as their
 * covers. At most max_cubes cubes (0: SA_MAX_CUBES), else MDAE_E_LIMIT.
 * On MDAE_OK *out is new (sa_set_close). */
MDAE_API int sa_result_guard_set(const sa_result *r, const mel_guard *g, size_t max_cubes,
                                 sa_set *out /* out */);
MDAE_API void sa_set_close(sa_set *s /* NULL ok */);

/* One step of sa_result_left_out's greedy order: equation eq of r's model,
 * considered in the modes where `when` holds (a guard over the model's
 * mode variables, borrowed). */
typedef struct sa_greedy_step {
    uint32_t eq;
    const mel_guard *when;
} sa_greedy_step;

/* The equations a greedy basis leaves out, in every mode at once (issue 13,
 * R4 of engine/mc_change.c for all the first instants; engine/sa_greedy.c).
 * In each valid mode of r where some matching matches every active
 * variable but no perfect matching exists (r from sa_analyze; singular_only
 * is enough) -- and, when the modes are enumerated (SA_METHOD_ENUMERATE, or
 * AUTO with at most SA_GREEDY_ENUMERATE singular modes), in the other
 * singular modes too, where no matching matches every variable (issue 41
 * item 4) --, the active equations are taken in the order of steps, the
 * first step whose guard holds in that mode being an equation's turn, and
 * each is kept when it can be matched together with the equations kept
 * before it; the others are left out (the greedy basis of the equations'
 * transversal matroid: its complement is the fewest equations to remove
 * for a perfect matching, those later in the order first). An active
 * equation that no step takes is left out. out[i] (n_equations sets, new:
 * sa_set_close each) := the modes where equation i is left out, exact on
 * the valid modes, at most max_cubes cubes (0: SA_MAX_CUBES) else left
 * empty; count[i] its size. opt (may be NULL): its progress callback
 * (MDAE_E_CANCELED); its method, SA_METHOD_ENUMERATE (one mode at a time)
 * or SA_METHOD_IMPLICIT (on BDDs), else by the number of modes; its
 * implicit_budget, the BDD path's budget of nodes (0: 20,000,000), past
 * which MDAE_E_LIMIT. On an error every set is closed. exact (may be NULL):
 * n_equations values (owned by the caller: mdae_bn_free each, also on an
 * error) receiving count[i] exactly (issue 41 item 2). */
#define SA_GREEDY_ENUMERATE 65536 /* singular modes solved one at a time (AUTO) */
#define SA_GREEDY_BUDGET 20000000  /* BDD nodes the implicit path may produce */
MDAE_API int sa_result_left_out(const sa_result *r, const sa_greedy_step *steps, size_t n_steps,
                                const sa_options *opt, size_t max_cubes, sa_set *out /* out */,
                                double *count /* out */, mdae_bn *exact /* out */);

/* sa_result_left_out, each set read within a guard over r's model's mode
 * variables (borrowed; NULL: every valid mode), and, when kept is not NULL
 * (n_equations sets, new, and kept_count), the modes within it where each
 * equation is active and not left out; exact and kept_exact (NULL, or
 * n_equations zero-initialised mdae_bn the caller frees) get those counts
 * exactly. For mc_pairs.c's later instants: which rows each erases and
 * keeps, over the pairs still restarting. */
MDAE_API int sa_result_left_out_within(const sa_result *r, const sa_greedy_step *steps,
                                       size_t n_steps, const mel_guard *within,
                                       const sa_options *opt, size_t max_cubes,
                                       sa_set *out /* out */, double *count /* out */,
                                       mdae_bn *exact /* out, may be NULL */,
                                       sa_set *kept /* out, may be NULL */,
                                       double *kept_count /* out */,
                                       mdae_bn *kept_exact /* out, may be NULL */);

/* ---- Blocks of modes labelled by the caller (engine/sa_classify.c) ------ */

/* Called once per block with a valid mode of it (r's n_modes booleans,
 * borrowed for the call) and whether the block was final (below); sets
 * *label >= 0: blocks with equal labels are merged. A nonzero return stops
 * sa_result_classify, which returns it. */
typedef int sa_label_fn(void *ctx, const bool *mode, bool final, int *label /* out */);

typedef struct sa_class {
    int label;
    sa_set set;    /* exact on the valid modes; formula NULL and no cubes
                      past max_cubes */
    double count;
    mdae_bn exact; /* count exactly */
} sa_class;

/* The valid modes of r where `within` holds (NULL: all) split into blocks
 * on which every guard attrs[k] (over r's model's mode variables,
 * borrowed) is constant, refined guard after guard; a block on which at
 * least `freeze` (> 0) of the guards flagged in heavy (may be NULL) hold
 * everywhere is final: not split further (the caller knows its label
 * cannot change). label(ctx, ...) names each block from one of its modes
 * (deterministic: the same blocks, the same modes); the blocks of a label
 * are merged into one class, in the order of their first block. On MDAE_OK
 * *out is new (sa_classes_free), *n_out classes (none when no mode is
 * within). MDAE_E_LIMIT past max_blocks blocks (or BDD nodes),
 * MDAE_E_NOMEM, or the label function's code. */
MDAE_API int sa_result_classify(const sa_result *r, const mel_guard *within,
                                const mel_guard *const *attrs, size_t n_attrs, const bool *heavy,
                                size_t freeze, size_t max_blocks, sa_label_fn *label, void *ctx,
                                size_t max_cubes, sa_class **out /* out */,
                                size_t *n_out /* out */);
MDAE_API void sa_classes_free(sa_class *c /* takes ownership; NULL ok */, size_t n);

#endif /* SA_H */
