/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/inc_int.h -- internals of the incremental session (engine/inc_*.c)
 * shared between its files: the split of a model into its connected
 * components (inc_split.c), used by the session and its cache
 * (inc_session.c). Why the split is exact: engine/inc.h.
 */
#ifndef INC_INT_H
#define INC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inc.h"

/* One connected component of the all-modes incidence graph: its equations
 * and variables as indices into the model, in model order. */
typedef struct inc__piece {
    uint32_t n_eq, n_var;
    uint32_t *eq_map;  /* owned; n_eq */
    uint32_t *var_map; /* owned; n_var */
} inc__piece;

/* Split m into its components, numbered in the order of their first
 * equation (then variable): every equation and variable is in exactly one;
 * a model with neither is one empty piece (it still has modes). local must
 * hold m->n_variables entries: local[j] is variable j's index in its
 * piece's var_map. On MDAE_OK *out is a new array of *n_out pieces (owned:
 * inc__pieces_free); on MDAE_E_NOMEM nothing is written. */
int inc__split(const mel_model *m, uint32_t *local /* out */, inc__piece **out /* out */,
               size_t *n_out /* out */);
/* One part of a split kept for the next version (inc__split_follow): its
 * equations and variables as model indices, and its equations with their
 * incidences numbered by the place of their variable in var_map (such as
 * a cached part's private model). Borrowed. */
typedef struct inc__kept_part {
    uint32_t n_eq, n_var;
    const uint32_t *eq_map, *var_map;
    const mel_equation *eqs; /* n_eq */
} inc__kept_part;

/* inc__split, taken from the kept split of the previous version (n parts;
 * NULL, 0: none) when m has its incidences: the same counts, and every
 * equation of kept part k, at its place in m, the incidences of the kept
 * equation, in model indices. The components are a function of the
 * incidences alone, so the kept split is then m's (same parts, same
 * order, same maps), found in one pass over the incidences instead of a
 * union-find (an edit that leaves them alone: a changed order, a guard,
 * a name). Otherwise, and with a kept split of another model, inc__split.
 * Same promises as inc__split; *was_kept says which (on MDAE_OK). */
int inc__split_follow(const mel_model *m, const inc__kept_part *kept, size_t n,
                      uint32_t *local /* out */, inc__piece **out /* out */,
                      size_t *n_out /* out */, bool *was_kept /* out */);
/* Free n pieces and their maps (maps set to NULL are skipped). NULL ok. */
void inc__pieces_free(inc__piece *p, size_t n);

#endif /* INC_INT_H */
