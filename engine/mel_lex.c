/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * engine/mel_lex.c -- the MEL lexer: bytes in, tokens out, one at a time.
 *
 * Whatever the bytes, mel__lex_next makes progress and ends at MEL_T_EOF:
 * malformed input is reported (located) and skipped, never returned as a
 * token, so the parser only ever sees well-formed tokens. Runs of invalid
 * bytes (binary garbage, a multi-byte UTF-8 character) give one error per run,
 * not one per byte. Comments are `// ...` and non-nesting `/ * ... * /`.
 *
 * Quoted identifiers (issue 38): `'stop1.v'`, `'h <= 0'`, as Modelica's
 * Q-IDENT: any bytes but ' and newline (and NUL) between single quotes,
 * with the escapes \' and \\. The token is an identifier (MEL_T_ID, never a
 * keyword) whose text is its content: pointing into the source when it has
 * no escape, else the raw content with `escaped` set, which mel__unquote
 * turns into the name. So 'x' is the identifier x.
 *
 * Texts (issue 38): `"a[1] + b"`, what a front-end kept as text (FX_OPAQUE)
 * written for MEL by `mdae convert`: any bytes but " and newline (and NUL)
 * between double quotes, with the escapes \" and \\, and \n for a newline
 * (a Modelica string may hold one), of any length (even empty). The token
 * is MEL_T_TEXT, its text as a quoted identifier's.
 *
 * Positions: 1-based line and byte column, 0-based byte offset (engine/mdae.h).
 * The caller guarantees len < 2^32 (mel_model_parse checks the input size
 * first), so offsets fit a uint32_t.
 */
#include "mel_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* With their lengths: an identifier is compared with every keyword. */
#define KW(s) {s, sizeof s - 1}
static const struct keyword {
    const char *text;
    size_t len;
} keywords[] = {
    KW("real"), KW("boolean"), KW("integer"), KW("equation"), KW("invariant"), KW("if"),
    KW("then"), KW("else"), KW("end"), KW("foreach"), KW("in"), KW("do"), KW("done"),
    KW("der"), KW("last"), KW("pre"), KW("true"), KW("false"), KW("when"), KW("next"),
};
#undef KW

const char *mel__tok_name(mel__tok kind)
{
    static const char *const punct[] = {
        "';'", "':'", "','", "'..'", "'('", "')'", "'['", "']'", "'='", "'=='", "'<>'",
        "'<'", "'<='", "'>'", "'>='", "'+'", "'-'", "'*'", "'/'", "'^'", "'&'", "'|'", "'!'",
    };
    static const char *const kw[] = {
        "'real'", "'boolean'", "'integer'", "'equation'", "'invariant'", "'if'",
        "'then'", "'else'", "'end'", "'foreach'", "'in'", "'do'", "'done'", "'der'",
        "'last'", "'pre'", "'true'", "'false'", "'when'", "'next'",
    };
    if (kind == MEL_T_EOF)
        return "end of input";
    if (kind == MEL_T_ID)
        return "identifier";
    if (kind == MEL_T_NUM)
        return "number";
    if (kind == MEL_T_TEXT)
        return "text";
    if (kind >= MEL_T_REAL && kind <= MEL_T_NEXT)
        return kw[kind - MEL_T_REAL];
    return mel__tok_in(kind, MEL_T_SEMI, MEL_T__COUNT, punct);
}

const char *mel__tok_in(int kind, int first, int end, const char *const *names)
{
    return kind >= first && kind < end ? names[kind - first] : "token";
}

void mel__lex_start(mel__lexer *lx, const char *src, size_t len, mel__report *rep)
{
    *lx = (mel__lexer){.src = src, .len = len, .line = 1, .rep = rep};
}

void mel__lex_init(mel__lexer *lx, const char *src, size_t len, mel__report *rep)
{
    mel__lex_start(lx, src, len, rep);
    /* Editors on some systems start UTF-8 files with a byte-order mark:
     * skip it, and count columns from after it. */
    if (len >= 3 && memcmp(src, "\xef\xbb\xbf", 3) == 0)
        lx->pos = lx->line_start = 3;
}

static mdae_pos pos_at(const mel__lexer *lx, size_t off)
{
    /* Only valid for offsets on the current line (tokens never span lines,
     * and a comment's start is captured before its newlines are consumed). */
    return (mdae_pos){lx->line, (uint32_t)(off - lx->line_start + 1), (uint32_t)off};
}

static mdae_range range_at(const mel__lexer *lx, size_t start, size_t end)
{
    return (mdae_range){pos_at(lx, start), pos_at(lx, end)};
}

static bool is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Bytes that can start a token or whitespace: anything else is invalid. */
static bool is_valid_start(unsigned char c)
{
    return is_alpha(c) || is_digit(c) || is_space(c) ||
           (c != 0 && strchr(";:,.()[]=<>+-*/^&|!'\"", c));
}

/* Skip whitespace and comments, tracking lines. */
static void skip_blank(mel__lexer *lx)
{
    const char *s = lx->src;
    while (lx->pos < lx->len) {
        unsigned char c = (unsigned char)s[lx->pos];
        if (c == '\n') {
            lx->pos++;
            lx->line++;
            lx->line_start = lx->pos;
        } else if (is_space(c)) {
            lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '/') {
            while (lx->pos < lx->len && s[lx->pos] != '\n')
                lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '*') {
            mdae_range start = range_at(lx, lx->pos, lx->pos + 2);
            lx->pos += 2;
            bool closed = false;
            while (lx->pos < lx->len) {
                if (s[lx->pos] == '*' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '/') {
                    lx->pos += 2;
                    closed = true;
                    break;
                }
                if (s[lx->pos] == '\n') {
                    lx->line++;
                    lx->line_start = lx->pos + 1;
                }
                lx->pos++;
            }
            if (!closed)
                mel__error(lx->rep, MDAE_E_PARSE, start, "unterminated comment");
        } else {
            return;
        }
    }
}

static void lex_number(mel__lexer *lx, mel__token *t)
{
    const char *s = lx->src;
    size_t start = lx->pos, p = lx->pos;
    bool is_int = true;
    while (p < lx->len && is_digit((unsigned char)s[p]))
        p++;
    /* "1..5" is 1, '..', 5: a '.' is a decimal point only before a digit. */
    if (p + 1 < lx->len && s[p] == '.' && is_digit((unsigned char)s[p + 1])) {
        is_int = false;
        p++;
        while (p < lx->len && is_digit((unsigned char)s[p]))
            p++;
    }
    if (p < lx->len && (s[p] == 'e' || s[p] == 'E')) {
        size_t q = p + 1;
        if (q < lx->len && (s[q] == '+' || s[q] == '-'))
            q++;
        if (q < lx->len && is_digit((unsigned char)s[q])) {
            is_int = false;
            p = q;
            while (p < lx->len && is_digit((unsigned char)s[p]))
                p++;
        }
    }
    /* A number glued to letters ("2x") is an error, not an implicit product. */
    size_t end = p;
    while (end < lx->len && (is_alpha((unsigned char)s[end]) || is_digit((unsigned char)s[end])))
        end++;
    lx->pos = end;
    t->kind = MEL_T_NUM;
    t->where = range_at(lx, start, end);
    t->text = s + start;
    t->len = end - start;
    t->is_int = is_int;
    t->value = 0;
    t->ival = 0;
    if (end != p) {
        mel__error(lx->rep, MDAE_E_PARSE, t->where, "invalid number '%.*s'",
                   (int)(end - start > 32 ? 32 : end - start), s + start);
        return;
    }
    if (p - start > MEL__MAX_NAME) {
        mel__error(lx->rep, MDAE_E_PARSE, t->where, "number longer than %d characters",
                   MEL__MAX_NAME);
        return;
    }
    char buf[MEL__MAX_NAME + 1];
    memcpy(buf, s + start, p - start);
    buf[p - start] = '\0';
    if (is_int) {
        long long v = 0;
        for (size_t i = start; i < p; i++) {
            int d = s[i] - '0';
            if (v > (LLONG_MAX - d) / 10) {
                mel__error(lx->rep, MDAE_E_PARSE, t->where, "integer literal too large");
                return;
            }
            v = v * 10 + d;
        }
        t->ival = v;
        t->value = (double)v;
    } else {
        errno = 0;
        double v = strtod(buf, NULL);
        if (errno == ERANGE && (v > 1.0 || v < -1.0)) {
            mel__error(lx->rep, MDAE_E_PARSE, t->where, "number too large");
            return;
        }
        t->value = v;
    }
}

size_t mel__unquote(const char *raw, size_t len, char *out)
{
    size_t n = 0;
    for (size_t k = 0; k < len; k++) {
        if (raw[k] == '\\' && k + 1 < len) {
            k++;
            out[n++] = raw[k] == 'n' ? '\n' : raw[k]; /* \n: only a text's (lex_quoted) */
            continue;
        }
        out[n++] = raw[k];
    }
    return n;
}

/* A quoted identifier from the ' at lx->pos (quote '\''), or a text from
 * the " (quote '"'): the content (escapes checked) as an identifier
 * token, or a text token (any length, possibly empty), or an error
 * reported and the rest of the line (unterminated) or the token skipped;
 * false then, to lex on. */
static bool lex_quoted(mel__lexer *lx, mel__token *t, char quote)
{
    const char *s = lx->src;
    const char *what = quote == '\'' ? "quoted identifier" : "text";
    size_t start = lx->pos, p = start + 1, names = 0;
    bool escaped = false, bad = false;
    for (; p < lx->len && s[p] != quote && s[p] != '\n'; p++, names++) {
        if (s[p] == '\\') {
            escaped = true;
            if (p + 1 < lx->len && (s[p + 1] == quote || s[p + 1] == '\\' ||
                                    (quote == '"' && s[p + 1] == 'n'))) {
                p++;
            } else if (!bad) {
                bad = true;
                mel__error(lx->rep, MDAE_E_PARSE, range_at(lx, p, p + 1), "invalid escape in a %s",
                           quote == '"' ? "text (only \\\", \\\\ and \\n)"
                                        : "quoted identifier (only \\' and \\\\)");
            }
        } else if (s[p] == '\0' && !bad) {
            bad = true;
            mel__error(lx->rep, MDAE_E_PARSE, range_at(lx, p, p + 1),
                       "invalid character (byte 0x00) in a %s", what);
        }
    }
    if (p >= lx->len || s[p] != quote) {
        lx->pos = p;
        mel__error(lx->rep, MDAE_E_PARSE, range_at(lx, start, p),
                   "unterminated %s (a %c before the end of the line)", what, quote);
        return false;
    }
    lx->pos = p + 1;
    t->where = range_at(lx, start, p + 1);
    if (quote == '\'' && names == 0 && !bad) {
        mel__error(lx->rep, MDAE_E_PARSE, t->where, "empty quoted identifier");
        return false;
    }
    if (quote == '\'' && names > MEL__MAX_NAME && !bad) {
        mel__error(lx->rep, MDAE_E_PARSE, t->where, "identifier longer than %d characters",
                   MEL__MAX_NAME);
        return false;
    }
    if (bad)
        return false;
    t->kind = quote == '\'' ? MEL_T_ID : MEL_T_TEXT;
    t->text = s + start + 1;
    t->len = p - start - 1;
    t->escaped = escaped;
    return true;
}

void mel__lex_next(mel__lexer *lx, mel__token *t)
{
    const char *s = lx->src;
    for (;;) {
        skip_blank(lx);
        memset(t, 0, sizeof *t);
        if (lx->pos >= lx->len || lx->rep->stop) {
            t->kind = MEL_T_EOF;
            t->where = range_at(lx, lx->pos, lx->pos);
            t->text = s + (lx->pos < lx->len ? lx->pos : lx->len);
            return;
        }
        size_t start = lx->pos;
        unsigned char c = (unsigned char)s[start];
        if (!is_valid_start(c)) {
            size_t end = start + 1;
            while (end < lx->len && !is_valid_start((unsigned char)s[end]))
                end++;
            lx->pos = end;
            mdae_range r = range_at(lx, start, end);
            if (c >= 0x21 && c < 0x7f)
                mel__error(lx->rep, MDAE_E_PARSE, r, "invalid character '%c'", c);
            else
                mel__error(lx->rep, MDAE_E_PARSE, r, "invalid character (byte 0x%02x)", c);
            continue;
        }
        if (is_alpha(c)) {
            size_t end = start + 1;
            while (end < lx->len && (is_alpha((unsigned char)s[end]) || is_digit((unsigned char)s[end])))
                end++;
            lx->pos = end;
            t->where = range_at(lx, start, end);
            t->text = s + start;
            t->len = end - start;
            if (t->len > MEL__MAX_NAME) {
                mel__error(lx->rep, MDAE_E_PARSE, t->where, "identifier longer than %d characters",
                           MEL__MAX_NAME);
                t->len = MEL__MAX_NAME; /* keep going with a truncated name */
            }
            t->kind = MEL_T_ID;
            for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++) {
                if (keywords[k].len == t->len && keywords[k].text[0] == t->text[0] &&
                    memcmp(keywords[k].text, t->text, t->len) == 0) {
                    t->kind = (mel__tok)(MEL_T_REAL + k);
                    break;
                }
            }
            return;
        }
        if (is_digit(c)) {
            lex_number(lx, t);
            return;
        }
        if (c == '\'' || c == '"') {
            if (lex_quoted(lx, t, (char)c))
                return;
            continue;
        }
        /* punctuation */
        unsigned char c2 = start + 1 < lx->len ? (unsigned char)s[start + 1] : 0;
        size_t n = 1;
        mel__tok k;
        switch (c) {
        case ';': k = MEL_T_SEMI; break;
        case ':': k = MEL_T_COLON; break;
        case ',': k = MEL_T_COMMA; break;
        case '(': k = MEL_T_LPAREN; break;
        case ')': k = MEL_T_RPAREN; break;
        case '[': k = MEL_T_LBRACK; break;
        case ']': k = MEL_T_RBRACK; break;
        case '+': k = MEL_T_PLUS; break;
        case '-': k = MEL_T_MINUS; break;
        case '*': k = MEL_T_STAR; break;
        case '/': k = MEL_T_SLASH; break;
        case '^': k = MEL_T_CARET; break;
        case '&': k = MEL_T_AMP; break;
        case '|': k = MEL_T_BAR; break;
        case '!': k = MEL_T_BANG; break;
        case '=':
            if (c2 == '=') {
                k = MEL_T_EQ;
                n = 2;
            } else {
                k = MEL_T_ASSIGN;
            }
            break;
        case '<':
            if (c2 == '=') {
                k = MEL_T_LE;
                n = 2;
            } else if (c2 == '>') {
                k = MEL_T_NE;
                n = 2;
            } else {
                k = MEL_T_LT;
            }
            break;
        case '>':
            if (c2 == '=') {
                k = MEL_T_GE;
                n = 2;
            } else {
                k = MEL_T_GT;
            }
            break;
        case '.':
            if (c2 == '.') {
                k = MEL_T_DOTDOT;
                n = 2;
                break;
            }
            lx->pos = start + 1;
            mel__error(lx->rep, MDAE_E_PARSE, range_at(lx, start, start + 1),
                       "invalid character '.'");
            continue;
        default:
            /* unreachable: is_valid_start covers exactly the cases above */
            lx->pos = start + 1;
            continue;
        }
        lx->pos = start + n;
        t->kind = k;
        t->where = range_at(lx, start, start + n);
        t->text = s + start;
        t->len = n;
        return;
    }
}
