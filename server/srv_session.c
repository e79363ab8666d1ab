/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_session.c -- the session table: each session's model text,
 * version and defines, kept by the router so that a worker that dies or is
 * stopped for idleness can be restarted from them (issue 5 section 1).
 *
 * Edits use LSP positions: 0-based lines and UTF-16 code units within the
 * line (what editors send), converted to byte offsets of the UTF-8 text by
 * protocol/rpc_lsp.h, the same code that places the worker's diagnostics.
 *
 * Each session embeds its srv_queue, its line to the worker pool
 * (srv_worker.c); closing the session closes the queue.
 */
#include "srv.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rpc_lsp.h"

static void link_session(srv_session *s)
{
    s->next = srv.sessions;
    if (srv.sessions)
        srv.sessions->prev = s;
    srv.sessions = s;
    srv.n_sessions++;
}

static void unlink_session(srv_session *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        srv.sessions = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
    srv.n_sessions--;
}

bool srv_session_id_ok(const char *id, size_t max)
{
    size_t n = 0;
    for (; id[n] != '\0'; n++) {
        char ch = id[n];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
        if (!ok || n >= max)
            return false;
    }
    return n > 0;
}

/* The next number whose id no session has (a client may have chosen it). */
static void fresh_id(srv_session *s)
{
    do {
        s->num = ++srv.next_session_num;
        if (srv.cfg.instance != NULL)
            snprintf(s->id, sizeof s->id, "%s-s%llu", srv.cfg.instance,
                     (unsigned long long)s->num);
        else
            snprintf(s->id, sizeof s->id, "s%llu", (unsigned long long)s->num);
    } while (srv_session_find(s->id) != NULL);
}

int srv_session_new(srv_conn *owner, const char *want_id, const char *text, size_t len,
                    const cJSON *defines, srv_job *(*reload)(srv_queue *q), srv_session **out)
{
    MDAE_ASSERT(want_id == NULL ||
                (srv_session_id_ok(want_id, SRV_SESSION_ID_MAX) && !srv_session_find(want_id)));
    if (srv.n_sessions >= srv.cfg.max_sessions)
        return MDAE_E_LIMIT;
    srv_session *s = mdae_calloc(1, sizeof *s);
    if (s == NULL)
        return MDAE_E_NOMEM;
    s->text = text != NULL ? mdae_strndup(text, len) : NULL; /* NULL: in the store only */
    s->defines = defines ? cJSON_Duplicate(defines, true) : NULL;
    if ((text != NULL && s->text == NULL) || (defines != NULL && s->defines == NULL)) {
        mdae_free(s->text);
        cJSON_Delete(s->defines);
        mdae_free(s);
        return MDAE_E_NOMEM;
    }
    s->len = text != NULL ? len : 0;
    if (want_id != NULL) {
        s->num = ++srv.next_session_num;
        snprintf(s->id, sizeof s->id, "%s", want_id);
    } else {
        fresh_id(s);
    }
    s->version = 1;
    s->owner = owner;
    s->last_used = uv_now(srv.loop);
    srv_queue_init(&s->queue, s->id, reload);
    link_session(s);
    MDAE_LOG(SRV_LOG_INFO, "session %s: open (%zu bytes%s)", s->id, len,
             owner ? "" : ", persistent");
    *out = s;
    return MDAE_OK;
}

srv_session *srv_session_of(srv_queue *q)
{
    return (srv_session *)(void *)((char *)q - offsetof(srv_session, queue));
}

srv_session *srv_session_find(const char *id)
{
    for (srv_session *s = srv.sessions; s != NULL; s = s->next)
        if (strcmp(s->id, id) == 0)
            return s;
    return NULL;
}

srv_session *srv_session_find_uri(srv_conn *conn, const char *uri)
{
    for (srv_session *s = srv.sessions; s != NULL; s = s->next)
        if (s->owner == conn && s->uri != NULL && strcmp(s->uri, uri) == 0)
            return s;
    return NULL;
}

/* Drop every cached mode projection: all of them belong to the text being
 * replaced or freed (before, stale entries stayed until overwritten, up to
 * SRV_MODE_CACHE per session: the soak saw the router grow by a quarter). */
static void mode_cache_clear(srv_session *s)
{
    for (unsigned i = 0; i < SRV_MODE_CACHE; i++) {
        mdae_free(s->mode_cache[i].key);
        mdae_free(s->mode_cache[i].text);
        memset(&s->mode_cache[i], 0, sizeof s->mode_cache[i]);
    }
    s->mode_cache_next = 0;
}

static void session_free(srv_session *s)
{
    unlink_session(s);
    srv_queue_close(&s->queue);
    MDAE_LOG(SRV_LOG_INFO, "session %s: closed", s->id);
    mode_cache_clear(s);
    mdae_free(s->text);
    mdae_free(s->uri);
    mdae_free(s->owner_key);
    cJSON_Delete(s->defines);
    mdae_free(s);
}

int srv_session_close(srv_session *s, char *err, size_t errlen)
{
    char buf[512];
    if (err == NULL) {
        err = buf;
        errlen = sizeof buf;
    }
    int rc = srv_store_delete(s, err, errlen);
    if (rc < 0)
        return rc; /* still stored: it stays (issue 37 item 3) */
    session_free(s);
    return MDAE_OK;
}

void srv_session_forget(srv_session *s) { session_free(s); }

/* ---- Stored sessions (issue 37 items 3-5) ------------------------------------------ */

/* Take a stored row's text (if it has one) and what goes with it. */
static int adopt_row(srv_session *s, const srv_store_row *row)
{
    if (row->version < 1 || row->version > SRV_VERSION_MAX) {
        MDAE_LOG(SRV_LOG_ERROR,
                 "stored session %s: version %ld is not in 1..%ld: not served (left in the "
                 "store)",
                 row->id, row->version, (long)SRV_VERSION_MAX);
        return MDAE_E_STATE;
    }
    cJSON *defines = NULL;
    if (row->defines != NULL && (defines = cJSON_Parse(row->defines)) == NULL) {
        MDAE_LOG(SRV_LOG_ERROR, "stored session %s: its defines are not JSON: not served",
                 row->id);
        return MDAE_E_STATE;
    }
    char *text = NULL;
    if (row->text != NULL && (text = mdae_strndup(row->text, row->len)) == NULL) {
        cJSON_Delete(defines);
        return MDAE_E_NOMEM;
    }
    if (row->text != NULL) {
        mdae_free(s->text);
        s->text = text;
        s->len = row->len;
        mode_cache_clear(s);
    }
    cJSON_Delete(s->defines);
    s->defines = defines;
    s->modelica = row->modelica;
    s->recover = row->recover;
    s->version = row->version;
    return MDAE_OK;
}

typedef struct restore_arg {
    srv_job *(*reload)(srv_queue *q);
    srv_session *s;
} restore_arg;

static int restore_row(const srv_store_row *row, void *arg)
{
    restore_arg *ra = arg;
    if (!srv_session_id_ok(row->id, SRV_SESSION_ID_MAX) || srv_session_find(row->id) != NULL) {
        MDAE_LOG(SRV_LOG_WARN, "stored session '%s': not a usable id, left in the store",
                 row->id);
        return MDAE_E_STATE;
    }
    char *owner_key = row->owner_key ? mdae_strdup(row->owner_key) : NULL;
    if (row->owner_key != NULL && owner_key == NULL)
        return MDAE_E_NOMEM;
    srv_session *s;
    int rc = srv_session_new(NULL, row->id, NULL, 0, NULL, ra->reload, &s);
    if (rc < 0) {
        mdae_free(owner_key);
        return rc;
    }
    s->owner_key = owner_key;
    rc = adopt_row(s, row);
    if (rc < 0) {
        session_free(s);
        return rc;
    }
    ra->s = s;
    return MDAE_OK;
}

int srv_session_restore(const srv_store_row *row, srv_job *(*reload)(srv_queue *q),
                        srv_session **out)
{
    restore_arg ra = {reload, NULL};
    int rc = restore_row(row, &ra);
    if (rc == MDAE_OK)
        *out = ra.s;
    return rc;
}

int srv_session_load_stored(const char *id, const char *owner_key,
                            srv_job *(*reload)(srv_queue *q), srv_session **out)
{
    if (!srv_store_on() || srv_session_find(id) != NULL)
        return MDAE_E_STATE;
    restore_arg ra = {reload, NULL};
    int rc = srv_store_get(id, owner_key, restore_row, &ra);
    if (rc == MDAE_OK) {
        MDAE_LOG(SRV_LOG_INFO, "session %s: loaded from the store (version %ld)", id,
                 ra.s->version);
        *out = ra.s;
    }
    return rc;
}

static int take_text(const srv_store_row *row, void *arg) { return adopt_row(arg, row); }

int srv_session_load_text(srv_session *s)
{
    if (s->text != NULL)
        return MDAE_OK;
    int rc = srv_store_get(s->id, s->owner_key, take_text, s);
    if (rc < 0)
        MDAE_LOG(SRV_LOG_ERROR, "session %s: cannot load its stored text: %s", s->id,
                 mdae_err_name(rc));
    return rc;
}

void srv_session_drop_all(void)
{
    while (srv.sessions != NULL)
        session_free(srv.sessions);
}

void srv_session_close_owned(srv_conn *conn)
{
    srv_session *s = srv.sessions;
    while (s != NULL) {
        srv_session *next = s->next;
        if (s->owner == conn)
            srv_session_close(s, NULL, 0); /* not stored: cannot fail */
        s = next;
    }
}

void srv_session_expire(uint64_t now)
{
    srv_session *s = srv.sessions;
    while (s != NULL) {
        srv_session *next = s->next;
        bool busy = srv_queue_busy(&s->queue);
        if (s->owner == NULL && !busy && now - s->last_used > srv.cfg.session_idle_ms) {
            MDAE_LOG(SRV_LOG_INFO, "session %s: idle for %llu ms, expired", s->id,
                     (unsigned long long)(now - s->last_used));
            /* In a cluster another instance may be using it: only this
             * copy goes; the row is deleted when it has not changed for
             * the idle time, by an instance starting (issue 37 item 4). */
            if (srv_store_shared())
                srv_session_forget(s);
            else if (srv_session_close(s, NULL, 0) < 0)
                s->last_used = now; /* its row stays: try again after another idle period */
        }
        s = next;
    }
}

int srv_session_set_text(srv_session *s, char *text, size_t len, char *err, size_t errlen)
{
    if (s->version >= SRV_VERSION_MAX) { /* a tampered store, or 2^63 edits: no wrap */
        mdae_free(text);
        snprintf(err, errlen, "session %s is at version %ld: its version cannot grow further",
                 s->id, s->version);
        return MDAE_E_LIMIT;
    }
    /* The new text and version go to the store first; the session takes
     * them only once they are durable (issue 37 item 3). */
    char *old = s->text;
    size_t old_len = s->len;
    long old_version = s->version;
    s->text = text;
    s->len = len;
    s->version++;
    int rc = srv_store_put(s, old_version, err, errlen);
    if (rc < 0) {
        s->text = old;
        s->len = old_len;
        s->version = old_version;
        mdae_free(text);
        return rc;
    }
    mdae_free(old);
    mdae_free(s->queue.limited.message); /* that text's: the new one is analysed */
    s->queue.limited = (struct srv_limited){0};
    s->last_used = uv_now(srv.loop);
    mode_cache_clear(s);
    return MDAE_OK;
}

/* "failed" in the load params of the version whose analysis got the
 * worker killed at a limit (srv_queue.limited); false on OOM. */
static bool add_limited(cJSON *p, const struct srv_limited *l, long version)
{
    if (l->version != version || l->message == NULL)
        return true;
    cJSON *f = cJSON_AddObjectToObject(p, "failed");
    return f != NULL && cJSON_AddNumberToObject(f, "rc", l->rc) &&
           cJSON_AddNumberToObject(f, "limit", l->limit) &&
           cJSON_AddNumberToObject(f, "value", l->value) &&
           cJSON_AddStringToObject(f, "message", l->message);
}

cJSON *srv_session_load_params(const srv_session *s)
{
    cJSON *p = cJSON_CreateObject();
    /* name: FILE in FILE:LINE:COL diagnostics */
    if (p == NULL || !cJSON_AddStringToObject(p, "text", s->text) ||
        !cJSON_AddStringToObject(p, "name", s->uri ? s->uri : s->id)) {
        cJSON_Delete(p);
        return NULL;
    }
    if ((s->modelica && !cJSON_AddStringToObject(p, "format", "modelica")) ||
        (s->recover && !cJSON_AddTrueToObject(p, "recover")) ||
        (s->lsp_utf8 && !cJSON_AddStringToObject(p, "positionEncoding", "utf-8"))) {
        cJSON_Delete(p);
        return NULL;
    }
    if (s->defines != NULL) {
        cJSON *d = cJSON_Duplicate(s->defines, true);
        if (d == NULL) {
            cJSON_Delete(p);
            return NULL;
        }
        cJSON_AddItemToObject(p, "defines", d);
    }
    if (!add_limited(p, &s->queue.limited, s->version)) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

static bool position(const cJSON *p, double *line, double *character)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(p, "line");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(p, "character");
    if (!cJSON_IsNumber(l) || !cJSON_IsNumber(c) || l->valuedouble < 0 || c->valuedouble < 0)
        return false;
    *line = l->valuedouble;
    *character = c->valuedouble;
    return true;
}

int srv_session_apply_edits(srv_session *s, const cJSON *edits, const char **why, char *err,
                            size_t errlen)
{
    if (!cJSON_IsArray(edits)) {
        *why = "\"edits\" must be an array";
        return MDAE_E_INVAL;
    }
    rpc_lsp_enc enc = s->lsp_utf8 ? RPC_LSP_UTF8 : RPC_LSP_UTF16;
    char *text = mdae_strndup(s->text, s->len);
    size_t len = s->len;
    if (text == NULL)
        return MDAE_E_NOMEM;
    for (const cJSON *e = edits->child; e != NULL; e = e->next) {
        const cJSON *range = cJSON_GetObjectItemCaseSensitive(e, "range");
        const cJSON *nt = cJSON_GetObjectItemCaseSensitive(e, "text");
        double sl, sc, el, ec;
        if (!cJSON_IsObject(range) || !cJSON_IsString(nt) ||
            !position(cJSON_GetObjectItemCaseSensitive(range, "start"), &sl, &sc) ||
            !position(cJSON_GetObjectItemCaseSensitive(range, "end"), &el, &ec)) {
            *why = "an edit is {range:{start:{line,character},end:{line,character}},text}";
            mdae_free(text);
            return MDAE_E_INVAL;
        }
        size_t a = rpc_lsp_offset(text, len, sl, sc, enc),
               b = rpc_lsp_offset(text, len, el, ec, enc);
        if (b < a) {
            *why = "an edit's range ends before it starts";
            mdae_free(text);
            return MDAE_E_INVAL;
        }
        size_t tl = strlen(nt->valuestring);
        size_t nlen = len - (b - a) + tl;
        if (nlen > srv.cfg.max_message_bytes * 4) {
            *why = "the edited text is too large";
            mdae_free(text);
            return MDAE_E_INVAL;
        }
        char *n = mdae_malloc(nlen + 1);
        if (n == NULL) {
            mdae_free(text);
            return MDAE_E_NOMEM;
        }
        memcpy(n, text, a);
        memcpy(n + a, nt->valuestring, tl);
        memcpy(n + a + tl, text + b, len - b);
        n[nlen] = '\0';
        mdae_free(text);
        text = n;
        len = nlen;
    }
    int rc = srv_session_set_text(s, text, len, err, errlen);
    if (rc < 0)
        *why = err;
    return rc;
}

const char *srv_session_mode_get(srv_session *s, const char *key, size_t *len)
{
    for (unsigned i = 0; i < SRV_MODE_CACHE; i++) {
        const struct srv_mode_cache *e = &s->mode_cache[i];
        if (e->key != NULL && e->version == s->version && strcmp(e->key, key) == 0) {
            *len = e->len;
            return e->text;
        }
    }
    return NULL;
}

void srv_session_mode_put(srv_session *s, const char *key, long version, const char *text,
                          size_t len)
{
    if (version != s->version) /* stale: the text changed */
        return;
    char *k = mdae_strdup(key);
    char *t = mdae_malloc(len + 1);
    if (k == NULL || t == NULL) {
        mdae_free(k);
        mdae_free(t);
        return;
    }
    memcpy(t, text, len);
    t[len] = '\0';
    struct srv_mode_cache *e = &s->mode_cache[s->mode_cache_next];
    s->mode_cache_next = (s->mode_cache_next + 1) % SRV_MODE_CACHE;
    mdae_free(e->key);
    mdae_free(e->text);
    e->key = k;
    e->text = t;
    e->len = len;
    e->version = version;
}
