/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_relay.c -- the relay's contract (protocol/
 * rpc_relay.h): the reader accepts what the worker's writer prints and
 * nothing that rpc_parse would read otherwise; the client's response is the
 * bytes the old path (parse, then rpc_print) gave. Random trees and random
 * corruptions of them are seeded: MDAE_SEED=... replays a failure.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail_alloc.h"
#include "rpc_message.h"
#include "rpc_relay.h"
#include "test_env.h"

static void setup(void) { rpc_message_init(); }

TestSuite(rpc_relay, .init = setup);

/* ---- Helpers -------------------------------------------------------------------- */

static char *print(const cJSON *j)
{
    char *s;
    size_t n;
    cr_assert_eq(rpc_print(j, &s, &n), MDAE_OK);
    return s;
}

static int read_str(const char *s, rpc_relay_head *h) { return rpc_relay_read(s, strlen(s), h); }

static bool span_is(rpc_span sp, const char *text)
{
    return text == NULL ? sp.p == NULL
                        : sp.p != NULL && sp.len == strlen(text) && memcmp(sp.p, text, sp.len) == 0;
}

/* The worker's frame for request id: rpc_response_result (or an error)
 * with "stats" after, printed by rpc_print, as wk_main.c sends it. */
static char *worker_frame(double id, const cJSON *result, const cJSON *stats)
{
    cJSON *idj = cJSON_CreateNumber(id);
    cJSON *resp = rpc_response_result(idj, cJSON_Duplicate(result, true));
    if (stats != NULL)
        cJSON_AddItemToObject(resp, "stats", cJSON_Duplicate(stats, true));
    char *s = print(resp);
    cJSON_Delete(resp);
    cJSON_Delete(idj);
    return s;
}

/* What rpc_parse makes of body agrees with the relay's reading: a response
 * with the same id, and each member the relay saw has the same value
 * (what cJSON makes of the span is what it makes of the member). */
static void assert_parse_agrees(const char *body, size_t len, const rpc_relay_head *h)
{
    rpc_parsed p = {0};
    cr_assert_eq(rpc_parse(body, len, &p), MDAE_OK, "rpc_parse refuses %.*s", (int)len, body);
    cr_assert_not(p.batch);
    const rpc_msg *m = &p.msgs[0];
    cr_assert_eq(m->kind, RPC_MSG_RESPONSE, "%.*s", (int)len, body);
    cr_assert(cJSON_IsNumber(m->id));
    cr_assert_eq((uint64_t)m->id->valuedouble, h->id);
    const char *names[] = {"result", "error", "stats"};
    const rpc_span spans[] = {h->result, h->error, h->stats};
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(p.root, names[i]);
        cr_assert_eq(v != NULL, spans[i].p != NULL, "%s in %.*s", names[i], (int)len, body);
        if (v == NULL)
            continue;
        /* Printed, not cJSON_Compare: that one looks duplicate keys up. */
        cJSON *mine = cJSON_ParseWithLength(spans[i].p, spans[i].len);
        cr_assert_not_null(mine);
        char *a = print(mine), *b = print(v);
        cr_assert_str_eq(a, b, "%s differs in %.*s", names[i], (int)len, body);
        free(a);
        free(b);
        cJSON_Delete(mine);
    }
    rpc_parsed_close(&p);
}

/* ---- The writer's frames ------------------------------------------------------------ */

Test(rpc_relay, reads_a_result_and_its_stats_as_the_worker_prints_them)
{
    cJSON *res = cJSON_Parse("{\"status\":\"nonsingular\",\"blocks\":[[1,2],[]],\"x\":-1.5e-7}");
    cJSON *st = cJSON_Parse("{\"analysed\":true,\"reuse\":{\"components\":3}}");
    char *s = worker_frame(42, res, st);
    rpc_relay_head h;
    cr_assert_eq(read_str(s, &h), MDAE_OK, "%s", s);
    cr_assert_eq(h.id, 42);
    char *rs = print(res), *ss = print(st);
    cr_assert(span_is(h.result, rs));
    cr_assert(span_is(h.stats, ss));
    cr_assert(span_is(h.error, NULL));
    assert_parse_agrees(s, strlen(s), &h);
    free(rs);
    free(ss);
    free(s);
    cJSON_Delete(res);
    cJSON_Delete(st);
}

Test(rpc_relay, reads_errors_as_the_worker_prints_them)
{
    cJSON *id = cJSON_CreateNumber(7);
    cJSON *d = cJSON_Parse("{\"diagnostics\":[{\"line\":1,\"message\":\"a \\\"b\\\"\\n\"}]}");
    cJSON *msgs[] = {rpc_response_mdae(id, MDAE_E_PARSE, NULL, d),
                     rpc_response_error(id, RPC_INVALID_PARAMS, "\"text\" is required", NULL)};
    for (int i = 0; i < 2; i++) {
        char *s = print(msgs[i]);
        rpc_relay_head h;
        cr_assert_eq(read_str(s, &h), MDAE_OK, "%s", s);
        cr_assert_eq(h.id, 7);
        cr_assert(span_is(h.result, NULL));
        char *es = print(cJSON_GetObjectItem(msgs[i], "error"));
        cr_assert(span_is(h.error, es), "%s", s);
        assert_parse_agrees(s, strlen(s), &h);
        free(es);
        free(s);
        cJSON_Delete(msgs[i]);
    }
    cJSON_Delete(id);
}

Test(rpc_relay, reads_every_kind_of_result)
{
    const char *results[] = {"null", "true", "false", "0", "-0.5", "1e+300", "\"\"",
                             "\"\\u0001\\t\\\\ \xc3\xa9\"", "[]", "{}", "[[[]],{}]",
                             "{\"\":{\"a\":[null,1,\"x\"]}}"};
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++) {
        cJSON *r = cJSON_Parse(results[i]);
        cr_assert_not_null(r, "%s", results[i]);
        char *s = worker_frame(1, r, NULL);
        rpc_relay_head h;
        cr_assert_eq(read_str(s, &h), MDAE_OK, "%s", s);
        cr_assert(span_is(h.result, results[i]), "%s", s);
        assert_parse_agrees(s, strlen(s), &h);
        free(s);
        cJSON_Delete(r);
    }
}

/* ---- What it leaves to rpc_parse ------------------------------------------------------ */

Test(rpc_relay, refuses_every_truncation_of_a_response)
{
    cJSON *res = cJSON_Parse("{\"a\":[1,2.5,\"x\\\"y\",true,null,{\"b\":false}],\"c\":-3e-2}");
    cJSON *st = cJSON_Parse("{\"analysed\":false}");
    char *s = worker_frame(123, res, st);
    size_t n = strlen(s);
    rpc_relay_head h;
    cr_assert_eq(rpc_relay_read(s, n, &h), MDAE_OK);
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(rpc_relay_read(s, k, &h), MDAE_E_PROTO, "prefix of %zu bytes", k);
    free(s);
    cJSON_Delete(res);
    cJSON_Delete(st);
}

Test(rpc_relay, leaves_other_shapes_to_rpc_parse)
{
    const char *bodies[] = {
        "",
        "garbage",
        "{\"jsonrpc\":\"2.0\",\"method\":\"analysis/progress\",\"params\":{\"id\":1}}",
        "{\"jsonrpc\":\"2.0\",\"result\":1}",                  /* no id */
        "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}",     /* a string id */
        "{\"jsonrpc\":\"2.0\",\"id\":-1,\"result\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1.0,\"result\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1e3,\"result\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":01,\"result\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1234567890123456,\"result\":1}", /* 16 digits */
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":1}",
        "{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":1}",         /* another order */
        "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1}",                      /* neither */
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"error\":{}}", /* both */
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"result\":2}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"extra\":2}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"result\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n",        /* white space */
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\": 1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[1, 2]}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}}",         /* trailing bytes */
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}x",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[1,]}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1,}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{1:1}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":tru}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":nul}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":01}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1.}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":.5}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":+1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1e}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":-}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1234567890123456789012345678901234567890123}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\\x\"}",    /* a bad escape */
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\\u12\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\\u0000\"}", /* NUL: cJSON cuts there */
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\\ud83d\\ude00\"}", /* surrogates */
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\\udc00\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"a\tb\"}",     /* a raw control character */
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"open}",
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}]",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        rpc_relay_head h = {.id = 99};
        cr_assert_eq(read_str(bodies[i], &h), MDAE_E_PROTO, "accepted %s", bodies[i]);
        cr_assert_eq(h.id, 99, "*out untouched");
    }
}

Test(rpc_relay, accepts_no_nesting_that_rpc_parse_refuses)
{
    char body[512];
    for (int depth = 1; depth <= 70; depth++) {
        int n = snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":");
        for (int i = 0; i < depth; i++)
            body[n++] = '[';
        body[n++] = '0'; /* a value inside the deepest, as deeper_than counts */
        for (int i = 0; i < depth; i++)
            body[n++] = ']';
        body[n++] = '}';
        rpc_relay_head h;
        rpc_parsed p;
        int relay = rpc_relay_read(body, (size_t)n, &h);
        int parse = rpc_parse(body, (size_t)n, &p);
        if (parse == MDAE_OK)
            rpc_parsed_close(&p);
        cr_assert(relay != MDAE_OK || parse == MDAE_OK, "depth %d: relayed, rpc_parse refuses",
                  depth);
        /* The limit is the same: up to RPC_MAX_DEPTH containers with the envelope. */
        cr_assert_eq(relay == MDAE_OK, depth < RPC_MAX_DEPTH, "depth %d", depth);
    }
}

/* ---- Random trees and random corruptions -------------------------------------------- */

static uint64_t rng;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static cJSON *random_string(void)
{
    static const char *pieces[] = {"a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x1f",
                                   "\xc3\xa9", "\xe2\x86\x92", "\xff", "{", "]", ":", ","};
    char buf[64] = "";
    for (unsigned k = rnd(8); k > 0; k--)
        strcat(buf, pieces[rnd(sizeof pieces / sizeof pieces[0])]);
    return cJSON_CreateString(buf);
}

static cJSON *random_number(void)
{
    switch (rnd(5)) {
    case 0:
        return cJSON_CreateNumber((double)rnd(100000) - 50000);
    case 1:
        return cJSON_CreateNumber(((double)rnd(1000000) - 500000) / 1024.0);
    case 2:
        return cJSON_CreateNumber(ldexp((double)rnd(1u << 30) + 1, (int)rnd(200) - 100));
    case 3:
        return cJSON_CreateNumber(-ldexp(1.0 / 3.0, (int)rnd(2000) - 1000));
    default:
        return cJSON_CreateNumber(1e300 * (double)rnd(10));
    }
}

static cJSON *random_tree(int depth)
{
    unsigned k = rnd(depth > 5 ? 5 : 7);
    if (k < 5) {
        switch (k) {
        case 0:
            return cJSON_CreateNull();
        case 1:
            return cJSON_CreateBool(rnd(2));
        case 2:
        case 3:
            return random_number();
        default:
            return random_string();
        }
    }
    cJSON *c = k == 5 ? cJSON_CreateArray() : cJSON_CreateObject();
    for (unsigned n = rnd(5); n > 0; n--) {
        cJSON *item = random_tree(depth + 1);
        if (k == 5) {
            cJSON_AddItemToArray(c, item);
        } else {
            cJSON *key = random_string();
            cJSON_AddItemToObject(c, key->valuestring, item);
            cJSON_Delete(key);
        }
    }
    return c;
}

/* One byte changed, removed or inserted (from JSON's own alphabet mostly,
 * which is where a near miss hides). */
static size_t corrupt(char *s, size_t n)
{
    static const char bytes[] = "{}[]\",:\\0123456789-+.eEtrufalsn \n\x01\xc3";
    size_t at = rnd((unsigned)n);
    char b = bytes[rnd(sizeof bytes - 1)];
    switch (rnd(3)) {
    case 0:
        s[at] = b;
        return n;
    case 1:
        memmove(s + at, s + at + 1, n - at - 1);
        return n - 1;
    default:
        memmove(s + at + 1, s + at, n - at);
        s[at] = b;
        return n + 1;
    }
}

Test(rpc_relay, agrees_with_rpc_parse_on_random_responses_and_their_corruptions)
{
    rng = env_u64("MDAE_SEED", 0x9e3779b97f4a7c15u) | 1;
    uint64_t seed = rng;
    int relayed = 0;
    for (int t = 0; t < 3000; t++) {
        cJSON *res = random_tree(0);
        cJSON *st = rnd(2) ? random_tree(0) : NULL;
        uint64_t id = rnd(1000000) + 1;
        char *s = worker_frame((double)id, res, st);
        size_t n = strlen(s);
        rpc_relay_head h;
        cr_assert_eq(rpc_relay_read(s, n, &h), MDAE_OK, "seed %llu: %s",
                     (unsigned long long)seed, s);
        cr_assert_eq(h.id, id);
        char *rs = print(res);
        cr_assert(span_is(h.result, rs), "the result's bytes are rpc_print's: %s", s);
        free(rs);
        assert_parse_agrees(s, n, &h);
        char *c = malloc(n + 16);
        memcpy(c, s, n);
        size_t m = n;
        for (int k = 1 + (int)rnd(3); k > 0 && m > 1; k--)
            m = corrupt(c, m);
        if (rpc_relay_read(c, m, &h) == MDAE_OK) {
            assert_parse_agrees(c, m, &h);
            relayed++;
        }
        free(c);
        free(s);
        cJSON_Delete(res);
        cJSON_Delete(st);
    }
    cr_log_info("%d corrupted responses still relayed (each as rpc_parse reads it)", relayed);
}

/* ---- The client's response ------------------------------------------------------------ */

/* The old path's bytes: the result parsed, "key":value added, the response
 * built for id and printed. */
static char *old_path(const cJSON *id, const char *result, const char *key, const cJSON *value)
{
    cJSON *res = cJSON_Parse(result);
    cr_assert_not_null(res, "%s", result);
    if (key != NULL && cJSON_IsObject(res))
        cJSON_AddItemToObject(res, key, cJSON_Duplicate(value, true));
    cJSON *resp = rpc_response_result(id, res);
    char *s = print(resp);
    cJSON_Delete(resp);
    return s;
}

Test(rpc_relay, gives_the_client_the_bytes_of_the_old_path)
{
    const char *ids[] = {"1", "0", "-7", "2.5", "1e+300", "null", "\"abc\"",
                         "\"a\\\"b\\\\c\\n\\u0001 \xc3\xa9 \\u00e9\"", "\"\""};
    const char *results[] = {"{\"status\":\"nonsingular\",\"n\":[1,2]}", "{}", "[1,{}]",
                             "\"text\"", "null", "3.5", "{\"reuse\":1}"};
    cJSON *value = cJSON_Parse("{\"components\":3,\"parts\":[{\"method\":\"implicit\"}]}");
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        for (size_t j = 0; j < sizeof results / sizeof results[0]; j++)
            for (int with = 0; with < 2; with++) {
                cJSON *id = cJSON_Parse(ids[i]);
                const char *key = with ? "reuse" : NULL;
                char *want = old_path(id, results[j], key, value);
                char *got;
                size_t len;
                cr_assert_eq(rpc_relay_response(id, results[j], strlen(results[j]), key, value,
                                                &got, &len),
                             MDAE_OK);
                cr_assert_str_eq(got, want, "id %s, result %s, key %s", ids[i], results[j],
                                 key ? key : "-");
                cr_assert_eq(len, strlen(want));
                mdae_free(got);
                free(want);
                cJSON_Delete(id);
            }
    cJSON_Delete(value);
}

Test(rpc_relay, gives_a_null_id_for_no_id)
{
    char *got;
    size_t len;
    cr_assert_eq(rpc_relay_response(NULL, "1", 1, NULL, NULL, &got, &len), MDAE_OK);
    cr_assert_str_eq(got, "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":1}");
    mdae_free(got);
}

Test(rpc_relay, fails_cleanly_when_out_of_memory)
{
    cJSON *id = cJSON_CreateString("req-1");
    cJSON *value = cJSON_Parse("{\"components\":3}");
    cr_assert_eq(mdae_replace_allocator(&counting_allocator), MDAE_OK);
    int rc = MDAE_E_NOMEM;
    long n;
    for (n = 0; n < 1000 && rc == MDAE_E_NOMEM; n++) {
        counting_arm(n);
        char *got = NULL;
        size_t len;
        rc = rpc_relay_response(id, "{\"a\":1}", 7, "reuse", value, &got, &len);
        mdae_free(got);
        cr_assert(rc == MDAE_OK || rc == MDAE_E_NOMEM, "allocation %ld: %s", n, mdae_err_name(rc));
        cr_assert_eq(live, 0, "allocation %ld failing leaks %ld blocks", n, live);
    }
    counting_arm(-1);
    mdae_replace_allocator(NULL);
    cr_assert_eq(rc, MDAE_OK);
    cr_assert_gt(n, 3, "every allocation was tried");
    cJSON_Delete(id);
    cJSON_Delete(value);
}
