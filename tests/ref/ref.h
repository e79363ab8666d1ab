/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/ref/ref.h -- the brute-force reference: structural analysis of ONE
 * mode at a time by textbook algorithms, and a generator of random models.
 *
 * Why: the implicit engine (engine/sa_*) computes everything for all modes at
 * once on BDDs, which is easy to get subtly wrong. This module answers the
 * same questions mode by mode, with short, obviously right algorithms, so the
 * tests can compare the two on every mode of many models. It shares no code
 * with the engine beyond the front-end (mel_model_parse, mel_guard_eval,
 * mel_incidence_order): it never links mdae_sa.
 *
 * Algorithms (one mode; RR-9322 section 3.2.2):
 *  - validity: every invariant holds (mel_guard_eval);
 *  - active equations / variables: their guard holds; active edge (i, j):
 *    sigma_ij = mel_incidence_order(...) >= 0 and both ends active;
 *  - singular: valid, and #active equations != #active variables or no
 *    perfect matching (Kuhn's augmenting paths);
 *  - primal: a maximum-weight perfect matching by the Hungarian algorithm
 *    (successive shortest paths with potentials) on the square matrix of
 *    active equations x active variables, non-edges at a prohibitive cost;
 *  - dual: Pryce's fixpoint from c = 0 (d_j = max_i sigma_ij + c_i,
 *    c_i = d_j(i) - sigma_i,j(i), until no change), which yields the
 *    canonical (smallest) offsets whatever the MWPM;
 *  - singular modes: Dulmage-Mendelsohn coarse parts by the definition:
 *    equation i is overdetermined iff some maximum-cardinality matching
 *    leaves it unmatched iff maxmatch(G - i) == maxmatch(G); variables
 *    (underdetermined) likewise.
 *
 * Promises: no I/O, no global state, reentrant. Cost is polynomial per mode
 * (about n^3 for the matching, n^2 * edges for the DM parts).
 *
 * Errors: MDAE_OK, MDAE_E_NOMEM, MDAE_E_INVAL (bad arguments).
 *
 * Ownership: the model is borrowed and must outlive the ref_mode; the
 * arrays of a ref_mode are owned by it (ref_mode_close).
 */
#ifndef REF_H
#define REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"
#include "mel.h"

/* ---- One mode ------------------------------------------------------------ */

/* The analysis of one mode. Arrays are indexed like the model's equations and
 * variables. Quantities that do not apply are -1 / false, with the same
 * conventions as sa_mode_view (engine/sa.h). */
typedef struct ref_mode {
    const mel_model *model; /* borrowed */
    bool valid;             /* every invariant holds */
    bool singular;          /* valid and no perfect matching */
    bool *eq_active;        /* n_equations */
    bool *var_active;       /* n_variables */
    uint32_t n_active_eqs;
    uint32_t n_active_vars;
    int *sigma;             /* n_equations * n_variables, row-major: sigma of
                               the active edge, -1 if no active edge (or the
                               mode is invalid) */
    long max_matching;      /* cardinality of a maximum matching (valid modes),
                               -1 if invalid */
    long weight;            /* weight of a MWPM; -1 unless valid nonsingular */
    int *match;             /* n_equations: variable of the reference's MWPM,
                               -1 unless valid nonsingular and active */
    int *c;                 /* n_equations: canonical offsets, -1 likewise */
    int *d;                 /* n_variables: canonical offsets, -1 likewise */
    bool *overdetermined;   /* n_equations; only in singular modes */
    bool *underdetermined;  /* n_variables; only in singular modes */
} ref_mode;

/* Analyse model m in mode (mode[k] = value of mode variable k). On MDAE_OK,
 * *out is filled (arrays owned by it: ref_mode_close). */
int ref_mode_compute(const mel_model *m /* borrowed */, const bool *mode,
                     ref_mode *out /* out */);
/* Free the arrays of a ref_mode; safe twice and on a zeroed struct. */
void ref_mode_close(ref_mode *rm);

/* sigma of edge (i, j) in the analysed mode, -1 if not an active edge. */
int ref_mode_sigma(const ref_mode *rm, uint32_t eq, uint32_t var);

/* Check that matched_var (n_equations entries, -1 = unmatched) is a perfect
 * matching of the active graph of this valid mode: every active equation is
 * matched along an active edge, every active variable exactly once, inactive
 * equations have -1. On true, *weight (may be NULL) is its weight. On false,
 * *why (may be NULL) points to a static explanation. */
bool ref_mode_check_matching(const ref_mode *rm, const int *matched_var, long *weight,
                             const char **why);

/* Run Pryce's fixpoint from c = 0 with a given perfect matching (match[i] =
 * variable of active equation i) of the active graph of rm; writes c and d
 * (n_equations / n_variables, -1 for inactive items). Returns MDAE_OK, or
 * MDAE_E_INVAL if the fixpoint does not converge within its bound (which,
 * by Pryce's theorem, means the matching is not of maximum weight), or
 * MDAE_E_NOMEM. Exposed so tests can check that every MWPM gives the same
 * offsets. */
int ref_pryce_offsets(const ref_mode *rm, const int *match, int *c, int *d);

/* ---- Block triangular form (ref_btf.c; for issue 4) -------------------------
 * In a valid nonsingular mode: edge (i, j) is *saturated* iff active and
 * d_j = c_i + sigma_ij; equation i' depends on i (i -> i') iff i' != i and
 * (i', j(i)) is saturated, j(i) being i's variable in the reference's MWPM.
 * Blocks are the strongly connected components of this graph (Tarjan),
 * numbered in a topological order (a block's dependencies have smaller
 * numbers). Being the fine DM blocks of the leading-level system, the
 * partition does not depend on the MWPM. A block's unknowns are
 * (match[i], d[match[i]]) for its equations i; it reads (j, c_i + sigma_ij)
 * for its equations' active edges that are not its own unknowns. */
typedef struct ref_blocks {
    uint32_t n_blocks;
    int *block_of_eq; /* n_equations: block number, -1 for inactive equations */
    bool *dep;        /* n_blocks * n_blocks: dep[a * n_blocks + b] iff
                         block b depends on block a (a != b) */
} ref_blocks;

/* Blocks of rm's mode (valid and nonsingular, else MDAE_E_INVAL). On MDAE_OK
 * *out is filled (owned: ref_blocks_close). */
int ref_mode_blocks(const ref_mode *rm /* borrowed */, ref_blocks *out /* out */);
void ref_blocks_close(ref_blocks *b); /* safe twice and on a zeroed struct */
/* The same for another dependency relation between active equations:
 * dep(rm, a, b) says b depends on a (called with a != b). ref_mode_blocks
 * is ref_mode_blocks_by with the leading-level relation above. */
typedef bool ref_dep_fn(const ref_mode *rm, uint32_t a, uint32_t b);
int ref_mode_blocks_by(const ref_mode *rm /* borrowed */, ref_dep_fn *dep,
                       ref_blocks *out /* out */);
/* Is (eq, var) an active edge with d_var = c_eq + sigma (valid nonsingular
 * modes)? */
bool ref_mode_saturated(const ref_mode *rm, uint32_t eq, uint32_t var);

/* ---- Whole-model helpers ------------------------------------------------- */

/* mode[k] = bit k of index (k < n_modes); n_modes <= 63. */
void ref_mode_from_index(uint64_t index, uint32_t n_modes, bool *mode);

/* The modes a test walks: every mode when n_modes <= max_bits (2^n_modes of
 * them), else `samples` pseudo-random ones drawn from *state. */
uint64_t ref_modes_total(uint32_t n_modes, uint32_t max_bits, uint64_t samples);
/* The x-th of them (x < ref_modes_total(..)), in mode[0..n_modes). */
void ref_modes_at(uint64_t x, uint32_t n_modes, uint32_t max_bits, uint64_t *state,
                  bool *mode);

/* The encoding's consistency condition (RR-9322 section 4.3): in every mode
 * (valid or not), an equation uses a variable only where the variable exists.
 * Returns true if it holds for all 2^n_modes modes (n_modes <= 20; returns
 * true without checking otherwise, with *checked = false). On a violation,
 * *eq, *var and mode_index (any may be NULL) identify the first one found. */
bool ref_model_consistent(const mel_model *m, bool *checked, uint32_t *eq, uint32_t *var,
                          uint64_t *mode_index);
/* Same, restricted to valid modes. */
bool ref_model_consistent_valid(const mel_model *m, uint32_t *eq, uint32_t *var,
                                uint64_t *mode_index);

/* ---- One mode change (ref_change.c; issue 13) ---------------------------------
 * The restart analysis of engine/mc.h (its readings R1-R6, read there) by
 * brute force: the candidate system of each instant is rebuilt from the
 * two modes' reference offsets; the erasure is chosen among ALL subsets of
 * the overdetermined rows (found by the definition: maxmatch(G - i) ==
 * maxmatch(G)) of the right size whose removal leaves a matchable system,
 * scored by the preference (erase as many equations new to m+ at shift 0
 * as possible, then new at shift 1, ..., then old ones), ties broken by
 * keeping the earliest rows in the preference order. Guard fixpoints are
 * not checked (the comparison tests switch them off in the engine). Items
 * are keys (index << 16 | shift), sorted. */
typedef struct ref_items {
    size_t n;
    uint64_t *k;
} ref_items;

typedef struct ref_change_instant {
    ref_items equations, unknowns, known, context, erased;
    bool underdetermined;
    size_t n_alts;    /* the other optimal erasure sets */
    ref_items *alts;
} ref_change_instant;

typedef struct ref_change {
    int status; /* 0 continuous, 1 reset, 2 rejected (as mc_status) */
    bool singular; /* rejected because a mode is singular */
    uint32_t n_instants;
    ref_change_instant *inst;
} ref_change;

#define REF_KEY(index, shift) (((uint64_t)(index) << 16) | (uint64_t)(shift))

/* MDAE_OK, MDAE_E_INVAL (a mode is invalid, or from = to), MDAE_E_LIMIT (an
 * erasure needs more subsets than the brute force tries), MDAE_E_NOMEM. On
 * MDAE_OK *out is filled (ref_change_close). */
int ref_change_compute(const mel_model *m /* borrowed */, const bool *from, const bool *to,
                       ref_change *out /* out */);
void ref_change_close(ref_change *c); /* safe twice and on a zeroed struct */
/* The instants of ref_change_compute from a given state, for the instants
 * after an event (ref_transient.c): values (j, l) known[j * L + l], equations
 * (i, k) solved or in the context one instant earlier done[i * L + k] (both
 * n * L, owned: freed here), is_new[i] (the erasure preference), into mode
 * n (valid, nonsingular), at most `bound` instants. Fills out's status
 * (0: nothing erased at the first instant) and instants. */
int ref_change_unfold(const mel_model *m, const ref_mode *n, size_t L, bool *known, bool *done,
                      const bool *is_new, uint32_t bound, ref_change *out);

/* ---- A change into a transient mode (ref_transient.c; issue 13 item 5) -------
 * The event of engine/mc_transient.c (its readings T1-T5, read there) by
 * brute force, sharing no code with it: `to` is transient when it violates
 * invariants, all of them added by when-clauses; the mode after the event
 * ("back") is `to` with the mode variables of the rising when-conditions
 * back to their `from` values. The event's candidate system is every
 * equation active in `to` at shift 0 that is not in the context (a shift-0
 * equation with the same body in `from`, where its offset is >= 1), over the
 * values the old mode does not know (x.^l, l < d_j(from)); the erasure is
 * the best of ALL subsets of the right size (as ref_change: new equations
 * first, then the earliest kept). The difference array A_n adds every
 * equation of back at shifts 1..n (orders in back); a value of the event is
 * determined when removing its column lowers the maximum matching (Kuhn, by
 * definition), for n = 0 .. 2 + max c + max d of back. When it does, the
 * instants after the event (`after`) are ref_change_unfold into back from
 * what the event computed, with the consistency equations f.^s of back
 * that A_n imposed (1 <= s <= min(n, c_i)) as context. Items are REF_KEY.
 * Cascades (mc_transient.c T6): when back is transient too, it is the next
 * event (T2 applied from the event before); each event's system is its
 * equations at shift 0 (the previous event's with the same body kept
 * before new ones; no context after the first), its array A_n the kept
 * rows, the later events' equations at shifts 1, 2, ... and back's at the
 * n shifts after; a pair (previous mode, event) met twice makes the
 * cascade endless. */
typedef struct ref_event {
    ref_items equations, unknowns, erased, undetermined;
    int depth;             /* -1: no A_n determines the event */
} ref_event;

typedef struct ref_transient {
    bool transient;        /* false: not a change into a transient mode */
    bool refused;          /* from or back singular, back invalid, or the
                              cascade endless or too long */
    bool endless, too_long; /* the cascade (T6) never reaches a long mode */
    bool *back;            /* n_modes (malloc) */
    uint32_t n_events;     /* the cascade: to, then each transient mode after */
    bool *events;          /* n_events * n_modes */
    uint32_t n_analysed;   /* events analysed (up to the first rejected) */
    ref_event *ev;         /* n_events: each analysed event */
    ref_change after;      /* every event accepted: the instants after the last */
} ref_transient;

/* MDAE_OK (see .transient), MDAE_E_INVAL (from invalid or from = to),
 * MDAE_E_LIMIT (too many subsets), MDAE_E_NOMEM. */
int ref_transient_compute(const mel_model *m /* borrowed */, const bool *from, const bool *to,
                          ref_transient *out /* out */);
void ref_transient_close(ref_transient *t); /* safe twice and on a zeroed struct */

/* ---- What single-mode tools do (ref_approx.c; issue 38) ---------------------
 * engine/ap.h's approximate analysis by brute force: the union structure
 * built here (rows: the model's equations but when-bodies', those of one
 * if-equation with the same cond and cond_pos in one row; sigma: the
 * highest order of any case of any member), written as a MEL model
 * without mode variables and analysed as one mode by ref_mode_compute
 * (acceptance = a perfect matching exists; its canonical offsets). Then,
 * per mode of the model, the single-mode reference's offsets and
 * singularity compared with it. */
typedef struct ref_approx {
    uint32_t n_rows;        /* approximate equations */
    uint32_t *row_of;       /* n_equations: its row, UINT32_MAX for when-equations */
    int *sigma;             /* n_rows * n_variables: union order, -1: none */
    mel_model *union_model; /* the union as a one-mode model (r<q>, v<j>) */
    ref_mode rm;            /* its analysis: rm.c per row, rm.d per unknown */
    bool accepted;          /* it has a perfect matching */
} ref_approx;

int ref_approx_build(const mel_model *m /* borrowed */, ref_approx *out /* out */);
void ref_approx_close(ref_approx *a); /* safe twice and on a zeroed struct */
/* matched[q] (n_rows): a perfect matching of the union of maximum weight? */
bool ref_approx_check_matching(const ref_approx *a, const long *matched, const char **why);

/* One mode, for the matching matched[q] (accepted models). */
typedef struct ref_approx_mode {
    bool valid, singular;     /* the exact single-mode analysis of the mode */
    bool refused;             /* not accepted, and the mode valid nonsingular */
    bool singular_accepted;   /* accepted, and the mode valid singular */
    bool *pivot_zero;         /* n_rows: valid, and no active member of row q
                                 has matched[q] at the union's order */
    bool *d_differs;          /* n_variables: valid nonsingular, active, d differs */
    bool *c_differs;          /* n_equations: likewise for c (its row's) */
    bool any;                 /* some finding holds in this mode */
} ref_approx_mode;

int ref_approx_mode_compute(const mel_model *m, const ref_approx *a, const long *matched,
                            const bool *mode, ref_approx_mode *out /* out */);
void ref_approx_mode_close(ref_approx_mode *am);

/* ---- Random models (ref_random.c) ------------------------------------------ */

typedef struct ref_random_opts {
    uint32_t max_modes;     /* mode variables: 0..max_modes (<= 12); 0: 4 */
    uint32_t max_equations; /* equations in the text: 1..max (<= 100); 0: 7 */
    int max_order;          /* derivative orders 0..max_order; 0: 3 */
    int when_percent;       /* chance of a when-clause at the end (1-2
                               equations, maybe next(x)); 0: none, and the
                               models of the other options are unchanged */
    uint32_t max_whens;     /* with when_percent: 1..max_whens when-clauses
                               (cascades of transient modes); 0 or 1: one,
                               the models unchanged */
    int nonsquare_percent;  /* chance of a deliberately non-square model */
    bool violate;           /* use guarded variables outside their guard on
                               purpose (to test sa_check); off: never */
    uint32_t singular_edits; /* 1..singular_edits more non-square edits at the
                               end (an equation, guarded or not, or an
                               unknown, too many): most valid modes singular
                               (issue 36); 0: none, and the models of the
                               other options are unchanged */
} ref_random_opts;

/* A reproducible random MEL model text for this seed (owned: mdae_free), or
 * NULL on OOM. o may be NULL (defaults). Names: modes g1.., equations e1..,
 * variables x1.., parameters p1... */
char *ref_random_model(uint64_t seed, const ref_random_opts *o);

/* The model of that seed, parsed (owned: mel_model_free), or NULL when it
 * does not parse (the generator's deliberate errors, OOM). */
mel_model *ref_random_parsed(uint64_t seed, const ref_random_opts *o);

/* splitmix64: the generator's PRNG, exposed for tests that sample modes. */
uint64_t ref_rand_next(uint64_t *state);

#endif /* REF_H */
