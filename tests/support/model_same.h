/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/model_same.h -- whether two flat models (engine/mel.h) are
 * the same model: what parse -> print -> parse must keep (issue 38,
 * tests/engine/test_convert.c). Part of the mdae_ref library.
 *
 * "Same": the same unknowns, mode variables and known quantities, matched
 * by name (their order may differ: expressions are compared through the
 * name matching); for each, the same guard (mel_guard_format), mode
 * definition, known kind, value (known or not; bitwise) and binding; the
 * same invariants (formatted, in order, with their when-clause numbers);
 * the same when-clauses; the same equations in the same order: names,
 * guards, when-clause numbers, incidences (variable, cases: order, next,
 * guard) and lhs / rhs (fx_equal up to the renumbering). Not compared:
 * source locations, events, the if-equation positions (cond, cond_pos),
 * Modelica's constant/parameter distinction.
 */
#ifndef MODEL_SAME_H
#define MODEL_SAME_H

#include <stdbool.h>
#include <stddef.h>

#include "mel.h"

/* True when a and b are the same flat model; otherwise false with the
 * first difference found written into why[0..why_len) (NUL-terminated;
 * why may be NULL). Out of memory counts as a difference ("out of
 * memory"). */
bool mel_model_same(const mel_model *a, const mel_model *b, char *why, size_t why_len);

#endif /* MODEL_SAME_H */
