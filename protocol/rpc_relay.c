/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_relay.c -- read a worker's response frame without a tree, and
 * splice its result behind the client's id. See protocol/rpc_relay.h for the
 * contract between the worker's writer and this reader.
 *
 * The validator is a recognizer, not a parser: it walks the bytes once and
 * keeps nothing, which cJSON cannot do (its parser always builds the tree).
 * It is deliberately narrower than RFC 8259 wherever cJSON's reading differs
 * or is not worth matching (white space, long numbers, \u0000, surrogates):
 * such a frame takes the old path, rpc_parse.
 */
#include "rpc_relay.h"

#include <string.h>

#include "rpc_message.h"

/* cJSON reads at most 63 characters of a number (parse_number's buffer);
 * its printer writes at most 26 ("%1.17g" of a negative subnormal). */
#define RELAY_MAX_NUMBER 40
/* Digits of an id that a double holds exactly. */
#define RELAY_MAX_ID_DIGITS 15

#define RELAY_HEAD "{\"jsonrpc\":\"2.0\",\"id\":"

typedef struct scan {
    const char *p, *end;
} scan;

static int scan_value(scan *s, int depth);

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* \uXXXX after the backslash and 'u': not NUL, not a surrogate. */
static int scan_unicode(scan *s)
{
    if (s->end - s->p < 4)
        return MDAE_E_PROTO;
    unsigned cp = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(s->p[i]);
        if (h < 0)
            return MDAE_E_PROTO;
        cp = cp * 16 + (unsigned)h;
    }
    s->p += 4;
    return cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) ? MDAE_E_PROTO : MDAE_OK;
}

static int scan_escape(scan *s)
{
    if (s->p == s->end)
        return MDAE_E_PROTO;
    switch (*s->p++) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return MDAE_OK;
    case 'u':
        return scan_unicode(s);
    default:
        return MDAE_E_PROTO;
    }
}

/* A string, at its opening quote. */
static int scan_string(scan *s)
{
    s->p++;
    while (s->p < s->end) {
        unsigned char c = (unsigned char)*s->p++;
        if (c == '"')
            return MDAE_OK;
        if (c < 0x20)
            return MDAE_E_PROTO;
        if (c == '\\' && scan_escape(s) < 0)
            return MDAE_E_PROTO;
    }
    return MDAE_E_PROTO;
}

static bool is_digit(const scan *s) { return s->p < s->end && *s->p >= '0' && *s->p <= '9'; }

static void skip_digits(scan *s)
{
    while (is_digit(s))
        s->p++;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int scan_number(scan *s)
{
    const char *start = s->p;
    if (*s->p == '-')
        s->p++;
    if (!is_digit(s))
        return MDAE_E_PROTO;
    if (*s->p++ != '0')
        skip_digits(s);
    if (s->p < s->end && *s->p == '.') {
        s->p++;
        if (!is_digit(s))
            return MDAE_E_PROTO;
        skip_digits(s);
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
            s->p++;
        if (!is_digit(s))
            return MDAE_E_PROTO;
        skip_digits(s);
    }
    return s->p - start <= RELAY_MAX_NUMBER ? MDAE_OK : MDAE_E_PROTO;
}

static int scan_literal(scan *s, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
        return MDAE_E_PROTO;
    s->p += n;
    return MDAE_OK;
}

static bool next_is(const scan *s, char c) { return s->p < s->end && *s->p == c; }

/* [value,...] at '[' (close ']') or {"key":value,...} at '{' (close '}');
 * depth counts the containers open around its values. */
static int scan_container(scan *s, int depth, char close)
{
    s->p++;
    if (next_is(s, close)) {
        s->p++;
        return MDAE_OK;
    }
    for (;;) {
        if (close == '}') { /* a member's key */
            if (!next_is(s, '"') || scan_string(s) < 0 || !next_is(s, ':'))
                return MDAE_E_PROTO;
            s->p++;
        }
        if (scan_value(s, depth) < 0)
            return MDAE_E_PROTO;
        if (next_is(s, close)) {
            s->p++;
            return MDAE_OK;
        }
        if (!next_is(s, ','))
            return MDAE_E_PROTO;
        s->p++;
    }
}

/* One value; depth: containers open around it (the envelope is one). A
 * container may open only while depth < RPC_MAX_DEPTH, so no value lies
 * deeper than rpc_parse allows. */
static int scan_value(scan *s, int depth)
{
    if (s->p == s->end)
        return MDAE_E_PROTO;
    switch (*s->p) {
    case '{':
        return depth < RPC_MAX_DEPTH ? scan_container(s, depth + 1, '}') : MDAE_E_PROTO;
    case '[':
        return depth < RPC_MAX_DEPTH ? scan_container(s, depth + 1, ']') : MDAE_E_PROTO;
    case '"':
        return scan_string(s);
    case 't':
        return scan_literal(s, "true");
    case 'f':
        return scan_literal(s, "false");
    case 'n':
        return scan_literal(s, "null");
    default:
        return *s->p == '-' || (*s->p >= '0' && *s->p <= '9') ? scan_number(s) : MDAE_E_PROTO;
    }
}

/* The id: 0 or [1-9][0-9]*, at most RELAY_MAX_ID_DIGITS digits. */
static int scan_id(scan *s, uint64_t *id)
{
    const char *start = s->p;
    uint64_t v = 0;
    while (is_digit(s) && s->p - start < RELAY_MAX_ID_DIGITS + 1)
        v = v * 10 + (uint64_t)(*s->p++ - '0');
    size_t n = (size_t)(s->p - start);
    if (n == 0 || n > RELAY_MAX_ID_DIGITS || (n > 1 && *start == '0'))
        return MDAE_E_PROTO;
    *id = v;
    return MDAE_OK;
}

/* ,"name":value of the envelope into the span of its name (each once). */
static int scan_member(scan *s, rpc_relay_head *h)
{
    static const struct {
        const char *key; /* with its quotes and colon */
        size_t offset;
    } members[] = {
        {"\"result\":", offsetof(rpc_relay_head, result)},
        {"\"error\":", offsetof(rpc_relay_head, error)},
        {"\"stats\":", offsetof(rpc_relay_head, stats)},
    };
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
        size_t n = strlen(members[i].key);
        if ((size_t)(s->end - s->p) < n || memcmp(s->p, members[i].key, n) != 0)
            continue;
        rpc_span *span = (rpc_span *)((char *)h + members[i].offset);
        if (span->p != NULL)
            return MDAE_E_PROTO; /* twice: cJSON would see the first */
        s->p += n;
        const char *start = s->p;
        if (scan_value(s, 1) < 0)
            return MDAE_E_PROTO;
        span->p = start;
        span->len = (size_t)(s->p - start);
        return MDAE_OK;
    }
    return MDAE_E_PROTO;
}

int rpc_relay_read(const char *body, size_t len, rpc_relay_head *out)
{
    rpc_relay_head h;
    memset(&h, 0, sizeof h);
    scan s = {body, body + len};
    size_t hn = sizeof RELAY_HEAD - 1;
    if (len < hn || memcmp(body, RELAY_HEAD, hn) != 0)
        return MDAE_E_PROTO;
    s.p += hn;
    if (scan_id(&s, &h.id) < 0)
        return MDAE_E_PROTO;
    while (next_is(&s, ',')) {
        s.p++;
        if (scan_member(&s, &h) < 0)
            return MDAE_E_PROTO;
    }
    if (!next_is(&s, '}') || s.p + 1 != s.end || (h.result.p == NULL) == (h.error.p == NULL))
        return MDAE_E_PROTO;
    *out = h;
    return MDAE_OK;
}

/* ---- The client's response ------------------------------------------------------ */

/* ,"key":value as cJSON prints a member (NULL: nothing to add). */
static int print_member(const char *key, const cJSON *value, char **out)
{
    *out = NULL;
    if (key == NULL)
        return MDAE_OK;
    cJSON *o = cJSON_CreateObject();
    cJSON *v = value ? cJSON_Duplicate(value, true) : cJSON_CreateNull();
    if (o == NULL || v == NULL || !cJSON_AddItemToObject(o, key, v)) {
        cJSON_Delete(o);
        cJSON_Delete(v);
        return MDAE_E_NOMEM;
    }
    char *m = cJSON_PrintUnformatted(o); /* {"key":value} */
    cJSON_Delete(o);
    if (m == NULL)
        return MDAE_E_NOMEM;
    m[0] = ','; /* the brace becomes the separator; the last brace goes */
    m[strlen(m) - 1] = '\0';
    *out = m;
    return MDAE_OK;
}

int rpc_relay_response(const cJSON *id, const char *result, size_t len, const char *key,
                       const cJSON *value, char **out, size_t *out_len)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    static const char mid[] = ",\"result\":";
    bool object = len >= 2 && result[0] == '{' && result[len - 1] == '}';
    char *member = NULL, *ids = id ? cJSON_PrintUnformatted(id) : NULL;
    if ((id != NULL && ids == NULL) || print_member(object ? key : NULL, value, &member) < 0) {
        cJSON_free(ids);
        return MDAE_E_NOMEM;
    }
    const char *idt = ids ? ids : "null";
    /* Into an empty object the member goes without its comma. */
    const char *mt = member ? member + (len == 2) : "";
    size_t il = strlen(idt), ml = strlen(mt), body = member ? len - 1 : len;
    size_t n = sizeof head - 1 + il + sizeof mid - 1 + len + ml + 1;
    char *buf = mdae_malloc(n + 1), *p = buf;
    if (buf != NULL) {
        memcpy(p, head, sizeof head - 1), p += sizeof head - 1;
        memcpy(p, idt, il), p += il;
        memcpy(p, mid, sizeof mid - 1), p += sizeof mid - 1;
        memcpy(p, result, body), p += body;
        memcpy(p, mt, ml), p += ml;
        if (member != NULL)
            *p++ = '}';
        *p++ = '}';
        *p = '\0';
        *out = buf;
        *out_len = (size_t)(p - buf);
    }
    cJSON_free(ids);
    cJSON_free(member);
    return buf != NULL ? MDAE_OK : MDAE_E_NOMEM;
}
