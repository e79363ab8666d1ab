/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * protocol/rpc_jwriter.c -- JSON text written as it is produced: the
 * writer's framing (commas, keys, open objects and arrays) and a compact
 * printer of cJSON trees into a buffer. rpc_jwriter.h says what each
 * function promises.
 */
#include "rpc_jwriter.h"

#include <math.h>
#include <string.h>

/* ---- Printing ---------------------------------------------------------------------- */

/* The bytes put_string does not copy as they are, and the end: control
 * characters (the NUL among them), '"' and '\\'. */
static bool stops_scan(unsigned char c) { return c < 32 || c == '"' || c == '\\'; }

/* s as cJSON's print_string_ptr writes it: quoted; '"', '\\' and the
 * control characters escaped (\b \f \n \r \t by name, the others as
 * \u00xx); every other byte as it is. NULL prints "". */
static void put_string(mdae_buf *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    mdae_buf_putc(out, '"');
    if (s != NULL) {
        const char *run = s; /* bytes not yet copied */
        const unsigned char *p = (const unsigned char *)s;
        for (;; p++) {
            while (!stops_scan(*p)) /* most strings: names, formulas */
                p++;
            if (*p == '\0')
                break;
            mdae_buf_put(out, run, (size_t)((const char *)p - run));
            run = (const char *)p + 1;
            char esc[6] = {'\\', 0, 0, 0, 0, 0};
            size_t n = 2;
            switch (*p) {
            case '"': esc[1] = '"'; break;
            case '\\': esc[1] = '\\'; break;
            case '\b': esc[1] = 'b'; break;
            case '\f': esc[1] = 'f'; break;
            case '\n': esc[1] = 'n'; break;
            case '\r': esc[1] = 'r'; break;
            case '\t': esc[1] = 't'; break;
            default:
                memcpy(esc + 1, "u00", 3);
                esc[4] = hex[*p >> 4];
                esc[5] = hex[*p & 15];
                n = 6;
            }
            mdae_buf_put(out, esc, n);
        }
        mdae_buf_put(out, run, (size_t)((const char *)p - run)); /* the scan knows its length */
    }
    mdae_buf_putc(out, '"');
}

/* rpc_message.c's print_tree test: an integer cJSON prints as its digits. */
static bool prints_as_integer(double v)
{
    return v > -1e15 && v < 1e15 && v == (double)(long long)v && !(v == 0 && signbit(v));
}

static int put_number(mdae_buf *out, const cJSON *v)
{
    if (prints_as_integer(v->valuedouble)) {
        char digits[MDAE_INT_CHARS + 1];
        mdae_buf_put(out, digits, mdae_put_int(digits, (long long)v->valuedouble));
        return MDAE_OK;
    }
    char *s = cJSON_PrintUnformatted(v); /* the node alone: cJSON's own format */
    if (s == NULL)
        return MDAE_E_NOMEM;
    mdae_buf_puts(out, s);
    cJSON_free(s);
    return MDAE_OK;
}

int rpc_jw_print(const cJSON *v, mdae_buf *out)
{
    if (v == NULL || out == NULL)
        return MDAE_E_INVAL;
    int rc = MDAE_OK;
    switch (v->type & 0xFF) {
    case cJSON_NULL: mdae_buf_puts(out, "null"); break;
    case cJSON_False: mdae_buf_puts(out, "false"); break;
    case cJSON_True: mdae_buf_puts(out, "true"); break;
    case cJSON_Number: rc = put_number(out, v); break;
    case cJSON_String: put_string(out, v->valuestring); break;
    case cJSON_Raw:
        if (v->valuestring == NULL)
            return MDAE_E_INVAL;
        mdae_buf_puts(out, v->valuestring);
        break;
    case cJSON_Array:
    case cJSON_Object: {
        bool object = (v->type & 0xFF) == cJSON_Object;
        mdae_buf_putc(out, object ? '{' : '[');
        for (const cJSON *c = v->child; c != NULL && rc == MDAE_OK; c = c->next) {
            if (c != v->child)
                mdae_buf_putc(out, ',');
            if (object) {
                put_string(out, c->string);
                mdae_buf_putc(out, ':');
            }
            rc = rpc_jw_print(c, out);
        }
        mdae_buf_putc(out, object ? '}' : ']');
        break;
    }
    default: return MDAE_E_INVAL; /* cJSON_Invalid: cJSON prints nothing either */
    }
    if (rc == MDAE_OK && out->oom)
        rc = MDAE_E_NOMEM;
    return rc;
}

/* ---- The writer -------------------------------------------------------------------- */

void rpc_jw_init(rpc_jw *w, rpc_jw_sink *sink, void *arg)
{
    memset(w, 0, sizeof *w);
    w->sink = sink;
    w->arg = arg;
}

/* The buffer to the sink once it holds a chunk. */
static int settle(rpc_jw *w)
{
    if (w->rc == MDAE_OK && w->buf.oom)
        w->rc = MDAE_E_NOMEM;
    if (w->rc == MDAE_OK && w->buf.len >= RPC_JW_CHUNK)
        return rpc_jw_flush(w);
    return w->rc;
}

/* The comma and key before a member or element of the innermost value. */
static void lead(rpc_jw *w, const char *key)
{
    if (w->depth > 0) {
        if (!w->empty[w->depth - 1])
            mdae_buf_putc(&w->buf, ',');
        w->empty[w->depth - 1] = false;
    }
    if (key != NULL) {
        put_string(&w->buf, key);
        mdae_buf_putc(&w->buf, ':');
    }
}

static int open_one(rpc_jw *w, const char *key, bool object)
{
    if (w->rc != MDAE_OK)
        return w->rc;
    if (w->depth == RPC_JW_DEPTH)
        return w->rc = MDAE_E_INVAL;
    lead(w, key);
    mdae_buf_putc(&w->buf, object ? '{' : '[');
    w->object[w->depth] = object;
    w->empty[w->depth++] = true;
    return settle(w);
}

int rpc_jw_open_object(rpc_jw *w, const char *key) { return open_one(w, key, true); }
int rpc_jw_open_array(rpc_jw *w, const char *key) { return open_one(w, key, false); }

int rpc_jw_close_one(rpc_jw *w)
{
    if (w->rc != MDAE_OK)
        return w->rc;
    MDAE_ASSERT(w->depth > 0);
    w->depth--;
    mdae_buf_putc(&w->buf, w->object[w->depth] ? '}' : ']');
    return settle(w);
}

int rpc_jw_value(rpc_jw *w, const char *key, const cJSON *v)
{
    if (w->rc != MDAE_OK)
        return w->rc;
    lead(w, key);
    int rc = rpc_jw_print(v, &w->buf);
    if (rc < 0)
        return w->rc = rc;
    return settle(w);
}

int rpc_jw_string(rpc_jw *w, const char *key, const char *s)
{
    if (w->rc != MDAE_OK)
        return w->rc;
    if (s == NULL)
        return w->rc = MDAE_E_INVAL; /* cJSON_CreateString(NULL) makes no node */
    lead(w, key);
    put_string(&w->buf, s);
    return settle(w);
}

int rpc_jw_number(rpc_jw *w, const char *key, double v)
{
    if (w->rc != MDAE_OK)
        return w->rc;
    lead(w, key);
    if (prints_as_integer(v)) {
        char digits[MDAE_INT_CHARS + 1];
        mdae_buf_put(&w->buf, digits, mdae_put_int(digits, (long long)v));
        return settle(w);
    }
    cJSON *n = cJSON_CreateNumber(v);
    int rc = n != NULL ? put_number(&w->buf, n) : MDAE_E_NOMEM;
    cJSON_Delete(n);
    if (rc < 0)
        return w->rc = rc;
    return settle(w);
}

int rpc_jw_bool(rpc_jw *w, const char *key, bool v)
{
    if (w->rc != MDAE_OK)
        return w->rc;
    lead(w, key);
    mdae_buf_puts(&w->buf, v ? "true" : "false");
    return settle(w);
}

int rpc_jw_members(rpc_jw *w, const cJSON *obj)
{
    if (w->rc == MDAE_OK && !cJSON_IsObject(obj))
        w->rc = MDAE_E_INVAL;
    for (const cJSON *c = obj != NULL ? obj->child : NULL; c != NULL && w->rc == MDAE_OK;
         c = c->next)
        rpc_jw_value(w, c->string != NULL ? c->string : "", c);
    return w->rc;
}

int rpc_jw_raw(rpc_jw *w, const char *s, size_t n)
{
    if (w->rc != MDAE_OK)
        return w->rc;
    mdae_buf_put(&w->buf, s, n);
    return settle(w);
}

int rpc_jw_flush(rpc_jw *w)
{
    if (w->rc == MDAE_OK && w->buf.oom)
        w->rc = MDAE_E_NOMEM;
    if (w->rc != MDAE_OK || w->buf.len == 0)
        return w->rc;
    int rc = w->sink(w->arg, w->buf.p, w->buf.len);
    w->buf.len = 0;
    if (w->buf.p != NULL)
        w->buf.p[0] = '\0';
    if (rc < 0)
        w->rc = rc;
    return w->rc;
}

void rpc_jw_close(rpc_jw *w)
{
    mdae_free(w->buf.p);
    w->buf = (mdae_buf){0};
}
