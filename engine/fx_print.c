/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/fx_print.c -- fx_print and fx_format (engine/fx.h): an expression
 * as MEL or Modelica source text that parses back into an fx_equal tree.
 *
 * Parentheses: every node has a precedence level (below) and is printed in
 * parentheses when the context needs a higher one. The levels follow the
 * two grammars:
 *
 *   level  MEL (engine/mel_parse.c)          Modelica (3.x, Base Modelica)
 *   0      if c then a else b                if c then a elseif ... else b
 *   1      a | b | c                         a or b or c
 *   2      a & b & c                         a and b and c
 *   3      -                                 not r
 *   4      a < b (not associative)           a < b (not associative)
 *   5      a + b - c                         -a, a + b - c (unary minus)
 *   6      a * b / c                         a * b / c
 *   7      -a, !a                            -
 *   8      a ^ b (b a unary: right assoc.)   a ^ b (both primaries)
 *   9      primaries: names, calls, numbers, (e)
 *
 * An if-expression is printed in parentheses inside any operator (MEL's
 * is a greedy primary, Modelica's an expression only), and at the top of
 * an equation's left side (fx_print_lhs). The n-ary shapes of
 * fx.h are kept by parenthesising a kid of the same n-ary operator (so that
 * ADD(ADD(a, b), c) prints (a + b) + c, not the flat a + b + c); a - b is
 * ADD(a, NEG(b)); a product chain keeps its left-to-right grouping: the
 * left operand of a division and the first factor of a product may be a
 * division (a / b * c), the left operand of a division a product.
 *
 * Names are the model's (instance names); one that is not an identifier of
 * the language, or is a keyword, is quoted as Modelica's Q-IDENT ('x[3]',
 * 'stop1.v', with \' and \\ escaped); MEL reads the same quoted names. In
 * Modelica, a mode variable that stands for a relation (its name is not a
 * component reference, e.g. "s >= 0") prints as its definition, the
 * relation the importer made an atom of.
 */
#include "fx.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    L_IF = 0,
    L_OR = 1,
    L_AND = 2,
    L_NOT_MO = 3,
    L_REL = 4,
    L_ADD = 5,
    L_MUL = 6,
    L_UNARY_MEL = 7,
    L_POW = 8,
    L_PRIMARY = 9
};

typedef struct printer {
    mdae_buf *b;
    const mel_model *m;
    fx_syntax syn;
    const fx_namer *namer; /* NULL: the model's names */
} printer;

static void put(const printer *p, const fx_node *e, int min);

/* ---- Names ------------------------------------------------------------------ */
static const char *const mel_kw[] = {"real",    "boolean", "integer", "equation", "invariant",
                                     "if",      "then",    "else",    "end",      "foreach",
                                     "in",      "do",      "done",    "der",      "last",
                                     "pre",     "true",    "false",   "when",     "next"};
static const char *const mo_kw[] = {
    "algorithm", "and",         "annotation", "block",     "break",       "class",
    "connect",   "connector",   "constant",   "constrainedby", "der",     "discrete",
    "each",      "else",        "elseif",     "elsewhen",  "encapsulated", "end",
    "enumeration", "equation",  "expandable", "extends",   "external",    "false",
    "final",     "flow",        "for",        "function",  "if",          "import",
    "impure",    "in",          "initial",    "inner",     "input",       "loop",
    "model",     "not",         "operator",   "or",        "outer",       "output",
    "package",   "parameter",   "partial",    "protected", "public",      "pure",
    "record",    "redeclare",   "replaceable", "return",   "stream",      "then",
    "true",      "type",        "when",       "while",     "within",
    "time" /* not a keyword: the built-in; a variable named so is quoted */};

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_keyword(const char *s, size_t n, fx_syntax syn)
{
    const char *const *kw = syn == FX_SYNTAX_MEL ? mel_kw : mo_kw;
    size_t nk = syn == FX_SYNTAX_MEL ? sizeof mel_kw / sizeof *mel_kw : sizeof mo_kw / sizeof *mo_kw;
    for (size_t k = 0; k < nk; k++)
        if (strlen(kw[k]) == n && memcmp(kw[k], s, n) == 0)
            return true;
    return false;
}

/* Whether s[0..n) is an identifier of the language and not a keyword. */
static bool is_plain_ident(const char *s, size_t n, fx_syntax syn)
{
    if (n == 0 || !is_alpha(s[0]))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!is_alpha(s[i]) && !is_digit(s[i]))
            return false;
    return !is_keyword(s, n, syn);
}

/* Whether name is what the Modelica lexer keeps of a quoted name: the
 * bytes between the quotes, escapes as written (engine/mo_lex.c; a
 * Q-IDENT is its lexeme, Modelica 3.6 section 2.3.1), so that it prints
 * back verbatim: no bare quote or line break, each backslash followed by
 * the character it escapes. */
static bool is_mo_quoted_content(const char *name)
{
    for (const char *s = name; *s; s++) {
        if (*s == '\'' || *s == '\n' || *s == '\r')
            return false;
        if (*s == '\\' && (s[1] == '\0' || s[1] == '\n' || s[1] == '\r'))
            return false;
        s += *s == '\\';
    }
    return true;
}

/* Append a name, quoted when it is not a plain identifier: in Modelica
 * verbatim when it is a quoted name's content (above), else with ' and \
 * escaped (MEL unescapes its quoted names). */
static void put_name(mdae_buf *b, const char *name, fx_syntax syn)
{
    size_t n = strlen(name);
    if (is_plain_ident(name, n, syn)) {
        mdae_buf_put(b, name, n);
        return;
    }
    if (syn == FX_SYNTAX_MODELICA && n > 0 && is_mo_quoted_content(name)) {
        mdae_buf_puts(b, "'");
        mdae_buf_put(b, name, n);
        mdae_buf_puts(b, "'");
        return;
    }
    mdae_buf_puts(b, "'");
    for (const char *s = name; *s; s++) {
        if (*s == '\'' || *s == '\\')
            mdae_buf_puts(b, "\\");
        mdae_buf_put(b, s, 1);
    }
    mdae_buf_puts(b, "'");
}

/* A function's name: in Modelica a dotted path of identifiers stays as it
 * is (Modelica.Math.foo), except a partial derivative's "f.d<i>", which is
 * one name, quoted. */
static void put_fn_name(mdae_buf *b, const char *name, fx_syntax syn)
{
    if (syn == FX_SYNTAX_MODELICA) {
        const char *dot = strrchr(name, '.');
        bool partial = dot != NULL && dot[1] == 'd' && is_digit(dot[2]);
        for (const char *d = dot != NULL ? dot + 2 : NULL; partial && *d; d++)
            partial = is_digit(*d);
        bool path = !partial;
        for (const char *s = name; path;) {
            const char *e = strchr(s, '.');
            size_t n = e != NULL ? (size_t)(e - s) : strlen(s);
            path = is_plain_ident(s, n, syn);
            if (e == NULL)
                break;
            s = e + 1;
        }
        if (path) {
            mdae_buf_puts(b, name);
            return;
        }
    }
    put_name(b, name, syn);
}

/* Whether a name is a Modelica component reference as a declared variable
 * would be named (identifiers, dots, indices), not a relation's text. */
static bool is_component_name(const char *s)
{
    for (; *s; s++)
        if (!is_alpha(*s) && !is_digit(*s) && *s != '.' && *s != '[' && *s != ']' && *s != ',')
            return false;
    return true;
}

bool fx_mode_is_atom(const mel_model *m, uint32_t k)
{
    assert(k < m->n_modes);
    return m->modes[k].def != NULL && !is_component_name(m->modes[k].name);
}

/* ---- Numbers ---------------------------------------------------------------- */
/* The shortest %.<p>g that reads back to v, with a '.' or exponent unless
 * is_int (an integer literal stays one). */
static void put_number(mdae_buf *b, double v, bool is_int)
{
    char s[64];
    if (isnan(v)) {
        mdae_buf_puts(b, "(0.0 / 0.0)");
        return;
    }
    if (isinf(v)) {
        /* a quotient, as NaN: a literal past DBL_MAX is an error in both
         * front-ends ("number too large"), and folding can still make one */
        mdae_buf_puts(b, v > 0 ? "(1.0 / 0.0)" : "(-1.0 / 0.0)");
        return;
    }
    if (is_int && v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(s, sizeof s, "%.0f", v);
        mdae_buf_puts(b, s);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    /* 10 rather than 1e+01: the fixed form when the exponent is small */
    const char *e = strchr(s, 'e');
    int exp10 = e != NULL ? atoi(e + 1) : 0;
    if (e != NULL && exp10 >= -5 && exp10 < 17) {
        char f[64];
        size_t digits = 0;
        for (const char *d = s; d < e; d++)
            digits += is_digit(*d);
        int decimals = (int)digits - 1 - exp10;
        snprintf(f, sizeof f, "%.*f", decimals > 0 ? decimals : 0, v);
        if (strtod(f, NULL) == v)
            memcpy(s, f, strlen(f) + 1);
    }
    /* 5e-6 rather than 5e-06, 1e300 rather than 1e+300: as sources write
     * them (and as the Modelica importer names relation atoms) */
    char *x = strchr(s, 'e');
    if (x != NULL) {
        char *d = x + 1, *from = x + 1;
        if (*from == '+')
            from++;
        else if (*from == '-')
            *d++ = *from++;
        while (*from == '0' && from[1] != '\0')
            from++;
        memmove(d, from, strlen(from) + 1);
    }
    if (v == 0 && signbit(v))
        snprintf(s, sizeof s, "-0.0");
    mdae_buf_puts(b, s);
    if (strpbrk(s, ".eEn") == NULL)
        mdae_buf_puts(b, ".0");
}

void fx_print_number(mdae_buf *b, double v, bool is_int)
{
    put_number(b, v, is_int);
}

/* ---- Expressions ------------------------------------------------------------ */
static int level_of(const printer *p, const fx_node *e)
{
    bool mel = p->syn == FX_SYNTAX_MEL;
    switch ((fx_op)e->op) {
    case FX_NUM: return e->num < 0 || signbit(e->num) ? (mel ? L_UNARY_MEL : L_ADD) : L_PRIMARY;
    case FX_NEG: return mel ? L_UNARY_MEL : L_ADD;
    case FX_NOT: return mel ? L_UNARY_MEL : L_NOT_MO;
    case FX_ADD: return L_ADD;
    case FX_MUL:
    case FX_DIV: return L_MUL;
    case FX_POW: return L_POW;
    case FX_LT:
    case FX_LE:
    case FX_GT:
    case FX_GE:
    case FX_EQ:
    case FX_NE: return L_REL;
    case FX_AND: return L_AND;
    case FX_OR: return L_OR;
    case FX_IF: return L_IF;
    case FX_MODE:
        if (!mel && p->m != NULL && e->index < p->m->n_modes && fx_mode_is_atom(p->m, e->index))
            return level_of(p, p->m->modes[e->index].def);
        return L_PRIMARY;
    default: return L_PRIMARY;
    }
}

static void put_call1(const printer *p, const char *fn, const fx_node *kid)
{
    mdae_buf_puts(p->b, fn);
    mdae_buf_puts(p->b, "(");
    put(p, kid, L_IF);
    mdae_buf_puts(p->b, ")");
}

/* A reference out of the model's range (a tree printed without its
 * model): a quoted placeholder, so that the text stays readable. */
static void put_missing(mdae_buf *b, const char *what, uint32_t index)
{
    char s[48];
    snprintf(s, sizeof s, "'?%s%u'", what, (unsigned)index);
    mdae_buf_puts(b, s);
}

static void put_var(const printer *p, const fx_node *e)
{
    const char *whole = p->namer != NULL && p->namer->occurrence != NULL
                            ? p->namer->occurrence(p->namer->ctx, e->index, e->order)
                            : NULL;
    if (whole != NULL) {
        mdae_buf_puts(p->b, whole);
        return;
    }
    for (unsigned k = 0; k < e->order; k++)
        mdae_buf_puts(p->b, "der(");
    const char *named =
        p->namer != NULL && p->namer->var != NULL ? p->namer->var(p->namer->ctx, e->index) : NULL;
    if (named != NULL)
        put_name(p->b, named, p->syn);
    else if (p->m != NULL && e->index < p->m->n_variables)
        put_name(p->b, p->m->variables[e->index].name, p->syn);
    else
        put_missing(p->b, "var", e->index);
    for (unsigned k = 0; k < e->order; k++)
        mdae_buf_puts(p->b, ")");
}

static void put_indexed(const printer *p, const fx_node *e)
{
    const mel_model *m = p->m;
    if (e->op == FX_KNOWN && m != NULL && e->index < m->n_knowns) {
        put_name(p->b, m->knowns[e->index].name, p->syn);
    } else if (e->op == FX_MODE && m != NULL && e->index < m->n_modes) {
        if (p->syn == FX_SYNTAX_MODELICA && fx_mode_is_atom(m, e->index))
            put(p, m->modes[e->index].def, L_IF); /* parenthesised by the caller */
        else
            put_name(p->b, m->modes[e->index].name, p->syn);
    } else {
        put_missing(p->b, e->op == FX_KNOWN ? "known" : "mode", e->index);
    }
}

static const char *rel_op(fx_op op)
{
    switch (op) {
    case FX_LT: return " < ";
    case FX_LE: return " <= ";
    case FX_GT: return " > ";
    case FX_GE: return " >= ";
    case FX_EQ: return " == ";
    default: return " <> ";
    }
}

/* kids of an n-ary node joined by sep, each at level kid_min, a kid with
 * the same operator in parentheses (the tree is not flat). */
static void put_nary(const printer *p, const fx_node *e, const char *sep, int kid_min)
{
    for (uint32_t k = 0; k < e->n; k++) {
        if (k > 0)
            mdae_buf_puts(p->b, sep);
        put(p, e->kids[k], e->kids[k]->op == e->op ? L_PRIMARY : kid_min);
    }
}

static void put_add(const printer *p, const fx_node *e)
{
    bool mel = p->syn == FX_SYNTAX_MEL;
    for (uint32_t k = 0; k < e->n; k++) {
        const fx_node *t = e->kids[k];
        if (k == 0) {
            /* Modelica's leading unary minus is part of the sum. */
            put(p, t, t->op == FX_ADD ? L_PRIMARY : mel ? L_MUL : L_ADD);
        } else if (t->op == FX_NEG) {
            mdae_buf_puts(p->b, " - ");
            put(p, t->kids[0], L_MUL);
        } else {
            mdae_buf_puts(p->b, " + ");
            put(p, t, L_MUL);
        }
    }
}

static void put_mul(const printer *p, const fx_node *e)
{
    for (uint32_t k = 0; k < e->n; k++) {
        const fx_node *t = e->kids[k];
        if (k > 0)
            mdae_buf_puts(p->b, " * ");
        if (k == 0 && t->op == FX_DIV)
            put(p, t, L_MUL);
        else
            put(p, t, L_MUL + 1);
    }
}

static void put_div(const printer *p, const fx_node *e)
{
    const fx_node *a = e->kids[0];
    put(p, a, a->op == FX_MUL || a->op == FX_DIV ? L_MUL : L_MUL + 1);
    mdae_buf_puts(p->b, " / ");
    put(p, e->kids[1], L_MUL + 1);
}

static void put_if(const printer *p, const fx_node *e)
{
    mdae_buf_puts(p->b, "if ");
    put(p, e->kids[0], L_IF);
    mdae_buf_puts(p->b, " then ");
    put(p, e->kids[1], L_IF);
    const fx_node *rest = e->kids[2];
    while (p->syn == FX_SYNTAX_MODELICA && rest->op == FX_IF) {
        mdae_buf_puts(p->b, " elseif ");
        put(p, rest->kids[0], L_IF);
        mdae_buf_puts(p->b, " then ");
        put(p, rest->kids[1], L_IF);
        rest = rest->kids[2];
    }
    mdae_buf_puts(p->b, " else ");
    put(p, rest, L_IF);
}

/* e's kids in parentheses, separated by ", ". */
static void put_args(const printer *p, const fx_node *e)
{
    mdae_buf_puts(p->b, "(");
    for (uint32_t k = 0; k < e->n; k++) {
        if (k > 0)
            mdae_buf_puts(p->b, ", ");
        put(p, e->kids[k], L_IF);
    }
    mdae_buf_puts(p->b, ")");
}

static void put_call(const printer *p, const fx_node *e)
{
    if (e->fn != FX_FN_UNKNOWN)
        mdae_buf_puts(p->b, fx_fn_name((fx_fn)e->fn));
    else
        put_fn_name(p->b, e->name != NULL ? e->name : "?", p->syn);
    put_args(p, e);
}

/* Text a front-end kept: itself in Modelica; in MEL, which cannot read
 * it, the text form "text"(refs...) (docs/convert.md), with \" and \\
 * escaped and a newline (in a Modelica string) as \n, which MEL reads back
 * as the same FX_OPAQUE ("text" alone when it reads no unknown). */
static void put_opaque(const printer *p, const fx_node *e)
{
    const char *text = e->name != NULL ? e->name : "?";
    if (p->syn == FX_SYNTAX_MODELICA) {
        mdae_buf_puts(p->b, text);
        return;
    }
    mdae_buf_puts(p->b, "\"");
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '\n') {
            mdae_buf_puts(p->b, "\\n");
            continue;
        }
        if (*c == '"' || *c == '\\')
            mdae_buf_puts(p->b, "\\");
        mdae_buf_put(p->b, c, 1);
    }
    mdae_buf_puts(p->b, "\"");
    if (e->n == 0)
        return;
    put_args(p, e);
}

/* The node itself, its level already checked against the context. */
static void put_bare(const printer *p, const fx_node *e)
{
    bool mel = p->syn == FX_SYNTAX_MEL;
    switch ((fx_op)e->op) {
    case FX_NUM: put_number(p->b, e->num, e->is_int); break;
    case FX_BOOL: mdae_buf_puts(p->b, e->num != 0 ? "true" : "false"); break;
    case FX_TIME: mdae_buf_puts(p->b, "time"); break;
    case FX_VAR: put_var(p, e); break;
    case FX_KNOWN:
    case FX_MODE: put_indexed(p, e); break;
    case FX_NEG:
        mdae_buf_puts(p->b, "-");
        put(p, e->kids[0], mel ? L_UNARY_MEL : L_MUL);
        break;
    case FX_NOT:
        mdae_buf_puts(p->b, mel ? "!" : "not ");
        put(p, e->kids[0], mel ? L_UNARY_MEL : L_REL);
        break;
    case FX_ADD: put_add(p, e); break;
    case FX_MUL: put_mul(p, e); break;
    case FX_DIV: put_div(p, e); break;
    case FX_POW:
        put(p, e->kids[0], L_PRIMARY);
        mdae_buf_puts(p->b, " ^ ");
        put(p, e->kids[1], mel ? L_UNARY_MEL : L_PRIMARY);
        break;
    case FX_LT:
    case FX_LE:
    case FX_GT:
    case FX_GE:
    case FX_EQ:
    case FX_NE:
        put(p, e->kids[0], L_ADD);
        mdae_buf_puts(p->b, rel_op((fx_op)e->op));
        put(p, e->kids[1], L_ADD);
        break;
    case FX_AND: put_nary(p, e, mel ? " & " : " and ", L_AND + 1); break;
    case FX_OR: put_nary(p, e, mel ? " | " : " or ", L_OR + 1); break;
    case FX_IF: put_if(p, e); break;
    case FX_CALL: put_call(p, e); break;
    case FX_DER: put_call1(p, "der", e->kids[0]); break;
    case FX_PRE: put_call1(p, "pre", e->kids[0]); break;
    /* Modelica has no last(): pre() is its left limit */
    case FX_LAST: put_call1(p, mel ? "last" : "pre", e->kids[0]); break;
    case FX_NEXT: put_call1(p, "next", e->kids[0]); break;
    case FX_OPAQUE: put_opaque(p, e); break;
    }
}

static void put(const printer *p, const fx_node *e, int min)
{
    if (e == NULL) {
        mdae_buf_puts(p->b, "'?'");
        return;
    }
    bool par = level_of(p, e) < min;
    if (par)
        mdae_buf_puts(p->b, "(");
    put_bare(p, e);
    if (par)
        mdae_buf_puts(p->b, ")");
}

void fx_print(mdae_buf *b, const mel_model *m, const fx_node *e, fx_syntax syntax)
{
    assert(b != NULL);
    printer p = {.b = b, .m = m, .syn = syntax};
    put(&p, e, L_IF);
}

void fx_print_named(mdae_buf *b, const mel_model *m, const fx_node *e, fx_syntax syntax,
                    const fx_namer *namer)
{
    assert(b != NULL);
    printer p = {.b = b, .m = m, .syn = syntax, .namer = namer};
    put(&p, e, L_IF);
}

void fx_print_lhs(mdae_buf *b, const mel_model *m, const fx_node *e, fx_syntax syntax,
                  const fx_namer *namer)
{
    assert(b != NULL);
    printer p = {.b = b, .m = m, .syn = syntax, .namer = namer};
    put(&p, e, L_IF + 1);
}

char *fx_format(const mel_model *m, const fx_node *e, fx_syntax syntax)
{
    mdae_buf b = {0};
    fx_print(&b, m, e, syntax);
    if (b.oom) {
        mdae_free(b.p);
        return NULL;
    }
    return b.p != NULL ? b.p : mdae_strdup("");
}

void fx_print_name(mdae_buf *b, const char *name, fx_syntax syntax)
{
    put_name(b, name, syntax);
}
