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

static void put_number(const writer *w, double v)
{
    const fx_node *e = fx_num(w->tmp, v, false, (mdae_range){0});
    if (e == NULL)
        w->b->oom = true;
    else
        put_expr(w, e);
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
    put_expr(w, q->lhs);
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

/* ---- MEL ------------------------------------------------------------------------ */
static void mel_knowns(const writer *w)
{
    const mel_model *m = w->m;
    if (m->n_knowns > 0)
        puts_(w, "\n// known quantities\n");
    for (uint32_t i = 0; i < m->n_knowns; i++) {
        const mel_known *k = &m->knowns[i];
        put_name(w, k->name);
        puts_(w, k->kind == MEL_KNOWN_INTEGER ? " : integer = " : " : real = ");
        if (k->binding != NULL)
            put_expr(w, k->binding);
        else if (k->known)
            put_number(w, k->value);
        else
            puts_(w, "0.0");
        puts_(w, ";");
        if (k->kind == MEL_KNOWN_BOOLEAN)
            puts_(w, " // a Boolean parameter (MEL has none)");
        else if (k->binding == NULL)
            puts_(w, k->known ? " // no binding in the source" : " // no binding, no value");
        puts_(w, "\n");
    }
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

static void mel_unknowns(const writer *w)
{
    const mel_model *m = w->m;
    if (m->n_variables > 0)
        puts_(w, "\n// unknowns\n");
    for (uint32_t i = 0; i < m->n_variables; i++) {
        const mel_variable *v = &m->variables[i];
        bool guarded = v->guard->op != MEL_G_TRUE;
        if (guarded) {
            puts_(w, "if ");
            put_guard(w, v->guard);
            puts_(w, " then ");
        }
        put_name(w, v->name);
        puts_(w, guarded ? " : real end;\n" : " : real;\n");
    }
}

static void mel_write_equation(const writer *w, const mel_equation *q)
{
    const mel_guard *g = q->guard->op != MEL_G_TRUE ? q->guard : NULL;
    if (q->when != 0) {
        const mel_guard *c = w->m->whens[q->when - 1].cond;
        puts_(w, "when ");
        put_guard(w, c);
        puts_(w, " then ");
        g = guard_inside_when(q->guard, c);
    }
    if (g != NULL) {
        puts_(w, "if ");
        put_guard(w, g);
        puts_(w, " then ");
    }
    put_name(w, q->name);
    puts_(w, " : equation ");
    put_equation_body(w, q);
    puts_(w, g != NULL ? " end" : "");
    puts_(w, q->when != 0 ? " end;\n" : ";\n");
}

static const char *event_kind(mel_event_kind k)
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
        puts_(w, event_kind(ev->kind));
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
    mel_unknowns(w);
    if (m->n_equations > 0)
        puts_(w, "\n// equations\n");
    for (uint32_t i = 0; i < m->n_equations; i++)
        mel_write_equation(w, &m->equations[i]);
    mel_events(w);
}

/* ---- Modelica -------------------------------------------------------------------- */
static void mo_declarations(const writer *w)
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
        }
        puts_(w, ";\n");
    }
    for (uint32_t i = 0; i < m->n_variables; i++) {
        puts_(w, "  Real ");
        put_name(w, m->variables[i].name);
        puts_(w, ";");
        if (m->variables[i].guard->op != MEL_G_TRUE) {
            puts_(w, " // exists when ");
            put_guard(w, m->variables[i].guard);
        }
        puts_(w, "\n");
    }
    for (uint32_t i = 0; i < m->n_modes; i++) {
        if (fx_mode_is_atom(m, i))
            continue;
        puts_(w, "  Boolean ");
        put_name(w, m->modes[i].name);
        puts_(w, ";\n");
    }
}

/* A label the importer reads back from a comment: an identifier. */
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
    if (ident) {
        puts_(w, "/* ");
        puts_(w, name);
        puts_(w, ": */ ");
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
    bool guarded = q->guard->op != MEL_G_TRUE;
    puts_(w, "  ");
    if (guarded) {
        puts_(w, "if ");
        put_guard(w, q->guard);
        puts_(w, " then ");
    }
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

/* The kept events as text: when-clauses (those that are not transient
 * modes) with what they hold, discrete equations and asserts; initial
 * sections and algorithm statements, which an equation section cannot
 * hold, as comments. */
static void mo_events(const writer *w)
{
    const mel_model *m = w->m;
    for (uint32_t i = 0; i < m->n_events; i++) {
        const mel_event *ev = &m->events[i];
        if (ev->parent >= 0)
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
    puts_(w, "model ");
    put_name(w, name);
    puts_(w, "\n");
    mo_declarations(w);
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
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (m->equations[i].when == 0)
            mo_equation(w, &m->equations[i]);
    for (uint32_t k = 0; k < m->n_whens; k++)
        mo_when(w, k);
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
