/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_analyze.c -- the implicit engine on small models built
 * by hand (so these tests do not depend on the MEL front-end): the paper's
 * RLDC2 offsets (RR-9322 Fig. 6), singular modes and their
 * Dulmage-Mendelsohn diagnostics, formulas and cubes, the consistency check,
 * node-limit errors and recovery, cancellation.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdae.h"
#include "mel.h"
#include "sa.h"
#include "sa_int.h" /* the encoding's own fields, for the layout tests */
#include "ref.h"

#include "fail_alloc.h"
#include "model_files.h"
#include "sa_enter.h"

/* ---- A tiny hand builder for mel_model ------------------------------------
 * Equations are written "K1 : i1 j1:1 u1@g1 i1@!g1", with an optional
 * equation guard "S @g : ...": a token is var[:order][@[!]mode]. */
#define HB_MAX 64
typedef struct hb {
    mel_model m;
    mel_mode modes[8];
    mel_variable vars[HB_MAX];
    mel_equation eqs[HB_MAX];
    mel_incidence incs[HB_MAX][HB_MAX];
    mel_order_case cases[HB_MAX][HB_MAX][4];
    mel_invariant invs[4];
    mel_guard g[2048];
    int ng;
    char names[4096];
    size_t nn;
} hb;

static mel_guard g_true = {MEL_G_TRUE, 0, NULL, NULL};

static char *hb_str(hb *h, const char *s, size_t n)
{
    char *p = h->names + h->nn;
    memcpy(p, s, n);
    p[n] = 0;
    h->nn += n + 1;
    return p;
}

static const mel_guard *hb_g(hb *h, mel_guard_op op, uint32_t var, const mel_guard *l,
                             const mel_guard *r)
{
    mel_guard *g = &h->g[h->ng++];
    *g = (mel_guard){op, var, l, r};
    return g;
}

static uint32_t hb_mode(hb *h, const char *name, size_t n)
{
    for (uint32_t k = 0; k < h->m.n_modes; k++)
        if (strlen(h->modes[k].name) == n && !strncmp(h->modes[k].name, name, n))
            return k;
    cr_assert_fail("unknown mode");
    return 0;
}

/* "g" or "!g" */
static const mel_guard *hb_lit(hb *h, const char *s, size_t n)
{
    if (s[0] == '!')
        return hb_g(h, MEL_G_NOT, 0, hb_lit(h, s + 1, n - 1), NULL);
    return hb_g(h, MEL_G_VAR, hb_mode(h, s, n), NULL, NULL);
}

static uint32_t hb_var(hb *h, const char *name, size_t n)
{
    for (uint32_t k = 0; k < h->m.n_variables; k++)
        if (strlen(h->vars[k].name) == n && !strncmp(h->vars[k].name, name, n))
            return k;
    cr_assert_fail("unknown variable %.*s", (int)n, name);
    return 0;
}

static void hb_init(hb *h, const char *modes, const char *vars)
{
    memset(h, 0, sizeof *h);
    h->m.modes = h->modes;
    h->m.variables = h->vars;
    h->m.equations = h->eqs;
    h->m.invariants = h->invs;
    for (const char *p = modes; *p;) {
        size_t n = strcspn(p, " ");
        if (n) {
            h->modes[h->m.n_modes].name = hb_str(h, p, n);
            h->m.n_modes++;
        }
        p += n + (p[n] != 0);
    }
    /* vars: "x y@g z" */
    for (const char *p = vars; *p;) {
        size_t n = strcspn(p, " ");
        if (n) {
            size_t at = strcspn(p, "@");
            mel_variable *v = &h->vars[h->m.n_variables++];
            v->name = hb_str(h, p, at < n ? at : n);
            v->guard = at < n ? hb_lit(h, p + at + 1, n - at - 1) : &g_true;
        }
        p += n + (p[n] != 0);
    }
}

static void hb_eq(hb *h, const char *spec)
{
    uint32_t i = h->m.n_equations++;
    mel_equation *eq = &h->eqs[i];
    size_t n = strcspn(spec, " ");
    size_t at = strcspn(spec, "@");
    eq->name = hb_str(h, spec, at < n ? at : n);
    eq->guard = at < n ? hb_lit(h, spec + at + 1, n - at - 1) : &g_true;
    eq->incs = h->incs[i];
    const char *p = strchr(spec, ':') + 1;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t t = strcspn(p, " ");
        size_t vn = strcspn(p, ":@ ");
        uint32_t var = hb_var(h, p, vn);
        int order = 0;
        const mel_guard *g = eq->guard;
        const char *q = p + vn;
        if (*q == ':')
            order = atoi(++q), q += strspn(q, "0123456789");
        if (*q == '@') {
            size_t ln = strcspn(q + 1, " ");
            g = hb_g(h, MEL_G_AND, 0, eq->guard, hb_lit(h, q + 1, ln));
        }
        /* Find or add the incidence, cases by decreasing order. */
        uint32_t k = 0;
        while (k < eq->n_incs && eq->incs[k].var != var)
            k++;
        mel_incidence *inc = &h->incs[i][k];
        if (k == eq->n_incs) {
            eq->n_incs++;
            inc->var = var;
            inc->cases = h->cases[i][k];
        }
        mel_order_case *cs = h->cases[i][k];
        uint32_t c = inc->n_cases++;
        while (c > 0 && cs[c - 1].order < order) {
            cs[c] = cs[c - 1];
            c--;
        }
        cs[c] = (mel_order_case){
            g, order, {{(uint32_t)i + 1, (uint32_t)(p - spec) + 1, 0}, {0, 0, 0}}, 0};
        p += t;
    }
    /* Incidences sorted by variable (the mel.h promise). */
    for (uint32_t a = 1; a < eq->n_incs; a++)
        for (uint32_t b = a; b > 0 && h->incs[i][b - 1].var > h->incs[i][b].var; b--) {
            mel_incidence tmp = h->incs[i][b];
            h->incs[i][b] = h->incs[i][b - 1];
            h->incs[i][b - 1] = tmp;
        }
    h->m.n_edges += 0;
}

static void hb_done(hb *h)
{
    h->m.n_edges = 0;
    for (uint32_t i = 0; i < h->m.n_equations; i++)
        h->m.n_edges += h->eqs[i].n_incs;
}

static void rldc2(hb *h)
{
    hb_init(h, "g1 g2", "i1 i2 j1 j2 u1 u2 v1 v2 w1 w2 x1 x2 s1 s2");
    hb_eq(h, "K1 : i1 i2 j1 j2");
    hb_eq(h, "K2 : x1 w1 u1 v1");
    hb_eq(h, "K3 : u1 v1 u2 v2");
    hb_eq(h, "K4 : u2 v2 x2 w2");
    hb_eq(h, "L1 : w1 j1:1");
    hb_eq(h, "L2 : w2 j2:1");
    hb_eq(h, "C1 : i1 v1:1");
    hb_eq(h, "C2 : i2 v2:1");
    hb_eq(h, "R1 : x1 j1");
    hb_eq(h, "R2 : x2 j2");
    hb_eq(h, "S1 : s1 i1@g1 u1@!g1");
    hb_eq(h, "S2 : s2 i2@g2 u2@!g2");
    hb_eq(h, "Z1 : u1@g1 i1@!g1");
    hb_eq(h, "Z2 : u2@g2 i2@!g2");
    hb_done(h);
}

static void singular_simple(hb *h)
{
    hb_init(h, "g h", "x y z");
    hb_eq(h, "e1 : x y z");
    hb_eq(h, "e2 : x@g");
    hb_eq(h, "e3 : x@h y@!h z@!h");
    hb_done(h);
}

static void setup(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void teardown(void) { sa_end(); }

static int analyze(const mel_model *m, sa_result **r)
{
    mdae_diags d;
    mdae_diags_init(&d);
    int rc = sa_analyze(m, NULL, r, &d);
    mdae_diags_close(&d);
    return rc;
}

TestSuite(sa_analyze, .init = setup, .fini = teardown);

Test(sa_analyze, rldc2_is_nonsingular_in_all_four_modes)
{
    static hb h;
    rldc2(&h);
    sa_result *r = NULL;
    cr_assert_eq(analyze(&h.m, &r), MDAE_OK);
    sa_report *rep = NULL;
    cr_assert_eq(sa_result_report(r, &rep), MDAE_OK);
    cr_expect_eq(rep->valid_modes, 4.0);
    cr_expect(!rep->singular);
    cr_expect_str_eq(rep->singular_modes.formula, "false");
    cr_expect_eq(rep->n_diagnostics, 0);
    sa_report_free(rep);
    sa_result_free(r);
}

Test(sa_analyze, rldc2_with_both_diodes_passing_has_the_offsets_of_figure_6)
{
    static hb h;
    rldc2(&h);
    sa_result *r = NULL;
    cr_assert_eq(analyze(&h.m, &r), MDAE_OK);
    bool mode[2] = {true, true};
    sa_mode_view v;
    cr_assert_eq(sa_result_mode(r, mode, &v), MDAE_OK);
    cr_expect(v.valid && !v.singular);
    const char *one_c[] = {"K3", "Z1", "Z2"};
    const char *one_d[] = {"j1", "j2", "v1", "v2", "u1", "u2"};
    for (uint32_t i = 0; i < h.m.n_equations; i++) {
        int want = 0;
        for (size_t k = 0; k < 3; k++)
            want |= !strcmp(h.eqs[i].name, one_c[k]);
        cr_expect_eq(v.c[i], want, "c(%s) = %d", h.eqs[i].name, v.c[i]);
        cr_expect_geq(v.matched_var[i], 0);
    }
    for (uint32_t j = 0; j < h.m.n_variables; j++) {
        int want = 0;
        for (size_t k = 0; k < 6; k++)
            want |= !strcmp(h.vars[j].name, one_d[k]);
        cr_expect_eq(v.d[j], want, "d(%s) = %d", h.vars[j].name, v.d[j]);
    }
    sa_mode_view_close(&v);
    sa_result_free(r);
}

Test(sa_analyze, reports_the_singular_modes_and_their_dm_parts)
{
    static hb h;
    singular_simple(&h);
    sa_result *r = NULL;
    cr_assert_eq(analyze(&h.m, &r), MDAE_OK);
    sa_report *rep = NULL;
    cr_assert_eq(sa_result_report(r, &rep), MDAE_OK);
    cr_expect(rep->singular);
    /* Nonsingular only in g & !h. */
    cr_expect_str_eq(rep->singular_modes.formula, "!g | h", "got %s",
                     rep->singular_modes.formula);
    /* g & h: e2, e3 both need x: e2 and e3 overdetermined, y, z under. */
    bool m_gh[2] = {true, true};
    sa_mode_view v;
    cr_assert_eq(sa_result_mode(r, m_gh, &v), MDAE_OK);
    cr_expect(v.singular);
    cr_expect(!v.overdetermined[0] && v.overdetermined[1] && v.overdetermined[2]);
    cr_expect(!v.underdetermined[0] && v.underdetermined[1] && v.underdetermined[2]);
    sa_mode_view_close(&v);
    /* !g & !h: e2 is empty: overdetermined (unmatched in every maximum
     * matching); e1, e3 match two of x, y, z, any of which can be left. */
    bool m_none[2] = {false, false};
    cr_assert_eq(sa_result_mode(r, m_none, &v), MDAE_OK);
    cr_expect(v.singular);
    cr_expect(!v.overdetermined[0] && v.overdetermined[1] && !v.overdetermined[2]);
    cr_expect(v.underdetermined[0] && v.underdetermined[1] && v.underdetermined[2]);
    sa_mode_view_close(&v);
    /* g & !h: nonsingular: no diagnostics, offsets 0. */
    bool m_ok[2] = {true, false};
    cr_assert_eq(sa_result_mode(r, m_ok, &v), MDAE_OK);
    cr_expect(!v.singular && v.valid);
    for (int i = 0; i < 3; i++) {
        cr_expect(!v.overdetermined[i]);
        cr_expect_eq(v.c[i], 0);
    }
    sa_mode_view_close(&v);
    sa_report_free(rep);
    sa_result_free(r);
}

Test(sa_analyze, formulas_and_cubes_describe_the_same_set)
{
    static hb h;
    singular_simple(&h);
    sa_result *r = NULL;
    cr_assert_eq(analyze(&h.m, &r), MDAE_OK);
    sa_report *rep = NULL;
    cr_assert_eq(sa_result_report(r, &rep), MDAE_OK);
    /* Every mode: in the singular set iff some cube matches. */
    for (int g = 0; g < 2; g++)
        for (int hh = 0; hh < 2; hh++) {
            bool mode[2] = {g, hh};
            bool in = false;
            for (size_t q = 0; q < rep->singular_modes.n_cubes; q++) {
                bool ok = true;
                for (int k = 0; k < 2; k++) {
                    signed char b = sa_set_literal(&rep->singular_modes, q, (uint32_t)k);
                    if (b >= 0 && b != mode[k])
                        ok = false;
                }
                in |= ok;
            }
            cr_expect_eq(in, !(g && !hh));
        }
    /* Offsets of e1 are reported on the nonsingular modes only. */
    cr_assert_eq(rep->equations[0].n_offsets, 1);
    cr_expect_str_eq(rep->equations[0].offsets[0].modes.formula, "g & !h");
    cr_expect_str_eq(rep->equations[0].active.formula, "true");
    sa_report_free(rep);
    sa_result_free(r);
}

Test(sa_analyze, check_reports_a_variable_used_where_it_does_not_exist)
{
    static hb h;
    hb_init(&h, "g", "x y@g");
    hb_eq(&h, "e1 : x y");
    hb_eq(&h, "e2 : x");
    hb_done(&h);
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(sa_check(&h.m, &d), MDAE_E_MODEL);
    cr_assert_eq(d.count, 1);
    cr_expect_eq(d.items[0].severity, MDAE_SEV_ERROR);
    /* Located at the use: line 1 (equation e1), the column of "y". */
    cr_expect_eq(d.items[0].where.start.line, 1);
    cr_expect_eq(d.items[0].where.start.col, 8);
    cr_expect(strstr(d.items[0].message, "'y'") != NULL, "%s", d.items[0].message);
    cr_expect(strstr(d.items[0].message, "!g") != NULL, "%s", d.items[0].message);
    mdae_diags_close(&d);
    sa_result *r = NULL;
    mdae_diags_init(&d);
    cr_expect_eq(sa_analyze(&h.m, NULL, &r, &d), MDAE_E_MODEL);
    cr_expect_null(r);
    mdae_diags_close(&d);
}

Test(sa_analyze, node_limit_fails_cleanly_and_the_manager_recovers)
{
    static hb h;
    rldc2(&h);
    cr_assert_eq(sa_set_node_limit(50), MDAE_OK);
    sa_result *r = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    cr_expect_eq(sa_analyze(&h.m, NULL, &r, &d), MDAE_E_BDD_LIMIT);
    cr_expect_null(r);
    cr_assert_geq(d.count, 1);
    cr_expect(strstr(d.items[0].message, "50 BDD nodes") != NULL, "%s", d.items[0].message);
    mdae_diags_close(&d);
    cr_assert_eq(sa_set_node_limit(0), MDAE_OK);
    cr_assert_eq(analyze(&h.m, &r), MDAE_OK);
    bool mode[2] = {true, true};
    sa_mode_view v;
    cr_assert_eq(sa_result_mode(r, mode, &v), MDAE_OK);
    cr_expect_eq(v.c[2], 1); /* K3 */
    sa_mode_view_close(&v);
    sa_result_free(r);
}

static int cancel_at(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)done;
    (void)total;
    return strcmp(phase, (const char *)ctx) == 0;
}

Test(sa_analyze, progress_callback_cancels_the_analysis)
{
    static hb h;
    rldc2(&h);
    const char *phases[] = {"encode", "weights", "argmax", "choice", "offsets"};
    for (size_t k = 0; k < 5; k++) {
        sa_options o = {.progress = cancel_at, .progress_ctx = (void *)phases[k],
                        .method = SA_METHOD_IMPLICIT};
        sa_result *r = NULL;
        cr_expect_eq(sa_analyze(&h.m, &o, &r, NULL), MDAE_E_CANCELED, "phase %s", phases[k]);
        cr_expect_null(r);
    }
    sa_result *r = NULL;
    cr_assert_eq(analyze(&h.m, &r), MDAE_OK);
    sa_result_free(r);
}

Test(sa_analyze, invariants_restrict_the_valid_modes)
{
    static hb h;
    singular_simple(&h);
    /* invariant g & !h: the only valid mode is the nonsingular one. */
    h.invs[0].cond = hb_g(&h, MEL_G_AND, 0, hb_lit(&h, "g", 1), hb_lit(&h, "!h", 2));
    h.m.n_invariants = 1;
    sa_result *r = NULL;
    cr_assert_eq(analyze(&h.m, &r), MDAE_OK);
    sa_report *rep = NULL;
    cr_assert_eq(sa_result_report(r, &rep), MDAE_OK);
    cr_expect_eq(rep->valid_modes, 1.0);
    cr_expect(!rep->singular);
    /* Exact on the valid modes: the one valid mode is all there is. */
    cr_expect_str_eq(rep->equations[1].active.formula, "true");
    sa_report_free(rep);
    bool mode[2] = {false, false};
    sa_mode_view v;
    cr_assert_eq(sa_result_mode(r, mode, &v), MDAE_OK);
    cr_expect(!v.valid && !v.singular && v.c[0] == -1);
    sa_mode_view_close(&v);
    sa_result_free(r);
}

Test(sa_analyze, warns_when_no_mode_is_valid)
{
    static hb h;
    singular_simple(&h);
    h.invs[0].cond = hb_g(&h, MEL_G_AND, 0, hb_lit(&h, "g", 1), hb_lit(&h, "!g", 2));
    h.m.n_invariants = 1;
    mdae_diags d;
    mdae_diags_init(&d);
    cr_expect_eq(sa_check(&h.m, &d), MDAE_OK);
    cr_assert_eq(d.count, 1);
    cr_expect_eq(d.items[0].severity, MDAE_SEV_WARNING);
    mdae_diags_close(&d);
}

/* ---- The model corpus, through the front-end ------------------------------ */

static mel_model *parse_file(const char *name, long n)
{
    size_t len;
    char *text = tm_read(name, &len);
    mel_define def = {"N", n};
    mel_options o = {.defines = &def, .n_defines = n > 0};
    mel_model *m = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mel_model_parse(text, len, &o, &m, &d), MDAE_OK, "%s does not parse", name);
    mdae_diags_close(&d);
    free(text);
    return m;
}

Test(sa_analyze, check_locates_the_bad_use_of_bad_use_mel_at_17_21)
{
    mel_model *m = parse_file("bad_use.mel", 0);
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(sa_check(m, &d), MDAE_E_MODEL);
    cr_assert_eq(d.count, 1);
    cr_expect_eq(d.items[0].where.start.line, 17);
    cr_expect_eq(d.items[0].where.start.col, 21);
    cr_expect_str_eq(d.items[0].message,
                     "variable 'y' is used in equation 'e2' in modes where it does not exist: "
                     "!g");
    mdae_diags_close(&d);
    mel_model_free(m);
}

static int offset_of(const sa_report *rep, bool eq, const char *name, const char *formula)
{
    uint32_t n = eq ? rep->n_equations : rep->n_variables;
    const sa_item *items = eq ? rep->equations : rep->variables;
    for (uint32_t k = 0; k < n; k++) {
        if (strcmp(items[k].name, name) != 0)
            continue;
        for (size_t q = 0; q < items[k].n_offsets; q++)
            if (!strcmp(items[k].offsets[q].modes.formula, formula))
                return items[k].offsets[q].value;
        return -2;
    }
    return -3;
}

Test(sa_analyze, water_tank_differentiates_el2_when_bl_and_eh2_when_bh)
{
    mel_model *m = parse_file("water_tank.mel", 0);
    sa_result *r = NULL;
    cr_assert_eq(analyze(m, &r), MDAE_OK);
    sa_report *rep = NULL;
    cr_assert_eq(sa_result_report(r, &rep), MDAE_OK);
    cr_expect_eq(rep->valid_modes, 3.0);
    cr_expect(!rep->singular);
    /* Invariant !(bh & bl): the sets are exact on the three valid modes
     * (bh & bl is a don't-care), so `bl` stands for !bh & bl. */
    cr_expect_eq(offset_of(rep, true, "el2", "bl"), 1);
    cr_expect_eq(offset_of(rep, true, "eh2", "bh"), 1);
    sa_report_free(rep);
    cr_assert_eq(sa_result_report_ex(r, 0, &rep), MDAE_OK); /* exact on all modes */
    cr_expect_eq(offset_of(rep, true, "el2", "!bh & bl"), 1);
    cr_expect_eq(offset_of(rep, true, "eh2", "bh & !bl"), 1);
    sa_report_free(rep);
    sa_result_free(r);
    mel_model_free(m);
}

Test(sa_analyze, rldc2_file_matches_figure_6_and_the_hand_built_model)
{
    mel_model *m = parse_file("rldc2.mel", 0);
    static hb h;
    rldc2(&h);
    sa_result *r = NULL, *rh = NULL;
    cr_assert_eq(analyze(m, &r), MDAE_OK);
    cr_assert_eq(analyze(&h.m, &rh), MDAE_OK);
    long g1 = mel_model_find_mode(m, "g1"), g2 = mel_model_find_mode(m, "g2");
    for (int a = 0; a < 4; a++) {
        bool mode[2], hmode[2] = {a & 1, (a >> 1) & 1};
        mode[g1] = hmode[0];
        mode[g2] = hmode[1];
        sa_mode_view v, vh;
        cr_assert_eq(sa_result_mode(r, mode, &v), MDAE_OK);
        cr_assert_eq(sa_result_mode(rh, hmode, &vh), MDAE_OK);
        cr_expect(v.valid && !v.singular);
        for (uint32_t i = 0; i < h.m.n_equations; i++) {
            long k = mel_model_find_equation(m, h.eqs[i].name);
            cr_assert_geq(k, 0);
            cr_expect_eq(v.c[k], vh.c[i], "mode %d: c(%s)", a, h.eqs[i].name);
        }
        for (uint32_t j = 0; j < h.m.n_variables; j++) {
            long k = mel_model_find_variable(m, h.vars[j].name);
            cr_assert_geq(k, 0);
            cr_expect_eq(v.d[k], vh.d[j], "mode %d: d(%s)", a, h.vars[j].name);
        }
        sa_mode_view_close(&v);
        sa_mode_view_close(&vh);
    }
    sa_result_free(r);
    sa_result_free(rh);
    mel_model_free(m);
}

Test(sa_analyze, both_row_orders_give_the_same_offsets)
{
    mel_model *m = parse_file("building_compressible.mel", 2);
    uint32_t nm = m->n_modes, ne = m->n_equations, nv = m->n_variables;
    cr_assert_leq(nm, 10);
    int *cd[2];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) { /* restart the manager with the other order */
            sa_end();
            sa_config cfg;
            sa_config_default(&cfg);
            cfg.order = SA_ORDER_CUTHILL_MCKEE;
            cr_assert_eq(sa_begin(&cfg), MDAE_OK);
        }
        sa_result *r = NULL;
        cr_assert_eq(analyze(m, &r), MDAE_OK);
        cr_expect(!sa_result_singular(r));
        cr_expect_eq(sa_result_valid_modes(r), 18.0); /* 3^2 * 2^(2-1) */
        cd[pass] = calloc((size_t)(1u << nm) * (ne + nv), sizeof(int));
        for (uint32_t a = 0; a < (1u << nm); a++) {
            bool mode[10];
            for (uint32_t k = 0; k < nm; k++)
                mode[k] = (a >> k) & 1;
            sa_mode_view v;
            cr_assert_eq(sa_result_mode(r, mode, &v), MDAE_OK);
            memcpy(&cd[pass][a * (ne + nv)], v.c, ne * sizeof(int));
            memcpy(&cd[pass][a * (ne + nv) + ne], v.d, nv * sizeof(int));
            sa_mode_view_close(&v);
        }
        sa_result_free(r);
    }
    cr_expect_arr_eq(cd[0], cd[1], (size_t)(1u << nm) * (ne + nv) * sizeof(int));
    free(cd[0]);
    free(cd[1]);
    mel_model_free(m);
}

/* The RLDC chain (tests/models/rldc_chain.mel) with the equations of each
 * cell split in two loops, as a Modelica export lists its aliases first:
 * the columns of x, j, e, u, v stay open across the whole declaration
 * order, and with 2^N modes the chain cannot be enumerated. */
static const char scattered_chain[] =
    "N : integer = 2;\n"
    "pE : real = 1.0; pR : real = 10.0; pL : real = 1.0; pC : real = 0.1;\n"
    "foreach k in 0 .. N do e[k] : real done;\n"
    "foreach k in 1 .. N + 1 do j[k] : real done;\n"
    "foreach k in 1 .. N do\n"
    "  x[k] : real; w[k] : real; i[k] : real; u[k] : real; v[k] : real; s[k] : real;\n"
    "  g[k] : boolean = last(s[k]) >= 0\n"
    "done;\n"
    "src : equation e[0] = pE;\n"
    "plug : equation j[N + 1] = 0;\n"
    "foreach k in 1 .. N do\n"
    "  R[k] : equation x[k] = pR * j[k];\n"
    "  KD[k] : equation e[k] = u[k] + v[k]\n"
    "done;\n"
    "foreach k in 1 .. N do\n"
    "  L[k] : equation w[k] = pL * der(j[k]);\n"
    "  KL[k] : equation e[k - 1] - e[k] = x[k] + w[k];\n"
    "  C[k] : equation i[k] = pC * der(v[k]);\n"
    "  KC[k] : equation j[k] = i[k] + j[k + 1];\n"
    "  S[k] : equation s[k] = if g[k] then i[k] else -u[k];\n"
    "  Z[k] : equation 0 = if g[k] then u[k] else i[k]\n"
    "done;\n";

Test(sa_analyze, a_scattered_order_is_analysed_again_in_cuthill_mckee_order)
{
    mel_define def = {"N", 18};
    mel_options mo = {0};
    mo.defines = &def;
    mo.n_defines = 1;
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(scattered_chain, strlen(scattered_chain), &mo, &m, NULL),
                 MDAE_OK);
    cr_assert_eq(m->n_modes, 18);
    sa_result *r = NULL;
    cr_assert_eq(analyze(m, &r), MDAE_OK);
    sa_method_info mi;
    sa_result_method(r, &mi);
    cr_expect(mi.reordered, "analysed again in Cuthill-McKee's order");
    cr_expect_eq(sa_result_valid_modes(r), 262144.0);
    /* The offsets of sampled modes, against the brute-force reference. */
    uint64_t x = 0x5CA77E2Dull;
    bool mode[18];
    for (int a = 0; a < 64; a++) {
        for (uint32_t k = 0; k < m->n_modes; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            mode[k] = (x >> 40) & 1;
        }
        ref_mode rm;
        cr_assert_eq(ref_mode_compute(m, mode, &rm), MDAE_OK);
        sa_mode_view v;
        cr_assert_eq(sa_result_mode(r, mode, &v), MDAE_OK);
        cr_assert(v.valid && rm.valid && v.singular == rm.singular);
        for (uint32_t i = 0; !rm.singular && i < m->n_equations; i++)
            cr_assert_eq(v.c[i], rm.c[i], "mode %d: c of %s", a, m->equations[i].name);
        for (uint32_t j = 0; !rm.singular && j < m->n_variables; j++)
            cr_assert_eq(v.d[j], rm.d[j], "mode %d: d of %s", a, m->variables[j].name);
        sa_mode_view_close(&v);
        ref_mode_close(&rm);
    }
    sa_result_free(r);
    mel_model_free(m);
}

/* A hint's BDD variable layout (engine/sa_encode.c) is taken only in the
 * row order it was made in: the hint, the scattered chain without its
 * derivatives (the same incidences, other orders), was analysed again in
 * Cuthill-McKee's order; the edited chain, analysed again in that order
 * too, takes there the hint's layout and every equation's functions but
 * the 2N rows whose orders changed. The result is the cold one. */
Test(sa_analyze, a_hints_layout_is_taken_only_in_its_own_row_order)
{
    mel_define def = {"N", 18};
    mel_options mo = {0};
    mo.defines = &def;
    mo.n_defines = 1;
    char *flat = mdae_strdup(scattered_chain);
    for (char *d; (d = strstr(flat, "der(")) != NULL;) { /* der(j[k]) -> j[k] */
        char *close = strchr(d, ')');
        memmove(close, close + 1, strlen(close + 1) + 1);
        memmove(d, d + 4, strlen(d + 4) + 1);
    }
    mel_model *m = NULL, *hm = NULL;
    cr_assert_eq(mel_model_parse(scattered_chain, strlen(scattered_chain), &mo, &m, NULL),
                 MDAE_OK);
    cr_assert_eq(mel_model_parse(flat, strlen(flat), &mo, &hm, NULL), MDAE_OK);
    sa_result *hint = NULL, *cold = NULL, *r = NULL;
    cr_assert_eq(analyze(hm, &hint), MDAE_OK);
    sa_method_info mi;
    sa_result_method(hint, &mi);
    cr_assert(mi.reordered, "the hint: Cuthill-McKee's order");
    cr_assert_eq(analyze(m, &cold), MDAE_OK);
    sa_options o = {.hint = hint};
    cr_assert_eq(sa_analyze(m, &o, &r, NULL), MDAE_OK);
    sa_result_method(r, &mi);
    cr_assert(mi.reordered, "analysed again in Cuthill-McKee's order");
    cr_assert_eq(mi.encoded_from_hint, m->n_equations - 2 * 18, "%u of %u from the hint",
                 mi.encoded_from_hint, m->n_equations);
    cr_assert_eq(sa_result_valid_modes(r), sa_result_valid_modes(cold));
    uint64_t x = 0x1A7007ull;
    bool mode[18];
    for (int a = 0; a < 64; a++) { /* the hinted result is the cold one */
        for (uint32_t k = 0; k < m->n_modes; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            mode[k] = (x >> 40) & 1;
        }
        sa_mode_view u, v;
        cr_assert_eq(sa_result_mode(cold, mode, &u), MDAE_OK);
        cr_assert_eq(sa_result_mode(r, mode, &v), MDAE_OK);
        cr_assert(u.valid == v.valid && u.singular == v.singular, "mode %d", a);
        for (uint32_t i = 0; i < m->n_equations; i++)
            cr_assert_eq(u.c[i], v.c[i], "mode %d: c of %s", a, m->equations[i].name);
        for (uint32_t j = 0; j < m->n_variables; j++)
            cr_assert_eq(u.d[j], v.d[j], "mode %d: d of %s", a, m->variables[j].name);
        sa_mode_view_close(&u);
        sa_mode_view_close(&v);
    }
    sa_result_free(r);
    sa_result_free(cold);
    sa_result_free(hint);
    mel_model_free(hm);
    mel_model_free(m);
    mdae_free(flat);
}

/* ---- The encoding taken from a hint (engine/sa_encode.c), field by field ---- */

/* sa__encode of m alone, in SA_ORDER_AUTO, with hint (may be NULL): the
 * encoded result (sa_result_free), and *cm what sa__cm_better then says. */
static sa_result *encode_only(const mel_model *m, const sa_result *hint, bool *cm)
{
    sa_options o = {.hint = hint};
    ENTER_ENCODING(c, &o, "the encoding");
    sa__encode(c, m);
    *cm = sa__cm_better(c);
    sa__leave(c);
    sa_result *r = c->r;
    free(c);
    return r;
}

/* a and b are the same encoding: layout, rows' profile and every function. */
static void same_encoding(const sa_result *a, const sa_result *b, const char *what)
{
    cr_assert_eq(a->n_bddvars, b->n_bddvars, "%s", what);
    cr_assert_eq(a->n_edges, b->n_edges, "%s", what);
    cr_assert_eq(a->w_sigma, b->w_sigma, "%s", what);
    size_t nv = (size_t)a->n_modes + a->n_edges;
    cr_assert(!memcmp(a->mode_var, b->mode_var, a->n_modes * sizeof(int)), "%s: mode_var", what);
    cr_assert(!memcmp(a->var_mode, b->var_mode, nv * sizeof(int)), "%s: var_mode", what);
    cr_assert(!memcmp(a->edge_var, b->edge_var, a->n_edges * sizeof(int)), "%s: edge_var", what);
    cr_assert(!memcmp(a->var_edge, b->var_edge, nv * sizeof(int)), "%s: var_edge", what);
    cr_assert(!memcmp(a->eq_order, b->eq_order, a->n_eq * sizeof(uint32_t)), "%s", what);
    cr_assert(a->row_profile == b->row_profile, "%s: profile", what);
    cr_assert(a->chi_m == b->chi_m && a->modeset == b->modeset, "%s", what);
    for (uint32_t i = 0; i < a->n_eq; i++)
        cr_assert_eq(a->chi_i[i], b->chi_i[i], "%s: chi_I of %s", what, a->m->equations[i].name);
    for (uint32_t j = 0; j < a->n_var; j++)
        cr_assert_eq(a->chi_j[j], b->chi_j[j], "%s: chi_J of %s", what, a->m->variables[j].name);
    for (size_t e = 0; e < a->n_edges; e++) {
        cr_assert_eq(a->chi_e[e], b->chi_e[e], "%s: chi_E of edge %zu", what, e);
        for (int k = 0; k < a->w_sigma; k++)
            cr_assert_eq(a->sigma[e * (size_t)a->w_sigma + k], b->sigma[e * (size_t)b->w_sigma + k],
                         "%s: sigma of edge %zu", what, e);
    }
}

/* text with the first `from` replaced by `to` (malloc'ed). */
static char *edited(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "'%s' not found", from);
    char *out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
    cr_assert_not_null(out);
    sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* An edit that keeps the layout takes the original's, and the functions of
 * every equation it did not change: the encoding is the one made from
 * scratch, field for field and node for node; whether Cuthill-McKee's
 * order is better is answered the same (the rows' graph built when asked:
 * the chain scattered in declaration order says yes, the brake no). */
Test(sa_analyze, an_encoding_taken_from_a_hint_is_the_one_made_from_scratch)
{
    static const struct {
        const char *file;
        long n;
        const char *from, *to;
        uint32_t anew; /* equations the edit changed */
        bool cm;       /* Cuthill-McKee's order much better */
    } cases[] = {
        {"brake.mel", 3, "px[i] : equation b[i] = K*x[i];",
         "px[i] : equation b[i] = K*x[i] + (if i == 2 then der(x[i]) else 0);", 1, false},
        {"brake.mel", 3, "if open[i] then", "if open[i] & i <> 2 | !open[i] & i == 2 then", 2,
         false},
        {"building_compressible.mel", 3, "if open[i] then",
         "if open[i] & i <> 2 | !open[i] & i == 2 then", 2, false},
        {NULL, 18, "C[k] : equation i[k] = pC * der(v[k]);", "C[k] : equation i[k] = pC * v[k];",
         18, true},
    };
    for (size_t q = 0; q < sizeof cases / sizeof *cases; q++) {
        size_t len;
        char *text = cases[q].file ? tm_read(cases[q].file, &len) : mdae_strdup(scattered_chain);
        char *after = edited(text, cases[q].from, cases[q].to);
        mel_define def = {"N", cases[q].n};
        mel_options o = {0};
        o.defines = &def;
        o.n_defines = 1;
        mel_model *m0 = NULL, *m1 = NULL;
        cr_assert_eq(mel_model_parse(text, strlen(text), &o, &m0, NULL), MDAE_OK);
        cr_assert_eq(mel_model_parse(after, strlen(after), &o, &m1, NULL), MDAE_OK);
        bool cm0, cm1, cm2;
        sa_result *hint = encode_only(m0, NULL, &cm0);
        sa_result *fresh = encode_only(m1, NULL, &cm1);
        sa_result *taken = encode_only(m1, hint, &cm2);
        char what[64];
        snprintf(what, sizeof what, "case %zu", q);
        cr_assert_eq(fresh->encoded_from_hint, 0, "%s", what);
        cr_assert_eq(taken->encoded_from_hint, m1->n_equations - cases[q].anew,
                     "%s: %u of %u from the hint", what, taken->encoded_from_hint,
                     m1->n_equations);
        same_encoding(fresh, taken, what);
        cr_assert(cm0 == cases[q].cm && cm1 == cm0 && cm2 == cm0, "%s: Cuthill-McKee", what);
        sa_result_free(taken);
        sa_result_free(fresh);
        sa_result_free(hint);
        mel_model_free(m1);
        mel_model_free(m0);
        free(after);
        free(text);
    }
}

/* The brake at N = 6 with edit `kind` on instance i: 0 none, 1 one
 * equation gains a derivative (a row of another layout: encoded anew),
 * 2 one valve's guard negated (two rows' guards), 3 one incidence's order
 * lowered (the same layout, another sigma). malloc'ed. */
static char *brake_edit(const char *text, int kind, int i)
{
    static const char *const from[] = {
        "px[i] : equation b[i] = K*x[i];", "if open[i] then",
        "mer[i] : equation ft[i] = Rho*V*der(Pt[i])/P0;"};
    char to[160];
    if (kind == 1)
        snprintf(to, sizeof to, "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);", i);
    else if (kind == 2)
        snprintf(to, sizeof to, "if open[i] & i <> %d | !open[i] & i == %d then", i, i);
    else if (kind == 3)
        snprintf(to, sizeof to, "mer[i] : equation ft[i] = Rho*V*(if i == %d then Pt[i] else der(Pt[i]))/P0;", i);
    return kind == 0 ? mdae_strdup(text) : edited(text, from[kind - 1], to);
}

/* Edits in a row, each encoding seeded by the previous one (which is then
 * freed, with its model, before the next: the layout they share outlives
 * its first owner): every encoding is the one made from scratch, node for
 * node, so a row taken from the hint that the edit changed (a stale row)
 * fails; the layout is shared, not copied; the rows taken are those the
 * edit left alone. */
Test(sa_analyze, encodings_seeded_in_a_row_are_the_ones_made_from_scratch)
{
    size_t len;
    char *text = tm_read("brake.mel", &len);
    mel_define def = {"N", 6};
    mel_options o = {0};
    o.defines = &def;
    o.n_defines = 1;
    static const struct {
        int kind, at;
        uint32_t anew; /* rows not taken from the previous version */
    } walk[] = {{1, 3, 1}, {2, 3, 3}, {2, 5, 4}, {3, 2, 3}, {3, 2, 0}, {0, 0, 1},
                {3, 6, 1}, {1, 1, 2}, {2, 1, 3}, {0, 0, 2}};
    bool cm;
    mel_model *prev_m = NULL;
    cr_assert_eq(mel_model_parse(text, len, &o, &prev_m, NULL), MDAE_OK);
    sa_result *prev = encode_only(prev_m, NULL, &cm);
    cr_assert_not_null(prev->layout);
    for (size_t k = 0; k < sizeof walk / sizeof *walk; k++) {
        char *t = brake_edit(text, walk[k].kind, walk[k].at);
        mel_model *m = NULL;
        cr_assert_eq(mel_model_parse(t, strlen(t), &o, &m, NULL), MDAE_OK);
        sa_result *fresh = encode_only(m, NULL, &cm);
        sa_result *taken = encode_only(m, prev, &cm);
        char what[64];
        snprintf(what, sizeof what, "step %zu", k);
        same_encoding(fresh, taken, what);
        cr_assert_eq(taken->encoded_from_hint, m->n_equations - walk[k].anew,
                     "%s: %u of %u from the hint", what, taken->encoded_from_hint,
                     m->n_equations);
        cr_assert(taken->layout == prev->layout && taken->edge_var == prev->edge_var,
                  "%s: the layout is shared", what);
        cr_assert(fresh->layout != prev->layout, "%s", what);
        sa_result_free(prev);
        mel_model_free(prev_m);
        sa_result_free(fresh);
        prev = taken;
        prev_m = m;
        free(t);
    }
    sa_result_free(prev);
    mel_model_free(prev_m);
    free(text);
}

/* a and b kept the same plan (S, its valid assignments and their number). */
static void same_plan(const sa_result *a, const sa_result *b, const char *what)
{
    cr_assert(a->plan_kept && b->plan_kept, "%s", what);
    cr_assert_eq(a->plan_n_s, b->plan_n_s, "%s: |S|", what);
    cr_assert(!memcmp(a->plan_s_modes, b->plan_s_modes, a->plan_n_s * sizeof(uint32_t)),
              "%s: S", what);
    cr_assert_eq(a->plan_valid_s, b->plan_valid_s, "%s: valid assignments of S", what);
    cr_assert(a->plan_modes == b->plan_modes && a->modes_s == b->modes_s, "%s", what);
}

/* e1's guard reads g twice, as g & g (its functions read g) or as
 * g | !g (they read nothing): the same layout either way. */
static void plan_model(hb *h, bool reads_g)
{
    hb_init(h, "g h", "x y z");
    hb_eq(h, "e1@g : x");
    hb_eq(h, "e2 : y");
    hb_eq(h, "e3 : z x@h");
    hb_done(h);
    const mel_guard *g = hb_g(h, MEL_G_VAR, 0, NULL, NULL);
    const mel_guard *two = reads_g ? hb_g(h, MEL_G_AND, 0, g, g)
                                   : hb_g(h, MEL_G_OR, 0, g, hb_g(h, MEL_G_NOT, 0, g, NULL));
    h->eqs[0].guard = two;
    h->cases[0][0][0].guard = two;
}

/* The plan of an analysis seeded by a hint (sa__enum_plan_whole) is the
 * cold one: taken from the hint when the rows encoded anew read the same
 * mode variables (the brake's edits), made again when S loses one (e1
 * no longer reads g) or gains one (back again). */
Test(sa_analyze, a_plan_taken_from_a_hint_is_the_one_made_from_scratch)
{
    static hb hs[3];
    sa_result *prev = NULL;
    for (int k = 0; k < 3; k++) {
        plan_model(&hs[k], k != 1);
        sa_result *cold = NULL, *r = NULL;
        cr_assert_eq(analyze(&hs[k].m, &cold), MDAE_OK);
        sa_options so = {.hint = prev};
        cr_assert_eq(sa_analyze(&hs[k].m, &so, &r, NULL), MDAE_OK);
        char what[32];
        snprintf(what, sizeof what, "version %d", k);
        same_plan(cold, r, what);
        cr_assert_eq(r->plan_n_s, k == 1 ? 1 : 2, "%s", what);
        if (k > 0)
            cr_assert_eq(r->encoded_from_hint, 2, "%s: the hint's layout", what);
        sa_result_free(cold);
        sa_result_free(prev);
        prev = r;
    }
    sa_result_free(prev);
    size_t len;
    char *text = tm_read("brake.mel", &len);
    char *versions[] = {mdae_strdup(text), brake_edit(text, 2, 4), brake_edit(text, 1, 2)};
    mel_define def = {"N", 6};
    mel_options o = {0};
    o.defines = &def;
    o.n_defines = 1;
    mel_model *prev_m = NULL;
    prev = NULL;
    for (size_t k = 0; k < 3; k++) {
        mel_model *m = NULL;
        cr_assert_eq(mel_model_parse(versions[k], strlen(versions[k]), &o, &m, NULL), MDAE_OK);
        sa_result *cold = NULL, *r = NULL;
        cr_assert_eq(analyze(m, &cold), MDAE_OK);
        sa_options so = {.hint = prev};
        cr_assert_eq(sa_analyze(m, &so, &r, NULL), MDAE_OK);
        char what[32];
        snprintf(what, sizeof what, "brake %zu", k);
        same_plan(cold, r, what);
        const char *why = NULL;
        cr_assert(sa_result_same(cold, r, &why), "%s: %s", what, why);
        sa_result_free(cold);
        sa_result_free(prev);
        mel_model_free(prev_m);
        prev = r;
        prev_m = m;
        free(versions[k]);
    }
    sa_result_free(prev);
    mel_model_free(prev_m);
    free(text);
}

/* The rows taken from the hint are not checked again (its check passed
 * them), but an edited row is: a use of y where it does not exist, made
 * by negating a case's guard (the same layout), is reported with the hint
 * as without it. */
Test(sa_analyze, an_edited_row_is_checked_with_a_hint)
{
    static const char good[] = "x : real;\ng : boolean;\nif g then\n  y : real;\n"
                               "  e1 : equation y = 1.0\nelse\n  z : real;\n"
                               "  e2 : equation z = 2.0\nend;\n"
                               "e3 : equation x = 3.0 + (if g then y else 0.0);\n";
    char *bad = edited(good, "(if g then y", "(if !g then y");
    mel_model *gm = NULL, *bm = NULL;
    cr_assert_eq(mel_model_parse(good, strlen(good), NULL, &gm, NULL), MDAE_OK);
    cr_assert_eq(mel_model_parse(bad, strlen(bad), NULL, &bm, NULL), MDAE_OK);
    sa_result *hint = NULL, *r = NULL;
    cr_assert_eq(analyze(gm, &hint), MDAE_OK);
    bool cm;
    sa_result *taken = encode_only(bm, hint, &cm);
    cr_assert_eq(taken->encoded_from_hint, bm->n_equations - 1, "the layout is the hint's");
    sa_result_free(taken);
    for (int with = 0; with < 2; with++) {
        sa_options so = {.hint = with ? hint : NULL};
        mdae_diags d;
        mdae_diags_init(&d);
        cr_assert_eq(sa_analyze(bm, &so, &r, &d), MDAE_E_MODEL, "with the hint: %d", with);
        cr_assert_eq(d.count, 1, "with the hint: %d", with);
        cr_expect_str_eq(d.items[0].message, "variable 'y' is used in equation 'e3' in modes "
                                             "where it does not exist: !g");
        mdae_diags_close(&d);
    }
    sa_result_free(hint);
    mel_model_free(bm);
    mel_model_free(gm);
    free(bad);
}

Test(sa_analyze, report_with_valid_care_gives_short_formulas)
{
    mel_model *m = parse_file("building_compressible.mel", 3);
    sa_result *r = NULL;
    cr_assert_eq(analyze(m, &r), MDAE_OK);
    sa_report *rep = NULL;
    cr_assert_eq(sa_result_report_ex(r, SA_REPORT_VALID_CARE, &rep), MDAE_OK);
    long i = mel_model_find_equation(m, "dop[2]");
    cr_assert_geq(i, 0);
    cr_expect_str_eq(rep->equations[i].active.formula, "open[2]");
    sa_report_free(rep);
    /* The report exact on all modes needs the invariants in every set. */
    cr_assert_eq(sa_result_report_ex(r, 0, &rep), MDAE_OK);
    cr_expect_gt(rep->equations[i].active.n_cubes, 1);
    sa_report_free(rep);
    sa_result_free(r);
    mel_model_free(m);
}

/* ---- Failure injection ------------------------------------------------------ */

Test(sa_analyze, allocation_failures_at_every_point_return_nomem_and_leak_nothing)
{
    static hb h;
    singular_simple(&h); /* exercises the diagnostics too */
    cr_assert_eq(mdae_replace_allocator(&budget_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; n < 100000 && rc == MDAE_E_NOMEM; n++) {
        budget_left = n;
        sa_result *r = NULL;
        rc = sa_analyze(&h.m, NULL, &r, NULL);
        if (rc == MDAE_OK) {
            sa_report *rep = NULL;
            rc = sa_result_report(r, &rep);
            sa_report_free(rep);
            sa_result_free(r);
        } else {
            cr_assert_null(r);
        }
    }
    budget_left = -1;
    mdae_replace_allocator(NULL);
    cr_expect_eq(rc, MDAE_OK, "still %s after %ld allocations", mdae_err_name(rc), n);
    sa_result *r = NULL;
    cr_assert_eq(analyze(&h.m, &r), MDAE_OK);
    sa_result_free(r);
}

Test(sa_analyze, node_limits_at_every_scale_fail_cleanly)
{
    mel_model *m = parse_file("building_compressible.mel", 2);
    int ok = 0, limited = 0;
    for (size_t lim = 64; lim <= (1u << 20); lim *= 2) {
        cr_assert_eq(sa_set_node_limit(lim), MDAE_OK);
        sa_result *r = NULL;
        int rc = sa_analyze(m, NULL, &r, NULL);
        cr_assert(rc == MDAE_OK || rc == MDAE_E_BDD_LIMIT, "limit %zu: %s", lim,
                  mdae_err_name(rc));
        ok += rc == MDAE_OK;
        limited += rc == MDAE_E_BDD_LIMIT;
        sa_result_free(r);
    }
    cr_expect_gt(limited, 0);
    cr_expect_gt(ok, 0);
    cr_assert_eq(sa_set_node_limit(0), MDAE_OK);
    sa_result *r = NULL;
    cr_assert_eq(analyze(m, &r), MDAE_OK);
    cr_expect(!sa_result_singular(r));
    sa_result_free(r);
    mel_model_free(m);
}

static int cancel_inside(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)total;
    return strcmp(phase, (const char *)ctx) == 0 && done > 0;
}

Test(sa_analyze, cancels_from_inside_the_long_loops)
{
    mel_model *m = parse_file("building_compressible.mel", 5);
    /* N = 5: X has a few thousand nodes, enough for checkpoints inside the
     * row loop and the dynamic programme (every 1024 nodes). */
    const char *phases[] = {"matchings", "argmax"};
    for (size_t k = 0; k < 2; k++) {
        sa_options o = {.progress = cancel_inside, .progress_ctx = (void *)phases[k],
                        .method = SA_METHOD_IMPLICIT};
        sa_result *r = NULL;
        cr_expect_eq(sa_analyze(m, &o, &r, NULL), MDAE_E_CANCELED, "phase %s", phases[k]);
        cr_expect_null(r);
    }
    sa_result *r = NULL;
    cr_assert_eq(analyze(m, &r), MDAE_OK);
    sa_result_free(r);
    mel_model_free(m);
}

/* A model with variables and no equation at all is singular, and every
 * variable is underdetermined (found by the incremental layer, which splits
 * models into parts that can have no equation). */
Test(sa_analyze, variables_without_any_equation_are_underdetermined)
{
    static const char text[] = "g : boolean;\ny : real;\nif g then z : real; end\n";
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, sizeof text - 1, NULL, &m, NULL), MDAE_OK);
    sa_result *r = NULL;
    cr_assert_eq(analyze(m, &r), MDAE_OK);
    for (int q = 0; q < 2; q++) {
        bool mode[1] = {q == 1};
        sa_mode_view v;
        cr_assert_eq(sa_result_mode(r, mode, &v), MDAE_OK);
        cr_expect(v.valid && v.singular);
        cr_expect(v.underdetermined[0], "y in mode g=%d", q);
        cr_expect_eq(v.underdetermined[1], q == 1, "z in mode g=%d", q);
        sa_mode_view_close(&v);
    }
    sa_result_free(r);
    mel_model_free(m);
}

/* Offsets larger than the few bits the fixpoint tries first (sa_dual.c):
 * a chain x[k+1] = x[k]' of index 20, whose canonical offsets are known by
 * hand: c(f0) = 19, c(f[k]) = 19 - k, d(x[1]) = 19, d(x[k]) = 20 - k. */
Test(sa_analyze, offsets_beyond_the_first_width_are_exact)
{
    static const char *text = "N : integer = 20;\n"
                               "foreach i in 1 .. N do x[i] : real done;\n"
                               "f0 : equation x[1] = 0;\n"
                               "foreach k in 1 .. N - 1 do\n"
                               "  f[k] : equation x[k + 1] = der(x[k])\n"
                               "done;\n";
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, NULL), MDAE_OK);
    sa_result *r = NULL;
    cr_assert_eq(analyze(m, &r), MDAE_OK);
    sa_mode_view v = {0};
    cr_assert_eq(sa_result_mode(r, NULL, &v), MDAE_OK);
    cr_assert(v.valid && !v.singular);
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const char *n = m->equations[i].name;
        int want = strcmp(n, "f0") == 0 ? 19 : 19 - atoi(n + 2);
        cr_assert_eq(v.c[i], want, "c(%s) = %d, want %d", n, v.c[i], want);
    }
    for (uint32_t j = 0; j < m->n_variables; j++) {
        int k = atoi(m->variables[j].name + 2);
        int want = k == 1 ? 19 : 20 - k;
        cr_assert_eq(v.d[j], want, "d(%s) = %d, want %d", m->variables[j].name, v.d[j], want);
    }
    sa_mode_view_close(&v);
    sa_result_free(r);
    mel_model_free(m);
}

/* ---- The primal and the diagnostics by blocks (engine/sa_blocks.c) ----------
 * Three blocks of the union graph in a row: A = {e1, x}, singular wherever
 * !g; B = {e2, e3|e4, y, z}, whose two branches of `if k` make one group;
 * C = {e5, e6, u, v}, reading z. */
static const char *three_blocks =
    "x : real; y : real; z : real; u : real; v : real;\n"
    "g : boolean; h : boolean; k : boolean;\n"
    "e1 : equation 0 = if g then der(x) + x else 1.0;\n"
    "e2 : equation 0 = if h then y + z + x else y - z;\n"
    "if k then\n"
    "  e3 : equation z = y * 2 + x\n"
    "else\n"
    "  e4 : equation der(z) = y\n"
    "end;\n"
    "e5 : equation u = v + z;\n"
    "e6 : equation 0 = if h then u - v * v else der(v) + u;\n";

static mel_model *parse_text(const char *text)
{
    mel_model *m = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mel_model_parse(text, strlen(text), NULL, &m, &d), MDAE_OK);
    mdae_diags_close(&d);
    return m;
}

static int analyze_with(const mel_model *m, int method, sa_progress_fn progress, void *ctx,
                        sa_result **r)
{
    sa_options o = {.method = method, .progress = progress, .progress_ctx = ctx};
    return sa_analyze(m, &o, r, NULL);
}

Test(sa_analyze, three_blocks_by_blocks_equal_the_implicit_path_diagnostics_included)
{
    mel_model *m = parse_text(three_blocks);
    sa_result *imp = NULL, *blk = NULL;
    cr_assert_eq(analyze_with(m, SA_METHOD_IMPLICIT, NULL, NULL, &imp), MDAE_OK);
    cr_assert_eq(analyze_with(m, SA_METHOD_BLOCKS, NULL, NULL, &blk), MDAE_OK);
    const char *why = NULL;
    cr_assert(sa_result_same(imp, blk, &why), "%s differ", why);
    sa_method_info mi;
    sa_result_method(blk, &mi);
    cr_assert_eq(mi.blocks, 3);
    cr_assert(mi.dm_by_blocks);
    cr_assert(sa_result_singular(blk));
    sa_result_method(imp, &mi);
    cr_assert_eq(mi.blocks, 0);
    sa_result_free(imp);
    sa_result_free(blk);
    mel_model_free(m);
}

/* Cancels at the n-th progress call. */
static int cancel_at_call(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)phase;
    (void)done;
    (void)total;
    long *left = ctx;
    return (*left)-- == 0;
}

/* Each block tries the implicit primal with a budget of one node, runs out
 * (sa__try undoes the attempt) and is enumerated: the same result. */
static int analyze_by_blocks(const mel_model *m, size_t implicit_budget, sa_progress_fn progress,
                             void *ctx, sa_result **r)
{
    /* implicit_budget SIZE_MAX: SA_METHOD_TIGHT, every block by the tight
     * graphs of sampled modes */
    bool tight = implicit_budget == SIZE_MAX;
    sa_options o = {.method = tight ? SA_METHOD_TIGHT : SA_METHOD_BLOCKS, .progress = progress,
                    .progress_ctx = ctx, .implicit_budget = tight ? 0 : implicit_budget};
    return sa_analyze(m, &o, r, NULL);
}

/* The analysis by blocks with the n-th allocation failing, n = 0, 1, ...
 * until it succeeds: every failure returns NOMEM and no result (the suite's
 * allocator checks that nothing leaks). The result; *n: the failures. */
static sa_result *by_blocks_until_allocations_suffice(const mel_model *m, size_t implicit_budget,
                                                      long *n)
{
    cr_assert_eq(mdae_replace_allocator(&budget_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    sa_result *r = NULL;
    for (*n = 0; *n < 100000 && rc == MDAE_E_NOMEM; ++*n) {
        budget_left = *n;
        r = NULL;
        rc = analyze_by_blocks(m, implicit_budget, NULL, NULL, &r);
        if (rc != MDAE_OK)
            cr_assert_null(r);
    }
    budget_left = -1;
    mdae_replace_allocator(NULL);
    cr_assert_eq(rc, MDAE_OK, "still %s after %ld allocations", mdae_err_name(rc), *n);
    return r;
}

/* The same, cancelled at the k-th progress call, k = 0, 1, ... until it
 * succeeds; returns k. */
static long by_blocks_until_not_cancelled(const mel_model *m, size_t implicit_budget)
{
    int rc = MDAE_E_CANCELED;
    long k;
    for (k = 0; k < 10000 && rc == MDAE_E_CANCELED; k++) {
        long left = k;
        sa_result *r = NULL;
        rc = analyze_by_blocks(m, implicit_budget, cancel_at_call, &left, &r);
        if (rc == MDAE_E_CANCELED)
            cr_assert_null(r);
        sa_result_free(r);
    }
    cr_assert_eq(rc, MDAE_OK, "still cancelled after %ld checkpoints", k);
    return k;
}

Test(sa_analyze, blocks_over_their_budget_are_enumerated_alone_with_the_same_result)
{
    mel_model *m = parse_text(three_blocks);
    sa_result *imp = NULL, *fb = NULL;
    cr_assert_eq(analyze_with(m, SA_METHOD_IMPLICIT, NULL, NULL, &imp), MDAE_OK);
    cr_assert_eq(analyze_by_blocks(m, 1, NULL, NULL, &fb), MDAE_OK);
    const char *why = NULL;
    cr_assert(sa_result_same(imp, fb, &why), "%s differ", why);
    sa_method_info mi;
    sa_result_method(fb, &mi);
    cr_assert_eq(mi.method, SA_METHOD_IMPLICIT);
    cr_assert_eq(mi.blocks, 3);
    cr_assert_gt(mi.blocks_fell_back, 0);
    cr_assert_gt(mi.enumerated, 0);
    /* Failures inside and after the undone attempts: allocations, then
     * cancellation at every checkpoint. */
    long n;
    sa_result *r = by_blocks_until_allocations_suffice(m, 1, &n);
    cr_assert(sa_result_same(imp, r, &why), "%s differ", why);
    sa_result_free(r);
    cr_assert_gt(by_blocks_until_not_cancelled(m, 1), 3);
    sa_result_free(fb);
    sa_result_free(imp);
    mel_model_free(m);
}

/* Nonsingular in its four modes; e6 makes a second block of the union
 * graph, so the primal goes by blocks. */
static const char *tight_blocks =
    "x : real; y : real; z : real; u : real; v : real; w : real;\n"
    "g : boolean; h : boolean;\n"
    "e1 : equation der(x) = y + z;\n"
    "e2 : equation 0 = x + y + (if g then z else u);\n"
    "e3 : equation der(z) = u + v;\n"
    "e4 : equation 0 = u + v + (if h then x else y);\n"
    "e5 : equation 0 = y + u + z;\n"
    "e6 : equation w = x;\n";

Test(sa_analyze, blocks_by_tight_graphs_give_the_same_result_and_fail_cleanly)
{
    mel_model *m = parse_text(tight_blocks);
    sa_result *imp = NULL, *tg = NULL;
    cr_assert_eq(analyze_with(m, SA_METHOD_IMPLICIT, NULL, NULL, &imp), MDAE_OK);
    cr_assert_not(sa_result_singular(imp));
    cr_assert_eq(analyze_by_blocks(m, SIZE_MAX, NULL, NULL, &tg), MDAE_OK);
    const char *why = NULL;
    cr_assert(sa_result_same(imp, tg, &why), "%s differ", why);
    sa_method_info mi;
    sa_result_method(tg, &mi);
    cr_assert_gt(mi.blocks, 1);
    cr_assert_gt(mi.blocks_tight, 0);
    long n;
    sa_result *r = by_blocks_until_allocations_suffice(m, SIZE_MAX, &n);
    cr_assert_gt(n, 20, "the failures reached inside the rounds");
    cr_assert(sa_result_same(imp, r, &why), "%s differ", why);
    sa_result_free(r);
    cr_assert_gt(by_blocks_until_not_cancelled(m, SIZE_MAX), 3);
    sa_result_free(tg);
    sa_result_free(imp);
    mel_model_free(m);
}

Test(sa_analyze, allocation_failures_by_blocks_return_nomem_and_leak_nothing)
{
    mel_model *m = parse_text(three_blocks);
    sa_result *imp = NULL;
    cr_assert_eq(analyze_with(m, SA_METHOD_IMPLICIT, NULL, NULL, &imp), MDAE_OK);
    long n;
    sa_result *r = by_blocks_until_allocations_suffice(m, 0, &n);
    cr_assert_gt(n, 20, "the failures reached inside the blocks");
    const char *why = NULL;
    cr_assert(sa_result_same(imp, r, &why), "%s differ", why);
    sa_result_free(r);
    sa_result_free(imp);
    mel_model_free(m);
}

Test(sa_analyze, cancellation_and_node_limits_by_blocks_fail_cleanly)
{
    mel_model *m = parse_text(three_blocks);
    long k = by_blocks_until_not_cancelled(m, 0);
    cr_assert_gt(k, 3, "the checkpoints inside the blocks cancel too");
    int limited = 0, ok = 0;
    for (size_t lim = 8; lim <= (1u << 16); lim *= 2) {
        cr_assert_eq(sa_set_node_limit(lim), MDAE_OK);
        sa_result *r = NULL;
        int rc = analyze_with(m, SA_METHOD_BLOCKS, NULL, NULL, &r);
        cr_assert(rc == MDAE_OK || rc == MDAE_E_BDD_LIMIT, "limit %zu: %s", lim,
                  mdae_err_name(rc));
        limited += rc == MDAE_E_BDD_LIMIT;
        ok += rc == MDAE_OK;
        sa_result_free(r);
    }
    cr_assert_eq(sa_set_node_limit(0), MDAE_OK);
    cr_expect_gt(limited, 0);
    cr_expect_gt(ok, 0);
    mel_model_free(m);
}

/* The first random model (the reference's generator) that the blocks path,
 * each block solved implicitly to its end, analyses with a block's
 * singular modes' maximum matchings by cofactors and the diagnostics by
 * blocks (engine/sa_maxmatch.c); NULL if none of the first 300. */
static mel_model *model_with_max_matchings_by_cofactors(void)
{
    ref_random_opts o = {.max_modes = 8, .max_equations = 16, .nonsquare_percent = 20};
    for (uint64_t s = 1; s <= 300; s++) {
        char *text = ref_random_model(s, &o);
        cr_assert_not_null(text);
        mel_model *m = parse_text(text);
        mdae_free(text);
        sa_result *r = NULL;
        sa_method_info mi = {0};
        if (analyze_by_blocks(m, 50000000, NULL, NULL, &r) == MDAE_OK)
            sa_result_method(r, &mi);
        sa_result_free(r);
        if (mi.max_by_cofactors > 0 && mi.dm_by_blocks)
            return m;
        mel_model_free(m);
    }
    return NULL;
}

Test(sa_analyze, maximum_matchings_by_cofactors_fail_cleanly_and_agree_with_the_implicit_path)
{
    mel_model *m = model_with_max_matchings_by_cofactors();
    cr_assert_not_null(m, "some random model takes that path");
    sa_result *imp = NULL;
    cr_assert_eq(analyze_with(m, SA_METHOD_IMPLICIT, NULL, NULL, &imp), MDAE_OK);
    long n;
    sa_result *r = by_blocks_until_allocations_suffice(m, 50000000, &n);
    const char *why = NULL;
    cr_assert(sa_result_same(imp, r, &why), "%s differ", why);
    sa_result_free(r);
    cr_assert_gt(by_blocks_until_not_cancelled(m, 50000000), 3);
    sa_result_free(imp);
    mel_model_free(m);
}

/* Offsets learned from sampled modes (engine/sa_tight.c): the brake's
 * offsets change railcar by railcar, so the probes disagree, but each
 * equation's offset depends only on the valve of its railcar; one table per
 * equation gives offsets for every mode, whose tight graphs solve the
 * brake's large block without its perfect matchings. The result is the
 * implicit primal's (the dynamic programme over them), also when the
 * analysis is cancelled at every checkpoint first (ASan: no leak). The
 * building's block offsets are local at distance two (rte[i] on open[i],
 * through rtm[i] and dop[i]): at N = 20 they are learned with keys chosen
 * among the candidates (issue 40); at N = 6 the probes agree or the old
 * way is taken, the same. */
Test(sa_analyze, offsets_learned_from_samples_give_the_cold_result)
{
    static const struct {
        const char *file;
        long n;
        bool learned;
    } cases[] = {{"brake.mel", 30, true}, {"brake.mel", 45, true},
                 {"building_compressible.mel", 6, false},
                 {"building_compressible.mel", 20, true}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mel_model *m = parse_file(cases[k].file, cases[k].n);
        sa_result *imp = NULL, *aut = NULL;
        cr_assert_eq(analyze_with(m, SA_METHOD_IMPLICIT, NULL, NULL, &imp), MDAE_OK);
        cr_assert_eq(analyze_with(m, SA_METHOD_AUTO, NULL, NULL, &aut), MDAE_OK);
        const char *why = NULL;
        cr_assert(sa_result_same(imp, aut, &why), "%s N=%ld: %s differ", cases[k].file,
                  cases[k].n, why);
        sa_method_info mi;
        sa_result_method(aut, &mi);
        cr_assert_eq(mi.blocks_learned > 0, cases[k].learned, "%s N=%ld: %u blocks learned",
                     cases[k].file, cases[k].n, mi.blocks_learned);
        sa_result_free(aut);
        if (k == 0) {
            long calls = 0;
            int rc = MDAE_E_CANCELED;
            for (long at = 0; at < 100000 && rc == MDAE_E_CANCELED; at++, calls++) {
                long left = at;
                sa_result *r = NULL;
                rc = analyze_with(m, SA_METHOD_AUTO, cancel_at_call, &left, &r);
                if (rc == MDAE_OK)
                    cr_assert(sa_result_same(imp, r, &why), "after cancellations: %s", why);
                else
                    cr_assert_null(r);
                sa_result_free(r);
            }
            cr_assert_eq(rc, MDAE_OK);
            cr_assert_gt(calls, 3);
        }
        sa_result_free(imp);
        mel_model_free(m);
    }
}

/* ---- Where the mode variables only invariants name go ---------------------
 * n pairs (a_k, b_k) of mode variables; the rows read only b (x_k's
 * equation e_k when b_k, f_k when !b_k), one invariant reads both: some
 * a_k differs from b_k, as in the later instants' pair models of mode
 * changes (engine/mc_pairs.c). With a above every b the invariant alone
 * takes 2^n nodes (n = 18 here); each a_k placed next to b_k (sa_encode.c,
 * find_partners) keeps it linear. */
#define PAIRS_N 18
typedef struct pairs_model {
    mel_model m;
    mel_mode modes[2 * PAIRS_N];
    mel_variable vars[PAIRS_N];
    mel_equation eqs[2 * PAIRS_N];
    mel_incidence incs[2 * PAIRS_N];
    mel_order_case cases[2 * PAIRS_N];
    mel_invariant inv;
    mel_guard g[8 * PAIRS_N];
    int ng;
    char names[4 * PAIRS_N][8];
} pairs_model;

static const mel_guard *pm_g(pairs_model *p, mel_guard_op op, uint32_t var, const mel_guard *l,
                             const mel_guard *r)
{
    mel_guard *g = &p->g[p->ng++];
    *g = (mel_guard){op, var, l, r};
    return g;
}

static void pairs_model_build(pairs_model *p)
{
    memset(p, 0, sizeof *p);
    const mel_guard *differ = NULL;
    for (uint32_t k = 0; k < PAIRS_N; k++) {
        snprintf(p->names[4 * k], 8, "a%u", k);
        snprintf(p->names[4 * k + 1], 8, "b%u", k);
        snprintf(p->names[4 * k + 2], 8, "x%u", k);
        snprintf(p->names[4 * k + 3], 8, "e%u", k);
        p->modes[2 * k] = (mel_mode){.name = p->names[4 * k], .reads_var = -1};
        p->modes[2 * k + 1] = (mel_mode){.name = p->names[4 * k + 1], .reads_var = -1};
        const mel_guard *a = pm_g(p, MEL_G_VAR, 2 * k, NULL, NULL);
        const mel_guard *b = pm_g(p, MEL_G_VAR, 2 * k + 1, NULL, NULL);
        const mel_guard *nb = pm_g(p, MEL_G_NOT, 0, b, NULL);
        const mel_guard *na = pm_g(p, MEL_G_NOT, 0, a, NULL);
        const mel_guard *x = pm_g(p, MEL_G_OR, 0, pm_g(p, MEL_G_AND, 0, a, nb),
                                  pm_g(p, MEL_G_AND, 0, na, b));
        differ = differ == NULL ? x : pm_g(p, MEL_G_OR, 0, differ, x);
        p->vars[k] = (mel_variable){.name = p->names[4 * k + 2], .guard = &g_true};
        for (int side = 0; side < 2; side++) {
            uint32_t q = 2 * k + (uint32_t)side;
            const mel_guard *when = side == 0 ? b : nb;
            p->cases[q] = (mel_order_case){.guard = when, .order = 0};
            p->incs[q] = (mel_incidence){k, 1, &p->cases[q]};
            p->eqs[q] = (mel_equation){.name = p->names[4 * k + 3], .guard = when,
                                       .n_incs = 1, .incs = &p->incs[q]};
        }
    }
    p->inv = (mel_invariant){.cond = differ};
    p->m.n_modes = 2 * PAIRS_N;
    p->m.modes = p->modes;
    p->m.n_variables = PAIRS_N;
    p->m.variables = p->vars;
    p->m.n_equations = 2 * PAIRS_N;
    p->m.equations = p->eqs;
    p->m.n_edges = 2 * PAIRS_N;
    p->m.n_invariants = 1;
    p->m.invariants = &p->inv;
}

Test(sa_analyze, mode_variables_only_invariants_name_sit_next_to_their_partners)
{
    pairs_model *p = malloc(sizeof *p);
    cr_assert_not_null(p);
    pairs_model_build(p);
    sa_result *r = NULL;
    cr_assert_eq(analyze_with(&p->m, SA_METHOD_IMPLICIT, NULL, NULL, &r), MDAE_OK);
    /* every pair but a = b: 4^n - 2^n valid modes, all nonsingular */
    double n4 = 1, n2 = 1;
    for (int k = 0; k < PAIRS_N; k++)
        n4 *= 4, n2 *= 2;
    cr_expect_eq(sa_result_valid_modes(r), n4 - n2);
    cr_expect(!sa_result_singular(r));
    /* linear, not 2^18: a few thousand nodes (the node limit before) */
    cr_expect_lt(sa_result_peak_nodes(r), 50000, "%zu peak nodes",
                 sa_result_peak_nodes(r));
    sa_result_free(r);
    free(p);
}

/* ---- A cancel seen inside one long BDD operation ----------------------------
 * Modes a_k, b_k, c_k (k < n); x_k's equations read b_k, then y_k's read
 * c_k; the invariants "a differs from b" and "a differs from c". Each a_k
 * sits next to b_k (its first partner), so the second invariant carries
 * every a_k past the b's: 2^n nodes, built in the encoding, between two of
 * its checkpoints. The progress callback is also called after each garbage
 * collection with the last checkpoint's phase, done and total (sa.h): the
 * first such repeated call cancels, inside "encode". */
#define TRIPLES_N 14
typedef struct triples_model {
    mel_model m;
    mel_mode modes[3 * TRIPLES_N];
    mel_variable vars[2 * TRIPLES_N];
    mel_equation eqs[4 * TRIPLES_N];
    mel_incidence incs[4 * TRIPLES_N];
    mel_order_case cases[4 * TRIPLES_N];
    mel_invariant inv[2];
    mel_guard g[24 * TRIPLES_N];
    int ng;
    char names[7 * TRIPLES_N][8];
} triples_model;

static const mel_guard *tm_g(triples_model *t, mel_guard_op op, uint32_t var,
                             const mel_guard *l, const mel_guard *r)
{
    mel_guard *g = &t->g[t->ng++];
    *g = (mel_guard){op, var, l, r};
    return g;
}

static const mel_guard *tm_xor(triples_model *t, const mel_guard *a, const mel_guard *b)
{
    return tm_g(t, MEL_G_OR, 0, tm_g(t, MEL_G_AND, 0, a, tm_g(t, MEL_G_NOT, 0, b, NULL)),
                tm_g(t, MEL_G_AND, 0, tm_g(t, MEL_G_NOT, 0, a, NULL), b));
}

static void triples_model_build(triples_model *t)
{
    memset(t, 0, sizeof *t);
    const uint32_t n = TRIPLES_N;
    const mel_guard *ab = NULL, *ac = NULL;
    for (uint32_t k = 0; k < n; k++) {
        const mel_guard *v[3];
        for (uint32_t q = 0; q < 3; q++) { /* a_k, b_k, c_k: modes k, n + k, 2n + k */
            char *nm = t->names[q * n + k];
            snprintf(nm, 8, "%c%u", "abc"[q], k);
            t->modes[q * n + k] = (mel_mode){.name = nm, .reads_var = -1};
            v[q] = tm_g(t, MEL_G_VAR, q * n + k, NULL, NULL);
        }
        const mel_guard *x = tm_xor(t, v[0], v[1]), *y = tm_xor(t, v[0], v[2]);
        ab = ab == NULL ? x : tm_g(t, MEL_G_OR, 0, ab, x);
        ac = ac == NULL ? y : tm_g(t, MEL_G_OR, 0, ac, y);
        for (uint32_t w = 0; w < 2; w++) { /* x_k (w = 0, reads b_k), y_k (c_k) */
            uint32_t var = w * n + k;
            char *vn = t->names[3 * n + var];
            snprintf(vn, 8, "%c%u", "xy"[w], k);
            t->vars[var] = (mel_variable){.name = vn, .guard = &g_true};
            for (uint32_t side = 0; side < 2; side++) {
                uint32_t q = 2 * var + side;
                const mel_guard *when = side == 0 ? v[1 + w] : tm_g(t, MEL_G_NOT, 0, v[1 + w], NULL);
                t->cases[q] = (mel_order_case){.guard = when, .order = 0};
                t->incs[q] = (mel_incidence){var, 1, &t->cases[q]};
                t->eqs[q] = (mel_equation){.name = vn, .guard = when, .n_incs = 1,
                                           .incs = &t->incs[q]};
            }
        }
    }
    t->inv[0] = (mel_invariant){.cond = ab};
    t->inv[1] = (mel_invariant){.cond = ac};
    t->m = (mel_model){.n_modes = 3 * n, .modes = t->modes, .n_variables = 2 * n,
                       .variables = t->vars, .n_equations = 4 * n, .equations = t->eqs,
                       .n_edges = 4 * n, .n_invariants = 2, .invariants = t->inv};
}

typedef struct repeat_watch {
    const char *phase, *cancelled_in;
    size_t done, total;
    long calls;
} repeat_watch;

static int cancel_on_repeat(void *ctx, const char *phase, size_t done, size_t total)
{
    repeat_watch *w = ctx;
    bool again = w->calls++ > 0 && phase == w->phase && done == w->done && total == w->total;
    w->phase = phase;
    w->done = done;
    w->total = total;
    if (again)
        w->cancelled_in = phase;
    return again;
}

Test(sa_analyze, a_cancel_is_seen_inside_one_long_bdd_operation)
{
    triples_model *t = malloc(sizeof *t);
    cr_assert_not_null(t);
    triples_model_build(t);
    repeat_watch w = {0};
    sa_result *r = NULL;
    cr_assert_eq(analyze_with(&t->m, SA_METHOD_IMPLICIT, cancel_on_repeat, &w, &r),
                 MDAE_E_CANCELED, "%ld calls, none repeated", w.calls);
    cr_assert_null(r);
    cr_expect_str_eq(w.cancelled_in, "encode");
    free(t);
    /* and the manager is fine afterwards */
    pairs_model *p = malloc(sizeof *p);
    cr_assert_not_null(p);
    pairs_model_build(p);
    cr_assert_eq(analyze_with(&p->m, SA_METHOD_IMPLICIT, NULL, NULL, &r), MDAE_OK);
    cr_expect(!sa_result_singular(r));
    sa_result_free(r);
    free(p);
}

/* ---- The singular modes through the covering matchings (issue 41, Speed) ---
 * sa_options.singular_by_covering: the perfect matchings' existence read
 * off the matchings that cover every variable, which the result keeps for
 * sa_result_left_out. The same singular modes and the same left-out sets
 * as the existence alone, on random models with singular modes; the
 * covering matchings' nodes count against the greedy's budget. */

/* r's left-out sets, every equation once in order (self-checked). */
static int left_out_of(const sa_result *r, const mel_model *m, size_t budget, sa_set *sets,
                       double *counts)
{
    sa_greedy_step *steps = calloc(m->n_equations + 1, sizeof *steps);
    cr_assert_not_null(steps);
    for (uint32_t i = 0; i < m->n_equations; i++)
        steps[i] = (sa_greedy_step){i, &g_true};
    sa_options o = {.method = SA_METHOD_IMPLICIT, .implicit_budget = budget, .self_check = true};
    int rc = sa_result_left_out(r, steps, m->n_equations, &o, 0, sets, counts, NULL);
    free(steps);
    return rc;
}

Test(sa_analyze, singular_modes_through_the_covering_matchings_are_the_same)
{
    ref_random_opts ro = {.max_modes = 6, .max_equations = 12, .nonsquare_percent = 30};
    int kept = 0, limited = 0;
    for (uint64_t s = 1; s <= 80; s++) {
        char *text = ref_random_model(s, &ro);
        cr_assert_not_null(text);
        mel_model *m = parse_text(text);
        mdae_free(text);
        sa_options alone = {.method = SA_METHOD_IMPLICIT, .singular_only = true};
        sa_options through = alone;
        through.singular_by_covering = true;
        sa_result *a = NULL, *b = NULL;
        cr_assert_eq(sa_analyze(m, &alone, &a, NULL), MDAE_OK, "seed %llu", (unsigned long long)s);
        cr_assert_eq(sa_analyze(m, &through, &b, NULL), MDAE_OK);
        cr_assert(!a->covering_known);
        cr_assert(b->covering_known, "seed %llu: the covering matchings are kept",
                  (unsigned long long)s);
        kept++;
        cr_assert_eq(a->ok, b->ok, "seed %llu: the same nonsingular modes", (unsigned long long)s);
        cr_assert_eq(a->singular, b->singular);
        uint32_t n = m->n_equations;
        sa_set *sa = calloc(n + 1, sizeof *sa), *sb = calloc(n + 1, sizeof *sb);
        double *ca = calloc(n + 1, sizeof *ca), *cb = calloc(n + 1, sizeof *cb);
        cr_assert(sa && sb && ca && cb);
        cr_assert_eq(left_out_of(a, m, 0, sa, ca), MDAE_OK);
        cr_assert_eq(left_out_of(b, m, 0, sb, cb), MDAE_OK);
        for (uint32_t i = 0; i < n; i++) {
            cr_assert_eq(ca[i], cb[i], "seed %llu, equation %u", (unsigned long long)s, i);
            cr_assert_str_eq(sa[i].formula ? sa[i].formula : "", sb[i].formula ? sb[i].formula : "");
            sa_set_close(&sa[i]);
            sa_set_close(&sb[i]);
        }
        /* A budget below what the covering matchings took: the limit, as
         * when sa_result_left_out built them itself. */
        if (b->covering_produced > 1) {
            cr_assert_eq(left_out_of(b, m, b->covering_produced, sb, cb), MDAE_E_LIMIT);
            limited++;
        }
        free(sa);
        free(sb);
        free(ca);
        free(cb);
        sa_result_free(a);
        sa_result_free(b);
        mel_model_free(m);
    }
    cr_assert_gt(kept, 0);
    cr_assert_gt(limited, 0);
}

/* ---- The left-out sets poll the cancel to their end ------------------------
 * After the greedy's last step, sa_result_left_out still walks every row
 * twice (where it is left out, then its set and size): at the brake's
 * N = 3,000 that was 3 s without a poll, during which the editor's cancel
 * (past its 1 s budget, or a newer edit) waited. Each row polls now. */

typedef struct after_steps {
    size_t n_steps;
    bool past_last; /* the last step's checkpoint seen */
    long polls;     /* the calls after it */
    bool cancel;    /* answer the first of them with a cancel */
} after_steps;

static int count_after_steps(void *ctx, const char *phase, size_t done, size_t total)
{
    after_steps *a = ctx;
    if (a->past_last) {
        a->polls++;
        return a->cancel;
    }
    a->past_last = strcmp(phase, "greedy") == 0 && total == a->n_steps && done + 1 == total;
    return 0;
}

static int left_out_watched(const sa_result *r, const mel_model *m, after_steps *a)
{
    sa_greedy_step *steps = calloc(m->n_equations + 1, sizeof *steps);
    sa_set *sets = calloc(m->n_equations + 1, sizeof *sets);
    double *counts = calloc(m->n_equations + 1, sizeof *counts);
    cr_assert(steps && sets && counts);
    for (uint32_t i = 0; i < m->n_equations; i++)
        steps[i] = (sa_greedy_step){i, &g_true};
    a->n_steps = m->n_equations;
    sa_options o = {.method = SA_METHOD_IMPLICIT, .progress = count_after_steps,
                    .progress_ctx = a};
    int rc = sa_result_left_out(r, steps, m->n_equations, &o, 0, sets, counts, NULL);
    for (uint32_t i = 0; rc == MDAE_OK && i < m->n_equations; i++)
        sa_set_close(&sets[i]);
    free(steps);
    free(sets);
    free(counts);
    return rc;
}

Test(sa_analyze, the_left_out_sets_poll_the_cancel_after_the_last_step_row_by_row)
{
    ref_random_opts ro = {.max_modes = 6, .max_equations = 12, .nonsquare_percent = 30};
    int tried = 0;
    for (uint64_t s = 1; s <= 40 && tried < 5; s++) {
        char *text = ref_random_model(s, &ro);
        cr_assert_not_null(text);
        mel_model *m = parse_text(text);
        mdae_free(text);
        sa_result *r = NULL;
        cr_assert_eq(analyze_with(m, SA_METHOD_IMPLICIT, NULL, NULL, &r), MDAE_OK);
        if (sa_result_singular(r) && m->n_equations >= 2) {
            tried++;
            after_steps a = {0};
            cr_assert_eq(left_out_watched(r, m, &a), MDAE_OK);
            cr_assert(a.past_last, "seed %llu: the last step's checkpoint", (unsigned long long)s);
            cr_assert_geq(a.polls, (long)m->n_equations,
                          "seed %llu: %ld polls after the last step for %zu rows",
                          (unsigned long long)s, a.polls, (size_t)m->n_equations);
            after_steps c = {.cancel = true};
            cr_assert_eq(left_out_watched(r, m, &c), MDAE_E_CANCELED, "seed %llu",
                         (unsigned long long)s);
            cr_assert_eq(c.polls, 1);
        }
        sa_result_free(r);
        mel_model_free(m);
    }
    cr_assert_eq(tried, 5);
}

/* ---- The block memo's bound (engine/sa_memo.c) ---------------------------- */

/* The memo's table compares the high halves of the hashes in its slots
 * before it reads an entry (sa_memo.c, find): thousands of keys, added
 * through several growths of the table, are each found with their own
 * value; a key added again keeps its first value; keys never added are
 * not found. */
Test(sa_analyze, block_memo_finds_each_key)
{
    enum { KEYS = 5000 };
    sa_ctx *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    sa__bmemo *m = sa__bmemo_new(10 * KEYS);
    cr_assert_not_null(m);
    const BDD funs[] = {bddtrue};
    sa__ctx_init(c, NULL, NULL);
    if (setjmp(c->jb))
        cr_assert_fail("the memo failed: %s", mdae_err_name(c->rc));
    sa__enter(c);
    for (int32_t i = 0; i < KEYS; i++) {
        int32_t shape[] = {SA_BMEMO_SCC, i}, d[] = {3 * i + 1};
        sa__bmemo_add(c, m, &(sa__bkey){shape, 2, funs, 1},
                      &(sa__mval){.d = d, .n_d = 1, .modes = bddtrue});
        int32_t again[] = {-i};
        sa__bmemo_add(c, m, &(sa__bkey){shape, 2, funs, 1},
                      &(sa__mval){.d = again, .n_d = 1, .modes = bddtrue});
    }
    sa__leave(c);
    for (int32_t i = 0; i < 2 * KEYS; i++) {
        int32_t shape[] = {SA_BMEMO_SCC, i};
        sa__mval got = {0};
        bool found = sa__bmemo_find(m, &(sa__bkey){shape, 2, funs, 1}, &got);
        cr_assert_eq(found, i < KEYS, "key %d: found %d", i, found);
        if (found) {
            cr_assert_eq(got.n_d, 1);
            cr_assert_eq(got.d[0], 3 * i + 1, "key %d: value %d", i, got.d[0]);
        }
    }
    sa__bmemo_free(m);
    free(c);
}

/* An entry larger than the fixed bound (SA_BMEMO_MAX_INTS words) is kept by
 * the memo of a result with enough equations (SA_BMEMO_INTS_PER_EQ each),
 * refused by a small one: at the brake's N = 10,000 the fixed bound left
 * 14,479 of 40,004 union-SCCs to be split again after every edit. */
Test(sa_analyze, block_memo_bound_follows_the_equations)
{
    size_t n = SA_BMEMO_MAX_INTS + 16;
    int32_t *d = calloc(n, sizeof *d);
    cr_assert_not_null(d);
    static const int32_t shape[] = {SA_BMEMO_SCC, 7};
    const BDD funs[] = {bddtrue};
    sa__bkey k = {shape, 2, funs, 1};
    sa__mval v = {.d = d, .n_d = n, .modes = bddtrue};
    size_t eqs[] = {10, 2 * SA_BMEMO_MAX_INTS / SA_BMEMO_INTS_PER_EQ};
    sa_ctx *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    for (int t = 0; t < 2; t++) {
        sa__bmemo *m = sa__bmemo_new(eqs[t]);
        cr_assert_not_null(m);
        sa__ctx_init(c, NULL, NULL);
        if (setjmp(c->jb))
            cr_assert_fail("the memo failed: %s", mdae_err_name(c->rc));
        sa__enter(c);
        sa__bmemo_add(c, m, &k, &v);
        sa__leave(c);
        sa__mval got = {0};
        bool kept = sa__bmemo_find(m, &k, &got);
        cr_assert_eq(kept, t == 1, "%zu equations: kept %d", eqs[t], kept);
        if (kept)
            cr_assert_eq(got.n_d, n);
        sa__bmemo_free(m);
    }
    free(c);
    free(d);
}
