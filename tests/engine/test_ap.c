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
#include "fx.h"
#include "mo.h"
#include "rpc_json.h"
#include "ref.h"
#include "sa.h"

#include "model_files.h"
#include "test_env.h"

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
            in = sa_set_literal(s, c, k) < 0 || (sa_set_literal(s, c, k) == 1) == mode[k];
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
    const mel_equation *e = &x.m->equations[mel_model_find_equation(x.m, "eh2")];
    cr_assert_eq(f->where.start.line, e->where.start.line);
    /* RR-9459's (4): yh = -(if bh then x - xmax else 0)/(if bh then 0 else 1) */
    if (e->lhs != NULL) { /* the front-end kept the expressions */
        cr_assert_not_null(f->pivot, "%s", file);
        cr_assert_not_null(strstr(f->pivot, "if bh then 0 else 1"), "%s: %s", file, f->pivot);
    }
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
    /* Dymola's pivot, RR-9459 Figure 12: (if p then 0.0 else 1.0) */
    if (x.m->equations[0].lhs != NULL)
        cr_assert_not_null(strstr(f->pivot ? f->pivot : "", "if p then 0 else 1"), "%s", file);
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
    cr_assert(x.rep->accepted, "%s", file);
    cr_assert_gt(count_kind(&x, AP_OFFSETS), 0, "%s", file);
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
 * though the exact analysis solves it when !g. */
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
    /* e1 | e3 (merged by position), e2, e4: three rows, two columns. */
    cr_assert_eq(x.rep->n_equations, 3);
    cr_assert_str_eq(x.rep->equations[0].name, "e1|e3");
    cr_assert(!x.rep->accepted);
    const ap_finding *f = finding(&x, AP_REFUSED, NULL, NULL);
    cr_assert_not_null(f);
    /* when g, e1, e2 and e4 over x and y: singular; the tool fails when !g */
    cr_assert_str_eq(f->modes.formula, "!g");
    cr_assert_eq(x.rep->n_blocks, 0);
    bool over = false;
    for (uint32_t q = 0; q < x.rep->n_equations; q++)
        over |= x.rep->equations[q].overdetermined;
    cr_assert(over);
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
/* ap_options.no_wrong_modes (the editor's warnings): the same findings,
 * sets, messages and wrong count; wrong_modes left out, said so, and
 * refused by the JSON (which must carry it). */
Test(ap, findings_only_keep_everything_but_the_union)
{
    static const char *const files[] = {"clutch.mel", "water_tank.mel", "rldc2.mel"};
    for (size_t t = 0; t < sizeof files / sizeof *files; t++) {
        run x;
        run_file(&x, files[t]);
        ap_options opt = {.no_wrong_modes = true};
        ap_report *f = NULL;
        cr_assert_eq(ap_analyze_ex(x.m, x.r, &opt, &f), MDAE_OK);
        cr_assert(!x.rep->wrong_modes_left);
        cr_assert_not_null(x.rep->wrong_modes.formula);
        cr_assert(f->wrong_modes_left, "%s", files[t]);
        cr_assert_null(f->wrong_modes.formula);
        cr_assert_eq(f->wrong_count, x.rep->wrong_count, "%s", files[t]);
        cr_assert_eq(f->n_findings, x.rep->n_findings, "%s", files[t]);
        cr_assert_gt(f->n_findings, 0, "%s", files[t]);
        for (size_t k = 0; k < f->n_findings; k++) {
            const ap_finding *a = &x.rep->findings[k], *b = &f->findings[k];
            cr_assert_eq(a->kind, b->kind);
            cr_assert_eq(a->count, b->count);
            cr_assert_str_eq(a->message, b->message);
            cr_assert_str_eq(a->modes.formula, b->modes.formula);
        }
        cJSON *j = NULL;
        cr_assert_eq(rpc_json_approx(f, &j), MDAE_E_INVAL);
        ap_report_free(f);
        run_close(&x);
    }
}

/* ap_options.detail_max: the first findings as they are, the others with
 * their kind, indices, count and place only; said so, refused by the JSON. */
Test(ap, details_of_the_first_findings_only)
{
    run x;
    run_file(&x, "rldc2.mel");
    cr_assert_gt(x.rep->n_findings, 2, "the test needs findings past the first");
    ap_options opt = {.detail_max = 2};
    ap_report *f = NULL;
    cr_assert_eq(ap_analyze_ex(x.m, x.r, &opt, &f), MDAE_OK);
    cr_assert(f->details_left);
    cr_assert(!x.rep->details_left);
    cr_assert_eq(f->n_findings, x.rep->n_findings);
    cr_assert_str_eq(f->wrong_modes.formula, x.rep->wrong_modes.formula);
    cr_assert_eq(f->wrong_count, x.rep->wrong_count);
    for (size_t k = 0; k < f->n_findings; k++) {
        const ap_finding *a = &x.rep->findings[k], *b = &f->findings[k];
        cr_assert_eq(a->kind, b->kind);
        cr_assert_eq(a->count, b->count);
        cr_assert_eq(a->equation, b->equation);
        cr_assert_eq(a->variable, b->variable);
        cr_assert_eq(a->approx_eq, b->approx_eq);
        cr_assert_eq(a->where.start.offset, b->where.start.offset);
        if (k < 2) {
            cr_assert_str_eq(a->message, b->message);
            cr_assert_str_eq(a->modes.formula, b->modes.formula);
        } else {
            cr_assert_null(b->message, "finding %zu", k);
            cr_assert_null(b->modes.formula, "finding %zu", k);
            cr_assert_null(b->pivot, "finding %zu", k);
        }
    }
    cJSON *j = NULL;
    cr_assert_eq(rpc_json_approx(f, &j), MDAE_E_INVAL);
    ap_report_free(f);
    run_close(&x);
}

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

/* ---- Against the brute-force reference -------------------------------------- */

typedef struct vs_stats {
    size_t models, modes, valid, wrong, pivots, offsets, singular, refused, not_accepted;
} vs_stats;

static bool in_set(uint32_t n, const sa_set *s, const bool *mode)
{
    for (size_t c = 0; c < s->n_cubes; c++) {
        bool in = true;
        for (uint32_t k = 0; k < n && in; k++)
            in = sa_set_literal(s, c, k) < 0 || (sa_set_literal(s, c, k) == 1) == mode[k];
        if (in)
            return true;
    }
    return false;
}

/* The finding of kind k on index idx (approximate equation for pivots,
 * unknown or equation for offsets), or NULL. */
static const ap_finding *find_kind(const ap_report *rep, ap_kind k, long eq, long var)
{
    for (size_t f = 0; f < rep->n_findings; f++) {
        const ap_finding *fd = &rep->findings[f];
        if (fd->kind != k)
            continue;
        if (k == AP_PIVOT && fd->approx_eq == eq)
            return fd;
        if (k == AP_OFFSETS && fd->equation == eq && fd->variable == var)
            return fd;
        if (k == AP_SINGULAR || k == AP_REFUSED)
            return fd;
    }
    return NULL;
}

typedef struct expect {
    const ap_finding *f;
    double count; /* valid modes where the reference says it holds */
} expect;

/* In this mode: the finding f holds per the engine iff `ref` says so. */
static void agree(const char *label, const mel_model *m, const bool *mode, expect *e,
                  const ap_finding *f, bool ref, const char *what, long idx)
{
    bool eng = f != NULL && in_set(m->n_modes, &f->modes, mode);
    if (eng != ref) {
        char ms[256] = "";
        for (uint32_t k = 0; k < m->n_modes && k < 40; k++)
            strcat(ms, mode[k] ? "1" : "0");
        cr_assert_fail("%s: mode %s: %s %ld: engine %d, reference %d", label, ms, what, idx,
                       eng, ref);
    }
    if (e != NULL)
        e->count += ref;
}

static void compare_blocks(const char *label, const ap_report *rep, const ref_approx *a)
{
    ref_blocks rb;
    cr_assert_eq(ref_mode_blocks(&a->rm, &rb), MDAE_OK);
    cr_assert_eq(rep->n_blocks, rb.n_blocks, "%s: %u blocks, reference %u", label,
                 rep->n_blocks, rb.n_blocks);
    /* The same partition, in an order the dependencies allow. */
    int *pos = calloc(rep->n_equations + 1, sizeof *pos);
    for (uint32_t b = 0; b < rep->n_blocks; b++)
        for (uint32_t k = 0; k < rep->blocks[b].n; k++)
            pos[rep->blocks[b].equations[k]] = (int)b;
    for (uint32_t q = 0; q < rep->n_equations; q++)
        for (uint32_t p = 0; p < rep->n_equations; p++) {
            bool same_ref = rb.block_of_eq[q] == rb.block_of_eq[p];
            cr_assert_eq(same_ref, pos[q] == pos[p], "%s: rows %u, %u", label, q, p);
            if (!same_ref && rb.dep[(size_t)rb.block_of_eq[q] * rb.n_blocks + (size_t)rb.block_of_eq[p]])
                cr_assert_lt(pos[q], pos[p], "%s: row %u's block after row %u's", label, q, p);
        }
    free(pos);
    ref_blocks_close(&rb);
}

/* The approximate structure itself: rows, acceptance, offsets, matching. */
static void compare_structure(const char *label, const mel_model *m, const ap_report *rep,
                              const ref_approx *a, long *matched)
{
    cr_assert_eq(rep->n_equations, a->n_rows, "%s: rows", label);
    for (uint32_t q = 0; q < rep->n_equations; q++)
        for (uint32_t k = 0; k < rep->equations[q].n_members; k++)
            cr_assert_eq(a->row_of[rep->equations[q].members[k]], q, "%s: members", label);
    cr_assert_eq(rep->accepted, a->accepted, "%s: accepted %d, reference %d", label,
                 rep->accepted, a->accepted);
    if (!rep->accepted) {
        for (uint32_t q = 0; q < rep->n_equations; q++)
            cr_assert_eq(rep->equations[q].overdetermined, a->rm.overdetermined[q], "%s", label);
        for (uint32_t j = 0; j < m->n_variables; j++)
            cr_assert_eq(rep->underdetermined[j], a->rm.underdetermined[j], "%s", label);
        return;
    }
    for (uint32_t j = 0; j < m->n_variables; j++)
        cr_assert_eq(rep->d[j], a->rm.d[j], "%s: d of %s: %d, reference %d", label,
                     m->variables[j].name, rep->d[j], a->rm.d[j]);
    for (uint32_t q = 0; q < rep->n_equations; q++) {
        const ap_equation *e = &rep->equations[q];
        cr_assert_eq(e->c, a->rm.c[q], "%s: c of %s", label, e->name);
        matched[q] = e->matched;
        cr_assert_eq(e->sigma, a->sigma[(size_t)q * m->n_variables + (size_t)e->matched]);
    }
    const char *why = NULL;
    cr_assert(ref_approx_check_matching(a, matched, &why), "%s: matching: %s", label, why);
    compare_blocks(label, rep, a);
}

/* Each valid mode: every finding's modes, and their counts when all modes
 * are walked. */
static void compare_modes(const char *label, const mel_model *m, const ap_report *rep,
                          const ref_approx *a, const long *matched, vs_stats *st)
{
    uint32_t nq = rep->n_equations, nv = m->n_variables, ne = m->n_equations;
    expect *piv = calloc(nq + 1, sizeof *piv), *dv = calloc(nv + 1, sizeof *dv),
           *ce = calloc(ne + 1, sizeof *ce), sing = {0}, wrong = {0};
    for (uint32_t q = 0; q < nq; q++)
        piv[q].f = find_kind(rep, AP_PIVOT, q, -1);
    for (uint32_t j = 0; j < nv; j++)
        dv[j].f = find_kind(rep, AP_OFFSETS, -1, j);
    for (uint32_t i = 0; i < ne; i++)
        ce[i].f = find_kind(rep, AP_OFFSETS, i, -1);
    sing.f = find_kind(rep, rep->accepted ? AP_SINGULAR : AP_REFUSED, -1, -1);
    uint64_t state = 0xA9900Dull;
    uint64_t total = ref_modes_total(m->n_modes, 12, 300);
    bool all = m->n_modes <= 12;
    bool *mode = calloc(m->n_modes + 1, 1);
    for (uint64_t x = 0; x < total; x++) {
        ref_modes_at(x, m->n_modes, 12, &state, mode);
        ref_approx_mode am;
        cr_assert_eq(ref_approx_mode_compute(m, a, rep->accepted ? matched : NULL, mode, &am),
                     MDAE_OK);
        st->modes++;
        if (am.valid) {
            st->valid++;
            for (uint32_t q = 0; q < nq; q++)
                agree(label, m, mode, &piv[q], piv[q].f, am.pivot_zero[q], "pivot of row", q);
            for (uint32_t j = 0; j < nv; j++)
                agree(label, m, mode, &dv[j], dv[j].f, am.d_differs[j], "d of unknown", j);
            for (uint32_t i = 0; i < ne; i++)
                agree(label, m, mode, &ce[i], ce[i].f, am.c_differs[i], "c of equation", i);
            agree(label, m, mode, &sing, sing.f, am.refused || am.singular_accepted,
                  "singular/refused", 0);
            cr_assert_eq(in_set(m->n_modes, &rep->wrong_modes, mode), am.any,
                         "%s: wrong_modes", label);
            wrong.count += am.any;
            st->wrong += am.any;
        }
        ref_approx_mode_close(&am);
    }
    if (all) {
        for (uint32_t q = 0; q < nq; q++)
            cr_assert(piv[q].f == NULL || piv[q].f->count == piv[q].count, "%s: count", label);
        for (uint32_t j = 0; j < nv; j++)
            cr_assert(dv[j].f == NULL || dv[j].f->count == dv[j].count, "%s: count", label);
        for (uint32_t i = 0; i < ne; i++)
            cr_assert(ce[i].f == NULL || ce[i].f->count == ce[i].count, "%s: count", label);
        cr_assert(sing.f == NULL || sing.f->count == sing.count, "%s: count", label);
        cr_assert_eq(rep->wrong_count, wrong.count, "%s: wrong count", label);
    }
    for (size_t f = 0; f < rep->n_findings; f++) {
        ap_kind k = rep->findings[f].kind;
        st->pivots += k == AP_PIVOT;
        st->offsets += k == AP_OFFSETS;
        st->singular += k == AP_SINGULAR;
        st->refused += k == AP_REFUSED;
        cr_assert_gt(rep->findings[f].count, 0, "%s", label);
        cr_assert_not_null(rep->findings[f].message);
    }
    free(mode);
    free(piv);
    free(dv);
    free(ce);
}

/* Parse, analyse both ways, compare. False if the model is not analysed
 * (a parse error of the generator, a model the engine refuses). */
static bool compare_model_tweaked(const char *label, const char *text, const mel_options *opt,
                                  void (*tweak)(mel_model *m), vs_stats *st)
{
    mel_model *m = NULL;
    if (mel_model_parse(text, strlen(text), opt, &m, NULL) != MDAE_OK)
        return false;
    if (tweak != NULL)
        tweak(m);
    sa_result *r = NULL;
    if (sa_analyze(m, NULL, &r, NULL) != MDAE_OK) {
        mel_model_free(m);
        return false;
    }
    ap_report *rep = NULL;
    cr_assert_eq(ap_analyze(m, r, &rep), MDAE_OK, "%s", label);
    ref_approx a;
    cr_assert_eq(ref_approx_build(m, &a), MDAE_OK, "%s", label);
    long *matched = calloc(rep->n_equations + 1, sizeof *matched);
    compare_structure(label, m, rep, &a, matched);
    compare_modes(label, m, rep, &a, matched, st);
    st->models++;
    st->not_accepted += !rep->accepted;
    free(matched);
    ref_approx_close(&a);
    ap_report_free(rep);
    sa_result_free(r);
    mel_model_free(m);
    return true;
}

static bool compare_model(const char *label, const char *text, const mel_options *opt,
                          vs_stats *st)
{
    return compare_model_tweaked(label, text, opt, NULL, st);
}

static void random_models(uint64_t first, uint64_t count, const ref_random_opts *o, vs_stats *st)
{
    uint64_t base = env_u64("MDAE_SEED", 0xA99A0000ull);
    for (uint64_t t = first; t < first + count; t++) {
        char *text = ref_random_model(base + t, o);
        cr_assert_not_null(text);
        char label[8192];
        snprintf(label, sizeof label, "random model, seed %llu:\n%s",
                 (unsigned long long)(base + t), text);
        compare_model(label, text, NULL, st);
        mdae_free(text);
    }
}

Test(ap, agrees_with_the_reference_on_random_models)
{
    vs_stats st = {0};
    uint64_t n = env_u64("MDAE_RANDOM_MODELS", 250);
    ref_random_opts o = {.nonsquare_percent = 15, .when_percent = 20};
    random_models(0, n, &o, &st);
    cr_log_info("random: %zu models, %zu modes (%zu valid, %zu wrong); findings: %zu pivot, "
                "%zu offsets, %zu singular, %zu refused",
                st.models, st.modes, st.valid, st.wrong, st.pivots, st.offsets, st.singular,
                st.refused);
    cr_assert_geq(st.models, n * 9 / 10);
    if (n >= 100) { /* both sides of each comparison are exercised */
        cr_assert_gt(st.pivots, 0);
        cr_assert_gt(st.offsets, 0);
        cr_assert_gt(st.refused, 0);
        cr_assert_gt(st.singular, 0);
        cr_assert_gt(st.wrong, 0);
        cr_assert_lt(st.wrong, st.valid);
    }
}

Test(ap, agrees_with_the_reference_on_random_singular_models)
{
    vs_stats st = {0};
    uint64_t n = env_u64("MDAE_RANDOM_MODELS", 100);
    ref_random_opts o = {.max_equations = 9, .singular_edits = 3};
    random_models(100000, n, &o, &st);
    cr_log_info("singular: %zu models, %zu modes (%zu valid, %zu wrong); findings: %zu pivot, "
                "%zu offsets, %zu singular, %zu refused",
                st.models, st.modes, st.valid, st.wrong, st.pivots, st.offsets, st.singular,
                st.refused);
    cr_assert_geq(st.models, n * 9 / 10);
    /* Mostly refused (their union is not square): the DM parts compared. */
    if (n >= 50)
        cr_assert_gt(st.not_accepted, n / 2);
}

static void family_file(const char *file, long lo, long hi)
{
    char *text = tm_slurp(file);
    vs_stats st = {0};
    for (long n = lo; n <= hi; n++) {
        mel_define def = {"N", n};
        mel_options opt = {.defines = &def, .n_defines = 1};
        char label[160];
        snprintf(label, sizeof label, "%s with N=%ld", file, n);
        cr_assert(compare_model(label, text, &opt, &st), "%s", label);
    }
    free(text);
}

Test(ap, agrees_with_the_reference_on_the_families)
{
    family_file("brake.mel", 1, 3);
    family_file("building_compressible.mel", 1, 3);
    family_file("building_incompressible.mel", 1, 3);
    family_file("rldc_chain.mel", 1, 4);
}

Test(ap, agrees_with_the_reference_on_the_paper_examples)
{
    static const char *const files[] = {"rldc2.mel", "water_tank.mel", "water_tank_mo.mel",
                                        "two_equations.mel", "clutch.mel", "cup_and_ball.mel",
                                        "singular_simple.mel", "cup_and_ball_elastic.mel"};
    vs_stats st = {0};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        char *text = tm_slurp(files[k]);
        cr_assert(compare_model(files[k], text, NULL, &st), "%s", files[k]);
        free(text);
    }
}

/* If-equations merged by position (mel_equation.cond, cond_pos: the
 * front-ends fill them; set here by hand so that the merge is tested on
 * its own): e1 | e3 and e2 | e4 are one equation each to a single-mode
 * tool; the lexicographic choice (edges false first: sm.h) solves e1 | e3
 * for y, and when g, e1 has no y: the pivot is zero. */
static const char merged_text[] = "x : real; y : real; g : boolean;\n"
                                  "if g then\n"
                                  "  e1 : equation x = 1;\n"
                                  "  e2 : equation y = x\n"
                                  "else\n"
                                  "  e3 : equation y = 3;\n"
                                  "  e4 : equation x = y\n"
                                  "end;\n";

static void set_positions(mel_model *m)
{
    mel_equation *eq = (mel_equation *)m->equations; /* the model's own array */
    for (uint32_t i = 0; i < m->n_equations; i++) {
        eq[i].cond = 1;
        eq[i].cond_pos = i % 2;
    }
}

Test(ap, merges_if_equations_by_position)
{
    vs_stats st = {0};
    cr_assert(compare_model_tweaked("merged", merged_text, NULL, set_positions, &st));
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(merged_text, sizeof merged_text - 1, NULL, &m, NULL), MDAE_OK);
    set_positions(m);
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &r, NULL), MDAE_OK);
    ap_report *rep = NULL;
    cr_assert_eq(ap_analyze(m, r, &rep), MDAE_OK);
    cr_assert(rep->accepted);
    cr_assert_eq(rep->n_equations, 2);
    cr_assert_str_eq(rep->equations[0].name, "e1|e3");
    cr_assert_str_eq(rep->equations[1].name, "e2|e4");
    cr_assert_eq(rep->equations[0].n_members, 2);
    cr_assert_eq(rep->equations[0].matched, mel_model_find_variable(m, "y"));
    /* Its span: from e1 to e3. */
    cr_assert_eq(rep->equations[0].where.start.line, m->equations[0].where.start.line);
    cr_assert_eq(rep->equations[0].where.end.line, m->equations[2].where.end.line);
    const ap_finding *f = find_kind(rep, AP_PIVOT, 0, -1);
    cr_assert_not_null(f);
    cr_assert_str_eq(f->modes.formula, "g");
    cr_assert_null(find_kind(rep, AP_PIVOT, 1, -1));
    ap_report_free(rep);
    sa_result_free(r);
    mel_model_free(m);
}

/* ---- Pivot texts ------------------------------------------------------------ */

static const mdae_range nowhere = {{0, 0, 0}, {0, 0, 0}};

/* TwoEquations with its expression set by hand (the front-ends fill
 * mel_equation.lhs/rhs; this tests the pivot on its own):
 * 1 = if p then x else der(x), solved for der(x): the pivot is
 * d(1 - (if p then x else der(x)))/d der(x), zero when p. */
Test(ap, pivot_text_of_two_equations)
{
    run x;
    run_file(&x, "two_equations.mel");
    ap_report_free(x.rep);
    fx_pool *p = fx_pool_new();
    mel_equation *e = (mel_equation *)&x.m->equations[0];
    e->lhs = fx_num(p, 1, true, nowhere);
    e->rhs = fx_if(p, fx_mode(p, 0, nowhere), fx_var(p, 0, 0, nowhere), fx_var(p, 0, 1, nowhere),
                   nowhere);
    cr_assert_eq(ap_analyze(x.m, x.r, &x.rep), MDAE_OK);
    const ap_finding *f = finding(&x, AP_PIVOT, "e", "x");
    cr_assert_not_null(f);
    cr_assert_not_null(f->pivot);
    cr_assert_not_null(strstr(f->pivot, "if p then 0 else 1"), "pivot: %s", f->pivot);
    cr_assert_not_null(strstr(f->message, f->pivot), "%s", f->message);
    cr_log_info("%s", f->message);
    /* Modelica's syntax on request. */
    ap_report *mo = NULL;
    ap_options opt = {.syntax = FX_SYNTAX_MODELICA};
    cr_assert_eq(ap_analyze_ex(x.m, x.r, &opt, &mo), MDAE_OK);
    const ap_finding *g = NULL;
    for (size_t k = 0; k < mo->n_findings; k++)
        if (mo->findings[k].kind == AP_PIVOT)
            g = &mo->findings[k];
    cr_assert_not_null(g);
    cr_assert_not_null(g->pivot);
    cr_log_info("Modelica: %s", g->pivot);
    ap_report_free(mo);
    e->lhs = e->rhs = NULL;
    run_close(&x);
    fx_pool_free(p);
}

/* A merged equation's pivot: `if G1 then r1 else if G2 then r2 else 0`
 * differentiated. merged_text with e1: x = 1, e3: y = 3 (solved for y). */
Test(ap, pivot_text_of_a_merged_equation)
{
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(merged_text, sizeof merged_text - 1, NULL, &m, NULL), MDAE_OK);
    set_positions(m);
    fx_pool *p = fx_pool_new();
    mel_equation *eq = (mel_equation *)m->equations;
    long vx = mel_model_find_variable(m, "x"), vy = mel_model_find_variable(m, "y");
    eq[0].lhs = fx_var(p, (uint32_t)vx, 0, nowhere);
    eq[0].rhs = fx_num(p, 1, true, nowhere);
    eq[2].lhs = fx_var(p, (uint32_t)vy, 0, nowhere);
    eq[2].rhs = fx_num(p, 3, true, nowhere);
    sa_result *r = NULL;
    cr_assert_eq(sa_analyze(m, NULL, &r, NULL), MDAE_OK);
    ap_report *rep = NULL;
    cr_assert_eq(ap_analyze(m, r, &rep), MDAE_OK);
    const ap_finding *f = find_kind(rep, AP_PIVOT, 0, -1);
    cr_assert_not_null(f);
    cr_assert_not_null(f->pivot, "no pivot text");
    cr_assert_not_null(strstr(f->pivot, "if g then 0"), "pivot: %s", f->pivot);
    cr_log_info("merged: %s", f->pivot);
    /* e2 | e4 kept no expression: no text, no error. */
    ap_report_free(rep);
    for (uint32_t i = 0; i < m->n_equations; i++)
        eq[i].lhs = eq[i].rhs = NULL;
    sa_result_free(r);
    mel_model_free(m);
    fx_pool_free(p);
}

/* ap_options.progress (the editor's cancel): called with phase "approx"
 * between the four steps before the comparison, then during the
 * comparison every AP_POLL_ITEMS items; a callback that never cancels
 * leaves the report the one made without it; one that cancels, at any of
 * the steps or in the comparison, ends the analysis with MDAE_E_CANCELED
 * (and frees what it made: ASan). */
typedef struct polls {
    size_t calls, cancel_at;
} polls;

static int count_polls(void *ctx, const char *phase, size_t done, size_t total)
{
    polls *p = ctx;
    cr_assert_str_eq(phase, "approx");
    cr_assert_leq(done, total);
    return ++p->calls == p->cancel_at;
}

Test(ap, a_cancel_ends_the_comparison)
{
    char *text = tm_slurp("brake.mel");
    mel_define d;
    mel_options mo = tm_options_n(&d, 60);
    run x = {0};
    cr_assert_eq(mel_model_parse(text, strlen(text), &mo, &x.m, NULL), MDAE_OK);
    cr_assert_eq(sa_analyze(x.m, NULL, &x.r, NULL), MDAE_OK);
    cr_assert_eq(ap_analyze(x.m, x.r, &x.rep), MDAE_OK);
    polls p = {0};
    ap_options opt = {.progress = count_polls, .progress_ctx = &p};
    ap_report *f = NULL;
    cr_assert_eq(ap_analyze_ex(x.m, x.r, &opt, &f), MDAE_OK);
    size_t items = (size_t)x.m->n_variables + x.m->n_equations + f->n_equations;
    cr_assert_geq(p.calls, 4 + items / AP_POLL_ITEMS, "%zu polls of %zu items", p.calls, items);
    cr_assert_eq(f->n_findings, x.rep->n_findings);
    cr_assert_str_eq(f->wrong_modes.formula, x.rep->wrong_modes.formula);
    for (size_t k = 0; k < f->n_findings; k++)
        cr_assert_str_eq(f->findings[k].message, x.rep->findings[k].message);
    ap_report_free(f);
    for (size_t at = 1; at <= 7; at++) { /* the steps' 4, the comparison's */
        polls c = {.cancel_at = at};
        opt.progress_ctx = &c;
        f = NULL;
        cr_assert_eq(ap_analyze_ex(x.m, x.r, &opt, &f), MDAE_E_CANCELED, "cancel at %zu", at);
        cr_assert_null(f);
        cr_assert_eq(c.calls, at);
    }
    run_close(&x);
    free(text);
}
