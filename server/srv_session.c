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
 *
 * Who may name a session (issue 37 item 1, docs/security.md): a made id is
 * a capability of 128 random bits; a connection's sessions are its own; a
 * session opened with an owner key needs that key. To anyone else the
 * session does not exist: srv_session_lookup finds nothing, so the reply
 * is the one of an id nobody holds, byte for byte.
 */
#include "srv.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

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

/* ---- Ids and owner keys (issue 37 item 1) ---------------------------------------- */

static const char base32[] = "abcdefghijklmnopqrstuvwxyz234567"; /* RFC 4648, lowercase */

static bool is_base32(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '2' && ch <= '7'); }

bool srv_session_id_made(const char *id)
{
    size_t n = strlen(id);
    if (n < SRV_SESSION_MADE_LEN)
        return false;
    const char *m = id + n - SRV_SESSION_MADE_LEN;
    if (m != id && m[-1] != '-')
        return false;
    if (m[0] != 's')
        return false;
    for (size_t i = 1; i < SRV_SESSION_MADE_LEN; i++)
        if (!is_base32(m[i]))
            return false;
    return true;
}

bool srv_owner_key_ok(const char *key)
{
    size_t n = 0;
    for (; key[n] != '\0'; n++) {
        char ch = key[n];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
        if (!ok || n >= SRV_OWNER_KEY_MAX)
            return false;
    }
    return n >= SRV_OWNER_KEY_MIN;
}

/* Do the two keys match, in time that depends on their lengths only (at
 * most SRV_OWNER_KEY_MAX: both were checked with srv_owner_key_ok, or the
 * given one is refused before), never on where they differ: timing the
 * answers tells nothing of a stored key's bytes. */
static bool key_equal(const char *stored, const char *given)
{
    size_t ns = strlen(stored), ng = strlen(given);
    unsigned char diff = ns != ng;
    for (size_t i = 0; i < ns; i++)
        diff |= (unsigned char)(stored[i] ^ (i < ng ? given[i] : 0));
    return diff == 0;
}

/* n random bytes from the kernel. There is deliberately no fallback to
 * rand() or the clock: an id an attacker can predict is no capability. */
static int random_bytes(unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(buf + got, n - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            MDAE_LOG(SRV_LOG_ERROR, "getrandom: %s: no session id can be made",
                     k < 0 ? strerror(errno) : "no bytes");
            return MDAE_E_IO;
        }
        got += (size_t)k;
    }
    return MDAE_OK;
}

/* "s" and 26 base32 letters of 128 random bits (the first letter carries
 * the top 3 bits only), after "<instance>-" when one is configured. */
static int make_id(char *out, size_t size)
{
    unsigned char r[16];
    int rc = random_bytes(r, sizeof r);
    if (rc < 0)
        return rc;
    char m[SRV_SESSION_MADE_LEN + 1];
    m[0] = 's';
    unsigned acc = 0, bits = 2; /* 130 bits of letters for 128: two zero bits first */
    size_t k = 1;
    for (size_t i = 0; i < sizeof r; i++) {
        acc = (acc << 8) | r[i];
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            m[k++] = base32[(acc >> bits) & 31];
        }
    }
    MDAE_ASSERT(k == SRV_SESSION_MADE_LEN && bits == 0);
    m[k] = '\0';
    if (srv.cfg.instance != NULL)
        snprintf(out, size, "%s-%s", srv.cfg.instance, m);
    else
        snprintf(out, size, "%s", m);
    return MDAE_OK;
}

/* A made id no session of this server holds, whatever its scope. A clash
 * of 128 random bits does not happen; the check makes "never reused" a
 * fact rather than a probability. */
static int fresh_id(srv_session *s)
{
    for (;;) {
        int rc = make_id(s->id, sizeof s->id);
        if (rc < 0)
            return rc;
        bool held = false;
        for (const srv_session *o = srv.sessions; o != NULL && !held; o = o->next)
            held = strcmp(o->id, s->id) == 0;
        if (!held)
            return MDAE_OK;
    }
}

srv_session *srv_session_lookup(srv_conn *conn, const char *id, const char *key)
{
    srv_session *keyed = NULL, *own = NULL, *shared = NULL;
    for (srv_session *s = srv.sessions; s != NULL; s = s->next) {
        if (strcmp(s->id, id) != 0 || s->uri != NULL)
            continue;
        if (s->owner != NULL && s->owner != conn)
            continue; /* another connection's: not there */
        if (s->owner_key != NULL) {
            if (key != NULL && key_equal(s->owner_key, key))
                keyed = s;
        } else if (s->owner != NULL) {
            own = s;
        } else {
            shared = s;
        }
    }
    return keyed ? keyed : own ? own : shared;
}

bool srv_session_id_taken(srv_conn *owner, const char *id, const char *key)
{
    for (const srv_session *s = srv.sessions; s != NULL; s = s->next) {
        if (strcmp(s->id, id) != 0 || s->uri != NULL || s->owner != owner)
            continue;
        if (owner != NULL)
            return true; /* one connection, one session per name */
        if (s->owner_key != NULL && key != NULL && key_equal(s->owner_key, key))
            return true;
    }
    return false;
}

size_t srv_session_count_class(const srv_conn *owner, const char *key)
{
    size_t n = 0;
    for (const srv_session *s = srv.sessions; s != NULL; s = s->next) {
        if (owner != NULL)
            n += s->owner == owner;
        else if (key != NULL)
            n += s->owner == NULL && s->owner_key != NULL && key_equal(s->owner_key, key);
        else
            n += s->owner == NULL && s->owner_key == NULL;
    }
    return n;
}

int srv_session_new(srv_conn *owner, const char *want_id, const char *key, const char *text,
                    size_t len, const cJSON *defines, srv_job *(*reload)(srv_queue *q),
                    srv_session **out)
{
    MDAE_ASSERT(want_id == NULL || (srv_session_id_ok(want_id, SRV_SESSION_ID_MAX) &&
                                    !srv_session_id_taken(owner, want_id, key)));
    /* A persistent session without a key is reached by its id alone: that
     * id must be a capability, made here (srv_m_session.c refuses a chosen
     * one, and the restore leaves such rows alone). */
    MDAE_ASSERT(owner != NULL || key != NULL || want_id == NULL || srv_session_id_made(want_id));
    if (srv.n_sessions >= srv.cfg.max_sessions)
        return MDAE_E_LIMIT;
    srv_session *s = mdae_calloc(1, sizeof *s);
    if (s == NULL)
        return MDAE_E_NOMEM;
    s->text = text != NULL ? mdae_strndup(text, len) : NULL; /* NULL: in the store only */
    s->defines = defines ? cJSON_Duplicate(defines, true) : NULL;
    s->owner_key = key ? mdae_strdup(key) : NULL;
    int rc = MDAE_OK;
    if ((text != NULL && s->text == NULL) || (defines != NULL && s->defines == NULL) ||
        (key != NULL && s->owner_key == NULL))
        rc = MDAE_E_NOMEM;
    else if (want_id != NULL)
        snprintf(s->id, sizeof s->id, "%s", want_id);
    else
        rc = fresh_id(s);
    if (rc < 0) {
        mdae_free(s->text);
        mdae_free(s->owner_key);
        cJSON_Delete(s->defines);
        mdae_free(s);
        return rc;
    }
    s->len = text != NULL ? len : 0;
    s->version = 1;
    s->owner = owner;
    s->last_used = uv_now(srv.loop);
    srv_queue_init(&s->queue, s->id, reload);
    link_session(s);
    MDAE_LOG(SRV_LOG_INFO, "session %s: open (%zu bytes%s%s)", s->id, len,
             owner ? "" : ", persistent", key ? ", keyed" : "");
    *out = s;
    return MDAE_OK;
}

srv_session *srv_session_of(srv_queue *q)
{
    return (srv_session *)(void *)((char *)q - offsetof(srv_session, queue));
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
    cJSON_Delete(s->lsp_late);
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

/* Would a stored row clash with a session in memory (its owner's scope)? */
static bool stored_taken(const char *id, const char *owner_key)
{
    return owner_key != NULL ? srv_session_id_taken(NULL, id, owner_key)
                             : srv_session_lookup(NULL, id, NULL) != NULL;
}

/* A row is served only as its owner would have opened it (issue 37): a
 * keyed row under a valid key, a keyless one only under a made id (the
 * capability); anything else stays in the store, untouched. */
static bool stored_usable(const srv_store_row *row)
{
    if (!srv_session_id_ok(row->id, SRV_SESSION_ID_MAX))
        return false;
    return row->owner_key != NULL ? srv_owner_key_ok(row->owner_key)
                                  : srv_session_id_made(row->id);
}

static int restore_row(const srv_store_row *row, void *arg)
{
    restore_arg *ra = arg;
    if (!stored_usable(row) || stored_taken(row->id, row->owner_key)) {
        MDAE_LOG(SRV_LOG_WARN, "stored session '%s': not a usable id, left in the store",
                 row->id);
        return MDAE_E_STATE;
    }
    srv_session *s;
    int rc = srv_session_new(NULL, row->id, row->owner_key, NULL, 0, NULL, ra->reload, &s);
    if (rc < 0)
        return rc;
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
    if (!srv_store_on() || stored_taken(id, owner_key))
        return MDAE_E_STATE;
    restore_arg ra = {reload, NULL};
    int rc = srv_store_get(id, owner_key, restore_row, &ra);
    /* As srv_session_lookup does in memory: a keyless session under a made
     * id is anyone's who holds the id, whatever key the request carries. */
    if (rc == MDAE_E_STATE && owner_key != NULL && srv_session_id_made(id) &&
        !stored_taken(id, NULL))
        rc = srv_store_get(id, NULL, restore_row, &ra);
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
