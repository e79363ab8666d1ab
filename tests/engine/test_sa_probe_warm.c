/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * tests/engine/test_sa_probe_warm.c -- one mode's offsets after an edit from
 * the same mode's before it (engine/sm_warm.h) against the cold solve
 * (sm_offsets), on random graphs and random edits.
 *
 * Each case: a random square graph with a perfect matching (the old
 * version), solved cold for its canonical offsets and a maximum-weight
 * perfect matching; then a random edit (orders changed, edges, rows and
 * columns appearing or going, on random rows, or near one row as an
 * editor's edit is), with some unchanged items listed as changed too (the
 * lists may over-approximate). The warm answer must be the cold one:
 * singular or not, and every active row's offset. A chain of edits then
 * goes on from the new version's cold answer.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "mdae.h"
#include "sm.h"
#include "sm_warm.h"

#define MAX_ROWS 40
#define MAX_EDGES (MAX_ROWS * MAX_ROWS)

/* Both versions over one set of edges: per version, activity and orders. */
typedef struct version {
    bool row[MAX_ROWS], col[MAX_ROWS];
    int sigma[MAX_EDGES]; /* -1: inactive */
} version;

typedef struct pair {
    uint32_t n;
    size_t n_edges;
    size_t row_first[MAX_ROWS + 1], col_first[MAX_ROWS + 1], col_edges[MAX_EDGES];
    uint32_t col[MAX_EDGES], edge_row[MAX_EDGES];
    version v[2]; /* 0: old, 1: new */
    /* The old version's cold answer. */
    int c0[MAX_ROWS];
    bool matched[MAX_EDGES];
    int reads; /* callbacks made */
} pair;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static unsigned below(uint64_t *s, unsigned n) { return (unsigned)(rnd(s) % n); }

/* A random graph of n rows and columns: some edges of each row, and a
 * random permutation's (a perfect matching exists in the old version). */
static void make_graph(pair *p, uint32_t n, uint64_t *s)
{
    static bool has[MAX_ROWS][MAX_ROWS];
    memset(has, 0, sizeof has);
    uint32_t perm[MAX_ROWS];
    for (uint32_t j = 0; j < n; j++)
        perm[j] = j;
    for (uint32_t j = n; j > 1; j--) {
        uint32_t k = below(s, j), t = perm[j - 1];
        perm[j - 1] = perm[k];
        perm[k] = t;
    }
    for (uint32_t i = 0; i < n; i++) {
        has[i][perm[i]] = true;
        unsigned extra = below(s, 4);
        for (unsigned k = 0; k < extra; k++) /* mostly near the diagonal: chains */
            has[i][below(s, 3) == 0 ? below(s, n) : (i + below(s, 3)) % n] = true;
    }
    p->n = n;
    size_t e = 0;
    for (uint32_t i = 0; i < n; i++) {
        p->row_first[i] = e;
        for (uint32_t j = 0; j < n; j++)
            if (has[i][j]) {
                p->col[e] = j;
                p->edge_row[e] = i;
                e++;
            }
    }
    p->row_first[n] = e;
    p->n_edges = e;
    memset(p->col_first, 0, sizeof p->col_first);
    for (size_t k = 0; k < e; k++)
        p->col_first[p->col[k] + 1]++;
    for (uint32_t j = 0; j < n; j++)
        p->col_first[j + 1] += p->col_first[j];
    size_t at[MAX_ROWS + 1];
    memcpy(at, p->col_first, sizeof at);
    for (size_t k = 0; k < e; k++)
        p->col_edges[at[p->col[k]]++] = k;
}

/* The active graph of version v as sm_offsets takes it; rows[r] is the
 * row of local row r, edges[l] the edge of local edge l. */
typedef struct active {
    sm_graph g;
    size_t row_first[MAX_ROWS + 1];
    uint32_t col[MAX_EDGES], rows[MAX_ROWS];
    int sigma[MAX_EDGES];
    size_t edges[MAX_EDGES];
} active;

static void active_graph(const pair *p, const version *v, active *a)
{
    long colmap[MAX_ROWS];
    uint32_t nc = 0, nr = 0;
    for (uint32_t j = 0; j < p->n; j++)
        colmap[j] = v->col[j] ? (long)nc++ : -1;
    size_t ne = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        if (!v->row[i])
            continue;
        a->rows[nr] = i;
        a->row_first[nr++] = ne;
        for (size_t e = p->row_first[i]; e < p->row_first[i + 1]; e++)
            if (v->sigma[e] >= 0 && colmap[p->col[e]] >= 0) {
                a->col[ne] = (uint32_t)colmap[p->col[e]];
                a->sigma[ne] = v->sigma[e];
                a->edges[ne++] = e;
            }
    }
    a->row_first[nr] = ne;
    a->g = (sm_graph){nr, nc, a->row_first, a->col, a->sigma, NULL};
}

/* Cold: whether version v has a perfect matching; if so its offsets into
 * c (per row, -1 inactive) and, when matched is not NULL, a maximum-weight
 * perfect matching. */
static bool cold(const pair *p, const version *v, int *c, bool *matched)
{
    static active a;
    active_graph(p, v, &a);
    sm_ws *ws = sm_ws_new();
    const sm_solution *s;
    cr_assert_eq(sm_offsets(ws, &a.g, &s), MDAE_OK);
    bool perfect = s->perfect;
    for (uint32_t i = 0; i < p->n; i++)
        c[i] = -1;
    if (matched != NULL)
        memset(matched, 0, p->n_edges * sizeof *matched);
    for (uint32_t r = 0; perfect && r < a.g.n_rows; r++) {
        c[a.rows[r]] = s->c[r];
        if (matched != NULL)
            matched[a.edges[s->row_edge[r]]] = true;
    }
    sm_ws_free(ws);
    return perfect;
}

/* ---- The callbacks ------------------------------------------------------------ */

static int cb_sigma(void *ctx, size_t e, bool old)
{
    pair *p = ctx;
    p->reads++;
    return p->v[old ? 0 : 1].sigma[e];
}

static bool cb_row(void *ctx, uint32_t i, bool old)
{
    pair *p = ctx;
    p->reads++;
    return p->v[old ? 0 : 1].row[i];
}

static bool cb_col(void *ctx, uint32_t j, bool old)
{
    pair *p = ctx;
    p->reads++;
    return p->v[old ? 0 : 1].col[j];
}

static int cb_offset(void *ctx, uint32_t i)
{
    pair *p = ctx;
    p->reads++;
    return p->v[0].row[i] ? p->c0[i] : 0;
}

static bool cb_matched(void *ctx, size_t e)
{
    pair *p = ctx;
    p->reads++;
    return p->matched[e];
}

/* ---- Edits ------------------------------------------------------------------------ */

typedef struct edit {
    size_t edges[MAX_EDGES];
    uint32_t rows[MAX_ROWS], cols[MAX_ROWS];
    size_t ne, nr, nc;
} edit;

/* A row near `at` (an editor's edits are local), or anywhere. */
static uint32_t some_row(const pair *p, uint32_t at, bool local, uint64_t *s)
{
    return local ? (at + below(s, 3)) % p->n : below(s, p->n);
}

/* v[1] := v[0] edited, the changes (and some unchanged items) into ed. */
static void random_edit(pair *p, edit *ed, uint64_t *s)
{
    p->v[1] = p->v[0];
    *ed = (edit){0};
    bool local = below(s, 2) == 0;
    uint32_t at = below(s, p->n);
    unsigned changes = 1 + below(s, 3);
    for (unsigned k = 0; k < changes; k++) {
        uint32_t i = some_row(p, at, local, s);
        unsigned what = below(s, 10);
        if (what < 5 && p->row_first[i + 1] > p->row_first[i]) { /* an edge's order or activity */
            size_t e = p->row_first[i] + below(s, (unsigned)(p->row_first[i + 1] - p->row_first[i]));
            int *sg = &p->v[1].sigma[e];
            *sg = below(s, 4) == 0 ? (*sg < 0 ? (int)below(s, 3) : -1) : (int)below(s, 4);
            ed->edges[ed->ne++] = e;
        } else if (what < 7) { /* a row's activity */
            p->v[1].row[i] = !p->v[1].row[i];
            ed->rows[ed->nr++] = i;
        } else if (what < 9) { /* a column's activity */
            uint32_t j = i;
            p->v[1].col[j] = !p->v[1].col[j];
            ed->cols[ed->nc++] = j;
        } else { /* a row and a column swap activity: square again */
            uint32_t j = some_row(p, at, local, s);
            p->v[1].row[i] = !p->v[1].row[i];
            p->v[1].col[j] = !p->v[1].col[j];
            ed->rows[ed->nr++] = i;
            ed->cols[ed->nc++] = j;
        }
    }
    if (below(s, 3) == 0 && p->n_edges > 0) /* listed, unchanged */
        ed->edges[ed->ne++] = below(s, (unsigned)p->n_edges);
    if (below(s, 4) == 0)
        ed->rows[ed->nr++] = below(s, p->n);
}

/* The warm answer against the cold one, for pair p whose old version is
 * solved (c0, matched); true if the new version is perfect. */
static bool check_edit(pair *p, const edit *ed, const char *label, int n_case)
{
    int c1[MAX_ROWS];
    bool perfect = cold(p, &p->v[1], c1, NULL);
    sm_warm_graph g = {p->n, p->n, p->n_edges, p->row_first, p->col, p->edge_row,
                       p->col_first, p->col_edges, p, cb_sigma, cb_row, cb_col, cb_offset,
                       cb_matched};
    sm_warm *w = sm_warm_new(&g, ed->edges, ed->ne, ed->rows, ed->nr, ed->cols, ed->nc);
    cr_assert_not_null(w);
    int got = sm_warm_solve(w, p->n + 1);
    cr_assert_neq(got, SM_WARM_GAVE_UP, "%s %d: gave up under a budget of every row", label,
                  n_case);
    cr_assert_eq(got == SM_WARM_PERFECT, perfect, "%s %d: perfect %d, cold says %d", label,
                 n_case, got == SM_WARM_PERFECT, perfect);
    if (perfect) {
        int c[MAX_ROWS];
        const uint32_t *rows;
        const int *cs;
        size_t n = sm_warm_rows(w, &rows, &cs);
        bool listed[MAX_ROWS] = {false};
        for (size_t k = 0; k < n; k++) {
            cr_assert(p->v[1].row[rows[k]], "%s %d: listed row %u inactive", label, n_case,
                      rows[k]);
            c[rows[k]] = cs[k];
            listed[rows[k]] = true;
        }
        for (uint32_t i = 0; i < p->n; i++) {
            if (listed[i])
                continue;
            cr_assert(!p->v[1].row[i] || p->v[0].row[i], "%s %d: row %u new, unlisted", label,
                      n_case, i);
            c[i] = p->v[1].row[i] ? p->c0[i] : -1;
        }
        for (uint32_t i = 0; i < p->n; i++) {
            cr_assert_eq(c[i], c1[i], "%s %d: c[%u] warm %d, cold %d", label, n_case, i, c[i],
                         c1[i]);
            cr_assert_eq(sm_warm_listed(w, i), listed[i]);
        }
    }
    /* Solving again (stamps) gives the same. */
    cr_assert_eq(sm_warm_solve(w, p->n + 1), got);
    sm_warm_free(w);
    return perfect;
}

/* A fresh pair: random graph and orders, everything active; false if the
 * old version has no perfect matching (cannot happen: a permutation's
 * edges are in it). */
static void fresh(pair *p, uint32_t n, uint64_t *s)
{
    make_graph(p, n, s);
    for (uint32_t i = 0; i < n; i++)
        p->v[0].row[i] = p->v[0].col[i] = true;
    for (size_t e = 0; e < p->n_edges; e++)
        p->v[0].sigma[e] = (int)below(s, 4);
    cr_assert(cold(p, &p->v[0], p->c0, p->matched));
}

Test(sm_warm, random_edits_give_the_cold_offsets)
{
    static pair p;
    static edit ed;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    int perfect = 0;
    for (int n_case = 0; n_case < 4000; n_case++) {
        fresh(&p, 2 + below(&s, MAX_ROWS - 1), &s);
        random_edit(&p, &ed, &s);
        perfect += check_edit(&p, &ed, "random", n_case);
    }
    cr_assert_gt(perfect, 1000, "too few perfect new versions (%d) to test the offsets",
                 perfect);
}

Test(sm_warm, chains_of_edits_give_the_cold_offsets)
{
    static pair p;
    static edit ed;
    uint64_t s = 0xD1B54A32D192ED03ull;
    for (int chain = 0; chain < 300; chain++) {
        fresh(&p, 3 + below(&s, MAX_ROWS - 2), &s);
        for (int step = 0; step < 12; step++) {
            random_edit(&p, &ed, &s);
            if (!check_edit(&p, &ed, "chain", chain * 100 + step))
                continue; /* the next edit starts from the last perfect version */
            p.v[0] = p.v[1];
            cr_assert(cold(&p, &p.v[0], p.c0, p.matched));
        }
    }
}

/* A chain of railcars (the brake's shape): every row reads its neighbours;
 * an edit of one railcar reads a few rows, not the train. */
Test(sm_warm, a_local_edit_reads_a_local_part)
{
    static pair p;
    uint32_t n = MAX_ROWS;
    p.n = n;
    size_t e = 0;
    for (uint32_t i = 0; i < n; i++) { /* row i: columns i - 1, i, i + 1 */
        p.row_first[i] = e;
        for (int d = -1; d <= 1; d++) {
            long j = (long)i + d;
            if (j < 0 || j >= (long)n)
                continue;
            p.col[e] = (uint32_t)j;
            p.edge_row[e] = i;
            p.v[0].sigma[e] = d == 0 ? 1 : 0;
            e++;
        }
        p.v[0].row[i] = p.v[0].col[i] = true;
    }
    p.row_first[n] = e;
    p.n_edges = e;
    memset(p.col_first, 0, sizeof p.col_first);
    for (size_t k = 0; k < e; k++)
        p.col_first[p.col[k] + 1]++;
    for (uint32_t j = 0; j < n; j++)
        p.col_first[j + 1] += p.col_first[j];
    size_t at[MAX_ROWS + 1];
    memcpy(at, p.col_first, sizeof at);
    for (size_t k = 0; k < e; k++)
        p.col_edges[at[p.col[k]]++] = k;
    cr_assert(cold(&p, &p.v[0], p.c0, p.matched));
    static edit ed;
    ed = (edit){0};
    p.v[1] = p.v[0];
    size_t mid = p.row_first[n / 2] + 1; /* row n/2 to column n/2: order 1 -> 2 */
    p.v[1].sigma[mid] = 2;
    ed.edges[ed.ne++] = mid;
    p.reads = 0;
    cr_assert(check_edit(&p, &ed, "railcars", 0));
    cr_assert_lt(p.reads, 2 * 60, "read %d items of %u rows", p.reads, n);
}
