/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_diff.c -- stable block ids and differences between
 * analysis results (protocol/rpc_diff.h) on hand-written results: a block
 * that did not change keeps its id, edges follow their blocks, each set is
 * keyed as documented, and allocation failures leak nothing.
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

Test(rpc_diff, keeps_the_id_of_a_block_that_did_not_change_and_moves_its_edges)
{
    cJSON *a = cJSON_Parse(v1), *b = cJSON_Parse(v2), *sa = NULL, *sb = NULL;
    rpc_block_ids ids;
    rpc_block_ids_init(&ids);
    cr_assert_eq(rpc_block_ids_apply(&ids, a, &sa), MDAE_OK);
    cr_assert_eq(rpc_block_ids_apply(&ids, b, &sb), MDAE_OK);
    char *s = print(cJSON_GetObjectItemCaseSensitive(sb, "blocks"));
    /* B keeps id 1; C is new: 2; sorted by id. */
    cr_assert_str_eq(s, "[{\"id\":1,\"equations\":[\"b\"],\"unknowns\":[\"y\"],\"reads\":[\"x\"]},"
                        "{\"id\":2,\"equations\":[\"c\"],\"unknowns\":[\"z\"],\"reads\":[\"y\"]}]");
    cJSON_free(s);
    s = print(cJSON_GetObjectItemCaseSensitive(sb, "edges"));
    cr_assert_str_eq(s, "[{\"from\":1,\"to\":2,\"guard\":\"true\"}]");
    cJSON_free(s);
    cJSON_Delete(sa);
    cJSON_Delete(sb);
    cJSON_Delete(a);
    cJSON_Delete(b);
    rpc_block_ids_close(&ids);
}

Test(rpc_diff, keys_each_set_as_documented)
{
    cJSON *a = cJSON_Parse(v1), *b = cJSON_Parse(v2), *sa = NULL, *sb = NULL, *d = NULL;
    rpc_block_ids ids;
    rpc_block_ids_init(&ids);
    cr_assert_eq(rpc_block_ids_apply(&ids, a, &sa), MDAE_OK);
    cr_assert_eq(rpc_block_ids_apply(&ids, b, &sb), MDAE_OK);
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
    rpc_block_ids_close(&ids);
}

Test(rpc_diff, reports_allocation_failures_without_leaks)
{
    rpc_message_init();
    cJSON *a = cJSON_Parse(v1), *b = cJSON_Parse(v2);
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    for (long n = 0;; n++) {
        counting_arm(n);
        rpc_block_ids ids;
        rpc_block_ids_init(&ids);
        cJSON *sa = NULL, *sb = NULL, *d = NULL;
        int rc = rpc_block_ids_apply(&ids, a, &sa);
        if (rc == MDAE_OK)
            rc = rpc_block_ids_apply(&ids, b, &sb);
        if (rc == MDAE_OK)
            rc = rpc_diff_analysis(sa, sb, 1, 2, &d);
        cJSON_Delete(d);
        cJSON_Delete(sa);
        cJSON_Delete(sb);
        rpc_block_ids_close(&ids);
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
