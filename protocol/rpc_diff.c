/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_diff.c -- stable block ids and differences between analysis
 * results; rpc_diff.h gives the shapes and keys. Moved here from the worker
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

void rpc_block_ids_init(rpc_block_ids *ids)
{
    ids->map = NULL;
    ids->next = 0;
}

void rpc_block_ids_close(rpc_block_ids *ids)
{
    cJSON_Delete(ids->map);
    ids->map = NULL;
}

/* "|<equations>|<unknowns>|<reads>" as printed; NULL on OOM. */
static char *block_identity(const cJSON *b)
{
    static const char *const parts[] = {"equations", "unknowns", "reads"};
    char *s = mdae_strdup("");
    for (size_t k = 0; k < 3 && s != NULL; k++) {
        char *a = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(b, parts[k]));
        char *n = a ? mdae_asprintf("%s|%s", s, a) : NULL;
        cJSON_free(a);
        mdae_free(s);
        s = n;
    }
    return s;
}

static double id_of(const cJSON *b)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(b, "id");
    return cJSON_IsNumber(id) ? id->valuedouble : 0;
}

int rpc_block_ids_apply(rpc_block_ids *ids, const cJSON *analysis, cJSON **out)
{
    rpc_message_init();
    if (ids->map == NULL && (ids->map = cJSON_CreateObject()) == NULL)
        return MDAE_E_NOMEM;
    cJSON *res = cJSON_Duplicate(analysis, true);
    if (res == NULL)
        return MDAE_E_NOMEM;
    cJSON *blocks = cJSON_GetObjectItemCaseSensitive(res, "blocks");
    int n = cJSON_GetArraySize(blocks);
    double *map = mdae_calloc((size_t)n + 1, sizeof *map);
    cJSON *sorted = NULL;
    if (map == NULL)
        goto nomem;
    int k = 0;
    cJSON *b;
    cJSON_ArrayForEach(b, blocks)
    {
        char *key = block_identity(b);
        if (key == NULL)
            goto nomem;
        cJSON *have = cJSON_GetObjectItemCaseSensitive(ids->map, key);
        if (have == NULL)
            have = cJSON_AddNumberToObject(ids->map, key, ids->next++);
        mdae_free(key);
        if (have == NULL)
            goto nomem;
        map[k++] = have->valuedouble;
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(b, "id"), have->valuedouble);
    }
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(res, "edges"))
    {
        cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "from");
        cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "to");
        if (cJSON_IsNumber(f) && f->valueint >= 0 && f->valueint < n)
            cJSON_SetNumberValue(f, map[f->valueint]);
        if (cJSON_IsNumber(t) && t->valueint >= 0 && t->valueint < n)
            cJSON_SetNumberValue(t, map[t->valueint]);
    }
    /* Blocks by id: selection (detach the smallest, append); stable. */
    if ((sorted = cJSON_CreateArray()) == NULL)
        goto nomem;
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
    if (blocks != NULL && !cJSON_ReplaceItemInObjectCaseSensitive(res, "blocks", sorted))
        goto nomem;
    if (blocks == NULL)
        cJSON_Delete(sorted);
    mdae_free(map);
    *out = res;
    return MDAE_OK;
nomem:
    cJSON_Delete(sorted);
    mdae_free(map);
    cJSON_Delete(res);
    return MDAE_E_NOMEM;
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
