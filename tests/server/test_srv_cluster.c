/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_srv_cluster.c -- three mdaed instances sharing one
 * PostgreSQL session store behind HAProxy with the shipped
 * conf/haproxy.cfg (issue 17 "Scale-out", issue 37 item 4):
 *
 *   - sessions spread over the instances, each request routed to its
 *     session's instance (X-Mdae-Session header or the id in the body);
 *     one instance killed: its sessions go on, on another instance, with
 *     their edits, without being opened again (no 503, no "no such
 *     session"); it comes back and serves them, edits made meanwhile
 *     included; an instance holding an older copy of a session never
 *     answers from it, and two instances editing one session in turn
 *     never accept one version twice;
 *   - the chaos test: two clients edit shared sessions through HAProxy
 *     (one over HTTP, routed by session, the other over NDJSON, a fresh
 *     connection to any instance for each edit, so that two instances
 *     often hold one session), each reading some of its edits back
 *     through the other frontend at once (no stale copy may answer),
 *     while instances are killed (SIGKILL) and restarted at random for
 *     MDAE_CLUSTER_SECONDS (default 120), and the database itself stops
 *     for a second halfway; every acknowledged edit is in
 *     the final text, read through HAProxy and straight from the
 *     database, and no version of a session was accepted twice (by the
 *     replies, and by a history trigger in the test's database).
 *
 * Each test starts a private PostgreSQL (tests/support/pg_proc.h) and
 * skips when its binaries are missing (scripts/deps.sh installs Debian's
 * postgresql with the test dependencies, so CI runs it). Needs Debian's
 * haproxy too; without it the test fails saying so.
 */
#include "srv_test.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "pg_proc.h"

#define HAPROXY "/usr/sbin/haproxy"
#define N_INST 3
#define SESSIONS 30
#define HTTP_WAIT_MS 60000

static const char *const inst_name[N_INST] = {"a", "b", "c"};

/* A free loopback port (bound then released: the server binds it next). */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t n = sizeof a;
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &n), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* ---- The cluster ------------------------------------------------------------------ */

typedef struct cluster {
    pg_proc pg;
    srv_proc inst[N_INST];
    int port[N_INST];
    bool alive[N_INST];
    pid_t haproxy;
    int http, tcp;
    PGconn *db; /* the test's own connection, for the checks */
} cluster;

static void instance_start(cluster *cl, int k)
{
    srv_proc *p = &cl->inst[k];
    if (p->dir[0] == '\0') {
        srv_proc fresh;
        mdaed_prepare(&fresh, "mdaed-cluster");
        *p = fresh;
    }
    char conf[1024];
    snprintf(conf, sizeof conf,
             "// cluster test: instance %s\n{\n"
             "  \"listen\": {\"tcp\": \"127.0.0.1:%d\"},\n"
             "  \"web_root\": \"%s/clients/web\",\n"
             "  \"log_level\": \"warn\",\n"
             "  \"instance\": \"%s\",\n"
             "  \"store\": {\"url\": \"%s\"},\n"
             "  \"limits\": {\"worker_idle_ms\": 60000}\n"
             "}\n",
             inst_name[k], cl->port[k], MDAE_SOURCE_DIR, inst_name[k], cl->pg.url);
    mdaed_start(p, conf, true); /* the log in DIR/mdaed.log */
    cl->alive[k] = true;
}

static void instance_kill(cluster *cl, int k)
{
    kill(cl->inst[k].pid, SIGKILL);
    waitpid(cl->inst[k].pid, NULL, 0);
    cl->alive[k] = false;
}

static PGresult *db_exec(cluster *cl, const char *sql)
{
    PGresult *r = PQexec(cl->db, sql);
    ExecStatusType st = PQresultStatus(r);
    cr_assert(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK, "%s: %s", sql,
              PQerrorMessage(cl->db));
    return r;
}

/* Start PostgreSQL, the instances and HAProxy; false (test skipped) when
 * PostgreSQL is not installed. */
static bool cluster_start(cluster *cl)
{
    memset(cl, 0, sizeof *cl);
    if (!pg_available()) {
        cr_skip_test("PostgreSQL is not installed (apt-get install postgresql)");
        return false;
    }
    cr_assert_eq(access(HAPROXY, X_OK), 0, HAPROXY " is missing: apt-get install haproxy");
    cr_assert_eq(pg_start(&cl->pg), 0, "%s", cl->pg.err);
    for (int k = 0; k < N_INST; k++) {
        cl->port[k] = free_port();
        instance_start(cl, k);
    }
    cl->db = PQconnectdb(cl->pg.url);
    cr_assert_eq(PQstatus(cl->db), CONNECTION_OK, "%s", PQerrorMessage(cl->db));
    /* Every write of a session row, kept by the test's database: a version
     * accepted twice shows as two rows. */
    PGresult *r = PQexec(cl->db, "SELECT 1 FROM sessions LIMIT 0");
    cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK,
                 "mdaed did not make its sessions table in PostgreSQL (store.url): %s",
                 PQerrorMessage(cl->db));
    PQclear(r);
    PQclear(db_exec(cl, "CREATE TABLE history (id text, owner_key text, version bigint,"
                        " text bytea, at timestamptz DEFAULT clock_timestamp())"));
    PQclear(db_exec(cl, "CREATE FUNCTION record_write() RETURNS trigger LANGUAGE plpgsql AS"
                        " $$BEGIN INSERT INTO history (id, owner_key, version, text)"
                        " VALUES (NEW.id, NEW.owner_key, NEW.version, NEW.text);"
                        " RETURN NEW; END$$"));
    PQclear(db_exec(cl, "CREATE TRIGGER history AFTER INSERT OR UPDATE ON sessions"
                        " FOR EACH ROW EXECUTE FUNCTION record_write()"));
    cl->http = free_port();
    cl->tcp = free_port();
    char v[64];
    snprintf(v, sizeof v, "127.0.0.1:%d", cl->http);
    setenv("MDAE_CLUSTER_HTTP", v, 1);
    snprintf(v, sizeof v, "127.0.0.1:%d", cl->tcp);
    setenv("MDAE_CLUSTER_TCP", v, 1);
    for (int k = 0; k < N_INST; k++) {
        char name[16];
        snprintf(name, sizeof name, "MDAE_%c", 'A' + k);
        snprintf(v, sizeof v, "127.0.0.1:%d", cl->port[k]);
        setenv(name, v, 1);
    }
    cl->haproxy = fork();
    cr_assert_geq(cl->haproxy, 0);
    if (cl->haproxy == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        char log[160];
        snprintf(log, sizeof log, "%s/haproxy.log", cl->pg.dir); /* its warnings */
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl(HAPROXY, HAPROXY, "-f", MDAE_SOURCE_DIR "/conf/haproxy.cfg", "-db", (char *)NULL);
        _exit(127);
    }
    uint64_t end = t_now_ms() + SRV_TEST_WAIT_MS;
    for (;;) {
        int fd = t_connect_port(cl->http);
        if (fd >= 0) {
            close(fd);
            break;
        }
        cr_assert_eq(waitpid(cl->haproxy, NULL, WNOHANG), 0, "haproxy exited at startup");
        cr_assert_lt(t_now_ms(), end, "haproxy did not listen");
        t_sleep_ms(20);
    }
    t_sleep_ms(2500); /* the first health checks (conf: inter 1s, rise 2) */
    return true;
}

static void cluster_stop(cluster *cl)
{
    kill(cl->haproxy, SIGTERM);
    waitpid(cl->haproxy, NULL, 0);
    for (int k = 0; k < N_INST; k++) {
        if (cl->alive[k])
            cr_expect_eq(srv_stop(&cl->inst[k]), 0, "instance %s did not stop cleanly",
                         inst_name[k]);
        else
            mdaed_remove_dir(cl->inst[k].dir);
    }
    PQfinish(cl->db);
    pg_stop(&cl->pg);
}

/* ---- HTTP, usable from any thread (no assertions) --------------------------------- */

/* POST body to 127.0.0.1:port/rpc, with X-Mdae-Session: sid unless sid is
 * NULL. The HTTP status (0: no answer: refused, cut or timed out); *json
 * the JSON-RPC reply (the last line of a 200 body), or NULL. */
static int http_post(int port, const char *sid, const char *body, cJSON **json)
{
    char extra[200] = "";
    if (sid != NULL)
        snprintf(extra, sizeof extra, "X-Mdae-Session: %s\r\n", sid);
    char *reply;
    int status = t_http_post(port, "localhost", extra, T_JSON, body, HTTP_WAIT_MS, &reply);
    char *text = status == 200 ? t_http_body(reply) : NULL;
    *json = NULL;
    if (text != NULL) {
        /* Streamed notifications come first; the reply is the last line. */
        *json = cJSON_Parse(t_last_line(text));
        if (*json == NULL)
            status = 0; /* cut in the middle of the body */
    }
    free(reply);
    return status;
}

static char *rpc(int id, const char *method, cJSON *params)
{
    return t_request(id, method, params);
}

/* A call through port (HAProxy's or an instance's) that must get HTTP 200
 * and a JSON-RPC reply (owned). */
static cJSON *call(int port, const char *sid, bool by_header, const char *method, cJSON *params)
{
    char *req = rpc(1, method, params);
    cJSON *r;
    int st = http_post(port, by_header ? sid : NULL, req, &r);
    cr_assert_eq(st, 200, "%s on %s: HTTP %d", method, sid ? sid : "-", st);
    cJSON_free(req);
    return r;
}

static cJSON *result_of(cJSON *r, const char *what)
{
    cJSON *res = cJSON_GetObjectItem(r, "result");
    cr_assert_not_null(res, "%s: %s", what, cJSON_PrintUnformatted(r));
    return res;
}

static char *open_session(int port, const char *text)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "text", text);
    cJSON *r = call(port, NULL, false, "session/open", p);
    cJSON *sid = cJSON_GetObjectItem(result_of(r, "session/open"), "session");
    cr_assert(cJSON_IsString(sid));
    char *id = strdup(sid->valuestring);
    cJSON_Delete(r);
    return id;
}

/* The owner key of the client-chosen id (issue 37 item 1: a persistent
 * session's chosen id is scoped by its owner's key, given with every call). */
#define NAMED "my-model"
#define OWNER "cluster-test-owner-key-0123456789"

static cJSON *named_params(const char *sid)
{
    cJSON *p = session_params(sid);
    if (strcmp(sid, NAMED) == 0)
        cJSON_AddStringToObject(p, "owner", OWNER);
    return p;
}

/* The analysis of sid through port (owned). */
static cJSON *analyze(int port, const char *sid, bool by_header)
{
    cJSON *r = call(port, sid, by_header, "session/analyze", named_params(sid));
    cJSON *res = cJSON_DetachItemFromObject(r, "result");
    cr_assert_not_null(res, "session %s: %s", sid, cJSON_PrintUnformatted(r));
    cJSON_Delete(r);
    return res;
}

/* The edit that declares q<tag> and its equation, at the start of the text
 * (valid whatever the text is: the clients need not know it). */
static char *edit_request(const char *sid, const char *tag)
{
    char text[160];
    snprintf(text, sizeof text, "q%s : real;\nk%s : equation q%s = 1;\n", tag, tag, tag);
    cJSON *p = session_params(sid);
    cJSON *edits = cJSON_AddArrayToObject(p, "edits");
    cJSON_AddItemToArray(edits, t_range_edit(0, 0, 0, 0, text));
    return rpc(2, "session/edit", p);
}

/* session/edit through port: the version acknowledged. */
static long edit(int port, const char *sid, const char *tag)
{
    char *req = edit_request(sid, tag);
    cJSON *r;
    int st = http_post(port, sid, req, &r);
    cJSON_free(req);
    cr_assert_eq(st, 200, "edit %s of %s: HTTP %d", tag, sid, st);
    cJSON *v = cJSON_GetObjectItem(result_of(r, "session/edit"), "version");
    cr_assert(cJSON_IsNumber(v));
    long version = (long)v->valuedouble;
    cJSON_Delete(r);
    return version;
}

/* Does session/structure of sid, through port, declare q<tag>? */
static bool declares(int port, const char *sid, const char *tag)
{
    cJSON *r = call(port, sid, true, "session/structure", session_params(sid));
    char *text = cJSON_PrintUnformatted(result_of(r, "session/structure"));
    char want[64];
    snprintf(want, sizeof want, "\"name\":\"q%s\"", tag);
    bool found = strstr(text, want) != NULL;
    cJSON_free(text);
    cJSON_Delete(r);
    return found;
}

/* The stored text of sid, straight from the database (malloc'd). */
static char *stored_text(cluster *cl, const char *sid, long *version)
{
    const char *vals[1] = {sid};
    PGresult *r = PQexecParams(cl->db, "SELECT text, version FROM sessions WHERE id = $1", 1,
                               NULL, vals, NULL, NULL, 1);
    cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s", PQerrorMessage(cl->db));
    cr_assert_eq(PQntuples(r), 1, "session %s is not in the database", sid);
    size_t n = (size_t)PQgetlength(r, 0, 0);
    char *text = malloc(n + 1);
    memcpy(text, PQgetvalue(r, 0, 0), n);
    text[n] = '\0';
    const unsigned char *p = (const unsigned char *)PQgetvalue(r, 0, 1);
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v = v << 8 | p[k];
    *version = (long)v;
    PQclear(r);
    return text;
}

static bool text_declares(const char *text, const char *tag)
{
    char want[64];
    snprintf(want, sizeof want, "q%s : real;\n", tag);
    return strstr(text, want) != NULL;
}

/* No (session, version) written twice, by the history trigger. */
static void assert_no_version_twice(cluster *cl)
{
    PGresult *r = db_exec(cl, "SELECT id, version, count(*) FROM history"
                              " GROUP BY id, owner_key, version HAVING count(*) > 1");
    cr_assert_eq(PQntuples(r), 0, "session %s: version %s accepted %s times",
                 PQntuples(r) ? PQgetvalue(r, 0, 0) : "", PQntuples(r) ? PQgetvalue(r, 0, 1) : "",
                 PQntuples(r) ? PQgetvalue(r, 0, 2) : "");
    PQclear(r);
}

Test(srv_cluster, serves_every_session_from_any_instance_when_one_dies, .timeout = 600)
{
    cluster cl;
    if (!cluster_start(&cl))
        return;
    char *text = t_model("rldc2.mel");
    char *ids[SESSIONS];
    int on[N_INST] = {0};
    for (int k = 0; k < SESSIONS; k++) {
        ids[k] = open_session(cl.http, text);
        cr_assert(ids[k][0] >= 'a' && ids[k][0] < 'a' + N_INST && ids[k][1] == '-', "%s",
                  ids[k]);
        on[ids[k][0] - 'a']++;
    }
    for (int k = 0; k < N_INST; k++)
        cr_assert_gt(on[k], 0, "no session on instance %s", inst_name[k]);
    cJSON *want = analyze(cl.http, ids[0], true);
    for (int k = 1; k < SESSIONS; k++) {
        cJSON *res = analyze(cl.http, ids[k], k % 2 == 0);
        cr_assert(cJSON_Compare(want, res, true), "session %s", ids[k]);
        cJSON_Delete(res);
    }
    /* A client-chosen id: hashed by HAProxy over the live instances. */
    cJSON *op = named_params(NAMED);
    cJSON_AddStringToObject(op, "text", text);
    cJSON *opened = call(cl.http, NAMED, true, "session/open", op);
    result_of(opened, "session/open " NAMED);
    cJSON_Delete(opened);
    for (int k = 0; k < 3; k++) {
        cJSON *res = analyze(cl.http, NAMED, true);
        cr_assert(cJSON_Compare(want, res, true));
        cJSON_Delete(res);
    }

    /* Instance a dies: its sessions go on elsewhere, loaded from the store,
     * without being opened again. */
    instance_kill(&cl, 0);
    t_sleep_ms(1500); /* one failed health check (conf: fall 1) */
    int a_sid = -1;
    for (int k = 0; k < SESSIONS; k++) {
        cJSON *res = analyze(cl.http, ids[k], k % 2 == 1);
        cr_assert(cJSON_Compare(want, res, true), "session %s after a died", ids[k]);
        cJSON_Delete(res);
        if (ids[k][0] == 'a' && a_sid < 0)
            a_sid = k;
    }
    cr_assert_geq(a_sid, 0);
    for (int k = 0; k < N_INST; k++) { /* the named one, wherever it goes now */
        cJSON *res = analyze(cl.http, NAMED, true);
        cr_assert(cJSON_Compare(want, res, true), NAMED " after a died");
        cJSON_Delete(res);
    }
    long v = edit(cl.http, ids[a_sid], "while_a_is_down");
    cr_assert_eq(v, 2, "the first edit of %s makes version 2", ids[a_sid]);
    cr_assert(declares(cl.http, ids[a_sid], "while_a_is_down"));

    /* a comes back: requests for its sessions go to it again, and it
     * serves the text edited while it was down. */
    instance_start(&cl, 0);
    t_sleep_ms(2500); /* conf: rise 2 */
    cr_assert(declares(cl.http, ids[a_sid], "while_a_is_down"),
              "instance a served an old text of %s", ids[a_sid]);
    cr_assert(declares(cl.port[0], ids[a_sid], "while_a_is_down"));

    /* Two instances in turn on one session (straight to each, no proxy):
     * c loads b's session, b edits it, c must answer from the new text and
     * its own edit must follow b's, not overwrite it. */
    int b_sid = -1;
    for (int k = 0; k < SESSIONS && b_sid < 0; k++)
        if (ids[k][0] == 'b')
            b_sid = k;
    cJSON *res = analyze(cl.port[2], ids[b_sid], true);
    cr_assert(cJSON_Compare(want, res, true));
    cJSON_Delete(res);
    cr_assert_eq(edit(cl.port[1], ids[b_sid], "on_b"), 2);
    cr_assert(declares(cl.port[2], ids[b_sid], "on_b"), "instance c answered from its old copy");
    cr_assert_eq(edit(cl.port[2], ids[b_sid], "on_c"), 3);
    cr_assert_eq(edit(cl.port[1], ids[b_sid], "on_b_again"), 4);
    long stored;
    char *st = stored_text(&cl, ids[b_sid], &stored);
    cr_assert_eq(stored, 4);
    cr_assert(text_declares(st, "on_b") && text_declares(st, "on_c") &&
                  text_declares(st, "on_b_again"),
              "%s", st);
    free(st);
    assert_no_version_twice(&cl);

    /* NDJSON over the TCP frontend, by connection, to a live instance. */
    int fd = t_connect_port(cl.tcp);
    cr_assert_geq(fd, 0);
    client c;
    cl_open_fd(&c, fd);
    char *sid = cl_open(&c, text);
    cr_assert(sid[0] >= 'a' && sid[0] < 'a' + N_INST && sid[1] == '-', "%s", sid);
    cJSON *r = cl_request(&c, 9, "session/analyze", session_params(sid));
    cr_assert(cJSON_Compare(want, cJSON_GetObjectItem(r, "result"), true));
    cJSON_Delete(r);
    cl_close(&c);
    free(sid);

    for (int k = 0; k < SESSIONS; k++)
        free(ids[k]);
    cJSON_Delete(want);
    free(text);
    cluster_stop(&cl);
}

/* ---- Chaos ------------------------------------------------------------------------- */

#define CHAOS_SESSIONS 4

typedef struct acked {
    int session; /* index into the shared ids */
    int n;       /* the edit's number: it declared q<client>_<n> */
    long version;
} acked;

typedef struct chaos_client {
    pthread_t thread;
    int client; /* 1 or 2 */
    int http;   /* HAProxy's HTTP port: by session, to the session's instance */
    int tcp;    /* HAProxy's TCP port: by connection, to any instance */
    bool by_tcp; /* edits over a fresh NDJSON connection each (else HTTP) */
    char **ids;
    uint64_t until;
    unsigned seed;
    acked *acks;
    size_t n_acks, cap_acks;
    int attempts, conflicts, notsaved, unavailable, no_such, other;
    int reads, stale_reads;
    char first_other[300], first_no_such[300], first_stale[300];
} chaos_client;

/* One request over a fresh NDJSON connection to port: 200 when a reply
 * line came (*json), 0 otherwise (refused, cut, timed out). */
static int ndjson_post(int port, const char *body, cJSON **json)
{
    *json = NULL;
    int fd = t_connect_port(port);
    if (fd < 0)
        return 0;
    char *buf = NULL;
    if (t_send_all(fd, body, strlen(body)) && t_send_all(fd, "\n", 1))
        buf = t_recv_all(fd, true, HTTP_WAIT_MS);
    close(fd);
    char *nl = buf != NULL ? strchr(buf, '\n') : NULL;
    if (nl != NULL) {
        *nl = '\0';
        *json = cJSON_Parse(buf);
    }
    free(buf);
    return *json != NULL ? 200 : 0;
}

/* Right after an acknowledged edit, read the session through the other
 * frontend (another instance, often): the edit must be there, whatever
 * instance answers (no stale copy served). An unavailable answer proves
 * nothing and is not counted. */
static void check_read(chaos_client *cc, const char *sid, const char *tag)
{
    char *req = rpc(3, "session/structure", session_params(sid));
    cJSON *r;
    int st = cc->by_tcp ? http_post(cc->http, sid, req, &r) : ndjson_post(cc->tcp, req, &r);
    cJSON_free(req);
    const cJSON *res = cJSON_GetObjectItem(r, "result");
    if (st == 200 && res != NULL) {
        cc->reads++;
        char *text = cJSON_PrintUnformatted(res);
        char want[64];
        snprintf(want, sizeof want, "\"name\":\"q%s\"", tag);
        if (strstr(text, want) == NULL && cc->stale_reads++ == 0)
            snprintf(cc->first_stale, sizeof cc->first_stale, "session %s without q%s", sid, tag);
        cJSON_free(text);
    } else if (st == 200 && getenv("MDAE_CLUSTER_DEBUG")) {
        char *t = cJSON_PrintUnformatted(r);
        fprintf(stderr, "read of %s: %s\n", sid, t);
        cJSON_free(t);
    }
    cJSON_Delete(r);
}

static void *chaos_client_run(void *arg)
{
    chaos_client *cc = arg;
    for (int n = 1; t_now_ms() < cc->until; n++) {
        int k = (int)(rand_r(&cc->seed) % CHAOS_SESSIONS);
        char tag[32];
        snprintf(tag, sizeof tag, "%d_%d", cc->client, n);
        char *req = edit_request(cc->ids[k], tag);
        cJSON *r;
        int st = cc->by_tcp ? ndjson_post(cc->tcp, req, &r) : http_post(cc->http, cc->ids[k], req, &r);
        cJSON_free(req);
        cc->attempts++;
        const cJSON *res = cJSON_GetObjectItem(r, "result");
        const cJSON *v = cJSON_GetObjectItem(res, "version");
        if (st == 200 && cJSON_IsNumber(v)) {
            if (cc->n_acks == cc->cap_acks) {
                cc->cap_acks = cc->cap_acks * 2 + 64;
                cc->acks = realloc(cc->acks, cc->cap_acks * sizeof *cc->acks);
            }
            cc->acks[cc->n_acks++] = (acked){k, n, (long)v->valuedouble};
            if (rand_r(&cc->seed) % 4 == 0)
                check_read(cc, cc->ids[k], tag);
        } else if (st == 200) {
            int code = error_code(r);
            const char *msg = error_message(r);
            char *all = cJSON_PrintUnformatted(r);
            if (code == -32015) {
                cc->conflicts++;
            } else if (code == -32014) {
                cc->notsaved++;
            } else if (msg != NULL && strstr(msg, "no such session") != NULL) {
                if (cc->no_such++ == 0)
                    snprintf(cc->first_no_such, sizeof cc->first_no_such, "%s", all);
            } else if (cc->other++ == 0) {
                snprintf(cc->first_other, sizeof cc->first_other, "%s", all);
            }
            cJSON_free(all);
            t_sleep_ms(20); /* the database may be restarting: no busy loop */
        } else {
            cc->unavailable++; /* refused, cut, 502/503 while an instance dies */
            t_sleep_ms(50);
        }
        cJSON_Delete(r);
    }
    return NULL;
}

static int chaos_seconds(void)
{
    const char *e = getenv("MDAE_CLUSTER_SECONDS");
    int s = e != NULL ? atoi(e) : 120;
    return s > 0 ? s : 120;
}

Test(srv_cluster, keeps_every_acknowledged_edit_while_instances_die, .timeout = 1500)
{
    cluster cl;
    if (!cluster_start(&cl))
        return;
    const char *e = getenv("MDAE_CLUSTER_SEED");
    unsigned seed = e != NULL ? (unsigned)strtoul(e, NULL, 10) : (unsigned)time(NULL);
    int seconds = chaos_seconds();
    cr_log_info("chaos: %d s, seed %u (MDAE_CLUSTER_SECONDS, MDAE_CLUSTER_SEED)", seconds, seed);
    char *text = t_model("two_equations.mel");
    char *ids[CHAOS_SESSIONS];
    for (int k = 0; k < CHAOS_SESSIONS; k++)
        ids[k] = open_session(cl.http, text);
    chaos_client cc[2];
    memset(cc, 0, sizeof cc);
    uint64_t until = t_now_ms() + (uint64_t)seconds * 1000;
    for (int c = 0; c < 2; c++) {
        cc[c].client = c + 1;
        cc[c].http = cl.http;
        cc[c].tcp = cl.tcp;
        cc[c].by_tcp = c == 1; /* so that two instances often hold one session */
        cc[c].ids = ids;
        cc[c].until = until;
        cc[c].seed = seed + (unsigned)c * 7919u;
        cr_assert_eq(pthread_create(&cc[c].thread, NULL, chaos_client_run, &cc[c]), 0);
    }
    /* Kill an instance or start a dead one again, every 0.5 to 3 s, at
     * random; at least one stays up. */
    unsigned rs = seed;
    int kills = 0;
    bool db_restarted = false;
    uint64_t halfway = until - (uint64_t)seconds * 500;
    while (t_now_ms() + 500 < until) {
        t_sleep_ms(500 + (int)(rand_r(&rs) % 2500));
        if (!db_restarted && t_now_ms() > halfway) {
            /* Once, halfway: the database itself stops for a second (every
             * instance's connection breaks; edits meanwhile are errors). */
            pg_halt(&cl.pg);
            t_sleep_ms(1000);
            cr_assert_eq(pg_resume(&cl.pg), 0, "%s", cl.pg.err);
            PQreset(cl.db);
            db_restarted = true;
            continue;
        }
        int k = (int)(rand_r(&rs) % N_INST);
        int up = 0;
        for (int j = 0; j < N_INST; j++)
            up += cl.alive[j];
        if (cl.alive[k] && up > 1) {
            instance_kill(&cl, k);
            kills++;
        } else if (!cl.alive[k]) {
            instance_start(&cl, k);
        }
    }
    for (int c = 0; c < 2; c++)
        pthread_join(cc[c].thread, NULL);
    for (int k = 0; k < N_INST; k++)
        if (!cl.alive[k])
            instance_start(&cl, k);
    t_sleep_ms(2500); /* conf: rise 2 */
    cr_log_info("chaos: %d kills, the database restarted once", kills);
    for (int c = 0; c < 2; c++)
        cr_log_info("client %d (%s): %d edits tried, %zu acknowledged, %d conflicts,"
                    " %d not saved, %d unavailable, %d other errors %s; %d reads elsewhere",
                    cc[c].client, cc[c].by_tcp ? "NDJSON, any instance" : "HTTP, by session",
                    cc[c].attempts, cc[c].n_acks, cc[c].conflicts, cc[c].notsaved,
                    cc[c].unavailable, cc[c].other, cc[c].first_other, cc[c].reads);
    cr_assert_geq(kills, seconds / 10, "too few kills to mean anything");
    for (int c = 0; c < 2; c++) {
        cr_assert_eq(cc[c].no_such, 0,
                     "client %d: %d replies \"no such session\" for a stored session: %s",
                     cc[c].client, cc[c].no_such, cc[c].first_no_such);
        cr_assert_geq(cc[c].n_acks, (size_t)seconds / 4, "client %d: too few edits acknowledged",
                      cc[c].client);
        cr_assert_eq(cc[c].stale_reads, 0,
                     "client %d: %d of %d reads right after an acknowledged edit missed it: %s",
                     cc[c].client, cc[c].stale_reads, cc[c].reads, cc[c].first_stale);
    }

    /* Every acknowledged edit is in the final text: in the database and
     * through HAProxy (whichever instance serves it). */
    for (int k = 0; k < CHAOS_SESSIONS; k++) {
        long version;
        char *stored = stored_text(&cl, ids[k], &version);
        cJSON *r = call(cl.http, ids[k], true, "session/structure", session_params(ids[k]));
        char *served = cJSON_PrintUnformatted(result_of(r, "session/structure"));
        cJSON_Delete(r);
        long max_acked = 0;
        for (int c = 0; c < 2; c++) {
            for (size_t j = 0; j < cc[c].n_acks; j++) {
                const acked *a = &cc[c].acks[j];
                if (a->session != k)
                    continue;
                char tag[32], name[64];
                snprintf(tag, sizeof tag, "%d_%d", cc[c].client, a->n);
                snprintf(name, sizeof name, "\"name\":\"q%s\"", tag);
                cr_assert(text_declares(stored, tag),
                          "session %s: the edit q%s acknowledged as version %ld is not stored",
                          ids[k], tag, a->version);
                cr_assert(strstr(served, name) != NULL,
                          "session %s: the edit q%s acknowledged as version %ld is not served",
                          ids[k], tag, a->version);
                max_acked = a->version > max_acked ? a->version : max_acked;
            }
        }
        cr_assert_geq(version, max_acked, "session %s: stored version %ld < acknowledged %ld",
                      ids[k], version, max_acked);
        cJSON_free(served);
        free(stored);
    }
    /* No version accepted twice: by the replies of both clients ... */
    for (int c = 0; c < 2; c++)
        for (size_t j = 0; j < cc[c].n_acks; j++)
            for (int d = 0; d < 2; d++)
                for (size_t i = (d == c ? j + 1 : 0); i < cc[d].n_acks; i++)
                    cr_assert(!(cc[c].acks[j].session == cc[d].acks[i].session &&
                                cc[c].acks[j].version == cc[d].acks[i].version),
                              "session %s: version %ld acknowledged twice",
                              ids[cc[c].acks[j].session], cc[c].acks[j].version);
    /* ... and by the database's history of writes. */
    assert_no_version_twice(&cl);

    for (int c = 0; c < 2; c++)
        free(cc[c].acks);
    for (int k = 0; k < CHAOS_SESSIONS; k++)
        free(ids[k]);
    free(text);
    cluster_stop(&cl);
}

/* ---- The database connection ------------------------------------------------------- */

/* One instance on the store: its connection is cut (the server terminates
 * it), then the database stops and comes back. A cut costs nothing (one
 * reconnect, the edit saved); while the database is down an edit is an
 * error and is not applied; once it is back the next edit follows the last
 * saved one. The password of the URL never reaches the log. */
Test(srv_cluster, survives_losing_the_database_connection, .timeout = 300)
{
    cluster cl;
    memset(&cl, 0, sizeof cl);
    if (!pg_available()) {
        cr_skip_test("PostgreSQL is not installed (apt-get install postgresql)");
        return;
    }
    cr_assert_eq(pg_start(&cl.pg), 0, "%s", cl.pg.err);
    char url[sizeof cl.pg.url];
    memcpy(url, cl.pg.url, sizeof url);
    /* trust authentication ignores the password: it is here to be hidden */
    snprintf(cl.pg.url, sizeof cl.pg.url, "postgresql://mdae:sekret-pw-37@/postgres?host=%s",
             cl.pg.dir);
    cl.port[0] = free_port();
    instance_start(&cl, 0);
    memcpy(cl.pg.url, url, sizeof url);
    cl.db = PQconnectdb(cl.pg.url);
    cr_assert_eq(PQstatus(cl.db), CONNECTION_OK, "%s", PQerrorMessage(cl.db));
    int port = cl.port[0];
    char *sid = open_session(port, "x : real;\ne : equation der(x) = 1;\n");

    PGresult *r = db_exec(&cl, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                               " WHERE application_name = 'mdaed'");
    cr_assert_eq(PQntuples(r), 1, "mdaed's connection is not named (application_name)");
    PQclear(r);
    cr_assert_eq(edit(port, sid, "after_cut"), 2);

    PQfinish(cl.db);
    pg_halt(&cl.pg);
    char *req = edit_request(sid, "while_down");
    cJSON *reply;
    cr_assert_eq(http_post(port, sid, req, &reply), 200);
    cJSON_free(req);
    int code = error_code(reply);
    cr_assert(code == -32014 || code == -32008, "an edit with the database down: %s",
              cJSON_PrintUnformatted(reply));
    cJSON_Delete(reply);

    cr_assert_eq(pg_resume(&cl.pg), 0, "%s", cl.pg.err);
    t_sleep_ms(1100); /* srv_store_pg.c: no reconnect within 1 s of a failed one */
    cl.db = PQconnectdb(cl.pg.url);
    cr_assert_eq(PQstatus(cl.db), CONNECTION_OK, "%s", PQerrorMessage(cl.db));
    cr_assert_eq(edit(port, sid, "after_restart"), 3, "the failed edit was counted");
    long version;
    char *text = stored_text(&cl, sid, &version);
    cr_assert_eq(version, 3);
    cr_assert(text_declares(text, "after_cut") && text_declares(text, "after_restart") &&
                  !text_declares(text, "while_down"),
              "%s", text);
    cr_assert(declares(port, sid, "after_restart") && !declares(port, sid, "while_down"));
    free(text);

    char log[160];
    snprintf(log, sizeof log, "%s/mdaed.log", cl.inst[0].dir);
    char *logged = t_read_file(log);
    cr_assert_null(strstr(logged, "sekret-pw-37"), "the password is in the log:\n%s", logged);
    free(logged);
    free(sid);
    cr_expect_eq(srv_stop(&cl.inst[0]), 0, "the instance did not stop cleanly");
    PQfinish(cl.db);
    pg_stop(&cl.pg);
}
