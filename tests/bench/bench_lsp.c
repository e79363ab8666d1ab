/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/bench/bench_lsp.c -- the editor's questions on a large model (issue
 * 15, "Speed"): `mdaed --stdio` as an editor starts it, the Westinghouse
 * brake at N = 100 opened (didOpen) and checked (its publishDiagnostics
 * awaited: the analysis is done), then each question asked --reps times in
 * turn, one at a time, and the median, 99th percentile and worst latency
 * printed (send of the request to its whole response read): hover on an
 * unknown and on a mode variable, documentSymbol, definition, references
 * and codeLens. Target: hover, symbols and definition within 5 ms (they
 * read the kept result; nothing is analysed again). Printed, not asserted.
 *
 * Usage: bench_lsp [--mdaed PATH] [--n 100] [--reps 200]
 * Plain POSIX pipes; a watchdog (alarm, 300 s) ends a hung run.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t server = -1;
static int to_srv = -1, from_srv = -1;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *msg)
{
    fprintf(stderr, "bench_lsp: %s\n", msg);
    if (server > 0)
        kill(server, SIGKILL);
    exit(1);
}

static void on_alarm(int sig)
{
    (void)sig;
    die("watchdog: no answer in time");
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die("cannot read the model");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s == NULL || fread(s, 1, (size_t)n, f) != (size_t)n)
        die("cannot read the model");
    s[n] = '\0';
    fclose(f);
    return s;
}

static void send_msg(const char *body)
{
    char hdr[64];
    int h = snprintf(hdr, sizeof hdr, "Content-Length: %zu\r\n\r\n", strlen(body));
    if (write(to_srv, hdr, (size_t)h) != h ||
        write(to_srv, body, strlen(body)) != (ssize_t)strlen(body))
        die("write to mdaed failed");
}

/* One whole message (owned). */
static char *recv_msg(void)
{
    char hdr[256];
    size_t n = 0;
    while (n < 4 || memcmp(hdr + n - 4, "\r\n\r\n", 4) != 0) {
        if (n + 1 >= sizeof hdr || read(from_srv, hdr + n, 1) != 1)
            die("mdaed closed its output");
        n++;
    }
    hdr[n] = '\0';
    size_t len = 0;
    if (sscanf(hdr, "Content-Length: %zu", &len) != 1)
        die("bad header");
    char *body = malloc(len + 1);
    for (size_t got = 0; got < len;) {
        ssize_t k = read(from_srv, body + got, len - got);
        if (k <= 0)
            die("mdaed closed its output");
        got += (size_t)k;
    }
    body[len] = '\0';
    return body;
}

/* Wait for the response with this id (notifications are skipped). */
static char *wait_id(int id)
{
    char want[32];
    snprintf(want, sizeof want, "\"id\":%d,", id);
    for (;;) {
        char *m = recv_msg();
        if (strstr(m, want) != NULL && strstr(m, "\"method\"") == NULL)
            return m;
        free(m);
    }
}

static void start(const char *mdaed)
{
    int in[2], out[2];
    if (pipe(in) < 0 || pipe(out) < 0)
        die("pipe");
    server = fork();
    if (server == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl(mdaed, mdaed, "--stdio", "--log-level", "error", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_srv = in[1];
    from_srv = out[0];
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int next_id = 10;

/* Ask `method` with params reps times: median, p99 and worst in ms, bytes. */
static void row(const char *what, const char *method, const char *params, int reps)
{
    uint64_t *t = malloc((size_t)reps * sizeof *t);
    size_t bytes = 0;
    for (int r = 0; r < reps; r++) {
        char *msg = NULL;
        int id = next_id++;
        if (asprintf(&msg, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":%s}", id,
                     method, params) < 0)
            die("out of memory");
        uint64_t t0 = now_ns();
        send_msg(msg);
        char *ans = wait_id(id);
        t[r] = now_ns() - t0;
        if (strstr(ans, "\"error\"") != NULL)
            die(ans);
        bytes = strlen(ans);
        free(ans);
        free(msg);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_u64);
    printf("| %-28s | %8.3f | %8.3f | %8.3f | %9zu |\n", what, (double)t[reps / 2] / 1e6,
           (double)t[(size_t)reps * 99 / 100] / 1e6, (double)t[reps - 1] / 1e6, bytes);
    free(t);
}

static void sibling(char *out, size_t n, const char *rel)
{
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, 3800);
    if (k <= 0) {
        snprintf(out, n, "%s", rel + 3);
        return;
    }
    self[k] = '\0';
    char *slash = strrchr(self, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(out, n, "%.3800s/%s", self, rel);
}

/* The model text with its `N : integer = 3;` set to n (JSON-escaped). */
static char *brake_json(int n)
{
    char *text = read_file(MDAE_SOURCE_DIR "/tests/models/brake.mel");
    char *at = strstr(text, "N : integer = 3;");
    if (at == NULL)
        die("brake.mel has no `N : integer = 3;`");
    size_t cap = strlen(text) * 2 + 64, k = 0;
    char *j = malloc(cap);
    for (const char *p = text; *p; p++) {
        if (p == at) {
            k += (size_t)sprintf(j + k, "N : integer = %d;", n);
            p += strlen("N : integer = 3;") - 1;
            continue;
        }
        if (*p == '"' || *p == '\\')
            j[k++] = '\\', j[k++] = *p;
        else if (*p == '\n')
            j[k++] = '\\', j[k++] = 'n';
        else
            j[k++] = *p;
    }
    j[k] = '\0';
    free(text);
    return j;
}

int main(int argc, char **argv)
{
    char mdaed[PATH_MAX];
    sibling(mdaed, sizeof mdaed, "../server/mdaed");
    int n = 100, reps = 200;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--mdaed") == 0)
            snprintf(mdaed, sizeof mdaed, "%s", argv[i + 1]);
        else if (strcmp(argv[i], "--n") == 0)
            n = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
    }
    if (n < 1 || reps < 1)
        die("usage: bench_lsp [--mdaed PATH] [--n 100] [--reps 200]");
    signal(SIGALRM, on_alarm);
    alarm(300);
    start(mdaed);
    send_msg("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    free(wait_id(1));
    send_msg("{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
    char *text = brake_json(n), *open = NULL;
    if (asprintf(&open,
                 "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{"
                 "\"textDocument\":{\"uri\":\"file:///brake.mel\",\"languageId\":\"mel\","
                 "\"version\":1,\"text\":\"%s\"}}}",
                 text) < 0)
        die("out of memory");
    uint64_t t0 = now_ns();
    send_msg(open);
    for (;;) { /* the check's diagnostics: the analysis is done and kept */
        char *m = recv_msg();
        int done = strstr(m, "publishDiagnostics") != NULL;
        free(m);
        if (done)
            break;
    }
    printf("brake N = %d: didOpen to publishDiagnostics %.3f s; %d repetitions per row\n\n", n,
           (double)(now_ns() - t0) / 1e9, reps);
    printf("| %-28s | %8s | %8s | %8s | %9s |\n", "question", "p50 ms", "p99 ms", "max ms",
           "bytes");
    printf("|------------------------------|----------|----------|----------|-----------|\n");
    /* brake.mel, 0-based lines: 67 `  me1[i] : equation fb[i] - ...`
     * (col 2: the label; col 22: fb), 101 `  open[i] : boolean = ...` */
    const char *doc = "{\"textDocument\":{\"uri\":\"file:///brake.mel\"}";
    char p_eq[200], p_var[200], p_mode[200], p_refs[240];
    snprintf(p_eq, sizeof p_eq, "%s,\"position\":{\"line\":67,\"character\":3}}", doc);
    snprintf(p_var, sizeof p_var, "%s,\"position\":{\"line\":67,\"character\":22}}", doc);
    snprintf(p_mode, sizeof p_mode, "%s,\"position\":{\"line\":101,\"character\":3}}", doc);
    snprintf(p_refs, sizeof p_refs,
             "%s,\"position\":{\"line\":67,\"character\":22},\"context\":"
             "{\"includeDeclaration\":true}}",
             doc);
    char p_doc[120];
    snprintf(p_doc, sizeof p_doc, "%s}", doc);
    row("hover: equation me1", "textDocument/hover", p_eq, reps);
    row("hover: unknown fb", "textDocument/hover", p_var, reps);
    row("hover: mode variable open", "textDocument/hover", p_mode, reps);
    row("documentSymbol", "textDocument/documentSymbol", p_doc, reps);
    row("definition of fb", "textDocument/definition", p_var, reps);
    row("references of fb", "textDocument/references", p_refs, reps);
    row("codeLens", "textDocument/codeLens", p_doc, reps);
    send_msg("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}");
    free(wait_id(2));
    send_msg("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    int st = 0;
    waitpid(server, &st, 0);
    free(open);
    free(text);
    return 0;
}
