/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_store_sqlite.c -- the SQLite backend of the session store
 * (srv_store_backend, srv.h): one file, DIR/sessions.db, for one mdaed.
 * srv_store.c decides what is stored and what a failure means to a reply;
 * this file only keeps rows (issue 17, issue 37 item 3).
 *
 * Durability: WAL journal with synchronous = FULL, so a write that returned
 * MDAE_OK survives the process being killed and the machine losing power.
 * Every write is one autocommit statement, conditional on the version the
 * caller last saw (UPDATE ... WHERE version = expect, or an INSERT that
 * fails on an existing row): a conflict writes nothing.
 *
 * A failed commit leaves nothing behind: when the write of the WAL's frames
 * succeeded but its fsync failed, the frames (commit marker included) are
 * still in the file and WAL recovery after a crash would replay them,
 * bringing back a change that was answered as not saved. fence() then
 * commits a one-page transaction over them (PRAGMA user_version, the same
 * value), which breaks their checksum chain; if even that fails, the
 * store says so on every later write until one succeeds.
 *
 * One mdaed per state directory: an exclusive flock on DIR/lock, which
 * holds the pid of its holder; a second mdaed refuses to start (two
 * routers on one file would both accept edits of one session).
 *
 * Start-up checks: PRAGMA quick_check; a corrupt file refuses to start with
 * a message that says how to move it aside (a silent empty start would
 * lose every session without a word, as issue 37 found).
 *
 * Fault injection (tests; only with debug_methods): the database is opened
 * through a shim VFS wrapping the default one that counts the writes
 * (xWrite, xSync, xTruncate) and fails the k-th (debug_store_fail_write),
 * as SQLite's own tests do with their test VFS: "once", that one only,
 * with SQLITE_IOERR; "full", every xWrite and xTruncate from the k-th on,
 * with SQLITE_FULL (a full disk: a sync of what was written still works).
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

/* ---- The fault-injecting VFS ------------------------------------------------------ */

typedef struct fault_vfs {
    sqlite3_vfs vfs;   /* first: SQLite hands it back */
    sqlite3_vfs *real; /* the default VFS we wrap */
    uint64_t writes;   /* xWrite, xSync, xTruncate calls so far */
    uint64_t fail_at;  /* the write that fails (1-based); 0: none */
    bool full;         /* every write from fail_at on fails, with SQLITE_FULL */
} fault_vfs;

typedef struct fault_file {
    sqlite3_file base; /* first */
    fault_vfs *fv;
    sqlite3_file *real; /* allocated right after this struct */
} fault_file;

/* Does this write fail? Counts it. */
static bool fault_hit(fault_vfs *fv)
{
    fv->writes++;
    if (fv->fail_at == 0)
        return false;
    return fv->full ? fv->writes >= fv->fail_at : fv->writes == fv->fail_at;
}

static int fault_code(const fault_vfs *fv, int ioerr)
{
    return fv->full ? SQLITE_FULL : ioerr;
}

#define REAL(f) (((fault_file *)(void *)(f))->real)

static int ff_close(sqlite3_file *f) { return REAL(f)->pMethods->xClose(REAL(f)); }
static int ff_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
    return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}
static int ff_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
    fault_vfs *fv = ((fault_file *)(void *)f)->fv;
    if (fault_hit(fv))
        return fault_code(fv, SQLITE_IOERR_WRITE);
    return REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}
static int ff_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    fault_vfs *fv = ((fault_file *)(void *)f)->fv;
    if (fault_hit(fv))
        return fault_code(fv, SQLITE_IOERR_TRUNCATE);
    return REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int ff_sync(sqlite3_file *f, int flags)
{
    fault_vfs *fv = ((fault_file *)(void *)f)->fv;
    if (fault_hit(fv) && !fv->full) /* a full disk refuses writes; syncing what was written works */
        return SQLITE_IOERR_FSYNC;
    return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int ff_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    return REAL(f)->pMethods->xFileSize(REAL(f), size);
}
static int ff_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int ff_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int ff_check_reserved(sqlite3_file *f, int *out)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}
static int ff_file_control(sqlite3_file *f, int op, void *arg)
{
    return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}
static int ff_sector_size(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int ff_device(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int ff_shm_map(sqlite3_file *f, int pg, int sz, int extend, void volatile **out)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, extend, out);
}
static int ff_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
    return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void ff_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int ff_shm_unmap(sqlite3_file *f, int del)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

/* Version 2 methods: no memory-mapped I/O through the shim (mmap_size is 0
 * by default; SQLite reads with xRead then). */
static const sqlite3_io_methods fault_methods = {
    2,           ff_close,       ff_read,         ff_write,      ff_truncate,
    ff_sync,     ff_file_size,   ff_lock,         ff_unlock,     ff_check_reserved,
    ff_file_control, ff_sector_size, ff_device,   ff_shm_map,    ff_shm_lock,
    ff_shm_barrier, ff_shm_unmap, NULL,           NULL,
};

static sqlite3_vfs *real_vfs(sqlite3_vfs *v) { return ((fault_vfs *)(void *)v)->real; }

static int fv_open(sqlite3_vfs *v, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
    fault_file *ff = (fault_file *)(void *)f;
    ff->fv = (fault_vfs *)(void *)v;
    ff->real = (sqlite3_file *)(void *)(ff + 1);
    ff->base.pMethods = NULL;
    int rc = real_vfs(v)->xOpen(real_vfs(v), name, ff->real, flags, out_flags);
    if (rc == SQLITE_OK && ff->real->pMethods != NULL)
        ff->base.pMethods = &fault_methods;
    return rc;
}
static int fv_delete(sqlite3_vfs *v, const char *name, int sync)
{
    return real_vfs(v)->xDelete(real_vfs(v), name, sync);
}
static int fv_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
    return real_vfs(v)->xAccess(real_vfs(v), name, flags, out);
}
static int fv_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out)
{
    return real_vfs(v)->xFullPathname(real_vfs(v), name, n, out);
}
static void *fv_dlopen(sqlite3_vfs *v, const char *name)
{
    return real_vfs(v)->xDlOpen(real_vfs(v), name);
}
static void fv_dlerror(sqlite3_vfs *v, int n, char *msg)
{
    real_vfs(v)->xDlError(real_vfs(v), n, msg);
}
static void (*fv_dlsym(sqlite3_vfs *v, void *h, const char *sym))(void)
{
    return real_vfs(v)->xDlSym(real_vfs(v), h, sym);
}
static void fv_dlclose(sqlite3_vfs *v, void *h) { real_vfs(v)->xDlClose(real_vfs(v), h); }
static int fv_randomness(sqlite3_vfs *v, int n, char *out)
{
    return real_vfs(v)->xRandomness(real_vfs(v), n, out);
}
static int fv_sleep(sqlite3_vfs *v, int us) { return real_vfs(v)->xSleep(real_vfs(v), us); }
static int fv_current_time(sqlite3_vfs *v, double *out)
{
    return real_vfs(v)->xCurrentTime(real_vfs(v), out);
}
static int fv_last_error(sqlite3_vfs *v, int n, char *out)
{
    return real_vfs(v)->xGetLastError(real_vfs(v), n, out);
}
static int fv_current_time64(sqlite3_vfs *v, sqlite3_int64 *out)
{
    sqlite3_vfs *r = real_vfs(v);
    if (r->iVersion >= 2 && r->xCurrentTimeInt64 != NULL)
        return r->xCurrentTimeInt64(r, out);
    double d = 0;
    int rc = r->xCurrentTime(r, &d);
    *out = (sqlite3_int64)(d * 86400000.0);
    return rc;
}

#define FAULT_VFS_NAME "mdae-fault"

/* Register the shim (not as the default). MDAE_OK or MDAE_E_IO. */
static int fault_vfs_register(fault_vfs *fv, uint64_t fail_at, bool full)
{
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (real == NULL)
        return MDAE_E_IO;
    memset(fv, 0, sizeof *fv);
    fv->real = real;
    fv->fail_at = fail_at;
    fv->full = full;
    fv->vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(fault_file) + real->szOsFile,
        .mxPathname = real->mxPathname,
        .zName = FAULT_VFS_NAME,
        .pAppData = fv,
        .xOpen = fv_open,
        .xDelete = fv_delete,
        .xAccess = fv_access,
        .xFullPathname = fv_full_pathname,
        .xDlOpen = fv_dlopen,
        .xDlError = fv_dlerror,
        .xDlSym = fv_dlsym,
        .xDlClose = fv_dlclose,
        .xRandomness = fv_randomness,
        .xSleep = fv_sleep,
        .xCurrentTime = fv_current_time,
        .xGetLastError = fv_last_error,
        .xCurrentTimeInt64 = fv_current_time64,
    };
    return sqlite3_vfs_register(&fv->vfs, 0) == SQLITE_OK ? MDAE_OK : MDAE_E_IO;
}

/* ---- The store -------------------------------------------------------------------- */

typedef struct sqlite_store {
    sqlite3 *db;
    sqlite3_stmt *insert, *update, *del, *get;
    int lock_fd; /* the flock'd DIR/lock */
    char path[4200];
    bool fenced_fail; /* the last fence failed: writes may be unsafe */
    bool faulty;      /* opened through the fault VFS (fv) */
    fault_vfs fv;
} sqlite_store;

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
    /* 2: the owner's key (issue 37 item 1): rows keyed by (id, owner), ''
     * for none. A key change is a table rebuild (SQLite cannot alter a
     * primary key); rowids are kept, so the order of first storing too. */
    "CREATE TABLE sessions_2 ("
    "  id TEXT NOT NULL,"
    "  owner TEXT NOT NULL DEFAULT '',"
    "  text BLOB NOT NULL,"
    "  modelica INTEGER NOT NULL,"
    "  defines TEXT,"
    "  version INTEGER NOT NULL,"
    "  updated INTEGER NOT NULL,"
    "  recover INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (id, owner));"
    "INSERT INTO sessions_2 (rowid, id, owner, text, modelica, defines, version, updated,"
    "  recover) SELECT rowid, id, '', text, modelica, defines, version, updated, recover"
    "  FROM sessions ORDER BY rowid;"
    "DROP TABLE sessions;"
    "ALTER TABLE sessions_2 RENAME TO sessions;",
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
        char *sql = sqlite3_mprintf("BEGIN IMMEDIATE; %s PRAGMA user_version = %d; COMMIT;",
                                    migrations[v], v + 1);
        if (sql == NULL)
            return SQLITE_NOMEM;
        rc = sqlite3_exec(db, sql, NULL, NULL, err);
        sqlite3_free(sql);
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

/* Lock DIR/lock and write our pid in it. The descriptor, or -1 with err
 * set (held by another mdaed, or not lockable). */
static int lock_dir(const char *dir, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "state directory %s: cannot open %s: %s", dir, path,
                 strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        snprintf(err, errlen,
                 "state directory %s is in use by another mdaed (%s is locked%s%s): stop it, or "
                 "give this one another state_dir (--state-dir DIR)",
                 dir, path, pid[0] ? " by pid " : "", pid);
        close(fd);
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n)
        MDAE_LOG(SRV_LOG_WARN, "%s: cannot write my pid: %s", path, strerror(errno));
    return fd;
}

static void store_free(sqlite_store *st)
{
    sqlite3_finalize(st->insert);
    sqlite3_finalize(st->update);
    sqlite3_finalize(st->del);
    sqlite3_finalize(st->get);
    sqlite3_close(st->db);
    if (st->faulty)
        sqlite3_vfs_unregister(&st->fv.vfs);
    if (st->lock_fd >= 0)
        close(st->lock_fd); /* releases the flock */
    mdae_free(st);
}

/* PRAGMA quick_check: NULL when fine, else its first complaint (owned:
 * sqlite3_free) or the error that stopped it. */
static char *quick_check(sqlite3 *db)
{
    sqlite3_stmt *q = NULL;
    char *what = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check(3)", -1, &q, NULL) != SQLITE_OK)
        return sqlite3_mprintf("%s", sqlite3_errmsg(db));
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(q, 0);
        if (r == NULL || strcmp(r, "ok") != 0)
            what = sqlite3_mprintf("%s", r ? r : "(no answer)");
    } else {
        what = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(q);
    return what;
}

static bool is_corrupt(int rc)
{
    rc &= 0xff;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

static void corrupt_message(const sqlite_store *st, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "%s is corrupt (%s): mdaed will not start on it. Move it aside: mv %s %s.corrupt "
             "(and %s-wal, %s-shm if present); the sessions in it are lost, and a new empty "
             "store is made at the next start",
             st->path, what, st->path, st->path, st->path, st->path);
}

/* Prepare the statements every store keeps (its fields insert, update,
 * del, get). SQLITE_OK or the first failure's code. */
static int prepare_statements(sqlite_store *st)
{
    const struct {
        const char *sql;
        sqlite3_stmt **stmt;
    } want[] = {
        {"INSERT INTO sessions (id, owner, text, modelica, defines, version, updated, recover)"
         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
         &st->insert},
        {"UPDATE sessions SET text = ?3, modelica = ?4, defines = ?5, version = ?6,"
         " updated = ?7, recover = ?8 WHERE id = ?1 AND owner = ?2 AND version = ?9",
         &st->update},
        {"DELETE FROM sessions WHERE id = ?1 AND owner = ?2", &st->del},
        {"SELECT id, owner, text, modelica, defines, version, updated, recover"
         " FROM sessions WHERE id = ?1 AND owner = ?2",
         &st->get},
    };
    int rc = SQLITE_OK;
    for (size_t k = 0; k < sizeof want / sizeof want[0] && rc == SQLITE_OK; k++)
        rc = sqlite3_prepare_v2(st->db, want[k].sql, -1, want[k].stmt, NULL);
    return rc;
}

static int sqlite_open(void **out, const char *dir, char *err, size_t errlen)
{
    if (make_dirs(dir) != 0) {
        snprintf(err, errlen, "state directory %s: %s", dir, strerror(errno));
        return MDAE_E_IO;
    }
    sqlite_store *st = mdae_calloc(1, sizeof *st);
    if (st == NULL)
        return MDAE_E_NOMEM;
    st->lock_fd = lock_dir(dir, err, errlen);
    if (st->lock_fd < 0) {
        mdae_free(st);
        return MDAE_E_STATE;
    }
    snprintf(st->path, sizeof st->path, "%s/sessions.db", dir);
    const char *vfs = NULL;
    if (srv.cfg.debug_methods) { /* counted writes, and the configured fault */
        bool full = srv.cfg.debug_store_fail_mode != NULL &&
                    strcmp(srv.cfg.debug_store_fail_mode, "full") == 0;
        if (fault_vfs_register(&st->fv, srv.cfg.debug_store_fail_write, full) == MDAE_OK) {
            st->faulty = true;
            vfs = FAULT_VFS_NAME;
        }
    }
    char *msg = NULL;
    int rc = sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs);
    if (rc == SQLITE_OK) {
        sqlite3_extended_result_codes(st->db, 1);
        /* Another process reading the file (a backup, sqlite3 by hand) may
         * hold its lock for a moment: wait that long, not more, on the loop
         * thread; past it the write is refused (MDAE_E_NOTSAVED). */
        sqlite3_busy_timeout(st->db, 250);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(st->db, schema, NULL, NULL, &msg);
    char *bad = NULL;
    if (rc == SQLITE_OK && (bad = quick_check(st->db)) != NULL) {
        corrupt_message(st, bad, err, errlen);
        sqlite3_free(bad);
        store_free(st);
        return MDAE_E_STATE;
    }
    if (rc == SQLITE_OK)
        rc = migrate(st->db, &msg);
    if (rc == SQLITE_OK)
        rc = prepare_statements(st);
    if (rc != SQLITE_OK) {
        const char *why = msg ? msg : st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);
        if (is_corrupt(rc))
            corrupt_message(st, why, err, errlen);
        else
            snprintf(err, errlen, "%s: %s", st->path, why);
        sqlite3_free(msg);
        store_free(st);
        return is_corrupt(rc) ? MDAE_E_STATE : MDAE_E_IO;
    }
    *out = st;
    return MDAE_OK;
}

static void sqlite_close(void *db) { store_free(db); }

static const char *owner_of(const char *owner_key) { return owner_key ? owner_key : ""; }

/* Why a write failed, for the reply: the disk full, read-only, ... */
static void write_error(const sqlite_store *st, int rc, char *err, size_t errlen)
{
    const char *why;
    switch (rc & 0xff) {
    case SQLITE_FULL:
        why = "the disk is full";
        break;
    case SQLITE_READONLY:
        why = "the store is read-only";
        break;
    case SQLITE_IOERR:
        why = "an I/O error";
        break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        why = "the store is corrupt";
        break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        why = "the store is locked";
        break;
    default:
        why = "the write failed";
        break;
    }
    snprintf(err, errlen, "%s (%s: %s)", why, st->path, sqlite3_errmsg(st->db));
}

/* After a failed write: commit one page over whatever frames the failed
 * commit left in the WAL (see the file's head), so that recovery cannot
 * replay them. */
static void fence(sqlite_store *st)
{
    char *msg = NULL;
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", STORE_SCHEMA_VERSION);
    int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);
    st->fenced_fail = rc != SQLITE_OK;
    if (rc != SQLITE_OK)
        MDAE_LOG(SRV_LOG_ERROR, "%s: the write after a failed one failed too: %s", st->path,
                 msg ? msg : sqlite3_errstr(rc));
    sqlite3_free(msg);
}

/* Step a bound write statement: MDAE_OK, MDAE_E_CONFLICT (constraint, or
 * no row changed when want_change), MDAE_E_NOTSAVED (err). */
static int run_write(sqlite_store *st, sqlite3_stmt *w, bool want_change, char *err,
                     size_t errlen)
{
    int rc = sqlite3_step(w);
    int out = MDAE_OK;
    if (rc == SQLITE_DONE) {
        if (want_change && sqlite3_changes(st->db) == 0)
            out = MDAE_E_CONFLICT;
    } else if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        out = MDAE_E_CONFLICT;
    } else {
        write_error(st, rc, err, errlen);
        out = MDAE_E_NOTSAVED;
    }
    sqlite3_reset(w);
    sqlite3_clear_bindings(w);
    if (out == MDAE_E_NOTSAVED)
        fence(st);
    else if (out == MDAE_OK)
        st->fenced_fail = false;
    if (out == MDAE_E_CONFLICT)
        snprintf(err, errlen, "the stored session changed meanwhile (another writer)");
    return out;
}

static int sqlite_put(void *db, const srv_session *s, long expect, char *err, size_t errlen)
{
    sqlite_store *st = db;
    char *defines = s->defines ? cJSON_PrintUnformatted(s->defines) : NULL;
    if (s->defines != NULL && defines == NULL) {
        snprintf(err, errlen, "out of memory");
        return MDAE_E_NOTSAVED;
    }
    sqlite3_stmt *w = expect == 0 ? st->insert : st->update;
    sqlite3_bind_text(w, 1, s->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(w, 2, owner_of(s->owner_key), -1, SQLITE_STATIC);
    sqlite3_bind_blob64(w, 3, s->text ? (const void *)s->text : "", (sqlite3_uint64)s->len,
                        SQLITE_STATIC);
    sqlite3_bind_int(w, 4, s->modelica);
    if (defines != NULL)
        sqlite3_bind_text(w, 5, defines, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(w, 5);
    sqlite3_bind_int64(w, 6, s->version);
    sqlite3_bind_int64(w, 7, wall_seconds());
    sqlite3_bind_int(w, 8, s->recover);
    if (expect != 0)
        sqlite3_bind_int64(w, 9, expect);
    int rc = run_write(st, w, expect != 0, err, errlen);
    cJSON_free(defines);
    return rc;
}

static int sqlite_del(void *db, const char *id, const char *owner_key, char *err, size_t errlen)
{
    sqlite_store *st = db;
    sqlite3_bind_text(st->del, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st->del, 2, owner_of(owner_key), -1, SQLITE_STATIC);
    return run_write(st, st->del, false, err, errlen);
}

/* Fill row from a SELECT of (id, owner, text or its length, modelica,
 * defines, version, updated, recover); false if the row has no id. */
static bool read_row(sqlite3_stmt *q, bool with_text, int64_t now, srv_store_row *row)
{
    row->id = (const char *)sqlite3_column_text(q, 0);
    const char *owner = (const char *)sqlite3_column_text(q, 1);
    row->owner_key = owner != NULL && owner[0] != '\0' ? owner : NULL;
    if (with_text) {
        row->text = sqlite3_column_blob(q, 2);
        row->len = (size_t)sqlite3_column_bytes(q, 2);
        if (row->text == NULL)
            row->text = "";
    } else {
        row->text = NULL;
        row->len = (size_t)sqlite3_column_int64(q, 2);
    }
    row->modelica = sqlite3_column_int(q, 3) != 0;
    row->defines = (const char *)sqlite3_column_text(q, 4);
    row->version = (long)sqlite3_column_int64(q, 5);
    int64_t updated = sqlite3_column_int64(q, 6);
    row->recover = sqlite3_column_int(q, 7) != 0;
    row->idle_ms = now > updated ? (uint64_t)(now - updated) * 1000 : 0;
    return row->id != NULL;
}

static int sqlite_get(void *db, const char *id, const char *owner_key, srv_store_row_cb got,
                      void *arg)
{
    sqlite_store *st = db;
    sqlite3_stmt *q = st->get;
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, owner_of(owner_key), -1, SQLITE_STATIC);
    int step = sqlite3_step(q);
    int rc;
    srv_store_row row;
    if (step == SQLITE_ROW && read_row(q, true, wall_seconds(), &row)) {
        rc = got(&row, arg);
    } else if (step == SQLITE_ROW || step == SQLITE_DONE) {
        rc = MDAE_E_STATE;
    } else {
        MDAE_LOG(SRV_LOG_ERROR, "%s: cannot read session %s: %s", st->path, id,
                 sqlite3_errmsg(st->db));
        rc = MDAE_E_IO;
    }
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    return rc;
}

static int sqlite_each(void *db, srv_store_row_cb each, void *arg)
{
    sqlite_store *st = db;
    sqlite3_stmt *q = NULL;
    /* length(text) reads the record's header, not the text's pages */
    if (sqlite3_prepare_v2(st->db,
                           "SELECT id, owner, length(text), modelica, defines, version,"
                           " updated, recover FROM sessions ORDER BY rowid",
                           -1, &q, NULL) != SQLITE_OK) {
        MDAE_LOG(SRV_LOG_ERROR, "%s: %s", st->path, sqlite3_errmsg(st->db));
        return MDAE_E_IO;
    }
    int rc = MDAE_OK, step;
    int64_t now = wall_seconds();
    while (rc == MDAE_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
        srv_store_row row;
        if (read_row(q, false, now, &row))
            rc = each(&row, arg);
    }
    if (rc == MDAE_OK && step != SQLITE_DONE) {
        MDAE_LOG(SRV_LOG_ERROR, "%s: cannot read the sessions: %s%s", st->path,
                 sqlite3_errmsg(st->db),
                 is_corrupt(step) ? "; move the file aside (its sessions are lost)" : "");
        rc = MDAE_E_IO;
    }
    sqlite3_finalize(q);
    return rc;
}

static cJSON *sqlite_status(void *db)
{
    sqlite_store *st = db;
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    if (st->faulty) /* debug_methods: the test VFS counts the writes */
        cJSON_AddNumberToObject(o, "writes", (double)st->fv.writes);
    if (st->fenced_fail)
        cJSON_AddBoolToObject(o, "failing", true);
    return o;
}

const srv_store_backend srv_store_sqlite = {
    .name = "sqlite",
    .open = sqlite_open,
    .close = sqlite_close,
    .put = sqlite_put,
    .del = sqlite_del,
    .get = sqlite_get,
    .each = sqlite_each,
    .status = sqlite_status,
};
