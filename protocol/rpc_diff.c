/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_diff.c -- stable block ids put into a result, and
 * differences between analysis results; rpc_diff.h gives the shapes and
 * keys. Moved here from the worker
 * process (issue 12), where a failed allocation ended the process: here it
 * is MDAE_E_NOMEM like everywhere in protocol/.
 *
 * The sets are compared by linear search: results are compared once per
 * request and hold at most a few thousand entries per set.
 */
#include "rpc_diff.h"

#include <stdbool.h>
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

int rpc_block_ids_relabel(const cJSON *analysis, const uint32_t *ids, size_t n, cJSON **out)
{
    rpc_message_init();
    cJSON *res = cJSON_Duplicate(analysis, true);
    if (res == NULL)
        return MDAE_E_NOMEM;
    cJSON *sorted = NULL;
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
    if (blocks != NULL) {
        /* Blocks by id: selection (detach the smallest, append). */
        rc = MDAE_E_NOMEM;
        if ((sorted = cJSON_CreateArray()) == NULL)
            goto fail;
        while (cJSON_GetArraySize(blocks) > 0) {
            cJSON *best = NULL;
            int bi = 0, i = 0;
            cJSON_ArrayForEach(b, blocks)
            {
                if (best == NULL || id_of(b) < id_of(best)) {
                    best = b;
                    bi = i;
                }
                i++;
            }
            cJSON_AddItemToArray(sorted, cJSON_DetachItemFromArray(blocks, bi));
        }
        if (!cJSON_ReplaceItemInObjectCaseSensitive(res, "blocks", sorted))
            goto fail;
    }
    *out = res;
    return MDAE_OK;
fail:
    cJSON_Delete(sorted);
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

static char *key_id(const cJSON *x) { return mdae_asprintf("%.0f", id_of(x)); }

static double num_of(const cJSON *x, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, name);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static char *key_edge(const cJSON *x)
{
    return mdae_asprintf("%.0f>%.0f", num_of(x, "from"), num_of(x, "to"));
}

static const char *name_of(const cJSON *x)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(x, "name");
    return cJSON_IsString(n) ? n->valuestring : "";
}

static char *key_name(const cJSON *x) { return mdae_strdup(name_of(x)); }

/* The member of arr with key k, NULL if none; *oom set on failure. */
static const cJSON *find_keyed(const cJSON *arr, key_fn key, const char *k, bool *oom)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        char *kx = key(x);
        if (kx == NULL) {
            *oom = true;
            return NULL;
        }
        bool same = strcmp(kx, k) == 0;
        mdae_free(kx);
        if (same)
            return x;
    }
    return NULL;
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

/* {"added", "removed", "changed"} of two keyed sets. removed_item builds
 * what "removed" lists for an old item (its key as JSON). NULL on OOM. */
static cJSON *diff_set(const cJSON *old, const cJSON *neu, key_fn key, bool with_changed,
                       cJSON *(*removed_item)(const cJSON *x))
{
    bool oom = false;
    cJSON *d = cJSON_CreateObject();
    cJSON *add = cJSON_AddArrayToObject(d, "added");
    cJSON *rem = cJSON_AddArrayToObject(d, "removed");
    cJSON *chg = with_changed ? cJSON_AddArrayToObject(d, "changed") : NULL;
    if (d == NULL || add == NULL || rem == NULL || (with_changed && chg == NULL))
        goto nomem;
    const cJSON *x;
    cJSON_ArrayForEach(x, neu)
    {
        char *k = key(x);
        if (k == NULL)
            goto nomem;
        const cJSON *o = find_keyed(old, key, k, &oom);
        mdae_free(k);
        if (oom)
            goto nomem;
        if (o == NULL ? !push(add, cJSON_Duplicate(x, true))
                      : with_changed && !cJSON_Compare(o, x, true) &&
                            !push(chg, cJSON_Duplicate(x, true)))
            goto nomem;
    }
    cJSON_ArrayForEach(x, old)
    {
        char *k = key(x);
        if (k == NULL)
            goto nomem;
        const cJSON *o = find_keyed(neu, key, k, &oom);
        mdae_free(k);
        if (oom || (o == NULL && !push(rem, removed_item(x))))
            goto nomem;
    }
    return d;
nomem:
    cJSON_Delete(d);
    return NULL;
}

int rpc_diff_analysis(const cJSON *old, const cJSON *neu, long since, long version, cJSON **out)
{
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
    const size_t n_sets = sizeof sets / sizeof sets[0];
    rpc_message_init();
    cJSON *d = cJSON_CreateObject();
    if (d == NULL || !cJSON_AddNumberToObject(d, "since", (double)since) ||
        !cJSON_AddNumberToObject(d, "version", (double)version))
        goto nomem;
    for (size_t k = 0; k < n_sets; k++) {
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
        bool is_set = false;
        for (size_t k = 0; k < n_sets; k++)
            is_set = is_set || strcmp(x->string, sets[k].member) == 0;
        if (is_set)
            continue;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(old, x->string);
        if (o == NULL || !cJSON_Compare(o, x, true)) {
            cJSON *c = cJSON_Duplicate(x, true);
            if (c == NULL || !cJSON_AddItemToObject(members, x->string, c)) {
                cJSON_Delete(c);
                goto nomem;
            }
        }
    }
    *out = d;
    return MDAE_OK;
nomem:
    cJSON_Delete(d);
    return MDAE_E_NOMEM;
}
