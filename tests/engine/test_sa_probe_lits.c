/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_probe_lits.c -- the tight rounds' probes read the
 * literal roots of a block's mode functions (chi_i, chi_j, chi_e, sigma)
 * from lists made once per node epoch (sa_tight.c, lits_update) instead of
 * walking each node per probe (issue 40, the brake at N = 10,000). Checked
 * on whole analyses of models whose blocks take the tight and learned
 * rounds (the brake, the compressible building):
 * - every function read from the lists equals sa__eval's value in the
 *   probe's mode (sa__probe_lits_check: an MDAE_ASSERT aborts otherwise),
 *   and the lists are read at all (sa__probe_lits_hits grows);
 * - the result is the same, node for node, as with the lists off
 *   (sa__probe_lits_off: every function by sa__eval, the path before).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mel.h"
#include "sa.h"
#include "sa_int.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void)
{
    sa__probe_lits_off = false;
    sa__probe_lits_check = false;
    sa_end();
}

TestSuite(sa_probe_lits, .init = begin, .fini = end, .timeout = 300);

static sa_result *analyse_file(const char *name, long long n, mel_model **m)
{
    *m = tm_parse_file_n(name, n);
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(*m, NULL, &r, NULL), MDAE_OK, "%s", name);
    return r;
}

/* x and w the same functions (one manager: the same nodes). */
static void same_result(const sa_result *x, const sa_result *w, const char *name)
{
    cr_assert_eq(x->n_edges, w->n_edges, "%s", name);
    cr_assert_eq(x->ok, w->ok, "%s: ok", name);
    cr_assert_eq(x->singular, w->singular, "%s: singular", name);
    cr_assert_eq(x->te_within, w->te_within, "%s", name);
    cr_assert_eq(x->cd_within, w->cd_within, "%s", name);
    cr_assert_eq(x->w_off, w->w_off, "%s", name);
    for (size_t e = 0; e < x->n_edges; e++)
        cr_assert_eq(x->te[e], w->te[e], "%s: te %zu", name, e);
    size_t nc = (size_t)x->n_eq * (size_t)x->w_off, nd = (size_t)x->n_var * (size_t)x->w_off;
    for (size_t k = 0; x->c != NULL && k < nc; k++)
        cr_assert_eq(x->c[k], w->c[k], "%s: c bit %zu", name, k);
    for (size_t k = 0; x->d != NULL && k < nd; k++)
        cr_assert_eq(x->d[k], w->d[k], "%s: d bit %zu", name, k);
}

Test(sa_probe_lits, lists_agree_with_eval)
{
    static const struct {
        const char *name;
        long long n;
    } cases[] = {
        {"brake.mel", 30}, {"brake.mel", 200}, {"building_compressible.mel", 10},
        {"building_compressible.mel", 40}, {"building_incompressible.mel", 4},
    };
    size_t hits_in_all = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mel_model *mx = NULL, *mw = NULL;
        sa__probe_lits_off = true;
        sa_result *x = analyse_file(cases[k].name, cases[k].n, &mx);
        sa__probe_lits_off = false;
        sa__probe_lits_check = true;
        size_t hits = sa__probe_lits_hits;
        sa_result *w = analyse_file(cases[k].name, cases[k].n, &mw);
        sa__probe_lits_check = false;
        hits_in_all += sa__probe_lits_hits - hits;
        same_result(x, w, cases[k].name);
        sa_result_free(w);
        sa_result_free(x);
        mel_model_free(mw);
        mel_model_free(mx);
    }
    /* the brake's valves: literal chi_e and chi_i in every probe */
    cr_assert_gt(hits_in_all, 0, "the lists were never read");
}
