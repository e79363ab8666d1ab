/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_ap.c -- the approximate analysis of single-mode tools
 * (engine/ap.h): the papers' expectations (RR-9459 sections 2-4: the Water
 * Tank, TwoEquations, RLDC2, the clutch and the cup-and-ball), its JSON
 * (protocol/rpc_json.c) and the edge cases (refused models, if-equations
 * merged by position). The brute-force comparison on random models and the
 * families is in tests/ref/test_ref_approx.c.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap.h"
#include "mo.h"
#include "rpc_json.h"
#include "sa.h"

#include "model_files.h"

static void begin(void) { cr_assert_eq(sa_begin(NULL), MDAE_OK); }
static void end(void) { sa_end(); }

TestSuite(ap, .init = begin, .fini = end, .timeout = 120);

typedef struct run {
    mel_model *m;
    sa_result *r;
    ap_report *rep;
} run;

static void run_text(run *x, const char *text, bool modelica)
{
    memset(x, 0, sizeof *x);
    mdae_diags d;
    mdae_diags_init(&d);
    int rc = modelica ? mo_model_parse(text, strlen(text), NULL, &x->m, &d)
                      : mel_model_parse(text, strlen(text), NULL, &x->m, &d);
    cr_assert_eq(rc, MDAE_OK, "parse: %s", d.count ? d.items[0].message : "?");
    cr_assert_eq(sa_analyze(x->m, NULL, &x->r, &d), MDAE_OK);
    cr_assert_eq(ap_analyze(x->m, x->r, &x->rep), MDAE_OK);
    mdae_diags_close(&d);
}

static void run_file(run *x, const char *name)
{
    char *text = tm_slurp(name);
    size_t n = strlen(name);
    run_text(x, text, n > 3 && strcmp(name + n - 3, ".mo") == 0);
    free(text);
}

static void run_close(run *x)
{
    ap_report_free(x->rep);
    sa_result_free(x->r);
    mel_model_free(x->m);
}

static long var_of(const run *x, const char *name)
{
    long v = mel_model_find_variable(x->m, name);
    cr_assert_geq(v, 0, "no variable %s", name);
    return v;
}

static const ap_equation *eq_named(const run *x, const char *name)
{
    for (uint32_t q = 0; q < x->rep->n_equations; q++)
        if (strcmp(x->rep->equations[q].name, name) == 0)
            return &x->rep->equations[q];
    cr_assert_fail("no approximate equation %s", name);
    return NULL;
}

/* The findings of kind k on approximate equation (or unknown) name. */
static const ap_finding *finding(const run *x, ap_kind k, const char *eq, const char *var)
{
    for (size_t f = 0; f < x->rep->n_findings; f++) {
        const ap_finding *fd = &x->rep->findings[f];
        if (fd->kind != k)
            continue;
        const char *fe = fd->kind == AP_PIVOT && fd->approx_eq >= 0
                             ? x->rep->equations[fd->approx_eq].name
                         : fd->equation >= 0 ? x->m->equations[fd->equation].name
                                             : NULL;
        const char *fv = fd->variable >= 0 ? x->m->variables[fd->variable].name : NULL;
        if ((eq == NULL || (fe && strcmp(fe, eq) == 0)) &&
            (var == NULL || (fv && strcmp(fv, var) == 0)))
            return fd;
    }
    return NULL;
}

static size_t count_kind(const run *x, ap_kind k)
{
    size_t n = 0;
    for (size_t f = 0; f < x->rep->n_findings; f++)
        n += x->rep->findings[f].kind == k;
    return n;
}

/* Every finding to stderr (a failing test's context). */
static void dump(const run *x)
{
    for (uint32_t q = 0; q < x->rep->n_equations; q++) {
        const ap_equation *e = &x->rep->equations[q];
        fprintf(stderr, "  %s -> %s (sigma %d, c %d)\n", e->name,
                e->matched >= 0 ? x->m->variables[e->matched].name : "-", e->sigma, e->c);
    }
    for (size_t f = 0; f < x->rep->n_findings; f++)
        fprintf(stderr, "  %s [%s] %s\n", ap_kind_name(x->rep->findings[f].kind),
                x->rep->findings[f].modes.formula, x->rep->findings[f].message);
}

/* Whether the mode (values by name, "bh=1,bl=0") is in s. */
static bool set_has(const run *x, const sa_set *s, const bool *mode)
{
    uint32_t n = x->m->n_modes;
    for (size_t c = 0; c < s->n_cubes; c++) {
        bool in = true;
        for (uint32_t k = 0; k < n && in; k++)
            in = s->cubes[c * n + k] < 0 || (s->cubes[c * n + k] == 1) == mode[k];
        if (in)
            return true;
    }
    return false;
}

/* The Water Tank (RR-9459 section 3.1, Figure 9): eh2 solved for yh in
 * every mode, the pivot zero exactly when bh. */
static void water_tank(const char *file)
{
    run x;
    run_file(&x, file);
    cr_assert(x.rep->accepted, "%s", file);
    const ap_equation *eh2 = eq_named(&x, "eh2");
    cr_assert_eq(eh2->matched, var_of(&x, "yh"), "%s: eh2 solved for %s", file,
                 eh2->matched >= 0 ? x.m->variables[eh2->matched].name : "-");
    const ap_finding *f = finding(&x, AP_PIVOT, "eh2", "yh");
    cr_assert_not_null(f, "%s: no pivot finding at eh2", file);
    cr_assert_str_eq(f->modes.formula, "bh", "%s", file);
    cr_assert_not_null(strstr(f->message, "divides by zero here when bh"), "%s", f->message);
    cr_assert_eq(f->where.start.line, x.m->equations[mel_model_find_equation(x.m, "eh2")].where.start.line);
    run_close(&x);
}

Test(ap, water_tank_mel) { water_tank("water_tank.mel"); }
Test(ap, water_tank_mo) { water_tank("water_tank.mo"); }

/* TwoEquations (RR-9459 section 4.4, Figure 12): der(x) leading in every
 * mode, failing when p. */
static void two_equations(const char *file)
{
    run x;
    run_file(&x, file);
    cr_assert(x.rep->accepted);
    long xv = var_of(&x, "x");
    cr_assert_eq(x.rep->d[xv], 1, "%s: d_x = %d", file, x.rep->d[xv]);
    const ap_finding *f = finding(&x, AP_PIVOT, NULL, "x");
    cr_assert_not_null(f, "%s", file);
    cr_assert_eq(f->order, 1);
    cr_assert_str_eq(f->modes.formula, "p", "%s", file);
    cr_assert_eq(f->count, 1);
    const ap_finding *o = finding(&x, AP_OFFSETS, NULL, "x");
    cr_assert_not_null(o, "%s: the offsets differ when p", file);
    cr_assert_str_eq(o->modes.formula, "p");
    cr_assert_str_eq(x.rep->wrong_modes.formula, "p");
    cr_assert_eq(x.rep->wrong_count, 1);
    cr_assert_eq(x.rep->valid_modes, 2);
    run_close(&x);
}

Test(ap, two_equations_mel) { two_equations("two_equations.mel"); }
Test(ap, two_equations_mo) { two_equations("two_equations.mo"); }

/* RLDC2 (RR-9322 section 2, Figure 5): both tools fail at the initial
 * mode g1 = g2 = false (a zero pivot). Its index changes when both diodes
 * block or both pass, so the offsets are wrong there too. */
Test(ap, rldc2)
{
    run x;
    run_file(&x, "rldc2.mel");
    cr_assert(x.rep->accepted);
    bool mode[2] = {false, false};
    cr_assert(set_has(&x, &x.rep->wrong_modes, mode));
    bool pivot = false;
    for (size_t f = 0; f < x.rep->n_findings; f++)
        pivot |= x.rep->findings[f].kind == AP_PIVOT &&
                 set_has(&x, &x.rep->findings[f].modes, mode);
    if (!pivot)
        dump(&x);
    cr_assert(pivot, "no zero pivot at g1 = g2 = false");
    const ap_finding *o = finding(&x, AP_OFFSETS, NULL, "i1");
    cr_assert_not_null(o);
    cr_assert_str_eq(o->modes.formula, "!g1 & !g2");
    cr_assert_eq(x.rep->valid_modes, 4);
    run_close(&x);
}

/* The clutch and the cup-and-ball: the index changes across modes, so the
 * one set of offsets of a single-mode tool is wrong in some of them. */
static void index_changes(const char *file)
{
    run x;
    run_file(&x, file);
    if (getenv("AP_DUMP"))
        dump(&x);
    cr_assert_gt(count_kind(&x, AP_OFFSETS) + count_kind(&x, AP_REFUSED), 0, "%s", file);
    cr_assert_gt(x.rep->wrong_count, 0, "%s", file);
    run_close(&x);
}

Test(ap, clutch) { index_changes("clutch.mel"); }
Test(ap, cup_and_ball) { index_changes("cup_and_ball.mel"); }

/* A model single-mode tools get right: no finding. */
Test(ap, no_findings)
{
    run x;
    run_text(&x, "x : real; y : real; g : boolean;\n"
                 "e1 : equation der(x) = if g then y else 2 * y;\n"
                 "e2 : equation y = if g then x else 1;\n",
             false);
    cr_assert(x.rep->accepted);
    cr_assert_eq(x.rep->n_findings, 0);
    cr_assert_eq(x.rep->wrong_count, 0);
    cr_assert_str_eq(x.rep->wrong_modes.formula, "false");
    cr_assert_eq(x.rep->n_blocks, 2);
    run_close(&x);
}

/* A model whose union has no perfect matching: refused, with its DM parts,
 * though the exact analysis solves it when g. */
Test(ap, refused)
{
    run x;
    run_text(&x, "x : real; y : real; g : boolean;\n"
                 "if g then\n"
                 "  e1 : equation x = 1;\n"
                 "  e2 : equation y = 2\n"
                 "else\n"
                 "  e3 : equation x + y = 1\n"
                 "end;\n"
                 "e4 : equation x = 3;\n",
             false);
    /* Without if-equations merged (cond = 0), the union has 4 rows, 2
     * columns: refused. */
    if (x.m->equations[0].cond == 0) {
        cr_assert(!x.rep->accepted);
        const ap_finding *f = finding(&x, AP_REFUSED, NULL, NULL);
        cr_assert_not_null(f);
        cr_assert_eq(x.rep->n_blocks, 0);
        bool over = false;
        for (uint32_t q = 0; q < x.rep->n_equations; q++)
            over |= x.rep->equations[q].overdetermined;
        cr_assert(over);
    }
    run_close(&x);
}

/* Blocks: a chain solves in order. */
Test(ap, blocks_in_solving_order)
{
    run x;
    run_text(&x, "a : real; b : real; c : real;\n"
                 "e3 : equation c = b + 1;\n"
                 "e2 : equation b = a * 2;\n"
                 "e1 : equation a = 1;\n",
             false);
    cr_assert(x.rep->accepted);
    cr_assert_eq(x.rep->n_blocks, 3);
    cr_assert_str_eq(x.rep->equations[x.rep->blocks[0].equations[0]].name, "e1");
    cr_assert_str_eq(x.rep->equations[x.rep->blocks[1].equations[0]].name, "e2");
    cr_assert_str_eq(x.rep->equations[x.rep->blocks[2].equations[0]].name, "e3");
    run_close(&x);
}

Test(ap, bad_arguments)
{
    run x;
    run_file(&x, "two_equations.mel");
    ap_report *rep = NULL;
    cr_assert_eq(ap_analyze(NULL, x.r, &rep), MDAE_E_INVAL);
    cr_assert_eq(ap_analyze(x.m, NULL, &rep), MDAE_E_INVAL);
    mel_model *other = NULL;
    cr_assert_eq(mel_model_parse("y : real; e : equation y = 1;", 29, NULL, &other, NULL), MDAE_OK);
    cr_assert_eq(ap_analyze(other, x.r, &rep), MDAE_E_INVAL);
    mel_model_free(other);
    ap_report_free(NULL);
    run_close(&x);
}

/* The JSON form (protocol/rpc_json.c): the shape session/approx and the
 * CLI print. */
Test(ap, json_shape)
{
    run x;
    run_file(&x, "water_tank.mel");
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_approx(x.rep, &j), MDAE_OK);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "accepted")));
    cJSON *eqs = cJSON_GetObjectItem(j, "equations");
    cr_assert_eq(cJSON_GetArraySize(eqs), (int)x.rep->n_equations);
    bool seen_eh2 = false;
    cJSON *e;
    cJSON_ArrayForEach(e, eqs) {
        cr_assert(cJSON_IsArray(cJSON_GetObjectItem(e, "members")));
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(e, "c")));
        if (strcmp(cJSON_GetObjectItem(e, "name")->valuestring, "eh2") == 0) {
            seen_eh2 = true;
            cr_assert_str_eq(cJSON_GetObjectItem(e, "matched")->valuestring, "yh");
        }
    }
    cr_assert(seen_eh2);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "variables")), 7);
    cr_assert_gt(cJSON_GetArraySize(cJSON_GetObjectItem(j, "blocks")), 0);
    cJSON *f, *pivot = NULL;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(j, "findings")) {
        const char *kind = cJSON_GetObjectItem(f, "kind")->valuestring;
        cr_assert(strcmp(kind, "pivot") == 0 || strcmp(kind, "offsets") == 0 ||
                  strcmp(kind, "singular") == 0 || strcmp(kind, "refused") == 0);
        cJSON *modes = cJSON_GetObjectItem(f, "modes");
        cr_assert(cJSON_IsString(cJSON_GetObjectItem(modes, "formula")));
        cr_assert(cJSON_IsArray(cJSON_GetObjectItem(modes, "cubes")));
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(f, "count")));
        cr_assert(cJSON_IsObject(cJSON_GetObjectItem(f, "where")));
        cr_assert(cJSON_IsString(cJSON_GetObjectItem(f, "message")));
        if (strcmp(kind, "pivot") == 0 &&
            strcmp(cJSON_GetObjectItem(f, "equation")->valuestring, "eh2") == 0)
            pivot = f;
    }
    cr_assert_not_null(pivot);
    cr_assert_str_eq(cJSON_GetObjectItem(pivot, "variable")->valuestring, "yh");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(pivot, "modes"), "formula")->valuestring,
                     "bh");
    cJSON *cubes = cJSON_GetObjectItem(cJSON_GetObjectItem(pivot, "modes"), "cubes");
    cr_assert_eq(cJSON_GetArraySize(cubes), 1);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(cubes, 0), "bh")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(pivot, "approx")));
    cr_assert_eq(cJSON_GetObjectItem(pivot, "order")->valuedouble, 0);
    cJSON *where = cJSON_GetObjectItem(pivot, "where");
    cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(where, "start"), "line")));
    cJSON *wrong = cJSON_GetObjectItem(j, "wrong_modes");
    cr_assert(cJSON_IsString(cJSON_GetObjectItem(wrong, "formula")));
    cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(wrong, "count")));
    cr_assert_eq(cJSON_GetObjectItem(j, "valid_modes")->valuedouble, 3);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "overdetermined")), 0);
    cJSON_Delete(j);
    run_close(&x);
}

Test(ap, json_refused)
{
    run x;
    run_text(&x, "x : real; y : real;\n"
                 "e1 : equation x = 1;\n"
                 "e2 : equation x = 2;\n",
             false);
    cr_assert(!x.rep->accepted);
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_approx(x.rep, &j), MDAE_OK);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(j, "accepted")));
    cJSON *e0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "equations"), 0);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(e0, "matched")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(e0, "c")));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "overdetermined")), 2);
    cJSON *under = cJSON_GetObjectItem(j, "underdetermined");
    cr_assert_eq(cJSON_GetArraySize(under), 1);
    cr_assert_str_eq(cJSON_GetArrayItem(under, 0)->valuestring, "y");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "blocks")), 0);
    /* Singular in its one mode: nothing the tool gets wrong. */
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "findings")), 0);
    cJSON_Delete(j);
    cr_assert_eq(rpc_json_approx(NULL, &j), MDAE_E_INVAL);
    run_close(&x);
}
