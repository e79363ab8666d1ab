/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_cdg_oom.c -- allocation failures in the CDG module
 * (test-loop-oom.c / *fault.test style): allocation N fails, for N = 0, 1,
 * ... until the call succeeds; every failing call must return MDAE_E_NOMEM,
 * write nothing to *out, and leak nothing (LeakSanitizer in the asan
 * build), and the BDD manager must stay usable.
 *
 * The failing allocator (budget_left) is in tests/support/fail_alloc.h.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "sa.h"

#include "oom_test.h"

TestSuite(cdg_oom, .init = oom_begin, .fini = oom_end, .timeout = 300);

static const char *model =
    "x : real;\n"
    "y : real;\n"
    "z : real;\n"
    "g : boolean = x >= 0;\n"
    "h : boolean = y >= 0;\n"
    "e1 : equation x + y + z = 0;\n"
    "e2 : equation 0 = if g then y + z else der(x);\n"
    "e3 : equation 0 = if h then der(z) + x else y;\n";

typedef struct fixture {
    mel_model *m;
    sa_result *r;
} fixture;

static void setup(fixture *fx)
{
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mel_model_parse(model, strlen(model), NULL, &fx->m, &d), MDAE_OK);
    cr_assert_eq(sa_analyze(fx->m, NULL, &fx->r, &d), MDAE_OK);
    mdae_diags_close(&d);
}

static void teardown(fixture *fx)
{
    sa_result_free(fx->r);
    mel_model_free(fx->m);
}

Test(cdg_oom, build_fails_cleanly_at_every_allocation)
{
    fixture fx;
    setup(&fx);
    size_t nb = 0;
    for (long n = 0;; n++) {
        cdg_graph *g = NULL;
        budget_left = n;
        int rc = cdg_build(fx.r, NULL, &g, NULL);
        budget_left = -1;
        if (rc == MDAE_OK) {
            cr_assert_gt(n, 0);
            nb = cdg_graph_n_blocks(g);
            cdg_graph_free(g);
            break;
        }
        cr_assert_eq(rc, MDAE_E_NOMEM, "allocation %ld: %s", n, mdae_err_name(rc));
        cr_assert_null(g);
        cr_assert_lt(n, 100000);
    }
    cr_assert_gt(nb, 0);
    teardown(&fx);
}

Test(cdg_oom, report_mode_and_dot_fail_cleanly_at_every_allocation)
{
    fixture fx;
    setup(&fx);
    cdg_graph *g = NULL;
    cr_assert_eq(cdg_build(fx.r, NULL, &g, NULL), MDAE_OK);
    for (long n = 0;; n++) {
        cdg_report *rep = NULL;
        budget_left = n;
        int rc = cdg_graph_report(g, &rep);
        budget_left = -1;
        if (rc == MDAE_OK) {
            cdg_report_free(rep);
            break;
        }
        cr_assert_eq(rc, MDAE_E_NOMEM);
        cr_assert_null(rep);
    }
    for (long n = 0;; n++) {
        char *dot = NULL;
        budget_left = n;
        int rc = cdg_graph_dot(g, &dot);
        budget_left = -1;
        if (rc == MDAE_OK) {
            cr_assert_not_null(dot);
            mdae_free(dot);
            break;
        }
        cr_assert_eq(rc, MDAE_E_NOMEM);
        cr_assert_null(dot);
    }
    bool mode[2] = {true, false};
    for (long n = 0;; n++) {
        cdg_mode_view v;
        memset(&v, 0, sizeof v);
        budget_left = n;
        int rc = cdg_graph_mode(g, mode, &v);
        budget_left = -1;
        if (rc == MDAE_OK) {
            cr_assert_gt(v.n_blocks, 0);
            cdg_mode_view_close(&v);
            break;
        }
        cr_assert_eq(rc, MDAE_E_NOMEM);
        cr_assert_null(v.blocks);
    }
    cdg_graph_free(g);
    teardown(&fx);
}
