/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_outline.c -- the Modelica walk of the source outline
 * (mel_outline.h; the builder and the MEL walk are in mel_outline.c).
 *
 * Each model, block or class is a CLASS symbol and a scope of its own: its
 * components are the declarations (kind by prefix and type), its equation
 * and algorithm sections give the equations (named by their label comment,
 * else by their normalised text, cut), if-equations an IF symbol per
 * branch, for-equations FOR and when-clauses WHEN symbols. Packages are
 * walked for the classes they hold; functions, records and types are not
 * (their components are not the model's).
 */
#include "mel_int.h"
#include "mo_int.h"

#include <stdio.h>
#include <string.h>

typedef struct mo_walk {
    mel__outb *b;
    uint32_t scope;
    uint32_t n_scopes;
} mo_walk;

static void walk_expr(mo_walk *w, const mo__expr *e)
{
    if (e == NULL)
        return;
    if (e->kind == MO_E_REF && e->n_parts > 0) {
        mdae_buf nb = {0};
        for (uint32_t k = 0; k < e->n_parts; k++) {
            if (k > 0)
                mdae_buf_puts(&nb, ".");
            mdae_buf_puts(&nb, e->parts[k].name);
        }
        if (nb.oom)
            w->b->rc = MDAE_E_NOMEM;
        else
            mel__outb_ref(w->b, nb.p ? nb.p : "", nb.len, e->where, w->scope);
        mdae_free(nb.p);
    }
    for (uint32_t k = 0; k < e->n_parts; k++) /* a call's name has parts too */
        for (uint32_t i = 0; i < e->parts[k].n_subs; i++)
            walk_expr(w, e->parts[k].subs[i]);
    for (uint32_t k = 0; k < e->n_kids; k++)
        walk_expr(w, e->kids[k]);
    for (uint32_t k = 0; k < e->n_iters; k++)
        walk_expr(w, e->iters[k].range);
}

/* s's text for its symbol name: "lhs = rhs", at most 60 bytes (cut at a
 * UTF-8 boundary, "..." added). Owned by the caller; NULL on OOM. */
static char *eq_text(const mo__stmt *s)
{
    mdae_buf b = {0};
    if (s->kind == MO_S_CALL) {
        mo__expr_print(&b, s->rhs);
    } else {
        mo__expr_print(&b, s->lhs);
        mdae_buf_puts(&b, s->kind == MO_S_ASSIGN ? " := " : " = ");
        mo__expr_print(&b, s->rhs);
    }
    if (b.oom) {
        mdae_free(b.p);
        return NULL;
    }
    if (b.p == NULL)
        return mdae_strdup("");
    if (b.len > 60) {
        size_t cut = 57;
        while (cut > 0 && ((unsigned char)b.p[cut] & 0xC0) == 0x80)
            cut--;
        memcpy(b.p + cut, "...", 4);
    }
    return b.p;
}

static void walk_stmts(mo_walk *w, const mo__stmt *s, long parent);

/* "if c" / "elseif c" / "else" / "when c" (the condition cut to 60 bytes). */
static long branch_symbol(mo_walk *w, mel_ol_kind kind, const char *kw, const mo__expr *c,
                          mdae_range where, long parent)
{
    mdae_buf b = {0};
    mdae_buf_puts(&b, kw);
    if (c != NULL) {
        mdae_buf_puts(&b, " ");
        mo__expr_print(&b, c);
    }
    if (b.oom || b.p == NULL) {
        mdae_free(b.p);
        w->b->rc = MDAE_E_NOMEM;
        return -1;
    }
    if (b.len > 64)
        memcpy(b.p + 61, "...", 4);
    mdae_range nw = c ? c->where : where;
    long me = mel__outb_symbol(w->b, kind, b.p, strlen(b.p),
                               kind == MEL_OL_WHEN ? "when-clause" : "if-equation", where, nw,
                               parent, w->scope);
    mdae_free(b.p);
    return me;
}

static mdae_range body_range(const mo__stmt *s, mdae_range dflt)
{
    if (s == NULL)
        return dflt;
    mdae_range r = s->where;
    for (; s != NULL; s = s->next)
        r.end = s->where.end;
    return r;
}

static void walk_branches(mo_walk *w, const mo__stmt *s, long parent)
{
    bool when = s->kind == MO_S_WHEN;
    long first = -1;
    for (uint32_t k = 0; k < s->n_branches && w->b->rc == MDAE_OK; k++) {
        const mo__expr *c = s->conds[k];
        const char *kw = when ? (k ? "elsewhen" : "when") : c == NULL ? "else" : k ? "elseif" : "if";
        mdae_range where = k == 0 ? s->where : body_range(s->bodies[k], s->where);
        long me = branch_symbol(w, when ? MEL_OL_WHEN : MEL_OL_IF, kw, c, where,
                                k == 0 ? parent : first);
        if (me < 0)
            return;
        if (k == 0)
            first = me;
        walk_expr(w, c);
        walk_stmts(w, s->bodies[k], me);
    }
}

static void walk_stmt(mo_walk *w, const mo__stmt *s, long parent)
{
    switch ((mo__sk)s->kind) {
    case MO_S_EQ:
    case MO_S_ASSIGN:
    case MO_S_CALL:
    case MO_S_CONNECT: {
        char *t = s->label ? NULL : eq_text(s);
        const char *name = s->label ? s->label : t;
        if (name == NULL) {
            w->b->rc = MDAE_E_NOMEM;
            return;
        }
        mel__outb_symbol(w->b, MEL_OL_EQUATION, name, strlen(name),
                         s->kind == MO_S_ASSIGN ? "algorithm" : "equation", s->where, s->where,
                         parent, w->scope);
        mdae_free(t);
        walk_expr(w, s->lhs);
        walk_expr(w, s->rhs);
        return;
    }
    case MO_S_IF:
    case MO_S_WHEN:
        walk_branches(w, s, parent);
        return;
    case MO_S_FOR:
    case MO_S_WHILE: {
        char buf[96];
        if (s->kind == MO_S_FOR && s->n_iters > 0)
            snprintf(buf, sizeof buf, "for %s", s->iters[0].name ? s->iters[0].name : "?");
        else
            snprintf(buf, sizeof buf, "%s", s->kind == MO_S_FOR ? "for" : "while");
        long me = mel__outb_symbol(w->b, MEL_OL_FOR, buf, strlen(buf), "loop", s->where,
                                   s->where, parent, w->scope);
        for (uint32_t k = 0; k < s->n_iters; k++)
            walk_expr(w, s->iters[k].range);
        if (s->kind == MO_S_WHILE && s->n_branches > 0)
            walk_expr(w, s->conds[0]);
        if (me >= 0)
            walk_stmts(w, s->body, me);
        return;
    }
    case MO_S_BREAK:
    case MO_S_RETURN:
        return;
    }
}

static void walk_stmts(mo_walk *w, const mo__stmt *s, long parent)
{
    /* nesting is bounded by the parser's max_depth */
    for (; s != NULL && w->b->rc == MDAE_OK; s = s->next)
        walk_stmt(w, s, parent);
}

static mel_ol_kind comp_kind(const mo__comp *c)
{
    if (c->prefixes & (MO_P_PARAMETER | MO_P_CONSTANT))
        return MEL_OL_PARAMETER;
    if (strcmp(c->type, "Real") == 0)
        return MEL_OL_UNKNOWN;
    if (strcmp(c->type, "Boolean") == 0)
        return MEL_OL_MODE;
    if (strcmp(c->type, "Integer") == 0)
        return MEL_OL_INTEGER;
    return MEL_OL_OTHER;
}

static void walk_class(mo_walk *w, const mo__class *cl, long parent)
{
    if (cl->kind == MO_C_PACKAGE) {
        for (const mo__class *k = cl->classes; k != NULL && w->b->rc == MDAE_OK; k = k->next)
            walk_class(w, k, parent);
        return;
    }
    if (cl->kind != MO_C_MODEL && cl->kind != MO_C_BLOCK && cl->kind != MO_C_CLASS)
        return;
    uint32_t outer = w->scope;
    w->scope = ++w->n_scopes;
    long me = mel__outb_symbol(w->b, MEL_OL_CLASS, cl->name, strlen(cl->name), "model",
                               cl->where, cl->where, parent, w->scope);
    for (const mo__comp *c = cl->comps; c != NULL && me >= 0 && w->b->rc == MDAE_OK; c = c->next) {
        char detail[128];
        snprintf(detail, sizeof detail, "%s%s%s%s",
                 (c->prefixes & MO_P_PARAMETER)  ? "parameter "
                 : (c->prefixes & MO_P_CONSTANT) ? "constant "
                                                 : "",
                 (c->prefixes & MO_P_DISCRETE) ? "discrete " : "",
                 (c->prefixes & MO_P_INPUT) ? "input " : "", c->type);
        mdae_range all = c->type_where;
        all.end = c->where.end;
        if (all.start.line == 0 || all.start.offset > c->where.start.offset)
            all = c->where;
        mel__outb_symbol(w->b, comp_kind(c), c->name, strlen(c->name), detail, all, c->where,
                         me, w->scope);
        for (uint32_t k = 0; k < c->n_dims; k++)
            walk_expr(w, c->dims[k]);
        walk_expr(w, c->binding);
    }
    for (const mo__section *sec = cl->sections; sec != NULL && me >= 0; sec = sec->next)
        walk_stmts(w, sec->stmts, me);
    for (const mo__class *k = cl->classes; k != NULL && me >= 0; k = k->next)
        walk_class(w, k, me);
    /* the class's range: from its name to the end of what it holds (the
     * parser keeps only the name's), so that its children lie inside it */
    mel_outline *o = w->b->o;
    for (size_t k = me >= 0 ? (size_t)me + 1 : o->n_symbols; k < o->n_symbols; k++)
        if (o->symbols[k].where.end.offset > o->symbols[me].where.end.offset)
            o->symbols[me].where.end = o->symbols[k].where.end;
    w->scope = outer;
}

int mo__outline(const char *text, size_t len, size_t max_depth, mel__report *rep,
                mel__arena *ast, mel__outb *b)
{
    mo__class *top = NULL;
    int rc = mo__parse(text, len, max_depth, ast, rep, &top);
    if (rc != MDAE_OK && rc != MDAE_E_PARSE)
        return rc;
    mo_walk w = {b, 0, 0};
    for (const mo__class *cl = top; cl != NULL && b->rc == MDAE_OK; cl = cl->next)
        walk_class(&w, cl, -1);
    return MDAE_OK;
}
