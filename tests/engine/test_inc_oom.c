/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_inc_oom.c -- allocation failures in the incremental
 * session (test_cdg_oom.c style): allocation N fails, for N = 0, 1, ...
 * until inc_analyze succeeds; every failing call returns MDAE_E_NOMEM (or
 * the engine's BDD error for a failure inside BuDDy's own tables), writes
 * nothing to *out, leaks nothing (LeakSanitizer in the asan build), and the
 * session stays usable: the next analysis equals the result of a session
 * that never failed, and the cache is still used.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inc.h"
#include "sa.h"

#include "oom_test.h"

TestSuite(inc_oom, .init = oom_begin, .fini = oom_end, .timeout = 300);

/* Two components (e1..e3 and f1/w) and a lone variable. */
static const char *v1 = "x : real; y : real; z : real; w : real; lone : real;\n"
                        "g : boolean = x >= 0;\nh : boolean = y >= 0;\n"
                        "invariant !(g & h);\n"
                        "e1 : equation x + y + z = 0;\n"
                        "e2 : equation 0 = if g then y + z else der(x);\n"
                        "e3 : equation 0 = if h then der(z) + x else y;\n"
                        "f1 : equation der(w) = 1;\n";
static const char *v2 = "x : real; y : real; z : real; w : real; lone : real;\n"
                        "g : boolean = x >= 0;\nh : boolean = y >= 0;\n"
                        "invariant !(g & h);\n"
                        "e1 : equation x + y + z = 0;\n"
                        "e2 : equation 0 = if g then y + z else der(x);\n"
                        "e3 : equation 0 = if h then der(z) + x else y;\n"
                        "f1 : equation der(der(w)) = 1;\n";

static void same_views(const inc_result *a, const inc_result *b, uint32_t n_modes)
{
    for (uint32_t x = 0; x < (1u << n_modes); x++) {
        bool mode[8] = {0};
        for (uint32_t k = 0; k < n_modes; k++)
            mode[k] = (x >> k) & 1;
        inc_mode_view va = {0}, vb = {0};
        cr_assert_eq(inc_result_mode(a, mode, &va), MDAE_OK);
        cr_assert_eq(inc_result_mode(b, mode, &vb), MDAE_OK);
        cr_assert_eq(va.sa.valid, vb.sa.valid);
        cr_assert_eq(va.sa.singular, vb.sa.singular);
        cr_assert_eq(va.n_blocks, vb.n_blocks);
        inc_mode_view_close(&va);
        inc_mode_view_close(&vb);
    }
}

Test(inc_oom, every_failing_allocation_of_an_analysis_is_clean_and_the_session_stays_usable)
{
    mel_model *m1 = NULL, *m2 = NULL;
    cr_assert_eq(mel_model_parse(v1, strlen(v1), NULL, &m1, NULL), MDAE_OK);
    cr_assert_eq(mel_model_parse(v2, strlen(v2), NULL, &m2, NULL), MDAE_OK);
    inc_session *ref = NULL;
    cr_assert_eq(inc_session_new(&ref), MDAE_OK);
    inc_result *want = NULL;
    cr_assert_eq(inc_analyze(ref, m2, NULL, &want, NULL), MDAE_OK);

    long failures = 0;
    for (long n = 0;; n++) {
        inc_session *s = NULL;
        cr_assert_eq(inc_session_new(&s), MDAE_OK);
        inc_result *r1 = NULL;
        cr_assert_eq(inc_analyze(s, m1, NULL, &r1, NULL), MDAE_OK);
        inc_result *r2 = (inc_result *)0x1;
        budget_left = n;
        int rc = inc_analyze(s, m2, NULL, &r2, NULL);
        budget_left = -1;
        if (rc == MDAE_OK) {
            same_views(r2, want, m2->n_modes);
            inc_result_free(r2);
            inc_result_free(r1);
            inc_session_free(s);
            break;
        }
        failures++;
        cr_assert(rc == MDAE_E_NOMEM || rc == MDAE_E_BDD || rc == MDAE_E_BDD_LIMIT,
                  "allocation %ld: %s", n, mdae_err_name(rc));
        cr_assert_eq(r2, (inc_result *)0x1, "nothing written on failure");
        /* Usable afterwards, and still reusing the untouched part. */
        cr_assert_eq(inc_analyze(s, m2, NULL, &r2, NULL), MDAE_OK);
        inc_stats st;
        inc_result_stats(r2, &st);
        cr_assert_eq(st.components, 3);
        cr_assert_geq(st.reused, 1, "allocation %ld", n);
        same_views(r2, want, m2->n_modes);
        inc_result_free(r2);
        inc_result_free(r1);
        inc_session_free(s);
    }
    cr_assert_gt(failures, 10);
    inc_result_free(want);
    inc_session_free(ref);
    mel_model_free(m1);
    mel_model_free(m2);
}

Test(inc_oom, every_failing_allocation_of_the_composed_whole_result_is_clean)
{
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(v2, strlen(v2), NULL, &m, NULL), MDAE_OK);
    sa_result *cold = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &cold, NULL), MDAE_OK);
    sa_report *want = NULL;
    cr_assert_eq(sa_result_report(cold, &want), MDAE_OK);
    inc_session *s = NULL;
    cr_assert_eq(inc_session_new(&s), MDAE_OK);
    long failures = 0;
    for (long n = 0;; n++) {
        inc_result *r = NULL;
        cr_assert_eq(inc_analyze(s, m, NULL, &r, NULL), MDAE_OK);
        sa_result *w = (sa_result *)0x1;
        cdg_graph *g = (cdg_graph *)0x1;
        budget_left = n;
        int rc = inc_result_whole(r, m, NULL, &w, &g, NULL);
        budget_left = -1;
        if (rc != MDAE_OK) {
            failures++;
            cr_assert(rc == MDAE_E_NOMEM || rc == MDAE_E_BDD || rc == MDAE_E_BDD_LIMIT,
                      "allocation %ld: %s", n, mdae_err_name(rc));
            cr_assert(w == (sa_result *)0x1 && g == (cdg_graph *)0x1, "nothing written");
            /* The same result object can try again. */
            cr_assert_eq(inc_result_whole(r, m, NULL, &w, &g, NULL), MDAE_OK);
        }
        sa_report *got = NULL;
        cr_assert_eq(sa_result_report(w, &got), MDAE_OK);
        cr_assert_str_eq(got->singular_modes.formula, want->singular_modes.formula);
        for (uint32_t i = 0; i < got->n_equations; i++)
            cr_assert_eq(got->equations[i].n_offsets, want->equations[i].n_offsets);
        sa_report_free(got);
        inc_result_free(r);
        if (rc == MDAE_OK)
            break;
    }
    cr_assert_gt(failures, 10);
    sa_report_free(want);
    sa_result_free(cold);
    inc_session_free(s);
    mel_model_free(m);
}
