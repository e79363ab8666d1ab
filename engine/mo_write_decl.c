/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_write_decl.c -- mo__undeclared (mo_write.h): the variables a
 * printed Modelica model must declare that the flat model does not keep.
 *
 * Why: the flat model keeps unknowns, known quantities and mode variables;
 * what else a Modelica model reads (discrete Integer, Boolean and Real
 * variables, inputs) survives only as text: FX_OPAQUE nodes and the kept
 * events. To read back, the printed model declares each such name, with a
 * type guessed from its uses: Boolean when it is a condition (an
 * if-condition or an operand of not/and/or in an expression, a
 * when-condition, or defined by a relation or Boolean operator); Integer
 * when its definition's numbers are all integers; else a discrete Real.
 * The guess only has to make the text read back as the same flat model:
 * these variables are not unknowns, so their types change no incidence.
 *
 * Names are found in texts by a small scan of Modelica's lexical syntax:
 * quoted names (as written, escapes kept: mo_lex.c keeps them so),
 * identifiers and dotted paths, skipping strings, numbers, keywords and
 * built-ins, iterators (`for i in`) and names followed by '(' (calls).
 * Not declared either: an array or record the model has elements of
 * (`sum(x)` with x[1], x[2] unknowns, `'x[:]'`), which the importer reads
 * as those elements.
 *
 * Calls: a function that FX_OPAQUE texts call and that no expression
 * calls as an unknown function (FX_CALL) was kept as text because the
 * source declared it with an array or record result (or as a record): it
 * is returned as MO_DECL_RECORD, which the printer declares as an empty
 * record, so that the importer keeps those calls as text again.
 */
#include "fx.h"
#include "mo_write.h"

#include <string.h>

/* A set of strings by open addressing (not owned). */
typedef struct strset {
    const char **slot;
    size_t cap, n;
} strset;

typedef struct decls {
    mo__decl *v;
    size_t n, cap;
    strset seen;       /* declared and found names */
    strset containers; /* arrays and records whose elements are declared */
    strset called;     /* functions an expression calls (FX_CALL), and stubs */
    char **owned;      /* the containers' names */
    size_t n_owned, cap_owned;
    bool oom;
    const mel_model *m;
} decls;

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static const char *const skip_words[] = {
    "and", "or", "not", "if", "then", "else", "elseif", "end", "true", "false", "time",
    "when", "elsewhen", "for", "in", "loop", "while", "algorithm", "equation", "initial",
    "der", "pre", "edge", "change", "sample", "reinit", "assert", "terminate", "noEvent",
    "smooth", "der", "abs", "sign", "sqrt", "min", "max", "integer", "Integer", "Real",
    "Boolean", "String", "size", "sum", "product", "fill", "zeros", "ones", "break", "return"};

static bool skip_word(const char *s, size_t n)
{
    for (size_t k = 0; k < sizeof skip_words / sizeof *skip_words; k++)
        if (strlen(skip_words[k]) == n && memcmp(skip_words[k], s, n) == 0)
            return true;
    return false;
}

/* Insert name into set; false if it was there (or on OOM: d->oom). */
static bool set_add(decls *d, strset *set, const char *name)
{
    if (d->oom)
        return false;
    if (2 * (set->n + 1) > set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        const char **t = mdae_calloc(cap, sizeof *t);
        if (t == NULL) {
            d->oom = true;
            return false;
        }
        for (size_t i = 0; i < set->cap; i++) {
            if (set->slot[i] == NULL)
                continue;
            size_t j = (size_t)mdae_hash_str(set->slot[i]) & (cap - 1);
            while (t[j] != NULL)
                j = (j + 1) & (cap - 1);
            t[j] = set->slot[i];
        }
        mdae_free(set->slot);
        set->slot = t;
        set->cap = cap;
    }
    size_t j = (size_t)mdae_hash_str(name) & (set->cap - 1);
    while (set->slot[j] != NULL) {
        if (strcmp(set->slot[j], name) == 0)
            return false;
        j = (j + 1) & (set->cap - 1);
    }
    set->slot[j] = name;
    set->n++;
    return true;
}

static bool set_has(const strset *set, const char *name)
{
    if (set->cap == 0)
        return false;
    size_t j = (size_t)mdae_hash_str(name) & (set->cap - 1);
    for (; set->slot[j] != NULL; j = (j + 1) & (set->cap - 1))
        if (strcmp(set->slot[j], name) == 0)
            return true;
    return false;
}

static bool seen_add(decls *d, const char *name)
{
    return set_add(d, &d->seen, name);
}

static bool grow_owned(decls *d)
{
    size_t cap = d->cap_owned ? 2 * d->cap_owned : 64;
    char **t = mdae_realloc(d->owned, cap * sizeof *t);
    if (t == NULL)
        return false;
    d->owned = t;
    d->cap_owned = cap;
    return true;
}

/* The arrays and records a declared name is part of: "a.b[2].c" adds
 * "a", "a.b" and "a.b[2]", so that a text reading the array a.b whole
 * (sum(a.b)) does not declare it again: the importer reads it as its
 * elements. */
static void add_containers(decls *d, const char *name)
{
    for (const char *p = name + 1; *p && !d->oom; p++) {
        if (*p != '[' && *p != '.')
            continue;
        char *c = mdae_malloc((size_t)(p - name) + 1);
        if (c == NULL || (d->n_owned == d->cap_owned && !grow_owned(d))) {
            mdae_free(c);
            d->oom = true;
            return;
        }
        memcpy(c, name, (size_t)(p - name));
        c[p - name] = '\0';
        if (set_add(d, &d->containers, c))
            d->owned[d->n_owned++] = c;
        else
            mdae_free(c);
    }
}

static mo__decl *find_decl(decls *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->v[i].name, name) == 0)
            return &d->v[i];
    return NULL;
}

/* A new undeclared name (a copy), typed Real until a use says otherwise. */
static const char *subscripts(const char *p);

/* Whether name is an array or record the model has elements of, or an
 * element of one written with a subscript that is not constant
 * ('x[:]', 'v[(1:n)[i]].re', quoted names as OpenModelica exports them):
 * the importer reads those, not a variable to declare. */
static bool is_part_of_declared(decls *d, char *name)
{
    if (set_has(&d->containers, name))
        return true;
    for (char *p = strchr(name, '['); p != NULL; p = strchr(p + 1, '[')) {
        if (subscripts(p) != p)
            continue; /* constant: an element's own name */
        *p = '\0';
        bool hit = set_has(&d->containers, name) || set_has(&d->seen, name);
        *p = '[';
        if (hit)
            return true;
    }
    return false;
}

static void add_name(decls *d, const char *s, size_t n)
{
    char *name = mdae_malloc(n + 1);
    if (name == NULL) {
        d->oom = true;
        return;
    }
    memcpy(name, s, n);
    name[n] = '\0';
    if (is_part_of_declared(d, name) || !seen_add(d, name)) {
        mdae_free(name);
        return;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 16;
        mo__decl *v = mdae_realloc(d->v, cap * sizeof *v);
        if (v == NULL) {
            d->oom = true; /* the set is not read again */
            mdae_free(name);
            return;
        }
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = (mo__decl){.name = name, .type = MO_DECL_REAL};
}

/* After a name at p: its constant subscripts and the fields after them
 * (x[1].y[2,3].z), as the flat model names array elements; where the
 * reference ends. A subscript that is not made of integers ends it
 * before its '['. */
static const char *subscripts(const char *p)
{
    while (*p == '[') {
        const char *q = p + 1;
        while (is_digit(*q) || *q == ',')
            q++;
        if (*q != ']' || q == p + 1)
            return p;
        p = q + 1;
        if (*p == '.' && is_alpha(p[1]))
            for (p++; is_alpha(*p) || is_digit(*p) || (*p == '.' && is_alpha(p[1]));)
                p++;
    }
    return p;
}

static bool word_is(const char *w, size_t n, const char *const *list)
{
    for (; *list != NULL; list++)
        if (strlen(*list) == n && memcmp(*list, w, n) == 0)
            return true;
    return false;
}

/* Whether the name at [s, e) of text t is a condition by its neighbours:
 * after not/and/or/if/elseif/when, or before and/or/then. */
static bool in_condition(const char *t, const char *s, const char *e)
{
    static const char *const before[] = {"not", "and", "or", "if", "elseif", "when", "elsewhen",
                                         NULL};
    static const char *const after[] = {"and", "or", "then", NULL};
    const char *p = s;
    while (p > t && (p[-1] == ' ' || p[-1] == '('))
        p--;
    const char *w = p;
    while (w > t && is_alpha(w[-1]))
        w--;
    if (word_is(w, (size_t)(p - w), before))
        return true;
    for (p = e; *p == ' ' || *p == '\''; p++)
        ;
    for (w = p; is_alpha(*w); w++)
        ;
    return word_is(p, (size_t)(w - p), after);
}

/* Modelica's built-in functions and operators, which are never declared. */
static const char *const builtins[] = {
    "abs", "sign", "sqrt", "div", "mod", "rem", "ceil", "floor", "integer", "Integer",
    "String", "der", "initial", "terminal", "noEvent", "smooth", "sample", "pre", "edge",
    "change", "reinit", "delay", "cardinality", "homotopy", "semiLinear", "inStream",
    "actualStream", "spatialDistribution", "getInstanceName", "ndims", "size", "scalar",
    "vector", "matrix", "identity", "diagonal", "zeros", "ones", "fill", "linspace", "min",
    "max", "sum", "product", "transpose", "outerProduct", "symmetric", "cross", "skew", "cat",
    "array", "Clock", "subSample", "superSample", "shiftSample", "backSample", "noClock",
    "hold", "previous", "interval", "firstTick", "assert", "terminate", "Real", "Boolean",
    NULL};

/* A function that text (kept as FX_OPAQUE) calls, which the flat model
 * does not keep: not a built-in, a known function or one an expression
 * calls (FX_CALL: the importer found it scalar). The importer kept the
 * call as text because the file declared it with an array or record
 * result (or it constructs a record); declared as an empty record, it is
 * kept as text again, not read as a scalar call. */
static void add_record(decls *d, const char *name, size_t n)
{
    if ((memchr(name, '.', n) == NULL && word_is(name, n, builtins)) ||
        fx_fn_lookup(name, 1) != FX_FN_UNKNOWN || fx_fn_lookup(name, 2) != FX_FN_UNKNOWN ||
        set_has(&d->called, name))
        return;
    add_name(d, name, n);
    mo__decl *x = d->n > 0 && strcmp(d->v[d->n - 1].name, name) == 0 ? &d->v[d->n - 1] : NULL;
    if (x == NULL)
        return;
    x->type = MO_DECL_RECORD;
    set_add(d, &d->called, x->name);
}

/* The names text reads; calls: its calls may need declaring (add_record). */
static void scan_text(decls *d, const char *t, bool calls)
{
    for (const char *p = t; *p && !d->oom;) {
        if (*p == '"') { /* a string */
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            p += *p == '"';
            continue;
        }
        if (is_digit(*p)) {
            while (is_digit(*p) || *p == '.' || *p == 'e' || *p == 'E' ||
                   ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
                p++;
            continue;
        }
        const char *s = p;
        size_t n = 0;
        char buf[512];
        if (*p == '\'') { /* a quoted name: its content as written (mo_lex.c) */
            for (p++; *p && *p != '\''; p++) {
                if (*p == '\\' && p[1] && n < sizeof buf - 2)
                    buf[n++] = *p++;
                else if (*p == '\\' && p[1])
                    p++;
                if (n < sizeof buf - 1)
                    buf[n++] = *p;
            }
            p += *p == '\'';
        } else if (is_alpha(*p)) {
            while (is_alpha(*p) || is_digit(*p) || (*p == '.' && is_alpha(p[1])))
                p++;
            if (skip_word(s, (size_t)(p - s)))
                continue;
            p = subscripts(p);
            n = (size_t)(p - s) < sizeof buf ? (size_t)(p - s) : 0;
            memcpy(buf, s, n);
        } else {
            p++;
            continue;
        }
        const char *q = p;
        while (*q == ' ')
            q++;
        buf[n] = '\0';
        if (calls && n > 0 && *q == '(')
            add_record(d, buf, n);
        if (n == 0 || *q == '(' || (*q == '[' && *s != '\'') ||
            (q[0] == 'i' && q[1] == 'n' && q[2] == ' ')) /* calls, iterators */
            continue;
        buf[n] = '\0';
        add_name(d, buf, n);
        mo__decl *x = in_condition(t, s, p) ? find_decl(d, buf) : NULL;
        if (x != NULL)
            x->type = MO_DECL_BOOLEAN;
    }
}

/* Opaque texts of e, and Boolean uses of names kept as text. */
static void scan_expr(decls *d, const fx_node *e, bool boolean)
{
    if (e == NULL || d->oom)
        return;
    if (e->op == FX_OPAQUE && e->name != NULL) {
        scan_text(d, e->name, true);
        mo__decl *x = find_decl(d, e->name);
        if (boolean && x != NULL)
            x->type = MO_DECL_BOOLEAN;
    }
    for (uint32_t k = 0; k < e->n; k++) {
        bool b = e->op == FX_NOT || e->op == FX_AND || e->op == FX_OR || (e->op == FX_IF && k == 0);
        scan_expr(d, e->kids[k], b);
    }
}

/* The variable that event text `name = ...` defines, made Boolean if its
 * type is still the default. */
static void boolean_if_real(decls *d, const char *text)
{
    const char *eq = strstr(text, " = ");
    char name[512];
    size_t n = eq != NULL ? (size_t)(eq - text) : 0;
    if (n == 0 || n >= sizeof name || strstr(text, ":=") != NULL)
        return;
    memcpy(name, text, n);
    name[n] = '\0';
    mo__decl *x = find_decl(d, name);
    if (x != NULL && x->type == MO_DECL_REAL)
        x->type = MO_DECL_BOOLEAN;
}

/* Whether rhs is a single name (an alias) whose type is known: a mode
 * variable or Boolean known (Boolean), an Integer known, or a name found
 * here already. */
static bool alias_type(decls *d, const char *rhs, mo__decl_type *out)
{
    char name[512];
    size_t n = strlen(rhs);
    if (n < 2 || n >= sizeof name)
        return false;
    if (rhs[0] == '\'' && rhs[n - 1] == '\'' && memchr(rhs + 1, '\'', n - 2) == NULL) {
        memcpy(name, rhs + 1, n - 2);
        name[n - 2] = '\0';
    } else {
        const char *e = rhs;
        while (is_alpha(*e) || is_digit(*e) || *e == '.' || *e == '[' || *e == ']' || *e == ',')
            e++;
        if (*e != '\0' || !is_alpha(rhs[0]))
            return false;
        memcpy(name, rhs, n + 1);
    }
    const mel_model *m = d->m;
    mo__decl *x = find_decl(d, name);
    if (x != NULL) {
        *out = x->type;
        return true;
    }
    if (mel_model_find_mode(m, name) >= 0) {
        *out = MO_DECL_BOOLEAN;
        return true;
    }
    long k = mel_model_find_known(m, name);
    if (k >= 0 && m->knowns[k].kind != MEL_KNOWN_REAL) {
        *out = m->knowns[k].kind == MEL_KNOWN_BOOLEAN ? MO_DECL_BOOLEAN : MO_DECL_INTEGER;
        return true;
    }
    return false;
}

/* The definition `name = rhs` in an event's text, typing name; whether a
 * type changed through an alias (then another pass may type more). */
static bool type_from_definition(decls *d, const char *text)
{
    const char *eq = strstr(text, " = ");
    if (eq == NULL || strstr(text, ":=") != NULL)
        return false;
    char name[512];
    size_t n = (size_t)(eq - text);
    if (n == 0 || n >= sizeof name)
        return false;
    memcpy(name, text, n);
    name[n] = '\0';
    if (name[0] == '\'' && n > 2 && name[n - 1] == '\'') {
        memmove(name, name + 1, n - 2);
        name[n - 2] = '\0';
    }
    mo__decl *x = find_decl(d, name);
    if (x == NULL || x->type == MO_DECL_RECORD)
        return false;
    const char *rhs = eq + 3;
    mo__decl_type alias;
    if (alias_type(d, rhs, &alias)) {
        bool changed = x->type != alias && alias != MO_DECL_REAL;
        if (changed)
            x->type = alias;
        return changed;
    }
    if (strncmp(rhs, "not ", 4) == 0 || strstr(rhs, " and ") || strstr(rhs, " or ") ||
        strpbrk(rhs, "<>") || strstr(rhs, "==") || strcmp(rhs, "true") == 0 ||
        strcmp(rhs, "false") == 0 || strncmp(rhs, "edge(", 5) == 0 ||
        strncmp(rhs, "sample(", 7) == 0 || strncmp(rhs, "initial()", 9) == 0) {
        x->type = MO_DECL_BOOLEAN;
        return false;
    }
    bool digits = false, real = strchr(rhs, '/') != NULL;
    for (const char *p = rhs; *p && !real; p++) {
        if (*p == '[') { /* a subscript's numbers are not values */
            while (*p && *p != ']')
                p++;
            if (*p == '\0')
                break;
            continue;
        }
        if (is_digit(*p) && (p == rhs || !(is_alpha(p[-1]) || is_digit(p[-1])))) {
            digits = true;
            while (is_digit(*p))
                p++;
            real = *p == '.' || *p == 'e' || *p == 'E';
        }
        if (*p == '\0')
            break;
    }
    if (digits && !real && x->type == MO_DECL_REAL)
        x->type = MO_DECL_INTEGER;
    return false;
}

static void declare_model_names(decls *d)
{
    const mel_model *m = d->m;
    for (uint32_t i = 0; i < m->n_knowns; i++) {
        seen_add(d, m->knowns[i].name);
        add_containers(d, m->knowns[i].name);
    }
    for (uint32_t i = 0; i < m->n_variables; i++) {
        seen_add(d, m->variables[i].name);
        add_containers(d, m->variables[i].name);
    }
    for (uint32_t i = 0; i < m->n_modes; i++)
        if (!fx_mode_is_atom(m, i))
            seen_add(d, m->modes[i].name);
}

/* The unknown functions e calls, into d->called. */
static void scalar_calls(decls *d, const fx_node *e)
{
    if (e == NULL || d->oom)
        return;
    if (e->op == FX_CALL && e->fn == FX_FN_UNKNOWN && e->name != NULL)
        set_add(d, &d->called, e->name);
    for (uint32_t k = 0; k < e->n; k++)
        scalar_calls(d, e->kids[k]);
}

int mo__undeclared(const mel_model *m, mo__decl **out, size_t *n)
{
    decls d = {.m = m};
    declare_model_names(&d);
    for (uint32_t i = 0; i < m->n_equations; i++) {
        scalar_calls(&d, m->equations[i].lhs);
        scalar_calls(&d, m->equations[i].rhs);
    }
    for (uint32_t i = 0; i < m->n_modes; i++)
        scalar_calls(&d, m->modes[i].def);
    for (uint32_t i = 0; i < m->n_knowns; i++)
        scalar_calls(&d, m->knowns[i].binding);
    for (uint32_t i = 0; i < m->n_equations; i++) {
        scan_expr(&d, m->equations[i].lhs, false);
        scan_expr(&d, m->equations[i].rhs, false);
    }
    for (uint32_t i = 0; i < m->n_modes; i++)
        scan_expr(&d, m->modes[i].def, true);
    for (uint32_t i = 0; i < m->n_knowns; i++)
        scan_expr(&d, m->knowns[i].binding, false);
    for (uint32_t i = 0; i < m->n_events; i++) {
        const mel_event *ev = &m->events[i];
        scan_text(&d, ev->text, false);
        mo__decl *x = ev->kind == MEL_EV_WHEN ? find_decl(&d, ev->text) : NULL;
        if (x != NULL)
            x->type = MO_DECL_BOOLEAN;
    }
    bool changed = true;
    for (int pass = 0; changed && pass < 8; pass++) { /* aliases of aliases */
        changed = false;
        for (uint32_t i = 0; i < m->n_events; i++)
            if (m->events[i].kind == MEL_EV_DISCRETE || m->events[i].parent >= 0)
                changed |= type_from_definition(&d, m->events[i].text);
    }
    /* An equation outside when-clauses that the importer kept aside defines
     * a discrete variable, so not a Real: Boolean when nothing said Integer
     * (logic blocks' signals, the most common). */
    for (uint32_t i = 0; i < m->n_events; i++)
        if (m->events[i].kind == MEL_EV_DISCRETE && m->events[i].parent < 0)
            boolean_if_real(&d, m->events[i].text);
    mdae_free(d.seen.slot);
    mdae_free(d.containers.slot);
    mdae_free(d.called.slot);
    for (size_t i = 0; i < d.n_owned; i++)
        mdae_free(d.owned[i]);
    mdae_free(d.owned);
    if (d.oom) {
        mo__decls_free(d.v, d.n);
        return MDAE_E_NOMEM;
    }
    *out = d.v;
    *n = d.n;
    return MDAE_OK;
}

void mo__decls_free(mo__decl *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mdae_free(v[i].name);
    mdae_free(v);
}
