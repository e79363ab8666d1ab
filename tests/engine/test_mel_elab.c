/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mel_elab.c -- elaboration (engine/mel_elab.c) and the
 * guard utilities (engine/mel_guard.c): loops and instance names, derivative
 * orders, left limits, guards of if-expressions and if-statements, guarded
 * variables, defines, parameters, guard formatting, and RLDC2 (RR-9322
 * Fig. 3) checked by hand.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fx.h"
#include "mel_int.h"
#include "mel_test_util.h"

Test(mel_elab, expands_loops_into_indexed_instances)
{
    mel_model *m = mt_parse("N : integer = 3;\n"
                            "foreach i in 1 .. N do\n"
                            "  x[i] : real;\n"
                            "  e[i] : equation x[i] = if i > 1 then x[i-1] else 0\n"
                            "done");
    cr_assert_eq(m->n_variables, 3);
    cr_assert_eq(m->n_equations, 3);
    cr_assert_eq(m->n_integers, 1);
    cr_assert_str_eq(m->variables[2].name, "x[3]");
    cr_assert_str_eq(m->equations[0].name, "e[1]");
    cr_assert_eq(m->equations[0].n_incs, 1); /* the dead branch x[0] is not elaborated */
    cr_assert_eq(m->equations[2].n_incs, 2);
    cr_assert_eq(m->n_edges, 5);
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e[3]", "x[2]")), "0:true");
    mel_model_free(m);
}

Test(mel_elab, names_multi_index_instances_with_commas)
{
    mel_model *m = mt_parse("foreach i in 1..2 do foreach j in i..2 do\n"
                            "  x[i, j] : real; e[i,j] : equation x[i,j] = 0 done done");
    cr_assert_eq(m->n_variables, 3);
    cr_assert_str_eq(m->variables[0].name, "x[1,1]");
    cr_assert_str_eq(m->variables[1].name, "x[1,2]");
    cr_assert_str_eq(m->variables[2].name, "x[2,2]");
    cr_assert_eq(mel_model_find_equation(m, "e[2,2]"), 2);
    mel_model_free(m);
}

/* Instance names write their indices with mdae_put_int: as printf would,
 * at the ends of long long too. */
Test(mel_elab, writes_indices_as_printf_does)
{
    static const long long v[] = {0, 7, 10, 99, 100, 12345, -1, -10, -987,
                                  LLONG_MAX, LLONG_MIN};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
        char got[MDAE_INT_CHARS + 1], want[32];
        size_t n = mdae_put_int(got, v[k]);
        cr_assert_leq(n, MDAE_INT_CHARS);
        got[n] = '\0';
        snprintf(want, sizeof want, "%lld", v[k]);
        cr_assert_str_eq(got, want);
    }
}

/* A loop's instance names are counted up from the last one (new_sym,
 * name_after): each name is the one printf writes, across 9 to 10, 99 to
 * 100, 999 to 1000, from negative indices through 0, a quoted base name with
 * brackets and digits, and indices that do not follow (2 i, a loop counting
 * the same name again, another name in between). */
Test(mel_elab, counts_instance_names_up_as_printf_writes_them)
{
    mel_model *m = mt_parse("foreach i in -12 .. 1010 do x[i] : real; y[i + 1] : real done;\n"
                            "foreach i in 1 .. 30 do z[2 * i] : real; 'a[9]'[i] : real done;\n"
                            "foreach i in 1 .. 3 do x[2000 - i] : real done;\n"
                            "foreach i in 0 .. 2 do foreach j in 98 .. 101 do\n"
                            "  u[i, j] : real done done;\n");
    static const struct {
        const char *fmt;
        long long lo, hi, step;
    } runs[] = {{"x[%lld]", -12, 1010, 1}, {"y[%lld]", -11, 1011, 1}, {"z[%lld]", 2, 60, 2},
                {"a[9][%lld]", 1, 30, 1}, {"x[%lld]", 1999, 1997, -1}};
    size_t n = 0;
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++)
        for (long long v = runs[r].lo;; v += runs[r].step) {
            char want[64];
            snprintf(want, sizeof want, runs[r].fmt, v);
            cr_assert_gt(mel_model_find_variable(m, want), -1, "no variable %s", want);
            n++;
            if (v == runs[r].hi)
                break;
        }
    char want[64];
    for (long long i = 0; i <= 2; i++)
        for (long long j = 98; j <= 101; j++) {
            snprintf(want, sizeof want, "u[%lld,%lld]", i, j);
            cr_assert_gt(mel_model_find_variable(m, want), -1, "no variable %s", want);
        }
    cr_assert_eq(m->n_variables, n + 12);
    for (size_t k = 0; k < m->n_variables; k++) /* and no other name */
        cr_assert_eq(mel_model_find_variable(m, m->variables[k].name), (long)k);
    mel_model_free(m);
}

Test(mel_elab, runs_an_empty_loop_zero_times)
{
    mel_model *m = mt_parse("foreach i in 3 .. 2 do x[i] : real done; y : real");
    cr_assert_eq(m->n_variables, 1);
    mel_model_free(m);
}

Test(mel_elab, adds_nested_derivative_orders)
{
    mel_model *m = mt_parse("x : real; y : real;\n"
                            "e : equation der(der(x)) = der(x * y) + x");
    const mel_incidence *ix = mt_inc(m, "e", "x");
    cr_assert_str_eq(mt_cases(m, ix), "2:true");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e", "y")), "1:true");
    cr_assert_eq(ix->cases[0].where.start.col, 22);
    mel_model_free(m);
}

Test(mel_elab, does_not_count_last_and_pre_as_incidences)
{
    mel_model *m = mt_parse("x : real; y : real; z : real;\n"
                            "e : equation x = last(y) + pre(der(z))");
    cr_assert_eq(m->equations[0].n_incs, 1);
    cr_assert_not_null(mt_inc(m, "e", "x"));
    cr_assert_null(mt_inc(m, "e", "y"));
    cr_assert_null(mt_inc(m, "e", "z"));
    mel_model_free(m);
}

Test(mel_elab, passes_incidences_through_external_functions)
{
    mel_model *m = mt_parse("x : real; y : real;\n"
                            "e : equation 0 = f(der(x), g(y) ^ 2, 3)");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e", "x")), "1:true");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e", "y")), "0:true");
    mel_model_free(m);
}

Test(mel_elab, never_makes_parameters_constants_or_indices_incident)
{
    mel_model *m = mt_parse("p : real = 2.0; N : integer = 4; g : boolean; x : real;\n"
                            "foreach i in 1..1 do e[i] : equation p * x = N + i + g done");
    cr_assert_eq(m->n_params, 1);
    cr_assert_eq(m->n_integers, 1);
    cr_assert_eq(m->n_modes, 1);
    cr_assert_eq(m->n_variables, 1);
    cr_assert_eq(m->equations[0].n_incs, 1);
    cr_assert_eq(m->n_edges, 1);
    mel_model_free(m);
}

Test(mel_elab, gives_if_expression_branches_complementary_guards)
{
    mel_model *m = mt_parse("g : boolean; h : boolean; x : real; y : real;\n"
                            "e : equation 0 = if g & !h then der(x) else x + (if h then y else 0)");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e", "x")), "1:g & !h; 0:!(g & !h)");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e", "y")), "0:!(g & !h) & h");
    mel_model_free(m);
}

Test(mel_elab, merges_uses_of_one_order_with_or)
{
    mel_model *m = mt_parse("g : boolean; x : real;\n"
                            "e : equation 0 = (if g then x else 0) + (if !g then x else 1)");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e", "x")), "0:true");
    mel_model_free(m);
}

Test(mel_elab, sorts_cases_by_decreasing_order_and_incidences_by_variable)
{
    mel_model *m = mt_parse("a : boolean; y : real; x : real;\n"
                            "e : equation x = if a then der(der(y)) else y + der(x)");
    const mel_equation *q = &m->equations[0];
    cr_assert_eq(q->n_incs, 2);
    cr_assert_eq(q->incs[0].var, 0); /* y */
    cr_assert_eq(q->incs[1].var, 1); /* x */
    cr_assert_str_eq(mt_cases(m, &q->incs[0]), "2:a; 0:!a");
    cr_assert_str_eq(mt_cases(m, &q->incs[1]), "1:!a; 0:true");
    mel_model_free(m);
}

Test(mel_elab, guards_equations_and_variables_of_if_statements)
{
    mel_model *m = mt_parse("g : boolean; h : boolean; x : real;\n"
                            "if g then\n"
                            "  y : real;\n"
                            "  if h then e1 : equation x = y else e2 : equation der(x) = 0 end\n"
                            "else\n"
                            "  e3 : equation x = 1\n"
                            "end");
    cr_assert_str_eq(mt_guard(m, m->variables[mel_model_find_variable(m, "y")].guard), "g");
    cr_assert_str_eq(mt_guard(m, m->variables[mel_model_find_variable(m, "x")].guard), "true");
    cr_assert_str_eq(mt_guard(m, m->equations[0].guard), "g & h");
    cr_assert_str_eq(mt_guard(m, m->equations[1].guard), "g & !h");
    cr_assert_str_eq(mt_guard(m, m->equations[2].guard), "!g");
    /* cases are absolute: they include the equation's guard */
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e1", "y")), "0:g & h");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e2", "x")), "1:g & !h");
    mel_model_free(m);
}

Test(mel_elab, folds_constant_conditions_inside_loops)
{
    mel_model *m = mt_parse("g : boolean;\n"
                            "foreach i in 1..3 do\n"
                            "  if i > 1 then x[i] : real else z : real end;\n"
                            "  if i == 3 & g then w : real end\n"
                            "done");
    cr_assert_eq(m->n_variables, 4);
    cr_assert_str_eq(m->variables[0].name, "z");
    cr_assert_str_eq(m->variables[1].name, "x[2]");
    cr_assert_str_eq(m->variables[2].name, "x[3]");
    cr_assert_str_eq(m->variables[3].name, "w");
    cr_assert_str_eq(mt_guard(m, m->variables[1].guard), "true");
    cr_assert_str_eq(mt_guard(m, m->variables[3].guard), "g");
    mel_model_free(m);
}

Test(mel_elab, folds_every_kind_of_constant_condition)
{
    mel_model *m = mt_parse("N : integer = 3; g : boolean;\n"
                            "foreach i in 1..N do\n"
                            "  if (i + 1 > N) == false then a[i] : real end;\n"
                            "  if (if i == 2 then true else false) then b[i] : real end;\n"
                            "  if true <> (i >= 3) then c[i] : real end;\n"
                            "  if (i <= 1 | g) & !(i < 1) then d[i] : real end;\n"
                            "  if -i ^ 2 == -(i * i) then e[i] : real end;\n"
                            "  if (if g then i > 2 else i > 2) then f[i] : real end\n"
                            "done");
    static const char *const want[][2] = {
        {"a[1]", "true"}, {"b[1]", NULL},   {"c[1]", "true"}, {"d[1]", "true"},
        {"e[1]", "true"}, {"f[1]", NULL},   {"a[2]", "true"}, {"b[2]", "true"},
        {"c[2]", "true"}, {"d[2]", "g"},    {"e[2]", "true"}, {"a[3]", NULL},
        {"c[3]", NULL},   {"d[3]", "g"},    {"e[3]", "true"}, {"f[3]", "true"},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        long v = mel_model_find_variable(m, want[k][0]);
        if (want[k][1] == NULL) {
            cr_assert_eq(v, -1, "%s should not exist", want[k][0]);
            continue;
        }
        cr_assert_geq(v, 0, "%s should exist", want[k][0]);
        cr_assert_str_eq(mt_guard(m, m->variables[v].guard), want[k][1], "%s", want[k][0]);
    }
    cr_assert_eq(m->n_variables, 12);
    mel_model_free(m);
}

Test(mel_elab, allows_one_name_in_both_branches_and_ors_the_guards)
{
    mel_model *m = mt_parse("g : boolean; h : boolean;\n"
                            "if g then y : real; e : equation y = 1\n"
                            "else if h then y : real; e : equation der(y) = 2 end end");
    cr_assert_eq(m->n_variables, 1);
    cr_assert_eq(m->n_equations, 1);
    cr_assert_str_eq(mt_guard(m, m->variables[0].guard), "g | !g & h");
    cr_assert_str_eq(mt_guard(m, m->equations[0].guard), "g | !g & h");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e", "y")), "1:!g & h; 0:g");
    mel_model_free(m);
}

Test(mel_elab, lets_reals_and_booleans_be_used_before_their_declaration)
{
    mel_model *m = mt_parse("e : equation x = if g then 1 else 0;\n"
                            "invariant g;\n"
                            "x : real; g : boolean");
    cr_assert_eq(m->n_equations, 1);
    cr_assert_eq(m->n_invariants, 1);
    cr_assert_str_eq(mt_guard(m, m->invariants[0].cond), "g");
    mel_model_free(m);
}

Test(mel_elab, stores_a_guarded_invariant_as_an_implication)
{
    mel_model *m = mt_parse("a : boolean; b : boolean; c : boolean;\n"
                            "if a then invariant b | c end;\n"
                            "invariant a == b");
    cr_assert_eq(m->n_invariants, 2);
    cr_assert_str_eq(mt_guard(m, m->invariants[0].cond), "!a | b | c");
    bool mode[3] = {true, false, false};
    cr_assert(!mel_guard_eval(m->invariants[0].cond, mode));
    mode[2] = true;
    cr_assert(mel_guard_eval(m->invariants[0].cond, mode));
    cr_assert(!mel_guard_eval(m->invariants[1].cond, mode));
    mode[1] = true;
    cr_assert(mel_guard_eval(m->invariants[1].cond, mode));
    mel_model_free(m);
}

Test(mel_elab, lets_defines_override_integer_constants)
{
    mel_define defs[] = {{"N", 4}, {"N", 5}}; /* the last one wins */
    mel_options opt = {.defines = defs, .n_defines = 2};
    mel_model *m = mt_parse_opt("N : integer = 2; M : integer = N * 2;\n"
                                "foreach i in 1..M do x[i] : real done",
                                &opt);
    cr_assert_eq(m->n_variables, 10);
    mel_model_free(m);
}

Test(mel_elab, rejects_a_define_the_model_does_not_declare)
{
    mel_define defs[] = {{"NN", 5}};
    mel_options opt = {.defines = defs, .n_defines = 1};
    const char *src = "N : integer = 2";
    mt_expect_error_opt(src, strlen(src), &opt, MDAE_E_MODEL, 0, 0,
                        "-D NN: the model declares no integer constant 'NN'");
}

Test(mel_elab, evaluates_integer_constants_with_power_and_division)
{
    mel_model *m = mt_parse("A : integer = 2 ^ 3 ^ 2 / 100 - -1;\n" /* 512/100 + 1 = 6 */
                            "foreach i in 1..A do x[i] : real done");
    cr_assert_eq(m->n_variables, 6);
    mel_model_free(m);
}

Test(mel_elab, declares_integer_constants_inside_loops_by_instance)
{
    mel_model *m = mt_parse("foreach i in 1..3 do K[i] : integer = i * i done;\n"
                            "foreach j in K[2] .. K[3] do x[j] : real done");
    cr_assert_eq(m->n_integers, 3);
    cr_assert_eq(m->n_variables, 6);
    cr_assert_str_eq(m->variables[0].name, "x[4]");
    mel_model_free(m);
}

Test(mel_elab, accepts_boolean_equality_and_if_in_conditions)
{
    mel_model *m = mt_parse("a : boolean; b : boolean; x : real;\n"
                            "e : equation 0 = if (a <> b) then x else 0;\n"
                            "f : equation 0 = if (if a then b else true) then x else 0");
    bool mode[2];
    const mel_incidence *ie = mt_inc(m, "e", "x"), *iff = mt_inc(m, "f", "x");
    for (int k = 0; k < 4; k++) {
        mode[0] = k & 1;
        mode[1] = (k >> 1) & 1;
        cr_assert_eq(mel_incidence_order(ie, mode) == 0, mode[0] != mode[1]);
        cr_assert_eq(mel_incidence_order(iff, mode) == 0, !mode[0] || mode[1]);
    }
    mel_model_free(m);
}

Test(mel_elab, resolves_names_in_defining_expressions_without_structure)
{
    mel_model *m = mt_parse("s : real; g : boolean = last(s) >= 0 & (if s > 1 then true else false);\n"
                            "p : real = sqrt(2.0);\n"
                            "e : equation s = p");
    cr_assert_eq(m->n_modes, 1);
    cr_assert_eq(m->n_edges, 1);
    mel_model_free(m);
}

Test(mel_elab, records_source_ranges_of_declarations_equations_and_uses)
{
    mel_model *m = mt_parse("x : real;\n"
                            "  e : equation der(x) + x = 0;\n");
    cr_assert_eq(m->variables[0].where.start.line, 1);
    cr_assert_eq(m->variables[0].where.start.col, 1);
    cr_assert_eq(m->variables[0].where.end.col, 9);
    const mel_equation *q = &m->equations[0];
    cr_assert_eq(q->where.start.line, 2);
    cr_assert_eq(q->where.start.col, 3);
    cr_assert_eq(q->where.end.col, 30);
    const mel_incidence *inc = mt_inc(m, "e", "x");
    cr_assert_eq(inc->n_cases, 1); /* order 0 adds nothing under order 1 */
    cr_assert_eq(inc->cases[0].where.start.col, 20); /* x inside der(x) */
    cr_assert_eq(inc->cases[0].where.end.col, 21);
    cr_assert_eq(inc->cases[0].where.start.offset, 29);
    mel_model_free(m);
}

Test(mel_elab, finds_instances_by_name_and_kind)
{
    mel_model *m = mt_parse("g : boolean; x : real; e : equation x = 0; p : real = 1");
    cr_assert_eq(mel_model_find_mode(m, "g"), 0);
    cr_assert_eq(mel_model_find_variable(m, "x"), 0);
    cr_assert_eq(mel_model_find_equation(m, "e"), 0);
    cr_assert_eq(mel_model_find_variable(m, "g"), -1);
    cr_assert_eq(mel_model_find_variable(m, "p"), -1);
    cr_assert_eq(mel_model_find_equation(m, "nope"), -1);
    cr_assert_eq(mel_model_find_equation(NULL, "e"), -1);
    mel_model_free(m);
}

Test(mel_elab, formats_guards_with_minimal_parentheses)
{
    mel_model *m = mt_parse("a : boolean; b : boolean; c : boolean; x : real;\n"
                            "e1 : equation 0 = if (a | b) & c then x else 0;\n"
                            "e2 : equation 0 = if !(a & b) | !c then x else 0;\n"
                            "e3 : equation 0 = if a & b & c then x else 0;\n"
                            "e4 : equation 0 = if !(!a) then x else 0;\n"
                            "e5 : equation 0 = if a & !a then x else 0");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e1", "x")), "0:(a | b) & c");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e2", "x")), "0:!(a & b) | !c");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e3", "x")), "0:a & b & c");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e4", "x")), "0:a");
    cr_assert_null(mt_inc(m, "e5", "x")); /* a FALSE case is dropped */
    cr_assert_str_eq(mt_guard(m, mel__g_true()), "true");
    cr_assert_str_eq(mt_guard(m, mel__g_false()), "false");
    /* without a model, mode variables are numbered */
    char *s = mel_guard_format(NULL, m->equations[0].incs[0].cases[0].guard);
    cr_assert_str_eq(s, "(mode#0 | mode#1) & mode#2");
    mdae_free(s);
    mel_model_free(m);
}

Test(mel_elab, evaluates_incidence_orders_per_mode)
{
    mel_model *m = mt_parse("g : boolean; x : real;\n"
                            "e : equation 0 = if g then der(x) else 0");
    const mel_incidence *inc = mt_inc(m, "e", "x");
    bool on = true, off = false;
    cr_assert_eq(mel_incidence_order(inc, &on), 1);
    cr_assert_eq(mel_incidence_order(inc, &off), -1);
    mel_model_free(m);
}

/* RLDC2, RR-9322 Fig. 3, checked by hand: 14 real equations over 14 unknowns
 * (G1-, G2- are the mode variables' definitions, outside the structure). */
Test(mel_elab, elaborates_rldc2_exactly_as_figure_3)
{
    mel_model *m = mt_parse(
        "Rp1 : real = 1.0; Rp2 : real = 1.0; Lp1 : real = 1e-3; Lp2 : real = 1e-3;\n"
        "Cp1 : real = 1.5; Cp2 : real = 1.5;\n"
        "i1 : real; i2 : real; j1 : real; j2 : real; x1 : real; x2 : real;\n"
        "w1 : real; w2 : real; u1 : real; u2 : real; v1 : real; v2 : real;\n"
        "s1 : real; s2 : real;\n"
        "g1 : boolean = last(s1) >= 0;\n"
        "g2 : boolean = last(s2) >= 0;\n"
        "K1 : equation 0 = i1 + i2 + j1 + j2;\n"
        "K2 : equation x1 + w1 = u1 + v1;\n"
        "K3 : equation u1 + v1 = u2 + v2;\n"
        "K4 : equation u2 + v2 = x2 + w2;\n"
        "L1 : equation w1 = Lp1 * der(j1);\n"
        "L2 : equation w2 = Lp2 * der(j2);\n"
        "C1 : equation i1 = Cp1 * der(v1);\n"
        "C2 : equation i2 = Cp2 * der(v2);\n"
        "R1 : equation x1 = Rp1 * j1;\n"
        "R2 : equation x2 = Rp2 * j2;\n"
        "S1 : equation s1 = if g1 then i1 else -u1;\n"
        "S2 : equation s2 = if g2 then i2 else -u2;\n"
        "Z1 : equation 0 = if g1 then u1 else i1;\n"
        "Z2 : equation 0 = if g2 then u2 else i2;\n");
    cr_assert_eq(m->n_modes, 2);
    cr_assert_eq(m->n_variables, 14);
    cr_assert_eq(m->n_equations, 14);
    cr_assert_eq(m->n_params, 6);
    cr_assert_eq(m->n_invariants, 0);
    cr_assert_eq(m->n_edges, 38);
    static const struct {
        const char *eq, *var, *cases;
    } want[] = {
        {"K1", "i1", "0:true"}, {"K1", "i2", "0:true"}, {"K1", "j1", "0:true"},
        {"K1", "j2", "0:true"}, {"K2", "x1", "0:true"}, {"K2", "w1", "0:true"},
        {"K2", "u1", "0:true"}, {"K2", "v1", "0:true"}, {"K3", "u1", "0:true"},
        {"K3", "v1", "0:true"}, {"K3", "u2", "0:true"}, {"K3", "v2", "0:true"},
        {"K4", "u2", "0:true"}, {"K4", "v2", "0:true"}, {"K4", "x2", "0:true"},
        {"K4", "w2", "0:true"}, {"L1", "w1", "0:true"}, {"L1", "j1", "1:true"},
        {"L2", "w2", "0:true"}, {"L2", "j2", "1:true"}, {"C1", "i1", "0:true"},
        {"C1", "v1", "1:true"}, {"C2", "i2", "0:true"}, {"C2", "v2", "1:true"},
        {"R1", "x1", "0:true"}, {"R1", "j1", "0:true"}, {"R2", "x2", "0:true"},
        {"R2", "j2", "0:true"}, {"S1", "s1", "0:true"}, {"S1", "i1", "0:g1"},
        {"S1", "u1", "0:!g1"},  {"S2", "s2", "0:true"}, {"S2", "i2", "0:g2"},
        {"S2", "u2", "0:!g2"},  {"Z1", "u1", "0:g1"},   {"Z1", "i1", "0:!g1"},
        {"Z2", "u2", "0:g2"},   {"Z2", "i2", "0:!g2"},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        cr_assert_str_eq(mt_cases(m, mt_inc(m, want[k].eq, want[k].var)), want[k].cases,
                         "%s/%s", want[k].eq, want[k].var);
    for (uint32_t e = 0; e < m->n_equations; e++)
        cr_assert_str_eq(mt_guard(m, m->equations[e].guard), "true");
    mel_model_free(m);
}

/* Instance names are written from their end, two digits at a time
 * (mel_elab.c, inst_write): the ends of long long, signs, one and two
 * indices, and finding them back by name. */
Test(mel_elab, names_instances_with_any_long_long_index)
{
    mel_model *m = mt_parse("foreach i in -9223372036854775807 - 1 .. -9223372036854775807 - 1 do\n"
                            "  x[i] : real; y[i, 9223372036854775807] : real;\n"
                            "  e[i] : equation x[i] = y[i, 9223372036854775807]\n"
                            "done;\n"
                            "z[0] : real; z[-1] : real; z[9] : real; z[10] : real; z[99] : real;\n"
                            "z[100] : real; z[-1000] : real;\n"
                            "f : equation z[0] + z[-1] + z[9] + z[10] + z[99] + z[100] = z[-1000]");
    static const char *const names[] = {
        "x[-9223372036854775808]", "y[-9223372036854775808,9223372036854775807]", "z[0]",
        "z[-1]", "z[9]", "z[10]", "z[99]", "z[100]", "z[-1000]"};
    cr_assert_eq(m->n_variables, 9);
    for (uint32_t k = 0; k < 9; k++) {
        cr_assert_str_eq(m->variables[k].name, names[k]);
        cr_assert_eq(mel_model_find_variable(m, names[k]), (long)k);
    }
    cr_assert_str_eq(m->equations[0].name, "e[-9223372036854775808]");
    cr_assert_eq(m->equations[0].n_incs, 2);
    cr_assert_eq(m->equations[1].n_incs, 7);
    cr_assert_eq(mel_model_find_variable(m, "z[010]"), -1);
    cr_assert_eq(mel_model_find_variable(m, "z[+10]"), -1);
    mel_model_free(m);
}

/* A loop body's equation is walked once and then run by its plan
 * (mel_elab.c, "Pass 2: plans"): what x[i] and x[i + 1] name is still
 * decided at each iteration (a parameter here, an unknown there), as are
 * the errors, reported once for the iteration where they occur. */
Test(mel_elab, resolves_a_loop_body_equation_at_every_iteration)
{
    mel_model *m = mt_parse("x[1] : real = 2.0;\n"
                            "foreach i in 2 .. 5 do x[i] : real done;\n"
                            "t : real;\n"
                            "foreach i in 1 .. 4 do\n"
                            "  e[i] : equation der(x[i]) + x[i + 1] - last(x[i]) + 2 * t = 0\n"
                            "done");
    cr_assert_eq(m->n_equations, 4);
    cr_assert_eq(m->equations[0].n_incs, 2); /* x[1] is a parameter */
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e[1]", "x[2]")), "0:true");
    cr_assert_str_eq(mt_cases(m, mt_inc(m, "e[1]", "t")), "0:true");
    for (int i = 2; i <= 4; i++) {
        char e[8], x[8], x1[8];
        snprintf(e, sizeof e, "e[%d]", i);
        snprintf(x, sizeof x, "x[%d]", i);
        snprintf(x1, sizeof x1, "x[%d]", i + 1);
        cr_assert_eq(m->equations[i - 1].n_incs, 3);
        cr_assert_str_eq(mt_cases(m, mt_inc(m, e, x)), "1:true");
        cr_assert_str_eq(mt_cases(m, mt_inc(m, e, x1)), "0:true");
    }
    mel_model_free(m);

    const char *src = "foreach i in 1 .. 3 do x[i] : real done;\n"
                      "foreach i in 1 .. 3 do e[i] : equation x[i - 1] = x[i] done";
    mdae_diags d;
    cr_assert_eq(mt_parse_fail(src, strlen(src), NULL, &d), MDAE_E_MODEL);
    cr_assert_eq(d.count, 1);
    cr_assert(mt_has(&d, 2, 40, "undeclared variable 'x[0]'"));
    mdae_diags_close(&d);
}

/* Issue 38: an undeclared `time` is the independent variable (so that a
 * Modelica model that reads it prints as MEL); a declaration named time
 * is what it declares. */
Test(mel_elab, reads_undeclared_time_as_the_independent_variable)
{
    mel_model *m = mt_parse("x : real;\n"
                            "e : equation der(x) = time * x");
    cr_assert_eq(m->equations[0].n_incs, 1);
    const fx_node *r = m->equations[0].rhs;
    cr_assert_not_null(r);
    cr_assert_eq(r->op, FX_MUL);
    cr_assert_eq(r->kids[0]->op, FX_TIME);
    mel_model_free(m);
    m = mt_parse("x : real; time : real = 0.5;\n"
                 "e : equation der(x) = time * x");
    cr_assert_eq(m->equations[0].rhs->kids[0]->op, FX_KNOWN);
    mel_model_free(m);
    mt_expect_error("x : real; e : equation der(x) = tme", MDAE_E_MODEL, 1, 33,
                    "undeclared variable 'tme'");
}
