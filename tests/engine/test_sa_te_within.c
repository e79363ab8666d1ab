/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_te_within.c -- what keeping a result's te, c and d
 * in the form within its valid modes ok (issue 40, sa_int.h's "r->te's
 * readers") rests on, checked on whole analyses:
 * - each exact function f (te[e] through sa__te, every bit of c and d) is
 *   false out of ok: f = simplify(f, ok) & ok, so the within form loses
 *   nothing and sa__te can give the exact function back by one
 *   conjunction;
 * - sa__within_simplify(f), made without the chain f & ok, is that very
 *   node simplify(f, ok) (the canonical form: it depends on f & ok alone,
 *   so two results with the same ok compare their within forms by handle
 *   as they compare the exact ones);
 * - sa__te_never(e) is whether the within form is false, sa__te_always(e)
 *   whether it is true and ok is every mode, sa__te_in_ok(e) is it;
 * - on the compressible building, where ok is a chain through every room
 *   and the exact te, c, d hold about 2 N^2 nodes, the within forms hold
 *   about 2 N (the nodes step 2 would keep; docs/figures.md, h-bldg15).
 */
#include <criterion/criterion.h>

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "cdg_int.h"
#include "mel.h"
#include "sa.h"
#include "sa_enter.h"
#include "sa_int.h"
#include "sm.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(sa_te_within, .init = begin, .fini = end, .timeout = 300);

static sa_result *analyse_file(const char *name, long long n, mel_model **m)
{
    *m = tm_parse_file_n(name, n);
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(*m, NULL, &r, NULL), MDAE_OK, "%s", name);
    return r;
}

/* The model analysed twice, first with *old_path set (the slow path a
 * switch such as sa__edge_modes_exact selects) into *x, then without it
 * into *w; the switch is left false. */
static void analyse_both_paths(const char *name, long long n, bool *old_path, sa_result **x,
                               mel_model **mx, sa_result **w, mel_model **mw)
{
    *old_path = true;
    *x = analyse_file(name, n, mx);
    *old_path = false;
    *w = analyse_file(name, n, mw);
}

static void free_both(sa_result *x, mel_model *mx, sa_result *w, mel_model *mw)
{
    sa_result_free(w);
    sa_result_free(x);
    mel_model_free(mw);
    mel_model_free(mx);
}

/* f's within form into *w (a slot), after checking the claims above. */
static void within_of(sa_ctx *c, const sa__within *wok, BDD ok, BDD f, BDD *w, const char *what,
                      size_t k)
{
    sa__put(w, sa__simplify(f, ok));
    cr_assert_eq(sa__and(*w, ok), f, "%s %zu: not false out of ok", what, k);
    size_t mark = sa__mark(c);
    cr_assert_eq(sa__within_simplify(c, wok, f), *w, "%s %zu: not the canonical form", what, k);
    sa__release(c, mark);
}

/* The checks on r; the nodes of the exact and within forms of te, c, d. */
static void check_result(const sa_result *r, const char *name, int *exact, int *within)
{
    ENTER(c);
    size_t ne = r->n_edges, nc = (size_t)r->n_eq * r->w_off, nd = (size_t)r->n_var * r->w_off;
    size_t n = ne + nc + nd;
    BDD *ex = sa__slots(c, n + 1), *w = sa__slots(c, n + 1);
    sa__within wok;
    sa__within_init(c, r->ok, &wok);
    for (size_t e = 0; e < ne; e++) {
        sa__put(&ex[e], sa__te(c, r, e));
        within_of(c, &wok, r->ok, ex[e], &w[e], name, e);
        cr_assert_eq(sa__te_never(r, e), w[e] == bddfalse, "%s te %zu: never", name, e);
        cr_assert_eq(sa__te_always(r, e), w[e] == bddtrue && r->ok == bddtrue, "%s te %zu", name,
                     e);
        cr_assert_eq(sa__te_in_ok(r, e), w[e], "%s te %zu: in ok", name, e);
    }
    for (size_t k = 0; k < nc; k++) { /* the exact bits, whatever the stored form */
        sa__put(&ex[ne + k], sa__off_bit(c, r, sa__c_stored(r), (int)k));
        within_of(c, &wok, r->ok, ex[ne + k], &w[ne + k], name, k);
        cr_assert_eq(sa__off_in_ok(r, sa__c_stored(r), (int)k), w[ne + k], "%s c %zu", name, k);
    }
    for (size_t k = 0; k < nd; k++) {
        sa__put(&ex[ne + nc + k], sa__off_bit(c, r, sa__d_stored(r), (int)k));
        within_of(c, &wok, r->ok, ex[ne + nc + k], &w[ne + nc + k], name, k);
        cr_assert_eq(sa__off_in_ok(r, sa__d_stored(r), (int)k), w[ne + nc + k], "%s d %zu", name,
                     k);
    }
    *exact = bdd_anodecount(ex, (int)n);
    *within = bdd_anodecount(w, (int)n);
    leave(c);
}

Test(sa_te_within, models_and_building)
{
    static const struct {
        const char *name;
        long long n;
    } cases[] = {
        {"building_compressible.mel", 40}, {"building_incompressible.mel", 4},
        {"brake.mel", 30},                 {"clutch.mel", -1},
        {"cup_and_ball.mel", -1},          {"rldc_parallel.mel", 4},
        {"rldc_chain.mel", 4},             {"water_tank.mel", -1},
        {"singular_simple.mel", -1},       {"ground_contact.mel", -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mel_model *m = NULL;
        sa_result *r = analyse_file(cases[k].name, cases[k].n, &m);
        int exact = 0, within = 0;
        check_result(r, cases[k].name, &exact, &within);
        cr_assert_leq(within, exact, "%s", cases[k].name);
        if (k == 0) { /* the building at N = 40: ok a chain of 2N + 1 nodes */
            cr_assert_eq(bdd_nodecount(r->ok), 81);
            cr_assert_geq(exact, 40 * 40, "the exact forms copy the chain: %d", exact);
            cr_assert_leq(within, 4 * 40, "the within forms are local: %d", within);
        }
        sa_result_free(r);
        mel_model_free(m);
    }
}

/* r's te turned into the within forms in place (te_within set), as a
 * writer keeping them would leave it. */
static void store_within(sa_result *r)
{
    for (size_t e = 0; e < r->n_edges; e++) {
        BDD w = bdd_addref(sa__simplify(r->te[e], r->ok));
        bdd_delref(r->te[e]);
        r->te[e] = w;
    }
    r->te_within = true;
}

/* Every accessor of "r->te's readers" on w (te stored within ok) gives what
 * it gives on x (the same result with its exact te), and the comparisons
 * across the two forms find them the same. */
static void check_within_reads(sa_ctx *c, const sa_result *x, const sa_result *w, const char *name)
{
    const char *why = NULL;
    cr_assert(sa_result_same(x, w, &why), "%s: %s", name, why != NULL ? why : "");
    cr_assert(sa_result_same(w, x, &why), "%s: %s", name, why != NULL ? why : "");
    cr_assert(!sa__te_comparable(x, w) && sa__te_comparable(w, w), "%s", name);
    bool *mode = calloc((size_t)x->n_modes + 1, 1);
    uint64_t s = 88172645463325252ull;
    for (size_t e = 0; e < x->n_edges; e++) {
        size_t mark = sa__mark(c);
        cr_assert_eq(sa__te(c, w, e), x->te[e], "%s te %zu", name, e);
        cr_assert_eq(sa__te_never(w, e), sa__te_never(x, e), "%s te %zu", name, e);
        cr_assert_eq(sa__te_always(w, e), sa__te_always(x, e), "%s te %zu", name, e);
        cr_assert_eq(sa__te_in_ok(w, e), sa__te_in_ok(x, e), "%s te %zu", name, e);
        cr_assert(sa__te_same(w, e, x, e) && sa__te_same(x, e, w, e), "%s te %zu", name, e);
        size_t f = (e * 7 + 3) % x->n_edges;
        cr_assert_eq(sa__te_same(w, e, x, f), x->te[e] == x->te[f], "%s te %zu %zu", name, e, f);
        cr_assert_eq(sa__te_same(w, e, w, f), x->te[e] == x->te[f], "%s te %zu %zu", name, e, f);
        for (int k = 0; k < 4; k++) { /* some modes, valid or not */
            for (uint32_t q = 0; q < x->n_modes; q++) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                mode[q] = s & 1;
            }
            cr_assert_eq(sa__te_at(x, w, e, mode), sa__te_at(x, x, e, mode), "%s te %zu", name,
                         e);
        }
        sa__release(c, mark);
    }
    free(mode);
}

/* r's te stored within ok (left so; the analysis may have stored it so),
 * checked against its exact te. */
static void check_stored_within(sa_result *r, const char *name)
{
    ENTER(c);
    BDD *exact = sa__slots(c, r->n_edges + 1);
    for (size_t e = 0; e < r->n_edges; e++)
        sa__put(&exact[e], sa__te(c, r, e));
    sa_result x = *r; /* a view of r with the exact te: not freed */
    x.te = exact;
    x.te_within = false;
    if (!r->te_within)
        store_within(r);
    check_within_reads(c, &x, r, name);
    leave(c);
}

Test(sa_te_within, stored_within_reads_as_exact)
{
    static const struct {
        const char *name;
        long long n;
    } cases[] = {
        {"building_compressible.mel", 12}, {"building_incompressible.mel", 4},
        {"brake.mel", 8},                  {"clutch.mel", -1},
        {"rldc_parallel.mel", 4},          {"ground_contact.mel", -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mel_model *m = NULL;
        sa_result *r = analyse_file(cases[k].name, cases[k].n, &m);
        check_stored_within(r, cases[k].name);
        sa_result_free(r);
        mel_model_free(m);
    }
}

/* The analyses whose primal writes te within ok (sa__edge_modes, kept so
 * through tight_whole and the blocks: the compressible building's) give
 * the same result as with te exact everywhere (sa__edge_modes_exact), and
 * their te is within ok where the path applies. */
Test(sa_te_within, within_path_same_as_exact)
{
    static const struct {
        const char *name;
        long long n;
        bool within; /* the path applies */
    } cases[] = {
        {"building_compressible.mel", 40, true}, {"building_compressible.mel", 7, true},
        {"building_incompressible.mel", 6, false}, {"brake.mel", 30, false},
        {"clutch.mel", -1, false},                {"rldc_chain.mel", 4, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mel_model *m1 = NULL, *m2 = NULL;
        sa_result *x = NULL, *w = NULL;
        analyse_both_paths(cases[k].name, cases[k].n, &sa__edge_modes_exact, &x, &m1, &w, &m2);
        cr_assert(!x->te_within, "%s", cases[k].name);
        if (cases[k].within)
            cr_assert(w->te_within, "%s: the within path not taken", cases[k].name);
        const char *why = NULL;
        cr_assert(sa_result_same(x, w, &why), "%s: %s", cases[k].name, why != NULL ? why : "");
        int exact = 0, within = 0;
        check_result(w, cases[k].name, &exact, &within);
        free_both(x, m1, w, m2);
    }
}

/* sa__edge_modes without the chain of its dominators' contexts (issue 40:
 * ok_implies_contexts in place of ctx(D') & in(D), N^2 / 2 steps on the
 * compressible building) gives the same result as with the chain, and
 * takes the within path exactly where it did (with the switch set,
 * sa__edge_modes asserts that both checks agree at every call, the inner
 * primals of the tight rounds and the blocks included). */
Test(sa_te_within, edge_modes_without_chain_same)
{
    static const struct {
        const char *name;
        long long n;
    } cases[] = {
        {"building_compressible.mel", 40}, {"building_compressible.mel", 7},
        {"building_compressible.mel", 1},  {"building_incompressible.mel", 6},
        {"brake.mel", 30},                 {"clutch.mel", -1},
        {"rldc_chain.mel", 4},             {"singular_simple.mel", -1},
        {"ground_contact.mel", -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mel_model *m1 = NULL, *m2 = NULL;
        sa_result *x = NULL, *w = NULL;
        analyse_both_paths(cases[k].name, cases[k].n, &sa__edge_modes_chain, &x, &m1, &w, &m2);
        cr_assert_eq(x->te_within, w->te_within, "%s", cases[k].name);
        cr_assert_eq(x->ok, w->ok, "%s", cases[k].name);
        for (size_t e = 0; e < w->n_edges; e++)
            cr_assert_eq(x->te[e], w->te[e], "%s: te %zu", cases[k].name, e);
        const char *why = NULL;
        cr_assert(sa_result_same(x, w, &why), "%s: %s", cases[k].name, why != NULL ? why : "");
        cr_assert(sa_result_same(w, x, &why), "%s: %s", cases[k].name, why != NULL ? why : "");
        free_both(x, m1, w, m2);
    }
}

/* The union graph's maximum matching (sa_blocks.c: find_blocks and the
 * seeded rest's rest_matching) by breadth-first augmentation, issue 40's
 * fix of its quadratic depth-first paths on the compressible building,
 * gives the same analysis as Kuhn's depth-first search
 * (sm__max_matching_kuhn): the blocks are the fine Dulmage-Mendelsohn
 * decomposition, which any perfect matching gives. */
Test(sa_te_within, blocks_matching_same_as_kuhn)
{
    static const struct {
        const char *name;
        long long n;
    } cases[] = {
        {"building_compressible.mel", 40}, {"building_compressible.mel", 7},
        {"building_incompressible.mel", 6}, {"brake.mel", 30},
        {"clutch.mel", -1},                 {"rldc_chain.mel", 4},
        {"singular_simple.mel", -1},        {"ground_contact.mel", -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mel_model *m1 = NULL, *m2 = NULL;
        sa_result *x = NULL, *w = NULL;
        analyse_both_paths(cases[k].name, cases[k].n, &sm__max_matching_kuhn, &x, &m1, &w, &m2);
        const char *why = NULL;
        cr_assert(sa_result_same(x, w, &why), "%s: %s", cases[k].name, why != NULL ? why : "");
        cr_assert(sa_result_same(w, x, &why), "%s: %s", cases[k].name, why != NULL ? why : "");
        free_both(x, m1, w, m2);
    }
}

/* Two sets the same: formula and every cube's literals. */
static void same_set(const sa_set *x, const sa_set *y, uint32_t n_modes, const char *name,
                     const char *what, size_t k)
{
    if (x->formula == NULL || y->formula == NULL) { /* not computed */
        cr_assert(x->formula == y->formula, "%s: %s %zu", name, what, k);
        return;
    }
    cr_assert_str_eq(x->formula, y->formula, "%s: %s %zu", name, what, k);
    cr_assert_eq(x->n_cubes, y->n_cubes, "%s: %s %zu", name, what, k);
    for (size_t q = 0; q < x->n_cubes; q++)
        for (uint32_t v = 0; v < n_modes; v++)
            cr_assert_eq(sa_set_literal(x, q, v), sa_set_literal(y, q, v), "%s: %s %zu", name,
                         what, k);
}

static void same_items(const sa_item *x, const sa_item *y, size_t n, uint32_t n_modes,
                       const char *name)
{
    for (size_t k = 0; k < n; k++) {
        same_set(&x[k].active, &y[k].active, n_modes, name, "active", k);
        cr_assert_eq(x[k].n_offsets, y[k].n_offsets, "%s: item %zu offsets", name, k);
        for (size_t q = 0; q < x[k].n_offsets; q++) {
            cr_assert_eq(x[k].offsets[q].value, y[k].offsets[q].value, "%s: item %zu", name, k);
            same_set(&x[k].offsets[q].modes, &y[k].offsets[q].modes, n_modes, name, "offset",
                     k);
        }
    }
}

/* Whether the report of r takes its items' sets within ok (sa_report.c's
 * report_within, seen from outside: ok the valid modes, not constant, and
 * the care set split into factors). */
static bool report_takes_within(const sa_result *r)
{
    ENTER(c);
    sa__care cs;
    sa__care_init(c, r, r->chi_m, &cs);
    bool within = r->ok >= 2 && r->ok == r->chi_m && cs.n > 0;
    leave(c);
    return within;
}

/* The report whose items' sets are made within ok (sa_report.c: the
 * compressible building's) is the report made from the exact functions
 * (sa__report_exact), set by set; with the offsets only, too. */
Test(sa_te_within, report_within_same_as_exact)
{
    static const struct {
        const char *name;
        long long n;
        bool within; /* the path applies */
    } cases[] = {
        {"building_compressible.mel", 40, true}, {"building_compressible.mel", 7, true},
        {"building_incompressible.mel", 6, false}, {"brake.mel", 30, false},
        {"clutch.mel", -1, false},                {"rldc_chain.mel", 4, false},
        {"singular_simple.mel", -1, false},       {"ground_contact.mel", -1, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *name = cases[k].name;
        mel_model *m = NULL;
        sa_result *r = analyse_file(name, cases[k].n, &m);
        if (cases[k].within)
            cr_assert(report_takes_within(r), "%s: the within path not taken", name);
        for (int only = 0; only < 2; only++) {
            unsigned flags = SA_REPORT_VALID_CARE | (only ? SA_REPORT_OFFSETS_ONLY : 0);
            sa_report *x = NULL, *w = NULL;
            sa__report_exact = true;
            cr_assert_eq(sa_result_report_ex(r, flags, &x), MDAE_OK, "%s", name);
            sa__report_exact = false;
            cr_assert_eq(sa_result_report_ex(r, flags, &w), MDAE_OK, "%s", name);
            uint32_t nm = x->n_modes;
            same_set(&x->singular_modes, &w->singular_modes, nm, name, "singular", 0);
            cr_assert_eq(x->n_equations, w->n_equations, "%s", name);
            cr_assert_eq(x->n_variables, w->n_variables, "%s", name);
            same_items(x->equations, w->equations, x->n_equations, nm, name);
            same_items(x->variables, w->variables, x->n_variables, nm, name);
            cr_assert_eq(x->n_diagnostics, w->n_diagnostics, "%s", name);
            for (size_t q = 0; q < x->n_diagnostics; q++)
                same_set(&x->diagnostics[q].modes, &w->diagnostics[q].modes, nm, name,
                         "diagnostic", q);
            sa_report_free(w);
            sa_report_free(x);
        }
        sa_result_free(r);
        mel_model_free(m);
    }
}

/* Whether a & ok and b & ok are the same function. */
static bool same_on_ok(BDD a, BDD b, BDD ok)
{
    BDD x = bdd_addref(sa__and(a, ok));
    bool same = sa__and(b, ok) == x;
    bdd_delref(x);
    return same;
}

/* gx (its report x, made first) and gw, built from r, are the same graph:
 * the same blocks, items, edges and guards' sets. */
static void same_graphs(const cdg_graph *gx, const cdg_report *x, const cdg_graph *gw,
                        const sa_result *r, const char *name)
{
    cr_assert_eq(gx->n_blocks, gw->n_blocks, "%s: blocks", name);
    cr_assert_eq(gx->n_edges, gw->n_edges, "%s: edges", name);
    for (size_t q = 0; q < gx->n_blocks; q++) {
        const cdg_block *a = &gx->blocks[q], *b = &gw->blocks[q];
        cr_assert_eq(a->n_equations, b->n_equations, "%s: block %zu", name, q);
        cr_assert(same_on_ok(gx->bguard[q], gw->bguard[q], r->ok), "%s: block %zu guard",
                  name, q);
    }
    for (size_t q = 0; q < gx->n_edges; q++) {
        cr_assert(gx->efrom[q] == gw->efrom[q] && gx->eto[q] == gw->eto[q], "%s: edge %zu",
                  name, q);
        cr_assert(same_on_ok(gx->eguard[q], gw->eguard[q], r->ok), "%s: edge %zu guard",
                  name, q);
    }
    cdg_report *w = NULL;
    cr_assert_eq(cdg_graph_report(gw, &w), MDAE_OK, "%s", name);
    for (size_t q = 0; q < x->n_blocks; q++)
        same_set(&x->blocks[q].guard, &w->blocks[q].guard, r->n_modes, name, "block", q);
    for (size_t q = 0; q < x->n_edges; q++)
        same_set(&x->edges[q].guard, &w->edges[q].guard, r->n_modes, name, "edge", q);
    cdg_report_free(w);
}

/* The dependency graph built from chi_E within ok (cdg_build.c's
 * local_inputs, sa__within_simplify) is the one built from
 * bdd_simplify(chi_E, ok) (cdg__inputs_exact): the same blocks, items,
 * edges and guards' sets. */
Test(sa_te_within, graph_within_same_as_exact)
{
    static const struct {
        const char *name;
        long long n;
    } cases[] = {
        {"building_compressible.mel", 40}, {"building_compressible.mel", 7},
        {"building_incompressible.mel", 6}, {"brake.mel", 30},
        {"clutch.mel", -1},                 {"rldc_chain.mel", 4},
        {"ground_contact.mel", -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *name = cases[k].name;
        mel_model *m = NULL;
        sa_result *r = analyse_file(name, cases[k].n, &m);
        cdg_graph *gx = NULL, *gw = NULL;
        cdg__inputs_exact = true;
        cr_assert_eq(cdg_build(r, NULL, &gx, NULL), MDAE_OK, "%s", name);
        cdg__inputs_exact = false;
        cr_assert_eq(cdg_build(r, NULL, &gw, NULL), MDAE_OK, "%s", name);
        cdg_report *x = NULL;
        cr_assert_eq(cdg_graph_report(gx, &x), MDAE_OK, "%s", name);
        same_graphs(gx, x, gw, r, name);
        cdg_report_free(x);
        cdg_graph_free(gw);
        cdg_graph_free(gx);
        sa_result_free(r);
        mel_model_free(m);
    }
}

/* ---- c and d stored within ok (sa_int.h's "r->c's and r->d's readers") ---- */

/* r's c and d turned into the within forms in place (cd_within set), as a
 * writer keeping them would leave them. */
static void store_cd_within(sa_result *r)
{
    size_t n[2] = {(size_t)r->n_eq * r->w_off, (size_t)r->n_var * r->w_off};
    BDD *v[2] = {r->c, r->d};
    for (int a = 0; a < 2; a++)
        for (size_t k = 0; k < n[a]; k++) {
            BDD w = bdd_addref(sa__simplify(v[a][k], r->ok));
            bdd_delref(v[a][k]);
            v[a][k] = w;
        }
    r->cd_within = true;
}

/* Every accessor on the n rows a of w (stored within) gives what it gives on
 * the rows e of x (the same result, exact). */
static void check_cd_rows(sa_ctx *c, const sa_result *x, const BDD *e, const sa_result *w,
                          const BDD *a, size_t n, const char *name, const char *what)
{
    int wo = x->w_off;
    bool *mode = calloc((size_t)x->n_modes + 1, 1);
    BDD *row = sa__slots(c, (size_t)wo + 1);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        const BDD *xr = &e[i * (size_t)wo], *wr = &a[i * (size_t)wo];
        size_t mark = sa__mark(c);
        for (int b = 0; b < wo; b++) {
            cr_assert_eq(sa__off_bit(c, w, wr, b), xr[b], "%s %s %zu bit %d", name, what, i, b);
            cr_assert_eq(sa__off_bit(c, x, xr, b), xr[b], "%s %s %zu bit %d", name, what, i, b);
            cr_assert_eq(sa__off_never(wr, b), sa__off_never(xr, b), "%s %s %zu", name, what, i);
            cr_assert_eq(sa__off_in_ok(w, wr, b), sa__off_in_ok(x, xr, b), "%s %s %zu", name,
                         what, i);
        }
        sa__off_exact_row(c, w, wr, wo, row);
        cr_assert(memcmp(row, xr, (size_t)wo * sizeof *row) == 0, "%s %s %zu", name, what, i);
        for (int k = 0; k <= wo && k < 63; k++)
            cr_assert_eq(sa__off_value(w, wr, k), sa__off_value(x, xr, k), "%s %s %zu width %d",
                         name, what, i, k);
        cr_assert(sa__off_same(w, wr, x, xr, wo) && sa__off_same(x, xr, w, wr, wo), "%s %s %zu",
                  name, what, i);
        size_t f = (i * 7 + 3) % n;
        bool same = memcmp(xr, &e[f * (size_t)wo], (size_t)wo * sizeof(BDD)) == 0;
        cr_assert_eq(sa__off_same(w, wr, x, &e[f * (size_t)wo], wo), same, "%s %s %zu %zu", name,
                     what, i, f);
        cr_assert_eq(sa__off_same(w, wr, w, &a[f * (size_t)wo], wo), same, "%s %s %zu %zu", name,
                     what, i, f);
        for (int k = 0; k < 4; k++) { /* some modes, valid or not */
            for (uint32_t q = 0; q < x->n_modes; q++) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                mode[q] = s & 1;
            }
            cr_assert_eq(sa__off_eval(x, w, wr, wo, mode), sa__off_eval(x, x, xr, wo, mode),
                         "%s %s %zu", name, what, i);
        }
        sa__release(c, mark);
    }
    free(mode);
}

/* The views of one mode, the same. */
static void same_mode_views(const sa_result *x, const sa_result *w, const char *name)
{
    bool *mode = calloc((size_t)x->n_modes + 1, 1);
    uint64_t s = 2463534242ull;
    for (int k = 0; k < 16; k++) {
        for (uint32_t q = 0; q < x->n_modes; q++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            mode[q] = s & 1;
        }
        sa_mode_view a, b;
        cr_assert_eq(sa_result_mode(x, mode, &a), MDAE_OK, "%s", name);
        cr_assert_eq(sa_result_mode(w, mode, &b), MDAE_OK, "%s", name);
        cr_assert_eq(a.valid, b.valid, "%s", name);
        cr_assert_eq(a.singular, b.singular, "%s", name);
        cr_assert(memcmp(a.c, b.c, (size_t)x->n_eq * sizeof *a.c) == 0, "%s: mode %d c", name, k);
        cr_assert(memcmp(a.d, b.d, (size_t)x->n_var * sizeof *a.d) == 0, "%s: mode %d d", name, k);
        sa_mode_view_close(&b);
        sa_mode_view_close(&a);
    }
    free(mode);
}

/* The report of r (both fillers, full and offsets only) into x[4]. */
static void reports_of(const sa_result *r, sa_report **x, const char *name)
{
    for (int q = 0; q < 4; q++) {
        unsigned flags = SA_REPORT_VALID_CARE | (q & 1 ? SA_REPORT_OFFSETS_ONLY : 0);
        sa__report_exact = q >= 2;
        cr_assert_eq(sa_result_report_ex(r, flags, &x[q]), MDAE_OK, "%s", name);
    }
    sa__report_exact = false;
}

static void same_reports(sa_report *const *x, sa_report *const *w, const char *name)
{
    for (int q = 0; q < 4; q++) {
        uint32_t nm = x[q]->n_modes;
        same_set(&x[q]->singular_modes, &w[q]->singular_modes, nm, name, "singular", 0);
        cr_assert_eq(x[q]->n_equations, w[q]->n_equations, "%s", name);
        cr_assert_eq(x[q]->n_variables, w[q]->n_variables, "%s", name);
        same_items(x[q]->equations, w[q]->equations, x[q]->n_equations, nm, name);
        same_items(x[q]->variables, w[q]->variables, x[q]->n_variables, nm, name);
        cr_assert_eq(x[q]->n_diagnostics, w[q]->n_diagnostics, "%s", name);
    }
}

/* r's c and d stored within ok (left so), checked against its exact ones. */
static void check_cd_within(sa_result *r, const char *name)
{
    ENTER(c);
    size_t nc = (size_t)r->n_eq * r->w_off, nd = (size_t)r->n_var * r->w_off;
    BDD *ec = sa__slots(c, nc + 1), *ed = sa__slots(c, nd + 1);
    for (size_t q = 0; q < nc; q++)
        sa__put(&ec[q], r->c[q]);
    for (size_t q = 0; q < nd; q++)
        sa__put(&ed[q], r->d[q]);
    sa_result x = *r; /* a view of r with the exact offsets: not freed */
    x.c = ec;
    x.d = ed;
    store_cd_within(r);
    cr_assert(!sa__cd_comparable(&x, r) && sa__cd_comparable(r, r), "%s", name);
    const char *why = NULL;
    cr_assert(sa_result_same(&x, r, &why), "%s: %s", name, why != NULL ? why : "");
    cr_assert(sa_result_same(r, &x, &why), "%s: %s", name, why != NULL ? why : "");
    check_cd_rows(c, &x, ec, r, r->c, r->n_eq, name, "c");
    check_cd_rows(c, &x, ed, r, r->d, r->n_var, name, "d");
    same_mode_views(&x, r, name);
    leave(c);
}

/* r's c and d turned within ok in place: every accessor of "r->c's and
 * r->d's readers", sa_result_same both ways, the views of single modes and
 * the reports (both fillers) are what they were on the exact offsets. */
Test(sa_te_within, cd_stored_within_reads_as_exact)
{
    static const struct {
        const char *name;
        long long n;
    } cases[] = {
        {"building_compressible.mel", 12}, {"building_compressible.mel", 5},
        {"building_incompressible.mel", 4}, {"brake.mel", 8},
        {"clutch.mel", -1},                 {"rldc_parallel.mel", 4},
        {"singular_simple.mel", -1},        {"ground_contact.mel", -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *name = cases[k].name;
        mel_model *m = NULL;
        sa__cd_exact = true; /* the exact offsets, turned within below */
        sa_result *r = analyse_file(name, cases[k].n, &m);
        sa__cd_exact = false; /* the default */
        cr_assert(!r->cd_within && r->c != NULL && r->d != NULL, "%s", name);
        if (k == 0)
            cr_assert(r->ok != bddtrue && r->ok != bddfalse, "%s: ok a chain", name);
        sa_report *before[4], *after[4];
        reports_of(r, before, name);
        cdg_graph *gx = NULL, *gw = NULL;
        cdg_report *x = NULL;
        cr_assert_eq(cdg_build(r, NULL, &gx, NULL), MDAE_OK, "%s", name);
        cr_assert_eq(cdg_graph_report(gx, &x), MDAE_OK, "%s", name);
        check_cd_within(r, name);
        reports_of(r, after, name);
        same_reports(before, after, name);
        cr_assert_eq(cdg_build(r, NULL, &gw, NULL), MDAE_OK, "%s", name);
        same_graphs(gx, x, gw, r, name);
        cdg_report_free(x);
        cdg_graph_free(gw);
        cdg_graph_free(gx);
        for (int q = 0; q < 4; q++) {
            sa_report_free(after[q]);
            sa_report_free(before[q]);
        }
        sa_result_free(r);
        mel_model_free(m);
    }
}

/* The dual's cold fixpoint keeping c and d within ok (sa_dual.c, "c and d
 * within ok": the compressible building's) gives the result of the exact
 * fixpoint (sa__dual_within false, the path before): with sa__cd_exact the
 * very same exact offsets (handles), and the same known values, iterations
 * and attempts; without it, the same functions (sa_result_same across
 * forms), views of single modes, reports (both fillers) and graphs. */
static void same_exact_offsets(const sa_result *x, const sa_result *e, const char *name)
{
    const char *why = NULL;
    cr_assert(sa_result_same(x, e, &why), "%s: %s", name, why != NULL ? why : "");
    cr_assert_eq(x->w_off, e->w_off, "%s", name);
    cr_assert(memcmp(x->c, e->c, (size_t)x->n_eq * x->w_off * sizeof *x->c) == 0, "%s: c", name);
    cr_assert(memcmp(x->d, e->d, (size_t)x->n_var * x->w_off * sizeof *x->d) == 0, "%s: d", name);
    cr_assert_eq(x->small, e->small, "%s", name);
    cr_assert_eq(x->fpi_iterations, e->fpi_iterations, "%s", name);
    if (x->c_matched != NULL)
        cr_assert(memcmp(x->c_matched, e->c_matched, x->n_eq * sizeof *x->c_matched) == 0,
                  "%s: c_matched", name);
}

Test(sa_te_within, dual_within_same_as_exact)
{
    static const struct {
        const char *name;
        long long n;
        bool within; /* the path applies */
    } cases[] = {
        {"building_compressible.mel", 40, true}, {"building_compressible.mel", 7, true},
        {"building_incompressible.mel", 6, false}, {"brake.mel", 30, false},
        {"clutch.mel", -1, false},                {"rldc_chain.mel", 4, false},
        {"singular_simple.mel", -1, false},       {"ground_contact.mel", -1, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *name = cases[k].name;
        mel_model *m1 = NULL, *m2 = NULL, *m3 = NULL;
        sa__cd_exact = true;
        sa__dual_within = false;
        sa_result *x = analyse_file(name, cases[k].n, &m1);
        sa__dual_within = true; /* the default */
        sa_result *e = analyse_file(name, cases[k].n, &m3);
        sa__cd_exact = false;
        sa_result *w = analyse_file(name, cases[k].n, &m2);
        sa__cd_exact = false; /* the default */
        cr_assert(!x->cd_within && !e->cd_within, "%s", name);
        same_exact_offsets(x, e, name);
        if (cases[k].within)
            cr_assert(w->cd_within, "%s: the within path not taken", name);
        const char *why = NULL;
        cr_assert(sa_result_same(x, w, &why), "%s: %s", name, why != NULL ? why : "");
        cr_assert(sa_result_same(w, x, &why), "%s: %s", name, why != NULL ? why : "");
        cr_assert_eq(x->small, w->small, "%s", name);
        cr_assert_eq(x->fpi_iterations, w->fpi_iterations, "%s", name);
        if (x->c_matched != NULL)
            cr_assert(memcmp(x->c_matched, w->c_matched, x->n_eq * sizeof *x->c_matched) == 0,
                      "%s: c_matched", name);
        same_mode_views(x, w, name);
        sa_report *rx[4], *rw[4];
        reports_of(x, rx, name);
        reports_of(w, rw, name);
        same_reports(rx, rw, name);
        cdg_graph *gx = NULL, *gw = NULL;
        cdg_report *gr = NULL;
        cr_assert_eq(cdg_build(x, NULL, &gx, NULL), MDAE_OK, "%s", name);
        cr_assert_eq(cdg_graph_report(gx, &gr), MDAE_OK, "%s", name);
        cr_assert_eq(cdg_build(w, NULL, &gw, NULL), MDAE_OK, "%s", name);
        same_graphs(gx, gr, gw, x, name);
        cdg_report_free(gr);
        cdg_graph_free(gw);
        cdg_graph_free(gx);
        for (int q = 0; q < 4; q++) {
            sa_report_free(rw[q]);
            sa_report_free(rx[q]);
        }
        sa_result_free(e);
        sa_result_free(w);
        sa_result_free(x);
        mel_model_free(m3);
        mel_model_free(m2);
        mel_model_free(m1);
    }
}

/* ---- A hint whose c and d are stored within ok (sa_hint.c, sa_probe.c;
 * sa_dual.c's warm start refuses one) -------------------------------------- */

static sa_result *analyse_with(const mel_model *m, const sa_result *hint, int seeded, bool exact)
{
    sa_options o = {0};
    o.hint = hint;
    o.seeded = seeded;
    sa__cd_exact = exact;
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(m, &o, &r, NULL), MDAE_OK);
    sa__cd_exact = false; /* the default */
    return r;
}

/* What the seeded analyses by a within hint did, summed over the cases. */
typedef struct hint_ways {
    unsigned warm, repaired, zero, tight, seeded;
} hint_ways;

/* Variant m (text at n) seeded by hx (exact) and by hw (the same model
 * within ok), both ways of seeding: each the cold result (sa_result_same
 * both ways, single modes, reports), the hint's form read the same where
 * the reading is form-independent (sa__hint_offsets extended,
 * sa__hint_matching: the same seeded counts, the same repairs). */
static void check_variant(const mel_model *m, const sa_result *hx, const sa_result *hw,
                          const char *what, hint_ways *ways)
{
    sa_result *cold = analyse_with(m, NULL, SA_SEEDED_AUTO, false);
    sa_report *rc[4];
    reports_of(cold, rc, what);
    for (int seeded = SA_SEEDED_AUTO; seeded <= SA_SEEDED_ALWAYS; seeded += SA_SEEDED_ALWAYS) {
        sa_result *sx = analyse_with(m, hx, seeded, false);
        sa_result *sw = analyse_with(m, hw, seeded, false);
        const char *why = NULL;
        cr_assert(sa_result_same(cold, sw, &why), "%s: %s", what, why != NULL ? why : "");
        cr_assert(sa_result_same(sw, cold, &why), "%s: %s", what, why != NULL ? why : "");
        cr_assert(sa_result_same(sx, sw, &why), "%s: %s", what, why != NULL ? why : "");
        cr_assert_eq(cold->small, sw->small, "%s", what);
        same_mode_views(cold, sw, what);
        sa_report *rw[4];
        reports_of(sw, rw, what);
        same_reports(rc, rw, what);
        for (int q = 0; q < 4; q++)
            sa_report_free(rw[q]);
        sa_method_info mx, mw;
        sa_result_method(sx, &mx);
        sa_result_method(sw, &mw);
        if (seeded == SA_SEEDED_AUTO) { /* the cost-0 matchings: form-independent readings */
            cr_assert_eq(mx.seeded_zero, mw.seeded_zero, "%s", what);
            cr_assert_eq(mx.seeded_repaired, mw.seeded_repaired, "%s", what);
            cr_assert_eq(sa_result_seeded(sx), sa_result_seeded(sw), "%s", what);
        }
        if (sw->cd_within && mw.offsets_from_hint > 0)
            ways->warm++;
        ways->repaired += mw.seeded_repaired > 0;
        ways->zero += mw.seeded_zero > 0;
        ways->tight += mw.seeded_tight;
        ways->seeded += sa_result_seeded(sw) > 0;
        sa_result_free(sw);
        sa_result_free(sx);
    }
    for (int q = 0; q < 4; q++)
        sa_report_free(rc[q]);
    sa_result_free(cold);
}

/* The hint's readings that do not depend on its form, compared handle by
 * handle on m encoded: sa__hint_offsets extended (hint_vectors: the
 * primal's seeded costs) and sa__hint_matching (the repair's tc, tz) with
 * hx (exact) and hw (within) as the hint. */
static void same_readings(const mel_model *m, const sa_result *hx, const sa_result *hw,
                          const char *what, unsigned *matched)
{
    sa_options o = {.hint = hx};
    ENTER_ENCODING(c, &o, what);
    sa__encode(c, m);
    sa_result *r = c->r;
    int wx = 0, ux = 0, ww = 0, uw = 0;
    const BDD *ox = sa__hint_offsets(c, true, &wx, &ux, NULL);
    BDD *tx = sa__slots(c, 2 * r->n_edges + 1);
    bool mx = sa__hint_matching(c, tx, tx + r->n_edges);
    o.hint = hw;
    const BDD *ow = sa__hint_offsets(c, true, &ww, &uw, NULL);
    BDD *tw = sa__slots(c, 2 * r->n_edges + 1);
    bool mw = sa__hint_matching(c, tw, tw + r->n_edges);
    cr_assert_eq(ox != NULL, ow != NULL, "%s: offsets", what);
    cr_assert(wx == ww && ux == uw, "%s: widths %d/%d, %d/%d", what, wx, ww, ux, uw);
    if (ox != NULL)
        cr_assert(memcmp(ox, ow, (size_t)r->n_eq * (size_t)wx * sizeof *ox) == 0,
                  "%s: the extended offsets", what);
    cr_assert_eq(mx, mw, "%s: matching", what);
    if (mx)
        cr_assert(memcmp(tx, tw, 2 * r->n_edges * sizeof *tx) == 0, "%s: tc, tz", what);
    *matched += mx;
    sa__leave(c);
    sa_result_free(r);
    free(c);
}

/* The compressible building's edits (tests/bench/bench_edit.c's: a
 * derivative added in room k, its door's guard negated, N + 1, N - 1, and
 * the model itself), each seeded by the original analysed with c and d
 * exact and within ok: the seeded results are the cold one whichever the
 * hint's form, and every reader of a within hint is taken (the cost-0
 * matchings, the repair, the tight graphs), but not the warm start of the
 * dual's fixpoint, which takes only exact offsets (sa_dual.c's
 * warm_applies: a within hint lacks the unmasked d its kn_d reads). */
Test(sa_te_within, hint_within_same_as_exact)
{
    size_t text_len = 0;
    char *text = tm_read("building_compressible.mel", &text_len);
    hint_ways ways = {0};
    unsigned matched = 0; /* same_readings' hint matchings */
    static const long long ns[] = {5, 20};
    for (size_t q = 0; q < sizeof ns / sizeof ns[0]; q++) {
        long long n = ns[q];
        int k = n > 10 ? 10 : 2;
        char eq_to[256], guard[128];
        snprintf(eq_to, sizeof eq_to,
                 "rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]) + "
                 "(if i == %d then der(Tr[i]) else 0);", k);
        snprintf(guard, sizeof guard, "if open[i] & i <> %d | !open[i] & i == %d then", k, k);
        char *texts[3] = {
            tm_replaced(text, "rimf[i] : equation mu_in[i] = flow_vent(Pin - Pr[i]);", eq_to),
            tm_replaced(text, "if open[i] then", guard), NULL};
        mel_model *hm = tm_parse_n(text, strlen(text), n, "building");
        sa_result *hx = analyse_with(hm, NULL, SA_SEEDED_AUTO, true);
        sa_result *hw = analyse_with(hm, NULL, SA_SEEDED_AUTO, false);
        cr_assert(!hx->cd_within && hw->cd_within, "N=%lld: the hint's forms", n);
        const char *why = NULL;
        cr_assert(sa_result_same(hx, hw, &why), "N=%lld: %s", n, why != NULL ? why : "");
        struct {
            const char *text;
            long long n;
        } vs[] = {{texts[0], n}, {texts[1], n}, {text, n + 1}, {text, n - 1}, {text, n}};
        for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
            char what[96];
            snprintf(what, sizeof what, "building N=%lld, variant %zu", n, v);
            mel_model *m = tm_parse_n(vs[v].text, strlen(vs[v].text), vs[v].n, "variant");
            check_variant(m, hx, hw, what, &ways);
            same_readings(m, hx, hw, what, &matched);
            mel_model_free(m);
        }
        sa_result_free(hw);
        sa_result_free(hx);
        mel_model_free(hm);
        free(texts[0]);
        free(texts[1]);
    }
    free(text);
    fprintf(stderr, "hint_within: warm %u repaired %u zero %u tight %u seeded %u\n", ways.warm,
            ways.repaired, ways.zero, ways.tight, ways.seeded);
    cr_assert_eq(ways.warm, 0, "the dual started from a within hint");
    cr_assert_gt(ways.repaired, 0, "no repair of a within hint's matching");
    cr_assert_gt(ways.zero, 0, "no cost-0 matchings from a within hint");
    cr_assert_gt(ways.tight, 0, "no tight graphs from a within hint's offsets");
    cr_assert_gt(matched, 0, "sa__hint_matching never compared");
}
