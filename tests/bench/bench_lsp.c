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
 * Then the edits (issue 36 item 4, debounce 0, every check on): --edits
 * full-text didChange messages, each giving px[i] a der(x) term in another
 * railcar, timed from the write of the change to the first publication of
 * its version (the analysis's diagnostics; target 20 ms at N = 100) and to
 * the complete one (with the mode-change check's); the same while typing
 * (each edit sent as soon as the previous version's first publication is
 * in, cancelling its mode-change check), with the mode-change check off,
 * and on the singular brake (`extra : equation t = 1;` after plug2; target
 * 40 ms), those stopped after --singular-s seconds (0: not run). With
 * --before PATH, the edit rows again against another mdaed (the same run:
 * the figure before a change).
 *
 * Usage: bench_lsp [--mdaed PATH] [--before PATH] [--n 100] [--reps 200]
 *                  [--edits 20] [--singular-s 120]
 * Plain POSIX pipes; a watchdog (alarm) ends a hung run.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
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

/* The brake's text with its `N : integer = 3;` set to n, JSON-escaped;
 * extra: with `extra : equation t = 1;` after plug2 (singular in every
 * mode, issue 36); edit_at > 0: px[edit_at] given a der(x) term (bench_edit's
 * edit (a), one railcar's structure changed). */
static char *brake_variant(int n, bool extra, int edit_at)
{
    static const char n3[] = "N : integer = 3;", px[] = "px[i] : equation b[i] = K*x[i];",
                      plug2[] = "plug2 : equation fb[N + 1] = 0;";
    char *text = read_file(MDAE_SOURCE_DIR "/tests/models/brake.mel");
    char *at_n = strstr(text, n3), *at_px = strstr(text, px), *at_plug2 = strstr(text, plug2);
    if (at_n == NULL || at_px == NULL || at_plug2 == NULL)
        die("brake.mel has no `N : integer = 3;`, px or plug2");
    size_t cap = strlen(text) * 2 + 256, k = 0;
    char *j = malloc(cap);
    for (const char *p = text; *p; p++) {
        const char *put = NULL;
        char buf[160];
        if (p == at_n) {
            snprintf(buf, sizeof buf, "N : integer = %d;", n);
            put = buf, p += strlen(n3) - 1;
        } else if (p == at_px && edit_at > 0) {
            snprintf(buf, sizeof buf,
                     "px[i] : equation b[i] = K*x[i] + (if i == %d then der(x[i]) else 0);",
                     edit_at);
            put = buf, p += strlen(px) - 1;
        } else if (p == at_plug2 && extra) {
            snprintf(buf, sizeof buf, "%s\\nextra : equation t = 1;", plug2);
            put = buf, p += strlen(plug2) - 1;
        }
        if (put != NULL) {
            k += (size_t)sprintf(j + k, "%s", put);
        } else if (*p == '"' || *p == '\\') {
            j[k++] = '\\', j[k++] = *p;
        } else if (*p == '\n') {
            j[k++] = '\\', j[k++] = 'n';
        } else {
            j[k++] = *p;
        }
    }
    j[k] = '\0';
    free(text);
    return j;
}

static char *brake_json(int n) { return brake_variant(n, false, 0); }

static double ms_since(uint64_t t0) { return (double)(now_ns() - t0) / 1e6; }

/* Read until a publishDiagnostics for uri at version v: *first gets the
 * time of the first (ms since t0), *complete that of the second (the
 * brake's check publishes twice: the analysis's, then the whole set), or
 * -1 when want_complete is false. */
static void await_publications(const char *uri, int v, uint64_t t0, bool want_complete,
                               double *first, double *complete)
{
    char ver[64];
    snprintf(ver, sizeof ver, "\"uri\":\"%s\",\"version\":%d,", uri, v);
    *first = *complete = -1;
    int seen = 0; /* the complete one is the second (a first carries the
                     mode changes' of the version before, issue 40 item 5) */
    while (*first < 0 || (want_complete && *complete < 0)) {
        char *m = recv_msg();
        if (strstr(m, "publishDiagnostics") != NULL && strstr(m, ver) != NULL) {
            if (*first < 0)
                *first = ms_since(t0);
            if (++seen == 2)
                *complete = ms_since(t0);
        }
        free(m);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median and worst of t[0..n). */
static void med_max(double *t, int n, double *med, double *max)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *med = t[n / 2];
    *max = t[n - 1];
}

static int doc_version = 1;
static int edits_made; /* edit rows' edits so far: each edits another railcar */
static void questions(int reps);

/* Replace uri's text by text (full-text didChange, the next version). */
static void change(const char *uri, const char *text)
{
    char *msg = NULL;
    if (asprintf(&msg,
                 "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{"
                 "\"textDocument\":{\"uri\":\"%s\",\"version\":%d},\"contentChanges\":"
                 "[{\"text\":\"%s\"}]}}",
                 uri, ++doc_version, text) < 0)
        die("out of memory");
    send_msg(msg);
    free(msg);
}

/* The edit rows (issue 36 item 4): `reps` edits of the brake at N = n, each
 * px[10 + k] with k counting every edit of the run (a text the worker has
 * not seen: its session keeps the analyses of the texts it saw, and a row
 * repeating an earlier row's texts measured those hits), the next sent once the
 * previous version's diagnostics are complete; stops early past budget_s
 * seconds. Prints edit -> first publication and, with mode changes,
 * edit -> the complete one (the analysis's diagnostics and the mode
 * changes': what the only publication carried before the split). */
static void edit_row(const char *what, int n, bool extra, bool modechanges, int reps,
                     double budget_s, bool overlap)
{
    static const char *uri = "file:///brake.mel";
    double *first = malloc((size_t)reps * sizeof *first);
    double *complete = malloc((size_t)reps * sizeof *complete);
    uint64_t start = now_ns();
    int done = 0;
    for (int r = 0; r < reps; r++) {
        char *text = brake_variant(n, extra, 10 + edits_made++ % (n > 10 ? n - 10 : 1));
        uint64_t t0 = now_ns();
        change(uri, text);
        free(text);
        await_publications(uri, doc_version, t0, modechanges && !overlap, &first[r],
                           &complete[r]);
        done = r + 1;
        if ((double)(now_ns() - start) / 1e9 > budget_s)
            break;
    }
    double f50, fmax, c50 = -1, cmax = -1;
    med_max(first, done, &f50, &fmax);
    if (modechanges && !overlap)
        med_max(complete, done, &c50, &cmax);
    char c50s[32] = "-", cmaxs[32] = "-";
    if (modechanges && !overlap) {
        snprintf(c50s, sizeof c50s, "%.1f", c50);
        snprintf(cmaxs, sizeof cmaxs, "%.1f", cmax);
    }
    printf("| %-40s | %5d | %9.1f | %9.1f | %12s | %12s |\n", what, done, f50, fmax, c50s, cmaxs);
    fflush(stdout);
    free(first);
    free(complete);
}

/* didChangeConfiguration settings.mdae (a JSON object's members). */
static void configure(const char *members)
{
    char *msg = NULL;
    if (asprintf(&msg,
                 "{\"jsonrpc\":\"2.0\",\"method\":\"workspace/didChangeConfiguration\","
                 "\"params\":{\"settings\":{\"mdae\":{%s}}}}",
                 members) < 0)
        die("out of memory");
    send_msg(msg);
    free(msg);
}

/* Open uri with text and wait for its complete diagnostics; seconds. */
static double open_doc(const char *uri, const char *text, bool modechanges)
{
    char *open = NULL;
    if (asprintf(&open,
                 "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{"
                 "\"textDocument\":{\"uri\":\"%s\",\"languageId\":\"mel\","
                 "\"version\":%d,\"text\":\"%s\"}}}",
                 uri, doc_version, text) < 0)
        die("out of memory");
    uint64_t t0 = now_ns();
    send_msg(open);
    free(open);
    double first, complete;
    await_publications(uri, doc_version, t0, modechanges, &first, &complete);
    return (double)(now_ns() - t0) / 1e9;
}

/* The edit rows: the sound brake with every check, without the mode-change
 * check, and singular (the extra equation), debounce 0. */
static void edit_rows(int n, int reps, double singular_budget_s)
{
    static const char *uri = "file:///brake.mel";
    printf("\nedit -> diagnostics, brake N = %d, debounce 0, ms (first: the model's and the "
           "structural analysis's diagnostics; complete: with the single-mode tools' and the "
           "mode changes')\n\n",
           n);
    printf("| %-40s | %5s | %9s | %9s | %12s | %12s |\n", "edit", "edits", "first p50",
           "first max", "complete p50", "complete max");
    printf("|------------------------------------------|-------|-----------|-----------|"
           "--------------|--------------|\n");
    configure("\"debounceMs\":0");
    edit_row("sound, every check", n, false, true, reps, 1e9, false);
    /* typing: each edit sent once the previous version's first publication
     * is in, while its mode-change check runs (cancelled by the edit) */
    edit_row("sound, every check, typing", n, false, true, reps, 1e9, true);
    configure("\"modeChanges\":false");
    /* the recheck of the document it causes: drained by the next version */
    edit_row("sound, mode-change check off", n, false, false, reps, 1e9, false);
    configure("\"modeChanges\":true");
    edit_row("sound, every check (again)", n, false, true, 1, 1e9, false);
    if (singular_budget_s <= 0)
        return;
    char *text = brake_variant(n, true, 0);
    uint64_t t0 = now_ns();
    change(uri, text);
    free(text);
    double first, complete;
    await_publications(uri, doc_version, t0, true, &first, &complete);
    printf("| %-40s | %5d | %9.1f | %9s | %12.1f | %12s |\n", "singular: the extra equation added",
           1, first, "", complete, "");
    edit_row("singular, every check", n, true, true, reps, singular_budget_s, false);
}

/* Start mdaed, initialize, open the brake at N = n and wait for its
 * complete diagnostics (the analysis is done and kept); seconds. */
static double session_start(const char *mdaed, int n)
{
    start(mdaed);
    send_msg("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    free(wait_id(1));
    send_msg("{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
    doc_version = 1;
    edits_made = 0; /* the same texts for mdaed and --before */
    char *text = brake_json(n);
    double s = open_doc("file:///brake.mel", text, true);
    free(text);
    return s;
}

static void session_end(void)
{
    send_msg("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}");
    free(wait_id(2));
    send_msg("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    int st = 0;
    waitpid(server, &st, 0);
    close(to_srv);
    close(from_srv);
    server = -1;
}

int main(int argc, char **argv)
{
    char mdaed[PATH_MAX], before[PATH_MAX] = "";
    sibling(mdaed, sizeof mdaed, "../server/mdaed");
    int n = 100, reps = 200, edits = 20;
    double singular_s = 120;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--mdaed") == 0)
            snprintf(mdaed, sizeof mdaed, "%s", argv[i + 1]);
        else if (strcmp(argv[i], "--before") == 0)
            snprintf(before, sizeof before, "%s", argv[i + 1]);
        else if (strcmp(argv[i], "--n") == 0)
            n = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--edits") == 0)
            edits = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--singular-s") == 0)
            singular_s = atof(argv[i + 1]);
    }
    if (n < 1 || reps < 0 || edits < 1 || singular_s < 0)
        die("usage: bench_lsp [--mdaed PATH] [--before PATH] [--n 100] [--reps 200] "
            "[--edits 20] [--singular-s 120]");
    signal(SIGALRM, on_alarm);
    /* the singular rows take up to singular_s, plus one edit past it */
    alarm(600 + 3 * (unsigned)singular_s);
    double open_s = session_start(mdaed, n);
    printf("brake N = %d: didOpen to its complete diagnostics %.3f s; %d repetitions per row\n\n",
           n, open_s, reps);
    if (reps > 0)
        questions(reps);
    edit_rows(n, edits, singular_s);
    session_end();
    if (before[0] != '\0') {
        printf("\nthe same edits, before (%s):\n", before);
        session_start(before, n);
        edit_rows(n, edits, singular_s);
        session_end();
    }
    return 0;
}

/* The questions' rows, asked reps times each. */
static void questions(int reps)
{
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
}
