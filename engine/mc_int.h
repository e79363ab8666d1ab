/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mc_int.h -- shared between the files of the mode-change module
 * (mc.h), private to it.
 */
#ifndef MC_INT_H
#define MC_INT_H

#include "mc.h"

/* Impulse analysis of one restart instant (mc_impulse.c): appends the
 * instant's possibly impulsive values to res->impulsive and its restart
 * relations to res->resets, or a note to res->diags when the analysis
 * gives up (too large). to: the new mode; d: its offsets d_j (sm.h),
 * -1 for inactive variables. MDAE_OK or MDAE_E_NOMEM. */
int mc__impulse(const mel_model *m, const bool *to, const int *d, const mc_instant *in,
                mc_result *res);

/* Append to a list with capacity *cap. MDAE_OK or MDAE_E_NOMEM. */
int mc__list_push(mc_list *l, size_t *cap, uint32_t index, int shift);

#endif /* MC_INT_H */
