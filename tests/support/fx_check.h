/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/fx_check.h -- a test oracle for issue 38: do the
 * expressions a model keeps (mel_equation.lhs/rhs, engine/fx.h) say the
 * same, mode by mode, as its incidences? Since both front-ends read the
 * incidences from those expressions (engine/mel_inc.c), this checks that
 * one pass by a second, independent reading: mel_inc.c builds symbolic
 * guards once for all modes (if-conditions as formulas, cases as ORs,
 * redundant cases dropped), this evaluates the conditions in one mode at a
 * time. That the expressions themselves stay what the source says is
 * checked elsewhere (tests/engine/test_mel_inc.c, against recorded
 * structures; test_mel_exprs, test_mo_exprs, against the expected trees).
 * Implemented in fx_check.c, part of the mdae_ref library
 * (tests/CMakeLists.txt).
 */
#ifndef FX_CHECK_H
#define FX_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "mel.h"

/* For every equation of m that has expressions (lhs and rhs not NULL) and
 * whose guard holds in `mode` (mode[k]: mode variable k), compute from
 * lhs and rhs the highest derivative order of every unknown they read, and
 * compare with mel_incidence_order() of the equation's incidences: the same
 * variables at the same orders. Reading rules:
 *  - FX_VAR(x, o) reads x at order o; FX_DER(e) and FX_NEXT(e) add 1 to
 *    every order inside e (next(x) is structurally x and x', as
 *    mel_order_case.next says); FX_PRE and FX_LAST read nothing;
 *    FX_OPAQUE reads its FX_VAR refs;
 *  - FX_IF whose condition is static -- FX_BOOL, FX_MODE (by `mode`),
 *    FX_KNOWN with a known value, numbers, relations between such, and
 *    FX_NOT/AND/OR of them -- reads the branch it selects; otherwise it
 *    reads both branches (its condition is not read: the front-ends make
 *    conditions mode variables);
 *  - everything else reads what its kids read (relations included).
 * Returns true when everything agrees (equations without expressions are
 * skipped); false with a message naming the equation and the variable in
 * why[0..why_len) (NUL-terminated, truncated; why may be NULL if why_len
 * is 0), also on OOM. */
bool fx_check_incidences(const mel_model *m, const bool *mode, char *why, size_t why_len);

#endif /* FX_CHECK_H */
