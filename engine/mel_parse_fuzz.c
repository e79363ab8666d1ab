/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_parse_fuzz.c -- libFuzzer target for the MEL front-end: any
 * bytes go through mel_model_parse with small limits (so that a run explores
 * many inputs instead of elaborating one huge model); every diagnostic is
 * formatted, every guard of the model formatted and evaluated, everything
 * freed. ASan/UBSan catch the rest. Built by `make fuzz`; crashing inputs go
 * to tests/corpus/mel_parse/, replayed by tests/engine/test_mel_errors.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "mel.h"
#include "mel_outline_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    touch_outline(data, size, false);
    mel_options opt = {.max_instances = 10000, .max_depth = 64};
    /* half the inputs through syntax-error recovery (issue 36 item 2): the
     * model of the rest must keep every promise too */
    opt.recover = size > 0 && (data[size - 1] & 1);
    mdae_diags diags;
    mdae_diags_init(&diags);
    mel_model *m = NULL;
    int rc = mel_model_parse((const char *)data, size, &opt, &m, &diags);
    for (size_t i = 0; i < diags.count; i++) {
        char *s = mdae_diag_format(&diags.items[i], "fuzz.mel");
        mdae_free(s);
    }
    if (rc == MDAE_OK) {
        check_left_out(m, size, opt.recover);
        bool *mode = calloc(m->n_modes + 1, sizeof *mode);
        if (mode != NULL) {
            for (uint32_t k = 0; k < m->n_modes; k++)
                mode[k] = (k * 2654435761u) >> 31;
            for (uint32_t k = 0; k < m->n_variables; k++)
                touch_guard(m, m->variables[k].guard, mode);
            for (uint32_t k = 0; k < m->n_invariants; k++)
                touch_guard(m, m->invariants[k].cond, mode);
            for (uint32_t e = 0; e < m->n_equations; e++) {
                const mel_equation *q = &m->equations[e];
                touch_guard(m, q->guard, mode);
                (void)mel_model_find_equation(m, q->name);
                for (uint32_t j = 0; j < q->n_incs; j++) {
                    if (q->incs[j].var >= m->n_variables || q->incs[j].n_cases == 0)
                        abort(); /* broken structure */
                    for (uint32_t c = 0; c < q->incs[j].n_cases; c++) {
                        if (c > 0 && q->incs[j].cases[c].order >= q->incs[j].cases[c - 1].order)
                            abort(); /* cases must strictly decrease */
                        touch_guard(m, q->incs[j].cases[c].guard, mode);
                    }
                    if (j > 0 && q->incs[j].var <= q->incs[j - 1].var)
                        abort(); /* incidences must be sorted by variable */
                    (void)mel_incidence_order(&q->incs[j], mode);
                }
            }
            free(mode);
        }
        mel_model_free(m);
    } else if (m != NULL) {
        abort(); /* *out written on failure */
    }
    mdae_diags_close(&diags);
    return 0;
}
