/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_diff.c -- stable block ids put into a result and
 * differences between analysis results (protocol/rpc_diff.h) on
 * hand-written results: edges follow their blocks, each set is keyed as
 * documented, and allocation failures leak nothing; a difference from a
 * digest is the whole trees' difference (issue 40 item 5).
 */
#include <criterion/criterion.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc_diff.h"
#include "rpc_json.h"
#include "rpc_message.h"

#include "fail_alloc.h"

/* Two results: v1 has blocks A (0) and B (1) and edge 0->1; v2 drops A,
 * keeps B (now numbered 0), adds C (1), with edge 0->1 (B->C). */
static const char v1[] =
    "{\"status\":\"nonsingular\",\"equations\":[{\"name\":\"e1\",\"guard\":\"true\"}],"
    "\"diagnostics\":[],"
    "\"blocks\":[{\"id\":0,\"equations\":[\"a\"],\"unknowns\":[\"x\"],\"reads\":[]},"
    "{\"id\":1,\"equations\":[\"b\"],\"unknowns\":[\"y\"],\"reads\":[\"x\"]}],"
    "\"edges\":[{\"from\":0,\"to\":1,\"guard\":\"true\"}]}";
static const char v2[] =
    "{\"status\":\"singular\",\"equations\":[{\"name\":\"e1\",\"guard\":\"g\"}],"
    "\"diagnostics\":[{\"kind\":\"overdetermined\"}],"
    "\"blocks\":[{\"id\":0,\"equations\":[\"b\"],\"unknowns\":[\"y\"],\"reads\":[\"x\"]},"
    "{\"id\":1,\"equations\":[\"c\"],\"unknowns\":[\"z\"],\"reads\":[\"y\"]}],"
    "\"edges\":[{\"from\":0,\"to\":1,\"guard\":\"true\"}]}";

static char *print(const cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);
    cr_assert_not_null(s);
    return s;
}

/* The engine's ids for the two versions: A=0, B=1, C=2. */
static const uint32_t ids1[] = {0, 1}, ids2[] = {1, 2};

Test(rpc_diff, relabels_blocks_and_edges_with_the_given_ids_sorted_by_id)
{
    cJSON *b = cJSON_Parse(v2), *sb = NULL;
    static const uint32_t swapped[] = {7, 3};
    cr_assert_eq(rpc_block_ids_relabel(b, swapped, 2, &sb), MDAE_OK);
    char *s = print(cJSON_GetObjectItemCaseSensitive(sb, "blocks"));
    cr_assert_str_eq(s, "[{\"id\":3,\"equations\":[\"c\"],\"unknowns\":[\"z\"],\"reads\":[\"y\"]},"
                        "{\"id\":7,\"equations\":[\"b\"],\"unknowns\":[\"y\"],\"reads\":[\"x\"]}]");
    cJSON_free(s);
    s = print(cJSON_GetObjectItemCaseSensitive(sb, "edges"));
    cr_assert_str_eq(s, "[{\"from\":7,\"to\":3,\"guard\":\"true\"}]");
    cJSON_free(s);
    cJSON_Delete(sb);
    sb = NULL;
    cr_assert_eq(rpc_block_ids_relabel(b, swapped, 1, &sb), MDAE_E_INVAL, "id 1 has no label");
    cr_assert_null(sb);
    cJSON_Delete(b);
}

Test(rpc_diff, keys_each_set_as_documented)
{
    cJSON *a = cJSON_Parse(v1), *b = cJSON_Parse(v2), *sa = NULL, *sb = NULL, *d = NULL;
    cr_assert_eq(rpc_block_ids_relabel(a, ids1, 2, &sa), MDAE_OK);
    cr_assert_eq(rpc_block_ids_relabel(b, ids2, 2, &sb), MDAE_OK);
    cr_assert_eq(rpc_diff_analysis(sa, sb, 1, 2, &d), MDAE_OK);
    char *s = print(d);
    cr_assert_str_eq(
        s, "{\"since\":1,\"version\":2,"
           "\"blocks\":{\"added\":[{\"id\":2,\"equations\":[\"c\"],\"unknowns\":[\"z\"],"
           "\"reads\":[\"y\"]}],\"removed\":[0],\"changed\":[]},"
           "\"edges\":{\"added\":[{\"from\":1,\"to\":2,\"guard\":\"true\"}],"
           "\"removed\":[{\"from\":0,\"to\":1}],\"changed\":[]},"
           "\"equations\":{\"added\":[],\"removed\":[],\"changed\":[{\"name\":\"e1\","
           "\"guard\":\"g\"}]},"
           "\"variables\":{\"added\":[],\"removed\":[],\"changed\":[]},"
           "\"diagnostics\":{\"added\":[{\"kind\":\"overdetermined\"}],\"removed\":[]},"
           "\"members\":{\"status\":\"singular\"}}");
    cJSON_free(s);
    cJSON_Delete(d);
    cJSON_Delete(sa);
    cJSON_Delete(sb);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

Test(rpc_diff, reports_allocation_failures_without_leaks)
{
    rpc_message_init();
    cJSON *a = cJSON_Parse(v1), *b = cJSON_Parse(v2);
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    for (long n = 0;; n++) {
        counting_arm(n);
        cJSON *sa = NULL, *sb = NULL, *d = NULL;
        int rc = rpc_block_ids_relabel(a, ids1, 2, &sa);
        if (rc == MDAE_OK)
            rc = rpc_block_ids_relabel(b, ids2, 2, &sb);
        if (rc == MDAE_OK)
            rc = rpc_diff_analysis(sa, sb, 1, 2, &d);
        cJSON_Delete(d);
        cJSON_Delete(sa);
        cJSON_Delete(sb);
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
        if (rc == MDAE_OK)
            break;
        cr_assert_eq(rc, MDAE_E_NOMEM);
    }
    counting_arm(-1);
    mdae_replace_allocator(NULL);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* ---- Large sets, against a search from the front --------------------------- */

/* The documented semantics spelt out the slow way: a new member is added if
 * no old one has its key, changed if the first old one with its key differs;
 * an old member is removed if no new one has its key. */
static const cJSON *first_with(const cJSON *arr, const char *member, const cJSON *like)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        if (member == NULL ? cJSON_Compare(x, like, true)
                           : cJSON_Compare(cJSON_GetObjectItemCaseSensitive(x, member),
                                           cJSON_GetObjectItemCaseSensitive(like, member), true))
            return x;
    }
    return NULL;
}

static cJSON *slow_diff(const cJSON *old, const cJSON *neu, const char *member, bool changed)
{
    cJSON *d = cJSON_CreateObject();
    cJSON *add = cJSON_AddArrayToObject(d, "added"), *rem = cJSON_AddArrayToObject(d, "removed");
    cJSON *chg = changed ? cJSON_AddArrayToObject(d, "changed") : NULL;
    const cJSON *x;
    cJSON_ArrayForEach(x, neu)
    {
        const cJSON *o = first_with(old, member, x);
        if (o == NULL)
            cJSON_AddItemToArray(add, cJSON_Duplicate(x, true));
        else if (changed && !cJSON_Compare(o, x, true))
            cJSON_AddItemToArray(chg, cJSON_Duplicate(x, true));
    }
    cJSON_ArrayForEach(x, old)
    {
        if (first_with(neu, member, x) == NULL)
            cJSON_AddItemToArray(rem, member ? cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(
                                                                   x, member),
                                                               true)
                                             : cJSON_Duplicate(x, true));
    }
    return d;
}

/* n members named from a small alphabet (duplicates on purpose), with a
 * value that may differ between versions. */
static cJSON *named_items(unsigned *seed, size_t n, unsigned names)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "e%u", (unsigned)(rand_r(seed) % names));
        cJSON *it = cJSON_CreateObject();
        cJSON_AddStringToObject(it, "name", name);
        cJSON_AddNumberToObject(it, "order", rand_r(seed) % 3);
        cJSON_AddItemToArray(arr, it);
    }
    return arr;
}

Test(rpc_diff, large_sets_with_duplicate_keys_diff_as_a_search_from_the_front)
{
    unsigned seed = 16;
    for (int round = 0; round < 8; round++) {
        size_t n = 500 + (size_t)(rand_r(&seed) % 1500);
        unsigned names = (unsigned)(n / 2 + (size_t)(rand_r(&seed) % n));
        cJSON *a = cJSON_CreateObject(), *b = cJSON_CreateObject(), *d = NULL;
        cJSON_AddItemToObject(a, "equations", named_items(&seed, n, names));
        cJSON_AddItemToObject(b, "equations", named_items(&seed, n, names));
        cJSON_AddItemToObject(a, "diagnostics", named_items(&seed, 50, 20));
        cJSON_AddItemToObject(b, "diagnostics", named_items(&seed, 50, 20));
        cr_assert_eq(rpc_diff_analysis(a, b, 1, 2, &d), MDAE_OK);
        cJSON *want = slow_diff(cJSON_GetObjectItemCaseSensitive(a, "equations"),
                                cJSON_GetObjectItemCaseSensitive(b, "equations"), "name", true);
        cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(d, "equations"), want, true),
                  "round %d: equations", round);
        cJSON_Delete(want);
        want = slow_diff(cJSON_GetObjectItemCaseSensitive(a, "diagnostics"),
                         cJSON_GetObjectItemCaseSensitive(b, "diagnostics"), NULL, false);
        cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(d, "diagnostics"), want, true),
                  "round %d: diagnostics", round);
        cJSON_Delete(want);
        cJSON_Delete(d);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
}

Test(rpc_diff, sorts_thousands_of_blocks_by_id_keeping_ties_in_place)
{
    enum { N = 3000 };
    static uint32_t ids[N];
    cJSON *a = cJSON_CreateObject(), *blocks = cJSON_AddArrayToObject(a, "blocks");
    cJSON *edges = cJSON_AddArrayToObject(a, "edges"), *s = NULL;
    unsigned seed = 7;
    for (uint32_t k = 0; k < N; k++) {
        ids[k] = (uint32_t)(rand_r(&seed) % (N / 2)); /* ties on purpose */
        cJSON *blk = cJSON_CreateObject();
        cJSON_AddNumberToObject(blk, "id", k);
        cJSON_AddNumberToObject(blk, "was", k);
        cJSON_AddItemToArray(blocks, blk);
    }
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "from", 0);
    cJSON_AddNumberToObject(e, "to", N - 1);
    cJSON_AddItemToArray(edges, e);
    cr_assert_eq(rpc_block_ids_relabel(a, ids, N, &s), MDAE_OK);
    const cJSON *x, *prev = NULL;
    int count = 0;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(s, "blocks"))
    {
        double id = cJSON_GetObjectItemCaseSensitive(x, "id")->valuedouble;
        double was = cJSON_GetObjectItemCaseSensitive(x, "was")->valuedouble;
        cr_assert_eq(id, ids[(size_t)was]);
        if (prev != NULL) {
            double pid = cJSON_GetObjectItemCaseSensitive(prev, "id")->valuedouble;
            double pwas = cJSON_GetObjectItemCaseSensitive(prev, "was")->valuedouble;
            cr_assert(pid < id || (pid == id && pwas < was), "sorted by id, ties in place");
        }
        prev = x;
        count++;
    }
    cr_assert_eq(count, N);
    const cJSON *e2 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s, "edges"), 0);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(e2, "from")->valuedouble, ids[0]);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(e2, "to")->valuedouble, ids[N - 1]);
    cJSON_Delete(s);
    cJSON_Delete(a);
}

Test(rpc_diff, members_in_another_order_are_no_change)
{
    cJSON *a = cJSON_Parse("{\"equations\":[{\"name\":\"e\",\"order\":1,\"guard\":\"g\"},"
                           "{\"name\":\"f\",\"order\":0}]}");
    cJSON *b = cJSON_Parse("{\"equations\":[{\"guard\":\"g\",\"name\":\"e\",\"order\":1},"
                           "{\"name\":\"f\",\"order\":2}]}");
    cJSON *d = NULL;
    cr_assert_eq(rpc_diff_analysis(a, b, 1, 2, &d), MDAE_OK);
    char *s = print(cJSON_GetObjectItemCaseSensitive(d, "equations"));
    cr_assert_str_eq(s, "{\"added\":[],\"removed\":[],\"changed\":[{\"name\":\"f\",\"order\":2}]}");
    cJSON_free(s);
    cJSON_Delete(d);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* A member that disappears (the leftOut of a text that parses again,
 * issue 36) is listed as null; one that appears, with its value; the sets
 * are not members. */
Test(rpc_diff, lists_a_removed_member_as_null)
{
    cJSON *a = cJSON_Parse("{\"status\":\"nonsingular\",\"equations\":[],"
                           "\"leftOut\":[{\"line\":3,\"message\":\"syntax error\"}]}");
    cJSON *b = cJSON_Parse("{\"status\":\"nonsingular\",\"equations\":[],\"syntaxErrors\":0}");
    cJSON *d = NULL;
    cr_assert_eq(rpc_diff_analysis(a, b, 1, 2, &d), MDAE_OK);
    char *s = print(cJSON_GetObjectItemCaseSensitive(d, "members"));
    cr_assert_str_eq(s, "{\"syntaxErrors\":0,\"leftOut\":null}");
    cJSON_free(s);
    cJSON_Delete(d);
    d = NULL;
    cr_assert_eq(rpc_diff_analysis(b, a, 2, 3, &d), MDAE_OK);
    s = print(cJSON_GetObjectItemCaseSensitive(d, "members"));
    cr_assert_str_eq(s, "{\"leftOut\":[{\"line\":3,\"message\":\"syntax error\"}],"
                        "\"syntaxErrors\":null}");
    cJSON_free(s);
    cJSON_Delete(d);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* ---- Digests (issue 40 item 5): the difference without the old tree --------- */

/* The difference from digest `from` to `to` (both of results with ids),
 * printed, against the trees' (relabelled, rpc_diff_analysis). */
static void digest_diff_is(const rpc_digest *from, const cJSON *a, const uint32_t *ia, size_t na,
                           const rpc_digest *to, const cJSON *b, const uint32_t *ib, size_t nb)
{
    cJSON *sa = NULL, *sb = NULL, *want = NULL, *got = NULL;
    cr_assert_eq(rpc_block_ids_relabel(a, ia, na, &sa), MDAE_OK);
    cr_assert_eq(rpc_block_ids_relabel(b, ib, nb, &sb), MDAE_OK);
    cr_assert_eq(rpc_diff_analysis(sa, sb, 1, 2, &want), MDAE_OK);
    cr_assert_eq(rpc_digest_diff(from, to, 1, 2, &got), MDAE_OK);
    char *w = print(want), *g = print(got);
    cr_assert_str_eq(g, w);
    cJSON_free(w);
    cJSON_free(g);
    cJSON_Delete(sa);
    cJSON_Delete(sb);
    cJSON_Delete(want);
    cJSON_Delete(got);
}

/* rpc_digest_diff from a's digest (ids ia, detached) to b's, printed, is
 * what relabelling both and rpc_diff_analysis give. */
static void digest_as_trees(const cJSON *a, const uint32_t *ia, size_t na, const cJSON *b,
                            const uint32_t *ib, size_t nb)
{
    rpc_digest *da = NULL, *db = NULL;
    cr_assert_eq(rpc_digest_build(a, ia, na, &da), MDAE_OK);
    rpc_digest_detach(da);
    cr_assert_eq(rpc_digest_build(b, ib, nb, &db), MDAE_OK);
    digest_diff_is(da, a, ia, na, db, b, ib, nb);
    rpc_digest_free(da);
    rpc_digest_free(db);
}

Test(rpc_diff, a_digest_gives_the_whole_trees_difference_on_the_documented_cases)
{
    cJSON *a = cJSON_Parse(v1), *b = cJSON_Parse(v2);
    digest_as_trees(a, ids1, 2, b, ids2, 2);
    digest_as_trees(b, ids2, 2, a, ids1, 2);
    cJSON_Delete(a);
    cJSON_Delete(b);
    a = cJSON_Parse("{\"equations\":[{\"name\":\"e\",\"order\":1,\"guard\":\"g\"},"
                    "{\"name\":\"f\",\"order\":0}],\"leftOut\":[{\"line\":3}],\"n\":-0.0}");
    b = cJSON_Parse("{\"equations\":[{\"guard\":\"g\",\"name\":\"e\",\"order\":1},"
                    "{\"name\":\"f\",\"order\":2}],\"syntaxErrors\":0,\"n\":0}");
    digest_as_trees(a, NULL, 0, b, NULL, 0);
    digest_as_trees(b, NULL, 0, a, NULL, 0);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* A random result: nb blocks (canonical ids 0..nb-1), edges between them,
 * equations and variables with duplicate names, a few members and
 * diagnostics, all from small alphabets so that versions share items. */
static cJSON *random_result(unsigned *seed, size_t nb)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", rand_r(seed) % 2 ? "singular" : "nonsingular");
    if (rand_r(seed) % 3 == 0)
        cJSON_AddNumberToObject(r, "leftOut", rand_r(seed) % 2);
    cJSON_AddItemToObject(r, "equations", named_items(seed, 1 + rand_r(seed) % 40, 30));
    cJSON_AddItemToObject(r, "variables", named_items(seed, rand_r(seed) % 40, 30));
    cJSON *diags = cJSON_AddArrayToObject(r, "diagnostics");
    for (int k = rand_r(seed) % 3; k > 0; k--)
        cJSON_AddItemToArray(diags, named_items(seed, 1, 3));
    cJSON *blocks = cJSON_AddArrayToObject(r, "blocks");
    for (size_t k = 0; k < nb; k++) {
        cJSON *b = cJSON_CreateObject();
        cJSON_AddNumberToObject(b, "id", (double)k);
        cJSON_AddItemToObject(b, "equations", named_items(seed, 1 + rand_r(seed) % 2, 4));
        cJSON_AddItemToArray(blocks, b);
    }
    cJSON *edges = cJSON_AddArrayToObject(r, "edges");
    for (size_t k = 0; nb > 0 && k < 2 * nb; k++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "from", rand_r(seed) % nb);
        cJSON_AddNumberToObject(e, "to", rand_r(seed) % nb);
        cJSON_AddStringToObject(e, "guard", rand_r(seed) % 2 ? "true" : "g");
        cJSON_AddItemToArray(edges, e);
    }
    return r;
}

Test(rpc_diff, a_digest_gives_the_whole_trees_difference_on_random_results)
{
    unsigned seed = 40;
    for (int round = 0; round < 300; round++) {
        size_t na = (size_t)(rand_r(&seed) % 12), nb = (size_t)(rand_r(&seed) % 12);
        uint32_t ia[12], ib[12];
        for (size_t k = 0; k < 12; k++) { /* stable ids from a small range: shared, tied */
            ia[k] = (uint32_t)(rand_r(&seed) % 16);
            ib[k] = (uint32_t)(rand_r(&seed) % 16);
        }
        cJSON *a = random_result(&seed, na), *b = random_result(&seed, nb);
        digest_as_trees(a, ia, na, b, ib, nb);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
}

/* The digest's shortcuts (issue 40 item 5): keys looked up at the first
 * two members first, blocks ordered by counting where the stable ids are
 * small and by qsort where one is large; both give the trees' order
 * (ties by place) and members found anywhere in an item. */
Test(rpc_diff, a_digest_orders_large_ids_and_finds_keys_after_other_members)
{
    const char *ta = "{\"blocks\":[{\"g\":1,\"h\":2,\"id\":0},{\"id\":1,\"g\":3},"
                     "{\"g\":4,\"id\":2}],"
                     "\"edges\":[{\"guard\":\"g\",\"w\":1,\"to\":1,\"from\":0},"
                     "{\"to\":2,\"from\":1}],"
                     "\"equations\":[{\"order\":1,\"guard\":\"g\",\"name\":\"e\"},"
                     "{\"order\":0,\"name\":\"f\"}]}";
    const char *tb = "{\"blocks\":[{\"g\":1,\"h\":2,\"id\":0},{\"id\":1,\"g\":5},"
                     "{\"g\":4,\"id\":2}],"
                     "\"edges\":[{\"guard\":\"h\",\"w\":1,\"to\":1,\"from\":0}],"
                     "\"equations\":[{\"order\":2,\"guard\":\"g\",\"name\":\"e\"},"
                     "{\"order\":0,\"name\":\"g\"}]}";
    cJSON *a = cJSON_Parse(ta), *b = cJSON_Parse(tb);
    cr_assert_not_null(a);
    cr_assert_not_null(b);
    const uint32_t large_a[3] = {4000000000u, 7, 4000000000u}, large_b[3] = {9, 4000000000u, 7};
    const uint32_t small_a[3] = {2, 2, 1}, small_b[3] = {1, 2, 2};
    digest_as_trees(a, large_a, 3, b, large_b, 3);
    digest_as_trees(b, large_b, 3, a, large_a, 3);
    digest_as_trees(a, small_a, 3, b, small_b, 3);
    digest_as_trees(a, large_a, 3, b, small_b, 3);
    digest_as_trees(b, small_b, 3, a, large_a, 3);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* ---- Digests that take hashes from the version before (issue 40 item 5) ------ */

static size_t arr_len(const cJSON *r, const char *member)
{
    return (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, member));
}

/* b: a's copy where, as rpc_json_analysis_taking then
 * rpc_json_add_bodies_taking leave a tree, every item is taken from a at
 * its place (taken) but some, which change; a block's "equations" (its
 * bodies) change too, one in anew_1_in: then t->bodies_kept says so, but
 * for a block built anew (not taken), which it may say kept its bodies
 * (none given: rpc_json_add_bodies_taking says so of a new block whose
 * equations have no body), the digest then to hash it again. */
static cJSON *edited_copy(unsigned *seed, const cJSON *a, rpc_taken *t, unsigned anew_1_in)
{
    static const char *const member[RPC_TAKEN_N] = {"equations", "variables", "blocks", "edges"};
    cJSON *b = cJSON_Duplicate(a, true);
    memset(t, 0, sizeof *t);
    for (int s = 0; s < RPC_TAKEN_N; s++) {
        t->n[s] = t->prev_n[s] = arr_len(a, member[s]);
        t->from[s] = calloc(t->n[s] + 1, sizeof *t->from[s]);
        cr_assert_not_null(t->from[s]);
        if (s == RPC_TAKEN_BLOCKS) {
            t->bodies_kept = calloc(t->n[s] + 1, sizeof *t->bodies_kept);
            cr_assert_not_null(t->bodies_kept);
        }
        size_t k = 0;
        cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(b, member[s]))
        {
            t->from[s][k] = k;
            bool anew = s == RPC_TAKEN_BLOCKS && rand_r(seed) % anew_1_in == 0;
            if (anew) /* bodies given anew */
                cJSON_ReplaceItemInObjectCaseSensitive(x, "equations",
                                                       named_items(seed, 1 + rand_r(seed) % 2, 4));
            if (rand_r(seed) % 4 == 0) { /* built anew: another guard */
                t->from[s][k] = RPC_NOT_TAKEN;
                /* all bodies anew: a block's bodies its only change */
                if (anew_1_in > 1 || s != RPC_TAKEN_BLOCKS) {
                    cJSON_DeleteItemFromObjectCaseSensitive(x, "guard");
                    cJSON_AddStringToObject(x, "guard", rand_r(seed) % 2 ? "h" : "true");
                }
            }
            if (s == RPC_TAKEN_BLOCKS)
                t->bodies_kept[k] = !anew || t->from[s][k] == RPC_NOT_TAKEN;
            k++;
        }
    }
    return b;
}

static void taken_release(rpc_taken *t)
{
    for (int s = 0; s < RPC_TAKEN_N; s++) {
        free(t->from[s]);
        free(t->node[s]);
    }
    free(t->bodies_kept);
}

/* t->node filled with b's items, as rpc_json_analysis_since records them:
 * a digest built with them reads no item it takes. */
static void taken_nodes(rpc_taken *t, const cJSON *b)
{
    static const char *const member[RPC_TAKEN_N] = {"equations", "variables", "blocks", "edges"};
    for (int s = 0; s < RPC_TAKEN_N; s++) {
        cJSON **node = calloc(t->n[s] + 1, sizeof *node);
        cr_assert_not_null(node);
        size_t k = 0;
        cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(b, member[s]))
            node[k++] = x;
        cr_assert_eq(k, t->n[s]);
        t->node[s] = (const cJSON **)node;
    }
}

/* Some of b's equations built anew (not taken) renamed: their keys are
 * not the version before's at the same place, so the index is not shared. */
static void rename_some(unsigned *seed, cJSON *b, const rpc_taken *t)
{
    size_t k = 0;
    cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(b, "equations"))
    {
        if (t->from[RPC_TAKEN_EQUATIONS][k++] == RPC_NOT_TAKEN && rand_r(seed) % 3 == 0) {
            char nm[16];
            snprintf(nm, sizeof nm, "r%u", (unsigned)(rand_r(seed) % 50));
            cJSON_ReplaceItemInObjectCaseSensitive(x, "name", cJSON_CreateString(nm));
        }
    }
}

/* A digest built with the hashes of the version before is the one built
 * from scratch: a block taken whose bodies changed, an edge or a block
 * taken whose stable ids changed (the layout of the guards far from an
 * edit changing, say) are hashed again, never their stale hashes reused.
 * Checked by the differences from and to it, and to a third version. */
static void digests_taking_hashes(unsigned seed, unsigned anew_1_in)
{
    for (int round = 0; round < 300; round++) {
        size_t n = (size_t)(rand_r(&seed) % 12);
        uint32_t ia[12], ib[12], ic[12];
        for (size_t k = 0; k < 12; k++) {
            ia[k] = (uint32_t)(rand_r(&seed) % 16);
            ib[k] = rand_r(&seed) % 2 ? ia[k] : (uint32_t)(rand_r(&seed) % 16);
            ic[k] = (uint32_t)(rand_r(&seed) % 16);
        }
        cJSON *a = random_result(&seed, n);
        rpc_taken t;
        cJSON *b = edited_copy(&seed, a, &t, anew_1_in);
        cJSON *c = rand_r(&seed) % 2 ? random_result(&seed, n) : cJSON_Duplicate(a, true);
        rpc_digest *da = NULL, *db = NULL, *dc = NULL;
        cr_assert_eq(rpc_digest_build(a, ia, n, &da), MDAE_OK);
        rpc_digest_detach(da);
        cr_assert_eq(rpc_digest_build_reusing(b, ib, n, da, &t, &db), MDAE_OK);
        cr_assert_eq(rpc_digest_build(c, ic, n, &dc), MDAE_OK);
        digest_diff_is(da, a, ia, n, db, b, ib, n);
        digest_diff_is(db, b, ib, n, dc, c, ic, n);
        rpc_digest *da2 = NULL; /* a's again, live */
        cr_assert_eq(rpc_digest_build(a, ia, n, &da2), MDAE_OK);
        rpc_digest_detach(db);
        digest_diff_is(db, b, ib, n, da2, a, ia, n);
        rpc_digest_free(da2);
        rpc_digest_free(da);
        rpc_digest_free(db);
        rpc_digest_free(dc);
        taken_release(&t);
        cJSON_Delete(a);
        cJSON_Delete(b);
        cJSON_Delete(c);
    }
}

Test(rpc_diff, a_digest_taking_hashes_from_the_one_before_is_the_whole_one)
{
    digests_taking_hashes(41, 3);
}

/* The digest takes the sets' lengths from what was taken (no walk only to
 * count them, issue 40 item 5); where they are not the analysis's (an item
 * more or fewer than said, in any set), it is the one built from scratch,
 * never read past what was said. */
Test(rpc_diff, a_digest_told_wrong_lengths_is_the_whole_one)
{
    static const char *const member[RPC_TAKEN_N] = {"equations", "variables", "blocks", "edges"};
    unsigned seed = 77;
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + (size_t)(rand_r(&seed) % 11);
        uint32_t ia[12], ib[12];
        for (size_t k = 0; k < 12; k++)
            ia[k] = ib[k] = (uint32_t)(rand_r(&seed) % 16);
        cJSON *a = random_result(&seed, n);
        rpc_taken t;
        cJSON *b = edited_copy(&seed, a, &t, 3);
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(b, member[round % RPC_TAKEN_N]);
        if (round % 8 < 4 && arr->child != NULL) /* one fewer than said */
            cJSON_Delete(cJSON_DetachItemViaPointer(arr, arr->child));
        else if (arr->child != NULL) /* one more */
            cJSON_AddItemToArray(arr, cJSON_Duplicate(arr->child, true));
        else /* one more than none */
            t.n[round % RPC_TAKEN_N] = 1;
        rpc_digest *da = NULL, *db = NULL;
        cr_assert_eq(rpc_digest_build(a, ia, n, &da), MDAE_OK);
        rpc_digest_detach(da);
        cr_assert_eq(rpc_digest_build_reusing(b, ib, n, da, &t, &db), MDAE_OK);
        digest_diff_is(da, a, ia, n, db, b, ib, n);
        rpc_digest_free(da);
        rpc_digest_free(db);
        taken_release(&t);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
}

/* Every block's bodies given anew, and every block built anew said to
 * have kept them: a block's "equations" hash is taken from the digest
 * before only for a block taken (moved from there), never for one at the
 * same place built anew. */
Test(rpc_diff, a_digest_takes_a_blocks_bodies_hash_only_for_a_block_taken)
{
    digests_taking_hashes(43, 1);
}

Test(rpc_diff, digests_report_allocation_failures_without_leaks)
{
    rpc_message_init();
    cJSON *a = cJSON_Parse(v1), *b = cJSON_Parse(v2);
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    for (long n = 0;; n++) {
        counting_arm(n);
        rpc_digest *da = NULL, *db = NULL;
        cJSON *d = NULL;
        int rc = rpc_digest_build(a, ids1, 2, &da);
        if (rc == MDAE_OK)
            rc = rpc_digest_build(b, ids2, 2, &db);
        if (rc == MDAE_OK)
            rc = rpc_digest_diff(da, db, 1, 2, &d);
        cJSON_Delete(d);
        rpc_digest_free(da);
        rpc_digest_free(db);
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
        if (rc == MDAE_OK)
            break;
        cr_assert_eq(rc, MDAE_E_NOMEM);
    }
    counting_arm(-1);
    mdae_replace_allocator(NULL);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

Test(rpc_diff, a_digest_refuses_block_ids_as_the_relabelling_does)
{
    cJSON *a = cJSON_Parse(v1);
    rpc_digest *d = NULL;
    cr_assert_eq(rpc_digest_build(a, ids1, 1, &d), MDAE_E_INVAL);
    cr_assert_null(d);
    cJSON_Delete(a);
}

/* ---- Digests sharing names and indexes with the one before (issue 40 item 5) ---- */

/* A chain of edits, each version's digest built from the one before with
 * the new tree's nodes (so it shares that one's name pools, and its index
 * where the keys stay), the versions kept as the worker keeps them (the
 * last four): the oldest is freed when a version is added, while the
 * later ones still point at its names and index. Every difference from a
 * kept version to the newest is the trees'. Forty versions: past
 * DG_MAX_POOLS, where a digest copies its names again. */
Test(rpc_diff, a_chain_of_digests_sharing_names_and_indexes_survives_evictions)
{
    unsigned seed = 47;
    for (int round = 0; round < 25; round++) {
        size_t n = 1 + (size_t)(rand_r(&seed) % 11);
        uint32_t ids[4][12];
        cJSON *tree[4] = {NULL};
        rpc_digest *dg[4] = {NULL};
        for (size_t k = 0; k < 12; k++)
            ids[0][k] = (uint32_t)(rand_r(&seed) % 16);
        tree[0] = random_result(&seed, n);
        cr_assert_eq(rpc_digest_build(tree[0], ids[0], n, &dg[0]), MDAE_OK);
        rpc_digest_detach(dg[0]);
        for (int v = 1; v < 40; v++) {
            int at = v % 4, was = (v - 1) % 4;
            rpc_taken t;
            cJSON *b = edited_copy(&seed, tree[was], &t, 3);
            rename_some(&seed, b, &t);
            taken_nodes(&t, b);
            uint32_t nid[12];
            for (size_t k = 0; k < 12; k++) /* mostly the same: the blocks' order kept */
                nid[k] = rand_r(&seed) % 4 ? ids[was][k] : (uint32_t)(rand_r(&seed) % 16);
            rpc_digest *d = NULL;
            cr_assert_eq(rpc_digest_build_reusing(b, nid, n, dg[was], &t, &d), MDAE_OK);
            taken_release(&t);
            rpc_digest_free(dg[at]); /* evicted: d may share its names */
            cJSON_Delete(tree[at]);
            dg[at] = d;
            tree[at] = b;
            memcpy(ids[at], nid, sizeof nid);
            for (int back = 1; back <= 3 && back <= v; back++) {
                int o = (v - back) % 4;
                digest_diff_is(dg[o], tree[o], ids[o], n, d, b, ids[at], n);
            }
            digest_diff_is(d, b, ids[at], n, d, b, ids[at], n); /* nothing */
            rpc_digest_detach(d);
        }
        for (int k = 0; k < 4; k++) {
            rpc_digest_free(dg[k]);
            cJSON_Delete(tree[k]);
        }
    }
}

/* A digest built from the one before, names and index shared, fails at
 * every allocation without a leak, and the digest before (whose pools and
 * index it referenced meanwhile) is whole after each failure: the next
 * attempt and the difference from it are right. */
Test(rpc_diff, a_digest_sharing_the_one_befores_reports_allocation_failures_without_leaks)
{
    unsigned seed = 53;
    uint32_t ids[12];
    for (size_t k = 0; k < 12; k++)
        ids[k] = (uint32_t)(rand_r(&seed) % 16);
    cJSON *a = random_result(&seed, 8);
    rpc_digest *da = NULL;
    cr_assert_eq(rpc_digest_build(a, ids, 8, &da), MDAE_OK);
    rpc_digest_detach(da);
    rpc_taken t;
    cJSON *b = edited_copy(&seed, a, &t, 3);
    taken_nodes(&t, b);
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    for (long n = 0;; n++) {
        counting_arm(n);
        rpc_digest *db = NULL;
        cJSON *d = NULL;
        int rc = rpc_digest_build_reusing(b, ids, 8, da, &t, &db);
        if (rc == MDAE_OK)
            rc = rpc_digest_diff(da, db, 1, 2, &d);
        cJSON_Delete(d);
        rpc_digest_free(db);
        cr_assert_eq(live, 0, "allocation %ld: %ld blocks leaked", n, live);
        if (rc == MDAE_OK)
            break;
        cr_assert_eq(rc, MDAE_E_NOMEM);
    }
    counting_arm(-1);
    mdae_replace_allocator(NULL);
    rpc_digest *db = NULL;
    cr_assert_eq(rpc_digest_build_reusing(b, ids, 8, da, &t, &db), MDAE_OK);
    digest_diff_is(da, a, ids, 8, db, b, ids, 8);
    rpc_digest_free(da); /* the one before goes first, as keep_version evicts it */
    digest_diff_is(db, b, ids, 8, db, b, ids, 8);
    rpc_digest_free(db);
    taken_release(&t);
    cJSON_Delete(a);
    cJSON_Delete(b);
}
