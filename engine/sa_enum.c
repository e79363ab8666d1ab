/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_enum.c -- the enumeration path (issue 10): the all-modes result
 * of a model built by analysing each of its valid modes with the ordinary
 * single-mode algorithms (engine/sm.h), then writing the per-mode answers
 * back as mode functions. Which path a model takes: sa_analyze.c.
 *
 * Which modes. The model's functions (chi_i, chi_j, chi_e, sigma, from the
 * encoding) depend on a set S of mode variables, usually far fewer than all
 * when the model is one component of a larger one. Only the assignments of
 * S that extend to a valid mode (P = exists the others. chi_m) are solved;
 * each gives the answer of every valid mode that extends it. Modes whose
 * active graphs are identical (same active equations, variables, edges and
 * orders) are solved once.
 *
 * Why the result equals the implicit path's, BDD for BDD. Every field of
 * sa_result is a mode function, and BDDs are canonical, so it suffices that
 * both paths give each field the same value in every mode:
 *   - ok / singular: a perfect matching exists (sm_solve), within chi_m;
 *   - te: sa__choose keeps, per mode, the maximum-weight perfect matching
 *     that is lexicographically smallest in the BDD variable order, edges
 *     false first; sm_solve picks that same matching when the edges are
 *     ranked by their BDD levels (sm.h says how); 0 outside ok;
 *   - c, d: Pryce's canonical offsets (the smallest dual, which does not
 *     depend on the matching), 0 outside ok and where inactive (sa_dual.c),
 *     on the width sa__offsets_alloc gives both paths;
 *   - over, under: the coarse Dulmage-Mendelsohn parts (sa_dm.c defines
 *     them by maximum matchings as sm_solve does), within the singular
 *     modes.
 * A function is built over S from its values on the enumerated assignments
 * (a decision over S in level order, a constant wherever the remaining
 * assignments agree) and then masked with chi_m, ok or singular; values on
 * assignments of S that no valid mode extends are never looked at, since
 * the mask removes them. tests/engine/test_sa_enum.c checks the equality
 * field by field against the implicit path.
 */
#include "sa_int.h"
#include "sm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T(f) sa__tmp(c, (f))

/* The answers, stored as differences. A mode's answer is a vector of
 * fields (sm_mode's arrays): c[i], mate[i], over[i], d[j], under[j], field
 * numbers in that order (field_of). The first nonsingular answer and the
 * first singular one are kept whole (the bases); every other answer keeps
 * the fields where it differs from its kind's base, and only the fields
 * its kind uses (c, d, mate where nonsingular; mate, over, under where
 * singular). Most fields are the same in every mode, so the answers of a
 * 3,000-equation block over 4,096 modes take kilobytes, not the 600 MB of
 * whole copies (MSL EngineV6_analytic), and a field that never differs is
 * written back as a constant without looking at the modes. */
enum { K_OK, K_SING };

typedef struct diff {
    uint32_t field;
    long value;
} diff;

typedef struct answer {
    bool ok;
    size_t first; /* its diffs: diffs[first .. first + n) */
    size_t n;
    size_t mode;  /* the first mode (index into assign) that has it */
} answer;

/* The enumeration's state; a cleanup of the context (sa__push_cleanup), so
 * a jump frees it. */
typedef struct enum_state {
    sa_ctx *ctx;
    sm_frame *frame;
    uint32_t n_s;          /* |S| */
    int *s_var;            /* n_s: BDD variables of S, by level */
    int *s_mode;           /* n_s: their mode indices */
    size_t n_modes, cap_modes;
    unsigned char *assign; /* n_modes * n_s: the enumerated assignments */
    uint32_t *answer_of;   /* n_modes */
    size_t n_answers, cap_answers;
    answer *answers;
    /* Distinct active graphs: a hash per answer and a table; a hash hit is
     * confirmed by the answer's key: kept when keys are short (small
     * components, where identical graphs are common), else computed again
     * from the answer's first mode (a 3,000-equation block over 4,096
     * modes would keep 400 MB of keys). */
    size_t key_len;
    unsigned char **keys; /* per answer, if key_len <= KEEP_KEY_BYTES */
    uint64_t *hashes;
    long *table;
    size_t table_cap;
    /* The answers' fields (above). */
    uint32_t n_fields;
    bool has_base[2];
    long *base[2];         /* n_fields each */
    diff *diffs;
    size_t n_diffs, cap_diffs;
    /* By field, after the modes are solved: the answers that differ from
     * their base there, and their values (compressed rows per kind). */
    size_t *by_first[2];   /* n_fields + 1 */
    uint32_t *by_answer[2];
    long *by_value[2];
    /* Building functions. */
    unsigned char *aval;   /* n_answers: the field's value per answer */
    uint32_t *ones;        /* n_modes + 1: prefix counts of the values */
} enum_state;

static void enum_free(void *arg)
{
    enum_state *st = arg;
    if (st == NULL)
        return;
    sm_frame_free(st->frame);
    for (size_t k = 0; st->keys != NULL && k < st->n_answers; k++)
        mdae_free(st->keys[k]);
    mdae_free(st->keys);
    mdae_free(st->answers);
    mdae_free(st->hashes);
    mdae_free(st->table);
    mdae_free(st->s_var);
    mdae_free(st->s_mode);
    mdae_free(st->assign);
    mdae_free(st->answer_of);
    for (int k = 0; k < 2; k++) {
        mdae_free(st->base[k]);
    }
    mdae_free(st->by_first[0]); /* by_first, by_value, by_answer: one block (index_diffs) */
    mdae_free(st->diffs);
    mdae_free(st->aval);
    mdae_free(st->ones);
    mdae_free(st);
}

static void *need(sa_ctx *c, void *p)
{
    if (p == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    return p;
}

static void *grow(sa_ctx *c, void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return p;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc <= n)
        nc *= 2;
    void *q = need(c, mdae_realloc(p, nc * size));
    *cap = nc;
    return q;
}

/* ---- S and the valid assignments -------------------------------------------------- */

/* Walks over nodes (sa_int.h says why not bdd_support). */
void sa__walk_init(sa_ctx *c, sa__walk *w)
{
    w->seen = sa__seen(c);
    w->cap = w->cap_visited = 64;
    w->n_visited = 0;
    w->stack = sa__alloc(c, w->cap * sizeof *w->stack);
    w->visited = sa__alloc(c, w->cap_visited * sizeof *w->visited);
}

void sa__walk_done(sa__walk *w)
{
    for (size_t k = 0; k < w->n_visited; k++)
        w->seen[w->visited[k] >> 3] = 0;
    w->n_visited = 0;
}

void sa__walk_modes(sa_ctx *c, sa__walk *w, BDD f, bool *in)
{
    const sa_result *r = c->r;
    size_t top = 0;
    w->stack[top++] = f;
    while (top > 0) {
        BDD g = w->stack[--top];
        if (g < 2 || (w->seen[g >> 3] >> (g & 7) & 1))
            continue;
        w->seen[g >> 3] |= (unsigned char)(1u << (g & 7));
        if (w->n_visited == w->cap_visited) { /* the old block: as below */
            BDD *bigger = sa__alloc(c, 2 * w->cap_visited * sizeof *bigger);
            memcpy(bigger, w->visited, w->n_visited * sizeof *bigger);
            w->visited = bigger;
            w->cap_visited *= 2;
        }
        w->visited[w->n_visited++] = g;
        int k = r->var_mode[bdd_var(g)];
        if (k >= 0)
            in[k] = true;
        if (top + 2 > w->cap) { /* the old block is freed with the context */
            BDD *bigger = sa__alloc(c, 2 * w->cap * sizeof *bigger);
            memcpy(bigger, w->stack, top * sizeof *bigger);
            w->stack = bigger;
            w->cap *= 2;
        }
        w->stack[top++] = bdd_low(g);
        w->stack[top++] = bdd_high(g);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void sa__enum_plan(sa_ctx *c, sa__plan *plan)
{
    sa_result *r = c->r;
    plan->valid_s = sa__slots(c, 1);
    size_t mark = sa__mark(c);
    /* in_s and in_m: the context's flags, cleared below as they are read. */
    bool *in_s = sa__flags(c, 2 * ((size_t)r->n_modes + 1));
    bool *in_m = in_s + r->n_modes + 1;
    sa__walk w;
    sa__walk_init(c, &w);
    /* Constants (most functions) read no mode: no call for them. */
    for (uint32_t i = 0; i < r->n_eq; i++)
        if (r->chi_i[i] >= 2)
            sa__walk_modes(c, &w, r->chi_i[i], in_s);
    for (uint32_t j = 0; j < r->n_var; j++)
        if (r->chi_j[j] >= 2)
            sa__walk_modes(c, &w, r->chi_j[j], in_s);
    for (size_t e = 0; e < r->n_edges; e++) {
        if (r->chi_e[e] >= 2)
            sa__walk_modes(c, &w, r->chi_e[e], in_s);
        for (int b = 0; b < r->w_sigma; b++)
            if (r->sigma[e * (size_t)r->w_sigma + b] >= 2)
                sa__walk_modes(c, &w, r->sigma[e * (size_t)r->w_sigma + b], in_s);
    }
    /* P is chi_m with the mode variables outside S quantified: only those
     * it depends on (a block of a large model reads a few of its many).
     * The walk goes on from the nodes above: one they shared is not walked
     * again, but all its variables are in S already. */
    size_t walked_s = w.n_visited;
    sa__walk_modes(c, &w, r->chi_m, in_m);
    /* S and the others from the nodes walked, not from a pass over every
     * mode variable: this runs once per block (issue 40). */
    uint32_t *s_modes = sa__alloc_raw(c, (walked_s + 1) * sizeof *s_modes);
    int *others = sa__alloc_raw(c, (w.n_visited - walked_s + 1) * sizeof *others);
    uint32_t n_s = 0, n_others = 0;
    for (size_t q = walked_s; q < w.n_visited; q++) {
        int k = r->var_mode[bdd_var(w.visited[q])];
        if (k >= 0 && in_m[k]) {
            in_m[k] = false; /* each once */
            if (!in_s[k])
                others[n_others++] = r->mode_var[k];
        }
    }
    for (size_t q = 0; q < walked_s; q++) {
        int k = r->var_mode[bdd_var(w.visited[q])];
        if (k >= 0 && in_s[k]) {
            in_s[k] = false;
            s_modes[n_s++] = (uint32_t)k;
        }
    }
    sa__walk_done(&w);
    sa__flags_done(c);
    qsort(s_modes, n_s, sizeof *s_modes, cmp_u32);
    BDD cube = sa__cube(c, others, n_others);
    sa__put(plan->valid_s, bdd_exist(r->chi_m, cube));
    plan->n_s = n_s;
    plan->modes = sa__count_modes_in(c, r, *plan->valid_s, s_modes, n_s);
    plan->s_modes = s_modes;
    sa__release(c, mark);
}

/* The mode variables the functions of equation i of r read (its chi_I,
 * and the chi_E and sigma of its edges), flagged in `in`. */
static void row_modes(sa_ctx *c, sa__walk *w, const sa_result *r, uint32_t i, bool *in)
{
    int ws = r->w_sigma;
    if (r->chi_i[i] >= 2)
        sa__walk_modes(c, w, r->chi_i[i], in);
    for (size_t e = r->eq_first[i]; e < r->eq_first[i + 1]; e++) {
        if (r->chi_e[e] >= 2)
            sa__walk_modes(c, w, r->chi_e[e], in);
        for (int b = 0; b < ws; b++)
            if (r->sigma[e * (size_t)ws + b] >= 2)
                sa__walk_modes(c, w, r->sigma[e * (size_t)ws + b], in);
    }
}

static bool in_sorted(const uint32_t *a, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] == k)
            return true;
        if (a[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Whether the hint h's plan is r's: r took h's chi_M, chi_J and the
 * functions of every equation but those c->enc_same leaves out; the
 * mode variables those read in r (new) are in h's S, and every one they
 * read in h (old) they still read in r. Then S loses none (a variable
 * read before only by the rows encoded anew is still read by them) and
 * gains none: the same S, the same valid assignments of it. */
static bool hint_plan_holds(sa_ctx *c, const sa_result *h)
{
    const sa_result *r = c->r;
    if (!h->plan_kept || r->chi_m != h->chi_m || h->n_eq != r->n_eq || h->n_modes != r->n_modes)
        return false;
    size_t mark = sa__mark(c);
    bool *in_new = sa__flags(c, 2 * ((size_t)r->n_modes + 1));
    bool *in_old = in_new + r->n_modes + 1;
    sa__walk w;
    sa__walk_init(c, &w);
    for (uint32_t i = 0; i < r->n_eq; i++)
        if (!c->enc_same[i])
            row_modes(c, &w, r, i, in_new);
    for (uint32_t i = 0; i < r->n_eq; i++)
        if (!c->enc_same[i])
            row_modes(c, &w, h, i, in_old);
    /* Each variable's flags read at its first node, then cleared; a node
     * both walks meet was walked by the first, so its variable is new. */
    bool holds = true;
    for (size_t q = 0; q < w.n_visited; q++) {
        int k = r->var_mode[bdd_var(w.visited[q])];
        if (k < 0)
            continue;
        if (in_new[k] && !in_sorted(h->plan_s_modes, h->plan_n_s, (uint32_t)k))
            holds = false; /* S gains k */
        if (in_old[k] && !in_new[k])
            holds = false; /* S may lose k */
        in_new[k] = in_old[k] = false;
    }
    sa__walk_done(&w);
    sa__flags_done(c);
    sa__release(c, mark);
    return holds;
}

void sa__enum_plan_whole(sa_ctx *c, sa__plan *plan)
{
    sa_result *r = c->r;
    const sa_result *h = c->opt != NULL ? c->opt->hint : NULL;
    if (c->enc_same != NULL && h != NULL && hint_plan_holds(c, h)) {
        plan->valid_s = sa__slots(c, 1);
        sa__put(plan->valid_s, h->plan_valid_s);
        plan->n_s = h->plan_n_s;
        plan->modes = h->plan_modes;
        plan->s_modes = sa__alloc_raw(c, ((size_t)plan->n_s + 1) * sizeof *plan->s_modes);
        memcpy(plan->s_modes, h->plan_s_modes, (size_t)plan->n_s * sizeof *plan->s_modes);
    } else {
        sa__enum_plan(c, plan);
    }
    uint32_t *s = sa__alloc_keep_raw(c, ((size_t)plan->n_s + 1) * sizeof *s);
    memcpy(s, plan->s_modes, (size_t)plan->n_s * sizeof *s);
    mdae_free(r->plan_s_modes);
    r->plan_s_modes = s;
    r->plan_n_s = plan->n_s;
    r->plan_modes = plan->modes;
    sa__put(&r->plan_valid_s, *plan->valid_s);
    r->plan_kept = true;
}

/* Enumerate the assignments of S satisfying P, in lexicographic order of
 * the levels (0 first). P depends on S only. */
static void enum_rec(enum_state *st, BDD f, uint32_t k, unsigned char *cur)
{
    if (f == bddfalse)
        return;
    if (k == st->n_s) {
        sa_ctx *c = st->ctx;
        st->assign = grow(c, st->assign, &st->cap_modes, st->n_modes, st->n_s + 1);
        memcpy(st->assign + st->n_modes * st->n_s, cur, st->n_s);
        st->n_modes++;
        return;
    }
    int v = st->s_var[k];
    bool splits = f != bddtrue && bdd_var(f) == v;
    cur[k] = 0;
    enum_rec(st, splits ? bdd_low(f) : f, k + 1, cur);
    cur[k] = 1;
    enum_rec(st, splits ? bdd_high(f) : f, k + 1, cur);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void collect_modes(sa_ctx *c, enum_state *st, const sa__plan *plan)
{
    sa_result *r = c->r;
    st->s_var = need(c, mdae_calloc((size_t)plan->n_s + 1, sizeof *st->s_var));
    st->s_mode = need(c, mdae_calloc((size_t)plan->n_s + 1, sizeof *st->s_mode));
    /* S by level: sort the levels, then map back. */
    int *lv = sa__alloc(c, ((size_t)plan->n_s + 1) * sizeof *lv);
    uint32_t n = 0;
    for (uint32_t q = 0; q < plan->n_s; q++)
        lv[n++] = bdd_var2level(r->mode_var[plan->s_modes[q]]);
    qsort(lv, n, sizeof *lv, cmp_int);
    for (uint32_t q = 0; q < n; q++) {
        st->s_var[q] = bdd_level2var(lv[q]);
        st->s_mode[q] = r->var_mode[st->s_var[q]];
    }
    st->n_s = n;
    unsigned char *cur = sa__alloc(c, (size_t)n + 1);
    enum_rec(st, *plan->valid_s, 0, cur);
}

/* ---- Solving each mode --------------------------------------------------------------- */

#define KEEP_KEY_BYTES 4096

/* The key of mode t (its active graph: active equations, variables, edge
 * orders + 1) into key, and the orders into sigma; the key is laid out
 * as eq_active, var_active, sigma, which sm_frame_solve reads. */
static void mode_key(const sa_result *r, const enum_state *st, size_t t, unsigned char *key,
                     bool *mode, int *sigma)
{
    bool *eq_active = (bool *)key, *var_active = (bool *)(key + r->n_eq);
    for (uint32_t q = 0; q < st->n_s; q++)
        mode[st->s_mode[q]] = st->assign[t * st->n_s + q];
    for (uint32_t i = 0; i < r->n_eq; i++)
        eq_active[i] = sa__eval(r, r->chi_i[i], mode);
    for (uint32_t j = 0; j < r->n_var; j++)
        var_active[j] = sa__eval(r, r->chi_j[j], mode);
    for (size_t e = 0; e < r->n_edges; e++)
        sigma[e] = sa__eval(r, r->chi_e[e], mode)
                       ? (int)sa__veval(r, &r->sigma[e * (size_t)r->w_sigma], r->w_sigma, mode)
                       : -1;
    memcpy(key + r->n_eq + r->n_var, sigma, r->n_edges * sizeof *sigma);
}

static void rehash(sa_ctx *c, enum_state *st)
{
    size_t cap = st->table_cap ? st->table_cap * 2 : 64;
    long *t = need(c, mdae_malloc(cap * sizeof *t));
    for (size_t k = 0; k < cap; k++)
        t[k] = -1;
    for (size_t a = 0; a < st->n_answers; a++) {
        size_t p = st->hashes[a] & (cap - 1);
        while (t[p] >= 0)
            p = (p + 1) & (cap - 1);
        t[p] = (long)a;
    }
    mdae_free(st->table);
    st->table = t;
    st->table_cap = cap;
}

/* The answer of mode t, whose key is `key`: an earlier answer with the same
 * key, or a new one (*added). `other` is scratch for the keys of earlier
 * answers, mode and sigma likewise (mode_key). */
static uint32_t find_or_add(sa_ctx *c, enum_state *st, size_t t, const unsigned char *key,
                            unsigned char *other, bool *mode, int *sigma, bool *added)
{
    uint64_t h = mdae_hash(key, st->key_len);
    if (st->table_cap < 2 * (st->n_answers + 1))
        rehash(c, st);
    size_t p = h & (st->table_cap - 1);
    for (; st->table[p] >= 0; p = (p + 1) & (st->table_cap - 1)) {
        size_t a = (size_t)st->table[p];
        if (st->hashes[a] != h)
            continue;
        const unsigned char *was = other;
        if (st->key_len <= KEEP_KEY_BYTES)
            was = st->keys[a];
        else
            mode_key(c->r, st, st->answers[a].mode, other, mode, sigma);
        if (memcmp(was, key, st->key_len) == 0) {
            *added = false;
            return (uint32_t)a;
        }
    }
    size_t cap = st->cap_answers;
    st->answers = grow(c, st->answers, &cap, st->n_answers, sizeof *st->answers);
    size_t cap2 = st->cap_answers;
    st->hashes = grow(c, st->hashes, &cap2, st->n_answers, sizeof *st->hashes);
    size_t a = st->n_answers;
    if (st->key_len <= KEEP_KEY_BYTES) {
        size_t cap3 = st->cap_answers;
        st->keys = grow(c, st->keys, &cap3, st->n_answers, sizeof *st->keys);
        unsigned char *copy = need(c, mdae_malloc(st->key_len + 1));
        memcpy(copy, key, st->key_len);
        st->keys[a] = copy;
    }
    st->cap_answers = cap;
    st->answers[a] = (answer){.mode = t};
    st->hashes[a] = h;
    st->n_answers++;
    st->table[p] = (long)a;
    *added = true;
    return (uint32_t)a;
}

/* Field numbers (see answer): c[i], mate[i], over[i], d[j], under[j]. */
static long mode_field(const sm_mode *v, uint32_t n_eq, uint32_t n_var, uint32_t f)
{
    if (f < n_eq)
        return v->c[f];
    if (f < 2 * n_eq)
        return v->matched_edge[f - n_eq];
    if (f < 3 * n_eq)
        return v->overdetermined[f - 2 * n_eq];
    if (f < 3 * n_eq + n_var)
        return v->d[f - 3 * n_eq];
    return v->underdetermined[f - 3 * n_eq - n_var];
}

/* Whether a field matters for an answer of kind k (see answer). */
static bool kind_uses(int k, uint32_t n_eq, uint32_t n_var, uint32_t f)
{
    bool c_or_d = f < n_eq || (f >= 3 * n_eq && f < 3 * n_eq + n_var);
    bool mate = f >= n_eq && f < 2 * n_eq;
    return mate || (k == K_OK ? c_or_d : !c_or_d);
}

static void keep_answer(sa_ctx *c, enum_state *st, answer *a, const sm_mode *v)
{
    const sa_result *r = c->r;
    int k = v->singular ? K_SING : K_OK;
    a->ok = !v->singular;
    a->first = st->n_diffs;
    a->n = 0;
    if (!st->has_base[k]) {
        st->base[k] = need(c, mdae_malloc(((size_t)st->n_fields + 1) * sizeof *st->base[k]));
        for (uint32_t f = 0; f < st->n_fields; f++)
            st->base[k][f] = mode_field(v, r->n_eq, r->n_var, f);
        st->has_base[k] = true;
        return;
    }
    for (uint32_t f = 0; f < st->n_fields; f++) {
        long value = mode_field(v, r->n_eq, r->n_var, f);
        if (value == st->base[k][f] || !kind_uses(k, r->n_eq, r->n_var, f))
            continue;
        st->diffs = grow(c, st->diffs, &st->cap_diffs, st->n_diffs, sizeof *st->diffs);
        st->diffs[st->n_diffs++] = (diff){f, value};
        a->n++;
    }
}

/* The diffs by field (by_first, by_answer, by_value), per kind. */
static void index_diffs(sa_ctx *c, enum_state *st)
{
    /* The six arrays in one allocation, by_first's zeroed (an enumeration
     * per block: the brake's N = 10,000 made 90,024 of them), the
     * eight-byte arrays first; freed by enum_free through by_first[0]. */
    MDAE_ASSERT(st->by_first[0] == NULL); /* once per enumeration */
    size_t nf = (size_t)st->n_fields + 2, nd = st->n_diffs + 1;
    size_t bytes = 2 * (nf * sizeof(size_t) + nd * sizeof(long) + nd * sizeof(uint32_t));
    char *block = need(c, mdae_malloc(bytes));
    memset(block, 0, 2 * nf * sizeof(size_t));
    for (int k = 0; k < 2; k++)
        st->by_first[k] = (size_t *)block + (size_t)k * nf;
    long *values = (long *)(st->by_first[1] + nf);
    for (int k = 0; k < 2; k++)
        st->by_value[k] = values + (size_t)k * nd;
    uint32_t *answers = (uint32_t *)(st->by_value[1] + nd);
    for (int k = 0; k < 2; k++)
        st->by_answer[k] = answers + (size_t)k * nd;
    for (size_t a = 0; a < st->n_answers; a++) {
        const answer *an = &st->answers[a];
        int k = an->ok ? K_OK : K_SING;
        for (size_t q = an->first; q < an->first + an->n; q++)
            st->by_first[k][st->diffs[q].field + 2]++;
    }
    for (int k = 0; k < 2; k++)
        for (uint32_t f = 0; f < st->n_fields; f++)
            st->by_first[k][f + 2] += st->by_first[k][f + 1];
    for (size_t a = 0; a < st->n_answers; a++) {
        const answer *an = &st->answers[a];
        int k = an->ok ? K_OK : K_SING;
        for (size_t q = an->first; q < an->first + an->n; q++) {
            size_t at = st->by_first[k][st->diffs[q].field + 1]++;
            st->by_answer[k][at] = (uint32_t)a;
            st->by_value[k][at] = st->diffs[q].value;
        }
    }
}

static void solve_modes(sa_ctx *c, enum_state *st)
{
    sa_result *r = c->r;
    uint32_t *rank = sa__alloc(c, (r->n_edges + 1) * sizeof *rank);
    for (size_t e = 0; e < r->n_edges; e++)
        rank[e] = (uint32_t)bdd_var2level(r->edge_var[e]);
    int rc = sm_frame_new(r->n_eq, r->n_var, r->eq_first, r->edge_v, rank, &st->frame);
    if (rc < 0)
        sa__fail(c, rc);
    st->n_fields = 3 * r->n_eq + 2 * r->n_var;
    st->key_len = (size_t)r->n_eq + r->n_var + r->n_edges * sizeof(int);
    unsigned char *key = sa__alloc(c, st->key_len + 1);
    unsigned char *other = sa__alloc(c, st->key_len + 1);
    bool *mode = sa__flags(c, (size_t)r->n_modes + 1); /* S's entries set by mode_key */
    const bool *eq_active = (bool *)key, *var_active = (bool *)(key + r->n_eq);
    int *sigma = sa__alloc(c, (r->n_edges + 1) * sizeof *sigma);
    int *sigma2 = sa__alloc(c, (r->n_edges + 1) * sizeof *sigma2);
    st->answer_of = need(c, mdae_malloc((st->n_modes + 1) * sizeof *st->answer_of));
    for (size_t t = 0; t < st->n_modes; t++) {
        mode_key(r, st, t, key, mode, sigma);
        bool added;
        uint32_t a = find_or_add(c, st, t, key, other, mode, sigma2, &added);
        st->answer_of[t] = a;
        MDAE_ASSERT(a < st->n_answers);
        if (added) {
            const sm_mode *v;
            rc = sm_frame_solve(st->frame, eq_active, var_active, sigma, &v);
            if (rc < 0)
                sa__fail(c, rc);
            keep_answer(c, st, &st->answers[a], v);
        }
        if ((t & 63) == 63)
            sa__progress(c, "enumerate", t, st->n_modes);
    }
    for (uint32_t q = 0; q < st->n_s; q++)
        mode[st->s_mode[q]] = false;
    sa__flags_done(c);
    index_diffs(c, st);
}

/* ---- Writing the answers back as mode functions -------------------------------------- */

typedef enum field_kind { F_OK, F_TE, F_TMAX, F_C, F_D, F_OVER, F_UNDER } field_kind;

/* The field (see answer) a function of kind `kind` at `at` reads, and the
 * kind of answer it is about (the others give false). */
static uint32_t field_of(const sa_result *r, field_kind kind, size_t at, int *k)
{
    *k = kind == F_TMAX || kind == F_OVER || kind == F_UNDER ? K_SING : K_OK;
    switch (kind) {
    case F_TE:
    case F_TMAX:
        return r->n_eq + r->edge_eq[at];
    case F_C:
        return (uint32_t)at;
    case F_OVER:
        return 2 * r->n_eq + (uint32_t)at;
    case F_D:
        return 3 * r->n_eq + (uint32_t)at;
    case F_UNDER:
        return 3 * r->n_eq + r->n_var + (uint32_t)at;
    case F_OK:
        break;
    }
    return 0;
}

/* The function's value where the field's value is `value`. */
static bool value_is(field_kind kind, long value, size_t at, int bit)
{
    switch (kind) {
    case F_TE:
    case F_TMAX:
        return value == (long)at;
    case F_C:
    case F_D:
        return value >= 0 && ((unsigned long)value >> bit & 1u);
    case F_OVER:
    case F_UNDER:
        return value != 0;
    case F_OK:
        break;
    }
    return false;
}

/* st->aval[a] := the function's value in answer a; false if the field is
 * the same in every answer of its kind (then *same is its value there). */
static bool answer_values(enum_state *st, field_kind kind, size_t at, int bit, bool *same)
{
    if (kind == F_OK) {
        for (size_t a = 0; a < st->n_answers; a++)
            st->aval[a] = st->answers[a].ok;
        return true;
    }
    int k;
    uint32_t f = field_of(st->ctx->r, kind, at, &k);
    bool base = st->has_base[k] && value_is(kind, st->base[k][f], at, bit);
    size_t lo = st->by_first[k][f], hi = st->by_first[k][f + 1];
    size_t n_differ = 0;
    for (size_t q = lo; q < hi; q++)
        n_differ += value_is(kind, st->by_value[k][q], at, bit) != base;
    if (n_differ == 0) {
        *same = base;
        return false;
    }
    for (size_t a = 0; a < st->n_answers; a++)
        st->aval[a] = (st->answers[a].ok == (k == K_OK)) && base;
    for (size_t q = lo; q < hi; q++)
        st->aval[st->by_answer[k][q]] = value_is(kind, st->by_value[k][q], at, bit);
    return true;
}

/* The function over [lo, hi) (assignments sharing their first k values). */
static BDD build_rec(sa_ctx *c, const enum_state *st, size_t lo, size_t hi, uint32_t k)
{
    uint32_t ones = st->ones[hi] - st->ones[lo];
    if (ones == 0)
        return bddfalse;
    if (ones == hi - lo)
        return bddtrue;
    /* Skip the variables on which the whole range agrees (sorted: the first
     * and last assignments tell). */
    while (st->assign[lo * st->n_s + k] == st->assign[(hi - 1) * st->n_s + k])
        k++;
    size_t a = lo, b = hi; /* first assignment with value 1 at k */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (st->assign[mid * st->n_s + k])
            b = mid;
        else
            a = mid + 1;
    }
    MDAE_ASSERT(lo < a && a < hi); /* the range splits: values differ */
    BDD high = T(build_rec(c, st, a, hi, k + 1));
    BDD low = T(build_rec(c, st, lo, a, k + 1));
    return bdd_ite(bdd_ithvar(st->s_var[k]), high, low);
}

/* *slot := the field as a function, masked. A field the same in every
 * answer of its kind is the mask or false: the mask (chi_m, ok or
 * singular) holds only in modes of that kind. */
static void build(sa_ctx *c, enum_state *st, field_kind kind, size_t at, int bit, BDD mask,
                  BDD *slot)
{
    bool same;
    if (!answer_values(st, kind, at, bit, &same)) {
        sa__put(slot, same ? mask : bddfalse);
        return;
    }
    uint32_t ones = 0;
    st->ones[0] = 0;
    for (size_t t = 0; t < st->n_modes; t++) {
        ones += st->aval[st->answer_of[t]];
        st->ones[t + 1] = ones;
    }
    if (ones == 0) {
        sa__put(slot, bddfalse);
        return;
    }
    size_t mark = sa__mark(c);
    BDD f = T(build_rec(c, st, 0, st->n_modes, 0));
    sa__put(slot, bdd_and(f, mask));
    sa__release(c, mark);
}

static bool is_offset(const sa_result *r, uint32_t f)
{
    return f < r->n_eq || (f >= 3 * r->n_eq && f < 3 * r->n_eq + r->n_var);
}

static bool fits(long value, int w) { return value <= 0 || (unsigned long)value >> w == 0; }

static void write_back(sa_ctx *c, enum_state *st, bool primal_only, BDD *tmax)
{
    sa_result *r = c->r;
    st->ones = need(c, mdae_malloc((st->n_modes + 1) * sizeof *st->ones));
    st->aval = need(c, mdae_malloc(st->n_answers + 1));
    build(c, st, F_OK, 0, 0, r->chi_m, &r->ok);
    sa__put(&r->singular, bdd_apply(r->chi_m, r->ok, bddop_diff));
    if (r->te == NULL)
        r->te = sa__alloc_keep(c, (r->n_edges + 1) * sizeof(BDD));
    MDAE_ASSERT(!r->te_within); /* built as exact functions */
    if (primal_only) {
        for (size_t e = 0; e < r->n_edges; e++) {
            build(c, st, F_TE, e, 0, r->ok, &r->te[e]);
            if (tmax != NULL)
                build(c, st, F_TMAX, e, 0, r->singular, &tmax[e]);
        }
        return;
    }
    r->over = sa__alloc_keep(c, (r->n_eq + 1) * sizeof(BDD));
    r->under = sa__alloc_keep(c, (r->n_var + 1) * sizeof(BDD));
    sa__offsets_alloc(c);
    int w = r->w_off;
    /* The width holds every offset: the base's and the differences'. */
    for (uint32_t f = 0; st->has_base[K_OK] && f < st->n_fields; f++) {
        if (!is_offset(r, f))
            continue;
        bool ok = fits(st->base[K_OK][f], w);
        for (size_t q = st->by_first[K_OK][f]; ok && q < st->by_first[K_OK][f + 1]; q++)
            ok = fits(st->by_value[K_OK][q], w);
        if (!ok) {
            sa__limit_diag(c, r->m, NULL, 0, MDAE_LIMIT_OFFSET_BITS, w,
                           "an offset of the enumerated modes does not fit in %d bits", w);
            sa__fail(c, MDAE_E_LIMIT);
        }
    }
    sa__progress(c, "offsets", 0, r->n_eq);
    for (size_t e = 0; e < r->n_edges; e++)
        build(c, st, F_TE, e, 0, r->ok, &r->te[e]);
    for (uint32_t i = 0; i < r->n_eq; i++) {
        for (int b = 0; b < w; b++)
            build(c, st, F_C, i, b, r->ok, &r->c[(size_t)i * w + b]);
        build(c, st, F_OVER, i, 0, r->singular, &r->over[i]);
    }
    for (uint32_t j = 0; j < r->n_var; j++) {
        for (int b = 0; b < w; b++)
            build(c, st, F_D, j, b, r->ok, &r->d[(size_t)j * w + b]);
        build(c, st, F_UNDER, j, 0, r->singular, &r->under[j]);
    }
}

void sa__enumerate(sa_ctx *c, const sa__plan *plan)
{
    /* The nodes it produces are not the implicit path's work: a budget the
     * context has (a whole component's, around one of its blocks) does
     * not count them. */
    size_t budget = c->budget;
    long before = sa__produced();
    c->budget = 0;
    enum_state *st = need(c, mdae_calloc(1, sizeof *st));
    st->ctx = c;
    sa__push_cleanup(c, enum_free, st);
    sa__progress(c, "enumerate", 0, (size_t)plan->modes);
    collect_modes(c, st, plan);
    solve_modes(c, st);
    write_back(c, st, plan->primal_only, plan->tmax);
    c->r->enumerated_modes = st->n_modes;
    c->r->distinct_graphs = st->n_answers;
    sa__pop_cleanup(c);
    enum_free(st);
    if (budget > 0)
        c->budget = budget + (size_t)(sa__produced() - before);
}
