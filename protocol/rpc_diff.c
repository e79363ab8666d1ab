/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_diff.c -- stable block ids put into a result, and
 * differences between analysis results; rpc_diff.h gives the shapes and
 * keys. Moved here from the worker
 * process (issue 12), where a failed allocation ended the process: here it
 * is MDAE_E_NOMEM like everywhere in protocol/.
 *
 * Linear in the results: each set's keys are computed once and indexed
 * (keyed_init), blocks sorted by qsort. Digests (issue 40 item 5) keep a
 * key and a hash per item instead of the tree, and a difference from a
 * digest copies only the items it lists.
 */
#include "rpc_diff.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc_json.h"
#include "rpc_message.h"

static double id_of(const cJSON *b)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(b, "id");
    return cJSON_IsNumber(id) ? id->valuedouble : 0;
}

/* The number id as an index below n, or -1. */
static long index_of(const cJSON *id, size_t n)
{
    if (!cJSON_IsNumber(id) || id->valuedouble < 0 || id->valuedouble >= (double)n ||
        id->valuedouble != (double)(long)id->valuedouble)
        return -1;
    return (long)id->valuedouble;
}

/* A block and its place, to sort by (id, place): the same order as a
 * stable sort by id. */
typedef struct placed {
    double id;
    size_t at;
    cJSON *item;
} placed;

static int placed_cmp(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Sort the array's members by id (n log n: a selection sort was a tenth of
 * a second at 600 blocks). False on OOM, the array untouched. */
static bool sort_by_id(cJSON *arr)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n < 2)
        return true;
    placed *v = mdae_malloc(n * sizeof *v);
    if (v == NULL)
        return false;
    size_t k = 0;
    cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        v[k] = (placed){id_of(x), k, x};
        k++;
    }
    qsort(v, n, sizeof *v, placed_cmp);
    for (k = 0; k < n; k++)
        cJSON_DetachItemViaPointer(arr, v[k].item);
    for (k = 0; k < n; k++)
        cJSON_AddItemToArray(arr, v[k].item); /* cannot fail: not a reference */
    mdae_free(v);
    return true;
}

int rpc_block_ids_relabel(const cJSON *analysis, const uint32_t *ids, size_t n, cJSON **out)
{
    rpc_message_init();
    cJSON *res = cJSON_Duplicate(analysis, true);
    if (res == NULL)
        return MDAE_E_NOMEM;
    int rc = MDAE_E_INVAL;
    cJSON *blocks = cJSON_GetObjectItemCaseSensitive(res, "blocks");
    cJSON *b;
    cJSON_ArrayForEach(b, blocks)
    {
        cJSON *id = cJSON_GetObjectItemCaseSensitive(b, "id");
        long k = index_of(id, n);
        if (k < 0)
            goto fail;
        cJSON_SetNumberValue(id, ids[k]);
    }
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(res, "edges"))
    {
        cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "from");
        cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "to");
        long kf = index_of(f, n), kt = index_of(t, n);
        if (kf < 0 || kt < 0)
            goto fail;
        cJSON_SetNumberValue(f, ids[kf]);
        cJSON_SetNumberValue(t, ids[kt]);
    }
    if (blocks != NULL && !sort_by_id(blocks)) {
        rc = MDAE_E_NOMEM;
        goto fail;
    }
    *out = res;
    return MDAE_OK;
fail:
    cJSON_Delete(res);
    return rc;
}

/* ---- Keyed sets ------------------------------------------------------------ */

/* A set member's key, as a new string (NULL on OOM). */
typedef char *(*key_fn)(const cJSON *item);

static char *key_whole(const cJSON *x)
{
    char *s = cJSON_PrintUnformatted(x);
    char *k = s ? mdae_strdup(s) : NULL;
    cJSON_free(s);
    return k;
}

/* A number as a key, written at out (32 bytes): as an integer where it is
 * one (every key of a result: printf's floating-point path was most of a
 * difference's time), else as %.17g. Returns its length. */
static size_t put_num_key(char *out, double v)
{
    if (v >= -9e15 && v <= 9e15 && v == (double)(long long)v) {
        size_t n = mdae_put_int(out, (long long)v);
        out[n] = '\0';
        return n;
    }
    int n = snprintf(out, 32, "%.17g", v); /* at most 24 characters */
    if (n <= 0 || n >= 32) {
        out[0] = '\0';
        return 0;
    }
    return (size_t)n;
}

static char *key_id(const cJSON *x)
{
    char k[32];
    put_num_key(k, id_of(x));
    return mdae_strdup(k);
}

static double num_of(const cJSON *x, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, name);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static char *key_edge(const cJSON *x)
{
    char k[64];
    size_t n = put_num_key(k, num_of(x, "from"));
    k[n] = '>';
    put_num_key(k + n + 1, num_of(x, "to"));
    return mdae_strdup(k);
}

static const char *name_of(const cJSON *x)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(x, "name");
    return cJSON_IsString(n) ? n->valuestring : "";
}

static char *key_name(const cJSON *x) { return mdae_strdup(name_of(x)); }

/* A keyed set: each member's key computed once, and an index of the keys
 * (open addressing; a key's first member only, as a search from the front
 * finds it). Linear in the set: results hold thousands of members (the
 * brake at N = 100: 1,203 equations), and a search per member was
 * quadratic (0.7 s a difference). */
typedef struct keyed {
    const cJSON **item;
    char **key;
    size_t n;
    size_t *slot; /* index + 1 into item, 0 empty; cap a power of two */
    size_t cap;
} keyed;

static void keyed_free(keyed *s)
{
    for (size_t k = 0; k < s->n; k++)
        mdae_free(s->key[k]);
    mdae_free(s->key);
    mdae_free(s->item);
    mdae_free(s->slot);
}

/* The slot of key k: where it is, or the empty one where it would go. */
static size_t keyed_slot(const keyed *s, const char *k)
{
    size_t at = (size_t)mdae_hash_str(k) & (s->cap - 1);
    while (s->slot[at] != 0 && strcmp(s->key[s->slot[at] - 1], k) != 0)
        at = (at + 1) & (s->cap - 1);
    return at;
}

/* The members of arr (an array, or NULL: empty) keyed by key. False on
 * OOM (*s freed). */
static bool keyed_init(keyed *s, const cJSON *arr, key_fn key)
{
    size_t n = cJSON_IsArray(arr) ? (size_t)cJSON_GetArraySize(arr) : 0;
    *s = (keyed){NULL, NULL, 0, NULL, 2};
    while (s->cap < 2 * n)
        s->cap *= 2;
    s->item = mdae_malloc((n + 1) * sizeof *s->item);
    s->key = mdae_malloc((n + 1) * sizeof *s->key);
    s->slot = mdae_calloc(s->cap, sizeof *s->slot);
    if (s->item == NULL || s->key == NULL || s->slot == NULL) {
        keyed_free(s);
        return false;
    }
    for (const cJSON *x = n > 0 ? arr->child : NULL; x != NULL; x = x->next) {
        char *k = key(x);
        if (k == NULL) {
            keyed_free(s);
            return false;
        }
        s->item[s->n] = x;
        s->key[s->n++] = k;
        size_t at = keyed_slot(s, k);
        if (s->slot[at] == 0)
            s->slot[at] = s->n;
    }
    return true;
}

/* The first member of s with key k, NULL if none. */
static const cJSON *keyed_find(const keyed *s, const char *k)
{
    size_t at = keyed_slot(s, k);
    return s->slot[at] == 0 ? NULL : s->item[s->slot[at] - 1];
}

static cJSON *rm_id(const cJSON *x) { return cJSON_CreateNumber(id_of(x)); }

static cJSON *rm_edge(const cJSON *x)
{
    cJSON *e = cJSON_CreateObject();
    if (e != NULL && (!cJSON_AddNumberToObject(e, "from", num_of(x, "from")) ||
                      !cJSON_AddNumberToObject(e, "to", num_of(x, "to")))) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

static cJSON *rm_name(const cJSON *x) { return cJSON_CreateString(name_of(x)); }

static cJSON *rm_whole(const cJSON *x) { return cJSON_Duplicate(x, true); }

/* Add item (new, may be NULL) to arr; false on OOM. */
static bool push(cJSON *arr, cJSON *item)
{
    if (item == NULL)
        return false;
    if (!cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

/* True only if a and b are equal, walked member by member in parallel:
 * cJSON_Compare searches each member of an object in the other (and then
 * the other way), where two versions of a result list them in the same
 * order. False says nothing: see same_json. Bounded recursion: the depth
 * of a result. */
static bool equal_in_order(const cJSON *a, const cJSON *b)
{
    if ((a->type & 0xFF) != (b->type & 0xFF))
        return false;
    switch (a->type & 0xFF) {
    case cJSON_False:
    case cJSON_True:
    case cJSON_NULL:
        return true;
    case cJSON_Number:
        return a->valuedouble == b->valuedouble;
    case cJSON_String:
    case cJSON_Raw:
        return a->valuestring != NULL && b->valuestring != NULL &&
               strcmp(a->valuestring, b->valuestring) == 0;
    case cJSON_Array:
    case cJSON_Object:
        break;
    default:
        return false;
    }
    bool obj = (a->type & 0xFF) == cJSON_Object;
    const cJSON *x = a->child, *y = b->child;
    for (; x != NULL && y != NULL; x = x->next, y = y->next) {
        bool same_key = !obj || (x->string != NULL && y->string != NULL &&
                                 strcmp(x->string, y->string) == 0);
        if (!same_key || !equal_in_order(x, y))
            return false;
    }
    return x == NULL && y == NULL;
}

/* cJSON_Compare(a, b, true), deciding most pairs without it. */
static bool same_json(const cJSON *a, const cJSON *b)
{
    return equal_in_order(a, b) || cJSON_Compare(a, b, true);
}

/* {"added", "removed", "changed"} of two keyed sets. removed_item builds
 * what "removed" lists for an old item (its key as JSON). NULL on OOM. */
static cJSON *diff_set(const cJSON *old, const cJSON *neu, key_fn key, bool with_changed,
                       cJSON *(*removed_item)(const cJSON *x))
{
    keyed ko, kn;
    if (!keyed_init(&ko, old, key))
        return NULL;
    if (!keyed_init(&kn, neu, key)) {
        keyed_free(&ko);
        return NULL;
    }
    cJSON *d = cJSON_CreateObject();
    cJSON *add = cJSON_AddArrayToObject(d, "added");
    cJSON *rem = cJSON_AddArrayToObject(d, "removed");
    cJSON *chg = with_changed ? cJSON_AddArrayToObject(d, "changed") : NULL;
    if (d == NULL || add == NULL || rem == NULL || (with_changed && chg == NULL))
        goto nomem;
    for (size_t k = 0; k < kn.n; k++) {
        const cJSON *x = kn.item[k], *o = keyed_find(&ko, kn.key[k]);
        if (o == NULL ? !push(add, cJSON_Duplicate(x, true))
                      : with_changed && !same_json(o, x) &&
                            !push(chg, cJSON_Duplicate(x, true)))
            goto nomem;
    }
    for (size_t k = 0; k < ko.n; k++)
        if (keyed_find(&kn, ko.key[k]) == NULL && !push(rem, removed_item(ko.item[k])))
            goto nomem;
    keyed_free(&ko);
    keyed_free(&kn);
    return d;
nomem:
    keyed_free(&ko);
    keyed_free(&kn);
    cJSON_Delete(d);
    return NULL;
}

/* The members diffed as keyed sets; the others are compared whole. */
static const struct {
    const char *member;
    key_fn key;
    bool changed;
    cJSON *(*rm)(const cJSON *);
} sets[] = {{"blocks", key_id, true, rm_id},
            {"edges", key_edge, true, rm_edge},
            {"equations", key_name, true, rm_name},
            {"variables", key_name, true, rm_name},
            {"diagnostics", key_whole, false, rm_whole}};
#define N_SETS (sizeof sets / sizeof sets[0])

static bool is_set(const char *member)
{
    for (size_t k = 0; k < N_SETS; k++)
        if (strcmp(member, sets[k].member) == 0)
            return true;
    return false;
}

/* Members of old that neu no longer has (a "leftOut" gone once the text
 * parses again), as null in members: a client applying the difference
 * deletes them. The sets are diffed apart. False on OOM. */
static bool add_removed_members(cJSON *members, const cJSON *old, const cJSON *neu)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, old)
    {
        if (o->string == NULL || is_set(o->string) ||
            cJSON_GetObjectItemCaseSensitive(neu, o->string) != NULL)
            continue;
        if (cJSON_AddNullToObject(members, o->string) == NULL)
            return false;
    }
    return true;
}

int rpc_diff_analysis(const cJSON *old, const cJSON *neu, long since, long version, cJSON **out)
{
    rpc_message_init();
    cJSON *d = cJSON_CreateObject();
    if (d == NULL || !cJSON_AddNumberToObject(d, "since", (double)since) ||
        !cJSON_AddNumberToObject(d, "version", (double)version))
        goto nomem;
    for (size_t k = 0; k < N_SETS; k++) {
        cJSON *s = diff_set(cJSON_GetObjectItemCaseSensitive(old, sets[k].member),
                            cJSON_GetObjectItemCaseSensitive(neu, sets[k].member), sets[k].key,
                            sets[k].changed, sets[k].rm);
        if (s == NULL)
            goto nomem;
        if (!cJSON_AddItemToObject(d, sets[k].member, s)) {
            cJSON_Delete(s);
            goto nomem;
        }
    }
    cJSON *members = cJSON_AddObjectToObject(d, "members");
    if (members == NULL)
        goto nomem;
    const cJSON *x;
    cJSON_ArrayForEach(x, neu)
    {
        if (is_set(x->string))
            continue;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(old, x->string);
        if (o == NULL || !same_json(o, x)) {
            cJSON *c = cJSON_Duplicate(x, true);
            if (c == NULL || !cJSON_AddItemToObject(members, x->string, c)) {
                cJSON_Delete(c);
                goto nomem;
            }
        }
    }
    if (!add_removed_members(members, old, neu))
        goto nomem;
    *out = d;
    return MDAE_OK;
nomem:
    cJSON_Delete(d);
    return MDAE_E_NOMEM;
}

/* ---- Digests (rpc_diff.h) ------------------------------------------------------ */

enum { DG_BLOCKS, DG_EDGES, DG_EQUATIONS, DG_VARIABLES, DG_N };
static const char *const dg_member[DG_N] = {"blocks", "edges", "equations", "variables"};

/* A set member: its key (blocks: the stable id in a; edges: from, to in a,
 * b; equations and variables: name) and the hash of its JSON. */
typedef struct dg_entry {
    double a, b;
    const char *name;  /* in the digest's pool */
    uint64_t key;      /* the key's hash */
    uint64_t hash;     /* the item's, relabelled */
    /* Blocks and edges: dg_object's sum over the members but those
     * relabelled and a block's "equations" (dg_sum_but), and how many
     * members (all) it has: what a later digest takes for the item
     * rpc_json_analysis_taking moved unchanged (rpc_digest_build_reusing). */
    uint64_t rest;
    uint64_t members;
    uint64_t bodies;   /* blocks: dg_pair of "equations" (0: none) */
    size_t place;      /* blocks: the place in the analysis's array */
    uint32_t ca, cb;   /* blocks: the canonical id in ca; edges: the canonical
                          ends: what a taken item's members hold */
    bool keyed;        /* key set (taken from an older digest) */
    const cJSON *item; /* read only while the digest is live */
} dg_entry;

/* The index of a set's keys: per key, index + 1 of its first entry (0
 * empty; cap a power of two). Shared (refs) by the digests whose set has
 * the same keys at the same places (a digest built from the one before
 * where an edit changed no name, id or ends: issue 40 item 5). */
typedef struct dg_index {
    size_t refs;
    size_t cap;
    bool dup; /* some key has more than one entry */
    size_t slot[];
} dg_index;

typedef struct dg_set {
    dg_entry *e;
    size_t n;
    dg_index *idx; /* a reference */
} dg_set;

/* Names of equations and variables, NUL-terminated one after the other,
 * shared (refs) by the digests whose entries point into them: a digest
 * built from the one before points at that one's names for the items it
 * took, and keeps them when that digest goes (keep_version's eviction in
 * the worker). */
typedef struct dg_pool {
    size_t refs;
    char text[];
} dg_pool;

/* A digest shares at most this many pools: one more, and its names are
 * copied into one pool of its own (a long chain of edits then frees the
 * pools of the versions it no longer names). */
#define DG_MAX_POOLS 16

typedef struct dg_other { /* a member that is not a set */
    char *name;           /* owned */
    uint64_t hash;
} dg_other;

struct rpc_digest {
    dg_set set[DG_N];
    dg_pool **pools; /* the names' pools, n_pools references */
    size_t n_pools;
    dg_other *other;
    size_t n_other;
    cJSON *diags_copy;     /* the "diagnostics" member, copied (NULL: none) */
    const cJSON *analysis; /* live only */
};

static uint64_t dg_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static uint64_t dg_str(const char *s)
{
    return s == NULL ? 0x2545f4914f6cdd1dull : dg_mix(mdae_hash_str(s));
}

/* A number's hash: -0 as 0, since they compare equal. */
static uint64_t dg_number(double v)
{
    if (v == 0)
        v = 0;
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return dg_mix(dg_mix(cJSON_Number + 0x9e3779b97f4a7c15ull) ^ u);
}

static uint64_t dg_json(const cJSON *x);

/* dg_pair with dg_str(key) given: the relabelled members' keys are
 * hashed once a digest, not once an item. */
static uint64_t dg_pair_h(uint64_t key_hash, uint64_t value)
{
    return dg_mix(key_hash ^ (value * 0x9e3779b97f4a7c15ull));
}

static uint64_t dg_pair(const char *key, uint64_t value)
{
    return dg_pair_h(dg_str(key), value);
}

/* x's first member named k, trying first its first member and the one
 * after (where a result puts "id", "name", "from" and "to"): the same as
 * cJSON_GetObjectItemCaseSensitive, without its call per look-up. */
static const cJSON *dg_member_named(const cJSON *x, const char *k)
{
    const cJSON *c = x->child;
    if (c != NULL && c->string != NULL && strcmp(c->string, k) == 0)
        return c;
    if (c != NULL && c->next != NULL && c->next->string != NULL &&
        strcmp(c->next->string, k) == 0)
        return c->next;
    return cJSON_GetObjectItemCaseSensitive(x, k);
}

static const char *dg_name_of(const cJSON *x)
{
    const cJSON *n = dg_member_named(x, "name");
    return cJSON_IsString(n) ? n->valuestring : "";
}

/* An object's hash from the sum of its members' dg_pair and their count. */
static uint64_t dg_finish(uint64_t sum, uint64_t n)
{
    return dg_mix(dg_mix(cJSON_Object + 0x9e3779b97f4a7c15ull) ^ sum) + n;
}

static bool is_named(const cJSON *c, const char *k)
{
    return k != NULL && c->string != NULL && strcmp(c->string, k) == 0;
}

/* The sum of dg_pair over x's members but the first named k1 and the
 * first named k2 (NULL: none), and in *n how many members x has. */
static uint64_t dg_sum_but(const cJSON *x, const char *k1, const char *k2, uint64_t *n)
{
    uint64_t sum = 0, k = 0;
    bool done1 = k1 == NULL, done2 = k2 == NULL;
    for (const cJSON *c = x->child; c != NULL; c = c->next, k++) {
        if (!done1 && is_named(c, k1))
            done1 = true;
        else if (!done2 && is_named(c, k2))
            done2 = true;
        else
            sum += dg_pair(c->string, dg_json(c));
    }
    *n = k;
    return sum;
}

/* An object's hash, the members in any order (as cJSON_Compare). */
static uint64_t dg_object(const cJSON *x)
{
    uint64_t n = 0, sum = dg_sum_but(x, NULL, NULL, &n);
    return dg_finish(sum, n);
}

/* x's hash, equal for values cJSON_Compare(a, b, true) finds equal.
 * Bounded recursion: the depth of a result. */
static uint64_t dg_json(const cJSON *x)
{
    int t = x->type & 0xFF;
    uint64_t h = dg_mix((uint64_t)t + 0x9e3779b97f4a7c15ull);
    switch (t) {
    case cJSON_Number:
        return dg_number(x->valuedouble);
    case cJSON_String:
    case cJSON_Raw:
        return dg_mix(h ^ dg_str(x->valuestring));
    case cJSON_Array: {
        uint64_t n = 0;
        for (const cJSON *c = x->child; c != NULL; c = c->next, n++)
            h = dg_mix(h + dg_json(c));
        return dg_mix(h ^ n);
    }
    case cJSON_Object:
        return dg_object(x);
    default:
        return h;
    }
}

static uint64_t dg_key(int set, const dg_entry *e)
{
    switch (set) {
    case DG_BLOCKS:
        return dg_number(e->a);
    case DG_EDGES:
        return dg_mix(dg_number(e->a) ^ (dg_number(e->b) * 31));
    default:
        return dg_str(e->name);
    }
}

static bool dg_same_key(int set, const dg_entry *x, const dg_entry *y)
{
    if (x->key != y->key)
        return false;
    switch (set) {
    case DG_BLOCKS:
        return x->a == y->a;
    case DG_EDGES:
        return x->a == y->a && x->b == y->b;
    default: /* a name shared with the digest before: the same pointer */
        return x->name == y->name || strcmp(x->name, y->name) == 0;
    }
}

/* The slot of e's key in s: where its first entry is, or the empty one. */
static size_t dg_slot(const dg_set *s, int set, const dg_entry *e)
{
    const dg_index *ix = s->idx;
    size_t at = (size_t)e->key & (ix->cap - 1);
    while (ix->slot[at] != 0 && !dg_same_key(set, &s->e[ix->slot[at] - 1], e))
        at = (at + 1) & (ix->cap - 1);
    return at;
}

static const dg_entry *dg_find(const dg_set *s, int set, const dg_entry *e)
{
    size_t at = dg_slot(s, set, e);
    return s->idx->slot[at] == 0 ? NULL : &s->e[s->idx->slot[at] - 1];
}

/* dg_find, trying first the entry after the one found last (*cursor):
 * two versions of a result list their items mostly in the same order, so
 * most look-ups are a comparison in sequence instead of a probe of the
 * index at a random place (a cache miss each). Only where every key has
 * one entry, else the index's first is the answer. */
static const dg_entry *dg_find_near(const dg_set *s, int set, const dg_entry *e, size_t *cursor)
{
    const dg_entry *o = NULL;
    if (!s->idx->dup && *cursor < s->n && dg_same_key(set, &s->e[*cursor], e))
        o = &s->e[*cursor];
    else
        o = dg_find(s, set, e);
    if (o != NULL)
        *cursor = (size_t)(o - s->e) + 1;
    return o;
}

static void dg_index_drop(dg_index *ix)
{
    if (ix != NULL && --ix->refs == 0)
        mdae_free(ix);
}

/* Does s have old's keys at the same places (then old's index is s's)? */
static bool dg_same_keys(const dg_set *s, const dg_set *old, int set)
{
    if (old->idx == NULL || s->n != old->n)
        return false;
    for (size_t k = 0; k < s->n; k++)
        if (!dg_same_key(set, &s->e[k], &old->e[k]))
            return false;
    return true;
}

/* Index s's entries (their keys computed first): old's index where s has
 * its keys at the same places (old NULL: none), else one of its own.
 * False on OOM. */
static bool dg_index_set(dg_set *s, int set, const dg_set *old)
{
    for (size_t k = 0; k < s->n; k++)
        if (!s->e[k].keyed)
            s->e[k].key = dg_key(set, &s->e[k]);
    if (old != NULL && dg_same_keys(s, old, set)) {
        s->idx = old->idx;
        s->idx->refs++;
        return true;
    }
    size_t cap = 2;
    while (cap < 2 * s->n)
        cap *= 2;
    s->idx = mdae_calloc(1, sizeof *s->idx + cap * sizeof s->idx->slot[0]);
    if (s->idx == NULL)
        return false;
    *s->idx = (dg_index){.refs = 1, .cap = cap};
    for (size_t k = 0; k < s->n; k++) {
        size_t at = dg_slot(s, set, &s->e[k]);
        if (s->idx->slot[at] == 0)
            s->idx->slot[at] = k + 1;
        else
            s->idx->dup = true;
    }
    return true;
}

static void dg_pool_drop(dg_pool *p)
{
    if (p != NULL && --p->refs == 0)
        mdae_free(p);
}

void rpc_digest_free(rpc_digest *d)
{
    if (d == NULL)
        return;
    for (int k = 0; k < DG_N; k++) {
        mdae_free(d->set[k].e);
        dg_index_drop(d->set[k].idx);
    }
    for (size_t k = 0; k < d->n_other; k++)
        mdae_free(d->other[k].name);
    mdae_free(d->other);
    for (size_t k = 0; k < d->n_pools; k++)
        dg_pool_drop(d->pools[k]);
    mdae_free(d->pools);
    cJSON_Delete(d->diags_copy);
    mdae_free(d);
}

/* The entries' item pointers are not cleared (a walk of every entry):
 * nothing reads them once the digest is not live (rpc_digest_diff reads
 * the new digest's, which is live; a digest built from this one reads the
 * items through the new tree's nodes). */
void rpc_digest_detach(rpc_digest *d) { d->analysis = NULL; }

static size_t array_len(const cJSON *arr)
{
    size_t n = 0;
    for (const cJSON *x = cJSON_IsArray(arr) ? arr->child : NULL; x != NULL; x = x->next)
        n++;
    return n;
}

static int dg_entry_cmp(const void *a, const void *b)
{
    const dg_entry *x = a, *y = b;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return x->b < y->b ? -1 : x->b > y->b; /* b: the place, while sorting */
}

/* What rpc_digest_build_reusing takes from: per set of the new digest,
 * for its item k, the old digest's entry of the item taken (NULL: none). */
typedef struct dg_reuse {
    const rpc_digest *old;
    const rpc_taken *taken;
    size_t *block_at; /* old's block entry at each place of its analysis */
} dg_reuse;

static const int dg_taken_set[DG_N] = {RPC_TAKEN_BLOCKS, RPC_TAKEN_EDGES, RPC_TAKEN_EQUATIONS,
                                       RPC_TAKEN_VARIABLES};

/* The old entry of set's item k, if it was taken; NULL otherwise. */
static const dg_entry *dg_reused(const dg_reuse *r, int set, size_t k)
{
    if (r == NULL)
        return NULL;
    size_t from = r->taken->from[dg_taken_set[set]][k];
    if (from == RPC_NOT_TAKEN)
        return NULL;
    const dg_set *so = &r->old->set[set];
    return &so->e[set == DG_BLOCKS ? r->block_at[from] : from];
}

/* The items of one of the analysis's arrays in order: through taken's
 * nodes where the digest takes from an older one and they are said (no
 * walk of the array: an item taken is then not looked at), else by
 * walking the array. */
typedef struct dg_walk {
    const cJSON *at;          /* walking: the next member */
    const cJSON *const *node; /* or taken's nodes */
    size_t k, n;
} dg_walk;

static dg_walk dg_walk_of(const cJSON *arr, const dg_reuse *r, int set)
{
    const cJSON **node = r != NULL ? r->taken->node[dg_taken_set[set]] : NULL;
    if (node != NULL)
        return (dg_walk){NULL, node, 0, r->taken->n[dg_taken_set[set]]};
    return (dg_walk){cJSON_IsArray(arr) ? arr->child : NULL, NULL, 0, 0};
}

/* The next item, NULL past the last. */
static const cJSON *dg_walk_next(dg_walk *w)
{
    if (w->node != NULL)
        return w->k < w->n ? w->node[w->k++] : NULL;
    const cJSON *x = w->at;
    if (x != NULL)
        w->at = x->next;
    return x;
}

/* s's entries (blocks, b their place) in (a, b) order by counting, where
 * a, a stable id, is below 8 n + 64: a place's order among equal ids is
 * the walk's, as dg_entry_cmp's. False if an id is too large or on OOM
 * (s untouched: qsort then). */
static bool dg_count_sort(dg_set *s)
{
    size_t bound = 8 * s->n + 64;
    for (size_t k = 0; k < s->n; k++)
        if (!(s->e[k].a >= 0 && s->e[k].a < (double)bound))
            return false;
    size_t *start = mdae_calloc(bound + 1, sizeof *start);
    dg_entry *to = mdae_malloc((s->n + 1) * sizeof *to);
    if (start == NULL || to == NULL) {
        mdae_free(start);
        mdae_free(to);
        return false;
    }
    for (size_t k = 0; k < s->n; k++)
        start[(size_t)s->e[k].a + 1]++;
    for (size_t v = 1; v <= bound; v++)
        start[v] += start[v - 1];
    for (size_t k = 0; k < s->n; k++)
        to[start[(size_t)s->e[k].a]++] = s->e[k];
    mdae_free(start);
    mdae_free(s->e);
    s->e = to;
    return true;
}

/* The blocks, relabelled and ordered by (stable id, place) as
 * rpc_block_ids_relabel sorts them. */
static int dg_blocks(dg_set *s, const cJSON *arr, const uint32_t *ids, size_t n,
                     const dg_reuse *r)
{
    size_t k = 0;
    const uint64_t id_h = dg_str("id");
    bool sorted = true;
    dg_walk w = dg_walk_of(arr, r, DG_BLOCKS);
    for (const cJSON *x; (x = dg_walk_next(&w)) != NULL; k++) {
        if (k == s->n)
            return MDAE_E_STATE; /* longer than said */
        const dg_entry *o = dg_reused(r, DG_BLOCKS, k);
        /* a block taken is the old one moved: its "id" is the old's */
        long at = o != NULL ? (o->ca < n ? (long)o->ca : -1) : index_of(dg_member_named(x, "id"), n);
        if (at < 0)
            return MDAE_E_INVAL;
        dg_entry *e = &s->e[k];
        *e = (dg_entry){.a = (double)ids[at], .b = (double)k, .place = k, .ca = (uint32_t)at, .item = x};
        if (o != NULL) {
            e->rest = o->rest;
            e->members = o->members;
        } else
            e->rest = dg_sum_but(x, "id", "equations", &e->members);
        if (o != NULL && r->taken->bodies_kept != NULL && r->taken->bodies_kept[k])
            e->bodies = o->bodies; /* the same "equations", bodies and all */
        else {
            const cJSON *eqs = cJSON_GetObjectItemCaseSensitive(x, "equations");
            e->bodies = eqs != NULL ? dg_pair("equations", dg_json(eqs)) : 0;
        }
        e->hash = dg_finish(e->rest + dg_pair_h(id_h, dg_number(e->a)) + e->bodies, e->members);
        sorted = sorted && (k == 0 || s->e[k - 1].a < e->a);
    }
    if (k != s->n)
        return MDAE_E_STATE;
    if (!sorted && !dg_count_sort(s)) /* ids rising: already in (id, place) order */
        qsort(s->e, s->n, sizeof *s->e, dg_entry_cmp);
    for (k = 0; k < s->n; k++)
        s->e[k].b = 0;
    return MDAE_OK;
}

static int dg_edges(dg_set *s, const cJSON *arr, const uint32_t *ids, size_t n,
                    const dg_reuse *r)
{
    size_t k = 0;
    const uint64_t from_h = dg_str("from"), to_h = dg_str("to");
    dg_walk w = dg_walk_of(arr, r, DG_EDGES);
    for (const cJSON *x; (x = dg_walk_next(&w)) != NULL; k++) {
        if (k == s->n)
            return MDAE_E_STATE;
        const dg_entry *o = dg_reused(r, DG_EDGES, k);
        /* an edge taken is the old one moved: its ends are the old's */
        long f = o != NULL ? (o->ca < n ? (long)o->ca : -1) : index_of(dg_member_named(x, "from"), n);
        long t = o != NULL ? (o->cb < n ? (long)o->cb : -1) : index_of(dg_member_named(x, "to"), n);
        if (f < 0 || t < 0)
            return MDAE_E_INVAL;
        dg_entry *e = &s->e[k];
        *e = (dg_entry){.a = (double)ids[f], .b = (double)ids[t], .ca = (uint32_t)f,
                        .cb = (uint32_t)t, .item = x};
        if (o != NULL) {
            e->rest = o->rest;
            e->members = o->members;
        } else
            e->rest = dg_sum_but(x, "from", "to", &e->members);
        e->hash = dg_finish(e->rest + dg_pair_h(from_h, dg_number(e->a)) +
                                dg_pair_h(to_h, dg_number(e->b)),
                            e->members);
    }
    return k == s->n ? MDAE_OK : MDAE_E_STATE;
}

/* The names of the equations and variables: those of the items taken
 * from the digest before point into its pools, which this one then
 * shares (issue 40 item 5: not copied, not even looked at); the others
 * are copied into a pool of this digest's (each name looked up and
 * measured once: the entries hold it and its size, in place, until it is
 * copied). With DG_MAX_POOLS pools shared already, every name is copied. */
static int dg_named(rpc_digest *d, const cJSON *analysis, const dg_reuse *r)
{
    bool share = r != NULL && r->old->n_pools < DG_MAX_POOLS;
    size_t len = 0;
    for (int k = DG_EQUATIONS; k <= DG_VARIABLES; k++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(analysis, dg_member[k]);
        size_t j = 0;
        dg_walk w = dg_walk_of(arr, r, k);
        for (const cJSON *x; (x = dg_walk_next(&w)) != NULL;) {
            if (j == d->set[k].n)
                return MDAE_E_STATE;
            const dg_entry *o = dg_reused(r, k, j);
            dg_entry *e = &d->set[k].e[j++];
            e->item = x;
            e->name = o != NULL ? o->name : dg_name_of(x);
            e->place = o != NULL && share ? 0 : strlen(e->name) + 1; /* 0: shared */
            len += e->place;
        }
        if (j != d->set[k].n)
            return MDAE_E_STATE;
    }
    size_t n_old = share ? r->old->n_pools : 0;
    d->pools = mdae_malloc((n_old + 1) * sizeof *d->pools);
    dg_pool *mine = mdae_malloc(sizeof *mine + len + 1);
    if (d->pools == NULL || mine == NULL) {
        mdae_free(mine);
        return MDAE_E_NOMEM;
    }
    mine->refs = 1;
    d->pools[0] = mine;
    d->n_pools = 1;
    for (size_t p = 0; p < n_old; p++) {
        d->pools[d->n_pools++] = r->old->pools[p];
        r->old->pools[p]->refs++;
    }
    char *at = mine->text;
    for (int k = DG_EQUATIONS; k <= DG_VARIABLES; k++) {
        for (size_t j = 0; j < d->set[k].n; j++) {
            dg_entry *e = &d->set[k].e[j];
            const dg_entry *o = dg_reused(r, k, j);
            const char *name = e->name;
            size_t l = e->place;
            if (l > 0) {
                memcpy(at, name, l);
                name = at;
                at += l;
            }
            const cJSON *x = e->item;
            *e = o != NULL ? (dg_entry){.name = name, .key = o->key, .keyed = true, .hash = o->hash}
                           : (dg_entry){.name = name, .hash = dg_json(x)};
            e->item = x;
        }
    }
    return MDAE_OK;
}

static int dg_others(rpc_digest *d, const cJSON *analysis)
{
    size_t n = 0;
    for (const cJSON *m = analysis->child; m != NULL; m = m->next)
        n++;
    d->other = mdae_calloc(n + 1, sizeof *d->other);
    if (d->other == NULL)
        return MDAE_E_NOMEM;
    for (const cJSON *m = analysis->child; m != NULL; m = m->next) {
        if (m->string == NULL || is_set(m->string))
            continue;
        dg_other *o = &d->other[d->n_other];
        if ((o->name = mdae_strdup(m->string)) == NULL)
            return MDAE_E_NOMEM;
        o->hash = dg_json(m);
        d->n_other++;
    }
    const cJSON *diags = cJSON_GetObjectItemCaseSensitive(analysis, "diagnostics");
    if (diags != NULL && (d->diags_copy = cJSON_Duplicate(diags, true)) == NULL)
        return MDAE_E_NOMEM;
    return MDAE_OK;
}

/* r for old and taken if taken's lengths are those of old and of d's
 * sets (their lengths set), else NULL (nothing to take, or OOM: the digest
 * is then built without); r->block_at allocated (the caller frees it). */
static dg_reuse *dg_reuse_open(dg_reuse *r, const rpc_digest *d, const rpc_digest *old,
                               const rpc_taken *taken)
{
    if (old == NULL || taken == NULL)
        return NULL;
    for (int k = 0; k < DG_N; k++) {
        int ts = dg_taken_set[k];
        if (taken->n[ts] != d->set[k].n ||
            taken->prev_n[ts] != old->set[k].n || (taken->n[ts] > 0 && taken->from[ts] == NULL))
            return NULL;
        for (size_t j = 0; j < taken->n[ts]; j++)
            if (taken->from[ts][j] != RPC_NOT_TAKEN && taken->from[ts][j] >= old->set[k].n)
                return NULL;
    }
    const dg_set *ob = &old->set[DG_BLOCKS];
    *r = (dg_reuse){old, taken, mdae_malloc((ob->n + 1) * sizeof *r->block_at)};
    if (r->block_at == NULL)
        return NULL;
    for (size_t j = 0; j < ob->n; j++) {
        if (ob->e[j].place >= ob->n) {
            mdae_free(r->block_at);
            return NULL;
        }
        r->block_at[ob->e[j].place] = j;
    }
    return r;
}

int rpc_digest_build(const cJSON *analysis, const uint32_t *ids, size_t n, rpc_digest **out)
{
    return rpc_digest_build_reusing(analysis, ids, n, NULL, NULL, out);
}

/* The length of analysis's set k: taken's (told: no walk of a long
 * array only to count it, a cache miss an item) or counted. The walks
 * that fill the digest check it (MDAE_E_STATE if wrong). */
static size_t dg_set_len(const cJSON *analysis, int k, const rpc_taken *taken)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(analysis, dg_member[k]);
    if (!cJSON_IsArray(arr))
        return 0;
    return taken != NULL ? taken->n[dg_taken_set[k]] : array_len(arr);
}

/* rpc_digest_build_reusing, the sets' lengths taken from taken if given:
 * MDAE_E_STATE if they are not the arrays' (nothing leaked). */
static int dg_build(const cJSON *analysis, const uint32_t *ids, size_t n, const rpc_digest *old,
                    const rpc_taken *taken, rpc_digest **out)
{
    rpc_digest *d = mdae_calloc(1, sizeof *d);
    if (d == NULL)
        return MDAE_E_NOMEM;
    d->analysis = analysis;
    int rc = MDAE_OK;
    for (int k = 0; k < DG_N && rc == MDAE_OK; k++) {
        d->set[k].n = dg_set_len(analysis, k, taken);
        if ((d->set[k].e = mdae_malloc((d->set[k].n + 1) * sizeof *d->set[k].e)) == NULL)
            rc = MDAE_E_NOMEM;
    }
    const cJSON *blocks = cJSON_GetObjectItemCaseSensitive(analysis, "blocks");
    const cJSON *edges = cJSON_GetObjectItemCaseSensitive(analysis, "edges");
    dg_reuse reuse;
    const dg_reuse *r = rc == MDAE_OK ? dg_reuse_open(&reuse, d, old, taken) : NULL;
    if (rc == MDAE_OK && cJSON_IsArray(blocks))
        rc = dg_blocks(&d->set[DG_BLOCKS], blocks, ids, n, r);
    if (rc == MDAE_OK && cJSON_IsArray(edges))
        rc = dg_edges(&d->set[DG_EDGES], edges, ids, n, r);
    if (rc == MDAE_OK)
        rc = dg_named(d, analysis, r);
    for (int k = 0; k < DG_N && rc == MDAE_OK; k++)
        if (!dg_index_set(&d->set[k], k, r != NULL ? &old->set[k] : NULL))
            rc = MDAE_E_NOMEM;
    if (r != NULL)
        mdae_free(reuse.block_at);
    if (rc == MDAE_OK)
        rc = dg_others(d, analysis);
    if (rc < 0) {
        rpc_digest_free(d);
        return rc;
    }
    *out = d;
    return MDAE_OK;
}

int rpc_digest_build_reusing(const cJSON *analysis, const uint32_t *ids, size_t n,
                             const rpc_digest *old, const rpc_taken *taken, rpc_digest **out)
{
    rpc_message_init();
    int rc = dg_build(analysis, ids, n, old, old != NULL ? taken : NULL, out);
    if (rc == MDAE_E_STATE) /* taken's lengths not the analysis's: counted */
        rc = dg_build(analysis, ids, n, NULL, NULL, out);
    return rc;
}

/* A copy of e's item as the relabelled result holds it; NULL on OOM. */
static cJSON *dg_copy(int set, const dg_entry *e)
{
    cJSON *c = cJSON_Duplicate(e->item, true);
    if (c != NULL && set == DG_BLOCKS)
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "id"), e->a);
    if (c != NULL && set == DG_EDGES) {
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "from"), e->a);
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "to"), e->b);
    }
    return c;
}

/* What "removed" lists for e. */
static cJSON *dg_removed(int set, const dg_entry *e)
{
    switch (set) {
    case DG_BLOCKS:
        return cJSON_CreateNumber(e->a);
    case DG_EDGES: {
        cJSON *x = cJSON_CreateObject();
        if (x != NULL && (!cJSON_AddNumberToObject(x, "from", e->a) ||
                          !cJSON_AddNumberToObject(x, "to", e->b))) {
            cJSON_Delete(x);
            return NULL;
        }
        return x;
    }
    default:
        return cJSON_CreateString(e->name);
    }
}

/* Is old's entry k matched by none of neu's (no entry of neu has its
 * key)? matched: NULL, or per old entry whether a look-up of neu's found
 * it (see dg_diff_set). */
static bool dg_gone(const dg_set *so, const dg_set *sn, int set, size_t k, const bool *matched,
                    size_t *near)
{
    return matched != NULL ? !matched[k] : dg_find_near(sn, set, &so->e[k], near) == NULL;
}

/* diff_set's answer for one of the digests' sets. NULL on OOM.
 *
 * The removed without a look-up each (issue 40 item 5): where old's keys
 * are unique (!so->idx->dup), the look-up of a key of neu in old finds the one
 * old entry with that key, so an old entry is found by some look-up of
 * the first pass exactly when neu has its key: the entries the first pass
 * did not mark are those the second pass's look-ups in neu would not find.
 * With duplicate keys in old (the index answers the first only) the
 * look-ups are made as before. Where both digests share their index
 * (the same keys at the same places, each once), an entry's match is the
 * one at its place: only the hashes are compared. */
static cJSON *dg_diff_set(const rpc_digest *old, const rpc_digest *neu, int set)
{
    const dg_set *so = &old->set[set], *sn = &neu->set[set];
    /* one index: the same keys at the same places (dg_index_set) */
    bool same_keys = so->idx == sn->idx && !so->idx->dup;
    bool *matched = so->idx->dup || same_keys ? NULL : mdae_calloc(so->n + 1, sizeof *matched);
    cJSON *d = cJSON_CreateObject();
    cJSON *add = cJSON_AddArrayToObject(d, "added");
    cJSON *rem = cJSON_AddArrayToObject(d, "removed");
    cJSON *chg = cJSON_AddArrayToObject(d, "changed");
    if (d == NULL || add == NULL || rem == NULL || chg == NULL ||
        (!so->idx->dup && !same_keys && matched == NULL))
        goto nomem;
    if (same_keys) { /* each key once, at the same place in both: only changes */
        assert(so->n == sn->n);
        for (size_t k = 0; k < sn->n; k++)
            if (so->e[k].hash != sn->e[k].hash && !push(chg, dg_copy(set, &sn->e[k])))
                goto nomem;
        return d;
    }
    size_t near = 0;
    for (size_t k = 0; k < sn->n; k++) {
        const dg_entry *x = &sn->e[k], *o = dg_find_near(so, set, x, &near);
        if (o != NULL && matched != NULL)
            matched[o - so->e] = true;
        if (o == NULL ? !push(add, dg_copy(set, x))
                      : o->hash != x->hash && !push(chg, dg_copy(set, x)))
            goto nomem;
    }
    near = 0;
    for (size_t k = 0; k < so->n; k++)
        if (dg_gone(so, sn, set, k, matched, &near) && !push(rem, dg_removed(set, &so->e[k])))
            goto nomem;
    mdae_free(matched);
    return d;
nomem:
    mdae_free(matched);
    cJSON_Delete(d);
    return NULL;
}

static const dg_other *dg_other_named(const rpc_digest *d, const char *name)
{
    for (size_t k = 0; k < d->n_other; k++)
        if (strcmp(d->other[k].name, name) == 0)
            return &d->other[k];
    return NULL;
}

/* "members": neu's that old lacks or has otherwise, then old's that neu
 * lacks as null. False on OOM. */
static bool dg_members(cJSON *members, const rpc_digest *old, const rpc_digest *neu)
{
    for (const cJSON *x = neu->analysis->child; x != NULL; x = x->next) {
        if (is_set(x->string))
            continue;
        const dg_other *o = dg_other_named(old, x->string);
        if (o == NULL || o->hash != dg_json(x)) {
            cJSON *c = cJSON_Duplicate(x, true);
            if (c == NULL || !cJSON_AddItemToObject(members, x->string, c)) {
                cJSON_Delete(c);
                return false;
            }
        }
    }
    for (size_t k = 0; k < old->n_other; k++)
        if (cJSON_GetObjectItemCaseSensitive(neu->analysis, old->other[k].name) == NULL &&
            cJSON_AddNullToObject(members, old->other[k].name) == NULL)
            return false;
    return true;
}

int rpc_digest_diff(const rpc_digest *old, const rpc_digest *neu, long since, long version,
                    cJSON **out)
{
    assert(neu->analysis != NULL); /* live */
    rpc_message_init();
    cJSON *d = cJSON_CreateObject();
    if (d == NULL || !cJSON_AddNumberToObject(d, "since", (double)since) ||
        !cJSON_AddNumberToObject(d, "version", (double)version))
        goto nomem;
    for (int k = 0; k < DG_N; k++) {
        cJSON *s = dg_diff_set(old, neu, k);
        if (s == NULL || !cJSON_AddItemToObject(d, dg_member[k], s)) {
            cJSON_Delete(s);
            goto nomem;
        }
    }
    cJSON *s = diff_set(old->diags_copy,
                        cJSON_GetObjectItemCaseSensitive(neu->analysis, "diagnostics"),
                        key_whole, false, rm_whole);
    if (s == NULL || !cJSON_AddItemToObject(d, "diagnostics", s)) {
        cJSON_Delete(s);
        goto nomem;
    }
    cJSON *members = cJSON_AddObjectToObject(d, "members");
    if (members == NULL || !dg_members(members, old, neu))
        goto nomem;
    *out = d;
    return MDAE_OK;
nomem:
    cJSON_Delete(d);
    return MDAE_E_NOMEM;
}
