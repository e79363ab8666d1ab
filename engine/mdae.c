/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mdae.c -- error names, the replaceable allocator, diagnostics lists.
 * See engine/mdae.h for the promises.
 */
#include "mdae.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mdae_allocator allocator = {malloc, realloc, calloc, free};

const char *mdae_strerror(int code)
{
    switch (code) {
#define MDAE_ERR_MSG_(name, val, msg) \
    case val:                         \
        return msg;
        MDAE_ERR_MAP(MDAE_ERR_MSG_)
#undef MDAE_ERR_MSG_
    }
    return "unknown error";
}

const char *mdae_err_name(int code)
{
    switch (code) {
#define MDAE_ERR_NAME_(name, val, msg) \
    case val:                          \
        return "MDAE_" #name;
        MDAE_ERR_MAP(MDAE_ERR_NAME_)
#undef MDAE_ERR_NAME_
    }
    return "MDAE_E_UNKNOWN";
}

int mdae_replace_allocator(const mdae_allocator *a)
{
    if (a == NULL) {
        allocator = (mdae_allocator){malloc, realloc, calloc, free};
        return MDAE_OK;
    }
    if (!a->malloc_fn || !a->realloc_fn || !a->calloc_fn || !a->free_fn)
        return MDAE_E_INVAL;
    allocator = *a;
    return MDAE_OK;
}

void *mdae_malloc(size_t n) { return allocator.malloc_fn(n ? n : 1); }
void *mdae_calloc(size_t count, size_t n)
{
    return allocator.calloc_fn(count ? count : 1, n ? n : 1);
}
void *mdae_realloc(void *p, size_t n) { return allocator.realloc_fn(p, n ? n : 1); }
void mdae_free(void *p)
{
    if (p != NULL)
        allocator.free_fn(p);
}

char *mdae_strndup(const char *s, size_t n)
{
    char *r = mdae_malloc(n + 1);
    if (r == NULL)
        return NULL;
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

char *mdae_strdup(const char *s) { return mdae_strndup(s, strlen(s)); }

size_t mdae_put_int(char *out, long long v)
{
    /* Counted first, then written in place from the last digit: no copy
     * from a scratch buffer (the elaboration names every instance here). */
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    size_t sign = v < 0, n = 1;
    for (unsigned long long t = u; t >= 10; t /= 10)
        n++;
    if (sign)
        out[0] = '-';
    for (size_t k = sign + n; k-- > sign; u /= 10)
        out[k] = (char)('0' + u % 10);
    return sign + n;
}

uint64_t mdae_hash(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t mdae_hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t mdae_hash_words(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t w;
    size_t k = 0;
    for (; k + sizeof w <= n; k += sizeof w) {
        memcpy(&w, b + k, sizeof w);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    for (; k < n; k++)
        h = (h ^ b[k]) * 1099511628211ull;
    return h;
}

char *mdae_vasprintf(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *r = mdae_malloc((size_t)n + 1);
    if (r != NULL)
        vsnprintf(r, (size_t)n + 1, fmt, ap);
    return r;
}

char *mdae_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *r = mdae_vasprintf(fmt, ap);
    va_end(ap);
    return r;
}

void mdae_diags_init(mdae_diags *d) { memset(d, 0, sizeof *d); }

void mdae_diags_close(mdae_diags *d)
{
    for (size_t i = 0; i < d->count; i++)
        mdae_free(d->items[i].message);
    mdae_free(d->items);
    size_t limit = d->limit;
    memset(d, 0, sizeof *d);
    d->limit = limit;
}

/* Append diag, whose message is owned by the list from now on (NULL: out
 * of memory, counted as dropped). */
static int push(mdae_diags *d, mdae_diag diag)
{
    if (diag.severity == MDAE_SEV_ERROR)
        d->errors++;
    size_t limit = d->limit ? d->limit : 100;
    if (diag.message == NULL || d->count >= limit) {
        d->dropped++;
        mdae_free(diag.message);
        return diag.message == NULL ? MDAE_E_NOMEM : MDAE_OK;
    }
    if (d->count == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 8;
        mdae_diag *items = mdae_realloc(d->items, cap * sizeof *items);
        if (items == NULL) {
            d->dropped++;
            mdae_free(diag.message);
            return MDAE_E_NOMEM;
        }
        d->items = items;
        d->cap = cap;
    }
    d->items[d->count++] = diag;
    return MDAE_OK;
}

int mdae_diags_add(mdae_diags *d, mdae_severity sev, mdae_range where, const char *fmt, ...)
{
    if (d == NULL)
        return MDAE_OK;
    va_list ap;
    va_start(ap, fmt);
    char *msg = mdae_vasprintf(fmt, ap);
    va_end(ap);
    return push(d, (mdae_diag){sev, where, msg, MDAE_LIMIT_NONE, 0});
}

int mdae_diags_add_copy(mdae_diags *d, const mdae_diag *diag)
{
    if (d == NULL)
        return MDAE_OK;
    mdae_diag copy = *diag;
    copy.message = mdae_strdup(diag->message ? diag->message : "");
    return push(d, copy);
}

const mdae_diag *mdae_diags_find_limit(const mdae_diags *d)
{
    for (size_t i = 0; d != NULL && i < d->count; i++)
        if (d->items[i].limit != MDAE_LIMIT_NONE)
            return &d->items[i];
    return NULL;
}

/* ---- Stated limits ------------------------------------------------------------ */

static const mdae_limit_info limits[] = {
#define MDAE_LIMIT_INFO_(name, val, setting, flag, fixed, unit) \
    [val] = {(setting) ? (setting) : (fixed), setting, flag, fixed, unit},
    MDAE_LIMIT_MAP(MDAE_LIMIT_INFO_)
#undef MDAE_LIMIT_INFO_
};

const mdae_limit_info *mdae_limit_get(int id)
{
    if (id <= MDAE_LIMIT_NONE || (size_t)id >= sizeof limits / sizeof limits[0] ||
        limits[id].name == NULL)
        return NULL;
    return &limits[id];
}

char *mdae_limit_note(int id, double value)
{
    const mdae_limit_info *li = mdae_limit_get(id);
    if (li == NULL)
        return NULL;
    if (li->setting == NULL) /* nothing raises it: say so rather than send people looking */
        return mdae_asprintf("(limit %s = %.0f, fixed in the engine)", li->name, value);
    if (li->flag == NULL)
        return mdae_asprintf("(limit %s = %.0f; raise it with %s in mdaed.json)", li->name, value,
                             li->setting);
    return mdae_asprintf("(limit %s = %.0f; raise it with %s N or %s in mdaed.json)", li->name,
                         value, li->flag, li->setting);
}

int mdae_diags_add_limit(mdae_diags *d, mdae_range where, int id, double value, const char *fmt,
                         ...)
{
    if (d == NULL)
        return MDAE_OK;
    va_list ap;
    va_start(ap, fmt);
    char *what = mdae_vasprintf(fmt, ap);
    va_end(ap);
    char *note = mdae_limit_note(id, value);
    char *msg = what && note ? mdae_asprintf("%s %s", what, note) : NULL;
    mdae_free(what);
    mdae_free(note);
    return push(d, (mdae_diag){MDAE_SEV_ERROR, where, msg, id, value});
}

static const char *severity_name(mdae_severity sev)
{
    switch (sev) {
    case MDAE_SEV_ERROR: return "error";
    case MDAE_SEV_WARNING: return "warning";
    case MDAE_SEV_NOTE: return "note";
    }
    return "error";
}

char *mdae_diag_format(const mdae_diag *diag, const char *file)
{
    if (file == NULL)
        file = "<input>";
    if (diag->where.start.line == 0)
        return mdae_asprintf("%s: %s: %s", file, severity_name(diag->severity), diag->message);
    return mdae_asprintf("%s:%u:%u: %s: %s", file, (unsigned)diag->where.start.line,
                         (unsigned)diag->where.start.col, severity_name(diag->severity),
                         diag->message);
}

/* ---- String builder ---------------------------------------------------------- */

void mdae_buf_put(mdae_buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = mdae_realloc(b->p, cap);
        if (p == NULL) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void mdae_buf_puts(mdae_buf *b, const char *s) { mdae_buf_put(b, s, strlen(s)); }

void mdae__assert_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "%s:%d: mdae: invariant broken: %s\n", file, line, cond);
    abort();
}
