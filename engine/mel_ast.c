/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_ast.c -- the front-end's small shared utilities: the arena that
 * holds syntax trees and models, the error report, what the MEL and the
 * Modelica front-ends share (errors once per position, the input size
 * limit, the order of diagnostics, a new model), the symbol table, and an
 * S-expression printer for syntax trees (tests).
 *
 * See engine/mel_ast.h and engine/mel_int.h for the promises.
 */
#include "mel_int.h"
#include "fx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- Arena ---------------------------------------------------------------- */

/* Chunks grow geometrically up to 1 MiB so a small model costs one or two
 * allocations and a large one does not waste much; a request larger than
 * the chunk size gets a chunk of its own. Chunks come zeroed from calloc
 * (fresh pages from the kernel for the large ones) and are never reused,
 * so an allocation needs no memset of its own: clearing every node as it
 * was handed out took a fifth of the Modelica front-end's time. Raw
 * allocations have chunks of their own, from malloc: calloc's clearing of
 * the first five chunks (124 KB, below its mmap threshold) was 3.6 % of
 * the MEL front-end's instructions on the brake at N = 100 (2026-11-26),
 * for records that are written in full anyway. */
#define ARENA_MIN_CHUNK 4096
#define ARENA_MAX_CHUNK ((size_t)1 << 20)

struct mel__chunk {
    struct mel__chunk *next;
    size_t used, cap;
    _Alignas(max_align_t) unsigned char data[];
};

void mel__arena_init(mel__arena *a) { memset(a, 0, sizeof *a); }

/* n bytes from the chunk list *head, whose chunks come from calloc when
 * `zeroed`, else from malloc. */
static void *chunk_alloc(mel__arena *a, struct mel__chunk **head, size_t n, bool zeroed)
{
    const size_t align = MEL__ARENA_ALIGN;
    if (n > SIZE_MAX / 2)
        return NULL;
    n = (n + align - 1) & ~(align - 1);
    if (n == 0)
        n = align;
    struct mel__chunk *c = *head;
    if (c == NULL || c->cap - c->used < n) {
        size_t cap = c ? c->cap * 2 : ARENA_MIN_CHUNK;
        if (cap > ARENA_MAX_CHUNK)
            cap = ARENA_MAX_CHUNK;
        if (cap < n)
            cap = n;
        struct mel__chunk *nc = zeroed ? mdae_calloc(1, sizeof *nc + cap)
                                       : mdae_malloc(sizeof *nc + cap);
        if (nc == NULL)
            return NULL;
        nc->used = 0;
        nc->cap = cap;
        if (c != NULL && n > c->cap - c->used && cap == n && c->cap - c->used > 256) {
            /* A big block: link it behind the current chunk so the current
             * chunk's free space stays usable. */
            nc->next = c->next;
            c->next = nc;
            nc->used = n;
            a->total += n;
            return nc->data;
        }
        nc->next = c;
        *head = c = nc;
    }
    void *p = c->data + c->used;
    c->used += n;
    a->total += n;
    return p;
}

void *mel__arena_alloc(mel__arena *a, size_t n) { return chunk_alloc(a, &a->head, n, true); }

void *mel__arena_alloc_raw_slow(mel__arena *a, size_t n)
{
    if (a->raw != NULL)
        a->raw->used = (size_t)(a->raw_next - a->raw->data);
    void *p = chunk_alloc(a, &a->raw, n, false);
    if (a->raw != NULL) { /* the first chunk, new or not */
        a->raw_next = a->raw->data + a->raw->used;
        a->raw_end = a->raw->data + a->raw->cap;
    }
    return p;
}

char *mel__arena_strndup(mel__arena *a, const char *s, size_t n)
{
    char *r = n < SIZE_MAX ? mel__arena_alloc_raw(a, n + 1) : NULL; /* written in full */
    if (r == NULL)
        return NULL;
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

static void free_chunks(struct mel__chunk *c)
{
    while (c != NULL) {
        struct mel__chunk *next = c->next;
        mdae_free(c);
        c = next;
    }
}

void mel__arena_free(mel__arena *a)
{
    free_chunks(a->head);
    free_chunks(a->raw);
    memset(a, 0, sizeof *a);
}

/* ---- Error report ------------------------------------------------------- */

void mel__report_init(mel__report *r, mdae_diags *diags, size_t max_errors)
{
    memset(r, 0, sizeof *r);
    r->diags = diags;
    r->max_errors = max_errors ? max_errors : MEL__DEFAULT_MAX_ERRORS;
}

static int rc_rank(int rc)
{
    switch (rc) {
    case MDAE_E_NOMEM: return 4;
    case MDAE_E_LIMIT: return 3;
    case MDAE_E_PARSE: return 2;
    case MDAE_E_MODEL: return 1;
    case MDAE_OK: return 0;
    }
    return 2;
}

int mel__rc_worse(int a, int b) { return rc_rank(b) > rc_rank(a) ? b : a; }

/* The message in a new string (owned: mdae_free), or NULL with r's
 * out-of-memory recorded. */
static char *format_or_nomem(mel__report *r, const char *fmt, va_list ap)
{
    char *msg = mdae_vasprintf(fmt, ap);
    if (msg == NULL)
        mel__nomem(r);
    return msg;
}

void mel__error(mel__report *r, int code, mdae_range where, const char *fmt, ...)
{
    r->rc = mel__rc_worse(r->rc, code);
    if (r->stop)
        return;
    r->errors++;
    if (code == MDAE_E_PARSE)
        r->syntax_errors++;
    if (r->recover) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->last, sizeof r->last, fmt, ap);
        va_end(ap);
    }
    if (r->diags != NULL) {
        va_list ap;
        va_start(ap, fmt);
        char *msg = format_or_nomem(r, fmt, ap);
        va_end(ap);
        if (msg == NULL)
            return;
        /* "%s" so that a message containing '%' is not reinterpreted. A
         * failure to store it is not fatal: the list counts it as dropped. */
        (void)mdae_diags_add(r->diags, MDAE_SEV_ERROR, where, "%s", msg);
        mdae_free(msg);
    }
    if (r->errors >= r->max_errors) {
        if (r->diags != NULL)
            (void)mdae_diags_add(r->diags, MDAE_SEV_NOTE, (mdae_range){{0, 0, 0}, {0, 0, 0}},
                                 "too many errors (%zu), stopping", r->errors);
        r->stop = true;
    }
}

void mel__error_limit(mel__report *r, mdae_range where, int id, double value, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = format_or_nomem(r, fmt, ap);
    va_end(ap);
    if (msg == NULL)
        return;
    size_t before = r->diags != NULL ? r->diags->count : 0;
    mel__error(r, MDAE_E_LIMIT, where, "%s", msg);
    mdae_free(msg);
    if (r->diags == NULL || r->diags->count == before)
        return;
    /* the entry just added (if stored): the limit's note and fields */
    mdae_diag *d = &r->diags->items[before];
    char *note = mdae_limit_note(id, value);
    char *both = note != NULL ? mdae_asprintf("%s %s", d->message, note) : NULL;
    mdae_free(note);
    if (both != NULL) {
        mdae_free(d->message);
        d->message = both;
    }
    d->limit = id;
    d->limit_value = value;
}

void mel__nomem(mel__report *r)
{
    r->rc = MDAE_E_NOMEM;
    r->stop = true;
}

void mel__report_close(mel__report *r)
{
    for (size_t k = 0; k < r->n_lo; k++)
        mdae_free(r->lo[k].message);
    mdae_free(r->lo);
    r->lo = NULL;
    r->n_lo = r->cap_lo = 0;
}

void mel__left_out_msg(mel__report *r, mdae_range where, const char *msg)
{
    /* one entry per error at most, and consequences bounded the same way */
    if (!r->recover || r->n_lo >= 2 * r->max_errors + 2)
        return;
    if (r->n_lo == r->cap_lo) {
        size_t cap = r->cap_lo ? 2 * r->cap_lo : 8;
        mel_left_out *lo = mdae_realloc(r->lo, cap * sizeof *lo);
        if (lo == NULL) {
            mel__nomem(r);
            return;
        }
        r->lo = lo;
        r->cap_lo = cap;
    }
    char *m = mdae_strdup(msg);
    if (m == NULL) {
        mel__nomem(r);
        return;
    }
    r->lo[r->n_lo++] = (mel_left_out){where, m};
}

void mel__left_out(mel__report *r, mdae_range where)
{
    mel__left_out_msg(r, where, r->last[0] ? r->last : "syntax error");
}

static bool ident_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool mel__left_out_spells(const mel__report *r, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (!r->recover || r->src == NULL || n == 0)
        return false;
    for (size_t k = 0; k < r->n_lo; k++) {
        size_t a = r->lo[k].where.start.offset, z = r->lo[k].where.end.offset;
        for (size_t i = a; i + n <= z; i++)
            if (memcmp(r->src + i, name, n) == 0 && (i == a || !ident_byte(r->src[i - 1])) &&
                (i + n == z || !ident_byte(r->src[i + n])))
                return true;
    }
    return false;
}

void mel__report_take_left_out(mel__report *r, mel_model *m)
{
    /* consequences are found after the syntax errors: source order (few) */
    for (size_t i = 1; i < r->n_lo; i++) {
        mel_left_out x = r->lo[i];
        size_t j = i;
        while (j > 0 && r->lo[j - 1].where.start.offset > x.where.start.offset) {
            r->lo[j] = r->lo[j - 1];
            j--;
        }
        r->lo[j] = x;
    }
    m->n_syntax_errors = r->syntax_errors > UINT32_MAX ? UINT32_MAX : (uint32_t)r->syntax_errors;
    m->n_left_out = (uint32_t)r->n_lo;
    m->left_out = m->priv->left_out = r->lo;
    r->lo = NULL;
    r->n_lo = r->cap_lo = 0;
}

/* ---- What both front-ends share (mel_elab.c, mo_elab.c, the parsers) -------- */

bool mel__seen_before(mel__report *r, int code, mdae_range where, uint32_t *seen, size_t cap,
                      size_t *n_seen)
{
    if (where.start.line == 0)
        return false;
    for (size_t i = 0; i < *n_seen; i++) {
        if (seen[i] == where.start.offset) {
            r->rc = mel__rc_worse(r->rc, code);
            return true;
        }
    }
    if (*n_seen < cap)
        seen[(*n_seen)++] = where.start.offset;
    return false;
}

void mel__verror(mel__report *r, int code, mdae_range where, size_t cap, const char *fmt,
                 va_list ap)
{
    char msg[1024];
    MDAE_ASSERT(cap > 0 && cap <= sizeof msg);
    vsnprintf(msg, cap, fmt, ap);
    mel__error(r, code, where, "%s", msg);
}

size_t mel__max_instances(const mel_options *opt)
{
    return opt->max_instances ? opt->max_instances : MEL__DEFAULT_MAX_INSTANCES;
}

void mel__instance_limit(mel__report *r, mdae_range where, size_t max_instances,
                         bool *limit_hit)
{
    if (!*limit_hit)
        mel__error_limit(r, where, MDAE_LIMIT_INSTANCES, (double)max_instances,
                         "model would create more than %zu instances", max_instances);
    *limit_hit = true;
    r->stop = true;
}

size_t mel__max_depth(size_t asked)
{
    size_t depth = asked ? asked : MEL__DEFAULT_MAX_DEPTH;
    return depth > MEL__DEPTH_CAP ? MEL__DEPTH_CAP : depth;
}

/* MDAE_OK when len fits opt->max_input_bytes (or the default); else
 * MDAE_E_LIMIT, with the unlocated limit diagnostic appended to diags. */
static int check_input_size(const mel_options *opt, size_t len, mdae_diags *diags)
{
    size_t max_input = opt->max_input_bytes ? opt->max_input_bytes : MEL__DEFAULT_MAX_INPUT;
    if (max_input > UINT32_MAX - 1)
        max_input = UINT32_MAX - 1; /* positions are 32-bit */
    if (len <= max_input)
        return MDAE_OK;
    if (diags != NULL)
        (void)mdae_diags_add_limit(diags, (mdae_range){{0, 0, 0}, {0, 0, 0}},
                                   MDAE_LIMIT_INPUT_BYTES, (double)max_input,
                                   "input larger than %zu bytes", max_input);
    return MDAE_E_LIMIT;
}

/* Sort key of a diagnostic: unlocated errors (the -D ones) first, then by
 * position; the unlocated "too many errors" note stays last. */
static uint64_t diag_key(const mdae_diag *d)
{
    if (d->where.start.line == 0)
        return d->severity == MDAE_SEV_NOTE ? UINT64_MAX : 0;
    return 1 + (uint64_t)d->where.start.offset;
}

/* Put the diagnostics appended from index `first` in source order. */
static void sort_diags(mdae_diags *diags, size_t first)
{
    if (diags == NULL)
        return;
    /* Stable insertion sort: there are at most max_errors + 1 of them. */
    for (size_t i = first + 1; i < diags->count; i++) {
        mdae_diag d = diags->items[i];
        size_t j = i;
        while (j > first && diag_key(&diags->items[j - 1]) > diag_key(&d)) {
            diags->items[j] = diags->items[j - 1];
            j--;
        }
        diags->items[j] = d;
    }
}

mel_model *mel__model_new(void)
{
    mel_model *m = mdae_calloc(1, sizeof *m);
    struct mel_model_priv *priv = mdae_calloc(1, sizeof *priv);
    if (m == NULL || priv == NULL) {
        mdae_free(m);
        mdae_free(priv);
        return NULL;
    }
    m->priv = priv;
    mel__arena_init(&priv->arena);
    return m;
}

mel_model *mel__elab_open(mel__report *rep, mel__arena *tmp, mel__gfactory *gf,
                          mel__arena **ma)
{
    mel__arena_init(tmp);
    mel_model *m = mel__model_new();
    if (m == NULL) {
        mel__nomem(rep);
        return NULL;
    }
    *ma = &m->priv->arena;
    mel__gf_init(gf, *ma);
    return m;
}

void mel__drop_expressions(mel_model *m)
{
    struct mel_model_priv *priv = m->priv;
    for (uint32_t i = 0; i < m->n_equations; i++)
        priv->equations[i].lhs = priv->equations[i].rhs = NULL;
    for (uint32_t i = 0; i < m->n_modes; i++)
        priv->modes[i].def = NULL;
    for (uint32_t i = 0; i < m->n_variables; i++)
        priv->variables[i].start = NULL;
    m->n_knowns = 0;
    m->knowns = NULL;
    fx_pool_free(priv->exprs);
    priv->exprs = NULL;
}

int mel__front_parse(const char *text, size_t len, const mel_options *opt, mel_model **out,
                     mdae_diags *diags, mel__front front)
{
    static const mel_options defaults;
    if (out == NULL || (text == NULL && len > 0))
        return MDAE_E_INVAL;
    if (opt == NULL)
        opt = &defaults;
    if (check_input_size(opt, len, diags) != MDAE_OK)
        return MDAE_E_LIMIT;
    size_t first = diags ? diags->count : 0;
    mel__report rep;
    mel__report_init(&rep, diags, opt->max_errors);
    rep.recover = opt->recover;
    rep.src = text;
    mel__arena ast;
    mel__arena_init(&ast);
    mel_model *m = NULL;
    int rc = front(text ? text : "", len, opt, &rep, &ast, &m);
    if (rc == MDAE_OK) {
        mel__report_take_left_out(&rep, m);
        *out = m;
    }
    mel__report_close(&rep);
    mel__arena_free(&ast);
    sort_diags(diags, first);
    return rc;
}

/* ---- Symbol table ----------------------------------------------------------- */

/* Eight bytes a step: Base Modelica's names are whole paths, often 40 to
 * 80 bytes ('engine.cylinder1.jointRRP.jointUSP.prismatic.k1a'), and a
 * byte-at-a-time hash was a tenth of the front-end's time. In-memory
 * tables only: the value is never shown or stored. */
uint32_t mel__hash(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    /* The last 0 to 7 bytes, as two overlapping halves rather than a copy
     * of n bytes (a byte loop): a name like "Pb[17]" is all tail. */
    uint64_t w = 0;
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        w = (uint64_t)a << 32 | b;
    } else if (n > 0) {
        const unsigned char *u = (const unsigned char *)s;
        w = (uint64_t)u[0] << 16 | (uint64_t)u[n / 2] << 8 | u[n - 1];
    }
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return (uint32_t)h;
}

mel__sym *mel__sym_findn(const mel__symtab *t, const char *name, size_t n)
{
    if (t->cap == 0)
        return NULL;
    uint32_t h = mel__hash(name, n);
    for (mel__sym *s = t->buckets[h & (t->cap - 1)]; s != NULL; s = s->next)
        if (s->hash == h && strncmp(s->name, name, n) == 0 && s->name[n] == '\0')
            return s;
    return NULL;
}

mel__sym *mel__sym_find(const mel__symtab *t, const char *name)
{
    return mel__sym_findn(t, name, strlen(name));
}

/* Rehash into cap buckets (a power of two, above the count). */
static int symtab_rehash(mel__symtab *t, size_t cap)
{
    mel__sym **b = mdae_calloc(cap, sizeof *b);
    if (b == NULL)
        return MDAE_E_NOMEM;
    for (size_t i = 0; i < t->cap; i++) {
        mel__sym *s = t->buckets[i];
        while (s != NULL) {
            mel__sym *next = s->next;
            s->next = b[s->hash & (cap - 1)];
            b[s->hash & (cap - 1)] = s;
            s = next;
        }
    }
    mdae_free(t->buckets);
    t->buckets = b;
    t->cap = cap;
    return MDAE_OK;
}

/* Room for n more symbols: so many inserts will not grow the table. */
static int symtab_reserve(mel__symtab *t, size_t n)
{
    size_t cap = t->cap ? t->cap : 64;
    if (n > SIZE_MAX / 8 - t->count)
        return MDAE_E_NOMEM;
    while ((t->count + n) * 4 >= cap * 3) /* load < 3/4 after the n inserts */
        cap *= 2;
    return cap == t->cap ? MDAE_OK : symtab_rehash(t, cap);
}

int mel__sym_insert(mel__symtab *t, mel__sym *s)
{
    if (t->cap == 0 || t->count * 4 >= t->cap * 3) { /* load <= 3/4 */
        if (symtab_rehash(t, t->cap ? t->cap * 2 : 64) < 0)
            return MDAE_E_NOMEM;
    }
    s->next = t->buckets[s->hash & (t->cap - 1)];
    t->buckets[s->hash & (t->cap - 1)] = s;
    t->count++;
    return MDAE_OK;
}

int mel__sym_insert_list(mel__symtab *t, mel__sym *list, size_t n)
{
    if (symtab_reserve(t, n) < 0)
        return MDAE_E_NOMEM;
    for (mel__sym *s = list, *next; s != NULL; s = next) {
        next = s->next;
        s->next = t->buckets[s->hash & (t->cap - 1)];
        t->buckets[s->hash & (t->cap - 1)] = s;
        t->count++;
    }
    return MDAE_OK;
}

mel__sym *mel__sym_addn(mel__symtab *t, mel__arena *a, const char *name, size_t n)
{
    mel__sym *s = mel__sym_new(a, n);
    if (s == NULL)
        return NULL;
    memcpy((char *)s->name, name, n);
    s->hash = mel__hash(name, n);
    return mel__sym_insert(t, s) < 0 ? NULL : s;
}

mel__sym *mel__sym_add(mel__symtab *t, mel__arena *a, const char *name)
{
    return mel__sym_addn(t, a, name, strlen(name));
}

void mel__symtab_close(mel__symtab *t)
{
    mdae_free(t->buckets);
    memset(t, 0, sizeof *t);
}

/* ---- S-expression printer ---------------------------------------------------- */

static const char *cmp_text(int op)
{
    static const char *const t[] = {"<", "<=", ">", ">=", "==", "<>"};
    return op >= 0 && op < 6 ? t[op] : "?";
}

static void fmt_expr(mdae_buf *b, const mel__expr *e)
{
    char tmp[64];
    if (e == NULL) {
        mdae_buf_puts(b, "<null>");
        return;
    }
    switch (e->kind) {
    case MEL_X_NUM:
        if (e->u.num.is_int)
            snprintf(tmp, sizeof tmp, "%lld", e->u.num.ival);
        else
            snprintf(tmp, sizeof tmp, "%g", e->u.num.value);
        mdae_buf_puts(b, tmp);
        return;
    case MEL_X_BOOL: mdae_buf_puts(b, e->u.b ? "true" : "false"); return;
    case MEL_X_ID:
    case MEL_X_CALL:
        if (e->kind == MEL_X_CALL || e->u.id.n > 0)
            mdae_buf_puts(b, e->kind == MEL_X_CALL ? "(call " : "(idx ");
        mdae_buf_puts(b, e->u.id.name);
        for (uint32_t i = 0; i < e->u.id.n; i++) {
            mdae_buf_puts(b, " ");
            fmt_expr(b, e->u.id.args[i]);
        }
        if (e->kind == MEL_X_CALL || e->u.id.n > 0)
            mdae_buf_puts(b, ")");
        return;
    case MEL_X_NEG:
    case MEL_X_NOT:
    case MEL_X_DER:
    case MEL_X_LAST:
    case MEL_X_PRE:
    case MEL_X_NEXT:
        mdae_buf_puts(b, e->kind == MEL_X_NEG    ? "(neg "
                   : e->kind == MEL_X_NOT  ? "(! "
                   : e->kind == MEL_X_DER  ? "(der "
                   : e->kind == MEL_X_LAST ? "(last "
                   : e->kind == MEL_X_NEXT ? "(next "
                                           : "(pre ");
        fmt_expr(b, e->u.kid);
        mdae_buf_puts(b, ")");
        return;
    case MEL_X_POW:
    case MEL_X_CMP:
        mdae_buf_puts(b, "(");
        mdae_buf_puts(b, e->kind == MEL_X_POW ? "^" : cmp_text(e->u.bin.op));
        mdae_buf_puts(b, " ");
        fmt_expr(b, e->u.bin.lhs);
        mdae_buf_puts(b, " ");
        fmt_expr(b, e->u.bin.rhs);
        mdae_buf_puts(b, ")");
        return;
    case MEL_X_ADD:
    case MEL_X_MUL:
    case MEL_X_AND:
    case MEL_X_OR:
        /* "(+ a b)" when all ops are the same; otherwise "(+ a -b +c)"
         * spelled with the operator before each later operand. */
        mdae_buf_puts(b, "(");
        mdae_buf_puts(b, e->kind == MEL_X_ADD   ? "+"
                   : e->kind == MEL_X_MUL ? "*"
                   : e->kind == MEL_X_AND ? "&"
                                          : "|");
        for (uint32_t i = 0; i < e->u.nary.n; i++) {
            mdae_buf_puts(b, " ");
            char op = e->u.nary.ops[i];
            if (op == '-' || op == '/')
                mdae_buf_put(b, &op, 1);
            fmt_expr(b, e->u.nary.kids[i]);
        }
        mdae_buf_puts(b, ")");
        return;
    case MEL_X_IF:
        mdae_buf_puts(b, "(if ");
        fmt_expr(b, e->u.ite.c);
        mdae_buf_puts(b, " ");
        fmt_expr(b, e->u.ite.a);
        mdae_buf_puts(b, " ");
        fmt_expr(b, e->u.ite.b);
        mdae_buf_puts(b, ")");
        return;
    }
    mdae_buf_puts(b, "<?>");
}

char *mel__expr_format(const mel__expr *e)
{
    mdae_buf b = {0};
    fmt_expr(&b, e);
    mdae_buf_puts(&b, "");
    if (b.oom) {
        mdae_free(b.p);
        return NULL;
    }
    return b.p;
}
