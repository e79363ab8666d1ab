/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mo_lex.c -- the Modelica lexer: bytes in, tokens out, one at a time.
 *
 * Modelica 3.6 A.1 lexical rules: IDENT = NONDIGIT {DIGIT|NONDIGIT} | Q-IDENT
 * ('...' with backslash escapes; the name is the text between the quotes, so
 * 'stop1.v' is the one name stop1.v); STRING "..." with escapes; numbers
 * with optional fraction and exponent. Keywords are reserved only unquoted:
 * 'end' is a name. Comments are skipped, except that label comments (see
 * mo__label) are remembered for the parser. The `//! base 0.1.0` header is
 * an ordinary line comment.
 *
 * Whatever the bytes, mo__lex_next progresses and ends at MO_T_EOF; bad
 * bytes, unterminated strings, quoted names and comments are reported.
 */
#include "mo_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const keywords[] = {
    "algorithm", "and", "annotation", "block", "break", "class", "connect", "connector",
    "constant", "constrainedby", "discrete", "each", "else", "elseif", "elsewhen",
    "encapsulated", "end", "enumeration", "equation", "expandable", "extends", "external",
    "false", "final", "flow", "for", "function", "if", "import", "impure", "in", "initial",
    "inner", "input", "loop", "model", "not", "operator", "or", "outer", "output", "package",
    "parameter", "partial", "protected", "public", "pure", "record", "redeclare",
    "replaceable", "return", "stream", "then", "true", "type", "when", "while", "within"};

bool mo__is_keyword(const char *s, size_t n)
{
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if (strncmp(keywords[k], s, n) == 0 && keywords[k][n] == '\0')
            return true;
    return false;
}

const char *mo__tok_name(mo__tok kind)
{
    static const char *const punct[] = {"'('", "')'", "'['", "']'", "'{'", "'}'", "','",
                                        "';'", "'.'", "':'", "'='", "':='", "'=='", "'<>'",
                                        "'<'", "'<='", "'>'", "'>='", "'+'", "'-'", "'*'",
                                        "'/'", "'^'", "'.+'", "'.-'", "'.*'", "'./'", "'.^'"};
    static char kwbuf[sizeof keywords / sizeof *keywords][20];
    switch (kind) {
    case MO_T_EOF: return "end of input";
    case MO_T_ID: return "identifier";
    case MO_T_STR: return "string";
    case MO_T_NUM: return "number";
    case MO_T_EMPTY: return "'#EMPTY#'";
    default: break;
    }
    if (kind >= MO_T_ALGORITHM && kind <= MO_T_WITHIN) {
        /* Quoted keyword names, built on first use; the buffers are static
         * and written with the same bytes by every thread (benign). */
        size_t k = (size_t)(kind - MO_T_ALGORITHM);
        char *s = kwbuf[k];
        if (s[0] == 0) {
            size_t n = strlen(keywords[k]);
            s[0] = '\'';
            memcpy(s + 1, keywords[k], n);
            s[n + 1] = '\'';
            s[n + 2] = 0;
        }
        return s;
    }
    return mel__tok_in(kind, MO_T_LPAREN, MO_T__COUNT, punct);
}

void mo__lex_init(mo__lexer *lx, const char *src, size_t len, mel__report *rep)
{
    memset(lx, 0, sizeof *lx);
    mel__lex_start(&lx->cur, src, len, rep);
}

void mo__lex_close(mo__lexer *lx)
{
    mdae_free(lx->labels);
    lx->labels = NULL;
    lx->n_labels = lx->cap_labels = 0;
}

static mdae_pos here(const mo__lexer *lx)
{
    mdae_pos p = {lx->cur.line, (uint32_t)(lx->cur.pos - lx->cur.line_start + 1), (uint32_t)lx->cur.pos};
    return p;
}

static void lex_error(mo__lexer *lx, mdae_pos start, const char *fmt, const char *arg)
{
    mdae_range r = {start, here(lx)};
    mel__error(lx->cur.rep, MDAE_E_PARSE, r, fmt, arg);
}

static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static void newline(mo__lexer *lx)
{
    lx->cur.line++;
    lx->cur.line_start = lx->cur.pos;
}

/* Is [s, s+n) blank-padded `NAME:` (block form) or `(NAME)` (line form)?
 * NAME is an identifier or, so that `mdae convert --to modelica` can keep
 * any equation's name (issue 38), a quoted name on one line, \' and \\
 * escaping a quote and a backslash (`/ * 'x = f(y) [i=2]': * /`,
 * `/ * 'y = \'a b\'': * /`). On success, name and nlen delimit NAME
 * (without the quotes) and *escaped says whether it has escapes. */
static bool label_text(const char *s, size_t n, bool line_form, const char **name, size_t *nlen,
                       bool *escaped)
{
    *escaped = false;
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (line_form) {
        if (i >= n || s[i] != '(')
            return false;
        i++;
        while (i < n && s[i] == ' ')
            i++;
    }
    size_t b = i, e;
    if (i < n && s[i] == '\'') { /* a quoted name (issue 38) */
        b = ++i;
        while (i < n && s[i] != '\'' && s[i] != '\n') {
            if (s[i] == '\\') {
                if (i + 1 >= n || (s[i + 1] != '\'' && s[i + 1] != '\\'))
                    return false;
                *escaped = true;
                i++;
            }
            i++;
        }
        if (i >= n || s[i] != '\'' || i == b)
            return false;
        e = i++;
    } else {
        if (i >= n || !is_alpha((unsigned char)s[i]))
            return false;
        while (i < n && (is_alpha((unsigned char)s[i]) || is_digit((unsigned char)s[i])))
            i++;
        e = i;
    }
    while (i < n && s[i] == ' ')
        i++;
    if (i >= n || s[i] != (line_form ? ')' : ':'))
        return false;
    i++;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
        i++;
    if (i != n)
        return false;
    *name = s + b;
    *nlen = e - b;
    return true;
}

static void add_label(mo__lexer *lx, const char *s, size_t n, bool line_form, size_t start)
{
    const char *name;
    size_t nlen;
    bool escaped;
    if (!label_text(s, n, line_form, &name, &nlen, &escaped) || nlen > MEL__MAX_NAME)
        return;
    if (lx->n_labels == lx->cap_labels) {
        size_t cap = lx->cap_labels ? lx->cap_labels * 2 : 16;
        mo__label *p = mdae_realloc(lx->labels, cap * sizeof *p);
        if (p == NULL) {
            mel__nomem(lx->cur.rep);
            return;
        }
        lx->labels = p;
        lx->cap_labels = cap;
    }
    mo__label *l = &lx->labels[lx->n_labels++];
    l->name = name;
    l->len = nlen;
    l->offset = (uint32_t)start;
    l->line = lx->cur.line;
    l->trailing = line_form;
    l->escaped = escaped;
}

static void skip_space(mo__lexer *lx)
{
    while (lx->cur.pos < lx->cur.len) {
        char c = lx->cur.src[lx->cur.pos];
        if (c == '\n') {
            lx->cur.pos++;
            newline(lx);
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->cur.pos++;
        } else if (c == '/' && lx->cur.pos + 1 < lx->cur.len && lx->cur.src[lx->cur.pos + 1] == '/') {
            size_t start = lx->cur.pos;
            lx->cur.pos += 2;
            while (lx->cur.pos < lx->cur.len && lx->cur.src[lx->cur.pos] != '\n')
                lx->cur.pos++;
            add_label(lx, lx->cur.src + start + 2, lx->cur.pos - start - 2, true, start);
        } else if (c == '/' && lx->cur.pos + 1 < lx->cur.len && lx->cur.src[lx->cur.pos + 1] == '*') {
            mdae_pos p = here(lx);
            size_t start = lx->cur.pos;
            uint32_t line0 = lx->cur.line;
            lx->cur.pos += 2;
            bool closed = false;
            while (lx->cur.pos < lx->cur.len) {
                if (lx->cur.src[lx->cur.pos] == '*' && lx->cur.pos + 1 < lx->cur.len &&
                    lx->cur.src[lx->cur.pos + 1] == '/') {
                    lx->cur.pos += 2;
                    closed = true;
                    break;
                }
                if (lx->cur.src[lx->cur.pos] == '\n') {
                    lx->cur.pos++;
                    newline(lx);
                } else {
                    lx->cur.pos++;
                }
            }
            if (!closed)
                lex_error(lx, p, "unterminated comment%s", "");
            else if (lx->cur.line == line0)
                add_label(lx, lx->cur.src + start + 2, lx->cur.pos - start - 4, false, start);
        } else {
            break;
        }
    }
}

/* The length of the prefix of s[0 .. n) without q, a backslash or a
 * newline (memchr scans a word at a time: a byte-at-a-time loop here was a
 * tenth of the front-end's time). */
static size_t plain_run(const char *s, size_t n, char q)
{
    const char *stop = memchr(s, q, n);
    size_t span = stop != NULL ? (size_t)(stop - s) : n;
    if ((stop = memchr(s, '\\', span)) != NULL)
        span = (size_t)(stop - s);
    if ((stop = memchr(s, '\n', span)) != NULL)
        span = (size_t)(stop - s);
    return span;
}

/* Skip a quoted run ('...' or "...") with backslash escapes; reports an
 * unterminated one. Returns false if unterminated. */
static bool skip_quoted(mo__lexer *lx, char q, mdae_pos p)
{
    lx->cur.pos++;
    while (lx->cur.pos < lx->cur.len) {
        /* The plain run first: most quoted names have no escape and no
         * newline, and Base Modelica quotes nearly every name. */
        lx->cur.pos += plain_run(lx->cur.src + lx->cur.pos, lx->cur.len - lx->cur.pos, q);
        if (lx->cur.pos == lx->cur.len)
            break;
        char c = lx->cur.src[lx->cur.pos];
        if (c == '\\' && lx->cur.pos + 1 < lx->cur.len) {
            if (lx->cur.src[lx->cur.pos + 1] == '\n') {
                lx->cur.pos += 2;
                newline(lx);
            } else {
                lx->cur.pos += 2;
            }
            continue;
        }
        if (c == q) {
            lx->cur.pos++;
            return true;
        }
        if (c == '\n' && q == '\'')
            break; /* a Q-IDENT never spans lines: stop before the newline */
        lx->cur.pos++;
        if (c == '\n')
            newline(lx);
    }
    lex_error(lx, p, q == '"' ? "unterminated string%s" : "unterminated quoted name%s", "");
    return false;
}

void mo__lex_next(mo__lexer *lx, mo__token *t)
{
again:
    skip_space(lx);
    memset(t, 0, sizeof *t);
    t->where.start = here(lx);
    if (lx->cur.pos >= lx->cur.len || lx->cur.rep->stop) {
        t->kind = MO_T_EOF;
        t->where.end = t->where.start;
        lx->cur.pos = lx->cur.len;
        return;
    }
    const char *s = lx->cur.src;
    size_t b = lx->cur.pos;
    unsigned char c = (unsigned char)s[b];
    if (is_alpha(c)) {
        while (lx->cur.pos < lx->cur.len &&
               (is_alpha((unsigned char)s[lx->cur.pos]) || is_digit((unsigned char)s[lx->cur.pos])))
            lx->cur.pos++;
        size_t n = lx->cur.pos - b;
        t->kind = MO_T_ID;
        t->text = s + b;
        t->len = n;
        /* keywords are 2..13 lowercase letters: most names fail the first
         * test (Base Modelica quotes nearly every name anyway) */
        if (n >= 2 && n <= 13 && c >= 'a' && c <= 'w') {
            for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++) {
                /* strncmp stops at a shorter keyword's NUL (names have
                 * none), so keywords[k][n] is then within the keyword */
                if (keywords[k][0] == (char)c && strncmp(keywords[k], s + b, n) == 0 &&
                    keywords[k][n] == 0) {
                    t->kind = (mo__tok)(MO_T_ALGORITHM + k);
                    break;
                }
            }
        }
        if (t->kind == MO_T_ID && n > MEL__MAX_NAME) {
            t->where.end = here(lx);
            mel__error(lx->cur.rep, MDAE_E_PARSE, t->where, "name longer than %d bytes",
                       MEL__MAX_NAME);
            goto again;
        }
    } else if (c == '\'') {
        if (!skip_quoted(lx, '\'', t->where.start))
            goto again;
        t->kind = MO_T_ID;
        t->quoted = true;
        t->text = s + b + 1;
        t->len = lx->cur.pos - b - 2;
        if (t->len == 0 || t->len > 4 * MEL__MAX_NAME) {
            t->where.end = here(lx);
            mel__error(lx->cur.rep, MDAE_E_PARSE, t->where,
                       t->len == 0 ? "empty quoted name" : "name longer than %d bytes",
                       4 * MEL__MAX_NAME);
            goto again;
        }
        if (memchr(t->text, '\0', t->len) != NULL) {
            /* names are C strings from here on: a NUL would cut one short */
            t->where.end = here(lx);
            mel__error(lx->cur.rep, MDAE_E_PARSE, t->where,
                       "invalid character (byte 0x00) in a quoted name");
            goto again;
        }
    } else if (c == '"') {
        if (!skip_quoted(lx, '"', t->where.start))
            goto again;
        t->kind = MO_T_STR;
        t->text = s + b + 1;
        t->len = lx->cur.pos - b - 2;
    } else if (is_digit(c) || (c == '.' && b + 1 < lx->cur.len && is_digit((unsigned char)s[b + 1]))) {
        bool is_int = true;
        while (lx->cur.pos < lx->cur.len && is_digit((unsigned char)s[lx->cur.pos]))
            lx->cur.pos++;
        if (lx->cur.pos < lx->cur.len && s[lx->cur.pos] == '.') {
            is_int = false;
            lx->cur.pos++;
            while (lx->cur.pos < lx->cur.len && is_digit((unsigned char)s[lx->cur.pos]))
                lx->cur.pos++;
        }
        if (lx->cur.pos < lx->cur.len && (s[lx->cur.pos] == 'e' || s[lx->cur.pos] == 'E')) {
            size_t save = lx->cur.pos;
            lx->cur.pos++;
            if (lx->cur.pos < lx->cur.len && (s[lx->cur.pos] == '+' || s[lx->cur.pos] == '-'))
                lx->cur.pos++;
            if (lx->cur.pos < lx->cur.len && is_digit((unsigned char)s[lx->cur.pos])) {
                is_int = false;
                while (lx->cur.pos < lx->cur.len && is_digit((unsigned char)s[lx->cur.pos]))
                    lx->cur.pos++;
            } else {
                lx->cur.pos = save;
            }
        }
        size_t n = lx->cur.pos - b;
        t->kind = MO_T_NUM;
        t->text = s + b;
        t->len = n;
        if (n > MEL__MAX_NAME) {
            t->where.end = here(lx);
            mel__error(lx->cur.rep, MDAE_E_PARSE, t->where, "number longer than %d bytes",
                       MEL__MAX_NAME);
            goto again;
        }
        char buf[MEL__MAX_NAME + 1];
        memcpy(buf, s + b, n);
        buf[n] = 0;
        errno = 0;
        t->value = strtod(buf, NULL);
        if (!is_int && errno == ERANGE && (t->value > 1.0 || t->value < -1.0)) {
            t->where.end = here(lx);
            mel__error(lx->cur.rep, MDAE_E_PARSE, t->where, "number too large");
            goto again;
        }
        if (is_int) {
            errno = 0;
            long long v = strtoll(buf, NULL, 10);
            if (errno == 0) {
                t->is_int = true;
                t->ival = v;
            }
        }
    } else {
        char d = b + 1 < lx->cur.len ? s[b + 1] : 0;
        lx->cur.pos++;
        switch (c) {
        case '(': t->kind = MO_T_LPAREN; break;
        case ')': t->kind = MO_T_RPAREN; break;
        case '[': t->kind = MO_T_LBRACK; break;
        case ']': t->kind = MO_T_RBRACK; break;
        case '{': t->kind = MO_T_LBRACE; break;
        case '}': t->kind = MO_T_RBRACE; break;
        case ',': t->kind = MO_T_COMMA; break;
        case ';': t->kind = MO_T_SEMI; break;
        case '+': t->kind = MO_T_PLUS; break;
        case '-': t->kind = MO_T_MINUS; break;
        case '*': t->kind = MO_T_STAR; break;
        case '/': t->kind = MO_T_SLASH; break;
        case '^': t->kind = MO_T_CARET; break;
        case ':':
            if (d == '=') {
                lx->cur.pos++;
                t->kind = MO_T_DEFINE;
            } else {
                t->kind = MO_T_COLON;
            }
            break;
        case '=':
            if (d == '=') {
                lx->cur.pos++;
                t->kind = MO_T_EQ;
            } else {
                t->kind = MO_T_ASSIGN;
            }
            break;
        case '<':
            if (d == '>') {
                lx->cur.pos++;
                t->kind = MO_T_NE;
            } else if (d == '=') {
                lx->cur.pos++;
                t->kind = MO_T_LE;
            } else {
                t->kind = MO_T_LT;
            }
            break;
        case '>':
            if (d == '=') {
                lx->cur.pos++;
                t->kind = MO_T_GE;
            } else {
                t->kind = MO_T_GT;
            }
            break;
        case '.':
            switch (d) {
            case '+': lx->cur.pos++; t->kind = MO_T_DPLUS; break;
            case '-': lx->cur.pos++; t->kind = MO_T_DMINUS; break;
            case '*': lx->cur.pos++; t->kind = MO_T_DSTAR; break;
            case '/': lx->cur.pos++; t->kind = MO_T_DSLASH; break;
            case '^': lx->cur.pos++; t->kind = MO_T_DCARET; break;
            default: t->kind = MO_T_DOT; break;
            }
            break;
        case '#':
            if (lx->cur.len - b >= 7 && memcmp(s + b, "#EMPTY#", 7) == 0) {
                /* Not Base Modelica: OpenModelica writes it for an argument
                 * it has no value for (seen in record constructors of
                 * parameter bindings). Read as an opaque value, so that the
                 * model is analysed unless its structure depends on it. */
                lx->cur.pos = b + 7;
                t->kind = MO_T_EMPTY;
                t->where.end = here(lx);
                mdae_diags_add(lx->cur.rep->diags, MDAE_SEV_WARNING, t->where,
                               "'#EMPTY#' is not Base Modelica (an OpenModelica export of a "
                               "missing value): read as an unknown value");
                break;
            }
            /* fall through */
        default: {
            /* Skip the whole UTF-8 sequence or bad byte run as one error. */
            while (lx->cur.pos < lx->cur.len && ((unsigned char)s[lx->cur.pos] & 0xC0) == 0x80)
                lx->cur.pos++;
            char shown[8];
            if (c >= 0x20 && c < 0x7f) {
                shown[0] = (char)c;
                shown[1] = 0;
            } else {
                static const char hex[] = "0123456789abcdef";
                shown[0] = '\\';
                shown[1] = 'x';
                shown[2] = hex[c >> 4];
                shown[3] = hex[c & 15];
                shown[4] = 0;
            }
            lex_error(lx, t->where.start, "unexpected character '%s'", shown);
            goto again;
        }
        }
    }
    t->where.end = here(lx);
}
