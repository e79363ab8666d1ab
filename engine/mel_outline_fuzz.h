/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_outline_fuzz.h -- the checks both front-end fuzzers run
 * (mel_parse_fuzz.c, mo_parse_fuzz.c): the outline, a model's left-out
 * list, a guard touched. Fuzz builds only.
 */
#ifndef MEL_OUTLINE_FUZZ_H
#define MEL_OUTLINE_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "mel.h"
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

/* A guard formatted and evaluated under `mode`. */
static inline void touch_guard(const mel_model *m, const mel_guard *g, const bool *mode)
{
    char *s = mel_guard_format(m, g);
    mdae_free(s);
    (void)mel_guard_eval(g, mode);
}

/* The left-out list of a model parsed from `size` bytes (issue 36 item 2):
 * every entry has a message and a range inside the text, in text order, and
 * nothing is left out unless `recover` was asked for. */
static inline void check_left_out(const mel_model *m, size_t size, bool recover)
{
    for (uint32_t k = 0; k < m->n_left_out; k++)
        if (m->left_out[k].message == NULL ||
            m->left_out[k].where.end.offset < m->left_out[k].where.start.offset ||
            m->left_out[k].where.end.offset > size ||
            (k > 0 && m->left_out[k].where.start.offset < m->left_out[k - 1].where.start.offset))
            abort(); /* a left-out entry out of place */
    if (!recover && (m->n_left_out > 0 || m->n_syntax_errors > 0))
        abort(); /* recovery without asking */
}

#endif
