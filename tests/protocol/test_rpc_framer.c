/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/protocol/test_rpc_framer.c -- framing detection and the three
 * framings, driven with byte strings: whole, split at every byte boundary,
 * coalesced, oversized, garbage.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <dirent.h>
#include <stdlib.h>

#include "rpc_framer.h"
#include "rpc_message.h"

#include "fail_alloc.h"

#define MAXF 16

typedef struct sink {
    int n;
    char body[MAXF][256];
    size_t len[MAXF];
    rpc_framing framing[MAXF];
    rpc_http_method method[MAXF];
    char url[MAXF][64];
    char auth[MAXF][64];
    char owner[MAXF][300];
    char host[MAXF][64], origin[MAXF][64], ctype[MAXF][64]; /* "-": absent */
    bool duplicate[MAXF];
    bool keep_alive[MAXF];
    int stop_after; /* 0: never */
} sink;

static int on_frame(void *ctx, const rpc_frame *f)
{
    sink *s = ctx;
    cr_assert_lt(s->n, MAXF);
    cr_assert_lt(f->len, sizeof s->body[0]);
    memcpy(s->body[s->n], f->body, f->len);
    s->body[s->n][f->len] = '\0';
    s->len[s->n] = f->len;
    s->framing[s->n] = f->framing;
    s->method[s->n] = f->method;
    if (f->url)
        snprintf(s->url[s->n], sizeof s->url[0], "%s", f->url);
    if (f->authorization)
        snprintf(s->auth[s->n], sizeof s->auth[0], "%s", f->authorization);
    if (f->owner)
        snprintf(s->owner[s->n], sizeof s->owner[0], "%s", f->owner);
    snprintf(s->host[s->n], sizeof s->host[0], "%s", f->host ? f->host : "-");
    snprintf(s->origin[s->n], sizeof s->origin[0], "%s", f->origin ? f->origin : "-");
    snprintf(s->ctype[s->n], sizeof s->ctype[0], "%s", f->content_type ? f->content_type : "-");
    s->duplicate[s->n] = f->duplicate_header;
    s->keep_alive[s->n] = f->keep_alive;
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

/* Feed `in` in pieces of `step` bytes (0: all at once). */
static int feed(rpc_framer *fr, const char *in, size_t len, size_t step, sink *s)
{
    if (step == 0)
        return rpc_framer_feed(fr, in, len, on_frame, s);
    for (size_t i = 0; i < len; i += step) {
        size_t k = len - i < step ? len - i : step;
        int rc = rpc_framer_feed(fr, in + i, k, on_frame, s);
        if (rc < 0)
            return rc;
    }
    return MDAE_OK;
}

/* A fresh framer (rpc_framer_init(fr, 0)) fed `in` in pieces of `step`
 * bytes: it takes all of it, giving want_n frames into s (emptied first).
 * The caller closes fr. */
static void feed_fresh(rpc_framer *fr, sink *s, const char *in, size_t len, size_t step,
                       int want_n)
{
    memset(s, 0, sizeof *s);
    rpc_framer_init(fr, 0);
    cr_assert_eq(feed(fr, in, len, step, s), MDAE_OK, "step %zu", step);
    cr_assert_eq(s->n, want_n, "step %zu", step);
}

/* Feed `in` split into two pieces at every possible boundary, and check the
 * frames are the same each time. */
static void check_every_split(const char *in, int want_n, const char *const *want)
{
    size_t len = strlen(in);
    for (size_t cut = 0; cut <= len; cut++) {
        rpc_framer fr;
        sink s = {0};
        rpc_framer_init(&fr, 1024);
        cr_assert_eq(rpc_framer_feed(&fr, in, cut, on_frame, &s), MDAE_OK, "cut %zu", cut);
        cr_assert_eq(rpc_framer_feed(&fr, in + cut, len - cut, on_frame, &s), MDAE_OK,
                     "cut %zu", cut);
        cr_assert_eq(s.n, want_n, "cut %zu: %d frames", cut, s.n);
        for (int i = 0; i < want_n; i++)
            cr_assert_str_eq(s.body[i], want[i], "cut %zu frame %d", cut, i);
        rpc_framer_close(&fr);
    }
}

Test(rpc_framer, detects_ndjson_from_an_opening_brace)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    cr_assert_eq(rpc_framer_framing(&fr), RPC_FRAMING_UNKNOWN);
    cr_assert_eq(feed(&fr, "  \n{\"a\":1}\n", 11, 0, &s), MDAE_OK);
    cr_assert_eq(rpc_framer_framing(&fr), RPC_FRAMING_NDJSON);
    cr_assert_eq(s.n, 1);
    cr_assert_str_eq(s.body[0], "{\"a\":1}");
    rpc_framer_close(&fr);
}

Test(rpc_framer, splits_ndjson_lines_at_every_byte_boundary)
{
    const char *want[] = {"{\"id\":1}", "[1,2]", "{\"x\":\"y\"}"};
    check_every_split("{\"id\":1}\n[1,2]\r\n\n   \n{\"x\":\"y\"}\n", 3, want);
}

Test(rpc_framer, delivers_coalesced_ndjson_lines_in_order)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    const char *in = "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"a\":";
    cr_assert_eq(feed(&fr, in, strlen(in), 0, &s), MDAE_OK);
    cr_assert_eq(s.n, 3);
    cr_assert_str_eq(s.body[2], "{\"a\":3}");
    cr_assert_eq(feed(&fr, "4}\n", 3, 0, &s), MDAE_OK);
    cr_assert_eq(s.n, 4);
    cr_assert_str_eq(s.body[3], "{\"a\":4}");
    rpc_framer_close(&fr);
}

Test(rpc_framer, feeds_one_byte_at_a_time)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    const char *in = "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n[]";
    cr_assert_eq(feed(&fr, in, strlen(in), 1, &s), MDAE_OK);
    cr_assert_eq(s.n, 2);
    cr_assert_str_eq(s.body[0], "{\"a\":1}");
    cr_assert_str_eq(s.body[1], "[]");
    rpc_framer_close(&fr);
}

Test(rpc_framer, splits_lsp_frames_at_every_byte_boundary)
{
    const char *want[] = {"{\"id\":1}", "{\"b\":22}", ""};
    check_every_split("Content-Length: 8\r\nContent-Type: application/vscode-jsonrpc; "
                      "charset=utf-8\r\n\r\n{\"id\":1}"
                      "content-length:8\r\n\r\n{\"b\":22}"
                      "CONTENT-LENGTH: 0\r\n\r\n",
                      3, want);
}

Test(rpc_framer, detects_lsp_headers_in_any_case)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    cr_assert_eq(feed(&fr, "CoNtEnT-LeNgTh: 2\r\n\r\n{}", 23, 0, &s), MDAE_OK);
    cr_assert_eq(rpc_framer_framing(&fr), RPC_FRAMING_LSP);
    cr_assert_eq(s.n, 1);
    rpc_framer_close(&fr);
}

Test(rpc_framer, rejects_lsp_headers_without_content_length)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    cr_assert_eq(feed(&fr, "Content-Type: x\r\n\r\n{}", 21, 0, &s), MDAE_E_PROTO);
    /* sticky: the stream position is lost */
    cr_assert_eq(feed(&fr, "{}\n", 3, 0, &s), MDAE_E_PROTO);
    cr_assert_eq(s.n, 0);
    rpc_framer_close(&fr);
}

Test(rpc_framer, rejects_a_non_numeric_content_length)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    cr_assert_eq(feed(&fr, "Content-Length: 1x\r\n\r\n{}", 24, 0, &s), MDAE_E_PROTO);
    rpc_framer_close(&fr);
}

Test(rpc_framer, reports_oversized_lsp_frame_before_reading_its_body)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 100);
    cr_assert_eq(feed(&fr, "Content-Length: 101\r\n\r\n", 23, 0, &s), MDAE_E_LIMIT);
    cr_assert_eq(fr.cap <= 256, true, "nothing large was buffered");
    rpc_framer_close(&fr);
    rpc_framer_init(&fr, 100);
    cr_assert_eq(feed(&fr, "Content-Length: 99999999999999999999999999\r\n\r\n", 46, 0, &s),
                 MDAE_E_LIMIT);
    rpc_framer_close(&fr);
}

Test(rpc_framer, reports_oversized_lsp_header_block)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    char big[RPC_FRAMER_MAX_HEADER + 100];
    memset(big, 'a', sizeof big);
    memcpy(big, "Content-Type: ", 14);
    cr_assert_eq(feed(&fr, big, sizeof big, 7, &s), MDAE_E_LIMIT);
    rpc_framer_close(&fr);
}

Test(rpc_framer, reports_oversized_ndjson_line_without_buffering_it)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 100);
    char line[300];
    memset(line, 'x', sizeof line);
    line[0] = '{';
    int rc = MDAE_OK;
    for (int i = 0; i < 100 && rc == MDAE_OK; i++)
        rc = feed(&fr, line, sizeof line, 0, &s);
    cr_assert_eq(rc, MDAE_E_LIMIT);
    cr_assert_leq(fr.cap, 512, "the framer buffered %zu bytes", fr.cap);
    rpc_framer_close(&fr);
}

Test(rpc_framer, accepts_a_line_of_exactly_the_limit)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 10);
    cr_assert_eq(feed(&fr, "[1,2,3,44]\n", 11, 3, &s), MDAE_OK);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(feed(&fr, "[1,2,3,444]\n", 12, 0, &s), MDAE_E_LIMIT);
    rpc_framer_close(&fr);
}

Test(rpc_framer, turns_garbage_into_ndjson_lines)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    const char in[] = "\x01\x02garbage\xff\n";
    cr_assert_eq(feed(&fr, in, sizeof in - 1, 0, &s), MDAE_OK);
    cr_assert_eq(rpc_framer_framing(&fr), RPC_FRAMING_NDJSON);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(s.len[0], 10);
    rpc_framer_close(&fr);
}

Test(rpc_framer, decides_ndjson_when_a_method_prefix_is_broken)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    cr_assert_eq(feed(&fr, "GE\nxyz\n", 7, 1, &s), MDAE_OK);
    cr_assert_eq(rpc_framer_framing(&fr), RPC_FRAMING_NDJSON);
    cr_assert_eq(s.n, 2);
    cr_assert_str_eq(s.body[0], "GE");
    cr_assert_str_eq(s.body[1], "xyz");
    rpc_framer_close(&fr);
}

Test(rpc_framer, parses_http_post_with_body_and_authorization)
{
    const char *in = "POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                     "Content-Type: application/json\r\nContent-Length: 8\r\n\r\n{\"id\":1}";
    size_t len = strlen(in);
    for (size_t step = 0; step <= len; step += (step < 5 ? 1 : 13)) {
        rpc_framer fr;
        sink s;
        feed_fresh(&fr, &s, in, len, step, 1);
        cr_assert_eq(s.framing[0], RPC_FRAMING_HTTP);
        cr_assert_eq(s.method[0], RPC_HTTP_POST);
        cr_assert_str_eq(s.url[0], "/rpc");
        cr_assert_str_eq(s.auth[0], "Bearer s3cret");
        cr_assert_str_eq(s.body[0], "{\"id\":1}");
        cr_assert(s.keep_alive[0]);
        rpc_framer_close(&fr);
    }
}

/* Issue 37: an owner key may come as a header (the web page, scripts that
 * keep their params as they are); it is the request's own, not the next
 * one's, and one past RPC_FRAMER_MAX_OWNER is refused unbuffered. */
Test(rpc_framer, keeps_the_x_mdae_owner_header_of_each_request)
{
    const char *in = "POST /rpc HTTP/1.1\r\nx-mdae-OWNER: k1-0123456789abcdefghijkl\r\n"
                     "Content-Length: 2\r\n\r\n{}"
                     "POST /rpc HTTP/1.1\r\nContent-Length: 2\r\n\r\n[]";
    size_t len = strlen(in);
    for (size_t step = 0; step <= len; step += (step < 5 ? 1 : 11)) {
        rpc_framer fr;
        sink s;
        feed_fresh(&fr, &s, in, len, step, 2);
        cr_assert_str_eq(s.owner[0], "k1-0123456789abcdefghijkl", "step %zu", step);
        cr_assert_str_eq(s.owner[1], "", "the second request has none (step %zu)", step);
        rpc_framer_close(&fr);
    }
    static char big[RPC_FRAMER_MAX_OWNER + 200];
    int n = snprintf(big, sizeof big, "POST /rpc HTTP/1.1\r\nX-Mdae-Owner: ");
    memset(big + n, 'k', RPC_FRAMER_MAX_OWNER + 10);
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    cr_assert_eq(feed(&fr, big, (size_t)n + RPC_FRAMER_MAX_OWNER + 10, 7, &s), MDAE_E_LIMIT);
    cr_assert_str_eq(rpc_framer_http_limit_status(&fr), "431 Request Header Fields Too Large");
    cr_assert_eq(s.n, 0);
    rpc_framer_close(&fr);
}

/* Issue 37 item 2: the headers mdaed checks on POST /rpc, in any case,
 * without their blanks, each request its own; a repeated one is flagged. */
Test(rpc_framer, keeps_host_origin_and_content_type_and_flags_repeats)
{
    const char *in = "POST /rpc HTTP/1.1\r\nhOsT:  127.0.0.1:7420 \r\n"
                     "ORIGIN: http://127.0.0.1:7420\r\n"
                     "content-type: application/json; charset=utf-8\r\n"
                     "Content-Length: 2\r\n\r\n{}"
                     "OPTIONS /rpc HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"
                     "GET / HTTP/1.1\r\n\r\n";
    size_t len = strlen(in);
    for (size_t step = 0; step <= len; step += (step < 5 ? 1 : 17)) {
        rpc_framer fr;
        sink s;
        feed_fresh(&fr, &s, in, len, step, 3);
        cr_assert_str_eq(s.host[0], "127.0.0.1:7420");
        cr_assert_str_eq(s.origin[0], "http://127.0.0.1:7420");
        cr_assert_str_eq(s.ctype[0], "application/json; charset=utf-8");
        cr_assert_not(s.duplicate[0]);
        cr_assert_eq(s.method[1], RPC_HTTP_OPTIONS);
        cr_assert(s.duplicate[1], "two Host headers");
        cr_assert_str_eq(s.origin[1], "-");
        cr_assert_eq(s.method[2], RPC_HTTP_GET);
        cr_assert_str_eq(s.host[2], "-", "a header of the previous request kept");
        cr_assert_not(s.duplicate[2]);
        rpc_framer_close(&fr);
    }
}

Test(rpc_framer, refuses_an_overlong_host_with_431)
{
    char in[2048];
    int n = snprintf(in, sizeof in, "POST /rpc HTTP/1.1\r\nHost: ");
    while (n < 600)
        in[n++] = 'h';
    snprintf(in + n, sizeof in - (size_t)n, "\r\n\r\n");
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    cr_assert_eq(feed(&fr, in, strlen(in), 0, &s), MDAE_E_LIMIT);
    cr_assert_str_eq(rpc_framer_http_limit_status(&fr), "431 Request Header Fields Too Large");
    rpc_framer_close(&fr);
}

Test(rpc_framer, parses_keep_alive_http_requests_one_after_another)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    const char *in = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
                     "POST /rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "3\r\n[1,\r\n2\r\n2]\r\n0\r\n\r\n"
                     "GET /index.html HTTP/1.0\r\n\r\n";
    cr_assert_eq(feed(&fr, in, strlen(in), 0, &s), MDAE_OK);
    cr_assert_eq(s.n, 3);
    cr_assert_eq(s.method[0], RPC_HTTP_GET);
    cr_assert_str_eq(s.url[0], "/");
    cr_assert_str_eq(s.body[0], "");
    cr_assert_str_eq(s.auth[0], "", "no Authorization header");
    cr_assert_str_eq(s.body[1], "[1,2]");
    cr_assert_str_eq(s.url[2], "/index.html");
    cr_assert_not(s.keep_alive[2], "HTTP/1.0 without keep-alive");
    rpc_framer_close(&fr);
}

Test(rpc_framer, reports_oversized_http_body)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 4);
    const char *in = "POST /rpc HTTP/1.1\r\nContent-Length: 5\r\n\r\n12345";
    cr_assert_eq(feed(&fr, in, strlen(in), 0, &s), MDAE_E_LIMIT);
    cr_assert_eq(s.n, 0);
    rpc_framer_close(&fr);
}

/* Issue 17, request limits: a URL past RPC_FRAMER_MAX_URL, an Authorization
 * value past RPC_FRAMER_MAX_AUTH, a header block past http-parser's own
 * limit (80 KB) and a body past max_frame are errors with the HTTP status
 * that names them, fed in small pieces as a slow client would, and the
 * framer buffers none of it beyond max_frame. */
Test(rpc_framer, refuses_http_requests_past_their_limits_without_buffering_them)
{
    static char buf[200000];
    struct { const char *head, *unit; size_t units; const char *status; } cases[] = {
        {"GET /", "a", RPC_FRAMER_MAX_URL + 10, "414 URI Too Long"},
        {"POST /rpc HTTP/1.1\r\nAuthorization: Bearer ", "x", RPC_FRAMER_MAX_AUTH + 10,
         "431 Request Header Fields Too Large"},
        {"POST /rpc HTTP/1.1\r\n", "X-Padding: 0123456789abcdef\r\n", 4000,
         "431 Request Header Fields Too Large"},
        {"POST /rpc HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", "{}", 40000,
         "413 Content Too Large"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t n = strlen(cases[k].head), u = strlen(cases[k].unit);
        memcpy(buf, cases[k].head, n);
        for (size_t i = 0; i < cases[k].units && n + u < sizeof buf; i++, n += u)
            memcpy(buf + n, cases[k].unit, u);
        rpc_framer fr;
        sink s = {0};
        rpc_framer_init(&fr, 65536);
        int rc = MDAE_OK;
        for (size_t at = 0; at < n && rc == MDAE_OK; at += 97) {
            rc = feed(&fr, buf + at, n - at < 97 ? n - at : 97, 0, &s);
            cr_assert_leq(fr.len, 65536, "case %zu buffers %zu bytes", k, fr.len);
        }
        cr_assert_eq(rc, MDAE_E_LIMIT, "case %zu: %d", k, rc);
        cr_assert_str_eq(rpc_framer_http_limit_status(&fr), cases[k].status, "case %zu", k);
        cr_assert_eq(s.n, 0);
        rpc_framer_close(&fr);
    }
}

Test(rpc_framer, rejects_malformed_http)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    const char *in = "GET / HTTP/1.1\r\nBad Header Line\r\n\r\n";
    cr_assert_eq(feed(&fr, in, strlen(in), 0, &s), MDAE_E_PROTO);
    rpc_framer_close(&fr);
}

Test(rpc_framer, stops_when_the_callback_asks)
{
    rpc_framer fr;
    sink s = {0};
    s.stop_after = 1;
    rpc_framer_init(&fr, 0);
    cr_assert_eq(feed(&fr, "{}\n{}\n{}\n", 9, 0, &s), MDAE_E_CANCELED);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(feed(&fr, "{}\n", 3, 0, &s), MDAE_E_CANCELED);
    rpc_framer_close(&fr);
}

Test(rpc_framer, encodes_each_framing)
{
    char *out;
    size_t n;
    cr_assert_eq(rpc_frame_encode(RPC_FRAMING_NDJSON, "{}", 2, &out, &n), MDAE_OK);
    cr_assert_str_eq(out, "{}\n");
    cr_assert_eq(n, 3);
    mdae_free(out);
    cr_assert_eq(rpc_frame_encode(RPC_FRAMING_LSP, "{}", 2, &out, &n), MDAE_OK);
    cr_assert_str_eq(out, "Content-Length: 2\r\n\r\n{}");
    mdae_free(out);
    cr_assert_eq(rpc_frame_encode(RPC_FRAMING_HTTP, "0123456789abcdef", 16, &out, &n), MDAE_OK);
    cr_assert_str_eq(out, "11\r\n0123456789abcdef\n\r\n");
    mdae_free(out);
    cr_assert_eq(rpc_frame_encode(RPC_FRAMING_UNKNOWN, "{}", 2, &out, &n), MDAE_E_INVAL);
}

Test(rpc_framer, round_trips_its_own_lsp_encoding)
{
    char *out;
    size_t n;
    cr_assert_eq(rpc_frame_encode(RPC_FRAMING_LSP, "{\"k\":\"v\"}", 9, &out, &n), MDAE_OK);
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 0);
    cr_assert_eq(feed(&fr, out, n, 2, &s), MDAE_OK);
    cr_assert_eq(s.n, 1);
    cr_assert_str_eq(s.body[0], "{\"k\":\"v\"}");
    mdae_free(out);
    rpc_framer_close(&fr);
}

Test(rpc_framer, builds_a_complete_http_response)
{
    char *out;
    size_t n;
    cr_assert_eq(rpc_http_response("404 Not Found", "text/plain", "no", 2, false, &out, &n),
                 MDAE_OK);
    cr_assert(strstr(out, "HTTP/1.1 404 Not Found\r\n") == out);
    cr_assert(strstr(out, "Content-Length: 2\r\n") != NULL);
    cr_assert(strstr(out, "Connection: close\r\n\r\nno") != NULL);
    mdae_free(out);
}

/* fuzzcheck (STYLE.md section 17): every input saved under
 * tests/corpus/rpc_framer/ (seeds and any crash rpc_framer_fuzz finds) goes
 * through the framer, split at every position, and each frame through the
 * JSON-RPC parser, as the fuzz target does. */
static int parse_frame(void *ctx, const rpc_frame *f)
{
    rpc_parsed p;
    if (rpc_parse(f->body, f->len, &p) == MDAE_OK)
        rpc_parsed_close(&p);
    (*(int *)ctx)++;
    return 0;
}

Test(rpc_framer, replays_the_fuzz_corpus)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/corpus/rpc_framer", MDAE_SOURCE_DIR);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "no corpus at %s", dir);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f);
        char buf[65536];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        for (size_t cut = 0; cut <= n; cut++) {
            rpc_framer fr;
            int frames = 0;
            rpc_framer_init(&fr, 4096);
            if (rpc_framer_feed(&fr, buf, cut, parse_frame, &frames) == MDAE_OK)
                (void)rpc_framer_feed(&fr, buf + cut, n - cut, parse_frame, &frames);
            rpc_framer_close(&fr);
        }
        files++;
    }
    closedir(d);
    cr_assert_gt(files, 0);
}

Test(rpc_framer, reports_allocation_failures_and_stays_closable)
{
    cr_assert_eq(mdae_replace_allocator(&budget_allocator), MDAE_OK);
    const char *ins[] = {"{\"a\":1}\n{\"b\":",
                         "Content-Length: 7\r\n\r\n{\"a\":",
                         "POST /rpc HTTP/1.1\r\nContent-Length: 4\r\n\r\n[1,"};
    for (size_t k = 0; k < 3; k++) {
        int rc = MDAE_E_NOMEM;
        for (long n = 0; n < 100 && rc == MDAE_E_NOMEM; n++) {
            rpc_framer fr;
            sink s = {0};
            rpc_framer_init(&fr, 0);
            budget_left = n;
            rc = feed(&fr, ins[k], strlen(ins[k]), 0, &s);
            budget_left = -1;
            if (rc == MDAE_E_NOMEM)
                cr_assert_eq(feed(&fr, "x", 1, 0, &s), MDAE_E_NOMEM, "sticky");
            rpc_framer_close(&fr); /* no leak under ASan */
        }
        cr_assert_eq(rc, MDAE_OK, "input %zu", k);
    }
    mdae_replace_allocator(NULL);
}

/* Issue 37 item 5: where a message stands, fed a byte at a time, for the
 * server's header and body timeouts. */
static void check_phases(const char *in, const rpc_framer_phase *want)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 1024);
    cr_assert_eq(rpc_framer_phase_of(&fr), RPC_FRAMER_IDLE);
    for (size_t i = 0; in[i] != '\0'; i++) {
        cr_assert_eq(rpc_framer_feed(&fr, in + i, 1, on_frame, &s), MDAE_OK);
        cr_assert_eq(rpc_framer_phase_of(&fr), want[i], "after byte %zu of %s: phase %d, want %d",
                     i, in, rpc_framer_phase_of(&fr), want[i]);
    }
    rpc_framer_close(&fr);
}

/* check_phases of a message whose first `head` bytes are its header block
 * (HEAD after each), the rest its body (BODY), and IDLE after its last. */
static void check_head_then_body(const char *in, size_t head)
{
    rpc_framer_phase want[64];
    size_t n = strlen(in);
    cr_assert_leq(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++)
        want[i] = i < head ? RPC_FRAMER_HEAD : i < n - 1 ? RPC_FRAMER_BODY : RPC_FRAMER_IDLE;
    check_phases(in, want);
}

Test(rpc_framer, says_whether_a_message_is_in_its_headers_or_body)
{
#define I RPC_FRAMER_IDLE
#define B RPC_FRAMER_BODY
    /* NDJSON: a line is all body; blank lines begin nothing. */
    const rpc_framer_phase nd[] = {I, B, B, I, I, B, I};
    check_phases("\n{}\n\n{\n", nd);
    /* LSP: the header block, then the body. */
    check_head_then_body("Content-Length: 2\r\n\r\n{}", 20);
    /* HTTP: request line and headers, then the body, then idle again. */
    check_head_then_body("POST /rpc HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 40);
    const char *get = "GET / HTTP/1.1\r\n\r\n";
    check_head_then_body(get, strlen(get) - 1); /* no body: idle at its last byte */
#undef I
#undef B
}

static int count_frame(void *ctx, const rpc_frame *f)
{
    (void)f;
    ((sink *)ctx)->n++;
    return 0;
}

Test(rpc_framer, releases_a_large_buffer_once_its_message_is_out)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 1u << 20);
    static char big[100000];
    memset(big, 'x', sizeof big);
    big[0] = '"';
    cr_assert_eq(rpc_framer_feed(&fr, big, sizeof big, on_frame, &s), MDAE_OK);
    cr_assert_geq(rpc_framer_held(&fr), sizeof big, "the partial line is held");
    cr_assert_eq(rpc_framer_phase_of(&fr), RPC_FRAMER_BODY);
    /* The line ends (the sink keeps 256 bytes of a body: count, not copy). */
    s.stop_after = 0;
    cr_assert_eq(rpc_framer_feed(&fr, "\"\n", 2, count_frame, &s), MDAE_OK);
    cr_assert_eq(s.n, 1);
    cr_assert_leq(rpc_framer_held(&fr), RPC_FRAMER_KEEP, "kept %zu bytes after the message",
                  rpc_framer_held(&fr));
    rpc_framer_close(&fr);
}

Test(rpc_framer, dropped_stream_frees_its_buffer_and_refuses_more)
{
    rpc_framer fr;
    sink s = {0};
    rpc_framer_init(&fr, 1u << 20);
    static char big[50000];
    memset(big, 'x', sizeof big);
    cr_assert_eq(rpc_framer_feed(&fr, big, sizeof big, on_frame, &s), MDAE_OK);
    cr_assert_gt(rpc_framer_held(&fr), 0);
    rpc_framer_drop(&fr, MDAE_E_TIMEOUT);
    cr_assert_eq(rpc_framer_held(&fr), 0);
    cr_assert_eq(rpc_framer_phase_of(&fr), RPC_FRAMER_IDLE);
    cr_assert_eq(rpc_framer_framing(&fr), RPC_FRAMING_NDJSON, "the framing stays known");
    cr_assert_eq(rpc_framer_feed(&fr, "\n", 1, on_frame, &s), MDAE_E_TIMEOUT);
    cr_assert_eq(s.n, 0);
    rpc_framer_close(&fr);
}
