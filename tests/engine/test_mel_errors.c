/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mel_errors.c -- bad input never crashes, hangs or leaks
 * (issue 2, section 4): every class of malformed or hostile text gets a clear
 * located message and a non-zero code; allocation failure at every step
 * gives MDAE_E_NOMEM with nothing leaked; saved fuzzer inputs replay.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail_alloc.h"
#include "mel_test_util.h"
#include "mel_outline.h"
#include "mo.h"

/* Build a text of `n` repetitions of `unit` between `pre` and `post`. */
static char *repeat(const char *pre, const char *unit, size_t n, const char *mid,
                    const char *unit2, const char *post)
{
    size_t lp = strlen(pre), lu = strlen(unit), lm = strlen(mid), lu2 = strlen(unit2),
           lq = strlen(post);
    char *s = malloc(lp + n * (lu + lu2) + lm + lq + 1);
    cr_assert_not_null(s);
    char *p = s;
    memcpy(p, pre, lp);
    p += lp;
    for (size_t i = 0; i < n; i++, p += lu)
        memcpy(p, unit, lu);
    memcpy(p, mid, lm);
    p += lm;
    for (size_t i = 0; i < n; i++, p += lu2)
        memcpy(p, unit2, lu2);
    memcpy(p, post, lq + 1);
    return s;
}

Test(mel_errors, accepts_an_empty_file_as_an_empty_model)
{
    mel_model *m = mt_parse("");
    cr_assert_eq(m->n_equations + m->n_variables + m->n_modes + m->n_invariants, 0);
    mel_model_free(m);
    mdae_diags d;
    mdae_diags_init(&d);
    m = NULL;
    cr_assert_eq(mel_model_parse(NULL, 0, NULL, &m, &d), MDAE_OK);
    mel_model_free(m);
    mdae_diags_close(&d);
}

Test(mel_errors, rejects_invalid_arguments)
{
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse("x : real", 8, NULL, NULL, NULL), MDAE_E_INVAL);
    cr_assert_eq(mel_model_parse(NULL, 3, NULL, &m, NULL), MDAE_E_INVAL);
    cr_assert_null(m);
    mel_model_free(NULL);
}

Test(mel_errors, survives_binary_garbage_and_caps_the_error_count)
{
    static char buf[1 << 16];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (char)(x >> 16);
    }
    mdae_diags d;
    int rc = mt_parse_fail(buf, sizeof buf, NULL, &d);
    cr_assert_eq(rc, MDAE_E_PARSE);
    cr_assert_leq(d.count, 51); /* 50 errors, then a "too many errors" note */
    cr_assert_eq(d.items[d.count - 1].severity, MDAE_SEV_NOTE);
    cr_assert_str_eq(d.items[d.count - 1].message, "too many errors (50), stopping");
    mdae_diags_close(&d);
}

Test(mel_errors, stops_after_max_errors)
{
    char *src = repeat("", "x : ;\n", 100, "", "", "");
    mel_options opt = {.max_errors = 5};
    mdae_diags d;
    cr_assert_eq(mt_parse_fail(src, strlen(src), &opt, &d), MDAE_E_PARSE);
    cr_assert_eq(d.errors, 5);
    cr_assert_eq(d.items[4].where.start.line, 5);
    mdae_diags_close(&d);
    free(src);
}

Test(mel_errors, locates_nul_bytes)
{
    const char src[] = "x : real;\ny\0 : real";
    mt_expect_error_opt(src, sizeof src - 1, NULL, MDAE_E_PARSE, 2, 2,
                        "invalid character (byte 0x00)");
}

Test(mel_errors, locates_non_utf8_bytes)
{
    mt_expect_error("x : real;\ne : equation x = \xe9t\xe9;", MDAE_E_PARSE, 2, 18,
                    "invalid character (byte 0xe9)");
}

Test(mel_errors, limits_deeply_nested_parentheses)
{
    char *src = repeat("e : equation ", "(", 100000, "x", ")", " = 0");
    mt_expect_error_opt(src, strlen(src), NULL, MDAE_E_LIMIT, 1, 14 + 256,
                        "nesting deeper than 256");
    free(src);
}

Test(mel_errors, limits_deeply_nested_if_statements)
{
    char *src = repeat("g : boolean;\n", "if g then ", 100000, "x : real", " end", "");
    mt_expect_error_opt(src, strlen(src), NULL, MDAE_E_LIMIT, 2, 1 + 255 * 10 + 3, /* the 256th if's condition */
                        "nesting deeper than 256");
    free(src);
}

Test(mel_errors, limits_long_chains_of_unary_operators_and_powers)
{
    char *src = repeat("e : equation ", "-", 100000, "x", "", " = 0");
    mt_expect_error_opt(src, strlen(src), NULL, MDAE_E_LIMIT, 1, 14 + 256,
                        "nesting deeper than 256");
    free(src);
    src = repeat("x : real; e : equation x", "^x", 100000, "", "", " = 0");
    mt_expect_error_opt(src, strlen(src), NULL, MDAE_E_LIMIT, 1, 25 + 2 * 255 + 1,
                        "nesting deeper than 256");
    free(src);
}

Test(mel_errors, limits_nested_if_expressions_and_calls)
{
    char *src = repeat("e : equation ", "if g then 1 else ", 100000, "x", "", " = 0");
    mdae_diags d;
    cr_assert_eq(mt_parse_fail(src, strlen(src), NULL, &d), MDAE_E_LIMIT);
    cr_assert_str_eq(d.items[0].message, "nesting deeper than 256");
    mdae_diags_close(&d);
    free(src);
    src = repeat("e : equation ", "f(", 100000, "x", ")", " = 0");
    cr_assert_eq(mt_parse_fail(src, strlen(src), NULL, &d), MDAE_E_LIMIT);
    mdae_diags_close(&d);
    free(src);
}

Test(mel_errors, handles_a_sum_of_a_hundred_thousand_terms_without_deep_recursion)
{
    char *src = repeat("x : real; e : equation x", " + x", 100000, "", "", " = 0");
    mel_model *m = mt_parse(src);
    cr_assert_eq(m->n_edges, 1);
    mel_model_free(m);
    free(src);
}

Test(mel_errors, rejects_input_larger_than_max_input_bytes)
{
    size_t n = 100u << 20; /* 100 MB, never read: the size is checked first */
    char *big = calloc(n, 1);
    cr_assert_not_null(big);
    mt_expect_error_opt(big, n, NULL, MDAE_E_LIMIT, 0, 0, "input larger than 67108864 bytes");
    free(big);
    mel_options opt = {.max_input_bytes = 4};
    mt_expect_error_opt("x : real", 8, &opt, MDAE_E_LIMIT, 0, 0,
                        "input larger than 4 bytes (limit MEL_MAX_INPUT_BYTES = 4, fixed in the "
                        "engine)");
}

Test(mel_errors, locates_an_unterminated_comment_at_its_start)
{
    mt_expect_error("x : real;\n  /* forgot to close\nx : real;", MDAE_E_PARSE, 2, 3,
                    "unterminated comment");
}

Test(mel_errors, reports_unterminated_constructs_at_end_of_input)
{
    mt_expect_error("g : boolean;\nif g then\n  x : real", MDAE_E_PARSE, 3, 11,
                    "expected 'end' closing the 'if' of line 2, found end of input");
    mt_expect_error("foreach i in 1..3 do", MDAE_E_PARSE, 1, 21,
                    "expected 'done' closing the 'foreach' of line 1, found end of input");
    mt_expect_error("e : equation (x + ", MDAE_E_PARSE, 1, 19,
                    "expected an expression, found end of input");
    mt_expect_error("x[1", MDAE_E_PARSE, 1, 4, "expected ',' or ']', found end of input");
}

Test(mel_errors, refuses_a_billion_iteration_loop_before_running_it)
{
    mt_expect_error("foreach i in 1 .. 1000000000 do x[i] : real done", MDAE_E_LIMIT, 1, 1,
                    "model would create more than 1000000 instances");
    /* nested loops multiply: each is small, together too big */
    mt_expect_error("foreach i in 1 .. 10000 do\n  foreach j in 1 .. 10000 do done\ndone",
                    MDAE_E_LIMIT, 2, 3, "model would create more than 1000000 instances");
    /* extreme bounds do not overflow the trip count */
    mt_expect_error("foreach i in -9223372036854775807 - 1 .. 9223372036854775807 do done",
                    MDAE_E_LIMIT, 1, 1, "model would create more than 1000000 instances");
}

Test(mel_errors, honours_max_instances)
{
    mel_options opt = {.max_instances = 10};
    const char *src = "foreach i in 1..6 do x[i] : real; e[i] : equation x[i] = 0 done";
    mt_expect_error_opt(src, strlen(src), &opt, MDAE_E_LIMIT, 1, 22, /* x[6], the 11th */
                        "model would create more than 10 instances");
    /* issue 36: the limit names itself, as a field too */
    mt_expect_error_opt(src, strlen(src), &opt, MDAE_E_LIMIT, 1, 22,
                        "instances (limit MEL_MAX_INSTANCES = 10, fixed in the engine)");
    mdae_diags d;
    cr_assert_eq(mt_parse_fail(src, strlen(src), &opt, &d), MDAE_E_LIMIT);
    const mdae_diag *lim = mdae_diags_find_limit(&d);
    cr_assert_not_null(lim);
    cr_expect_eq(lim->limit, MDAE_LIMIT_INSTANCES);
    cr_expect_eq(lim->limit_value, 10);
    mdae_diags_close(&d);
}

Test(mel_errors, bounds_the_work_of_a_big_body_in_a_big_loop)
{
    /* 50 iterations, no object created, but 50 x 400 expression nodes: more
     * than 64 x max_instances */
    char *src = repeat("g : boolean; foreach i in 1..50 do\n  invariant g", " | g", 200, "",
                       "", "\ndone");
    mel_options opt = {.max_instances = 100};
    mt_expect_error_opt(src, strlen(src), &opt, MDAE_E_LIMIT, 2, 3,
                        "model would create more than 100 instances");
    free(src);
}

Test(mel_errors, limits_conditions_that_expand_exponentially)
{
    /* (((a == b) == b) == b)...: a small DAG whose tree doubles per level */
    char *src = repeat("a : boolean; b : boolean;\ninvariant ", "(", 40, "a", " == b)", "");
    mt_expect_error(src, MDAE_E_LIMIT, 2, 1, "condition too complex (more than 4194304 nodes)");
    free(src);
}

Test(mel_errors, reports_integer_overflow_and_division_by_zero)
{
    mt_expect_error("N : integer = 9223372036854775807 + 1", MDAE_E_MODEL, 1, 15,
                    "integer overflow in constant expression");
    mt_expect_error("N : integer = 3037000500 * 3037000500", MDAE_E_MODEL, 1, 15,
                    "integer overflow in constant expression");
    mt_expect_error("N : integer = 2 ^ 64", MDAE_E_MODEL, 1, 15,
                    "integer overflow in constant expression");
    mt_expect_error("N : integer = -(-9223372036854775807 - 1)", MDAE_E_MODEL, 1, 15,
                    "integer overflow in constant expression");
    mt_expect_error("N : integer = 1 / (2 - 2)", MDAE_E_MODEL, 1, 20,
                    "division by zero in integer constant expression");
    mt_expect_error("N : integer = 2 ^ -1", MDAE_E_MODEL, 1, 15,
                    "negative exponent in integer constant expression");
    mt_expect_error("N : integer = 1.5", MDAE_E_MODEL, 1, 15,
                    "expected an integer, found a real number");
}

Test(mel_errors, rejects_numbers_too_large)
{
    mt_expect_error("p : real = 1e400", MDAE_E_PARSE, 1, 12, "number too large");
    mt_expect_error("N : integer = 99999999999999999999", MDAE_E_PARSE, 1, 15,
                    "integer literal too large");
}

Test(mel_errors, rejects_a_one_megabyte_identifier)
{
    char *src = repeat("", "a", 1 << 20, " : real", "", "");
    mt_expect_error(src, MDAE_E_PARSE, 1, 1, "identifier longer than 256 characters");
    free(src);
}

Test(mel_errors, locates_an_undeclared_variable_at_its_use)
{
    mt_expect_error("N : integer = 2;\nPc[1] : real;\ne : equation Pc[1] = Pc[N - 2];",
                    MDAE_E_MODEL, 3, 22, "undeclared variable 'Pc[0]'");
    mt_expect_error("x : real; e : equation x = if h then 1 else 0", MDAE_E_MODEL, 1, 31,
                    "undeclared variable 'h'");
}

Test(mel_errors, rejects_redeclarations_outside_disjoint_branches)
{
    mt_expect_error("x : real;\nx : real", MDAE_E_MODEL, 2, 1,
                    "'x' is already declared as a real variable (line 1)");
    mt_expect_error("g : boolean;\nif g then y : real end;\nif !g then y : real end", MDAE_E_MODEL,
                    3, 12, "'y' is already declared as a real variable (line 2)");
    mt_expect_error("e : equation 0 = 0;\ne : real", MDAE_E_MODEL, 2, 1,
                    "'e' is already declared as an equation (line 1)");
    mt_expect_error("foreach i in 1..2 do y : real done", MDAE_E_MODEL, 1, 22,
                    "'y' is already declared");
}

Test(mel_errors, requires_conditions_over_mode_variables)
{
    /* an if-expression may compare reals (it then selects nothing, issue 38),
     * a conditional statement may not */
    mt_expect_error("x : real; if x > 0 then y : real end", MDAE_E_MODEL, 1, 14,
                    "condition must be a Boolean formula over mode variables");
    mt_expect_error("x : real; if x then y : real end", MDAE_E_MODEL, 1, 14,
                    "condition must be a Boolean formula over mode variables");
    mt_expect_error("g : boolean; invariant g & 1", MDAE_E_MODEL, 1, 28,
                    "condition must be a Boolean formula over mode variables");
    mt_expect_error("g : boolean; invariant pre(g)", MDAE_E_MODEL, 1, 24,
                    "condition must be a Boolean formula over mode variables");
}

Test(mel_errors, forbids_constants_and_booleans_under_mode_conditions)
{
    mt_expect_error("g : boolean; if g then N : integer = 1 end", MDAE_E_MODEL, 1, 24,
                    "an integer constant cannot be declared under a mode-dependent condition");
    mt_expect_error("g : boolean; if g then h : boolean end", MDAE_E_MODEL, 1, 24,
                    "a boolean cannot be declared under a mode-dependent condition");
    mt_expect_error("g : boolean; if !g then p : real = 1 end", MDAE_E_MODEL, 1, 25,
                    "a parameter cannot be declared under a mode-dependent condition");
}

Test(mel_errors, requires_integer_constants_before_use)
{
    mt_expect_error("foreach i in 1..N do x[i] : real done; N : integer = 2", MDAE_E_MODEL, 1, 17,
                    "undeclared integer constant 'N'");
    mt_expect_error("x : real; e : equation x = N; N : integer = 2", MDAE_E_MODEL, 1, 28,
                    "integer constant 'N' used before its declaration");
    mt_expect_error("foreach i in 1..3 do if i > Nn then x[i] : real end done", MDAE_E_MODEL, 1,
                    29, "undeclared integer constant 'Nn'");
    mt_expect_error("x[1] : real; e : equation x[N] = 0; N : integer = 1", MDAE_E_MODEL, 1, 29,
                    "integer constant 'N' used before its declaration");
    mt_expect_error("foreach i in 1..2 do i : real done", MDAE_E_MODEL, 1, 22,
                    "'i' is a loop index");
    mt_expect_error("N : integer", MDAE_E_MODEL, 1, 1,
                    "integer constant 'N' needs a value");
    mt_expect_error("x : real; N : integer = x + 1", MDAE_E_MODEL, 1, 25,
                    "'x' is not an integer constant");
}

Test(mel_errors, rejects_misused_names)
{
    mt_expect_error("foreach i in 1..2 do foreach i in 1..2 do done done", MDAE_E_MODEL, 1, 30,
                    "loop index 'i' hides another name");
    mt_expect_error("x : real; e : equation x = x(1)", MDAE_E_MODEL, 1, 28,
                    "'x' is not a function");
    mt_expect_error("x : real; e : equation x = e", MDAE_E_MODEL, 1, 28,
                    "'e' is an equation, not a variable");
    mt_expect_error("x : real; e : equation x = x[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]",
                    MDAE_E_MODEL, 1, 28, "more than 16 indices");
}

Test(mel_errors, limits_derivative_orders)
{
    char *src = repeat("x : real; e : equation ", "der(", 1001, "x", ")", " = 0");
    mel_options opt = {.max_depth = 2000}; /* clamped to 1024, still enough */
    mt_expect_error_opt(src, strlen(src), &opt, MDAE_E_MODEL, 1, 24 + 4 * 1000,
                        "derivative order exceeds 1000");
    free(src);
}

Test(mel_errors, reports_several_errors_in_one_run)
{
    mdae_diags d;
    const char *src = "x : real;\ne1 : equation x = y;\ne2 : equation x = z;\nx : real";
    cr_assert_eq(mt_parse_fail(src, strlen(src), NULL, &d), MDAE_E_MODEL);
    cr_assert_eq(d.errors, 3);
    /* pass 1 found the redeclaration first; the list is in source order */
    cr_assert_eq(d.items[0].where.start.line, 2);
    cr_assert_eq(d.items[1].where.start.line, 3);
    cr_assert_eq(d.items[2].where.start.line, 4);
    cr_assert(mt_has(&d, 2, 19, "undeclared variable 'y'"));
    cr_assert(mt_has(&d, 3, 19, "undeclared variable 'z'"));
    cr_assert(mt_has(&d, 4, 1, "'x' is already declared"));
    mdae_diags_close(&d);
}

Test(mel_errors, reports_an_error_in_a_loop_body_once)
{
    mdae_diags d;
    const char *src = "foreach i in 1..1000 do e[i] : equation 0 = y[i] done";
    cr_assert_eq(mt_parse_fail(src, strlen(src), NULL, &d), MDAE_E_MODEL);
    cr_assert_eq(d.errors, 1);
    cr_assert(mt_has(&d, 1, 45, "undeclared variable 'y[1]'"));
    mdae_diags_close(&d);
}

static int guard_depth(const mel_guard *g)
{
    if (g->lhs == NULL)
        return 1;
    int a = guard_depth(g->lhs), b = g->rhs ? guard_depth(g->rhs) : 0;
    return 1 + (a > b ? a : b);
}

Test(mel_errors, builds_long_conjunctions_as_shallow_guards)
{
    /* 20000 distinct operands, in one n-ary chain */
    size_t cap = 20000 * 16 + 128, n = 0;
    char *src = malloc(cap);
    cr_assert_not_null(src);
    n += (size_t)snprintf(src + n, cap - n, "foreach i in 1..20000 do g[i] : boolean done;\n"
                                            "invariant g[1]");
    for (int i = 2; i <= 20000; i++)
        n += (size_t)snprintf(src + n, cap - n, " %c g[%d]", i % 3 ? '&' : '|', i);
    mel_model *m = mt_parse(src);
    cr_assert_eq(m->n_invariants, 1);
    cr_assert_leq(guard_depth(m->invariants[0].cond), 64);
    bool *mode = calloc(m->n_modes, sizeof *mode);
    cr_assert_not_null(mode);
    (void)mel_guard_eval(m->invariants[0].cond, mode);
    char *text = mel_guard_format(m, m->invariants[0].cond);
    cr_assert_not_null(text);
    cr_assert_eq(strncmp(text, "g[1] & g[2] | g[3] & g[4] & g[5] | ", 35), 0, "%.60s", text);
    mdae_free(text);
    free(mode);
    mel_model_free(m);
    free(src);
}

/* ---- Allocation failures ---------------------------------------------------- */

static void three_equations(const mel_model *m, const char *what)
{
    cr_assert_eq(m->n_equations, 3, "%s", what);
}

Test(mel_errors, returns_nomem_at_every_failing_allocation_without_leaking)
{
    const char *src = "N : integer = 2; g : boolean = x > 0;\n"
                      "foreach i in 1..N do x[i] : real; if g then y[i] : real end done;\n"
                      "x : real;\n"
                      "foreach i in 1..N do\n"
                      "  e[i] : equation der(x[i]) = if g & i > 1 then y[i] else last(x);\n"
                      "done;\n"
                      "if g then f : equation x = y[1] + y[2] else f : equation x = 0 end;\n"
                      "invariant g | !g";
    long runs = mt_parse_every_nomem(mel_model_parse, src, 100000, three_equations, "src");
    cr_assert_gt(runs, 3, "the parse should need a few allocations");
}

Test(mel_errors, returns_nomem_with_diagnostics_enabled_without_leaking)
{
    const char *src = "x : real; e : equation x = y; @";
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    for (long n = 0; rc == MDAE_E_NOMEM && n < 100000; n++) {
        counting_arm(n);
        mdae_diags d;
        mdae_diags_init(&d);
        mel_model *m = NULL;
        rc = mel_model_parse(src, strlen(src), NULL, &m, &d);
        cr_assert(rc == MDAE_E_NOMEM || rc == MDAE_E_PARSE, "%s", mdae_err_name(rc));
        cr_assert_null(m);
        mdae_diags_close(&d);
        cr_assert_eq(live, 0, "allocation %ld failing leaks %ld blocks", n, live);
    }
    cr_assert_eq(rc, MDAE_E_PARSE);
    mdae_replace_allocator(NULL);
}

/* ---- Recovery from syntax errors (issue 36 item 2) ----------------------------- */

static const mel_options recover_opt = {.recover = true};

/* The model of src with recovery: MDAE_OK expected; diagnostics in *d. */
static mel_model *parse_recovering(const char *src, mdae_diags *d)
{
    mdae_diags_init(d);
    mel_model *m = NULL;
    int rc = mel_model_parse(src, strlen(src), &recover_opt, &m, d);
    if (rc != MDAE_OK)
        mt_dump_diags(d);
    cr_assert_eq(rc, MDAE_OK, "%s", mdae_err_name(rc));
    return m;
}

/* The flat structure as text (names, guards, incidences, orders): what the
 * analysis is a function of, positions aside. Owned. */
static char *structure(const mel_model *m)
{
    char *s = NULL;
    cr_assert_eq(mo_model_to_mel(m, &s), MDAE_OK);
    return s;
}

/* broken, recovered, has the structure of `without` (the text with the
 * statements left out removed), n_left_out entries and n_errors syntax
 * errors, and no other error. */
static mel_model *same_as_without(const char *broken, const char *without, uint32_t n_left_out,
                                  uint32_t n_errors)
{
    mdae_diags d;
    mel_model *m = parse_recovering(broken, &d);
    mel_model *w = mt_parse(without);
    char *a = structure(m), *b = structure(w);
    cr_assert_str_eq(a, b);
    cr_assert_eq(m->n_left_out, n_left_out, "%u left out", m->n_left_out);
    cr_assert_eq(m->n_syntax_errors, n_errors);
    cr_assert_eq(d.errors, n_errors, "only the syntax errors are reported");
    for (uint32_t k = 0; k < m->n_left_out; k++) {
        cr_assert_not_null(m->left_out[k].message);
        cr_assert_leq(m->left_out[k].where.start.offset, m->left_out[k].where.end.offset);
        cr_assert(k == 0 || m->left_out[k - 1].where.start.offset <=
                                m->left_out[k].where.start.offset, "in source order");
    }
    mdae_free(a);
    mdae_free(b);
    mel_model_free(w);
    mdae_diags_close(&d);
    return m;
}

#define RLDC_REST                                                                   \
    "y : real;\ng : boolean = last(y) >= 0;\n"                                       \
    "e1 : equation der(x) = if g then y else -y;\ne2 : equation y = 2 * x;\n"
#define RLDC_HEAD "x : real;\n" RLDC_REST

Test(mel_errors, recovery_leaves_out_a_half_typed_last_line)
{
    mel_model *m = same_as_without(RLDC_HEAD "e3 : equation x = ", RLDC_HEAD, 1, 1);
    cr_assert_eq(m->left_out[0].where.start.line, 6);
    cr_assert_eq(m->left_out[0].where.start.col, 1);
    cr_assert_str_eq(m->left_out[0].message, "expected an expression, found end of input");
    mel_model_free(m);
}

Test(mel_errors, recovery_stops_at_the_next_line_that_starts_a_declaration)
{
    /* e0 has no right-hand side nor ';': the next line is a statement of
     * its own, not the rest of e0 */
    mel_model *m = same_as_without("x : real;\ne0 : equation x = 2 *\n" RLDC_REST,
                                   RLDC_HEAD, 1, 1);
    cr_assert_eq(m->left_out[0].where.start.line, 2);
    cr_assert_eq(m->left_out[0].where.end.line, 2);
    mel_model_free(m);
    /* a missing ';' leaves nothing out */
    m = same_as_without("x : real\n" RLDC_REST, RLDC_HEAD, 0, 1);
    mel_model_free(m);
}

Test(mel_errors, recovery_leaves_out_the_users_of_a_broken_declaration_without_more_errors)
{
    mel_model *m = same_as_without("x : real;\nz : rea;\np : real = z;\n"
                                   "e1 : equation der(x) = p;\ne2 : equation x = 1;\n",
                                   "x : real;\ne2 : equation x = 1;\n", 3, 1);
    cr_assert_str_eq(m->left_out[1].message,
                     "left out: uses 'z', whose declaration was left out");
    cr_assert_eq(m->left_out[2].where.start.line, 4, "e1, through p");
    mel_model_free(m);
    /* a name declared elsewhere too is not a consequence */
    m = same_as_without("x : real;\nx : rea;\ne1 : equation der(x) = 1;\n",
                        "x : real;\ne1 : equation der(x) = 1;\n", 1, 1);
    mel_model_free(m);
}

Test(mel_errors, recovery_skips_a_compound_statement_with_a_broken_header_whole)
{
    const char *broken = "x : real;\ng : boolean;\nif g the\n  a : real;\n  e : equation x = a;\n"
                         "else\n  if g then f : equation x = 2; end;\nend;\n"
                         "h : equation der(x) = 0;\n";
    mel_model *m = same_as_without(broken, "x : real;\ng : boolean;\nh : equation der(x) = 0;\n",
                                   1, 1);
    cr_assert_eq(m->left_out[0].where.start.line, 3);
    cr_assert_eq(m->left_out[0].where.end.line, 8, "to its own end");
    mel_model_free(m);
    /* a foreach without its done: to the end, its declarations' users too */
    m = same_as_without("x : real;\ne : equation der(x) = 1;\nforeach i in 1..2 do\n"
                        "  y[i] : real;\n",
                        "x : real;\ne : equation der(x) = 1;\n", 1, 1);
    mel_model_free(m);
}

Test(mel_errors, recovery_from_a_conditional_typed_over_existing_lines_keeps_them)
{
    /* the header alone, no `then` yet: only its line is left out */
    mel_model *m = same_as_without("k : boolean;\nif k\n" RLDC_HEAD, "k : boolean;\n" RLDC_HEAD,
                                   1, 1);
    cr_assert_eq(m->left_out[0].where.start.line, 2);
    cr_assert_eq(m->left_out[0].where.end.line, 2);
    mel_model_free(m);
    /* `then` typed, no `end` anywhere: the lines after it stay, unguarded */
    m = same_as_without("h : boolean;\nif h then\n" RLDC_HEAD, "h : boolean;\n" RLDC_HEAD, 1, 1);
    cr_assert_eq(m->left_out[0].where.start.line, 2);
    cr_assert_eq(m->left_out[0].where.end.line, 2, "the header only");
    mel_model_free(m);
    mel_outline *o = NULL;
    const char *t = "h : boolean;\nif h then\n" RLDC_HEAD;
    cr_assert_eq(mel_outline_parse(t, strlen(t), false, 0, &o), MDAE_OK);
    cr_assert_eq(o->n_symbols, 6, "h, x, y, g, e1, e2 and nothing for the header: %zu",
                 o->n_symbols);
    mel_outline_free(o);
}

Test(mel_errors, recovery_is_off_by_default_and_still_capped)
{
    mdae_diags d;
    int rc = mt_parse_fail(RLDC_HEAD "e3 : equation x = ", strlen(RLDC_HEAD) + 18, NULL, &d);
    cr_assert_eq(rc, MDAE_E_PARSE, "no model without mel_options.recover");
    mdae_diags_close(&d);
    char *src = repeat("", "x : ;\n", 200, "", "", "");
    mdae_diags_init(&d);
    mel_model *m = NULL;
    rc = mel_model_parse(src, strlen(src), &recover_opt, &m, &d);
    cr_assert_eq(rc, MDAE_E_PARSE, "too many errors: no model");
    cr_assert_null(m);
    cr_assert_leq(d.count, 51);
    cr_assert_str_eq(d.items[d.count - 1].message, "too many errors (50), stopping");
    mdae_diags_close(&d);
    free(src);
    /* model errors of the rest still fail it */
    mdae_diags_init(&d);
    rc = mel_model_parse("x : real;\ne : equation x = q;\nf : equation x = ;", 46, &recover_opt,
                         &m, &d);
    cr_assert_eq(rc, MDAE_E_MODEL);
    cr_assert(mt_has(&d, 2, 18, "q"));
    mdae_diags_close(&d);
}

Test(mel_errors, recovery_returns_nomem_at_every_allocation_without_leaking)
{
    const char *src = "x : real;\nz : rea;\np : real = z;\ne1 : equation der(x) = p;\n"
                      "if x the e : equation x = 1; end;\ne2 : equation x = 1;\ne3 : equation";
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; rc == MDAE_E_NOMEM && n < 100000; n++) {
        counting_arm(n);
        mdae_diags d;
        mdae_diags_init(&d);
        mel_model *m = NULL;
        rc = mel_model_parse(src, strlen(src), &recover_opt, &m, &d);
        mel_model_free(m);
        mdae_diags_close(&d);
        cr_assert_eq(live, 0, "allocation %ld failing leaks %ld blocks", n, live);
    }
    mdae_replace_allocator(NULL);
    cr_assert_eq(rc, MDAE_OK, "%s", mdae_err_name(rc));
}

/* ---- Saved fuzzer inputs --------------------------------------------------- */

Test(mel_errors, replays_every_saved_fuzzer_input)
{
    const char *dir = MDAE_SOURCE_DIR "/tests/corpus/mel_parse";
    DIR *dp = opendir(dir);
    cr_assert_not_null(dp, "cannot open %s", dir);
    struct dirent *de;
    size_t replayed = 0;
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
        for (int pass = 0; pass < 3; pass++) {
            mdae_diags d;
            mdae_diags_init(&d);
            mel_model *m = NULL;
            mel_options ropt = opt;
            ropt.recover = true; /* issue 36 item 2: the same inputs through recovery */
            int rc = mel_model_parse(buf, n, pass == 2 ? &ropt : pass ? NULL : &opt, &m, &d);
            cr_assert(rc == MDAE_OK || rc == MDAE_E_PARSE || rc == MDAE_E_MODEL ||
                          rc == MDAE_E_LIMIT,
                      "%s: %s", de->d_name, mdae_err_name(rc));
            cr_assert_eq(rc == MDAE_OK, m != NULL);
            for (size_t i = 0; i < d.count; i++) {
                char *s = mdae_diag_format(&d.items[i], de->d_name);
                cr_assert_not_null(s);
                mdae_free(s);
            }
            mel_model_free(m);
            mdae_diags_close(&d);
        }
        replayed++;
    }
    closedir(dp);
    cr_assert_gt(replayed, 0, "no inputs in %s", dir);
}
