/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * clients/cli_io.c -- read a model file, parse it, and print diagnostics
 * with the offending source line and a caret (gcc style).
 *
 * Files are read whole, with a cap (CLI_MAX_FILE_BYTES), because the parser
 * wants the text in memory and a model larger than 64 MiB is a mistake (a
 * wrong path, a binary) rather than a model. The cap is checked while
 * reading, not only from fstat, so pipes and growing files are bounded too.
 */
#define _XOPEN_SOURCE 700 /* wcwidth (with the build's _POSIX_C_SOURCE=200809L) */
#include "cli.h"
#include "mo.h"

#include "rpc_json.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

/* Longest source line we echo under a diagnostic; past it, only the
 * `FILE:LINE:COL:` line is printed (minified or binary input). */
#define CLI_MAX_ECHO_LINE 1000

static int read_error(const char *name, const char *what)
{
    fprintf(stderr, "mdae: cannot read '%s': %s\n", name, what);
    return CLI_EXIT_IO;
}

static int read_fd(int fd, const char *name, cli_source *src)
{
    size_t cap = 0, len = 0;
    char *buf = NULL;
    for (;;) {
        if (len == cap) {
            /* Grow geometrically, to at most the cap plus one byte: reading
             * that one byte is how an oversized input is detected. */
            size_t ncap = cap ? cap * 2 : 65536;
            if (ncap > CLI_MAX_FILE_BYTES + 1)
                ncap = CLI_MAX_FILE_BYTES + 1;
            if (ncap == cap) {
                mdae_free(buf);
                fprintf(stderr, "mdae: cannot read '%s': file too large (limit %zu MiB, see docs/limits.md)\n", name,
                        CLI_MAX_FILE_BYTES >> 20);
                return CLI_EXIT_IO;
            }
            char *nbuf = mdae_realloc(buf, ncap + 1);
            if (nbuf == NULL) {
                mdae_free(buf);
                return read_error(name, "out of memory");
            }
            buf = nbuf;
            cap = ncap;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            mdae_free(buf);
            return read_error(name, strerror(e));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (len > CLI_MAX_FILE_BYTES) {
        mdae_free(buf);
        fprintf(stderr, "mdae: cannot read '%s': file too large (limit %zu MiB, see docs/limits.md)\n", name,
                CLI_MAX_FILE_BYTES >> 20);
        return CLI_EXIT_IO;
    }
    if (buf == NULL) {
        buf = mdae_malloc(1);
        if (buf == NULL)
            return read_error(name, "out of memory");
    }
    buf[len] = '\0';
    src->text = buf;
    src->len = len;
    return CLI_EXIT_OK;
}

/* A NUL byte is in no model text (MEL and Modelica are text; UTF-16 has
 * them too): one line says so, instead of a diagnostic per stray byte
 * echoing the file (issue 42). */
static int refuse_binary(const cli_source *src)
{
    const char *nul = memchr(src->text, '\0', src->len);
    if (nul == NULL)
        return CLI_EXIT_OK;
    fprintf(stderr,
            "mdae: '%s' is not a model: a binary file (a NUL byte at offset %zu); models are "
            "MEL or Modelica text in UTF-8, see docs/languages.md\n",
            src->name, (size_t)(nul - src->text));
    return CLI_EXIT_MODEL;
}

int cli_source_read(const char *path, cli_source *src)
{
    memset(src, 0, sizeof *src);
    bool is_stdin = strcmp(path, "-") == 0;
    src->name = mdae_strdup(is_stdin ? "<stdin>" : path);
    if (src->name == NULL)
        return read_error(path, "out of memory");
    int fd = STDIN_FILENO;
    if (!is_stdin) {
        fd = open(path, O_RDONLY | O_NOCTTY);
        if (fd < 0) {
            int e = errno;
            cli_source_close(src);
            return read_error(path, strerror(e));
        }
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        if (!is_stdin)
            close(fd);
        cli_source_close(src);
        return read_error(path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        if (!is_stdin)
            close(fd);
        cli_source_close(src);
        return read_error(path, "is a directory");
    }
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > CLI_MAX_FILE_BYTES) {
        if (!is_stdin)
            close(fd);
        cli_source_close(src);
        fprintf(stderr, "mdae: cannot read '%s': file too large (limit %zu MiB, see docs/limits.md)\n", path,
                CLI_MAX_FILE_BYTES >> 20);
        return CLI_EXIT_IO;
    }
    int code = read_fd(fd, src->name, src);
    if (!is_stdin)
        close(fd);
    if (code == CLI_EXIT_OK)
        code = refuse_binary(src);
    if (code != CLI_EXIT_OK)
        cli_source_close(src);
    return code;
}

void cli_source_close(cli_source *src)
{
    mdae_free(src->name);
    mdae_free(src->text);
    memset(src, 0, sizeof *src);
}

/* Find the start of the source line of position p: by its offset when it
 * agrees with line/col, else by counting lines. false if p is not in the
 * text. */
static bool find_line(const cli_source *src, mdae_pos p, size_t *start, size_t *end)
{
    if (src == NULL || src->text == NULL || p.line == 0 || p.col == 0)
        return false;
    size_t s = 0;
    bool agrees = false;
    if (p.offset <= src->len && (size_t)p.offset + 1 >= p.col) {
        /* offset agrees with col if s starts a line and no newline lies
         * between s and the offset. */
        s = p.offset + 1 - p.col;
        agrees = (s == 0 || src->text[s - 1] == '\n') &&
                 memchr(src->text + s, '\n', p.offset - s) == NULL;
    }
    if (!agrees) {
        uint32_t line = 1;
        s = 0;
        while (line < p.line) {
            const char *nl = memchr(src->text + s, '\n', src->len - s);
            if (nl == NULL)
                return false;
            s = (size_t)(nl - src->text) + 1;
            line++;
        }
    }
    const char *nl = memchr(src->text + s, '\n', src->len - s);
    size_t e = nl ? (size_t)(nl - src->text) : src->len;
    if (e > s && src->text[e - 1] == '\r')
        e--;
    /* A column just past the end of the line (a missing ';' at end of line)
     * still gets a caret. */
    if ((size_t)p.col - 1 > e - s)
        return false;
    *start = s;
    *end = e;
    return true;
}

/* ANSI colours of the diagnostics (as gcc's): bold location, red errors,
 * magenta warnings, cyan notes, a green caret. */
#define SGR_BOLD "\033[1m"
#define SGR_RESET "\033[0m"
#define SGR_CARET "\033[1;32m"

/* The terminal cells of the character at t[k..e) (UTF-8), into *cells;
 * returns its length in bytes (at least 1). Wide (East Asian) characters
 * take 2 cells, combining marks 0, by wcwidth in the C.UTF-8 locale (loc);
 * without it, or for invalid bytes, 1 cell per byte that starts a character. */
static size_t char_cells(const unsigned char *t, size_t k, size_t e, locale_t loc, int *cells)
{
    *cells = (t[k] & 0xC0) != 0x80 ? 1 : 0;
    if (t[k] < 0x80 || loc == (locale_t)0)
        return 1;
    locale_t old = uselocale(loc);
    mbstate_t st;
    memset(&st, 0, sizeof st);
    wchar_t wc;
    size_t n = mbrtowc(&wc, (const char *)t + k, e - k, &st);
    if (n != (size_t)-1 && n != (size_t)-2 && n != 0) {
        int w = wcwidth(wc);
        *cells = w < 0 ? 1 : w;
    } else {
        n = 1;
    }
    uselocale(old);
    return n;
}

/* Print the source line, then a caret under column col (with '~' up to
 * end_col when the range stays on the line). Control bytes are shown as
 * '?' so a binary file cannot drive the terminal; the caret line copies
 * tabs so it stays aligned, and gives each character the cells a terminal
 * gives it (char_cells: 2 for a wide character, issue 42). */
static void print_caret(const cli_source *src, const mdae_diag *dg)
{
    size_t s, e;
    if (!find_line(src, dg->where.start, &s, &e) || e - s > CLI_MAX_ECHO_LINE)
        return;
    const unsigned char *t = (const unsigned char *)src->text;
    fputc(' ', stderr);
    for (size_t k = s; k < e; k++)
        fputc((t[k] < 0x20 && t[k] != '\t') || t[k] == 0x7f ? '?' : t[k], stderr);
    fputs("\n ", stderr);
    locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    size_t caret = s + dg->where.start.col - 1;
    int cells;
    for (size_t k = s; k < caret;) {
        size_t n = char_cells(t, k, e, loc, &cells);
        if (t[k] == '\t')
            fputc('\t', stderr);
        else
            fprintf(stderr, "%*s", cells, "");
        k += n;
    }
    if (src->color)
        fputs(SGR_CARET, stderr);
    fputc('^', stderr);
    size_t stop = caret + 1;
    if (dg->where.end.line == dg->where.start.line && dg->where.end.col > dg->where.start.col)
        stop = s + dg->where.end.col - 1;
    if (stop > e)
        stop = e;
    for (size_t k = caret < e ? caret + char_cells(t, caret, e, loc, &cells) : caret + 1;
         k < stop;) {
        size_t n = char_cells(t, k, e, loc, &cells);
        for (int c = 0; c < cells; c++)
            fputc('~', stderr);
        k += n;
    }
    if (src->color)
        fputs(SGR_RESET, stderr);
    fputc('\n', stderr);
    if (loc != (locale_t)0)
        freelocale(loc);
}

bool cli_color_wanted(int color)
{
    if (color != CLI_COLOR_AUTO)
        return color == CLI_COLOR_ALWAYS;
    const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
    return isatty(STDERR_FILENO) && (no == NULL || no[0] == '\0') &&
           (term == NULL || strcmp(term, "dumb") != 0);
}

/* Print one formatted diagnostic "FILE:LINE:COL: error: message", its
 * location bold and its severity coloured when src->color; a stated limit
 * points to the page that lists them all. */
static void print_diag_line(const cli_source *src, const char *line, bool limit)
{
    const char *see = limit ? " (see docs/limits.md)" : "";
    static const struct {
        const char *label, *sgr;
    } sev[] = {{": error: ", "\033[1;31m"}, {": warning: ", "\033[1;35m"},
               {": note: ", "\033[1;36m"}};
    const char *at = NULL;
    size_t which = 0;
    for (size_t i = 0; src != NULL && src->color && i < sizeof sev / sizeof sev[0] && !at; i++)
        if ((at = strstr(line, sev[i].label)) != NULL)
            which = i;
    if (at == NULL) {
        fprintf(stderr, "%s%s\n", line, see);
        return;
    }
    size_t label = strlen(sev[which].label);
    fprintf(stderr, SGR_BOLD "%.*s:" SGR_RESET " %s%.*s" SGR_RESET "%s%s\n", (int)(at - line),
            line, sev[which].sgr, (int)(label - 3), at + 2, at + label - 1, see);
}

void cli_print_diags(const cli_source *src, const mdae_diags *d)
{
    const char *name = src && src->name ? src->name : NULL;
    for (size_t i = 0; i < d->count; i++) {
        const mdae_diag *dg = &d->items[i];
        char *line = mdae_diag_format(dg, name);
        if (line == NULL) {
            fprintf(stderr, "mdae: out of memory while printing diagnostics\n");
            return;
        }
        print_diag_line(src, line, dg->limit != 0);
        mdae_free(line);
        print_caret(src, dg);
    }
    if (d->dropped > 0)
        fprintf(stderr, "%s: %zu more diagnostics not shown\n", name ? name : "<input>",
                d->dropped);
}

int cli_exit_code(int rc)
{
    switch (rc) {
    case MDAE_OK:
        return CLI_EXIT_OK;
    case MDAE_E_PARSE:
    case MDAE_E_MODEL:
    case MDAE_E_LIMIT: /* a stated limit of the front-end, the enumeration or the
                          graph: the diagnostics name it */
        return CLI_EXIT_MODEL;
    case MDAE_E_BDD_LIMIT:
        return CLI_EXIT_LIMIT;
    default:
        return CLI_EXIT_IO;
    }
}

bool cli_is_modelica(const cli_opts *o, const cli_source *src)
{
    if (o->format != NULL)
        return strcmp(o->format, "modelica") == 0;
    const char *name = strcmp(o->file, "-") == 0 ? NULL : o->file;
    return mo_is_modelica(src->text, src->len, name);
}

int cli_syntax_verdict_n(const char *name, uint32_t n_syntax, uint32_t n_left_out, int code)
{
    if (n_syntax == 0)
        return code;
    fprintf(stderr, "%s: %u syntax error%s; %u statement%s left out, the result is of the rest\n",
            name, n_syntax, n_syntax == 1 ? "" : "s", n_left_out, n_left_out == 1 ? "" : "s");
    return code == CLI_EXIT_OK ? CLI_EXIT_MODEL : code;
}

int cli_syntax_verdict(const cli_source *src, const mel_model *m, int code)
{
    return m == NULL ? code : cli_syntax_verdict_n(src->name, m->n_syntax_errors, m->n_left_out, code);
}

int cli_load_model(const cli_opts *o, bool quiet, cli_source *src, mel_model **m,
                   mdae_diags *d)
{
    int code = cli_source_read(o->file, src);
    if (code != CLI_EXIT_OK)
        return code;
    src->color = cli_color_wanted(o->color);
    mel_options mo;
    memset(&mo, 0, sizeof mo);
    mo.defines = o->defines;
    mo.n_defines = o->n_defines;
    mo.max_input_bytes = CLI_MAX_FILE_BYTES;
    mo.recover = o->recover;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = cli_is_modelica(o, src) ? mo_model_parse(src->text, src->len, &mo, m, d)
                                     : mel_model_parse(src->text, src->len, &mo, m, d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* MDAE_STATS=1: the front-end's time, for scripts (scripts/msl.py) */
    if (getenv("MDAE_STATS") != NULL)
        fprintf(stderr, "mdae-stats: parse_bytes %zu parse_seconds %.6f\n", src->len,
                (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    if (rc < 0) {
        /* A verdict on the model (located errors) may stay quiet for the
         * JSON output; anything else (out of memory, an engine failure) is
         * always said. */
        bool verdict = cli_exit_code(rc) == CLI_EXIT_MODEL && d->errors > 0;
        if (!quiet)
            cli_print_diags(src, d);
        if (!verdict)
            fprintf(stderr, "%s: error: %s\n", src->name, mdae_strerror(rc));
        else if (!quiet)
            fprintf(stderr, "%s: %zu error%s (see docs/languages.md)\n", src->name, d->errors,
                    d->errors == 1 ? "" : "s");
        cli_source_close(src);
        return cli_exit_code(rc);
    }
    return CLI_EXIT_OK;
}

int cli_print_json(const cJSON *json)
{
    char *text = NULL;
    int rc = rpc_json_print(json, false, &text);
    if (rc < 0) {
        fprintf(stderr, "mdae: cannot print JSON: %s\n", mdae_strerror(rc));
        return CLI_EXIT_IO;
    }
    fputs(text, stdout);
    fputc('\n', stdout);
    mdae_free(text);
    return CLI_EXIT_OK;
}

static const char *plural(unsigned long long n) { return n == 1 ? "" : "s"; }

void cli_print_counts(FILE *f, const mel_model *m)
{
    fprintf(f, "%u equation%s, %u variable%s, %u mode variable%s", m->n_equations,
            plural(m->n_equations), m->n_variables, plural(m->n_variables), m->n_modes,
            plural(m->n_modes));
    /* 2^n modes, written out while it fits in 64 bits. */
    if (m->n_modes < 64)
        fprintf(f, " (%llu mode%s)", 1ULL << m->n_modes, plural(1ULL << m->n_modes));
    else
        fprintf(f, " (2^%u modes)", m->n_modes);
    fprintf(f, ", %zu incidence%s, %u invariant%s, %u parameter%s", m->n_edges,
            plural(m->n_edges), m->n_invariants, plural(m->n_invariants), m->n_params,
            plural(m->n_params));
}

size_t cli_count_severity(const mdae_diags *d, mdae_severity sev)
{
    size_t n = 0;
    for (size_t i = 0; i < d->count; i++)
        n += d->items[i].severity == sev;
    return n;
}

int cli_finish(int code)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mdae: error writing to stdout: %s\n", strerror(errno));
        clearerr(stdout); /* said once, though a command and main both finish */
        return CLI_EXIT_IO;
    }
    return code;
}

/* ---- Writing a file atomically ---------------------------------------------------- */

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The temporary file's template: "DIR/.BASE.XXXXXX" beside path (owned). */
static char *temp_template(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash != NULL ? (size_t)(slash - path) + 1 : 0;
    return mdae_asprintf("%.*s.%s.XXXXXX", (int)dir, path, path + dir);
}

int cli_write_file_atomic(const char *path, const char *bytes, size_t len)
{
    char *tmp = temp_template(path);
    if (tmp == NULL) {
        fprintf(stderr, "mdae: cannot write '%s': out of memory\n", path);
        return CLI_EXIT_IO;
    }
    int fd = mkstemp(tmp);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0) {
        mode_t mask = umask(0);
        umask(mask);
        if (fchmod(fd, 0666 & ~mask) != 0)
            err = errno;
        if (err == 0)
            err = write_all(fd, bytes, len);
        if (err == 0 && fsync(fd) != 0)
            err = errno;
        if (close(fd) != 0 && err == 0)
            err = errno;
        if (err == 0 && rename(tmp, path) != 0)
            err = errno;
        if (err != 0)
            unlink(tmp);
    }
    if (err != 0)
        fprintf(stderr, "mdae: cannot write '%s': %s%s\n", path, strerror(err),
                fd >= 0 ? " (left as it was)" : "");
    mdae_free(tmp);
    return err != 0 ? CLI_EXIT_IO : CLI_EXIT_OK;
}
