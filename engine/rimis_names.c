/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/rimis_names.c -- the variables of a RIMIS and which of them a
 * source reference (v, r) names where (engine/rimis.h steps 1-3; the
 * state of the build in rimis_core.h):
 *  - V(u, 0) is u, V(u, n) the dummy derivative u_p...p, declared when
 *    first asked for (rc__value), and defined later (rimis_eqs.c);
 *  - rho(b, u, n) = u_p...p_<id of cond(b)>, for every writer b of a
 *    replicated (u, n) (rc__replicates);
 *  - a read under block b names the writers' common name, or a read
 *    replicate rho(cond(b), v, r) multiplexed over them (rc__name_under).
 * Generated names never collide with a name of the source (unknowns,
 * knowns, modes) nor with each other: a taken name gets "_" appended
 * until it is free (rc__fresh), in the deterministic order of creation.
 */
#include "rimis_core.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* ---- The map (kind, a, b, c) -> output variable --------------------------- */

static size_t key_hash(rc_key k)
{
    return (size_t)mdae_hash(&k, sizeof k);
}

static bool key_eq(rc_key x, rc_key y)
{
    return x.tag == y.tag && x.a == y.a && x.b == y.b && x.c == y.c;
}

static long map_get(const rc_map *mp, rc_key k)
{
    if (mp->cap == 0)
        return -1;
    for (size_t i = key_hash(k) & (mp->cap - 1);; i = (i + 1) & (mp->cap - 1)) {
        if (mp->keys[i].tag == 0)
            return -1;
        if (key_eq(mp->keys[i], k))
            return (long)mp->vals[i];
    }
}

static void map_put_raw(rc_map *mp, rc_key k, uint32_t v)
{
    size_t i = key_hash(k) & (mp->cap - 1);
    while (mp->keys[i].tag != 0)
        i = (i + 1) & (mp->cap - 1);
    mp->keys[i] = k;
    mp->vals[i] = v;
    mp->n++;
}

static void map_put(rc_build *b, rc_key k, uint32_t v)
{
    rc_map *mp = &b->map;
    if (2 * (mp->n + 1) > mp->cap) {
        rc_map old = *mp;
        mp->cap = old.cap ? 2 * old.cap : 64;
        mp->n = 0;
        mp->keys = sa__alloc(b->c, mp->cap * sizeof *mp->keys);
        mp->vals = sa__alloc_raw(b->c, mp->cap * sizeof *mp->vals);
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i].tag != 0)
                map_put_raw(mp, old.keys[i], old.vals[i]);
    }
    map_put_raw(mp, k, v);
}

/* ---- The names taken ----------------------------------------------------------- */

static bool names_has(const rc_names *s, const char *name)
{
    if (s->cap == 0)
        return false;
    for (size_t i = mdae_hash_str(name) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->s[i] == NULL)
            return false;
        if (strcmp(s->s[i], name) == 0)
            return true;
    }
}

static void names_put_raw(rc_names *s, const char *name)
{
    size_t i = mdae_hash_str(name) & (s->cap - 1);
    while (s->s[i] != NULL) {
        if (strcmp(s->s[i], name) == 0)
            return;
        i = (i + 1) & (s->cap - 1);
    }
    s->s[i] = name;
    s->n++;
}

static void names_put(rc_build *b, const char *name)
{
    rc_names *s = &b->names;
    if (2 * (s->n + 1) > s->cap) {
        rc_names old = *s;
        s->cap = old.cap ? 2 * old.cap : 256;
        s->n = 0;
        s->s = sa__alloc(b->c, s->cap * sizeof *s->s);
        for (size_t i = 0; i < old.cap; i++)
            if (old.s[i] != NULL)
                names_put_raw(s, old.s[i]);
    }
    names_put_raw(s, name);
}

void rc__names_init(rc_build *b)
{
    const mel_model *m = b->m;
    for (uint32_t k = 0; k < m->n_variables; k++)
        names_put(b, m->variables[k].name);
    for (uint32_t k = 0; k < m->n_knowns; k++)
        names_put(b, m->knowns[k].name);
    for (uint32_t k = 0; k < m->n_modes; k++)
        names_put(b, m->modes[k].name);
    names_put(b, "time");
}

char *rc__fresh(rc_build *b, const char *base, int n, const char *suffix)
{
    mdae_buf s = {0};
    mdae_buf_puts(&s, base);
    for (int k = 0; k < n; k++)
        mdae_buf_puts(&s, "_p");
    mdae_buf_puts(&s, suffix);
    while (!s.oom && names_has(&b->names, s.p))
        mdae_buf_puts(&s, "_");
    if (s.oom) {
        mdae_free(s.p);
        rc__oom(b);
    }
    return s.p;
}

/* ---- Output variables ---------------------------------------------------------- */

uint32_t rc__add_var(rc_build *b, char *name, rimis_var_kind kind, uint32_t var, int order,
                     long cond, long block)
{
    rimis_result *res = b->res;
    if (name == NULL)
        rc__oom(b);
    if (res->n_vars == b->cap_vars) {
        size_t cap = b->cap_vars ? 2 * b->cap_vars : 64;
        rimis_var *p = mdae_realloc(res->vars, cap * sizeof *p);
        if (p == NULL) {
            mdae_free(name);
            rc__oom(b);
        }
        res->vars = p;
        b->cap_vars = cap;
    }
    uint32_t k = res->n_vars++;
    res->vars[k] = (rimis_var){.name = name, .kind = kind, .var = var, .order = order,
                               .cond = cond, .block = block};
    names_put(b, name); /* after it is owned by the result */
    return k;
}

int rc__writes(const rc_build *b, uint32_t blk, uint32_t u)
{
    const cdg_block *k = &b->blk[blk];
    size_t lo = 0, hi = k->n_unknowns; /* sorted by index */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (k->unknowns[mid].index < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->n_unknowns && k->unknowns[lo].index == u ? k->unknowns[lo].order : -1;
}

rc_class rc__class(const rc_build *b, uint32_t u, int n, long *direct)
{
    uint32_t all = 0, solving = 0, last = 0;
    for (uint32_t i = b->wfirst[u]; i < b->wfirst[u + 1]; i++) {
        if (b->w[i].k < n)
            continue;
        all++;
        solving += b->w[i].k == n;
        last = b->w[i].block;
    }
    if (all == 0)
        return RC_NONE;
    if (solving == 0)
        return RC_FACTORED;
    if (all == 1 && sa__diff(sa__and(b->r->chi_j[u], b->r->ok), b->bq[last]) == bddfalse) {
        if (direct != NULL)
            *direct = (long)last;
        return RC_DIRECT;
    }
    return RC_REPL;
}

uint32_t rc__value(rc_build *b, uint32_t u, int n)
{
    rc_key key = {RC_K_V, u, (uint32_t)n, 0};
    long k = map_get(&b->map, key);
    if (k >= 0)
        return (uint32_t)k;
    const char *name = b->m->variables[u].name;
    uint32_t v = n == 0 ? rc__add_var(b, mdae_strdup(name), RIMIS_V_SOURCE, u, 0, -1, -1)
                        : rc__add_var(b, rc__fresh(b, name, n, ""), RIMIS_V_DUMMY, u, n, -1, -1);
    map_put(b, key, v);
    return v;
}

static uint32_t cond_id(const rc_build *b, uint32_t blk)
{
    long c = b->bcond[blk];
    return c < 0 ? 0 : b->res->conds[c].id;
}

void rc__replicates(rc_build *b, uint32_t u, int n)
{
    if (rc__class(b, u, n, NULL) != RC_REPL)
        return;
    uint32_t first = b->wfirst[u];
    while (b->w[first].k < n)
        first++;
    if (map_get(&b->map, (rc_key){RC_K_REP, b->w[first].block, u, (uint32_t)n}) >= 0)
        return;
    for (uint32_t i = b->wfirst[u]; i < b->wfirst[u + 1]; i++) {
        if (b->w[i].k < n)
            continue;
        uint32_t blk = b->w[i].block;
        char suffix[16];
        snprintf(suffix, sizeof suffix, "_%u", (unsigned)cond_id(b, blk));
        uint32_t v = rc__add_var(b, rc__fresh(b, b->m->variables[u].name, n, suffix),
                                 RIMIS_V_REPLICATE, u, n, b->bcond[blk], (long)blk);
        b->res->vars[v].state = b->w[i].k > n;
        map_put(b, (rc_key){RC_K_REP, blk, u, (uint32_t)n}, v);
    }
}

/* Block blk's own name for (u, n), which it writes at an order >= n. */
uint32_t rc__own_name(rc_build *b, uint32_t blk, uint32_t u, int n)
{
    rc_class cl = rc__class(b, u, n, NULL);
    if (cl != RC_REPL)
        return rc__value(b, u, n);
    rc__replicates(b, u, n);
    long v = map_get(&b->map, (rc_key){RC_K_REP, blk, u, (uint32_t)n});
    assert(v >= 0);
    return (uint32_t)v;
}

/* A read replicate of (v, r) under blk's condition, made once. */
static uint32_t read_replicate(rc_build *b, uint32_t blk, uint32_t v, int r)
{
    uint32_t id = cond_id(b, blk);
    rc_key key = {RC_K_READ, id, v, (uint32_t)r};
    long k = map_get(&b->map, key);
    if (k >= 0)
        return (uint32_t)k;
    char suffix[16];
    snprintf(suffix, sizeof suffix, "_%u", (unsigned)id);
    uint32_t x = rc__add_var(b, rc__fresh(b, b->m->variables[v].name, r, suffix), RIMIS_V_READ, v,
                             r, b->bcond[blk], (long)blk);
    map_put(b, key, x);
    return x;
}

uint32_t rc__name_under(rc_build *b, uint32_t blk, uint32_t v, int r)
{
    if (rc__writes(b, blk, v) >= r)
        return rc__own_name(b, blk, v, r);
    long name = -1;
    bool same = true;
    uint32_t all = 0, meeting = 0;
    for (uint32_t i = b->wfirst[v]; i < b->wfirst[v + 1]; i++) {
        uint32_t w = b->w[i].block;
        if (b->w[i].k < r)
            continue;
        all++;
        if (sa__and(b->bq[w], b->bq[blk]) == bddfalse)
            continue;
        meeting++;
        uint32_t x = rc__own_name(b, w, v, r);
        same = same && (name < 0 || (uint32_t)name == x);
        name = (long)x;
    }
    if (name < 0 || (!same && meeting == all)) /* V(v, r) multiplexes them all */
        return rc__value(b, v, r);
    return same ? (uint32_t)name : read_replicate(b, blk, v, r);
}

/* ---- Renaming ---------------------------------------------------------------- */

static const fx_node *rename_kids(rc_build *b, const fx_node *e, uint32_t blk, const char **why)
{
    if (e->n == 0)
        return e;
    const fx_node *small[8];
    const fx_node **kids = e->n <= 8 ? small : sa__alloc_raw(b->c, e->n * sizeof *kids);
    bool changed = false;
    for (uint32_t i = 0; i < e->n; i++) {
        kids[i] = rc__rename(b, e->kids[i], blk, why);
        if (kids[i] == NULL)
            return NULL;
        changed = changed || kids[i] != e->kids[i];
    }
    if (!changed)
        return e;
    const fx_node *n = e->op == FX_CALL ? fx_call(b->pool, (fx_fn)e->fn, e->name, kids, e->n, e->where)
                                        : fx_make(b->pool, (fx_op)e->op, kids, e->n, e->where);
    if (n == NULL)
        rc__oom(b);
    return n;
}

/* A text kept as such prints as it is written: only when every unknown it
 * reads is named as in the source (V(v, 0), the source variable itself). */
static const fx_node *opaque_as_is(rc_build *b, const fx_node *e, uint32_t blk, const char **why)
{
    if (e->name != NULL && strcmp(e->name, "algorithm") == 0) {
        *why = "an algorithm section (RIMIS prints equations only)";
        return NULL;
    }
    for (uint32_t i = 0; i < e->n; i++) {
        const fx_node *k = e->kids[i];
        if (k->op != FX_VAR || k->order != 0 || k->index >= b->m->n_variables)
            goto refuse;
        uint32_t x = blk == UINT32_MAX ? rc__value(b, k->index, 0)
                                       : rc__name_under(b, blk, k->index, 0);
        if (b->res->vars[x].kind != RIMIS_V_SOURCE)
            goto refuse;
    }
    return e;
refuse:
    *why = "an expression kept only as text reads unknowns RIMIS renames or differentiates";
    return NULL;
}

const fx_node *rc__rename(rc_build *b, const fx_node *e, uint32_t blk, const char **why)
{
    switch ((fx_op)e->op) {
    case FX_VAR: {
        if (e->index >= b->m->n_variables) {
            *why = "a reference out of the model";
            return NULL;
        }
        uint32_t x = blk == UINT32_MAX ? rc__value(b, e->index, e->order)
                                       : rc__name_under(b, blk, e->index, e->order);
        const fx_node *n = fx_var(b->pool, x, 0, e->where);
        if (n == NULL)
            rc__oom(b);
        return n;
    }
    case FX_MODE:
        if (fx_mode_is_atom(b->m, e->index) && b->m->modes[e->index].def != NULL)
            return rc__rename(b, b->m->modes[e->index].def, UINT32_MAX, why);
        return e;
    case FX_OPAQUE: return opaque_as_is(b, e, blk, why);
    case FX_NEXT:
        *why = "next() outside a when-clause";
        return NULL;
    default: return rename_kids(b, e, blk, why);
    }
}
