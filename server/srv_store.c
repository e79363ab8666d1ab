/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_store.c -- persistent sessions kept across restarts (issue 17)
 * and shared by the instances of a cluster (issue 37): the policy every
 * caller sees, over a backend that keeps the rows (srv_store_backend,
 * srv.h): SQLite in the state directory for one instance
 * (srv_store_sqlite.c), PostgreSQL for several (srv_store_pg.c), chosen by
 * the configuration's store.url.
 *
 * What is kept: a row per persistent session (owner NULL: opened with
 * `persist: true`, or over HTTP), keyed by its id and owner key, with its
 * text, format, defines, text version, recover flag (session/open
 * {recover}) and the wall-clock time of its last change. Not kept: results
 * (a restarted worker recomputes them; the analysis is a function of the
 * text) and connection-owned sessions (they end with their connection).
 *
 * Durability (issue 37 item 3): a change of a persistent session is
 * acknowledged only once its row committed. The callers (srv_session.c,
 * srv_m_session.c) write before they answer and undo the change in memory
 * when the write fails (MDAE_E_NOTSAVED, or MDAE_E_CONFLICT when another
 * writer changed the row first): the client is told, and the session is as
 * it was before the request.
 *
 * The backend's handle lives in srv (srv_loop.c's server state), touched
 * only on the loop thread.
 */
#include "srv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *srv_store_default_dir(void)
{
    const char *state = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    if (state != NULL && state[0] == '/')
        return mdae_asprintf("%s/mdae", state);
    if (home != NULL && home[0] == '/')
        return mdae_asprintf("%s/.local/state/mdae", home);
    return NULL;
}

static bool is_pg_url(const char *url)
{
    return strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0;
}

int srv_store_open(const char *dir)
{
    MDAE_ASSERT(srv.store == NULL);
    const char *url = srv.cfg.store_url;
    const srv_store_backend *b = &srv_store_sqlite;
    const char *where = dir;
    if (url != NULL) {
        if (!is_pg_url(url)) {
            MDAE_LOG(SRV_LOG_ERROR,
                     "store.url must be a postgresql:// or postgres:// URL (or absent for "
                     "SQLite in the state directory)");
            return MDAE_E_INVAL;
        }
        b = &srv_store_pg;
        where = url;
    }
    if (where == NULL)
        return MDAE_OK; /* no state directory, no URL: nothing persists */
    char err[1024] = "";
    void *db = NULL;
    int rc = b->open(&db, where, err, sizeof err);
    if (rc < 0) {
        MDAE_LOG(SRV_LOG_ERROR, "session store (%s): %s", b->name,
                 err[0] ? err : mdae_strerror(rc));
        return rc;
    }
    srv.store_backend = b;
    srv.store = db;
    /* the URL may hold a password: name the backend only */
    MDAE_LOG(SRV_LOG_INFO, "persistent sessions in %s (%s)", b == &srv_store_pg ? "PostgreSQL" : dir,
             b->name);
    return MDAE_OK;
}

void srv_store_close(void)
{
    if (srv.store == NULL)
        return;
    srv.store_backend->close(srv.store);
    srv.store = NULL;
    srv.store_backend = NULL;
}

bool srv_store_on(void) { return srv.store != NULL; }

bool srv_store_keeps(const srv_session *s) { return srv.store != NULL && s->owner == NULL; }

int srv_store_put(const srv_session *s, long expect, char *err, size_t errlen)
{
    if (!srv_store_keeps(s))
        return MDAE_OK;
    err[0] = '\0';
    int rc = srv.store_backend->put(srv.store, s, expect, err, errlen);
    if (rc < 0)
        MDAE_LOG(SRV_LOG_ERROR, "session %s: version %ld not saved: %s: %s", s->id, s->version,
                 mdae_err_name(rc), err[0] ? err : mdae_strerror(rc));
    return rc;
}

int srv_store_delete(const srv_session *s, char *err, size_t errlen)
{
    if (!srv_store_keeps(s))
        return MDAE_OK;
    err[0] = '\0';
    int rc = srv.store_backend->del(srv.store, s->id, s->owner_key, err, errlen);
    if (rc < 0)
        MDAE_LOG(SRV_LOG_ERROR, "session %s: cannot delete the stored copy: %s", s->id,
                 err[0] ? err : mdae_strerror(rc));
    return rc;
}

int srv_store_delete_row(const char *id, const char *owner_key)
{
    if (srv.store == NULL)
        return MDAE_OK;
    char err[512] = "";
    int rc = srv.store_backend->del(srv.store, id, owner_key, err, sizeof err);
    if (rc < 0)
        MDAE_LOG(SRV_LOG_ERROR, "stored session %s: cannot delete it: %s", id,
                 err[0] ? err : mdae_strerror(rc));
    return rc;
}

bool srv_store_shared(void) { return srv.store != NULL && srv.store_backend->version != NULL; }

int srv_store_version(const srv_session *s, long *out)
{
    MDAE_ASSERT(srv_store_shared());
    return srv.store_backend->version(srv.store, s->id, s->owner_key, out);
}

int srv_store_get(const char *id, const char *owner_key, srv_store_row_cb got, void *arg)
{
    if (srv.store == NULL)
        return MDAE_E_STATE;
    return srv.store_backend->get(srv.store, id, owner_key, got, arg);
}

int srv_store_each(srv_store_row_cb each, void *arg)
{
    if (srv.store == NULL)
        return MDAE_OK;
    return srv.store_backend->each(srv.store, each, arg);
}

cJSON *srv_store_status(void)
{
    if (srv.store == NULL)
        return NULL;
    cJSON *o = srv.store_backend->status ? srv.store_backend->status(srv.store) : NULL;
    if (o == NULL)
        o = cJSON_CreateObject();
    if (o != NULL)
        cJSON_AddStringToObject(o, "backend", srv.store_backend->name);
    return o;
}
