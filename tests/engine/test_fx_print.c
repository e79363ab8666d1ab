/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_fx_print.c -- fx_print / fx_format (engine/fx_print.c)
 * on hand-built trees: the parentheses each shape of engine/fx.h needs in
 * MEL and in Modelica, numbers, quoted names, relation atoms. The round
 * trip through the parsers is tests/engine/test_convert.c.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "fx.h"

static const mdae_range R0 = {{0, 0, 0}, {0, 0, 0}};

static fx_pool *P;
static mel_variable vars[3];
static mel_known knowns[1];
static mel_mode modes[2];
static mel_model M;

static void setup(void)
{
    P = fx_pool_new();
    cr_assert_not_null(P);
    vars[0].name = "x";
    vars[1].name = "stop1.v";
    vars[2].name = "end";
    knowns[0].name = "p";
    modes[0].name = "g";
    modes[1].name = "s >= 0";
    const fx_node *s = fx_var(P, 0, 0, R0);
    modes[1].def = fx_bin(P, FX_GE, s, fx_num(P, 0, true, R0), R0);
    M = (mel_model){.n_variables = 3, .variables = vars, .n_knowns = 1, .knowns = knowns,
                    .n_modes = 2, .modes = modes};
}

static void teardown(void)
{
    fx_pool_free(P);
}

TestSuite(fx_print, .init = setup, .fini = teardown);

static void check(const fx_node *e, const char *mel, const char *mo)
{
    cr_assert_not_null(e);
    char *a = fx_format(&M, e, FX_SYNTAX_MEL);
    char *b = fx_format(&M, e, FX_SYNTAX_MODELICA);
    cr_assert_not_null(a);
    cr_assert_not_null(b);
    cr_expect_str_eq(a, mel);
    cr_expect_str_eq(b, mo);
    mdae_free(a);
    mdae_free(b);
}

static const fx_node *x(void) { return fx_var(P, 0, 0, R0); }
static const fx_node *y(void) { return fx_var(P, 1, 0, R0); }
static const fx_node *k(void) { return fx_known(P, 0, R0); }
static const fx_node *num(double v) { return fx_num(P, v, false, R0); }
static const fx_node *neg(const fx_node *a) { return fx_un(P, FX_NEG, a, R0); }
static const fx_node *bin(fx_op op, const fx_node *a, const fx_node *b)
{
    return fx_bin(P, op, a, b, R0);
}

Test(fx_print, sums_and_differences)
{
    check(bin(FX_ADD, x(), neg(y())), "x - 'stop1.v'", "x - 'stop1.v'");
    check(bin(FX_ADD, neg(x()), y()), "-x + 'stop1.v'", "-x + 'stop1.v'");
    check(bin(FX_ADD, bin(FX_ADD, x(), k()), y()), "(x + p) + 'stop1.v'",
          "(x + p) + 'stop1.v'");
    check(bin(FX_ADD, x(), neg(bin(FX_ADD, k(), y()))), "x - (p + 'stop1.v')",
          "x - (p + 'stop1.v')");
    check(neg(bin(FX_MUL, x(), k())), "-(x * p)", "-x * p");
    check(bin(FX_MUL, neg(x()), k()), "-x * p", "(-x) * p");
    check(bin(FX_ADD, x(), neg(neg(k()))), "x - -p", "x - (-p)");
    check(bin(FX_ADD, neg(bin(FX_MUL, x(), k())), y()), "-(x * p) + 'stop1.v'",
          "-x * p + 'stop1.v'");
}

Test(fx_print, products_keep_their_grouping)
{
    const fx_node *abcd = bin(FX_MUL, bin(FX_DIV, bin(FX_MUL, x(), k()), y()), num(2));
    check(abcd, "x * p / 'stop1.v' * 2.0", "x * p / 'stop1.v' * 2.0");
    check(bin(FX_DIV, x(), bin(FX_MUL, k(), y())), "x / (p * 'stop1.v')",
          "x / (p * 'stop1.v')");
    check(bin(FX_MUL, bin(FX_MUL, x(), k()), y()), "(x * p) * 'stop1.v'",
          "(x * p) * 'stop1.v'");
    check(bin(FX_DIV, bin(FX_DIV, x(), k()), y()), "x / p / 'stop1.v'", "x / p / 'stop1.v'");
    check(bin(FX_MUL, x(), bin(FX_ADD, k(), y())), "x * (p + 'stop1.v')",
          "x * (p + 'stop1.v')");
}

Test(fx_print, powers)
{
    check(bin(FX_POW, x(), bin(FX_POW, k(), num(2))), "x ^ p ^ 2.0", "x ^ (p ^ 2.0)");
    check(bin(FX_POW, bin(FX_POW, x(), k()), num(2)), "(x ^ p) ^ 2.0", "(x ^ p) ^ 2.0");
    check(bin(FX_POW, neg(x()), neg(k())), "(-x) ^ -p", "(-x) ^ (-p)");
    check(bin(FX_POW, num(-2), x()), "(-2.0) ^ x", "(-2.0) ^ x");
}

Test(fx_print, logic_relations_and_ifs)
{
    const fx_node *g = fx_mode(P, 0, R0), *atom = fx_mode(P, 1, R0);
    check(fx_un(P, FX_NOT, fx_bin(P, FX_AND, g, atom, R0), R0), "!(g & 's >= 0')",
          "not (g and x >= 0)");
    check(fx_bin(P, FX_AND, fx_un(P, FX_NOT, atom, R0), g, R0), "!'s >= 0' & g",
          "not x >= 0 and g");
    check(fx_bin(P, FX_OR, fx_bin(P, FX_OR, g, g, R0), g, R0), "(g | g) | g",
          "(g or g) or g");
    check(fx_bin(P, FX_AND, fx_bin(P, FX_OR, g, g, R0), g, R0), "(g | g) & g",
          "(g or g) and g");
    check(bin(FX_LT, bin(FX_ADD, x(), k()), num(1)), "x + p < 1.0", "x + p < 1.0");
    check(bin(FX_EQ, bin(FX_NE, x(), k()), g), "(x <> p) == g", "(x <> p) == g");
    const fx_node *inner = fx_if(P, atom, x(), k(), R0);
    const fx_node *e = fx_if(P, g, num(1), inner, R0);
    check(e, "if g then 1.0 else if 's >= 0' then x else p",
          "if g then 1.0 elseif x >= 0 then x else p");
    check(bin(FX_MUL, num(2), e), "2.0 * (if g then 1.0 else if 's >= 0' then x else p)",
          "2.0 * (if g then 1.0 elseif x >= 0 then x else p)");
    check(fx_un(P, FX_NEG, atom, R0), "-'s >= 0'", "-(x >= 0)");
}

/* An equation's left side: an if-expression at its top in parentheses,
 * anything else as fx_print prints it. */
static void check_lhs(const fx_node *e, const char *mel, const char *mo)
{
    mdae_buf a = {0}, b = {0};
    fx_print_lhs(&a, &M, e, FX_SYNTAX_MEL, NULL);
    fx_print_lhs(&b, &M, e, FX_SYNTAX_MODELICA, NULL);
    cr_assert(!a.oom && !b.oom && a.p != NULL && b.p != NULL);
    cr_expect_str_eq(a.p, mel);
    cr_expect_str_eq(b.p, mo);
    mdae_free(a.p);
    mdae_free(b.p);
}

Test(fx_print, left_sides_parenthesise_an_if)
{
    const fx_node *g = fx_mode(P, 0, R0);
    const fx_node *e = fx_if(P, g, x(), num(0), R0);
    check_lhs(e, "(if g then x else 0.0)", "(if g then x else 0.0)");
    check(e, "if g then x else 0.0", "if g then x else 0.0");
    check_lhs(bin(FX_ADD, x(), e), "x + (if g then x else 0.0)", "x + (if g then x else 0.0)");
    check_lhs(fx_bin(P, FX_OR, g, g, R0), "g | g", "g or g");
}

Test(fx_print, leaves_numbers_and_calls)
{
    check(fx_num(P, 3, true, R0), "3", "3");
    check(num(0.1), "0.1", "0.1");
    check(num(1.0 / 3), "0.3333333333333333", "0.3333333333333333");
    check(num(1e300), "1e300", "1e300");
    check(num(2.5e-7), "2.5e-7", "2.5e-7");
    check(num(-1e-100), "-1e-100", "-1e-100");
    check(num(10), "10.0", "10.0");
    /* no literal past DBL_MAX: both front-ends reject one ("number too
     * large"), so an infinity (folded) is a quotient, as NaN */
    check(num(HUGE_VAL), "(1.0 / 0.0)", "(1.0 / 0.0)");
    check(num(-HUGE_VAL), "(-1.0 / 0.0)", "(-1.0 / 0.0)");
    check(num(NAN), "(0.0 / 0.0)", "(0.0 / 0.0)");
    check(fx_var(P, 2, 2, R0), "der(der('end'))", "der(der('end'))");
    check(fx_bool(P, true, R0), "true", "true");
    check(fx_time(P, R0), "time", "time");
    const fx_node *args[2] = {x(), k()};
    check(fx_call(P, FX_FN_ATAN2, NULL, args, 2, R0), "atan2(x, p)", "atan2(x, p)");
    check(fx_call(P, FX_FN_UNKNOWN, "f.d1", args, 2, R0), "'f.d1'(x, p)", "'f.d1'(x, p)");
    check(fx_call(P, FX_FN_UNKNOWN, "Modelica.Math.foo", args, 1, R0),
          "'Modelica.Math.foo'(x)", "Modelica.Math.foo(x)");
    check(fx_un(P, FX_PRE, y(), R0), "pre('stop1.v')", "pre('stop1.v')");
    check(fx_un(P, FX_LAST, y(), R0), "last('stop1.v')", "pre('stop1.v')");
    check(fx_un(P, FX_DER, bin(FX_MUL, x(), k()), R0), "der(x * p)", "der(x * p)");
    const fx_node *refs[1] = {x()};
    check(fx_opaque(P, "sum(x[:])", refs, 1, R0), "\"sum(x[:])\"(x)", "sum(x[:])");
    check(fx_opaque(P, "s.\"a\\b\"", NULL, 0, R0), "\"s.\\\"a\\\\b\\\"\"", "s.\"a\\b\"");
}

Test(fx_print, quoted_names_escape_quotes)
{
    mdae_buf b = {0};
    fx_print_name(&b, "it's\\", FX_SYNTAX_MEL);
    fx_print_name(&b, "ok_1", FX_SYNTAX_MODELICA);
    fx_print_name(&b, "when", FX_SYNTAX_MODELICA);
    fx_print_name(&b, "and", FX_SYNTAX_MEL);
    cr_assert_not_null(b.p);
    cr_expect_str_eq(b.p, "'it\\'s\\\\'ok_1'when'and");
    mdae_free(b.p);
}

/* Modelica keeps a quoted name as written, escapes included (its lexeme):
 * such a name prints verbatim; one that cannot be one (a bare quote, a
 * trailing backslash) is escaped. */
Test(fx_print, modelica_prints_quoted_names_as_written)
{
    mdae_buf b = {0};
    fx_print_name(&b, "k[\\'U\\']", FX_SYNTAX_MODELICA);
    fx_print_name(&b, "it's", FX_SYNTAX_MODELICA);
    fx_print_name(&b, "a\\", FX_SYNTAX_MODELICA);
    cr_assert_not_null(b.p);
    cr_expect_str_eq(b.p, "'k[\\'U\\']''it\\'s''a\\\\'");
    mdae_free(b.p);
}
