/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_store.c -- persistent sessions kept across restarts (issue 17),
 * in SQLite under the configured state directory.
 *
 * What is kept: a row per persistent session (owner NULL: opened with
 * `persist: true`, or over HTTP), with its id, text, format, defines, text
 * version, recover flag (session/open {recover}) and the wall-clock time of
 * its last change. Not kept: results
 * (a restarted worker recomputes them; the analysis is a function of the
 * text) and connection-owned sessions (they end with their connection).
 *
 * Durability: the router writes the row when it changes the session's text
 * (srv_session.c), before the job that answers the request is even queued,
 * so an acknowledged open or edit is on disk before its reply. Journal in
 * WAL mode with synchronous = FULL: a commit survives the process being
 * killed and the machine losing power.
 *
 * One mdaed per state directory: an exclusive flock on DIR/lock. A second
 * instance pointed at the same directory runs without persistence and says
 * so (two routers restoring the same sessions would hand out one id twice).
 *
 * The handle and its statements live in srv (srv_loop.c's server state),
 * touched only on the loop thread.
 */
#include "srv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

static const char schema[] =
    "PRAGMA journal_mode = WAL;"
    "PRAGMA synchronous = FULL;"
    "CREATE TABLE IF NOT EXISTS sessions ("
    "  id TEXT PRIMARY KEY,"
    "  text BLOB NOT NULL,"
    "  modelica INTEGER NOT NULL,"
    "  defines TEXT,"     /* JSON object, or NULL */
    "  version INTEGER NOT NULL,"
    "  updated INTEGER NOT NULL" /* seconds since the epoch */
    ");";

/* Schema versions (PRAGMA user_version), each a step from the one before,
 * run in order on an older database (one that mdaed made before them reads
 * 0) and on a new one alike, so both end with the same table. An mdaed of
 * before a step ignores the column it added (it writes the default). */
static const char *const migrations[] = {
    /* 1: session/open {recover} (issue 36 item 2); 0 for older rows */
    "ALTER TABLE sessions ADD COLUMN recover INTEGER NOT NULL DEFAULT 0;",
};
#define STORE_SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

/* Bring the opened database to STORE_SCHEMA_VERSION, each step in its own
 * transaction with its version. SQLITE_OK or the failing step's code,
 * *err set (free with sqlite3_free). A database of a newer mdaed is left as
 * it is (its extra columns get their defaults from us). */
static int migrate(sqlite3 *db, char **err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
    int have = rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (have < 0)
        return rc != SQLITE_OK ? rc : SQLITE_ERROR;
    for (int v = have; v < STORE_SCHEMA_VERSION; v++) {
        char sql[512];
        snprintf(sql, sizeof sql, "BEGIN; %s PRAGMA user_version = %d; COMMIT;", migrations[v],
                 v + 1);
        rc = sqlite3_exec(db, sql, NULL, NULL, err);
        if (rc != SQLITE_OK) {
            sqlite3_exec(db, "ROLLBACK;", NULL, NULL, NULL);
            return rc;
        }
        MDAE_LOG(SRV_LOG_INFO, "session store: schema version %d", v + 1);
    }
    return SQLITE_OK;
}

static int64_t wall_seconds(void) { return (int64_t)time(NULL); }

/* mkdir -p: each missing component with mode 0700 (sessions hold users'
 * models). */
static int make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, path, n + 1);
    for (size_t k = 1; k <= n; k++) {
        if (buf[k] != '/' && buf[k] != '\0')
            continue;
        char keep = buf[k];
        buf[k] = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return -1;
        buf[k] = keep;
    }
    return 0;
}

static int lock_dir(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return -2;
    }
    return fd;
}

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

static void close_db(void)
{
    sqlite3_finalize(srv.store_put);
    sqlite3_finalize(srv.store_del);
    sqlite3_close(srv.store);
    srv.store = NULL;
    srv.store_put = srv.store_del = NULL;
}

int srv_store_open(const char *dir)
{
    MDAE_ASSERT(srv.store == NULL);
    srv.store_lock = -1;
    if (make_dirs(dir) != 0) {
        MDAE_LOG(SRV_LOG_ERROR, "state directory %s: %s", dir, strerror(errno));
        return MDAE_E_IO;
    }
    int fd = lock_dir(dir);
    if (fd == -2) {
        MDAE_LOG(SRV_LOG_WARN,
                 "state directory %s is in use by another mdaed: sessions will not persist", dir);
        return MDAE_OK;
    }
    if (fd < 0) {
        MDAE_LOG(SRV_LOG_ERROR, "state directory %s: cannot lock: %s", dir, strerror(errno));
        return MDAE_E_IO;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/sessions.db", dir);
    char *err = NULL;
    if (sqlite3_open_v2(path, &srv.store, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
            SQLITE_OK ||
        sqlite3_exec(srv.store, schema, NULL, NULL, &err) != SQLITE_OK ||
        migrate(srv.store, &err) != SQLITE_OK ||
        sqlite3_prepare_v2(srv.store,
                           "INSERT OR REPLACE INTO sessions"
                           " (id, text, modelica, defines, version, updated, recover)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                           -1, &srv.store_put, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(srv.store, "DELETE FROM sessions WHERE id = ?1", -1, &srv.store_del,
                           NULL) != SQLITE_OK) {
        MDAE_LOG(SRV_LOG_ERROR, "%s: %s", path, err ? err : sqlite3_errmsg(srv.store));
        sqlite3_free(err);
        close_db();
        close(fd);
        return MDAE_E_IO;
    }
    srv.store_lock = fd;
    MDAE_LOG(SRV_LOG_INFO, "persistent sessions in %s", path);
    return MDAE_OK;
}

void srv_store_close(void)
{
    if (srv.store == NULL)
        return;
    close_db();
    if (srv.store_lock >= 0)
        close(srv.store_lock); /* releases the flock */
    srv.store_lock = -1;
}

bool srv_store_on(void) { return srv.store != NULL; }

/* Run a prepared write statement; true if it completed. */
static bool step_write(sqlite3_stmt *st, const char *what, const char *id)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        MDAE_LOG(SRV_LOG_ERROR, "session %s: cannot %s the persistent copy: %s", id, what,
                 sqlite3_errmsg(srv.store));
        return false;
    }
    return true;
}

int srv_store_put(const srv_session *s)
{
    if (srv.store == NULL || s->owner != NULL)
        return MDAE_OK;
    char *defines = s->defines ? cJSON_PrintUnformatted(s->defines) : NULL;
    if (s->defines != NULL && defines == NULL)
        return MDAE_E_NOMEM;
    sqlite3_stmt *st = srv.store_put;
    sqlite3_bind_text(st, 1, s->id, -1, SQLITE_STATIC);
    sqlite3_bind_blob64(st, 2, s->text, (sqlite3_uint64)s->len, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, s->modelica);
    if (defines != NULL)
        sqlite3_bind_text(st, 4, defines, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 4);
    sqlite3_bind_int64(st, 5, s->version);
    sqlite3_bind_int64(st, 6, wall_seconds());
    sqlite3_bind_int(st, 7, s->recover);
    bool ok = step_write(st, "write", s->id);
    cJSON_free(defines);
    return ok ? MDAE_OK : MDAE_E_IO;
}

void srv_store_delete(const char *id)
{
    if (srv.store == NULL)
        return;
    sqlite3_bind_text(srv.store_del, 1, id, -1, SQLITE_STATIC);
    step_write(srv.store_del, "delete", id);
}

int srv_store_each(int (*each)(const srv_store_row *row, void *arg), void *arg)
{
    if (srv.store == NULL)
        return MDAE_OK;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(srv.store,
                           "SELECT id, text, modelica, defines, version, updated, recover"
                           " FROM sessions ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return MDAE_E_IO;
    int rc = MDAE_OK, step;
    int64_t now = wall_seconds();
    while (rc == MDAE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        srv_store_row row;
        row.id = (const char *)sqlite3_column_text(st, 0);
        row.text = sqlite3_column_blob(st, 1);
        row.len = (size_t)sqlite3_column_bytes(st, 1);
        row.modelica = sqlite3_column_int(st, 2) != 0;
        row.defines = (const char *)sqlite3_column_text(st, 3);
        row.version = (long)sqlite3_column_int64(st, 4);
        int64_t updated = sqlite3_column_int64(st, 5);
        row.recover = sqlite3_column_int(st, 6) != 0;
        row.idle_ms = now > updated ? (uint64_t)(now - updated) * 1000 : 0;
        if (row.id == NULL)
            continue;
        if (row.text == NULL)
            row.text = "";
        rc = each(&row, arg);
    }
    sqlite3_finalize(st);
    return rc;
}
