/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_message.c -- JSON-RPC 2.0 parsing, validation and builders.
 * See protocol/rpc_message.h for the promises and the error-code mapping.
 */
#include "rpc_message.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static void *hook_malloc(size_t n) { return mdae_malloc(n); }
static void hook_free(void *p) { mdae_free(p); }

void rpc_message_init(void)
{
    cJSON_Hooks hooks = {hook_malloc, hook_free};
    cJSON_InitHooks(&hooks);
}

/* Depth of a tree, stopping as soon as it exceeds `limit`. cJSON itself
 * refuses nesting beyond CJSON_NESTING_LIMIT (1000), so the recursion here is
 * bounded. */
static bool deeper_than(const cJSON *j, int limit)
{
    if (limit < 0)
        return true;
    if (!cJSON_IsArray(j) && !cJSON_IsObject(j))
        return false;
    for (const cJSON *c = j->child; c != NULL; c = c->next)
        if (deeper_than(c, limit - 1))
            return true;
    return false;
}

bool rpc_id_valid(const cJSON *id)
{
    return id != NULL && (cJSON_IsString(id) || cJSON_IsNumber(id) || cJSON_IsNull(id));
}

static void classify(const cJSON *j, rpc_msg *m)
{
    memset(m, 0, sizeof *m);
    m->json = j;
    m->kind = RPC_MSG_INVALID;
    if (!cJSON_IsObject(j)) {
        m->why = "a message must be a JSON object";
        return;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
    if (id != NULL && rpc_id_valid(id))
        m->id = id;
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(j, "jsonrpc");
    if (!cJSON_IsString(version) || strcmp(version->valuestring, "2.0") != 0) {
        m->why = "\"jsonrpc\" must be \"2.0\"";
        return;
    }
    if (id != NULL && !rpc_id_valid(id)) {
        m->why = "\"id\" must be a string, a number or null";
        return;
    }
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(j, "method");
    if (method == NULL) {
        if (cJSON_GetObjectItemCaseSensitive(j, "result") != NULL ||
            cJSON_GetObjectItemCaseSensitive(j, "error") != NULL) {
            m->kind = RPC_MSG_RESPONSE;
            return;
        }
        m->why = "\"method\" is missing";
        return;
    }
    if (!cJSON_IsString(method)) {
        m->why = "\"method\" must be a string";
        return;
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
    if (cJSON_IsNull(params))
        params = NULL; /* LSP clients send "params": null to shutdown and exit (issue 42) */
    if (params != NULL && !cJSON_IsObject(params) && !cJSON_IsArray(params)) {
        m->why = "\"params\" must be an object or an array";
        return;
    }
    m->method = method->valuestring;
    m->params = params;
    m->kind = id != NULL ? RPC_MSG_REQUEST : RPC_MSG_NOTIFICATION;
}

int rpc_parse(const char *body, size_t len, rpc_parsed *out)
{
    rpc_parsed p = {0};
    /* cJSON_ParseWithLength accepts trailing garbage after the value only if
     * we do not check; require the whole body to be one value. */
    const char *end = NULL;
    p.root = cJSON_ParseWithLengthOpts(body, len, &end, false);
    if (p.root == NULL)
        return MDAE_E_PROTO;
    while (end != NULL && end < body + len &&
           (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
        end++;
    if (end != body + len) {
        cJSON_Delete(p.root);
        return MDAE_E_PROTO;
    }
    if (deeper_than(p.root, RPC_MAX_DEPTH)) {
        cJSON_Delete(p.root);
        return MDAE_E_LIMIT;
    }
    int n = cJSON_IsArray(p.root) ? cJSON_GetArraySize(p.root) : 1;
    p.batch = cJSON_IsArray(p.root) && n > 0 && n <= RPC_MAX_BATCH;
    p.n = p.batch ? (size_t)n : 1;
    p.msgs = mdae_calloc(p.n, sizeof *p.msgs);
    if (p.msgs == NULL) {
        cJSON_Delete(p.root);
        return MDAE_E_NOMEM;
    }
    if (p.batch) {
        size_t i = 0;
        for (const cJSON *c = p.root->child; c != NULL; c = c->next)
            classify(c, &p.msgs[i++]);
    } else if (cJSON_IsArray(p.root)) {
        p.msgs[0].kind = RPC_MSG_INVALID;
        p.msgs[0].json = p.root;
        p.msgs[0].why = n == 0 ? "empty batch" : "batch too large";
    } else {
        classify(p.root, &p.msgs[0]);
    }
    *out = p;
    return MDAE_OK;
}

/* Bytes of the UTF-8 sequence starting at p[0] (n bytes available) when
 * it is well formed (Unicode 15, table 3-7), else 0. */
static size_t utf8_sequence(const unsigned char *p, size_t n)
{
    unsigned char b = p[0];
    size_t k;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (b < 0x80)
        return 1;
    if (b >= 0xC2 && b <= 0xDF) {
        k = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        k = 3;
        if (b == 0xE0)
            lo = 0xA0; /* overlong */
        else if (b == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (b >= 0xF0 && b <= 0xF4) {
        k = 4;
        if (b == 0xF0)
            lo = 0x90; /* overlong */
        else if (b == 0xF4)
            hi = 0x8F; /* past U+10FFFF */
    } else {
        return 0; /* a continuation byte, C0, C1, F5..FF */
    }
    if (n < k || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return k;
}

/* Whether none of the 8 bytes at p is a NUL, a '"', a backslash or past
 * ASCII: the bytes rpc_check_bytes looks at one by one (SWAR, "Bit
 * Twiddling Hacks": a word has a zero byte iff (v - 0x01..) & ~v & 0x80..
 * is not zero). Model texts are nearly all such bytes: 8 at a time makes
 * the check of a 15 MiB message several times faster than byte by byte. */
static bool plain8(const unsigned char *p)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t v;
    memcpy(&v, p, 8);
    uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
    return ((v | ((v - ones) & ~v) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs) == 0;
}

int rpc_check_bytes(const char *body, size_t len, size_t *offset)
{
    const unsigned char *p = (const unsigned char *)body;
    bool in_string = false;
    size_t i = 0;
    while (i < len) {
        while (i + 8 <= len && plain8(p + i))
            i += 8;
        if (i == len)
            break;
        unsigned char b = p[i];
        if (b == 0) {
            *offset = i;
            return MDAE_E_INVAL;
        }
        if (b >= 0x80) {
            size_t k = utf8_sequence(p + i, len - i);
            if (k == 0) {
                *offset = i;
                return MDAE_E_PROTO;
            }
            i += k;
            continue;
        }
        if (b == '"') {
            in_string = !in_string;
        } else if (b == '\\' && in_string && i + 1 < len) {
            /* An escape: skip what it escapes, after looking for \u0000
             * (a backslash outside a string is not JSON: rpc_parse says). */
            if (p[i + 1] == 'u' && i + 6 <= len && memcmp(p + i + 2, "0000", 4) == 0) {
                *offset = i;
                return MDAE_E_INVAL;
            }
            i += p[i + 1] == 0 || p[i + 1] >= 0x80 ? 1 : 2; /* checked next */
            continue;
        }
        i++;
    }
    return MDAE_OK;
}

bool rpc_utf8_valid(const char *s, size_t len, size_t *offset)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t k = p[i] < 0x80 ? 1 : utf8_sequence(p + i, len - i);
        if (k == 0) {
            *offset = i;
            return false;
        }
        i += k;
    }
    return true;
}

size_t rpc_utf8_sequence(const char *s, size_t len)
{
    MDAE_ASSERT(len >= 1);
    return utf8_sequence((const unsigned char *)s, len);
}

size_t rpc_utf8_prefix(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    /* back over continuation bytes to the start of the cut character */
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

void rpc_parsed_close(rpc_parsed *p)
{
    cJSON_Delete(p->root);
    mdae_free(p->msgs);
    p->root = NULL;
    p->msgs = NULL;
    p->n = 0;
}

/* Attach item to obj under key; on failure (cJSON could not copy the key)
 * the item is deleted, so the caller never leaks it. */
static bool attach(cJSON *obj, const char *key, cJSON *item)
{
    if (cJSON_AddItemToObject(obj, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

/* attach() an optional item the caller owns through *item: *item is NULL
 * afterwards whatever happens (attached, or deleted on failure), so the
 * caller's cleanup cannot free it twice. True when there was nothing to do. */
static bool attach_taken(cJSON *obj, const char *key, cJSON **item)
{
    cJSON *it = *item;
    *item = NULL;
    return it == NULL || attach(obj, key, it);
}

static cJSON *envelope(const cJSON *id, bool with_id)
{
    cJSON *m = cJSON_CreateObject();
    if (m == NULL)
        return NULL;
    if (cJSON_AddStringToObject(m, "jsonrpc", "2.0") == NULL)
        goto fail;
    if (with_id) {
        cJSON *i = id ? cJSON_Duplicate(id, true) : cJSON_CreateNull();
        if (i == NULL || !attach(m, "id", i))
            goto fail;
    }
    return m;
fail:
    cJSON_Delete(m);
    return NULL;
}

cJSON *rpc_response_result(const cJSON *id, cJSON *result)
{
    cJSON *m = envelope(id, true);
    if (result == NULL)
        result = cJSON_CreateNull();
    if (m == NULL || result == NULL)
        goto fail;
    if (!attach(m, "result", result)) {
        cJSON_Delete(m);
        return NULL;
    }
    return m;
fail:
    cJSON_Delete(m);
    cJSON_Delete(result);
    return NULL;
}

/* s with every byte that does not belong to a well-formed UTF-8 sequence
 * replaced by '?' (owned), or NULL when s is well formed or on OOM. The
 * last net under an error message (issue 37 item 6): a client's string
 * quoted in part by a fixed-size snprintf may be cut inside a character,
 * and a reply must never carry invalid UTF-8 back. */
static char *utf8_repaired(const char *s)
{
    size_t len = strlen(s), i = 0;
    while (i < len) {
        size_t k = utf8_sequence((const unsigned char *)s + i, len - i);
        if (k == 0)
            break;
        i += k;
    }
    if (i == len)
        return NULL;
    char *r = mdae_strdup(s);
    while (r != NULL && i < len) {
        size_t k = utf8_sequence((const unsigned char *)r + i, len - i);
        if (k == 0) {
            r[i] = '?';
            k = 1;
        }
        i += k;
    }
    return r;
}

cJSON *rpc_response_error(const cJSON *id, int code, const char *message, cJSON *data)
{
    cJSON *m = envelope(id, true);
    cJSON *e = cJSON_CreateObject();
    char *repaired = message ? utf8_repaired(message) : NULL;
    if (m == NULL || e == NULL)
        goto fail;
    if (cJSON_AddNumberToObject(e, "code", code) == NULL ||
        cJSON_AddStringToObject(e, "message",
                                repaired ? repaired : message ? message : "") == NULL)
        goto fail;
    mdae_free(repaired);
    repaired = NULL;
    if (!attach_taken(e, "data", &data))
        goto fail;
    if (!attach(m, "error", e)) {
        cJSON_Delete(m);
        return NULL;
    }
    return m;
fail:
    mdae_free(repaired);
    cJSON_Delete(m);
    cJSON_Delete(e);
    cJSON_Delete(data);
    return NULL;
}

int rpc_error_code(int rc)
{
    switch (rc) {
    case MDAE_E_INVAL:
        return RPC_INVALID_PARAMS;
    case MDAE_E_PROTO:
        return RPC_INVALID_REQUEST;
    case MDAE_E_NOTIMPL:
        return RPC_METHOD_NOT_FOUND;
    case MDAE_E_CANCELED:
        return RPC_REQUEST_CANCELLED;
    default:
        return RPC_MDAE_CODE(rc);
    }
}

cJSON *rpc_response_mdae(const cJSON *id, int rc, const char *message, cJSON *details)
{
    cJSON *data = cJSON_CreateObject();
    if (data == NULL || cJSON_AddStringToObject(data, "name", mdae_err_name(rc)) == NULL)
        goto fail;
    if (cJSON_IsObject(details)) {
        cJSON *c;
        while ((c = details->child) != NULL) {
            cJSON_DetachItemViaPointer(details, c);
            if (!attach(data, c->string, c))
                goto fail;
        }
    } else if (!attach_taken(data, "details", &details)) {
        goto fail;
    }
    cJSON_Delete(details);
    return rpc_response_error(id, rpc_error_code(rc), message ? message : mdae_strerror(rc),
                              data);
fail:
    cJSON_Delete(data);
    cJSON_Delete(details);
    return NULL;
}

/* A request (with_id) or a notification: envelope, method, params (taken). */
static cJSON *call_new(const cJSON *id, bool with_id, const char *method, cJSON *params)
{
    cJSON *m = envelope(id, with_id);
    if (m == NULL || cJSON_AddStringToObject(m, "method", method) == NULL)
        goto fail;
    if (!attach_taken(m, "params", &params))
        goto fail;
    return m;
fail:
    cJSON_Delete(m);
    cJSON_Delete(params);
    return NULL;
}

cJSON *rpc_notification_new(const char *method, cJSON *params)
{
    return call_new(NULL, false, method, params);
}

cJSON *rpc_request_new(const cJSON *id, const char *method, cJSON *params)
{
    return call_new(id, true, method, params);
}

/* ---- Printing -------------------------------------------------------------- */

/* cJSON prints every number with "%1.15g" and reads it back with sscanf to
 * check it: printf's floating-point path twice per number, half the time of
 * printing a result (the brake's at N = 100 has 21,000 numbers, nearly all
 * ids, orders and counts). An integer of magnitude below 10^15 prints the
 * same with a decimal conversion (15 significant digits cover it: "%g"
 * writes it without exponent or point). So for the time of the print such
 * numbers are raw nodes holding those digits (cJSON copies a raw node's
 * text as it is), and numbers again afterwards. */
typedef struct int_nodes {
    cJSON **node;
    char *text;
    size_t n, cap, used;
} int_nodes;

static bool prints_as_integer(const cJSON *j)
{
    double v = j->valuedouble; /* the range first: the cast is then defined */
    return (j->type & 0xFF) == cJSON_Number && v > -1e15 && v < 1e15 &&
           v == (double)(long long)v && !(v == 0 && signbit(v));
}

/* Count (into->node NULL) or turn into raw nodes the integers of j's tree.
 * The recursion is bounded by cJSON's nesting limit (CJSON_NESTING_LIMIT)
 * for parsed trees, and by the builders' shapes for ours. */
static void integers(cJSON *j, int_nodes *into)
{
    for (; j != NULL; j = j->next) {
        if (j->child != NULL)
            integers(j->child, into);
        if (!prints_as_integer(j))
            continue;
        if (into->node != NULL) {
            MDAE_ASSERT(into->n < into->cap);
            char *t = into->text + into->used;
            size_t len = mdae_put_int(t, (long long)j->valuedouble);
            t[len] = '\0';
            into->used += len + 1;
            j->type = (j->type & ~0xFF) | cJSON_Raw; /* the flags kept (cJSON_StringIsConst) */
            j->valuestring = t;
            into->node[into->n] = j;
        }
        into->n++;
    }
}

/* msg printed by cJSON, its integers as raw digits: the same text, without
 * printf. The tree is left as it was (its numbers are numbers again) before
 * return; it must not be read meanwhile (a process prints on one thread).
 * NULL on OOM. */
static char *print_tree(const cJSON *msg, bool pretty)
{
    cJSON *root = (cJSON *)msg; /* changed and restored: see above */
    int_nodes in = {NULL, NULL, 0, 0, 0};
    integers(root->child, &in); /* root itself: printed by cJSON, if a number */
    in.cap = in.n;
    in.n = 0;
    if (in.cap > 0) {
        in.node = mdae_malloc(in.cap * sizeof *in.node);
        in.text = mdae_malloc(in.cap * 18); /* 16 digits, a sign, a NUL */
        if (in.node == NULL || in.text == NULL) { /* cJSON's own way, then */
            mdae_free(in.node);
            mdae_free(in.text);
            in = (int_nodes){NULL, NULL, 0, 0, 0};
        } else {
            integers(root->child, &in);
        }
    }
    char *s = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
    for (size_t k = 0; k < in.n; k++) {
        in.node[k]->type = (in.node[k]->type & ~0xFF) | cJSON_Number;
        in.node[k]->valuestring = NULL;
    }
    mdae_free(in.node);
    mdae_free(in.text);
    return s;
}

char *rpc_print_text(const cJSON *json, bool pretty)
{
    return json == NULL ? NULL : print_tree(json, pretty);
}

int rpc_print(const cJSON *msg, char **out, size_t *len)
{
    char *s = rpc_print_text(msg, false);
    if (s == NULL)
        return MDAE_E_NOMEM;
    *out = s;
    *len = strlen(s);
    return MDAE_OK;
}
