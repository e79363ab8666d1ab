/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/security/test_sec_http.c -- the attacks of issue 37 items 2 and 6
 * against a real mdaed: what a foreign web page can make a browser send
 * (a text/plain post, a foreign Origin, a DNS-rebinding Host, a CORS
 * preflight), what a web root can hold (a symbolic link out of it, a
 * FIFO), the bytes a message can carry (NUL, invalid UTF-8) and guessed
 * access tokens. Each test failed on the server before issue 37 (d1f2380):
 * the attack went through, the server hung, or the bytes came back.
 */
#include "server/srv_test.h"

#include <sys/stat.h>

/* ---- Helpers ---------------------------------------------------------------- */

/* POST /rpc of body to p on a new connection (t_http_post: Host `host`,
 * the header lines `extra`, Content-Type `type`, each left out when NULL);
 * the status, the whole reply in *reply (caller frees). */
static int post(const srv_proc *p, const char *host, const char *extra, const char *type,
                const char *body, char **reply)
{
    return t_http_post(p->port, host, extra, type, body, SRV_TEST_WAIT_MS, reply);
}

/* The head of an HTTP reply only (up to the blank line), to look for
 * headers without matching the body. */
static bool head_has(const char *reply, const char *needle)
{
    const char *end = strstr(reply, "\r\n\r\n");
    const char *at = strstr(reply, needle);
    return at != NULL && end != NULL && at < end;
}

/* Is s (n bytes) well-formed UTF-8? (Unicode table 3-7, written again
 * here so that the test does not trust the server's own check.) */
static bool utf8_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char b = s[i];
        size_t k = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3
                             : b >= 0xF0 && b <= 0xF4                               ? 4
                                                                                    : 0;
        if (k == 0 || i + k > n)
            return false;
        unsigned lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80;
        unsigned hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
        if (k > 1 && (s[i + 1] < lo || s[i + 1] > hi))
            return false;
        for (size_t j = 2; j < k; j++)
            if (s[i + j] < 0x80 || s[i + j] > 0xBF)
                return false;
        i += k;
    }
    return true;
}

static double status_sessions(client *c)
{
    cJSON *r = cl_call(c, "{\"jsonrpc\":\"2.0\",\"id\":90,\"method\":\"server/status\"}");
    const cJSON *res = cJSON_GetObjectItem(r, "result");
    cr_assert_not_null(res, "server/status failed");
    double n = cJSON_GetObjectItem(res, "sessions")->valuedouble;
    cJSON_Delete(r);
    return n;
}

#define MODEL "x : real; e : equation 1 = der(x);"

/* ---- The browser boundary (issue 37 item 2) ------------------------------------ */

Test(sec_http, refuses_a_cross_origin_text_plain_post_and_the_session_survives)
{
    srv_proc p;
    client owner;
    char *h;
    srv_start(&p, "", "");
    cl_connect(&owner, &p);
    char *sid = cl_open(&owner, MODEL);
    cr_assert_eq(status_sessions(&owner), 1);
    char body[256], host[32], extra[200];
    snprintf(host, sizeof host, "127.0.0.1:%d", p.port);
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/close\",\"params\":{\"session\":"
             "\"%s\"}}",
             sid);
    /* The curl: a foreign page's simple request (no preflight). */
    int st = post(&p, host, "Origin: http://evil.example\r\n", "text/plain;charset=UTF-8", body,
                  &h);
    cr_assert(st == 403 || st == 415, "a foreign text/plain post got %d: %s", st, h);
    cr_assert_null(strstr(h, "\"result\""), "%s", h);
    free(h);
    /* Each condition alone: text/plain from no origin, JSON from another
     * origin, a form post, and a typeless body (fetch with a Blob). */
    const char *alone[][2] = {
        {"", "text/plain"},
        {"Origin: http://evil.example\r\n", T_JSON},
        {"Origin: null\r\n", T_JSON},
        {"", "application/x-www-form-urlencoded"},
        {"X-Nothing: 1\r\n", NULL},
    };
    for (size_t k = 0; k < sizeof alone / sizeof alone[0]; k++) {
        st = post(&p, host, alone[k][0], alone[k][1], body, &h);
        cr_assert(st == 403 || st == 415, "case %zu got %d: %s", k, st, h);
        free(h);
    }
    cr_assert_eq(status_sessions(&owner), 1, "the session was closed by a refused request");
    /* The web page's own request shape (clients/web/src/rpc.js) is still
     * served: same origin, application/json, with or without charset. */
    const char *page[] = {T_JSON, "application/json; charset=utf-8"};
    snprintf(extra, sizeof extra, "Origin: http://%s\r\nX-Mdae-Session: %s\r\n", host, sid);
    for (size_t k = 0; k < 2; k++) {
        st = post(&p, host, extra, page[k],
                  "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"server/status\"}", &h);
        cr_assert_eq(st, 200, "the page's request: %s", h);
        cr_assert_not_null(strstr(h, "\"result\""), "%s", h);
        cr_assert_not(head_has(h, "Access-Control-Allow-Origin"), "%s", h);
        free(h);
    }
    /* and its owner can still use it */
    cJSON *r = cl_request(&owner, 5, "session/close", session_params(sid));
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "result")), "%s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    free(sid);
    cl_close(&owner);
    srv_stop(&p);
}

Test(sec_http, refuses_a_dns_rebinding_host)
{
    srv_proc p;
    char *h;
    srv_start(&p, "", "");
    const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/status\"}";
    /* A rebinding page is same-origin with itself: its Host and Origin
     * agree, and both name the attacker's domain. */
    const char *hosts[] = {"evil.example:%d", "evil.example", "127.0.0.1.evil.example:%d",
                           "localhost:1", "[::1]:99999"};
    for (size_t k = 0; k < sizeof hosts / sizeof hosts[0]; k++) {
        char host[128], origin[180];
        snprintf(host, sizeof host, hosts[k], p.port);
        snprintf(origin, sizeof origin, "Origin: http://%s\r\n", host);
        int st = post(&p, host, origin, T_JSON, body, &h);
        cr_assert(st == 421 || st == 403, "Host %s got %d: %s", host, st, h);
        cr_assert_null(strstr(h, "\"result\""));
        cr_assert_null(strstr(h, "evil"), "the Host is echoed: %s", h);
        free(h);
    }
    /* Loopback names with the port, or without, are ours. */
    const char *ours[] = {"localhost:%d", "LOCALHOST", "127.0.0.1:%d", "[::1]:%d", "[::1]"};
    for (size_t k = 0; k < sizeof ours / sizeof ours[0]; k++) {
        char host[128];
        snprintf(host, sizeof host, ours[k], p.port);
        int st = post(&p, host, NULL, T_JSON, body, &h);
        cr_assert_eq(st, 200, "Host %s: %s", host, h);
        free(h);
    }
    srv_stop(&p);
}

Test(sec_http, sends_cors_headers_to_configured_origins_only)
{
    srv_proc p;
    char *h;
    srv_start(&p, "",
              "\"http\": {\"allowed_hosts\": [\"mdae.lan\"],"
              " \"allowed_origins\": [\"http://app.example\"]}");
    char host[32], req[512];
    const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/status\"}";
    /* a configured origin: served, with its CORS header */
    snprintf(host, sizeof host, "mdae.lan:%d", p.port);
    cr_assert_eq(post(&p, host, "Origin: http://app.example\r\n", T_JSON, body, &h), 200, "%s", h);
    cr_assert(head_has(h, "Access-Control-Allow-Origin: http://app.example\r\n"), "%s", h);
    free(h);
    /* its preflight */
    snprintf(req, sizeof req,
             "OPTIONS /rpc HTTP/1.1\r\nHost: mdae.lan\r\nOrigin: http://app.example\r\n"
             "Access-Control-Request-Method: POST\r\n"
             "Access-Control-Request-Headers: content-type, authorization\r\n"
             "Connection: close\r\nContent-Length: 0\r\n\r\n");
    cr_assert_eq(t_http_exchange(p.port, req, SRV_TEST_WAIT_MS, &h), 204, "%s", h);
    cr_assert(head_has(h, "Access-Control-Allow-Origin: http://app.example\r\n"), "%s", h);
    cr_assert(head_has(h, "Access-Control-Allow-Methods: POST"), "%s", h);
    cr_assert(head_has(h, "Content-Type"), "%s", h);
    free(h);
    /* another origin: no preflight, no post, no CORS header */
    snprintf(req, sizeof req,
             "OPTIONS /rpc HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://evil.example\r\n"
             "Access-Control-Request-Method: POST\r\n"
             "Connection: close\r\nContent-Length: 0\r\n\r\n",
             p.port);
    int st = t_http_exchange(p.port, req, SRV_TEST_WAIT_MS, &h);
    cr_assert(st >= 400, "%d: %s", st, h);
    cr_assert_not(head_has(h, "Access-Control"), "%s", h);
    free(h);
    /* the page's own origin: served, no CORS header (it needs none) */
    cr_assert_eq(post(&p, "mdae.lan", "Origin: http://mdae.lan\r\n", T_JSON, body, &h), 200, "%s",
                 h);
    cr_assert_not(head_has(h, "Access-Control"), "%s", h);
    free(h);
    srv_stop(&p);
}

/* ---- Static files (issue 37 item 6) ------------------------------------------------ */

/* A temporary web root holding index.html, a FIFO, a link to /etc, a link
 * to a file outside, and a link to a file inside. */
static void make_web_root(char *root, size_t size, char *outside, size_t osize)
{
    snprintf(root, size, "/tmp/mdae-sec-root-XXXXXX");
    cr_assert_not_null(mkdtemp(root));
    snprintf(outside, osize, "/tmp/mdae-sec-outside-XXXXXX");
    int ofd = mkstemp(outside);
    cr_assert_geq(ofd, 0);
    cr_assert_eq(write(ofd, "SECRET-OUTSIDE\n", 15), 15);
    close(ofd);
    char path[256];
    snprintf(path, sizeof path, "%s/index.html", root);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("<!doctype html><title>root</title>\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/pipe", root);
    cr_assert_eq(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/etc", root);
    cr_assert_eq(symlink("/etc", path), 0);
    snprintf(path, sizeof path, "%s/secret.txt", root);
    cr_assert_eq(symlink(outside, path), 0);
    snprintf(path, sizeof path, "%s/home.html", root);
    cr_assert_eq(symlink("index.html", path), 0);
}

static void start_with_root(srv_proc *p, const char *root)
{
    char top[300];
    snprintf(top, sizeof top, "\"web_root\": \"%s\"", root);
    srv_start(p, "", top);
}

/* GET path on a new connection (HTTP/1.0: the server closes); the status,
 * the whole reply in *reply (caller frees). */
static int http_get(const srv_proc *p, const char *path, char **reply)
{
    char req[512];
    snprintf(req, sizeof req, "GET %s HTTP/1.0\r\n\r\n", path);
    return t_http_exchange(p->port, req, SRV_TEST_WAIT_MS, reply);
}

Test(sec_http, does_not_follow_symlinks_out_of_the_web_root)
{
    char root[64], outside[64];
    make_web_root(root, sizeof root, outside, sizeof outside);
    srv_proc p;
    char *c;
    start_with_root(&p, root);
    int st = http_get(&p, "/etc/passwd", &c);
    cr_assert(st == 404 || st == 403, "/etc/passwd through a link: %d", st);
    cr_assert_null(strstr(c, "root:"), "%s", c);
    free(c);
    st = http_get(&p, "/etc/hostname", &c);
    cr_assert(st == 404 || st == 403, "/etc/hostname through a link: %d", st);
    free(c);
    st = http_get(&p, "/secret.txt", &c);
    cr_assert(st == 404 || st == 403, "a link to a file outside: %d", st);
    cr_assert_null(strstr(c, "SECRET-OUTSIDE"), "%s", c);
    free(c);
    /* inside the root, files and links to files inside are served */
    cr_assert_eq(http_get(&p, "/", &c), 200, "%s", c);
    free(c);
    cr_assert_eq(http_get(&p, "/home.html", &c), 200, "%s", c);
    cr_assert_not_null(strstr(c, "<title>root</title>"));
    free(c);
    srv_stop(&p);
    mdaed_remove_dir(root);
    unlink(outside);
}

Test(sec_http, answers_a_fifo_in_the_web_root_at_once_and_serves_others_meanwhile)
{
    char root[64], outside[64];
    make_web_root(root, sizeof root, outside, sizeof outside);
    srv_proc p;
    client c, other;
    start_with_root(&p, root);
    char req[128];
    snprintf(req, sizeof req, "GET /pipe HTTP/1.0\r\n\r\n");
    cl_connect(&c, &p);
    uint64_t t0 = t_now_ms();
    cl_send(&c, req);
    /* another client is answered within 1 s while the FIFO request is out */
    t_sleep_ms(50);
    cl_connect(&other, &p);
    cl_send(&other, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/status\"}\n");
    bool answered = cl_fill(&other, 1000);
    cr_assert(answered, "the server hung on a FIFO: another client waited over 1 s");
    cl_close(&other);
    bool got = cl_fill(&c, 1000);
    cr_assert(got, "no answer to GET /pipe within 1 s");
    cl_read_all(&c);
    int st = t_http_status(c.buf);
    cr_assert(st == 404 || st == 403, "GET /pipe: %d: %s", st, c.buf);
    cr_assert_lt(t_now_ms() - t0, 2000);
    cl_close(&c);
    srv_stop(&p);
    mdaed_remove_dir(root);
    unlink(outside);
}

/* ---- Bytes (issue 37 item 6) ----------------------------------------------------------- */

/* r is an error that says a NUL is not allowed, at byte offset `at`. */
static void assert_nul_error(const cJSON *r, size_t at)
{
    cr_assert_null(cJSON_GetObjectItem(r, "result"), "accepted: %s", cJSON_PrintUnformatted(r));
    int code = error_code(r);
    cr_assert(code == -32600 || code == -32602 || code == -32700, "code %d", code);
    cr_assert_not_null(strstr(error_message(r), "NUL"), "%s", error_message(r));
    const cJSON *off = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data");
    off = cJSON_GetObjectItem(off, "offset");
    cr_assert(cJSON_IsNumber(off), "no offset: %s", cJSON_PrintUnformatted(r));
    cr_assert_eq((size_t)off->valuedouble, at, "offset %g, want %zu", off->valuedouble, at);
}

Test(sec_http, refuses_a_nul_in_a_method_an_id_a_session_id_and_a_text)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    char *sid = cl_open(&c, MODEL);
    const char *method = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/status\\u0000junk\"}";
    cJSON *r = cl_call(&c, method);
    assert_nul_error(r, (size_t)(strstr(method, "\\u0000") - method));
    cJSON_Delete(r);
    const char *id = "{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0000b\",\"method\":\"server/status\"}";
    r = cl_call(&c, id);
    assert_nul_error(r, (size_t)(strstr(id, "\\u0000") - id));
    cJSON_Delete(r);
    char close[256];
    snprintf(close, sizeof close,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/close\",\"params\":{\"session\":"
             "\"%s\\u0000x\"}}",
             sid);
    r = cl_call(&c, close);
    assert_nul_error(r, (size_t)(strstr(close, "\\u0000") - close));
    cJSON_Delete(r);
    cr_assert_eq(status_sessions(&c), 1, "a session id cut at its NUL closed %s", sid);
    const char *text = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/open\",\"params\":{"
                       "\"text\":\"x : real; e : equation 1 = der(x);\\u0000 this is not MEL\"}}";
    r = cl_call(&c, text);
    assert_nul_error(r, (size_t)(strstr(text, "\\u0000") - text));
    cJSON_Delete(r);
    cr_assert_eq(status_sessions(&c), 1, "a text cut at its NUL was opened");
    /* a raw NUL byte is refused too (and the escaped backslash is not a NUL) */
    static const char raw[] = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"a\0b\"}\n";
    cl_send_raw(&c, raw, sizeof raw - 1);
    r = cl_json(&c);
    assert_nul_error(r, (size_t)(strchr(raw, 'a') + 1 - raw));
    cJSON_Delete(r);
    r = cl_call(&c, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"no\\\\u0000such\"}");
    cr_assert_eq(error_code(r), -32601, "an escaped backslash then u0000 is no NUL");
    cJSON_Delete(r);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
}

Test(sec_http, locates_invalid_utf8_and_never_echoes_it)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    /* an unknown method whose name is not UTF-8: a 0xFF, an overlong '/',
     * a UTF-16 surrogate, a lone continuation byte */
    const char *bad[] = {"no/such\xff\xfe", "no\xc0\xafsuch", "no\xed\xa0\x80such", "x\x80y"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char line[256];
        snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"%s\"}", k + 1,
                 bad[k]);
        size_t at = (size_t)(strstr(line, bad[k]) - line);
        while ((unsigned char)line[at] < 0x80)
            at++;
        cl_send(&c, line);
        cl_send(&c, "\n");
        char *reply = cl_line(&c);
        cr_assert_not_null(reply);
        cr_assert(utf8_ok((const unsigned char *)reply, strlen(reply)),
                  "case %zu: invalid UTF-8 echoed back: %s", k, reply);
        cJSON *r = cJSON_Parse(reply);
        cr_assert_eq(error_code(r), -32700, "case %zu: %s", k, reply);
        const cJSON *off =
            cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data"),
                                "offset");
        cr_assert(cJSON_IsNumber(off), "case %zu: no offset: %s", k, reply);
        cr_assert_eq((size_t)off->valuedouble, at, "case %zu", k);
        cJSON_Delete(r);
        free(reply);
    }
    /* A valid name cut by the server's message is never cut inside a
     * character: "x" then 100 two-byte letters. */
    char line[512] = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x";
    for (int i = 0; i < 100; i++)
        strcat(line, "\xc3\xa9");
    strcat(line, "\"}");
    cl_send(&c, line);
    cl_send(&c, "\n");
    char *reply = cl_line(&c);
    cr_assert_not_null(reply);
    cr_assert(utf8_ok((const unsigned char *)reply, strlen(reply)), "cut inside a character: %s",
              reply);
    cJSON *r = cJSON_Parse(reply);
    cr_assert_eq(error_code(r), -32601, "%s", reply);
    cJSON_Delete(r);
    free(reply);
    /* the connection and the server go on */
    cr_assert_eq(status_sessions(&c), 0);
    cl_close(&c);
    srv_stop(&p);
}

/* server/status over LSP framing: its "sessions". */
static double status_sessions_lsp(client *c)
{
    cl_lsp_send(c, "server/status", 91, NULL);
    for (;;) {
        cJSON *r = cl_lsp_json(c);
        cr_assert_not_null(r);
        const cJSON *res = cJSON_GetObjectItem(r, "result");
        if (res != NULL) {
            double n = cJSON_GetObjectItem(res, "sessions")->valuedouble;
            cJSON_Delete(r);
            return n;
        }
        cJSON_Delete(r);
    }
}

/* The LSP path: a document whose text holds a NUL, or is not UTF-8, is
 * refused with a located error and never opened cut. */
Test(sec_http, refuses_a_nul_and_invalid_utf8_in_an_lsp_document)
{
    srv_proc p;
    client c;
    srv_start(&p, "", "");
    cl_connect(&c, &p);
    cJSON_Delete(cl_lsp_initialize(&c));
    const char *docs[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":"
        "{\"uri\":\"file:///a.mel\",\"languageId\":\"mel\",\"version\":1,"
        "\"text\":\"x : real;\\u0000 e : equation 1 = der(x);\"}}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":"
        "{\"uri\":\"file:///b.mel\",\"languageId\":\"mel\",\"version\":1,"
        "\"text\":\"x : real; // caf\xe9\\n e : equation 1 = der(x);\"}}}",
    };
    for (size_t k = 0; k < 2; k++) {
        char hdr[64];
        snprintf(hdr, sizeof hdr, "Content-Length: %zu\r\n\r\n", strlen(docs[k]));
        cl_send(&c, hdr);
        cl_send(&c, docs[k]);
        char *body = cl_lsp(&c);
        cr_assert_not_null(body, "no answer to a bad didOpen %zu", k);
        cr_assert(utf8_ok((const unsigned char *)body, strlen(body)), "echoed: %s", body);
        cJSON *r = cJSON_Parse(body);
        cr_assert_not_null(cJSON_GetObjectItem(r, "error"), "case %zu: %s", k, body);
        const cJSON *off =
            cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data"),
                                "offset");
        cr_assert(cJSON_IsNumber(off), "case %zu: %s", k, body);
        cJSON_Delete(r);
        free(body);
    }
    cr_assert_eq(status_sessions_lsp(&c), 0);
    cl_close(&c);
    srv_stop(&p);
}

/* ---- Guessed tokens (issue 37 item 6) ------------------------------------------------ */

#define FAIL_DELAY_MS 10
#define MAX_FAILURES 5

/* The delay of the n-th recent failure from one address (n from 0). */
static uint64_t fail_delay(int n) { return (uint64_t)FAIL_DELAY_MS << (n < 4 ? n : 4); }

/* The error's data.retryAfterMs (0 when absent). */
static uint64_t retry_after(const cJSON *r)
{
    const cJSON *v = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data"), "retryAfterMs");
    return cJSON_IsNumber(v) ? (uint64_t)v->valuedouble : 0;
}

#define RIGHT                                                                              \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"auth\",\"params\":{\"token\":\"s3cret-token\"}}"
#define WRONG "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"auth\",\"params\":{\"token\":\"guess\"}}"

Test(sec_http, slows_down_wrong_tokens_and_closes_after_too_many)
{
    srv_proc p;
    client c, other;
    char top[200];
    snprintf(top, sizeof top,
             "\"token\": \"s3cret-token\", \"auth\": {\"fail_delay_ms\": %d, \"max_failures\": %d}",
             FAIL_DELAY_MS, MAX_FAILURES);
    srv_start(&p, "", top);
    /* 20 wrong tokens, as fast as the server lets us: 5 per connection,
     * answered after 10, 20, 40, 80, then 160 ms each (docs/security.md) */
    uint64_t want_total = 0;
    for (int n = 0; n < 20; n++)
        want_total += fail_delay(n);
    uint64_t t0 = t_now_ms();
    int tried = 0, conns = 0;
    while (tried < 20) {
        cl_connect(&c, &p);
        conns++;
        for (int k = 0; k < MAX_FAILURES && tried < 20; k++, tried++) {
            uint64_t s = t_now_ms();
            cl_send(&c, WRONG "\n");
            uint64_t want = fail_delay(tried);
            if (tried == 19) { /* the loop is not blocked while a failure waits */
                cl_connect_unix(&other, &p);
                cr_assert_eq(status_sessions(&other), 0);
                cr_assert_lt(t_now_ms() - s, want - 50,
                             "another client waited for a failure's delay");
                cl_close(&other);
            }
            cJSON *r = cl_json(&c);
            cr_assert_eq(error_code(r), -32099);
            cr_assert_eq(retry_after(r), 0, "failure %d was not checked", tried + 1);
            cJSON_Delete(r);
            cr_assert_geq(t_now_ms() - s, want - 2, "failure %d answered after %llu ms",
                          tried + 1, (unsigned long long)(t_now_ms() - s));
        }
        cr_assert(cl_wait_eof(&c), "the connection was not closed after %d failures",
                  MAX_FAILURES);
        cl_close(&c);
    }
    uint64_t took = t_now_ms() - t0;
    cr_assert_eq(conns, 4);
    cr_assert_geq(took, want_total - 10, "20 wrong tokens took %llu ms, want >= %llu",
                  (unsigned long long)took, (unsigned long long)want_total);
    /* Guesses in parallel gain nothing: a second token on the connection
     * is not checked, nor a token from another connection of the same
     * address while it is locked (the right one included), over NDJSON
     * and HTTP. */
    cl_connect(&c, &p);
    cl_send(&c, WRONG "\n");
    cl_send(&c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"auth\","
                "\"params\":{\"token\":\"s3cret-token\"}}\n");
    cJSON *r = cl_json(&c);
    cr_assert_eq(error_code(r), -32099, "a pipelined token was checked");
    cJSON_Delete(r);
    cr_assert(cl_wait_eof(&c));
    cl_close(&c);
    cl_connect(&other, &p);
    r = cl_call(&other, RIGHT);
    cr_assert_eq(error_code(r), -32099, "a token was checked while its address was locked");
    uint64_t wait = retry_after(r);
    cr_assert(wait > 0 && wait <= fail_delay(4), "retryAfterMs %llu", (unsigned long long)wait);
    cJSON_Delete(r);
    cr_assert(cl_wait_eof(&other));
    cl_close(&other);
    const char *status = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/status\"}";
    char *h;
    cr_assert_eq(post(&p, "127.0.0.1", "Authorization: Bearer s3cret-token\r\n", T_JSON, status,
                      &h),
                 429, "%s", h);
    cr_assert(head_has(h, "Retry-After: "), "%s", h);
    free(h);
    /* once the lock is over: a wrong Bearer token is answered late */
    t_sleep_ms((int)fail_delay(4) + 20);
    uint64_t s = t_now_ms();
    cr_assert_eq(post(&p, "127.0.0.1", "Authorization: Bearer guess\r\n", T_JSON, status, &h), 401,
                 "%s", h);
    cr_assert_geq(t_now_ms() - s, FAIL_DELAY_MS - 2);
    free(h);
    /* and the right token, on a fresh connection, once the lock is over */
    t_sleep_ms((int)fail_delay(4) + 20);
    cl_connect(&c, &p);
    s = t_now_ms();
    r = cl_call(&c, RIGHT);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "result")), "%s", cJSON_PrintUnformatted(r));
    cr_assert_lt(t_now_ms() - s, 1000);
    cJSON_Delete(r);
    cr_assert_eq(status_sessions(&c), 0);
    cl_close(&c);
    srv_stop(&p);
}

/* Client bytes reach the log (a payload at debug level, a method name), so
 * the log escapes what a reader could be fooled by: a raw newline in an
 * LSP body would otherwise start a forged line, and bytes that are not
 * UTF-8 would reach the terminal. Every line of the log is one event
 * (it starts with the time and "mdaed[") and is valid UTF-8. */
Test(sec_http, keeps_client_bytes_from_forging_or_breaking_log_lines)
{
    srv_proc p;
    srv_start_logged(&p, "debug", "", "");
    client c;
    cl_connect(&c, &p);
    const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\n"
                        "12:00:00.000 mdaed[1] ERROR forged\xff\"}";
    char head[64];
    snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", sizeof body - 1);
    cl_send(&c, head);
    cl_send_raw(&c, body, sizeof body - 1);
    char *reply = cl_lsp(&c);
    cr_assert_not_null(reply, "the bad body is answered");
    free(reply);
    cl_close(&c);
    char path[128];
    srv_log_path(&p, path, sizeof path);
    char *log = t_read_file(path);
    cr_assert_not_null(log);
    cr_assert_not_null(strstr(log, "forged\\xff"), "the payload is in the log, escaped:\n%s", log);
    cr_assert(utf8_ok((const unsigned char *)log, strlen(log)), "the log is UTF-8");
    for (const char *line = log; *line != '\0';) {
        const char *end = strchr(line, '\n');
        cr_assert(strlen(line) > 13 && line[2] == ':' && strncmp(line + 13, "mdaed[", 6) == 0,
                  "a line that is not an event: %.*s", (int)(end ? end - line : 40), line);
        cr_assert_neq(strncmp(line, "12:00:00.000 mdaed[1] ERROR forged", 34), 0,
                      "a client forged a line of the log");
        line = end ? end + 1 : line + strlen(line);
    }
    free(log);
    cr_assert_eq(mdaed_stop(&p), 0);
}
