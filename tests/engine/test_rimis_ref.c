/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_rimis_ref.c -- the RIMIS (engine/rimis.h, issue 39)
 * through the independent checks of tests/ref/ref_rimis.c: it reads back
 * nonsingular, no pivot is mode-dependent, every CDG block is a block of
 * its approximate BTF, and each mode's equations are the source's,
 * numerically. On the papers' TwoEquations and Water Tank (with the
 * structures of RR-9459 Fig. 13 and 15), every corpus model, the MSL
 * exports (../shared/msl; skipped without it) and random models. Each
 * suite prints a summary row: models checked, skipped and why. A model
 * is skipped only for a reason printed (singular valid modes, refused by
 * rimis_build with its diagnostic, too large for the test's time); MDAE_SEED
 * and MDAE_RANDOM_MODELS replay or widen the random walk.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdg.h"
#include "mo.h"
#include "ref.h"
#include "ref_rimis.h"
#include "rimis.h"
#include "sa.h"

#include "dir_list.h"
#include "fx_check.h"
#include "model_files.h"
#include "test_env.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(rimis_ref, .init = begin, .fini = end, .timeout = 1500);

/* ---- One model ---------------------------------------------------------------- */

typedef enum outcome {
    OUT_CHECKED,     /* the four checks ran (and passed or failed: expect) */
    OUT_NOT_READ,    /* the source does not parse (a corpus model's errors) */
    OUT_SINGULAR,    /* some valid mode is singular: no RIMIS */
    OUT_REFUSED,     /* rimis_build refused it (MDAE_E_MODEL), reason printed */
    OUT_TOO_BIG,     /* over the test's size bound, reason printed */
    OUT_NO_MODE,     /* sampling found no valid mode to check */
    OUT_ERROR,       /* rimis_build failed otherwise: a failure (expect) */
    OUT__COUNT
} outcome;

static const char *const outcome_names[OUT__COUNT] = {
    "checked", "not read", "singular", "refused by rimis", "too large", "no valid mode sampled",
    "FAILED in rimis_build"};

typedef struct run {
    mel_model *m;
    sa_result *r;
    cdg_graph *g;
    rimis_result *res;
    char why[1200];
} run;

static void run_close(run *x)
{
    rimis_result_free(x->res);
    cdg_graph_free(x->g);
    sa_result_free(x->r);
    mel_model_free(x->m);
    memset(x, 0, sizeof *x);
}

static bool is_modelica(const char *name)
{
    return dir_list_ends_with(name, ".mo") || dir_list_ends_with(name, ".bmo");
}

/* Parse, analyse, build the graph and the RIMIS of one text. */
/* Every error of d refuses a mode change that makes states jump or values
 * impulsive (rimis_options.accept_jumps would accept it). */
static bool refused_for_jumps(const mdae_diags *d)
{
    size_t errors = 0;
    for (size_t i = 0; i < d->count; i++) {
        if (d->items[i].severity != MDAE_SEV_ERROR)
            continue;
        errors++;
        if (strstr(d->items[i].message, "impulsive mode change") == NULL)
            return false;
    }
    return errors > 0;
}

static outcome run_build(run *x, const char *name, const char *text, size_t len,
                         uint32_t max_equations)
{
    memset(x, 0, sizeof *x);
    mdae_diags d;
    mdae_diags_init(&d);
    bool mo = is_modelica(name);
    int rc = mo ? mo_model_parse(text, len, NULL, &x->m, &d)
                : mel_model_parse(text, len, NULL, &x->m, &d);
    outcome out = OUT_CHECKED;
    if (rc != MDAE_OK) {
        snprintf(x->why, sizeof x->why, "%s", d.count ? d.items[0].message : mdae_err_name(rc));
        out = OUT_NOT_READ;
    } else if (max_equations && x->m->n_equations > max_equations) {
        snprintf(x->why, sizeof x->why, "%u equations (bound %u)", x->m->n_equations,
                 max_equations);
        out = OUT_TOO_BIG;
    }
    if (out == OUT_CHECKED) {
        rc = sa_analyze(x->m, NULL, &x->r, &d);
        cr_assert(rc == MDAE_OK || rc == MDAE_E_MODEL, "%s: sa_analyze: %s", name,
                  mdae_err_name(rc));
        if (rc == MDAE_E_MODEL) { /* bad_use.mel: a variable used outside its guard */
            snprintf(x->why, sizeof x->why, "%s", d.count ? d.items[0].message : "refused");
            mdae_diags_close(&d);
            return OUT_NOT_READ;
        }
        sa_set parts[3];
        double count[3];
        cr_assert_eq(sa_result_partition(x->r, 1, parts, count), MDAE_OK, "%s", name);
        for (int k = 0; k < 3; k++)
            sa_set_close(&parts[k]);
        if (count[1] + count[2] > 0) {
            snprintf(x->why, sizeof x->why, "%.0f singular valid modes", count[1] + count[2]);
            out = OUT_SINGULAR;
        }
    }
    if (out == OUT_CHECKED) {
        rc = cdg_build(x->r, NULL, &x->g, &d);
        if (rc != MDAE_OK) {
            snprintf(x->why, sizeof x->why, "cdg_build: %s (%s)", mdae_err_name(rc),
                     d.count ? d.items[0].message : "no diagnostic");
            cr_assert(rc == MDAE_E_LIMIT || rc == MDAE_E_BDD_LIMIT, "%s: %s", name, x->why);
            mdae_diags_close(&d);
            return OUT_TOO_BIG;
        }
        rimis_options opt = {0};
        opt.source = mo ? text : NULL;
        opt.source_len = mo ? len : 0;
        mdae_diags_close(&d);
        mdae_diags_init(&d);
        rc = rimis_build(x->m, x->r, x->g, &opt, &x->res, &d);
        if (rc == MDAE_E_MODEL && refused_for_jumps(&d)) {
            /* what the mode changes do is not these checks' business: the
             * construction is checked all the same, the jumps accepted */
            mdae_diags_close(&d);
            mdae_diags_init(&d);
            opt.accept_jumps = true;
            rc = rimis_build(x->m, x->r, x->g, &opt, &x->res, &d);
        }
        if (rc == MDAE_E_MODEL) {
            const mdae_diag *e = d.count ? &d.items[0] : NULL;
            snprintf(x->why, sizeof x->why, "%u:%u: %s", e ? e->where.start.line : 0,
                     e ? e->where.start.col : 0, e ? e->message : "(no diagnostic)");
            out = OUT_REFUSED;
        } else if (rc == MDAE_E_LIMIT) { /* FullRobot's output: past 64 MiB */
            snprintf(x->why, sizeof x->why, "rimis_build: %s",
                     d.count ? d.items[0].message : "MDAE_E_LIMIT");
            out = OUT_TOO_BIG;
        } else if (rc != MDAE_OK) {
            snprintf(x->why, sizeof x->why, "%s (%s)", mdae_err_name(rc),
                     d.count ? d.items[0].message : "no diagnostic");
            cr_expect_fail("%s: rimis_build: %s", name, x->why);
            out = OUT_ERROR;
        }
    }
    mdae_diags_close(&d);
    return out;
}

/* The four checks on a built run; expect (not assert) so that every model
 * of a walk is reported. */
static outcome run_checks(run *x, const char *name, ref_rimis_report *rep)
{
    ref_rimis_opts o = {env_u64("MDAE_SEED", 0), 0};
    int rc = ref_rimis_check(x->m, x->r, x->g, x->res, &o, rep);
    cr_assert_eq(rc, MDAE_OK, "%s: ref_rimis_check: %s", name, mdae_err_name(rc));
    for (int k = 1; k <= 4; k++)
        cr_expect((rep->failed_mask & (1u << k)) == 0, "%s: check %d: %s", name, k,
                  rep->why_check[k - 1]);
    if (rep->failed == 0 && rep->modes == 0) {
        snprintf(x->why, sizeof x->why, "no valid mode found among sampled ones");
        return OUT_NO_MODE;
    }
    return OUT_CHECKED;
}

/* A walk's tally, printed as one row. */
typedef struct tally {
    unsigned count[OUT__COUNT];
    unsigned failed;
    unsigned long long modes, block_eqs, multiplexers, not_compared;
} tally;

static void tally_add(tally *t, outcome o, const char *name, const run *x,
                      const ref_rimis_report *rep)
{
    t->count[o]++;
    if (o == OUT_CHECKED) {
        t->failed += rep->failed != 0;
        t->modes += rep->modes;
        t->block_eqs += rep->block_eqs;
        t->multiplexers += rep->multiplexers;
        t->not_compared += rep->not_compared;
        if (rep->not_compared)
            fprintf(stderr, "rimis_ref: %s: %llu equations not compared, first %s\n", name,
                    (unsigned long long)rep->not_compared, rep->not_compared_why);
    } else {
        fprintf(stderr, "rimis_ref: skipped %s: %s: %s\n", name, outcome_names[o], x->why);
    }
}

static void tally_print(const tally *t, const char *what)
{
    fprintf(stderr, "rimis_ref %s: %u checked (%u failed; %llu modes, %llu block equations, "
                    "%llu multiplexers compared, %llu left uncompared)", what,
            t->count[OUT_CHECKED], t->failed, t->modes, t->block_eqs, t->multiplexers,
            t->not_compared);
    for (int o = 1; o < OUT__COUNT; o++)
        if (t->count[o])
            fprintf(stderr, ", %u %s", t->count[o], outcome_names[o]);
    fprintf(stderr, "\n");
}

static void check_text(tally *t, const char *name, const char *text, size_t len,
                       uint32_t max_equations)
{
    run x;
    ref_rimis_report rep;
    memset(&rep, 0, sizeof rep);
    outcome o = run_build(&x, name, text, len, max_equations);
    if (o == OUT_CHECKED)
        o = run_checks(&x, name, &rep);
    tally_add(t, o, name, &x, &rep);
    run_close(&x);
}

/* ---- The papers: RR-9459 Fig. 13 and 15 ---------------------------------------- */

static void build_checked(run *x, const char *file)
{
    size_t len = 0;
    char *text = tm_read(file, &len);
    outcome o = run_build(x, file, text, len, 0);
    cr_assert_eq(o, OUT_CHECKED, "%s: %s: %s", file, outcome_names[o], x->why);
    ref_rimis_report rep;
    cr_assert_eq(run_checks(x, file, &rep), OUT_CHECKED); /* expects the four checks */
    cr_expect_gt(rep.block_eqs, 0);
    free(text);
}

static const rimis_eq *first_eq(const rimis_result *res, rimis_eq_kind kind)
{
    for (uint32_t e = 0; e < res->n_eqs; e++)
        if (res->eqs[e].kind == kind)
            return &res->eqs[e];
    return NULL;
}

/* Fig. 13: replicates x_2 (under p), x_p_3 and x_3 (under not p), the
 * multiplexer of x, the reinit of x_3 entering not p. */
static void two_equations(const char *file)
{
    run x;
    build_checked(&x, file);
    const rimis_result *res = x.res;
    cr_expect_eq(res->n_replicates, 3, "%s: replicates", file);
    cr_expect_eq(res->n_multiplexers, 1, "%s: multiplexers", file);
    cr_expect_eq(res->n_reinits, 1, "%s: reinits", file);
    cr_expect_eq(res->n_groups, 2, "%s: block groups", file);
    const rimis_eq *mux = first_eq(res, RIMIS_EQ_MULTI);
    cr_assert_not_null(mux);
    cr_expect_str_eq(res->vars[mux->defines].name, "x");
    /* The reinit enters `not p`: its when-clause, read back. */
    mel_model *o = NULL;
    cr_assert_eq(mo_model_parse(res->text, res->text_len, NULL, &o, NULL), MDAE_OK);
    bool found = false;
    for (uint32_t k = 0; k < o->n_events; k++)
        if (o->events[k].kind == MEL_EV_WHEN)
            found = found || strcmp(o->events[k].text, "{not p}") == 0;
    /* `when {not p}`: a vector of one condition, the same event in
     * Modelica, which the importer does not read as a transient mode */
    cr_expect(found, "%s: no `when {not p}` in\n%s", file, res->text);
    mel_model_free(o);
    /* The source's start value on the state replicate (x_3(start=0) in
     * Fig. 13), when the source has one (Modelica). */
    for (uint32_t v = 0; is_modelica(file) && v < res->n_vars; v++) {
        if (res->vars[v].kind != RIMIS_V_REPLICATE || !res->vars[v].state)
            continue;
        char decl[128];
        snprintf(decl, sizeof decl, "Real %s(start", res->vars[v].name);
        cr_expect(strstr(res->text, decl) != NULL, "%s: the state replicate %s has no start "
                  "value (x(start=0) in the source):\n%s", file, res->vars[v].name, res->text);
    }
    run_close(&x);
}

Test(rimis_ref, two_equations_fig13) {
    two_equations("two_equations.mel");
    two_equations("two_equations.mo");
}

/* Fig. 15: 13 block groups, multiplexers for yh, yl, sh, sl and x_p, no
 * reinit (x is a state in every mode: factored). */
static void water_tank(const char *file)
{
    run x;
    build_checked(&x, file);
    const rimis_result *res = x.res;
    cr_expect_eq(res->n_groups, 13, "%s: block groups", file);
    cr_expect_eq(res->n_reinits, 0, "%s: reinits", file);
    cr_expect_eq(res->n_multiplexers, 5, "%s: multiplexers", file);
    const char *want[] = {"yh", "yl", "sh", "sl", "x_p"};
    for (size_t w = 0; w < 5; w++) {
        bool found = false;
        for (uint32_t e = 0; e < res->n_eqs; e++)
            if (res->eqs[e].kind == RIMIS_EQ_MULTI && res->eqs[e].defines >= 0)
                found = found || strcmp(res->vars[res->eqs[e].defines].name, want[w]) == 0;
        cr_expect(found, "%s: no multiplexer for %s", file, want[w]);
    }
    run_close(&x);
}

/* water_tank.mo (and its twin water_tank_mo.mel) states `not (bh and bl)`
 * in a comment only, as Fig. 1 does: bh & bl is a valid singular mode
 * there, which RIMIS refuses (the corpus walk prints it skipped). */
Test(rimis_ref, water_tank_fig15) {
    water_tank("water_tank.mel");
}

/* ---- The checker itself, on Fig. 13 written by hand --------------------------------
 * TwoEquations' RIMIS as RR-9459 Fig. 13 prints it (without its reinit,
 * which the checks do not read), block equations guarded (section 4.7),
 * its mapping filled in by hand: the checks pass on it, and fail once a
 * multiplexer selects the wrong replicate, a block reads a replicate
 * outside its modes or a block equation is not the source's. */

static const char fig13_head[] =
    "model TwoEquations_rimis\n"                                /* 1 */
    "  Real x;\n"                                               /* 2 */
    "  Boolean p(start=false, fixed=true);\n"                   /* 3 */
    "  Real x_2; // x if p\n"                                   /* 4 */
    "  Real x_p_3; // x' if not p\n"                            /* 5 */
    "  Real x_3(start=0, fixed=true); // x if not p\n"          /* 6 */
    "equation\n"                                                /* 7 */
    "  p = (x >= 1);\n"                                         /* 8 */
    "  der(x_3) = x_p_3;\n";                                    /* 9 */

typedef struct fig13 {
    rimis_result res;
    rimis_var vars[4];
    rimis_eq eqs[5];
    rimis_cond conds[2];
    signed char cubes[2];
    rimis_group groups[2];
    uint32_t geqs[2];
    char text[2048];
} fig13;

/* The result for `mux` (line 10) and the two block lines (11: under p,
 * 12: under not p), with the CDG's block ids of run x. */
static void fig13_make(fig13 *f, const run *x, const char *mux, const char *under_p,
                       const char *under_not_p)
{
    memset(f, 0, sizeof *f);
    long bp = -1, bn = -1;
    for (uint32_t b = 0; b < cdg_graph_n_blocks(x->g); b++) {
        cdg_block blk;
        cr_assert_eq(cdg_graph_block(x->g, b, &blk), MDAE_OK);
        *(blk.unknowns[0].order == 0 ? &bp : &bn) = (long)b;
    }
    cr_assert(bp >= 0 && bn >= 0);
    snprintf(f->text, sizeof f->text, "%s  %s\n  %s\n  %s\nend TwoEquations_rimis;\n",
             fig13_head, mux, under_p, under_not_p);
    f->cubes[0] = 1, f->cubes[1] = 0;
    f->conds[0] = (rimis_cond){1, (char *)"p", {(char *)"p", 1, 0, 1, &f->cubes[0]}};
    f->conds[1] = (rimis_cond){2, (char *)"not p", {(char *)"!p", 1, 0, 1, &f->cubes[1]}};
    f->vars[0] = (rimis_var){(char *)"x", RIMIS_V_SOURCE, 0, 0, -1, -1, false};
    f->vars[1] = (rimis_var){(char *)"x_2", RIMIS_V_REPLICATE, 0, 0, 0, bp, false};
    f->vars[2] = (rimis_var){(char *)"x_p_3", RIMIS_V_REPLICATE, 0, 1, 1, bn, false};
    f->vars[3] = (rimis_var){(char *)"x_3", RIMIS_V_REPLICATE, 0, 0, 1, bn, true};
    f->eqs[0] = (rimis_eq){RIMIS_EQ_MODE, 8, -1, -1, 0, -1, false};
    f->eqs[1] = (rimis_eq){RIMIS_EQ_DIFF, 9, -1, -1, 0, 3, false};
    f->eqs[2] = (rimis_eq){RIMIS_EQ_MULTI, 10, -1, -1, 0, 0, false};
    f->eqs[3] = (rimis_eq){RIMIS_EQ_BLOCK, 11, bp, 0, 0, 1, true};
    f->eqs[4] = (rimis_eq){RIMIS_EQ_BLOCK, 12, bn, 0, 0, 2, true};
    f->geqs[bp] = 3, f->geqs[bn] = 4;
    uint32_t lines = 0;
    for (const char *p = f->text; *p; p++)
        lines += *p == '\n';
    f->groups[bp] = (rimis_group){(uint32_t)bp, 0, 1, &f->geqs[bp]};
    f->groups[bn] = (rimis_group){(uint32_t)bn, 1, 1, &f->geqs[bn]};
    f->res = (rimis_result){.text = f->text, .text_len = strlen(f->text), .n_lines = lines,
                            .n_conds = 2, .conds = f->conds, .n_vars = 4, .vars = f->vars,
                            .n_eqs = 5, .eqs = f->eqs, .n_groups = 2,
                            .groups = f->groups, .n_multiplexers = 1, .n_replicates = 3};
}

static int fig13_check(const run *x, const char *mux, const char *under_p,
                       const char *under_not_p, ref_rimis_report *rep)
{
    fig13 f;
    fig13_make(&f, x, mux, under_p, under_not_p);
    cr_assert_eq(ref_rimis_check(x->m, x->r, x->g, &f.res, NULL, rep), MDAE_OK);
    return rep->failed;
}

Test(rimis_ref, checker_on_fig13_by_hand) {
    size_t len = 0;
    char *text = tm_read("two_equations.mo", &len);
    run x;
    memset(&x, 0, sizeof x);
    cr_assert_eq(mo_model_parse(text, len, NULL, &x.m, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(x.m, NULL, &x.r, NULL), MDAE_OK);
    cr_assert_eq(cdg_build(x.r, NULL, &x.g, NULL), MDAE_OK);
    const char *mux = "x = if p then x_2 else x_3;";
    const char *bp = "if p then 1 = x_2; else x_2 = 0; end if;";
    const char *bn = "if not p then 1 = x_p_3; else x_p_3 = 0; end if;";
    ref_rimis_report rep;
    cr_expect_eq(fig13_check(&x, mux, bp, bn, &rep), 0, "check %d: %s", rep.failed,
                 rep.why);
    cr_expect_eq(rep.modes, 2);
    cr_expect_eq(rep.block_eqs, 2);
    cr_expect_eq(rep.multiplexers, 2);
    cr_expect_eq(fig13_check(&x, "x = if p then x_3 else x_2;", bp, bn, &rep), 4,
                 "swapped multiplexer: check %d: %s", rep.failed, rep.why);
    cr_expect_eq(fig13_check(&x, mux, "if p then 1 = x_3 + x_2 - x_2; else x_2 = 0; end if;", bn,
                             &rep), 4, "x_3 read outside its modes: check %d: %s", rep.failed, rep.why);
    cr_expect_eq(fig13_check(&x, mux, "if p then 2 = x_2; else x_2 = 0; end if;", bn,
                             &rep), 4, "wrong equation: check %d: %s", rep.failed, rep.why);
    /* Each block reading the other's unknown (times 0: same numbers): one
     * block of two in the approximate BTF. */
    cr_expect_eq(fig13_check(&x, mux, "if p then 1 = x_2 + 0 * x_p_3; else x_2 = 0 * x_p_3; end if;",
                             "if not p then 1 = x_p_3 + 0 * x_2; else x_p_3 = 0 * x_2; end if;", &rep),
                 3, "blocks merged: check %d: %s", rep.failed, rep.why);
    run_close(&x);
    free(text);
}

/* ---- The checks can fail: a RIMIS spoiled on purpose ----------------------------- */

/* A copy of res->text with line `line` changed by `edit`; the rest of the
 * result shared (shallow copy: do not free it). */
typedef void edit_fn(char *line_start, size_t line_len);

static char *edited_text(const rimis_result *res, uint32_t line, edit_fn *edit)
{
    char *t = strdup(res->text);
    cr_assert_not_null(t);
    char *p = t;
    for (uint32_t l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    cr_assert_not_null(p);
    char *nl = strchr(p, '\n');
    edit(p, nl ? (size_t)(nl - p) : strlen(p));
    return t;
}

/* `V = if C then A else B;` -> `V = if C then B else A;` (same length). */
static void swap_branches(char *s, size_t n)
{
    char line[512];
    cr_assert_lt(n, sizeof line);
    memcpy(line, s, n);
    line[n] = '\0';
    char *th = strstr(line, " then "), *el = strstr(line, " else "), *semi = strrchr(line, ';');
    cr_assert(th && el && semi && th < el && el < semi, "not a two-way multiplexer: %s", line);
    char a[256], b[256];
    snprintf(a, sizeof a, "%.*s", (int)(el - (th + 6)), th + 6);
    snprintf(b, sizeof b, "%.*s", (int)(semi - (el + 6)), el + 6);
    cr_assert(strstr(b, " if ") == NULL, "nested multiplexer: %s", line);
    char swapped[1100];
    snprintf(swapped, sizeof swapped, "%.*s%s else %s%s", (int)(th + 6 - line), line, b, a, semi);
    cr_assert_eq(strlen(swapped), n);
    memcpy(s, swapped, n);
}

static void blank(char *s, size_t n) { memset(s, ' ', n); }

static ref_rimis_report check_spoiled(const run *x, uint32_t line, edit_fn *edit)
{
    rimis_result spoiled = *x->res;
    spoiled.text = edited_text(x->res, line, edit);
    spoiled.text_len = strlen(spoiled.text);
    ref_rimis_report rep;
    cr_assert_eq(ref_rimis_check(x->m, x->r, x->g, &spoiled, NULL, &rep), MDAE_OK);
    free(spoiled.text);
    return rep;
}

Test(rimis_ref, spoiled_outputs_fail) {
    run x;
    build_checked(&x, "water_tank.mel");
    const rimis_result *res = x.res;
    /* A multiplexer selecting the other replicate: wrong numbers. */
    const rimis_eq *mux = NULL;
    for (uint32_t e = 0; e < res->n_eqs && mux == NULL; e++)
        if (res->eqs[e].kind == RIMIS_EQ_MULTI &&
            strcmp(res->vars[res->eqs[e].defines].name, "yh") == 0)
            mux = &res->eqs[e];
    cr_assert_not_null(mux);
    ref_rimis_report rep = check_spoiled(&x, mux->line, swap_branches);
    cr_expect_eq(rep.failed, 4, "swapped multiplexer: check %d: %s", rep.failed, rep.why);
    /* A block equation gone: the output is singular. */
    const rimis_eq *beq = first_eq(res, RIMIS_EQ_BLOCK);
    cr_assert_not_null(beq);
    rep = check_spoiled(&x, beq->line, blank);
    cr_expect_eq(rep.failed, 1, "blanked block equation: check %d: %s", rep.failed, rep.why);
    run_close(&x);
}

/* ---- Walks ------------------------------------------------------------------------- */

Test(rimis_ref, corpus_models) {
    static const char *const suffixes[] = {".mel", ".mo", ".bmo"};
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/models", MDAE_SOURCE_DIR);
    size_t n = 0;
    char **names = dir_list(dir, suffixes, 3, &n);
    cr_assert_not_null(names);
    tally t = {0};
    for (size_t k = 0; k < n; k++) {
        size_t len = 0;
        char *text = tm_read(names[k], &len);
        check_text(&t, names[k], text, len, 0);
        free(text);
    }
    tally_print(&t, "corpus (tests/models)");
    cr_expect_geq(t.count[OUT_CHECKED], 10, "too few corpus models checked");
    dir_list_free(names, n);
}

/* The MSL exports: those of more than MSL_MAX_EQUATIONS equations are
 * skipped (printed) to keep the suite's time reasonable. */
#define MSL_MAX_EQUATIONS 10000u

Test(rimis_ref, msl_exports) {
    static const char *const suffixes[] = {".bmo"};
    size_t n = 0;
    char **names = dir_list(tm_msl_dir(), suffixes, 1, &n);
    if (names == NULL || n == 0)
        cr_skip_test("no MSL exports in %s (set MDAE_MSL_DIR)", tm_msl_dir());
    tally t = {0};
    for (size_t k = 0; k < n; k++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", tm_msl_dir(), names[k]);
        size_t len = 0;
        char *text = tm_read_path(path, &len);
        cr_assert_not_null(text, "%s", path);
        check_text(&t, names[k], text, len,
                   (uint32_t)env_u64("MDAE_RIMIS_MSL_MAX", MSL_MAX_EQUATIONS));
        free(text);
    }
    tally_print(&t, "MSL exports");
    cr_expect_gt(t.count[OUT_CHECKED], 0);
    dir_list_free(names, n);
}

/* Random models of the reference's generator until MDAE_RANDOM_MODELS
 * (200) are checked. The generator's models keep their expressions. */
Test(rimis_ref, random_models) {
    uint64_t want = env_u64("MDAE_RANDOM_MODELS", 200), seed0 = env_u64("MDAE_SEED", 1);
    tally t = {0};
    for (uint64_t s = seed0; t.count[OUT_CHECKED] < want && s < seed0 + 50 * want; s++) {
        char *text = ref_random_model(s, NULL);
        cr_assert_not_null(text);
        char name[64];
        snprintf(name, sizeof name, "random seed %llu", (unsigned long long)s);
        run x;
        ref_rimis_report rep;
        memset(&rep, 0, sizeof rep);
        outcome o = run_build(&x, name, text, strlen(text), 0);
        for (uint32_t i = 0; x.m && i < x.m->n_equations; i++)
            cr_assert(x.m->equations[i].lhs && x.m->equations[i].rhs,
                      "%s: the generator's equation %s has no expressions", name,
                      x.m->equations[i].name);
        if (x.m) { /* and they say what the incidences say (issue 38's oracle) */
            bool none[16] = {false};
            char why[256];
            cr_assert(x.m->n_modes > 16 || fx_check_incidences(x.m, none, why, sizeof why),
                      "%s: %s", name, why);
        }
        if (o == OUT_CHECKED)
            o = run_checks(&x, name, &rep);
        if (rep.failed && t.failed < 3) /* the first few, to replay by hand */
            fprintf(stderr, "rimis_ref: %s failed check %d:\n%s\n", name, rep.failed, text);
        if (o == OUT_REFUSED || o == OUT_NO_MODE) /* printed, the others counted */
            tally_add(&t, o, name, &x, &rep);
        else
            t.count[o]++, t.failed += rep.failed != 0, t.modes += rep.modes,
                t.block_eqs += rep.block_eqs, t.multiplexers += rep.multiplexers,
                t.not_compared += rep.not_compared;
        run_close(&x);
        mdae_free(text);
    }
    tally_print(&t, "random models");
    cr_expect_geq(t.count[OUT_CHECKED], want, "only %u random models checked",
                  t.count[OUT_CHECKED]);
}
