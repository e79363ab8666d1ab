/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mel_lex.c -- the MEL lexer (engine/mel_lex.c): tokens,
 * numbers, comments, positions, and malformed bytes.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "mel_int.h"

typedef struct lexed {
    mel__token t[64];
    size_t n;
    mdae_diags d;
    mel__report rep;
} lexed;

/* Lex all of src (len bytes) into L; stops at EOF or 64 tokens. */
static void lex_all(lexed *L, const char *src, size_t len)
{
    memset(L, 0, sizeof *L);
    mdae_diags_init(&L->d);
    mel__report_init(&L->rep, &L->d, 0);
    mel__lexer lx;
    mel__lex_init(&lx, src, len, &L->rep);
    for (;;) {
        cr_assert_lt(L->n, 64);
        mel__lex_next(&lx, &L->t[L->n]);
        if (L->t[L->n++].kind == MEL_T_EOF)
            break;
    }
}

static void lex_str(lexed *L, const char *src) { lex_all(L, src, strlen(src)); }

static void kinds_are(const lexed *L, const mel__tok *want, size_t n)
{
    cr_assert_eq(L->n, n, "token count %zu, expected %zu", L->n, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(L->t[i].kind, want[i], "token %zu is %s, expected %s", i,
                     mel__tok_name(L->t[i].kind), mel__tok_name(want[i]));
}

Test(mel_lex, splits_a_declaration_into_tokens)
{
    lexed L;
    lex_str(&L, "x[i] : real = 1.5;");
    mel__tok want[] = {MEL_T_ID,    MEL_T_LBRACK, MEL_T_ID,     MEL_T_RBRACK,
                       MEL_T_COLON, MEL_T_REAL,   MEL_T_ASSIGN, MEL_T_NUM,
                       MEL_T_SEMI,  MEL_T_EOF};
    kinds_are(&L, want, sizeof want / sizeof *want);
    cr_assert_eq(L.t[0].len, 1);
    cr_assert_eq(memcmp(L.t[0].text, "x", 1), 0);
    cr_assert_eq(L.d.count, 0);
    mdae_diags_close(&L.d);
}

Test(mel_lex, recognises_every_keyword_and_nothing_longer)
{
    lexed L;
    lex_str(&L, "real boolean integer equation invariant if then else end foreach in do "
                "done der last pre true false iff done_ Real");
    for (size_t i = 0; i < 18; i++)
        cr_assert_eq((int)L.t[i].kind, MEL_T_REAL + (int)i, "keyword %zu", i);
    cr_assert_eq(L.t[18].kind, MEL_T_ID);
    cr_assert_eq(L.t[19].kind, MEL_T_ID);
    cr_assert_eq(L.t[20].kind, MEL_T_ID);
    cr_assert_eq(L.t[21].kind, MEL_T_EOF);
    mdae_diags_close(&L.d);
}

Test(mel_lex, reads_all_operators_longest_first)
{
    lexed L;
    lex_str(&L, "== = <> <= < >= > + - * / ^ & | ! , .. ( ) [ ] : ;");
    mel__tok want[] = {MEL_T_EQ,    MEL_T_ASSIGN, MEL_T_NE,     MEL_T_LE,     MEL_T_LT,
                       MEL_T_GE,    MEL_T_GT,     MEL_T_PLUS,   MEL_T_MINUS,  MEL_T_STAR,
                       MEL_T_SLASH, MEL_T_CARET,  MEL_T_AMP,    MEL_T_BAR,    MEL_T_BANG,
                       MEL_T_COMMA, MEL_T_DOTDOT, MEL_T_LPAREN, MEL_T_RPAREN, MEL_T_LBRACK,
                       MEL_T_RBRACK, MEL_T_COLON, MEL_T_SEMI,   MEL_T_EOF};
    kinds_are(&L, want, sizeof want / sizeof *want);
    mdae_diags_close(&L.d);
}

Test(mel_lex, reads_integer_decimal_and_exponent_numbers)
{
    lexed L;
    lex_str(&L, "1 1.5 1e-3 2E+2 0.25 007");
    cr_assert_eq(L.t[0].kind, MEL_T_NUM);
    cr_assert(L.t[0].is_int);
    cr_assert_eq(L.t[0].ival, 1);
    cr_assert(!L.t[1].is_int);
    cr_assert_float_eq(L.t[1].value, 1.5, 1e-12);
    cr_assert(!L.t[2].is_int);
    cr_assert_float_eq(L.t[2].value, 1e-3, 1e-15);
    cr_assert_float_eq(L.t[3].value, 200.0, 1e-12);
    cr_assert_float_eq(L.t[4].value, 0.25, 1e-12);
    cr_assert(L.t[5].is_int);
    cr_assert_eq(L.t[5].ival, 7);
    cr_assert_eq(L.d.count, 0);
    mdae_diags_close(&L.d);
}

Test(mel_lex, reads_a_range_as_number_dotdot_number)
{
    lexed L;
    lex_str(&L, "1..N 1 .. 5");
    mel__tok want[] = {MEL_T_NUM, MEL_T_DOTDOT, MEL_T_ID,  MEL_T_NUM,
                       MEL_T_DOTDOT, MEL_T_NUM, MEL_T_EOF};
    kinds_are(&L, want, sizeof want / sizeof *want);
    cr_assert(L.t[0].is_int);
    cr_assert_eq(L.t[0].ival, 1);
    mdae_diags_close(&L.d);
}

Test(mel_lex, skips_line_and_block_comments_which_do_not_nest)
{
    lexed L;
    lex_str(&L, "a // b c\n/* d /* e */ f */ g");
    /* the block comment ends at the first "*" "/": f, '*', '/' and g remain */
    mel__tok want[] = {MEL_T_ID, MEL_T_ID, MEL_T_STAR, MEL_T_SLASH, MEL_T_ID, MEL_T_EOF};
    kinds_are(&L, want, sizeof want / sizeof *want);
    cr_assert_eq(L.t[1].text[0], 'f');
    cr_assert_eq(L.t[4].text[0], 'g');
    mdae_diags_close(&L.d);
}

Test(mel_lex, tracks_lines_columns_and_offsets_through_comments)
{
    lexed L;
    lex_str(&L, "ab\n  cd /* x\n y */ ef\r\n\tgh");
    cr_assert_eq(L.t[0].where.start.line, 1);
    cr_assert_eq(L.t[0].where.start.col, 1);
    cr_assert_eq(L.t[0].where.end.col, 3);
    cr_assert_eq(L.t[1].where.start.line, 2);
    cr_assert_eq(L.t[1].where.start.col, 3);
    cr_assert_eq(L.t[1].where.start.offset, 5);
    cr_assert_eq(L.t[2].where.start.line, 3);
    cr_assert_eq(L.t[2].where.start.col, 7);
    cr_assert_eq(L.t[3].where.start.line, 4);
    cr_assert_eq(L.t[3].where.start.col, 2); /* a tab is one byte */
    cr_assert_eq(L.t[3].where.start.offset, 24);
    mdae_diags_close(&L.d);
}

Test(mel_lex, reports_an_invalid_character_and_continues)
{
    lexed L;
    lex_str(&L, "a @ b");
    mel__tok want[] = {MEL_T_ID, MEL_T_ID, MEL_T_EOF};
    kinds_are(&L, want, 3);
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "invalid character '@'");
    cr_assert_eq(L.d.items[0].where.start.col, 3);
    cr_assert_eq(L.rep.rc, MDAE_E_PARSE);
    mdae_diags_close(&L.d);
}

Test(mel_lex, reports_a_run_of_non_utf8_bytes_once)
{
    lexed L;
    lex_str(&L, "x \xc3\xa9\xff y");
    mel__tok want[] = {MEL_T_ID, MEL_T_ID, MEL_T_EOF};
    kinds_are(&L, want, 3);
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "invalid character (byte 0xc3)");
    cr_assert_eq(L.d.items[0].where.start.col, 3);
    cr_assert_eq(L.d.items[0].where.end.col, 6);
    mdae_diags_close(&L.d);
}

Test(mel_lex, reports_nul_bytes_as_invalid_characters)
{
    lexed L;
    lex_all(&L, "a\0b", 3);
    mel__tok want[] = {MEL_T_ID, MEL_T_ID, MEL_T_EOF};
    kinds_are(&L, want, 3);
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "invalid character (byte 0x00)");
    mdae_diags_close(&L.d);
}

Test(mel_lex, reports_an_unterminated_comment_at_its_start)
{
    lexed L;
    lex_str(&L, "x\n  /* never\nclosed");
    mel__tok want[] = {MEL_T_ID, MEL_T_EOF};
    kinds_are(&L, want, 2);
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "unterminated comment");
    cr_assert_eq(L.d.items[0].where.start.line, 2);
    cr_assert_eq(L.d.items[0].where.start.col, 3);
    mdae_diags_close(&L.d);
}

Test(mel_lex, rejects_an_integer_literal_that_overflows)
{
    lexed L;
    lex_str(&L, "9223372036854775807 9223372036854775808");
    cr_assert_eq(L.t[0].ival, 9223372036854775807LL);
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "integer literal too large");
    cr_assert_eq(L.d.items[0].where.start.col, 21);
    mdae_diags_close(&L.d);
}

Test(mel_lex, rejects_a_real_literal_out_of_range)
{
    lexed L;
    lex_str(&L, "1e999");
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "number too large");
    mdae_diags_close(&L.d);
}

Test(mel_lex, rejects_a_number_glued_to_letters)
{
    lexed L;
    lex_str(&L, "2x");
    cr_assert_eq(L.n, 2);
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "invalid number '2x'");
    mdae_diags_close(&L.d);
}

Test(mel_lex, rejects_a_lone_dot)
{
    lexed L;
    lex_str(&L, "a.b");
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "invalid character '.'");
    cr_assert_eq(L.d.items[0].where.start.col, 2);
    mdae_diags_close(&L.d);
}

Test(mel_lex, rejects_an_identifier_longer_than_256_bytes)
{
    static char src[1 << 20];
    memset(src, 'a', sizeof src);
    lexed L;
    lex_all(&L, src, sizeof src);
    cr_assert_eq(L.n, 2);
    cr_assert_eq(L.t[0].kind, MEL_T_ID);
    cr_assert_eq(L.t[0].len, 256);
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "identifier longer than 256 characters");
    mdae_diags_close(&L.d);
}

Test(mel_lex, ends_with_eof_on_empty_and_blank_input)
{
    lexed L;
    lex_str(&L, "");
    cr_assert_eq(L.n, 1);
    cr_assert_eq(L.t[0].kind, MEL_T_EOF);
    mdae_diags_close(&L.d);
    lex_str(&L, "  \n\t // only a comment");
    cr_assert_eq(L.n, 1);
    cr_assert_eq(L.t[0].where.start.line, 2);
    mdae_diags_close(&L.d);
}

Test(mel_lex, skips_a_utf8_byte_order_mark_at_the_start_only)
{
    lexed L;
    lex_str(&L, "\xef\xbb\xbfx \xef\xbb\xbf");
    cr_assert_eq(L.t[0].kind, MEL_T_ID);
    cr_assert_eq(L.t[0].where.start.col, 1);
    cr_assert_eq(L.t[0].where.start.offset, 3);
    cr_assert_eq(L.d.count, 1); /* the second one is an invalid character */
    cr_assert_eq(L.d.items[0].where.start.col, 3);
    mdae_diags_close(&L.d);
}

Test(mel_lex, rejects_a_number_longer_than_256_characters)
{
    char src[400];
    memset(src, '1', 300);
    memcpy(src + 300, ".5", 3);
    lexed L;
    lex_str(&L, src);
    cr_assert_eq(L.n, 2);
    cr_assert_eq(L.d.count, 1);
    cr_assert_str_eq(L.d.items[0].message, "number longer than 256 characters");
    mdae_diags_close(&L.d);
}

Test(mel_lex, reads_quoted_identifiers_as_identifiers_with_their_content)
{
    lexed L;
    lex_str(&L, "'stop1.v' 'h <= 0' 'it\\'s' 'a\\\\b' 'end' x");
    mel__tok want[] = {MEL_T_ID, MEL_T_ID, MEL_T_ID, MEL_T_ID, MEL_T_ID, MEL_T_ID, MEL_T_EOF};
    kinds_are(&L, want, sizeof want / sizeof *want);
    cr_assert_eq(L.d.count, 0);
    /* the content without its quotes: in the source when it has no escape */
    cr_assert_eq(L.t[0].len, 7);
    cr_assert_eq(memcmp(L.t[0].text, "stop1.v", 7), 0);
    cr_assert_not(L.t[0].escaped);
    cr_assert_eq(L.t[0].where.start.col, 1);
    cr_assert_eq(L.t[0].where.end.col, 10);
    cr_assert_eq(memcmp(L.t[1].text, "h <= 0", 6), 0);
    /* with escapes: the raw content, unquoted by mel__unquote */
    char name[16];
    cr_assert(L.t[2].escaped);
    size_t n = mel__unquote(L.t[2].text, L.t[2].len, name);
    cr_assert_eq(n, 4);
    cr_assert_eq(memcmp(name, "it's", 4), 0);
    n = mel__unquote(L.t[3].text, L.t[3].len, name);
    cr_assert_eq(n, 3);
    cr_assert_eq(memcmp(name, "a\\b", 3), 0);
    /* a quoted keyword is a name */
    cr_assert_eq(L.t[4].len, 3);
    mdae_diags_close(&L.d);
}

Test(mel_lex, reports_broken_quoted_identifiers_and_goes_on)
{
    lexed L;
    lex_str(&L, "'' 'a\\q' 'open\nx");
    mel__tok want[] = {MEL_T_ID, MEL_T_EOF};
    kinds_are(&L, want, sizeof want / sizeof *want);
    cr_assert_eq(L.d.count, 3);
    cr_assert(strstr(L.d.items[0].message, "empty quoted identifier") != NULL);
    cr_assert(strstr(L.d.items[1].message, "invalid escape") != NULL);
    cr_assert_eq(L.d.items[1].where.start.col, 6);
    cr_assert(strstr(L.d.items[2].message, "unterminated quoted identifier") != NULL);
    cr_assert_eq(L.t[0].where.start.line, 2);
    mdae_diags_close(&L.d);
}

Test(mel_lex, rejects_a_quoted_identifier_longer_than_256_bytes)
{
    char src[300];
    src[0] = '\'';
    memset(src + 1, 'a', 257);
    src[258] = '\'';
    lexed L;
    lex_all(&L, src, 259);
    cr_assert_eq(L.n, 1);
    cr_assert_eq(L.d.count, 1);
    cr_assert(strstr(L.d.items[0].message, "longer than 256") != NULL);
    mdae_diags_close(&L.d);
}

Test(mel_lex, reads_a_text_in_double_quotes_of_any_length)
{
    lexed L;
    lex_str(&L, "\"a[1] + \\\"b\\\\\"(x) \"\" parameter");
    mel__tok want[] = {MEL_T_TEXT, MEL_T_LPAREN, MEL_T_ID, MEL_T_RPAREN,
                       MEL_T_TEXT, MEL_T_ID,     MEL_T_EOF};
    kinds_are(&L, want, sizeof want / sizeof *want);
    cr_assert_eq(L.t[0].len, 12);
    cr_assert(L.t[0].escaped);
    cr_assert_eq(memcmp(L.t[0].text, "a[1] + \\\"b\\\\", 12), 0);
    cr_assert_eq(L.t[4].len, 0, "an empty text");
    cr_assert_eq(L.d.count, 0);
    mdae_diags_close(&L.d);
    char big[400];
    memset(big, 'x', sizeof big);
    big[0] = big[sizeof big - 1] = '"';
    lex_all(&L, big, sizeof big);
    cr_assert_eq(L.t[0].kind, MEL_T_TEXT);
    cr_assert_eq(L.t[0].len, sizeof big - 2, "longer than a name");
    cr_assert_eq(L.d.count, 0);
    mdae_diags_close(&L.d);
}
