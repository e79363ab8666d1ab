/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_rimis_oom.c -- allocation failures in rimis_build
 * (engine/rimis.h), as tests/engine/test_cdg_oom.c does for the CDG:
 * allocation N fails, for N = 0, 1, ... until the call succeeds; every
 * failing call returns MDAE_E_NOMEM, writes nothing to *out and leaks
 * nothing (LeakSanitizer in the asan build); the text that finally comes
 * is the one an unlimited run gives.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "rimis.h"
#include "sa.h"

#include "model_files.h"
#include "oom_test.h"

TestSuite(rimis_oom, .init = oom_begin, .fini = oom_end, .timeout = 300);

static void oom_loop(const char *name)
{
    char *text = tm_slurp(name);
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    sa_result *r = NULL;
    cdg_graph *g = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, &d), MDAE_OK);
    cr_assert_eq(sa_analyze(m, NULL, &r, &d), MDAE_OK);
    cr_assert_eq(cdg_build(r, NULL, &g, &d), MDAE_OK);
    rimis_result *want = NULL;
    cr_assert_eq(rimis_build(m, r, g, NULL, &want, &d), MDAE_OK);
    for (long n = 0;; n++) {
        rimis_result *res = NULL;
        budget_left = n;
        int rc = rimis_build(m, r, g, NULL, &res, NULL);
        budget_left = -1;
        if (rc == MDAE_OK) {
            cr_assert_gt(n, 0);
            cr_assert_str_eq(res->text, want->text);
            rimis_result_free(res);
            break;
        }
        cr_assert_eq(rc, MDAE_E_NOMEM, "allocation %ld: %s", n, mdae_err_name(rc));
        cr_assert_null(res);
        cr_assert_lt(n, 1000000);
    }
    rimis_result_free(want);
    cdg_graph_free(g);
    sa_result_free(r);
    mel_model_free(m);
    mdae_diags_close(&d);
    free(text);
}

Test(rimis_oom, two_equations) { oom_loop("two_equations.mel"); }

Test(rimis_oom, water_tank) { oom_loop("water_tank.mel"); }
