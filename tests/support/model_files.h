/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/model_files.h -- read a model of the corpus (tests/models/NAME) into
 * memory, for the suites that run on the corpus (engine, ref). Failing to
 * read it fails the test. Header-only (static functions), so each suite
 * stays one executable; tests/support/ is on every suite's include path.
 */
#ifndef MODEL_FILES_H
#define MODEL_FILES_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* The whole of tests/models/NAME, NUL-terminated (free() it); its length in
 * *len unless len is NULL. */
static inline char *tm_read(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/models/%s", MDAE_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
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

static inline char *tm_slurp(const char *name) { return tm_read(name, NULL); }

#endif /* MODEL_FILES_H */
