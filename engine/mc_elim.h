/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_elim.h -- the symbolic elimination of a restart relation
 * (issue 41 item 8; RR-9459 section 5.2.1, (16)-(18), and (26)): the
 * possibly impulsive values `eliminate` of an mc_reset removed from the
 * equations `from`, giving relations among the other values that an
 * engineer can read (the clutch's j1*w1' + k1*w1 + j2*w2' + k2*w2 = 0,
 * whose reading as dt -> 0 is j1*(w1+ - w1-) + j2*(w2+ - w2-) = 0: with
 * w1+ = w2+, RR-9459 (18)).
 *
 * Method (mc_elim.c, E1-E5):
 *  E1 Rows. Each equation f.^k of `from` in the new mode `to` is its
 *     residual lhs - rhs, if-expressions on mode variables resolved, every
 *     unknown x^(o) read at shift k as FX_VAR(x + k*n_variables, o) (the
 *     encoding below): values at different shifts are different unknowns.
 *  E2 Linearity. The rows must be affine in the values to eliminate: for
 *     each row and value, fx_partial must not mention any value to
 *     eliminate, and no value to eliminate may be read through a
 *     derivative. Else nothing is eliminated and `why` says which
 *     equation is not linear in which value (its partial printed).
 *  E3 Coefficients. Row i is A[i][j] * lambda_j + c_i, A[i][j] the partial,
 *     c_i the row with every lambda_j set to 0 (folded).
 *  E4 Gaussian elimination on the symbolic matrix [A | c]: the pivot of
 *     each step is, among the remaining rows and values, a non-zero number
 *     if there is one (row_i -= (a/p) row_p: nothing assumed), else an
 *     expression of known quantities, else the smallest expression (row_i
 *     := p*row_i - a*row_p, fraction-free: p != 0 is assumed and listed in
 *     `pivots`). A coefficient is zero when it folds to 0 or evaluates to
 *     |v| <= 1e-9 at three pseudo-random points (variables in [0.5, 2) with
 *     random signs, knowns at their values when known; deterministic);
 *     a value no remaining row reads (all its coefficients zero) cannot be
 *     eliminated: `why` says so.
 *  E5 The rows that were not pivots, folded, are the relations ("r = 0");
 *     a relation that is zero (as above) is dropped; one whose first term
 *     is negated is negated (x*(y'' + g) - y*x'', not its opposite), and so
 *     is a pivot printed in a condition.
 *
 * Encoding of the unknowns in the results: FX_VAR(v, o) is unknown
 * v % m->n_variables at shift v / m->n_variables, derivative o read there
 * (x'.k: in the nonstandard expansion (x.^(k+1) - x.^k)/dt).
 *
 * Promises: pure, no I/O, no global state; deterministic. Memory: every
 * node and text of the result lives in the caller's pool p; the two arrays
 * are the result's (mc_elim_close).
 */
#ifndef MC_ELIM_H
#define MC_ELIM_H

#include "fx.h"
#include "mc.h"

typedef struct mc_elim {
    size_t n_relations;
    const fx_node **relations; /* each relations[i] = 0 (nodes in p; the
                                  array owned: mc_elim_close) */
    size_t n_pivots;
    const fx_node **pivots;    /* assumed non-zero (nodes in p; owned) */
    const char *why;           /* NULL, or why nothing was eliminated (in
                                  p, or static) */
} mc_elim;

/* The elimination of rs (eliminate non-empty) in mode `to` (n_modes
 * booleans, borrowed). MDAE_OK with *out set (out->why != NULL and no
 * relation when not eliminated); MDAE_E_INVAL (NULL argument, an index out
 * of range), MDAE_E_NOMEM. */
MDAE_API int mc_reset_eliminate(const mel_model *m /* borrowed */, const bool *to,
                                const mc_reset *rs /* borrowed */, fx_pool *p,
                                mc_elim *out /* out */);

/* Free the arrays of e (not the pool's nodes); e may be NULL. */
MDAE_API void mc_elim_close(mc_elim *e);

/* ---- The same machinery on given rows: solving (mc_solve.c) ----------------
 * rows[i] = 0 over the unknowns FX_VAR(cols[j], 0) (no shift encoding, no
 * derivative of an unknown), every other leaf a parameter. E2 per row: a
 * row whose partial in some unknown reads an unknown is not linear; it is
 * set aside (aside[i]; cst[i] is then the row itself), not used as a
 * pivot. E3, then E4 as Gauss-Jordan: each step's pivot chosen as E4 says
 * (numbers, then knowns, then the smallest; a non-numeric one assumed
 * non-zero and listed in pivots), and its column removed from every other
 * row not set aside, the pivot rows included (fraction-free: those rows
 * are multiplied by the pivot), until no remaining row has a non-zero
 * coefficient in a remaining column. So pivot row i of column j reads
 * a[i][j] * x_j + sum over the columns left without pivot + cst[i] = 0,
 * with a[i][j] the product of its pivot and the later non-numeric ones
 * (non-zero when the pivots are). The rows that were no pivot read
 * sum over the columns without pivot + cst = 0. */
typedef struct mc_linear {
    size_t n_rows, n_cols;
    const fx_node **a;      /* n_rows * n_cols, row-major (owned array) */
    const fx_node **cst;    /* n_rows (owned array) */
    size_t *pivot_row;      /* n_cols: column j's pivot row, SIZE_MAX none */
    bool *aside;            /* n_rows: not linear, set aside */
    size_t nonlinear_col;   /* the first column a row set aside is not
                               linear in, SIZE_MAX none */
    size_t n_pivots;
    const fx_node **pivots; /* assumed non-zero, negated as E5 says (owned
                               array) */
    const char *why;        /* NULL, or (static) why the elimination
                               stopped early (too large) */
} mc_linear;

/* MDAE_OK with *out (close with mc_linear_close; nodes in p);
 * MDAE_E_INVAL (NULL argument, a NULL row), MDAE_E_NOMEM. */
MDAE_API int mc_linear_solve(const mel_model *m, const bool *to, fx_pool *p,
                             const fx_node *const *rows, size_t n_rows, const uint32_t *cols,
                             size_t n_cols, mc_linear *out);
MDAE_API void mc_linear_close(mc_linear *l);
/* E4's zero test (folds to 0, or |value| <= 1e-9 at three pseudo-random
 * points; knowns at their values when known). */
MDAE_API bool mc_linear_is_zero(const mel_model *m, const bool *to, const fx_node *e);

#endif /* MC_ELIM_H */
