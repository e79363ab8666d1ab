/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_store_pg.c -- what the PostgreSQL session store costs
 * (issue 37 "Speed": a persisted edit's commit <= 10 ms on PostgreSQL on
 * the same machine). Starts a private PostgreSQL as the cluster test does
 * (tests/support/pg_proc.h: Unix socket, fsync on, synchronous_commit on)
 * and one mdaed on it (--store URL), then prints:
 *
 *   1. commit: the backend's write, alone: the conditional UPDATE of a
 *      session row (id, owner_key, version) with a 1 KB text, as
 *      srv_store_pg.c prepares it, timed from the client: median and p99
 *      of --edits writes;
 *   2. check: the version read done before every request on a session in
 *      a cluster (srv_store_pg.c's "mdae_ver"): median and p99;
 *   3. edit end to end: session/edit of a persisted session (the commit
 *      before the reply) against the same edit of a session that is not
 *      persisted, over NDJSON on loopback: medians, and the difference,
 *      which is what persistence adds to an edit.
 *
 * Usage: bench_store_pg [--mdaed PATH] [--edits 300]
 * Needs Debian's postgresql (scripts/deps.sh). Results go to
 * tests/bench/README.md.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pg_proc.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)(p * (n - 1) + 0.5);
    return v[k];
}

static pg_proc pg;
static pid_t mdaed_pid;
static char mdaed_dir[64];

static void cleanup(void)
{
    if (mdaed_pid > 0) {
        kill(mdaed_pid, SIGKILL);
        waitpid(mdaed_pid, NULL, 0);
    }
    if (mdaed_dir[0] != '\0') {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", mdaed_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", mdaed_dir);
    }
    pg_stop(&pg);
}

static void die(const char *msg)
{
    fprintf(stderr, "bench_store_pg: %s\n", msg);
    cleanup();
    exit(1);
}

/* mdaed on 127.0.0.1 (ephemeral port) with the store; returns the port. */
static int start_mdaed(const char *exe)
{
    snprintf(mdaed_dir, sizeof mdaed_dir, "/tmp/bench-store-pg-XXXXXX");
    if (mkdtemp(mdaed_dir) == NULL)
        die("mkdtemp");
    char conf[128], port_file[128];
    snprintf(conf, sizeof conf, "%s/mdaed.json", mdaed_dir);
    snprintf(port_file, sizeof port_file, "%s/port", mdaed_dir);
    FILE *f = fopen(conf, "w");
    if (f == NULL)
        die("cannot write the configuration");
    fprintf(f,
            "{\"listen\": {\"tcp\": \"127.0.0.1:0\"}, \"log_level\": \"warn\","
            " \"store\": {\"url\": \"%s\"}, \"limits\": {\"worker_idle_ms\": 600000}}\n",
            pg.url);
    fclose(f);
    mdaed_pid = fork();
    if (mdaed_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execl(exe, exe, "--config", conf, "--port-file", port_file, (char *)NULL);
        _exit(127);
    }
    for (int k = 0; k < 2000; k++) {
        FILE *pf = fopen(port_file, "r");
        int port = 0;
        if (pf != NULL) {
            int ok = fscanf(pf, "%d", &port);
            fclose(pf);
            if (ok == 1 && port > 0)
                return port;
        }
        if (waitpid(mdaed_pid, NULL, WNOHANG) == mdaed_pid) {
            mdaed_pid = 0;
            die("mdaed exited at startup");
        }
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    die("mdaed did not start");
    return 0;
}

/* ---- NDJSON on one connection ---------------------------------------------------- */

static int conn_fd;
static char rbuf[1 << 20];
static size_t rlen;

static void send_line(const char *line)
{
    size_t n = strlen(line), off = 0;
    while (off < n) {
        ssize_t w = send(conn_fd, line + off, n - off, MSG_NOSIGNAL);
        if (w <= 0)
            die("send");
        off += (size_t)w;
    }
}

/* The next reply line (in rbuf, NUL-terminated; consumed by the next call). */
static char *read_line(void)
{
    static size_t consumed;
    memmove(rbuf, rbuf + consumed, rlen - consumed);
    rlen -= consumed;
    consumed = 0;
    for (;;) {
        char *nl = memchr(rbuf, '\n', rlen);
        if (nl != NULL) {
            *nl = '\0';
            consumed = (size_t)(nl - rbuf) + 1;
            return rbuf;
        }
        struct pollfd p = {conn_fd, POLLIN, 0};
        if (poll(&p, 1, 60000) <= 0)
            die("no reply within 60 s");
        ssize_t n = recv(conn_fd, rbuf + rlen, sizeof rbuf - rlen - 1, 0);
        if (n <= 0)
            die("connection closed");
        rlen += (size_t)n;
    }
}

static char *request(const char *line)
{
    send_line(line);
    char *r = read_line();
    if (strstr(r, "\"error\"") != NULL) {
        fprintf(stderr, "bench_store_pg: %s\n", r);
        die("error reply");
    }
    return r;
}

static void open_session(const char *id, bool persist)
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/open\",\"params\":{\"session\":"
             "\"%s\",\"persist\":%s,\"text\":\"x : real;\\ne : equation der(x) = 1;\\n\"}}\n",
             id, persist ? "true" : "false");
    request(line);
}

/* n edits of id, each replacing the first line's comment; the median in ms. */
static double edits(const char *id, int n, double *times)
{
    for (int k = 0; k < n; k++) {
        char line[512];
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/edit\",\"params\":{"
                 "\"session\":\"%s\",\"edits\":[{\"range\":{\"start\":{\"line\":0,"
                 "\"character\":0},\"end\":{\"line\":0,\"character\":0}},\"text\":\"// %d\\n\"}]}}\n",
                 id, k);
        double t0 = now_ms();
        request(line);
        times[k] = now_ms() - t0;
    }
    return pct(times, n, 0.5);
}

int main(int argc, char **argv)
{
    const char *exe = MDAE_BINARY_DIR "/server/mdaed";
    int n = 300;
    for (int k = 1; k + 1 < argc; k += 2) {
        if (strcmp(argv[k], "--mdaed") == 0)
            exe = argv[k + 1];
        else if (strcmp(argv[k], "--edits") == 0)
            n = atoi(argv[k + 1]);
    }
    if (n < 10)
        n = 10;
    if (!pg_available()) {
        fprintf(stderr, "bench_store_pg: PostgreSQL is not installed (apt-get install postgresql)\n");
        return 77;
    }
    if (pg_start(&pg) != 0)
        die(pg.err);
    int port = start_mdaed(exe);
    conn_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(conn_fd, (struct sockaddr *)&a, sizeof a) != 0)
        die("connect");
    int one = 1;
    setsockopt(conn_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    open_session("bench-persisted", true);
    open_session("bench-volatile", false);

    double *t = malloc(sizeof *t * (size_t)n);
    /* 1, 2: the backend's statements, alone, on their own connection. */
    PGconn *c = PQconnectdb(pg.url);
    if (PQstatus(c) != CONNECTION_OK)
        die(PQerrorMessage(c));
    PQclear(PQexec(c, "SET synchronous_commit = on"));
    PGresult *r = PQprepare(c, "upd",
                            "UPDATE sessions SET text = $3, version = $4, updated = now()"
                            " WHERE id = $1 AND owner_key = $2 AND version = $5",
                            5, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        die(PQerrorMessage(c));
    PQclear(r);
    r = PQprepare(c, "ver", "SELECT version FROM sessions WHERE id = $1 AND owner_key = $2", 2,
                  NULL);
    PQclear(r);
    char text[1024];
    memset(text, 'x', sizeof text);
    const char *id = "bench-commit";
    {
        const char *v[2] = {id, "1"};
        PGresult *ins = PQexecParams(c,
                                     "INSERT INTO sessions (id, text, modelica, version)"
                                     " VALUES ($1, '', false, $2::bigint)",
                                     2, NULL, v, NULL, NULL, 0);
        if (PQresultStatus(ins) != PGRES_COMMAND_OK)
            die(PQerrorMessage(c));
        PQclear(ins);
    }
    for (int k = 0; k < n; k++) {
        char ver[24], exp[24];
        snprintf(ver, sizeof ver, "%d", k + 2);
        snprintf(exp, sizeof exp, "%d", k + 1);
        const char *v[5] = {id, "", text, ver, exp};
        int lens[5] = {0, 0, (int)sizeof text, 0, 0};
        int fmts[5] = {0, 0, 1, 0, 0};
        double t0 = now_ms();
        PGresult *u = PQexecPrepared(c, "upd", 5, v, lens, fmts, 0);
        t[k] = now_ms() - t0;
        if (PQresultStatus(u) != PGRES_COMMAND_OK || strcmp(PQcmdTuples(u), "1") != 0)
            die("the conditional update did not write its row");
        PQclear(u);
    }
    double c50 = pct(t, n, 0.5), c99 = pct(t, n, 0.99);
    for (int k = 0; k < n; k++) {
        const char *v[2] = {id, ""};
        double t0 = now_ms();
        PGresult *q = PQexecPrepared(c, "ver", 2, v, NULL, NULL, 1);
        t[k] = now_ms() - t0;
        if (PQntuples(q) != 1)
            die("the version read found no row");
        PQclear(q);
    }
    double v50 = pct(t, n, 0.5), v99 = pct(t, n, 0.99);
    PQfinish(c);

    /* 3: edits end to end, alternated in blocks of ten. */
    double *tp = malloc(sizeof *tp * (size_t)n), *tv = malloc(sizeof *tv * (size_t)n);
    edits("bench-persisted", 10, tp); /* warm the workers */
    edits("bench-volatile", 10, tv);
    double *blk = malloc(sizeof *blk * 10);
    for (int k = 0; k + 10 <= n; k += 10) {
        edits("bench-persisted", 10, blk);
        memcpy(tp + k, blk, sizeof *blk * 10);
        edits("bench-volatile", 10, blk);
        memcpy(tv + k, blk, sizeof *blk * 10);
    }
    int m = n / 10 * 10;
    double p50 = pct(tp, m, 0.5), p99 = pct(tp, m, 0.99);
    double o50 = pct(tv, m, 0.5), o99 = pct(tv, m, 0.99);
    printf("PostgreSQL store (%s, Unix socket, fsync on, synchronous_commit on), %d of each:\n",
           pg.bin, n);
    printf("  1. commit of a persisted edit (conditional UPDATE, 1 KB):  median %.3f ms, p99 %.3f ms"
           " (target <= 10 ms)\n",
           c50, c99);
    printf("  2. version check before a request (indexed SELECT):       median %.3f ms, p99 %.3f ms\n",
           v50, v99);
    printf("  3. session/edit end to end, persisted:                    median %.3f ms, p99 %.3f ms\n",
           p50, p99);
    printf("     session/edit end to end, not persisted:                median %.3f ms, p99 %.3f ms\n",
           o50, o99);
    printf("     what persistence adds to an edit (medians):            %.3f ms\n", p50 - o50);
    free(t);
    free(tp);
    free(tv);
    free(blk);
    close(conn_fd);
    cleanup();
    return 0;
}
