/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/security/test_sec_store.c -- durable means durable (issue 37 item
 * 3): a persisted session's open, edit and close are acknowledged only
 * after their write committed, and nothing that was refused comes back.
 *
 * Fault injection as SQLite tests itself: mdaed's SQLite store runs through
 * a shim VFS (server/srv_store_sqlite.c, debug_methods only) that fails the
 * k-th write (xWrite, xSync, xTruncate). For every k of an open - edit -
 * edit - close script (counted once without a failure), mdaed runs the
 * script with that fault, is killed (SIGKILL), and restarts without it.
 * What must hold, precisely: the store then holds exactly the state that
 * the acknowledged requests made, in order, a refused request having
 * changed nothing: no session when the open was refused or the close
 * acknowledged; else version 1 + the acknowledged edits, with the text of
 * the last acknowledged edit (the open's text when none was). A refused
 * request is answered -32014 (MDAE_E_NOTSAVED); a request after a refused
 * open finds no session; after a refused close the session still answers.
 *
 * And: a corrupt sessions table refuses to start (saying what to do), a
 * second mdaed on one state directory refuses to start (naming the lock),
 * a full disk is answered -32014, stored texts are not read at start (the
 * router's memory does not grow with them) but on first use, a session
 * another writer stored is served on a miss, and a stored version outside
 * 1..INT64_MAX-1 is not served (and one at the top is not edited past it).
 */
#include "server/srv_test.h"

#include <stdint.h>
#include <sys/stat.h>

#include <sqlite3.h>

#define NOT_SAVED (-32014)
#define NO_SESSION (-32012)

/* A persistent session with a chosen id belongs to an owner key, sent at
 * open and with every call naming it (docs/security.md "Sessions and their
 * owners"); rows written behind mdaed's back carry it in their owner column,
 * or have an id shaped as a server-made one (s + 26 base32 letters). */
#define OWNER "sec-store-owner-key-0123456789"
#define MADE_LATE "slateaaaaaaaaaaaaaaaaaaaaaa" /* made-shaped, keyless */
#define MADE_LATE2 "slatebbbbbbbbbbbbbbbbbbbbbb"

/* {session: sid, owner: OWNER} */
static cJSON *owned_params(const char *sid)
{
    cJSON *p = session_params(sid);
    cJSON_AddStringToObject(p, "owner", OWNER);
    return p;
}

static char *state_top(const char *state, uint64_t fail_at, const char *mode)
{
    char *top = malloc(512);
    snprintf(top, 512,
             "\"state_dir\": \"%s\", \"debug_store_fail_write\": %llu, "
             "\"debug_store_fail_mode\": \"%s\"",
             state, (unsigned long long)fail_at, mode);
    return top;
}

static void make_state(char *state /* "/tmp/mdae-sec-store-XXXXXX" */)
{
    cr_assert_not_null(mkdtemp(state));
}

static cJSON *status_of(client *c)
{
    cJSON *r = cl_request(c, 900, "server/status", NULL);
    cJSON *res = cJSON_DetachItemFromObject(r, "result");
    cr_assert_not_null(res);
    cJSON_Delete(r);
    return res;
}

static uint64_t store_writes(client *c)
{
    cJSON *st = status_of(c);
    cJSON *w = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "store"), "writes");
    cr_assert(cJSON_IsNumber(w), "server/status tells the store's writes (debug_methods)");
    uint64_t n = (uint64_t)w->valuedouble;
    cJSON_Delete(st);
    return n;
}

static int sessions_of(client *c)
{
    cJSON *st = status_of(c);
    int n = cJSON_GetObjectItem(st, "sessions")->valueint;
    cJSON_Delete(st);
    return n;
}

/* mdaed on the state directory `state` (with `limits`), connected as c. */
static void start_on(const char *state, const char *limits, srv_proc *p, client *c)
{
    char top[300];
    snprintf(top, sizeof top, "\"state_dir\": \"%s\"", state);
    srv_start(p, limits, top);
    cl_connect(c, p);
}

static void kill_hard(srv_proc *p)
{
    kill(p->pid, SIGKILL);
    waitpid(p->pid, NULL, 0);
    mdaed_remove_dir(p->dir);
}

/* ---- The script ------------------------------------------------------------------ */

typedef struct script {
    const char *text[3]; /* the open's, the two edits' */
    bool open_ok, edit_ok[2], close_ok;
} script;

/* The error code of a reply, 0 when it is a result. */
static int reply_code(cJSON *r)
{
    const cJSON *e = cJSON_GetObjectItem(r, "error");
    return e ? cJSON_GetObjectItem(e, "code")->valueint : 0;
}

static void check_refusal(cJSON *r, const char *what, bool after_failed_open)
{
    int code = reply_code(r);
    if (after_failed_open) {
        cr_assert_eq(code, NO_SESSION, "%s after a refused open: %s", what,
                     cJSON_PrintUnformatted(r));
        return;
    }
    cr_assert_eq(code, NOT_SAVED, "%s refused with -32014: %s", what, cJSON_PrintUnformatted(r));
    const char *msg = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "message")->valuestring;
    cr_assert(strstr(msg, "not saved") != NULL, "the message says it was not saved: %s", msg);
}

static void run_script(client *c, script *s)
{
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "text", s->text[0]);
    cJSON_AddBoolToObject(op, "persist", true);
    cJSON_AddStringToObject(op, "session", "f");
    cJSON_AddStringToObject(op, "owner", OWNER);
    cJSON *r = cl_request(c, 1, "session/open", op);
    s->open_ok = reply_code(r) == 0;
    if (s->open_ok)
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "persisted")),
                  "an acknowledged persistent open says persisted");
    else
        check_refusal(r, "open", false);
    cJSON_Delete(r);
    for (int k = 0; k < 2; k++) {
        cJSON *ep = owned_params("f");
        cJSON_AddStringToObject(ep, "text", s->text[k + 1]);
        r = cl_request(c, 2 + k, "session/edit", ep);
        s->edit_ok[k] = reply_code(r) == 0;
        if (!s->edit_ok[k])
            check_refusal(r, "edit", !s->open_ok);
        cJSON_Delete(r);
    }
    r = cl_request(c, 4, "session/close", owned_params("f"));
    s->close_ok = reply_code(r) == 0;
    if (!s->close_ok)
        check_refusal(r, "close", !s->open_ok);
    cJSON_Delete(r);
    if (s->open_ok && !s->close_ok) { /* a refused close leaves the session usable */
        r = cl_request(c, 5, "session/analyze", owned_params("f"));
        cr_assert_eq(reply_code(r), 0, "usable after a refused close: %s",
                     cJSON_PrintUnformatted(r));
        cJSON_Delete(r);
    }
}

/* The stored row of "f" under OWNER: false when there is none. */
static bool stored(const char *state, char **text, long *version)
{
    char path[300];
    snprintf(path, sizeof path, "%s/sessions.db", state);
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT text, version FROM sessions WHERE id = 'f' AND owner = '" OWNER "'", -1,
                                    &q, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    bool found = sqlite3_step(q) == SQLITE_ROW;
    if (found) {
        *text = strndup((const char *)sqlite3_column_blob(q, 0), (size_t)sqlite3_column_bytes(q, 0));
        *version = (long)sqlite3_column_int64(q, 1);
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    return found;
}

/* Restart without the fault and check what the acknowledged requests say. */
static void check_after_restart(const char *state, const script *s, uint64_t k, const char *mode)
{
    srv_proc p;
    client c;
    char *top = state_top(state, 0, "once");
    srv_start(&p, "", top);
    cl_connect(&c, &p);
    bool exists = s->open_ok && !s->close_ok;
    cr_assert_eq(sessions_of(&c), exists ? 1 : 0, "k=%llu (%s): the session %s",
                 (unsigned long long)k, mode, exists ? "is back" : "is gone");
    if (exists) {
        cJSON *r = cl_request(&c, 1, "session/analyze", owned_params("f"));
        cr_assert_eq(reply_code(r), 0, "k=%llu: served after the restart: %s",
                     (unsigned long long)k, cJSON_PrintUnformatted(r));
        cJSON_Delete(r);
    }
    cl_close(&c);
    cr_assert_eq(srv_stop(&p), 0);
    free(top);
    char *text = NULL;
    long version = 0;
    bool found = stored(state, &text, &version);
    cr_assert_eq(found, exists, "k=%llu (%s): stored row %s", (unsigned long long)k, mode,
                 exists ? "missing" : "of a refused open or acknowledged close");
    if (!exists)
        return;
    long want_version = 1;
    const char *want_text = s->text[0];
    for (int e = 0; e < 2; e++)
        if (s->edit_ok[e]) {
            want_version++;
            want_text = s->text[e + 1];
        }
    cr_assert_eq(version, want_version, "k=%llu (%s): stored version %ld, acknowledged %ld",
                 (unsigned long long)k, mode, version, want_version);
    cr_assert_str_eq(text, want_text, "k=%llu (%s): the stored text is the last acknowledged",
                     (unsigned long long)k, mode);
    free(text);
}

/* Run the script once with the fault at write base + k (0: none); returns
 * the writes it made (counted by the test VFS) when k is 0. */
static uint64_t one_run(const char *state, uint64_t k, const char *mode, script *s,
                        uint64_t base)
{
    srv_proc p;
    client c;
    char *top = state_top(state, k ? base + k : 0, mode);
    srv_start(&p, "", top);
    free(top);
    cl_connect(&c, &p);
    uint64_t before = store_writes(&c);
    if (k == 0)
        cr_assert_eq(before, base, "start-up writes are deterministic");
    run_script(&c, s);
    uint64_t after = k == 0 ? store_writes(&c) : 0;
    cl_close(&c);
    kill_hard(&p);
    return after - before;
}

/* The writes of a start on a fresh store (schema, migrations). */
static uint64_t fresh_start_writes(void)
{
    char state[] = "/tmp/mdae-sec-store-XXXXXX";
    make_state(state);
    srv_proc p;
    client c;
    char *top = state_top(state, 0, "once");
    srv_start(&p, "", top);
    free(top);
    cl_connect(&c, &p);
    uint64_t base = store_writes(&c);
    cl_close(&c);
    kill_hard(&p);
    mdaed_remove_dir(state);
    return base;
}

static void every_write_fails_once(const char *mode)
{
    char *base_text = t_model("rldc2.mel");
    char *t2 = malloc(strlen(base_text) + 32), *t3 = malloc(strlen(base_text) + 32);
    sprintf(t2, "%s\n// edit 2\n", base_text);
    sprintf(t3, "%s\n// edit 3\n", base_text);
    script s = {{base_text, t2, t3}, false, {false, false}, false};

    /* The writes of start-up (a fresh store) and of the script. */
    uint64_t base = fresh_start_writes();
    char state[] = "/tmp/mdae-sec-store-XXXXXX";
    make_state(state);
    uint64_t writes = one_run(state, 0, mode, &s, base);
    cr_assert(s.open_ok && s.edit_ok[0] && s.edit_ok[1] && s.close_ok, "no fault: all acked");
    cr_assert_gt(writes, 4, "every request writes");
    check_after_restart(state, &s, 0, mode);
    mdaed_remove_dir(state);

    int refused = 0;
    for (uint64_t k = 1; k <= writes; k++) {
        char st[] = "/tmp/mdae-sec-store-XXXXXX";
        make_state(st);
        s.open_ok = s.edit_ok[0] = s.edit_ok[1] = s.close_ok = false;
        one_run(st, k, mode, &s, base);
        refused += !s.open_ok + !s.edit_ok[0] + !s.edit_ok[1] + !s.close_ok;
        check_after_restart(st, &s, k, mode);
        mdaed_remove_dir(st);
    }
    cr_assert_geq(refused, (int)writes / 2, "the faults were felt (%d refusals for %llu writes)",
                  refused, (unsigned long long)writes);
    free(base_text);
    free(t2);
    free(t3);
}

Test(sec_store, every_acknowledged_change_survives_a_failed_write_and_a_kill, .timeout = 900)
{
    every_write_fails_once("once");
}

Test(sec_store, a_disk_that_fills_up_at_any_write_loses_nothing_acknowledged, .timeout = 900)
{
    every_write_fails_once("full");
}

Test(sec_store, answers_a_full_disk_with_not_saved_and_opens_nothing)
{
    uint64_t base = fresh_start_writes();
    char state[] = "/tmp/mdae-sec-store-XXXXXX";
    make_state(state);
    srv_proc p;
    client c;
    char *top = state_top(state, base + 1, "full");
    srv_start(&p, "", top);
    free(top);
    cl_connect(&c, &p);
    char *text = t_model("rldc2.mel");
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "text", text);
    cJSON_AddBoolToObject(op, "persist", true);
    cJSON *r = cl_request(&c, 1, "session/open", op);
    cr_assert_eq(reply_code(r), NOT_SAVED, "%s", cJSON_PrintUnformatted(r));
    const char *msg = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "message")->valuestring;
    cr_assert(strstr(msg, "not saved") && strstr(msg, "disk is full"), "says why: %s", msg);
    cJSON_Delete(r);
    cr_assert_eq(sessions_of(&c), 0, "a refused open opens nothing");
    char *sid = cl_open(&c, text); /* not persisted: nothing to write */
    cr_assert_eq(sessions_of(&c), 1);
    free(sid);
    cl_close(&c);
    srv_stop(&p);
    free(text);
    mdaed_remove_dir(state);
}

/* ---- Start-up checks ------------------------------------------------------------- */

/* Start mdaed on the state directory `state`; it must exit (not listen)
 * with a non-zero status. Its stderr into log. */
static void start_refused(const char *state, char *log, size_t loglen)
{
    srv_proc p;
    mdaed_prepare(&p, "mdae-sec-store");
    char top[300], conf[4096], port_file[128], log_path[128];
    snprintf(top, sizeof top, "\"state_dir\": \"%s\"", state);
    srv_conf(&p, "info", "", top, conf, sizeof conf);
    snprintf(port_file, sizeof port_file, "%s/port", p.dir);
    srv_log_path(&p, log_path, sizeof log_path);
    mdaed_spawn(&p, conf, true);
    pid_t pid = p.pid;
    int st = 0;
    pid_t r = 0;
    uint64_t end = t_now_ms() + MDAED_PROC_WAIT_MS;
    while ((r = waitpid(pid, &st, WNOHANG)) == 0 && t_now_ms() < end)
        t_sleep_ms(10);
    bool started = access(port_file, F_OK) == 0;
    if (r == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    FILE *f = fopen(log_path, "r");
    size_t n = f ? fread(log, 1, loglen - 1, f) : 0;
    log[n] = '\0';
    if (f)
        fclose(f);
    mdaed_remove_dir(p.dir);
    cr_assert(!started && r == pid && WIFEXITED(st) && WEXITSTATUS(st) != 0,
              "mdaed must refuse to start; its log:\n%s", log);
}

static void open_persistent(client *c, int id, const char *sid, const char *text)
{
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "text", text);
    cJSON_AddBoolToObject(op, "persist", true);
    cJSON_AddStringToObject(op, "session", sid);
    cJSON_AddStringToObject(op, "owner", OWNER);
    cJSON *r = cl_request(c, id, "session/open", op);
    cr_assert_eq(reply_code(r), 0, "%s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
}

/* A fresh state directory (state: "/tmp/mdae-sec-store-XXXXXX", filled
 * in), mdaed on it connected as c, and the persistent session sid (OWNER's)
 * opened there on rldc2.mel, whose text is returned (malloc'd). */
static char *start_with_session(char *state, srv_proc *p, client *c, const char *sid)
{
    make_state(state);
    start_on(state, "", p, c);
    char *text = t_model("rldc2.mel");
    open_persistent(c, 1, sid, text);
    return text;
}

Test(sec_store, refuses_to_start_on_a_corrupt_sessions_table)
{
    char state[] = "/tmp/mdae-sec-store-XXXXXX";
    srv_proc p;
    client c;
    char *text = start_with_session(state, &p, &c, "a");
    open_persistent(&c, 2, "b", text);
    cl_close(&c);
    cr_assert_eq(srv_stop(&p), 0); /* a clean stop: the WAL is checkpointed into the file */

    /* Garbage over the sessions table's pages (its root and what follows). */
    char path[300];
    snprintf(path, sizeof path, "%s/sessions.db", state);
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "SELECT rootpage FROM sqlite_master WHERE name = 'sessions'",
                                    -1, &q, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
    int root = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &q, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
    int page = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    char *junk = malloc((size_t)page);
    for (int i = 0; i < page; i++)
        junk[i] = (char)(0x5a ^ (i * 31));
    cr_assert_eq(fseek(f, (long)(root - 1) * page, SEEK_SET), 0);
    cr_assert_eq(fwrite(junk, 1, (size_t)page, f), (size_t)page);
    fclose(f);
    free(junk);

    char log[8192];
    start_refused(state, log, sizeof log);
    cr_assert(strstr(log, path) != NULL, "the log names the file: %s", log);
    cr_assert(strstr(log, "corrupt") != NULL, "the log says what is wrong: %s", log);
    cr_assert(strstr(log, "mv ") != NULL, "the log says what to do: %s", log);
    free(text);
    mdaed_remove_dir(state);
}

Test(sec_store, refuses_a_second_mdaed_on_one_state_directory)
{
    char state[] = "/tmp/mdae-sec-store-XXXXXX";
    make_state(state);
    char top[300];
    snprintf(top, sizeof top, "\"state_dir\": \"%s\"", state);
    srv_proc p;
    srv_start(&p, "", top);
    char log[8192], lock[320];
    start_refused(state, log, sizeof log);
    snprintf(lock, sizeof lock, "%s/lock", state);
    cr_assert(strstr(log, lock) != NULL, "the log names the lock: %s", log);
    cr_assert(strstr(log, "another mdaed") != NULL, "%s", log);
    client c;
    cl_connect(&c, &p); /* the first one is unharmed */
    char *text = t_model("rldc2.mel");
    open_persistent(&c, 1, "a", text);
    cl_close(&c);
    cr_assert_eq(srv_stop(&p), 0);
    free(text);
    mdaed_remove_dir(state);
}

/* ---- Lazy loading, load on miss, versions ---------------------------------------- */

/* Rows written as another mdaed (or instance) would: schema version 2. */
static sqlite3 *store_db(const char *state)
{
    char path[300];
    snprintf(path, sizeof path, "%s/sessions.db", state);
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    cr_assert_eq(sqlite3_exec(db,
                              "PRAGMA journal_mode = WAL;"
                              "CREATE TABLE IF NOT EXISTS sessions (id TEXT NOT NULL,"
                              " owner TEXT NOT NULL DEFAULT '', text BLOB NOT NULL,"
                              " modelica INTEGER NOT NULL, defines TEXT,"
                              " version INTEGER NOT NULL, updated INTEGER NOT NULL,"
                              " recover INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (id, owner));"
                              "PRAGMA user_version = 2;",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    return db;
}

/* A row of id under owner ("" for none: then id must be made-shaped to be
 * served). */
static void store_row(sqlite3 *db, const char *id, const char *owner, const char *text,
                      size_t len, sqlite3_int64 version)
{
    sqlite3_stmt *q = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "INSERT INTO sessions (id, owner, text, modelica, version,"
                                    " updated) VALUES (?1, ?4, ?2, 0, ?3, strftime('%s', 'now'))",
                                    -1, &q, NULL),
                 SQLITE_OK);
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_blob64(q, 2, text, len, SQLITE_STATIC);
    sqlite3_bind_int64(q, 3, version);
    sqlite3_bind_text(q, 4, owner, -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(q), SQLITE_DONE, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(q);
}

static double rss_of(client *c)
{
    cJSON *st = status_of(c);
    double rss = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "memory"), "rss_bytes")->valuedouble;
    cJSON_Delete(st);
    return rss;
}

Test(sec_store, reads_stored_texts_on_first_use_not_at_start, .timeout = 120)
{
    enum { N = 20, MIB = 1 << 20, SIZE = 6 * MIB };
    char state[] = "/tmp/mdae-sec-store-XXXXXX";
    make_state(state);
    char *text = t_model("rldc2.mel");
    size_t tl = strlen(text);
    char *big = malloc(SIZE + 1); /* the model, then comment lines */
    memcpy(big, text, tl);
    for (size_t i = tl; i < SIZE; i++)
        big[i] = (i - tl) % 64 == 0 ? '\n' : (i - tl) % 64 <= 2 ? '/' : 'x';
    big[SIZE] = '\0';
    sqlite3 *db = store_db(state);
    cr_assert_eq(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    for (int i = 0; i < N; i++) {
        char id[16];
        snprintf(id, sizeof id, "big%d", i);
        store_row(db, id, OWNER, big, SIZE, 1);
    }
    cr_assert_eq(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);

    srv_proc p;
    client c;
    start_on(state, "\"max_message_bytes\": 16777216", &p, &c);
    cr_assert_eq(sessions_of(&c), N, "every stored session is known");
    double rss = rss_of(&c);
    /* Half of the texts: reading them would take all of it; an idle
     * router is ~10 MiB, ~33 under the sanitizers (their shadow memory). */
    cr_assert_lt(rss, (double)N * SIZE / 2, "router RSS %.0f MiB after start: the %d stored "
                 "texts (%d MiB) are not read", rss / MIB, N, N * SIZE / MIB);
    cJSON *r = cl_request(&c, 1, "session/analyze", owned_params("big3"));
    cr_assert_eq(reply_code(r), 0, "first use loads the text: %s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);

    /* Load on miss: rows another writer stores while mdaed runs, one under
     * an owner key (served with that key only), one keyless under a
     * made-shaped id (its id is the capability). */
    cr_assert_eq(strlen(MADE_LATE), 27);
    store_row(db, "late", OWNER, text, tl, 4);
    store_row(db, MADE_LATE, "", text, tl, 7);
    r = cl_request(&c, 2, "session/analyze", session_params("late"));
    cr_assert_eq(reply_code(r), NO_SESSION, "a keyed row is not served without its key: %s",
                 cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    const char *late[] = {"late", MADE_LATE};
    const int late_version[] = {4, 7};
    for (int i = 0; i < 2; i++) {
        cJSON *ap = i == 0 ? owned_params(late[i]) : session_params(late[i]);
        r = cl_request(&c, 3, "session/analyze", ap);
        cr_assert_eq(reply_code(r), 0, "a stored session not in memory is loaded (%s): %s",
                     late[i], cJSON_PrintUnformatted(r));
        cJSON_Delete(r);
        cJSON *ep = i == 0 ? owned_params(late[i]) : session_params(late[i]);
        cJSON_AddStringToObject(ep, "text", text);
        r = cl_request(&c, 4, "session/edit", ep);
        cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "version")->valueint,
                     late_version[i] + 1, "%s at its stored version: %s", late[i],
                     cJSON_PrintUnformatted(r));
        cJSON_Delete(r);
    }
    /* A keyless made id is anyone's who holds it, in memory (see
     * srv_session_lookup) as on a miss: a request carrying some key too. */
    store_row(db, MADE_LATE2, "", text, tl, 2);
    r = cl_request(&c, 5, "session/analyze", owned_params(MADE_LATE2));
    cr_assert_eq(reply_code(r), 0, "a keyless made id is loaded for a keyed request: %s",
                 cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    sqlite3_close(db);
    cl_close(&c);
    srv_stop(&p);
    free(big);
    free(text);
    mdaed_remove_dir(state);
}

Test(sec_store, refuses_stored_versions_out_of_range_and_never_wraps)
{
    char state[] = "/tmp/mdae-sec-store-XXXXXX";
    make_state(state);
    char *text = t_model("rldc2.mel");
    size_t tl = strlen(text);
    sqlite3 *db = store_db(state);
    store_row(db, "zero", OWNER, text, tl, 0);
    store_row(db, "negative", OWNER, text, tl, -5);
    store_row(db, "max", OWNER, text, tl, INT64_MAX);
    store_row(db, "top", OWNER, text, tl, INT64_MAX - 1);
    sqlite3_close(db);

    srv_proc p;
    client c;
    start_on(state, "", &p, &c);
    cr_assert_eq(sessions_of(&c), 1, "only the version in 1..INT64_MAX-1 is served");
    const char *refused[] = {"zero", "negative", "max"};
    for (int i = 0; i < 3; i++) {
        cJSON *r = cl_request(&c, 1 + i, "session/analyze", owned_params(refused[i]));
        cr_assert_eq(reply_code(r), NO_SESSION, "%s: %s", refused[i], cJSON_PrintUnformatted(r));
        cJSON_Delete(r);
    }
    cJSON *ep = owned_params("top");
    cJSON_AddStringToObject(ep, "text", text);
    cJSON *r = cl_request(&c, 5, "session/edit", ep);
    cr_assert_neq(reply_code(r), 0, "an edit past INT64_MAX-1 is refused: %s",
                  cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    cl_close(&c);
    srv_stop(&p);
    db = store_db(state);
    sqlite3_stmt *q = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT version FROM sessions WHERE id = 'top'", -1, &q,
                                    NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int64(q, 0), INT64_MAX - 1, "no wrap");
    sqlite3_finalize(q);
    sqlite3_close(db);
    free(text);
    mdaed_remove_dir(state);
}

/* ---- Conditional writes (issue 37 item 4's contract) ------------------------------ */

/* Another writer (an instance of a cluster) stores version 2 behind
 * mdaed's back: mdaed's edit of its version 1 is refused with -32015 and
 * writes nothing; its next request loads the stored version. A chosen id
 * that only the store has is taken. */
Test(sec_store, never_overwrites_a_version_another_writer_stored)
{
    char state[] = "/tmp/mdae-sec-store-XXXXXX";
    srv_proc p;
    client c;
    char *text = start_with_session(state, &p, &c, "shared");
    sqlite3 *db = store_db(state);
    char *theirs = malloc(strlen(text) + 32);
    sprintf(theirs, "%s\n// theirs\n", text);
    sqlite3_stmt *q = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "UPDATE sessions SET text = ?1, version = 2 WHERE id = 'shared'",
                                    -1, &q, NULL),
                 SQLITE_OK);
    sqlite3_bind_blob(q, 1, theirs, (int)strlen(theirs), SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(q), SQLITE_DONE);
    sqlite3_finalize(q);

    cJSON *ep = owned_params("shared");
    cJSON_AddStringToObject(ep, "text", "x : real;\ne : equation der(x) = 1;\n");
    cJSON *r = cl_request(&c, 2, "session/edit", ep);
    cr_assert_eq(reply_code(r), -32015, "a conflict: %s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT text, version FROM sessions WHERE id = 'shared'",
                                    -1, &q, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(q, 0), theirs, "theirs is kept");
    cr_assert_eq(sqlite3_column_int64(q, 1), 2);
    sqlite3_finalize(q);

    ep = owned_params("shared"); /* loaded again: their version 2, edited to 3 */
    cJSON_AddStringToObject(ep, "text", text);
    r = cl_request(&c, 3, "session/edit", ep);
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "version")->valueint, 3,
                 "%s", cJSON_PrintUnformatted(r));
    cJSON_Delete(r);

    store_row(db, "elsewhere", OWNER, text, strlen(text), 1); /* only in the store */
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "text", text);
    cJSON_AddBoolToObject(op, "persist", true);
    cJSON_AddStringToObject(op, "session", "elsewhere");
    cJSON_AddStringToObject(op, "owner", OWNER);
    r = cl_request(&c, 4, "session/open", op);
    cr_assert_eq(reply_code(r), RPC_INVALID_PARAMS, "the id is taken: %s",
                 cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    sqlite3_close(db);
    cl_close(&c);
    srv_stop(&p);
    free(theirs);
    free(text);
    mdaed_remove_dir(state);
}

/* ---- An edit the worker refuses says that it was applied ---------------------------- */

/* An edit whose text the worker refuses (a syntax error) is kept, as an
 * editor's intermediate text must be, and is stored; its error says so
 * (error.data {applied: true, version, persisted}) instead of leaving the
 * client to believe nothing changed. */
Test(sec_store, says_that_an_edit_whose_text_does_not_load_was_applied)
{
    char state[] = "/tmp/mdae-sec-store-XXXXXX";
    srv_proc p;
    client c;
    char *text = start_with_session(state, &p, &c, "f");
    const char *broken = "x : real;\ne : equation der(x) = ;\n";
    cJSON *ep = owned_params("f");
    cJSON_AddStringToObject(ep, "text", broken);
    cJSON *r = cl_request(&c, 2, "session/edit", ep);
    cr_assert_eq(reply_code(r), -32003, "%s", cJSON_PrintUnformatted(r));
    cJSON *data = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(data, "applied")), "%s",
              cJSON_PrintUnformatted(r));
    cr_assert_eq(cJSON_GetObjectItem(data, "version")->valueint, 2);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(data, "persisted")));
    cJSON_Delete(r);
    cl_close(&c);
    kill_hard(&p);
    char *stored_text = NULL;
    long version = 0;
    cr_assert(stored(state, &stored_text, &version));
    cr_assert_eq(version, 2);
    cr_assert_str_eq(stored_text, broken);
    free(stored_text);
    free(text);
    mdaed_remove_dir(state);
}
