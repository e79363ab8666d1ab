/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_write.c -- a flat model with its expressions (issue 38) as MEL
 * or as flat Modelica text: mo_model_to_modelica, and mo_model_to_mel for
 * a model that kept its expressions (engine/mo.h; mo_print.c prints the
 * structure of one that did not).
 *
 * What is printed (both languages read it back into the same flat model,
 * checked by tests/engine/test_convert.c):
 *  - MEL: known quantities with their bindings (`p : real = e;`,
 *    `N : integer = e;`), mode variables with their definitions
 *    (`g : boolean = e;`, a Modelica relation atom under its quoted text:
 *    `'s >= 0' : boolean = s >= 0;`), invariants (not those a when-clause
 *    adds: the `when` says them), unknowns (in a conditional statement when
 *    guarded), equations `label : equation lhs = rhs;` in a conditional
 *    statement whose condition is their guard, when-equations in
 *    `when c then ... end`, and the kept events as comments.
 *  - Modelica: `model NAME`, parameters and constants with their bindings,
 *    unknowns, Booleans for the mode variables that are not relation atoms,
 *    `equation`, the Booleans' definitions `b = e;`, each equation (in an
 *    if-equation when guarded; relation atoms print as their relations),
 *    when-equations as `when c then reinit(x, e); end when;`, the kept
 *    events as their text (initial sections and algorithm statements as
 *    comments), `end NAME;`. Labels that are identifiers are kept as
 *    `/ * e1: * /` comments, which the importer reads as names.
 * Names are quoted where the language needs it (fx_print_name).
 *
 * An equation without an expression (a front-end that could not build
 * one) prints as the sum of its incidences, as mo_print.c does, so that
 * its structure is still right.
 */
#include "fx.h"
#include "mo.h"
#include "mo_write.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

typedef struct writer {
    mdae_buf *b;
    const mel_model *m;
    fx_syntax syn;
    fx_pool *tmp; /* guards converted to expressions */
} writer;

static void puts_(const writer *w, const char *s)
{
    mdae_buf_puts(w->b, s);
}

static void put_name(const writer *w, const char *name)
{
    fx_print_name(w->b, name, w->syn);
}

static void put_expr(const writer *w, const fx_node *e)
{
    fx_print(w->b, w->m, e, w->syn);
}

/* An equation's left side: an if-expression there in parentheses. */
static void put_lhs(const writer *w, const fx_node *e)
{
    fx_print_lhs(w->b, w->m, e, w->syn, NULL);
}

/* An equation's label in MEL, which has one namespace: a label that is
 * also the name of a declaration (Modelica's `R1: ` resistor equation
 * beside parameter R1) gets " (equation)" appended, so that the text
 * reads back (the name then differs: docs/convert.md). */
static void put_label(const writer *w, const char *name)
{
    const mel_model *m = w->m;
    if (mel_model_find_known(m, name) < 0 && mel_model_find_variable(m, name) < 0 &&
        mel_model_find_mode(m, name) < 0) {
        put_name(w, name);
        return;
    }
    size_t n = strlen(name);
    char *t = mdae_malloc(n + sizeof " (equation)");
    if (t == NULL) {
        w->b->oom = true;
        return;
    }
    memcpy(t, name, n);
    memcpy(t + n, " (equation)", sizeof " (equation)");
    put_name(w, t);
    mdae_free(t);
}

/* A guard as an expression over the modes, with the tree's shape (binary
 * & and |, so that nested ones print in parentheses and read back as the
 * same tree: MEL simplifies each node of a chain on its own). */
static const fx_node *guard_fx(fx_pool *p, const mel_guard *g)
{
    static const mdae_range r0;
    switch (g->op) {
    case MEL_G_FALSE: return fx_bool(p, false, r0);
    case MEL_G_TRUE: return fx_bool(p, true, r0);
    case MEL_G_VAR: return fx_mode(p, g->var, r0);
    case MEL_G_NOT: return fx_un(p, FX_NOT, guard_fx(p, g->lhs), r0);
    case MEL_G_AND:
    case MEL_G_OR:
        return fx_bin(p, g->op == MEL_G_AND ? FX_AND : FX_OR, guard_fx(p, g->lhs),
                      guard_fx(p, g->rhs), r0);
    }
    return NULL;
}

static void put_guard(const writer *w, const mel_guard *g)
{
    const fx_node *e = guard_fx(w->tmp, g);
    if (e == NULL) {
        w->b->oom = true;
        return;
    }
    put_expr(w, e);
}

static void put_comment(const writer *w, const char *s)
{
    for (const char *p = s; *p; p++) {
        char c = (*p == '\n' || *p == '\r') ? ' ' : *p;
        mdae_buf_put(w->b, &c, 1);
    }
}

/* The structure of an equation without expression: 0 = the sum of one
 * term per incidence case (mo_print.c says why that reads back). */
static void put_incidence_sum(const writer *w, const mel_equation *q)
{
    bool mel = w->syn == FX_SYNTAX_MEL;
    puts_(w, "0 = ");
    bool first = true;
    for (uint32_t j = 0; j < q->n_incs; j++) {
        const mel_incidence *inc = &q->incs[j];
        for (uint32_t c = 0; c < inc->n_cases; c++) {
            const mel_order_case *k = &inc->cases[c];
            puts_(w, first ? "" : " + ");
            first = false;
            bool cg = k->guard->op != MEL_G_TRUE;
            if (cg) {
                puts_(w, "(if ");
                put_guard(w, k->guard);
                puts_(w, " then ");
            }
            for (int o = 0; o < k->order; o++)
                puts_(w, o < k->next && mel ? "next(" : "der(");
            put_name(w, w->m->variables[inc->var].name);
            for (int o = 0; o < k->order; o++)
                puts_(w, ")");
            if (cg)
                puts_(w, " else 0)");
        }
    }
    if (first)
        puts_(w, "0");
}

static void put_equation_body(const writer *w, const mel_equation *q)
{
    if (q->lhs == NULL || q->rhs == NULL) {
        put_incidence_sum(w, q);
        return;
    }
    put_lhs(w, q->lhs);
    puts_(w, " = ");
    put_expr(w, q->rhs);
}

static bool guard_same(const mel_guard *a, const mel_guard *b)
{
    if (a == b)
        return true;
    if (a->op != b->op)
        return false;
    switch (a->op) {
    case MEL_G_VAR: return a->var == b->var;
    case MEL_G_NOT: return guard_same(a->lhs, b->lhs);
    case MEL_G_AND:
    case MEL_G_OR: return guard_same(a->lhs, b->lhs) && guard_same(a->rhs, b->rhs);
    default: return true;
    }
}

/* What a when-equation's guard adds to its when-clause's condition c:
 * NULL when it is c itself, g when it is c & g. */
static const mel_guard *guard_inside_when(const mel_guard *guard, const mel_guard *c)
{
    if (guard_same(guard, c))
        return NULL;
    if (guard->op == MEL_G_AND && guard_same(guard->lhs, c))
        return guard->rhs;
    return guard;
}

/* The equation's name as a label comment the importer reads back
 * (engine/mo_lex.c: an identifier, or a quoted name with ' and \
 * escaped), so that an equation named by its text keeps its name; none
 * when the name cannot be one (a line break, a comment's end). */
static void mo_label(const writer *w, const char *name)
{
    size_t n = strlen(name);
    bool ident = n > 0 && ((name[0] >= 'a' && name[0] <= 'z') ||
                           (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_');
    for (size_t i = 1; ident && i < n; i++) {
        char c = name[i];
        ident = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                (c >= '0' && c <= '9');
    }
    bool quotable = n > 0 && strpbrk(name, "\n\r") == NULL && strstr(name, "*/") == NULL;
    if (!ident && !quotable)
        return;
    if (ident) {
        puts_(w, "/* ");
        puts_(w, name);
        puts_(w, ": */ ");
        return;
    }
    puts_(w, "/* '");
    for (const char *p = name; *p; p++) {
        if (*p == '\'' || *p == '\\')
            puts_(w, "\\");
        mdae_buf_put(w->b, p, 1);
    }
    puts_(w, "': */ ");
}

/* ---- Conditional statements ------------------------------------------------------
 * The equations of one outermost conditional statement (the same
 * mel_equation.cond, consecutive) are printed as one conditional again, so
 * that a tool merges the same equations (cond_pos) and Modelica gets
 * if-equations with their else-branches. The front-ends build the guard of
 * branch j of `if c1 then .. elseif c2 then .. else .. end` as
 * and(rest_j, c_j) with rest_1 = the context and rest_{j+1} =
 * and(rest_j, not c_j) (mel__g_and, mel__g_not: AND nodes, TRUE dropped,
 * NOT NOT folded), and a nested conditional's as and(branch, d): so the
 * guards' left spines give the branches and the nesting back. A branch's
 * equations are its plain ones (their guard is the branch's) and nested
 * conditionals (deeper guards), in order; positions (cond_pos) follow from
 * that structure as the front-ends count them: each branch restarts where
 * its conditional starts, what follows a nested conditional comes after
 * its longest branch. Where nesting and else-branches could be told apart
 * only by the text (`else if c then` or `elseif c then`), either reads
 * back into the same guards and positions. When the guards do not have
 * that shape, each equation is printed in its own conditional (the guards,
 * which are what the analyses read, are the same either way). */
#define MAX_NEST 32

typedef struct cond_walk {
    const writer *w;
    const uint32_t *eq; /* the conditional's equations (m->equations indices) */
} cond_walk;

static const mel_guard *eq_guard(const cond_walk *c, uint32_t i)
{
    return c->w->m->equations[c->eq[i]].guard;
}

/* Whether r is on g's left spine (g, g->lhs, ... through AND nodes). */
static bool spine_has(const mel_guard *g, const mel_guard *r)
{
    for (;;) {
        if (guard_same(g, r))
            return true;
        if (g->op != MEL_G_AND)
            return false;
        g = g->lhs;
    }
}

/* Whether r is mel__g_not(c). */
static bool is_not_of(const mel_guard *r, const mel_guard *c)
{
    return c->op == MEL_G_NOT ? guard_same(r, c->lhs) : r->op == MEL_G_NOT && guard_same(r->lhs, c);
}

/* The node of g's spine that is and(rest, not c) (rest TRUE: not c). */
static const mel_guard *find_rest(const mel_guard *g, const mel_guard *rest, const mel_guard *c)
{
    for (;;) {
        if (rest->op == MEL_G_TRUE ? is_not_of(g, c)
                                   : g->op == MEL_G_AND && guard_same(g->lhs, rest) &&
                                         is_not_of(g->rhs, c))
            return g;
        if (g->op != MEL_G_AND)
            return NULL;
        g = g->lhs;
    }
}

/* The node of g's spine that is and(r, c) for some c, or NULL. */
static const mel_guard *child_of(const mel_guard *g, const mel_guard *r)
{
    for (; g->op == MEL_G_AND; g = g->lhs)
        if (guard_same(g->lhs, r))
            return g;
    return NULL;
}

/* The end of the run of equations [i, to) whose spines hold s. */
static uint32_t run_end(const cond_walk *c, uint32_t i, uint32_t to, const mel_guard *s)
{
    while (i < to && spine_has(eq_guard(c, i), s))
        i++;
    return i;
}

static void put_indent(const writer *w, int depth)
{
    for (int i = 0; i < depth; i++)
        puts_(w, "  ");
}

static void put_line(const writer *w, const mel_equation *q, int depth)
{
    put_indent(w, depth);
    if (w->syn == FX_SYNTAX_MEL) {
        put_label(w, q->name);
        puts_(w, " : equation ");
    } else {
        mo_label(w, q->name);
    }
    put_equation_body(w, q);
    puts_(w, ";\n");
}

static bool put_cond(const cond_walk *c, uint32_t *at, uint32_t to, const mel_guard *r0,
                     int depth);

/* The equations [from, to) of a branch whose guard is inner: plain ones
 * and nested conditionals. False when the guards do not show them. */
static bool put_items(const cond_walk *c, uint32_t from, uint32_t to, const mel_guard *inner,
                      int depth)
{
    for (uint32_t k = from; k < to;) {
        if (guard_same(eq_guard(c, k), inner)) {
            put_line(c->w, &c->w->m->equations[c->eq[k]], depth);
            k++;
            continue;
        }
        uint32_t k0 = k;
        if (!put_cond(c, &k, to, inner, depth) || k == k0)
            return false;
    }
    return true;
}

/* The condition of the if- or elseif-branch at equation k in context r
 * (the branch's guard *s is and(r, cond), or cond when r is TRUE) and its
 * end *end; NULL when the guards do not show one. With r TRUE the
 * condition is the highest node of k's spine whose run is followed by the
 * next branch (not cond on its spine) or ends the equations. */
static const mel_guard *branch_cond(const cond_walk *c, uint32_t k, uint32_t to,
                                    const mel_guard *r, const mel_guard **s, uint32_t *end)
{
    const mel_guard *g = eq_guard(c, k);
    if (r->op != MEL_G_TRUE) {
        *s = child_of(g, r);
        if (*s == NULL)
            return NULL;
        *end = run_end(c, k, to, *s);
        return (*s)->rhs;
    }
    for (const mel_guard *t = g;; t = t->lhs) {
        *end = run_end(c, k, to, t);
        if (*end == to || find_rest(eq_guard(c, *end), r, t) != NULL) {
            *s = t;
            return t;
        }
        if (t->op != MEL_G_AND)
            return NULL;
    }
}

/* One conditional in context r0 (TRUE: an outermost one) from equation
 * *at, up to to at most: its branches, each with its equations; *at is
 * moved past them. False when the guards do not show one (the buffer may
 * then hold part of it: the caller rolls back). */
static bool put_cond(const cond_walk *c, uint32_t *at, uint32_t to, const mel_guard *r0,
                     int depth)
{
    const writer *w = c->w;
    bool mel = w->syn == FX_SYNTAX_MEL;
    if (depth > MAX_NEST)
        return false;
    uint32_t k = *at;
    const mel_guard *r = r0;
    int opened = 0;
    for (bool first = true; k < to; first = false) {
        if (!first) {
            /* an else-branch when one of the rest's equations is plain in
             * it; else-if branches otherwise (the same guards, positions) */
            uint32_t end = run_end(c, k, to, r);
            bool plain = false;
            for (uint32_t j = k; j < end && !plain; j++)
                plain = guard_same(eq_guard(c, j), r);
            if (end == k)
                break;
            if (plain) {
                put_indent(w, depth);
                puts_(w, "else\n");
                if (!put_items(c, k, end, r, depth + 1))
                    return false;
                k = end;
                break;
            }
        }
        const mel_guard *s = NULL;
        uint32_t end = k;
        const mel_guard *cnd = branch_cond(c, k, to, r, &s, &end);
        if (cnd == NULL)
            return false;
        put_indent(w, depth);
        puts_(w, first ? "if " : mel ? "else if " : "elseif ");
        put_guard(w, cnd);
        puts_(w, " then\n");
        if (first || mel)
            opened++;
        if (!put_items(c, k, end, s, depth + 1))
            return false;
        k = end;
        r = k < to ? find_rest(eq_guard(c, k), r, cnd) : NULL;
        if (r == NULL)
            break;
    }
    put_indent(w, depth);
    for (int j = 0; j < opened; j++)
        puts_(w, mel ? (j + 1 < opened ? "end " : "end;\n") : "end if;\n");
    *at = k;
    return true;
}

/* The conditional statement of eq[0..n), or false (nothing printed) when
 * the guards do not show one. */
static bool put_conditional(const writer *w, const uint32_t *eq, uint32_t n, int depth)
{
    cond_walk c = {w, eq};
    size_t mark = w->b->len;
    uint32_t k = 0;
    if (put_cond(&c, &k, n, &(const mel_guard){.op = MEL_G_TRUE}, depth) && k == n)
        return true;
    if (!w->b->oom && w->b->p != NULL) { /* roll back what was printed */
        w->b->len = mark;
        w->b->p[mark] = '\0';
    }
    return false;
}

/* Equations i.. with the same cond (not 0) as i, outside when-clauses,
 * into eq; their number. */
static uint32_t cond_run(const mel_model *m, uint32_t i, uint32_t *eq)
{
    uint32_t n = 0;
    uint32_t c = m->equations[i].cond;
    while (i < m->n_equations && m->equations[i].cond == c && m->equations[i].when == 0 &&
           m->equations[i].guard->op != MEL_G_TRUE)
        eq[n++] = i++;
    return n;
}

/* A MEL equation declared in both branches of one conditional statement,
 * which the front-end keeps as `if not c then <else-branch sides> else
 * <then-branch sides>` (the later declaration's context first): printed
 * as that statement again. False (nothing printed) for any other. */
static bool put_redeclared(const writer *w, const mel_equation *q)
{
    const fx_node *l = q->lhs, *r = q->rhs;
    if (q->cond == 0 || l == NULL || r == NULL || l->op != FX_IF || r->op != FX_IF ||
        !fx_equal(l->kids[0], r->kids[0]) || l->kids[0]->op != FX_NOT ||
        l->kids[2]->op == FX_IF)
        return false;
    puts_(w, "  if ");
    put_expr(w, l->kids[0]->kids[0]);
    puts_(w, " then\n    ");
    for (uint32_t k = 2; k >= 1; k--) {
        put_label(w, q->name);
        puts_(w, " : equation ");
        put_lhs(w, l->kids[k]);
        puts_(w, " = ");
        put_expr(w, r->kids[k]);
        puts_(w, k == 2 ? ";\n  else\n    " : ";\n  end;\n");
    }
    return true;
}

/* Every equation in order, conditionals grouped: one(w, q) prints an
 * equation on its own, when_clause(w, k) when-clause k whole, where its
 * first equation is. False on OOM. */
static bool put_equations(const writer *w, void (*one)(const writer *w, const mel_equation *q),
                          void (*when_clause)(const writer *w, uint32_t k))
{
    const mel_model *m = w->m;
    uint32_t *eq = mdae_malloc(((size_t)m->n_equations + 1) * sizeof *eq);
    bool *done = mdae_calloc((size_t)m->n_whens + 1, sizeof *done);
    bool ok = eq != NULL && done != NULL;
    for (uint32_t i = 0; ok && i < m->n_equations;) {
        const mel_equation *q = &m->equations[i];
        if (q->when != 0) {
            if (!done[q->when - 1])
                when_clause(w, q->when - 1);
            done[q->when - 1] = true;
            i++;
            continue;
        }
        if (w->syn == FX_SYNTAX_MEL && put_redeclared(w, q)) {
            i++;
            continue;
        }
        uint32_t n = q->cond != 0 ? cond_run(m, i, eq) : 0;
        if (n > 0 && put_conditional(w, eq, n, 1)) {
            i += n;
            continue;
        }
        for (uint32_t k = 0; k < (n > 0 ? n : 1); k++)
            one(w, &m->equations[i + k]);
        i += n > 0 ? n : 1;
    }
    mdae_free(eq);
    mdae_free(done);
    return ok;
}

/* A known's value as a literal of its type (MEL: a Boolean as 0 or 1). */
static void put_value(const writer *w, const mel_known *k)
{
    if (k->kind == MEL_KNOWN_BOOLEAN && w->syn == FX_SYNTAX_MODELICA) {
        puts_(w, k->value != 0 ? "true" : "false");
        return;
    }
    const fx_node *e = fx_num(w->tmp, k->value, k->kind != MEL_KNOWN_REAL, (mdae_range){0});
    if (e == NULL)
        w->b->oom = true;
    else
        put_expr(w, e);
}

/* ---- MEL ------------------------------------------------------------------------ */

/* Mark in read[] the known quantities e reads (FX_KNOWN). */
static void mark_knowns(const fx_node *e, bool *read, uint32_t n)
{
    if (e == NULL)
        return;
    if (e->op == FX_KNOWN && e->index < n)
        read[e->index] = true;
    for (uint32_t i = 0; i < e->n; i++)
        mark_knowns(e->kids[i], read, n);
}

/* The known quantities m's expressions read (an array of m->n_knowns, owned:
 * mdae_free), or NULL on OOM. */
static bool *knowns_read(const mel_model *m)
{
    bool *read = mdae_calloc((size_t)m->n_knowns + 1, sizeof *read);
    if (read == NULL)
        return NULL;
    for (uint32_t i = 0; i < m->n_equations; i++) {
        mark_knowns(m->equations[i].lhs, read, m->n_knowns);
        mark_knowns(m->equations[i].rhs, read, m->n_knowns);
    }
    for (uint32_t i = 0; i < m->n_modes; i++)
        mark_knowns(m->modes[i].def, read, m->n_knowns);
    for (uint32_t i = 0; i < m->n_knowns; i++)
        mark_knowns(m->knowns[i].binding, read, m->n_knowns);
    return read;
}

/* Known quantity k as a MEL declaration: `p : real = e;` as MEL writes a
 * parameter, `N : integer = e;` for an integer constant of a MEL model
 * (which no expression reads as a known: MEL folds them to numbers), else
 * with its prefix, `parameter` or `constant`, its type, its value when it
 * is a Modelica model's or an integer's (which MEL computes with integer
 * division) or has no binding, and its binding if any (docs/convert.md).
 * read: whether an expression reads k. */
static void mel_known_decl(const writer *w, const mel_known *k, bool read)
{
    const mel_model *m = w->m;
    bool plain = !k->constant && k->binding != NULL &&
                 (k->kind == MEL_KNOWN_REAL ||
                  (k->kind == MEL_KNOWN_INTEGER && !m->modelica && !read));
    put_name(w, k->name);
    puts_(w, plain ? " : " : k->constant ? " : constant " : " : parameter ");
    puts_(w, k->kind == MEL_KNOWN_INTEGER   ? "integer"
             : k->kind == MEL_KNOWN_BOOLEAN ? "boolean"
                                            : "real");
    if (!plain && k->known &&
        (k->binding == NULL || m->modelica || k->kind == MEL_KNOWN_INTEGER)) {
        /* the importer's value, which MEL need not compute the same */
        fx_node v = {.op = k->kind == MEL_KNOWN_BOOLEAN ? FX_BOOL : FX_NUM,
                     .is_int = k->kind != MEL_KNOWN_REAL, .num = k->value};
        puts_(w, " (value = ");
        put_expr(w, &v);
        puts_(w, ")");
    }
    if (k->binding != NULL) {
        puts_(w, " = ");
        put_expr(w, k->binding);
    }
    puts_(w, ";\n");
}

static void mel_knowns(const writer *w)
{
    const mel_model *m = w->m;
    if (m->n_knowns == 0)
        return;
    bool *read = knowns_read(m);
    if (read == NULL) {
        w->b->oom = true;
        return;
    }
    puts_(w, "\n// known quantities\n");
    for (uint32_t i = 0; i < m->n_knowns; i++)
        mel_known_decl(w, &m->knowns[i], read[i]);
    mdae_free(read);
}

static void mel_modes(const writer *w)
{
    const mel_model *m = w->m;
    if (m->n_modes > 0)
        puts_(w, "\n// mode variables\n");
    for (uint32_t i = 0; i < m->n_modes; i++) {
        put_name(w, m->modes[i].name);
        puts_(w, " : boolean");
        if (m->modes[i].def != NULL) {
            puts_(w, " = ");
            put_expr(w, m->modes[i].def);
        }
        puts_(w, ";\n");
    }
}

static void mel_invariants(const writer *w)
{
    const mel_model *m = w->m;
    if (m->n_invariants > 0)
        puts_(w, "\n// invariants\n");
    for (uint32_t i = 0; i < m->n_invariants; i++) {
        if (m->invariants[i].when != 0) {
            puts_(w, "// transient modes: the when-clause below\n");
            continue;
        }
        puts_(w, "invariant ");
        put_guard(w, m->invariants[i].cond);
        puts_(w, ";\n");
    }
}

/* "if G then " before what guard g conditions (nothing when g is TRUE);
 * whether it wrote it. */
static bool open_guard(const writer *w, const mel_guard *g)
{
    if (g->op == MEL_G_TRUE)
        return false;
    puts_(w, "if ");
    put_guard(w, g);
    puts_(w, " then ");
    return true;
}

/* The unknowns, those that exist in all modes (guarded: false) or the
 * others, each in a conditional statement of its guard. These come after
 * the equations, so that the equations' conditional statements keep their
 * numbers (mel_equation.cond counts every conditional statement). */
static void mel_unknowns(const writer *w, bool guarded)
{
    const mel_model *m = w->m;
    bool any = false;
    for (uint32_t i = 0; i < m->n_variables; i++) {
        const mel_variable *v = &m->variables[i];
        if ((v->guard->op != MEL_G_TRUE) != guarded)
            continue;
        if (!any)
            puts_(w, guarded ? "\n// unknowns that exist in some modes\n" : "\n// unknowns\n");
        any = true;
        open_guard(w, v->guard);
        put_name(w, v->name);
        puts_(w, guarded ? " : real end;\n" : " : real;\n");
    }
}

/* An equation outside conditionals and when-clauses (its guard, if any,
 * in a conditional statement of its own). */
static void mel_write_equation(const writer *w, const mel_equation *q)
{
    puts_(w, "  ");
    bool guarded = open_guard(w, q->guard);
    put_label(w, q->name);
    puts_(w, " : equation ");
    put_equation_body(w, q);
    puts_(w, guarded ? " end;\n" : ";\n");
}

/* A when-clause's condition. One that elaboration folded to a constant
 * (`!g & g`) prints as a formula that folds the same way, g & !g or
 * g | !g, since MEL refuses a constant condition as written. */
static void put_when_cond(const writer *w, const mel_guard *c)
{
    bool constant = c->op == MEL_G_TRUE || c->op == MEL_G_FALSE;
    if (!constant || w->m->n_modes == 0) {
        put_guard(w, c);
        return;
    }
    const char *g = w->m->modes[0].name;
    put_name(w, g);
    puts_(w, c->op == MEL_G_TRUE ? " | !" : " & !");
    put_name(w, g);
}

/* When-clause k: `when c then` its equations `end;`. */
static void mel_write_when(const writer *w, uint32_t k)
{
    const mel_model *m = w->m;
    const mel_guard *c = m->whens[k].cond;
    puts_(w, "  when ");
    put_when_cond(w, c);
    puts_(w, " then\n");
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *q = &m->equations[i];
        if (q->when != k + 1)
            continue;
        const mel_guard *g = guard_inside_when(q->guard, c);
        puts_(w, "    ");
        if (g != NULL) {
            puts_(w, "if ");
            put_guard(w, g);
            puts_(w, " then ");
        }
        put_label(w, q->name);
        puts_(w, " : equation ");
        put_equation_body(w, q);
        puts_(w, g != NULL ? " end;\n" : ";\n");
    }
    puts_(w, "  end;\n");
}

const char *mo__event_kind(mel_event_kind k)
{
    switch (k) {
    case MEL_EV_WHEN: return "when";
    case MEL_EV_REINIT: return "reinit";
    case MEL_EV_DISCRETE: return "discrete";
    case MEL_EV_INITIAL: return "initial";
    case MEL_EV_ASSERT: return "assert";
    }
    return "?";
}

static void mel_events(const writer *w)
{
    const mel_model *m = w->m;
    if (m->n_events > 0)
        puts_(w, "\n// kept aside (not part of the continuous system)\n");
    for (uint32_t i = 0; i < m->n_events; i++) {
        const mel_event *ev = &m->events[i];
        puts_(w, ev->parent >= 0 ? "//     " : "// ");
        puts_(w, mo__event_kind(ev->kind));
        puts_(w, ": ");
        put_comment(w, ev->text);
        puts_(w, "\n");
    }
}

static void write_mel(const writer *w)
{
    const mel_model *m = w->m;
    char line[160];
    snprintf(line, sizeof line,
             "// %u unknowns, %u equations, %u mode variables, %u invariants, %u known\n",
             m->n_variables, m->n_equations, m->n_modes, m->n_invariants, m->n_knowns);
    puts_(w, line);
    mel_knowns(w);
    mel_modes(w);
    mel_invariants(w);
    mel_unknowns(w, false);
    if (m->n_equations > 0)
        puts_(w, "\n// equations\n");
    if (!put_equations(w, mel_write_equation, mel_write_when))
        w->b->oom = true;
    mel_unknowns(w, true);
    mel_events(w);
}

/* ---- Modelica -------------------------------------------------------------------- */
static void mo_knowns(const writer *w)
{
    const mel_model *m = w->m;
    for (uint32_t i = 0; i < m->n_knowns; i++) {
        const mel_known *k = &m->knowns[i];
        puts_(w, k->constant ? "  constant " : "  parameter ");
        puts_(w, k->kind == MEL_KNOWN_INTEGER   ? "Integer "
                 : k->kind == MEL_KNOWN_BOOLEAN ? "Boolean "
                                                : "Real ");
        put_name(w, k->name);
        if (k->binding != NULL) {
            puts_(w, " = ");
            put_expr(w, k->binding);
        } else if (k->known) { /* a value the importer kept without its expression */
            puts_(w, " = ");
            put_value(w, k);
        }
        puts_(w, ";\n");
    }
}

/* The names only texts read (mo__undeclared), as discrete variables. */
static void mo_undeclared(const writer *w, const mo__decl *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].type == MO_DECL_RECORD)
            continue;
        puts_(w, v[i].type == MO_DECL_BOOLEAN   ? "  discrete Boolean "
                 : v[i].type == MO_DECL_INTEGER ? "  discrete Integer "
                                                : "  discrete Real ");
        put_name(w, v[i].name);
        puts_(w, "; // kept as text: its type guessed\n");
    }
}

static void mo_records(const writer *w, const mo__decl *v, size_t n);

void mo__write_undeclared(mdae_buf *b, const mel_model *m, const mo__decl *v, size_t n,
                          bool records)
{
    writer w = {.b = b, .m = m, .syn = FX_SYNTAX_MODELICA};
    if (records)
        mo_records(&w, v, n);
    else
        mo_undeclared(&w, v, n);
}

void mo__write_knowns(mdae_buf *b, const mel_model *m)
{
    writer w = {.b = b, .m = m, .syn = FX_SYNTAX_MODELICA, .tmp = fx_pool_new()};
    if (w.tmp == NULL || (mo_knowns(&w), fx_pool_failed(w.tmp)))
        b->oom = true;
    fx_pool_free(w.tmp);
}

/* An unknown's `(start = e, fixed = true)` as the importer read it
 * (mel_variable.start, .fixed), so that a round trip keeps it; nothing
 * when it has neither. */
static void put_initial(const writer *w, const mel_variable *x)
{
    if (x->start == NULL && !x->fixed)
        return;
    puts_(w, "(");
    if (x->start != NULL) {
        puts_(w, "start = ");
        put_expr(w, x->start);
    }
    puts_(w, x->start == NULL ? "fixed = true" : x->fixed ? ", fixed = true" : "");
    puts_(w, ")");
}

static void mo_declarations(const writer *w, const mo__decl *v, size_t n)
{
    const mel_model *m = w->m;
    mo_knowns(w);
    for (uint32_t i = 0; i < m->n_variables; i++) {
        puts_(w, "  Real ");
        put_name(w, m->variables[i].name);
        put_initial(w, &m->variables[i]);
        puts_(w, ";");
        if (m->variables[i].guard->op != MEL_G_TRUE) {
            puts_(w, " // exists when ");
            put_guard(w, m->variables[i].guard);
        }
        puts_(w, "\n");
    }
    for (uint32_t i = 0; i < m->n_modes; i++) {
        /* a relation atom is its relation; a Boolean parameter without a
         * value (fixed = false) is a mode variable declared above */
        if (fx_mode_is_atom(m, i) || mel_model_find_known(m, m->modes[i].name) >= 0)
            continue;
        puts_(w, "  Boolean ");
        put_name(w, m->modes[i].name);
        puts_(w, ";\n");
    }
    mo_undeclared(w, v, n);
}

/* The functions texts call that the printed model declares as records
 * (mo_write.h, MO_DECL_RECORD), before the model. */
static void mo_records(const writer *w, const mo__decl *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].type != MO_DECL_RECORD)
            continue;
        puts_(w, "record ");
        put_name(w, v[i].name);
        puts_(w, " // called in a text kept as such: an array or record result\nend ");
        put_name(w, v[i].name);
        puts_(w, ";\n");
    }
}

/* A when-equation: reinit(x, e) for next(x) = e, else as written. */
static void mo_when_body(const writer *w, const mel_equation *q)
{
    const fx_node *l = q->lhs;
    bool reinit = l != NULL && q->rhs != NULL &&
                  ((l->op == FX_NEXT && l->kids[0]->op == FX_VAR && l->kids[0]->order == 0) ||
                   (l->op == FX_VAR && l->order == 0));
    if (!reinit) {
        put_equation_body(w, q);
        return;
    }
    const fx_node *x = l->op == FX_NEXT ? l->kids[0] : l;
    puts_(w, "reinit(");
    put_expr(w, x);
    puts_(w, ", ");
    put_expr(w, q->rhs);
    puts_(w, ")");
}

static void mo_equation(const writer *w, const mel_equation *q)
{
    puts_(w, "  ");
    bool guarded = open_guard(w, q->guard);
    mo_label(w, q->name);
    put_equation_body(w, q);
    puts_(w, guarded ? "; end if;\n" : ";\n");
}

/* The when-equations of when-clause k, in one when-equation. */
static void mo_when(const writer *w, uint32_t k)
{
    const mel_model *m = w->m;
    puts_(w, "  when ");
    put_guard(w, m->whens[k].cond);
    puts_(w, " then\n");
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *q = &m->equations[i];
        if (q->when != k + 1)
            continue;
        const mel_guard *g = guard_inside_when(q->guard, m->whens[k].cond);
        puts_(w, "    ");
        if (g != NULL) {
            puts_(w, "if ");
            put_guard(w, g);
            puts_(w, " then ");
        }
        mo_label(w, q->name);
        mo_when_body(w, q);
        puts_(w, g != NULL ? "; end if;\n" : ";\n");
    }
    puts_(w, "  end when;\n");
}

/* Whether when-event i is one of the when-clauses above (it has a reinit,
 * which made it a transient mode), so that it is not printed twice. */
static bool event_is_transient(const mel_model *m, uint32_t i)
{
    if (m->n_whens == 0)
        return false;
    for (uint32_t j = i + 1; j < m->n_events; j++)
        if (m->events[j].parent == (long)i && m->events[j].kind == MEL_EV_REINIT)
            return true;
    return false;
}

/* Whether event text is the definition `b = ...` of a mode variable that
 * is printed with its definition already. */
static bool event_defines_mode(const writer *w, const char *text)
{
    const mel_model *m = w->m;
    for (uint32_t k = 0; k < m->n_modes; k++) {
        if (m->modes[k].def == NULL || fx_mode_is_atom(m, k))
            continue;
        mdae_buf nb = {0};
        fx_print_name(&nb, m->modes[k].name, FX_SYNTAX_MODELICA);
        const char *names[2] = {nb.p, m->modes[k].name};
        bool hit = false;
        for (int i = 0; i < 2 && !hit; i++) {
            size_t n = names[i] != NULL ? strlen(names[i]) : 0;
            hit = n > 0 && strncmp(text, names[i], n) == 0 && strncmp(text + n, " =", 2) == 0 &&
                  text[n + 2] != '=';
        }
        mdae_free(nb.p);
        if (hit)
            return true;
    }
    return false;
}

/* The kept events as text: when-clauses (those that are not transient
 * modes) with what they hold, discrete equations and asserts; initial
 * sections and algorithm statements, which an equation section cannot
 * hold, as comments. */
static void mo_events_but(const writer *w, bool whens);

static void mo_events(const writer *w)
{
    mo_events_but(w, true);
}

void mo__write_events(mdae_buf *b, const mel_model *m, bool whens)
{
    writer w = {.b = b, .m = m, .syn = FX_SYNTAX_MODELICA};
    mo_events_but(&w, whens);
}

static void mo_events_but(const writer *w, bool whens)
{
    const mel_model *m = w->m;
    for (uint32_t i = 0; i < m->n_events; i++) {
        const mel_event *ev = &m->events[i];
        if (ev->parent >= 0 || (ev->kind == MEL_EV_DISCRETE && event_defines_mode(w, ev->text)) ||
            (ev->kind == MEL_EV_WHEN && !whens))
            continue;
        bool text = ev->kind != MEL_EV_INITIAL && strstr(ev->text, ":=") == NULL;
        if (ev->kind == MEL_EV_WHEN) {
            if (event_is_transient(m, i))
                continue;
            for (uint32_t j = i + 1; j < m->n_events && text; j++)
                if (m->events[j].parent == (long)i && strstr(m->events[j].text, ":=") != NULL)
                    text = false;
        }
        puts_(w, text ? "  " : "  // ");
        puts_(w, ev->kind == MEL_EV_INITIAL ? "initial: " : "");
        if (ev->kind != MEL_EV_WHEN) {
            put_comment(w, ev->text);
            puts_(w, ";\n");
            continue;
        }
        puts_(w, "when ");
        put_comment(w, ev->text);
        puts_(w, " then");
        for (uint32_t j = i + 1; j < m->n_events; j++) {
            if (m->events[j].parent != (long)i)
                continue;
            puts_(w, " ");
            put_comment(w, m->events[j].text);
            puts_(w, ";");
        }
        puts_(w, " end when;\n");
    }
}

static void write_modelica(const writer *w, const char *name)
{
    const mel_model *m = w->m;
    mo__decl *v = NULL;
    size_t n = 0;
    if (mo__undeclared(m, &v, &n) != MDAE_OK) {
        w->b->oom = true;
        return;
    }
    mo_records(w, v, n);
    puts_(w, "model ");
    put_name(w, name);
    puts_(w, "\n");
    mo_declarations(w, v, n);
    mo__decls_free(v, n);
    puts_(w, "equation\n");
    for (uint32_t i = 0; i < m->n_modes; i++) {
        if (m->modes[i].def == NULL || fx_mode_is_atom(m, i))
            continue;
        puts_(w, "  ");
        put_name(w, m->modes[i].name);
        puts_(w, " = ");
        put_expr(w, m->modes[i].def);
        puts_(w, ";\n");
    }
    if (!put_equations(w, mo_equation, mo_when))
        w->b->oom = true;
    mo_events(w);
    puts_(w, "end ");
    put_name(w, name);
    puts_(w, ";\n");
}

int mo__write(const mel_model *m, fx_syntax syntax, const char *name, char **out)
{
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    mdae_buf b = {0};
    writer w = {.b = &b, .m = m, .syn = syntax, .tmp = fx_pool_new()};
    if (w.tmp == NULL)
        return MDAE_E_NOMEM;
    if (syntax == FX_SYNTAX_MEL)
        write_mel(&w);
    else
        write_modelica(&w, name != NULL && *name != '\0' ? name : "Model");
    bool oom = b.oom || fx_pool_failed(w.tmp);
    fx_pool_free(w.tmp);
    if (oom) {
        mdae_free(b.p);
        return MDAE_E_NOMEM;
    }
    *out = b.p != NULL ? b.p : mdae_strdup("");
    return *out != NULL ? MDAE_OK : MDAE_E_NOMEM;
}
