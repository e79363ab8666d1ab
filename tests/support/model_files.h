/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/model_files.h -- read a model of the corpus (tests/models/NAME),
 * or one of the MSL exports (../shared/msl), into memory, for the suites
 * that run on them (engine, ref), and the options that size a corpus model
 * (-D N=n). Failing to read a corpus model fails the
 * test; an absent MSL export is NULL (the suites skip). Header-only (static functions), so each suite
 * stays one executable; tests/support/ is on every suite's include path.
 */
#ifndef MODEL_FILES_H
#define MODEL_FILES_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mel.h"

/* text with the first `from` replaced by `to` (which must occur: else the
 * test fails); free() it. */
static inline char *tm_replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "%s", from);
    size_t a = (size_t)(at - text), nf = strlen(from), nt = strlen(to), n = strlen(text);
    char *v = malloc(n - nf + nt + 1);
    cr_assert_not_null(v);
    memcpy(v, text, a);
    memcpy(v + a, to, nt);
    memcpy(v + a + nt, at + nf, n - a - nf + 1);
    return v;
}

/* The whole of file `path`, NUL-terminated (free() it); its length in
 * *len unless len is NULL. NULL when the file cannot be opened. */
static inline char *tm_read_path(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_geq(n, 0);
    cr_assert_eq(fseek(f, 0, SEEK_SET), 0);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

/* The whole of tests/models/NAME, as tm_read_path; failing to open it
 * fails the test. */
static inline char *tm_read(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/models/%s", MDAE_SOURCE_DIR, name);
    char *buf = tm_read_path(path, len);
    cr_assert_not_null(buf, "cannot open %s", path);
    return buf;
}

static inline char *tm_slurp(const char *name) { return tm_read(name, NULL); }

/* Options that define N = n (-D N=n) when n >= 0, none otherwise; *def
 * holds the define and must outlive the options. */
static inline mel_options tm_options_n(mel_define *def, long long n)
{
    mel_options o = {0};
    *def = (mel_define){"N", n};
    if (n >= 0) {
        o.defines = def;
        o.n_defines = 1;
    }
    return o;
}

/* text parsed with N = n (n < 0: no define); the parse must succeed (else
 * the test fails, naming what). mel_model_free() it. */
static inline mel_model *tm_parse_n(const char *text, size_t len, long long n, const char *what)
{
    mel_define def;
    mel_options mo = tm_options_n(&def, n);
    mel_model *m = NULL;
    cr_assert_eq(mel_model_parse(text, len, &mo, &m, NULL), MDAE_OK, "%s, N=%lld", what, n);
    return m;
}

/* The corpus model tests/models/NAME parsed with N = n (tm_parse_n). */
static inline mel_model *tm_parse_file_n(const char *name, long long n)
{
    size_t len = 0;
    char *text = tm_read(name, &len);
    mel_model *m = tm_parse_n(text, len, n, name);
    free(text);
    return m;
}

/* The folder of the MSL exports, read in place, never copied: $MDAE_MSL_DIR,
 * or ../shared/msl beside the source tree. */
static inline const char *tm_msl_dir(void)
{
    const char *dir = getenv("MDAE_MSL_DIR");
    return dir ? dir : MDAE_SOURCE_DIR "/../shared/msl";
}

/* The MSL export NAME.bmo (tm_read_path), NULL when it is not there. */
static inline char *tm_read_msl(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.bmo", tm_msl_dir(), name);
    return tm_read_path(path, len);
}

#endif /* MODEL_FILES_H */
