/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_diff.c -- stable block ids put into a result, and
 * differences between analysis results; rpc_diff.h gives the shapes and
 * keys. Moved here from the worker
 * process (issue 12), where a failed allocation ended the process: here it
 * is MDAE_E_NOMEM like everywhere in protocol/.
 *
 * Linear in the results: each set's keys are computed once and indexed
 * (keyed_init), blocks sorted by qsort.
 */
#include "rpc_diff.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
