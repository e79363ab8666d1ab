/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mel_exprs.c -- the expressions the MEL front-end keeps
 * (issue 38; engine/fx.h, mel.h's lhs/rhs, cond/cond_pos, mode definitions,
 * known quantities): expected trees printed as S-expressions, their
 * agreement with the incidences in every mode (fx_check_incidences) on the
 * paper models and random ones, the structure identical with and without
 * expressions, quoted identifiers, and allocation failures.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail_alloc.h"
#include "fx.h"
#include "fx_check.h"
#include "fx_sexpr.h"
#include "mel_test_util.h"
#include "mo.h"
#include "model_files.h"
#include "ref.h"

/* ---- S-expressions (fx_sexpr.h) ------------------------------------------------
 * Numbers %g, unknowns by name with one ' per derivative, knowns and modes
 * by name, & and | for and and or, opaque text {text}; (op kids...)
 * otherwise, unknown calls by their name. Static buffer: one at a time. */
static const char *sx(const mel_model *m, const fx_node *e)
{
    fx_sexpr_style st = {
        .m = m, .short_numbers = true, .and_ = "&", .or_ = "|", .opaque = FX_SEXPR_OPAQUE_TEXT};
    return fx_sexpr(&st, e);
}

static const mel_equation *eq_named(const mel_model *m, const char *name)
{
    long k = mel_model_find_equation(m, name);
    cr_assert_geq(k, 0, "no equation %s", name);
    return &m->equations[k];
}

/* Equation `name` reads lhs = rhs (as S-expressions). */
static void eq_is(const mel_model *m, const char *name, const char *lhs, const char *rhs)
{
    const mel_equation *q = eq_named(m, name);
    cr_assert_str_eq(sx(m, q->lhs), lhs, "%s: lhs", name);
    cr_assert_str_eq(sx(m, q->rhs), rhs, "%s: rhs", name);
}

/* ---- Models ---------------------------------------------------------------------- */

static mel_model *parse_file(const char *file, long long n, bool no_expressions)
{
    char *src = tm_slurp(file);
    mel_define d;
    mel_options o = tm_options_n(&d, n > 0 ? n : -1); /* n = 0: no define */
    o.no_expressions = no_expressions;
    mel_model *m = mt_parse_opt(src, &o);
    free(src);
    return m;
}

/* fx_check_incidences in every mode (up to 2^10), or 512 sampled ones. */
static void check_modes(const mel_model *m, uint64_t seed, const char *what)
{
    bool *mode = calloc(m->n_modes + 1, sizeof *mode);
    cr_assert_not_null(mode);
    bool all = m->n_modes <= 10;
    uint64_t count = all ? (uint64_t)1 << m->n_modes : 512, state = seed;
    for (uint64_t c = 0; c < count; c++) {
        uint64_t bits = all ? c : ref_rand_next(&state);
        for (uint32_t k = 0; k < m->n_modes; k++)
            mode[k] = all || k < 64 ? (bits >> (k % 64)) & 1 : ref_rand_next(&state) & 1;
        char why[512];
        cr_assert(fx_check_incidences(m, mode, why, sizeof why), "%s, mode %llu: %s", what,
                  (unsigned long long)c, why);
    }
    free(mode);
}

static void every_equation_has_sides(const mel_model *m, const char *what)
{
    for (uint32_t i = 0; i < m->n_equations; i++) {
        cr_assert_not_null(m->equations[i].lhs, "%s: %s", what, m->equations[i].name);
        cr_assert_not_null(m->equations[i].rhs, "%s: %s", what, m->equations[i].name);
    }
}

static void guards_equal(const mel_model *a, const mel_model *b, const mel_guard *ga,
                         const mel_guard *gb)
{
    char *x = mel_guard_format(a, ga), *y = mel_guard_format(b, gb);
    cr_assert_str_eq(x, y);
    mdae_free(x);
    mdae_free(y);
}

/* The structure of a (expressions kept) and b (not kept) is the same; b
 * has no expressions. */
static void same_structure(const mel_model *a, const mel_model *b)
{
    cr_assert_eq(a->n_modes, b->n_modes);
    cr_assert_eq(a->n_variables, b->n_variables);
    cr_assert_eq(a->n_equations, b->n_equations);
    cr_assert_eq(a->n_invariants, b->n_invariants);
    cr_assert_eq(a->n_edges, b->n_edges);
    cr_assert_eq(a->n_params, b->n_params);
    cr_assert_eq(a->n_integers, b->n_integers);
    cr_assert_eq(a->n_whens, b->n_whens);
    cr_assert_eq(b->n_knowns, 0);
    cr_assert_null(b->knowns);
    cr_assert_null(mel_model_exprs(b));
    cr_assert_not_null(mel_model_exprs(a));
    cr_assert_eq(a->n_knowns, a->n_params + a->n_integers);
    for (uint32_t k = 0; k < a->n_modes; k++) {
        cr_assert_str_eq(a->modes[k].name, b->modes[k].name);
        cr_assert_eq(a->modes[k].reads_var, b->modes[k].reads_var);
        cr_assert_null(b->modes[k].def);
    }
    for (uint32_t k = 0; k < a->n_invariants; k++)
        guards_equal(a, b, a->invariants[k].cond, b->invariants[k].cond);
    for (uint32_t k = 0; k < a->n_variables; k++) {
        cr_assert_str_eq(a->variables[k].name, b->variables[k].name);
        guards_equal(a, b, a->variables[k].guard, b->variables[k].guard);
    }
    for (uint32_t i = 0; i < a->n_equations; i++) {
        const mel_equation *p = &a->equations[i], *q = &b->equations[i];
        cr_assert_str_eq(p->name, q->name);
        cr_assert_null(q->lhs);
        cr_assert_null(q->rhs);
        cr_assert_eq(p->when, q->when);
        cr_assert_eq(p->cond, q->cond);
        cr_assert_eq(p->cond_pos, q->cond_pos);
        guards_equal(a, b, p->guard, q->guard);
        cr_assert_eq(p->n_incs, q->n_incs, "%s", p->name);
        for (uint32_t k = 0; k < p->n_incs; k++) {
            const mel_incidence *x = &p->incs[k], *y = &q->incs[k];
            cr_assert_eq(x->var, y->var);
            cr_assert_eq(x->n_cases, y->n_cases);
            for (uint32_t c = 0; c < x->n_cases; c++) {
                cr_assert_eq(x->cases[c].order, y->cases[c].order);
                cr_assert_eq(x->cases[c].next, y->cases[c].next);
                guards_equal(a, b, x->cases[c].guard, y->cases[c].guard);
            }
        }
    }
}

/* Every check of one model file (n: -D N, or 0). */
static void check_file(const char *file, long long n)
{
    mel_model *m = parse_file(file, n, false), *s = parse_file(file, n, true);
    every_equation_has_sides(m, file);
    check_modes(m, 42, file);
    same_structure(m, s);
    mel_model_free(m);
    mel_model_free(s);
}

Test(mel_exprs, paper_models_keep_equations_that_agree_with_their_incidences)
{
    check_file("water_tank.mel", 0);
    check_file("two_equations.mel", 0);
    check_file("clutch.mel", 0);
    check_file("rldc2.mel", 0);
    check_file("cup_and_ball_elastic_impact.mel", 0);
    check_file("brake.mel", 3);
    check_file("brake.mel", 6);
    check_file("building_compressible.mel", 3);
    check_file("building_incompressible.mel", 4);
}

Test(mel_exprs, random_models_agree_with_their_incidences)
{
    ref_random_opts o = {.when_percent = 20};
    int checked = 0;
    for (uint64_t seed = 1; seed <= 100; seed++) {
        mel_model *m = ref_random_parsed(seed, &o);
        if (m == NULL)
            continue;
        char what[32];
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
        every_equation_has_sides(m, what);
        check_modes(m, seed, what);
        char *text = ref_random_model(seed, &o);
        cr_assert_not_null(text);
        mel_options no = {.no_expressions = true};
        mel_model *s = NULL;
        cr_assert_eq(mel_model_parse(text, strlen(text), &no, &s, NULL), MDAE_OK, "%s", what);
        same_structure(m, s);
        mel_model_free(s);
        mdae_free(text);
        mel_model_free(m);
        checked++;
    }
    cr_assert_gt(checked, 50);
}

/* ---- Expected trees ---------------------------------------------------------------- */

Test(mel_exprs, water_tank_trees_knowns_and_mode_definitions)
{
    mel_model *m = parse_file("water_tank.mel", 0, false);
    eq_is(m, "e0", "y", "(defaultOutputFlow time)");
    eq_is(m, "e2", "x'", "(+ z yl (- yh) (- y))");
    eq_is(m, "eh1", "sh", "(if bh yh (+ x (- xmax)))");
    eq_is(m, "eh2", "0", "(if bh (+ x (- xmax)) yh)");
    const fx_node *r = eq_named(m, "e2")->rhs;
    cr_assert_eq(r->op, FX_ADD);
    cr_assert_eq(r->kids[0]->op, FX_VAR);
    cr_assert_eq(r->kids[0]->where.start.line, 42);
    cr_assert_eq(r->kids[0]->where.start.col, 24);
    cr_assert_eq(m->n_knowns, 3);
    cr_assert_str_eq(m->knowns[0].name, "xmax");
    cr_assert_eq(m->knowns[0].kind, MEL_KNOWN_REAL);
    cr_assert(m->knowns[0].known);
    cr_assert_float_eq(m->knowns[0].value, 1.0, 0);
    cr_assert_str_eq(sx(m, m->knowns[0].binding), "1");
    cr_assert_eq(mel_model_find_known(m, "time"), 2);
    long bh = mel_model_find_mode(m, "bh");
    cr_assert_str_eq(sx(m, m->modes[bh].def), "(>= sh 0)");
    for (uint32_t i = 0; i < m->n_equations; i++)
        cr_assert_eq(m->equations[i].cond, 0);
    mel_model_free(m);
}

Test(mel_exprs, loops_integers_parameters_products_and_calls)
{
    mel_model *m = mt_parse("N : integer = 3;\n"
                            "M : integer = N + 1;\n"
                            "foreach i in 1..N do x[i] : real done;\n"
                            "foreach i in 1..N do\n"
                            "  e[i] : equation der(x[i]) = if i > 1 then x[i-1] * 2 / p * q\n"
                            "                              else sin(x[i]) ^ N - M\n"
                            "done;\n"
                            "p : real = 2 * q; q : real = 3; r : real = foo(q);\n"
                            "y : real; z : real;\n"
                            "f : equation der(der(y)) + der(y + z) = atan2(y, z) + sin(y, z)\n"
                            "               + bar() + der(p) + pre(z) - last(y);\n"
                            "g : boolean = y > 0 & !(z <= 1) | y == z;\n"
                            "h : equation z = if g then -y else if !g & true then 1.5 else 2e3\n");
    eq_is(m, "e[1]", "x[1]'", "(+ (^ (sin x[1]) 3) (- 4))");
    eq_is(m, "e[2]", "x[2]'", "(* (/ (* x[1] 2) p) q)");
    eq_is(m, "e[3]", "x[3]'", "(* (/ (* x[2] 2) p) q)");
    eq_is(m, "f", "(+ y'' (der (+ y z)))",
          "(+ (atan2 y z) (sin y z) (bar) (der p) (pre z) (- (last y)))");
    eq_is(m, "h", "z", "(if g (- y) (if (& (! g) true) 1.5 2000))");
    const fx_node *r = eq_named(m, "f")->rhs;
    cr_assert_eq(r->kids[0]->fn, FX_FN_ATAN2);
    cr_assert_eq(r->kids[1]->fn, FX_FN_UNKNOWN); /* sin with two arguments */
    cr_assert(eq_named(m, "e[1]")->rhs->kids[0]->kids[1]->is_int);
    cr_assert_str_eq(sx(m, m->modes[0].def), "(| (& (> y 0) (! (<= z 1))) (== y z))");
    /* knowns: N M p q r in declaration order */
    cr_assert_eq(m->n_knowns, 5);
    const char *names[] = {"N", "M", "p", "q", "r"};
    for (uint32_t k = 0; k < 5; k++)
        cr_assert_str_eq(m->knowns[k].name, names[k]);
    cr_assert_eq(m->knowns[1].kind, MEL_KNOWN_INTEGER);
    cr_assert_str_eq(sx(m, m->knowns[1].binding), "(+ 3 1)");
    cr_assert_float_eq(m->knowns[1].value, 4, 0);
    cr_assert_str_eq(sx(m, m->knowns[2].binding), "(* 2 q)");
    cr_assert(m->knowns[2].known, "p is read from q, declared after it");
    cr_assert_float_eq(m->knowns[2].value, 6, 0);
    cr_assert_not(m->knowns[4].known, "foo is not a known function");
    mel_model_free(m);
}

Test(mel_exprs, a_minus_D_integer_is_its_value)
{
    mel_define d = {"N", 7};
    mel_options o = {.defines = &d, .n_defines = 1};
    mel_model *m = mt_parse_opt("N : integer = 3; x : real; e : equation x = N;", &o);
    eq_is(m, "e", "x", "7");
    cr_assert_str_eq(sx(m, m->knowns[0].binding), "7");
    cr_assert_float_eq(m->knowns[0].value, 7, 0);
    mel_model_free(m);
}

Test(mel_exprs, conditional_statements_number_their_equations)
{
    mel_model *m = mt_parse("g : boolean; h : boolean; x : real; y : real; z : real;\n"
                            "o : equation x = 0;\n"
                            "if g then\n"
                            "  a : equation y = 1; b : equation z = 1;\n"
                            "  if h then c : equation x + y = 2 end\n"
                            "else\n"
                            "  d : equation y = 2\n"
                            "end;\n"
                            "foreach i in 1..2 do\n"
                            "  if i > 1 then k[i] : equation x = 3 end;\n"
                            "  if g then f[i] : equation z = i end\n"
                            "done;\n"
                            "if h then s : equation x = 1 else s : equation x = 2 end;\n");
    struct {
        const char *name;
        uint32_t cond, pos;
    } want[] = {{"o", 0, 0},    {"a", 1, 0},    {"b", 1, 1}, {"c", 1, 2}, {"d", 1, 0},
                {"k[2]", 0, 0}, {"f[1]", 2, 0}, {"f[2]", 3, 0}, {"s", 4, 0}};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        const mel_equation *q = eq_named(m, want[k].name);
        cr_assert_eq(q->cond, want[k].cond, "%s", want[k].name);
        cr_assert_eq(q->cond_pos, want[k].pos, "%s", want[k].name);
    }
    eq_is(m, "f[2]", "z", "2");
    /* declared in both branches: one equation, if <second branch> then ... */
    eq_is(m, "s", "(if (! h) x x)", "(if (! h) 2 1)");
    check_modes(m, 1, "conditionals");
    mel_model_free(m);
}

Test(mel_exprs, when_bodies_keep_next)
{
    mel_model *m = parse_file("cup_and_ball_elastic_impact.mel", 0, false);
    eq_is(m, "t1", "(next v)", "(* (- (+ 1 (- alpha))) v)");
    long gamma = mel_model_find_mode(m, "gamma");
    cr_assert_str_eq(sx(m, m->modes[gamma].def), "(<= (last s) 0)");
    mel_model_free(m);
}

Test(mel_exprs, untaken_branches_may_name_what_does_not_exist)
{
    /* x[0] is never elaborated: the condition is constant per instance */
    mel_model *m = mt_parse("foreach i in 1..2 do x[i] : real done;\n"
                            "foreach i in 1..2 do\n"
                            "  e[i] : equation x[i] = if i > 1 then x[i-1] else 0\n"
                            "done;\n");
    eq_is(m, "e[1]", "x[1]", "0");
    eq_is(m, "e[2]", "x[2]", "x[1]");
    mel_model_free(m);
}

Test(mel_exprs, no_expressions_keeps_none)
{
    mel_options o = {.no_expressions = true};
    mel_model *m = mt_parse_opt("p : real = 1; g : boolean = x > p; x : real;\n"
                                "e : equation der(x) = p;", &o);
    cr_assert_null(m->equations[0].lhs);
    cr_assert_null(m->modes[0].def);
    cr_assert_eq(m->n_knowns, 0);
    cr_assert_eq(mel_model_find_known(m, "p"), -1);
    mel_model_free(m);
}

/* ---- Quoted identifiers -------------------------------------------------------- */

Test(mel_exprs, quoted_identifiers_name_instances_exactly)
{
    mel_model *m = mt_parse("'stop1.v' : real; 'x[1]' : real; 'if' : real;\n"
                            "'h <= 0' : boolean = 'stop1.v' <= 0;\n"
                            "'it\\'s' : real = 2; 'a\\\\b' : real;\n"
                            "'e.1' : equation der('stop1.v') = if 'h <= 0' then 'x[1]'\n"
                            "      else 'Modelica.Math.foo'('x[1]', 'it\\'s');\n"
                            "'e.2' : equation 'x[1]' = 'f.d1'('if');\n"
                            "e3 : equation x[1] + 'a\\\\b' = 'if';\n"
                            "e4 : equation 'a\\\\b' = 0;\n");
    cr_assert_eq(m->n_variables, 4);
    cr_assert_eq(mel_model_find_variable(m, "stop1.v"), 0);
    cr_assert_eq(mel_model_find_variable(m, "x[1]"), 1);
    cr_assert_eq(mel_model_find_variable(m, "if"), 2);
    cr_assert_eq(mel_model_find_variable(m, "a\\b"), 3);
    cr_assert_eq(mel_model_find_mode(m, "h <= 0"), 0);
    cr_assert_geq(mel_model_find_known(m, "it's"), 0);
    eq_is(m, "e.1", "stop1.v'", "(if h <= 0 x[1] (Modelica.Math.foo x[1] it's))");
    eq_is(m, "e.2", "x[1]", "(f.d1 if)");
    /* x[1] and 'x[1]' are one unknown */
    eq_is(m, "e3", "(+ x[1] a\\b)", "if");
    cr_assert_eq(eq_named(m, "e3")->n_incs, 3);
    cr_assert_eq(eq_named(m, "e3")->incs[0].var, 1);
    check_modes(m, 3, "quoted");
    mel_model_free(m);
}

Test(mel_exprs, a_quoted_name_and_an_indexed_one_cannot_both_declare_an_instance)
{
    const char *src = "'x[1]' : real;\nx[1] : real;\n";
    mt_expect_error_opt(src, strlen(src), NULL, MDAE_E_MODEL, 2, 1, "'x[1]' is already declared");
    src = "foreach i in 1..2 do x[i] : real done;\n'x[2]' : real;\n";
    mt_expect_error_opt(src, strlen(src), NULL, MDAE_E_MODEL, 2, 1, "'x[2]' is already declared");
}

Test(mel_exprs, quoted_identifier_errors_are_located)
{
    const char *src = "x : real;\ne : equation x = 'ab\n";
    mt_expect_error_opt(src, strlen(src), NULL, MDAE_E_PARSE, 2, 18,
                        "unterminated quoted identifier");
    src = "'' : real;";
    mt_expect_error_opt(src, strlen(src), NULL, MDAE_E_PARSE, 1, 1, "empty quoted identifier");
    src = "'a\\n' : real;";
    mt_expect_error_opt(src, strlen(src), NULL, MDAE_E_PARSE, 1, 3, "invalid escape");
    char zero[] = "'a\0b' : real;";
    mt_expect_error_opt(zero, sizeof zero - 1, NULL, MDAE_E_PARSE, 1, 3, "byte 0x00");
}

/* ---- Allocation failures ---------------------------------------------------------- */

static void four_equations_with_sides(const mel_model *m, const char *what)
{
    cr_assert_eq(m->n_equations, 4, "%s", what);
    every_equation_has_sides(m, what);
}

Test(mel_exprs, returns_nomem_at_every_failing_allocation_without_leaking)
{
    const char *src = "N : integer = 2; p : real = 2 * q; q : real = 1;\n"
                      "g : boolean = 'x y'[1] > p;\n"
                      "foreach i in 1..N do 'x y'[i] : real; y[i] : real done;\n"
                      "foreach i in 1..N do\n"
                      "  e[i] : equation der('x y'[i]) = if g & i > 1 then y[i] * p / q * 2\n"
                      "                                  else foo(last(y[i]), 1, 2, 3, 4, 5);\n"
                      "done;\n"
                      "if g then f : equation y[1] = y[2] - 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9\n"
                      "else f : equation y[1] = 0 end;\n"
                      "k : equation y[2] = sin(N);";
    mt_parse_every_nomem(mel_model_parse, src, 100000, four_equations_with_sides, "oom");
}

Test(mel_exprs, a_model_recovered_from_syntax_errors_keeps_its_expressions)
{
    const char *src = "x : real; y : real;\n"
                      "e : equation der(x) = y +;\n"
                      "f : equation y = 2 * x;\n"
                      "g : equation x = 1;\n";
    mel_options o = {.recover = true};
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(src, strlen(src), &o, &m, &d), MDAE_OK);
    cr_assert_eq(m->n_syntax_errors, 1);
    eq_is(m, "f", "y", "(* 2 x)");
    every_equation_has_sides(m, "recovered");
    mel_model_free(m);
    mdae_diags_close(&d);
}

/* ---- Known quantities with a prefix, texts kept as-is (issue 38 item 2) ---------- */

static const mel_known *known_named(const mel_model *m, const char *name)
{
    long k = mel_model_find_known(m, name);
    cr_assert_geq(k, 0, "no known '%s'", name);
    return &m->knowns[k];
}

Test(mel_exprs, prefixed_declarations_are_known_quantities_of_their_type)
{
    mel_model *m = mt_parse("p : parameter real;\n"
                            "k : constant integer = 3;\n"
                            "b : parameter boolean = true;\n"
                            "n : parameter integer = k + 1;\n"
                            "v : parameter real (value = -2.5);\n"
                            "c : constant boolean (value = false) = !b;\n"
                            "q : real = 2 * p;\n"
                            "N : integer = 4;\n"
                            "parameter : real;\n" /* still a name */
                            "x : real;\n"
                            "e : equation der(x) = if b then p * x else n;\n");
    cr_assert_eq(m->n_knowns, 8);
    cr_assert_eq(m->n_modes, 0, "a Boolean parameter is not a mode variable");
    cr_assert_eq(m->n_variables, 2);
    const mel_known *p = known_named(m, "p"), *k = known_named(m, "k"), *b = known_named(m, "b");
    const mel_known *n = known_named(m, "n"), *v = known_named(m, "v"), *c = known_named(m, "c");
    cr_expect(p->kind == MEL_KNOWN_REAL && !p->constant && p->binding == NULL && !p->known);
    cr_expect(k->kind == MEL_KNOWN_INTEGER && k->constant && k->known && k->value == 3);
    cr_expect_str_eq(sx(m, k->binding), "3");
    cr_expect(b->kind == MEL_KNOWN_BOOLEAN && !b->constant && b->known && b->value == 1);
    cr_expect_str_eq(sx(m, n->binding), "(+ k 1)", "a non-literal binding keeps its names");
    cr_expect(n->kind == MEL_KNOWN_INTEGER && n->known && n->value == 4);
    cr_expect(v->known && v->value == -2.5 && v->binding == NULL);
    cr_expect(c->kind == MEL_KNOWN_BOOLEAN && c->constant && c->known && c->value == 0,
              "the value given, not computed");
    cr_expect_str_eq(sx(m, c->binding), "(! b)");
    cr_expect(known_named(m, "q")->kind == MEL_KNOWN_REAL && !known_named(m, "q")->constant);
    cr_expect(known_named(m, "N")->kind == MEL_KNOWN_INTEGER);
    eq_is(m, "e", "x'", "(if b (* p x) n)");
    /* a Boolean parameter selects nothing: both branches count */
    cr_expect_str_eq(mt_cases(m, mt_inc(m, "e", "x")), "1:true");
    mel_model_free(m);
}

Test(mel_exprs, texts_are_kept_as_text_with_their_references)
{
    char src[1200];
    char long_text[600];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    snprintf(src, sizeof src,
             "x : real; y : real;\n"
             "e : equation y = \"f(x)[1] + \\\"s\\\\\"(der(x), x);\n"
             "d : equation x = \"%s\";\n",
             long_text);
    mel_model *m = mt_parse(src);
    const mel_equation *e = eq_named(m, "e");
    cr_assert_eq(e->rhs->op, FX_OPAQUE);
    cr_expect_str_eq(e->rhs->name, "f(x)[1] + \"s\\");
    cr_assert_eq(e->rhs->n, 2);
    cr_expect_str_eq(sx(m, e->rhs->kids[0]), "x'");
    cr_expect_str_eq(mt_cases(m, mt_inc(m, "e", "x")), "1:true");
    const mel_equation *d = eq_named(m, "d");
    cr_assert_eq(d->rhs->op, FX_OPAQUE);
    cr_expect_eq(strlen(d->rhs->name), sizeof long_text - 1, "no name limit for a text");
    cr_expect_eq(d->rhs->n, 0);
    char *printed = fx_format(m, e->rhs, FX_SYNTAX_MEL);
    cr_expect_str_eq(printed, "\"f(x)[1] + \\\"s\\\\\"(der(x), x)");
    mdae_free(printed);
    mel_model_free(m);
}

/* A nested conditional's branches each start where it starts, and what
 * follows it comes after its longer branch, as the Modelica importer
 * numbers them (they used to run on: MSL SubClocked, FullRobot... printed
 * as MEL read back renumbered). */
Test(mel_exprs, nested_conditionals_number_their_branches_as_modelica)
{
    mel_model *m = mt_parse("g : boolean; h : boolean; k : boolean; x : real; y : real;\n"
                            "if g then\n"
                            "  if h then a : equation x = 1;\n"
                            "  else if k then b : equation x = 2; b2 : equation y = 2;\n"
                            "  else c : equation x = 3 end end;\n"
                            "  d : equation y = 1\n"
                            "else\n"
                            "  if h then e : equation x = 4 else f : equation y = 4 end\n"
                            "end;\n");
    const char *names[] = {"a", "b", "b2", "c", "d", "e", "f"};
    uint32_t pos[] = {0, 0, 1, 0, 2, 0, 0};
    for (size_t i = 0; i < sizeof pos / sizeof *pos; i++)
        cr_expect_eq(eq_named(m, names[i])->cond_pos, pos[i], "%s", names[i]);
    const char *mo = "model M\n  Boolean g; Boolean h; Boolean k; Real x; Real y;\nequation\n"
                     "  g = time > 1; h = time > 2; k = time > 3;\n"
                     "  if g then\n    if h then x = 1; elseif k then x = 2; y = 2;\n"
                     "    else x = 3; end if;\n    y = 1;\n"
                     "  else\n    if h then x = 4; else y = 4; end if;\n  end if;\nend M;\n";
    mel_model *mm = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    cr_assert_eq(mo_model_parse(mo, strlen(mo), NULL, &mm, &d), MDAE_OK);
    mdae_diags_close(&d);
    cr_assert_eq(mm->n_equations, m->n_equations);
    for (uint32_t i = 0; i < m->n_equations; i++)
        cr_expect_eq(mm->equations[i].cond_pos, m->equations[i].cond_pos, "equation %u", i);
    mel_model_free(mm);
    mel_model_free(m);
}

Test(mel_exprs, else_if_numbers_its_branches_as_elseif)
{
    mel_model *m = mt_parse("g : boolean; h : boolean; x : real; y : real;\n"
                            "if g then a : equation x = 1; b : equation y = 1;\n"
                            "else if h then c : equation x = 2; d : equation y = 2;\n"
                            "else e : equation x = 3; f : equation y = 3; end end;\n"
                            "if g then i : equation x = 4;\n"
                            "else j : equation y = 4; if h then k : equation x = 5 end end;\n");
    const char *names[] = {"a", "b", "c", "d", "e", "f", "i", "j", "k"};
    uint32_t pos[] = {0, 1, 0, 1, 0, 1, 0, 0, 1};
    for (size_t i = 0; i < sizeof pos / sizeof *pos; i++)
        cr_expect_eq(eq_named(m, names[i])->cond_pos, pos[i], "%s", names[i]);
    mel_model_free(m);
}

/* A text's \n is a newline (a Modelica string may hold one: the Modelica
 * fuzzer's find, a known's binding printed over two lines, which MEL
 * could not read); printed back as \n. */
Test(mel_exprs, a_text_holds_a_newline_as_backslash_n)
{
    mel_model *m = mt_parse("x : real;\ne : equation x = \"s\\n \\\"q\\\" \\\\n\"(x);\n");
    const mel_equation *e = eq_named(m, "e");
    cr_assert_eq(e->rhs->op, FX_OPAQUE);
    cr_expect_str_eq(e->rhs->name, "s\n \"q\" \\n");
    char *printed = fx_format(m, e->rhs, FX_SYNTAX_MEL);
    cr_expect_str_eq(printed, "\"s\\n \\\"q\\\" \\\\n\"(x)");
    mdae_free(printed);
    mel_model_free(m);
}

Test(mel_exprs, prefix_and_text_errors_are_located)
{
    mt_expect_error("p : parameter equation x = 1;", MDAE_E_PARSE, 1, 15,
                    "expected 'real', 'boolean' or 'integer', found 'equation'");
    mt_expect_error("p : constant real (val = 1);", MDAE_E_PARSE, 1, 20, "expected 'value'");
    mt_expect_error("p : parameter real (value = x);", MDAE_E_PARSE, 1, 29,
                    "expected a number, 'true' or 'false'");
    mt_expect_error("p : real (value = 1);", MDAE_E_PARSE, 1, 10, "expected ';'");
    mt_expect_error("x : real;\ne : equation x = \"ab\n", MDAE_E_PARSE, 2, 18,
                    "unterminated text");
    mt_expect_error("x : real;\ne : equation x = \"a\\t\";", MDAE_E_PARSE, 2, 20,
                    "invalid escape in a text");
    mt_expect_error("'a\\n' : real;", MDAE_E_PARSE, 1, 3, "invalid escape in a quoted identifier");
    mt_expect_error("b : parameter boolean;\nx : real;\nif b then e : equation x = 1 end;",
                    MDAE_E_MODEL, 3, 4, "condition must be a Boolean formula");
    /* recovery goes on after a broken prefixed declaration */
    mel_options opt = {.recover = true};
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    const char *src = "p : parameter real (value = );\nq : parameter real = 1;\nx : real;\n"
                      "e : equation x = q;\n";
    cr_assert_eq(mel_model_parse(src, strlen(src), &opt, &m, &d), MDAE_OK);
    cr_expect(mt_has(&d, 1, 29, "expected a number"));
    cr_expect_eq(m->n_syntax_errors, 1);
    cr_expect_geq(mel_model_find_known(m, "q"), 0);
    mel_model_free(m);
    mdae_diags_close(&d);
}
