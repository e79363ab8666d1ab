/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mel_parse.c -- the MEL parser (engine/mel_parse.c):
 * precedence and associativity, statement forms, optional ';', syntax errors
 * with their positions and recovery.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "mel_int.h"

typedef struct parsed {
    mel__arena arena;
    mel__report rep;
    mdae_diags d;
    mel__stmt *prog;
    int rc;
} parsed;

static void parse(parsed *P, const char *src)
{
    memset(P, 0, sizeof *P);
    mel__arena_init(&P->arena);
    mdae_diags_init(&P->d);
    mel__report_init(&P->rep, &P->d, 0);
    P->rc = mel__parse(src, strlen(src), 0, &P->arena, &P->rep, &P->prog);
}

static void done(parsed *P)
{
    mel__arena_free(&P->arena);
    mdae_diags_close(&P->d);
}

/* The S-expression of `text` parsed as the left side of an equation. */
static void expr_is(const char *text, const char *want)
{
    char src[512];
    snprintf(src, sizeof src, "e : equation %s = 0", text);
    parsed P;
    parse(&P, src);
    for (size_t i = 0; i < P.d.count; i++)
        fprintf(stderr, "%s\n", P.d.items[i].message);
    cr_assert_eq(P.rc, MDAE_OK, "%s: %s", text, mdae_err_name(P.rc));
    cr_assert_not_null(P.prog);
    cr_assert_eq(P.prog->kind, MEL_S_EQU);
    char *s = mel__expr_format(P.prog->u.equ.lhs);
    cr_assert_not_null(s);
    cr_assert_str_eq(s, want, "%s parsed as %s, expected %s", text, s, want);
    mdae_free(s);
    done(&P);
}

static size_t count(const mel__stmt *s)
{
    size_t n = 0;
    for (; s != NULL; s = s->next)
        n++;
    return n;
}

Test(mel_parse, gives_multiplication_precedence_over_addition)
{
    expr_is("a + b * c", "(+ a (* b c))");
    expr_is("(a + b) * c", "(* (+ a b) c)");
}

Test(mel_parse, keeps_additive_chains_flat_and_left_to_right)
{
    expr_is("a - b + c - d", "(+ a -b c -d)");
    expr_is("a / b * c", "(* a /b c)");
}

Test(mel_parse, makes_power_right_associative_and_tighter_than_unary_minus)
{
    expr_is("a ^ b ^ c", "(^ a (^ b c))");
    expr_is("-x ^ 2", "(neg (^ x 2))");
    expr_is("2 ^ -x", "(^ 2 (neg x))");
    expr_is("- - x", "(neg (neg x))");
}

Test(mel_parse, orders_or_below_and_below_comparison_below_sum)
{
    expr_is("a | b & c", "(| a (& b c))");
    expr_is("a & b | c", "(| (& a b) c)");
    expr_is("a < b + 1 & !g", "(& (< a (+ b 1)) (! g))");
    expr_is("i <> 2 | x >= 1.5", "(| (<> i 2) (>= x 1.5))");
    expr_is("p == q", "(== p q)");
}

Test(mel_parse, reads_if_expressions_der_last_pre_and_calls)
{
    expr_is("if g then x else -y", "(if g x (neg y))");
    expr_is("der(der(x))", "(der (der x))");
    expr_is("last(s) + pre(t)", "(+ (last s) (pre t))");
    expr_is("f(x, y + 1, g())", "(call f x (+ y 1) (call g))");
    expr_is("x[i + 1] * y[i, j]", "(* (idx x (+ i 1)) (idx y i j))");
    expr_is("if a then if b then 1 else 2 else 3 + 4", "(if a (if b 1 2) (+ 3 4))");
    expr_is("true | false", "(| true false)");
}

Test(mel_parse, reads_every_statement_form)
{
    parsed P;
    parse(&P, "N : integer = 3; p : real = 2.0; x[1] : real; g : boolean;\n"
              "e[1] : equation der(x[1]) = p; invariant g | !g;\n"
              "if g then y : real else z : real end;\n"
              "foreach i in 1 .. N do w[i] : real done");
    cr_assert_eq(P.rc, MDAE_OK);
    cr_assert_eq(count(P.prog), 8);
    const mel__stmt *s = P.prog;
    cr_assert_eq(s->kind, MEL_S_DECL);
    cr_assert_eq(s->u.decl.type, MEL_TY_INTEGER);
    cr_assert_not_null(s->u.decl.init);
    s = s->next->next;
    cr_assert_eq(s->kind, MEL_S_DECL);
    cr_assert_str_eq(s->u.decl.label.name, "x");
    cr_assert_eq(s->u.decl.label.n, 1);
    cr_assert_null(s->u.decl.init);
    s = s->next->next;
    cr_assert_eq(s->kind, MEL_S_EQU);
    cr_assert_eq(s->where.start.line, 2);
    cr_assert_eq(s->where.start.col, 1);
    cr_assert_eq(s->where.end.col, 30); /* the equation ends after "p" */
    s = s->next;
    cr_assert_eq(s->kind, MEL_S_INV);
    s = s->next;
    cr_assert_eq(s->kind, MEL_S_IF);
    cr_assert_eq(count(s->u.cond.body), 1);
    cr_assert_eq(count(s->u.cond.orelse), 1);
    s = s->next;
    cr_assert_eq(s->kind, MEL_S_FOR);
    cr_assert_str_eq(s->u.loop.index, "i");
    cr_assert_eq(count(s->u.loop.body), 1);
    done(&P);
}

Test(mel_parse, accepts_an_empty_text_and_empty_statement_lists)
{
    parsed P;
    parse(&P, "");
    cr_assert_eq(P.rc, MDAE_OK);
    cr_assert_null(P.prog);
    done(&P);
    parse(&P, "// nothing\n;;");
    cr_assert_eq(P.rc, MDAE_OK);
    cr_assert_null(P.prog);
    done(&P);
    parse(&P, "g : boolean; if g then else end; foreach i in 1..2 do done");
    cr_assert_eq(P.rc, MDAE_OK);
    cr_assert_eq(count(P.prog), 3);
    done(&P);
}

Test(mel_parse, makes_the_semicolon_optional_before_else_end_done_and_eof)
{
    parsed P;
    parse(&P, "g : boolean;\nif g then x : real else y : real end;\n"
              "foreach i in 1..2 do z[i] : real; w[i] : real done;\n"
              "if g then a : real; else b : real; end;\n"
              "c : real");
    cr_assert_eq(P.rc, MDAE_OK);
    cr_assert_eq(count(P.prog), 5);
    done(&P);
}

Test(mel_parse, requires_a_semicolon_between_statements)
{
    parsed P;
    parse(&P, "x : real y : real");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_eq(P.d.count, 1);
    cr_assert_str_eq(P.d.items[0].message, "expected ';' after the statement, found identifier");
    cr_assert_eq(P.d.items[0].where.start.col, 10);
    done(&P);
}

Test(mel_parse, rejects_unclosed_parenthesis)
{
    parsed P;
    parse(&P, "e : equation (x + 1 = 0;");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_str_eq(P.d.items[0].message, "expected ')', found '='");
    cr_assert_eq(P.d.items[0].where.start.col, 21);
    done(&P);
}

Test(mel_parse, rejects_chained_comparisons)
{
    parsed P;
    parse(&P, "invariant a < b < c");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_str_eq(P.d.items[0].message, "comparisons cannot be chained; use parentheses");
    cr_assert_eq(P.d.items[0].where.start.col, 17);
    done(&P);
}

Test(mel_parse, rejects_an_if_expression_without_else)
{
    parsed P;
    parse(&P, "e : equation x = if g then 1;");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_str_eq(P.d.items[0].message,
                     "expected 'else' (an if-expression needs one), found ';'");
    done(&P);
}

Test(mel_parse, rejects_double_equals_in_an_equation)
{
    parsed P;
    parse(&P, "e : equation x == 1");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_str_eq(P.d.items[0].message, "an equation is written 'lhs = rhs', not '=='");
    cr_assert_eq(P.d.items[0].where.start.col, 14);
    done(&P);
    parse(&P, "e : equation x + 1");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_str_eq(P.d.items[0].message, "expected '=' in equation, found end of input");
    done(&P);
}

Test(mel_parse, rejects_a_missing_type)
{
    parsed P;
    parse(&P, "x : float;");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_str_eq(P.d.items[0].message,
                     "expected 'real', 'boolean', 'integer' or 'equation', found identifier");
    cr_assert_eq(P.d.items[0].where.start.col, 5);
    done(&P);
}

Test(mel_parse, names_the_opening_line_of_an_unterminated_if)
{
    parsed P;
    parse(&P, "g : boolean;\nif g then\n  x : real;\n");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_eq(P.d.count, 1);
    cr_assert_str_eq(P.d.items[0].message,
                     "expected 'end' closing the 'if' of line 2, found end of input");
    cr_assert_eq(P.d.items[0].where.start.line, 4);
    done(&P);
}

Test(mel_parse, names_the_opening_line_of_an_unterminated_foreach)
{
    parsed P;
    parse(&P, "foreach i in 1..3 do\n x[i] : real\nend");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_str_eq(P.d.items[0].message,
                     "expected 'done' closing the 'foreach' of line 1, found 'end'");
    done(&P);
}

Test(mel_parse, recovers_at_the_next_statement_and_reports_each_error_once)
{
    parsed P;
    parse(&P, "x : real = ;\n"
              "y : real = 1 + * 2;\n"
              "z : real;\n"
              "e : equation z = = 1;\n");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_eq(P.d.count, 3);
    cr_assert_eq(P.d.items[0].where.start.line, 1);
    cr_assert_eq(P.d.items[1].where.start.line, 2);
    cr_assert_eq(P.d.items[2].where.start.line, 4);
    cr_assert_str_eq(P.d.items[2].message, "expected an expression, found '='");
    done(&P);
}

Test(mel_parse, rejects_a_stray_end_at_top_level)
{
    parsed P;
    parse(&P, "x : real; end; y : real");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_eq(P.d.count, 1);
    cr_assert_str_eq(P.d.items[0].message, "expected a statement, found 'end'");
    cr_assert_eq(P.d.items[0].where.start.col, 11);
    done(&P);
}

Test(mel_parse, rejects_an_empty_index_list)
{
    parsed P;
    parse(&P, "x[] : real");
    cr_assert_eq(P.rc, MDAE_E_PARSE);
    cr_assert_str_eq(P.d.items[0].message, "empty index list");
    done(&P);
}

Test(mel_parse, stops_at_the_configured_nesting_depth)
{
    parsed P;
    memset(&P, 0, sizeof P);
    mel__arena_init(&P.arena);
    mdae_diags_init(&P.d);
    mel__report_init(&P.rep, &P.d, 0);
    const char *src = "e : equation ((((x)))) = 0";
    P.rc = mel__parse(src, strlen(src), 4, &P.arena, &P.rep, &P.prog);
    cr_assert_eq(P.rc, MDAE_E_LIMIT);
    cr_assert_eq(P.d.count, 1);
    cr_assert_str_eq(P.d.items[0].message, "nesting deeper than 4");
    done(&P);
    memset(&P, 0, sizeof P);
    mel__arena_init(&P.arena);
    mdae_diags_init(&P.d);
    mel__report_init(&P.rep, &P.d, 0);
    P.rc = mel__parse(src, strlen(src), 6, &P.arena, &P.rep, &P.prog);
    cr_assert_eq(P.rc, MDAE_OK);
    done(&P);
}
