/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/sa_memo.c -- the blocks' solutions of one analysis, and the
 * dependency graph's forms of its union-SCCs (cdg_build.c), kept with its
 * result for the next version's (issue 16: an edit re-solves only the
 * blocks it touched).
 *
 * What a block's solution is a function of. sa_blocks.c solves a block from
 * its sub-result alone: its equations' and variables' activity, its edges
 * (which rows and columns they join, which BDD variable each is, their
 * activity and weights), the order of its rows, and its valid modes (kept
 * beside the key: below). Every
 * one of these is a BDD node or an integer; a BDD node of BuDDy's one table
 * is a Boolean function of the variables' INDICES, canonical in their
 * level order. The solution (the chosen matching, the lexicographically
 * smallest in that order; the nonsingular modes; the singular modes and a
 * maximum matching in each) is again a function of the indices, whatever
 * the indices mean in either model. So a block whose key -- these integers
 * and nodes -- is equal to a block solved before has that block's solution,
 * bit for bit, provided that the level order is the same: sifting
 * (sa_config.dynamic_reorder) moves levels, so nothing is kept or found
 * while it is on, and a memo is only read in the layout epoch it was made
 * in (sa__layout_epoch).
 *
 * The valid modes are not part of the key but kept beside it: every part of
 * a solution is defined mode by mode (the chosen matching of a mode is the
 * smallest optimal one of that mode's graph; a mode is nonsingular or not
 * by its graph alone), so the solution in fewer valid modes is the kept one
 * restricted to them (sa_blocks.c, reuse_block). The seeded rounds of
 * sa_tight.c solve the same blocks again in the modes the first round left:
 * the brake's guard flipped, 304 of them.
 *
 * The dependency graph's union-SCCs, and its edges' guards, are kept the
 * same way (cdg_build.c says what their keys hold), under other tags (the
 * first integer of a key: SA_BMEMO_*).
 *
 * Why the two versions meet: sa_encode.c lays out variables row by row in
 * declaration order, so an edit that keeps the model's equations and
 * edges (a weight, a guard) keeps every index, and the blocks it does not
 * touch have the same nodes. Keys and values are referenced by the memo,
 * so no node of a key is freed and reused for another function while the
 * memo lives.
 */
#include "sa_int.h"

#include <string.h>

_Static_assert(sizeof(BDD) == sizeof(int32_t), "an entry's nodes are stored as its words");

/* An entry, shared by the memos that hold it (a version's memo takes the
 * entries it found in its hint's: refs). */
typedef struct bentry {
    size_t refs;
    uint64_t hash;
    int32_t *shape; /* n_shape integers */
    BDD *funs;      /* n_funs nodes, referenced */
    BDD *val;       /* n_val nodes, referenced */
    int32_t *data;  /* n_data integers */
    BDD modes;      /* the valid modes it holds in, referenced */
    size_t n_shape, n_funs, n_val, n_data;
} bentry;

/* An entry's own size, in words, counted against SA_BMEMO_MAX_INTS with
 * its arrays (the table's slot too). */
#define ENTRY_WORDS ((sizeof(bentry) + 3 * sizeof(size_t)) / sizeof(int32_t))

/* A slot of the hash table: the entry's index + 1 into e (0: empty) and
 * the high half of its hash, so that a probe compares hashes in the table
 * and reads an entry (scattered over the heap: a cache miss each) only
 * when the halves agree. */
typedef struct bslot {
    uint32_t idx1;
    uint32_t tag;
} bslot;

/* The high half of a hash: the slot is chosen by the low bits. */
static uint32_t hash_tag(uint64_t h)
{
    return (uint32_t)(h >> 32);
}

struct sa__bmemo {
    unsigned long epoch; /* sa__layout_epoch when it was made */
    bentry **e;
    size_t n, cap; /* n < UINT32_MAX (sa__bmemo_add) */
    bslot *htab; /* open addressing */
    size_t hcap;
    size_t ints; /* integers and nodes held, all entries */
    size_t max_ints; /* the bound on ints (sa_int.h) */
};

sa__bmemo *sa__bmemo_new(size_t n_eq)
{
    sa__bmemo *m = mdae_calloc(1, sizeof *m);
    if (m != NULL) {
        m->epoch = sa__layout_epoch();
        m->max_ints = SA_BMEMO_MAX_INTS;
        if (n_eq < SIZE_MAX / SA_BMEMO_INTS_PER_EQ && n_eq * SA_BMEMO_INTS_PER_EQ > m->max_ints)
            m->max_ints = n_eq * SA_BMEMO_INTS_PER_EQ;
    }
    return m;
}

static void entry_unref(bentry *x)
{
    if (--x->refs > 0)
        return;
    if (sa__running()) {
        sa__delref_nodes(x->funs, x->n_funs);
        sa__delref_nodes(x->val, x->n_val);
        bdd_delref(x->modes);
    }
    mdae_free(x); /* its arrays with it (new_entry) */
}

void sa__bmemo_free(sa__bmemo *m)
{
    if (m == NULL)
        return;
    for (size_t k = 0; k < m->n; k++)
        entry_unref(m->e[k]);
    mdae_free(m->e);
    mdae_free(m->htab);
    mdae_free(m);
}


static uint64_t key_hash(const sa__bkey *k)
{
    uint64_t h = mdae_hash_words(MDAE_HASH_SEED, k->shape, k->n_shape * sizeof *k->shape);
    return mdae_hash_words(h, k->funs, k->n_funs * sizeof *k->funs);
}

static bool same_key(const bentry *x, const sa__bkey *k, uint64_t h)
{
    return x->hash == h && x->n_shape == k->n_shape && x->n_funs == k->n_funs &&
           memcmp(x->shape, k->shape, k->n_shape * sizeof *k->shape) == 0 &&
           memcmp(x->funs, k->funs, k->n_funs * sizeof *k->funs) == 0;
}

static bool readable(const sa__bmemo *m)
{
    return m != NULL && m->n > 0 && !sa__sifting() && m->epoch == sa__layout_epoch();
}

static bentry *find(const sa__bmemo *m, const sa__bkey *k, uint64_t h)
{
    uint32_t tag = hash_tag(h);
    for (size_t s = h & (m->hcap - 1); m->htab[s].idx1 != 0; s = (s + 1) & (m->hcap - 1)) {
        if (m->htab[s].tag != tag)
            continue; /* another hash: not this key */
        bentry *x = m->e[m->htab[s].idx1 - 1];
        if (same_key(x, k, h))
            return x;
    }
    return NULL;
}

bool sa__bmemo_find(const sa__bmemo *m, const sa__bkey *k, sa__mval *out)
{
    if (!readable(m))
        return false;
    bentry *x = find(m, k, key_hash(k));
    if (x == NULL)
        return false;
    *out = (sa__mval){x->val, x->n_val, x->data, x->n_data, x->modes, x};
    return true;
}

static void grow_table(sa_ctx *c, sa__bmemo *m)
{
    size_t cap = m->hcap ? 2 * m->hcap : 64;
    bslot *t = mdae_calloc(cap, sizeof *t);
    if (t == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    for (size_t k = 0; k < m->n; k++) {
        uint64_t h = m->e[k]->hash;
        size_t s = h & (cap - 1);
        while (t[s].idx1 != 0)
            s = (s + 1) & (cap - 1);
        t[s] = (bslot){(uint32_t)(k + 1), hash_tag(h)};
    }
    mdae_free(m->htab);
    m->htab = t;
    m->hcap = cap;
}

/* Room in m for one more entry (fails only for memory). */
static void reserve(sa_ctx *c, sa__bmemo *m)
{
    if (2 * (m->n + 1) > m->hcap)
        grow_table(c, m);
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 32;
        bentry **e = mdae_realloc(m->e, cap * sizeof *e);
        if (e == NULL)
            sa__fail(c, MDAE_E_NOMEM);
        m->e = e;
        m->cap = cap;
    }
}

/* x into m, whose room was reserved (its reference taken by the caller). */
static void insert(sa__bmemo *m, bentry *x)
{
    size_t s = x->hash & (m->hcap - 1);
    while (m->htab[s].idx1 != 0)
        s = (s + 1) & (m->hcap - 1);
    m->e[m->n] = x;
    MDAE_ASSERT(m->n < UINT32_MAX);
    m->htab[s] = (bslot){(uint32_t)++m->n, hash_tag(x->hash)};
    m->ints += x->n_shape + x->n_funs + x->n_val + x->n_data + ENTRY_WORDS;
}

/* A new entry, its arrays in the same allocation (a memo of the dependency
 * graph's edges holds thousands of entries of three words). */
static bentry *new_entry(const sa__bkey *k, const sa__mval *v, uint64_t h)
{
    size_t words = k->n_shape + k->n_funs + v->n_f + v->n_d;
    bentry *x = mdae_malloc(sizeof *x + words * sizeof(int32_t));
    if (x == NULL)
        return NULL;
    int32_t *w = (int32_t *)(x + 1);
    *x = (bentry){1, h, w, (BDD *)(w + k->n_shape), (BDD *)(w + k->n_shape + k->n_funs),
                  w + k->n_shape + k->n_funs + v->n_f, bddfalse, k->n_shape, k->n_funs,
                  v->n_f, v->n_d};
    if (k->n_shape > 0)
        memcpy(x->shape, k->shape, k->n_shape * sizeof *k->shape);
    for (size_t a = 0; a < x->n_funs; a++)
        x->funs[a] = bdd_addref(k->funs[a]);
    for (size_t a = 0; a < x->n_val; a++)
        x->val[a] = bdd_addref(v->f[a]);
    if (v->n_d > 0)
        memcpy(x->data, v->d, v->n_d * sizeof *v->d);
    x->modes = bdd_addref(v->modes);
    return x;
}

void sa__bmemo_add(sa_ctx *c, sa__bmemo *m, const sa__bkey *k, const sa__mval *v)
{
    if (m == NULL || sa__sifting() || m->epoch != sa__layout_epoch())
        return;
    bentry *x = v->entry;
    size_t ints = k->n_shape + k->n_funs + v->n_f + v->n_d + ENTRY_WORDS;
    if (m->ints + ints > m->max_ints || m->n + 1 >= UINT32_MAX)
        return; /* full: the rest is solved again next time */
    uint64_t h = x != NULL ? x->hash : key_hash(k);
    if (m->n > 0 && find(m, k, h) != NULL)
        return;
    reserve(c, m);
    if (x != NULL)
        x->refs++; /* the same key and values: shared */
    else if ((x = new_entry(k, v, h)) == NULL)
        sa__fail(c, MDAE_E_NOMEM);
    insert(m, x);
}
