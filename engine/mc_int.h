/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_int.h -- shared between the files of the mode-change module
 * (mc.h), private to it.
 */
#ifndef MC_INT_H
#define MC_INT_H

#include "fx.h"
#include "mc.h"

/* Impulse analysis of one restart instant (mc_impulse.c): appends the
 * instant's possibly impulsive values to res->impulsive and its restart
 * relations to res->resets, or a note to res->diags when the analysis
 * gives up (too large). to: the new mode; d: its offsets d_j (sm.h),
 * -1 for inactive variables. MDAE_OK or MDAE_E_NOMEM. */
int mc__impulse(const mel_model *m, const bool *to, const int *d, const mc_instant *in,
                mc_result *res);

/* Quantities past which the impulse analysis of an instant is not done
 * (mc_impulse.c I5): a restart system that determines more values than
 * this is too large for it (mc_pairs_imp.c relies on it). */
#define MC_IMP_MAX_VARS 256

/* mc__impulse, saying how the analysis ended: *status, and *priors_forced
 * when finite states forced some known values or residuals to be
 * infinitesimal (I9's note). */
int mc__impulse_run(const mel_model *m, const bool *to, const int *d, const mc_instant *in,
                    mc_result *res, mc_impulse_status *status, bool *priors_forced);

/* ---- Impulse orders as sets of pairs (mc_pairs_imp.c) ---- */

/* One restart instant of the pair models (mc_pairs.c), as the impulse
 * classes read it; everything borrowed. */
typedef struct mc__pair_instant {
    uint32_t r;
    const mel_model *m;       /* the model */
    mel_model *pm;            /* the instant's pair model: its rows are the
                                 candidate rows f_i.^k (equations), its
                                 columns the values not known (variables);
                                 new guards go to its arena */
    const sa_result *res;     /* pm's analysis */
    const uint32_t *row_eq;   /* per row: its equation of m and shift */
    const int *row_k;
    const uint32_t *col_j;    /* per column: its variable of m and shift */
    const int *col_l;
    const sa_set *erased;     /* per row: the pairs where R4 erases it */
    const mel_guard *const *done; /* n_equations * H: f_i.^k solved or in
                                     the context at the previous instant */
    uint32_t H;
    const mel_guard ***ge_after; /* [item][v]: offset >= v in the new mode
                                    (equations, then variables) */
    const int *max_off;       /* per item: its largest offset */
    const sa_set *restart;    /* the pairs that erase at this instant */
} mc__pair_instant;

/* The impulse orders of instant pi->r over the pairs of pi->restart, as
 * classes (mc_first_impulses, new: mc__first_impulses_free); *why (static)
 * says why not when a limit stops it (MDAE_OK, nothing out). MDAE_OK or
 * MDAE_E_NOMEM. */
int mc__pairs_impulses(const mc__pair_instant *pi, mc_first_impulses **out, size_t *n_out,
                       const char **why);
void mc__first_impulses_free(mc_first_impulses *c, size_t n);

/* The value of a condition made of mode variables (FX_MODE, FX_BOOL, !, &,
 * |) in mode `to`; *ok is set false (and false returned) when it reads
 * anything else (mc_impulse.c). */
struct fx_node;
bool mc__mode_cond(const struct fx_node *e, const bool *to, bool *ok);

/* The standard meaning of the values of a finished restart (mc_impulse.c
 * S1-S3): appends res->standard, for a change with status MC_RESET into a
 * long mode (nothing otherwise); d: the new mode's offsets d_j.
 * MDAE_OK or MDAE_E_NOMEM. */
int mc__standard(const mel_model *m, const int *d, mc_result *res);

/* The restart systems of res as dt -> 0 (mc_std.c): appends
 * res->std_equations, one per kept equation of each instant, from
 * res->standard and res->impulsive (call after mc__standard); to, d: the
 * new mode and its offsets. MDAE_OK or MDAE_E_NOMEM. */
int mc__std_equations(const mel_model *m, const bool *to, const int *d, mc_result *res);

/* ---- The restart values solved (issue 41 item 6) ---- */

/* A value of a restart system as dt -> 0 (mc_std.c T1 reads it): a state
 * x^(level) before (epoch 0: x-), after (epoch E + 1: x+) or after event
 * e of a cascade (epoch e), or an algebraic value at its shift, rescaled
 * (dt^impulse * x) when impulsive. */
typedef struct mc__std_value {
    uint32_t var;
    bool state;
    int level;          /* state: the derivative read */
    uint32_t epoch;     /* state */
    int shift;          /* algebraic */
    int impulse;        /* algebraic: its impulse order when > 0 */
    bool unknown;       /* a value the instant determines: solved for */
    const char *name;   /* as printed ("w1\u207a", "(dt*f1)"), in the pool */
} mc__std_value;

/* The restart system of instant r as dt -> 0 (mc_std.c builds it from
 * res->std_equations and the eliminations): rows[i] = 0, FX_VAR(k, 0)
 * reading values[k] (every other leaf a number, a known, time). Borrowed
 * by mc__restart_solve; arrays owned (mc_std.c frees), nodes in a pool. */
typedef struct mc__std_system {
    uint32_t r;
    size_t n_rows;
    const fx_node **rows;
    size_t n_values;
    mc__std_value *values;
    size_t n_pivots;          /* the eliminations' pivots as dt -> 0 */
    const fx_node **pivots;
    const char *why;          /* static: why it cannot be solved, or NULL */
    size_t n_unread;          /* equations of the instant not read as dt -> 0 */
} mc__std_system;

/* Solve s for its unknowns (mc_solve.c): appends res->restart_values
 * (one entry, with values or why). to: the instant's mode; p: the pool of
 * s's nodes (new nodes go there too). MDAE_OK or MDAE_E_NOMEM. */
int mc__restart_solve(const mel_model *m, const bool *to, fx_pool *p, const mc__std_system *s,
                      mc_result *res);
/* Free an entry's texts. */
void mc__restart_values_close(mc_restart_values *v);

/* The texts of rs's elimination (mc_elim.c): rs->eliminated, conditions
 * or why (rs->standard left NULL: mc__std_equations reads them). Nothing
 * when rs->eliminate is empty. MDAE_OK or MDAE_E_NOMEM (rs then has
 * nothing new). */
int mc__reset_texts(const mel_model *m, const bool *to, mc_reset *rs);
/* Free what mc__reset_texts and mc__std_equations put in rs (not its lists). */
void mc__reset_close(mc_reset *rs);

/* Text of the printers (mc_print.c), appended to b: an equation (is_var
 * false) or a value at its shift, "e3\u2022", "tau1"; an expression whose
 * unknowns are encoded as mc_elim.h says, x'\u2022 for x' at shift 1. */
void mc__print_item(mdae_buf *b, const mel_model *m, mc_item it, bool is_var);
void mc__print_shifted(mdae_buf *b, const mel_model *m, const struct fx_node *e);

/* ---- Transient modes (mc_transient.c) ---- */

/* Whether mode is transient (T1, mc_transient.c): it violates some
 * invariants, all of them added by when-clauses. */
bool mc__is_transient(const mel_model *m, const bool *mode);

/* Is `to` a transient mode reached from the long mode `from`: does it
 * violate invariants, all of them added by when-clauses (mel_invariant.when)?
 * On MDAE_OK *out is NULL when it is not, else a new mc_transient (owned by
 * the caller: mc__transient_free) with whens (event 0's), the cascade
 * (events, n_events, T6), back, endless and too_long filled, depths all -1.
 * MDAE_E_NOMEM. */
int mc__transient_of(const mel_model *m, const bool *from, const bool *to,
                     mc_transient **out);
void mc__transient_free(mc_transient *t);

/* The difference array of one event (RR-9459 (36), T6). rows: the event's
 * system after erasure (equations at shift 0, incidences in `to`, the
 * event's mode); later: the n_later events after it (n_later * n_modes
 * booleans; their equations at shifts 1..n_later); known: n_variables * W
 * flags, the values the previous instants fixed; dep: the event's values
 * (the unknowns of rows, sorted by variable then shift); back_active,
 * back_c, back_d: the long mode after the cascade (sm.h, -1 for inactive
 * items), at shifts n_later + 1 .. n_later + n. Tries n = 0 ..
 * t->max_depth (set here), fills t->depth (-1 if none), array_rows,
 * array_cols and, when no n works, t->undetermined and under[k] for dep
 * item k. MDAE_OK or MDAE_E_NOMEM. */
int mc__difference_array(const mel_model *m, const bool *to, const bool *later,
                         uint32_t n_later, const bool *back, const bool *back_active,
                         const int *back_c, const int *back_d, const mc_list *rows,
                         const bool *known, uint32_t W, const mc_list *dep, mc_transient *t,
                         bool *under);

/* Located diagnostics of event e (its instant), from the long mode `from`
 * before the cascade: a note at each when-clause rising there (accepted)
 * or an error there naming what no array determines (rejected). MDAE_OK
 * or MDAE_E_NOMEM. */
int mc__transient_diags(const mel_model *m, const mc_transient *t, const bool *from,
                        uint32_t e, mdae_diags *d);

/* An endless or too long cascade (t->endless, t->too_long): an error at
 * each when-clause rising in it. MDAE_OK or MDAE_E_NOMEM. */
int mc__cascade_diags(const mel_model *m, const mc_transient *t, const bool *from,
                      mdae_diags *d);

/* T7: the long modes whose change into the transient mode T makes a
 * cascade that reaches `to` (its long mode after, or a later event): the
 * first of them by index (bit k = mode variable k) into before (n_modes),
 * how many into *count. Searched only for n_modes <= 20 (*searched
 * false otherwise). MDAE_OK or MDAE_E_NOMEM. */
int mc__entering_mode(const mel_model *m, const bool *T, const bool *to, bool *before,
                      size_t *count, bool *searched);

/* "g1=1, g2=0" into buf (truncated to len). */
void mc__mode_text(const mel_model *m, const bool *mode, char *buf, size_t len);

/* Make room for `need` items of `size` bytes in *p (capacity *cap,
 * doubled as needed; *p may be NULL with *cap 0). MDAE_OK, or
 * MDAE_E_NOMEM with *p and *cap unchanged. */
int mc__grow(void **p, size_t *cap, size_t need, size_t size);

/* Append to a list with capacity *cap. MDAE_OK or MDAE_E_NOMEM. */
int mc__list_push(mc_list *l, size_t *cap, uint32_t index, int shift);

#endif /* MC_INT_H */
