/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_ap_oom.c -- allocation failures in the approximate
 * analysis (engine/ap.h) and its JSON (rpc_json_approx): allocation N
 * fails, for N = 0, 1, ... until the call succeeds; every failing call
 * returns MDAE_E_NOMEM, writes nothing to *out and leaks nothing
 * (LeakSanitizer in the asan build), and the BDD manager stays usable.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "ap.h"
#include "rpc_json.h"

#include "oom_test.h"

TestSuite(ap_oom, .init = oom_begin, .fini = oom_end, .timeout = 300);

/* A pivot (e2 when g), offsets that differ, and a refused variant below. */
static const char *model = "x : real;\n"
                           "y : real;\n"
                           "z : real;\n"
                           "g : boolean;\n"
                           "h : boolean;\n"
                           "e1 : equation x + y + z = 0;\n"
                           "e2 : equation 0 = if g then y + z else der(x);\n"
                           "e3 : equation 0 = if h then der(z) + x else y;\n";

/* Two conditional statements, never merged: three rows, two columns. */
static const char *refused = "x : real; y : real; g : boolean;\n"
                             "if g then e1 : equation x = 1 end;\n"
                             "if !g then e2 : equation x = y end;\n"
                             "e3 : equation y = 2;\n";

static void fails_cleanly(const char *text)
{
    mel_model *m = NULL;
    sa_result *r = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(m, NULL, &r, NULL), MDAE_OK);
    ap_report *rep = NULL;
    for (long n = 0;; n++) {
        budget_left = n;
        int rc = ap_analyze(m, r, &rep);
        budget_left = -1;
        if (rc == MDAE_OK)
            break;
        cr_assert_eq(rc, MDAE_E_NOMEM, "allocation %ld: %s", n, mdae_err_name(rc));
        cr_assert_null(rep);
        cr_assert_lt(n, 100000);
    }
    cr_assert_gt(rep->n_findings, 0);
    for (long n = 0;; n++) {
        cJSON *j = NULL;
        budget_left = n;
        int rc = rpc_json_approx(rep, &j);
        budget_left = -1;
        if (rc == MDAE_OK) {
            cJSON_Delete(j);
            break;
        }
        cr_assert_eq(rc, MDAE_E_NOMEM, "allocation %ld: %s", n, mdae_err_name(rc));
        cr_assert_null(j);
        cr_assert_lt(n, 100000);
    }
    ap_report_free(rep);
    sa_result_free(r);
    mel_model_free(m);
}

Test(ap_oom, analysis_and_json_fail_cleanly_at_every_allocation) { fails_cleanly(model); }
Test(ap_oom, a_refused_model_fails_cleanly_at_every_allocation) { fails_cleanly(refused); }
