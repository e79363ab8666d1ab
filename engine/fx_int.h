/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/fx_int.h -- what the expression modules (fx.c, fx_diff.c,
 * fx_eval.c) share and nothing else uses.
 */
#ifndef FX_INT_H
#define FX_INT_H

#include "fx.h"

/* n bytes from the pool, aligned for any object, not zeroed (scratch
 * arrays of the transformations, released with the pool); NULL and the
 * pool failed on OOM. */
void *fx__pool_alloc(fx_pool *p, size_t n);

/* Whether the transformations running on p keep every unknown they read
 * (fx_fold_keep, fx_dt_keep: set for the duration of the call, so that
 * the smart constructors of fx_diff.c need no extra argument). The setter
 * returns the previous value, which the caller restores. */
bool fx__pool_keeps_reads(const fx_pool *p);
bool fx__pool_set_keep_reads(fx_pool *p, bool on);

/* The value of known function fn (not FX_FN_UNKNOWN) at a[0 .. arity):
 * C's math, Modelica's meaning (integer = floor, div truncates, mod is
 * x - floor(x/y)*y, rem x - div(x,y)*y, sign 0 at 0; noEvent, smooth and
 * homotopy their expression's value; min and max NaN when an argument is).
 * IEEE results, no errors (fx_eval.c). */
double fx__fn_apply(fx_fn fn, const double *a);

/* Whether a and b (not NULL) agree in all but their kids: op, number of
 * kids, function, index, order, number (bitwise, for FX_NUM and FX_BOOL)
 * and name; locations ignored. fx_equal and fx_diff's budgeted
 * comparison add the kids (fx.c). */
bool fx__same_head(const fx_node *a, const fx_node *b);

#endif /* FX_INT_H */
