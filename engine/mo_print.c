/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_print.c -- mo_model_to_mel: any elaborated model as MEL text
 * that reads back (mel_model_parse) into the same structure, for
 * `mdae convert FILE --to mel`.
 *
 * Each equation becomes `name : equation 0 = t1 + t2 + ...` where a term is
 * der^k(x) for an incidence case of order k, wrapped in `(if G then ... else
 * 0)` when its guard G is not TRUE; an equation guard becomes a conditional
 * statement around it. That reproduces every incidence, order and guard
 * exactly (it is not the model's arithmetic, which the structure does not
 * keep). Names that are not MEL identifiers (Modelica's `stop1.v`, atoms
 * like `s >= 0`) are rewritten to identifiers, unique in the text, and the
 * original name is given in a comment.
 *
 * That is the output for a model without expressions
 * (mel_options.no_expressions); a model with them prints its equations
 * (engine/mo_write.c).
 */
#include "mo.h"
#include "mo_write.h"

#include <stdio.h>
#include <string.h>

static const char *const mel_keywords[] = {"real", "boolean", "integer", "equation",
                                           "invariant", "if", "then", "else", "end",
                                           "foreach", "in", "do", "done", "der", "last",
                                           "pre", "true", "false", "when", "next"};

typedef struct names {
    char **v; /* mangled name per item: modes, then variables, then equations */
    size_t n;
} names;

static bool is_ident(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
              (*p >= '0' && *p <= '9')))
            return false;
    for (size_t k = 0; k < sizeof mel_keywords / sizeof *mel_keywords; k++)
        if (strcmp(s, mel_keywords[k]) == 0)
            return false;
    return true;
}

/* A simple open-addressing set of the names given so far. */
typedef struct nset {
    const char **slot;
    size_t cap;
} nset;

static bool nset_has(const nset *s, const char *name, size_t *where)
{
    size_t i = (size_t)mdae_hash(name, strlen(name)) & (s->cap - 1);
    while (s->slot[i] != NULL) {
        if (strcmp(s->slot[i], name) == 0) {
            *where = i;
            return true;
        }
        i = (i + 1) & (s->cap - 1);
    }
    *where = i;
    return false;
}

/* A fresh identifier for `orig` (prefix used when orig has no usable
 * letters). NULL on OOM. */
static char *mangle(nset *set, const char *orig, const char *prefix, size_t k)
{
    char base[300];
    size_t n = 0;
    if (is_ident(orig) && strlen(orig) < sizeof base) {
        n = (size_t)snprintf(base, sizeof base, "%s", orig);
    } else if (prefix != NULL) {
        n = (size_t)snprintf(base, sizeof base, "%s%zu", prefix, k + 1);
    } else {
        for (const char *p = orig; *p && n < 200; p++) {
            char c = *p;
            bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                      (c >= '0' && c <= '9');
            if (n == 0 && c >= '0' && c <= '9')
                base[n++] = '_';
            if (ok)
                base[n++] = c;
            else if (n > 0 && base[n - 1] != '_')
                base[n++] = '_';
        }
        while (n > 1 && base[n - 1] == '_')
            n--;
        if (n == 0)
            base[n++] = 'x';
        base[n] = 0;
        if (!is_ident(base) && n + 1 < sizeof base) {
            base[n++] = '_';
            base[n] = 0;
        }
    }
    char buf[340];
    snprintf(buf, sizeof buf, "%s", base);
    size_t where;
    for (int i = 2; nset_has(set, buf, &where); i++)
        snprintf(buf, sizeof buf, "%s_%d", base, i);
    char *r = mdae_strdup(buf);
    if (r != NULL)
        set->slot[where] = r;
    return r;
}

static int gprec(const mel_guard *g)
{
    switch (g->op) {
    case MEL_G_OR: return 1;
    case MEL_G_AND: return 2;
    case MEL_G_NOT: return 3;
    default: return 4;
    }
}

/* g as MEL, in parentheses if its operator binds less than min. Every &
 * or | nested in another gets parentheses, so that the text reads back as
 * the very tree printed: MEL reads a flat chain a & b & c as a balanced tree
 * and simplifies each node on its own (mel_guard.c: complementary or equal
 * operands), so the importer's left-nested (!c3 & !c4) & c4, printed flat,
 * read back as !c3 & (!c4 & c4), that is false, and the incidence it
 * guarded was lost (found by mo_parse_fuzz). */
static void put_guard(mdae_buf *b, char *const *mode_names, const mel_guard *g, int min)
{
    bool par = gprec(g) < min;
    if (par)
        mdae_buf_puts(b, "(");
    switch (g->op) {
    case MEL_G_FALSE: mdae_buf_puts(b, "false"); break;
    case MEL_G_TRUE: mdae_buf_puts(b, "true"); break;
    case MEL_G_VAR: mdae_buf_puts(b, mode_names[g->var]); break;
    case MEL_G_NOT:
        mdae_buf_puts(b, "!");
        put_guard(b, mode_names, g->lhs, 3);
        break;
    case MEL_G_AND: /* a nested & or | in parentheses on either side (below) */
        put_guard(b, mode_names, g->lhs, 3);
        mdae_buf_puts(b, " & ");
        put_guard(b, mode_names, g->rhs, 3);
        break;
    case MEL_G_OR:
        put_guard(b, mode_names, g->lhs, 2);
        mdae_buf_puts(b, " | ");
        put_guard(b, mode_names, g->rhs, 2);
        break;
    }
    if (par)
        mdae_buf_puts(b, ")");
}

static void put_comment(mdae_buf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        char c = (*p == '\n' || *p == '\r') ? ' ' : *p;
        mdae_buf_put(b, &c, 1);
    }
}

/* Whether m kept its expressions (issue 38): its pool, or any expression
 * (a model built by hand has no pool). */
static bool has_expressions(const mel_model *m)
{
    if (mel_model_exprs(m) != NULL || m->n_knowns > 0)
        return true;
    for (uint32_t i = 0; i < m->n_equations; i++)
        if (m->equations[i].lhs != NULL)
            return true;
    for (uint32_t i = 0; i < m->n_modes; i++)
        if (m->modes[i].def != NULL)
            return true;
    return false;
}

int mo_model_to_modelica(const mel_model *m, const char *name, char **out)
{
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (!has_expressions(m))
        return MDAE_E_NOTIMPL;
    return mo__write(m, FX_SYNTAX_MODELICA, name, out);
}

int mo_model_to_mel(const mel_model *m, char **out)
{
    if (m == NULL || out == NULL)
        return MDAE_E_INVAL;
    if (has_expressions(m))
        return mo__write(m, FX_SYNTAX_MEL, NULL, out);
    size_t total = (size_t)m->n_modes + m->n_variables + m->n_equations;
    nset set;
    set.cap = 16;
    while (set.cap < 2 * total + 16)
        set.cap *= 2;
    set.slot = mdae_calloc(set.cap, sizeof *set.slot);
    char **nm = mdae_calloc(total + 1, sizeof *nm);
    mdae_buf b = {0};
    int rc = MDAE_OK;
    if (set.slot == NULL || nm == NULL) {
        rc = MDAE_E_NOMEM;
        goto out;
    }
    char **mode_nm = nm, **var_nm = nm + m->n_modes, **eq_nm = var_nm + m->n_variables;
    /* identifiers first, so that they keep their names */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < m->n_modes; i++)
            if ((pass == 0) == is_ident(m->modes[i].name) && mode_nm[i] == NULL &&
                (mode_nm[i] = mangle(&set, m->modes[i].name, pass ? "c" : NULL, i)) == NULL)
                rc = MDAE_E_NOMEM;
        for (uint32_t i = 0; i < m->n_variables; i++)
            if ((pass == 0) == is_ident(m->variables[i].name) && var_nm[i] == NULL &&
                (var_nm[i] = mangle(&set, m->variables[i].name, NULL, i)) == NULL)
                rc = MDAE_E_NOMEM;
        for (uint32_t i = 0; i < m->n_equations; i++)
            if ((pass == 0) == is_ident(m->equations[i].name) && eq_nm[i] == NULL &&
                (eq_nm[i] = mangle(&set, m->equations[i].name,
                                   strlen(m->equations[i].name) > 24 ? "e" : NULL, i)) == NULL)
                rc = MDAE_E_NOMEM;
    }
    if (rc != MDAE_OK)
        goto out;
    char line[128];
    snprintf(line, sizeof line,
             "// %u unknowns, %u equations, %u mode variables, %u invariants\n",
             m->n_variables, m->n_equations, m->n_modes, m->n_invariants);
    mdae_buf_puts(&b, line);
    if (m->n_modes > 0)
        mdae_buf_puts(&b, "\n// mode variables (the condition each stands for)\n");
    for (uint32_t i = 0; i < m->n_modes; i++) {
        mdae_buf_puts(&b, mode_nm[i]);
        mdae_buf_puts(&b, " : boolean;");
        if (strcmp(mode_nm[i], m->modes[i].name) != 0) {
            mdae_buf_puts(&b, " // ");
            put_comment(&b, m->modes[i].name);
        }
        mdae_buf_puts(&b, "\n");
    }
    if (m->n_invariants > 0)
        mdae_buf_puts(&b, "\n// invariants\n");
    for (uint32_t i = 0; i < m->n_invariants; i++) {
        if (m->invariants[i].when != 0) { /* the `when` below says it again */
            mdae_buf_puts(&b, "// transient modes: the when-clause below\n");
            continue;
        }
        mdae_buf_puts(&b, "invariant ");
        put_guard(&b, mode_nm, m->invariants[i].cond, 0);
        mdae_buf_puts(&b, ";\n");
    }
    if (m->n_variables > 0)
        mdae_buf_puts(&b, "\n// unknowns\n");
    for (uint32_t i = 0; i < m->n_variables; i++) {
        const mel_variable *v = &m->variables[i];
        bool guarded = v->guard->op != MEL_G_TRUE;
        if (guarded) {
            mdae_buf_puts(&b, "if ");
            put_guard(&b, mode_nm, v->guard, 0);
            mdae_buf_puts(&b, " then ");
        }
        mdae_buf_puts(&b, var_nm[i]);
        mdae_buf_puts(&b, " : real");
        mdae_buf_puts(&b, guarded ? " end;" : ";");
        if (strcmp(var_nm[i], v->name) != 0) {
            mdae_buf_puts(&b, " // ");
            put_comment(&b, v->name);
        }
        mdae_buf_puts(&b, "\n");
    }
    if (m->n_equations > 0)
        mdae_buf_puts(&b, "\n// equations: one term per incidence case (guard, derivative order)\n");
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *q = &m->equations[i];
        if (strcmp(eq_nm[i], q->name) != 0) {
            mdae_buf_puts(&b, "// ");
            put_comment(&b, q->name);
            mdae_buf_puts(&b, "\n");
        }
        bool guarded = q->guard->op != MEL_G_TRUE;
        if (q->when != 0) { /* a reinit: when C then [if G then] e end */
            mdae_buf_puts(&b, "when ");
            put_guard(&b, mode_nm, m->whens[q->when - 1].cond, 0);
            mdae_buf_puts(&b, " then ");
            guarded = q->guard != m->whens[q->when - 1].cond;
        }
        if (guarded) {
            mdae_buf_puts(&b, "if ");
            put_guard(&b, mode_nm, q->guard, 0);
            mdae_buf_puts(&b, " then ");
        }
        mdae_buf_puts(&b, eq_nm[i]);
        mdae_buf_puts(&b, " : equation 0 = ");
        bool first = true;
        for (uint32_t j = 0; j < q->n_incs; j++) {
            const mel_incidence *inc = &q->incs[j];
            for (uint32_t c = 0; c < inc->n_cases; c++) {
                const mel_order_case *k = &inc->cases[c];
                if (!first)
                    mdae_buf_puts(&b, " + ");
                first = false;
                bool cg = k->guard->op != MEL_G_TRUE;
                if (cg) {
                    mdae_buf_puts(&b, "(if ");
                    put_guard(&b, mode_nm, k->guard, 0);
                    mdae_buf_puts(&b, " then ");
                }
                for (int o = 0; o < k->order; o++)
                    mdae_buf_puts(&b, o < k->next ? "next(" : "der(");
                mdae_buf_puts(&b, var_nm[inc->var]);
                for (int o = 0; o < k->order; o++)
                    mdae_buf_puts(&b, ")");
                if (cg)
                    mdae_buf_puts(&b, " else 0)");
            }
        }
        if (first)
            mdae_buf_puts(&b, "0");
        mdae_buf_puts(&b, guarded ? " end" : "");
        mdae_buf_puts(&b, q->when != 0 ? " end;\n" : ";\n");
    }
    if (m->n_events > 0)
        mdae_buf_puts(&b, "\n// kept aside (not part of the continuous system)\n");
    for (uint32_t i = 0; i < m->n_events; i++) {
        const mel_event *ev = &m->events[i];
        mdae_buf_puts(&b, ev->parent >= 0 ? "//     " : "// ");
        mdae_buf_puts(&b, mo__event_kind(ev->kind));
        mdae_buf_puts(&b, ": ");
        put_comment(&b, ev->text);
        mdae_buf_puts(&b, "\n");
    }
    if (b.oom)
        rc = MDAE_E_NOMEM;
out:
    if (nm != NULL)
        for (size_t i = 0; i < total; i++)
            mdae_free(nm[i]);
    mdae_free(nm);
    mdae_free(set.slot);
    if (rc != MDAE_OK) {
        mdae_free(b.p);
        return rc;
    }
    *out = b.p ? b.p : mdae_strdup("");
    return *out ? MDAE_OK : MDAE_E_NOMEM;
}
