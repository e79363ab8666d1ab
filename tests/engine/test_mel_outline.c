/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mel_outline.c -- the source outline (engine/mel_outline.h,
 * issue 15): symbols of MEL and Modelica texts with their kinds, nesting and
 * ranges; occurrences resolved by name within their scope; lookups by
 * offset; syntax errors; allocation failures.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "mel_outline.h"

#include "fail_alloc.h"
#include "model_files.h"

static mel_outline *outline_ok(const char *text, bool modelica)
{
    mel_outline *o = NULL;
    int rc = mel_outline_parse(text, strlen(text), modelica, 0, &o);
    cr_assert_eq(rc, MDAE_OK, "%s", mdae_err_name(rc));
    return o;
}

static long find(const mel_outline *o, const char *name)
{
    for (size_t k = 0; k < o->n_symbols; k++)
        if (strcmp(o->symbols[k].name, name) == 0)
            return (long)k;
    return -1;
}

static size_t uses(const mel_outline *o, long sym)
{
    size_t n = 0;
    for (size_t k = 0; k < o->n_occurrences; k++)
        n += o->occurrences[k].sym == (uint32_t)sym && !o->occurrences[k].decl;
    return n;
}

Test(mel_outline, gives_kinds_and_nesting_of_mel_statements)
{
    const char *t = "N : integer = 2;\np : real = 1;\nx : real;\ng : boolean;\n"
                    "invariant g | !g;\n"
                    "if g then\n  y : real;\n  e1 : equation y = x\nelse\n  e2 : equation x = p\nend;\n"
                    "foreach i in 1 .. N do\n  z[i] : real;\n  f[i] : equation der(z[i]) = x\ndone;\n"
                    "e3 : equation der(x) = if g then 1 else 0;\n";
    mel_outline *o = outline_ok(t, false);
    cr_assert_eq(o->symbols[find(o, "N")].kind, MEL_OL_INTEGER);
    cr_assert_eq(o->symbols[find(o, "p")].kind, MEL_OL_PARAMETER);
    cr_assert_eq(o->symbols[find(o, "x")].kind, MEL_OL_UNKNOWN);
    cr_assert_eq(o->symbols[find(o, "g")].kind, MEL_OL_MODE);
    cr_assert_eq(o->symbols[find(o, "invariant g | !g")].kind, MEL_OL_INVARIANT);
    long cond = find(o, "if g"), els = find(o, "else");
    cr_assert_geq(cond, 0);
    cr_assert_eq(o->symbols[find(o, "y")].parent, cond);
    cr_assert_eq(o->symbols[find(o, "e1")].parent, cond);
    cr_assert_eq(o->symbols[els].parent, cond);
    cr_assert_eq(o->symbols[find(o, "e2")].parent, els);
    long loop = find(o, "foreach i");
    cr_assert_eq(o->symbols[find(o, "z")].parent, loop);
    cr_assert_eq(o->symbols[find(o, "f")].kind, MEL_OL_EQUATION);
    cr_assert_eq(o->symbols[find(o, "e3")].parent, -1);
    /* x: used in e1, e2, f, e3; g: the invariant (twice), `if g`, e3 */
    cr_assert_eq(uses(o, find(o, "x")), 4);
    cr_assert_eq(uses(o, find(o, "g")), 4);
    cr_assert_eq(uses(o, find(o, "N")), 1);
    mel_outline_free(o);
}

Test(mel_outline, finds_the_name_at_an_offset_and_its_declaration)
{
    const char *t = "x : real;\ne : equation der(x) = x;";
    mel_outline *o = outline_ok(t, false);
    uint32_t at = (uint32_t)(strstr(t, "der(x)") - t) + 4;
    const mel_occurrence *oc = mel_outline_occurrence_at(o, at);
    cr_assert_not_null(oc);
    cr_assert_str_eq(o->symbols[oc->sym].name, "x");
    cr_assert_not(oc->decl);
    cr_assert_eq(oc->where.start.line, 2);
    cr_assert_eq(oc->where.start.col, 18);
    oc = mel_outline_occurrence_at(o, at + 1); /* just after x: still on it */
    cr_assert_not_null(oc);
    cr_assert_null(mel_outline_occurrence_at(o, 12), "inside `equation`");
    cr_assert_eq(mel_outline_symbol_at(o, at), find(o, "e"));
    mel_outline_free(o);
}

Test(mel_outline, resolves_modelica_names_within_their_class)
{
    const char *t = "model A\n  parameter Real k = 2;\n  Real x;\n  Boolean b;\n"
                    "equation\n  der(x) = if b then k * x else 0; // (E1)\n"
                    "  if b then\n    b = x > 1;\n  else\n    b = x < 0;\n  end if;\nend A;\n"
                    "model B\n  Real x;\nequation\n  der(x) = 1;\nend B;\n";
    mel_outline *o = outline_ok(t, true);
    long a = find(o, "A"), k = find(o, "k"), e1 = find(o, "E1");
    cr_assert_eq(o->symbols[a].kind, MEL_OL_CLASS);
    cr_assert_eq(o->symbols[k].kind, MEL_OL_PARAMETER);
    cr_assert_eq(o->symbols[k].parent, a);
    cr_assert_eq(o->symbols[find(o, "b")].kind, MEL_OL_MODE);
    cr_assert_eq(o->symbols[e1].kind, MEL_OL_EQUATION, "named by its label comment");
    long cond = find(o, "if b");
    cr_assert_eq(o->symbols[cond].kind, MEL_OL_IF);
    cr_assert_eq(o->symbols[find(o, "else")].parent, cond);
    /* A's x: E1 twice and the two branches; B's x: once */
    long ax = -1, bx = -1;
    for (size_t s = 0; s < o->n_symbols; s++)
        if (strcmp(o->symbols[s].name, "x") == 0)
            *(ax < 0 ? &ax : &bx) = (long)s;
    cr_assert_eq(uses(o, ax), 4);
    cr_assert_eq(uses(o, bx), 1);
    mel_outline_free(o);
}

Test(mel_outline, keeps_the_intact_statements_around_syntax_errors)
{
    /* issue 36 item 2: a syntax error costs its statement, not the outline */
    mel_outline *o = outline_ok("x : real; e : equation = ;\ny : real\nf : equation y = x;", false);
    cr_assert_geq(find(o, "x"), 0);
    cr_assert_geq(find(o, "y"), 0, "a line without its ';' keeps its symbol");
    cr_assert_geq(find(o, "f"), 0, "the next line is a statement of its own");
    cr_assert_lt(find(o, "e"), 0, "the broken equation is left out");
    cr_assert_eq(uses(o, find(o, "x")), 1, "in f");
    mel_outline_free(o);
    o = outline_ok("model M Real x; equation x = ; der(x) = 1 end M;", true);
    cr_assert_geq(find(o, "M"), 0);
    cr_assert_geq(find(o, "x"), 0);
    mel_outline_free(o);
}

Test(mel_outline, rldc2_with_a_half_typed_last_line_keeps_every_symbol)
{
    size_t n = 0;
    char *text = tm_read("rldc2.mel", &n);
    cr_assert_not_null(text);
    mel_outline *whole = outline_ok(text, false);
    char *broken = malloc(n + 32);
    memcpy(broken, text, n);
    strcpy(broken + n, "R9 : equation v1 = ");
    mel_outline *o = outline_ok(broken, false);
    cr_assert_eq(o->n_symbols, whole->n_symbols, "%zu symbols, %zu whole", o->n_symbols,
                 whole->n_symbols);
    cr_assert_geq(o->n_symbols, 36);
    mel_outline_free(o);
    mel_outline_free(whole);
    free(broken);
    free(text);
}

static void nomem_loop(const char *text, bool modelica)
{
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; rc == MDAE_E_NOMEM && n < 100000; n++) {
        counting_arm(n);
        mel_outline *o = NULL;
        rc = mel_outline_parse(text, strlen(text), modelica, 0, &o);
        if (rc == MDAE_OK)
            mel_outline_free(o);
        else
            cr_assert_eq(rc, MDAE_E_NOMEM, "allocation %ld: %s", n, mdae_err_name(rc));
        cr_assert_eq(live, 0, "allocation %ld failing leaks %ld blocks", n, live);
    }
    cr_assert_eq(rc, MDAE_OK);
    mdae_replace_allocator(NULL);
}

Test(mel_outline, returns_nomem_at_every_allocation_without_leaking)
{
    char *mel = tm_slurp("brake.mel");
    char *mo = tm_slurp("rldc2_cc.mo");
    nomem_loop(mel, false);
    nomem_loop(mo, true);
    free(mel);
    free(mo);
}
