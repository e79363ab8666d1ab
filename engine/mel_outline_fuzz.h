/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_outline_fuzz.h -- the outline check both front-end fuzzers run
 * (mel_parse_fuzz.c, mo_parse_fuzz.c): fuzz builds only.
 */
#ifndef MEL_OUTLINE_FUZZ_H
#define MEL_OUTLINE_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "mel_outline.h"

/* The source outline of the same bytes (issue 15): its promises checked
 * (parents first, occurrences sorted and naming declarations), every
 * lookup by offset tried. */
static inline void touch_outline(const uint8_t *data, size_t size, bool modelica)
{
    mel_outline *o = NULL;
    if (mel_outline_parse((const char *)data, size, modelica, 64, &o) != MDAE_OK)
        return;
    for (size_t k = 0; k < o->n_symbols; k++)
        if (o->symbols[k].parent >= (long)k || o->symbols[k].name == NULL)
            abort();
    for (size_t k = 0; k < o->n_occurrences; k++) {
        const mel_occurrence *oc = &o->occurrences[k];
        if (oc->sym >= o->n_symbols || !MEL_OL_DECLARES(o->symbols[oc->sym].kind) ||
            (k > 0 && oc->where.start.offset < o->occurrences[k - 1].where.start.offset))
            abort();
    }
    for (size_t off = 0; off <= size && off < 4096; off += 7) {
        (void)mel_outline_occurrence_at(o, (uint32_t)off);
        (void)mel_outline_symbol_at(o, (uint32_t)off);
    }
    mel_outline_free(o);
}

#endif
