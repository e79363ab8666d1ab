/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/support/cdg_canon.c -- blocks as canonical strings, and the
 * brute-force block triangular form of one mode in the same strings
 * (cdg_canon.h). Shared by test_cdg_brute.c and test_cdg_family.c.
 */
#include "cdg_canon.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strs_add(strs *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->s = realloc(l->s, l->cap * sizeof *l->s);
        cr_assert_not_null(l->s);
    }
    l->s[l->n++] = s;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void strs_sort(strs *l)
{
    if (l->n > 1)
        qsort(l->s, l->n, sizeof *l->s, str_cmp);
}

void strs_free(strs *l)
{
    for (size_t k = 0; k < l->n; k++)
        free(l->s[k]);
    free(l->s);
    memset(l, 0, sizeof *l);
}

int pair_cmp(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    return p->a != q->a ? (p->a < q->a ? -1 : 1) : (p->b != q->b ? (p->b < q->b ? -1 : 1) : 0);
}

/* "E:i.c,..|U:j.d,..|R:j.k,.." from sorted pair lists. */
char *block_str(const pair *e, size_t ne, const pair *u, size_t nu, const pair *r,
                       size_t nr)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    fputs("E:", f);
    for (size_t k = 0; k < ne; k++)
        fprintf(f, "%d.%d,", e[k].a, e[k].b);
    fputs("|U:", f);
    for (size_t k = 0; k < nu; k++)
        fprintf(f, "%d.%d,", u[k].a, u[k].b);
    fputs("|R:", f);
    for (size_t k = 0; k < nr; k++)
        fprintf(f, "%d.%d,", r[k].a, r[k].b);
    fclose(f);
    return buf;
}

char *cdg_block_str(const cdg_graph *g, uint32_t id)
{
    cdg_block b;
    cr_assert_eq(cdg_graph_block(g, id, &b), MDAE_OK);
    pair *p = calloc(2 * b.n_equations + b.n_reads + 1, sizeof *p);
    cr_assert_not_null(p);
    for (size_t k = 0; k < b.n_equations; k++)
        p[k] = (pair){(int)b.equations[k].index, b.equations[k].order};
    for (size_t k = 0; k < b.n_unknowns; k++)
        p[b.n_equations + k] = (pair){(int)b.unknowns[k].index, b.unknowns[k].order};
    for (size_t k = 0; k < b.n_reads; k++)
        p[2 * b.n_equations + k] = (pair){(int)b.reads[k].index, b.reads[k].order};
    char *s = block_str(p, b.n_equations, p + b.n_equations, b.n_unknowns,
                        p + 2 * b.n_equations, b.n_reads);
    free(p);
    return s;
}

char *canon_dup(const char *a)
{
    size_t n = strlen(a) + 1;
    char *s = malloc(n);
    cr_assert_not_null(s);
    return memcpy(s, a, n);
}

char *canon_arrow(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = malloc(na + nb + 5);
    cr_assert_not_null(s);
    memcpy(s, a, na);
    memcpy(s + na, " -> ", 4);
    memcpy(s + na + 4, b, nb + 1);
    return s;
}

/* ---- Brute force: the reference's block triangular form of one mode --------- */

/* Blocks (canonical strings, sorted) and condensation edges (pairs of
 * strings joined by " -> ", sorted) of one valid nonsingular mode, from the
 * reference's Tarjan on the leading-level dependency graph (ref_btf.c). */
void brute_mode(const mel_model *m, const ref_mode *rm, strs *blocks, strs *edges)
{
    uint32_t n = m->n_equations, nv = m->n_variables;
    ref_blocks rb = {0};
    cr_assert_eq(ref_mode_blocks(rm, &rb), MDAE_OK);
    uint32_t nb = rb.n_blocks;
    char **name = calloc((size_t)nb + 1, sizeof *name);
    pair *e = calloc(n + 1, sizeof *e), *u = calloc(n + 1, sizeof *u);
    pair *r = calloc((size_t)n * nv + 1, sizeof *r);
    for (uint32_t k = 0; k < nb; k++) {
        size_t ne = 0, nr = 0;
        for (uint32_t i = 0; i < n; i++)
            if (rb.block_of_eq[i] == (int)k) {
                e[ne] = (pair){(int)i, rm->c[i]};
                u[ne] = (pair){rm->match[i], rm->d[rm->match[i]]};
                ne++;
            }
        qsort(u, ne, sizeof *u, pair_cmp);
        for (uint32_t i = 0; i < n; i++) {
            if (rb.block_of_eq[i] != (int)k)
                continue;
            for (uint32_t j = 0; j < nv; j++) {
                int s = ref_mode_sigma(rm, i, j);
                if (s < 0)
                    continue;
                pair p = {(int)j, rm->c[i] + s};
                if (bsearch(&p, u, ne, sizeof *u, pair_cmp))
                    continue;
                bool known = false;
                for (size_t q = 0; q < nr; q++)
                    known |= !pair_cmp(&r[q], &p);
                if (!known)
                    r[nr++] = p;
            }
        }
        qsort(r, nr, sizeof *r, pair_cmp);
        name[k] = block_str(e, ne, u, ne, r, nr);
        strs_add(blocks, canon_dup(name[k]));
    }
    for (uint32_t a = 0; a < nb; a++)
        for (uint32_t b = 0; b < nb; b++)
            if (rb.dep[(size_t)a * nb + b])
                strs_add(edges, canon_arrow(name[a], name[b]));
    strs_sort(blocks);
    strs_sort(edges);
    for (uint32_t k = 0; k < nb; k++)
        free(name[k]);
    free(name);
    free(e);
    free(u);
    free(r);
    ref_blocks_close(&rb);
}
