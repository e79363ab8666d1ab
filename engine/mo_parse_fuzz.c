/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_parse_fuzz.c -- libFuzzer target for the Modelica front-end: any
 * bytes go through mo_model_parse with small limits; every diagnostic is
 * formatted, every guard formatted and evaluated, the structure's ordering
 * promises checked, and the model printed as MEL (mo_model_to_mel), which
 * must read back with the MEL front-end. Everything is freed; ASan/UBSan
 * catch the rest. Built by `make fuzz-mo`; crashing inputs go to
 * tests/corpus/mo_parse/, replayed by tests/engine/test_mo_errors.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mel.h"
#include "mel_outline_fuzz.h"
#include "mo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    touch_outline(data, size, true);
    mel_options opt = {.max_instances = 10000, .max_depth = 64};
    /* half the inputs through syntax-error recovery (issue 36 item 2): the
     * model of the rest must keep every promise too */
    opt.recover = size > 0 && (data[size - 1] & 1);
    mdae_diags diags;
    mdae_diags_init(&diags);
    mel_model *m = NULL;
    int rc = mo_model_parse((const char *)data, size, &opt, &m, &diags);
    for (size_t i = 0; i < diags.count; i++) {
        char *s = mdae_diag_format(&diags.items[i], "fuzz.mo");
        mdae_free(s);
    }
    mdae_diags_close(&diags);
    if (rc != MDAE_OK) {
        if (m != NULL)
            abort(); /* *out written on failure */
        return 0;
    }
    check_left_out(m, size, opt.recover);
    bool *mode = calloc(m->n_modes + 1, sizeof *mode);
    if (mode != NULL) {
        for (uint32_t k = 0; k < m->n_modes; k++)
            mode[k] = (k * 2654435761u) >> 31;
        for (uint32_t k = 0; k < m->n_invariants; k++)
            touch_guard(m, m->invariants[k].cond, mode);
        for (uint32_t e = 0; e < m->n_equations; e++) {
            const mel_equation *q = &m->equations[e];
            touch_guard(m, q->guard, mode);
            if (mel_model_find_equation(m, q->name) != (long)e)
                abort(); /* names must be unique */
            for (uint32_t j = 0; j < q->n_incs; j++) {
                if (q->incs[j].var >= m->n_variables || q->incs[j].n_cases == 0)
                    abort();
                for (uint32_t c = 0; c < q->incs[j].n_cases; c++) {
                    if (c > 0 && q->incs[j].cases[c].order >= q->incs[j].cases[c - 1].order)
                        abort();
                    touch_guard(m, q->incs[j].cases[c].guard, mode);
                }
                if (j > 0 && q->incs[j].var <= q->incs[j - 1].var)
                    abort();
            }
        }
        for (uint32_t k = 0; k < m->n_events; k++)
            if (m->events[k].var >= (long)m->n_variables || m->events[k].parent >= (long)k)
                abort();
        free(mode);
    }
    char *text = NULL;
    if (mo_model_to_mel(m, &text) == MDAE_OK) {
        mel_options mopt = {.max_instances = 10000, .max_depth = 64};
        mel_model *back = NULL;
        mdae_diags d2;
        mdae_diags_init(&d2);
        int rc2 = mel_model_parse(text, strlen(text), &mopt, &back, &d2);
        if (rc2 == MDAE_E_PARSE || rc2 == MDAE_E_MODEL)
            abort(); /* the MEL we print must read back */
        if (rc2 == MDAE_OK && (back->n_equations != m->n_equations ||
                               back->n_variables != m->n_variables ||
                               back->n_edges != m->n_edges))
            abort();
        mel_model_free(back);
        mdae_diags_close(&d2);
        mdae_free(text);
    }
    mel_model_free(m);
    return 0;
}
