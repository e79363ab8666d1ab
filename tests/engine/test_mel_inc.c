/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_mel_inc.c -- the incidence structure both front-ends
 * read from the flat model's expressions (engine/mel_inc.c, issue 38):
 *  - it stays what it was: every equation's guard and every incidence's
 *    cases (order, next() count, guard, location) of each model of
 *    tests/models and of the parse corpora equal a recorded text
 *    (tests/engine/inc_golden/). The records were made when the structure
 *    came to be read from the expressions, and checked then equal to the
 *    front-ends' own incidence passes of before (main at fb4d40e), but for
 *    the lower-order cases the shared rule drops (a case whose guard equals
 *    a higher case's, or below a TRUE case: "der(x) + x" is one case, as
 *    MEL always had it; 3 Modelica models here). A drift of the lowering
 *    (an unknown read at another order, a branch under another guard, a
 *    use located elsewhere) fails here;
 *  - mel_options.no_expressions, which now drops the expressions after
 *    reading the structure from them, gives the same structure.
 * MDAE_WRITE_GOLDEN=1 rewrites the records (then review the diff).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdae.h"
#include "mel.h"
#include "mo.h"
#include "model_files.h"

static void put_f(mdae_buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    mdae_buf_puts(b, s);
    free(s);
}

/* The structure of m as text: one line per equation (name, guard), one per
 * incidence (unknown, then each case: order, next count, guard, where). */
static void dump(mdae_buf *b, const mel_model *m)
{
    for (uint32_t i = 0; i < m->n_equations; i++) {
        const mel_equation *q = &m->equations[i];
        char *g = mel_guard_format(m, q->guard);
        put_f(b, "%s [%s]\n", q->name, g);
        mdae_free(g);
        for (uint32_t k = 0; k < q->n_incs; k++) {
            const mel_incidence *inc = &q->incs[k];
            put_f(b, "  %s:", m->variables[inc->var].name);
            for (uint32_t c = 0; c < inc->n_cases; c++) {
                const mel_order_case *oc = &inc->cases[c];
                char *h = mel_guard_format(m, oc->guard);
                put_f(b, " o%d n%d [%s] %u:%u-%u:%u;", oc->order, oc->next, h,
                                oc->where.start.line, oc->where.start.col, oc->where.end.line,
                                oc->where.end.col);
                mdae_free(h);
            }
            mdae_buf_puts(b, "\n");
        }
    }
}

/* The structure of the file at path as text (owned: free), or "rc N" when
 * it does not elaborate. */
static char *structure_of(const char *path, bool no_expressions)
{
    size_t len = 0;
    char *text = tm_read_path(path, &len);
    cr_assert_not_null(text, "cannot read %s", path);
    mel_options o = {.recover = true, .no_expressions = no_expressions};
    mdae_diags d;
    mdae_diags_init(&d);
    mel_model *m = NULL;
    int rc = mo_is_modelica(text, len, path) ? mo_model_parse(text, len, &o, &m, &d)
                                             : mel_model_parse(text, len, &o, &m, &d);
    mdae_buf b = {0};
    put_f(&b, "rc %d\n", rc);
    if (m != NULL)
        dump(&b, m);
    cr_assert(!b.oom, "out of memory");
    char *s = strdup(b.p);
    mdae_free(b.p);
    mel_model_free(m);
    mdae_diags_close(&d);
    free(text);
    return s;
}

/* Compare (or, with MDAE_WRITE_GOLDEN, write) the record of dir/name. */
static void check_one(const char *dir, const char *name)
{
    char path[1024], golden[1024];
    snprintf(path, sizeof path, "%s/%s/%s", MDAE_SOURCE_DIR, dir, name);
    snprintf(golden, sizeof golden, "%s/tests/engine/inc_golden/%s", MDAE_SOURCE_DIR, name);
    char *got = structure_of(path, false);
    if (getenv("MDAE_WRITE_GOLDEN") != NULL) {
        FILE *f = fopen(golden, "wb");
        cr_assert_not_null(f, "cannot write %s", golden);
        fputs(got, f);
        fclose(f);
    }
    char *want = tm_read_path(golden, NULL);
    cr_assert_not_null(want, "no record %s (MDAE_WRITE_GOLDEN=1 makes it)", golden);
    if (strcmp(got, want) != 0) {
        size_t line = 1, k = 0;
        for (; got[k] != '\0' && got[k] == want[k]; k++)
            line += got[k] == '\n';
        cr_assert_fail("%s: the structure differs from its record at line %zu", path, line);
    }
    char *without = structure_of(path, true);
    cr_assert_str_eq(without, got, "%s: no_expressions gives another structure", path);
    free(without);
    free(want);
    free(got);
}

/* check_one for each model of a folder (not its README); how many. */
static int check_dir(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MDAE_SOURCE_DIR, dir);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "cannot open %s", path);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strstr(e->d_name, ".md") != NULL)
            continue;
        check_one(dir, e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

Test(mel_inc, models_keep_their_structure)
{
    cr_assert_geq(check_dir("tests/models"), 29);
}

Test(mel_inc, corpora_keep_their_structure)
{
    cr_assert_geq(check_dir("tests/corpus/mel_parse") + check_dir("tests/corpus/mo_parse"), 20);
}
