/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_diff.c -- stable block ids put into a result and
 * differences between analysis results (protocol/rpc_diff.h) on
 * hand-written results: edges follow their blocks, each set is keyed as
 * documented, and allocation failures leak nothing.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "rpc_diff.h"
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
