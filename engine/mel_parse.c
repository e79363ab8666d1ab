/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_parse.c -- recursive-descent parser for MEL, into the syntax tree
 * of engine/mel_ast.h.
 *
 * Grammar (issue text; precedence low to high: `|`, `&`, comparisons
 * (non-associative), `+ -`, `* /`, unary `- !`, `^` (right-associative),
 * postfix/primary):
 *
 *   stmts ::= { stmt ';' }      (';' optional before else/end/done/EOF;
 *                                stray ';' are allowed)
 *   stmt  ::= label ':' type ['=' expr] | label ':' 'equation' expr '=' expr
 *           | 'invariant' expr | 'if' expr 'then' stmts ['else' stmts] 'end'
 *           | 'when' expr 'then' stmts 'end'
 *           | 'foreach' id 'in' expr '..' expr 'do' stmts 'done'
 *   label ::= id ['[' expr {',' expr} ']']
 *   expr  ::= number | true | false | label | id '(' [expr {',' expr}] ')'
 *           | expr op expr | '-' expr | '!' expr | '(' expr ')'
 *           | 'if' expr 'then' expr 'else' expr | der(expr) | last(expr) | pre(expr)
 *           | next(expr)
 *
 * Errors: syntax errors are reported once per statement (the `panic` flag
 * mutes the cascade) and the parser resynchronises at the next ';', `else`,
 * `end` or `done`, or at a later line that starts with `name :`, `foreach`,
 * `invariant` or `when` (a half-typed line without its ';' then costs only
 * itself). A conditional or loop whose header is broken is skipped to its
 * own `end`/`done`, counting the statement-level `if`/`when`/`foreach`
 * inside (an `if` right after ';', `then`, `else` or `do`), so its body
 * does not leak out unguarded. Nesting beyond max_depth is fatal: the
 * parser reports it and then sees only end-of-input, so it unwinds without
 * recursing further. Out-of-memory is handled the same way.
 *
 * Recovery (mel.h, "Recovery"; issue 36 item 2): each skip is recorded as a
 * left-out range (mel__left_out); with rep->recover, the names declared by
 * what was skipped are remembered, and prune() then leaves out the
 * statements that use one of them and that no surviving statement
 * declares, so that they are not reported again as undeclared.
 */
#include "mel_int.h"

#include <stdio.h>
#include <string.h>

typedef struct parser {
    mel__lexer lx;
    mel__token tok;
    mdae_pos prev_end; /* end of the last consumed token */
    mel__arena *arena;
    mel__report *rep;
    size_t depth, max_depth;
    size_t nodes; /* expression nodes created so far */
    size_t ids;   /* of which identifiers (MEL_X_ID) */
    struct pname *names; /* the interned names (intern) */
    size_t names_cap;
    uint32_t n_names;
    bool panic; /* a syntax error was reported in this statement */
    bool fatal; /* stop: pretend the input ends here */
    /* Recovery: the label of the statement being parsed (UINT32_MAX:
     * none yet), and the names declared in what was left out. */
    uint32_t label_id;
    struct pvec *poison;
    /* parse_conditional handed back its body for itself (see there) */
    bool spliced;
} parser;

static void advance(parser *p)
{
    p->prev_end = p->tok.where.end;
    if (p->fatal || p->rep->stop) {
        p->tok.kind = MEL_T_EOF;
        return;
    }
    mel__lex_next(&p->lx, &p->tok);
}

static void syntax_error_at(parser *p, mdae_range where, const char *fmt, ...) MDAE_PRINTF(3, 4);
static void syntax_error_at(parser *p, mdae_range where, const char *fmt, ...)
{
    if (p->panic || p->fatal)
        return;
    p->panic = true;
    va_list ap;
    va_start(ap, fmt);
    mel__verror(p->rep, MDAE_E_PARSE, where, 256, fmt, ap);
    va_end(ap);
}

/* "expected X, found Y" at the current token. */
static void expected(parser *p, const char *what)
{
    syntax_error_at(p, p->tok.where, "expected %s, found %s", what, mel__tok_name(p->tok.kind));
}

static bool expect(parser *p, mel__tok kind, const char *what)
{
    if (p->tok.kind == kind) {
        advance(p);
        return true;
    }
    expected(p, what ? what : mel__tok_name(kind));
    return false;
}

/* Out of memory: report, and see only end-of-input from now on. */
static void nomem(parser *p)
{
    mel__nomem(p->rep);
    p->fatal = true;
    p->tok.kind = MEL_T_EOF;
}

/* n bytes of the arena, not cleared (callers write or clear them: a
 * memset of a node costs less than calloc's clearing of whole chunks). */
static void *alloc(parser *p, size_t n)
{
    void *r = mel__arena_alloc_raw(p->arena, n);
    if (r == NULL)
        nomem(p);
    return r;
}

static bool enter(parser *p)
{
    if (p->depth >= p->max_depth) {
        if (!p->fatal)
            mel__error(p->rep, MDAE_E_LIMIT, p->tok.where, "nesting deeper than %zu",
                       p->max_depth);
        p->fatal = true;
        p->tok.kind = MEL_T_EOF;
        return false;
    }
    p->depth++;
    return true;
}

static void leave(parser *p) { p->depth--; }

static mel__expr *new_expr(parser *p, mel__expr_kind kind, mdae_pos start)
{
    mel__expr *e = alloc(p, sizeof *e);
    p->nodes++;
    p->ids += kind == MEL_X_ID;
    if (e != NULL) {
        memset(e, 0, sizeof *e);
        e->kind = kind;
        e->where.start = start;
        e->where.end = p->prev_end;
    }
    return e;
}

/* One interned name (mel_ast.h, "Names"); text NULL: an empty slot. */
typedef struct pname {
    const char *text; /* in the arena */
    uint32_t len, hash, id;
} pname;

/* Double the table of names (open addressing, at most half full). */
static bool grow_names(parser *p)
{
    size_t cap = p->names_cap ? 2 * p->names_cap : 64;
    pname *t = mdae_calloc(cap, sizeof *t);
    if (t == NULL)
        return false;
    for (size_t k = 0; k < p->names_cap; k++) {
        if (p->names[k].text == NULL)
            continue;
        size_t a = p->names[k].hash & (cap - 1);
        while (t[a].text != NULL)
            a = (a + 1) & (cap - 1);
        t[a] = p->names[k];
    }
    mdae_free(p->names);
    p->names = t;
    p->names_cap = cap;
    return true;
}

/* The name of token tok (a quoted identifier's: its content unescaped, so
 * 'x' is x): the copy every equal name shares, and its number in *id. NULL
 * on OOM (reported, fatal). */
static const char *intern(parser *p, const mel__token *tok, uint32_t *id)
{
    if (2 * ((size_t)p->n_names + 1) > p->names_cap && !grow_names(p)) {
        nomem(p);
        return NULL;
    }
    char buf[MEL__MAX_NAME + 1];
    const char *text = tok->text;
    size_t len = tok->len;
    if (tok->escaped) { /* at most MEL__MAX_NAME bytes once unescaped (mel_lex.c) */
        len = mel__unquote(tok->text, tok->len, buf);
        MDAE_ASSERT(len <= MEL__MAX_NAME);
        text = buf;
    }
    uint32_t h = mel__hash(text, len);
    size_t k = h & (p->names_cap - 1);
    for (; p->names[k].text != NULL; k = (k + 1) & (p->names_cap - 1)) {
        const pname *n = &p->names[k];
        if (n->hash == h && n->len == len && memcmp(n->text, text, len) == 0) {
            *id = n->id;
            return n->text;
        }
    }
    char *s = mel__arena_strndup(p->arena, text, len);
    if (s == NULL) {
        nomem(p);
        return NULL;
    }
    p->names[k] = (pname){s, (uint32_t)len, h, p->n_names};
    *id = p->n_names++;
    return s;
}

/* A growable array of pointers in the arena: doubling leaves the old copies
 * behind, which at most doubles the space, and needs no cleanup path. */
typedef struct pvec {
    void **items;
    uint32_t n, cap;
} pvec;

static bool pvec_push(parser *p, pvec *v, void *x)
{
    if (v->n == v->cap) {
        if (v->cap >= UINT32_MAX / 2) {
            mel__error(p->rep, MDAE_E_LIMIT, p->tok.where, "too many operands");
            p->fatal = true;
            return false;
        }
        uint32_t cap = v->cap ? v->cap * 2 : 4;
        void **items = alloc(p, cap * sizeof *items);
        if (items == NULL)
            return false;
        if (v->n)
            memcpy(items, v->items, v->n * sizeof *items);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->n++] = x;
    return true;
}

static mel__expr *parse_expr(parser *p);
static mel__expr *parse_unary(parser *p);
static bool starts_line_statement(const parser *p);

/* '(' or '[' already consumed: expr {',' expr} until `close`. */
static bool parse_list(parser *p, mel__tok close, pvec *out)
{
    if (p->tok.kind == close) {
        advance(p);
        return true;
    }
    for (;;) {
        mel__expr *e = parse_expr(p);
        if (e == NULL || !pvec_push(p, out, e))
            return false;
        if (p->tok.kind == MEL_T_COMMA) {
            advance(p);
            continue;
        }
        return expect(p, close, close == MEL_T_RPAREN ? "',' or ')'" : "',' or ']'");
    }
}

/* `"text"` or `"text"(args)`: what a front-end kept as text, reading the
 * args (FX_OPAQUE), as a call (MEL_X_CALL with u.id.text) named by its
 * unescaped text, which is not interned (it names nothing). */
static mel__expr *parse_text(parser *p)
{
    mel__token t = p->tok;
    mdae_pos start = t.where.start;
    char *text = mel__arena_alloc(p->arena, t.len + 1);
    if (text == NULL) {
        nomem(p);
        return NULL;
    }
    size_t len = t.escaped ? mel__unquote(t.text, t.len, text) : t.len;
    if (!t.escaped)
        memcpy(text, t.text, t.len);
    text[len] = '\0';
    advance(p);
    pvec args = {0};
    if (p->tok.kind == MEL_T_LPAREN) {
        if (!enter(p))
            return NULL;
        advance(p);
        bool ok = parse_list(p, MEL_T_RPAREN, &args);
        leave(p);
        if (!ok)
            return NULL;
    }
    mel__expr *e = new_expr(p, MEL_X_CALL, start);
    if (e != NULL) {
        e->u.id.name = text;
        e->u.id.text = true;
        e->u.id.n = args.n;
        e->u.id.args = (mel__expr **)args.items;
    }
    return e;
}

static mel__expr *parse_primary(parser *p)
{
    mdae_pos start = p->tok.where.start;
    mel__token t = p->tok;
    switch (t.kind) {
    case MEL_T_NUM: {
        advance(p);
        mel__expr *e = new_expr(p, MEL_X_NUM, start);
        if (e != NULL) {
            e->u.num.value = t.value;
            e->u.num.ival = t.ival;
            e->u.num.is_int = t.is_int;
        }
        return e;
    }
    case MEL_T_TEXT: return parse_text(p);
    case MEL_T_TRUE:
    case MEL_T_FALSE: {
        advance(p);
        mel__expr *e = new_expr(p, MEL_X_BOOL, start);
        if (e != NULL)
            e->u.b = t.kind == MEL_T_TRUE;
        return e;
    }
    case MEL_T_ID: {
        if (starts_line_statement(p)) {
            /* `e : equation x = 2 *` then `y : real;`: a half-typed line,
             * not an operand (no expression goes on with ':') */
            expected(p, "an expression");
            return NULL;
        }
        uint32_t name_id;
        const char *name = intern(p, &t, &name_id);
        if (name == NULL)
            return NULL;
        advance(p);
        mel__expr_kind kind = MEL_X_ID;
        pvec args = {0};
        if (p->tok.kind == MEL_T_LPAREN || p->tok.kind == MEL_T_LBRACK) {
            kind = p->tok.kind == MEL_T_LPAREN ? MEL_X_CALL : MEL_X_ID;
            mel__tok close = kind == MEL_X_CALL ? MEL_T_RPAREN : MEL_T_RBRACK;
            if (!enter(p))
                return NULL;
            advance(p);
            bool ok = parse_list(p, close, &args);
            leave(p);
            if (!ok)
                return NULL;
            if (kind == MEL_X_ID && args.n == 0) {
                syntax_error_at(p, (mdae_range){start, p->prev_end}, "empty index list");
                return NULL;
            }
        }
        mel__expr *e = new_expr(p, kind, start);
        if (e != NULL) {
            e->u.id.name = name;
            e->u.id.name_id = name_id;
            e->u.id.n = args.n;
            e->u.id.args = (mel__expr **)args.items;
        }
        return e;
    }
    case MEL_T_DER:
    case MEL_T_LAST:
    case MEL_T_NEXT:
    case MEL_T_PRE: {
        advance(p);
        if (!expect(p, MEL_T_LPAREN, NULL))
            return NULL;
        mel__expr *kid = parse_expr(p);
        if (kid == NULL || !expect(p, MEL_T_RPAREN, NULL))
            return NULL;
        mel__expr *e = new_expr(p,
                                t.kind == MEL_T_DER    ? MEL_X_DER
                                : t.kind == MEL_T_LAST ? MEL_X_LAST
                                : t.kind == MEL_T_NEXT ? MEL_X_NEXT
                                                       : MEL_X_PRE,
                                start);
        if (e != NULL)
            e->u.kid = kid;
        return e;
    }
    case MEL_T_LPAREN: {
        advance(p);
        mel__expr *e = parse_expr(p);
        if (e == NULL || !expect(p, MEL_T_RPAREN, NULL))
            return NULL;
        return e;
    }
    case MEL_T_IF: {
        advance(p);
        mel__expr *c = parse_expr(p);
        if (c == NULL || !expect(p, MEL_T_THEN, NULL))
            return NULL;
        mel__expr *a = parse_expr(p);
        if (a == NULL || !expect(p, MEL_T_ELSE, "'else' (an if-expression needs one)"))
            return NULL;
        mel__expr *b = parse_expr(p);
        if (b == NULL)
            return NULL;
        mel__expr *e = new_expr(p, MEL_X_IF, start);
        if (e != NULL) {
            e->u.ite.c = c;
            e->u.ite.a = a;
            e->u.ite.b = b;
        }
        return e;
    }
    default:
        expected(p, "an expression");
        return NULL;
    }
}

/* power ::= primary ['^' unary]   (right-associative through unary) */
static mel__expr *parse_power(parser *p)
{
    mdae_pos start = p->tok.where.start;
    mel__expr *base = parse_primary(p);
    if (base == NULL || p->tok.kind != MEL_T_CARET)
        return base;
    advance(p);
    if (!enter(p))
        return NULL;
    mel__expr *ex = parse_unary(p);
    leave(p);
    if (ex == NULL)
        return NULL;
    mel__expr *e = new_expr(p, MEL_X_POW, start);
    if (e != NULL) {
        e->u.bin.op = '^';
        e->u.bin.lhs = base;
        e->u.bin.rhs = ex;
    }
    return e;
}

/* unary ::= ('-' | '!') unary | power */
static mel__expr *parse_unary(parser *p)
{
    if (p->tok.kind != MEL_T_MINUS && p->tok.kind != MEL_T_BANG)
        return parse_power(p);
    mdae_pos start = p->tok.where.start;
    mel__expr_kind kind = p->tok.kind == MEL_T_MINUS ? MEL_X_NEG : MEL_X_NOT;
    advance(p);
    if (!enter(p))
        return NULL;
    mel__expr *kid = parse_unary(p);
    leave(p);
    if (kid == NULL)
        return NULL;
    mel__expr *e = new_expr(p, kind, start);
    if (e != NULL)
        e->u.kid = kid;
    return e;
}

typedef mel__expr *(*parse_fn)(parser *);

/* An n-ary chain of one precedence level: first {op next}. */
static mel__expr *parse_chain(parser *p, parse_fn next, mel__expr_kind kind, mel__tok op1,
                              char c1, mel__tok op2, char c2)
{
    mdae_pos start = p->tok.where.start;
    mel__expr *first = next(p);
    if (first == NULL || (p->tok.kind != op1 && p->tok.kind != op2))
        return first;
    pvec kids = {0}, ops = {0};
    if (!pvec_push(p, &kids, first) || !pvec_push(p, &ops, (void *)(uintptr_t)c1))
        return NULL;
    while (p->tok.kind == op1 || p->tok.kind == op2) {
        char c = p->tok.kind == op1 ? c1 : c2;
        advance(p);
        mel__expr *e = next(p);
        if (e == NULL || !pvec_push(p, &kids, e) || !pvec_push(p, &ops, (void *)(uintptr_t)c))
            return NULL;
    }
    mel__expr *e = new_expr(p, kind, start);
    char *opv = alloc(p, kids.n);
    if (e == NULL || opv == NULL)
        return NULL;
    for (uint32_t i = 0; i < ops.n; i++)
        opv[i] = (char)(uintptr_t)ops.items[i];
    e->u.nary.n = kids.n;
    e->u.nary.kids = (mel__expr **)kids.items;
    e->u.nary.ops = opv;
    return e;
}

static mel__expr *parse_mul(parser *p)
{
    return parse_chain(p, parse_unary, MEL_X_MUL, MEL_T_STAR, '*', MEL_T_SLASH, '/');
}

static mel__expr *parse_add(parser *p)
{
    return parse_chain(p, parse_mul, MEL_X_ADD, MEL_T_PLUS, '+', MEL_T_MINUS, '-');
}

static int cmp_op(mel__tok k)
{
    switch (k) {
    case MEL_T_LT: return MEL_CMP_LT;
    case MEL_T_LE: return MEL_CMP_LE;
    case MEL_T_GT: return MEL_CMP_GT;
    case MEL_T_GE: return MEL_CMP_GE;
    case MEL_T_EQ: return MEL_CMP_EQ;
    case MEL_T_NE: return MEL_CMP_NE;
    default: return -1;
    }
}

static mel__expr *parse_cmp(parser *p)
{
    mdae_pos start = p->tok.where.start;
    mel__expr *lhs = parse_add(p);
    int op = cmp_op(p->tok.kind);
    if (lhs == NULL || op < 0)
        return lhs;
    advance(p);
    mel__expr *rhs = parse_add(p);
    if (rhs == NULL)
        return NULL;
    if (cmp_op(p->tok.kind) >= 0) {
        syntax_error_at(p, p->tok.where, "comparisons cannot be chained; use parentheses");
        return NULL;
    }
    mel__expr *e = new_expr(p, MEL_X_CMP, start);
    if (e != NULL) {
        e->u.bin.op = op;
        e->u.bin.lhs = lhs;
        e->u.bin.rhs = rhs;
    }
    return e;
}

static mel__expr *parse_and(parser *p)
{
    return parse_chain(p, parse_cmp, MEL_X_AND, MEL_T_AMP, '&', MEL_T_AMP, '&');
}

static mel__expr *parse_expr(parser *p)
{
    if (!enter(p))
        return NULL;
    mel__expr *e = parse_chain(p, parse_and, MEL_X_OR, MEL_T_BAR, '|', MEL_T_BAR, '|');
    leave(p);
    return e;
}

/* ---- Statements -------------------------------------------------------------- */

static mel__stmt *parse_stmts(parser *p, bool top);
static void skip_compound(parser *p);
static void poison_stmts(parser *p, const mel__stmt *s);

static uint32_t sat32(size_t n) { return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n; }

static bool parse_label(parser *p, mel__label *l)
{
    mdae_pos start = p->tok.where.start;
    l->name = intern(p, &p->tok, &l->name_id);
    if (l->name == NULL)
        return false;
    advance(p);
    if (p->tok.kind == MEL_T_LBRACK) {
        pvec idx = {0};
        if (!enter(p))
            return false;
        advance(p);
        bool ok = parse_list(p, MEL_T_RBRACK, &idx);
        leave(p);
        if (!ok)
            return false;
        if (idx.n == 0) {
            syntax_error_at(p, (mdae_range){start, p->prev_end}, "empty index list");
            return false;
        }
        l->n = idx.n;
        l->idx = (mel__expr **)idx.items;
    }
    l->where = (mdae_range){start, p->prev_end};
    return true;
}

static mel__stmt *new_stmt(parser *p, mel__stmt_kind kind, mdae_pos start)
{
    mel__stmt *s = alloc(p, sizeof *s);
    if (s != NULL) {
        memset(s, 0, sizeof *s);
        s->kind = kind;
        s->where.start = start;
    }
    return s;
}

/* `parameter` or `constant` as a declaration's prefix: plain identifiers
 * (a model may name a variable so), read as words only right after the
 * ':' of a declaration, where an identifier is otherwise an error. */
static mel__prefix decl_prefix(const mel__token *t)
{
    if (t->kind != MEL_T_ID || t->escaped)
        return MEL_PFX_NONE;
    if (t->len == 9 && memcmp(t->text, "parameter", 9) == 0)
        return MEL_PFX_PARAMETER;
    if (t->len == 8 && memcmp(t->text, "constant", 8) == 0)
        return MEL_PFX_CONSTANT;
    return MEL_PFX_NONE;
}

/* `(value = v)`, v a number (with its sign) or true / false, from '('. */
static bool parse_value(parser *p, double *value)
{
    advance(p);
    if (p->tok.kind != MEL_T_ID || p->tok.len != 5 || memcmp(p->tok.text, "value", 5) != 0) {
        expected(p, "'value'");
        return false;
    }
    advance(p);
    if (!expect(p, MEL_T_ASSIGN, "'=' after 'value'"))
        return false;
    bool minus = p->tok.kind == MEL_T_MINUS;
    if (minus)
        advance(p);
    if (p->tok.kind == MEL_T_NUM)
        *value = minus ? -p->tok.value : p->tok.value;
    else if (!minus && (p->tok.kind == MEL_T_TRUE || p->tok.kind == MEL_T_FALSE))
        *value = p->tok.kind == MEL_T_TRUE;
    else {
        expected(p, minus ? "a number" : "a number, 'true' or 'false'");
        return false;
    }
    advance(p);
    return expect(p, MEL_T_RPAREN, "')' after the value");
}

static mel__stmt *parse_decl_or_equ(parser *p)
{
    mdae_pos start = p->tok.where.start;
    mel__label label = {0};
    if (!parse_label(p, &label))
        return NULL;
    p->label_id = label.name_id;
    if (!expect(p, MEL_T_COLON, "':' after a declared name"))
        return NULL;
    mel__stmt *s;
    mel__prefix prefix = decl_prefix(&p->tok);
    if (prefix != MEL_PFX_NONE) {
        advance(p);
        if (p->tok.kind != MEL_T_REAL && p->tok.kind != MEL_T_BOOLEAN &&
            p->tok.kind != MEL_T_INTEGER) {
            expected(p, "'real', 'boolean' or 'integer'");
            return NULL;
        }
    }
    switch (p->tok.kind) {
    case MEL_T_REAL:
    case MEL_T_BOOLEAN:
    case MEL_T_INTEGER:
        s = new_stmt(p, MEL_S_DECL, start);
        if (s == NULL)
            return NULL;
        s->u.decl.label = label;
        s->u.decl.prefix = prefix;
        s->u.decl.type = p->tok.kind == MEL_T_REAL      ? MEL_TY_REAL
                         : p->tok.kind == MEL_T_BOOLEAN ? MEL_TY_BOOLEAN
                                                        : MEL_TY_INTEGER;
        advance(p);
        if (prefix != MEL_PFX_NONE && p->tok.kind == MEL_T_LPAREN) {
            if (!parse_value(p, &s->u.decl.value))
                return NULL;
            s->u.decl.has_value = true;
        }
        if (p->tok.kind == MEL_T_ASSIGN) {
            advance(p);
            s->u.decl.init = parse_expr(p);
            if (s->u.decl.init == NULL)
                return NULL;
        }
        break;
    case MEL_T_EQUATION:
        s = new_stmt(p, MEL_S_EQU, start);
        if (s == NULL)
            return NULL;
        s->u.equ.label = label;
        advance(p);
        s->u.equ.lhs = parse_expr(p);
        if (s->u.equ.lhs == NULL)
            return NULL;
        if (p->tok.kind != MEL_T_ASSIGN && s->u.equ.lhs->kind == MEL_X_CMP &&
            s->u.equ.lhs->u.bin.op == MEL_CMP_EQ) {
            /* `e : equation x == 2` parses as a comparison, then misses '=' */
            syntax_error_at(p, s->u.equ.lhs->where, "an equation is written 'lhs = rhs', not '=='");
            return NULL;
        }
        if (!expect(p, MEL_T_ASSIGN, "'=' in equation"))
            return NULL;
        s->u.equ.rhs = parse_expr(p);
        if (s->u.equ.rhs == NULL)
            return NULL;
        break;
    default:
        expected(p, "'real', 'boolean', 'integer' or 'equation'");
        return NULL;
    }
    s->where.end = p->prev_end;
    return s;
}

/* `if c then stmts [else stmts] end`, or `when c then stmts end`
 * (transient modes, issue 13 item 5: the body's equations hold only at the
 * instant c becomes true). A `when` has no `else`: an event has no
 * "otherwise" (the long modes are written with `if`). */
static mel__stmt *parse_conditional(parser *p, mdae_pos start, bool is_when)
{
    if (!enter(p))
        return NULL;
    mel__stmt *s = NULL;
    advance(p);
    size_t n0 = p->nodes;
    mel__expr *c = parse_expr(p);
    size_t header = p->nodes - n0;
    if (c == NULL || !expect(p, MEL_T_THEN, NULL)) {
        skip_compound(p);
        goto done;
    }
    mdae_pos header_end = p->prev_end;
    mel__stmt *body = parse_stmts(p, false), *orelse = NULL;
    if (p->tok.kind == MEL_T_ELSE && is_when) {
        syntax_error_at(p, p->tok.where, "a 'when' has no 'else' (write the long modes with 'if')");
        poison_stmts(p, body);
        skip_compound(p);
        goto done;
    }
    if (p->tok.kind == MEL_T_ELSE) {
        advance(p);
        orelse = parse_stmts(p, false);
    }
    if (p->tok.kind != MEL_T_END) {
        char what[64];
        snprintf(what, sizeof what, "'end' closing the '%s' of line %u", is_when ? "when" : "if",
                 (unsigned)start.line);
        expected(p, what);
        if (p->tok.kind == MEL_T_EOF && orelse == NULL && body != NULL && !p->fatal) {
            /* `if g then` typed over lines that are not its body yet: the
             * header alone is left out, the statements after it stay
             * (parse_stmts takes the list) */
            mel__left_out(p->rep, (mdae_range){start, header_end});
            p->spliced = true;
            s = body;
            goto done;
        }
        poison_stmts(p, body);
        poison_stmts(p, orelse);
        goto done;
    }
    advance(p);
    s = new_stmt(p, is_when ? MEL_S_WHEN : MEL_S_IF, start);
    if (s != NULL) {
        s->u.cond.cond = c;
        s->u.cond.body = body;
        s->u.cond.orelse = orelse;
        s->where.end = p->prev_end;
        s->size = sat32(header);
    }
done:
    leave(p);
    return s;
}

static mel__stmt *parse_stmt(parser *p)
{
    mdae_pos start = p->tok.where.start;
    switch (p->tok.kind) {
    case MEL_T_ID: return parse_decl_or_equ(p);
    case MEL_T_INVARIANT: {
        advance(p);
        mel__expr *e = parse_expr(p);
        if (e == NULL)
            return NULL;
        mel__stmt *s = new_stmt(p, MEL_S_INV, start);
        if (s != NULL) {
            s->u.inv = e;
            s->where.end = p->prev_end;
        }
        return s;
    }
    case MEL_T_IF: return parse_conditional(p, start, false);
    case MEL_T_WHEN: return parse_conditional(p, start, true);
    case MEL_T_FOREACH: {
        if (!enter(p))
            return NULL;
        mel__stmt *s = NULL;
        advance(p);
        mel__token idx = p->tok;
        if (!expect(p, MEL_T_ID, "a loop index name"))
            goto for_broken;
        uint32_t index_id;
        const char *name = intern(p, &idx, &index_id);
        if (name == NULL || !expect(p, MEL_T_IN, NULL))
            goto for_broken;
        size_t n0 = p->nodes;
        mel__expr *lo = parse_expr(p);
        if (lo == NULL || !expect(p, MEL_T_DOTDOT, NULL))
            goto for_broken;
        mel__expr *hi = parse_expr(p);
        size_t header = p->nodes - n0;
        if (hi == NULL || !expect(p, MEL_T_DO, NULL))
            goto for_broken;
        mel__stmt *body = parse_stmts(p, false);
        if (p->tok.kind != MEL_T_DONE) {
            char what[64];
            snprintf(what, sizeof what, "'done' closing the 'foreach' of line %u",
                     (unsigned)start.line);
            expected(p, what);
            poison_stmts(p, body);
            goto for_done;
        }
        advance(p);
        s = new_stmt(p, MEL_S_FOR, start);
        if (s != NULL) {
            s->u.loop.index = name;
            s->u.loop.index_id = index_id;
            s->u.loop.index_where = idx.where;
            s->u.loop.lo = lo;
            s->u.loop.hi = hi;
            s->u.loop.body = body;
            s->where.end = p->prev_end;
            s->size = sat32(header);
        }
        goto for_done;
    for_broken:
        skip_compound(p);
    for_done:
        leave(p);
        return s;
    }
    default:
        expected(p, "a statement");
        return NULL;
    }
}

/* Declarations, equations and invariants are sized here; if/foreach size
 * only their header (condition, bounds) in parse_stmt, since the statements
 * of their bodies carry their own sizes. */
static mel__stmt *parse_stmt_sized(parser *p)
{
    size_t before = p->nodes, ids_before = p->ids;
    p->spliced = false;
    mel__stmt *s = parse_stmt(p);
    if (s != NULL && !p->spliced && s->kind != MEL_S_IF && s->kind != MEL_S_FOR &&
        s->kind != MEL_S_WHEN) {
        s->size = sat32(p->nodes - before);
        s->ids = sat32(p->ids - ids_before);
    }
    return s;
}

static bool is_closer(mel__tok k) { return k == MEL_T_ELSE || k == MEL_T_END || k == MEL_T_DONE; }

/* The token after the current one, without consuming anything: a copy of
 * the lexer, whose errors go nowhere (they are reported when the token is
 * really read). */
static mel__tok peek(const parser *p)
{
    mel__lexer lx = p->lx;
    mel__report mute;
    mel__report_init(&mute, NULL, SIZE_MAX);
    lx.rep = &mute;
    mel__token t;
    mel__lex_next(&lx, &t);
    return t.kind;
}

/* The current token is the first of its line and starts a statement that
 * cannot be the continuation of an expression: `name :`, `name[` ... `:` is
 * not looked for (an index is an expression too), `foreach`, `invariant`,
 * `when`. */
static bool starts_line_statement(const parser *p)
{
    if (p->tok.where.start.line <= p->prev_end.line)
        return false;
    switch (p->tok.kind) {
    case MEL_T_FOREACH:
    case MEL_T_INVARIANT:
    case MEL_T_WHEN: return true;
    case MEL_T_ID: return peek(p) == MEL_T_COLON;
    default: return false;
    }
}

/* Panic-mode recovery: skip to a token that can follow a statement, or to
 * a line that starts one once past offset `from` (the broken statement's
 * start, so that this always makes progress over a statement that
 * consumed nothing). */
static void sync(parser *p, uint32_t from)
{
    while (p->tok.kind != MEL_T_EOF && p->tok.kind != MEL_T_SEMI && !is_closer(p->tok.kind)) {
        if (p->tok.where.start.offset > from && starts_line_statement(p))
            break;
        advance(p);
    }
}

/* ---- Recovery: what was left out ----------------------------------------------- */

static void poison_name(parser *p, uint32_t id)
{
    if (p->rep->recover && p->poison != NULL)
        (void)pvec_push(p, p->poison, (void *)(uintptr_t)id);
}

/* The names declared in a dropped list of statements (a conditional or a
 * loop whose `end`/`done` is missing). */
static void poison_stmts(parser *p, const mel__stmt *s)
{
    for (; s != NULL; s = s->next) {
        if (s->kind == MEL_S_DECL)
            poison_name(p, s->u.decl.label.name_id);
        else if (s->kind == MEL_S_IF || s->kind == MEL_S_WHEN) {
            poison_stmts(p, s->u.cond.body);
            poison_stmts(p, s->u.cond.orelse);
        } else if (s->kind == MEL_S_FOR)
            poison_stmts(p, s->u.loop.body);
    }
}

/* A token after `prev` starts a statement (for the skip of a compound
 * statement, which sees tokens, not statements). */
static bool after_stmt_start(mel__tok prev)
{
    return prev == MEL_T_SEMI || prev == MEL_T_THEN || prev == MEL_T_ELSE || prev == MEL_T_DO;
}

/* The nesting a token changes, for skip_compound: +1 opens a compound
 * statement, -1 closes one, 0 neither. */
static int nesting_step(mel__tok k, mel__tok prev)
{
    if (k == MEL_T_FOREACH || (after_stmt_start(prev) && (k == MEL_T_IF || k == MEL_T_WHEN)))
        return 1;
    return k == MEL_T_END || k == MEL_T_DONE ? -1 : 0;
}

/* Whether the compound statement being skipped has its own `end`/`done`
 * further on: a look ahead on a copy of the lexer (its errors muted; they
 * are reported when the tokens are really read). A header typed before
 * its body (`if g` over lines that are not its body yet) has none. */
static bool compound_closes(const parser *p)
{
    mel__lexer lx = p->lx;
    mel__report mute;
    mel__report_init(&mute, NULL, SIZE_MAX);
    lx.rep = &mute;
    mel__token t = p->tok;
    mel__tok prev = MEL_T_EOF;
    for (size_t depth = 1; t.kind != MEL_T_EOF; prev = t.kind, mel__lex_next(&lx, &t)) {
        int step = nesting_step(t.kind, prev);
        if (step < 0 && --depth == 0)
            return true;
        depth += step > 0;
    }
    return false;
}

/* A conditional or loop whose header is broken: skip to its own `end` or
 * `done` (consumed), through the compound statements inside it, and
 * remember the names its statements start with (the declarations it
 * held). Without such an end, nothing: the caller's sync stops at the next
 * line that starts a statement. */
static void skip_compound(parser *p)
{
    if (!compound_closes(p))
        return;
    size_t depth = 1;
    mel__tok prev = MEL_T_EOF; /* not a statement start */
    while (p->tok.kind != MEL_T_EOF) {
        mel__tok k = p->tok.kind;
        int step = nesting_step(k, prev);
        if (step < 0 && --depth == 0) {
            advance(p);
            return;
        }
        depth += step > 0;
        if (k == MEL_T_ID && after_stmt_start(prev)) {
            uint32_t id;
            if (intern(p, &p->tok, &id) != NULL)
                poison_name(p, id);
        }
        prev = k;
        advance(p);
    }
}

/* Record the text from `start` to the last token consumed as left out. */
static void left_out(parser *p, mdae_pos start)
{
    mdae_range r = {start, p->prev_end};
    if (r.end.offset < start.offset)
        r.end = start;
    mel__left_out(p->rep, r);
}

static mel__stmt *parse_stmts(parser *p, bool top)
{
    mel__stmt *head = NULL, **tail = &head;
    for (;;) {
        while (p->tok.kind == MEL_T_SEMI)
            advance(p);
        if (p->tok.kind == MEL_T_EOF)
            break;
        mdae_pos start = p->tok.where.start;
        if (is_closer(p->tok.kind)) {
            if (!top)
                break;
            p->panic = false;
            expected(p, "a statement");
            advance(p);
            left_out(p, start);
            continue;
        }
        p->panic = false;
        p->label_id = UINT32_MAX;
        mel__stmt *s = parse_stmt_sized(p);
        if (s == NULL) {
            if (p->label_id != UINT32_MAX)
                poison_name(p, p->label_id);
            sync(p, start.offset);
            left_out(p, start);
            continue;
        }
        *tail = s;
        tail = &s->next;
        while (*tail != NULL) /* a spliced body: a list */
            tail = &(*tail)->next;
        if (p->tok.kind == MEL_T_SEMI || p->tok.kind == MEL_T_EOF || is_closer(p->tok.kind))
            continue;
        expected(p, "';' after the statement");
        mdae_pos from = p->tok.where.start;
        sync(p, start.offset);
        if (p->prev_end.offset > from.offset)
            left_out(p, from); /* the statement is kept; what followed it is not */
    }
    return head;
}

/* ---- Recovery: consequences of what was left out ------------------------------ */

typedef struct pruner {
    parser *p;
    uint32_t *ndecl; /* per name: surviving declarations (and loop indices) */
    bool *bad;       /* per name: declared only in what was left out */
    bool changed;
} pruner;

static void count_decls(pruner *pr, const mel__stmt *s)
{
    for (; s != NULL; s = s->next) {
        if (s->kind == MEL_S_DECL)
            pr->ndecl[s->u.decl.label.name_id]++;
        else if (s->kind == MEL_S_IF || s->kind == MEL_S_WHEN) {
            count_decls(pr, s->u.cond.body);
            count_decls(pr, s->u.cond.orelse);
        } else if (s->kind == MEL_S_FOR) {
            pr->ndecl[s->u.loop.index_id]++;
            count_decls(pr, s->u.loop.body);
        }
    }
}

/* The first name of e that is bad, or NULL (depth bounded by the parser's). */
static const char *bad_use(const pruner *pr, const mel__expr *e)
{
    if (e == NULL)
        return NULL;
    const char *r = NULL;
    switch (e->kind) {
    case MEL_X_NUM:
    case MEL_X_BOOL: return NULL;
    case MEL_X_ID:
    case MEL_X_CALL:
        if (e->kind == MEL_X_ID && pr->bad[e->u.id.name_id])
            return e->u.id.name;
        for (uint32_t k = 0; k < e->u.id.n && r == NULL; k++)
            r = bad_use(pr, e->u.id.args[k]);
        return r;
    case MEL_X_NEG:
    case MEL_X_NOT:
    case MEL_X_DER:
    case MEL_X_LAST:
    case MEL_X_PRE:
    case MEL_X_NEXT: return bad_use(pr, e->u.kid);
    case MEL_X_POW:
    case MEL_X_CMP:
        r = bad_use(pr, e->u.bin.lhs);
        return r ? r : bad_use(pr, e->u.bin.rhs);
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        for (uint32_t k = 0; k < e->u.nary.n && r == NULL; k++)
            r = bad_use(pr, e->u.nary.kids[k]);
        return r;
    case MEL_X_IF:
        r = bad_use(pr, e->u.ite.c);
        r = r ? r : bad_use(pr, e->u.ite.a);
        return r ? r : bad_use(pr, e->u.ite.b);
    }
    return NULL;
}

static const char *bad_label(const pruner *pr, const mel__label *l)
{
    const char *r = NULL;
    for (uint32_t k = 0; k < l->n && r == NULL; k++)
        r = bad_use(pr, l->idx[k]);
    return r;
}

/* The bad name statement s reads outside its nested statements, or NULL. */
static const char *bad_stmt(const pruner *pr, const mel__stmt *s)
{
    const char *r;
    switch (s->kind) {
    case MEL_S_DECL:
        r = bad_label(pr, &s->u.decl.label);
        return r ? r : bad_use(pr, s->u.decl.init);
    case MEL_S_EQU:
        r = bad_label(pr, &s->u.equ.label);
        r = r ? r : bad_use(pr, s->u.equ.lhs);
        return r ? r : bad_use(pr, s->u.equ.rhs);
    case MEL_S_INV: return bad_use(pr, s->u.inv);
    case MEL_S_IF:
    case MEL_S_WHEN: return bad_use(pr, s->u.cond.cond);
    case MEL_S_FOR:
        r = bad_use(pr, s->u.loop.lo);
        return r ? r : bad_use(pr, s->u.loop.hi);
    }
    return NULL;
}

/* Declarations of a removed statement: a name none declares any more is
 * bad from now on. */
static void undeclare(pruner *pr, const mel__stmt *s, bool list)
{
    for (; s != NULL; s = list ? s->next : NULL) {
        if (s->kind == MEL_S_DECL) {
            uint32_t id = s->u.decl.label.name_id;
            if (pr->ndecl[id] > 0 && --pr->ndecl[id] == 0)
                pr->bad[id] = true;
        } else if (s->kind == MEL_S_IF || s->kind == MEL_S_WHEN) {
            undeclare(pr, s->u.cond.body, true);
            undeclare(pr, s->u.cond.orelse, true);
        } else if (s->kind == MEL_S_FOR) {
            undeclare(pr, s->u.loop.body, true);
        }
    }
}

static void prune_list(pruner *pr, mel__stmt **link)
{
    while (*link != NULL && !pr->p->rep->stop) {
        mel__stmt *s = *link;
        const char *name = bad_stmt(pr, s);
        if (name != NULL) {
            char msg[160];
            snprintf(msg, sizeof msg, "left out: uses '%.100s', whose declaration was left out",
                     name);
            mel__left_out_msg(pr->p->rep, s->where, msg);
            *link = s->next;
            undeclare(pr, s, false);
            pr->changed = true;
            continue;
        }
        if (s->kind == MEL_S_IF || s->kind == MEL_S_WHEN) {
            prune_list(pr, &s->u.cond.body);
            prune_list(pr, &s->u.cond.orelse);
        } else if (s->kind == MEL_S_FOR) {
            prune_list(pr, &s->u.loop.body);
        }
        link = &s->next;
    }
}

/* Leave out the statements that use a name declared only in what was left
 * out (rep->recover). A few passes, since a parameter left out this way
 * takes its users with it; what is still left after them is reported by
 * the elaborator as usual. */
static void prune(parser *p, mel__stmt **list)
{
    if (p->poison == NULL || p->poison->n == 0 || p->n_names == 0 || p->rep->stop)
        return;
    pruner pr = {p, mdae_calloc(p->n_names, sizeof *pr.ndecl),
                 mdae_calloc(p->n_names, sizeof *pr.bad), false};
    if (pr.ndecl == NULL || pr.bad == NULL) {
        nomem(p);
        goto out;
    }
    count_decls(&pr, *list);
    bool any = false;
    for (uint32_t k = 0; k < p->poison->n; k++) {
        uint32_t id = (uint32_t)(uintptr_t)p->poison->items[k];
        if (id < p->n_names && pr.ndecl[id] == 0)
            any = pr.bad[id] = true;
    }
    for (int pass = 0; any && pass < 8; pass++) {
        pr.changed = false;
        prune_list(&pr, list);
        if (!pr.changed)
            break;
    }
out:
    mdae_free(pr.ndecl);
    mdae_free(pr.bad);
}

int mel__parse(const char *src, size_t len, size_t max_depth, mel__arena *arena,
               mel__report *rep, mel__stmt **out)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.arena = arena;
    p.rep = rep;
    p.max_depth = mel__max_depth(max_depth);
    pvec poison = {0};
    p.poison = &poison;
    mel__lex_init(&p.lx, src, len, rep);
    mel__lex_next(&p.lx, &p.tok);
    mel__stmt *list = parse_stmts(&p, true);
    if (rep->recover && rep->rc == MDAE_E_PARSE)
        prune(&p, &list);
    mdae_free(p.names);
    *out = list;
    return rep->rc;
}
