/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_config.c -- read conf/mdaed.json once, at startup.
 *
 * The file is JSON with comments (stripped with cJSON_Minify). Every key is
 * optional; unknown keys are errors, so that a typo does not silently leave a
 * limit at its default. The keys and defaults are documented in
 * conf/mdaed.json itself. Relative paths are relative to the configuration
 * file's directory.
 */
#include "srv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void srv_config_default(srv_config *c)
{
    memset(c, 0, sizeof *c);
    c->listen_tcp = mdae_strdup("127.0.0.1:7420");
    c->max_message_bytes = RPC_FRAMER_DEFAULT_MAX_FRAME;
    c->max_sessions = 1024;
    /* Issue 37 item 5: one client filled the 1,024 slots in 19 s and locked
     * everyone out. 128 per connection or owner key is room for an editor
     * with many documents; anonymous persistent sessions (HTTP, the web
     * page) share half the table (0 here: max_sessions / 2); 50 opens a
     * second per connection, 100 at once, is above a script's pace (an
     * open starts a worker process: tens of ms on our 2-core box) and
     * bounds how fast one connection can churn workers. */
    c->sessions_per_owner = 128;
    c->anonymous_sessions = 0;
    c->session_opens_per_second = 50;
    c->session_open_burst = 100;
    c->max_pending_requests = 1024;
    c->max_workers = 32;
    c->worker_memory_mb = 4096;
    c->request_timeout_ms = 10 * 60 * 1000;
    c->cancel_grace_ms = 2000;
    c->shutdown_grace_ms = 10000;
    c->worker_idle_ms = 5 * 60 * 1000;
    c->session_idle_ms = 60 * 60 * 1000;
    c->lsp_debounce_ms = 150;
    c->write_queue_bytes = 64u * 1024 * 1024;
    /* Connections and their bounds (issue 37 item 5): why these values is
     * in docs/security.md, "Connections and their bounds". */
    c->header_timeout_ms = 10000;
    c->body_timeout_ms = 30000;
    c->body_min_rate = 64u * 1024;
    c->idle_ms = 5 * 60 * 1000;
    c->http_idle_ms = 30000;
    c->idle_with_sessions_ms = 24ull * 60 * 60 * 1000;
    c->write_stall_ms = 60000;
    c->partial_bytes = 256u * 1024 * 1024;
    c->max_connections = 0; /* the descriptor limit only */
    c->log_level = SRV_LOG_INFO;
    /* BuDDy's default first table (1M nodes) costs ~150 ms at every worker
     * start, 100k ~13 ms, 10k ~4 ms (measured 2026-11-21, loaded 2-core box);
     * BuDDy grows the table when a model needs more, and the analysis of
     * building_compressible N=4 was no slower for it. Sessions start workers
     * often: 200 concurrent open+analyze+close went from 12.2 s to 4.7 s. */
    c->bdd_initial_nodes = 10000;
    /* A human-chosen token guessed at 4 tries a second, 5 tries a
     * connection (docs/security.md). */
    c->auth_fail_delay_ms = 250;
    c->auth_max_failures = 5;
}

static void list_free(char **list)
{
    for (size_t i = 0; list != NULL && list[i] != NULL; i++)
        mdae_free(list[i]);
    mdae_free(list);
}

int srv_config_list_add(char ***list, const char *value)
{
    size_t n = 0;
    while (*list != NULL && (*list)[n] != NULL)
        n++;
    char *v = mdae_strdup(value);
    char **nl = v ? mdae_realloc(*list, (n + 2) * sizeof *nl) : NULL;
    if (nl == NULL) {
        mdae_free(v);
        return MDAE_E_NOMEM;
    }
    nl[n] = v;
    nl[n + 1] = NULL;
    *list = nl;
    return MDAE_OK;
}

void srv_config_close(srv_config *c)
{
    mdae_free(c->listen_tcp);
    mdae_free(c->listen_unix);
    mdae_free(c->token);
    mdae_free(c->web_root);
    mdae_free(c->port_file);
    mdae_free(c->instance);
    mdae_free(c->state_dir);
    mdae_free(c->store_url);
    mdae_free(c->debug_store_fail_mode);
    list_free(c->http_allowed_hosts);
    list_free(c->http_allowed_origins);
    memset(c, 0, sizeof *c);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = mdae_malloc(cap);
    while (buf != NULL) {
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0)
            break;
        if (n + 1 == cap) {
            if (cap > (1u << 20)) { /* a configuration file is small */
                mdae_free(buf);
                buf = NULL;
                break;
            }
            char *nb = mdae_realloc(buf, cap * 2);
            if (nb == NULL) {
                mdae_free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf != NULL) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

typedef struct key_spec {
    const char *group; /* NULL: top level */
    const char *name;
    /* 's' string (or null), 'n' size, 'm' milliseconds, 'b' bool, 'l' log
     * level, 'p' path (relative to the configuration file), 'i' instance
     * name (srv_session_id_ok, at most SRV_INSTANCE_MAX bytes), 'd' the
     * state directory (a path, "none", or null for the default), 'a' an
     * array of strings (a NULL-terminated char **) */
    char type;
    size_t offset;
} key_spec;

#define K(g, n, t, field) {g, n, t, offsetof(srv_config, field)}
static const key_spec keys[] = {
    K("listen", "tcp", 's', listen_tcp),
    K("listen", "unix", 'p', listen_unix),
    K(NULL, "token", 's', token),
    K(NULL, "web_root", 'p', web_root),
    K(NULL, "instance", 'i', instance),
    K(NULL, "state_dir", 'd', state_dir),
    K(NULL, "log_level", 'l', log_level),
    K(NULL, "debug_methods", 'b', debug_methods),
    K(NULL, "debug_store_fail_write", 'n', debug_store_fail_write),
    K(NULL, "debug_store_fail_mode", 's', debug_store_fail_mode),
    K("store", "url", 's', store_url),
    K("limits", "max_message_bytes", 'n', max_message_bytes),
    K("limits", "max_sessions", 'n', max_sessions),
    K("limits", "sessions_per_owner", 'n', sessions_per_owner),
    K("limits", "anonymous_sessions", 'n', anonymous_sessions),
    K("limits", "session_opens_per_second", 'n', session_opens_per_second),
    K("limits", "session_open_burst", 'n', session_open_burst),
    K("limits", "max_pending_requests", 'n', max_pending_requests),
    K("limits", "max_workers", 'n', max_workers),
    K("limits", "worker_memory_mb", 'n', worker_memory_mb),
    K("limits", "request_timeout_ms", 'm', request_timeout_ms),
    K("limits", "cancel_grace_ms", 'm', cancel_grace_ms),
    K("limits", "shutdown_grace_ms", 'm', shutdown_grace_ms),
    K("limits", "worker_idle_ms", 'm', worker_idle_ms),
    K("limits", "session_idle_ms", 'm', session_idle_ms),
    K("limits", "write_queue_bytes", 'n', write_queue_bytes),
    K("limits", "header_timeout_ms", 'm', header_timeout_ms),
    K("limits", "body_timeout_ms", 'm', body_timeout_ms),
    K("limits", "body_min_rate", 'n', body_min_rate),
    K("limits", "idle_ms", 'm', idle_ms),
    K("limits", "http_idle_ms", 'm', http_idle_ms),
    K("limits", "idle_with_sessions_ms", 'm', idle_with_sessions_ms),
    K("limits", "write_stall_ms", 'm', write_stall_ms),
    K("limits", "partial_bytes", 'n', partial_bytes),
    K("limits", "max_connections", 'n', max_connections),
    K("lsp", "debounce_ms", 'm', lsp_debounce_ms),
    K("bdd", "node_limit", 'n', bdd_node_limit),
    K("bdd", "initial_nodes", 'n', bdd_initial_nodes),
    K("bdd", "cache_size", 'n', bdd_cache_size),
    K("http", "allowed_hosts", 'a', http_allowed_hosts),
    K("http", "allowed_origins", 'a', http_allowed_origins),
    K("auth", "fail_delay_ms", 'm', auth_fail_delay_ms),
    K("auth", "max_failures", 'n', auth_max_failures),
};
#undef K

static const key_spec *find_key(const char *group, const char *name)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        bool gsame = (group == NULL && keys[i].group == NULL) ||
                     (group != NULL && keys[i].group != NULL && strcmp(group, keys[i].group) == 0);
        if (gsame && strcmp(name, keys[i].name) == 0)
            return &keys[i];
    }
    return NULL;
}

static bool is_group(const char *name)
{
    return strcmp(name, "listen") == 0 || strcmp(name, "limits") == 0 ||
           strcmp(name, "bdd") == 0 || strcmp(name, "lsp") == 0 || strcmp(name, "store") == 0 ||
           strcmp(name, "http") == 0 || strcmp(name, "auth") == 0;
}

static int set_key(srv_config *c, const key_spec *k, const cJSON *v, const char *dir,
                   char *err, size_t errlen)
{
    char *base = (char *)c + k->offset;
    if (k->type == 'i' && cJSON_IsString(v) &&
        !srv_session_id_ok(v->valuestring, SRV_INSTANCE_MAX))
        goto bad;
    if (k->offset == offsetof(srv_config, debug_store_fail_mode) && cJSON_IsString(v) &&
        strcmp(v->valuestring, "once") != 0 && strcmp(v->valuestring, "full") != 0)
        goto bad;
    if (k->type == 'd') {
        if (!cJSON_IsNull(v) && !cJSON_IsString(v))
            goto bad;
        c->state_dir_set = cJSON_IsString(v);
        if (cJSON_IsString(v) && strcmp(v->valuestring, "none") == 0)
            v = NULL; /* explicitly none */
    }
    switch (k->type) {
    case 'a': {
        char ***slot = (char ***)(void *)base;
        if (!cJSON_IsArray(v))
            goto bad;
        list_free(*slot);
        *slot = NULL;
        const cJSON *e;
        cJSON_ArrayForEach(e, v) {
            if (!cJSON_IsString(e) || e->valuestring[0] == '\0')
                goto bad;
            if (srv_config_list_add(slot, e->valuestring) < 0)
                return MDAE_E_NOMEM;
        }
        return MDAE_OK;
    }
    case 's':
    case 'i':
    case 'd':
    case 'p': {
        char **slot = (char **)(void *)base;
        if (v == NULL || cJSON_IsNull(v)) {
            mdae_free(*slot);
            *slot = NULL;
            return MDAE_OK;
        }
        if (!cJSON_IsString(v))
            goto bad;
        bool relative = k->type == 'p' || k->type == 'd';
        char *s = (relative && v->valuestring[0] != '/' && dir != NULL)
                      ? mdae_asprintf("%s/%s", dir, v->valuestring)
                      : mdae_strdup(v->valuestring);
        if (s == NULL)
            return MDAE_E_NOMEM;
        mdae_free(*slot);
        *slot = s;
        return MDAE_OK;
    }
    case 'n':
    case 'm':
        if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15)
            goto bad;
        if (k->type == 'n')
            *(size_t *)(void *)base = (size_t)v->valuedouble;
        else
            *(uint64_t *)(void *)base = (uint64_t)v->valuedouble;
        return MDAE_OK;
    case 'b':
        if (!cJSON_IsBool(v))
            goto bad;
        *(bool *)(void *)base = cJSON_IsTrue(v);
        return MDAE_OK;
    case 'l': {
        int l = cJSON_IsString(v) ? srv_log_level_parse(v->valuestring) : -1;
        if (l < 0)
            goto bad;
        *(int *)(void *)base = l;
        return MDAE_OK;
    }
    }
bad:
    snprintf(err, errlen, "bad value for %s%s%s", k->group ? k->group : "",
             k->group ? "." : "", k->name);
    return MDAE_E_PARSE;
}

int srv_config_load(srv_config *c, const char *path, char *err, size_t errlen)
{
    size_t len;
    char *text = read_file(path, &len);
    if (text == NULL) {
        snprintf(err, errlen, "cannot read: %s", strerror(errno ? errno : EIO));
        return MDAE_E_IO;
    }
    char *dir = mdae_strdup(path);
    if (dir == NULL) {
        mdae_free(text);
        return MDAE_E_NOMEM;
    }
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    else {
        mdae_free(dir);
        dir = mdae_strdup(".");
    }
    cJSON_Minify(text);
    cJSON *root = cJSON_Parse(text);
    mdae_free(text);
    int rc = MDAE_OK;
    if (!cJSON_IsObject(root)) {
        snprintf(err, errlen, "not a JSON object (comments allowed)");
        rc = MDAE_E_PARSE;
        goto done;
    }
    for (const cJSON *e = root->child; e != NULL && rc == MDAE_OK; e = e->next) {
        if (is_group(e->string)) {
            if (!cJSON_IsObject(e)) {
                snprintf(err, errlen, "%s must be an object", e->string);
                rc = MDAE_E_PARSE;
                break;
            }
            for (const cJSON *f = e->child; f != NULL && rc == MDAE_OK; f = f->next) {
                const key_spec *k = find_key(e->string, f->string);
                if (k == NULL) {
                    snprintf(err, errlen, "unknown key %s.%s", e->string, f->string);
                    rc = MDAE_E_PARSE;
                } else {
                    rc = set_key(c, k, f, dir, err, errlen);
                }
            }
            continue;
        }
        const key_spec *k = find_key(NULL, e->string);
        if (k == NULL) {
            snprintf(err, errlen, "unknown key %s", e->string);
            rc = MDAE_E_PARSE;
        } else {
            rc = set_key(c, k, e, dir, err, errlen);
        }
    }
    if (rc == MDAE_OK && c->anonymous_sessions >= c->max_sessions && c->anonymous_sessions > 0) {
        /* Anonymous sessions must never be able to take every slot. */
        snprintf(err, errlen,
                 "limits.anonymous_sessions (%zu) must be below limits.max_sessions (%zu)",
                 c->anonymous_sessions, c->max_sessions);
        rc = MDAE_E_PARSE;
    }
done:
    cJSON_Delete(root);
    mdae_free(dir);
    return rc;
}
