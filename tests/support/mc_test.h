/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/mc_test.h -- what the mode-change suites share: a corpus
 * model loaded by its extension, one change of a one-mode-variable model,
 * the lists of a result as sorted text, and the allocation-failure loop. Header-only (static
 * functions), as model_files.h; failures fail the test.
 */
#ifndef MC_TEST_H
#define MC_TEST_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc.h"
#include "mdae.h"
#include "mel.h"
#include "mo.h"

#include "fail_alloc.h"
#include "model_files.h"

/* tests/models/NAME, read as Modelica for .mo, else as MEL (owned:
 * mel_model_free). */
static inline mel_model *load(const char *name)
{
    size_t len;
    char *text = tm_read(name, &len);
    cr_assert_not_null(text, "%s", name);
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    size_t n = strlen(name);
    int rc = n > 3 && strcmp(name + n - 3, ".mo") == 0 ? mo_model_parse(text, len, NULL, &m, &d)
                                                      : mel_model_parse(text, len, NULL, &m, &d);
    cr_assert_eq(rc, MDAE_OK, "%s: %s", name, mdae_err_name(rc));
    mdae_diags_close(&d);
    free(text);
    return m;
}

/* The change of m's one mode variable from a to b (owned: mc_result_free). */
static inline mc_result *change1(const mel_model *m, bool a, bool b)
{
    cr_assert_eq(m->n_modes, 1);
    bool from[1] = {a}, to[1] = {b};
    mc_result *r = NULL;
    char why[200] = "";
    int rc = mc_change(m, from, to, NULL, &r, why, sizeof why);
    cr_assert_eq(rc, MDAE_OK, "%s: %s", mdae_err_name(rc), why);
    return r;
}

/* "name" or "name.2" (shift 2) sorted, comma-separated: the lists compared.
 * Static storage, eight results in turn. */
static inline char *names(const mel_model *m, const mc_list *l, bool vars)
{
    static char buf[8][1024];
    static int slot;
    char *out = buf[slot++ % 8];
    out[0] = '\0';
    char(*tmp)[64] = calloc(l->n + 1, sizeof *tmp);
    cr_assert_not_null(tmp);
    for (size_t k = 0; k < l->n; k++) {
        const char *nm = vars ? m->variables[l->items[k].index].name
                              : m->equations[l->items[k].index].name;
        if (l->items[k].shift == 0)
            snprintf(tmp[k], sizeof tmp[k], "%s", nm);
        else
            snprintf(tmp[k], sizeof tmp[k], "%s.%d", nm, l->items[k].shift);
    }
    for (size_t i = 1; i < l->n; i++)
        for (size_t j = i; j > 0 && strcmp(tmp[j - 1], tmp[j]) > 0; j--) {
            char t[64];
            memcpy(t, tmp[j], sizeof t);
            memcpy(tmp[j], tmp[j - 1], sizeof t);
            memcpy(tmp[j - 1], t, sizeof t);
        }
    for (size_t k = 0; k < l->n; k++) {
        if (k > 0)
            strcat(out, ",");
        strcat(out, tmp[k]);
    }
    free(tmp);
    return out;
}

#define EQS(m, l) names((m), (l), false)
#define VARS(m, l) names((m), (l), true)

/* Instant k of r has this status, erased, equations and unknowns (as
 * names() prints them). */
static inline void expect_instant(const mel_model *m, const mc_result *r, uint32_t k,
                                  mc_sys_status status, const char *erased, const char *equations,
                                  const char *unknowns)
{
    cr_assert_lt(k, r->n_instants);
    const mc_instant *in = &r->instants[k];
    cr_assert_eq(in->status, status, "instant %u: %s", k, mc_sys_status_name(in->status));
    cr_assert_str_eq(EQS(m, &in->erased), erased);
    cr_assert_str_eq(EQS(m, &in->equations), equations);
    cr_assert_str_eq(VARS(m, &in->unknowns), unknowns);
}

/* Fail allocation n, n + 1, ... of mc_change(file, from -> to) until it
 * succeeds: MDAE_E_NOMEM, nothing leaked, *out untouched. */
static inline void oom_change(const char *file, const bool *from, const bool *to)
{
    mel_model *m = load(file);
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; rc == MDAE_E_NOMEM && n < 100000; n++) {
        counting_arm(n);
        mc_result *r = NULL;
        rc = mc_change(m, from, to, NULL, &r, NULL, 0);
        if (rc == MDAE_OK)
            mc_result_free(r);
        else
            cr_assert_null(r);
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
    }
    fail_at = -1;
    mdae_replace_allocator(NULL);
    cr_assert_eq(rc, MDAE_OK, "%s", file);
    cr_assert_gt(n, 5);
    mel_model_free(m);
}

#endif /* MC_TEST_H */
