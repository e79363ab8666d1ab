/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mo_exprs.c -- the expressions the Modelica front-end
 * keeps (issue 38; engine/mo_elab.c, "expressions"):
 *  - the papers' models and the Base Modelica test models: every equation
 *    has lhs and rhs, a few trees exactly (as S-expressions, printed here),
 *    the mode variables' definitions, the known quantities, the
 *    if-equations' positions, and fx_check_incidences in every mode;
 *  - the 120 MSL exports in ../shared/msl (MDAE_MSL_DIR overrides; skipped
 *    when absent): fx_check_incidences on sampled modes, the structure the
 *    same with and without expressions, and the FX_OPAQUE nodes counted;
 *  - no_expressions keeps none; allocation failures never crash or leak.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail_alloc.h"
#include "fx.h"
#include "fx_check.h"
#include "fx_sexpr.h"
#include "mel.h"
#include "mo.h"

#include "mel_test_util.h"

#include "dir_list.h"
#include "model_files.h"

TestSuite(mo_exprs, .timeout = 900);

/* ---- S-expressions ---------------------------------------------------------------- */

/* Static buffer (tests only): the expression as an S-expression (fx_sexpr.h):
 * %.17g, names from m, modes [name], neg and not, opaque (opaque "text" refs...). */
static const char *sexpr(const mel_model *m, const fx_node *e)
{
    fx_sexpr_style st = {.m = m,
                         .mode_brackets = true,
                         .neg = "neg",
                         .not_ = "not",
                         .opaque = FX_SEXPR_OPAQUE_QUOTED};
    return fx_sexpr(&st, e);
}

static mel_model *parse_file(const char *file, const mel_options *opt)
{
    size_t len;
    char *text = tm_read(file, &len);
    mel_model *m = NULL;
    int rc = mo_model_parse(text, len, opt, &m, NULL);
    cr_assert_eq(rc, MDAE_OK, "%s: %s", file, mdae_err_name(rc));
    free(text);
    return m;
}

static mel_model *parse_text(const char *src)
{
    mel_model *m = NULL;
    mdae_diags d;
    mdae_diags_init(&d);
    int rc = mo_model_parse(src, strlen(src), NULL, &m, &d);
    for (size_t i = 0; i < d.count; i++) {
        char *s = mdae_diag_format(&d.items[i], "t.mo");
        cr_log_error("%s", s ? s : "?");
        mdae_free(s);
    }
    mdae_diags_close(&d);
    cr_assert_eq(rc, MDAE_OK, "%s", mdae_err_name(rc));
    return m;
}

static const mel_equation *eq(const mel_model *m, const char *name)
{
    /* by name, or by the start of a long name (shortened with a hash) */
    long i = mel_model_find_equation(m, name);
    for (uint32_t k = 0; i < 0 && k < m->n_equations; k++)
        if (strncmp(m->equations[k].name, name, strlen(name)) == 0)
            i = k;
    for (uint32_t k = 0; i < 0 && k < m->n_equations; k++) {
        cr_log_error("equation '%s': %s", m->equations[k].name, sexpr(m, m->equations[k].lhs));
        cr_log_error("  = %s", sexpr(m, m->equations[k].rhs));
    }
    cr_assert_geq(i, 0, "no equation %s", name);
    return &m->equations[i];
}

static void expect_eq(const mel_model *m, const char *name, const char *lhs, const char *rhs)
{
    const mel_equation *q = eq(m, name);
    const char *got = sexpr(m, q->lhs);
    cr_expect_str_eq(got, lhs, "%s: lhs %s", name, got);
    got = sexpr(m, q->rhs);
    cr_expect_str_eq(got, rhs, "%s: rhs %s", name, got);
}

static void expect_def(const mel_model *m, const char *mode, const char *def)
{
    long k = mel_model_find_mode(m, mode);
    cr_assert_geq(k, 0, "no mode %s", mode);
    cr_expect_str_eq(sexpr(m, m->modes[k].def), def, "def of %s", mode);
}

/* fx_check_incidences in every mode (n_modes <= 10) or in `samples`
 * pseudo-random ones; also every equation has lhs and rhs. */
static void check_modes(const char *name, const mel_model *m, uint32_t samples)
{
    for (uint32_t i = 0; i < m->n_equations; i++)
        cr_assert(m->equations[i].lhs != NULL && m->equations[i].rhs != NULL,
                  "%s: equation %s has no expression", name, m->equations[i].name);
    bool *mode = calloc(m->n_modes + 1, sizeof *mode);
    cr_assert_not_null(mode);
    uint64_t total = m->n_modes <= 10 ? 1ull << m->n_modes : samples, state = 0x38ull;
    char why[512];
    for (uint64_t x = 0; x < total; x++) {
        for (uint32_t k = 0; k < m->n_modes; k++) {
            if (m->n_modes <= 10) {
                mode[k] = (x >> k) & 1;
            } else {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                mode[k] = (state >> 33) & 1;
            }
        }
        if (!fx_check_incidences(m, mode, why, sizeof why)) {
            cr_expect(false, "%s mode %llu: %s", name, (unsigned long long)x, why);
            break;
        }
    }
    free(mode);
}

/* ---- The papers' models --------------------------------------------------------- */

Test(mo_exprs, papers_models_have_expressions_consistent_with_incidences_in_every_mode)
{
    static const char *const files[] = {"water_tank.mo",   "two_equations.mo", "clutch_basic.mo",
                                        "cup_and_ball.mo", "cup_and_ball_elastic.mo",
                                        "rldc2_cc.mo",     "bouncing_ball.mo", "bm_modes.bmo",
                                        "bm_constructs.bmo"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        mel_model *m = parse_file(files[f], NULL);
        cr_assert_not_null(mel_model_exprs(m));
        check_modes(files[f], m, 256);
        mel_model_free(m);
    }
}

Test(mo_exprs, water_tank_trees)
{
    mel_model *m = parse_file("water_tank.mo", NULL);
    expect_eq(m, "e0", "y", "(defaultOutputFlow time)");
    expect_eq(m, "e2", "x'", "(+ z yl (neg yh) (neg y))");
    expect_eq(m, "eh1", "sh", "(if [bh] yh (+ x (neg xmax)))");
    expect_eq(m, "eh2", "0", "(if [bh] (+ x (neg xmax)) yh)");
    expect_eq(m, "el1", "sl", "(if [bl] yl (+ xmin (neg x)))");
    expect_def(m, "bh", "(>= sh 0)");
    expect_def(m, "bl", "(>= sl 0)");
    /* the constants, with their values */
    long k = mel_model_find_known(m, "xmax");
    cr_assert_geq(k, 0);
    cr_expect(m->knowns[k].known && m->knowns[k].value == 1.0 && m->knowns[k].constant);
    cr_expect_eq(m->knowns[k].kind, MEL_KNOWN_REAL);
    cr_expect_str_eq(sexpr(m, m->knowns[k].binding), "1");
    cr_expect_eq(m->n_knowns, 2);
    mel_model_free(m);
}

Test(mo_exprs, two_equations_cup_and_ball_and_bouncing_ball_trees)
{
    mel_model *m = parse_file("two_equations.mo", NULL);
    expect_eq(m, "e", "1", "(if [p] x x')");
    expect_def(m, "p", "(>= x 1)");
    mel_model_free(m);

    m = parse_file("cup_and_ball.mo", NULL);
    expect_eq(m, "der(u) + lambda * x = 0", "(+ u' (* lambda x))", "0");
    expect_eq(m, "0 = if gamma then L^2 - (x^2 + y^2) else lambda", "0",
              "(if [gamma] (+ (^ L 2) (neg (+ (^ x 2) (^ y 2)))) lambda)");
    expect_def(m, "gamma", "(<= s 0)");
    mel_model_free(m);

    /* the reinit: next(v) = -e * pre(v), under the relation's mode */
    m = parse_file("bouncing_ball.mo", NULL);
    expect_eq(m, "t1", "(next v)", "(neg (* e (pre v)))");
    expect_def(m, "h <= 0", "(<= h 0)");
    long k = mel_model_find_known(m, "e");
    cr_assert_geq(k, 0);
    cr_expect(m->knowns[k].known && m->knowns[k].value == 0.7 && !m->knowns[k].constant);
    mel_model_free(m);
}

Test(mo_exprs, relations_and_booleans_that_are_modes_become_fx_mode)
{
    mel_model *m = parse_file("bm_modes.bmo", NULL);
    expect_eq(m, "y = if gear == 1 then x elseif gear == 2 then 2.", "y",
              "(if [gear == 1] x (if [gear == 2] (+ (* 2 x) i1') 0))");
    expect_eq(m, "u1 = if closed then y else x - y", "u1", "(if [closed] y (+ x (neg y)))");
    expect_def(m, "closed", "(not [open])");
    expect_def(m, "open", "(< s 0)");
    expect_def(m, "gear == 1", "(== (opaque \"gear\") 1)");
    mel_model_free(m);

    /* a relation written in a condition is the mode (negated when the
     * mode stands for its first spelling's negation); one that selects
     * nothing stays a relation */
    m = parse_text("model M\n Real x; Real y; Real z;\nequation\n"
                   " x = if y > 0 then z else 2*z;\n"
                   " y = if 0 >= y then x else z;\n"
                   " z = if x < 1 then 1 else 2;\n"
                   "end M;\n");
    cr_assert_eq(m->n_modes, 1);
    expect_eq(m, "x = if y > 0 then z else 2 * z", "x", "(if (not [0 >= y]) z (* 2 z))");
    expect_eq(m, "y = if 0 >= y then x else z", "y", "(if [0 >= y] x z)");
    expect_eq(m, "z = if x < 1 then 1 else 2", "z", "(if (< x 1) 1 2)");
    expect_def(m, "0 >= y", "(>= 0 y)");
    mel_model_free(m);

    /* other atoms in conditions (pre(b), initial()) by their text;
     * noEvent(c) in a condition is c */
    m = parse_text("model M\n Real x; Real y; Real w; Boolean b;\nequation\n b = x > 0;\n"
                   " x = if pre(b) then y else 2*y + der(y);\n"
                   " y = if initial() or noEvent(x > 1) then 0 else x;\n"
                   " w = if sample(0, 1) then x else y;\nend M;\n");
    expect_eq(m, "w = if sample(0, 1) then x else y", "w", "(if [sample(0, 1)] x y)");
    expect_eq(m, "x = if pre(b) then y else 2 * y + der(y)", "x",
              "(if [pre(b)] y (+ (* 2 y) y'))");
    expect_eq(m, "y = if initial() or noEvent(x > 1) then 0 else x", "y",
              "(if (or [initial()] [x > 1]) 0 x)");
    expect_def(m, "pre(b)", "(pre (opaque \"b\"))");
    expect_def(m, "initial()", "(initial)");
    mel_model_free(m);
}

Test(mo_exprs, loops_enumerations_calls_and_what_stays_opaque)
{
    mel_model *m = parse_text(
        "package P\n type E = enumeration(a, b, c);\n"
        " function f\n  input Real u;\n  output Real y[2];\n algorithm\n  y := {u, u};\n end f;\n"
        " model M\n  parameter Integer n = 3;\n  parameter Real k[3] = {1, 2, 3};\n"
        "  parameter E e = E.b;\n  constant Boolean flag = true;\n"
        "  Real x[3]; Real s; Real t; Real u; Real w;\n"
        " equation\n"
        "  for i in 1:n loop\n   der(x[i]) = k[i] * x[i] + i;\n  end for;\n"
        "  s = sum(x) + sum(x[j]^2 for j in 1:2) + max(x);\n"
        "  t = Modelica.Math.sin(s) + atan2(s, t) + g(s, 2) + (if e == E.b then 1 else 0);\n"
        "  u = f(t) * {1, 2} + {1, 2} * {x[1], x[2]};\n"
        "  w = der(s * t) + Integer(E.c) + (if flag then 1 else 2);\n"
        " end M;\nend P;\n");
    expect_eq(m, "der(x[i]) = k[i] * x[i] + i [i=2]", "x[2]'", "(+ (* k[2] x[2]) 2)");
    expect_eq(m, "s = sum(x) + sum(x[j]^2 for j in 1:2) + max(x)", "s",
              "(+ (+ x[1] x[2] x[3]) (+ (^ x[1] 2) (^ x[2] 2)) (max (max x[1] x[2]) x[3]))");
    /* e == E.b is decided (a parameter with a value): the branch selected */
    expect_eq(m, "t = Modelica.Math.sin(s) + atan2(s, t) + g(s, 2)",
              "t", "(+ (sin s) (atan2 s t) (g s 2) 1)");
    expect_eq(m, "u = f(t) * {1, 2} + {1, 2} * {x[1], x[2]}", "u",
              "(+ (opaque \"f(t) * {1, 2}\" t) (+ (* 1 x[1]) (* 2 x[2])))");
    expect_eq(m, "w = der(s * t) + Integer(E.c) + (if flag then 1 else 2)", "w",
              "(+ (der (* s t)) 3 1)");
    long k = mel_model_find_known(m, "e");
    cr_assert_geq(k, 0);
    cr_expect(m->knowns[k].known && m->knowns[k].value == 2 &&
              m->knowns[k].kind == MEL_KNOWN_INTEGER);
    k = mel_model_find_known(m, "k[2]");
    cr_assert_geq(k, 0);
    cr_expect(m->knowns[k].binding == NULL); /* an element of an array binding */
    k = mel_model_find_known(m, "flag");
    cr_assert_geq(k, 0);
    cr_expect(m->knowns[k].kind == MEL_KNOWN_BOOLEAN && m->knowns[k].constant &&
              m->knowns[k].value == 1);
    check_modes("loops", m, 16);
    mel_model_free(m);
}

Test(mo_exprs, base_modelica_constructs_trees)
{
    mel_model *m = parse_file("bm_constructs.bmo", NULL);
    /* an input is no unknown: its name; delay() reads nothing (collect) */
    expect_eq(m, "der(v) = -p * v + u + semiLinear(a, 1.0, 2.0) + ", "v'",
              "(+ (neg (* p v)) (opaque \"u\") (semiLinear a 1 2) (opaque \"delay(q, 0.1)\"))");
    /* loop indices substituted, decided conditions selecting */
    expect_eq(m, "der(x[i]) = if i == 1 then -x[i] else x[i - 1] - x[i] [i=2]", "x[2]'",
              "(+ x[1] (neg x[2]))");
    /* one equation per output of a tuple equation: the call as text */
    expect_eq(m, "(a, b) = Constructs.f2(v, w = x[end])/2", "b",
              "(opaque \"Constructs.f2(v, w = x[end])\" v x[3])");
    expect_eq(m, "z = smooth(1, if v >= 0.0 then v else -v)", "z",
              "(smooth 1 (if (>= v 0) v (neg v)))");
    /* homotopy's simplified expression is not solved: its text alone */
    expect_eq(m, "q = homotopy(actual = z * sum({x[k] for k in 1:n", "q",
              "(homotopy (* z (+ x[1] x[2] x[3])) (opaque \"z\"))");
    /* an algorithm section: each assigned unknown = all it reads */
    expect_eq(m, "algorithm: yout", "yout", "(opaque \"algorithm\" yout b q)");
    cr_expect_str_eq(sexpr(m, m->knowns[mel_model_find_known(m, "p")].binding), "(* 0.5 c0)");
    mel_model_free(m);
}

Test(mo_exprs, if_equations_give_their_branch_positions)
{
    mel_model *m = parse_text("model M\n Real x; Real y; Real z; Boolean b; Boolean c;\n"
                              "equation\n b = x > 0;\n c = y > 0;\n z = 1;\n"
                              " if b then\n  x = 1;\n  if c then\n   y = 2;\n  else\n   y = 3;\n"
                              "  end if;\n else\n  x = 2;\n  y = 4;\n end if;\n"
                              " for i in 1:2 loop\n  if c then\n   der(z) = i;\n  end if;\n"
                              " end for;\nend M;\n");
    static const struct {
        const char *name;
        uint32_t cond, pos;
    } want[] = {{"z = 1", 0, 0},       {"x = 1", 1, 0},      {"y = 2", 1, 1},
                {"y = 3", 1, 1},       {"x = 2", 1, 0},      {"y = 4", 1, 1},
                {"der(z) = i [i=1]", 2, 0}, {"der(z) = i [i=2]", 3, 0}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const mel_equation *q = eq(m, want[i].name);
        cr_expect_eq(q->cond, want[i].cond, "%s: cond %u", want[i].name, q->cond);
        cr_expect_eq(q->cond_pos, want[i].pos, "%s: cond_pos %u", want[i].name, q->cond_pos);
    }
    mel_model_free(m);
}

/* ---- Without expressions ----------------------------------------------------------- */

/* The structure, as text: modes, unknowns, equations (guards, incidences,
 * cases with their locations, if-equation positions), invariants, whens,
 * events. */
static char *structure(const mel_model *m)
{
    mdae_buf b = {0};
    char line[256];
#define G(g)                                                                                  \
    do {                                                                                      \
        char *s_ = mel_guard_format(m, (g));                                                  \
        mdae_buf_puts(&b, s_ ? s_ : "?");                                                     \
        mdae_free(s_);                                                                        \
    } while (0)
    for (uint32_t k = 0; k < m->n_modes; k++) {
        snprintf(line, sizeof line, "mode %u@%u reads %ld: ", k, m->modes[k].where.start.offset,
                 m->modes[k].reads_var);
        mdae_buf_puts(&b, line);
        mdae_buf_puts(&b, m->modes[k].name);
        mdae_buf_puts(&b, "\n");
    }
    for (uint32_t j = 0; j < m->n_variables; j++) {
        mdae_buf_puts(&b, m->variables[j].name);
        mdae_buf_puts(&b, "\n");
    }
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *q = &m->equations[i];
        snprintf(line, sizeof line, "eq@%u-%u when %u cond %u/%u ", q->where.start.offset,
                 q->where.end.offset, q->when, q->cond, q->cond_pos);
        mdae_buf_puts(&b, line);
        mdae_buf_puts(&b, q->name);
        mdae_buf_puts(&b, " if ");
        G(q->guard);
        for (uint32_t k = 0; k < q->n_incs; k++)
            for (uint32_t c = 0; c < q->incs[k].n_cases; c++) {
                const mel_order_case *cs = &q->incs[k].cases[c];
                snprintf(line, sizeof line, "\n  %u^%d next %d @%u: ", q->incs[k].var, cs->order,
                         cs->next, cs->where.start.offset);
                mdae_buf_puts(&b, line);
                G(cs->guard);
            }
        mdae_buf_puts(&b, "\n");
    }
    for (uint32_t i = 0; i < m->n_invariants; i++) {
        snprintf(line, sizeof line, "inv %u: ", m->invariants[i].when);
        mdae_buf_puts(&b, line);
        G(m->invariants[i].cond);
        mdae_buf_puts(&b, "\n");
    }
    for (uint32_t i = 0; i < m->n_whens; i++) {
        mdae_buf_puts(&b, "when ");
        G(m->whens[i].cond);
        mdae_buf_puts(&b, "\n");
    }
    for (uint32_t i = 0; i < m->n_events; i++) {
        snprintf(line, sizeof line, "event %d %ld %ld: ", (int)m->events[i].kind,
                 m->events[i].var, m->events[i].parent);
        mdae_buf_puts(&b, line);
        mdae_buf_puts(&b, m->events[i].text);
        mdae_buf_puts(&b, "\n");
    }
    snprintf(line, sizeof line, "%zu edges %u params %u integers\n", m->n_edges, m->n_params,
             m->n_integers);
    mdae_buf_puts(&b, line);
#undef G
    cr_assert(!b.oom);
    return b.p;
}

static void expect_no_expressions(const mel_model *m)
{
    cr_assert_null(mel_model_exprs(m));
    cr_assert_eq(m->n_knowns, 0);
    cr_assert_null(m->knowns);
    for (uint32_t i = 0; i < m->n_equations; i++)
        cr_assert(m->equations[i].lhs == NULL && m->equations[i].rhs == NULL);
    for (uint32_t k = 0; k < m->n_modes; k++)
        cr_assert_null(m->modes[k].def);
}

static void expect_same_structure(const char *name, const mel_model *a, const mel_model *b)
{
    char *sa = structure(a), *sb = structure(b);
    cr_assert_str_eq(sa, sb, "%s: the structure differs with expressions", name);
    mdae_free(sa);
    mdae_free(sb);
}

Test(mo_exprs, no_expressions_keeps_none_and_the_same_structure)
{
    static const char *const files[] = {"water_tank.mo", "rldc2_cc.mo", "bouncing_ball.mo",
                                        "bm_modes.bmo", "bm_constructs.bmo"};
    mel_options none = {.no_expressions = true};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        mel_model *a = parse_file(files[f], NULL), *b = parse_file(files[f], &none);
        expect_no_expressions(b);
        expect_same_structure(files[f], a, b);
        mel_model_free(a);
        mel_model_free(b);
    }
}

static void first_equation_has_lhs(const mel_model *m, const char *what)
{
    cr_assert_not_null(m->equations[0].lhs, "%s", what);
}

static void nomem_loop(const char *file)
{
    char *src = tm_slurp(file);
    mt_parse_every_nomem(mo_model_parse, src, 200000, first_equation_has_lhs, file);
    free(src);
}

Test(mo_exprs, returns_nomem_at_every_allocation_without_leaking)
{
    nomem_loop("bm_constructs.bmo");
    nomem_loop("bm_modes.bmo");     /* relations and Booleans made modes */
    nomem_loop("bouncing_ball.mo"); /* a reinit */
}

/* ---- The MSL exports --------------------------------------------------------------- */

/* FX_OPAQUE nodes by kind: a read of a variable that is no unknown (its
 * name alone), an array or record argument of a call, other constructs. */
typedef struct opaque_counts {
    size_t variables, arguments, constructs;
} opaque_counts;

static void count_opaque(const fx_node *e, bool in_call, opaque_counts *c)
{
    if (e == NULL)
        return;
    if (e->op == FX_OPAQUE) {
        if (e->n == 0 && strpbrk(e->name, "( {") == NULL)
            c->variables++;
        else if (in_call)
            c->arguments++;
        else
            c->constructs++;
        return;
    }
    for (uint32_t k = 0; k < e->n; k++)
        count_opaque(e->kids[k], e->op == FX_CALL, c);
}

Test(mo_exprs, msl_expressions_agree_with_incidences_and_keep_the_structure)
{
    static const char *const bmo[] = {".bmo"};
    size_t n_names;
    char **names = dir_list(tm_msl_dir(), bmo, 1, &n_names);
    if (names == NULL)
        cr_skip_test("no ../shared/msl here (set MDAE_MSL_DIR)");
    size_t parsed = 0, equations = 0, nodes = 0;
    opaque_counts oc = {0};
    mel_options none = {.no_expressions = true};
    for (size_t i = 0; i < n_names; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", tm_msl_dir(), names[i]);
        size_t len;
        char *text = tm_read_path(path, &len);
        cr_assert_not_null(text, "%s", path);
        mel_model *a = NULL, *b = NULL;
        int ra = mo_model_parse(text, len, NULL, &a, NULL);
        int rb = mo_model_parse(text, len, &none, &b, NULL);
        cr_assert_eq(ra, rb, "%s: %s with expressions, %s without", names[i], mdae_err_name(ra),
                     mdae_err_name(rb));
        if (ra == MDAE_OK) {
            parsed++;
            expect_no_expressions(b);
            expect_same_structure(names[i], a, b);
            check_modes(names[i], a, 64);
            equations += a->n_equations;
            for (uint32_t q = 0; q < a->n_equations; q++) {
                count_opaque(a->equations[q].lhs, false, &oc);
                count_opaque(a->equations[q].rhs, false, &oc);
                nodes += fx_size(a->equations[q].lhs) + fx_size(a->equations[q].rhs);
            }
            mel_model_free(a);
            mel_model_free(b);
        }
        free(text);
        free(names[i]);
    }
    free(names);
    char line[400];
    snprintf(line, sizeof line,
             "MSL: %zu of %zu models, %zu equations, %zu nodes; FX_OPAQUE: %zu constructs, %zu "
             "array or record arguments of calls, %zu reads of variables that are no unknowns",
             parsed, n_names, equations, nodes, oc.constructs, oc.arguments, oc.variables);
    cr_log_info("%s", line);
    fprintf(stderr, "%s\n", line);
    cr_assert_gt(parsed, 0);
}
