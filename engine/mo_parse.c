/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_parse.c -- recursive-descent parser for Base Modelica 0.1 and the
 * papers' flat Modelica, into the syntax tree of engine/mo_int.h; also the
 * printer of normalised expression text (mo__expr_print).
 *
 * The grammar followed is Modelica 3.6 appendix A.2 restricted as MCP-0031
 * restricts it (see mo_int.h). Chains of the same precedence (`a + b - c`,
 * `p and q and r`) are kept n-ary, so a long sum does not become a deep tree
 * that recursive walkers would have to descend; nesting that does create
 * depth (parentheses, calls, if-expressions, nested equations and classes)
 * counts against max_depth.
 *
 * Recovery: after a syntax error the parser skips to the next `;` at bracket
 * depth 0 and carries on with the next element, equation or statement, so a
 * file with several mistakes gets several located errors (up to
 * max_errors). An element or equation skips no further than the `end`,
 * `else`, `elseif`, `elsewhen`, `equation`, `algorithm`, `public` or
 * `protected` at depth 0 that follows it (sync_item), and an element no
 * further than the next line that starts a declaration (`Real w`,
 * `parameter ...`), so a half-typed line without its ';' costs only itself,
 * not the class around it (issue 36 item 2). Each skip is recorded as left out (mel__left_out; engine/mel.h,
 * "Recovery").
 */
#include "fx.h"
#include "mo_int.h"

#include <stdio.h>
#include <string.h>

typedef struct parser {
    /* The names the parser has copied (mel__symtab, only for their names),
     * so that a name met again (a variable in every equation that reads it)
     * shares one copy in the arena: on the MSL's largest files the copies
     * were a quarter of the front-end's first touches of memory, which cost
     * tens of microseconds each on a virtual machine. */
    mel__symtab names;
    mo__lexer lx;
    mo__token cur;
    uint32_t prev_end; /* end offset of the previous token */
    mdae_pos prev_end_pos;
    mel__arena *arena;
    mel__report *rep;
    size_t depth, max_depth;
    bool failed;     /* an error in the current element: unwinding */
    size_t in_subs;  /* subscripts open around the cursor: `end` is an
                        expression only there (else it ends something) */
    size_t label_i;  /* cursor into lx.labels */
} parser;

static void next(parser *p)
{
    p->prev_end = p->cur.where.end.offset;
    p->prev_end_pos = p->cur.where.end;
    mo__lex_next(&p->lx, &p->cur);
}

static bool at(const parser *p, mo__tok k) { return p->cur.kind == k; }

static bool accept(parser *p, mo__tok k)
{
    if (p->cur.kind != k)
        return false;
    next(p);
    return true;
}

static void syntax_error(parser *p, const char *what)
{
    if (p->failed)
        return;
    p->failed = true;
    char found[64];
    if (p->cur.kind == MO_T_ID || p->cur.kind == MO_T_NUM) {
        int n = p->cur.len > 40 ? 40 : (int)p->cur.len;
        snprintf(found, sizeof found, "'%.*s'", n, p->cur.text);
    } else {
        snprintf(found, sizeof found, "%s", mo__tok_name(p->cur.kind));
    }
    mel__error(p->rep, MDAE_E_PARSE, p->cur.where, "expected %s, found %s", what, found);
}

static bool expect(parser *p, mo__tok k)
{
    if (accept(p, k))
        return true;
    syntax_error(p, mo__tok_name(k));
    return false;
}

static void *alloc(parser *p, size_t n)
{
    void *q = mel__arena_alloc(p->arena, n);
    if (q == NULL) {
        mel__nomem(p->rep);
        p->failed = true;
    }
    return q;
}

/* s[0 .. n) as a NUL-terminated name in the arena, shared with its earlier
 * copies. */
static const char *dup_name(parser *p, const char *s, size_t n)
{
    mel__sym *known = mel__sym_findn(&p->names, s, n);
    if (known == NULL)
        known = mel__sym_addn(&p->names, p->arena, s, n);
    if (known == NULL) {
        mel__nomem(p->rep);
        p->failed = true;
        return NULL;
    }
    return known->name;
}

static bool enter(parser *p)
{
    if (++p->depth > p->max_depth) {
        if (!p->failed) {
            mel__error(p->rep, MDAE_E_LIMIT, p->cur.where, "nesting deeper than %zu",
                       p->max_depth);
            p->rep->stop = true;
        }
        p->failed = true;
        return false;
    }
    return true;
}

static void leave(parser *p) { p->depth--; }

/* A token at which the skip of a broken element or equation stops (not
 * consumed): what closes or follows the list it belongs to. */
static bool closes_item(mo__tok k)
{
    return k == MO_T_END || k == MO_T_ELSE || k == MO_T_ELSEIF || k == MO_T_ELSEWHEN ||
           k == MO_T_EQUATION || k == MO_T_ALGORITHM || k == MO_T_PUBLIC || k == MO_T_PROTECTED;
}

/* A line that starts a component declaration: its first token is a
 * prefix (`parameter` ...) or a name followed by another name (`Real w`),
 * read from the text (the lexer is not copied: it keeps labels). For an
 * element without its ';' on the line before. */
static bool starts_element_line(const parser *p)
{
    if (p->cur.where.start.line <= p->prev_end_pos.line)
        return false;
    switch (p->cur.kind) {
    case MO_T_PARAMETER:
    case MO_T_CONSTANT:
    case MO_T_DISCRETE:
    case MO_T_INPUT:
    case MO_T_OUTPUT:
    case MO_T_FLOW: return true;
    case MO_T_ID: break;
    default: return false;
    }
    size_t i = p->cur.where.end.offset;
    while (i < p->lx.cur.len && (p->lx.cur.src[i] == ' ' || p->lx.cur.src[i] == '\t'))
        i++;
    char c = i < p->lx.cur.len ? p->lx.cur.src[i] : '\0';
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '\'';
}

/* Skip to just after the next `;` at bracket depth 0. With `start` set,
 * stop before a closes_item token at depth 0 once past *start (and, for an
 * `element`, before a line that declares), so a skip from an item's start
 * always makes progress. Clears p->failed. */
static void skip_item(parser *p, const mdae_pos *start, bool element)
{
    int depth = 0;
    while (!at(p, MO_T_EOF) && !p->rep->stop) {
        mo__tok k = p->cur.kind;
        if (start != NULL && depth == 0 && p->cur.where.start.offset > start->offset &&
            (closes_item(k) || (element && starts_element_line(p))))
            break;
        if (k == MO_T_LPAREN || k == MO_T_LBRACK || k == MO_T_LBRACE)
            depth++;
        else if ((k == MO_T_RPAREN || k == MO_T_RBRACK || k == MO_T_RBRACE) && depth > 0)
            depth--;
        else if (k == MO_T_SEMI && depth == 0) {
            next(p);
            break;
        }
        next(p);
    }
    p->failed = false;
}

/* Skip to just after the next `;` at bracket depth 0. */
static void sync(parser *p) { skip_item(p, NULL, false); }

/* Recovery from a broken element or equation that started at `start`:
 * skip_item from the start, and record what was skipped
 * from `from` as left out (`from` is the start, or, for an item that parsed
 * whole but lacks its ';', where the error is: then only what follows it
 * is left out, maybe nothing). */
static void sync_item(parser *p, mdae_pos start, mdae_pos from, bool element)
{
    skip_item(p, &start, element);
    mdae_range r = {from, p->prev_end_pos};
    if (from.offset == start.offset && r.end.offset < start.offset)
        r.end = start;
    if (r.end.offset >= r.start.offset)
        mel__left_out(p->rep, r);
}

/* A growable array of pointers, in mdae_malloc memory, copied to the arena
 * when done. */
typedef struct plist {
    void **v;
    size_t n, cap;
} plist;

static bool plist_push(parser *p, plist *l, void *x)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        void **q = mdae_realloc(l->v, cap * sizeof *q);
        if (q == NULL) {
            mel__nomem(p->rep);
            p->failed = true;
            return false;
        }
        l->v = q;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return true;
}

static void **plist_done(parser *p, plist *l)
{
    void **out = NULL;
    if (l->n > 0) {
        out = alloc(p, l->n * sizeof *out);
        if (out != NULL)
            memcpy(out, l->v, l->n * sizeof *out);
    }
    mdae_free(l->v);
    l->v = NULL;
    return out;
}

/* ---- Expressions ------------------------------------------------------------ */

static mo__expr *expression(parser *p);

static mo__expr *new_expr(parser *p, mo__ek kind, mdae_pos start)
{
    mo__expr *e = alloc(p, sizeof *e);
    if (e == NULL)
        return NULL;
    e->kind = (uint8_t)kind;
    e->where.start = start;
    e->where.end = p->prev_end_pos;
    return e;
}

static void finish(parser *p, mo__expr *e)
{
    if (e != NULL)
        e->where.end = p->prev_end_pos;
}

/* An operator node of `kind` from s to here: op applied to a, or to a and b
 * when b is not NULL. NULL when out of memory. */
static mo__expr *new_op(parser *p, mo__ek kind, mdae_pos s, uint8_t op, mo__expr *a,
                        mo__expr *b)
{
    uint32_t n = b != NULL ? 2 : 1;
    mo__expr *e = new_expr(p, kind, s);
    mo__expr **k = alloc(p, n * sizeof *k);
    if (e == NULL || k == NULL)
        return NULL;
    k[0] = a;
    if (b != NULL)
        k[1] = b;
    e->op = op;
    e->n_kids = n;
    e->kids = k;
    return e;
}

/* elem {, elem}, each element pushed onto l as it parses; false on an
 * error (l is the caller's to free either way). */
static bool comma_list(parser *p, plist *l, mo__expr *(*elem)(parser *))
{
    do {
        mo__expr *x = elem(p);
        if (x == NULL || !plist_push(p, l, x))
            return false;
    } while (accept(p, MO_T_COMMA));
    return true;
}

/* A node of `kind` from s to here whose kids are l's (l consumed). NULL
 * when out of memory. */
static mo__expr *list_node(parser *p, mo__ek kind, mdae_pos s, plist *l)
{
    mo__expr *e = new_expr(p, kind, s);
    if (e == NULL) {
        mdae_free(l->v);
        return NULL;
    }
    e->n_kids = (uint32_t)l->n;
    e->kids = (mo__expr **)plist_done(p, l);
    return e;
}

/* Give up a list being parsed inside a nesting level: l freed, the level
 * left. NULL. */
static mo__expr *drop_list(parser *p, plist *l)
{
    mdae_free(l->v);
    l->v = NULL;
    leave(p);
    return NULL;
}

/* subscript: ':' or an expression (in which `end` is one). */
static mo__expr *subscript(parser *p)
{
    if (at(p, MO_T_COLON)) {
        mo__expr *s = new_expr(p, MO_E_COLON, p->cur.where.start);
        next(p);
        finish(p, s);
        return s;
    }
    p->in_subs++;
    mo__expr *s = expression(p);
    p->in_subs--;
    return s;
}

/* array_subscripts: [ subscript {, subscript} ] ; cur is '['. */
static bool subscripts(parser *p, uint32_t *n, mo__expr ***out)
{
    plist l = {0};
    next(p);
    if (!comma_list(p, &l, subscript) || !expect(p, MO_T_RBRACK)) {
        mdae_free(l.v);
        return false;
    }
    *n = (uint32_t)l.n;
    *out = (mo__expr **)plist_done(p, &l);
    return !p->failed;
}

/* component_reference / name: [.] IDENT [subs] {. IDENT [subs]} */
static bool name_parts(parser *p, bool allow_subs, uint32_t *n, mo__part **out)
{
    mo__part parts[64];
    size_t k = 0;
    (void)accept(p, MO_T_DOT);
    for (;;) {
        if (!at(p, MO_T_ID)) {
            syntax_error(p, "a name");
            return false;
        }
        if (k == sizeof parts / sizeof *parts) {
            mel__error(p->rep, MDAE_E_LIMIT, p->cur.where, "name with more than 64 parts");
            p->failed = true;
            return false;
        }
        memset(&parts[k], 0, sizeof parts[k]);
        parts[k].name = dup_name(p, p->cur.text, p->cur.len);
        if (parts[k].name == NULL)
            return false;
        next(p);
        if (allow_subs && at(p, MO_T_LBRACK) &&
            !subscripts(p, &parts[k].n_subs, &parts[k].subs))
            return false;
        k++;
        if (!at(p, MO_T_DOT))
            break;
        next(p);
    }
    *out = alloc(p, k * sizeof **out);
    if (*out == NULL)
        return false;
    memcpy(*out, parts, k * sizeof **out);
    *n = (uint32_t)k;
    return true;
}

/* for_indices: IDENT [in expression] {, IDENT [in expression]} */
static bool for_indices(parser *p, uint32_t *n, mo__iter **out)
{
    mo__iter its[16];
    size_t k = 0;
    do {
        if (!at(p, MO_T_ID)) {
            syntax_error(p, "a loop index");
            return false;
        }
        if (k == sizeof its / sizeof *its) {
            mel__error(p->rep, MDAE_E_LIMIT, p->cur.where, "more than 16 loop indices");
            p->failed = true;
            return false;
        }
        its[k].name = dup_name(p, p->cur.text, p->cur.len);
        its[k].range = NULL;
        next(p);
        if (accept(p, MO_T_IN)) {
            its[k].range = expression(p);
            if (its[k].range == NULL)
                return false;
        }
        k++;
    } while (accept(p, MO_T_COMMA));
    *out = alloc(p, k * sizeof **out);
    if (*out == NULL)
        return false;
    memcpy(*out, its, k * sizeof **out);
    *n = (uint32_t)k;
    return true;
}

/* Is the token after the current one a single '=' (a named argument)?
 * Scans the bytes after the current token, skipping blanks and comments,
 * without touching the lexer. */
static bool next_is_single_eq(const mo__lexer *lx)
{
    size_t i = lx->cur.pos;
    const char *s = lx->cur.src;
    while (i < lx->cur.len) {
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
            i++;
        } else if (s[i] == '/' && i + 1 < lx->cur.len && s[i + 1] == '/') {
            while (i < lx->cur.len && s[i] != '\n')
                i++;
        } else if (s[i] == '/' && i + 1 < lx->cur.len && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < lx->cur.len && !(s[i] == '*' && s[i + 1] == '/'))
                i++;
            i += 2;
        } else {
            break;
        }
    }
    return i < lx->cur.len && s[i] == '=' && (i + 1 >= lx->cur.len || s[i + 1] != '=');
}

/* ( [function_arguments] ); cur is '('. Fills kids/names/iters of e. */
static bool call_args(parser *p, mo__expr *e)
{
    next(p);
    plist kids = {0}, names = {0};
    bool any_name = false;
    while (!at(p, MO_T_RPAREN)) {
        const char *name = NULL;
        if (at(p, MO_T_ID) && next_is_single_eq(&p->lx)) {
            name = dup_name(p, p->cur.text, p->cur.len);
            next(p);
            next(p);
            any_name = true;
        }
        mo__expr *a;
        if (at(p, MO_T_FUNCTION)) {
            /* a function partial application: kept as a call */
            mdae_pos s = p->cur.where.start;
            next(p);
            a = new_expr(p, MO_E_CALL, s);
            if (a == NULL || !name_parts(p, false, &a->n_parts, &a->parts))
                goto fail;
            if (!at(p, MO_T_LPAREN)) {
                syntax_error(p, "'('");
                goto fail;
            }
            if (!call_args(p, a))
                goto fail;
            finish(p, a);
        } else {
            a = expression(p);
        }
        if (a == NULL || !plist_push(p, &kids, a) || !plist_push(p, &names, (void *)name))
            goto fail;
        if (kids.n == 1 && name == NULL && at(p, MO_T_FOR)) {
            next(p);
            if (!for_indices(p, &e->n_iters, &e->iters))
                goto fail;
            break;
        }
        if (!accept(p, MO_T_COMMA))
            break;
    }
    if (!expect(p, MO_T_RPAREN))
        goto fail;
    e->n_kids = (uint32_t)kids.n;
    e->kids = (mo__expr **)plist_done(p, &kids);
    if (any_name)
        e->names = (const char **)plist_done(p, &names);
    else
        mdae_free(names.v);
    return !p->failed;
fail:
    mdae_free(kids.v);
    mdae_free(names.v);
    return false;
}

static mo__expr *factor(parser *p);

/* Past an opening bracket, one nesting level in; false at the limit. */
static bool open_bracket(parser *p)
{
    next(p);
    return enter(p);
}

/* ( expression ) or a tuple ( [expression] {, [expression]} ); cur is '('.
 * ( expression ) is the expression itself, whose range primary() then
 * keeps as parenthesised, so that messages point at it. */
static mo__expr *paren_or_tuple(parser *p, mdae_pos s)
{
    if (!open_bracket(p))
        return NULL;
    plist l = {0};
    bool tuple = false;
    for (;;) {
        mo__expr *k = NULL;
        if (!at(p, MO_T_COMMA) && !at(p, MO_T_RPAREN)) {
            k = expression(p);
            if (k == NULL)
                return drop_list(p, &l);
        } else {
            tuple = true;
        }
        if (!plist_push(p, &l, k))
            return drop_list(p, &l);
        if (!accept(p, MO_T_COMMA))
            break;
        tuple = true;
    }
    leave(p);
    if (!expect(p, MO_T_RPAREN)) {
        mdae_free(l.v);
        return NULL;
    }
    if (!tuple && l.n == 1) {
        mo__expr *e = l.v[0];
        mdae_free(l.v);
        return e;
    }
    return list_node(p, MO_E_TUPLE, s, &l);
}

/* { [expression {, expression} [,]] } or { expression for for_indices };
 * cur is '{'. */
static mo__expr *array_ctor(parser *p, mdae_pos s)
{
    if (!open_bracket(p))
        return NULL;
    mo__expr *e = new_expr(p, MO_E_ARRAY, s);
    if (e == NULL)
        return NULL;
    plist l = {0};
    while (!at(p, MO_T_RBRACE)) {
        mo__expr *k = expression(p);
        if (k == NULL || !plist_push(p, &l, k))
            return drop_list(p, &l);
        if (l.n == 1 && at(p, MO_T_FOR)) {
            next(p);
            if (!for_indices(p, &e->n_iters, &e->iters))
                return drop_list(p, &l);
            break;
        }
        if (!accept(p, MO_T_COMMA))
            break;
    }
    leave(p);
    e->n_kids = (uint32_t)l.n;
    e->kids = (mo__expr **)plist_done(p, &l);
    return expect(p, MO_T_RBRACE) ? e : NULL;
}

/* A row of a matrix: expression {, expression}, as an array. */
static mo__expr *matrix_row(parser *p)
{
    mdae_pos s = p->cur.where.start;
    plist l = {0};
    if (!comma_list(p, &l, expression)) {
        mdae_free(l.v);
        return NULL;
    }
    return list_node(p, MO_E_ARRAY, s, &l);
}

/* [ row {; row} ]; cur is '['. */
static mo__expr *matrix(parser *p, mdae_pos s)
{
    if (!open_bracket(p))
        return NULL;
    plist rows = {0};
    do {
        mo__expr *row = matrix_row(p);
        if (row == NULL || !plist_push(p, &rows, row))
            return drop_list(p, &rows);
    } while (accept(p, MO_T_SEMI));
    leave(p);
    if (!expect(p, MO_T_RBRACK)) {
        mdae_free(rows.v);
        return NULL;
    }
    return list_node(p, MO_E_MATRIX, s, &rows);
}

/* A call of `name` (one part, no arguments yet) starting at s. */
static mo__expr *new_call(parser *p, mdae_pos s, const char *name)
{
    mo__expr *e = new_expr(p, MO_E_CALL, s);
    if (e == NULL)
        return NULL;
    e->n_parts = 1;
    e->parts = alloc(p, sizeof *e->parts);
    if (e->parts == NULL)
        return NULL;
    e->parts[0].name = name;
    return e;
}

static mo__expr *primary(parser *p)
{
    mdae_pos s = p->cur.where.start;
    mo__expr *e = NULL;
    bool paren = at(p, MO_T_LPAREN);
    switch (p->cur.kind) {
    case MO_T_NUM:
        e = new_expr(p, MO_E_NUM, s);
        if (e == NULL)
            return NULL;
        e->num = p->cur.value;
        e->ival = p->cur.ival;
        e->is_int = p->cur.is_int;
        e->str = dup_name(p, p->cur.text, p->cur.len);
        next(p);
        break;
    case MO_T_STR:
        e = new_expr(p, MO_E_STR, s);
        if (e == NULL)
            return NULL;
        e->str = dup_name(p, p->cur.text, p->cur.len);
        next(p);
        break;
    case MO_T_TRUE:
    case MO_T_FALSE:
        e = new_expr(p, MO_E_BOOL, s);
        if (e == NULL)
            return NULL;
        e->ival = at(p, MO_T_TRUE);
        next(p);
        break;
    case MO_T_END:
        if (p->in_subs == 0) {
            /* `y = ` and then `end M;`: the class's end, not x[end] */
            syntax_error(p, "an expression");
            return NULL;
        }
        e = new_expr(p, MO_E_END, s);
        next(p);
        break;
    case MO_T_EMPTY:
        /* An opaque call without arguments: evaluating it fails, located. */
        e = new_call(p, s, "#EMPTY#");
        if (e == NULL)
            return NULL;
        next(p);
        break;
    case MO_T_INITIAL:
    case MO_T_DOT:
    case MO_T_ID: {
        if (at(p, MO_T_INITIAL)) {
            /* initial() is a call of a keyword-named function */
            next(p);
            e = new_call(p, s, "initial");
            if (e == NULL)
                return NULL;
            if (!at(p, MO_T_LPAREN)) {
                syntax_error(p, "'(' after 'initial'");
                return NULL;
            }
            if (!call_args(p, e))
                return NULL;
            break;
        }
        bool plain = at(p, MO_T_ID) && !p->cur.quoted;
        bool is_time = plain && p->cur.len == 4 && memcmp(p->cur.text, "time", 4) == 0;
        e = new_expr(p, MO_E_REF, s);
        if (e == NULL || !name_parts(p, true, &e->n_parts, &e->parts))
            return NULL;
        if (at(p, MO_T_LPAREN)) {
            e->kind = MO_E_CALL;
            if (!enter(p))
                return NULL;
            bool ok = call_args(p, e);
            leave(p);
            if (!ok)
                return NULL;
            if (plain && e->n_parts == 1 && e->parts[0].n_subs == 0 &&
                strcmp(e->parts[0].name, "der") == 0 && e->n_kids == 1 && e->names == NULL &&
                e->n_iters == 0)
                e->kind = MO_E_DER;
        } else if (is_time && e->n_parts == 1 && e->parts[0].n_subs == 0) {
            e->kind = MO_E_TIME;
        }
        break;
    }
    case MO_T_LPAREN:
        e = paren_or_tuple(p, s);
        break;
    case MO_T_LBRACE:
        e = array_ctor(p, s);
        break;
    case MO_T_LBRACK:
        e = matrix(p, s);
        break;
    case MO_T_MINUS:
    case MO_T_PLUS: {
        /* `a * -b`: not in the Modelica 3.6 grammar, but OpenModelica's
         * Base Modelica export writes it */
        uint8_t op = at(p, MO_T_MINUS) ? MO_T_MINUS : MO_T_PLUS;
        next(p);
        if (!enter(p))
            return NULL;
        mo__expr *a = factor(p);
        leave(p);
        if (a == NULL)
            return NULL;
        e = new_op(p, MO_E_UN, s, op, a, NULL);
        if (e == NULL)
            return NULL;
        break;
    }
    default:
        syntax_error(p, "an expression");
        return NULL;
    }
    while (e != NULL && paren && at(p, MO_T_DOT)) {
        /* (f(x)).h: a field of a record result, kept as the pseudo-call "." */
        next(p);
        if (!at(p, MO_T_ID)) {
            syntax_error(p, "a field name");
            return NULL;
        }
        mo__expr *fx = new_expr(p, MO_E_CALL, s);
        mo__expr **k = alloc(p, sizeof *k);
        if (fx == NULL || k == NULL)
            return NULL;
        fx->n_parts = 1;
        fx->parts = alloc(p, sizeof *fx->parts);
        if (fx->parts == NULL)
            return NULL;
        fx->parts[0].name = ".";
        fx->str = dup_name(p, p->cur.text, p->cur.len);
        next(p);
        k[0] = e;
        fx->kids = k;
        fx->n_kids = 1;
        e = fx;
    }
    if (e != NULL && (paren || e->kind == MO_E_TUPLE || e->kind == MO_E_ARRAY) &&
        at(p, MO_T_LBRACK)) {
        /* (expr)[i] and {a, b}[i]: an indexed array expression, kept as a
         * call of the pseudo-function "[]" */
        mo__expr *ix = new_expr(p, MO_E_CALL, s);
        if (ix == NULL)
            return NULL;
        ix->n_parts = 1;
        ix->parts = alloc(p, sizeof *ix->parts);
        if (ix->parts == NULL)
            return NULL;
        ix->parts[0].name = "[]";
        if (!subscripts(p, &ix->parts[0].n_subs, &ix->parts[0].subs))
            return NULL;
        ix->n_kids = 1;
        ix->kids = alloc(p, sizeof *ix->kids);
        if (ix->kids == NULL)
            return NULL;
        ix->kids[0] = e;
        e = ix;
    }
    finish(p, e);
    return p->failed ? NULL : e;
}

static mo__expr *nary(parser *p, mo__ek kind, mdae_pos s, plist *l, uint8_t *ops, uint8_t op)
{
    mo__expr *e = new_expr(p, kind, s);
    if (e == NULL) {
        mdae_free(l->v);
        return NULL;
    }
    e->op = op;
    e->n_kids = (uint32_t)l->n;
    e->kids = (mo__expr **)plist_done(p, l);
    e->str = (const char *)ops; /* ops[k]: the operator before kids[k] */
    return p->failed ? NULL : e;
}

static mo__expr *factor(parser *p)
{
    mdae_pos s = p->cur.where.start;
    mo__expr *a = primary(p);
    if (a == NULL)
        return NULL;
    if (at(p, MO_T_CARET) || at(p, MO_T_DCARET)) {
        uint8_t op = (uint8_t)p->cur.kind;
        next(p);
        mo__expr *b = primary(p);
        if (b == NULL)
            return NULL;
        return new_op(p, MO_E_BIN, s, op, a, b);
    }
    return a;
}

static bool is_mul(mo__tok k)
{
    return k == MO_T_STAR || k == MO_T_SLASH || k == MO_T_DSTAR || k == MO_T_DSLASH;
}

static bool is_add(mo__tok k)
{
    return k == MO_T_PLUS || k == MO_T_MINUS || k == MO_T_DPLUS || k == MO_T_DMINUS;
}

/* The rest of a chain `a op y op z` of one precedence level, n-ary, whose
 * first operand a (starting at s) is parsed; the current token is an op. */
static mo__expr *chain_from(parser *p, mdae_pos s, mo__expr *a, mo__expr *(*sub)(parser *),
                            bool (*is_op)(mo__tok), mo__ek kind)
{
    plist l = {0};
    plist ops = {0};
    if (!plist_push(p, &l, a) || !plist_push(p, &ops, (void *)(uintptr_t)0))
        goto fail;
    while (is_op(p->cur.kind)) {
        uintptr_t op = (uintptr_t)p->cur.kind;
        next(p);
        mo__expr *b = sub(p);
        if (b == NULL || !plist_push(p, &l, b) || !plist_push(p, &ops, (void *)op))
            goto fail;
    }
    uint8_t *o = alloc(p, ops.n);
    if (o == NULL)
        goto fail;
    for (size_t i = 0; i < ops.n; i++)
        o[i] = (uint8_t)(uintptr_t)ops.v[i];
    mdae_free(ops.v);
    return nary(p, kind, s, &l, o, o[1]);
fail:
    mdae_free(l.v);
    mdae_free(ops.v);
    return NULL;
}

/* A chain `x op y op z` of one precedence level, n-ary. */
static mo__expr *chain(parser *p, mo__expr *(*sub)(parser *), bool (*is_op)(mo__tok),
                       mo__ek kind)
{
    mdae_pos s = p->cur.where.start;
    mo__expr *a = sub(p);
    if (a == NULL || !is_op(p->cur.kind))
        return a;
    return chain_from(p, s, a, sub, is_op, kind);
}

static mo__expr *term(parser *p) { return chain(p, factor, is_mul, MO_E_BIN); }

static mo__expr *arith(parser *p)
{
    mdae_pos s = p->cur.where.start;
    if (at(p, MO_T_MINUS) || at(p, MO_T_PLUS) || at(p, MO_T_DMINUS) || at(p, MO_T_DPLUS)) {
        uint8_t op = (at(p, MO_T_MINUS) || at(p, MO_T_DMINUS)) ? MO_T_MINUS : MO_T_PLUS;
        next(p);
        mo__expr *a = term(p);
        if (a == NULL)
            return NULL;
        mo__expr *u = new_op(p, MO_E_UN, s, op, a, NULL);
        if (u == NULL || !is_add(p->cur.kind))
            return u;
        /* -a + b ...: continue the chain with u as its first operand */
        return chain_from(p, s, u, term, is_add, MO_E_BIN);
    }
    return chain(p, term, is_add, MO_E_BIN);
}

static bool is_rel(mo__tok k)
{
    return k == MO_T_LT || k == MO_T_LE || k == MO_T_GT || k == MO_T_GE || k == MO_T_EQ ||
           k == MO_T_NE;
}

static mo__expr *relation(parser *p)
{
    mdae_pos s = p->cur.where.start;
    mo__expr *a = arith(p);
    if (a == NULL || !is_rel(p->cur.kind))
        return a;
    uint8_t op = (uint8_t)p->cur.kind;
    next(p);
    mo__expr *b = arith(p);
    if (b == NULL)
        return NULL;
    return new_op(p, MO_E_BIN, s, op, a, b);
}

static mo__expr *lfactor(parser *p)
{
    mdae_pos s = p->cur.where.start;
    if (!at(p, MO_T_NOT))
        return relation(p);
    next(p);
    if (!enter(p))
        return NULL;
    mo__expr *a = relation(p);
    leave(p);
    if (a == NULL)
        return NULL;
    return new_op(p, MO_E_UN, s, MO_T_NOT, a, NULL);
}

static bool is_and(mo__tok k) { return k == MO_T_AND; }
static bool is_or(mo__tok k) { return k == MO_T_OR; }
static mo__expr *lterm(parser *p) { return chain(p, lfactor, is_and, MO_E_BIN); }
static mo__expr *lexpr(parser *p) { return chain(p, lterm, is_or, MO_E_BIN); }

/* simple_expression: a range a:b or a:b:c (start, step, stop). */
static mo__expr *simple_expr(parser *p)
{
    mdae_pos s = p->cur.where.start;
    mo__expr *a = lexpr(p);
    if (a == NULL || !at(p, MO_T_COLON))
        return a;
    next(p);
    mo__expr *b = lexpr(p);
    if (b == NULL)
        return NULL;
    mo__expr *c = NULL;
    if (accept(p, MO_T_COLON)) {
        c = lexpr(p);
        if (c == NULL)
            return NULL;
    }
    mo__expr *e = new_expr(p, MO_E_RANGE, s);
    mo__expr **k = alloc(p, 3 * sizeof *k);
    if (e == NULL || k == NULL)
        return NULL;
    k[0] = a;
    k[1] = b;
    k[2] = c;
    e->n_kids = c ? 3 : 2;
    e->kids = k;
    return e;
}

static mo__expr *expression(parser *p)
{
    if (p->failed)
        return NULL;
    if (!enter(p))
        return NULL;
    mo__expr *e;
    mdae_pos s = p->cur.where.start;
    if (at(p, MO_T_IF)) {
        plist l = {0};
        next(p);
        for (;;) {
            mo__expr *c = expression(p);
            if (c == NULL || !expect(p, MO_T_THEN))
                goto fail;
            mo__expr *v = expression(p);
            if (v == NULL || !plist_push(p, &l, c) || !plist_push(p, &l, v))
                goto fail;
            if (accept(p, MO_T_ELSEIF))
                continue;
            if (!expect(p, MO_T_ELSE))
                goto fail;
            mo__expr *el = expression(p);
            if (el == NULL)
                goto fail;
            if (el->kind == MO_E_IF) {
                /* `else if`, or `else (if ...)`: the same expression as
                 * `elseif`, so one tree (which the fx tree and its printer
                 * cannot tell apart either: issue 38) */
                for (uint32_t i = 0; i < el->n_kids; i++)
                    if (!plist_push(p, &l, el->kids[i]))
                        goto fail;
                break;
            }
            if (!plist_push(p, &l, el))
                goto fail;
            break;
        }
        e = new_expr(p, MO_E_IF, s);
        if (e == NULL)
            goto fail;
        e->n_kids = (uint32_t)l.n;
        e->kids = (mo__expr **)plist_done(p, &l);
        leave(p);
        return p->failed ? NULL : e;
    fail:
        mdae_free(l.v);
        leave(p);
        return NULL;
    }
    e = simple_expr(p);
    leave(p);
    return e;
}

/* ---- Modifications, annotations, descriptions ------------------------------- */

/* Skip a balanced ( ... ) group; cur is '('. */
static void skip_group(parser *p)
{
    int depth = 0;
    do {
        if (at(p, MO_T_LPAREN) || at(p, MO_T_LBRACK) || at(p, MO_T_LBRACE))
            depth++;
        else if (at(p, MO_T_RPAREN) || at(p, MO_T_RBRACK) || at(p, MO_T_RBRACE))
            depth--;
        else if (at(p, MO_T_EOF)) {
            syntax_error(p, "')'");
            return;
        }
        next(p);
    } while (depth > 0 && !p->rep->stop);
}

/* annotation ( ... ): kept as nothing. */
static void annotation(parser *p)
{
    next(p);
    if (!at(p, MO_T_LPAREN)) {
        syntax_error(p, "'(' after 'annotation'");
        return;
    }
    skip_group(p);
}

/* description: [STRING {+ STRING}] [annotation(...)] */
static void description(parser *p)
{
    if (at(p, MO_T_STR)) {
        next(p);
        while (at(p, MO_T_PLUS)) {
            next(p);
            if (!at(p, MO_T_STR)) {
                syntax_error(p, "a string");
                return;
            }
            next(p);
        }
    }
    if (at(p, MO_T_ANNOTATION))
        annotation(p);
}

static bool modification(parser *p, mo__mod **mods, mo__expr **binding);

/* Puts `name = value` at the end of *mods (an attribute: start, fixed). */
static void add_mod(parser *p, mo__mod **mods, const char *name, mo__expr *value)
{
    mo__mod *m = alloc(p, sizeof *m);
    if (m == NULL)
        return;
    m->name = name;
    m->value = value;
    while (*mods != NULL)
        mods = &(*mods)->next;
    *mods = m;
}

/* class_modification: ( argument {, argument} ); cur is '('. The attributes
 * (start, fixed, unit, stateSelect...) say nothing about the structure; an
 * argument that is one name with a value (`start = e`, `fixed = true`) is
 * put into *mods for the variable's initial values, the others (dotted
 * names, nested modifications) are parsed, checked for syntax, and dropped. */
static bool class_mod(parser *p, mo__mod **mods)
{
    next(p);
    if (!enter(p))
        return false;
    while (!at(p, MO_T_RPAREN) && !p->failed) {
        while (at(p, MO_T_EACH) || at(p, MO_T_FINAL))
            next(p);
        if (at(p, MO_T_REDECLARE) || at(p, MO_T_REPLACEABLE)) {
            syntax_error(p, "a modification (redeclarations are not Base Modelica)");
            break;
        }
        if (!at(p, MO_T_ID)) {
            syntax_error(p, "a modification");
            break;
        }
        const char *name = dup_name(p, p->cur.text, p->cur.len);
        bool dotted = false;
        while (at(p, MO_T_ID)) {
            next(p);
            if (!at(p, MO_T_DOT))
                break;
            dotted = true;
            next(p);
        }
        bool nested = at(p, MO_T_LPAREN);
        mo__mod *inner = NULL; /* a nested modification's: dropped */
        mo__expr *value = NULL;
        if (!modification(p, &inner, &value))
            break;
        if (!dotted && !nested && value != NULL && name != NULL)
            add_mod(p, mods, name, value);
        description(p);
        if (!accept(p, MO_T_COMMA))
            break;
    }
    leave(p);
    return expect(p, MO_T_RPAREN);
}

static bool modification(parser *p, mo__mod **mods, mo__expr **binding)
{
    if (at(p, MO_T_LPAREN) && !class_mod(p, mods))
        return false;
    if (at(p, MO_T_ASSIGN) || at(p, MO_T_DEFINE)) {
        next(p);
        *binding = expression(p);
        if (*binding == NULL)
            return false;
    }
    return !p->failed;
}

/* ---- Equations and statements --------------------------------------------- */

static mo__stmt *stmt_list(parser *p, bool eqs, const mo__tok *ends, size_t n_ends);

static bool at_any(const parser *p, const mo__tok *ks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p->cur.kind == ks[i])
            return true;
    return false;
}

/* A label's name, unescaped when it has escapes (mo__label). */
static const char *label_name(parser *p, const mo__label *l)
{
    if (!l->escaped)
        return dup_name(p, l->name, l->len);
    char buf[MEL__MAX_NAME + 1];
    size_t n = 0;
    for (size_t k = 0; k < l->len && n < sizeof buf; k++) {
        if (l->name[k] == '\\' && k + 1 < l->len)
            k++;
        buf[n++] = l->name[k];
    }
    return dup_name(p, buf, n);
}

static const char *leading_label(parser *p, uint32_t from, uint32_t to)
{
    mo__lexer *lx = &p->lx;
    while (p->label_i < lx->n_labels && lx->labels[p->label_i].offset < from)
        p->label_i++;
    const char *found = NULL;
    for (size_t i = p->label_i; i < lx->n_labels && lx->labels[i].offset < to; i++)
        if (!lx->labels[i].trailing)
            found = label_name(p, &lx->labels[i]);
    return found;
}

static const char *trailing_label(parser *p, uint32_t line, uint32_t from, uint32_t to)
{
    mo__lexer *lx = &p->lx;
    for (size_t i = p->label_i; i < lx->n_labels && lx->labels[i].offset < to; i++)
        if (lx->labels[i].trailing && lx->labels[i].line == line && lx->labels[i].offset >= from)
            return label_name(p, &lx->labels[i]);
    return NULL;
}

/* if / when with branches: `kw cond then list {elsekw cond then list}
 * [else list] end kw`. */
static bool branches(parser *p, mo__stmt *st, bool eqs, mo__tok elsekw, bool has_else)
{
    plist conds = {0}, bodies = {0};
    mo__tok kw = at(p, MO_T_IF) ? MO_T_IF : MO_T_WHEN;
    next(p);
    for (;;) {
        mo__expr *c = expression(p);
        if (c == NULL || !expect(p, MO_T_THEN))
            goto fail;
        const mo__tok ends[] = {elsekw, MO_T_END, MO_T_ELSE};
        mo__stmt *b = stmt_list(p, eqs, ends, has_else ? 3 : 2);
        if (p->failed || !plist_push(p, &conds, c) || !plist_push(p, &bodies, b))
            goto fail;
        if (accept(p, elsekw))
            continue;
        break;
    }
    if (has_else && accept(p, MO_T_ELSE)) {
        const mo__tok ends[] = {MO_T_END};
        mo__stmt *b = stmt_list(p, eqs, ends, 1);
        if (p->failed || !plist_push(p, &conds, NULL) || !plist_push(p, &bodies, b))
            goto fail;
    }
    if (!expect(p, MO_T_END) || !expect(p, kw))
        goto fail;
    st->n_branches = (uint32_t)conds.n;
    st->conds = (mo__expr **)plist_done(p, &conds);
    st->bodies = (mo__stmt **)plist_done(p, &bodies);
    return !p->failed;
fail:
    mdae_free(conds.v);
    mdae_free(bodies.v);
    return false;
}

/* One equation or statement, without its `;`. NULL on error. */
static mo__stmt *stmt(parser *p, bool eqs)
{
    if (!enter(p))
        return NULL;
    mo__stmt *st = alloc(p, sizeof *st);
    if (st == NULL) {
        leave(p);
        return NULL;
    }
    st->where.start = p->cur.where.start;
    switch (p->cur.kind) {
    case MO_T_IF:
        st->kind = MO_S_IF;
        (void)branches(p, st, eqs, MO_T_ELSEIF, true);
        break;
    case MO_T_WHEN:
        st->kind = MO_S_WHEN;
        (void)branches(p, st, eqs, MO_T_ELSEWHEN, false);
        break;
    case MO_T_FOR:
    case MO_T_WHILE: {
        bool is_for = at(p, MO_T_FOR);
        st->kind = is_for ? MO_S_FOR : MO_S_WHILE;
        next(p);
        if (is_for) {
            if (!for_indices(p, &st->n_iters, &st->iters))
                break;
        } else {
            st->conds = alloc(p, sizeof *st->conds);
            if (st->conds == NULL || (st->conds[0] = expression(p)) == NULL)
                break;
            st->n_branches = 1;
        }
        if (!expect(p, MO_T_LOOP))
            break;
        const mo__tok ends[] = {MO_T_END};
        st->body = stmt_list(p, eqs, ends, 1);
        if (!p->failed && expect(p, MO_T_END))
            (void)expect(p, is_for ? MO_T_FOR : MO_T_WHILE);
        break;
    }
    case MO_T_CONNECT:
        st->kind = MO_S_CONNECT;
        next(p);
        if (!expect(p, MO_T_LPAREN))
            break;
        st->lhs = expression(p);
        if (st->lhs == NULL || !expect(p, MO_T_COMMA))
            break;
        st->rhs = expression(p);
        if (st->rhs != NULL)
            (void)expect(p, MO_T_RPAREN);
        break;
    case MO_T_BREAK:
        st->kind = MO_S_BREAK;
        next(p);
        break;
    case MO_T_RETURN:
        st->kind = MO_S_RETURN;
        next(p);
        break;
    default: {
        mo__expr *lhs = eqs ? simple_expr(p) : expression(p);
        if (lhs == NULL)
            break;
        if (eqs && at(p, MO_T_ASSIGN)) {
            next(p);
            st->kind = MO_S_EQ;
            st->lhs = lhs;
            st->rhs = expression(p);
        } else if (!eqs && at(p, MO_T_DEFINE)) {
            next(p);
            st->kind = MO_S_ASSIGN;
            st->lhs = lhs;
            st->rhs = expression(p);
        } else if (lhs->kind == MO_E_CALL || lhs->kind == MO_E_DER) {
            st->kind = MO_S_CALL;
            st->rhs = lhs;
        } else {
            syntax_error(p, eqs ? "'=' in an equation" : "':=' in a statement");
        }
        break;
    }
    }
    if (!p->failed)
        description(p);
    leave(p);
    st->where.end = p->prev_end_pos;
    return p->failed ? NULL : st;
}

/* { stmt ; } until one of `ends` (or a section keyword / EOF, reported by
 * the caller's expect). Errors inside are recovered here. */
static mo__stmt *stmt_list(parser *p, bool eqs, const mo__tok *ends, size_t n_ends)
{
    mo__stmt *head = NULL, **tail = &head;
    while (!at_any(p, ends, n_ends) && !at(p, MO_T_EOF) && !p->rep->stop) {
        if (at(p, MO_T_EQUATION) || at(p, MO_T_ALGORITHM) || at(p, MO_T_PROTECTED) ||
            at(p, MO_T_PUBLIC) || (at(p, MO_T_INITIAL) && n_ends == 0))
            break;
        if ((at(p, MO_T_ANNOTATION) || at(p, MO_T_END) || at(p, MO_T_EXTERNAL)) && n_ends == 0)
            break; /* the class's annotation clause, its end */
        uint32_t from = p->prev_end, start = p->cur.where.start.offset;
        mdae_pos start_pos = p->cur.where.start;
        mo__stmt *st = stmt(p, eqs);
        if (st != NULL && at(p, MO_T_SEMI)) {
            mdae_pos semi = p->cur.where.start;
            next(p);
            st->label = leading_label(p, from, start);
            const char *tl = trailing_label(p, semi.line, semi.offset, p->cur.where.start.offset);
            if (tl != NULL)
                st->label = tl;
            *tail = st;
            tail = &st->next;
            continue;
        }
        mdae_pos skip_from = st != NULL ? p->cur.where.start : start_pos;
        if (st != NULL) { /* whole but for its ';': kept (issue 36 item 2) */
            syntax_error(p, "';'");
            st->label = leading_label(p, from, start);
            *tail = st;
            tail = &st->next;
        }
        if (p->rep->stop)
            break;
        sync_item(p, start_pos, skip_from, false);
    }
    return head;
}

/* ---- Classes ---------------------------------------------------------------- */

static mo__class *class_def(parser *p, mo__ck kind);

static bool class_prefix(parser *p, mo__ck *kind)
{
    for (;;) {
        switch (p->cur.kind) {
        case MO_T_ENCAPSULATED:
        case MO_T_PARTIAL:
        case MO_T_EXPANDABLE:
        case MO_T_PURE:
        case MO_T_IMPURE:
            next(p);
            continue;
        case MO_T_OPERATOR:
            next(p);
            if (at(p, MO_T_RECORD) || at(p, MO_T_FUNCTION))
                continue;
            *kind = MO_C_OPERATOR;
            return true;
        case MO_T_CLASS: *kind = MO_C_CLASS; break;
        case MO_T_MODEL: *kind = MO_C_MODEL; break;
        case MO_T_RECORD: *kind = MO_C_RECORD; break;
        case MO_T_BLOCK: *kind = MO_C_BLOCK; break;
        case MO_T_CONNECTOR: *kind = MO_C_CONNECTOR; break;
        case MO_T_TYPE: *kind = MO_C_TYPE; break;
        case MO_T_PACKAGE: *kind = MO_C_PACKAGE; break;
        case MO_T_FUNCTION: *kind = MO_C_FUNCTION; break;
        default: return false;
        }
        next(p);
        return true;
    }
}

static bool starts_class(const parser *p)
{
    switch (p->cur.kind) {
    case MO_T_ENCAPSULATED: case MO_T_PARTIAL: case MO_T_EXPANDABLE: case MO_T_PURE:
    case MO_T_IMPURE: case MO_T_OPERATOR: case MO_T_CLASS: case MO_T_MODEL:
    case MO_T_RECORD: case MO_T_BLOCK: case MO_T_CONNECTOR: case MO_T_TYPE:
    case MO_T_PACKAGE: case MO_T_FUNCTION:
        return true;
    default:
        return false;
    }
}

/* type_specifier as one dotted string. */
static const char *type_name(parser *p)
{
    char buf[1024];
    size_t n = 0;
    (void)accept(p, MO_T_DOT);
    for (;;) {
        if (!at(p, MO_T_ID)) {
            syntax_error(p, "a type name");
            return NULL;
        }
        if (n + p->cur.len + 2 >= sizeof buf) {
            mel__error(p->rep, MDAE_E_LIMIT, p->cur.where, "type name longer than %zu bytes",
                       sizeof buf);
            p->failed = true;
            return NULL;
        }
        memcpy(buf + n, p->cur.text, p->cur.len);
        n += p->cur.len;
        next(p);
        if (!at(p, MO_T_DOT))
            break;
        next(p);
        buf[n++] = '.';
    }
    return dup_name(p, buf, n);
}

/* component_clause: type_prefix type_specifier [subs] declaration {, declaration} */
static void component_clause(parser *p, mo__class *c, mo__comp ***tail)
{
    unsigned pre = 0;
    for (;;) {
        switch (p->cur.kind) {
        case MO_T_FLOW: pre |= MO_P_FLOW; break;
        case MO_T_STREAM: pre |= MO_P_STREAM; break;
        case MO_T_DISCRETE: pre |= MO_P_DISCRETE; break;
        case MO_T_PARAMETER: pre |= MO_P_PARAMETER; break;
        case MO_T_CONSTANT: pre |= MO_P_CONSTANT; break;
        case MO_T_INPUT: pre |= MO_P_INPUT; break;
        case MO_T_OUTPUT: pre |= MO_P_OUTPUT; break;
        case MO_T_FINAL: case MO_T_INNER: case MO_T_OUTER: case MO_T_REPLACEABLE:
            break;
        case MO_T_REDECLARE:
            syntax_error(p, "a declaration (redeclare is not Base Modelica)");
            return;
        default:
            goto prefixes_done;
        }
        next(p);
    }
prefixes_done:;
    mdae_range tw = p->cur.where;
    const char *type = type_name(p);
    if (type == NULL)
        return;
    tw.end = p->prev_end_pos;
    uint32_t n_tdims = 0;
    mo__expr **tdims = NULL;
    if (at(p, MO_T_LBRACK) && !subscripts(p, &n_tdims, &tdims))
        return;
    do {
        if (!at(p, MO_T_ID)) {
            syntax_error(p, "a component name");
            return;
        }
        mo__comp *k = alloc(p, sizeof *k);
        if (k == NULL)
            return;
        k->name = dup_name(p, p->cur.text, p->cur.len);
        k->where = p->cur.where;
        k->type = type;
        k->type_where = tw;
        k->prefixes = pre;
        next(p);
        uint32_t n_dims = 0;
        mo__expr **dims = NULL;
        if (at(p, MO_T_LBRACK) && !subscripts(p, &n_dims, &dims))
            return;
        k->n_dims = n_tdims + n_dims;
        if (k->n_dims > 0) {
            k->dims = alloc(p, k->n_dims * sizeof *k->dims);
            if (k->dims == NULL)
                return;
            if (n_tdims)
                memcpy(k->dims, tdims, n_tdims * sizeof *tdims);
            if (n_dims)
                memcpy(k->dims + n_tdims, dims, n_dims * sizeof *dims);
        }
        if (!modification(p, &k->mods, &k->binding))
            return;
        if (at(p, MO_T_IF)) { /* condition attribute */
            next(p);
            if (expression(p) == NULL)
                return;
        }
        description(p);
        if (p->failed)
            return;
        **tail = k;
        *tail = &k->next;
        (void)c;
    } while (accept(p, MO_T_COMMA));
}

/* external [lang] [call] [annotation] ; -- nothing kept */
static void external_clause(parser *p)
{
    next(p);
    while (!at(p, MO_T_SEMI) && !at(p, MO_T_EOF) && !p->failed) {
        if (at(p, MO_T_LPAREN))
            skip_group(p);
        else
            next(p);
    }
    (void)expect(p, MO_T_SEMI);
}

/* The `;` that ends a clause of a composition, unless the clause failed;
 * after a failure, skip to the next clause. */
static void end_clause(parser *p)
{
    if (!p->failed)
        (void)expect(p, MO_T_SEMI);
    if (p->failed)
        sync(p);
}

/* The composition of a long class, up to (not including) `end`. */
static void composition(parser *p, mo__class *c)
{
    mo__comp **ctail = &c->comps;
    mo__class **cltail = &c->classes;
    mo__section **stail = &c->sections;
    for (;;) {
        if (p->rep->stop || at(p, MO_T_EOF) || at(p, MO_T_END))
            return;
        mdae_pos s = p->cur.where.start;
        if (at(p, MO_T_PUBLIC) || at(p, MO_T_PROTECTED)) {
            next(p);
            continue;
        }
        if (at(p, MO_T_EQUATION) || at(p, MO_T_ALGORITHM) || at(p, MO_T_INITIAL)) {
            mo__seck k = MO_SEC_EQUATION;
            if (accept(p, MO_T_INITIAL)) {
                if (at(p, MO_T_EQUATION))
                    k = MO_SEC_INITIAL_EQUATION;
                else if (at(p, MO_T_ALGORITHM))
                    k = MO_SEC_INITIAL_ALGORITHM;
                else {
                    syntax_error(p, "'equation' or 'algorithm' after 'initial'");
                    sync(p);
                    continue;
                }
            } else if (at(p, MO_T_ALGORITHM)) {
                k = MO_SEC_ALGORITHM;
            }
            next(p);
            mo__section *sec = alloc(p, sizeof *sec);
            if (sec == NULL)
                return;
            sec->kind = k;
            sec->where.start = s;
            bool eqs = k == MO_SEC_EQUATION || k == MO_SEC_INITIAL_EQUATION;
            sec->stmts = stmt_list(p, eqs, NULL, 0);
            sec->where.end = p->prev_end_pos;
            *stail = sec;
            stail = &sec->next;
            continue;
        }
        if (at(p, MO_T_EXTERNAL)) {
            external_clause(p);
            if (p->failed)
                sync(p);
            continue;
        }
        if (at(p, MO_T_ANNOTATION)) {
            annotation(p);
            end_clause(p);
            continue;
        }
        if (at(p, MO_T_IMPORT)) {
            sync(p);
            continue;
        }
        if (at(p, MO_T_EXTENDS)) {
            next(p);
            c->has_extends = true;
            if (type_name(p) != NULL) {
                mo__mod *m = NULL;
                mo__expr *b = NULL;
                if (at(p, MO_T_LPAREN))
                    (void)class_mod(p, &m);
                (void)b;
                if (at(p, MO_T_ANNOTATION))
                    annotation(p);
            }
            end_clause(p);
            continue;
        }
        while (at(p, MO_T_FINAL) || at(p, MO_T_REPLACEABLE) || at(p, MO_T_INNER) ||
               at(p, MO_T_OUTER))
            next(p);
        if (starts_class(p)) {
            mo__ck k = MO_C_CLASS;
            (void)class_prefix(p, &k);
            mo__class *nc = class_def(p, k);
            if (nc != NULL && !p->failed) {
                *cltail = nc;
                cltail = &nc->next;
                (void)expect(p, MO_T_SEMI);
            }
            if (p->failed)
                sync(p);
            continue;
        }
        component_clause(p, c, &ctail);
        mdae_pos from = p->failed ? s : p->cur.where.start;
        if (!p->failed)
            (void)expect(p, MO_T_SEMI);
        if (p->failed)
            sync_item(p, s, from, true);
    }
}

/* class_specifier after the prefixes; cur is the name. No trailing `;`. */
static mo__class *class_def(parser *p, mo__ck kind)
{
    if (!at(p, MO_T_ID)) {
        syntax_error(p, "a class name");
        return NULL;
    }
    if (!enter(p))
        return NULL;
    mo__class *c = alloc(p, sizeof *c);
    if (c == NULL) {
        leave(p);
        return NULL;
    }
    c->kind = kind;
    c->name = dup_name(p, p->cur.text, p->cur.len);
    c->where = p->cur.where;
    next(p);
    if (accept(p, MO_T_ASSIGN)) {
        /* short class: enumeration, alias, der(...) */
        if (accept(p, MO_T_ENUMERATION)) {
            c->is_enum = true;
            if (!expect(p, MO_T_LPAREN))
                goto out;
            plist l = {0};
            if (accept(p, MO_T_COLON)) {
                /* enumeration(:) -- open, no literals */
            } else {
                while (at(p, MO_T_ID)) {
                    const char *lit = dup_name(p, p->cur.text, p->cur.len);
                    if (lit == NULL || !plist_push(p, &l, (void *)lit)) {
                        mdae_free(l.v);
                        goto out;
                    }
                    next(p);
                    description(p);
                    if (!accept(p, MO_T_COMMA))
                        break;
                }
            }
            c->n_literals = (uint32_t)l.n;
            c->literals = (const char **)plist_done(p, &l);
            (void)expect(p, MO_T_RPAREN);
        } else {
            while (at(p, MO_T_INPUT) || at(p, MO_T_OUTPUT) || at(p, MO_T_PARAMETER) ||
                   at(p, MO_T_CONSTANT) || at(p, MO_T_DISCRETE) || at(p, MO_T_FLOW))
                next(p);
            c->alias = type_name(p);
            if (c->alias != NULL && at(p, MO_T_LPAREN)) {
                if (strcmp(c->alias, "der") == 0) {
                    skip_group(p);
                } else {
                    mo__mod *m = NULL;
                    uint32_t nd;
                    mo__expr **d;
                    if (at(p, MO_T_LBRACK))
                        (void)subscripts(p, &nd, &d);
                    (void)class_mod(p, &m);
                }
            } else if (c->alias != NULL && at(p, MO_T_LBRACK)) {
                uint32_t nd;
                mo__expr **d;
                (void)subscripts(p, &nd, &d);
                if (at(p, MO_T_LPAREN)) {
                    mo__mod *m = NULL;
                    (void)class_mod(p, &m);
                }
            }
        }
        if (!p->failed)
            description(p);
        goto out;
    }
    description(p);
    composition(p, c);
    if (p->failed || p->rep->stop)
        goto out;
    if (!expect(p, MO_T_END))
        goto out;
    if (!at(p, MO_T_ID)) {
        syntax_error(p, "the class name after 'end'");
        goto out;
    }
    if (p->cur.len != strlen(c->name) || memcmp(p->cur.text, c->name, p->cur.len) != 0) {
        mel__error(p->rep, MDAE_E_PARSE, p->cur.where, "'end %.*s' closes class '%s'",
                   (int)(p->cur.len > 200 ? 200 : p->cur.len), p->cur.text, c->name);
    }
    next(p);
out:
    leave(p);
    return p->failed ? NULL : c;
}

int mo__parse(const char *src, size_t len, size_t max_depth, mel__arena *arena,
              mel__report *rep, mo__class **out)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.arena = arena;
    p.rep = rep;
    p.max_depth = mel__max_depth(max_depth);
    mo__lex_init(&p.lx, src, len, rep);
    next(&p);
    mo__class *head = NULL, **tail = &head;
    if (accept(&p, MO_T_WITHIN)) {
        if (!at(&p, MO_T_SEMI))
            (void)type_name(&p);
        if (!p.failed)
            (void)expect(&p, MO_T_SEMI);
        if (p.failed)
            sync(&p);
    }
    while (!at(&p, MO_T_EOF) && !rep->stop) {
        (void)accept(&p, MO_T_FINAL);
        mo__ck k = MO_C_CLASS;
        if (!class_prefix(&p, &k)) {
            syntax_error(&p, "a class definition ('model', 'package', ...)");
            sync(&p);
            continue;
        }
        mo__class *c = class_def(&p, k);
        if (c != NULL) {
            *tail = c;
            tail = &c->next;
            if (!at(&p, MO_T_EOF)) /* the papers omit the last ';' at times */
                (void)expect(&p, MO_T_SEMI);
            else
                (void)accept(&p, MO_T_SEMI);
        }
        if (p.failed)
            sync(&p);
    }
    mo__lex_close(&p.lx);
    mel__symtab_close(&p.names);
    *out = head;
    return rep->rc;
}

/* ---- Normalised text ------------------------------------------------------------ */

static int prec(const mo__expr *e)
{
    switch (e->kind) {
    case MO_E_IF: return 0;
    case MO_E_RANGE: return 1;
    case MO_E_BIN:
        switch (e->op) {
        case MO_T_OR: return 2;
        case MO_T_AND: return 3;
        case MO_T_LT: case MO_T_LE: case MO_T_GT: case MO_T_GE: case MO_T_EQ: case MO_T_NE:
            return 5;
        case MO_T_PLUS: case MO_T_MINUS: case MO_T_DPLUS: case MO_T_DMINUS: return 6;
        case MO_T_CARET: case MO_T_DCARET: return 8;
        default: return 7; /* multiplicative */
        }
    case MO_E_UN: return e->op == MO_T_NOT ? 4 : 6;
    default: return 9;
    }
}

static const char *op_text(uint8_t op)
{
    switch (op) {
    case MO_T_OR: return " or ";
    case MO_T_AND: return " and ";
    case MO_T_LT: return " < ";
    case MO_T_LE: return " <= ";
    case MO_T_GT: return " > ";
    case MO_T_GE: return " >= ";
    case MO_T_EQ: return " == ";
    case MO_T_NE: return " <> ";
    case MO_T_PLUS: return " + ";
    case MO_T_MINUS: return " - ";
    case MO_T_STAR: return " * ";
    case MO_T_SLASH: return " / ";
    case MO_T_CARET: return "^";
    case MO_T_DPLUS: return " .+ ";
    case MO_T_DMINUS: return " .- ";
    case MO_T_DSTAR: return " .* ";
    case MO_T_DSLASH: return " ./ ";
    case MO_T_DCARET: return ".^";
    default: return " ? ";
    }
}

static void print_sub(mdae_buf *b, const mo__expr *e, int min, const mo__print_hook *h)
{
    if (e == NULL)
        return;
    bool par = prec(e) < min;
    if (par)
        mdae_buf_puts(b, "(");
    mo__expr_print_hooked(b, e, h);
    if (par)
        mdae_buf_puts(b, ")");
}

/* Whether name, written unquoted, reads back as the same reference:
 * identifiers (not keywords) joined by dots and constant subscripts
 * (a.b[1,2].c, as Base Modelica's scalarised names). */
static bool reads_back_bare(const char *name, bool call)
{
    const char *s = name;
    for (;;) {
        const char *w = s;
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
            return false;
        while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
               (*s >= '0' && *s <= '9'))
            s++;
        if (!call && mo__is_keyword(w, (size_t)(s - w)))
            return false; /* initial(), a call, is the keyword's */
        while (*s == '[') {
            do {
                const char *d = ++s;
                while (*s >= '0' && *s <= '9')
                    s++;
                if (s == d)
                    return false;
            } while (*s == ',');
            if (*s++ != ']')
                return false;
        }
        if (*s == '\0')
            return true;
        if (*s++ != '.')
            return false;
    }
}

static void print_name(mdae_buf *b, const char *name, bool call)
{
    if (reads_back_bare(name, call)) {
        mdae_buf_puts(b, name);
        return;
    }
    mdae_buf_puts(b, "'");
    mdae_buf_puts(b, name);
    mdae_buf_puts(b, "'");
}

static void print_list_sep(mdae_buf *b, mo__expr *const *k, uint32_t n,
                           const char *const *names, const char *sep, const mo__print_hook *h)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0)
            mdae_buf_puts(b, sep);
        if (names != NULL && names[i] != NULL) {
            print_name(b, names[i], false);
            mdae_buf_puts(b, " = ");
        }
        mo__expr_print_hooked(b, k[i], h);
    }
}

static void print_list(mdae_buf *b, mo__expr *const *k, uint32_t n, const char *const *names,
                       const mo__print_hook *h)
{
    print_list_sep(b, k, n, names, ", ", h);
}

static void print_iters(mdae_buf *b, const mo__expr *e, const mo__print_hook *h)
{
    for (uint32_t i = 0; i < e->n_iters; i++) {
        mdae_buf_puts(b, i ? ", " : " for ");
        print_name(b, e->iters[i].name, false);
        if (e->iters[i].range != NULL) {
            mdae_buf_puts(b, " in ");
            mo__expr_print_hooked(b, e->iters[i].range, h);
        }
    }
}

static void print_parts(mdae_buf *b, const mo__expr *e, const mo__print_hook *h)
{
    for (uint32_t i = 0; i < e->n_parts; i++) {
        if (i > 0)
            mdae_buf_puts(b, ".");
        if (e->kind == MO_E_REF && e->n_parts == 1 && strcmp(e->parts[0].name, "time") == 0)
            mdae_buf_puts(b, "'time'"); /* a variable so named: not the built-in */
        else
            print_name(b, e->parts[i].name, e->kind == MO_E_CALL);
        if (e->parts[i].n_subs > 0) {
            /* x[1,2] as Base Modelica names elements ('x[1,2]') */
            mdae_buf_puts(b, "[");
            print_list_sep(b, e->parts[i].subs, e->parts[i].n_subs, NULL, ",", h);
            mdae_buf_puts(b, "]");
        }
    }
}

void mo__expr_print_hooked(mdae_buf *b, const mo__expr *e, const mo__print_hook *h)
{
    if (e == NULL)
        return;
    if (h != NULL && e->kind == MO_E_REF && h->ref(h->ctx, b, e))
        return;
    switch ((mo__ek)e->kind) {
    case MO_E_NUM:
        /* a real as fx_print writes it (1e-4 and 0.0001 are one text),
         * an integer as written */
        if (e->is_int)
            mdae_buf_puts(b, e->str ? e->str : "0");
        else
            fx_print_number(b, e->num, false);
        break;
    case MO_E_STR:
        mdae_buf_puts(b, "\"");
        mdae_buf_puts(b, e->str ? e->str : "");
        mdae_buf_puts(b, "\"");
        break;
    case MO_E_BOOL:
        mdae_buf_puts(b, e->ival ? "true" : "false");
        break;
    case MO_E_REF:
        print_parts(b, e, h);
        break;
    case MO_E_TIME:
        mdae_buf_puts(b, "time");
        break;
    case MO_E_END:
        mdae_buf_puts(b, "end");
        break;
    case MO_E_COLON:
        mdae_buf_puts(b, ":");
        break;
    case MO_E_DER:
        mdae_buf_puts(b, "der(");
        mo__expr_print_hooked(b, e->kids[0], h);
        mdae_buf_puts(b, ")");
        break;
    case MO_E_CALL:
        if (e->n_parts == 1 && strcmp(e->parts[0].name, ".") == 0) {
            mdae_buf_puts(b, "(");
            mo__expr_print_hooked(b, e->kids[0], h);
            mdae_buf_puts(b, ").");
            if (e->str != NULL)
                print_name(b, e->str, false);
            break;
        }
        if (e->n_parts == 1 && strcmp(e->parts[0].name, "[]") == 0) {
            /* (f(x))[1]: Modelica indexes names and parenthesised
             * expressions only */
            print_sub(b, e->kids[0], 10, h);
            mdae_buf_puts(b, "[");
            print_list(b, e->parts[0].subs, e->parts[0].n_subs, NULL, h);
            mdae_buf_puts(b, "]");
            break;
        }
        print_parts(b, e, h);
        mdae_buf_puts(b, "(");
        print_list(b, e->kids, e->n_kids, e->names, h);
        print_iters(b, e, h);
        mdae_buf_puts(b, ")");
        break;
    case MO_E_UN:
        mdae_buf_puts(b, e->op == MO_T_NOT ? "not " : e->op == MO_T_MINUS ? "-" : "+");
        print_sub(b, e->kids[0], e->op == MO_T_NOT ? 5 : 7, h);
        break;
    case MO_E_BIN: {
        int pr = prec(e);
        const uint8_t *ops = (const uint8_t *)e->str;
        for (uint32_t i = 0; i < e->n_kids; i++) {
            if (i > 0)
                mdae_buf_puts(b, op_text(ops ? ops[i] : e->op));
            /* left-associative: a right operand of - or / needs parentheses
             * at the same level; relations and ^ take operands above them */
            int min = pr;
            if (pr == 5 || pr == 8 || i > 0)
                min = pr + 1;
            if (i > 0 && (pr == 6 || pr == 7 || pr == 2 || pr == 3))
                min = pr + 1;
            print_sub(b, e->kids[i], min, h);
        }
        break;
    }
    case MO_E_IF:
        for (uint32_t i = 0; i + 1 < e->n_kids; i += 2) {
            mdae_buf_puts(b, i ? " elseif " : "if ");
            mo__expr_print_hooked(b, e->kids[i], h);
            mdae_buf_puts(b, " then ");
            mo__expr_print_hooked(b, e->kids[i + 1], h);
        }
        mdae_buf_puts(b, " else ");
        mo__expr_print_hooked(b, e->kids[e->n_kids - 1], h);
        break;
    case MO_E_ARRAY:
        mdae_buf_puts(b, "{");
        print_list(b, e->kids, e->n_kids, NULL, h);
        print_iters(b, e, h);
        mdae_buf_puts(b, "}");
        break;
    case MO_E_MATRIX:
        mdae_buf_puts(b, "[");
        for (uint32_t i = 0; i < e->n_kids; i++) {
            if (i > 0)
                mdae_buf_puts(b, "; ");
            print_list(b, e->kids[i]->kids, e->kids[i]->n_kids, NULL, h);
        }
        mdae_buf_puts(b, "]");
        break;
    case MO_E_RANGE:
        print_sub(b, e->kids[0], 2, h);
        for (uint32_t i = 1; i < e->n_kids; i++) {
            mdae_buf_puts(b, ":");
            print_sub(b, e->kids[i], 2, h);
        }
        break;
    case MO_E_TUPLE:
        mdae_buf_puts(b, "(");
        for (uint32_t i = 0; i < e->n_kids; i++) {
            if (i > 0)
                mdae_buf_puts(b, ", ");
            mo__expr_print_hooked(b, e->kids[i], h);
        }
        mdae_buf_puts(b, ")");
        break;
    }
}

void mo__expr_print(mdae_buf *b, const mo__expr *e)
{
    mo__expr_print_hooked(b, e, NULL);
}
