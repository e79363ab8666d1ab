/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_message.c -- JSON-RPC 2.0 parsing, validation and
 * builders (every reserved error code, batches, our own codes).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rpc_message.h"

static void setup(void) { rpc_message_init(); }

TestSuite(rpc_message, .init = setup);

static int parse(const char *s, rpc_parsed *p) { return rpc_parse(s, strlen(s), p); }

Test(rpc_message, parses_a_request_with_params)
{
    rpc_parsed p;
    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server/status\","
                       "\"params\":{\"a\":1}}",
                       &p),
                 MDAE_OK);
    cr_assert_not(p.batch);
    cr_assert_eq(p.n, 1);
    cr_assert_eq(p.msgs[0].kind, RPC_MSG_REQUEST);
    cr_assert_str_eq(p.msgs[0].method, "server/status");
    cr_assert_eq(p.msgs[0].id->valuedouble, 7);
    cr_assert(cJSON_IsObject(p.msgs[0].params));
    rpc_parsed_close(&p);
    rpc_parsed_close(&p); /* safe twice */
}

Test(rpc_message, tells_notifications_from_requests)
{
    rpc_parsed p;
    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}", &p), MDAE_OK);
    cr_assert_eq(p.msgs[0].kind, RPC_MSG_NOTIFICATION);
    cr_assert_null(p.msgs[0].id);
    cr_assert_null(p.msgs[0].params);
    rpc_parsed_close(&p);
    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"m\"}", &p), MDAE_OK);
    cr_assert_eq(p.msgs[0].kind, RPC_MSG_REQUEST, "a null id is still a request");
    rpc_parsed_close(&p);
}

/* Issue 42: LSP clients (and some JSON-RPC libraries) send "params": null
 * for shutdown and exit; it means no params, not an invalid request. */
Test(rpc_message, reads_null_params_as_no_params)
{
    rpc_parsed p;
    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\",\"params\":null}", &p),
                 MDAE_OK);
    cr_assert_eq(p.msgs[0].kind, RPC_MSG_REQUEST);
    cr_assert_null(p.msgs[0].params);
    rpc_parsed_close(&p);
    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"method\":\"exit\",\"params\":null}", &p), MDAE_OK);
    cr_assert_eq(p.msgs[0].kind, RPC_MSG_NOTIFICATION);
    rpc_parsed_close(&p);
}

Test(rpc_message, reports_invalid_json_as_a_parse_error)
{
    rpc_parsed p;
    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",", &p), MDAE_E_PROTO);
    cr_assert_eq(parse("", &p), MDAE_E_PROTO);
    cr_assert_eq(parse("{} {}", &p), MDAE_E_PROTO, "trailing garbage");
    cr_assert_eq(parse("\x01\xff", &p), MDAE_E_PROTO);
    cr_assert_eq(rpc_parse("{}", 1, &p), MDAE_E_PROTO, "length is honoured");
}

Test(rpc_message, refuses_json_nested_too_deep)
{
    char s[2 * (RPC_MAX_DEPTH + 5) + 1];
    int n = RPC_MAX_DEPTH + 5;
    for (int i = 0; i < n; i++) {
        s[i] = '[';
        s[n + i] = ']';
    }
    s[2 * n] = '\0';
    rpc_parsed p;
    cr_assert_eq(parse(s, &p), MDAE_E_LIMIT);
}

Test(rpc_message, marks_invalid_requests_with_the_reason)
{
    const char *bad[] = {
        "1",
        "\"x\"",
        "{\"id\":1,\"method\":\"m\"}",
        "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"m\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":3}",
        "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"m\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":3}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rpc_parsed p;
        cr_assert_eq(parse(bad[i], &p), MDAE_OK, "%s", bad[i]);
        cr_assert_eq(p.msgs[0].kind, RPC_MSG_INVALID, "%s", bad[i]);
        cr_assert_not_null(p.msgs[0].why);
        rpc_parsed_close(&p);
    }
}

Test(rpc_message, keeps_the_id_of_an_invalid_request_when_readable)
{
    rpc_parsed p;
    cr_assert_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":5}", &p), MDAE_OK);
    cr_assert_eq(p.msgs[0].kind, RPC_MSG_INVALID);
    cr_assert_str_eq(p.msgs[0].id->valuestring, "abc");
    rpc_parsed_close(&p);
}

Test(rpc_message, parses_a_mixed_batch)
{
    rpc_parsed p;
    cr_assert_eq(parse("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"},"
                       " {\"jsonrpc\":\"2.0\",\"method\":\"n\"}, 3,"
                       " {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":0}]",
                       &p),
                 MDAE_OK);
    cr_assert(p.batch);
    cr_assert_eq(p.n, 4);
    cr_assert_eq(p.msgs[0].kind, RPC_MSG_REQUEST);
    cr_assert_eq(p.msgs[1].kind, RPC_MSG_NOTIFICATION);
    cr_assert_eq(p.msgs[2].kind, RPC_MSG_INVALID);
    cr_assert_eq(p.msgs[3].kind, RPC_MSG_RESPONSE);
    rpc_parsed_close(&p);
}

Test(rpc_message, answers_an_empty_batch_with_one_invalid_request)
{
    rpc_parsed p;
    cr_assert_eq(parse("[]", &p), MDAE_OK);
    cr_assert_not(p.batch);
    cr_assert_eq(p.n, 1);
    cr_assert_eq(p.msgs[0].kind, RPC_MSG_INVALID);
    rpc_parsed_close(&p);
}

static char *print(cJSON *j)
{
    char *s;
    size_t n;
    cr_assert_not_null(j);
    cr_assert_eq(rpc_print(j, &s, &n), MDAE_OK);
    cr_assert_eq(strlen(s), n);
    cJSON_Delete(j);
    return s;
}

Test(rpc_message, builds_results_and_reserved_errors)
{
    cJSON *id = cJSON_CreateNumber(3);
    char *s = print(rpc_response_result(id, cJSON_CreateTrue()));
    cr_assert_str_eq(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":true}");
    mdae_free(s);
    s = print(rpc_response_error(NULL, RPC_PARSE_ERROR, "Parse error", NULL));
    cr_assert_str_eq(s, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                        "\"message\":\"Parse error\"}}");
    mdae_free(s);
    s = print(rpc_response_error(id, RPC_METHOD_NOT_FOUND, "no such method: x", NULL));
    cr_assert(strstr(s, "\"code\":-32601") != NULL);
    mdae_free(s);
    s = print(rpc_response_result(id, NULL));
    cr_assert_str_eq(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":null}");
    mdae_free(s);
    cJSON_Delete(id);
}

Test(rpc_message, names_our_own_error_codes_in_data)
{
    cJSON *details = cJSON_CreateObject();
    cJSON_AddStringToObject(details, "cause", "signal SIGKILL");
    char *s = print(rpc_response_mdae(NULL, MDAE_E_PARSE, NULL, details));
    cr_assert(strstr(s, "\"code\":-32003") != NULL, "%s", s);
    cr_assert(strstr(s, "\"name\":\"MDAE_E_PARSE\"") != NULL, "%s", s);
    cr_assert(strstr(s, "\"cause\":\"signal SIGKILL\"") != NULL, "%s", s);
    cr_assert(strstr(s, "the model has syntax errors") != NULL, "%s", s);
    mdae_free(s);
    cr_assert_eq(rpc_error_code(MDAE_E_INVAL), RPC_INVALID_PARAMS);
    cr_assert_eq(rpc_error_code(MDAE_E_CANCELED), RPC_REQUEST_CANCELLED);
    cr_assert_eq(rpc_error_code(MDAE_E_TIMEOUT), -32010);
}

Test(rpc_message, builds_notifications_and_requests)
{
    cJSON *params = cJSON_CreateObject();
    cJSON_AddNumberToObject(params, "done", 1);
    char *s = print(rpc_notification_new("analysis/progress", params));
    cr_assert_str_eq(s, "{\"jsonrpc\":\"2.0\",\"method\":\"analysis/progress\","
                        "\"params\":{\"done\":1}}");
    mdae_free(s);
    cJSON *id = cJSON_CreateString("r1");
    s = print(rpc_request_new(id, "load", NULL));
    cr_assert_str_eq(s, "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"load\"}");
    mdae_free(s);
    cJSON_Delete(id);
}

Test(rpc_message, prints_no_raw_newline)
{
    cJSON *r = cJSON_CreateString("line1\nline2");
    char *s = print(rpc_response_result(NULL, r));
    cr_assert_null(strchr(s, '\n'));
    mdae_free(s);
}

/* ---- Allocation failures (test-loop-oom.c, *fault.test) ------------------- */

static long fail_after = -1; /* allocations left before failing; -1: never */
static long live;

static void *oom_malloc(size_t n)
{
    if (fail_after == 0)
        return NULL;
    if (fail_after > 0)
        fail_after--;
    void *p = malloc(n);
    live += p != NULL;
    return p;
}
static void *oom_realloc(void *p, size_t n)
{
    if (fail_after == 0)
        return NULL;
    if (fail_after > 0)
        fail_after--;
    return realloc(p, n);
}
static void *oom_calloc(size_t c, size_t n)
{
    if (fail_after == 0)
        return NULL;
    if (fail_after > 0)
        fail_after--;
    void *p = calloc(c, n);
    live += p != NULL;
    return p;
}
static void oom_free(void *p)
{
    live -= p != NULL;
    free(p);
}

Test(rpc_message, survives_every_allocation_failure_in_parse_and_build)
{
    mdae_allocator a = {oom_malloc, oom_realloc, oom_calloc, oom_free};
    cr_assert_eq(mdae_replace_allocator(&a), MDAE_OK);
    const char *in = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"params\":{\"x\":[1,2]}},"
                     "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]";
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; n < 10000; n++) {
        fail_after = n;
        live = 0;
        rpc_parsed p;
        rc = rpc_parse(in, strlen(in), &p);
        if (rc == MDAE_OK) {
            cJSON *r = rpc_response_mdae(p.msgs[0].id, MDAE_E_MODEL, NULL, cJSON_CreateObject());
            char *s = NULL;
            size_t len;
            if (r != NULL && rpc_print(r, &s, &len) == MDAE_OK)
                mdae_free(s);
            cJSON_Delete(r);
            rpc_parsed_close(&p);
            if (r != NULL && s != NULL)
                break;
        } else {
            /* cJSON reports its own allocation failures as bad JSON */
            cr_assert(rc == MDAE_E_NOMEM || rc == MDAE_E_PROTO, "n=%ld rc=%d", n, rc);
        }
        cr_assert_eq(live, 0, "n=%ld: %ld blocks leaked", n, live);
    }
    fail_after = -1;
    cr_assert_eq(rc, MDAE_OK);
    cr_assert_gt(n, 3, "allocation failures were exercised");
    mdae_replace_allocator(NULL);
}

/* ---- Printing: integers without printf ----------------------------------- */

/* A number a print might meet: integers of every size around 10^15 and
 * 2^53, fractions, negative zero, huge and tiny values, non-finite ones. */
static double some_number(unsigned *seed)
{
    static const double special[] = {0.0,    -0.0,   1.0,      -1.0,      0.5,     1e15,
                                     -1e15,  1e15 - 1, -(1e15 - 1), 1e15 + 1, 9007199254740992.0,
                                     1e300,  -1e-300, 123456789012345.0, 1.0 / 3};
    unsigned r = (unsigned)rand_r(seed);
    switch (r % 4) {
    case 0:
        return special[(r / 4) % (sizeof special / sizeof special[0])];
    case 1:
        return (double)((long long)rand_r(seed) * rand_r(seed) - (1ll << 50));
    case 2:
        return (double)rand_r(seed) / 7.0;
    default:
        return (double)(rand_r(seed) % 1000) - 500;
    }
}

/* A random tree of objects (keys copied or constant), arrays and numbers. */
static cJSON *some_tree(unsigned *seed, int depth)
{
    if (depth == 0 || rand_r(seed) % 3 == 0)
        return cJSON_CreateNumber(some_number(seed));
    bool obj = rand_r(seed) % 2;
    cJSON *t = obj ? cJSON_CreateObject() : cJSON_CreateArray();
    int n = rand_r(seed) % 6;
    for (int k = 0; k < n; k++) {
        cJSON *c = some_tree(seed, depth - 1);
        if (!obj)
            cJSON_AddItemToArray(t, c);
        else if (k % 2)
            cJSON_AddItemToObjectCS(t, "constant", c);
        else
            cJSON_AddItemToObject(t, "copied", c);
    }
    return t;
}

/* Every number of j's tree is a number again, with no text. */
static void numbers_back(const cJSON *j)
{
    for (; j != NULL; j = j->next) {
        cr_assert_neq(j->type & 0xFF, cJSON_Raw);
        if (cJSON_IsNumber(j))
            cr_assert_null(j->valuestring);
        numbers_back(j->child);
    }
}

Test(rpc_message, prints_integers_as_cjson_does_and_leaves_the_tree_as_it_was)
{
    unsigned seed = 1204;
    for (int round = 0; round < 300; round++) {
        cJSON *t = some_tree(&seed, 5);
        if (round % 10 == 0) { /* a reference: the same children reached twice */
            cJSON *w = cJSON_CreateArray();
            cJSON_AddItemToArray(w, t);
            cJSON_AddItemToArray(w, cJSON_CreateArrayReference(t->child));
            t = w;
        }
        for (int pretty = 0; pretty < 2; pretty++) {
            char *want = pretty ? cJSON_Print(t) : cJSON_PrintUnformatted(t);
            char *got = rpc_print_text(t, pretty);
            cr_assert_str_eq(got, want, "round %d", round);
            numbers_back(t);
            char *again = pretty ? cJSON_Print(t) : cJSON_PrintUnformatted(t);
            cr_assert_str_eq(again, want, "round %d: the tree changed", round);
            cJSON_free(want);
            cJSON_free(got);
            cJSON_free(again);
        }
        cJSON_Delete(t); /* a constant key freed here would fail under ASan */
    }
    cr_assert_null(rpc_print_text(NULL, false));
}

/* ---- Bytes (issue 37 item 6) ---------------------------------------------------- */

static int check(const char *s, size_t *at) { return rpc_check_bytes(s, strlen(s), at); }

Test(rpc_message, accepts_utf8_and_escapes_that_are_not_nul)
{
    size_t at = 99;
    cr_assert_eq(check("{\"method\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}", &at), MDAE_OK);
    cr_assert_eq(check("{\"a\":\"\\u0001 \\\\u0000 \\\" \\u00000\"}", &at), MDAE_E_INVAL,
                 "the last escape is a NUL then '0'");
    cr_assert_eq(check("{\"a\":\"\\\\u0000\"}", &at), MDAE_OK, "an escaped backslash, then text");
    cr_assert_eq(check("{\"a\":\"x\\\"\\u0000\"}", &at), MDAE_E_INVAL);
    cr_assert_eq(at, 9);
    cr_assert_eq(check("{\"\\u0000\":1}", &at), MDAE_E_INVAL, "in a key");
    cr_assert_eq(at, 2);
    cr_assert_eq(check("{\"a\":\"\\ud83d\\ude00\"}", &at), MDAE_OK);
}

Test(rpc_message, locates_invalid_utf8)
{
    static const struct {
        const char *s;
        size_t at;
    } bad[] = {
        {"\"ab\xff\"", 3},          /* never in UTF-8 */
        {"\"\xc0\xaf\"", 1},        /* overlong '/' */
        {"\"\xe0\x80\xaf\"", 1},    /* overlong, three bytes */
        {"\"\xed\xa0\x80\"", 1},    /* a surrogate */
        {"\"\xf4\x90\x80\x80\"", 1}, /* past U+10FFFF */
        {"\"x\x80\"", 2},           /* a lone continuation byte */
        {"\"\xc3\"", 1},            /* cut short by the quote */
        {"\"\xe2\x82", 1},          /* cut short by the end */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        size_t at = 99;
        cr_assert_eq(check(bad[k].s, &at), MDAE_E_PROTO, "case %zu", k);
        cr_assert_eq(at, bad[k].at, "case %zu: %zu", k, at);
    }
    size_t at = 99;
    cr_assert_eq(rpc_check_bytes("\"a\0b\"", 5, &at), MDAE_E_INVAL, "a raw NUL");
    cr_assert_eq(at, 2);
    /* any text (a file for the CLI): escapes mean nothing, only bytes */
    cr_assert(rpc_utf8_valid("\"\\u0000\" caf\xc3\xa9", 14, &at));
    cr_assert_not(rpc_utf8_valid("// caf\xe9\n", 9, &at));
    cr_assert_eq(at, 6);
}

Test(rpc_message, never_puts_invalid_utf8_in_an_error_message)
{
    cJSON *r = rpc_response_error(NULL, -32601, "Method not found: ab\xc3", NULL);
    const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "message")->valuestring;
    cr_assert_str_eq(m, "Method not found: ab?");
    cJSON_Delete(r);
    cr_assert_eq(rpc_utf8_prefix("x\xc3\xa9\xc3\xa9", 5, 2), 1, "not inside the first \xc3\xa9");
    cr_assert_eq(rpc_utf8_prefix("x\xc3\xa9\xc3\xa9", 5, 3), 3);
    cr_assert_eq(rpc_utf8_prefix("abc", 3, 10), 3);
}

/* The check reads plain bytes 8 at a time: every alignment of what it
 * must stop at. */
Test(rpc_message, finds_what_it_refuses_at_every_alignment)
{
    for (size_t k = 1; k < 40; k++) {
        char b[64];
        memset(b, 'a', sizeof b);
        b[0] = '"';
        b[sizeof b - 1] = '"';
        size_t at = 0;
        cr_assert_eq(rpc_check_bytes(b, sizeof b, &at), MDAE_OK, "k %zu", k);
        b[k] = (char)0xff;
        cr_assert_eq(rpc_check_bytes(b, sizeof b, &at), MDAE_E_PROTO, "k %zu", k);
        cr_assert_eq(at, k);
        memcpy(b + k, "\\u0000", 6);
        cr_assert_eq(rpc_check_bytes(b, sizeof b, &at), MDAE_E_INVAL, "k %zu", k);
        cr_assert_eq(at, k);
        b[k] = '\0';
        cr_assert_eq(rpc_check_bytes(b, sizeof b, &at), MDAE_E_INVAL, "k %zu", k);
        cr_assert_eq(at, k);
        memcpy(b + k, "\"\\u0000", 7); /* the string ends first: not a NUL in a string */
        cr_assert_eq(rpc_check_bytes(b, k + 7, &at), MDAE_OK, "k %zu", k);
    }
}
