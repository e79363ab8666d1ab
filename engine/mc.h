/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc.h -- structural analysis of ONE mode change (issue 13; RR-9459
 * section 5, RR-8933 sections 2-3): from the old mode m- to the new mode m+,
 * which equations of the new mode cannot hold at the first instants
 * (erased), the restart system of each instant, and whether the change is
 * continuous, needs a finite reset, or is rejected.
 *
 * The method (the nonstandard expansion of RR-9459 section 5.1.2, with the
 * operational rule of ../shared/papers/notes-mode-changes-impulses-rimis-
 * modelica.md section 1.5; engine/mc_change.c says which reading was chosen
 * at each point the papers leave open, and why):
 *   - derivatives are explicit Euler steps of an infinitesimal step, so an
 *     equation f whose incidence on x has order sigma involves x, x., ...,
 *     x.^sigma (x. = x at the next instant), and its k-th forward shift f.^k
 *     involves x.^k .. x.^(k + sigma): a shift counts as a differentiation;
 *   - each mode's offsets (c_i, d_j, Pryce, engine/sm.h) give its steady
 *     instant: the leading equations f_i.^c_i solved for x_j.^d_j, the lower
 *     shifts of f_i being already satisfied (the context) and the lower
 *     shifts of x_j already known;
 *   - at the change, the previous instants (in m-) are unfolded as what they
 *     computed: known values only. The candidate system of instant r is
 *     every f_i.^k (f_i active in m+, 0 <= k <= c_i(m+)) not in the
 *     context, over the values it mentions that are not known;
 *     Dulmage-Mendelsohn on it (engine/sm.h) finds the overdetermined part,
 *     and Principle 1 erases the fewest current-instant equations that make
 *     it matchable (the previous instants are never undone); instant after
 *     instant until nothing is erased.
 *
 * Transient modes (RR-9459 sections 5.2.3-5.2.4; mc_transient.c): a mode in
 * which the condition of a when-clause holds (mel_when) lasts one instant.
 * A change into it is the cascade m- -> T -> m+', m+' the long mode after
 * the event (mc_transient.back). Instant 0 is the event: its system S(T)
 * (the equations active in T, when-bodies included, unshifted: a transient
 * mode has no latent equations of its own), Principle 1 erasing what
 * conflicts with the past as above; it is accepted when the *difference
 * array* A_n = [S(T) S.(F) S.^2(F) ... S.^n(F)] (F the long mode after,
 * shifted 1..n) determines every value of the event (the unknowns of S(T)),
 * the later values being eliminated, for the smallest such n
 * (mc_transient.depth); else the change is rejected as underdetermined at
 * the transient mode. The instants after the event are analysed as a change
 * from T to m+' (the rule above).
 * A cascade m- -> T1 -> T2 -> ... -> Tk -> m+' (the mode after an event
 * transient too) is analysed event after event, instant e being event e,
 * each event's array following the guard trajectory Te, Te+1, ..., m+';
 * a cascade that never reaches a long mode is rejected as endless.
 *
 * Promises: pure computation; no I/O, logging, global state or BuDDy.
 * Reentrant. Deterministic: ties among erasure sets are broken by a fixed
 * rule, and reported (mc_instant.alternatives).
 *
 * A change out of a transient mode T into m+ is part of a cascade: it is
 * analysed as the cascade entered from the first long mode (by index) whose
 * change into T reaches m+ (mc_result.entered_from), or rejected, located
 * at T's when-clause, when no long mode does.
 *
 * Errors: MDAE_OK, MDAE_E_NOMEM, MDAE_E_INVAL (a bad request: the modes are
 * equal or not valid; *why says which, as a sentence). A mode that
 * violates only the invariants of when-clauses is transient, not invalid,
 * old or new. A change that cannot
 * be analysed because of the model (a guard fixpoint, a singular mode) is a
 * result with status MC_REJECTED and located diagnostics, not an error.
 *
 * Ownership: the model is borrowed for the call; on MDAE_OK *out is new
 * (owned: mc_result_free, which accepts NULL). Indices in the result are
 * indices into the model's equations and variables.
 */
#ifndef MC_H
#define MC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdae.h"
#include "mel.h"
#include "sa.h"

/* An equation or a value at a shift: index into mel_model.equations (or
 * .variables) and shift k >= 0, the k-th forward shift counted from the
 * instant itself (x.^k at t + r*dt is x at t + (r + k)*dt). */
typedef struct mc_item {
    uint32_t index;
    int shift;
} mc_item;

typedef struct mc_list {
    size_t n;
    mc_item *items; /* owned by the result */
} mc_list;

typedef enum mc_status {
    MC_CONTINUOUS, /* nothing erased: the new mode starts from the old state */
    MC_RESET,      /* a finite restart: n_instants instants erase equations */
    MC_REJECTED    /* an over- or underdetermined restart, or a refused model */
} mc_status;

typedef enum mc_sys_status {
    MC_NONSINGULAR,
    MC_OVERDETERMINED,
    MC_UNDERDETERMINED
} mc_sys_status;

/* One restart instant r (t + r*dt, t the first instant in m+). */
typedef struct mc_instant {
    uint32_t r;
    mc_list equations;  /* the restart system: candidate equations kept */
    mc_list unknowns;   /* the values it determines */
    mc_list known;      /* values set by earlier instants that it mentions */
    mc_list context;    /* equations already satisfied (solved one instant
                           earlier with the same body), not solved again */
    mc_list erased;     /* candidate equations erased by Principle 1 */
    /* MC_OVERDETERMINED is never produced by the rule of mc_change.c: both
     * modes are nonsingular (or the change is refused), so the new mode's
     * equations and all their shifts, over all the shifted values, have full
     * row rank, and an overdetermination of a candidate system always
     * involves known values: a conflict with the past, which Principle 1
     * resolves by erasing. Kept for the JSON shape of the issue. */
    mc_sys_status status;
    mc_list overdetermined;  /* MC_OVERDETERMINED: equations (DM) */
    mc_list underdetermined; /* MC_UNDERDETERMINED: values (DM) */
    /* Other erasure sets the rule allows at this instant (the same number
     * of equations of each preference class; see mc_change.c), each a list
     * of equations; at most MC_MAX_ALTERNATIVES, alternatives_truncated
     * when there are more. */
    size_t n_alternatives;
    mc_list *alternatives;
    bool alternatives_truncated;
} mc_instant;

#define MC_MAX_ALTERNATIVES 16

/* Impulse order of a value of a restart system (RR-9459 section 6,
 * RR-8933 App. A; mc_impulse.c says how it is computed): the order o such
 * that x * dt^o is finite and nonzero; o > 0 means impulsive (infinite,
 * Dirac-like in standard terms). Structurally only bounds are known: lo and
 * hi over every assignment of orders the structure allows (MC_ORDER_NEG_INF
 * for identically zero). Listed in mc_result.impulsive: the values with
 * hi > 0; in mc_result.finite: the others. */
#define MC_ORDER_NEG_INF (-1000)
typedef struct mc_impulse {
    uint32_t var;
    int shift;
    uint32_t r;  /* the instant */
    int lo, hi;  /* impulsive for sure when lo > 0; possibly when hi > 0 */
    /* mc_result.impulsive only: the other possibly impulsive values of the
     * same instant whose order equals this one's under every assignment the
     * rules allow (RR-9459 (40): [lambda] = [s]); owned by the result. */
    mc_list equal;
} mc_impulse;

/* The residual R = g.^k of an equation erased at instant r whose values
 * the previous instants all fixed (RR-9459 (49)): the prior (51) makes it
 * finite and nonzero (order 0: the clutch's w1 - w2, a finite conflict);
 * when finite states (Assumption 1) forbid that, it is infinitesimal
 * (hi < 0, or identically 0): the old state satisfies g.^k at the change,
 * as the second-order Cup-and-Ball's k1, k1. at the impact (the positions
 * are continuous, RR-9459 (30)). mc_impulse.c says how. */
typedef struct mc_residual {
    uint32_t r;
    uint32_t eq;    /* index into mel_model.equations */
    int shift;
    int lo, hi;     /* MC_ORDER_NEG_INF: identically 0 */
} mc_residual;

/* The standard meaning (dt -> 0) of a value of a restart instant
 * (RR-9459 (18), (30), (34); mc_impulse.c S1-S3): the value x.^shift of
 * instant r reads as the left limit x^(level)- or the restart value
 * x^(level)+ of the level-th derivative, level being the derivative the
 * instant determines for x (the positions at the Cup-and-Ball's instant 0,
 * the velocities at its instant 1). */
typedef enum mc_side { MC_SIDE_MINUS, MC_SIDE_PLUS, MC_SIDE_EVENT } mc_side;
typedef struct mc_standard {
    uint32_t r;
    uint32_t var;
    int shift;      /* the value x.^shift of instant r */
    int level;      /* 0: x itself; 1: x'; ... */
    mc_side side;
    /* MC_SIDE_EVENT (a change into a transient mode, issue 41 item 6): the
     * value after event `event` (1-based) of the cascade, at the same
     * standard time as x- and x+ (S4 in mc_impulse.c); 0 otherwise. */
    uint32_t event;
} mc_standard;

/* A kept equation of restart instant r as dt -> 0 (RR-9459 section 6.1.2,
 * "rescaling impulsive variables", (41)-(43); mc_std.c): its terms of
 * dominant order, the values read by mc_standard (x+, x'-...), the
 * impulsive ones rescaled (dt*lambda for an order-1 lambda). When lower
 * shifts of the equation hold at the instant (kept, or in the context),
 * it is read as its derivative at the lowest of them ((32): k1.^2 with k1.
 * satisfied is der(k1) at shift 1). */
typedef struct mc_std_equation {
    uint32_t r;
    uint32_t eq;        /* index into mel_model.equations */
    int shift;
    int derivative;     /* read as der^derivative(eq) at shift - derivative */
    char *text;         /* "lhs = rhs", owned by the result; NULL: not read */
    const char *why;    /* static: why text is NULL, else NULL */
} mc_std_equation;

/* The restart values of instant r solved (RR-9459 (18), (30), (35);
 * mc_solve.c says how): the instant's restart system as dt -> 0, its
 * impulsive values eliminated (the eliminated relations and the
 * standardised equations that read no impulsive value), solved for the
 * values the instant determines when it is linear in them: names[k] =
 * values[k] (the clutch's w1+ = (j1*w1- + j2*w2-)/(j1 + j2)). conditions:
 * the pivots assumed non-zero ("j1 + j2 \u2260 0", the elimination's
 * first), NULL when none; requires: what the old values must satisfy for
 * the system to have that solution (equations left over, read at it:
 * "L^2 - (x-^2 + y-^2) = 0"), NULL when none; why: NULL, or why it was not
 * solved (then no value). All texts owned by the result. */
typedef struct mc_restart_values {
    uint32_t r;
    size_t n_values;
    char **names;      /* "w1\u207a", "x'\u207a" */
    char **values;     /* n_values expressions */
    char *conditions;
    char *requires;
    char *why;
    /* The same as expressions (nodes in mc_result.pool), when solved: the
     * system rows[i] = 0 over values FX_VAR(k, 0), k < n_all, named
     * all_names[k] (in the pool); solution[k] the expression of a value
     * solved, NULL for the others (x-, knowns' companions); requires_row[i]
     * a row left over (a condition on the old values, in `requires`).
     * Arrays owned. */
    size_t n_rows;
    const struct fx_node **rows;
    bool *requires_row;
    size_t n_all;
    const char **all_names;
    const struct fx_node **solution;
} mc_restart_values;

/* A restart relation of instant r (RR-9459 section 6.1.2, "eliminate the
 * impulsive variables"): the equations `from` contain the possibly
 * impulsive values `eliminate` (hi > 0); when they are linear in them
 * (checked: mc_elim.h, as for the clutch's torques), `relations` = |from| -
 * |eliminate| combinations of them are free of impulses and relate the
 * values `among` (the new values x. and the old x: with dt -> 0, x+ and
 * x-). An equation of the restart system without impulsive values is its
 * own relation (eliminate empty). */
typedef struct mc_reset {
    uint32_t r;
    mc_list eliminate; /* values (variables) */
    mc_list from;      /* equations */
    mc_list among;     /* values (variables) */
    uint32_t relations;
    /* The elimination done (eliminate non-empty; mc_elim.h says how, and
     * mc_reset_eliminate gives it as expressions): n_eliminated relations,
     * each "r = 0" over the shifted values (x'.k, x.k as mc_body_format
     * writes them), and each as dt -> 0 (mc_std.c; NULL when it cannot be
     * read: std_why[k] says why). conditions: the pivots assumed non-zero
     * ("x != 0, ..."), NULL when none. why: NULL, or why nothing was
     * eliminated (not linear; a pivot that vanishes). All owned. */
    size_t n_eliminated;
    char **eliminated;
    char **standard;          /* n_eliminated entries */
    const char **std_why;     /* n_eliminated entries, static */
    char *conditions;
    char *why;
} mc_reset;

/* The transient part of a change whose new mode is transient (above). */
typedef struct mc_transient {
    bool *back;          /* n_modes: the long mode after the event: the new
                            mode with the mode variables of the rising
                            when-conditions back to their old values (owned) */
    size_t n_whens;
    uint32_t *whens;     /* the when-clauses whose condition becomes true
                            (indices into mel_model.whens; owned) */
    int depth;           /* the smallest n such that A_n determines the
                            event's values; -1 if none up to max_depth */
    int max_depth;       /* the largest n tried (mc_transient.c says why);
                            -1: the event was not analysed (the change was
                            refused before: a singular mode, no long mode
                            after the event, a guard fixpoint) */
    size_t array_rows;   /* A_depth's equations and values (A_max_depth's */
    size_t array_cols;   /* when depth is -1); 0 when not reached */
    mc_list undetermined; /* depth -1: the event's values A_max_depth
                             leaves undetermined */
    /* A cascade of several transient modes (RR-9459 section 5.3; T6 in
     * mc_transient.c): the events in order, each lasting one instant
     * (instant e is event e); events[e * n_modes .. + n_modes) is the mode
     * of event e, event 0 the new mode. n_events >= 1. depth, array_rows,
     * array_cols and undetermined are those of the last event analysed
     * (the failing one when an event is rejected); depths[e] each event's
     * (-1: rejected, or not reached). */
    uint32_t n_events;
    bool *events;        /* n_events * n_modes (owned) */
    int *depths;         /* n_events (owned) */
    /* The cascade never reaches a long mode: a pair (previous mode, event)
     * repeats, so the events go round for ever (endless), or it is longer
     * than MC_MAX_CASCADE events (too_long). The change is rejected with a
     * located error; back is then the mode the cascade would go to next. */
    bool endless, too_long;
} mc_transient;

/* Events beyond which a cascade is not followed (mc_transient.too_long). */
#define MC_MAX_CASCADE 64u

typedef struct mc_result {
    mc_status status;
    bool ambiguous;       /* some instant has alternatives */
    uint32_t n_instants;  /* MC_RESET: the restart instants (each erases,
                             but the event of a transient mode, always
                             instant 0, may erase nothing);
                             MC_REJECTED: up to the failing one; else 0 */
    mc_instant *instants;
    size_t n_impulsive;   /* the possibly impulsive values, by instant */
    mc_impulse *impulsive;
    size_t n_resets;      /* restart relations, by instant */
    mc_reset *resets;
    /* The values of the restart systems that are not impulsive (hi <= 0,
     * finite: RR-9459 (40)'s "impulse order zero"), by instant. */
    size_t n_finite;
    mc_impulse *finite;
    size_t n_residuals;   /* residuals of erased equations, by instant */
    mc_residual *residuals;
    size_t n_standard;    /* standard meanings of the values, by instant */
    mc_standard *standard;
    size_t n_std_equations; /* the restart systems as dt -> 0, by instant */
    mc_std_equation *std_equations;
    size_t n_restart_values; /* the restart values solved, by instant */
    mc_restart_values *restart_values;
    struct fx_pool *pool; /* the nodes of restart_values (owned), or NULL */
    mdae_diags diags;     /* located diagnostics (owned) */
    /* NULL unless the new mode is transient; then instants[0] (when the
     * analysis got that far) is the event, always reported. Owned. */
    mc_transient *transient;
    /* A change out of a transient mode (mc_change with `from` transient;
     * T7 in mc_transient.c): the long mode before it, n_modes booleans
     * (owned), from which the cascade analysed here enters `from` and
     * reaches `to`; the result is that cascade's (its transient field, its
     * instants from the first event). NULL otherwise. */
    bool *entered_from;
} mc_result;

typedef struct mc_options {
    /* Break ties among equally preferred erasure sets from the other end
     * (last equation first): for tests, which check that the status and
     * the number of instants do not depend on the choice. */
    bool tie_reverse;
    /* Instants before the restart is declared not to settle; 0: a bound
     * computed from the offsets (see mc_change.c). */
    uint32_t max_instants;
    /* Skip the guard-fixpoint refusal (R7), reading every mode definition
     * as if it were a left limit: for the tests that compare with the
     * reference on models whose guards are fixpoints (the building). */
    bool ignore_guard_fixpoints;
    /* Leave out the impulse analysis (mc_result.impulsive and .resets stay
     * empty): mc_all_enumerate, which reports neither, sets it. */
    bool skip_impulses;
    /* Erase this set at the first instant instead of the rule's choice: one
     * of its alternatives (mc_instant.alternatives of a previous result),
     * for the tests that check every allowed choice gives the same status
     * and number of instants. A set the rule does not allow makes mc_change
     * return MDAE_E_INVAL. NULL: the rule's choice. */
    const mc_list *force_first_erasure;
    /* mc_first_instants: also which equations the first instant erases,
     * pair by pair (mc_first.erasures). It costs more than the classes:
     * one relational product over the pairs' matchings per row and class,
     * within a budget of BDD nodes (erasures_budget; engine/sa_greedy.c),
     * past which mc_first.erasures_why says so and the classes stand. */
    bool first_erasures;
    /* How: SA_METHOD_AUTO (0) one pair at a time when the pairs that need
     * a restart are few, else on BDDs; SA_METHOD_IMPLICIT or
     * SA_METHOD_ENUMERATE force one (tests). erasures_budget: the BDD
     * path's budget (0: 20,000,000 nodes). */
    int erasures_method;
    size_t erasures_budget;
    /* mc_first_instants: also the whole of each change that needs a
     * restart, instant after instant on BDDs (mc_first.outcomes; implies
     * first_erasures, whose method and budget apply to every instant). */
    bool first_later;
    /* mc_first_instants: a cancel (sa_options.progress) while the erasures
     * or the later instants are computed leaves them not computed, their
     * why saying so, instead of failing the call: the first instants'
     * classes are still given (the editor's deadline). A cancel before them
     * still fails the call (MDAE_E_CANCELED). */
    bool first_keep_on_cancel;
    /* mc_first_instants: also the impulse orders of each restart instant
     * as classes of pairs (mc_first.impulses, mc_first_instant.impulses;
     * implies first_erasures; the later instants' need first_later). */
    bool first_impulses;
} mc_options;

/* Analyse the change from mode `from` to mode `to` (arrays of m->n_modes
 * booleans, borrowed; NULL when the model has no mode variable, which makes
 * every change from = to). opt may be NULL. On MDAE_E_INVAL, why (may be
 * NULL) receives a sentence saying what is wrong with the request. */
MDAE_API int mc_change(const mel_model *m /* borrowed */, const bool *from, const bool *to,
                       const mc_options *opt /* borrowed, may be NULL */,
                       mc_result **out /* out: owned */, char *why /* out */, size_t why_len);

MDAE_API void mc_result_free(mc_result *r /* takes ownership; NULL ok */);

/* "continuous", "reset", "rejected" / "nonsingular", ... (static storage). */
MDAE_API const char *mc_status_name(mc_status s);
MDAE_API const char *mc_sys_status_name(mc_sys_status s);

/* The body of equation eq.index at shift eq.shift as text (issue 41 item
 * 8), "lhs = rhs" in the model's language (fx_body_syntax), every unknown
 * read at that shift: x.k for x at t + k*dt (x for k = 0, x. for k = 1),
 * x'.k for its derivative there (x'' ...; in the nonstandard expansion
 * x' = (x. - x)/dt); names quoted as the language needs ('x[3]'). The
 * shift mark is U+2022. MDAE_OK with *out new (owned: mdae_free), or NULL
 * when the model keeps no expressions; MDAE_E_INVAL, MDAE_E_NOMEM, and
 * fx_body_sides's MDAE_E_LIMIT / MDAE_E_NOTIMPL (nothing to free). */
MDAE_API int mc_body_format(const mel_model *m /* borrowed */, mc_item eq,
                            char **out /* out: owned */);

/* Guard fixpoints (RR-9459 section 5.2, model (19)): a mode variable defined
 * from the current value (not last/pre) of an unknown that equations
 * depending on that mode variable determine, directly or through other
 * equations (the same connected component of the incidence graph). Adds one
 * located error per such mode variable to d (may be NULL) and sets *count.
 * MDAE_OK or MDAE_E_NOMEM. */
MDAE_API int mc_guard_fixpoints(const mel_model *m /* borrowed */, mdae_diags *d,
                                size_t *count /* out */);
/* The same as located warnings for a model's check (issue 41 item 3: the
 * model's modes are analysed, only its changes are refused), each saying
 * so after the last()/pre() fix. MDAE_OK or MDAE_E_NOMEM. */
MDAE_API int mc_guard_fixpoint_warnings(const mel_model *m /* borrowed */, mdae_diags *d);

/* ---- All changes (issue 13 section 3) --------------------------------------
 * Every pair (m-, m+) of different valid modes. The issue asks for this on
 * BDDs over two copies of the mode variables, without enumerating pairs;
 * that exists for the first instant only (mc_first_instants, below: its
 * classes, and which equations it erases). The whole of each change, for
 * small models, is the enumeration here, and it says so (mc_all.method =
 * "enumeration"). */
typedef struct mc_pair {
    uint32_t from, to;   /* the modes as bit masks: bit k = mode variable k */
    mc_status status;
    uint32_t n_instants;
    bool ambiguous;
    mc_list erased0;     /* equations erased at the first instant */
} mc_pair;

typedef struct mc_all {
    const char *method;  /* "enumeration" (static) */
    uint32_t valid_modes;
    size_t n_pairs;
    mc_pair *pairs;      /* by from, then to */
    size_t counts[3];    /* by mc_status */
    mdae_diags diags;    /* model-wide refusals (guard fixpoints), once */
} mc_all;

/* A cube over bit vectors: the vectors x with (x & care) == val. */
typedef struct mc_cube {
    uint64_t val, care;
} mc_cube;

/* An exact cover of the set of n keys (bit vectors of `bits` bits, bits <=
 * 64) by cubes: an irredundant sum of prime implicants (Minato-Morreale
 * ISOP on the sorted keys, mc_cover.c), largest cubes first; not
 * necessarily minimum. For pairs of modes the key is
 * from | to << n_modes (mc_pair_key). On MDAE_OK *out is new (owned:
 * mdae_free), *n_out cubes. MDAE_E_INVAL or MDAE_E_NOMEM otherwise. */
MDAE_API int mc_cover(const uint64_t *keys, size_t n, unsigned bits, mc_cube **out /* out */,
                      size_t *n_out /* out */);

static inline uint64_t mc_pair_key(uint32_t from, uint32_t to, uint32_t n_modes)
{
    return (uint64_t)from | ((uint64_t)to << n_modes);
}

/* Pairs beyond which mc_all_enumerate refuses (MDAE_E_LIMIT). */
#define MC_ALL_MAX_PAIRS 20000u

/* Analyse every change of m by enumerating its valid modes (at most 20 mode
 * variables and max_pairs pairs: otherwise MDAE_E_LIMIT with *why saying
 * so). MDAE_E_INVAL: the model has no mode variables. On MDAE_OK *out is
 * new (owned: mc_all_free). */
MDAE_API int mc_all_enumerate(const mel_model *m /* borrowed */, size_t max_pairs,
                              mc_all **out /* out: owned */, char *why /* out */,
                              size_t why_len);
MDAE_API void mc_all_free(mc_all *a /* takes ownership; NULL ok */);

/* Called by mc_all_enumerate_each after each pair, in the order of
 * mc_all.pairs: p is the pair just added (borrowed: all->pairs[all->n_pairs
 * - 1]), r its whole result (borrowed for the call; for a rejected pair the
 * failing instant and the located diagnostics; its first instant's erased
 * list has moved to p->erased0, and the impulse analysis is skipped). A
 * nonzero return stops the enumeration: mc_all_enumerate_each then returns
 * MDAE_E_CANCELED and no result. */
typedef int mc_pair_fn(void *ctx, const mc_pair *p, const mc_result *r);

/* mc_all_enumerate, calling fn (may be NULL) after each pair: for callers
 * that stream the pairs, look at the rejected ones or stop early
 * (cancellation). The limits are checked before any pair is analysed, so
 * MDAE_E_LIMIT costs the enumeration of the valid modes only. */
MDAE_API int mc_all_enumerate_each(const mel_model *m /* borrowed */, size_t max_pairs,
                                   mc_pair_fn *fn, void *ctx, mc_all **out /* out: owned */,
                                   char *why /* out */, size_t why_len);

/* The changes through when events only: from every valid (long) mode into
 * every transient mode (the cascades through the events), by enumeration,
 * within mc_all_enumerate's limits and errors (MDAE_E_LIMIT, MDAE_E_INVAL
 * with *why). For mc_first_instants, whose pairs on BDDs are the changes
 * between long modes. On MDAE_OK *out is new (owned: mc_all_free). */
MDAE_API int mc_events_enumerate(const mel_model *m /* borrowed */, size_t max_pairs,
                                 mc_all **out /* out: owned */, char *why /* out */,
                                 size_t why_len);

/* ---- The first instant of all changes on BDDs (issue 13 section 3, its
 * first part; mc_pairs.c) ------------------------------------------------
 * Over every ordered pair (g, g') of different valid nonsingular long modes,
 * without enumerating pairs: which first restart instants are continuous
 * (square with a perfect matching: nothing to erase, R6), which need a
 * restart (overdetermined, no value undetermined: some equation is erased
 * at the first instant; whether the restart settles, and which equations
 * R4 erases, is not computed here), and which are rejected at the first
 * instant (some value undetermined). The sets are over 2n mode variables
 * named g0, g0', g1, g1', ... (mc_first_name): each variable before the
 * change, then after it. Changes into transient modes are not among these
 * pairs: they are mc_first.events, by enumeration. */
enum { MC_FIRST_CONTINUOUS, MC_FIRST_RESTART, MC_FIRST_REJECTED, MC_FIRST_NONE = -1 };
/* The mark of a mode variable after the change, g\u207a (issue 41 item 8: a
 * prime reads as a derivative): the pairs' names and the covers' keys. */
#define MC_AFTER "\u207a"
#define MC_FIRST_MAX_CUBES 4096 /* a longer cover is unreadable, and costly */

/* The pairs whose change ends one way after a given number of instants
 * (mc_options.first_later): a reset of `instants` restart instants, or a
 * rejection at instant `instants` - 1 (the instants before it included). */
typedef struct mc_first_outcome {
    mc_status status;    /* MC_RESET or MC_REJECTED */
    uint32_t instants;   /* mc_result.n_instants of each of these changes */
    double pairs;
    mdae_bn pairs_exact; /* the same, exactly (owned; issue 41 item 2) */
    sa_set set;          /* over g, g\u207a (exact on the pairs) */
    bool cubes_left_out; /* past MC_FIRST_MAX_CUBES: set has no formula nor cubes */
} mc_first_outcome;

/* An equation at a shift (a row of the first instant) that R4 erases in
 * some pairs (mc_change.c: the greedy basis of the rows in its preference
 * order, ties by declaration). */
typedef struct mc_first_erasure {
    char *equation;      /* owned: the equation's name */
    int shift;           /* the row f.^shift */
    double pairs;        /* the pairs where it is erased at the first instant */
    mdae_bn pairs_exact; /* the same, exactly (owned) */
    sa_set set;          /* those pairs over g, g\u207a (exact on the pairs) */
    bool cubes_left_out; /* past MC_FIRST_MAX_CUBES: set has no formula nor cubes */
} mc_first_erasure;

/* A later instant r >= 1 of the changes that need a restart
 * (mc_options.first_later), over the pairs still restarting at it, as
 * sets of pairs (exact on the pairs): its classes (MC_FIRST_CONTINUOUS:
 * nothing erased, the restart ends before it; MC_FIRST_RESTART: it erases;
 * MC_FIRST_REJECTED: a value undetermined there), which rows it erases
 * (R4) and which it keeps, its restart system where it erases or fails
 * (where it ends, its rows are the new mode's steady instant, not
 * reported by mc_change), each row in the pairs where it is that (its
 * pairs_exact too). */
/* How the impulse analysis of a restart instant ended (mc_impulse.c). */
typedef enum mc_impulse_status {
    MC_IMPULSES_DONE,      /* exact bounds on every order */
    MC_IMPULSES_BOUNDS,    /* bounds by propagation only (the exact search
                              exceeded its budget): a value said possibly
                              impulsive may not be */
    MC_IMPULSES_NONE,      /* no assignment of orders satisfies the rules:
                              no order reported */
    MC_IMPULSES_TOO_LARGE  /* not done: the restart system determines more
                              than MC_IMP_MAX_VARS values (mc_int.h) */
} mc_impulse_status;

/* "done", "bounds", "no assignment", "too large" (static storage). */
MDAE_API const char *mc_impulse_status_name(mc_impulse_status s);

/* A value (variable name and shift), for mc_first's impulse orders. */
typedef struct mc_named {
    char *name; /* owned */
    int shift;
} mc_named;

/* A value of a restart system with its impulse order bounds (as
 * mc_impulse, by name). */
typedef struct mc_first_order {
    mc_named value;
    int lo, hi;
    size_t n_equal;
    mc_named *equal; /* impulsive only: the values of equal order (owned) */
} mc_first_order;

/* The impulse orders of a restart instant (RR-9459 section 6, mc_impulse.c)
 * in a class of pairs, the same for every pair of the class
 * (mc_pairs_imp.c says why): mc_result.impulsive and .finite of instant r
 * of each of these changes, and how the analysis ended (its notes). Issue
 * 41 item 7. */
typedef struct mc_first_impulses {
    mc_impulse_status status;
    bool priors_forced;      /* finite states force some known values or
                                residuals to be infinitesimal (I9) */
    size_t n_impulsive;
    mc_first_order *impulsive; /* possibly impulsive values (hi > 0) */
    size_t n_finite;
    mc_first_order *finite;  /* the others (order <= 0) */
    double pairs;
    mdae_bn pairs_exact;     /* owned */
    sa_set set;              /* over g, g\u207a (exact on the pairs) */
    bool cubes_left_out;     /* past MC_FIRST_MAX_CUBES: no formula nor cubes */
} mc_first_impulses;

/* Classes of distinct restart systems tried at one instant before the
 * impulse orders are given up there (mc_first.impulses_why). */
#define MC_FIRST_MAX_IMPULSE_CLASSES 256

typedef struct mc_first_instant {
    uint32_t r;
    double pairs;            /* the pairs still restarting at instant r */
    double counts[3];        /* by MC_FIRST_* */
    mdae_bn pairs_exact, counts_exact[3]; /* the same, exactly (owned) */
    size_t n_erasures;
    mc_first_erasure *erasures; /* rows erased in some of those pairs */
    size_t n_rows;
    mc_first_erasure *rows;  /* rows kept (the restart system) in some */
    /* mc_options.first_impulses: the impulse orders of the pairs that
     * erase at this instant, by class (impulses_computed), or why not. */
    bool impulses_computed;
    const char *impulses_why; /* static, or NULL */
    size_t n_impulses;
    mc_first_impulses *impulses;
} mc_first_instant;

typedef struct mc_first {
    double pairs;          /* the ordered pairs of different valid nonsingular long modes */
    double counts[3];      /* by MC_FIRST_* */
    /* The counts exactly (issue 41 item 2: past 2^53 a double rounds them;
     * the brake at N = 100 has 2^200 - 2^100 pairs). Owned. */
    mdae_bn pairs_exact, counts_exact[3], status_counts_exact[3];
    sa_set classes[3];     /* by MC_FIRST_*: exact on those pairs (sa.h) */
    /* Past MC_FIRST_MAX_CUBES cubes a class has no cubes, and its formula is
     * the complement of the other two over the pairs (NULL if one of them
     * has too many cubes as well). */
    bool cubes_left_out[3];
    uint32_t n_names;      /* 2 * n_modes */
    /* Which equations the first instant erases, pair by pair: every row
     * erased in some pair of the restart class, in the model's order
     * (equation, then shift). */
    size_t n_erasures;
    mc_first_erasure *erasures;
    bool erasures_computed; /* asked (mc_options.first_erasures) and done */
    /* Whether they cover the pairs rejected at the first instant too (issue
     * 41 item 4): when the pairs were solved one at a time (at most
     * SA_GREEDY_ENUMERATE pairs restarting or rejected, or erasures_method
     * SA_METHOD_ENUMERATE); on BDDs only the restart class's are. */
    bool erasures_of_rejected;
    const char *erasures_why; /* static: why they were not, or NULL */
    /* mc_options.first_impulses: the impulse orders of the first instant
     * in the pairs that need a restart, by class (impulses_computed), or
     * why not (impulses_why, static). */
    bool impulses_computed;
    const char *impulses_why;
    size_t n_impulses;
    mc_first_impulses *impulses;
    /* The whole of every change (mc_options.first_later): counts by
     * mc_status, and the reset and rejected pairs by their number of
     * instants (continuous ones: classes[MC_FIRST_CONTINUOUS]). */
    bool later_computed;
    const char *later_why;  /* static: why not, or NULL */
    double status_counts[3];
    size_t n_outcomes;
    mc_first_outcome *outcomes;
    /* Every later instant, in order (later_computed, or up to where it
     * stopped): its erasures and restart systems pair by pair. */
    size_t n_later;
    mc_first_instant *later;
    /* The model's when-clauses (mel_model.n_whens): the changes through
     * their transient modes are not among these pairs (a model whose only
     * changes are events, the bouncing ball, has none); they are in
     * `events`, whole (every instant, cascades included), by enumeration
     * (mc_events_enumerate with MC_ALL_MAX_PAIRS), when transient_whens > 0
     * and the enumeration's limits allow; else events is NULL and
     * events_why (pointing into this struct, or NULL when there are no
     * when-clauses) says why. */
    uint32_t transient_whens;
    mc_all *events;
    const char *events_why;
    char events_why_buf[160];
    struct mc_first_priv *priv;
} mc_first;

/* Classify the first instants of all changes of m (opt: how the model and
 * the pairs are analysed, sa.h, its progress callback able to cancel;
 * mopt: only its ignore_guard_fixpoints, first_erasures (with
 * erasures_method and erasures_budget), first_later and
 * first_keep_on_cancel are read; either may be NULL). Needs sa_begin. On
 * MDAE_OK *out is new (owned: mc_first_free). MDAE_E_INVAL with *why for a
 * model without mode variables or with a guard fixpoint; MDAE_E_LIMIT with
 * *why past the analysis's limits; MDAE_E_CANCELED when the progress
 * callback asked (but see first_keep_on_cancel); MDAE_E_NOMEM. */
MDAE_API int mc_first_instants(const mel_model *m /* borrowed */, const sa_options *opt,
                               const mc_options *mopt, mc_first **out /* out: owned */,
                               char *why /* out */, size_t why_len);
MDAE_API void mc_first_free(mc_first *f /* takes ownership; NULL ok */);

/* Name of the pairs' mode variable k (borrowed from f): "g" or "g" MC_AFTER. */
MDAE_API const char *mc_first_name(const mc_first *f, uint32_t k);

/* The class (MC_FIRST_*, or MC_FIRST_NONE for a pair that is not one of
 * f's) of the change from -> to, both over the model's mode variables:
 * read from the reported classes' cubes (a class without cubes: the pair
 * in none of the others), the pair's validity from the pairs' analysis;
 * for tests. */
MDAE_API int mc_first_class(const mc_first *f, const bool *from, const bool *to,
                            int *cls /* out */);
/* The status (MC_CONTINUOUS, MC_RESET, MC_REJECTED; -1 for a pair that is
 * not one of f's) and number of instants of the change from -> to, read
 * from f's classes and outcomes (mc_options.first_later): MDAE_E_INVAL if
 * they were not computed, MDAE_E_LIMIT if a set it needs has no cubes; for
 * tests. */
MDAE_API int mc_first_change(const mc_first *f, const bool *from, const bool *to, int *status,
                             uint32_t *instants);
/* Whether the change from -> to is in s, a set of f (cubes over f's
 * names; MDAE_E_LIMIT if left_out): for tests, with the sets of
 * mc_first.later. */
MDAE_API int mc_first_pair_in(const mc_first *f, const sa_set *s, bool left_out,
                              const bool *from, const bool *to, bool *in /* out */);
/* Whether erasure k of f holds for the change from -> to (read from its
 * cubes): MDAE_E_LIMIT if its cubes were left out; for tests. */
MDAE_API int mc_first_erased(const mc_first *f, size_t k, const bool *from, const bool *to,
                             bool *erased /* out */);

#endif /* MC_H */
