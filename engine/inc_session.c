/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/inc_session.c -- the incremental session: key each connected
 * component of a model (inc_split.c) by its canonical structure, reuse the
 * cached analyses, analyse the others, give blocks stable ids, compose per
 * mode. Why this is exact, and the cache policy: engine/inc.h.
 *
 * Only the public sa.h / cdg.h API is used: a cached part is a private
 * mel_model (deep copy) with its sa_result and cdg_graph.
 */
#include "inc_int.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

/* Said by sa_analyze (engine/sa_encode.c) when no mode is valid. */
#define NO_VALID_MODE "the invariants exclude every mode: there is no valid mode"

/* ---- Pointer map (guard DAG memo) --------------------------------------- */
typedef struct pmap {
    const void **keys;
    void **vals;
    size_t cap, n;
    /* The last key found or put and its value: guard nodes come in runs
     * (an equation's guard, then its cases' guards, most of them the
     * same node), so most lookups stop here. */
    const void *last_k;
    void *last_v;
    bool oom;
} pmap;

static size_t pm_slot(const pmap *m, const void *k)
{
    uint64_t h = (uint64_t)(uintptr_t)k * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 17) & (m->cap - 1);
    while (m->keys[i] != NULL && m->keys[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void *pm_get(pmap *m, const void *k)
{
    if (k == m->last_k) /* NULL's value is NULL */
        return m->last_v;
    if (m->cap == 0 || k == NULL)
        return NULL;
    size_t i = pm_slot(m, k);
    if (m->keys[i] != k)
        return NULL;
    m->last_k = k;
    m->last_v = m->vals[i];
    return m->last_v;
}

static void pm_put(pmap *m, const void *k, void *v)
{
    if (m->oom)
        return;
    if ((m->n + 1) * 2 > m->cap) {
        pmap n = {0};
        n.cap = m->cap ? m->cap * 2 : 64;
        n.keys = mdae_calloc(n.cap, sizeof *n.keys);
        n.vals = mdae_calloc(n.cap, sizeof *n.vals);
        if (n.keys == NULL || n.vals == NULL) {
            mdae_free(n.keys);
            mdae_free(n.vals);
            m->oom = true;
            return;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i] != NULL) {
                size_t j = pm_slot(&n, m->keys[i]);
                n.keys[j] = m->keys[i];
                n.vals[j] = m->vals[i];
                n.n++;
            }
        mdae_free(m->keys);
        mdae_free(m->vals);
        *m = n;
    }
    size_t i = pm_slot(m, k);
    if (m->keys[i] == NULL)
        m->n++;
    m->keys[i] = k;
    m->vals[i] = v;
    m->last_k = k;
    m->last_v = v;
}

static void pm_clear(pmap *m)
{
    mdae_free(m->keys);
    mdae_free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Empty m for its next use, keeping its table when that costs no more
 * than filling it did (a table much larger than its content is freed: a
 * large part's table is not cleared again for every small part). */
static void pm_reset(pmap *m)
{
    if (m->oom || m->cap > 8 * m->n + 64) {
        pm_clear(m);
        return;
    }
    if (m->n > 0)
        memset(m->keys, 0, m->cap * sizeof *m->keys);
    m->n = 0;
    m->last_k = NULL;
    m->last_v = NULL;
}

/* ---- Keys: binary, words of 32 bits (a kbuf: sticky OOM) ------------- */
/* A part's key and a block's identity are compared byte for byte and
 * hashed, never read: words, not decimal text (the text key of the brake at
 * N = 100, 100 KB, was built from 112,000 short strings, and its blocks'
 * identities from 90,000 more: most of a cache hit's 2 ms; issue 16). Each
 * kind of guard node starts with a tag word, names with K_NAME and their
 * length, and counts come before what they count, so no sequence of items
 * can be read as another. */
enum { K_FALSE = 1, K_TRUE, K_VAR, K_NOT, K_AND, K_OR, K_SEEN, K_NAME };

/* The bytes of a key being built (no NUL: keys are binary). Written
 * directly, a room check per item rather than an mdae_buf_put per word
 * (90,000 words a key of the brake at N = 100). Out of memory is sticky:
 * once a growth fails, oom is set, cap drops to len and every later write
 * does nothing, so a builder checks once at the end. Start from {0}; p is
 * owned by whoever holds the kbuf (mdae_free). */
typedef struct kbuf {
    char *p;
    size_t len, cap;
    bool oom;
} kbuf;

/* Make room for n more bytes; false once out of memory. */
static bool kb_grow(kbuf *b, size_t n)
{
    if (b->oom)
        return false;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n)
        cap *= 2;
    char *p = mdae_realloc(b->p, cap);
    if (p == NULL) {
        b->oom = true;
        b->cap = b->len;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static inline bool kb_room(kbuf *b, size_t n)
{
    return b->cap - b->len >= n || kb_grow(b, n);
}

/* Append a word, unchecked: the caller made room (kb_room). */
static inline void kb_put(kbuf *b, uint32_t w)
{
    memcpy(b->p + b->len, &w, sizeof w);
    b->len += sizeof w;
}

static inline void kw(kbuf *b, uint32_t w)
{
    if (kb_room(b, sizeof w))
        kb_put(b, w);
}

static inline void kw2(kbuf *b, uint32_t w, uint32_t x)
{
    if (kb_room(b, 2 * sizeof w)) {
        kb_put(b, w);
        kb_put(b, x);
    }
}

/* K_NAME, the length, the bytes. */
static inline void kw_name(kbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (!kb_room(b, 2 * sizeof(uint32_t) + n))
        return;
    kb_put(b, K_NAME);
    kb_put(b, (uint32_t)n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

/* Serialise a guard DAG: a node seen before is K_SEEN and its id, a new one
 * gets the next id and is written in full. Canonical for a given DAG
 * shape. */
static void key_guard_full(kbuf *b, pmap *seen, uintptr_t *next, const mel_guard *g);

/* The common case inline: the node just serialised or referred to. */
static inline void key_guard(kbuf *b, pmap *seen, uintptr_t *next, const mel_guard *g)
{
    if (g == seen->last_k && g != NULL)
        kw2(b, K_SEEN, (uint32_t)(uintptr_t)seen->last_v);
    else
        key_guard_full(b, seen, next, g);
}

static void key_guard_full(kbuf *b, pmap *seen, uintptr_t *next, const mel_guard *g)
{
    void *id = pm_get(seen, g);
    if (id != NULL) {
        kw2(b, K_SEEN, (uint32_t)(uintptr_t)id);
        return;
    }
    pm_put(seen, g, (void *)++*next);
    switch (g->op) {
    case MEL_G_FALSE: kw(b, K_FALSE); break;
    case MEL_G_TRUE: kw(b, K_TRUE); break;
    case MEL_G_VAR: kw2(b, K_VAR, g->var); break;
    case MEL_G_NOT:
        kw(b, K_NOT);
        key_guard(b, seen, next, g->lhs);
        break;
    case MEL_G_AND:
    case MEL_G_OR:
        kw(b, g->op == MEL_G_AND ? K_AND : K_OR);
        key_guard(b, seen, next, g->lhs);
        key_guard(b, seen, next, g->rhs);
        break;
    }
}

/* ---- Cached parts ------------------------------------------------------- */

/* A part's private model lives in an arena: chunks handed out by bumping a
 * pointer and freed together (a calloc per name, guard node and array was
 * 9,000 allocations an edit of the brake at N = 100, two thirds of the
 * private model's copy). The first chunk is ARENA_FIRST bytes and each
 * next one twice the last, up to ARENA_CHUNK: a model of many small parts
 * (the MSL's EngineV6: a 64 KB chunk each made it 100 MB larger) keeps
 * small arenas. Memory from it is NOT zeroed (zeroing the chunks was a
 * fifth of the session's own work on the brake's edit): build_model
 * writes every field it hands out. */
#define ARENA_FIRST 1024
#define ARENA_CHUNK 65536

/* What is alive in the process (inc_live): parts, private-model memories
 * and the bytes of every arena's chunks. */
static atomic_size_t live_parts, live_mems, live_arena_bytes;

void inc_live(inc_live_info *out)
{
    if (out == NULL)
        return;
    out->parts = atomic_load_explicit(&live_parts, memory_order_relaxed);
    out->mems = atomic_load_explicit(&live_mems, memory_order_relaxed);
    out->arena_bytes = atomic_load_explicit(&live_arena_bytes, memory_order_relaxed);
}

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap; /* bytes of data */
    max_align_t data[];
} arena_chunk;

typedef struct arena {
    arena_chunk *head;
    bool oom;
} arena;

/* A new chunk with room for n bytes at least; NULL (and oom) if none. */
static arena_chunk *ar_chunk(arena *a, size_t n)
{
    arena_chunk *k = a->head;
    size_t cap = k == NULL ? ARENA_FIRST : k->cap < ARENA_CHUNK ? 2 * k->cap : ARENA_CHUNK;
    cap = n > cap ? n : cap;
    k = mdae_malloc(sizeof *k + cap);
    if (k == NULL) {
        a->oom = true;
        return NULL;
    }
    k->used = 0;
    k->cap = cap;
    atomic_fetch_add_explicit(&live_arena_bytes, cap, memory_order_relaxed);
    k->next = a->head;
    a->head = k;
    return k;
}

/* n bytes aligned to align (a power of two, at most max_align_t's), not
 * zeroed; NULL once out of memory. */
static void *ar_take(arena *a, size_t n, size_t align)
{
    if (a->oom)
        return NULL;
    arena_chunk *k = a->head;
    size_t at = k == NULL ? 0 : (k->used + align - 1) & ~(align - 1);
    if (k == NULL || at > k->cap || k->cap - at < n) {
        if ((k = ar_chunk(a, n)) == NULL)
            return NULL;
        at = 0;
    }
    k->used = at + n;
    return (char *)k->data + at;
}

/* An array of n T, not zeroed. */
#define AR_NEW(a, T, n) ((T *)ar_take((a), (size_t)(n) * sizeof(T), _Alignof(T)))

/* s (n = strlen(s)) copied into a; NULL once out of memory. */
static char *ar_strdup(arena *a, const char *s, size_t n)
{
    char *q = ar_take(a, n + 1, 1);
    if (q != NULL)
        memcpy(q, s, n + 1);
    return q;
}

static void ar_free(arena *a)
{
    for (arena_chunk *k = a->head, *next; k != NULL; k = next) {
        next = k->next;
        atomic_fetch_sub_explicit(&live_arena_bytes, k->cap, memory_order_relaxed);
        mdae_free(k);
    }
    memset(a, 0, sizeof *a);
}

static const mel_guard *copy_guard_full(arena *a, pmap *memo, const mel_guard *g);

/* g's copy in a, through memo (g -> copy: a DAG stays a DAG); NULL once
 * out of memory. The common case inline: the node just copied or found. */
static inline const mel_guard *copy_guard(arena *a, pmap *memo, const mel_guard *g)
{
    if (g == memo->last_k && g != NULL)
        return memo->last_v;
    return copy_guard_full(a, memo, g);
}

static const mel_guard *copy_guard_full(arena *a, pmap *memo, const mel_guard *g)
{
    mel_guard *c = pm_get(memo, g);
    if (c != NULL)
        return c;
    c = AR_NEW(a, mel_guard, 1);
    if (c == NULL)
        return NULL;
    *c = (mel_guard){.op = g->op, .var = g->var};
    if (g->lhs != NULL && (c->lhs = copy_guard(a, memo, g->lhs)) == NULL)
        return NULL;
    if (g->rhs != NULL && (c->rhs = copy_guard(a, memo, g->rhs)) == NULL)
        return NULL;
    pm_put(memo, g, c);
    return memo->oom ? NULL : c;
}

/* The serialised modes and invariants, shared by the parts keyed with it. */
typedef struct inc_prefix {
    int refs;
    size_t len;
    char *text; /* owned */
} inc_prefix;

static void prefix_unref(inc_prefix *p)
{
    if (p == NULL || --p->refs > 0)
        return;
    mdae_free(p->text);
    mdae_free(p);
}

/* A private model's memory, counted: the part of a later version shares
 * the equations, variables, modes and invariants an edit left alone with
 * the part it was seeded by (build_model), and holds its memory. */
typedef struct inc_mem {
    int refs;
    arena a;
} inc_mem;

/* A part holds at most this many earlier parts' memories (so memory does
 * not pile up over an editor's session): a part of the next version
 * rebases (rebase_plan) and holds at most INC_HELD_KEPT of them. */
#define INC_HELD 8
#define INC_HELD_KEPT (INC_HELD / 2)

/* A set of memories a part's equation, variable or modes may read: bit k
 * for k < n_held is held[k], bit n_held the part's own mem. */
typedef uint16_t mem_set;
#define MEM_SETS (1u << (INC_HELD + 1))

/* A chain of parts whose graphs wait (inc_analyze_offsets) holds at most
 * this many: each holds its seed, the part before it. */
#define INC_PENDING_MAX INC_KEEP_GENERATIONS

static void mem_unref(inc_mem *m)
{
    if (m == NULL || --m->refs > 0)
        return;
    ar_free(&m->a);
    mdae_free(m);
    atomic_fetch_sub_explicit(&live_mems, 1, memory_order_relaxed);
}

typedef struct inc_part inc_part;
struct inc_part {
    inc_part *next;   /* session cache list */
    inc_part *hnext;  /* session cache index chain (cached parts only) */
    int refs;         /* the cache's + results' */
    bool cached;      /* still in the session list */
    unsigned gen;     /* last analysis that used it */
    struct inc_prefix *prefix; /* one reference: modes and invariants */
    uint64_t hash;    /* of its structure (part_signature) */
    inc_mem *mem;     /* one reference: the private model's own data */
    /* Owned: the part's own tables (its model's equation and variable
     * arrays, eq_len / var_len, eq_mems / var_mems, eq_hash / var_hash),
     * which no later part reads once this one is freed: a later version
     * copies their entries and holds mem only for what they point to
     * (names, guards, incidences, cases, modes). Kept out of mem so that a
     * held memory is only that content, not n-sized tables per version. */
    arena own;
    inc_mem *held[INC_HELD]; /* one reference each: earlier parts' data it shares */
    size_t n_held;
    unsigned chain;   /* parts built from a previous one since a full copy */
    mel_model model;  /* modes, invariants, equations, variables in mem and held */
    sa_result *res;
    cdg_graph *graph; /* NULL until part_graph (inc_analyze_offsets defers it) */
    uint32_t *ids;    /* owned: graph block -> stable id; NULL until part_ids */
    /* One reference, or NULL: the cached part whose offsets seeded res
     * (sa_options.hint), kept until the part's graph and ids are made
     * (part_graph): its memo seeds cdg_build, its ids the unchanged
     * blocks' (part_ids). pending: how many parts of that chain, this one
     * included, still have no graph (0 once it has one). */
    inc_part *graph_seed;
    unsigned pending;
    bool on_chain;    /* scratch of cut_chains: a question may soon need it */
    unsigned born;    /* the analysis that made it (hint_table_make) */
    /* In mem: the length of each equation's and variable's name (block
     * keys, part_ids), and the hash of each (part_signature). */
    uint32_t *eq_len, *var_len;
    uint64_t *eq_hash, *var_hash;
    /* In mem: the memories each equation's and variable's name, guard,
     * incidences and cases may be in (a superset), and the modes'. */
    mem_set *eq_mems, *var_mems;
    mem_set modes_mems;
    /* eq_hash and var_hash are the analysis's whole-model buffers handed
     * over (keep_hashes), owned apart from own: mdae_free. */
    bool hashes_owned;
};

static void part_unref(inc_part *p)
{
    if (p == NULL || --p->refs > 0)
        return;
    part_unref(p->graph_seed);
    cdg_graph_free(p->graph);
    sa_result_free(p->res);
    mem_unref(p->mem);
    for (size_t k = 0; k < p->n_held; k++)
        mem_unref(p->held[k]);
    if (p->hashes_owned) {
        mdae_free(p->eq_hash);
        mdae_free(p->var_hash);
    }
    ar_free(&p->own);
    prefix_unref(p->prefix);
    mdae_free(p->ids);
    mdae_free(p);
    atomic_fetch_sub_explicit(&live_parts, 1, memory_order_relaxed);
}

/* ---- Session ----------------------------------------------------------- */

/* Session-wide block identity -> id map (chained hash). */
typedef struct bid {
    struct bid *next;
    uint64_t hash;
    char *key; /* len bytes (binary: block_key) */
    size_t len;
    uint32_t id;
} bid;

struct inc_session {
    inc_part *parts;
    size_t n_parts;
    /* The cached parts by key hash, chained through hnext (find_cached):
     * NULL, or every cached part is in it. */
    inc_part **index; /* owned */
    size_t index_cap;
    unsigned gen;
    inc_prefix *prefix;  /* of the last analysis (one reference) */
    kbuf scratch;        /* owned: the last analysis's key buffer, for the
                          * next one's keys (at most one key's capacity) */
    bid **bids;
    size_t bids_cap, n_bids;
    uint32_t next_id;
    inc_stats total;
    /* The parts of the last analysis that succeeded, in its order (one
     * reference each; dropped by an eviction): where the next one looks
     * first for a part's seed (hint_holder). */
    inc_part **last;
    size_t n_last;
    /* The last analysis's split, for the next one's (split_is_kept):
     * part k is last[k]'s private model with its maps, copied into
     * kept_maps (owned, as kept); n_kept 0: none. */
    inc__kept_part *kept;
    uint32_t *kept_maps;
    size_t n_kept;
    /* The model of the analysis that kept the split (a token, never read:
     * it may be freed), and the one the caller says the next analysis's
     * model was made from (inc_session_since: alive until that analysis
     * returns), taken as kept_model's when they are the same pointer. */
    const mel_model *kept_model;
    const mel_model *since;
};

/* The last analysis's parts, let go. */
static void forget_last(inc_session *s)
{
    for (size_t k = 0; k < s->n_last; k++)
        part_unref(s->last[k]);
    mdae_free(s->last);
    s->last = NULL;
    s->n_last = 0;
    mdae_free(s->kept);
    mdae_free(s->kept_maps);
    s->kept = NULL;
    s->kept_maps = NULL;
    s->n_kept = 0;
    s->kept_model = NULL;
}

int inc_session_new(inc_session **out)
{
    if (out == NULL)
        return MDAE_E_INVAL;
    inc_session *s = mdae_calloc(1, sizeof *s);
    if (s == NULL)
        return MDAE_E_NOMEM;
    *out = s;
    return MDAE_OK;
}

void inc_session_free(inc_session *s)
{
    if (s == NULL)
        return;
    for (inc_part *p = s->parts, *n; p != NULL; p = n) {
        n = p->next;
        p->cached = false;
        part_unref(p);
    }
    for (size_t i = 0; i < s->bids_cap; i++)
        for (bid *b = s->bids[i], *n; b != NULL; b = n) {
            n = b->next;
            mdae_free(b->key);
            mdae_free(b);
        }
    mdae_free(s->bids);
    mdae_free(s->index);
    forget_last(s);
    prefix_unref(s->prefix);
    mdae_free(s->scratch.p);
    mdae_free(s);
}

void inc_session_stats(const inc_session *s, inc_stats *total, size_t *cached)
{
    if (total != NULL)
        *total = s->total;
    if (cached != NULL)
        *cached = s->n_parts;
}

static int block_id(inc_session *s, const char *key, size_t len, uint32_t *out)
{
    uint64_t h = mdae_hash_words(MDAE_HASH_SEED, key, len);
    if (s->bids_cap > 0)
        for (bid *b = s->bids[h & (s->bids_cap - 1)]; b != NULL; b = b->next)
            if (b->hash == h && b->len == len && memcmp(b->key, key, len) == 0) {
                *out = b->id;
                return MDAE_OK;
            }
    if ((s->n_bids + 1) * 2 > s->bids_cap) {
        size_t cap = s->bids_cap ? s->bids_cap * 2 : 256;
        bid **t = mdae_calloc(cap, sizeof *t);
        if (t == NULL)
            return MDAE_E_NOMEM;
        for (size_t i = 0; i < s->bids_cap; i++)
            for (bid *b = s->bids[i], *n; b != NULL; b = n) {
                n = b->next;
                b->next = t[b->hash & (cap - 1)];
                t[b->hash & (cap - 1)] = b;
            }
        mdae_free(s->bids);
        s->bids = t;
        s->bids_cap = cap;
    }
    bid *b = mdae_calloc(1, sizeof *b);
    if (b == NULL || (b->key = mdae_malloc(len + 1)) == NULL) {
        mdae_free(b);
        return MDAE_E_NOMEM;
    }
    memcpy(b->key, key, len);
    b->len = len;
    b->hash = h;
    b->id = s->next_id++;
    b->next = s->bids[h & (s->bids_cap - 1)];
    s->bids[h & (s->bids_cap - 1)] = b;
    s->n_bids++;
    *out = b->id;
    return MDAE_OK;
}

/* ---- Result ------------------------------------------------------------ */

typedef struct rpart {
    inc_part *part;      /* one reference */
    uint32_t n_eq, n_var;
    uint32_t *eq_map;    /* local -> model index */
    uint32_t *var_map;
    const uint32_t *ids; /* local block id -> stable id (borrowed from part) */
    bool reused;         /* found in the cache */
    bool as_model;       /* eq_map and var_map are the identity (one part):
                            the result's blocks borrow the graph's items */
    /* The split kept: the previous version's part's equations, which
     * analysis.pre_same compared this part's with; else NULL. */
    const mel_equation *pre_eqs;
    /* pre_eqs's part was analysed anew from analysis.since (see "Since") */
    bool pre_fresh;
} rpart;

typedef struct rblock {
    cdg_block b;         /* items with model indices; arrays in items */
} rblock;

struct inc_result {
    uint32_t n_eq, n_var, n_modes;
    size_t n_parts;
    rpart *parts;
    size_t n_blocks;
    rblock *blocks;      /* sorted by id */
    cdg_item *items;     /* owned: every block's items, one array */
    inc_stats stats;
    inc_session *s;      /* borrowed: the session that made it (part_graph) */
    bool graphs;         /* every part's graph and ids made, blocks assigned */
    sa_result *whole;    /* several parts: composed on demand (owned) */
    cdg_graph *whole_graph;
};

void inc_result_free(inc_result *r)
{
    if (r == NULL)
        return;
    cdg_graph_free(r->whole_graph);
    sa_result_free(r->whole);
    for (size_t k = 0; k < r->n_parts; k++) {
        part_unref(r->parts[k].part);
        mdae_free(r->parts[k].eq_map);
        mdae_free(r->parts[k].var_map);
    }
    mdae_free(r->parts);
    mdae_free(r->items);
    mdae_free(r->blocks);
    mdae_free(r);
}

void inc_result_stats(const inc_result *r, inc_stats *out)
{
    *out = r->stats;
}

size_t inc_result_n_parts(const inc_result *r) { return r->n_parts; }

int inc_result_part(const inc_result *r, size_t k, inc_part_info *out)
{
    if (r == NULL || out == NULL || k >= r->n_parts || r->parts[k].part == NULL)
        return MDAE_E_INVAL;
    const rpart *rp = &r->parts[k];
    out->equations = rp->n_eq;
    out->variables = rp->n_var;
    out->reused = rp->reused;
    sa_result_method(rp->part->res, &out->method);
    const cdg_graph *g = rp->part->graph; /* NULL: not made yet */
    out->sccs = g != NULL ? cdg_graph_n_sccs(g) : 0;
    out->sccs_reused = g != NULL ? cdg_graph_sccs_reused(g) : 0;
    return MDAE_OK;
}

/* Whether x lies in one of the memories of set s of part p (mem_set). */
static bool in_mems(const inc_part *p, mem_set s, const void *x)
{
    for (size_t k = 0; k <= p->n_held; k++) {
        if (!((s >> k) & 1u))
            continue;
        const inc_mem *m = k < p->n_held ? p->held[k] : p->mem;
        for (const arena_chunk *c = m->a.head; c != NULL; c = c->next)
            if ((const char *)x >= (const char *)c->data &&
                (const char *)x < (const char *)c->data + c->used)
                return true;
    }
    return false;
}

/* Whether each equation's and variable's name and guard, each
 * equation's incidences and cases, and the modes lie in the memories its
 * set says (sets of at most n_held + 1 bits). */
static bool sets_hold(const inc_part *p)
{
    const mel_model *m = &p->model;
    mem_set all = (mem_set)((2u << p->n_held) - 1);
    for (uint32_t q = 0; q < m->n_equations; q++) {
        const mel_equation *e = &m->equations[q];
        mem_set s = p->eq_mems[q];
        if ((s & ~all) != 0 || !in_mems(p, s, e->name) || !in_mems(p, s, e->guard))
            return false;
        for (uint32_t j = 0; j < e->n_incs; j++) {
            if (!in_mems(p, s, &e->incs[j]))
                return false;
            for (uint32_t c = 0; c < e->incs[j].n_cases; c++)
                if (!in_mems(p, s, &e->incs[j].cases[c]) ||
                    !in_mems(p, s, e->incs[j].cases[c].guard))
                    return false;
        }
    }
    for (uint32_t q = 0; q < m->n_variables; q++) {
        const mel_variable *v = &m->variables[q];
        mem_set s = p->var_mems[q];
        if ((s & ~all) != 0 || !in_mems(p, s, v->name) || !in_mems(p, s, v->guard))
            return false;
    }
    return (p->modes_mems & ~all) == 0 &&
           (m->n_modes == 0 || in_mems(p, p->modes_mems, m->modes)) &&
           (m->n_invariants == 0 || in_mems(p, p->modes_mems, m->invariants));
}

int inc_result_part_chain(const inc_result *r, size_t k, size_t *n_held, unsigned *chain)
{
    if (r == NULL || n_held == NULL || chain == NULL || k >= r->n_parts ||
        r->parts[k].part == NULL)
        return MDAE_E_INVAL;
    *n_held = r->parts[k].part->n_held;
    *chain = r->parts[k].part->chain;
    return sets_hold(r->parts[k].part) ? MDAE_OK : MDAE_E_STATE;
}

int inc_result_part_model(const inc_result *r, size_t k, const mel_model **model,
                          const uint32_t **eq_map, const uint32_t **var_map)
{
    if (r == NULL || model == NULL || eq_map == NULL || var_map == NULL || k >= r->n_parts ||
        r->parts[k].part == NULL)
        return MDAE_E_INVAL;
    *model = &r->parts[k].part->model;
    *eq_map = r->parts[k].eq_map;
    *var_map = r->parts[k].var_map;
    return MDAE_OK;
}

size_t inc_result_n_blocks(const inc_result *r)
{
    return r->n_blocks; /* 0 until the graphs are made */
}

int inc_result_block(const inc_result *r, size_t k, cdg_block *out)
{
    if (r == NULL || out == NULL || k >= r->n_blocks)
        return MDAE_E_INVAL;
    *out = r->blocks[k].b;
    return MDAE_OK;
}

int inc_result_block_by_id(const inc_result *r, uint32_t id, cdg_block *out)
{
    if (r == NULL || out == NULL)
        return MDAE_E_INVAL;
    size_t lo = 0, hi = r->n_blocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->blocks[mid].b.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->n_blocks || r->blocks[lo].b.id != id)
        return MDAE_E_INVAL;
    *out = r->blocks[lo].b;
    return MDAE_OK;
}

int inc_result_whole_offsets(inc_result *r, const mel_model *m, sa_result **res,
                             mdae_diags *diags)
{
    if (r == NULL || m == NULL || res == NULL || m->n_equations != r->n_eq ||
        m->n_variables != r->n_var || m->n_modes != r->n_modes)
        return MDAE_E_INVAL;
    if (r->n_parts == 1) {
        /* One part holds every equation and variable, in model order. */
        *res = r->parts[0].part->res;
        return MDAE_OK;
    }
    if (r->whole == NULL) {
        sa_part *pp = mdae_calloc(r->n_parts + 1, sizeof *pp);
        if (pp == NULL)
            return MDAE_E_NOMEM;
        for (size_t k = 0; k < r->n_parts; k++)
            pp[k] = (sa_part){r->parts[k].part->res, r->parts[k].eq_map, r->parts[k].var_map};
        int rc = sa_compose(m, pp, r->n_parts, &r->whole, diags);
        mdae_free(pp);
        if (rc < 0)
            return rc;
    }
    *res = r->whole;
    return MDAE_OK;
}

int inc_result_whole(inc_result *r, const mel_model *m, const sa_options *opt,
                     sa_result **res, cdg_graph **graph, mdae_diags *diags)
{
    sa_result *whole = NULL;
    if (res == NULL || graph == NULL)
        return MDAE_E_INVAL;
    int rc = inc_result_whole_offsets(r, m, &whole, diags);
    if (rc == MDAE_OK)
        rc = inc_result_graphs(r, opt, diags);
    if (rc == MDAE_OK && r->n_parts > 1 && r->whole_graph == NULL)
        rc = cdg_build(r->whole, opt, &r->whole_graph, diags);
    if (rc < 0)
        return rc;
    *res = whole;
    *graph = r->n_parts == 1 ? r->parts[0].part->graph : r->whole_graph;
    return MDAE_OK;
}

/* ---- Keys ----------------------------------------------------------------- */

/* Key prefix: mode names and invariants (shared by every part). */
static int build_prefix(const mel_model *m, kbuf *b, pmap *seen /* scratch */)
{
    uintptr_t next = 0;
    pm_reset(seen);
    kw(b, m->n_modes);
    for (uint32_t k = 0; k < m->n_modes; k++)
        kw_name(b, m->modes[k].name);
    kw(b, m->n_invariants);
    for (uint32_t k = 0; k < m->n_invariants; k++)
        key_guard(b, seen, &next, m->invariants[k].cond);
    bool oom = seen->oom || b->oom;
    return oom ? MDAE_E_NOMEM : MDAE_OK;
}

/* ---- A part's structure: hashes and comparisons -----------------------------
 * A part is found in the cache by a hash of its structure and an exact
 * comparison with the cached part's private model: the equations
 * (name, guard, incidences with local variable numbers, each case's order
 * and guard) and the variables (name, guard), in model order, under the
 * same modes and invariants (the prefix). Guards compare as formulas
 * (trees: how a DAG shares nodes does not change an analysis). Locations
 * and next() counts are not part of the structure (a reused part has
 * produced no diagnostics, see inc_analyze).
 *
 * What follows the edit: the hash is combined from one hash per equation
 * and per variable, kept with the part; an equation equal to the one at
 * the same place in the part that seeds this one (hint_for: the previous
 * version's) takes its hash instead of hashing it again, and, when its
 * locations are the same too, the private model shares its name,
 * incidences and cases (build_model), and when only they differ (the text
 * before it moved), its name and guards. The comparison with the previous
 * version reads each equation once and writes nothing: what the serialised
 * key cost (building, hashing, comparing 100 KB at N = 100 of the brake)
 * and the deep copy (an allocation per name and guard) are left to the
 * equations the edit changed or moved. */

static inline uint64_t hmix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

/* A guard's hash, a function of its formula (as a tree), memoised by node
 * in gh; pointer-wide, so that the memo gives back what it computed. */
static uint64_t guard_hash(pmap *gh, const mel_guard *g)
{
    switch (g->op) {
    case MEL_G_FALSE: return K_FALSE;
    case MEL_G_TRUE: return K_TRUE;
    case MEL_G_VAR: return (uintptr_t)(hmix(K_VAR, g->var) | 1);
    default: break;
    }
    void *v = pm_get(gh, g);
    if (v != NULL)
        return (uintptr_t)v;
    uint64_t h = hmix(g->op == MEL_G_NOT ? K_NOT : g->op == MEL_G_AND ? K_AND : K_OR,
                      guard_hash(gh, g->lhs));
    if (g->op != MEL_G_NOT)
        h = hmix(h, guard_hash(gh, g->rhs));
    uintptr_t u = (uintptr_t)(h | 1);
    pm_put(gh, g, (void *)u);
    return u;
}

static bool guard_same_full(pmap *eqm, const mel_guard *a, const mel_guard *b);

/* Whether guards a (this version's) and b (a private model's) are the
 * same formula; eqm remembers the pairs found equal (a -> b). The common
 * case inline: both TRUE (most of an equation's guards). */
static inline bool guard_same(pmap *eqm, const mel_guard *a, const mel_guard *b)
{
    if (a->op == MEL_G_TRUE && b->op == MEL_G_TRUE)
        return true;
    return guard_same_full(eqm, a, b);
}

static bool guard_same_full(pmap *eqm, const mel_guard *a, const mel_guard *b)
{
    if (a->op != b->op)
        return false;
    switch (a->op) {
    case MEL_G_FALSE:
    case MEL_G_TRUE: return true;
    case MEL_G_VAR: return a->var == b->var;
    default: break;
    }
    if (pm_get(eqm, a) == b)
        return true;
    if (!guard_same(eqm, a->lhs, b->lhs) ||
        (a->op != MEL_G_NOT && !guard_same(eqm, a->rhs, b->rhs)))
        return false;
    pm_put(eqm, a, (void *)b);
    return true;
}

static uint64_t equation_hash(pmap *gh, const mel_equation *e, const uint32_t *local)
{
    uint64_t h = hmix(hmix(mdae_hash_str(e->name), guard_hash(gh, e->guard)), e->n_incs);
    for (uint32_t k = 0; k < e->n_incs; k++) {
        const mel_incidence *inc = &e->incs[k];
        h = hmix(h, (uint64_t)local[inc->var] << 32 | inc->n_cases);
        for (uint32_t c = 0; c < inc->n_cases; c++)
            h = hmix(hmix(h, (uint32_t)inc->cases[c].order), guard_hash(gh, inc->cases[c].guard));
    }
    return h;
}

static uint64_t variable_hash(pmap *gh, const mel_variable *v)
{
    return hmix(mdae_hash_str(v->name), guard_hash(gh, v->guard));
}

/* How an equation or a variable of this version compares with a private
 * model's: different, the same structure, or the same with the same
 * locations too (then the private model may share the old one's data). */
enum { DIFFERENT, SAME_STRUCTURE, SAME_ALL };

/* Equation e of this version (local: its part's variable numbers) against
 * o, a private model's; with var_map (not NULL: o's part's variables in
 * model indices), also DIFFERENT when a variable of o is not e's by
 * model index (the split kept). */
static int equation_same(pmap *eqm, const mel_equation *e, const uint32_t *local,
                         const uint32_t *var_map, const mel_equation *o)
{
    if (e->n_incs != o->n_incs || strcmp(e->name, o->name) != 0 ||
        !guard_same(eqm, e->guard, o->guard))
        return DIFFERENT;
    bool where = memcmp(&e->where, &o->where, sizeof e->where) == 0;
    for (uint32_t k = 0; k < e->n_incs; k++) {
        const mel_incidence *a = &e->incs[k], *b = &o->incs[k];
        if (local[a->var] != b->var || a->n_cases != b->n_cases ||
            (var_map != NULL && var_map[b->var] != a->var))
            return DIFFERENT;
        for (uint32_t c = 0; c < a->n_cases; c++) {
            const mel_order_case *x = &a->cases[c], *y = &b->cases[c];
            if (x->order != y->order || !guard_same(eqm, x->guard, y->guard))
                return DIFFERENT;
            where = where && x->next == y->next &&
                    memcmp(&x->where, &y->where, sizeof x->where) == 0;
        }
    }
    return where ? SAME_ALL : SAME_STRUCTURE;
}

static int variable_same(pmap *eqm, const mel_variable *v, const mel_variable *o)
{
    if (strcmp(v->name, o->name) != 0 || !guard_same(eqm, v->guard, o->guard))
        return DIFFERENT;
    return memcmp(&v->where, &o->where, sizeof v->where) == 0 ? SAME_ALL : SAME_STRUCTURE;
}

/* What a new part's private model may share with the part that seeded
 * it (build_model): prev, and the comparison of each equation and
 * variable with prev's at the same place (part_signature); prev NULL: a
 * copy of everything. */
typedef struct share {
    const inc_part *prev;
    const unsigned char *eq, *var; /* SAME_ALL: shared */
    bool modes;                    /* modes and invariants shared */
    /* The memories the part holds (prev's: held[k] at k, prev->mem at
     * prev->n_held); remap: a set of prev's numbering -> the part's, NULL
     * when the same (see rebase_plan). */
    inc_mem *keep[INC_HELD];
    size_t n_keep;
    const mem_set *remap;
} share;

/* Set s of sh->prev's numbering in the part's (see share). */
static inline mem_set remap_set(const share *sh, mem_set s)
{
    return sh->remap != NULL ? sh->remap[s] : s;
}

/* to[q] = from[q] in the part's numbering, for q in [start, end). */
static void remap_sets(const share *sh, mem_set *to, const mem_set *from, uint32_t start,
                       uint32_t end)
{
    if (sh->remap == NULL) {
        memcpy(to + start, from + start, (end - start) * sizeof *to);
        return;
    }
    for (uint32_t q = start; q < end; q++)
        to[q] = sh->remap[from[q]];
}

/* The first q in [from, n) whose flag is not SAME_ALL, or n: 8 flags at
 * a time (an edit's run of shared equations or variables). */
static uint32_t next_not_shared(const unsigned char *same, uint32_t from, uint32_t n)
{
    const uint64_t all = 0x0101010101010101ull * SAME_ALL;
    uint32_t q = from;
    for (uint64_t w; q + 8 <= n; q += 8) {
        memcpy(&w, same + q, sizeof w);
        if (w != all)
            break;
    }
    while (q < n && same[q] == SAME_ALL)
        q++;
    return q;
}

/* The edges of the private model's equations: sh->prev's less those of
 * its equations not shared (SAME_ALL: only at an index prev has), plus
 * those of ours not shared; *n_copied and *n_cases: the incidences and
 * cases of ours not shared. Each pass skips the shared runs, so that the
 * count follows the edit (the brake's: 10,000 of 120,000 equations
 * re-lowered, the others shared). */
static size_t count_edges(const mel_model *m, const rpart *rp, const share *sh,
                          size_t *n_copied, size_t *n_cases)
{
    const mel_model *pm = sh->prev != NULL ? &sh->prev->model : NULL;
    uint32_t n = rp->n_eq, pe = pm != NULL ? pm->n_equations : 0;
    const unsigned char *same = sh->eq;
    const uint32_t *map = rp->eq_map;
    size_t edges = pm != NULL ? pm->n_edges : 0, copied = 0, cases = 0;
    for (uint32_t q = n; q < pe; q++) /* prev's rows past ours: none shared */
        edges -= pm->equations[q].n_incs;
    for (uint32_t q = pm != NULL ? next_not_shared(same, 0, n) : 0; q < n;
         q = pm != NULL ? next_not_shared(same, q + 1, n) : q + 1) {
        const mel_equation *e = &m->equations[map[q]];
        if (q < pe)
            edges -= pm->equations[q].n_incs;
        edges += e->n_incs;
        copied += e->n_incs;
        for (uint32_t k = 0; k < e->n_incs; k++)
            cases += e->incs[k].n_cases;
    }
    *n_copied = copied;
    *n_cases = cases;
    return edges;
}

/* The private model's equations (their array, lengths and memory sets in
 * tab: the part's tables), the incidences and cases of those it
 * does not share in one array each (as the front-end lays them out),
 * every field written (the arena does not zero): a field the copy does not
 * carry (when) is 0. An equation shared with sh->prev is its equation,
 * name, incidences and cases (in prev's memory). */
static int copy_equations(const mel_model *m, const rpart *rp, const uint32_t *local, arena *a,
                          arena *tab, pmap *memo, mel_model *sm, const share *sh,
                          uint32_t **eq_len /* out */, mem_set **eq_mems /* out */)
{
    size_t n_copied, n_cases;
    size_t n_edges = count_edges(m, rp, sh, &n_copied, &n_cases);
    uint32_t n = rp->n_eq;
    mel_equation *eqs = AR_NEW(tab, mel_equation, n + 1); /* tables: tab */
    uint32_t *len = AR_NEW(tab, uint32_t, n + 1);
    mem_set *mems = AR_NEW(tab, mem_set, n + 1);
    mel_incidence *incs = AR_NEW(a, mel_incidence, n_copied + 1); /* content: a */
    mel_order_case *cs = AR_NEW(a, mel_order_case, n_cases + 1);
    if (a->oom || tab->oom)
        return MDAE_E_NOMEM;
    *eq_len = len;
    *eq_mems = mems;
    const mem_set own = (mem_set)(1u << sh->n_keep);
    const mem_set *prev_mems = sh->prev != NULL ? sh->prev->eq_mems : NULL;
    memset(&eqs[n], 0, sizeof *eqs); /* the spare ends, as calloc's */
    memset(&incs[n_copied], 0, sizeof *incs);
    memset(&cs[n_cases], 0, sizeof *cs);
    const mel_incidence *incs0 = incs;
    const mel_order_case *cs0 = cs;
    sm->n_equations = n;
    sm->equations = eqs;
    sm->n_edges = n_edges;
    const mel_equation *prev_eqs = sh->prev != NULL ? sh->prev->model.equations : NULL;
    const uint32_t *prev_len = sh->prev != NULL ? sh->prev->eq_len : NULL;
    for (uint32_t q = 0; q < n; q++) {
        if (prev_eqs != NULL) { /* a run of shared ones: prev's */
            uint32_t end = next_not_shared(sh->eq, q, n);
            remap_sets(sh, mems, prev_mems, q, end);
            for (; q < end; q++) {
                eqs[q] = prev_eqs[q];
                len[q] = prev_len[q];
            }
            if (q == n)
                break;
        }
        const mel_equation *e = &m->equations[rp->eq_map[q]];
        /* Moved only: its name and guards are prev's, its places its own. */
        const mel_equation *o = prev_eqs != NULL && sh->eq[q] == SAME_STRUCTURE ? &prev_eqs[q]
                                                                               : NULL;
        len[q] = o != NULL ? prev_len[q] : (uint32_t)strlen(e->name);
        mems[q] = (mem_set)(own | (o != NULL ? remap_set(sh, prev_mems[q]) : 0));
        MDAE_ASSERT(mems[q] < MEM_SETS && mems[q] != 0xFFFF);
        eqs[q] = (mel_equation){.name = o != NULL ? o->name : ar_strdup(a, e->name, len[q]),
                                .guard = o != NULL ? o->guard : copy_guard(a, memo, e->guard),
                                .where = e->where,
                                .n_incs = e->n_incs,
                                .incs = incs};
        if (eqs[q].name == NULL || eqs[q].guard == NULL)
            return MDAE_E_NOMEM;
        for (uint32_t k = 0; k < e->n_incs; k++, incs++) {
            const mel_incidence *inc = &e->incs[k];
            /* Local numbers keep the model's order, so incidences stay
             * sorted by variable. */
            *incs = (mel_incidence){.var = local[inc->var], .n_cases = inc->n_cases, .cases = cs};
            for (uint32_t c = 0; c < inc->n_cases; c++, cs++) {
                const mel_order_case *oc = &inc->cases[c];
                const mel_guard *g = o != NULL ? o->incs[k].cases[c].guard : NULL;
                *cs = (mel_order_case){.guard = g != NULL ? g : copy_guard(a, memo, oc->guard),
                                       .order = oc->order,
                                       .where = oc->where,
                                       .next = oc->next};
                if (cs->guard == NULL)
                    return MDAE_E_NOMEM;
            }
        }
    }
    MDAE_ASSERT(incs == incs0 + n_copied && cs == cs0 + n_cases); /* count_edges's */
    (void)incs0; /* with -DMDAE_NO_ASSERT */
    (void)cs0;
    return MDAE_OK;
}

/* The modes and invariants of the private model: copied, or prev's when
 * sh->modes (the same prefix and the same locations). */
static int copy_modes(const mel_model *m, arena *a, pmap *memo, mel_model *sm, const share *sh)
{
    sm->n_modes = m->n_modes;
    sm->n_invariants = m->n_invariants;
    if (sh->prev != NULL && sh->modes) {
        sm->modes = sh->prev->model.modes;
        sm->invariants = sh->prev->model.invariants;
        return MDAE_OK;
    }
    mel_mode *modes = AR_NEW(a, mel_mode, m->n_modes + 1);
    mel_invariant *invs = AR_NEW(a, mel_invariant, m->n_invariants + 1);
    if (a->oom)
        return MDAE_E_NOMEM;
    memset(&modes[m->n_modes], 0, sizeof *modes); /* the spare ends, as calloc's */
    memset(&invs[m->n_invariants], 0, sizeof *invs);
    for (uint32_t k = 0; k < m->n_modes; k++) {
        /* reads_var: variable indices are the whole model's */
        modes[k] = (mel_mode){.name = ar_strdup(a, m->modes[k].name, strlen(m->modes[k].name)),
                              .where = m->modes[k].where,
                              .reads_var = -1};
        if (modes[k].name == NULL)
            return MDAE_E_NOMEM;
    }
    for (uint32_t k = 0; k < m->n_invariants; k++) {
        invs[k] = (mel_invariant){.cond = copy_guard(a, memo, m->invariants[k].cond),
                                  .where = m->invariants[k].where};
        if (invs[k].cond == NULL)
            return MDAE_E_NOMEM;
    }
    sm->modes = modes;
    sm->invariants = invs;
    return MDAE_OK;
}

/* Part p holds sh->keep (what it shares lives there). */
static void hold_memories(inc_part *p, const share *sh)
{
    MDAE_ASSERT(sh->n_keep <= INC_HELD && p->n_held == 0);
    for (size_t k = 0; k < sh->n_keep; k++) {
        p->held[k] = sh->keep[k];
        p->held[k]->refs++;
    }
    p->n_held = sh->n_keep;
    p->chain = sh->prev->chain + 1;
}

/* The part's private model: a copy of its equations and variables and of
 * all modes and invariants, sharing with sh->prev what the edit left
 * alone (see "A part's structure"). Ranges are kept (diagnostics point
 * into the text of the version that created them; a reused part has
 * produced no diagnostics, see inc_analyze). Every field is written; those
 * the copy does not carry (reads_where, when) are 0. */
static int build_model(const mel_model *m, const rpart *rp, const uint32_t *local, inc_part *p,
                       pmap *memo /* scratch */, const share *sh)
{
    if ((p->mem = mdae_calloc(1, sizeof *p->mem)) == NULL)
        return MDAE_E_NOMEM;
    atomic_fetch_add_explicit(&live_mems, 1, memory_order_relaxed);
    p->mem->refs = 1;
    if (sh->prev != NULL)
        hold_memories(p, sh);
    arena *a = &p->mem->a, *tab = &p->own; /* content, tables (inc_part) */
    pm_reset(memo);
    mel_model *sm = &p->model;
    mel_variable *vars = AR_NEW(tab, mel_variable, rp->n_var + 1);
    uint32_t *var_len = AR_NEW(tab, uint32_t, rp->n_var + 1);
    if (tab->oom)
        return MDAE_E_NOMEM;
    memset(&vars[rp->n_var], 0, sizeof *vars); /* the spare end, as calloc's */
    int rc = copy_modes(m, a, memo, sm, sh);
    if (rc < 0)
        return rc;
    const mel_variable *prev_vars = sh->prev != NULL ? sh->prev->model.variables : NULL;
    const uint32_t *prev_len = sh->prev != NULL ? sh->prev->var_len : NULL;
    const mem_set *prev_mems = sh->prev != NULL ? sh->prev->var_mems : NULL;
    const mem_set own = (mem_set)(1u << sh->n_keep);
    mem_set *var_mems = AR_NEW(tab, mem_set, rp->n_var + 1);
    if (tab->oom)
        return MDAE_E_NOMEM;
    p->modes_mems = sh->prev != NULL && sh->modes ? remap_set(sh, sh->prev->modes_mems) : own;
    for (uint32_t q = 0; q < rp->n_var; q++) {
        if (prev_vars != NULL) { /* a run of shared ones: prev's */
            uint32_t end = next_not_shared(sh->var, q, rp->n_var);
            remap_sets(sh, var_mems, prev_mems, q, end);
            for (; q < end; q++) {
                vars[q] = prev_vars[q];
                var_len[q] = prev_len[q];
            }
            if (q == rp->n_var)
                break;
        }
        const mel_variable *v = &m->variables[rp->var_map[q]];
        const mel_variable *o = sh->prev != NULL && sh->var[q] == SAME_STRUCTURE
                                    ? &sh->prev->model.variables[q]
                                    : NULL; /* moved only: see copy_equations */
        var_len[q] = o != NULL ? sh->prev->var_len[q] : (uint32_t)strlen(v->name);
        var_mems[q] = (mem_set)(own | (o != NULL ? remap_set(sh, prev_mems[q]) : 0));
        vars[q] = (mel_variable){.name = o != NULL ? o->name : ar_strdup(a, v->name, var_len[q]),
                                 .guard = o != NULL ? o->guard : copy_guard(a, memo, v->guard),
                                 .where = v->where};
        if (vars[q].name == NULL || vars[q].guard == NULL)
            return MDAE_E_NOMEM;
    }
    rc = copy_equations(m, rp, local, a, tab, memo, sm, sh, &p->eq_len, &p->eq_mems);
    if (rc < 0)
        return rc;
    p->var_len = var_len;
    p->var_mems = var_mems;
    sm->n_variables = rp->n_var;
    sm->variables = vars;
    return MDAE_OK;
}

static bool diag_seen(const mdae_diags *d, size_t upto, const mdae_diag *x)
{
    for (size_t k = 0; k < upto; k++)
        if (d->items[k].severity == x->severity &&
            memcmp(&d->items[k].where, &x->where, sizeof x->where) == 0 &&
            strcmp(d->items[k].message, x->message) == 0)
            return true;
    return false;
}

/* Identity of a block, by names and orders (inc.h: "Block ids"), in words
 * as a part's key: the three counts first, then each item's name and
 * order. */
static void block_key(kbuf *b, const cdg_block *blk, const inc_part *p)
{
    const cdg_item *sets[3] = {blk->equations, blk->unknowns, blk->reads};
    size_t ns[3] = {blk->n_equations, blk->n_unknowns, blk->n_reads};
    if (!kb_room(b, 3 * sizeof(uint32_t)))
        return;
    for (int s = 0; s < 3; s++)
        kb_put(b, (uint32_t)ns[s]);
    for (int s = 0; s < 3; s++) {
        const uint32_t *len = s == 0 ? p->eq_len : p->var_len; /* items index p's model */
        for (size_t k = 0; k < ns[s]; k++) {
            size_t n = len[sets[s][k].index];
            if (!kb_room(b, 3 * sizeof(uint32_t) + n))
                return;
            kb_put(b, K_NAME);
            kb_put(b, (uint32_t)n);
            memcpy(b->p + b->len, sets[s][k].name, n);
            b->len += n;
            kb_put(b, (uint32_t)sets[s][k].order);
        }
    }
}

/* n items copied to *at with their indices mapped to the model's; *at
 * moves past them. Returns where they start. */
static const cdg_item *map_items(cdg_item **at, const cdg_item *it, size_t n,
                                 const uint32_t *map)
{
    cdg_item *o = *at;
    for (size_t k = 0; k < n; k++) {
        o[k] = it[k];
        o[k].index = map[it[k].index];
    }
    *at = o + n;
    return o;
}

static int cmp_block(const void *a, const void *b)
{
    uint32_t x = ((const rblock *)a)->b.id, y = ((const rblock *)b)->b.id;
    return x < y ? -1 : x > y;
}

/* Sort n blocks by id (distinct). They come nearly sorted (a part keeps
 * its blocks' ids from version to version; new blocks take the largest):
 * insertion sort, unless that moves more than a few blocks per block, and
 * then qsort. */
static void sort_blocks(rblock *b, size_t n)
{
    size_t budget = 8 * n + 64;
    for (size_t i = 1; i < n; i++) {
        if (b[i - 1].b.id < b[i].b.id)
            continue;
        rblock x = b[i];
        size_t j = i;
        for (; j > 0 && b[j - 1].b.id > x.b.id && budget > 0; j--, budget--)
            b[j] = b[j - 1];
        b[j] = x;
        if (budget == 0) {
            qsort(b, n, sizeof *b, cmp_block);
            return;
        }
    }
}

/* The rows and variables of a part's private model that may differ from
 * those of the part it was built from (`from`, share.prev) beyond their
 * locations (list_edit_rows), increasing; from NULL: not known. For
 * sa_options.hint_rows / hint_vars when from seeds it. */
typedef struct edit_rows {
    const inc_part *from;
    uint32_t *rows, n_rows;
    uint32_t *vars, n_vars;
} edit_rows;

/* The offsets of part p (its private model built): sa_analyze, seeded with
 * hint's offsets, which only changes its speed (sa.h); told which rows
 * and variables may differ from the hint model's when p's model was built
 * from hint's (ed, may be NULL). */
static int analyse_offsets(inc_part *p, const sa_options *opt, const inc_part *hint,
                           const edit_rows *ed, mdae_diags *diags)
{
    sa_options o = {0};
    if (opt != NULL)
        o = *opt;
    o.hint = hint != NULL ? hint->res : NULL;
    o.hint_rows = o.hint_vars = NULL;
    o.n_hint_rows = o.n_hint_vars = 0;
    /* hint->res is sa_analyze's of &hint->model (here): its model */
    if (ed != NULL && ed->from != NULL && ed->from == hint) {
        o.hint_rows = ed->rows;
        o.n_hint_rows = ed->n_rows;
        o.hint_vars = ed->vars;
        o.n_hint_vars = ed->n_vars;
    }
    return sa_analyze(&p->model, &o, &p->res, diags);
}

/* p's dependency graph from its offsets: cdg_build_seeded from the graph
 * of the part that seeded them (p->graph_seed: its blocks and edges where
 * the edit did not reach, its memo of union-SCCs elsewhere; only the speed
 * depends on it, cdg.h), as if made right after them; nothing if made. */
static int build_graph(inc_part *p, const sa_options *opt, mdae_diags *diags)
{
    if (p->graph != NULL)
        return MDAE_OK;
    sa_options o = {0};
    if (opt != NULL)
        o = *opt;
    o.hint = p->graph_seed != NULL ? p->graph_seed->res : NULL;
    o.hint_rows = o.hint_vars = NULL; /* the caller's are not the seed's */
    int rc = cdg_build_seeded(p->res, &o, p->graph_seed != NULL ? p->graph_seed->graph : NULL,
                              &p->graph, diags);
    if (rc == MDAE_OK)
        p->pending = 0;
    return rc;
}

/* Which cached part seeds a new part's analysis (sa_options.hint: only its
 * speed depends on the choice). An edited part is usually the previous
 * version of a part with the same equation names: a cached part holding
 * some of the new part's equations (hint_for), the latest and then the
 * largest if several do. Names are borrowed from the cached parts' models,
 * so the map is dropped as soon as an eviction may have freed one (the
 * parts analysed after that are not seeded).
 *
 * Two tables: the parts the last analysis used (the latest: a name held
 * there has its best holder there), made first, and every cached part,
 * made only when a name is not in the first (after an edit, every probe
 * is found in the previous version's part: the other versions' names are
 * not hashed again; at N = 10,000 of the brake, four versions of 110,000
 * names were). */
typedef struct hint_table {
    const char **name;
    inc_part **part;
    size_t mask;
} hint_table;

typedef struct hint_map {
    hint_table latest, all;
    const inc_session *s;
    bool latest_made, all_made, valid;
} hint_map;

static bool better_hint(const inc_part *a, const inc_part *b)
{
    return b == NULL || a->gen > b->gen ||
           (a->gen == b->gen && a->model.n_equations > b->model.n_equations);
}

static size_t hint_slot(const hint_table *t, const char *name)
{
    size_t h = (size_t)mdae_hash_str(name) & t->mask;
    while (t->name[h] != NULL && strcmp(t->name[h], name) != 0)
        h = (h + 1) & t->mask;
    return h;
}

/* Whether cached part p goes into a table of generations from min_gen on:
 * with min_gen > 0 (the latest), as the table would have been at the start
 * of the analysis (s->gen): not the parts it made itself. */
static bool in_table(const inc_part *p, const inc_session *s, unsigned min_gen)
{
    return p->res != NULL && p->gen >= min_gen && (min_gen == 0 || p->born != s->gen);
}

/* t: the equations of s's cached parts whose generation is at least
 * min_gen (in_table); false when out of memory (t empty). */
static bool hint_table_make(hint_table *t, const inc_session *s, unsigned min_gen)
{
    size_t n = 0, cap = 16;
    for (const inc_part *p = s->parts; p != NULL; p = p->next)
        n += in_table(p, s, min_gen) ? p->model.n_equations : 0;
    while (cap < 2 * n + 2)
        cap *= 2;
    t->name = mdae_calloc(cap, sizeof *t->name);
    t->part = mdae_malloc(cap * sizeof *t->part); /* read only where name is set */
    t->mask = cap - 1;
    if (t->name == NULL || t->part == NULL) {
        mdae_free(t->name);
        mdae_free(t->part);
        memset(t, 0, sizeof *t);
        return false;
    }
    for (inc_part *p = s->parts; p != NULL; p = p->next)
        for (uint32_t i = 0; in_table(p, s, min_gen) && i < p->model.n_equations; i++) {
            size_t h = hint_slot(t, p->model.equations[i].name);
            if (t->name[h] == NULL || better_hint(p, t->part[h])) {
                t->name[h] = p->model.equations[i].name;
                t->part[h] = p;
            }
        }
    return true;
}

/* The map of session s, whose analysis of generation s->gen is starting. */
static void hint_map_build(hint_map *hm, const inc_session *s)
{
    hm->s = s;
    hm->valid = true; /* its tables made on first use (hint_holder) */
}

static void hint_map_free(hint_map *hm)
{
    mdae_free(hm->latest.name);
    mdae_free(hm->latest.part);
    mdae_free(hm->all.name);
    mdae_free(hm->all.part);
    memset(hm, 0, sizeof *hm);
}

/* Part k of the last analysis when it holds `name` as its equation q and
 * is of the latest generation, else NULL: then it is the one holder the
 * latest table would give (the parts of one analysis have distinct names),
 * found without a table (an edit keeps the parts and their equations'
 * places: at N = 10,000 of the brake, the table hashed 110,000 names per
 * edit for three look-ups). */
static inc_part *last_holder(const inc_session *s, size_t k, uint32_t q, const char *name)
{
    inc_part *p = k < s->n_last ? s->last[k] : NULL;
    if (p == NULL || !in_table(p, s, s->gen - 1) || q >= p->model.n_equations ||
        strcmp(p->model.equations[q].name, name) != 0)
        return NULL;
    return p;
}

/* The best cached holder of name (equation q of part k), or NULL. */
static inc_part *hint_holder(hint_map *hm, const char *name, size_t k, uint32_t q)
{
    inc_part *guess = last_holder(hm->s, k, q, name);
    if (guess != NULL)
        return guess;
    if (!hm->latest_made) {
        hm->latest_made = true;
        if (!hint_table_make(&hm->latest, hm->s, hm->s->gen - 1)) {
            hm->valid = false;
            return NULL;
        }
    }
    size_t h = hint_slot(&hm->latest, name);
    if (hm->latest.name[h] != NULL)
        return hm->latest.part[h];
    if (!hm->all_made) {
        hm->all_made = true;
        if (!hint_table_make(&hm->all, hm->s, 0))
            return NULL;
    }
    if (hm->all.name == NULL)
        return NULL;
    h = hint_slot(&hm->all, name);
    return hm->all.name[h] != NULL ? hm->all.part[h] : NULL;
}

/* The seed for a new part (part k of the result): the cached part holding
 * its first, middle or last equation (a rename or an insertion rarely hits
 * all three), or none: a part with no equation in common would only cost
 * its translation. */
static inc_part *hint_for(hint_map *hm, const mel_model *m, const rpart *rp, size_t k)
{
    if (!hm->valid || rp->n_eq == 0)
        return NULL;
    const uint32_t probe[3] = {0, rp->n_eq / 2, rp->n_eq - 1};
    for (int t = 0; t < 3 && hm->valid; t++) {
        inc_part *p = hint_holder(hm, m->equations[rp->eq_map[probe[t]]].name, k, probe[t]);
        if (p != NULL)
            return p;
    }
    return NULL;
}

/* ---- The cache's index --------------------------------------------------- */

/* Index every cached part again in a table of cap buckets. Out of memory
 * keeps the old table (longer chains; none: find_cached walks the list). */
static void index_rebuild(inc_session *s, size_t cap)
{
    inc_part **t = mdae_calloc(cap, sizeof *t);
    if (t == NULL)
        return;
    for (inc_part *p = s->parts; p != NULL; p = p->next) {
        p->hnext = t[p->hash & (cap - 1)];
        t[p->hash & (cap - 1)] = p;
    }
    mdae_free(s->index);
    s->index = t;
    s->index_cap = cap;
}

/* p has just joined the cache list: index it (at most one part a bucket
 * on average). */
static void index_add(inc_session *s, inc_part *p)
{
    if (s->n_parts > s->index_cap) {
        size_t cap = s->index_cap;
        index_rebuild(s, cap ? 2 * cap : 64);
        if (s->index_cap != cap)
            return; /* p was indexed from the list */
    }
    if (s->index == NULL)
        return;
    p->hnext = s->index[p->hash & (s->index_cap - 1)];
    s->index[p->hash & (s->index_cap - 1)] = p;
}

/* Take the cached part *pp out of the cache list and index and drop the
 * cache's reference; *pp becomes its successor. */
static void uncache(inc_session *s, inc_part **pp)
{
    inc_part *p = *pp;
    *pp = p->next;
    if (s->index != NULL) {
        inc_part **hp = &s->index[p->hash & (s->index_cap - 1)];
        while (*hp != p) {
            MDAE_ASSERT(*hp != NULL); /* every cached part is indexed */
            hp = &(*hp)->hnext;
        }
        *hp = p->hnext;
    }
    p->cached = false;
    s->n_parts--;
    part_unref(p);
}

/* Drop every cache entry the current analysis does not use; true if any. */
static bool evict_unused(inc_session *s)
{
    bool any = false;
    forget_last(s); /* its parts are the previous analysis's */
    inc_part **pp = &s->parts;
    while (*pp != NULL) {
        if ((*pp)->gen != s->gen) {
            uncache(s, pp);
            any = true;
        } else {
            pp = &(*pp)->next;
        }
    }
    return any;
}

/* Drop cache entries unused for `keep` analyses. */
static void trim_cache(inc_session *s, unsigned keep)
{
    inc_part **pp = &s->parts;
    while (*pp != NULL) {
        if (s->gen - (*pp)->gen >= keep)
            uncache(s, pp);
        else
            pp = &(*pp)->next;
    }
}

/* The steps of inc_analyze share this state. */
typedef struct analysis {
    inc_session *s;
    const mel_model *m;
    const sa_options *opt;
    inc_result *r;
    uint32_t *local;   /* variable -> index in its part */
    kbuf key;          /* scratch: the key being built (the session's) */
    pmap seen, memo;   /* scratch: build_prefix's and build_model's guard memos */
    pmap gh, eqm;      /* guard_hash's memo (this model's guards); guard_same's */
    /* part_signature's, for the part being resolved: each equation's and
     * variable's hash and comparison with the previous version's; whether
     * every one is the same structure as there. */
    uint64_t *eq_hash, *var_hash;
    unsigned char *eq_same, *var_same;
    bool all_same;
    /* The split kept: each equation of the model (by model index)
     * compared with the previous version's at its place (equation_same). */
    unsigned char *pre_same;
    hint_map hints;
    mdae_diags tmp;    /* every part's diagnostics, before deduplication */
    mdae_diags *diags; /* the caller's */
    bool model_error;  /* some part was refused: go on, fail at the end */
    bool defer;        /* the offsets only (inc_analyze_offsets) */
    /* The model of the analysis that kept the split, when the caller said
     * this model was made from it (inc_session_since); else NULL. */
    const mel_model *since;
} analysis;

/* ---- Since -----------------------------------------------------------------
 * A model made from the previous version's (mel_options.since) shares with
 * it the names, guards and incidences of what the edit left alone (the
 * replay: every equation but the edited statement's instances; the
 * unknowns, when none is declared after the edit), at the same indices.
 * When the caller says the model was made from the one the session last
 * analysed (an->since, alive for the call), an equation of this model
 * whose name, guard and incidences' cases are since's at the same index
 * (the same pointers, so the same memory, so the same contents: a model is
 * not changed once made) compares with the kept part's equation as since's
 * did, and since's compares SAME_ALL when that part was analysed anew from
 * since (inc__kept_part.fresh): build_model copies each equation from the
 * model or shares an earlier part's that compared SAME_ALL with it, and
 * for one that compared SAME_STRUCTURE takes the old name and guards
 * (the same strings and formulas) with the model's locations; the
 * variables are numbered by since's split, which is the kept one. So
 * equation_same(e, o) is SAME_ALL when e's locations are since's too, and
 * SAME_STRUCTURE when only they differ (the text before it moved), read
 * from pointers instead of strings and guard trees; anything else is
 * compared as before. The same for the variables. */

/* Equation e against since's equation s at its index (see above):
 * SAME_ALL or SAME_STRUCTURE when found by pointers, else -1 (compare). */
static inline int since_equation(const mel_equation *e, const mel_equation *s)
{
    if (e->name != s->name || e->guard != s->guard || e->n_incs != s->n_incs)
        return -1;
    bool where = memcmp(&e->where, &s->where, sizeof e->where) == 0;
    if (e->incs == s->incs)
        return where ? SAME_ALL : SAME_STRUCTURE;
    for (uint32_t k = 0; k < e->n_incs; k++) {
        const mel_incidence *a = &e->incs[k], *b = &s->incs[k];
        if (a->var != b->var || a->n_cases != b->n_cases)
            return -1;
        for (uint32_t c = 0; c < a->n_cases; c++) {
            const mel_order_case *x = &a->cases[c], *y = &b->cases[c];
            if (x->order != y->order || x->guard != y->guard || x->next != y->next)
                return -1;
            where = where && memcmp(&x->where, &y->where, sizeof x->where) == 0;
        }
    }
    return where ? SAME_ALL : SAME_STRUCTURE;
}

static int since_variable(const mel_variable *v, const mel_variable *s)
{
    if (v->name != s->name || v->guard != s->guard)
        return -1;
    return memcmp(&v->where, &s->where, sizeof v->where) == 0 ? SAME_ALL : SAME_STRUCTURE;
}

/* ---- The split kept -------------------------------------------------------
 * The components are a function of the incidences alone: when every
 * equation of the previous analysis's part k, at its place in this model,
 * has the variables of the kept equation (by model index, through the
 * part's var_map), and the counts are the same, the previous split is this
 * model's (same parts, same order, same maps). Found in the pass that
 * compares each equation with the kept one (equation_same, whose answers
 * part_signature then takes), instead of a union-find and a second pass
 * (an edit that leaves the incidences alone: an order, a guard, a name). */

/* Whether e's variables are o's (o of kept part p), by model index. */
static bool same_variables(const mel_equation *e, const mel_equation *o,
                           const inc__kept_part *p)
{
    if (e->n_incs != o->n_incs)
        return false;
    for (uint32_t j = 0; j < e->n_incs; j++) {
        uint32_t b = o->incs[j].var;
        if (b >= p->n_var || p->var_map[b] != e->incs[j].var)
            return false;
    }
    return true;
}

/* Equation i = p->eq_map[q] of the model against kept part p's q-th, and
 * against since's at i when se is not NULL, as split_is_kept's loop
 * compares it: pre_same[i] written, the counts added; false when its
 * variables are not the kept one's (the split is not kept). */
static inline bool kept_row(analysis *an, const inc__kept_part *p, uint32_t q,
                            const mel_equation *se, size_t *by_pointer, size_t *moved)
{
    uint32_t i = p->eq_map[q];
    const mel_equation *e = &an->m->equations[i], *o = &p->eqs[q];
    int same = se != NULL ? since_equation(e, &se[i]) : -1;
    if (same >= 0) {
        (*by_pointer)++;
        *moved += same == SAME_STRUCTURE;
    } else {
        same = equation_same(&an->eqm, e, an->local, p->var_map, o);
    }
    if (same == DIFFERENT && !same_variables(e, o, p))
        return false;
    an->pre_same[i] = (unsigned char)same;
    return true;
}

/* The q >= from with p->eq_map[q] == i, or p->n_eq: steps doubling from
 * `from` (the row before's), then a binary search, the map read as
 * increasing (a map that is not may hide i: not found). */
static uint32_t kept_index(const inc__kept_part *p, uint32_t from, uint32_t i)
{
    uint32_t lo = from, hi = from, step = 1;
    while (hi < p->n_eq && p->eq_map[hi] < i) {
        lo = hi + 1;
        hi = p->n_eq - hi > step ? hi + step : p->n_eq;
        step = step < (1u << 30) ? 2 * step : step;
    }
    hi = hi < p->n_eq ? hi + 1 : p->n_eq; /* eq_map[hi] >= i: in the range */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->eq_map[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n_eq && p->eq_map[lo] == i ? lo : p->n_eq;
}

/* The kept part (*k) and its index (*q) of model equation i, looked for
 * in part `last` from index `from` on (the row before's: the rows
 * increasing), then in every part from its start; false: not found. */
static bool find_kept(const inc_session *s, uint32_t i, size_t last, uint32_t from, size_t *k,
                      uint32_t *q)
{
    if ((*q = kept_index(&s->kept[last], from, i)) < s->kept[last].n_eq) {
        *k = last;
        return true;
    }
    for (size_t j = 0; j < s->n_kept; j++)
        if ((*q = kept_index(&s->kept[j], 0, i)) < s->kept[j].n_eq) {
            *k = j;
            return true;
        }
    return false;
}

/* split_is_kept's loop following the edit: when the front-end lists the
 * equations its replay of since made anew (mel_model_edited_rows), every
 * other one is since's at its index, which since_equation finds SAME_ALL
 * in a kept part analysed anew from since (fresh; pre_same set so by one
 * memset). The parts not fresh and the listed rows in fresh ones are
 * compared as the loop compares them (kept_row). true: the split is kept,
 * pre_same and the counts are the loop's; false: not known (not listed, a
 * listed row not found, or not kept): the loop decides from scratch. */
static bool kept_by_edited_rows(analysis *an)
{
    const inc_session *s = an->s;
    const mel_model *m = an->m;
    const uint32_t *rows;
    size_t n_rows;
    if (!mel_model_edited_rows(m, an->since, &rows, &n_rows) ||
        (uint64_t)n_rows * s->n_kept > m->n_equations)
        return false;
    memset(an->pre_same, SAME_ALL, m->n_equations);
    size_t by_pointer = m->n_equations, moved = 0;
    for (size_t k = 0; k < s->n_kept; k++) {
        const inc__kept_part *p = &s->kept[k];
        if (p->fresh)
            continue;
        by_pointer -= p->n_eq; /* the loop counts the fresh parts' rows only */
        for (uint32_t q = 0; q < p->n_eq; q++)
            if (!kept_row(an, p, q, NULL, &by_pointer, &moved))
                return false;
    }
    size_t last = 0; /* the part of the row before, found from `from` on */
    uint32_t from = 0;
    for (size_t j = 0; j < n_rows; j++) {
        MDAE_ASSERT(j == 0 || rows[j - 1] < rows[j]);
        size_t k;
        uint32_t q;
        if (!find_kept(s, rows[j], last, from, &k, &q))
            return false;
        last = k;
        from = q + 1;
        if (!s->kept[k].fresh)
            continue; /* compared above */
        by_pointer--; /* counted again by kept_row when found so */
        if (!kept_row(an, &s->kept[k], q, an->since->equations, &by_pointer, &moved))
            return false;
    }
    an->r->stats.by_pointer += by_pointer;
    an->r->stats.moved_by_pointer += moved;
    return true;
}

/* Whether the session's kept split is m's (see above); an->local and
 * an->pre_same are written either way. */
static bool split_is_kept(analysis *an)
{
    const inc_session *s = an->s;
    const mel_model *m = an->m;
    size_t ne = 0, nv = 0;
    for (size_t k = 0; k < s->n_kept; k++) {
        ne += s->kept[k].n_eq;
        nv += s->kept[k].n_var;
    }
    if (s->n_kept == 0 || ne != m->n_equations || nv != m->n_variables)
        return false;
    for (size_t k = 0; k < s->n_kept; k++)
        for (uint32_t q = 0; q < s->kept[k].n_var; q++) {
            MDAE_ASSERT(s->kept[k].var_map[q] < nv); /* a split of nv variables */
            an->local[s->kept[k].var_map[q]] = q;
        }
    pm_reset(&an->eqm);
    if (an->since != NULL && kept_by_edited_rows(an))
        return true;
    pm_reset(&an->eqm);
    /* counted here, added at the end (a count in memory per equation, the
     * brake's 120,000, cost as much as the comparison by pointer) */
    size_t by_pointer = 0, moved = 0;
    bool kept = true;
    unsigned char *pre_same = an->pre_same;
    const mel_equation *meqs = m->equations;
    for (size_t k = 0; k < s->n_kept && kept; k++) {
        const inc__kept_part *p = &s->kept[k];
        const mel_equation *se = an->since != NULL && p->fresh ? an->since->equations : NULL;
        const uint32_t *map = p->eq_map;
        for (uint32_t q = 0; q < p->n_eq; q++) {
            const mel_equation *e = &meqs[map[q]], *o = &p->eqs[q];
            int same = se != NULL ? since_equation(e, &se[map[q]]) : -1;
            if (same >= 0) {
                by_pointer++;
                moved += same == SAME_STRUCTURE;
            } else {
                same = equation_same(&an->eqm, e, an->local, p->var_map, o);
            }
            if (same == DIFFERENT && !same_variables(e, o, p)) {
                kept = false;
                break;
            }
            pre_same[map[q]] = (unsigned char)same;
        }
    }
    an->r->stats.by_pointer += by_pointer;
    an->r->stats.moved_by_pointer += moved;
    return kept;
}

/* The model's components become the result's parts (maps moved). */
static int split_into_parts(analysis *an)
{
    inc__piece *pc = NULL;
    size_t n = 0;
    const inc_session *s = an->s;
    bool kept = split_is_kept(an);
    int rc = kept ? inc__split_kept(s->kept, n = s->n_kept, &pc)
                  : inc__split(an->m, an->local, &pc, &n);
    if (rc < 0)
        return rc;
    inc_result *r = an->r;
    r->stats.split_kept = kept;
    r->parts = mdae_calloc(n + 1, sizeof *r->parts);
    if (r->parts == NULL) {
        inc__pieces_free(pc, n);
        return MDAE_E_NOMEM;
    }
    r->n_parts = n;
    for (size_t k = 0; k < n; k++) {
        r->parts[k].pre_eqs = kept ? s->kept[k].eqs : NULL;
        r->parts[k].pre_fresh = kept && s->kept[k].fresh && an->since != NULL;
        r->parts[k].n_eq = pc[k].n_eq;
        r->parts[k].n_var = pc[k].n_var;
        r->parts[k].eq_map = pc[k].eq_map;
        r->parts[k].var_map = pc[k].var_map;
        pc[k].eq_map = pc[k].var_map = NULL;
    }
    inc__pieces_free(pc, n);
    r->stats.components = n;
    size_t ne = 0, nv = 0; /* every equation and variable in one part */
    for (size_t k = 0; k < n; k++) {
        ne += r->parts[k].n_eq;
        nv += r->parts[k].n_var;
    }
    MDAE_ASSERT(ne == an->m->n_equations && nv == an->m->n_variables);
    (void)ne; /* with -DMDAE_NO_ASSERT */
    (void)nv;
    return MDAE_OK;
}

/* Modes and invariants: parts match only under the same ones. The session
 * takes the prefix object of a cached part when the text is the same
 * (coming back to an earlier N finds that N's parts), and starts a new
 * generation. The text is built in the scratch key and copied only when
 * it is new. */
static int enter_prefix(analysis *an)
{
    inc_session *s = an->s;
    kbuf *pre = &an->key;
    pre->len = 0;
    int rc = build_prefix(an->m, pre, &an->memo);
    if (rc < 0)
        return rc;
    inc_prefix *cur = NULL;
    if (s->prefix != NULL && s->prefix->len == pre->len && memcmp(s->prefix->text, pre->p, pre->len) == 0)
        cur = s->prefix;
    for (inc_part *p = s->parts; p != NULL && cur == NULL; p = p->next)
        if (p->prefix->len == pre->len && memcmp(p->prefix->text, pre->p, pre->len) == 0)
            cur = p->prefix;
    if (cur == NULL) {
        if ((cur = mdae_calloc(1, sizeof *cur)) == NULL ||
            (cur->text = mdae_malloc(pre->len)) == NULL) {
            mdae_free(cur);
            return MDAE_E_NOMEM;
        }
        memcpy(cur->text, pre->p, pre->len);
        cur->len = pre->len;
    }
    cur->refs++;
    prefix_unref(s->prefix);
    s->prefix = cur;
    s->gen++;
    return MDAE_OK;
}

/* part_signature's variables when the model's variables are since's
 * array itself (the replay shares it when no unknown moved) and prev is
 * the kept part analysed anew from since: each variable is since's at its
 * index, which since_variable finds SAME_ALL (the same name, guard and
 * locations), so each takes prev's hash, mixed into h (returned) in order
 * as the loop over since_variable would. */
static uint64_t shared_variables(unsigned char *var_same, uint64_t *var_hash,
                                 const uint64_t *prev_var_hash, uint32_t nv, uint64_t h)
{
    memset(var_same, SAME_ALL, nv);
    for (uint32_t q = 0; q < nv; q++) { /* copied as hashed: no memcpy pass */
        var_hash[q] = prev_var_hash[q];
        h = hmix(h, prev_var_hash[q]);
    }
    return h;
}

/* The hash of part rp's structure (see "A part's structure"), each of
 * its equations and variables compared with prev's at the same place
 * (prev: the part that seeds it, NULL: none) and hashed, or given the hash
 * kept with prev's: an->eq_hash, var_hash, eq_same, var_same, all_same. */
static uint64_t part_signature(analysis *an, const rpart *rp, const inc_part *prev)
{
    const mel_model *m = an->m, *pm = prev != NULL ? &prev->model : NULL;
    uint32_t pe = pm != NULL ? pm->n_equations : 0, pv = pm != NULL ? pm->n_variables : 0;
    bool all = pm != NULL && pe == rp->n_eq && pv == rp->n_var;
    /* compared when the split was kept (the kept part's equations are prev's) */
    bool pre = pm != NULL && rp->pre_eqs == pm->equations;
    MDAE_ASSERT(!pre || pe == rp->n_eq);
    uint64_t h = hmix(hmix(MDAE_HASH_SEED, rp->n_eq), rp->n_var);
    pm_reset(&an->eqm);
    /* Locals: a flag written through unsigned char may alias any field,
     * which the loops would read again per equation. */
    unsigned char *eq_same = an->eq_same, *var_same = an->var_same;
    uint64_t *eq_hash = an->eq_hash, *var_hash = an->var_hash;
    const unsigned char *pre_same = an->pre_same;
    const uint64_t *prev_eq_hash = prev != NULL ? prev->eq_hash : NULL;
    const uint64_t *prev_var_hash = prev != NULL ? prev->var_hash : NULL;
    const uint32_t *eq_map = rp->eq_map, *var_map = rp->var_map;
    uint32_t ne = rp->n_eq, nv = rp->n_var;
    const mel_equation *meqs = m->equations;
    const mel_variable *mvars = m->variables;
    for (uint32_t q = 0; q < ne; q++) {
        const mel_equation *e = &meqs[eq_map[q]];
        int same = pre ? pre_same[eq_map[q]]
                 : q < pe ? equation_same(&an->eqm, e, an->local, NULL, &pm->equations[q])
                          : DIFFERENT;
        eq_same[q] = (unsigned char)same;
        eq_hash[q] = same != DIFFERENT ? prev_eq_hash[q] : equation_hash(&an->gh, e, an->local);
        all = all && same != DIFFERENT;
        h = hmix(h, eq_hash[q]);
    }
    /* prev is the kept part, analysed anew from since: its variables are
     * since's at rp's var_map (the kept split's); see "Since" */
    const mel_variable *sv = pre && rp->pre_fresh ? an->since->variables : NULL;
    size_t by_pointer = 0;
    bool shared = sv != NULL && sv == mvars; /* since's array itself: see shared_variables */
    if (shared) {
        h = shared_variables(var_same, var_hash, prev_var_hash, nv, h);
        by_pointer = nv;
    }
    for (uint32_t q = 0; q < nv && !shared; q++) {
        const mel_variable *v = &mvars[var_map[q]];
        int same = sv != NULL ? since_variable(v, &sv[var_map[q]]) : -1;
        if (same >= 0)
            by_pointer++;
        else
            same = q < pv ? variable_same(&an->eqm, v, &pm->variables[q]) : DIFFERENT;
        var_same[q] = (unsigned char)same;
        var_hash[q] = same != DIFFERENT ? prev_var_hash[q] : variable_hash(&an->gh, v);
        all = all && same != DIFFERENT;
        h = hmix(h, var_hash[q]);
    }
    an->r->stats.by_pointer += by_pointer;
    an->all_same = all;
    return h;
}

/* Tests (engine/inc_int.h): part_same compares every equation and
 * variable in full; checks each one it skips against the full comparison;
 * counts those it skipped. */
bool inc__part_same_full, inc__part_same_check;
size_t inc__part_same_shared;

/* ---- A cached part against the part being resolved -------------------------
 * part_same compares each equation of rp (this model's) with cached part
 * c's at its place. "Not DIFFERENT" (equation_same) is an equivalence: equal
 * names, guards equal as formulas, equal counts, orders and variables (ours
 * through an->local, the private models' in the same local numbering), and
 * with var_map one more condition, so its answer implies the one without.
 * part_signature found e (ours) against prev's equation q; a private model
 * shares with the part that seeded it every equation compared SAME_ALL
 * there (copy_equations: the same name, guard and incidences, by pointer),
 * so when prev's and c's q-th share all three, c's is prev's as a formula
 * and e against c is e against prev: no second comparison (the brake's
 * since request: the edit toggles between two texts, each one's part
 * seeded by the other's, so c is the part before prev and shares with it
 * every equation the edit left alone). The same for the variables (name
 * and guard). */

/* Private models' equations x and y the same by their pointers? */
static inline bool equation_shared(const mel_equation *x, const mel_equation *y)
{
    return x->name == y->name && x->guard == y->guard && x->incs == y->incs &&
           x->n_incs == y->n_incs;
}

/* Is our q-th equation (found against prev's q-th: an->eq_same) the same
 * as c's q-th, known from prev's sharing it with c (see above)? */
static inline bool eq_known_same(const analysis *an, const mel_model *pm, const mel_model *cm,
                                 uint32_t q)
{
    return pm != NULL && q < pm->n_equations && an->eq_same[q] != DIFFERENT &&
           equation_shared(&pm->equations[q], &cm->equations[q]);
}

static inline bool var_known_same(const analysis *an, const mel_model *pm, const mel_model *cm,
                                  uint32_t q)
{
    return pm != NULL && q < pm->n_variables && an->var_same[q] != DIFFERENT &&
           pm->variables[q].name == cm->variables[q].name &&
           pm->variables[q].guard == cm->variables[q].guard;
}

/* Whether cached part c has the structure of part rp (part_signature made
 * with prev, NULL: none: an->eq_same and var_same against it), compared in
 * full but where prev shares with c what it was found the same as (see
 * above). */
static bool part_same(analysis *an, const rpart *rp, const inc_part *c, const inc_part *prev)
{
    const mel_model *m = an->m, *cm = &c->model;
    if (cm->n_equations != rp->n_eq || cm->n_variables != rp->n_var)
        return false;
    if (c == prev && an->all_same)
        return true;
    const mel_model *pm = prev != NULL && !inc__part_same_full ? &prev->model : NULL;
    size_t shared = 0;
    for (uint32_t q = 0; q < rp->n_eq; q++) {
        if (c->eq_hash[q] != an->eq_hash[q])
            return false;
        if (eq_known_same(an, pm, cm, q)) {
            shared++;
            MDAE_ASSERT(!inc__part_same_check ||
                        equation_same(&an->eqm, &m->equations[rp->eq_map[q]], an->local, NULL,
                                      &cm->equations[q]) != DIFFERENT);
        } else if (equation_same(&an->eqm, &m->equations[rp->eq_map[q]], an->local, NULL,
                               &cm->equations[q]) == DIFFERENT)
            return false;
    }
    for (uint32_t q = 0; q < rp->n_var; q++) {
        if (c->var_hash[q] != an->var_hash[q])
            return false;
        if (var_known_same(an, pm, cm, q)) {
            shared++;
            MDAE_ASSERT(!inc__part_same_check ||
                        variable_same(&an->eqm, &m->variables[rp->var_map[q]],
                                      &cm->variables[q]) != DIFFERENT);
        } else if (variable_same(&an->eqm, &m->variables[rp->var_map[q]], &cm->variables[q]) ==
                 DIFFERENT)
            return false;
    }
    inc__part_same_shared += shared;
    return true;
}

/* The cached part with rp's structure and hash h (under the current
 * prefix), or NULL (there is at most one: a part is created only when none
 * is found). */
static inc_part *find_cached(analysis *an, const rpart *rp, uint64_t h, const inc_part *prev)
{
    const inc_session *s = an->s;
    inc_part *p = s->index != NULL ? s->index[h & (s->index_cap - 1)] : s->parts;
    for (; p != NULL; p = s->index != NULL ? p->hnext : p->next)
        if (p->prefix == s->prefix && p->hash == h && part_same(an, rp, p, prev))
            return p;
    return NULL;
}

/* Whether the new part (of prefix pre) can share its modes and invariants
 * with prev's private model: the same prefix, the same locations. */
static bool modes_shared(const mel_model *m, const inc_part *prev, const inc_prefix *pre)
{
    if (prev->prefix != pre)
        return false;
    const mel_model *pm = &prev->model;
    MDAE_ASSERT(pm->n_modes == m->n_modes && pm->n_invariants == m->n_invariants);
    for (uint32_t k = 0; k < m->n_modes; k++)
        if (memcmp(&m->modes[k].where, &pm->modes[k].where, sizeof m->modes[k].where) != 0)
            return false;
    for (uint32_t k = 0; k < m->n_invariants; k++)
        if (memcmp(&m->invariants[k].where, &pm->invariants[k].where,
                   sizeof m->invariants[k].where) != 0)
            return false;
    return true;
}

/* Whether the part being resolved takes an's hash buffers themselves
 * (sized for the whole model) rather than a copy: when it holds at least
 * half of the model's equations and variables (the brake's edit: its one
 * large part; the copy was 0.37 M bytes at N = 2,000), so that a part
 * holds at most twice the memory it needs. an gets new buffers (not
 * zeroed: part_signature writes a part's entries before reading them). */
static bool hand_over_hashes(analysis *an, inc_part *p, const rpart *rp)
{
    const mel_model *m = an->m;
    if ((uint64_t)rp->n_eq + rp->n_var < ((uint64_t)m->n_equations + m->n_variables + 1) / 2)
        return false;
    uint64_t *eh = mdae_malloc(((size_t)m->n_equations + 1) * sizeof *eh);
    uint64_t *vh = mdae_malloc(((size_t)m->n_variables + 1) * sizeof *vh);
    if (eh == NULL || vh == NULL) {
        mdae_free(eh);
        mdae_free(vh);
        return false; /* copied instead */
    }
    p->eq_hash = an->eq_hash;
    p->var_hash = an->var_hash;
    p->hashes_owned = true;
    an->eq_hash = eh;
    an->var_hash = vh;
    return true;
}

/* The hashes of p's equations and variables (an's), kept with it: an's
 * buffers handed over, or copied into its tables. */
static int keep_hashes(analysis *an, inc_part *p, const rpart *rp)
{
    MDAE_ASSERT(rp->n_eq <= an->m->n_equations && rp->n_var <= an->m->n_variables);
    if (hand_over_hashes(an, p, rp))
        return MDAE_OK;
    arena *a = &p->own; /* tables (inc_part) */
    p->eq_hash = AR_NEW(a, uint64_t, rp->n_eq + 1);
    p->var_hash = AR_NEW(a, uint64_t, rp->n_var + 1);
    if (a->oom)
        return MDAE_E_NOMEM;
    memcpy(p->eq_hash, an->eq_hash, rp->n_eq * sizeof *p->eq_hash);
    memcpy(p->var_hash, an->var_hash, rp->n_var * sizeof *p->var_hash);
    return MDAE_OK;
}

/* The seed part p keeps for its graph and ids (graph_seed), let go: p's
 * graph, if not made yet, is then made without the seed's memo (the same
 * graph, more slowly; cdg_build_seeded is exact) and its new blocks' ids
 * come from the session's map (an identity seen before keeps its id). */
static void drop_seed(inc_part *p)
{
    if (p == NULL || p->graph_seed == NULL)
        return;
    part_unref(p->graph_seed);
    p->graph_seed = NULL;
    p->pending = p->graph == NULL;
}

/* drop_seed of every part of r. */
static void drop_seeds(inc_result *r)
{
    for (size_t k = 0; k < r->n_parts; k++)
        drop_seed(r->parts[k].part);
}

static int part_graph(inc_session *s, kbuf *key, inc_part *p, const sa_options *opt,
                      mdae_diags *diags);

/* p would be the INC_PENDING_MAX + 1-th part of a chain without graphs:
 * its graph will be made from the chain's first part that has one (or
 * from scratch when none has), not after the graphs of every version in
 * between. Exact: the graph is a function of p's offsets, whatever seeds
 * it (cdg_build_seeded, from any earlier version that keeps the equations
 * and variables by index: an older one only has more union-SCCs to split
 * again), and a block's id a function of its identity (part_ids: the seed
 * lends the ids of the blocks it has too, the others come from the
 * session's map). Those parts in between keep their own seeds, for a
 * question about them. The first stage of an editor that types faster
 * than the second finishes (every second stage cancelled in its graph)
 * made four graphs every fifth edit: 240 M instructions of 343 M at the
 * brake's N = 2,000 (docs/figures.md). */
static void skip_chain(inc_part *p)
{
    inc_part *first = p->graph_seed;
    while (first != NULL && first->graph == NULL)
        first = first->graph_seed;
    if (first != NULL)
        first->refs++;
    part_unref(p->graph_seed);
    p->graph_seed = first;
    p->pending = 1;
}

/* Analyse part p (its private model built), seeded by a cached part; on
 * the node limit, drop the cache's unused parts and try once more, so the
 * cache never makes an analysis fail that a cold one would finish (parts
 * of older versions hold nodes a cold analysis would not have). With
 * an->defer, the offsets only: the graph waits (inc_result_graphs), its
 * seed kept with the part; the INC_PENDING_MAX + 1-th part of a chain
 * without graphs is seeded by the chain's first graph instead
 * (skip_chain: the parts a chain holds are bounded). */
static int analyse_new(analysis *an, inc_part *p, rpart *rp, const edit_rows *ed,
                       mdae_diags *one)
{
    /* Referenced: an eviction must not free it while in use. */
    inc_part *hint = hint_for(&an->hints, an->m, rp, (size_t)(rp - an->r->parts));
    if (hint != NULL)
        hint->refs++;
    int rc = analyse_offsets(p, an->opt, hint, ed, one);
    if (rc == MDAE_OK) {
        p->graph_seed = hint; /* its reference: for the graph and the ids */
        p->pending = hint == NULL || hint->graph != NULL ? 1 : hint->pending + 1;
        hint = NULL;
        if (!an->defer)
            rc = part_graph(an->s, &an->key, p, an->opt, one);
        else if (p->pending > INC_PENDING_MAX)
            skip_chain(p);
    }
    part_unref(hint);
    if (rc == MDAE_E_BDD_LIMIT) {
        an->hints.valid = false;
        drop_seeds(an->r); /* the eviction may take them */
        for (size_t k = 0; k < an->r->n_parts; k++)
            an->r->parts[k].pre_eqs = NULL; /* and the kept split's parts */
        part_unref(p->graph_seed);
        p->graph_seed = NULL;
    }
    if (rc == MDAE_E_BDD_LIMIT && evict_unused(an->s)) {
        cdg_graph_free(p->graph);
        p->graph = NULL;
        sa_result_free(p->res);
        p->res = NULL;
        mdae_diags_close(one);
        mdae_diags_init(one);
        p->pending = 1;
        rc = analyse_offsets(p, an->opt, NULL, NULL, one);
        if (rc == MDAE_OK && !an->defer)
            rc = build_graph(p, an->opt, one);
    }
    return rc;
}

/* Parts share modes and invariants: the diagnostics from `before` on go
 * to the caller's list unless an earlier part said them. The no-valid-mode
 * warning is said once by inc_analyze, also when every part is reused (a
 * reused part says nothing). */
static void pass_diagnostics(analysis *an, const mdae_diags *one, size_t before)
{
    for (size_t q = 0; q < one->count; q++)
        mdae_diags_add_copy(&an->tmp, &one->items[q]);
    for (size_t q = before; q < an->tmp.count; q++)
        if (!diag_seen(&an->tmp, before, &an->tmp.items[q]) &&
            strcmp(an->tmp.items[q].message, NO_VALID_MODE) != 0)
            mdae_diags_add_copy(an->diags, &an->tmp.items[q]);
}

static void count_new(inc_stats *st, const sa_result *res)
{
    sa_method_info mi;
    sa_result_method(res, &mi);
    st->recomputed++;
    st->seeded += sa_result_seeded(res);
    st->searched += sa_result_searched(res);
    st->enumerated += mi.method == SA_METHOD_ENUMERATE;
    st->implicit += mi.method == SA_METHOD_IMPLICIT;
    st->fell_back += mi.fell_back;
}

/* Part k of the result: from the cache, or analysed and cached. A part
 * refused for a model error is left empty (an->model_error). */
/* The indices q < n whose flag is DIFFERENT, increasing, into out; how
 * many. 8 flags at a time: DIFFERENT is 0, and a word of flags has a zero
 * byte iff (w - 0x01..01) & ~w & 0x80..80 is not 0 (the flags are 0..2). */
static uint32_t list_different(const unsigned char *same, uint32_t n, uint32_t *out)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint32_t k = 0, q = 0;
    for (uint64_t w; q + 8 <= n; q += 8) {
        memcpy(&w, same + q, sizeof w);
        if (((w - ones) & ~w & highs) != 0)
            for (uint32_t j = q; j < q + 8; j++)
                if (same[j] == DIFFERENT)
                    out[k++] = j;
    }
    for (; q < n; q++)
        if (same[q] == DIFFERENT)
            out[k++] = q;
    return k;
}

/* ed: the rows and variables of part rp's private model, built with share
 * sh (sh->prev set), that may differ from sh->prev's beyond their
 * locations: those DIFFERENT. The others are prev's (SAME_ALL: copies) or
 * prev's with their own locations (SAME_STRUCTURE: copy_equations and
 * build_model take prev's name and guards, equation_same found the same
 * variables, cases and orders), as sa_options.hint_rows promises. Left
 * empty (from NULL) when out of memory: every row is then compared. */
static void list_edit_rows(edit_rows *ed, const share *sh, const rpart *rp)
{
    ed->rows = mdae_malloc(((size_t)rp->n_eq + rp->n_var + 1) * sizeof *ed->rows);
    if (ed->rows == NULL)
        return;
    ed->vars = ed->rows + rp->n_eq;
    ed->n_rows = list_different(sh->eq, rp->n_eq, ed->rows);
    ed->n_vars = list_different(sh->var, rp->n_var, ed->vars);
    ed->from = sh->prev;
}

/* The sets the rows prev shares with part rp read: hist[set] counts
 * them (the modes once when shared). */
static void count_sets(const analysis *an, const rpart *rp, const inc_part *prev, bool modes,
                       size_t *hist /* MEM_SETS, zeroed */)
{
    for (uint32_t q = 0; q < rp->n_eq; q++)
        if (an->eq_same[q] != DIFFERENT)
            hist[prev->eq_mems[q]]++;
    for (uint32_t q = 0; q < rp->n_var; q++)
        if (an->var_same[q] != DIFFERENT)
            hist[prev->var_mems[q]]++;
    if (modes)
        hist[prev->modes_mems]++;
}

/* The INC_HELD_KEPT memories of prev's n (bit k: see mem_set) the most
 * shared rows read (at least one row each), as a set. */
static mem_set most_read(const size_t *hist, size_t n)
{
    size_t uses[INC_HELD + 1] = {0};
    for (unsigned set = 1; set < MEM_SETS; set++)
        for (size_t k = 0; k < n; k++)
            if ((set >> k) & 1u)
                uses[k] += hist[set];
    mem_set kept = 0;
    for (size_t r = 0; r < INC_HELD_KEPT; r++) {
        size_t best = n;
        for (size_t k = 0; k < n; k++)
            if (!((kept >> k) & 1u) && uses[k] > 0 && (best == n || uses[k] > uses[best]))
                best = k;
        if (best < n)
            kept = (mem_set)(kept | (1u << best));
    }
    return kept;
}

/* What part rp, built from prev, shares and holds (sh, set to prev's
 * flags): prev's memories and prev->mem while they are at most INC_HELD.
 * Else a rebase: it holds the INC_HELD_KEPT of them the most shared rows
 * read, renumbered in order (remap, MEM_SETS entries, 0xFFFF for a set
 * with a memory dropped), and copies from the model every row (and the
 * modes) that reads another one: its flag set DIFFERENT, so build_model
 * copies it and list_edit_rows lists it (not prev's pointers any more).
 * Memory stays bounded, and a chain of edits never copies all again. */
static void share_plan(analysis *an, const rpart *rp, const inc_part *prev, share *sh,
                       mem_set *remap /* MEM_SETS */)
{
    size_t n = prev->n_held + 1;
    inc_mem *all[INC_HELD + 1];
    for (size_t k = 0; k < prev->n_held; k++)
        all[k] = prev->held[k];
    all[prev->n_held] = prev->mem;
    sh->remap = NULL;
    sh->n_keep = 0;
    if (n <= INC_HELD) {
        for (size_t k = 0; k < n; k++)
            sh->keep[sh->n_keep++] = all[k];
        return;
    }
    size_t hist[MEM_SETS] = {0};
    count_sets(an, rp, prev, sh->modes, hist);
    mem_set kept = most_read(hist, n);
    for (size_t k = 0; k < n; k++)
        if ((kept >> k) & 1u)
            sh->keep[sh->n_keep++] = all[k];
    for (unsigned set = 0; set < MEM_SETS; set++) {
        unsigned to = 0, j = 0;
        for (size_t k = 0; k < n; k++)
            if ((kept >> k) & 1u)
                to |= ((set >> k) & 1u) << j++;
        remap[set] = (set & ~(unsigned)kept) != 0 ? 0xFFFF : (mem_set)to;
    }
    for (uint32_t q = 0; q < rp->n_eq; q++)
        if (an->eq_same[q] != DIFFERENT && remap[prev->eq_mems[q]] == 0xFFFF)
            an->eq_same[q] = DIFFERENT;
    for (uint32_t q = 0; q < rp->n_var; q++)
        if (an->var_same[q] != DIFFERENT && remap[prev->var_mems[q]] == 0xFFFF)
            an->var_same[q] = DIFFERENT;
    if (sh->modes && remap[prev->modes_mems] == 0xFFFF)
        sh->modes = false;
    sh->remap = remap;
}

static int resolve_part(analysis *an, size_t k)
{
    inc_session *s = an->s;
    rpart *rp = &an->r->parts[k];
    /* The seed (analyse_new) is the previous version of this part, as a
     * rule: what it shares with it is compared, not hashed again. */
    inc_part *prev = hint_for(&an->hints, an->m, rp, k);
    uint64_t h = part_signature(an, rp, prev);
    inc_part *hit = find_cached(an, rp, h, prev);
    if (hit != NULL) {
        hit->gen = s->gen;
        hit->refs++;
        rp->part = hit;
        rp->reused = true;
        an->r->stats.reused++;
        return MDAE_OK;
    }
    inc_part *p = mdae_calloc(1, sizeof *p);
    if (p == NULL)
        return MDAE_E_NOMEM;
    atomic_fetch_add_explicit(&live_parts, 1, memory_order_relaxed);
    p->refs = 1;
    p->hash = h;
    p->prefix = s->prefix;
    s->prefix->refs++;
    p->gen = s->gen;
    p->born = s->gen;
    size_t before = an->tmp.count;
    mdae_diags one;
    mdae_diags_init(&one);
    share sh = {.eq = an->eq_same, .var = an->var_same};
    mem_set remap[MEM_SETS];
    if (prev != NULL) {
        sh.prev = prev;
        sh.modes = modes_shared(an->m, prev, s->prefix);
        share_plan(an, rp, prev, &sh, remap);
    }
    int rc = build_model(an->m, rp, an->local, p, &an->memo, &sh);
    if (rc == MDAE_OK)
        rc = keep_hashes(an, p, rp);
    edit_rows ed = {0};
    if (rc == MDAE_OK && sh.prev != NULL)
        list_edit_rows(&ed, &sh, rp);
    if (rc == MDAE_OK)
        rc = analyse_new(an, p, rp, &ed, &one);
    mdae_free(ed.rows);
    pass_diagnostics(an, &one, before);
    mdae_diags_close(&one);
    if (rc < 0) {
        part_unref(p);
        if (rc != MDAE_E_MODEL)
            return rc;
        an->model_error = true; /* go on: cold analysis reports every part */
        return MDAE_OK;
    }
    rp->part = p;
    count_new(&an->r->stats, p->res);
    p->refs++; /* into the cache (the result holds the first reference) */
    p->cached = true;
    p->next = s->parts;
    s->parts = p;
    s->n_parts++;
    index_add(s, p);
    return MDAE_OK;
}

/* ---- Block ids from the seed (rpart.seed) ---------------------------------
 * A block's id is a function of its identity by names and orders (inc.h),
 * so a block of part p whose identity by indices and orders is one of its
 * seed's blocks, and whose equations and variables have the names the seed
 * gives those indices, has that block's id: no key, no look-up (the
 * brake's edits: every block but the edited railcar's). The others take
 * theirs from the session's map, in block order as before, so the ids the
 * map hands out are the same. */

/* same[i] for i < n: the name of item i is the same in both models
 * (lengths first); false past the shorter model. Owned: mdae_free. */
static bool *same_names(const uint32_t *len, const uint32_t *len_s, size_t n, size_t n_s,
                        const char *(*name)(const inc_part *, size_t), const inc_part *p,
                        const inc_part *seed)
{
    bool *same = mdae_calloc(n + 1, sizeof *same);
    if (same == NULL)
        return NULL;
    for (size_t i = 0; i < n && i < n_s; i++) {
        /* the same pointer: an equation or variable p's private model
         * shares with its seed's (build_model), most of them after an edit */
        const char *a = name(p, i), *b = name(seed, i);
        same[i] = a == b || (len[i] == len_s[i] && memcmp(a, b, len[i]) == 0);
    }
    return same;
}

static const char *eq_name(const inc_part *p, size_t i) { return p->model.equations[i].name; }
static const char *var_name(const inc_part *p, size_t i) { return p->model.variables[i].name; }

/* The items x[0 .. n) and y[0 .. n): the same indices and orders, each
 * index's name the same in both models (same[index]). */
static bool same_items(const cdg_item *x, const cdg_item *y, size_t n, const bool *same)
{
    for (size_t k = 0; k < n; k++)
        if (x[k].index != y[k].index || x[k].order != y[k].order || !same[x[k].index])
            return false;
    return true;
}

static bool same_block(const cdg_block *x, const cdg_block *y, const bool *eq_same,
                       const bool *var_same)
{
    return x->n_equations == y->n_equations && x->n_reads == y->n_reads &&
           same_items(x->equations, y->equations, x->n_equations, eq_same) &&
           same_items(x->unknowns, y->unknowns, x->n_unknowns, var_same) &&
           same_items(x->reads, y->reads, x->n_reads, var_same);
}

/* The seed's id of each of p's blocks that has one (above), else
 * UINT32_MAX: ids[0 .. n). Both graphs list their blocks by smallest
 * equation index (cdg.h), so one pass over each. False without memory
 * (nothing found then). */
static bool ids_from_seed(const inc_part *p, const inc_part *seed, uint32_t *ids, size_t n)
{
    for (size_t q = 0; q < n; q++)
        ids[q] = UINT32_MAX;
    if (seed == NULL)
        return true;
    const mel_model *m = &p->model, *ms = &seed->model;
    bool *eq_same = same_names(p->eq_len, seed->eq_len, m->n_equations, ms->n_equations,
                               eq_name, p, seed);
    bool *var_same = same_names(p->var_len, seed->var_len, m->n_variables, ms->n_variables,
                                var_name, p, seed);
    bool ok = eq_same != NULL && var_same != NULL;
    size_t ns = cdg_graph_n_blocks(seed->graph), at = 0;
    const cdg_block *x = cdg_graph_blocks(p->graph), *y = cdg_graph_blocks(seed->graph);
    MDAE_ASSERT(n == cdg_graph_n_blocks(p->graph));
    for (size_t q = 0; ok && q < n; q++) {
        uint32_t first = x[q].equations[0].index;
        while (at < ns && y[at].equations[0].index < first)
            at++;
        for (size_t t = at; t < ns && y[t].equations[0].index == first; t++)
            if (same_block(&x[q], &y[t], eq_same, var_same)) {
                ids[q] = seed->ids[t];
                break;
            }
    }
    mdae_free(eq_same);
    mdae_free(var_same);
    return ok;
}

/* The stable ids of part p's blocks, p->ids[q] for its graph's block q,
 * found once and kept with the part: a block's identity is made of the
 * part's own names and orders, and the session maps an identity to the
 * same id for good, so a part found in the cache needs no block key. Its
 * seed (graph_seed), when it has its ids, lends those of the unchanged
 * blocks and is let go once they are found. key: scratch. */
static int part_ids(inc_session *s, kbuf *key, inc_part *p)
{
    if (p->ids != NULL)
        return MDAE_OK;
    const inc_part *seed = p->graph_seed;
    if (seed != NULL && (seed->ids == NULL || seed->graph == NULL))
        seed = NULL;
    size_t n = cdg_graph_n_blocks(p->graph);
    uint32_t *ids = mdae_malloc((n + 1) * sizeof *ids);
    if (ids == NULL || !ids_from_seed(p, seed, ids, n)) {
        mdae_free(ids);
        return MDAE_E_NOMEM;
    }
    int rc = MDAE_OK;
    const cdg_block *blks = cdg_graph_blocks(p->graph);
    for (size_t q = 0; q < n && rc == MDAE_OK; q++) {
        if (ids[q] != UINT32_MAX)
            continue;
        key->len = 0;
        block_key(key, &blks[q], p);
        rc = key->oom ? MDAE_E_NOMEM : block_id(s, key->p, key->len, &ids[q]);
    }
    if (rc < 0) {
        mdae_free(ids);
        return rc;
    }
    p->ids = ids;
    part_unref(p->graph_seed); /* its ids are taken */
    p->graph_seed = NULL;
    return MDAE_OK;
}

/* Part p's seed with its graph and ids (its own chain first), so that p's
 * graph is made from the seed's memo and p's unchanged blocks take the
 * seed's ids, as when each version's graph was made with its offsets. A
 * seed whose graph fails (a limit of that older version) is let go: p's
 * graph is then made without it. key: scratch. */
static int settle_seed(inc_session *s, kbuf *key, inc_part *p, const sa_options *opt)
{
    inc_part *seed = p->graph_seed;
    if (seed == NULL || (seed->graph != NULL && seed->ids != NULL))
        return MDAE_OK;
    mdae_diags tmp; /* an older version's: not the caller's */
    mdae_diags_init(&tmp);
    int rc = part_graph(s, key, seed, opt, &tmp);
    if (rc == MDAE_OK)
        rc = part_ids(s, key, seed);
    mdae_diags_close(&tmp);
    if (rc == MDAE_E_NOMEM || rc == MDAE_E_CANCELED)
        return rc;
    if (rc < 0) {
        part_unref(seed);
        p->graph_seed = NULL;
    }
    p->pending = 1;
    return MDAE_OK;
}

/* Part p's graph, its seed's chain settled first; nothing if made. */
static int part_graph(inc_session *s, kbuf *key, inc_part *p, const sa_options *opt,
                      mdae_diags *diags)
{
    if (p->graph != NULL)
        return MDAE_OK;
    int rc = settle_seed(s, key, p, opt);
    return rc < 0 ? rc : build_graph(p, opt, diags);
}

/* map[0 .. n) is the identity. */
static bool identity_map(const uint32_t *map, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (map[i] != i)
            return false;
    return true;
}

/* Every part's ids; the number of blocks and of the items to copy (those
 * of the parts not numbered as the model). */
static int count_blocks(inc_result *r, kbuf *key, size_t *nb, size_t *ni)
{
    *nb = *ni = 0;
    for (size_t k = 0; k < r->n_parts; k++) {
        rpart *rp = &r->parts[k];
        int rc = part_ids(r->s, key, rp->part);
        if (rc < 0)
            return rc;
        rp->ids = rp->part->ids;
        size_t n = cdg_graph_n_blocks(rp->part->graph);
        *nb += n;
        rp->as_model = identity_map(rp->eq_map, rp->n_eq) && identity_map(rp->var_map, rp->n_var);
        const cdg_block *blks = cdg_graph_blocks(rp->part->graph);
        for (size_t q = 0; q < n && !rp->as_model; q++)
            *ni += blks[q].n_equations + blks[q].n_unknowns + blks[q].n_reads;
    }
    return MDAE_OK;
}

/* The result's blocks: the parts' blocks with model indices and the
 * session's stable ids, sorted by id. A part numbered as the model lends
 * its graph's items (the result holds the part): a copy of every item was
 * a tenth of the session's own work on the brake's edits. */
static int assign_block_ids(inc_result *r, kbuf *key)
{
    size_t nb, ni;
    int rc = count_blocks(r, key, &nb, &ni);
    if (rc < 0)
        return rc;
    mdae_free(r->blocks); /* a try before that failed */
    mdae_free(r->items);
    r->n_blocks = 0;
    r->blocks = mdae_malloc((nb + 1) * sizeof *r->blocks);
    r->items = mdae_malloc((ni + 1) * sizeof *r->items);
    if (r->blocks == NULL || r->items == NULL)
        return MDAE_E_NOMEM;
    cdg_item *at = r->items;
    for (size_t k = 0; k < r->n_parts; k++) {
        const rpart *rp = &r->parts[k];
        size_t n = cdg_graph_n_blocks(rp->part->graph);
        const cdg_block *blks = cdg_graph_blocks(rp->part->graph);
        for (size_t q = 0; q < n; q++) {
            const cdg_block blk = blks[q];
            rblock *rb = &r->blocks[r->n_blocks++];
            rb->b = blk;
            rb->b.id = rp->ids[q];
            if (rp->as_model)
                continue;
            rb->b.equations = map_items(&at, blk.equations, blk.n_equations, rp->eq_map);
            rb->b.unknowns = map_items(&at, blk.unknowns, blk.n_unknowns, rp->var_map);
            rb->b.reads = map_items(&at, blk.reads, blk.n_reads, rp->var_map);
        }
    }
    memset(at, 0, sizeof *at); /* the spare end */
    sort_blocks(r->blocks, r->n_blocks);
    r->graphs = true;
    return MDAE_OK;
}

/* one's diagnostics into diags, those it does not hold yet. */
static void add_new_diags(mdae_diags *diags, const mdae_diags *one)
{
    size_t before = diags->count;
    for (size_t q = 0; q < one->count; q++)
        if (!diag_seen(diags, before, &one->items[q]))
            mdae_diags_add_copy(diags, &one->items[q]);
}

/* Part p's graph (made later than its offsets: inc_analyze_offsets, or a
 * cached part that was), its diagnostics added to diags unless said; on
 * the node limit, the cache's unused parts dropped and the graph made once
 * more without its seed (analyse_new). key: scratch. */
static int complete_graph(inc_session *s, kbuf *key, inc_part *p, const sa_options *opt,
                          mdae_diags *diags)
{
    if (p->graph != NULL)
        return MDAE_OK;
    mdae_diags one;
    mdae_diags_init(&one);
    int rc = part_graph(s, key, p, opt, &one);
    if (rc == MDAE_E_BDD_LIMIT) {
        part_unref(p->graph_seed);
        p->graph_seed = NULL;
        if (evict_unused(s)) {
            mdae_diags_close(&one);
            mdae_diags_init(&one);
            rc = build_graph(p, opt, &one);
        }
    }
    if (diags != NULL)
        add_new_diags(diags, &one);
    mdae_diags_close(&one);
    return rc;
}

/* Every part's graph and ids, and the result's blocks. */
static int complete_result(inc_result *r, kbuf *key, const sa_options *opt, mdae_diags *diags)
{
    for (size_t k = 0; k < r->n_parts; k++) {
        int rc = complete_graph(r->s, key, r->parts[k].part, opt, diags);
        if (rc < 0)
            return rc;
    }
    return assign_block_ids(r, key);
}

int inc_result_graphs(inc_result *r, const sa_options *opt, mdae_diags *diags)
{
    if (r == NULL)
        return MDAE_E_INVAL;
    if (r->graphs)
        return MDAE_OK;
    inc_session *s = r->s;
    int rc = complete_result(r, &s->scratch, opt, diags);
    if (s->scratch.oom) { /* its cap is stuck at its len: start again */
        mdae_free(s->scratch.p);
        s->scratch = (kbuf){0};
    }
    return rc;
}

static void add_stats(inc_stats *total, const inc_stats *st)
{
    total->components += st->components;
    total->reused += st->reused;
    total->recomputed += st->recomputed;
    total->seeded += st->seeded;
    total->searched += st->searched;
    total->implicit += st->implicit;
    total->enumerated += st->enumerated;
    total->fell_back += st->fell_back;
    total->split_kept += st->split_kept;
    total->by_pointer += st->by_pointer;
    total->moved_by_pointer += st->moved_by_pointer;
}

/* The steps: split into parts, enter the modes' prefix, resolve every part
 * (cache or analysis), then stable block ids. */
static int run_steps(analysis *an)
{
    int rc = split_into_parts(an);
    if (rc == MDAE_OK)
        rc = enter_prefix(an);
    if (rc < 0)
        return rc;
    hint_map_build(&an->hints, an->s);
    for (size_t k = 0; k < an->r->n_parts; k++)
        if ((rc = resolve_part(an, k)) < 0)
            return rc;
    const inc_part *first = an->r->parts[0].part;
    if (first != NULL && sa_result_valid_modes(first->res) == 0) {
        const mel_model *m = an->m;
        mdae_diags_add(an->diags, MDAE_SEV_WARNING,
                       m->n_invariants ? m->invariants[0].where : (mdae_range){{0, 0, 0}, {0, 0, 0}},
                       "%s", NO_VALID_MODE);
    }
    if (an->model_error)
        return MDAE_E_MODEL;
    return an->defer ? MDAE_OK : complete_result(an->r, &an->key, an->opt, an->diags);
}

/* Whether r's maps are those of the kept split old (n_old parts, laid out
 * in one block from old_maps as keep_split lays them): the same parts'
 * sizes and maps. The brake's edits keep their split: its maps, 0.18 M
 * bytes at N = 2,000, then need no copy (memcmp reads them once). */
static bool same_maps(const inc_result *r, const inc__kept_part *old, size_t n_old,
                      const uint32_t *old_maps)
{
    if (old == NULL || old_maps == NULL || n_old != r->n_parts)
        return false;
    const uint32_t *at = old_maps;
    for (size_t k = 0; k < n_old; k++) {
        const rpart *rp = &r->parts[k];
        MDAE_ASSERT(old[k].eq_map == at && old[k].var_map == at + old[k].n_eq);
        if (old[k].n_eq != rp->n_eq || old[k].n_var != rp->n_var ||
            (rp->n_eq > 0 && memcmp(old[k].eq_map, rp->eq_map, rp->n_eq * sizeof *at) != 0) ||
            (rp->n_var > 0 && memcmp(old[k].var_map, rp->var_map, rp->n_var * sizeof *at) != 0))
            return false;
        at += rp->n_eq + rp->n_var;
    }
    return true;
}

/* r's split as the session's kept one (with its parts in s->last); none
 * without memory. old, old_maps (n_old parts): the split kept before,
 * taken (freed here); its maps' block serves again when r's are the same
 * (same_maps). */
static void keep_split(inc_session *s, const inc_result *r, inc__kept_part *old,
                       uint32_t *old_maps, size_t n_old)
{
    bool reuse = same_maps(r, old, n_old, old_maps);
    mdae_free(old);
    if (!reuse)
        mdae_free(old_maps);
    s->kept = mdae_malloc((r->n_parts + 1) * sizeof *s->kept);
    s->kept_maps = reuse ? old_maps
                         : mdae_malloc(((size_t)r->n_eq + r->n_var + 1) * sizeof *s->kept_maps);
    if (s->kept == NULL || s->kept_maps == NULL)
        return; /* freed by forget_last */
    uint32_t *at = s->kept_maps;
    for (size_t k = 0; k < r->n_parts; k++) {
        const rpart *rp = &r->parts[k];
        inc__kept_part *p = &s->kept[k];
        *p = (inc__kept_part){rp->n_eq, rp->n_var, at, at + rp->n_eq,
                              rp->part->model.equations, !rp->reused};
        if (!reuse) {
            memcpy(at, rp->eq_map, rp->n_eq * sizeof *at);
            memcpy(at + rp->n_eq, rp->var_map, rp->n_var * sizeof *at);
        }
        at += rp->n_eq + rp->n_var;
    }
    s->n_kept = r->n_parts;
}

/* r's parts as the session's last (forget_last), and its split; none
 * without memory. */
static void keep_last(inc_session *s, const inc_result *r, const mel_model *m)
{
    inc__kept_part *old = s->kept; /* taken: keep_split reads, then frees it */
    uint32_t *old_maps = s->kept_maps;
    size_t n_old = s->n_kept;
    s->kept = NULL;
    s->kept_maps = NULL;
    s->n_kept = 0;
    forget_last(s);
    s->last = mdae_malloc((r->n_parts + 1) * sizeof *s->last);
    if (s->last == NULL) {
        mdae_free(old);
        mdae_free(old_maps);
        return;
    }
    for (size_t k = 0; k < r->n_parts; k++) {
        s->last[k] = r->parts[k].part;
        s->last[k]->refs++;
    }
    s->n_last = r->n_parts;
    keep_split(s, r, old, old_maps, n_old);
    if (s->n_kept > 0)
        s->kept_model = m;
}

/* inc_analyze, with the graphs made (defer false) or left for
 * inc_result_graphs (true). */
static int analyze(inc_session *s, const mel_model *m, const sa_options *opt, inc_result **out,
                   mdae_diags *diags, bool defer)
{
    if (s == NULL || m == NULL || out == NULL) {
        if (s != NULL)
            s->since = NULL; /* for that call only, answered or not */
        return MDAE_E_INVAL;
    }
    analysis an = {.s = s, .m = m, .opt = opt, .diags = diags, .key = s->scratch,
                   .defer = defer};
    if (s->since != NULL && s->since == s->kept_model &&
        s->since->n_equations == m->n_equations && s->since->n_variables == m->n_variables)
        an.since = s->since;
    s->since = NULL; /* for this call only */
    s->scratch = (kbuf){0}; /* taken for the call, given back below */
    mdae_diags_init(&an.tmp);
    an.local = mdae_malloc(((size_t)m->n_variables + 1) * sizeof *an.local);
    an.r = mdae_calloc(1, sizeof *an.r);
    an.eq_hash = mdae_malloc(((size_t)m->n_equations + 1) * sizeof *an.eq_hash);
    an.var_hash = mdae_malloc(((size_t)m->n_variables + 1) * sizeof *an.var_hash);
    an.eq_same = mdae_malloc((size_t)m->n_equations + 1);
    an.var_same = mdae_malloc((size_t)m->n_variables + 1);
    an.pre_same = mdae_malloc((size_t)m->n_equations + 1);
    int rc = MDAE_E_NOMEM;
    if (an.local != NULL && an.r != NULL && an.eq_hash != NULL && an.var_hash != NULL &&
        an.eq_same != NULL && an.var_same != NULL && an.pre_same != NULL) {
        an.r->s = s;
        an.r->n_eq = m->n_equations;
        an.r->n_var = m->n_variables;
        an.r->n_modes = m->n_modes;
        rc = run_steps(&an);
    }
    if (rc == MDAE_OK) {
        add_stats(&s->total, &an.r->stats);
        keep_last(s, an.r, m);
    }
    hint_map_free(&an.hints);
    pm_clear(&an.seen);
    pm_clear(&an.memo);
    pm_clear(&an.gh);
    pm_clear(&an.eqm);
    mdae_free(an.eq_hash);
    mdae_free(an.var_hash);
    mdae_free(an.eq_same);
    mdae_free(an.var_same);
    mdae_free(an.pre_same);
    /* inc_analyze_offsets leaves the trim to the caller (inc_session_trim),
     * bounded here if it never comes */
    trim_cache(s, defer ? 2 * INC_KEEP_GENERATIONS : INC_KEEP_GENERATIONS);
    mdae_free(an.local);
    if (an.key.oom) { /* its cap is stuck at its len: start again */
        mdae_free(an.key.p);
        an.key = (kbuf){0};
    }
    s->scratch = an.key;
    mdae_diags_close(&an.tmp);
    if (rc < 0) {
        inc_result_free(an.r);
        return rc;
    }
    *out = an.r;
    return MDAE_OK;
}

void inc_session_since(inc_session *s, const mel_model *since)
{
    if (s != NULL)
        s->since = since;
}

int inc_analyze(inc_session *s, const mel_model *m, const sa_options *opt, inc_result **out,
                mdae_diags *diags)
{
    return analyze(s, m, opt, out, diags, false);
}

/* ---- Chains of seeds ------------------------------------------------------
 * A part analysed without its graph (inc_analyze_offsets) keeps the part
 * that seeded it (graph_seed), which keeps its own while it has no graph
 * either: a chain of at most INC_PENDING_MAX versions without graphs and
 * the first one with a graph (skip_chain), needed only if that part's
 * graph is asked for. An editor asks about its newest version only, but
 * every cached version kept its whole chain: at the brake's N = 10,000
 * about 50 MB a version, 0 to 3 versions beyond the cache's (h-mem18).
 * So the trim keeps the chains of the newest parts (those of the last
 * analysis that succeeded, s->last, and those the latest analysis used,
 * gen == s->gen, in case it failed after them), whose graphs are then
 * made exactly as before, and the other cached parts let go of their
 * seeds (drop_seed): such a part's graph, if ever asked for (an edit
 * undone finds it in the cache), is made without a seed's memo, the same
 * graph (cdg_build_seeded is exact), its blocks of a known identity with
 * their ids (the session's map), a new one's id maybe another number
 * (inc.h: ids follow the order graphs are made in). A chain is held by
 * its newest part: what is alive is the cache and the newest parts' seeds
 * beyond it (at most one version with a graph, as the chain's first
 * part is cached while younger than INC_KEEP_GENERATIONS analyses). */

/* Mark (on) or unmark every part of p's chain, p included. */
static void mark_chain(inc_part *p, bool on)
{
    for (; p != NULL; p = p->graph_seed)
        p->on_chain = on;
}

/* Mark or unmark the newest parts' chains (above). */
static void mark_newest(inc_session *s, bool on)
{
    for (size_t k = 0; k < s->n_last; k++)
        mark_chain(s->last[k], on);
    for (inc_part *p = s->parts; p != NULL; p = p->next)
        if (p->gen == s->gen)
            mark_chain(p, on);
}

/* Every cached part off the newest parts' chains lets go of its seed
 * (above). The marked parts stay alive: each is held by s->last, the
 * cache or the marked part it seeds, none of which is touched. */
static void cut_chains(inc_session *s)
{
    mark_newest(s, true);
    for (inc_part *p = s->parts; p != NULL; p = p->next)
        if (!p->on_chain)
            drop_seed(p);
    mark_newest(s, false);
}

void inc_session_trim(inc_session *s)
{
    if (s == NULL)
        return;
    trim_cache(s, INC_KEEP_GENERATIONS);
    cut_chains(s);
}

int inc_analyze_offsets(inc_session *s, const mel_model *m, const sa_options *opt,
                        inc_result **out, mdae_diags *diags)
{
    return analyze(s, m, opt, out, diags, true);
}

/* ---- One mode ----------------------------------------------------------- */

void inc_mode_view_close(inc_mode_view *v)
{
    if (v == NULL)
        return;
    sa_mode_view_close(&v->sa);
    mdae_free(v->blocks);
    mdae_free(v->edges);
    memset(v, 0, sizeof *v);
}

int inc_result_mode(const inc_result *r, const bool *mode, inc_mode_view *out)
{
    if (r == NULL || out == NULL || (mode == NULL && r->n_modes > 0) || !r->graphs)
        return MDAE_E_INVAL;
    inc_mode_view v = {0};
    sa_mode_view pv = {0};
    cdg_mode_view gv = {0};
    int rc = MDAE_E_NOMEM;
    size_t ne = r->n_eq + 1, nv = r->n_var + 1;
    v.sa.eq_active = mdae_calloc(ne, sizeof(bool));
    v.sa.var_active = mdae_calloc(nv, sizeof(bool));
    v.sa.c = mdae_calloc(ne, sizeof(int));
    v.sa.d = mdae_calloc(nv, sizeof(int));
    v.sa.overdetermined = mdae_calloc(ne, sizeof(bool));
    v.sa.underdetermined = mdae_calloc(nv, sizeof(bool));
    v.sa.matched_var = mdae_calloc(ne, sizeof(int));
    v.blocks = mdae_calloc(r->n_blocks + 1, sizeof *v.blocks);
    size_t cap_edges = 0;
    if (!v.sa.eq_active || !v.sa.var_active || !v.sa.c || !v.sa.d || !v.sa.overdetermined ||
        !v.sa.underdetermined || !v.sa.matched_var || !v.blocks)
        goto fail;
    /* Validity is the same in every part (all have all invariants; there
     * is always at least one part). */
    v.sa.valid = true;
    bool singular = false;
    for (size_t k = 0; k < r->n_parts; k++) {
        const rpart *rp = &r->parts[k];
        if ((rc = sa_result_mode(rp->part->res, mode, &pv)) < 0)
            goto fail;
        v.sa.valid = pv.valid;
        singular = singular || pv.singular;
        for (uint32_t q = 0; q < rp->n_eq; q++) {
            uint32_t i = rp->eq_map[q];
            v.sa.eq_active[i] = pv.eq_active[q];
            v.sa.c[i] = pv.c[q];
            v.sa.overdetermined[i] = pv.overdetermined[q];
            v.sa.matched_var[i] = pv.matched_var[q] < 0 ? -1 : (int)rp->var_map[pv.matched_var[q]];
        }
        for (uint32_t q = 0; q < rp->n_var; q++) {
            uint32_t j = rp->var_map[q];
            v.sa.var_active[j] = pv.var_active[q];
            v.sa.d[j] = pv.d[q];
            v.sa.underdetermined[j] = pv.underdetermined[q];
            /* A part without equations: sa_analyze reports it singular
             * where its variable is active but (as of this writing) not the
             * variable as underdetermined; by definition it is (the empty
             * matching is maximum and leaves it unmatched). */
            if (rp->n_eq == 0)
                v.sa.underdetermined[j] = pv.singular && pv.var_active[q];
        }
        sa_mode_view_close(&pv);
    }
    v.sa.singular = singular;
    if (singular || !v.sa.valid) {
        /* Offsets and matchings exist only where every part is nonsingular. */
        for (uint32_t i = 0; i < r->n_eq; i++)
            v.sa.c[i] = v.sa.matched_var[i] = -1;
        for (uint32_t j = 0; j < r->n_var; j++)
            v.sa.d[j] = -1;
    }
    if (v.sa.valid && !singular) {
        for (size_t k = 0; k < r->n_parts; k++) {
            const rpart *rp = &r->parts[k];
            if ((rc = cdg_graph_mode(rp->part->graph, mode, &gv)) < 0)
                goto fail;
            for (size_t q = 0; q < gv.n_blocks; q++)
                v.blocks[v.n_blocks++] = rp->ids[gv.blocks[q]];
            if (v.n_edges + gv.n_edges > cap_edges) {
                size_t cap = (cap_edges + gv.n_edges) * 2 + 8;
                uint32_t *e = mdae_realloc(v.edges, 2 * cap * sizeof *e);
                if (e == NULL) {
                    rc = MDAE_E_NOMEM;
                    goto fail;
                }
                v.edges = e;
                cap_edges = cap;
            }
            for (size_t q = 0; q < gv.n_edges; q++) {
                v.edges[2 * v.n_edges] = rp->ids[gv.edges[2 * q]];
                v.edges[2 * v.n_edges + 1] = rp->ids[gv.edges[2 * q + 1]];
                v.n_edges++;
            }
            cdg_mode_view_close(&gv);
        }
    }
    *out = v;
    return MDAE_OK;
fail:
    sa_mode_view_close(&pv);
    cdg_mode_view_close(&gv);
    inc_mode_view_close(&v);
    return rc;
}
