/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_store_pg.c -- the PostgreSQL backend of the session store
 * (issue 37 item 4): the store several mdaed instances share, so that any
 * of them can serve any session and none can overwrite another's newer
 * text. srv_store.c is the policy (which sessions persist, what an error
 * means to the reply); this file is the mechanism, behind
 * srv_store_backend (srv.h). SQLite (srv_store_sqlite.c) stays the
 * embedded default for one instance.
 *
 * The table: sessions(id, owner_key, text bytea, modelica, defines,
 * version, recover, updated, seq), primary key (id, owner_key); owner_key
 * '' stands for "no owner key" (a key column cannot be NULL). Created if
 * missing, under an advisory lock so that instances starting together do
 * not race on CREATE TABLE IF NOT EXISTS (which is not atomic in
 * PostgreSQL: two can collide on the catalog's unique index).
 *
 * Every write is conditional on the version the instance read (put's
 * expect): UPDATE ... WHERE id AND owner_key AND version = expect, and a
 * new session INSERT ... ON CONFLICT DO NOTHING. Zero rows means another
 * instance wrote first: MDAE_E_CONFLICT, nothing written. Two instances
 * can therefore never both accept an edit of one version: PostgreSQL's row
 * lock serialises the two UPDATEs and the second finds the version moved.
 * Each statement runs in autocommit with synchronous_commit = on (set on
 * every connection, whatever the server's default), so a put returns once
 * its commit is on the server's disk.
 *
 * Parameters are always bound (PQexecPrepared; the text as binary bytea),
 * never formatted into SQL. Results come back in binary (the text needs
 * no unescaping); libpq ends every value with a NUL byte, binary ones too,
 * so ids and defines are usable as C strings.
 *
 * A lost connection (the server restarted, a network cut) is reconnected
 * once per call, then the statement is run again; after a failed
 * reconnect, calls fail at once for PG_RETRY_MS before the next attempt. A write whose first
 * attempt may have committed before the connection dropped is checked:
 * if the stored row is exactly what we wrote, it is ours and the put
 * succeeded. Failures are MDAE_E_NOTSAVED (writes) or MDAE_E_IO (reads)
 * with libpq's message, which never contains the password; the URL itself
 * is never logged, only host, port and database.
 *
 * Limits: the connection attempt gives up after connect_timeout seconds
 * (5 unless the URL says otherwise) and a statement after
 * statement_timeout (10 s unless the URL's options say otherwise), so a
 * dead database cannot hang the loop forever. Calls are synchronous on
 * the loop thread, as SQLite's are.
 */
#include "srv.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <dlfcn.h>
#include <libpq-fe.h>

/* After a failed reconnect, calls fail at once for this long before the
 * next attempt: with the database unreachable over the network, each
 * attempt may block the loop for connect_timeout, and every request on a
 * persistent session would make one. */
#define PG_RETRY_MS 1000

/* libpq is loaded with dlopen when a PostgreSQL store opens, never linked,
 * as render/svg_render.c does for libgvc: mdaed is also every session's
 * worker process (mdaed --worker), and linking libpq made each worker load
 * and relocate it and its 21 dependencies (TLS, Kerberos, LDAP) at start,
 * 5 ms more per worker: 200 sessions opened at once took twice as long
 * (bench_server row 2). The functions called, found by dlsym: */
#define PQ_FUNCS(X) \
    X(PQclear) \
    X(PQcmdTuples) \
    X(PQconnectdbParams) \
    X(PQdb) \
    X(PQerrorMessage) \
    X(PQexec) \
    X(PQexecPrepared) \
    X(PQfinish) \
    X(PQgetisnull) \
    X(PQgetlength) \
    X(PQgetvalue) \
    X(PQhost) \
    X(PQntuples) \
    X(PQport) \
    X(PQprepare) \
    X(PQreset) \
    X(PQresultStatus) \
    X(PQsetNoticeProcessor) \
    X(PQstatus)
typedef struct pq_api {
#define PQ_FIELD(f) __typeof__(&f) f;
    PQ_FUNCS(PQ_FIELD)
#undef PQ_FIELD
} pq_api;

/* The process's view of the loaded library, filled once by pq_load (a
 * shared library's symbols are the process's, as dlopen's own state is)
 * and read-only after. */
static pq_api libpq;
static bool libpq_loaded;

/* Load libpq (Debian's libpq5) on the first PostgreSQL store; false with
 * err set when it is not installed or lacks a function. */
static bool pq_load(char *err, size_t errlen)
{
    if (libpq_loaded)
        return true;
    void *h = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        snprintf(err, errlen, "PostgreSQL store: libpq cannot be loaded (install libpq5): %s",
                 dlerror());
        return false;
    }
    pq_api api;
    /* POSIX's way from void * to a function pointer (dlsym's rationale). */
#define PQ_SYM(f)                                                                          \
    if ((*(void **)(&api.f) = dlsym(h, #f)) == NULL) {                                     \
        snprintf(err, errlen, "PostgreSQL store: libpq lacks %s", #f);                     \
        dlclose(h);                                                                        \
        return false;                                                                      \
    }
    PQ_FUNCS(PQ_SYM)
#undef PQ_SYM
    libpq = api;
    libpq_loaded = true;
    return true;
}

typedef struct pg_store {
    PGconn *conn;
    uint64_t retry_at; /* monotonic ms before which no reconnect is tried */
    /* For server/status. */
    uint64_t writes, conflicts, reconnects, checks;
} pg_store;

static const char schema[] =
    "BEGIN;"
    "SELECT pg_advisory_xact_lock(3737003700);" /* instances starting together */
    "CREATE TABLE IF NOT EXISTS sessions ("
    "  id text NOT NULL,"
    "  owner_key text NOT NULL DEFAULT '',"
    "  text bytea NOT NULL,"
    "  modelica boolean NOT NULL DEFAULT false,"
    "  defines text," /* JSON object, or NULL */
    "  version bigint NOT NULL,"
    "  recover boolean NOT NULL DEFAULT false,"
    "  updated timestamptz NOT NULL DEFAULT now(),"
    "  seq bigserial," /* the order sessions were first stored in */
    "  PRIMARY KEY (id, owner_key));"
    "COMMIT;";

/* The prepared statements, made on every (re)connection. Row columns of
 * "get" and "each" are in the order read_row expects. */
#define ROW_COLS                                                                        \
    "id, owner_key, modelica, defines, version, recover,"                              \
    " (extract(epoch FROM now() - updated) * 1000)::bigint, octet_length(text)::bigint"
static const struct {
    const char *name, *sql;
    int nparams;
} statements[] = {
    {"mdae_ins",
     "INSERT INTO sessions (id, owner_key, text, modelica, defines, version, recover, updated)"
     " VALUES ($1, $2, $3, $4, $5, $6, $7, now()) ON CONFLICT DO NOTHING",
     7},
    {"mdae_upd",
     "UPDATE sessions SET text = $3, modelica = $4, defines = $5, version = $6, recover = $7,"
     " updated = now() WHERE id = $1 AND owner_key = $2 AND version = $8",
     8},
    /* After a reconnect: did the first attempt of a put commit? */
    {"mdae_same",
     "SELECT 1 FROM sessions WHERE id = $1 AND owner_key = $2 AND text = $3 AND version = $4",
     4},
    {"mdae_del", "DELETE FROM sessions WHERE id = $1 AND owner_key = $2", 2},
    {"mdae_get", "SELECT " ROW_COLS ", text FROM sessions WHERE id = $1 AND owner_key = $2", 2},
    {"mdae_each", "SELECT " ROW_COLS " FROM sessions ORDER BY seq", 0},
    {"mdae_ver", "SELECT version FROM sessions WHERE id = $1 AND owner_key = $2", 2},
};

/* libpq's message on one line (its inner newlines and tabs become
 * spaces, the trailing ones go), after what, into err. */
static void set_err(char *err, size_t errlen, const char *what, const char *msg)
{
    if (err == NULL || errlen == 0)
        return;
    snprintf(err, errlen, "%s%s%s", what, what[0] ? ": " : "", msg ? msg : "unknown error");
    for (char *p = err; *p != '\0'; p++)
        if (*p == '\n' || *p == '\t')
            *p = ' ';
    size_t n = strlen(err);
    while (n > 0 && err[n - 1] == ' ')
        err[--n] = '\0';
}

/* Run a statement without parameters; true if it succeeded. */
static bool exec_ok(PGconn *c, const char *sql, char *err, size_t errlen)
{
    PGresult *r = libpq.PQexec(c, sql);
    ExecStatusType st = libpq.PQresultStatus(r);
    bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        set_err(err, errlen, "", libpq.PQerrorMessage(c));
    libpq.PQclear(r);
    return ok;
}

/* The server's notices (CREATE TABLE IF NOT EXISTS's "already exists"):
 * to the log at DEBUG instead of libpq's default, stderr. */
static void on_notice(void *arg, const char *msg)
{
    (void)arg;
    MDAE_LOG(SRV_LOG_DEBUG, "session store: PostgreSQL says: %.*s", (int)strcspn(msg, "\n"), msg);
}

/* What every connection needs: durable commits, the statements. */
static bool session_setup(PGconn *c, char *err, size_t errlen)
{
    if (!exec_ok(c, "SET synchronous_commit = on", err, errlen))
        return false;
    for (size_t k = 0; k < sizeof statements / sizeof statements[0]; k++) {
        PGresult *r = libpq.PQprepare(c, statements[k].name, statements[k].sql, statements[k].nparams,
                                NULL);
        bool ok = libpq.PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok)
            set_err(err, errlen, statements[k].name, libpq.PQerrorMessage(c));
        libpq.PQclear(r);
        if (!ok)
            return false;
    }
    return true;
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Reconnect a lost connection (same parameters) and set it up again; not
 * within PG_RETRY_MS of a failed attempt. */
static bool reconnect(pg_store *db, char *err, size_t errlen)
{
    uint64_t now = mono_ms();
    if (now < db->retry_at) {
        set_err(err, errlen, "PostgreSQL is unreachable",
                "the last reconnect failed less than a second ago");
        return false;
    }
    MDAE_LOG(SRV_LOG_WARN, "session store: PostgreSQL connection lost (%s:%s), reconnecting",
             libpq.PQhost(db->conn) ? libpq.PQhost(db->conn) : "?", libpq.PQport(db->conn) ? libpq.PQport(db->conn) : "?");
    db->reconnects++;
    libpq.PQreset(db->conn);
    if (libpq.PQstatus(db->conn) != CONNECTION_OK || !session_setup(db->conn, err, errlen)) {
        if (libpq.PQstatus(db->conn) != CONNECTION_OK)
            set_err(err, errlen, "cannot reconnect to PostgreSQL", libpq.PQerrorMessage(db->conn));
        db->retry_at = mono_ms() + PG_RETRY_MS;
        return false;
    }
    db->retry_at = 0;
    return true;
}

/* Run a prepared statement with text-format parameters, but those with a
 * length in lens (>= 0: binary, that many bytes); binary results. A lost
 * connection is reconnected once and the statement run again (*retried
 * then true). The result (PQclear it), or NULL with err saying why. */
static PGresult *run(pg_store *db, const char *stmt, int n, const char *const *vals,
                     const int *lens, bool *retried, char *err, size_t errlen)
{
    int fmts[8], plens[8];
    MDAE_ASSERT(n <= 8);
    for (int k = 0; k < n; k++) {
        fmts[k] = lens != NULL && lens[k] >= 0;
        plens[k] = fmts[k] ? lens[k] : 0;
    }
    *retried = false;
    if (libpq.PQstatus(db->conn) != CONNECTION_OK) {
        if (!reconnect(db, err, errlen))
            return NULL;
        *retried = true;
    }
    for (;;) {
        PGresult *r = libpq.PQexecPrepared(db->conn, stmt, n, vals, plens, fmts, 1);
        ExecStatusType st = libpq.PQresultStatus(r);
        if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
            return r;
        set_err(err, errlen, "", libpq.PQerrorMessage(db->conn));
        libpq.PQclear(r);
        if (*retried || libpq.PQstatus(db->conn) == CONNECTION_OK)
            return NULL; /* an SQL error, or the second attempt failed too */
        if (!reconnect(db, err, errlen))
            return NULL;
        *retried = true;
    }
}

static bool rows_changed(PGresult *r) { return strcmp(libpq.PQcmdTuples(r), "1") == 0; }

/* A big-endian integer of a binary result. */
static int64_t get_int8(const PGresult *r, int row, int col)
{
    const unsigned char *p = (const unsigned char *)libpq.PQgetvalue(r, row, col);
    if (libpq.PQgetlength(r, row, col) != 8)
        return 0;
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v = v << 8 | p[k];
    return (int64_t)v;
}

static bool get_bool(const PGresult *r, int row, int col)
{
    return libpq.PQgetlength(r, row, col) == 1 && libpq.PQgetvalue(r, row, col)[0] != 0;
}

/* Fill row from the ROW_COLS columns of result row k (text NULL). */
static void read_row(const PGresult *r, int k, srv_store_row *row)
{
    memset(row, 0, sizeof *row);
    row->id = libpq.PQgetvalue(r, k, 0);
    row->owner_key = libpq.PQgetisnull(r, k, 1) || libpq.PQgetvalue(r, k, 1)[0] == '\0'
                         ? NULL
                         : libpq.PQgetvalue(r, k, 1);
    row->modelica = get_bool(r, k, 2);
    row->defines = libpq.PQgetisnull(r, k, 3) ? NULL : libpq.PQgetvalue(r, k, 3);
    row->version = (long)get_int8(r, k, 4);
    row->recover = get_bool(r, k, 5);
    int64_t idle = get_int8(r, k, 6);
    row->idle_ms = idle > 0 ? (uint64_t)idle : 0;
    int64_t len = get_int8(r, k, 7);
    row->len = len > 0 ? (size_t)len : 0;
}

/* ---- The backend ---------------------------------------------------------------- */

static int pg_open(void **out, const char *where, char *err, size_t errlen)
{
    /* Defaults first: the URL's own settings (expanded from "dbname")
     * override them. */
    const char *keys[] = {"connect_timeout", "options", "application_name", "dbname", NULL};
    const char *vals[] = {"5", "-c statement_timeout=10000", "mdaed", where, NULL};
    if (!pq_load(err, errlen))
        return MDAE_E_IO;
    PGconn *c = libpq.PQconnectdbParams(keys, vals, 1);
    if (c == NULL) {
        set_err(err, errlen, "PostgreSQL", "out of memory");
        return MDAE_E_IO;
    }
    if (libpq.PQstatus(c) != CONNECTION_OK) {
        set_err(err, errlen, "cannot connect to PostgreSQL (check store.url)",
                libpq.PQerrorMessage(c));
        libpq.PQfinish(c);
        return MDAE_E_IO;
    }
    libpq.PQsetNoticeProcessor(c, on_notice, NULL); /* kept by PQreset */
    if (!exec_ok(c, schema, err, errlen)) {
        exec_ok(c, "ROLLBACK", NULL, 0);
        libpq.PQfinish(c);
        return MDAE_E_IO;
    }
    if (!session_setup(c, err, errlen)) {
        libpq.PQfinish(c);
        return MDAE_E_IO;
    }
    pg_store *db = mdae_calloc(1, sizeof *db);
    if (db == NULL) {
        libpq.PQfinish(c);
        set_err(err, errlen, "PostgreSQL", "out of memory");
        return MDAE_E_NOMEM;
    }
    db->conn = c;
    /* Never the URL: it may carry the password. */
    MDAE_LOG(SRV_LOG_INFO, "persistent sessions in PostgreSQL database %s on %s:%s", libpq.PQdb(c),
             libpq.PQhost(c) ? libpq.PQhost(c) : "(socket)", libpq.PQport(c) ? libpq.PQport(c) : "");
    *out = db;
    return MDAE_OK;
}

static void pg_close(void *p)
{
    pg_store *db = p;
    if (db == NULL)
        return;
    libpq.PQfinish(db->conn);
    mdae_free(db);
}

static int pg_put(void *p, const srv_session *s, long expect, char *err, size_t errlen)
{
    pg_store *db = p;
    char *defines = s->defines ? cJSON_PrintUnformatted(s->defines) : NULL;
    if (s->defines != NULL && defines == NULL) {
        set_err(err, errlen, "", "out of memory");
        return MDAE_E_NOTSAVED;
    }
    if (s->text == NULL) { /* a lazy session's text is loaded before it changes */
        MDAE_ASSERT(!"put of a session whose text is not loaded");
        set_err(err, errlen, "", "the session's text is not loaded");
        return MDAE_E_NOTSAVED;
    }
    if (s->len > INT32_MAX) {
        cJSON_free(defines);
        set_err(err, errlen, "", "the text is too large for the store");
        return MDAE_E_NOTSAVED;
    }
    char version[24], expected[24];
    snprintf(version, sizeof version, "%ld", s->version);
    snprintf(expected, sizeof expected, "%ld", expect);
    const char *vals[8] = {s->id,    s->owner_key ? s->owner_key : "",
                           s->text,  s->modelica ? "t" : "f",
                           defines,  version,
                           s->recover ? "t" : "f", expected};
    const int lens[8] = {-1, -1, (int)s->len, -1, -1, -1, -1, -1};
    bool retried;
    PGresult *r = expect == 0 ? run(db, "mdae_ins", 7, vals, lens, &retried, err, errlen)
                              : run(db, "mdae_upd", 8, vals, lens, &retried, err, errlen);
    int rc = MDAE_E_NOTSAVED;
    if (r != NULL) {
        rc = rows_changed(r) ? MDAE_OK : MDAE_E_CONFLICT;
        libpq.PQclear(r);
    }
    if (rc == MDAE_E_CONFLICT && retried) {
        /* The first attempt may have committed before the connection was
         * lost: then the row is exactly ours. */
        bool again;
        const char *same[4] = {vals[0], vals[1], vals[2], version};
        PGresult *q = run(db, "mdae_same", 4, same, lens, &again, err, errlen);
        if (q == NULL)
            rc = MDAE_E_NOTSAVED;
        else if (libpq.PQntuples(q) == 1)
            rc = MDAE_OK;
        libpq.PQclear(q);
    }
    if (rc == MDAE_OK)
        db->writes++;
    if (rc == MDAE_E_CONFLICT) {
        db->conflicts++;
        set_err(err, errlen, "", "another instance changed the session first");
    }
    cJSON_free(defines);
    return rc;
}

static int pg_del(void *p, const char *id, const char *owner_key, char *err, size_t errlen)
{
    bool retried;
    const char *vals[2] = {id, owner_key ? owner_key : ""};
    PGresult *r = run(p, "mdae_del", 2, vals, NULL, &retried, err, errlen);
    if (r == NULL)
        return MDAE_E_NOTSAVED;
    libpq.PQclear(r);
    return MDAE_OK;
}

static int pg_get(void *p, const char *id, const char *owner_key, srv_store_row_cb got,
                  void *arg)
{
    char err[256];
    bool retried;
    const char *vals[2] = {id, owner_key ? owner_key : ""};
    PGresult *r = run(p, "mdae_get", 2, vals, NULL, &retried, err, sizeof err);
    if (r == NULL) {
        MDAE_LOG(SRV_LOG_ERROR, "session %s: cannot read the store: %s", id, err);
        return MDAE_E_IO;
    }
    int rc = MDAE_E_STATE;
    if (libpq.PQntuples(r) == 1) {
        srv_store_row row;
        read_row(r, 0, &row);
        row.text = libpq.PQgetvalue(r, 0, 8);
        row.len = (size_t)libpq.PQgetlength(r, 0, 8);
        rc = got(&row, arg);
    }
    libpq.PQclear(r);
    return rc;
}

static int pg_each(void *p, srv_store_row_cb each, void *arg)
{
    char err[256];
    bool retried;
    PGresult *r = run(p, "mdae_each", 0, NULL, NULL, &retried, err, sizeof err);
    if (r == NULL) {
        MDAE_LOG(SRV_LOG_ERROR, "cannot list the stored sessions: %s", err);
        return MDAE_E_IO;
    }
    int rc = MDAE_OK;
    for (int k = 0, n = libpq.PQntuples(r); k < n && rc == MDAE_OK; k++) {
        srv_store_row row;
        read_row(r, k, &row);
        rc = each(&row, arg);
    }
    libpq.PQclear(r);
    return rc;
}

static int pg_version(void *p, const char *id, const char *owner_key, long *out)
{
    ((pg_store *)p)->checks++;
    char err[256];
    bool retried;
    const char *vals[2] = {id, owner_key ? owner_key : ""};
    PGresult *r = run(p, "mdae_ver", 2, vals, NULL, &retried, err, sizeof err);
    if (r == NULL) {
        MDAE_LOG(SRV_LOG_ERROR, "session %s: cannot read its stored version: %s", id, err);
        return MDAE_E_IO;
    }
    int rc = MDAE_E_STATE;
    if (libpq.PQntuples(r) == 1) {
        *out = (long)get_int8(r, 0, 0);
        rc = MDAE_OK;
    }
    libpq.PQclear(r);
    return rc;
}

static cJSON *pg_status(void *p)
{
    pg_store *db = p;
    cJSON *o = cJSON_CreateObject();
    if (o != NULL && (!cJSON_AddNumberToObject(o, "writes", (double)db->writes) ||
                      !cJSON_AddNumberToObject(o, "conflicts", (double)db->conflicts) ||
                      !cJSON_AddNumberToObject(o, "reconnects", (double)db->reconnects) ||
                      !cJSON_AddNumberToObject(o, "version_checks", (double)db->checks) ||
                      !cJSON_AddBoolToObject(o, "connected", libpq.PQstatus(db->conn) == CONNECTION_OK))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

const srv_store_backend srv_store_pg = {
    .name = "postgresql",
    .open = pg_open,
    .close = pg_close,
    .put = pg_put,
    .del = pg_del,
    .get = pg_get,
    .each = pg_each,
    .status = pg_status,
    .version = pg_version,
};
