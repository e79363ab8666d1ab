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
/* One part of a split kept for the next version: its equations and
 * variables as model indices, and its equations with their incidences
 * numbered by the place of their variable in var_map (such as a cached
 * part's private model). Borrowed. */
typedef struct inc__kept_part {
    uint32_t n_eq, n_var;
    const uint32_t *eq_map, *var_map;
    const mel_equation *eqs; /* n_eq */
    /* The part was analysed anew from the model of the analysis that kept
     * the split (its private model built from that model's equations and
     * variables, not found in the cache): inc_session.c, "Since". */
    bool fresh;
} inc__kept_part;

/* The kept split's n parts as new pieces (maps copied; the caller has
 * found that they are the model's: inc_session.c, "The split kept"). On
 * MDAE_OK *out is a new array of n pieces (owned: inc__pieces_free); on
 * MDAE_E_NOMEM nothing is written. */
int inc__split_kept(const inc__kept_part *kept, size_t n, inc__piece **out /* out */);
/* Free n pieces and their maps (maps set to NULL are skipped). NULL ok. */
void inc__pieces_free(inc__piece *p, size_t n);

/* Tests (inc_session.c, part_same): when true, a cached part is compared
 * with the part being resolved equation by equation and variable by
 * variable in full, not skipping those the part that seeded it shares with
 * the cached one (the path before the skip). Process-global, false by
 * default. With inc__part_same_check, each one skipped is also compared in
 * full (an MDAE_ASSERT that it is the same). inc__part_same_shared counts
 * the equations and variables skipped (never reset). */
extern bool inc__part_same_full, inc__part_same_check;
extern size_t inc__part_same_shared;

#endif /* INC_INT_H */
