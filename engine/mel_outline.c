/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_outline.c -- the source outline (mel_outline.h): the builder
 * shared with the Modelica walk (mo_outline.c), the resolution of names,
 * the lookups by offset, and the walk of a MEL syntax tree.
 *
 * The MEL walk: a declaration `x[i] : real` is one symbol whatever the loop
 * around it (the outline is the source, not the instances); `if c then A
 * else B end` is an IF symbol "if c" holding A and, when B is not empty, an
 * IF child "else" holding B; `foreach i in a .. b` is a FOR symbol.
 */
#include "mel_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The builder ------------------------------------------------------------ */

int mel__outb_init(mel__outb *b)
{
    memset(b, 0, sizeof *b);
    b->o = mdae_calloc(1, sizeof *b->o);
    return b->o ? MDAE_OK : MDAE_E_NOMEM;
}

static bool grow(mel__outb *b, void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 32;
    void *p = mdae_realloc(*arr, nc * size);
    if (p == NULL) {
        b->rc = MDAE_E_NOMEM;
        return false;
    }
    *arr = p;
    *cap = nc;
    return true;
}

static bool add_occurrence(mel__outb *b, uint32_t sym, mdae_range where, bool decl)
{
    mel_outline *o = b->o;
    if (!grow(b, (void **)&o->occurrences, &b->cap_occ, o->n_occurrences, sizeof *o->occurrences))
        return false;
    o->occurrences[o->n_occurrences++] = (mel_occurrence){sym, where, decl};
    return true;
}

long mel__outb_symbol(mel__outb *b, mel_ol_kind kind, const char *name, size_t name_len,
                      const char *detail, mdae_range where, mdae_range name_where, long parent,
                      uint32_t scope)
{
    mel_outline *o = b->o;
    if (b->rc < 0)
        return -1;
    if (!grow(b, (void **)&o->symbols, &b->cap_sym, o->n_symbols, sizeof *o->symbols) ||
        !grow(b, (void **)&b->scope, &b->cap_scope, o->n_symbols, sizeof *b->scope))
        return -1;
    mel_symbol *s = &o->symbols[o->n_symbols];
    s->name = mdae_strndup(name, name_len);
    s->detail = mdae_strdup(detail ? detail : "");
    if (s->name == NULL || s->detail == NULL) {
        mdae_free(s->name);
        mdae_free(s->detail);
        b->rc = MDAE_E_NOMEM;
        return -1;
    }
    s->kind = kind;
    s->where = where;
    s->name_where = name_where;
    s->parent = parent;
    b->scope[o->n_symbols] = scope;
    long idx = (long)o->n_symbols++;
    if (MEL_OL_DECLARES(kind))
        add_occurrence(b, (uint32_t)idx, name_where, true);
    return b->rc < 0 ? -1 : idx;
}

void mel__outb_ref(mel__outb *b, const char *name, size_t name_len, mdae_range where,
                   uint32_t scope)
{
    if (b->rc < 0 || !grow(b, (void **)&b->refs, &b->cap_refs, b->n_refs, sizeof *b->refs))
        return;
    char *n = mdae_strndup(name, name_len);
    if (n == NULL) {
        b->rc = MDAE_E_NOMEM;
        return;
    }
    b->refs[b->n_refs++] = (struct mel__oref){n, where, scope};
}

/* Declarations sorted by (scope, name, index): resolution by bsearch. */
typedef struct decl_key {
    uint32_t scope;
    const char *name;
    uint32_t sym;
} decl_key;

static int cmp_decl(const void *pa, const void *pb)
{
    const decl_key *a = pa, *b = pb;
    if (a->scope != b->scope)
        return a->scope < b->scope ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c != 0)
        return c;
    return a->sym < b->sym ? -1 : a->sym > b->sym;
}

static int cmp_lookup(const void *pa, const void *pb)
{
    const decl_key *a = pa, *b = pb;
    if (a->scope != b->scope)
        return a->scope < b->scope ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_occ(const void *pa, const void *pb)
{
    const mel_occurrence *a = pa, *b = pb;
    if (a->where.start.offset != b->where.start.offset)
        return a->where.start.offset < b->where.start.offset ? -1 : 1;
    return (int)b->decl - (int)a->decl;
}

static void resolve(mel__outb *b)
{
    mel_outline *o = b->o;
    size_t nd = 0;
    decl_key *keys = mdae_malloc((o->n_symbols + 1) * sizeof *keys);
    if (keys == NULL) {
        b->rc = MDAE_E_NOMEM;
        return;
    }
    for (size_t k = 0; k < o->n_symbols; k++)
        if (MEL_OL_DECLARES(o->symbols[k].kind))
            keys[nd++] = (decl_key){b->scope[k], o->symbols[k].name, (uint32_t)k};
    if (nd > 0)
        qsort(keys, nd, sizeof *keys, cmp_decl);
    for (size_t r = 0; r < b->n_refs && b->rc == MDAE_OK; r++) {
        decl_key want = {b->refs[r].scope, b->refs[r].name, 0};
        decl_key *hit = nd ? bsearch(&want, keys, nd, sizeof *keys, cmp_lookup) : NULL;
        while (hit != NULL && hit > keys && cmp_lookup(hit - 1, &want) == 0)
            hit--; /* the first declaration of that name */
        if (hit != NULL)
            add_occurrence(b, hit->sym, b->refs[r].where, false);
    }
    mdae_free(keys);
    if (o->n_occurrences > 1)
        qsort(o->occurrences, o->n_occurrences, sizeof *o->occurrences, cmp_occ);
}

int mel__outb_finish(mel__outb *b, mel_outline **out)
{
    if (b->rc == MDAE_OK)
        resolve(b);
    for (size_t r = 0; r < b->n_refs; r++)
        mdae_free(b->refs[r].name);
    mdae_free(b->refs);
    mdae_free(b->scope);
    int rc = b->rc;
    if (rc < 0)
        mel_outline_free(b->o);
    else
        *out = b->o;
    memset(b, 0, sizeof *b);
    return rc;
}

void mel_outline_free(mel_outline *o)
{
    if (o == NULL)
        return;
    for (size_t k = 0; k < o->n_symbols; k++) {
        mdae_free(o->symbols[k].name);
        mdae_free(o->symbols[k].detail);
    }
    mdae_free(o->symbols);
    mdae_free(o->occurrences);
    mdae_free(o);
}

/* ---- Lookups ------------------------------------------------------------------ */

static bool contains(const mdae_range *r, uint32_t offset)
{
    return r->start.line != 0 && r->start.offset <= offset && offset <= r->end.offset;
}

const mel_occurrence *mel_outline_occurrence_at(const mel_outline *o, uint32_t offset)
{
    /* occurrences are sorted by start: the last one starting at or before
     * offset, stepping back over the ones that end before it (names do not
     * nest; a declaration and a reference never share a start) */
    size_t lo = 0, hi = o->n_occurrences;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->occurrences[mid].where.start.offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k > 0 && lo - k < 4; k--)
        if (contains(&o->occurrences[k - 1].where, offset))
            return &o->occurrences[k - 1];
    return NULL;
}

long mel_outline_symbol_at(const mel_outline *o, uint32_t offset)
{
    long best = -1;
    for (size_t k = 0; k < o->n_symbols; k++) {
        const mdae_range *r = &o->symbols[k].where;
        if (!contains(r, offset))
            continue;
        if (best < 0 || r->end.offset - r->start.offset <=
                            o->symbols[best].where.end.offset - o->symbols[best].where.start.offset)
            best = (long)k;
    }
    return best;
}

/* ---- The MEL walk ---------------------------------------------------------------- */

typedef struct mel_walk {
    mel__outb *b;
    const char *text;
    size_t len;
} mel_walk;

/* The range of the name alone: the label or identifier's first name_len
 * bytes (names do not span lines). */
static mdae_range name_range(mdae_range where, size_t name_len)
{
    mdae_range r = where;
    r.end = r.start;
    r.end.col += (uint32_t)name_len;
    r.end.offset += (uint32_t)name_len;
    return r;
}

static void walk_expr(mel_walk *w, const mel__expr *e)
{
    if (e == NULL)
        return;
    switch (e->kind) {
    case MEL_X_NUM:
    case MEL_X_BOOL:
        return;
    case MEL_X_ID:
        mel__outb_ref(w->b, e->u.id.name, strlen(e->u.id.name),
                      name_range(e->where, strlen(e->u.id.name)), 0);
        for (uint32_t k = 0; k < e->u.id.n; k++)
            walk_expr(w, e->u.id.args[k]);
        return;
    case MEL_X_CALL:
        for (uint32_t k = 0; k < e->u.id.n; k++)
            walk_expr(w, e->u.id.args[k]);
        return;
    case MEL_X_NEG:
    case MEL_X_NOT:
    case MEL_X_DER:
    case MEL_X_LAST:
    case MEL_X_PRE:
    case MEL_X_NEXT:
        walk_expr(w, e->u.kid);
        return;
    case MEL_X_POW:
    case MEL_X_CMP:
        walk_expr(w, e->u.bin.lhs);
        walk_expr(w, e->u.bin.rhs);
        return;
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        for (uint32_t k = 0; k < e->u.nary.n; k++)
            walk_expr(w, e->u.nary.kids[k]);
        return;
    case MEL_X_IF:
        walk_expr(w, e->u.ite.c);
        walk_expr(w, e->u.ite.a);
        walk_expr(w, e->u.ite.b);
        return;
    }
}

/* "if <the condition's text>" (at most 60 bytes of it) into buf. */
static void cond_detail(const mel_walk *w, const char *kw, const mdae_range *c, char *buf,
                        size_t cap)
{
    size_t a = c->start.offset, z = c->end.offset;
    if (c->start.line == 0 || z < a || z > w->len)
        a = z = 0;
    size_t n = z - a > 60 ? 60 : z - a;
    snprintf(buf, cap, "%s %.*s%s", kw, (int)n, w->text + a, z - a > n ? "..." : "");
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
}

static const char *type_name(mel__type t, bool init)
{
    return t == MEL_TY_BOOLEAN ? "boolean" : t == MEL_TY_INTEGER ? "integer" : init ? "real = ..." : "real";
}

static void walk_stmts(mel_walk *w, const mel__stmt *s, long parent, size_t depth);

static void walk_stmt(mel_walk *w, const mel__stmt *s, long parent, size_t depth)
{
    char buf[96];
    switch (s->kind) {
    case MEL_S_DECL: {
        const mel__label *l = &s->u.decl.label;
        mel_ol_kind k = s->u.decl.type == MEL_TY_BOOLEAN   ? MEL_OL_MODE
                         : s->u.decl.type == MEL_TY_INTEGER ? MEL_OL_INTEGER
                         : s->u.decl.init != NULL           ? MEL_OL_PARAMETER
                                                            : MEL_OL_UNKNOWN;
        mel__outb_symbol(w->b, k, l->name, strlen(l->name), type_name(s->u.decl.type, s->u.decl.init != NULL),
                         s->where, name_range(l->where, strlen(l->name)), parent, 0);
        for (uint32_t i = 0; i < l->n; i++)
            walk_expr(w, l->idx[i]);
        walk_expr(w, s->u.decl.init);
        return;
    }
    case MEL_S_EQU: {
        const mel__label *l = &s->u.equ.label;
        mel__outb_symbol(w->b, MEL_OL_EQUATION, l->name, strlen(l->name), "equation", s->where,
                         name_range(l->where, strlen(l->name)), parent, 0);
        for (uint32_t i = 0; i < l->n; i++)
            walk_expr(w, l->idx[i]);
        walk_expr(w, s->u.equ.lhs);
        walk_expr(w, s->u.equ.rhs);
        return;
    }
    case MEL_S_INV:
        cond_detail(w, "invariant", &s->u.inv->where, buf, sizeof buf);
        mel__outb_symbol(w->b, MEL_OL_INVARIANT, buf, strlen(buf), "invariant", s->where,
                         s->where, parent, 0);
        walk_expr(w, s->u.inv);
        return;
    case MEL_S_IF: {
        cond_detail(w, "if", &s->u.cond.cond->where, buf, sizeof buf);
        long me = mel__outb_symbol(w->b, MEL_OL_IF, buf, strlen(buf), "conditional statement",
                                   s->where, s->u.cond.cond->where, parent, 0);
        walk_expr(w, s->u.cond.cond);
        if (me < 0)
            return;
        walk_stmts(w, s->u.cond.body, me, depth + 1);
        if (s->u.cond.orelse != NULL) {
            mdae_range er = s->u.cond.orelse->where;
            for (const mel__stmt *t = s->u.cond.orelse; t != NULL; t = t->next)
                er.end = t->where.end;
            long el = mel__outb_symbol(w->b, MEL_OL_IF, "else", 4, "else branch", er,
                                       name_range(er, 0), me, 0);
            if (el >= 0)
                walk_stmts(w, s->u.cond.orelse, el, depth + 1);
        }
        return;
    }
    case MEL_S_WHEN: {
        cond_detail(w, "when", &s->u.cond.cond->where, buf, sizeof buf);
        long me = mel__outb_symbol(w->b, MEL_OL_IF, buf, strlen(buf), "when-clause (an event)",
                                   s->where, s->u.cond.cond->where, parent, 0);
        walk_expr(w, s->u.cond.cond);
        if (me >= 0)
            walk_stmts(w, s->u.cond.body, me, depth + 1);
        return;
    }
    case MEL_S_FOR: {
        snprintf(buf, sizeof buf, "foreach %s", s->u.loop.index ? s->u.loop.index : "?");
        long me = mel__outb_symbol(w->b, MEL_OL_FOR, buf, strlen(buf), "loop", s->where,
                                   s->u.loop.index_where, parent, 0);
        walk_expr(w, s->u.loop.lo);
        walk_expr(w, s->u.loop.hi);
        if (me >= 0)
            walk_stmts(w, s->u.loop.body, me, depth + 1);
        return;
    }
    }
}

static void walk_stmts(mel_walk *w, const mel__stmt *s, long parent, size_t depth)
{
    /* the parser bounds nesting (max_depth): this recursion is bounded too */
    for (; s != NULL && w->b->rc == MDAE_OK; s = s->next)
        walk_stmt(w, s, parent, depth);
}

/* The MEL walk, as mo__outline (mel_int.h) is Modelica's. */
static int walk_mel(const char *text, size_t len, size_t max_depth, mel__report *rep,
                    mel__arena *ast, mel__outb *b)
{
    mel__stmt *prog = NULL;
    int rc = mel__parse(text, len, max_depth, ast, rep, &prog);
    if (rc != MDAE_OK && rc != MDAE_E_PARSE)
        return rc;
    mel_walk w = {b, text, len};
    walk_stmts(&w, prog, -1, 0);
    return MDAE_OK;
}

int mel_outline_parse(const char *text, size_t len, bool modelica, size_t max_depth,
                      mel_outline **out)
{
    mel__outb b;
    if (mel__outb_init(&b) < 0)
        return MDAE_E_NOMEM;
    if (max_depth == 0)
        max_depth = MEL__DEFAULT_MAX_DEPTH;
    if (len > MEL__DEFAULT_MAX_INPUT) {
        b.rc = MDAE_E_LIMIT;
        return mel__outb_finish(&b, out);
    }
    /* Syntax errors leave out their statements (mel.h, "Recovery"): the
     * outline is that of the intact ones (issue 36 item 2). */
    mel__report rep;
    mel__report_init(&rep, NULL, 0);
    mel__arena ast;
    mel__arena_init(&ast);
    int rc = (modelica ? mo__outline : walk_mel)(text ? text : "", len, max_depth, &rep, &ast,
                                                 &b);
    if (rc != MDAE_OK && b.rc == MDAE_OK)
        b.rc = rc;
    mel__report_close(&rep);
    rc = mel__outb_finish(&b, out); /* before the arena goes: names are copied anyway */
    mel__arena_free(&ast);
    return rc;
}
