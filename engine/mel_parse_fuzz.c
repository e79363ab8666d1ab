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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mel.h"
#include "mel_outline_fuzz.h"
#include "model_same.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Issue 40 item 3: the input with one byte changed (where and to what, read
 * from the input), parsed with m as mel_options.since, is the model its
 * cold parse gives (tests/support/model_same.c), and the same outcome;
 * then m (owned: freed here) and the new model freed in the order an
 * editor's worker frees them, the previous version first. */
static void check_since(const uint8_t *data, size_t size, const mel_options *opt, mel_model *m)
{
    if (size < 2) {
        mel_model_free(m);
        return;
    }
    static const char repl[] = " \n;x1(+=-";
    uint8_t *edit = malloc(size);
    if (edit == NULL) {
        mel_model_free(m);
        return;
    }
    memcpy(edit, data, size);
    size_t at = ((size_t)data[0] * 131 + data[size - 1]) % size;
    edit[at] = (uint8_t)repl[data[size / 2] % (sizeof repl - 1)];
    mel_options with = *opt;
    with.since = m;
    mdae_diags d1, d2;
    mdae_diags_init(&d1);
    mdae_diags_init(&d2);
    mel_model *cold = NULL, *warm = NULL;
    int rc1 = mel_model_parse((const char *)edit, size, opt, &cold, &d1);
    int rc2 = mel_model_parse((const char *)edit, size, &with, &warm, &d2);
    if (rc1 != rc2 || d1.count != d2.count || (cold == NULL) != (warm == NULL))
        abort(); /* since changed the outcome */
    char why[256] = "";
    if (cold != NULL && !mel_model_same(cold, warm, why, sizeof why) &&
        strcmp(why, "out of memory") != 0) {
        fprintf(stderr, "since changed the model: %s\n", why);
        abort();
    }
    mel_model_free(cold);
    mdae_diags_close(&d1);
    mdae_diags_close(&d2);
    mel_model_free(m); /* before warm, which shares its expressions */
    mel_model_free(warm);
    free(edit);
}

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
        check_since(data, size, &opt, m); /* frees m */
    } else if (m != NULL) {
        abort(); /* *out written on failure */
    }
    mdae_diags_close(&diags);
    return 0;
}
