/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/server/test_srv_cluster.c -- two mdaed instances behind HAProxy with
 * the shipped conf/haproxy.cfg (issue 17, "Scale-out"): 100 sessions spread
 * over both, every request routed to its session's instance (by the
 * X-Mdae-Session header or by the id in the body), client-named sessions
 * hashed to one instance; one instance killed: its sessions get HTTP 503,
 * are opened again on the other, and the other's sessions never notice.
 * NDJSON over HAProxy's TCP frontend goes by connection.
 *
 * Needs Debian's haproxy (scripts/deps.sh installs it with the test
 * dependencies); without it the test fails saying so.
 */
#include "srv_test.h"

#include <signal.h>
#include <sys/wait.h>

#define HAPROXY "/usr/sbin/haproxy"
#define SESSIONS 100

/* A free loopback port (bound then released: HAProxy binds it next). */
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

static int connect_port(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

typedef struct cluster {
    srv_proc a, b;
    pid_t haproxy;
    int http, tcp;
} cluster;

static void cluster_start(cluster *cl)
{
    cr_assert_eq(access(HAPROXY, X_OK), 0, HAPROXY " is missing: apt-get install haproxy");
    /* HAProxy passes the client's Host (here "mdae"): the instances must
     * accept it (http.allowed_hosts, issue 37 item 2). */
    srv_start(&cl->a, "", "\"instance\": \"a\", \"http\": {\"allowed_hosts\": [\"mdae\"]}");
    srv_start(&cl->b, "", "\"instance\": \"b\", \"http\": {\"allowed_hosts\": [\"mdae\"]}");
    cl->http = free_port();
    cl->tcp = free_port();
    char v[64];
    snprintf(v, sizeof v, "127.0.0.1:%d", cl->http);
    setenv("MDAE_CLUSTER_HTTP", v, 1);
    snprintf(v, sizeof v, "127.0.0.1:%d", cl->tcp);
    setenv("MDAE_CLUSTER_TCP", v, 1);
    snprintf(v, sizeof v, "127.0.0.1:%d", cl->a.port);
    setenv("MDAE_A", v, 1);
    snprintf(v, sizeof v, "127.0.0.1:%d", cl->b.port);
    setenv("MDAE_B", v, 1);
    cl->haproxy = fork();
    cr_assert_geq(cl->haproxy, 0);
    if (cl->haproxy == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        char log[160];
        snprintf(log, sizeof log, "%s/haproxy.log", cl->b.dir); /* its warnings */
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
        int fd = connect_port(cl->http);
        if (fd >= 0) {
            close(fd);
            break;
        }
        cr_assert_eq(waitpid(cl->haproxy, NULL, WNOHANG), 0, "haproxy exited at startup");
        cr_assert_lt(t_now_ms(), end, "haproxy did not listen");
        t_sleep_ms(20);
    }
    t_sleep_ms(1500); /* the first health checks (conf: inter 1s, rise 2) */
}

static void cluster_stop(cluster *cl)
{
    kill(cl->haproxy, SIGTERM);
    waitpid(cl->haproxy, NULL, 0);
    srv_stop(&cl->b);
}

/* Decode a chunked body in place; returns it (NUL-terminated). */
static char *dechunk(char *body)
{
    char *in = body, *out = body;
    for (;;) {
        char *end;
        unsigned long n = strtoul(in, &end, 16);
        char *line = strstr(end, "\r\n");
        if (line == NULL || n == 0)
            break;
        in = line + 2;
        memmove(out, in, n);
        out += n;
        in += n + 2;
    }
    *out = '\0';
    return body;
}

/* POST body to HAProxy's HTTP frontend, with X-Mdae-Session: sid unless
 * sid is NULL. Returns the HTTP status; *json gets the JSON-RPC reply (the
 * last JSON value of a 200 body), or NULL. */
static int post(const cluster *cl, const char *sid, const char *body, cJSON **json)
{
    int fd = connect_port(cl->http);
    cr_assert_geq(fd, 0);
    client c;
    cl_open_fd(&c, fd);
    char head[512];
    snprintf(head, sizeof head,
             "POST /rpc HTTP/1.1\r\nHost: mdae\r\nContent-Type: application/json\r\n"
             "Connection: close\r\n%s%s%sContent-Length: %zu\r\n\r\n",
             sid ? "X-Mdae-Session: " : "", sid ? sid : "", sid ? "\r\n" : "", strlen(body));
    cl_send(&c, head);
    cl_send(&c, body);
    cl_read_all(&c);
    int status = 0;
    cr_assert_eq(sscanf(c.buf, "HTTP/1.%*d %d", &status), 1, "no HTTP reply: %s", c.buf);
    *json = NULL;
    char *b = strstr(c.buf, "\r\n\r\n");
    if (status == 200 && b != NULL) {
        bool chunked = strstr(c.buf, "chunked") != NULL && strstr(c.buf, "chunked") < b;
        char *text = chunked ? dechunk(b + 4) : b + 4;
        /* Streamed notifications come first; the reply is the last line. */
        char *last = text, *nl;
        while ((nl = strchr(last, '\n')) != NULL && nl[1] != '\0')
            last = nl + 1;
        *json = cJSON_Parse(last);
    }
    cl_close(&c);
    return status;
}

static char *rpc(int id, const char *method, cJSON *params)
{
    return t_request(id, method, params);
}

/* The owner key of the named session: over HTTP a session is persistent,
 * and a persistent session's chosen id needs one (issue 37). */
#define OWNER "cluster-test-owner-key-0123456789"

static cJSON *open_params(const char *text, const char *name)
{
    cJSON *p = cJSON_CreateObject();
    if (name != NULL) {
        cJSON_AddStringToObject(p, "session", name);
        cJSON_AddStringToObject(p, "owner", OWNER);
    }
    cJSON_AddStringToObject(p, "text", text);
    return p;
}

/* session/open through the proxy: the new id (malloc'd). */
static char *open_session(const cluster *cl, const char *text, const char *name)
{
    char *req = rpc(1, "session/open", open_params(text, name));
    cJSON *r;
    int st = post(cl, name, req, &r);
    cJSON_free(req);
    cr_assert_eq(st, 200);
    cJSON *sid = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "session");
    cr_assert(cJSON_IsString(sid), "%s", cJSON_PrintUnformatted(r));
    char *id = strdup(sid->valuestring);
    cJSON_Delete(r);
    return id;
}

/* session/analyze through the proxy, by header or by body; the HTTP status,
 * *result (owned) on success. */
static int analyze(const cluster *cl, const char *sid, bool by_header, cJSON **result)
{
    cJSON *params = session_params(sid);
    if (strcmp(sid, "my-model") == 0) /* the named one (open_params) */
        cJSON_AddStringToObject(params, "owner", OWNER);
    char *req = rpc(2, "session/analyze", params);
    cJSON *r;
    int st = post(cl, by_header ? sid : NULL, req, &r);
    cJSON_free(req);
    *result = r ? cJSON_DetachItemFromObject(r, "result") : NULL;
    cJSON_Delete(r);
    return st;
}

Test(srv_cluster, routes_sessions_to_their_instance_and_survives_losing_one, .timeout = 300)
{
    cluster cl;
    cluster_start(&cl);
    char *text = t_model("rldc2.mel");
    char *ids[SESSIONS];
    int on_a = 0;
    for (int k = 0; k < SESSIONS; k++) {
        ids[k] = open_session(&cl, text, NULL);
        cr_assert(strncmp(ids[k], "a-", 2) == 0 || strncmp(ids[k], "b-", 2) == 0, "%s", ids[k]);
        on_a += ids[k][0] == 'a';
    }
    cr_assert(on_a > 0 && on_a < SESSIONS, "spread: %d of %d on a", on_a, SESSIONS);
    cJSON *want = NULL;
    for (int k = 0; k < SESSIONS; k++) { /* an unknown id would be an error */
        cJSON *res;
        cr_assert_eq(analyze(&cl, ids[k], k % 2 == 0, &res), 200);
        cr_assert_not_null(res, "session %s routed to the wrong instance", ids[k]);
        if (want == NULL)
            want = res;
        else {
            cr_assert(cJSON_Compare(want, res, true));
            cJSON_Delete(res);
        }
    }
    char *named = open_session(&cl, text, "my-model");
    cr_assert_str_eq(named, "my-model");
    for (int k = 0; k < 5; k++) { /* the hash sends it to the same instance */
        cJSON *res;
        cr_assert_eq(analyze(&cl, named, true, &res), 200);
        cr_assert_not_null(res, "named session lost");
        cJSON_Delete(res);
    }

    kill(cl.a.pid, SIGKILL); /* instance a dies */
    waitpid(cl.a.pid, NULL, 0);
    t_sleep_ms(1500); /* one failed health check (conf: fall 1) */
    int lost = 0;
    for (int k = 0; k < SESSIONS; k++) {
        cJSON *res;
        int st = analyze(&cl, ids[k], k % 2 == 1, &res);
        if (ids[k][0] == 'a') {
            cr_assert_eq(st, 503, "session %s of the dead instance: HTTP %d", ids[k], st);
            free(ids[k]); /* the client opens it again: on b */
            ids[k] = open_session(&cl, text, NULL);
            cr_assert_eq(strncmp(ids[k], "b-", 2), 0, "%s", ids[k]);
            lost++;
            st = analyze(&cl, ids[k], true, &res);
        }
        cr_assert_eq(st, 200);
        cr_assert_not_null(res);
        cr_assert(cJSON_Compare(want, res, true));
        cJSON_Delete(res);
    }
    cr_assert_eq(lost, on_a);
    /* NDJSON over the TCP frontend, by connection: to the live instance. */
    int fd = connect_port(cl.tcp);
    cr_assert_geq(fd, 0);
    client c;
    cl_open_fd(&c, fd);
    char *sid = cl_open(&c, text);
    cr_assert_eq(strncmp(sid, "b-", 2), 0, "%s", sid);
    cJSON *r = cl_request(&c, 9, "session/analyze", session_params(sid));
    cr_assert(cJSON_Compare(want, cJSON_GetObjectItem(r, "result"), true));
    cJSON_Delete(r);
    cl_close(&c);
    free(sid);

    for (int k = 0; k < SESSIONS; k++)
        free(ids[k]);
    free(named);
    cJSON_Delete(want);
    free(text);
    mdaed_remove_dir(cl.a.dir); /* a was killed: only its directory is left */
    cluster_stop(&cl);
}
