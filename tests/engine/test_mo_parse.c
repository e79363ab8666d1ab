/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mo_parse.c -- the Modelica front-end (engine/mo.h):
 * what each construct becomes in the elaborated structure, names and
 * locations, located errors with recovery, limits, allocation failures, the
 * MEL printer (mo_model_to_mel) reading back, and the saved fuzzer inputs.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail_alloc.h"
#include "mel.h"
#include "mo.h"

#include "model_files.h"

static void dump(const mdae_diags *d)
{
    for (size_t i = 0; i < d->count; i++) {
        char *s = mdae_diag_format(&d->items[i], NULL);
        fprintf(stderr, "%s\n", s ? s : "(oom)");
        mdae_free(s);
    }
}

static mel_model *parse_ok(const char *src)
{
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mo_model_parse(src, strlen(src), NULL, &m, &d);
    if (rc != MDAE_OK)
        dump(&d);
    cr_assert_eq(rc, MDAE_OK, "mo_model_parse: %s", mdae_err_name(rc));
    cr_assert_not_null(m);
    mdae_diags_close(&d);
    return m;
}

static mel_model *parse_file(const char *name)
{
    char *text = tm_slurp(name);
    mel_model *m = parse_ok(text);
    free(text);
    return m;
}

/* Parse expecting failure rc; diagnostics left in *d. */
static int parse_fail(const char *src, const mel_options *opt, mdae_diags *d)
{
    mdae_diags_init(d);
    mel_model *m = (mel_model *)(uintptr_t)1;
    int rc = mo_model_parse(src, strlen(src), opt, &m, d);
    cr_assert_neq(rc, MDAE_OK, "expected a failure");
    cr_assert_eq((uintptr_t)m, 1, "*out written on failure");
    return rc;
}

static bool has_error(const mdae_diags *d, uint32_t line, uint32_t col, const char *msg)
{
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].severity == MDAE_SEV_ERROR && d->items[i].where.start.line == line &&
            (col == 0 || d->items[i].where.start.col == col) &&
            strstr(d->items[i].message, msg) != NULL)
            return true;
    return false;
}

static const mel_equation *eq_named(const mel_model *m, const char *name)
{
    long i = mel_model_find_equation(m, name);
    cr_assert_geq(i, 0, "no equation named '%s'", name);
    return &m->equations[i];
}

/* sigma of variable `var` in equation `eq` in mode (NULL: no modes). */
static int order_in(const mel_model *m, const mel_equation *q, const char *var, const bool *mode)
{
    long v = mel_model_find_variable(m, var);
    cr_assert_geq(v, 0, "no unknown '%s'", var);
    for (uint32_t j = 0; j < q->n_incs; j++)
        if (q->incs[j].var == (uint32_t)v)
            return mel_incidence_order(&q->incs[j], mode);
    return -1;
}

/* ---- The papers' flat Modelica --------------------------------------------------- */

Test(mo_parse, reads_the_papers_listings_with_their_counts)
{
    static const struct {
        const char *file;
        uint32_t eqs, vars, modes;
    } cases[] = {{"water_tank.mo", 7, 7, 2}, {"clutch_basic.mo", 4, 4, 1},
                 {"cup_and_ball.mo", 6, 6, 1}, {"rldc2_cc.mo", 14, 14, 2},
                 {"two_equations.mo", 1, 1, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mel_model *m = parse_file(cases[i].file);
        cr_assert_eq(m->n_equations, cases[i].eqs, "%s", cases[i].file);
        cr_assert_eq(m->n_variables, cases[i].vars, "%s", cases[i].file);
        cr_assert_eq(m->n_modes, cases[i].modes, "%s", cases[i].file);
        mel_model_free(m);
    }
}

Test(mo_parse, takes_equation_labels_from_leading_and_trailing_comments)
{
    mel_model *m = parse_file("water_tank.mo");
    const char *labels[] = {"e0", "e1", "e2", "eh1", "eh2", "el1", "el2"};
    for (size_t i = 0; i < 7; i++)
        cr_assert_str_eq(m->equations[i].name, labels[i]);
    /* the range starts at the equation, on its line */
    cr_assert_eq(m->equations[0].where.start.line, 17);
    mel_model_free(m);
    m = parse_file("rldc2_cc.mo");
    cr_assert_str_eq(m->equations[0].name, "K1");
    cr_assert_str_eq(m->equations[13].name, "Z2");
    cr_assert_eq(mel_model_find_mode(m, "g1"), 0);
    mel_model_free(m);
}

Test(mo_parse, mode_variables_are_the_booleans_that_select_incidences)
{
    mel_model *m = parse_file("two_equations.mo");
    const mel_equation *e = eq_named(m, "e");
    bool p = true;
    cr_assert_eq(order_in(m, e, "x", &p), 0);
    p = false;
    cr_assert_eq(order_in(m, e, "x", &p), 1);
    cr_assert_eq(m->n_events, 1); /* p = (x >= 1), a discrete definition */
    cr_assert_eq(m->events[0].kind, MEL_EV_DISCRETE);
    mel_model_free(m);
}

Test(mo_parse, time_and_parameters_are_known_and_calls_are_opaque)
{
    mel_model *m = parse_file("water_tank.mo");
    const mel_equation *e0 = eq_named(m, "e0");
    cr_assert_eq(e0->n_incs, 1); /* y only: time is known */
    cr_assert_eq(m->n_params, 2);
    mel_model_free(m);
}

/* ---- Names ------------------------------------------------------------------------- */

Test(mo_parse, reads_quoted_names_as_the_text_between_the_quotes)
{
    mel_model *m = parse_ok("//! base 0.1.0\npackage 'P'\n model 'M'\n"
                            "  Real 'stop1.v';\n  Real 'a b';\n equation\n"
                            "  der('stop1.v') = 'a b';\n  'a b' = 1.0;\n end 'M';\nend 'P';\n");
    cr_assert_geq(mel_model_find_variable(m, "stop1.v"), 0);
    cr_assert_geq(mel_model_find_variable(m, "a b"), 0);
    /* an equation's name is its normalised text: a name that would not
     * read back unquoted stays quoted (issue 38) */
    cr_assert_str_eq(m->equations[0].name, "der(stop1.v) = 'a b'");
    mel_model_free(m);
}

/* A component called as a function is an error, as in MEL (the fuzzer's
 * 'i1'('x') printed MEL that did not read back). */
Test(mo_parse, refuses_a_component_called_as_a_function)
{
    mdae_diags d;
    parse_fail("model M\n  Real x;\n  Real y;\nequation\n  der(x) = y(x);\n  y = 1;\nend M;\n",
               NULL, &d);
    cr_assert(has_error(&d, 5, 12, "'y' is not a function"));
    mdae_diags_close(&d);
}

/* Arithmetic is no condition (the Modelica fuzzer's `if -'open' then`,
 * which became an atom whose MEL did not read back). */
Test(mo_parse, refuses_arithmetic_as_a_condition)
{
    mdae_diags d;
    parse_fail("model M\n  Real x;\n  Boolean b;\nequation\n  b = x > 0;\n"
               "  der(x) = if -b then x else 2;\nend M;\n",
               NULL, &d);
    cr_assert(has_error(&d, 6, 15, "condition '-b' is not a Boolean"));
    mdae_diags_close(&d);
}

/* The same where the condition selects nothing (the if stays an
 * expression): its MEL would not read back either. */
Test(mo_parse, refuses_arithmetic_as_a_condition_that_selects_nothing)
{
    mdae_diags d;
    parse_fail("model M\n  Real x;\n  Boolean b;\nequation\n  b = x > 0;\n"
               "  der(x) = if -b then 1 else 2;\nend M;\n",
               NULL, &d);
    cr_assert(has_error(&d, 6, 15, "condition '-b' is not a Boolean"));
    mdae_diags_close(&d);
}

/* A Real variable is no condition either, selecting or not (the Modelica
 * fuzzer's `if w then y else -y`, w a Real: no guard was made of it, and the
 * printed MEL's `if w then` did not read back). */
Test(mo_parse, refuses_a_real_variable_as_a_condition)
{
    const char *selects_nothing = "model M\n  Real x;\n  Real y;\n  Real w;\nequation\n"
                                  "  der(x) = if w then y else -y;\n  y = 2 * x;\nend M;\n";
    const char *selects = "model M\n  Real x;\n  Real y;\n  Real w;\nequation\n"
                          "  der(x) = if w then y else 0;\n  y = 2 * x;\n  w = 1;\nend M;\n";
    const char *texts[] = {selects_nothing, selects};
    for (int k = 0; k < 2; k++) {
        mdae_diags d;
        parse_fail(texts[k], NULL, &d);
        cr_assert(has_error(&d, 6, 15, "condition 'w' is not a Boolean"), "text %d", k);
        cr_assert_eq(d.count, 1, "text %d: one error, not one per path", k);
        mdae_diags_close(&d);
    }
}

/* A NUL inside a quoted name is an error, not a name cut short at it (the
 * Modelica fuzzer found one: the cut name was empty, and the printed MEL
 * did not read back). */
Test(mo_parse, refuses_a_nul_byte_in_a_quoted_name)
{
    static const char src[] = "model M\n  Real 'a\0b';\n  Real x;\nequation\n  x = 1;\nend M;\n";
    mel_options opt = {.recover = true};
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mo_model_parse(src, sizeof src - 1, &opt, &m, &d);
    cr_assert(has_error(&d, 2, 8, "invalid character (byte 0x00) in a quoted name"));
    for (uint32_t i = 0; rc == MDAE_OK && i < m->n_variables; i++)
        cr_assert_neq(m->variables[i].name[0], '\0', "an empty name was declared");
    mel_model_free(m);
    mdae_diags_close(&d);
}

/* Issue 38: `mdae convert --to modelica` keeps any equation's name as a
 * quoted label, \' and \\ escaped; one with another escape is no label. */
Test(mo_parse, takes_quoted_equation_labels)
{
    mel_model *m = parse_ok("model M\n  Real x;\n  Real y;\nequation\n"
                            "  /* 'der(x) = y [i=2]': */ der(x) = y;\n"
                            "  y = x; // ('e 2')\n"
                            "  /* 'it\\'s \\\\': */ x + y = 0;\n"
                            "  /* 'bad\\n': */ x - y = 1;\nend M;\n");
    cr_assert_str_eq(m->equations[0].name, "der(x) = y [i=2]");
    cr_assert_str_eq(m->equations[1].name, "e 2");
    cr_assert_str_eq(m->equations[2].name, "it's \\");
    cr_assert_str_eq(m->equations[3].name, "x - y = 1");
    mel_model_free(m);
}

Test(mo_parse, names_of_unlabelled_equations_do_not_change_when_other_lines_change)
{
    const char *a = "model M\n Real x; Real y;\nequation\n der(x) = -x + y;\n y = 2 * x;\nend M;\n";
    const char *b = "model M\n // a comment\n Real x; Real y; Real z;\nequation\n z = 1;\n"
                    " der(x) = -x + y;\n\n y = 2 * x;\nend M;\n";
    mel_model *ma = parse_ok(a), *mb = parse_ok(b);
    for (uint32_t i = 0; i < ma->n_equations; i++)
        cr_assert_geq(mel_model_find_equation(mb, ma->equations[i].name), 0, "%s",
                      ma->equations[i].name);
    mel_model_free(ma);
    mel_model_free(mb);
}

Test(mo_parse, shortens_long_equation_names_with_a_hash_and_numbers_duplicates)
{
    mel_model *m = parse_ok(
        "model M\n Real x; Real y; Real z;\nequation\n"
        " x = aVeryLongFunctionName(y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y);\n"
        " y = x;\n y = x;\n"
        " z = anotherLongFunctionName(y, y, y, y, y, y, y, y, y, y, y, y, y, y, 1);\n"
        " z = anotherLongFunctionName(y, y, y, y, y, y, y, y, y, y, y, y, y, y, 2);\nend M;\n");
    cr_assert_lt(strlen(m->equations[0].name), 70);
    /* issue 42: no hash where the shortened text is unique */
    cr_assert_str_eq(m->equations[0].name, "x = aVeryLongFunctionName(y, y, y, y, y, y, y, y...");
    cr_assert_str_eq(m->equations[1].name, "y = x");
    cr_assert_str_eq(m->equations[2].name, "y = x#2");
    /* two long texts that start alike keep the hashes of their whole texts */
    cr_assert_not_null(strstr(m->equations[3].name, "...#"), "%s", m->equations[3].name);
    cr_assert_not_null(strstr(m->equations[4].name, "...#"), "%s", m->equations[4].name);
    cr_assert_str_neq(m->equations[3].name, m->equations[4].name);
    mel_model_free(m);
}

/* ---- Constructs ------------------------------------------------------------------ */

Test(mo_parse, imports_the_constructs_model)
{
    mel_model *m = parse_file("bm_constructs.bmo");
    cr_assert_eq(m->n_variables, 9);
    cr_assert_eq(m->n_equations, 10);
    cr_assert_eq(m->n_modes, 1);
    cr_assert_str_eq(m->modes[0].name, "on");
    /* for-equations unrolled, arrays scalarised */
    cr_assert_geq(mel_model_find_variable(m, "x[3]"), 0);
    cr_assert_eq(mel_model_find_variable(m, "u"), -1);    /* top-level input: known */
    cr_assert_eq(mel_model_find_variable(m, "dead"), -1); /* assigned in when */
    cr_assert_eq(mel_model_find_variable(m, "ts"), -1);   /* discrete */
    /* (a, b) = f(v, w = x[end]): two equations, x[end] is x[3] */
    const mel_equation *q1 = &m->equations[4], *q2 = &m->equations[5];
    cr_assert_eq(q1->n_incs, 3);
    cr_assert_eq(order_in(m, q1, "x[3]", NULL), 0);
    cr_assert_eq(order_in(m, q2, "b", NULL), 0);
    cr_assert_eq(order_in(m, q2, "a", NULL), -1);
    /* if-equation: two guarded equations */
    bool on = true;
    cr_assert(mel_guard_eval(m->equations[6].guard, &on));
    cr_assert_not(mel_guard_eval(m->equations[7].guard, &on));
    /* smooth(1, if v >= 0 then v else -v): the condition selects nothing */
    on = false;
    cr_assert_eq(order_in(m, &m->equations[7], "v", &on), 0);
    /* delay(q, ...) is not incident, semiLinear(a, ...) is */
    cr_assert_eq(order_in(m, &m->equations[0], "q", NULL), -1);
    cr_assert_eq(order_in(m, &m->equations[0], "a", NULL), 0);
    /* the algorithm section: one equation for yout, reading q and b */
    const mel_equation *alg = eq_named(m, "algorithm: yout");
    cr_assert_eq(order_in(m, alg, "q", NULL), 0);
    cr_assert_eq(order_in(m, alg, "b", NULL), 0);
    /* events: when-clauses, reinit with its target, initial equations */
    size_t when = 0, reinit = 0, initial = 0;
    for (uint32_t k = 0; k < m->n_events; k++) {
        when += m->events[k].kind == MEL_EV_WHEN;
        initial += m->events[k].kind == MEL_EV_INITIAL;
        if (m->events[k].kind == MEL_EV_REINIT) {
            reinit++;
            cr_assert_eq(m->events[k].var, mel_model_find_variable(m, "v"));
            cr_assert_geq(m->events[k].parent, 0);
            cr_assert_str_eq(m->events[m->events[k].parent].text, "sample(0.0, 0.1)");
        }
    }
    cr_assert_eq(when, 3);
    cr_assert_eq(reinit, 1);
    cr_assert_eq(initial, 2);
    mel_model_free(m);
}

Test(mo_parse, derives_invariants_from_boolean_and_integer_definitions)
{
    mel_model *m = parse_file("bm_modes.bmo");
    cr_assert_eq(m->n_modes, 4);
    cr_assert_str_eq(m->modes[2].name, "gear == 1");
    unsigned valid = 0;
    bool mode[4];
    for (unsigned x = 0; x < 16; x++) {
        for (int k = 0; k < 4; k++)
            mode[k] = (x >> k) & 1;
        bool ok = true;
        for (uint32_t i = 0; i < m->n_invariants; i++)
            ok = ok && mel_guard_eval(m->invariants[i].cond, mode);
        valid += ok;
    }
    cr_assert_eq(valid, 2);
    mel_model_free(m);
}

/* Valid assignments of m's mode variables (at most 8) under its invariants. */
static unsigned valid_modes(const mel_model *m)
{
    unsigned valid = 0;
    bool mode[8];
    cr_assert_leq(m->n_modes, 8);
    for (unsigned x = 0; x < 1u << m->n_modes; x++) {
        for (uint32_t k = 0; k < m->n_modes; k++)
            mode[k] = (x >> k) & 1;
        bool ok = true;
        for (uint32_t i = 0; i < m->n_invariants; i++)
            ok = ok && mel_guard_eval(m->invariants[i].cond, mode);
        valid += ok;
    }
    return valid;
}

Test(mo_parse, relations_of_one_expression_to_constants_follow_the_order_of_the_reals)
{
    /* x > h (h = 1), x > 0, x < -1, x >= 2: of the 16 assignments only the
     * five intervals x < -1, [-1, 0], (0, 1], (1, 2), [2, inf) are possible */
    mel_model *m = parse_ok("model M\n parameter Real h = 1;\n Real x, y, z, w, v;\nequation\n"
                            " der(x) = 1 - x;\n y = if x > h then x else 0;\n"
                            " z = if x > 0 then y else 0;\n w = if x < -1 then z else 0;\n"
                            " v = if x >= 2 then w else 0;\nend M;\n");
    cr_assert_eq(m->n_modes, 4);
    cr_assert_str_eq(m->modes[3].name, "x >= 2");
    cr_assert_eq(valid_modes(m), 5);
    bool above1[4] = {true, false, false, false}; /* x > 1 but not x > 0 */
    bool ok = true;
    for (uint32_t i = 0; i < m->n_invariants; i++)
        ok = ok && mel_guard_eval(m->invariants[i].cond, above1);
    cr_assert_not(ok);
    mel_model_free(m);
}

Test(mo_parse, relations_of_different_expressions_or_between_unknowns_stay_free)
{
    /* x > 0 and y < 0: different expressions; x > y: no constant side */
    mel_model *m = parse_ok("model M\n Real x, y, z, w, v;\nequation\n der(x) = 1 - x;\n"
                            " der(y) = x;\n z = if x > 0 then x else 0;\n"
                            " w = if y < 0 then z else 0;\n v = if x > y then w else 0;\nend M;\n");
    cr_assert_eq(m->n_modes, 3);
    cr_assert_eq(m->n_invariants, 0);
    cr_assert_eq(valid_modes(m), 8);
    mel_model_free(m);
}

Test(mo_parse, relations_are_atoms_named_by_their_text_and_negations_share_them)
{
    mel_model *m = parse_ok("model M\n Real x; Real y;\nequation\n"
                            " 0 = if x >= 0 then y else der(y);\n"
                            " x = if x < 0 then y else 1;\nend M;\n");
    cr_assert_eq(m->n_modes, 1);
    cr_assert_str_eq(m->modes[0].name, "x >= 0");
    bool t = true;
    cr_assert_eq(order_in(m, &m->equations[1], "y", &t), -1);
    mel_model_free(m);
}

Test(mo_parse, conditions_on_parameters_are_evaluated)
{
    mel_model *m = parse_ok("model M\n parameter Integer n = 2;\n parameter Boolean b = n > 1;\n"
                            " Real x;\nequation\n if b then\n  der(x) = 1;\n else\n  x = 0;\n"
                            " end if;\nend M;\n");
    cr_assert_eq(m->n_modes, 0);
    cr_assert_eq(m->n_equations, 1);
    cr_assert_eq(order_in(m, &m->equations[0], "x", NULL), 1);
    mel_model_free(m);
}

Test(mo_parse, equations_with_a_discrete_side_are_equations_for_the_unknowns_of_the_other)
{
    /* y = k (Integer k) is an equation for y; k = 2 and b = y > 0 define
     * discrete variables; d = z (d assigned in a when-clause) is one for z */
    mel_model *m = parse_ok("model M\n Real y; Real z; Real d; Integer k; Boolean b;\nequation\n"
                            " y = k;\n k = 2;\n b = y > 0;\n d = z;\n"
                            " when time > 1 then\n  d = 1;\n end when;\nend M;\n");
    cr_assert_eq(m->n_variables, 2);
    cr_assert_eq(m->n_equations, 2);
    cr_assert_str_eq(m->equations[0].name, "y = k");
    cr_assert_str_eq(m->equations[1].name, "d = z");
    mel_model_free(m);
}

Test(mo_parse, reads_last_as_pre)
{
    mel_model *m = parse_ok("model M\n Real s; Boolean g;\nequation\n g = last(s) <= 0;\n"
                            " s = if g then 1 else 2;\nend M;\n");
    cr_assert_eq(m->n_equations, 1);
    mel_model_free(m);
}

/* ---- Errors ------------------------------------------------------------------------ */

Test(mo_parse, locates_syntax_errors_and_recovers_at_the_next_semicolon)
{
    mdae_diags d;
    int rc = parse_fail("model M\n Real x;\nequation\n x = 1 +;\n der(x) = ) x;\n x == 2;\nend M;\n",
                        NULL, &d);
    cr_assert_eq(rc, MDAE_E_PARSE);
    cr_assert(has_error(&d, 4, 9, "expected an expression"));
    cr_assert(has_error(&d, 5, 11, "expected an expression"));
    cr_assert(has_error(&d, 6, 8, "expected '=' in an equation"));
    char *s = mdae_diag_format(&d.items[0], "m.mo");
    cr_assert_str_eq(s, "m.mo:4:9: error: expected an expression, found ';'");
    mdae_free(s);
    mdae_diags_close(&d);
}

/* ---- Recovery (issue 36 item 2) --------------------------------------------------- */

static const mel_options mo_recover = {.recover = true};

/* broken, recovered, prints (mo_model_to_mel) as `without` does, with
 * n_left_out entries, n_errors syntax errors and no other error. */
static mel_model *mo_same_as_without(const char *broken, const char *without,
                                     uint32_t n_left_out, uint32_t n_errors)
{
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mo_model_parse(broken, strlen(broken), &mo_recover, &m, &d);
    if (rc != MDAE_OK)
        dump(&d);
    cr_assert_eq(rc, MDAE_OK, "%s", mdae_err_name(rc));
    mel_model *w = parse_ok(without);
    char *a = NULL, *b = NULL;
    cr_assert_eq(mo_model_to_mel(m, &a), MDAE_OK);
    cr_assert_eq(mo_model_to_mel(w, &b), MDAE_OK);
    cr_assert_str_eq(a, b);
    cr_assert_eq(m->n_left_out, n_left_out, "%u left out", m->n_left_out);
    cr_assert_eq(m->n_syntax_errors, n_errors);
    cr_assert_eq(d.errors, n_errors);
    mdae_free(a);
    mdae_free(b);
    mel_model_free(w);
    mdae_diags_close(&d);
    return m;
}

#define MO_HEAD "model M\n  Real x;\n  Real y;\nequation\n  der(x) = y;\n  y = 2 * x;\n"

Test(mo_parse, recovery_leaves_out_a_half_typed_equation_and_keeps_the_class)
{
    mel_model *m = mo_same_as_without(MO_HEAD "  x = \nend M;\n", MO_HEAD "end M;\n", 1, 1);
    cr_assert_eq(m->left_out[0].where.start.line, 7);
    cr_assert_str_eq(m->left_out[0].message, "expected an expression, found 'end'");
    mel_model_free(m);
    /* an equation without its ';' before the end: kept, nothing left out */
    m = mo_same_as_without(MO_HEAD "  der(y) = 1\nend M;\n",
                           MO_HEAD "  der(y) = 1;\nend M;\n", 0, 1);
    mel_model_free(m);
}

Test(mo_parse, recovery_keeps_a_declaration_whose_semicolon_is_missing)
{
    mel_model *m = mo_same_as_without("model M\n  Real x;\n  Real y\nequation\n  der(x) = y;\n"
                                      "  y = 2 * x;\nend M;\n",
                                      MO_HEAD "end M;\n", 0, 1);
    mel_model_free(m);
    /* and the next line declares: a declaration of its own */
    m = mo_same_as_without("model M\n  Real x\n  Real y;\nequation\n  der(x) = y;\n"
                           "  y = 2 * x;\nend M;\n",
                           MO_HEAD "end M;\n", 0, 1);
    mel_model_free(m);
}

Test(mo_parse, recovery_inside_an_if_equation_stops_at_its_else)
{
    const char *head = "model M\n  Real x;\n  Real y;\n  Boolean g;\nequation\n  g = x > 1;\n"
                       "  der(x) = 1;\n  if g then\n    y = x;\n";
    char broken[512], without[512];
    snprintf(broken, sizeof broken, "%s    y = \n  else\n    y = 2 * x;\n  end if;\nend M;\n",
             head);
    snprintf(without, sizeof without, "%s  else\n    y = 2 * x;\n  end if;\nend M;\n", head);
    mel_model *m = mo_same_as_without(broken, without, 1, 1);
    mel_model_free(m);
}

Test(mo_parse, recovery_leaves_out_the_equations_of_a_broken_declaration_without_more_errors)
{
    mel_model *m = mo_same_as_without("model M\n  Real x;\n  Real z(start=\n  Real y;\nequation\n"
                                      "  der(x) = y;\n  y = 2 * x;\n  z = x;\nend M;\n",
                                      "model M\n  Real x;\nequation\nend M;\n", 4, 1);
    cr_assert_str_eq(m->left_out[1].message, "left out: uses 'y', whose declaration was left out");
    mel_model_free(m);
}

/* A declaration's binding is an equation like the others: left out when
 * it reads a name whose declaration was left out (it was kept, with the
 * name as a text that MEL then read in both branches: the Modelica
 * fuzzer's find, an edge more once printed as MEL). */
Test(mo_parse, recovery_leaves_out_a_binding_that_uses_a_left_out_declaration)
{
    mel_model *m = mo_same_as_without("model M\n  Real x;\n  Boolean g(start=\n  Real u;\n"
                                      "  Real w;\n  Real y = if g then x else w;\nequation\n"
                                      "  der(x) = 1;\n  w = 2;\nend M;\n",
                                      "model M\n  Real x;\n  Real w;\n  Real y;\nequation\n"
                                      "  der(x) = 1;\n  w = 2;\nend M;\n",
                                      2, 1);
    cr_assert_str_eq(m->left_out[1].message, "left out: uses 'g', whose declaration was left out");
    cr_assert_eq(m->left_out[1].where.start.line, 6);
    mel_model_free(m);
}

Test(mo_parse, recovery_is_off_by_default)
{
    mdae_diags d;
    cr_assert_eq(parse_fail(MO_HEAD "  x = \nend M;\n", NULL, &d), MDAE_E_PARSE);
    mdae_diags_close(&d);
}

Test(mo_parse, reports_lexical_errors)
{
    mdae_diags d;
    int rc = parse_fail("model M\n Real 'x;\n Real y @;\nequation\n y = \"open;\nend M;\n", NULL,
                        &d);
    cr_assert_eq(rc, MDAE_E_PARSE);
    cr_assert(has_error(&d, 2, 7, "unterminated quoted name"));
    cr_assert(has_error(&d, 3, 9, "unexpected character '@'"));
    mdae_diags_close(&d);
    /* past DBL_MAX, as MEL says it (it was read as an infinity that the MEL
     * printed for it did not read back: mo_parse_fuzz, CI of stop 47) */
    rc = parse_fail("model M\n Real x;\nequation\n x = 1e400 + 1e-400;\nend M;\n", NULL, &d);
    cr_assert_eq(rc, MDAE_E_PARSE);
    cr_assert(has_error(&d, 4, 6, "number too large"));
    cr_assert_eq(d.count, 1, "an underflow is zero, not an error");
    mdae_diags_close(&d);
}

/* OpenModelica's export writes #EMPTY# for an argument it has no value for
 * (Modelica.Electrical.Spice3.Examples.Graetz): a located warning and an
 * opaque value, an error as soon as the structure depends on it. */
Test(mo_parse, reads_the_exporters_empty_marker_as_an_opaque_value_with_a_warning)
{
    const char *ok = "model M\n Real x; Real y;\nequation\n der(x) = y;\n y = f(x, #EMPTY#);\nend M;\n";
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    cr_assert_eq(mo_model_parse(ok, strlen(ok), NULL, &m, &d), MDAE_OK);
    cr_assert_eq(d.count, 1);
    cr_assert_eq(d.items[0].severity, MDAE_SEV_WARNING);
    cr_assert_eq(d.items[0].where.start.line, 5);
    cr_assert_eq(d.items[0].where.start.col, 11);
    cr_assert_eq(d.items[0].where.end.col, 18);
    cr_assert(strstr(d.items[0].message, "#EMPTY#") != NULL);
    cr_assert_eq(m->n_equations, 2);
    mel_model_free(m);
    mdae_diags_close(&d);

    int rc = parse_fail("model M\n parameter Integer n = #EMPTY#;\n Real x[n];\nequation\n"
                        " x = fill(1, n);\nend M;\n",
                        NULL, &d);
    cr_assert_eq(rc, MDAE_E_MODEL);
    cr_assert(has_error(&d, 3, 9, "must be a constant"));
    mdae_diags_close(&d);

    rc = parse_fail("model M\n Real y;\nequation\n y = #EMPTY + #;\nend M;\n", NULL, &d);
    cr_assert_eq(rc, MDAE_E_PARSE);
    cr_assert(has_error(&d, 4, 6, "unexpected character '#'"));
    mdae_diags_close(&d);
}

Test(mo_parse, reports_unknown_names_and_mismatched_end)
{
    mdae_diags d;
    int rc = parse_fail("model M\n Real x;\nequation\n der(x) = y;\nend N;\n", NULL, &d);
    cr_assert(rc == MDAE_E_PARSE || rc == MDAE_E_MODEL);
    cr_assert(has_error(&d, 5, 5, "'end N' closes class 'M'"));
    mdae_diags_close(&d);
    rc = parse_fail("model M\n Real x;\nequation\n der(x) = y;\nend M;\n", NULL, &d);
    cr_assert_eq(rc, MDAE_E_MODEL);
    cr_assert(has_error(&d, 4, 11, "unknown name 'y'"));
    mdae_diags_close(&d);
}

Test(mo_parse, names_what_the_analysis_cannot_represent)
{
    mdae_diags d;
    int rc = parse_fail("model M\n Real x; Real y;\nequation\n connect(x, y);\nend M;\n", NULL, &d);
    cr_assert_eq(rc, MDAE_E_MODEL);
    cr_assert(has_error(&d, 4, 2, "connect equations are not supported"));
    mdae_diags_close(&d);
    rc = parse_fail("model M\n Real x[2];\nequation\n x = {1, 2};\nend M;\n", NULL, &d);
    cr_assert_eq(rc, MDAE_E_MODEL);
    cr_assert(has_error(&d, 4, 2, "array equations are not supported"));
    mdae_diags_close(&d);
    rc = parse_fail("package P\n function f\n input Real u;\n output Real y;\n algorithm\n y := u;\n"
                    " end f;\nend P;\n", NULL, &d);
    cr_assert_eq(rc, MDAE_E_MODEL);
    cr_assert(has_error(&d, 1, 9, "no model"));
    mdae_diags_close(&d);
}

Test(mo_parse, keeps_clocked_partitions_aside)
{
    /* yd and z are clocked (sample with a clock, then propagation); u and y
     * are continuous; hold(yd) is not incident */
    mel_model *m = parse_ok("model M\n Clock c = Clock(0.1);\n Real u; Real yd; Real z; Real y;\n"
                            "equation\n u = sin(time);\n yd = sample(u, c);\n"
                            " z = previous(z) + yd;\n y = hold(z);\nend M;\n");
    cr_assert_eq(m->n_variables, 2);
    cr_assert_eq(mel_model_find_variable(m, "yd"), -1);
    cr_assert_eq(mel_model_find_variable(m, "z"), -1);
    cr_assert_eq(m->n_equations, 2);
    cr_assert_eq(m->equations[1].n_incs, 1); /* y = hold(z): y only */
    size_t discrete = 0;
    for (uint32_t k = 0; k < m->n_events; k++)
        discrete += m->events[k].kind == MEL_EV_DISCRETE;
    cr_assert_eq(discrete, 3); /* c = Clock(0.1), yd = sample(u, c), z = ... */
    mel_model_free(m);
}

Test(mo_parse, stops_at_the_nesting_limit)
{
    char src[8192];
    size_t n = (size_t)snprintf(src, sizeof src, "model M\n Real x;\nequation\n x = ");
    for (int i = 0; i < 2000; i++)
        src[n++] = '(';
    src[n] = 0;
    mdae_diags d;
    int rc = parse_fail(src, NULL, &d);
    cr_assert_eq(rc, MDAE_E_LIMIT);
    cr_assert(has_error(&d, 4, 0, "nesting deeper than 256"));
    mdae_diags_close(&d);
}

Test(mo_parse, stops_at_the_instance_and_size_limits)
{
    mel_options opt = {.max_instances = 100};
    mdae_diags d;
    int rc = parse_fail("model M\n parameter Integer n = 1000000000;\n Real x[n];\nequation\n"
                        " for i in 1:n loop\n  der(x[i]) = 1;\n end for;\nend M;\n", &opt, &d);
    cr_assert_eq(rc, MDAE_E_LIMIT);
    cr_assert(has_error(&d, 3, 0, "more than 100 instances"));
    mdae_diags_close(&d);
    rc = parse_fail("model M\n Real x;\nequation\n for i in 1:1000 loop\n  x = i;\n end for;\nend M;\n",
                    &opt, &d);
    cr_assert_eq(rc, MDAE_E_LIMIT);
    mdae_diags_close(&d);
    mel_options small = {.max_input_bytes = 10};
    rc = parse_fail("model M end M;", &small, &d);
    cr_assert_eq(rc, MDAE_E_LIMIT);
    mdae_diags_close(&d);
}

Test(mo_parse, caps_the_number_of_errors)
{
    char src[20000];
    size_t n = (size_t)snprintf(src, sizeof src, "model M\n Real x;\nequation\n");
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, " x = +;\n");
    snprintf(src + n, sizeof src - n, "end M;\n");
    mdae_diags d;
    (void)parse_fail(src, NULL, &d);
    cr_assert_leq(d.errors, 51);
    mdae_diags_close(&d);
}

Test(mo_parse, returns_nomem_at_every_allocation_without_leaking)
{
    char *src = tm_slurp("bm_constructs.bmo");
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; rc == MDAE_E_NOMEM && n < 200000; n++) {
        counting_arm(n);
        mdae_diags d;
        mdae_diags_init(&d);
        mel_model *m = NULL;
        rc = mo_model_parse(src, strlen(src), NULL, &m, &d);
        if (rc == MDAE_OK) {
            cr_assert_eq(m->n_equations, 10);
            mel_model_free(m);
        } else {
            cr_assert_eq(rc, MDAE_E_NOMEM, "allocation %ld: %s", n, mdae_err_name(rc));
            cr_assert_null(m);
        }
        mdae_diags_close(&d);
        cr_assert_eq(live, 0, "allocation %ld failing leaks %ld blocks", n, live);
    }
    cr_assert_eq(rc, MDAE_OK);
    mdae_replace_allocator(NULL);
    free(src);
}

/* ---- Formats and the MEL printer ------------------------------------------------- */

Test(mo_parse, recognises_modelica_by_extension_or_header)
{
    cr_assert(mo_is_modelica("", 0, "a.mo"));
    cr_assert(mo_is_modelica("", 0, "dir/a.bmo"));
    cr_assert_not(mo_is_modelica("x : real;", 9, "a.mel"));
    cr_assert(mo_is_modelica("\n  //! base 0.1.0\n", 17, NULL));
    cr_assert_not(mo_is_modelica("// base", 7, NULL));
    /* issue 42: Modelica without a file name (standard input) by its first word */
    const char *mo = "// a comment\n/* and another */ model M\n  Real x;\nequation\n  der(x) = 1;\nend M;\n";
    cr_assert(mo_is_modelica(mo, strlen(mo), NULL));
    cr_assert(mo_is_modelica("within ;\npartial model P end P;", 29, "x.txt"));
    cr_assert_not(mo_is_modelica(mo, strlen(mo), "a.mel"), "a .mel file stays MEL");
    cr_assert_not(mo_is_modelica("model : real;", 13, NULL), "a MEL variable named model");
    cr_assert_not(mo_is_modelica("x : real;\n", 10, NULL));
    cr_assert_not(mo_is_modelica("/* unterminated", 15, NULL));
}

static void check_round_trip(const char *file)
{
    mel_model *m = parse_file(file);
    char *text = NULL;
    cr_assert_eq(mo_model_to_mel(m, &text), MDAE_OK);
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *back = NULL;
    int rc = mel_model_parse(text, strlen(text), NULL, &back, &d);
    if (rc != MDAE_OK) {
        dump(&d);
        fprintf(stderr, "%s\n", text);
    }
    cr_assert_eq(rc, MDAE_OK, "%s: the printed MEL does not read back", file);
    cr_assert_eq(back->n_equations, m->n_equations);
    cr_assert_eq(back->n_variables, m->n_variables);
    cr_assert_eq(back->n_modes, m->n_modes);
    cr_assert_eq(back->n_invariants, m->n_invariants);
    cr_assert_eq(back->n_edges, m->n_edges);
    /* same incidences, case by case, in every mode (small models) */
    cr_assert_leq(m->n_modes, 12);
    bool mode[12];
    for (uint32_t x = 0; x < (1u << m->n_modes); x++) {
        for (uint32_t k = 0; k < m->n_modes; k++)
            mode[k] = (x >> k) & 1;
        for (uint32_t i = 0; i < m->n_equations; i++) {
            cr_assert_eq(mel_guard_eval(m->equations[i].guard, mode),
                         mel_guard_eval(back->equations[i].guard, mode));
            cr_assert_eq(m->equations[i].n_incs, back->equations[i].n_incs);
            for (uint32_t j = 0; j < m->equations[i].n_incs; j++)
                cr_assert_eq(mel_incidence_order(&m->equations[i].incs[j], mode),
                             mel_incidence_order(&back->equations[i].incs[j], mode), "%s %s",
                             file, m->equations[i].name);
        }
    }
    mel_model_free(back);
    mdae_diags_close(&d);
    mdae_free(text);
    mel_model_free(m);
}

Test(mo_parse, prints_mel_that_reads_back_into_the_same_structure)
{
    const char *files[] = {"water_tank.mo", "clutch_basic.mo", "cup_and_ball.mo", "rldc2_cc.mo",
                           "two_equations.mo", "bm_constructs.bmo", "bm_modes.bmo"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        check_round_trip(files[i]);
}

/* ---- Saved fuzzer inputs ----------------------------------------------------------- */

Test(mo_parse, replays_every_saved_fuzzer_input)
{
    const char *dir = MDAE_SOURCE_DIR "/tests/corpus/mo_parse";
    DIR *dp = opendir(dir);
    cr_assert_not_null(dp, "%s: the seeds are missing", dir);
    struct dirent *de;
    mel_options opt = {.max_instances = 10000, .max_depth = 64};
    while ((de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        if (f == NULL)
            continue;
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        mdae_diags d;
        mdae_diags_init(&d);
        mel_model *m = NULL;
        /* issue 36 item 2: the saved inputs also through recovery */
        mel_options ropt = opt;
        ropt.recover = true;
        mel_model *r = NULL;
        int rrc = mo_model_parse(buf, n, &ropt, &r, &d);
        cr_assert(rrc == MDAE_OK || rrc == MDAE_E_PARSE || rrc == MDAE_E_MODEL ||
                      rrc == MDAE_E_LIMIT,
                  "%s: %s", de->d_name, mdae_err_name(rrc));
        cr_assert_eq(rrc == MDAE_OK, r != NULL);
        mel_model_free(r);
        mdae_diags_close(&d);
        mdae_diags_init(&d);
        int rc = mo_model_parse(buf, n, &opt, &m, &d);
        cr_assert(rc == MDAE_OK || rc == MDAE_E_PARSE || rc == MDAE_E_MODEL ||
                      rc == MDAE_E_LIMIT,
                  "%s: %s", de->d_name, mdae_err_name(rc));
        if (m != NULL) { /* the fuzzer's promise: the MEL printed reads back */
            char *text = NULL;
            cr_assert_eq(mo_model_to_mel(m, &text), MDAE_OK);
            mel_model *back = NULL;
            mdae_diags d2;
            mdae_diags_init(&d2);
            int rc2 = mel_model_parse(text, strlen(text), &opt, &back, &d2);
            cr_assert(rc2 != MDAE_E_PARSE && rc2 != MDAE_E_MODEL, "%s: the MEL does not read back",
                      de->d_name);
            if (rc2 == MDAE_OK) {
                cr_assert_eq(back->n_equations, m->n_equations, "%s", de->d_name);
                cr_assert_eq(back->n_variables, m->n_variables, "%s", de->d_name);
                cr_assert_eq(back->n_edges, m->n_edges, "%s: incidences lost", de->d_name);
            }
            mel_model_free(back);
            mdae_diags_close(&d2);
            mdae_free(text);
        }
        mel_model_free(m);
        mdae_diags_close(&d);
    }
    closedir(dp);
}
